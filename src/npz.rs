//! `.npz` archives: NumPy's zip of `.npy` members, read and written (feature `npz`).
//!
//! # Reading
//!
//! [`NpzArchive::new`] checks the whole zip structure before any member is
//! read, with two independent readings that must agree: npyguard's own parse
//! of the end records, the central directory and every local header, and the
//! [`zip`] crate's. It refuses:
//!
//! - more members than [`ReadOptions::max_npz_members`] (counted from the end
//!   record, before the central directory is read) — [`ErrorKind::TooManyMembers`];
//! - two members with the same name — [`ErrorKind::DuplicateMember`] (the
//!   `zip` crate keeps only one of them, Python's `zipfile` the last);
//! - a local header whose name, compression method, flags, CRC or sizes differ
//!   from its central-directory entry — [`ErrorKind::ZipHeaderMismatch`]
//!   (CRC and sizes are compared unless the member uses a data descriptor);
//! - encrypted members — [`ErrorKind::EncryptedMember`]; methods other than
//!   stored and deflated — [`ErrorKind::UnsupportedCompression`];
//! - members whose bytes overlap (the "overlapping zip bomb"), bytes before the
//!   first member or after the end record, multi-disk archives, a zip64 end
//!   record that disagrees with the classic one, names that are not valid
//!   UTF-8 (when flagged so) or hold a NUL, and anything the two readings see
//!   differently (e.g. an Info-ZIP Unicode path field, which the `zip` crate
//!   applies and NumPy ignores) — [`ErrorKind::ZipFormat`].
//!
//! Each member is then decompressed as a stream straight into the `.npy`
//! reader ([`read_from`](crate::read_from)), so memory grows only as bytes
//! arrive, whatever sizes the zip declares. While bytes are decompressed the
//! reader enforces, and names the member in the error text of:
//!
//! - [`ReadOptions::max_file_bytes`] on each member's `.npy` bytes
//!   ([`ErrorKind::FileTooLarge`]; a header that claims more is refused before
//!   its payload is read);
//! - [`ReadOptions::max_npz_total_bytes`] on all members read through the archive
//!   ([`ErrorKind::TotalTooLarge`]);
//! - [`ReadOptions::max_npz_ratio`] on decompressed / compressed size
//!   ([`ErrorKind::CompressionRatio`]);
//! - the member's declared uncompressed size: a member that decodes to more
//!   (or fewer) bytes than declared, or whose deflate stream does not fill its
//!   compressed size exactly, is refused ([`ErrorKind::SizeMismatch`]);
//! - its CRC-32, checked when the member has been read to its end
//!   ([`ErrorKind::CrcMismatch`]; header-only reads do not check it).
//!
//! Errors found inside a member carry offsets in that member's decompressed
//! bytes; errors in the zip structure carry offsets in the archive.
//!
//! # Member names
//!
//! Names are decoded as Python's `zipfile` decodes them (UTF-8 when flag bit 11
//! is set, else code page 437). A member named `x.npy` is the array `x`; an
//! array is looked up by `x` or `x.npy`. Members whose names do not end in
//! `.npy` (including directories) are listed by [`NpzArchive::members`] but
//! are not arrays: they are skipped by [`NpzArchive::arrays`] (NumPy instead
//! sniffs every member for the `.npy` magic and returns the others as bytes).
//! Member names are only names, never paths: `a/../b.npy` is the array
//! `a/../b`, and nothing is ever written to disk by the reader.
//!
//! ```
//! use npyguard::{npz, NpyArray, ReadOptions, ArrayData};
//! let a = NpyArray::from_vec(vec![1i32, 2, 3], vec![3]).unwrap().to_array();
//! let b = NpyArray::from_vec(vec![0.5f64; 4], vec![2, 2]).unwrap().to_array();
//! let named = npz::name_arrays(&[&b], &[("a", &a)]).unwrap();
//! let bytes = npz::savez_compressed(std::io::Cursor::new(Vec::new()), &named).unwrap().into_inner();
//!
//! let mut archive = npz::NpzArchive::new(std::io::Cursor::new(&bytes), &ReadOptions::default()).unwrap();
//! assert_eq!(archive.array_names().collect::<Vec<_>>(), ["a", "arr_0"]);
//! assert_eq!(archive.array("a").unwrap().data(), &ArrayData::I32(vec![1, 2, 3]));
//! assert_eq!(archive.array("arr_0.npy").unwrap().shape(), &[2, 2]);
//! ```
//!
//! # Writing
//!
//! [`savez`] and [`savez_compressed`] write what `np.savez` and
//! `np.savez_compressed` write: one member `NAME.npy` per array, in the given
//! order, each member's bytes exactly `np.save`'s ([`write::to_writer`](crate::write::to_writer)),
//! with NumPy's zip64 extra fields, 1980-01-01 timestamps and `0o600` permissions.
//! [`name_arrays`] names unnamed arrays `arr_0`, `arr_1`… as NumPy does.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use crate::array::{Array, NpyArray};
use crate::element::Element;
use crate::error::{Error, ErrorKind, Result};
use crate::header::Header;
use crate::options::ReadOptions;

/// The first four bytes of a zip file that starts with a member (every non-empty `.npz`).
pub const ZIP_MAGIC: &[u8; 4] = b"PK\x03\x04";
/// The first four bytes of an empty zip file (an `.npz` of no arrays).
pub const EMPTY_ZIP_MAGIC: &[u8; 4] = b"PK\x05\x06";

