//! Readers: from a byte slice, from any `std::io::Read`, from a path.
//!
//! All three apply the same [`ReadOptions`] and run the same pipeline:
//! preamble → header cap → header text → validated header → file-size limit →
//! payload decode → trailing-bytes check. Memory follows the bytes that exist:
//! the header is read only after its length passed the cap, and the payload
//! buffer grows as bytes arrive (or is reserved at once after the real file
//! length was checked to cover it).
//!
//! ```
//! use npyguard::{read_bytes, write::to_vec, NpyArray, ReadOptions, ArrayData};
//! let bytes = to_vec(&NpyArray::from_vec(vec![1u16, 2, 3], vec![3]).unwrap().to_array()).unwrap();
//! let array = read_bytes(&bytes, &ReadOptions::default()).unwrap();
//! assert_eq!(array.data(), &ArrayData::U16(vec![1, 2, 3].into()));
//! let typed = NpyArray::<u16>::read_bytes(&bytes, &ReadOptions::default()).unwrap();
//! assert_eq!(typed.data(), &[1, 2, 3]);
//! ```

use std::fs::File;
use std::io::{ErrorKind as IoKind, Read};
use std::path::Path;

use crate::data::array::{Array, NpyArray};
use crate::data::buffer::Buffer;
use crate::data::element::Element;
use crate::data::storage::ArrayData;
use crate::error::{Error, ErrorKind, Result};
use crate::format::header::Header;
use crate::format::preamble::Preamble;
use crate::io::checks::{check_opened, check_type, file_too_large, trailing, truncated_file};
use crate::io::decode::{Decoder, Raw, Sink};
use crate::options::ReadOptions;

/// Size of the buffer payload bytes are read through.
pub(crate) const CHUNK: usize = 1 << 18;

/// Reads a whole `.npy` file held in memory.
pub fn read_bytes(bytes: &[u8], opts: &ReadOptions) -> Result<Array> {
    read_slice_into(bytes, opts, None::<fn(&Header) -> Result<()>>, |h| {
        ArrayData::with_capacity(h.dtype(), 0)
    })
    .map(|(h, d)| Array::from_parts(h, d))
}

/// Reads a `.npy` file from a stream, stopping right after the payload
/// (and, unless trailing bytes are allowed, checking that the stream ends there).
pub fn read_from<R: Read>(reader: R, opts: &ReadOptions) -> Result<Array> {
    read_array(reader, opts, None)
}

/// The dynamic read of every entry point: `file_len` is the length a regular file was
/// checked to have (then the payload is reserved at once), `None` for a stream.
fn read_array<R: Read>(reader: R, opts: &ReadOptions, file_len: Option<u64>) -> Result<Array> {
    read_stream(
        reader,
        opts,
        file_len,
        |_| Ok(()),
        |h| ArrayData::with_capacity(h.dtype(), 0),
    )
    .map(|(h, d)| Array::from_parts(h, d))
}

/// Reads a `.npy` file from a path. The file's size is checked against
/// `max_file_bytes` before reading, and the read itself is bounded, so a file
/// that grows meanwhile cannot push memory past the limit.
pub fn read_path(path: impl AsRef<Path>, opts: &ReadOptions) -> Result<Array> {
    let path = path.as_ref();
    let file =
        File::open(path).map_err(|e| Error::os(format!("cannot open {}", path.display()), e))?;
    read_file(file, opts)
}

/// Reads a `.npy` file's header and its payload bytes exactly as the file holds them
/// (values in the file's byte order and memory order), checked as [`read_path`] checks
/// them: the same limits, errors and offsets. For handing a payload to a runtime that
/// decodes it itself (NumPy's `frombuffer`, a database's vectors) without a second copy; a
/// payload of [`ReadOptions::huge_page_threshold`] bytes or more is in huge-page memory.
///
/// ```
/// use npyguard::{read_raw_path, write, Dtype, Endian, NpyArray, ReadOptions};
/// let dir = std::env::temp_dir().join(format!("npyguard-raw-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("be.npy");
/// NpyArray::from_vec_with(vec![1u16, 2], vec![2], false, Endian::Big).unwrap().write_path(&path).unwrap();
/// let (header, payload) = read_raw_path(&path, &ReadOptions::default()).unwrap();
/// assert_eq!(header.dtype(), &Dtype::U16(Endian::Big));
/// assert_eq!(&payload[..], &[0, 1, 0, 2]);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn read_raw_path(path: impl AsRef<Path>, opts: &ReadOptions) -> Result<(Header, Buffer<u8>)> {
    let (file, len) = open_checked(path.as_ref(), opts)?;
    read_stream(file, opts, len, |_| Ok(()), |_| Raw::default()).map(|(h, raw)| (h, raw.0))
}

