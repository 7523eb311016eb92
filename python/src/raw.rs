//! Whole `.npy` files as validated bytes, for NumPy to build its array over.
//!
//! npyguard's readers decode a payload into typed values; NumPy wants the file's own
//! bytes (its dtype may be big-endian, a record, text). These functions read those bytes
//! under the same [`ReadOptions`] and run npyguard's own checks over them, in the order
//! and with the errors of the reader the CLI uses for the same input:
//!
//! - a path: `npyguard::read_file` (the file's length checked first: `file_length`,
//!   then the header, then `check_length` for the claim and truncation, before the
//!   payload is allocated; text and trailing bytes after);
//! - bytes: `npyguard::read_bytes` (`View::new` checks exactly what it checks);
//! - a stream: `npyguard::read_from`. A stream's length is unknown, so bytes are
//!   allocated as they arrive; when a check fails, the error is the one `read_from`
//!   returns for the bytes the stream delivered (so messages are identical by
//!   construction, not by imitation).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::Path;

use npyguard::{
    check_length, file_length, read_header, Error, ErrorKind, Header, ReadOptions, View,
};

/// A validated file: its bytes (preamble, header, payload; no trailing bytes) and header.
pub struct Raw {
    /// The file's bytes up to the end of the payload.
    pub bytes: Bytes,
    /// The header; the payload is `bytes[header.payload_offset()..]`.
    pub header: Header,
}

/// The memory a file is read into: a `Vec`, or, for a file of at least
/// `ReadOptions::huge_page_threshold` bytes read from a path (4 MiB by default, NumPy's own
/// threshold), an anonymous mapping advised to use transparent huge pages, as NumPy's
/// allocator and npyguard's `Buffer` do (256 MiB in 2 MiB pages: 128 page faults instead of
/// 65 536). Never resized after the read.
pub enum Bytes {
    /// Heap memory.
    Heap(Vec<u8>),
    /// An anonymous mapping (memmap2's safe API).
    Mapped(memmap2::MmapMut),
}

impl Bytes {
    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Heap(v) => v,
            Bytes::Mapped(m) => m,
        }
    }

    /// The bytes, writable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        match self {
            Bytes::Heap(v) => v,
            Bytes::Mapped(m) => m,
        }
    }
}

/// Files of at least this many bytes are read by several threads (one `pread` range each):
/// copying from the page cache is bound by one core's copy speed, not by memory bandwidth.
const PARALLEL_READ_MIN: usize = 32 << 20;

/// Most threads one read uses.
const PARALLEL_READ_THREADS: usize = 4;

/// Fills `part` from `file` at `offset` (positional reads: no shared file position);
/// returns the bytes read (fewer only at the end of the file).
fn read_part(file: &File, part: &mut [u8], offset: u64) -> Result<usize, Error> {
    let mut filled = 0usize;
    while let Some(slot) = part.get_mut(filled..).filter(|s| !s.is_empty()) {
        match file.read_at(slot, offset.saturating_add(filled as u64)) {
            Ok(0) => break,
            Ok(k) => filled = filled.saturating_add(k),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(offset.saturating_add(filled as u64), e)),
        }
    }
    Ok(filled)
}

/// Reads the first `n` bytes of `file` (or up to its end) into fresh memory: a huge-page
/// mapping from `threshold` bytes on (filled by up to four threads from 32 MiB on), else a
/// `Vec` (no zero-filling either way: a new anonymous mapping is zero pages, a `Vec` is
/// filled by `read_to_end`).
fn read_file_into(file: &File, n: u64, threshold: usize) -> Result<Bytes, Error> {
    let len = capacity(n)?;
    if len >= threshold && len > 0 {
        if let Ok(mut map) = memmap2::MmapOptions::new().len(len).map_anon() {
            // Advice only: a kernel without transparent huge pages maps ordinary ones.
            let _ = map.advise(memmap2::Advice::HugePage);
            let threads = if len >= PARALLEL_READ_MIN {
                std::thread::available_parallelism()
                    .map_or(1, |n| n.get())
                    .clamp(1, PARALLEL_READ_THREADS)
            } else {
                1
            };
            // Parts of whole 2 MiB pages (the last takes the rest).
            let step = (len / threads).next_multiple_of(2 << 20).max(1);
            let results: Vec<Result<(usize, usize), Error>> = std::thread::scope(|s| {
                let handles: Vec<_> = map
                    .chunks_mut(step)
                    .enumerate()
                    .map(|(i, part)| {
                        let offset = i.saturating_mul(step);
                        s.spawn(move || {
                            let want = part.len();
                            read_part(file, part, offset as u64).map(|got| (got, want))
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Err(Error::unplaced(
                                ErrorKind::Internal,
                                "a reader thread that returns",
                            ))
                        })
                    })
                    .collect()
            });
            // The bytes that arrived without a gap (a file that shrank meanwhile is then
            // reported as truncated by the checks).
            let mut filled = 0usize;
            for r in results {
                let (got, want) = r?;
                filled = filled.saturating_add(got);
                if got < want {
                    return Ok(Bytes::Heap(map.get(..filled).unwrap_or_default().to_vec()));
                }
            }
            return Ok(Bytes::Mapped(map));
        }
    }
    let mut bytes = Vec::with_capacity(len);
    file.take(n)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(bytes.len() as u64, e))?;
    Ok(Bytes::Heap(bytes))
}

/// First reservation for a stream's payload (it grows as bytes arrive).
const STREAM_RESERVE: usize = 1 << 20;

/// The read bound of `read_stream`: the limit plus one byte (to detect excess).
fn bound(opts: &ReadOptions) -> u64 {
    opts.max_file_bytes()
        .map_or(u64::MAX, |l| l.saturating_add(1))
}