const SIG_LOCAL: [u8; 4] = *ZIP_MAGIC;
const SIG_CENTRAL: [u8; 4] = *b"PK\x01\x02";
const SIG_END: [u8; 4] = *EMPTY_ZIP_MAGIC;
const SIG_END64: [u8; 4] = *b"PK\x06\x06";
const SIG_LOCATOR64: [u8; 4] = *b"PK\x06\x07";
const END_LEN: u64 = 22;
const LOCATOR64_LEN: u64 = 20;
const END64_LEN: usize = 56;
const CENTRAL_LEN: usize = 46;
const LOCAL_LEN: usize = 30;
const MAX_COMMENT: u64 = 0xFFFF;
const SAT32: u32 = 0xFFFF_FFFF;
const SAT16: u16 = 0xFFFF;
const FLAG_ENCRYPTED: u16 = 0x0001;
const FLAG_DESCRIPTOR: u16 = 0x0008;
const FLAG_STRONG_ENCRYPTION: u16 = 0x0040;
const FLAG_UTF8: u16 = 0x0800;
/// Flags that must be the same in the local header and the central directory.
const FLAGS_COMPARED: u16 = FLAG_ENCRYPTED | FLAG_DESCRIPTOR | FLAG_STRONG_ENCRYPTION | FLAG_UTF8;
const METHOD_STORED: u16 = 0;
const METHOD_DEFLATED: u16 = 8;
const METHOD_AES: u16 = 99;
const ZIP64_EXTRA: u16 = 0x0001;
const NPY_SUFFIX: &str = ".npy";
/// Buffer through which members are drained to check their CRC.
const DRAIN_CHUNK: usize = 1 << 16;

/// Code page 437 above ASCII, as Python decodes it (`bytes(range(128, 256)).decode('cp437')`).
const CP437_HIGH: &str = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{a0}";

/// How a member's bytes are stored in the archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Compression {
    /// Method 0: the bytes as they are (`np.savez`).
    Stored,
    /// Method 8: deflate (`np.savez_compressed`).
    Deflated,
}

/// One member of an archive, as its central directory describes it (and its local header agrees).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    name: String,
    compression: Compression,
    compressed_size: u64,
    size: u64,
    crc32: u32,
    header_start: u64,
    data_start: u64,
}

impl Member {
    /// The member's full name, e.g. `x.npy`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the name ends in `.npy` (only such members are arrays).
    pub fn is_npy(&self) -> bool {
        self.name.ends_with(NPY_SUFFIX)
    }

    /// The array name (the member name without `.npy`), for `.npy` members.
    pub fn array_name(&self) -> Option<&str> {
        self.name.strip_suffix(NPY_SUFFIX)
    }

    /// How the member is stored.
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// Size of the member's stored (possibly compressed) bytes.
    pub fn compressed_size(&self) -> u64 {
        self.compressed_size
    }

    /// The uncompressed size the archive declares (checked when the member is read to its end).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The CRC-32 the archive declares (checked when the member is read to its end).
    pub fn crc32(&self) -> u32 {
        self.crc32
    }

    /// Offset of the member's local header in the archive.
    pub fn offset(&self) -> u64 {
        self.header_start
    }
}

/// An opened, structurally checked `.npz` archive. See the [module docs](self).
#[derive(Debug)]
pub struct NpzArchive<R> {
    zip: zip::ZipArchive<R>,
    members: Vec<Member>,
    opts: ReadOptions,
    decoded: u64,
}

/// Opens the `.npz` file at `path` (see [`NpzArchive::new`]).
pub fn open(path: impl AsRef<Path>, opts: &ReadOptions) -> Result<NpzArchive<BufReader<File>>> {
    let file = File::open(path).map_err(|e| Error::io(0, e))?;
    NpzArchive::new(BufReader::new(file), opts)
}

/// Reads every array of a `.npz` archive held in memory, in archive order, as `(name, array)`.
pub fn read_npz_bytes(bytes: &[u8], opts: &ReadOptions) -> Result<Vec<(String, Array)>> {
    NpzArchive::new(io::Cursor::new(bytes), opts)?.read_all()
}

/// Whether `bytes` start like a zip file (a member, or the end record of an empty zip).
pub fn looks_like_npz(bytes: &[u8]) -> bool {
    bytes.starts_with(ZIP_MAGIC) || bytes.starts_with(EMPTY_ZIP_MAGIC)
}

impl<R: Read + Seek> NpzArchive<R> {
    /// Opens an archive and checks its structure (see the [module docs](self)); no member is decompressed.
    pub fn new(mut reader: R, opts: &ReadOptions) -> Result<NpzArchive<R>> {
        let len = reader.seek(SeekFrom::End(0)).map_err(|e| Error::io(0, e))?;
        let end = find_end(&mut reader, len)?;
        if let Some(limit) = opts.max_npz_members {
            if end.entries > limit as u64 {
                return Err(Error::new(
                    ErrorKind::TooManyMembers,
                    end.offset,
                    format!("an archive of at most {limit} members (max_npz_members)"),
                )
                .found(format!("{} members", end.entries)));
            }
        }
        let central = read_central(&mut reader, &end)?;
        let members = check_members(&mut reader, &central, &end)?;
        let zip = zip::ZipArchive::new(reader).map_err(|e| zip_error(e, end.offset))?;
        let mut archive = NpzArchive {
            zip,
            members,
            opts: opts.clone(),
            decoded: 0,
        };
        archive.cross_check(&central, &end)?;
        Ok(archive)
    }

    /// Every member in archive order, `.npy` or not.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// The names of the arrays (the `.npy` members without `.npy`), in archive order.
    pub fn array_names(&self) -> impl Iterator<Item = &str> {
        self.members.iter().filter_map(Member::array_name)
    }

    /// The `.npy` member holding array `name` (given with or without `.npy`).
    pub fn member(&self, name: &str) -> Option<&Member> {
        self.index_of(name).ok().and_then(|i| self.members.get(i))
    }

    /// Decompressed bytes read through this archive so far (what `max_npz_total_bytes` limits).
    pub fn decoded_bytes(&self) -> u64 {
        self.decoded
    }

