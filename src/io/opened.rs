//! The one checked opening of every input. Every door of the library (whole reads, raw
//! reads, validation, views, row ranges, row chunks, archive members, the appender) and of
//! the front ends (the CLI, the Python package, the DuckDB extension) starts here: an
//! [`Opened`] input is one whose header passed every check a read makes before its first
//! payload byte, in this one order (`checked`, the one place they are written):
//!
//! 1. the input's length against `max_file_bytes`, when the length is known (a slice, a
//!    regular file, a seekable input, an archive member's declared size);
//! 2. the preamble, the header-length cap, the header text and its validation;
//! 3. the element type a typed door asks for, then the size the header claims against
//!    `max_file_bytes` ([`check_opened`]);
//! 4. when the length is known: a payload the input does not cover, bytes after it
//!    ([`check_length`]).
//!
//! What a door does next (decode, borrow, seek to rows, stream chunks, append) is the
//! door's own module: `io::read`, `io::view`, `io::rows`, `io::append` and `npz` each add
//! their methods to [`Opened`]. A stream (length unknown) meets the same checks as its
//! bytes arrive: the payload's end by [`fill`], the input's end by [`check_end`].

#[cfg(feature = "std")]
use std::fs::File;
#[cfg(feature = "std")]
use std::io::{ErrorKind as IoKind, Read, Seek, SeekFrom};
#[cfg(feature = "std")]
use std::path::Path;

use crate::data::element::Element;
use crate::error::{Error, ErrorKind, Result};
use crate::format::header::Header;
#[cfg(feature = "std")]
use crate::format::preamble::Preamble;
#[cfg(feature = "std")]
use crate::io::checks::trailing;
use crate::io::checks::{check_length, check_opened, check_size, check_type};
#[cfg(feature = "std")]
use crate::io::decode::{Decoder, Sink};
use crate::options::ReadOptions;

/// Payload bytes read (or encoded) per step by every streaming door: about 256 KiB.
#[cfg(feature = "std")]
pub(crate) const CHUNK: usize = 1 << 18;

/// Whole elements of `itemsize` bytes in about `bytes` bytes (at least one): the one chunk
/// sizing of the readers, the validator and the appender.
#[cfg(feature = "std")]
pub(crate) fn elements_in(bytes: usize, itemsize: usize) -> usize {
    bytes.checked_div(itemsize.max(1)).unwrap_or(bytes).max(1)
}

/// An input whose header passed every check a read makes before the payload (see the
/// module's list), positioned at the payload's first byte: a slice, a file, a stream or an
/// archive member. It holds the validated [`Header`], the input, and the input's length
/// when known; the doors take it from here ([`read`](Opened::read),
/// [`read_raw`](Opened::read_raw), [`validate`](Opened::validate),
/// [`into_view`](Opened::into_view), [`into_rows`](Opened::into_rows),
/// [`into_chunks`](Opened::into_chunks), [`into_parts`](Opened::into_parts)).
///
/// ```
/// use npyguard::{write::to_vec, ArrayData, ErrorKind, NpyArray, Opened, ReadOptions};
/// let file = to_vec(&NpyArray::from_vec((0..6u8).collect(), vec![3, 2]).unwrap().to_array()).unwrap();
/// let opts = ReadOptions::default();
/// // Open once; every check before the payload has run.
/// let opened = Opened::stream(&file[..], &opts).unwrap();
/// assert_eq!(opened.header().shape(), &[3, 2]);
/// assert_eq!(opened.read().unwrap().data(), &ArrayData::U8((0..6).collect::<Vec<_>>().into()));
/// // A known length is checked before the payload is touched.
/// let err = Opened::from_slice(&file[..file.len() - 1], &opts).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::Truncated);
/// ```
#[derive(Debug)]
pub struct Opened<R> {
    input: R,
    header: Header,
    /// Bytes the input holds from its first byte, when known (checked by [`check_length`]).
    len: Option<u64>,
    /// Whether `len` is backed by real bytes, so the payload may be reserved whole at once
    /// (a file's or slice's length; an archive member's declared size only when its
    /// compressed bytes can produce it).
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    backed: bool,
    opts: ReadOptions,
}

