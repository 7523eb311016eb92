//! `.npz` archives: NumPy's zip of `.npy` members, read and written (feature `npz`).
//!
//! # Reading: what NumPy reads, or a refusal
//!
//! The meaning of an archive is what `np.load(path)` returns for it: NumPy's
//! `NpzFile` over CPython's `zipfile`. npyguard reads the zip structure itself
//! (module `structure`) and gives, for every archive it accepts, the same keys and the
//! same arrays as NumPy; what NumPy would read differently from another zip reader, or
//! not at all, it refuses. [`NpzArchive::new`] checks the whole structure before any
//! member is read and refuses:
//!
//! - a file that does not start with `PK\x03\x04` or `PK\x05\x06` (NumPy's test for an
//!   archive), bytes before the first member, in gaps between members (other than each
//!   member's data descriptor) or after the end record's comment, members whose bytes
//!   overlap (the "overlapping zip bomb") — [`ErrorKind::ZipFormat`];
//! - more members than [`ReadOptions::max_npz_members`] (counted from the end
//!   record, before the central directory is read) — [`ErrorKind::TooManyMembers`];
//! - keys that collide — [`ErrorKind::DuplicateMember`]: NumPy answers key `x` with
//!   member `x` if there is one, else with `x.npy`, so two members named alike (`a` and
//!   `a.npy`, `a.npy` and `a.npy.npy`, or the same name twice) would leave a member
//!   unreachable or a key ambiguous;
//! - a local header whose name, compression method, flags, CRC or sizes differ
//!   from its central-directory entry — [`ErrorKind::ZipHeaderMismatch`]
//!   (CRC and sizes are compared unless the member uses a data descriptor, which must
//!   then repeat them);
//! - encrypted members — [`ErrorKind::EncryptedMember`]; methods other than
//!   stored and deflated — [`ErrorKind::UnsupportedCompression`];
//! - what Python's zipfile refuses (a "version needed to extract" above 6.3, flag bit 5
//!   "compressed patched data", multi-disk archives) or would read differently from the
//!   zip64 locator (a zip64 end record that is not the 56 bytes right before its
//!   locator), a zip64 end record that disagrees with the classic one, names that are
//!   not valid UTF-8 (when flagged so) or hold a NUL — [`ErrorKind::ZipFormat`].
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
//! # Keys
//!
//! Names are decoded as Python's `zipfile` decodes them (UTF-8 when flag bit 11
//! is set, else code page 437). As in NumPy, every member is an entry: its key is its
//! name without a final `.npy` ([`Member::key`]), and it is looked up by its key or its
//! full name. NumPy sniffs each member's first bytes: a member holding `.npy` data is an
//! array whatever its name, and one that does not is returned by NumPy as raw bytes;
//! npyguard refuses to read such a member as an array ([`ErrorKind::BadMagic`], naming
//! the member), so `validate` fails on an archive holding one. Member names are only
//! names, never paths: `a/../b.npy` is the array `a/../b`, and nothing is ever written to
//! disk by the reader.
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
//! order, each member's bytes exactly `np.save`'s ([`write::to_writer`](crate::io::write::to_writer)),
//! with NumPy's zip64 extra fields, 1980-01-01 timestamps and `0o600` permissions.
//! [`name_arrays`] names unnamed arrays `arr_0`, `arr_1`… as NumPy does.

mod stream;
mod structure;
mod write;

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use crate::data::array::{Array, NpyArray};
use crate::data::element::Element;
use crate::error::{Error, ErrorKind, Result};
use crate::format::header::Header;
use crate::options::ReadOptions;
use stream::{Guard, Limits, Source};

pub use write::{
    name_arrays, positional_name, savez, savez_compressed, savez_compressed_path, savez_path,
};

/// The first four bytes of a zip file that starts with a member (every non-empty `.npz`).
pub const ZIP_MAGIC: &[u8; 4] = &structure::SIG_LOCAL;
/// The first four bytes of an empty zip file (an `.npz` of no arrays).
pub const EMPTY_ZIP_MAGIC: &[u8; 4] = &structure::SIG_END;

const NPY_SUFFIX: &str = ".npy";

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
    pub(crate) name: String,
    pub(crate) compression: Compression,
    pub(crate) compressed_size: u64,
    pub(crate) size: u64,
    pub(crate) crc32: u32,
    pub(crate) header_start: u64,
    pub(crate) data_start: u64,
}

impl Member {
    /// The member's full name, e.g. `x.npy`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the name ends in `.npy`.
    pub fn is_npy(&self) -> bool {
        self.name.ends_with(NPY_SUFFIX)
    }