    /// Reads array `name` (with or without `.npy`), checking its CRC and sizes.
    pub fn array(&mut self, name: &str) -> Result<Array> {
        let index = self.index_of(name)?;
        self.run(index, true, |r, opts| crate::read::read_from(r, opts))
    }

    /// Reads array `name` as a typed array ([`ErrorKind::TypeMismatch`] if `T` cannot represent its dtype).
    pub fn typed<T: Element>(&mut self, name: &str) -> Result<NpyArray<T>> {
        let index = self.index_of(name)?;
        self.run(index, true, |r, opts| NpyArray::<T>::read(r, opts))
    }

    /// Reads only the header of array `name`: just enough of the member is
    /// decompressed, so neither its CRC nor its sizes are checked.
    pub fn header(&mut self, name: &str) -> Result<Header> {
        let index = self.index_of(name)?;
        self.run(index, false, |r, opts| crate::read::read_header(r, opts))
    }

    /// Decompresses member `name` (its full name; any member, `.npy` or not)
    /// to its end under the limits, checking its CRC and sizes, and returns
    /// its size. Nothing is kept.
    pub fn verify_member(&mut self, name: &str) -> Result<u64> {
        let Some(index) = self.members.iter().position(|m| m.name == name) else {
            return Err(Error::new(
                ErrorKind::MemberNotFound,
                0,
                format!("a member named {name:?}"),
            )
            .found("no such member"));
        };
        self.run(index, true, |r, _| {
            io::copy(r, &mut io::sink()).map_err(|e| Error::io(0, e))?;
            Ok(())
        })?;
        Ok(self.members.get(index).map_or(0, |m| m.size))
    }

    /// The arrays in archive order, each read (and checked) when the iterator reaches it.
    pub fn arrays(&mut self) -> Arrays<'_, R> {
        Arrays {
            archive: self,
            next: 0,
        }
    }

    /// Reads every array in archive order, stopping at the first error.
    pub fn read_all(&mut self) -> Result<Vec<(String, Array)>> {
        self.arrays().collect()
    }

    fn index_of(&self, name: &str) -> Result<usize> {
        if let Some(i) = self
            .members
            .iter()
            .position(|m| m.is_npy() && m.name == name)
        {
            return Ok(i);
        }
        let full = format!("{name}{NPY_SUFFIX}");
        if let Some(i) = self.members.iter().position(|m| m.name == full) {
            return Ok(i);
        }
        let found = if self.members.iter().any(|m| m.name == name) {
            format!("a member {name:?} that is not .npy (not an array)")
        } else {
            "no such member".to_string()
        };
        Err(Error::new(
            ErrorKind::MemberNotFound,
            0,
            format!("a .npy member named {name:?} or {full:?}"),
        )
        .found(found))
    }

    /// Streams member `index` through the limits into `f`; with `to_end`, reads
    /// what `f` left and checks the deflate stream's length, the size and the CRC.
    fn run<T>(
        &mut self,
        index: usize,
        to_end: bool,
        f: impl FnOnce(&mut Guard<'_, R>, &ReadOptions) -> Result<T>,
    ) -> Result<T> {
        let Some(member) = self.members.get(index).cloned() else {
            return Err(Error::new(
                ErrorKind::MemberNotFound,
                0,
                format!("a member at index {index}"),
            ));
        };
        let limits = Limits {
            member: self.opts.max_file_bytes,
            ratio: self.opts.max_npz_ratio,
            total: self.opts.max_npz_total_bytes,
            total_before: self.decoded,
        };
        let raw = self
            .zip
            .by_index_raw(index)
            .map_err(|e| zip_error(e, member.header_start).in_member(&member.name))?;
        let source = match member.compression {
            Compression::Stored => Source::Stored(raw),
            Compression::Deflated => Source::Deflated(flate2::read::DeflateDecoder::new(raw)),
        };
        let mut guard = Guard {
            source,
            hasher: crc32fast::Hasher::new(),
            decoded: 0,
            at_end: false,
            failure: None,
            member: &member,
            limits,
        };
        let mut result = f(&mut guard, &self.opts).map_err(|e| guard.failure.take().unwrap_or(e));
        if to_end && result.is_ok() {
            if let Err(e) = guard.finish() {
                result = Err(e);
            }
        }
        let decoded = guard.decoded;
        drop(guard);
        self.decoded = self.decoded.saturating_add(decoded);
        result.map_err(|e| e.in_member(&member.name))
    }

    /// The `zip` crate's reading must agree with npyguard's own, member by member.
    fn cross_check(&mut self, central: &[Central], end: &EndRecord) -> Result<()> {
        let disagree = |what: &str, name: &str, found: String| {
            Error::new(
                ErrorKind::ZipFormat,
                end.offset,
                format!("the zip crate's reading of {what} to agree with npyguard's"),
            )
            .found(found)
            .in_member(name)
        };
        if self.zip.len() != self.members.len() {
            return Err(Error::new(
                ErrorKind::ZipFormat,
                end.offset,
                format!(
                    "{} members as the zip crate reads the archive",
                    self.members.len()
                ),
            )
            .found(format!("{} members", self.zip.len())));
        }
        if self.zip.central_directory_start() != end.cd_offset || self.zip.offset() != 0 {
            return Err(Error::new(
                ErrorKind::ZipFormat,
                end.offset,
                format!(
                    "the zip crate to find the central directory at byte {}",
                    end.cd_offset
                ),
            )
            .found(format!("byte {}", self.zip.central_directory_start())));
        }
        for (i, (m, c)) in self.members.iter().zip(central).enumerate() {
            let f = self
                .zip
                .by_index_raw(i)
                .map_err(|e| zip_error(e, m.header_start).in_member(&m.name))?;
            let method = match m.compression {
                Compression::Stored => zip::CompressionMethod::Stored,
                Compression::Deflated => zip::CompressionMethod::Deflated,
            };
            if f.name_raw() != c.raw_name.as_slice() || f.name() != m.name {
                return Err(disagree("the name", &m.name, format!("{:?}", f.name())));
            }
            if f.compression() != method || f.encrypted() {
                return Err(disagree(
                    "the method",
                    &m.name,
                    format!("{:?}", f.compression()),
                ));
            }
            let ours = (
                m.size,
                m.compressed_size,
                m.crc32,
                m.header_start,
                m.data_start,
            );
            let theirs = (
                f.size(),
                f.compressed_size(),
                f.crc32(),
                f.header_start(),
                f.data_start(),
            );
            if ours != theirs {
                return Err(disagree(
                    "sizes, CRC and offsets",
                    &m.name,
                    format!("{theirs:?} (size, compressed size, CRC, header, data) where npyguard read {ours:?}"),
                ));
            }
        }
        Ok(())
    }
}