/// The checks of every door, in their one order (see the module): `len` is the input's
/// length when known, `want` the element type a typed door asks for, `parse` reads the
/// header from the input (from a slice or a stream). Every [`Opened`] is made here.
fn checked(
    len: Option<u64>,
    opts: &ReadOptions,
    want: Option<fn(&Header) -> Result<()>>,
    parse: impl FnOnce() -> Result<Header>,
) -> Result<Header> {
    if let Some(len) = len {
        check_size(len, opts)?;
    }
    let header = parse()?;
    check_opened(&header, opts, want)?;
    if let Some(len) = len {
        check_length(&header, len, opts)?;
    }
    Ok(header)
}

impl<R> Opened<R> {
    /// The validated header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The options the input was opened with.
    pub fn options(&self) -> &ReadOptions {
        &self.opts
    }

    /// The input's length in bytes, when it was known when opened (and then checked to
    /// hold exactly the header and the payload, or more when trailing bytes are allowed).
    pub fn input_len(&self) -> Option<u64> {
        self.len
    }

    /// The header and the input, positioned at the payload's first byte (for a front end
    /// that decodes the payload itself, with [`PayloadDecoder`](crate::PayloadDecoder)).
    pub fn into_parts(self) -> (Header, R) {
        (self.header, self.input)
    }

    /// The same input seen as a 1-D array of all its elements (for checks that need no
    /// rows: one chunk per about [`CHUNK`] bytes whatever the order).
    #[cfg(feature = "std")]
    pub(crate) fn flattened(mut self) -> Opened<R> {
        self.header = self.header.flattened();
        self
    }

    /// `input` with the header an [`Opened`] over a borrow of it (`&mut input`) checked: an
    /// archive member's guard is opened through `&mut` so that a refusal keeps the guard's
    /// own typed error, then owned by the chunks that read on.
    #[cfg(feature = "npz")]
    pub(crate) fn reunited(input: R, header: Header, opts: &ReadOptions) -> Opened<R> {
        Opened {
            input,
            header,
            len: None,
            backed: false,
            opts: opts.clone(),
        }
    }

    /// Marks the known length as backed by real bytes (measured from the input itself: a
    /// file's metadata, a seek to the end; or an archive member's declared size that its
    /// compressed bytes can produce), so the payload is reserved whole at once. A length
    /// a caller only declares ([`Opened::new`]) is checked but never sizes an allocation.
    #[cfg(feature = "std")]
    pub(crate) fn backed_by_bytes(mut self) -> Opened<R> {
        self.backed = self.len.is_some();
        self
    }
}

impl<'a> Opened<&'a [u8]> {
    /// Opens a whole `.npy` file held in memory: its length is known, so every check runs
    /// here (a payload the bytes do not cover is [`ErrorKind::Truncated`], bytes after it
    /// [`ErrorKind::TrailingBytes`] unless allowed). The input is the bytes from the payload on.
    pub fn from_slice(bytes: &'a [u8], opts: &ReadOptions) -> Result<Opened<&'a [u8]>> {
        Opened::slice_as(bytes, opts, None)
    }

    /// [`Opened::from_slice`] for a typed door: the element type is checked in the order above.
    pub(crate) fn slice_as(
        bytes: &'a [u8],
        opts: &ReadOptions,
        want: Option<fn(&Header) -> Result<()>>,
    ) -> Result<Opened<&'a [u8]>> {
        let len = bytes.len() as u64;
        let header = checked(Some(len), opts, want, || Header::from_bytes(bytes, opts))?;
        let start = usize::try_from(header.payload_offset()).unwrap_or(usize::MAX);
        let input = bytes
            .get(start..)
            .ok_or_else(|| internal("the payload inside the checked length"))?;
        Ok(Opened {
            input,
            header,
            len: Some(len),
            backed: true,
            opts: opts.clone(),
        })
    }

    /// [`Opened::from_slice`] for a door typed by `T`.
    pub(crate) fn slice_of<T: Element>(
        bytes: &'a [u8],
        opts: &ReadOptions,
    ) -> Result<Opened<&'a [u8]>> {
        Opened::slice_as(bytes, opts, Some(check_type::<T>))
    }

    /// The payload's bytes (exactly [`Header::payload_len`] of them: the length was checked).
    pub(crate) fn payload(&self) -> Result<&'a [u8]> {
        self.input
            .get(..self.header.payload_len())
            .ok_or_else(|| internal("the payload inside the checked length"))
    }
}

