//! The writer: output byte-identical to `np.save`.
//!
//! The header is NumPy's: keys sorted, every entry written `'key': repr, `,
//! then `}`, then the growth spaces NumPy ≥ 1.24 adds
//! (`21 - len(repr(shape[0 or -1]))`), then space padding and `\n` so the
//! payload starts at a multiple of 64. The version is 1.0 unless the header
//! does not fit a u16 length (then 2.0) or is not latin-1 encodable (then 3.0),
//! exactly as NumPy chooses. Extra header keys are not written (NumPy refuses them).
//!
//! ```
//! use npyguard::{write::{to_vec, header_bytes}, NpyArray};
//! let a = NpyArray::from_vec(vec![0f64; 6], vec![2, 3]).unwrap();
//! let bytes = to_vec(&a.to_array()).unwrap();
//! assert_eq!(bytes.len(), 128 + 48);
//! assert_eq!(&bytes[10..69], b"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }");
//! assert_eq!(header_bytes(a.header()).len(), 128);
//! ```

use std::io::Write;
use std::path::Path;

use crate::data::array::{Array, NpyArray};
use crate::data::element::Element;
use crate::data::storage::{units_per_element, ArrayData};
use crate::error::{Error, ErrorKind, Result};
use crate::format::header::Header;
use crate::format::preamble::{Version, MAGIC};

/// NumPy's `ARRAY_ALIGN`: the payload starts at a multiple of this.
pub const ARRAY_ALIGN: usize = 64;
/// NumPy's `GROWTH_AXIS_MAX_DIGITS`.
const GROWTH_AXIS_MAX_DIGITS: usize = 21;
/// Bytes encoded per write call for large arrays.
const WRITE_CHUNK: usize = 1 << 20;

/// The header text as `np.save` builds it before padding (dict plus growth spaces).
fn header_text(header: &Header) -> String {
    let mut text = header.to_dict_text();
    let growth_dim = if header.fortran_order() {
        header.shape().last()
    } else {
        header.shape().first()
    };
    if let Some(d) = growth_dim {
        let digits = d.to_string().len();
        text.extend(std::iter::repeat_n(
            ' ',
            GROWTH_AXIS_MAX_DIGITS.saturating_sub(digits),
        ));
    }
    text
}

/// Preamble + padded header for `version`, or `None` when it does not fit or encode.
fn wrap(text: &str, version: Version) -> Option<Vec<u8>> {
    let encoded: Vec<u8> = match version {
        Version::V1_0 | Version::V2_0 => text
            .chars()
            .map(|c| u8::try_from(u32::from(c)).ok())
            .collect::<Option<_>>()?,
        Version::V3_0 => text.as_bytes().to_vec(),
    };
    let len_field = version.len_field_size();
    let hlen = encoded.len().checked_add(1)?;
    let used = MAGIC
        .len()
        .checked_add(2)?
        .checked_add(len_field)?
        .checked_add(hlen)?;
    let padlen = ARRAY_ALIGN.checked_sub(used.checked_rem(ARRAY_ALIGN)?)?;
    let total_header = hlen.checked_add(padlen)?;
    let mut out = Vec::with_capacity(used.checked_add(padlen)?);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&version.bytes());
    match version {
        Version::V1_0 => out.extend_from_slice(&u16::try_from(total_header).ok()?.to_le_bytes()),
        Version::V2_0 | Version::V3_0 => {
            out.extend_from_slice(&u32::try_from(total_header).ok()?.to_le_bytes())
        }
    }
    out.extend_from_slice(&encoded);
    out.extend(std::iter::repeat_n(b' ', padlen));
    out.push(b'\n');
    Some(out)
}

/// The version `np.save` would choose for this header.
pub fn choose_version(header: &Header) -> Version {
    let text = header_text(header);
    [Version::V1_0, Version::V2_0]
        .into_iter()
        .find(|&v| wrap(&text, v).is_some())
        .unwrap_or(Version::V3_0)
}

/// Preamble, header and padding exactly as `np.save` writes them for `header`.
pub fn header_bytes(header: &Header) -> Vec<u8> {
    let text = header_text(header);
    [Version::V1_0, Version::V2_0, Version::V3_0]
        .into_iter()
        .find_map(|v| wrap(&text, v))
        .unwrap_or_default()
}

/// Preamble, header and padding for a chosen format version, as NumPy's
/// `write_array(..., version=v)` writes them; an error if the header does not
/// fit that version (too long for 1.0's u16 length, or not latin-1 for 1.0/2.0).
pub fn header_bytes_with_version(header: &Header, version: Version) -> Result<Vec<u8>> {
    wrap(&header_text(header), version).ok_or_else(|| {
        Error::unplaced(
            ErrorKind::InvalidInput,
            format!("a header that fits format version {version}"),
        )
    })
}

