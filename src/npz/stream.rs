//! Streaming one member's decompressed bytes through the archive limits, its declared
//! sizes and its CRC.

use std::io::{self, Read};

use crate::error::{Error, ErrorKind, Result};
use crate::npz::member::{Compression, Member};

/// Buffer through which members are drained to check their CRC.
const DRAIN_CHUNK: usize = 1 << 16;

/// The limits one member is read under.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub(super) member: Option<u64>,
    pub(super) ratio: Option<u64>,
    pub(super) total: Option<u64>,
    pub(super) total_before: u64,
}

pub(super) enum Source<'a, R: Read> {
    Stored(io::Take<&'a mut R>),
    Deflated(flate2::read::DeflateDecoder<io::Take<&'a mut R>>),
}

/// The first limit that `n` decompressed bytes of `member` pass, if any (`found` prefixes
/// the count: "at least " while reading, "" for declared sizes).
fn limit_error(n: u64, member: &Member, limits: &Limits, found: &str) -> Option<Error> {
    if let Some(limit) = limits.member.filter(|&l| n > l) {
        return Some(
            Error::new(
                ErrorKind::FileTooLarge,
                limit,
                format!("a member of at most {limit} bytes (max_file_bytes)"),
            )
            .found(format!("{found}{n} decompressed bytes")),
        );
    }
    if let Some(ratio) = limits.ratio {
        let allowed = ratio.saturating_mul(member.compressed_size.max(1));
        if n > allowed {
            return Some(
                Error::new(
                    ErrorKind::CompressionRatio,
                    allowed,
                    format!(
                        "at most {ratio} decompressed bytes per compressed byte (max_npz_ratio): {allowed} from {}",
                        member.compressed_size
                    ),
                )
                .found(format!("{found}{n}")),
            );
        }
    }
    if let Some(total) = limits.total {
        let sum = limits.total_before.saturating_add(n);
        if sum > total {
            return Some(
                Error::new(
                    ErrorKind::TotalTooLarge,
                    n,
                    format!("at most {total} decompressed bytes in all members read (max_npz_total_bytes)"),
                )
                .found(format!("{found}{sum}")),
            );
        }
    }
    None
}

/// The first limit a member's declared size passes, with `total_before` bytes declared by
/// the members before it (see `NpzArchive::check_declared_sizes`).
pub(super) fn declared_size_error(
    member: &Member,
    limits: &Limits,
    total_before: u64,
) -> Option<Error> {
    let limits = Limits {
        total_before,
        ..*limits
    };
    limit_error(member.size, member, &limits, "")
}

/// A member's decompressed bytes, counted, CRC'd and cut off at the first limit passed.
/// The typed error is kept in `failure`; the `.npy` reader sees an I/O error and stops.
pub(super) struct Guard<'a, R: Read> {
    pub(super) source: Source<'a, R>,
    pub(super) hasher: crc32fast::Hasher,
    pub(super) decoded: u64,
    pub(super) at_end: bool,
    pub(super) failure: Option<Error>,
    pub(super) member: Member,
    pub(super) limits: Limits,
}