/// Iterator over an archive's arrays (see [`NpzArchive::arrays`]).
#[derive(Debug)]
pub struct Arrays<'a, R> {
    archive: &'a mut NpzArchive<R>,
    next: usize,
}

impl<R: Read + Seek> Iterator for Arrays<'_, R> {
    type Item = Result<(String, Array)>;

    fn next(&mut self) -> Option<Self::Item> {
        let offset = self
            .archive
            .members
            .get(self.next..)?
            .iter()
            .position(Member::is_npy)?;
        let index = self.next.saturating_add(offset);
        self.next = index.saturating_add(1);
        let name = self.archive.members.get(index)?.array_name()?.to_string();
        Some(
            self.archive
                .run(index, true, |r, opts| crate::read::read_from(r, opts))
                .map(|a| (name, a)),
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Streaming a member through the limits.

struct Limits {
    member: Option<u64>,
    ratio: Option<u64>,
    total: Option<u64>,
    total_before: u64,
}

enum Source<'a, R: Read> {
    Stored(zip::read::ZipFile<'a, R>),
    Deflated(flate2::read::DeflateDecoder<zip::read::ZipFile<'a, R>>),
}

/// A member's decompressed bytes, counted, CRC'd and cut off at the first limit passed.
/// The typed error is kept in `failure`; the `.npy` reader sees an I/O error and stops.
struct Guard<'a, R: Read> {
    source: Source<'a, R>,
    hasher: crc32fast::Hasher,
    decoded: u64,
    at_end: bool,
    failure: Option<Error>,
    member: &'a Member,
    limits: Limits,
}

impl<R: Read> Guard<'_, R> {
    fn fail(&mut self, err: Error) -> io::Error {
        let io_err = io::Error::other(err.to_string());
        self.failure = Some(err);
        io_err
    }

    fn source_error(&self, e: io::Error) -> Error {
        match (&self.source, e.kind()) {
            (Source::Deflated(_), io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData) => {
                Error::new(ErrorKind::ZipFormat, self.decoded, "a valid deflate stream")
                    .found(e.to_string())
            }
            _ => Error::io(self.decoded, e),
        }
    }

    fn check_limits(&self) -> Option<Error> {
        let n = self.decoded;
        if let Some(limit) = self.limits.member.filter(|&l| n > l) {
            return Some(
                Error::new(
                    ErrorKind::FileTooLarge,
                    limit,
                    format!("a member of at most {limit} bytes (max_file_bytes)"),
                )
                .found(format!("at least {n} decompressed bytes")),
            );
        }
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
        if let Some(ratio) = self.limits.ratio {
            let allowed = ratio.saturating_mul(self.member.compressed_size.max(1));
            if n > allowed {
                return Some(
                    Error::new(
                        ErrorKind::CompressionRatio,
                        allowed,
                        format!(
                            "at most {ratio} decompressed bytes per compressed byte (max_npz_ratio): {allowed} from {}",
                            self.member.compressed_size
                        ),
                    )
                    .found(format!("at least {n}")),
                );
            }
        }
        if let Some(total) = self.limits.total {
            let sum = self.limits.total_before.saturating_add(n);
            if sum > total {
                return Some(
                    Error::new(
                        ErrorKind::TotalTooLarge,
                        n,
                        format!("at most {total} decompressed bytes in all members read (max_npz_total_bytes)"),
                    )
                    .found(format!("at least {sum}")),
                );
            }
        }
        None
    }

    /// Reads to the end of the member (under the limits) and checks the stream length, size and CRC.
    fn finish(&mut self) -> Result<()> {
        if !self.at_end {
            let mut scratch = vec![0u8; DRAIN_CHUNK];
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
        let chunk = buf.get(..n).unwrap_or_default();
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

// ---------------------------------------------------------------------------------------------
// npyguard's own reading of the zip structure.

/// What the end record(s) say.
#[derive(Debug)]
struct EndRecord {
    /// Offset of the classic end record.
    offset: u64,
    entries: u64,
    cd_offset: u64,
    cd_size: u64,
}

/// One central-directory entry, zip64 fields resolved.
#[derive(Debug)]
struct Central {
    at: u64,
    raw_name: Vec<u8>,
    flags: u16,
    method: u16,
    crc32: u32,
    compressed_size: u64,
    size: u64,
    header_start: u64,
}

fn format_err(offset: u64, expected: impl Into<String>) -> Error {
    Error::new(ErrorKind::ZipFormat, offset, expected)
}

fn zip_error(e: zip::result::ZipError, offset: u64) -> Error {
    match e {
        zip::result::ZipError::Io(io) => Error::io(offset, io),
        other => format_err(offset, "an archive the zip crate reads").found(other.to_string()),
    }
}

fn le16(b: &[u8], at: usize) -> u16 {
    b.get(at..)
        .and_then(|s| s.first_chunk::<2>())
        .map_or(0, |c| u16::from_le_bytes(*c))
}

fn le32(b: &[u8], at: usize) -> u32 {
    b.get(at..)
        .and_then(|s| s.first_chunk::<4>())
        .map_or(0, |c| u32::from_le_bytes(*c))
}

fn le64(b: &[u8], at: usize) -> u64 {
    b.get(at..)
        .and_then(|s| s.first_chunk::<8>())
        .map_or(0, |c| u64::from_le_bytes(*c))
}

/// `a + b`, or a format error at `offset` when it overflows.
fn add(a: u64, b: u64, offset: u64) -> Result<u64> {
    a.checked_add(b)
        .ok_or_else(|| format_err(offset, "offsets and sizes that fit in 64 bits"))
}

/// Reads exactly `buf.len()` bytes at `offset`; running out is a format error saying `what`.
fn read_at<R: Read + Seek>(r: &mut R, offset: u64, buf: &mut [u8], what: &str) -> Result<()> {
    r.seek(SeekFrom::Start(offset))
        .map_err(|e| Error::io(offset, e))?;
    read_exact(r, buf, offset, what)
}

fn read_exact<R: Read>(r: &mut R, buf: &mut [u8], offset: u64, what: &str) -> Result<()> {
    r.read_exact(buf).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            format_err(offset, what.to_string()).found("end of data")
        } else {
            Error::io(offset, e)
        }
    })
}

fn read_vec<R: Read>(r: &mut R, len: u16, offset: u64, what: &str) -> Result<Vec<u8>> {
    let mut v = vec![0u8; usize::from(len)];
    read_exact(r, &mut v, offset, what)?;
    Ok(v)
}

/// Finds the end record: the last `PK\x05\x06` in the file, whose comment must end the file.
fn find_end<R: Read + Seek>(r: &mut R, len: u64) -> Result<EndRecord> {
    if len < END_LEN {
        return Err(
            format_err(0, "a zip archive (at least the 22-byte end record)")
                .found(format!("{len} bytes")),
        );
    }
    let tail_len = len.min(END_LEN.saturating_add(MAX_COMMENT));
    let tail_start = len.saturating_sub(tail_len);
    let mut tail = vec![0u8; usize::try_from(tail_len).unwrap_or(0)];
    read_at(r, tail_start, &mut tail, "the end of the archive")?;
    let Some(pos) = tail.windows(4).rposition(|w| w == SIG_END) else {
        return Err(format_err(
            len,
            "an end-of-central-directory record (PK\\x05\\x06) in the last 65 557 bytes",
        )
        .found("none"));
    };
    let offset = tail_start.saturating_add(pos as u64);
    let rec = tail.get(pos..).unwrap_or_default();
    let comment = u64::from(le16(rec, 20));
    if (rec.len() as u64) < END_LEN || offset.saturating_add(END_LEN).saturating_add(comment) != len
    {
        return Err(format_err(
            offset,
            "an end record whose comment ends the file (the last PK\\x05\\x06)",
        )
        .found(format!(
            "a record of {} bytes before the end with a {comment}-byte comment",
            rec.len()
        )));
    }
    let (disk, cd_disk, disk_entries, entries) =
        (le16(rec, 4), le16(rec, 6), le16(rec, 8), le16(rec, 10));
    let (cd_size, cd_offset) = (le32(rec, 12), le32(rec, 16));
    if disk != 0 || cd_disk != 0 || disk_entries != entries {
        return Err(format_err(offset, "a single-disk archive")
            .found(format!("disk {disk}, directory on disk {cd_disk}")));
    }
    let mut end = EndRecord {
        offset,
        entries: u64::from(entries),
        cd_offset: u64::from(cd_offset),
        cd_size: u64::from(cd_size),
    };
    let mut cd_end = offset;
    // A zip64 locator right before the end record: Python's zipfile always follows it, so do we.
    if let Some(loc_at) = offset.checked_sub(LOCATOR64_LEN) {
        let mut loc = [0u8; LOCATOR64_LEN as usize];
        read_at(r, loc_at, &mut loc, "a zip64 end-record locator")?;
        if loc.get(..4) == Some(&SIG_LOCATOR64[..]) {
            let (e64_disk, e64_at, disks) = (le32(&loc, 4), le64(&loc, 8), le32(&loc, 16));
            if e64_disk != 0 || disks > 1 {
                return Err(format_err(loc_at, "a single-disk archive (zip64 locator)")
                    .found(format!("{disks} disks")));
            }
            let mut e64 = [0u8; END64_LEN];
            read_at(
                r,
                e64_at,
                &mut e64,
                "a zip64 end record where the locator points",
            )?;
            let record_end = add(add(e64_at, 12, loc_at)?, le64(&e64, 4), loc_at)?;
            if e64.get(..4) != Some(&SIG_END64[..]) || record_end != loc_at {
                return Err(format_err(
                    e64_at,
                    "a zip64 end record (PK\\x06\\x06) that ends where its locator begins",
                )
                .found(format!(
                    "{:02x?} ending at {record_end}",
                    e64.get(..4).unwrap_or_default()
                )));
            }
            let (d, cd_d, n_d, n, size, at) = (
                le32(&e64, 16),
                le32(&e64, 20),
                le64(&e64, 24),
                le64(&e64, 32),
                le64(&e64, 40),
                le64(&e64, 48),
            );
            if d != 0 || cd_d != 0 || n_d != n {
                return Err(
                    format_err(e64_at, "a single-disk archive (zip64 end record)")
                        .found(format!("disk {d}")),
                );
            }
            let agree = (entries == SAT16 || u64::from(entries) == n)
                && (cd_size == SAT32 || u64::from(cd_size) == size)
                && (cd_offset == SAT32 || u64::from(cd_offset) == at);
            if !agree {
                return Err(format_err(offset, "an end record agreeing with the zip64 end record").found(format!(
                    "{entries} entries, {cd_size} bytes at {cd_offset} where zip64 says {n}, {size} at {at}"
                )));
            }
            end.entries = n;
            end.cd_size = size;
            end.cd_offset = at;
            cd_end = e64_at;
        }
    }
    if add(end.cd_offset, end.cd_size, offset)? != cd_end {
        return Err(format_err(
            offset,
            format!("a central directory ending at byte {cd_end}, where the end records begin (no bytes before the archive)"),
        )
        .found(format!("{} bytes at byte {}", end.cd_size, end.cd_offset)));
    }
    Ok(end)
}

/// Splits extra fields into `(id, data)`; like Python, up to 3 trailing bytes are ignored.
fn extra_fields(extra: &[u8], offset: u64) -> Result<Vec<(u16, &[u8])>> {
    let mut out = Vec::new();
    let mut rest = extra;
    while rest.len() >= 4 {
        let (id, len) = (le16(rest, 0), usize::from(le16(rest, 2)));
        let Some(data) = rest.get(4..).and_then(|r| r.get(..len)) else {
            return Err(
                format_err(offset, "extra fields within their declared length")
                    .found(format!("field {id:#06x}")),
            );
        };
        out.push((id, data));
        rest = rest.get(len.saturating_add(4)..).unwrap_or_default();
    }
    Ok(out)
}

/// The data of the one zip64 extra field, if any.
fn zip64_field<'a>(fields: &[(u16, &'a [u8])], offset: u64) -> Result<Option<&'a [u8]>> {
    let mut found = fields
        .iter()
        .filter(|(id, _)| *id == ZIP64_EXTRA)
        .map(|(_, d)| *d);
    let first = found.next();
    if found.next().is_some() {
        return Err(format_err(offset, "at most one zip64 extra field").found("two"));
    }
    Ok(first)
}