    /// The member's key, as NumPy's `NpzFile.files` lists it: the name without a final
    /// `.npy` (`x.npy` is `x`; `notes.txt` stays `notes.txt`).
    pub fn key(&self) -> &str {
        self.name.strip_suffix(NPY_SUFFIX).unwrap_or(&self.name)
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
    reader: R,
    members: Vec<Member>,
    /// Key or full name → member index (keys never collide: see the module docs).
    index: HashMap<String, usize>,
    opts: ReadOptions,
    decoded: u64,
}

/// Opens the `.npz` file at `path` (see [`NpzArchive::new`]). The path is opened once; a
/// directory, FIFO or device is refused as an I/O error (an archive must be seekable).
pub fn open(path: impl AsRef<Path>, opts: &ReadOptions) -> Result<NpzArchive<BufReader<File>>> {
    let path = path.as_ref();
    let cannot = || format!("cannot open {}", path.display());
    let file = File::open(path).map_err(|e| Error::os(cannot(), e))?;
    let meta = file.metadata().map_err(|e| Error::os(cannot(), e))?;
    if !meta.is_file() {
        return Err(Error::os(
            cannot(),
            io::Error::other("not a regular file (an archive must be seekable)"),
        ));
    }
    NpzArchive::new(BufReader::new(file), opts)
}

/// Reads every array of a `.npz` archive held in memory, in archive order, as `(key, array)`.
pub fn read_npz_bytes(bytes: &[u8], opts: &ReadOptions) -> Result<Vec<(String, Array)>> {
    NpzArchive::new(io::Cursor::new(bytes), opts)?.read_all()
}

/// Whether `bytes` start like a zip file (a member, or the end record of an empty zip):
/// NumPy's test for an archive.
pub fn looks_like_npz(bytes: &[u8]) -> bool {
    bytes.starts_with(ZIP_MAGIC) || bytes.starts_with(EMPTY_ZIP_MAGIC)
}

/// Key or full name → member index; two members answering to one key are refused.
fn key_index(members: &[Member]) -> Result<HashMap<String, usize>> {
    let mut index: HashMap<String, usize> = HashMap::with_capacity(members.len().saturating_mul(2));
    for (i, m) in members.iter().enumerate() {
        for key in [m.name.as_str(), m.key()] {
            match index.insert(key.to_string(), i) {
                Some(j) if j != i => {
                    let other = members.get(j).map_or("", |o| o.name.as_str());
                    return Err(Error::new(
                        ErrorKind::DuplicateMember,
                        m.header_start,
                        "member names that answer to different keys (a name, and the name without .npy, name one member)",
                    )
                    .found(format!("members {other:?} and {:?} both answer to key {key:?}", m.name)));
                }
                _ => {}
            }
        }
    }
    Ok(index)
}

impl<R: Read + Seek> NpzArchive<R> {
    /// Opens an archive and checks its structure (see the [module docs](self)); no member is decompressed.
    pub fn new(mut reader: R, opts: &ReadOptions) -> Result<NpzArchive<R>> {
        let len = reader
            .seek(SeekFrom::End(0))
            .map_err(|e| Error::os("cannot seek the archive", e))?;
        // NumPy takes a file for an archive only when it starts with one of these.
        let mut magic = [0u8; 4];
        match structure::read_at(&mut reader, 0, &mut magic, "a zip signature") {
            Err(e) if e.kind() == ErrorKind::Io => return Err(e),
            Ok(()) if looks_like_npz(&magic) => {}
            _ => {
                return Err(structure::format_err(
                    0,
                    "an archive starting with PK\\x03\\x04 or PK\\x05\\x06 (as NumPy requires)",
                )
                .found(format!("{magic:02x?}")))
            }
        }
        let end = structure::find_end(&mut reader, len)?;
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
        let central = structure::read_central(&mut reader, &end)?;
        let members = structure::check_members(&mut reader, &central, &end)?;
        let index = key_index(&members)?;
        Ok(NpzArchive {
            reader,
            members,
            index,
            opts: opts.clone(),
            decoded: 0,
        })
    }

    /// Every member in archive (central-directory) order.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// The keys, in archive order, as NumPy's `NpzFile.files` lists them: each member's
    /// name without a final `.npy` ([`Member::key`]).
    pub fn array_names(&self) -> impl Iterator<Item = &str> {
        self.members.iter().map(Member::key)
    }

    /// The member answering to `name`: a member of that full name, else the member `name.npy`.
    pub fn member(&self, name: &str) -> Option<&Member> {
        self.index_of(name).ok().and_then(|i| self.members.get(i))
    }