#[cfg(feature = "std")]
impl<R: Read> Opened<R> {
    /// Opens the `.npy` that starts at `input`'s position. `len` is the number of bytes the
    /// input declares it holds from there (a size from metadata, an archive member's
    /// declared size): it is checked before the first byte is read, and the header against
    /// it; `None` for a stream, whose bytes are checked as they arrive. A declared length
    /// never sizes an allocation (the payload grows as bytes arrive): only lengths measured
    /// from the input itself ([`Opened::file`], [`Opened::seekable`], [`Opened::from_slice`])
    /// reserve the payload at once.
    pub fn new(input: R, len: Option<u64>, opts: &ReadOptions) -> Result<Opened<R>> {
        Opened::open_as(input, len, opts, None)
    }

    /// [`Opened::new`] of a stream (length unknown).
    pub fn stream(input: R, opts: &ReadOptions) -> Result<Opened<R>> {
        Opened::open_as(input, None, opts, None)
    }

    /// [`Opened::stream`] for a door typed by `T`.
    pub(crate) fn stream_of<T: Element>(input: R, opts: &ReadOptions) -> Result<Opened<R>> {
        Opened::open_as(input, None, opts, Some(check_type::<T>))
    }

    /// [`Opened::new`] for a typed door: the element type is checked in the order above.
    pub(crate) fn open_as(
        mut input: R,
        len: Option<u64>,
        opts: &ReadOptions,
        want: Option<fn(&Header) -> Result<()>>,
    ) -> Result<Opened<R>> {
        let header = checked(len, opts, want, || read_header_from(&mut input, opts))?;
        Ok(Opened {
            input,
            header,
            len,
            backed: false,
            opts: opts.clone(),
        })
    }

    /// Decodes the payload into `sink`, then checks the input's end: the payload reserved
    /// whole (and numeric values read straight into it) when the length is known and
    /// backed, otherwise grown as bytes arrive.
    pub(crate) fn decode<S: Sink>(mut self, sink: S) -> Result<(Header, S)> {
        let mut dec = Decoder::with_sink(self.header, sink);
        if self.backed {
            dec.reserve_all();
        }
        let huge = self.opts.huge_page_threshold;
        if !(self.backed && dec.read_direct(&mut self.input, huge)?) {
            fill(&mut dec, &mut self.input)?;
        }
        dec.check_complete()?;
        check_end(
            &mut self.input,
            dec.offset(),
            self.opts.allow_trailing_bytes,
        )?;
        Ok(dec.into_parts())
    }
}

#[cfg(feature = "std")]
impl Opened<File> {
    /// Opens the file at `path` ([`Opened::file`]); an OS error names the path.
    pub fn path(path: impl AsRef<Path>, opts: &ReadOptions) -> Result<Opened<File>> {
        let path = path.as_ref();
        let file = File::open(path)
            .map_err(|e| Error::os(format!("cannot open {}", path.display()), e))?;
        Opened::file(file, opts)
    }

    /// Opens a file opened by the caller (a path opened once): a regular file's length is
    /// checked against `max_file_bytes` before the first byte is read, a FIFO, socket or
    /// device is read as a stream ([`file_length`]).
    pub fn file(file: File, opts: &ReadOptions) -> Result<Opened<File>> {
        let len = file_length(&file, opts)?;
        Ok(Opened::new(file, len, opts)?.backed_by_bytes())
    }

    /// [`Opened::file`] for a door typed by `T`.
    pub(crate) fn file_of<T: Element>(file: File, opts: &ReadOptions) -> Result<Opened<File>> {
        let len = file_length(&file, opts)?;
        Ok(Opened::open_as(file, len, opts, Some(check_type::<T>))?.backed_by_bytes())
    }

    /// [`Opened::path`] for a door typed by `T`.
    pub(crate) fn path_of<T: Element>(
        path: impl AsRef<Path>,
        opts: &ReadOptions,
    ) -> Result<Opened<File>> {
        let path = path.as_ref();
        let file = File::open(path)
            .map_err(|e| Error::os(format!("cannot open {}", path.display()), e))?;
        Opened::file_of::<T>(file, opts)
    }
}

#[cfg(feature = "std")]
impl<R: Read + Seek> Opened<R> {
    /// Opens the `.npy` that starts at a seekable input's position: its length (to the
    /// input's end) is measured first and checked as a file's is.
    pub fn seekable(mut input: R, opts: &ReadOptions) -> Result<Opened<R>> {
        let base = input.stream_position().map_err(|e| Error::io(0, e))?;
        let end = input.seek(SeekFrom::End(0)).map_err(|e| Error::io(0, e))?;
        input
            .seek(SeekFrom::Start(base))
            .map_err(|e| Error::io(0, e))?;
        Ok(Opened::new(input, Some(end.saturating_sub(base)), opts)?.backed_by_bytes())
    }