/// Takes the next u64 of a zip64 field for a saturated 32-bit value.
/// A 32-bit size or offset, or, when it is saturated (0xFFFFFFFF), the next value of the
/// zip64 extra field (APPNOTE 4.5.3: only saturated values are there, in order).
fn widen32(value: u32, z64: &mut &[u8], offset: u64, what: &str) -> Result<u64> {
    if value == SAT32 {
        take_u64(z64, offset, what)
    } else {
        Ok(u64::from(value))
    }
}

fn take_u64(data: &mut &[u8], offset: u64, what: &str) -> Result<u64> {
    let Some((v, rest)) = data.split_first_chunk::<8>() else {
        return Err(
            format_err(offset, format!("a zip64 extra field holding the {what}"))
                .found("a short or missing field"),
        );
    };
    *data = rest;
    Ok(u64::from_le_bytes(*v))
}

fn read_central<R: Read + Seek>(r: &mut R, end: &EndRecord) -> Result<Vec<Central>> {
    r.seek(SeekFrom::Start(end.cd_offset))
        .map_err(|e| Error::io(end.cd_offset, e))?;
    let mut br = BufReader::new((&mut *r).take(end.cd_size));
    let most = end
        .cd_size
        .checked_div(CENTRAL_LEN as u64)
        .unwrap_or(0)
        .min(end.entries);
    let mut out = Vec::with_capacity(usize::try_from(most).unwrap_or(0));
    let mut at = end.cd_offset;
    let within = "a central-directory entry within the directory's declared size";
    for _ in 0..end.entries {
        let mut fixed = [0u8; CENTRAL_LEN];
        read_exact(&mut br, &mut fixed, at, within)?;
        if fixed.get(..4) != Some(&SIG_CENTRAL[..]) {
            return Err(format_err(at, "a central-directory entry (PK\\x01\\x02)")
                .found(format!("{:02x?}", fixed.get(..4).unwrap_or_default())));
        }
        let (flags, method, crc32) = (le16(&fixed, 8), le16(&fixed, 10), le32(&fixed, 16));
        let (csize, usize_, name_len, extra_len, comment_len) = (
            le32(&fixed, 20),
            le32(&fixed, 24),
            le16(&fixed, 28),
            le16(&fixed, 30),
            le16(&fixed, 32),
        );
        let (disk, local) = (le16(&fixed, 34), le32(&fixed, 42));
        let raw_name = read_vec(&mut br, name_len, at, within)?;
        let extra = read_vec(&mut br, extra_len, at, within)?;
        read_vec(&mut br, comment_len, at, within)?;
        let fields = extra_fields(&extra, at)?;
        let mut z64 = zip64_field(&fields, at)?.unwrap_or_default();
        // Per APPNOTE 4.5.3 (and Python's zipfile): only saturated values are in the zip64 field, in this order.
        let size = widen32(usize_, &mut z64, at, "uncompressed size")?;
        let compressed_size = widen32(csize, &mut z64, at, "compressed size")?;
        let header_start = widen32(local, &mut z64, at, "local header offset")?;
        let disk = if disk == SAT16 {
            let Some((d, _)) = z64.split_first_chunk::<4>() else {
                return Err(
                    format_err(at, "a zip64 extra field holding the disk number").found("none"),
                );
            };
            u32::from_le_bytes(*d)
        } else {
            u32::from(disk)
        };
        if disk != 0 {
            return Err(format_err(at, "a member on disk 0 (single-disk archive)")
                .found(format!("disk {disk}")));
        }
        out.push(Central {
            at,
            raw_name,
            flags,
            method,
            crc32,
            compressed_size,
            size,
            header_start,
        });
        let entry_len = (CENTRAL_LEN as u64)
            .saturating_add(u64::from(name_len))
            .saturating_add(u64::from(extra_len))
            .saturating_add(u64::from(comment_len));
        at = at.saturating_add(entry_len);
    }
    let cd_end = end.cd_offset.saturating_add(end.cd_size);
    if at != cd_end {
        return Err(format_err(
            at,
            format!(
                "{} entries filling the central directory to byte {cd_end}",
                end.entries
            ),
        )
        .found(format!("entries ending at byte {at}")));
    }
    Ok(out)
}