    /// Decompressed bytes read through this archive so far (what `max_npz_total_bytes` limits).
    pub fn decoded_bytes(&self) -> u64 {
        self.decoded
    }

    /// Checks what the members declare, without decompressing anything, against the limits
    /// a full read enforces: each member's declared size against `max_file_bytes`
    /// ([`ErrorKind::FileTooLarge`]) and `max_npz_ratio` ([`ErrorKind::CompressionRatio`]),
    /// their sum against `max_npz_total_bytes` ([`ErrorKind::TotalTooLarge`]). A member
    /// that passes may still be refused when read (it may decode to other sizes, which are
    /// then refused as [`ErrorKind::SizeMismatch`]).
    pub fn check_declared_sizes(&self) -> Result<()> {
        let mut total = 0u64;
        let limits = self.limits();
        for m in &self.members {
            if let Some(e) = stream::declared_size_error(m, &limits, total) {
                return Err(e.in_member(&m.name));
            }
            total = total.saturating_add(m.size);
        }
        Ok(())
    }

    /// Reads array `name` (its key or full name), checking its CRC and sizes.
    pub fn array(&mut self, name: &str) -> Result<Array> {
        let index = self.index_of(name)?;
        self.run(index, true, |r, opts| crate::io::read::read_from(r, opts))
    }

    /// Reads array `name` as a typed array ([`ErrorKind::TypeMismatch`] if `T` cannot represent its dtype).
    pub fn typed<T: Element>(&mut self, name: &str) -> Result<NpyArray<T>> {
        let index = self.index_of(name)?;
        self.run(index, true, |r, opts| NpyArray::<T>::read(r, opts))
    }

    /// Reads only the header of array `name`: just enough of the member is decompressed,
    /// so its CRC is not checked. The header is checked against the member's declared size
    /// as a full read would check it against the bytes ([`read::check_length`](crate::io::read::check_length):
    /// limits, a payload the size does not cover, trailing bytes).
    pub fn header(&mut self, name: &str) -> Result<Header> {
        let index = self.index_of(name)?;
        let size = self.members.get(index).map_or(0, |m| m.size);
        self.run(index, false, |r, opts| {
            let h = crate::io::read::read_header(r, opts)?;
            crate::io::read::check_length(&h, size, opts)?;
            Ok(h)
        })
    }

    /// Decompresses member `name` (its key or full name; any member, `.npy` or not)
    /// to its end under the limits, checking its CRC and sizes, and returns
    /// its size. Nothing is kept.
    pub fn verify_member(&mut self, name: &str) -> Result<u64> {
        let index = self.index_of(name)?;
        self.run(index, true, |r, _| {
            io::copy(r, &mut io::sink()).map_err(|e| Error::os("cannot read the member", e))?;
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
        if let Some(&i) = self.index.get(name) {
            return Ok(i);
        }
        Err(Error::unplaced(
            ErrorKind::MemberNotFound,
            format!(
                "a member answering to {name:?} (named {name:?} or {:?})",
                format!("{name}{NPY_SUFFIX}")
            ),
        )
        .found("no such member"))
    }

    fn limits(&self) -> Limits {
        Limits {
            member: self.opts.max_file_bytes,
            ratio: self.opts.max_npz_ratio,
            total: self.opts.max_npz_total_bytes,
            total_before: self.decoded,
        }
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
            return Err(Error::unplaced(
                ErrorKind::MemberNotFound,
                format!("a member at index {index}"),
            ));
        };
        let limits = self.limits();
        self.reader
            .seek(SeekFrom::Start(member.data_start))
            .map_err(|e| Error::io(member.data_start, e).in_member(&member.name))?;
        let raw = (&mut self.reader).take(member.compressed_size);
        let source = match member.compression {
            Compression::Stored => Source::Stored(raw),
            Compression::Deflated => Source::Deflated(flate2::read::DeflateDecoder::new(raw)),
        };
        let mut guard = Guard::new(source, &member, limits);
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
}

/// Iterator over an archive's arrays (see [`NpzArchive::arrays`]): `(key, array)` for
/// every member, in archive order.
#[derive(Debug)]
pub struct Arrays<'a, R> {
    archive: &'a mut NpzArchive<R>,
    next: usize,
}

impl<R: Read + Seek> Iterator for Arrays<'_, R> {
    type Item = Result<(String, Array)>;

    fn next(&mut self) -> Option<Self::Item> {
        let index = self.next;
        let key = self.archive.members.get(index)?.key().to_string();
        self.next = index.saturating_add(1);
        Some(
            self.archive
                .run(index, true, |r, opts| crate::io::read::read_from(r, opts))
                .map(|a| (key, a)),
        )
    }
}