/// The options a payload is checked with once its length is known to be right: trailing
/// bytes are not part of `Raw::bytes` (they are checked separately).
fn tolerant(opts: &ReadOptions) -> ReadOptions {
    opts.clone().with_allow_trailing_bytes(true)
}

fn payload_end(header: &Header) -> u64 {
    header.payload_range().end
}

fn open(path: &Path) -> Result<File, Error> {
    File::open(path).map_err(|e| Error::os(format!("cannot open {}", path.display()), e))
}

fn capacity(n: u64) -> Result<usize, Error> {
    usize::try_from(n).map_err(|_| {
        Error::unplaced(ErrorKind::FileTooLarge, "a file that fits in memory")
            .found(format!("{n} bytes"))
    })
}

/// Reads the file at `path` (a regular file: checked length, one allocation of the
/// file's size; a FIFO or device: as a stream).
pub fn path(path: &Path, opts: &ReadOptions) -> Result<Raw, Error> {
    let mut file = open(path)?;
    let Some(len) = file_length(&file, opts)? else {
        return stream(file, opts);
    };
    let header = read_header((&mut file).take(bound(opts)), opts)?;
    let end = payload_end(&header);
    // The claim against max_file_bytes, then a payload the file does not cover; no
    // trailing-bytes check yet (a read checks the payload's text before that).
    check_length(&header, len.min(end), opts)?;
    file.seek(SeekFrom::Start(0))
        .map_err(|e| Error::os(format!("cannot seek {}", path.display()), e))?;
    let bytes = read_file_into(&file, end, opts.huge_page_threshold())?;
    // The header again, the payload's text (U), and a file that shrank meanwhile.
    View::new(bytes.as_slice(), &tolerant(opts))?;
    if len > end && !opts.allow_trailing_bytes() {
        check_length(&header, len, opts)?;
    }
    Ok(Raw { bytes, header })
}

/// Validates a whole file held in memory, exactly as `read_bytes` would, and copies its
/// bytes up to the end of the payload (the result is NumPy's to write to).
pub fn buffer(data: &[u8], opts: &ReadOptions) -> Result<Raw, Error> {
    let view = View::new(data, opts)?;
    let header = view.header().clone();
    let end = capacity(payload_end(&header))?;
    let bytes = Bytes::Heap(data.get(..end).unwrap_or(data).to_vec());
    Ok(Raw { bytes, header })
}

/// The error `read_from` reports for the bytes a stream delivered.
fn stream_error(seen: &[u8], opts: &ReadOptions) -> Error {
    match npyguard::read_from(seen, opts) {
        Err(e) => e,
        Ok(_) => Error::unplaced(
            ErrorKind::Internal,
            "the stream reader to refuse what the checks refused",
        ),
    }
}

/// A reader that keeps a copy of every byte it passes on (the preamble and header).
struct Tee<'a, R> {
    inner: &'a mut R,
    seen: Vec<u8>,
}

impl<R: Read> Read for Tee<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.seen
            .extend_from_slice(buf.get(..n).unwrap_or_default());
        Ok(n)
    }
}

/// Reads a `.npy` stream: exactly the header and payload, then (unless trailing bytes
/// are allowed) one byte more to check that the stream ends there.
pub fn stream<R: Read>(reader: R, opts: &ReadOptions) -> Result<Raw, Error> {
    let mut r = reader.take(bound(opts));
    let mut tee = Tee {
        inner: &mut r,
        seen: Vec::new(),
    };
    let header = read_header(&mut tee, opts)?;
    let mut bytes = tee.seen;
    let end = payload_end(&header);
    if opts.max_file_bytes().is_some_and(|l| end > l) {
        return Err(stream_error(&bytes, opts));
    }
    let payload = header.payload_len();
    bytes.reserve(payload.min(STREAM_RESERVE));
    (&mut r)
        .take(payload as u64)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(bytes.len() as u64, e))?;
    if (bytes.len() as u64) < end {
        return Err(stream_error(&bytes, opts));
    }
    if View::new(&bytes, &tolerant(opts)).is_err() {
        return Err(stream_error(&bytes, opts));
    }
    if !opts.allow_trailing_bytes() {
        let mut one = [0u8; 1];
        let n = loop {
            match r.read(&mut one) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                other => break other.map_err(|e| Error::io(end, e))?,
            }
        };
        if n > 0 {
            let mut seen = bytes;
            seen.push(one[0]);
            return Err(stream_error(&seen, opts));
        }
    }
    Ok(Raw {
        bytes: Bytes::Heap(bytes),
        header,
    })
}

/// The header of the file at `path`, checked against the file's length (`inspect`).
pub fn header_path(path: &Path, opts: &ReadOptions) -> Result<Header, Error> {
    let mut file = open(path)?;
    let len = file_length(&file, opts)?;
    let header = read_header((&mut file).take(bound(opts)), opts)?;
    if let Some(len) = len {
        check_length(&header, len, opts)?;
    }
    Ok(header)
}

/// Parses a header dict as `np.save` would write it (`{'descr': ..., 'fortran_order':
/// ..., 'shape': ..., }`) into a validated [`Header`].
pub fn parse_dict_text(text: &str) -> Result<Header, Error> {
    let mut file = b"\x93NUMPY\x03\x00".to_vec();
    let len = u32::try_from(text.len().saturating_add(1)).map_err(|_| {
        Error::unplaced(ErrorKind::InvalidInput, "a header dict shorter than 4 GiB")
    })?;
    file.extend_from_slice(&len.to_le_bytes());
    file.extend_from_slice(text.as_bytes());
    file.push(b'\n');
    let opts = ReadOptions::default().with_max_header_bytes(file.len());
    Header::from_bytes(&file, &opts)
}