/// [`read_raw_path`] from any stream (nothing reserved beyond 1 MiB before the bytes arrive).
pub fn read_raw_from<R: Read>(reader: R, opts: &ReadOptions) -> Result<(Header, Buffer<u8>)> {
    read_stream(reader, opts, None, |_| Ok(()), |_| Raw::default()).map(|(h, raw)| (h, raw.0))
}

/// [`read_raw_from`] of a stream that holds `len` bytes when `len` is known and backed (an
/// archive member's declared size, which its real bytes can produce): the payload is then
/// reserved whole once the header is checked against `len`; otherwise it grows as bytes arrive.
#[cfg(feature = "npz")]
pub(crate) fn read_raw_sized<R: Read>(
    reader: R,
    opts: &ReadOptions,
    len: Option<u64>,
) -> Result<(Header, Buffer<u8>)> {
    read_stream(reader, opts, len, |_| Ok(()), |_| Raw::default()).map(|(h, raw)| (h, raw.0))
}

/// Reads only the preamble and header from a stream (the payload is not touched).
pub fn read_header<R: Read>(mut reader: R, opts: &ReadOptions) -> Result<Header> {
    let mut consumed = 0u64;
    read_header_from(&mut reader, opts, &mut consumed)
}

impl<T: Element> NpyArray<T> {
    /// Reads a typed array from memory; [`ErrorKind::TypeMismatch`] if `T` cannot represent the dtype.
    pub fn read_bytes(bytes: &[u8], opts: &ReadOptions) -> Result<NpyArray<T>> {
        read_slice_into(bytes, opts, Some(check_type::<T>), |_| Buffer::<T>::new())
            .map(|(h, d)| NpyArray::from_parts(h, d))
    }

    /// Reads a typed array from a stream.
    pub fn read<R: Read>(reader: R, opts: &ReadOptions) -> Result<NpyArray<T>> {
        read_stream(reader, opts, None, check_type::<T>, |_| Buffer::<T>::new())
            .map(|(h, d)| NpyArray::from_parts(h, d))
    }

    /// Reads a typed array from a path.
    pub fn read_path(path: impl AsRef<Path>, opts: &ReadOptions) -> Result<NpyArray<T>> {
        let (file, len) = open_checked(path.as_ref(), opts)?;
        read_stream(file, opts, len, check_type::<T>, |_| Buffer::<T>::new())
            .map(|(h, d)| NpyArray::from_parts(h, d))
    }

    /// Reads the values of a `.npy` stream into `buf`, reusing its allocation
    /// (for ingestion loops that read many files): `buf` is cleared, then holds
    /// the values in the file's memory order. Returns the header.
    ///
    /// On error `buf` is left empty (its allocation may be released).
    ///
    /// ```
    /// use npyguard::{NpyArray, ReadOptions, write::to_vec};
    /// let file = to_vec(&NpyArray::from_vec(vec![1.0f32, 2.0], vec![2]).unwrap().to_array()).unwrap();
    /// let mut buf: Vec<f32> = Vec::with_capacity(1024);
    /// for _ in 0..3 {
    ///     let header = NpyArray::read_into(&file[..], &ReadOptions::default(), &mut buf).unwrap();
    ///     assert_eq!((header.shape(), buf.as_slice()), (&[2][..], &[1.0, 2.0][..]));
    ///     assert!(buf.capacity() >= 1024, "the allocation is reused");
    /// }
    /// ```
    pub fn read_into<R: Read>(reader: R, opts: &ReadOptions, buf: &mut Vec<T>) -> Result<Header> {
        let taken = crate::io::decode::Reused::new(std::mem::take(buf));
        let (header, mut data) = read_stream(reader, opts, None, check_type::<T>, |_| taken)?;
        if header.element_count() == 0 {
            data.vec.clear();
        }
        *buf = data.vec;
        Ok(header)
    }