/// Writes `array` to `w` as `np.save` would, in the array's memory order and byte order.
pub fn to_writer<W: Write>(w: W, array: &Array) -> Result<()> {
    write_with_header(w, array, header_bytes(array.header()))
}

/// Writes `array` in format `version` (as NumPy's `write_array(..., version=v)`).
pub fn to_writer_with_version<W: Write>(w: W, array: &Array, version: Version) -> Result<()> {
    write_with_header(
        w,
        array,
        header_bytes_with_version(array.header(), version)?,
    )
}

fn write_with_header<W: Write>(w: W, array: &Array, head: Vec<u8>) -> Result<()> {
    let mut s = StreamWriter::with_head(w, array.header().clone(), &head)?;
    s.write_data(array.data())?;
    s.finish().map(|_| ())
}

/// The bytes `np.save` would write for `array`.
pub fn to_vec(array: &Array) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(array.header().payload_len().saturating_add(128));
    to_writer(&mut out, array)?;
    Ok(out)
}

/// Writes `array` to a new file at `path` (replacing any file there).
pub fn to_path(path: impl AsRef<Path>, array: &Array) -> Result<()> {
    let head = header_bytes(array.header());
    let file = create_for(path.as_ref(), &head, array.header())?;
    write_with_header(std::io::BufWriter::new(file), array, head)
}

/// Writes `array` to a new file at `path` in format `version`.
pub fn to_path_with_version(path: impl AsRef<Path>, array: &Array, version: Version) -> Result<()> {
    let head = header_bytes_with_version(array.header(), version)?;
    let file = create_for(path.as_ref(), &head, array.header())?;
    write_with_header(std::io::BufWriter::new(file), array, head)
}

/// Creates (or truncates) the file at `path` for a `.npy` of `head` and `header`'s payload.
/// With feature `prealloc` (on by default) on Linux, the file's blocks are reserved first
/// (`fallocate` with `FALLOC_FL_KEEP_SIZE`, exactly what NumPy's `tofile` does before its
/// one write): writing into reserved blocks skips the filesystem's allocation on every page
/// written, which made `np.save` 2-3x faster than a plain write here. Where the call is not
/// supported (another filesystem or system), the write simply proceeds.
fn create_for(path: &Path, head: &[u8], header: &Header) -> Result<std::fs::File> {
    let file = std::fs::File::create(path)
        .map_err(|e| Error::os(format!("cannot create {}", path.display()), e))?;
    let len = (head.len() as u64).saturating_add(header.payload_len() as u64);
    reserve(&file, len);
    Ok(file)
}

#[cfg(all(feature = "prealloc", target_os = "linux", not(miri)))]
fn reserve(file: &std::fs::File, len: u64) {
    use rustix::fs::{fallocate, FallocateFlags};
    // A failure (unsupported filesystem, no space yet to reserve) leaves the plain write,
    // which reports any real error itself.
    let _ = fallocate(file, FallocateFlags::KEEP_SIZE, 0, len);
}

// Miri cannot run a raw syscall; the reservation changes no byte written.
#[cfg(not(all(feature = "prealloc", target_os = "linux", not(miri))))]
fn reserve(_file: &std::fs::File, _len: u64) {}

impl<T: Element> NpyArray<T> {
    /// Writes the array to `w` as `np.save` would.
    pub fn write<W: Write>(&self, w: W) -> Result<()> {
        let mut s = StreamWriter::new(w, self.header().clone())?;
        s.write_elements(self.data())?;
        s.finish().map(|_| ())
    }

    /// Writes the array to a new file at `path` (its blocks reserved first: see
    /// [`to_path`]).
    pub fn write_path(&self, path: impl AsRef<Path>) -> Result<()> {
        let head = header_bytes(self.header());
        let file = create_for(path.as_ref(), &head, self.header())?;
        self.write(std::io::BufWriter::new(file))
    }
}

/// A writer for arrays larger than memory: the header (shape, dtype, order) is
/// written first, then elements in memory order as they come; [`finish`](StreamWriter::finish)
/// checks that exactly the declared number arrived.
///
/// ```
/// use npyguard::{write::StreamWriter, Header, Dtype, Endian, ErrorKind};
/// let header = Header::new(Dtype::F32(Endian::Little), vec![3, 2], false).unwrap();
/// let mut w = StreamWriter::new(Vec::new(), header.clone()).unwrap();
/// w.write_elements(&[1.0f32, 2.0]).unwrap();
/// w.write_elements(&[3.0f32, 4.0, 5.0, 6.0]).unwrap();
/// let bytes = w.finish().unwrap();
/// assert_eq!(bytes.len(), 128 + 24);
///
/// let mut short = StreamWriter::new(Vec::new(), header).unwrap();
/// short.write_elements(&[1.0f32]).unwrap();
/// assert_eq!(short.finish().unwrap_err().kind(), ErrorKind::InvalidInput);
/// ```
#[derive(Debug)]
pub struct StreamWriter<W: Write> {
    inner: W,
    header: Header,
    written: usize,
    offset: u64,
    buf: Vec<u8>,
}