/// Decodes a member name as Python's zipfile does (UTF-8 if flagged, else code page 437).
fn decode_name(raw: &[u8], flags: u16, at: u64) -> Result<String> {
    let name = if flags & FLAG_UTF8 != 0 {
        String::from_utf8(raw.to_vec()).map_err(|_| {
            format_err(at, "a UTF-8 member name (flag bit 11 is set)")
                .found(format!("{:02x?}", raw))
        })?
    } else {
        raw.iter()
            .map(|&b| {
                if b.is_ascii() {
                    char::from(b)
                } else {
                    CP437_HIGH
                        .chars()
                        .nth(usize::from(b).saturating_sub(0x80))
                        .unwrap_or(char::REPLACEMENT_CHARACTER)
                }
            })
            .collect()
    };
    if name.contains('\0') {
        // Python's zipfile cuts names at the first NUL: two readers would see two names.
        return Err(format_err(at, "a member name without NUL").found(format!("{name:?}")));
    }
    Ok(name)
}

/// Names, flags and methods; then each local header against its central entry; then overlaps.
fn check_members<R: Read + Seek>(
    r: &mut R,
    central: &[Central],
    end: &EndRecord,
) -> Result<Vec<Member>> {
    let mut names = HashSet::with_capacity(central.len());
    let mut members = Vec::with_capacity(central.len());
    let mut locals = Vec::with_capacity(central.len());
    for c in central {
        let name = decode_name(&c.raw_name, c.flags, c.at)?;
        if !names.insert(name.clone()) {
            return Err(Error::new(
                ErrorKind::DuplicateMember,
                c.at,
                "member names that are all different",
            )
            .found(format!("a second member named {name:?}")));
        }
        if c.flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION) != 0 || c.method == METHOD_AES {
            return Err(
                Error::new(ErrorKind::EncryptedMember, c.at, "an unencrypted member")
                    .found(format!("flags {:#06x}, method {}", c.flags, c.method))
                    .in_member(&name),
            );
        }
        let compression = match c.method {
            METHOD_STORED => Compression::Stored,
            METHOD_DEFLATED => Compression::Deflated,
            m => {
                return Err(Error::new(
                    ErrorKind::UnsupportedCompression,
                    c.at,
                    "a stored (0) or deflated (8) member",
                )
                .found(format!("method {m}"))
                .in_member(&name))
            }
        };
        if compression == Compression::Stored && c.compressed_size != c.size {
            return Err(Error::new(
                ErrorKind::SizeMismatch,
                c.at,
                "a stored member whose two sizes agree",
            )
            .found(format!(
                "{} compressed, {} uncompressed",
                c.compressed_size, c.size
            ))
            .in_member(&name));
        }
        // Only the fixed part of the local header for now: names and extra fields are
        // read after the overlap check, so no byte of the file is read twice.
        let (fixed, data_start) = local_fixed(r, c).map_err(|e| e.in_member(&name))?;
        locals.push(fixed);
        members.push(Member {
            name,
            compression,
            compressed_size: c.compressed_size,
            size: c.size,
            crc32: c.crc32,
            header_start: c.header_start,
            data_start,
        });
    }
    let mut spans: Vec<(u64, u64, &str)> = Vec::with_capacity(members.len());
    for m in &members {
        spans.push((
            m.header_start,
            add(m.data_start, m.compressed_size, m.header_start)?,
            &m.name,
        ));
    }
    spans.sort_unstable();
    let mut prev_end = 0u64;
    let mut prev_name = "";
    for &(start, stop, name) in &spans {
        if start < prev_end {
            return Err(format_err(start, format!("members whose bytes do not overlap (after {prev_name:?}, which ends at byte {prev_end})"))
                .found(format!("a member starting at byte {start}"))
                .in_member(name));
        }
        prev_end = stop;
        prev_name = name;
    }
    if prev_end > end.cd_offset {
        return Err(format_err(
            end.cd_offset,
            "member data ending before the central directory",
        )
        .found(format!("data up to byte {prev_end}"))
        .in_member(prev_name));
    }
    for ((m, c), fixed) in members.iter().zip(central).zip(&locals) {
        check_local(r, c, fixed).map_err(|e| e.in_member(&m.name))?;
    }
    Ok(members)
}