impl<'a, R: Read + io::Seek> Guard<'a, R> {
    /// A guard over the bytes of `member` in `reader` (seeked to them), under `limits`.
    pub(super) fn open(reader: &'a mut R, member: Member, limits: Limits) -> Result<Guard<'a, R>> {
        crate::npz::structure::seek_to(reader, member.data_start, "a member's data")
            .map_err(|e| e.in_member(&member.name))?;
        let raw = reader.take(member.compressed_size);
        let source = match member.compression {
            Compression::Stored => Source::Stored(raw),
            Compression::Deflated => Source::Deflated(flate2::read::DeflateDecoder::new(raw)),
        };
        Ok(Guard::new(source, member, limits))
    }
}

impl<'a, R: Read> Guard<'a, R> {
    pub(super) fn new(source: Source<'a, R>, member: Member, limits: Limits) -> Guard<'a, R> {
        Guard {
            source,
            hasher: crc32fast::Hasher::new(),
            decoded: 0,
            at_end: false,
            failure: None,
            member,
            limits,
        }
    }

    fn fail(&mut self, err: Error) -> io::Error {
        let io_err = io::Error::other(err.to_string());
        self.failure = Some(err);
        io_err
    }

    fn source_error(&self, e: io::Error) -> Error {
        match (&self.source, e.kind()) {
            // flate2's own errors (a corrupt or cut stream) are the input's fault; the
            // underlying reader's OS errors pass through with their own kinds.
            (
                Source::Deflated(_),
                io::ErrorKind::InvalidInput
                | io::ErrorKind::InvalidData
                | io::ErrorKind::UnexpectedEof,
            ) => Error::new(ErrorKind::ZipFormat, self.decoded, "a valid deflate stream")
                .found(e.to_string()),
            _ => Error::io(self.decoded, e),
        }
    }

    fn check_limits(&self) -> Option<Error> {
        let n = self.decoded;
        if n > self.member.size {
            return Some(
                Error::new(
                    ErrorKind::SizeMismatch,
                    self.member.size,
                    format!(
                        "{} decompressed bytes (the member's declared size)",
                        self.member.size
                    ),
                )
                .found(format!("at least {n}")),
            );
        }
        limit_error(n, &self.member, &self.limits, "at least ")
    }

    /// Reads to the end of the member (under the limits) and checks the stream length, size and CRC.
    pub(super) fn finish(&mut self) -> Result<()> {
        if !self.at_end {
            // Sized by what the member declares is left (a small member drains through a
            // small buffer: 65 536 members must not cost 65 536 zeroed 64 KiB buffers).
            let left = self
                .member
                .size
                .saturating_sub(self.decoded)
                .saturating_add(1);
            let mut scratch = vec![
                0u8;
                usize::try_from(left)
                    .unwrap_or(DRAIN_CHUNK)
                    .min(DRAIN_CHUNK)
            ];
            loop {
                match self.read(&mut scratch) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        return Err(self
                            .failure
                            .take()
                            .unwrap_or_else(|| Error::io(self.decoded, e)))
                    }
                }
            }
        }
        if let Source::Deflated(d) = &self.source {
            if d.total_in() != self.member.compressed_size {
                return Err(Error::new(
                    ErrorKind::SizeMismatch,
                    self.decoded,
                    format!(
                        "a deflate stream of {} bytes (the member's compressed size)",
                        self.member.compressed_size
                    ),
                )
                .found(format!("a stream of {} bytes", d.total_in())));
            }
        }
        if self.decoded != self.member.size {
            return Err(Error::new(
                ErrorKind::SizeMismatch,
                self.decoded,
                format!(
                    "{} decompressed bytes (the member's declared size)",
                    self.member.size
                ),
            )
            .found(format!("{} bytes", self.decoded)));
        }
        let crc = self.hasher.clone().finalize();
        if crc != self.member.crc32 {
            return Err(Error::new(
                ErrorKind::CrcMismatch,
                self.decoded,
                format!(
                    "decompressed bytes with CRC-32 {:08x} (the member's declared CRC)",
                    self.member.crc32
                ),
            )
            .found(format!("CRC-32 {crc:08x}")));
        }
        Ok(())
    }
}

impl<R: Read> Read for Guard<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.failure.is_some() {
            return Err(io::Error::other("npz member refused"));
        }
        let result = match &mut self.source {
            Source::Stored(r) => r.read(buf),
            Source::Deflated(r) => r.read(buf),
        };
        let n = match result {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Err(e),
            Err(e) => {
                let err = self.source_error(e);
                return Err(self.fail(err));
            }
        };
        let Some(chunk) = buf.get(..n) else {
            // A reader's broken contract: hashing less than it claims would hide it.
            let err = Error::unplaced(ErrorKind::Internal, "a read of at most the buffer's length")
                .found(format!("{n} bytes read into {}", buf.len()));
            return Err(self.fail(err));
        };
        self.hasher.update(chunk);
        self.decoded = self.decoded.saturating_add(n as u64);
        if n == 0 && !buf.is_empty() {
            self.at_end = true;
        }
        if let Some(err) = self.check_limits() {
            return Err(self.fail(err));
        }
        Ok(n)
    }
}