    /// Stream position of the input's first byte (the input is at the payload's start),
    /// after checking the input's length as [`Opened::seekable`] does if it was opened as a
    /// stream: a door that seeks (rows) always knows the length it reads within.
    pub(crate) fn base(&mut self) -> Result<u64> {
        let at = self.input.stream_position().map_err(|e| Error::io(0, e))?;
        let base = at.saturating_sub(self.header.payload_offset());
        if self.len.is_none() {
            let end = self
                .input
                .seek(SeekFrom::End(0))
                .map_err(|e| Error::io(0, e))?;
            self.input
                .seek(SeekFrom::Start(at))
                .map_err(|e| Error::io(0, e))?;
            let len = end.saturating_sub(base);
            check_length(&self.header, len, &self.opts)?;
            self.len = Some(len);
        }
        Ok(base)
    }
}

/// The length of an open file, checked against `max_file_bytes`: `Some` for a regular
/// file, `None` for a FIFO, socket or device (read as a stream, the limit enforced on the
/// bytes that arrive). A directory is an I/O error.
#[cfg(feature = "std")]
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
    check_size(meta.len(), opts)?;
    Ok(Some(meta.len()))
}

/// Reads the preamble and the header from a stream, exactly their bytes (the stream is
/// then at the payload's start): the header-length cap is checked before the header's
/// buffer is allocated, which then grows only as bytes arrive.
#[cfg(feature = "std")]
pub(crate) fn read_header_from<R: Read>(r: &mut R, opts: &ReadOptions) -> Result<Header> {
    let preamble = read_preamble(r)?;
    preamble.check_header_cap(opts.max_header_bytes)?;
    let header_len = preamble.header_len as usize;
    let mut text = Vec::with_capacity(header_len.min(CHUNK));
    let got = r
        .take(header_len as u64)
        .read_to_end(&mut text)
        .map_err(|e| Error::io(preamble.header_offset(), e))?;
    if got < header_len {
        let at = preamble.header_offset().saturating_add(got as u64);
        return Err(Error::new(
            ErrorKind::Truncated,
            at,
            format!(
                "{} header bytes (the declared header length)",
                preamble.header_len
            ),
        )
        .found("end of input"));
    }
    Header::parse(preamble, &text, opts)
}

/// The preamble: the 10 bytes every version has, then 2 more only for 2.0 and 3.0.
#[cfg(feature = "std")]
fn read_preamble<R: Read>(r: &mut R) -> Result<Preamble> {
    let mut pre = [0u8; Preamble::MAX_LEN];
    let mut have = 0usize;
    loop {
        if let Some(p) = Preamble::parse(pre.get(..have).unwrap_or_default())? {
            return Ok(p);
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
    }
}

/// Fills `buf` from `r` as far as the input goes; returns the bytes read.
#[cfg(feature = "std")]
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

/// The one fill loop: feeds `dec` from `r` through a buffer of at most [`CHUNK`] bytes until
/// the payload is complete or the input ends (the caller then checks completeness).
#[cfg(feature = "std")]
pub(crate) fn fill<S: Sink, R: Read>(dec: &mut Decoder<S>, r: &mut R) -> Result<()> {
    let mut buf = vec![0u8; dec.remaining().min(CHUNK)];
    while !dec.is_complete() {
        let want = dec.remaining().min(buf.len());
        let slot = buf.get_mut(..want).unwrap_or_default();
        let n = read_full(r, slot, dec.offset())?;
        if n == 0 {
            break;
        }
        dec.feed(slot.get(..n).unwrap_or_default())?;
        if n < want {
            break;
        }
    }
    Ok(())
}

/// After the payload, which ends at `offset`: the input must end there unless trailing
/// bytes are allowed (one byte is read to see).
#[cfg(feature = "std")]
pub(crate) fn check_end<R: Read>(r: &mut R, offset: u64, allow_trailing: bool) -> Result<()> {
    if allow_trailing {
        return Ok(());
    }
    let mut one = [0u8; 1];
    if read_full(r, &mut one, offset)? > 0 {
        return Err(trailing(offset));
    }
    Ok(())
}

fn internal(expected: &str) -> Error {
    Error::unplaced(ErrorKind::Internal, expected)
}