/// Reads the fixed 30 bytes of a member's local header; returns them and where the data starts.
fn local_fixed<R: Read + Seek>(r: &mut R, c: &Central) -> Result<([u8; LOCAL_LEN], u64)> {
    let at = c.header_start;
    let mut fixed = [0u8; LOCAL_LEN];
    read_at(r, at, &mut fixed, "a local header")?;
    if fixed.get(..4) != Some(&SIG_LOCAL[..]) {
        return Err(format_err(
            at,
            "a local header (PK\\x03\\x04) where the central directory points",
        )
        .found(format!("{:02x?}", fixed.get(..4).unwrap_or_default())));
    }
    let var = u64::from(le16(&fixed, 26)).saturating_add(u64::from(le16(&fixed, 28)));
    let data_start = add(add(at, LOCAL_LEN as u64, at)?, var, at)?;
    Ok((fixed, data_start))
}

/// Reads a member's local name and extra fields and checks the local header against the central entry.
fn check_local<R: Read + Seek>(r: &mut R, c: &Central, fixed: &[u8; LOCAL_LEN]) -> Result<()> {
    let at = c.header_start;
    r.seek(SeekFrom::Start(add(at, LOCAL_LEN as u64, at)?))
        .map_err(|e| Error::io(at, e))?;
    let (flags, method, crc32) = (le16(fixed, 6), le16(fixed, 8), le32(fixed, 14));
    let (csize, usize_, name_len, extra_len) = (
        le32(fixed, 18),
        le32(fixed, 22),
        le16(fixed, 26),
        le16(fixed, 28),
    );
    let name = read_vec(r, name_len, at, "a local header's name")?;
    let extra = read_vec(r, extra_len, at, "a local header's extra fields")?;
    let mismatch = |what: &str, found: String| {
        Error::new(
            ErrorKind::ZipHeaderMismatch,
            at,
            format!("a local header agreeing with the central directory ({what})"),
        )
        .found(found)
    };
    if name != c.raw_name {
        return Err(mismatch(
            "name",
            format!("local name {:?}", String::from_utf8_lossy(&name)),
        ));
    }
    if method != c.method {
        return Err(mismatch(
            "compression method",
            format!(
                "method {method} where the central directory has {}",
                c.method
            ),
        ));
    }
    if (flags ^ c.flags) & FLAGS_COMPARED != 0 {
        return Err(mismatch(
            "flags",
            format!(
                "flags {flags:#06x} where the central directory has {:#06x}",
                c.flags
            ),
        ));
    }
    if flags & FLAG_DESCRIPTOR == 0 {
        let fields = extra_fields(&extra, at)?;
        let mut z64 = zip64_field(&fields, at)?.unwrap_or_default();
        let size = widen32(usize_, &mut z64, at, "uncompressed size")?;
        let compressed = widen32(csize, &mut z64, at, "compressed size")?;
        if (crc32, compressed, size) != (c.crc32, c.compressed_size, c.size) {
            return Err(mismatch(
                "CRC and sizes",
                format!(
                    "CRC {crc32:08x}, {compressed} compressed, {size} uncompressed where the central directory has {:08x}, {}, {}",
                    c.crc32, c.compressed_size, c.size
                ),
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Writing.

/// The name NumPy gives the `i`-th unnamed array: `arr_{i}`.
pub fn positional_name(i: usize) -> String {
    format!("arr_{i}")
}

/// Names arrays as `np.savez(file, *positional, **named)` does: the named
/// arrays first, in order, then the positional ones as `arr_0`, `arr_1`…
/// [`ErrorKind::InvalidInput`] if a name repeats (NumPy: "Cannot use un-named
/// variables and keyword arr_0").
pub fn name_arrays<'a>(
    positional: &[&'a Array],
    named: &[(&str, &'a Array)],
) -> Result<Vec<(String, &'a Array)>> {
    let mut out: Vec<(String, &'a Array)> =
        named.iter().map(|(n, a)| ((*n).to_string(), *a)).collect();
    for (i, a) in positional.iter().enumerate() {
        out.push((positional_name(i), *a));
    }
    let mut seen = HashSet::with_capacity(out.len());
    for (n, _) in &out {
        if !seen.insert(n.as_str()) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                0,
                "array names that are all different",
            )
            .found(format!("{n:?} twice")));
        }
    }
    Ok(out)
}

/// Writes `arrays` as `np.savez` does (members stored) and returns the writer.
/// Each `(name, array)` becomes member `name.npy` (`.npy` is always appended, as NumPy does).
pub fn savez<W: Write + Seek, S: AsRef<str>>(w: W, arrays: &[(S, &Array)]) -> Result<W> {
    write_npz(w, arrays, zip::CompressionMethod::Stored)
}

/// Writes `arrays` as `np.savez_compressed` does (members deflated) and returns the writer.
pub fn savez_compressed<W: Write + Seek, S: AsRef<str>>(w: W, arrays: &[(S, &Array)]) -> Result<W> {
    write_npz(w, arrays, zip::CompressionMethod::Deflated)
}

/// [`savez`] to a new file at `path` (replacing any file there).
pub fn savez_path<S: AsRef<str>>(path: impl AsRef<Path>, arrays: &[(S, &Array)]) -> Result<()> {
    let file = File::create(path).map_err(|e| Error::io(0, e))?;
    savez(io::BufWriter::new(file), arrays)?
        .flush()
        .map_err(|e| Error::io(0, e))
}

/// [`savez_compressed`] to a new file at `path` (replacing any file there).
pub fn savez_compressed_path<S: AsRef<str>>(
    path: impl AsRef<Path>,
    arrays: &[(S, &Array)],
) -> Result<()> {
    let file = File::create(path).map_err(|e| Error::io(0, e))?;
    savez_compressed(io::BufWriter::new(file), arrays)?
        .flush()
        .map_err(|e| Error::io(0, e))
}

fn write_npz<W: Write + Seek, S: AsRef<str>>(
    w: W,
    arrays: &[(S, &Array)],
    method: zip::CompressionMethod,
) -> Result<W> {
    let mut seen = HashSet::with_capacity(arrays.len());
    for (name, _) in arrays {
        let name = name.as_ref();
        let member_len = name.len().saturating_add(NPY_SUFFIX.len());
        if name.contains('\0') || member_len > usize::from(u16::MAX) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                0,
                "an array name without NUL, at most 65 531 bytes",
            )
            .found(format!(
                "{:?}",
                name.get(..name.len().min(64)).unwrap_or_default()
            )));
        }
        if !seen.insert(name) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                0,
                "array names that are all different",
            )
            .found(format!("{name:?} twice")));
        }
    }
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(method)
        .large_file(true)
        .unix_permissions(0o600)
        .last_modified_time(zip::DateTime::default());
    let mut zip = zip::ZipWriter::new(w);
    for (name, array) in arrays {
        let member = format!("{}{NPY_SUFFIX}", name.as_ref());
        zip.start_file(member.as_str(), options)
            .map_err(|e| write_error(e, &member))?;
        crate::write::to_writer(&mut zip, array).map_err(|e| e.in_member(&member))?;
    }
    zip.finish()
        .map_err(|e| write_error(e, "(central directory)"))
}

fn write_error(e: zip::result::ZipError, member: &str) -> Error {
    match e {
        zip::result::ZipError::Io(io) => Error::io(0, io),
        other => Error::new(
            ErrorKind::InvalidInput,
            0,
            "a member the zip writer accepts",
        )
        .found(other.to_string()),
    }
    .in_member(member)
}