    /// [`read_into`](NpyArray::read_into) from a path (size checked first, bounded read).
    pub fn read_path_into(
        path: impl AsRef<Path>,
        opts: &ReadOptions,
        buf: &mut Vec<T>,
    ) -> Result<Header> {
        let (file, len) = open_checked(path.as_ref(), opts)?;
        let taken = crate::io::decode::Reused::new(std::mem::take(buf));
        let (header, mut data) = read_stream(file, opts, len, check_type::<T>, |_| taken)?;
        if header.element_count() == 0 {
            data.vec.clear();
        }
        *buf = data.vec;
        Ok(header)
    }
}

fn open_checked(path: &Path, opts: &ReadOptions) -> Result<(File, Option<u64>)> {
    let file =
        File::open(path).map_err(|e| Error::os(format!("cannot open {}", path.display()), e))?;
    let len = file_length(&file, opts)?;
    Ok((file, len))
}

/// The length of an open file, checked against `max_file_bytes`: `Some` for a regular
/// file, `None` for a FIFO, socket or device (read as a stream, the limit enforced on the
/// bytes that arrive). A directory is an I/O error.
pub fn file_length(file: &File, opts: &ReadOptions) -> Result<Option<u64>> {
    let meta = file
        .metadata()
        .map_err(|e| Error::os("cannot read the file's metadata", e))?;
    if meta.is_dir() {
        return Err(Error::os(
            "cannot read a directory",
            std::io::Error::other("is a directory"),
        ));
    }
    if !meta.is_file() {
        return Ok(None);
    }
    let len = meta.len();
    if let Some(limit) = opts.max_file_bytes {
        if len > limit {
            return Err(file_too_large(limit, len));
        }
    }
    Ok(Some(len))
}

/// Reads an array from a file opened by the caller (a path opened once: see
/// [`file_length`] for what is checked before the first byte is read).
pub fn read_file(file: File, opts: &ReadOptions) -> Result<Array> {
    let len = file_length(&file, opts)?;
    read_array(file, opts, len)
}

fn read_slice_into<S: Sink>(
    bytes: &[u8],
    opts: &ReadOptions,
    check: Option<fn(&Header) -> Result<()>>,
    make: impl FnOnce(&Header) -> S,
) -> Result<(Header, S)> {
    if let Some(limit) = opts.max_file_bytes {
        if bytes.len() as u64 > limit {
            return Err(file_too_large(limit, bytes.len() as u64));
        }
    }
    let header = Header::from_bytes(bytes, opts)?;
    check_opened(&header, opts, check)?;
    let start = usize::try_from(header.payload_offset()).unwrap_or(usize::MAX);
    let payload = bytes.get(start..).unwrap_or_default();
    let sink = make(&header);
    let mut dec = Decoder::with_sink(header, sink);
    let need = dec.remaining();
    let whole = payload.get(..need);
    // The whole payload is here: numeric values are copied straight into their memory.
    let direct = match whole {
        Some(mut exact) => dec.read_direct(&mut exact, opts.huge_page_threshold)?,
        None => false,
    };
    let used = if direct {
        need
    } else {
        if whole.is_some() {
            dec.reserve_all();
        }
        dec.feed(payload)?
    };
    dec.check_complete()?;
    if used < payload.len() && !opts.allow_trailing_bytes {
        return Err(trailing(dec.offset()));
    }
    Ok(dec.into_parts())
}

/// Fills `buf` from `r` as far as the input goes; returns the bytes read.
pub(crate) fn read_full<R: Read>(r: &mut R, buf: &mut [u8], offset: u64) -> Result<usize> {
    let mut filled = 0usize;
    while let Some(rest) = buf.get_mut(filled..) {
        if rest.is_empty() {
            break;
        }
        match r.read(rest) {
            Ok(0) => break,
            Ok(n) => filled = filled.saturating_add(n),
            Err(e) if e.kind() == IoKind::Interrupted => continue,
            Err(e) => return Err(Error::io(offset.saturating_add(filled as u64), e)),
        }
    }
    Ok(filled)
}