impl<W: Write> StreamWriter<W> {
    /// Writes the header for `header` and returns a writer expecting its payload.
    pub fn new(inner: W, header: Header) -> Result<StreamWriter<W>> {
        let head = header_bytes(&header);
        StreamWriter::with_head(inner, header, &head)
    }

    /// Writes `head` (preamble and padded header already rendered) and expects `header`'s payload.
    fn with_head(mut inner: W, header: Header, head: &[u8]) -> Result<StreamWriter<W>> {
        inner.write_all(head).map_err(|e| Error::io(0, e))?;
        Ok(StreamWriter {
            inner,
            header,
            written: 0,
            offset: head.len() as u64,
            buf: Vec::new(),
        })
    }

    /// Checks that `bytes_len` more payload bytes fit the declared shape.
    fn check_room(&self, bytes_len: usize) -> Result<usize> {
        self.written
            .checked_add(bytes_len)
            .filter(|&t| t <= self.header.payload_len())
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidInput,
                    self.offset,
                    format!(
                        "at most {} payload bytes (the declared shape)",
                        self.header.payload_len()
                    ),
                )
                .found(format!("{bytes_len} more"))
            })
    }

    /// Writes `bytes` (already encoded) as the next payload bytes.
    fn put_slice(
        inner: &mut W,
        written: &mut usize,
        offset: &mut u64,
        total: usize,
        bytes: &[u8],
    ) -> Result<()> {
        inner.write_all(bytes).map_err(|e| Error::io(*offset, e))?;
        *written = total;
        *offset = offset.saturating_add(bytes.len() as u64);
        Ok(())
    }

    fn put(&mut self, bytes_len: usize) -> Result<()> {
        let total = self.check_room(bytes_len)?;
        Self::put_slice(
            &mut self.inner,
            &mut self.written,
            &mut self.offset,
            total,
            &self.buf,
        )
    }

    /// Writes elements of type `T` (which must represent the header's dtype) in memory order.
    pub fn write_elements<T: Element>(&mut self, values: &[T]) -> Result<()> {
        let Some(e) = T::endian_of(self.header.dtype()) else {
            return Err(Error::new(
                ErrorKind::TypeMismatch,
                self.offset,
                format!("elements of {}", self.header.dtype().typestr()),
            ));
        };
        // Native byte order: the values' memory is already the encoding (one write, no copy).
        if e == crate::Endian::HOST || T::SIZE == 1 {
            if let Some(bytes) = T::bytes_of(values) {
                let total = self.check_room(bytes.len())?;
                return Self::put_slice(
                    &mut self.inner,
                    &mut self.written,
                    &mut self.offset,
                    total,
                    bytes,
                );
            }
        }
        for chunk in values.chunks(WRITE_CHUNK.checked_div(T::SIZE).unwrap_or(1).max(1)) {
            self.buf.clear();
            T::encode_into(chunk, e, &mut self.buf);
            self.put(self.buf.len())?;
        }
        Ok(())
    }

    /// Writes raw payload bytes, already encoded in the header's byte order (whole elements or not).
    pub fn write_raw(&mut self, bytes: &[u8]) -> Result<()> {
        let total = self.check_room(bytes.len())?;
        Self::put_slice(
            &mut self.inner,
            &mut self.written,
            &mut self.offset,
            total,
            bytes,
        )
    }

    /// Writes dynamic data (any dtype, including strings and records) in memory order,
    /// encoded about 1 MiB at a time (never a second full-size buffer).
    pub fn write_data(&mut self, data: &ArrayData) -> Result<()> {
        let dtype = self.header.dtype();
        let e = dtype.endian().unwrap_or(crate::Endian::Little);
        let per = units_per_element(dtype).max(1);
        let units = WRITE_CHUNK
            .checked_div(dtype.itemsize().max(1))
            .unwrap_or(1)
            .max(1)
            .saturating_mul(per);
        let mut failure = None;
        let encoded = data.encode_chunks(e, units, |chunk| {
            self.write_raw(chunk).map_err(|err| {
                failure = Some(err);
                std::io::Error::other("payload write failed")
            })
        });
        match (encoded, failure) {
            (_, Some(err)) => Err(err),
            (Err(err), None) => Err(Error::io(self.offset, err)),
            (Ok(()), None) => Ok(()),
        }
    }

    /// Checks that the whole payload was written, flushes, and returns the inner writer.
    pub fn finish(mut self) -> Result<W> {
        if self.written != self.header.payload_len() {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                self.offset,
                format!(
                    "{} payload bytes (the declared shape)",
                    self.header.payload_len()
                ),
            )
            .found(format!("{} bytes written", self.written)));
        }
        self.inner.flush().map_err(|e| Error::io(self.offset, e))?;
        Ok(self.inner)
    }
}