fn read_header_from<R: Read>(r: &mut R, opts: &ReadOptions, consumed: &mut u64) -> Result<Header> {
    let mut pre = [0u8; Preamble::MAX_LEN];
    // Read the 10 bytes every version has, then the rest if the version needs them.
    let mut have = 0usize;
    let preamble = loop {
        if let Some(p) = Preamble::parse(pre.get(..have).unwrap_or_default())? {
            break p;
        }
        let want = if have < 10 { 10 } else { Preamble::MAX_LEN };
        let Some(slot) = pre.get_mut(have..want) else {
            return Err(Error::new(
                ErrorKind::Truncated,
                have as u64,
                "a complete preamble",
            ));
        };
        let n = read_full(r, slot, have as u64)?;
        have = have.saturating_add(n);
        if n < slot.len() {
            // Let the preamble parser report a bad byte first; otherwise it is truncated.
            Preamble::parse(pre.get(..have).unwrap_or_default())?;
            return Err(
                Error::new(ErrorKind::Truncated, have as u64, "a complete preamble")
                    .found("end of input"),
            );
        }
    };
    preamble.check_header_cap(opts.max_header_bytes)?;
    // The preamble loop reads exactly the preamble (10 bytes, then 2 more only for 2.0/3.0),
    // so the header starts at the next byte. Its buffer grows only as bytes arrive.
    let header_len = preamble.header_len as usize;
    let mut text = Vec::with_capacity(header_len.min(CHUNK));
    let got = r
        .take(header_len as u64)
        .read_to_end(&mut text)
        .map_err(|e| Error::io(preamble.header_offset(), e))?;
    *consumed = preamble.header_offset().saturating_add(text.len() as u64);
    if got < header_len {
        return Err(Error::new(
            ErrorKind::Truncated,
            *consumed,
            format!(
                "{} header bytes (the declared header length)",
                preamble.header_len
            ),
        )
        .found("end of input"));
    }
    Header::parse(preamble, &text, opts)
}

fn read_stream<R: Read, S: Sink>(
    reader: R,
    opts: &ReadOptions,
    file_len: Option<u64>,
    check: fn(&Header) -> Result<()>,
    make: impl FnOnce(&Header) -> S,
) -> Result<(Header, S)> {
    // Bound the read itself: never more than the limit plus one byte (to detect excess).
    let bound = opts
        .max_file_bytes
        .map_or(u64::MAX, |l| l.saturating_add(1));
    let mut r = reader.take(bound);
    let mut consumed = 0u64;
    let header = read_header_from(&mut r, opts, &mut consumed)?;
    check_opened(&header, opts, Some(check))?;
    let payload_end = header
        .payload_offset()
        .saturating_add(header.payload_len() as u64);
    if let Some(len) = file_len {
        if len < payload_end {
            return Err(truncated_file(payload_end, len));
        }
    }
    let sink = make(&header);
    let mut dec = Decoder::with_sink(header, sink);
    if file_len.is_some() {
        dec.reserve_all();
    }
    // With the real file length known to cover the payload, typed numeric buffers are
    // filled straight from the file (one copy, as `std::fs::read` does).
    let direct = file_len.is_some() && dec.read_direct(&mut r, opts.huge_page_threshold)?;
    let mut buf = if direct {
        Vec::new()
    } else {
        vec![0u8; dec.remaining().min(CHUNK)]
    };
    while !direct && !dec.is_complete() {
        let want = dec.remaining().min(buf.len());
        let slot = buf.get_mut(..want).unwrap_or_default();
        let n = read_full(&mut r, slot, dec.offset())?;
        if n == 0 {
            break;
        }
        dec.feed(slot.get(..n).unwrap_or_default())?;
        if n < want {
            break;
        }
    }
    dec.check_complete()?;
    if !opts.allow_trailing_bytes {
        let mut one = [0u8; 1];
        if read_full(&mut r, &mut one, dec.offset())? > 0 {
            return Err(trailing(dec.offset()));
        }
    }
    Ok(dec.into_parts())
}
