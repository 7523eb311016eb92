//! [`NpzArchive`]: an opened archive, its members by key, and reading them through the limits.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use crate::data::array::{Array, NpyArray};
use crate::data::buffer::Buffer;
use crate::data::element::Element;
use crate::error::{Error, ErrorKind, Result};
use crate::format::header::Header;
use crate::io::opened::Opened;
use crate::npz::member::{Member, NPY_SUFFIX};
use crate::npz::stream::{self, Guard, Limits};
use crate::npz::structure;
use crate::options::ReadOptions;

/// The first four bytes of a zip file that starts with a member (every non-empty `.npz`).
pub const ZIP_MAGIC: &[u8; 4] = &structure::SIG_LOCAL;
/// The first four bytes of an empty zip file (an `.npz` of no arrays).
pub const EMPTY_ZIP_MAGIC: &[u8; 4] = &structure::SIG_END;

/// An opened, structurally checked `.npz` archive. See the [module docs](crate::npz).
#[derive(Debug)]
pub struct NpzArchive<R> {
    pub(super) reader: R,
    pub(super) members: Vec<Member>,
    /// Key or full name → member index (keys never collide: see the module docs).
    index: Vec<(Box<str>, usize)>,
    pub(super) opts: ReadOptions,
    /// Decompressed bytes of the members read so far (for `max_npz_total_bytes`).
    pub(super) decoded: u64,
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

/// Deflate's ceiling: one compressed byte inflates to at most about 1 032 bytes (258-byte
/// matches at a quarter of a byte each), rounded up.
const DEFLATE_MAX_RATIO: u64 = 1033;

/// Whether `bytes` start like a zip file (a member, or the end record of an empty zip):
/// NumPy's test for an archive.
pub fn looks_like_npz(bytes: &[u8]) -> bool {
    bytes.starts_with(ZIP_MAGIC) || bytes.starts_with(EMPTY_ZIP_MAGIC)
}

/// Key or full name → member index, sorted by name for binary search (half the memory of a
/// hash map of owned keys: a 65 536-member archive's index is about 5 MB); two members
/// answering to one key are refused (the conflict of the earliest member in archive order
/// is reported).
fn key_index(members: &[Member]) -> Result<Vec<(Box<str>, usize)>> {
    let mut index: Vec<(Box<str>, usize)> = Vec::with_capacity(members.len().saturating_mul(2));
    for (i, m) in members.iter().enumerate() {
        index.push((m.name.as_str().into(), i));
        if m.key() != m.name {
            index.push((m.key().into(), i));
        }
    }
    index.sort_unstable();
    let conflict = index
        .windows(2)
        .filter_map(|w| match w {
            [(k, a), (l, b)] if k == l && a != b => Some((k, *a, *b)),
            _ => None,
        })
        .min_by_key(|&(_, _, later)| later);
    if let Some((key, first, later)) = conflict {
        let (Some(first), Some(later)) = (members.get(first), members.get(later)) else {
            return Err(Error::unplaced(
                ErrorKind::Internal,
                "the members at the key index's indices",
            ));
        };
        return Err(Error::new(
            ErrorKind::DuplicateMember,
            later.header_start,
            "member names that answer to different keys (a name, and the name without .npy, name one member)",
        )
        .found(format!(
            "members {:?} and {:?} both answer to key {key:?}",
            first.name, later.name
        )));
    }
    index.dedup();
    Ok(index)
}

impl<R: Read + Seek> NpzArchive<R> {
    /// Opens an archive and checks its structure (see the [module docs](crate::npz)); no member is decompressed.
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
        // The raw directory is not needed past here: freed before the index is built (a
        // 65 536-member archive's directory and index are megabytes each).
        drop(central);
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

    /// Checks what member `name` (its key or full name) declares, without decompressing
    /// anything, against the limits a read of it enforces: its declared size against
    /// `max_file_bytes`, `max_npz_ratio` and what `max_npz_total_bytes` leaves after the
    /// bytes read so far (what [`check_declared_sizes`](NpzArchive::check_declared_sizes)
    /// checks of every member; [`read_raw`](NpzArchive::read_raw) checks it first).
    ///
    /// ```
    /// use npyguard::npz::{savez, NpzArchive};
    /// use npyguard::{ErrorKind, NpyArray, ReadOptions};
    /// use std::io::Cursor;
    /// let a = NpyArray::from_vec(vec![0u8; 4096], vec![4096]).unwrap().to_array();
    /// let zip = savez(Cursor::new(Vec::new()), &[("a", &a)]).unwrap().into_inner();
    /// let small = ReadOptions::default().with_max_file_bytes(Some(1024));
    /// let ar = NpzArchive::new(Cursor::new(zip), &small).unwrap();
    /// assert_eq!(ar.check_declared_size("a").unwrap_err().kind(), ErrorKind::FileTooLarge);
    /// ```
    pub fn check_declared_size(&self, name: &str) -> Result<()> {
        self.check_declared_at(self.index_of(name)?)
    }

    /// [`check_declared_size`](NpzArchive::check_declared_size) of member `index`.
    fn check_declared_at(&self, index: usize) -> Result<()> {
        let member = self.member_at(index)?;
        match stream::declared_size_error(member, &self.limits(), self.decoded) {
            Some(e) => Err(e.in_member(&member.name)),
            None => Ok(()),
        }
    }

    /// Reads array `name` (its key or full name), checking its CRC and sizes.
    pub fn array(&mut self, name: &str) -> Result<Array> {
        let index = self.index_of(name)?;
        self.run(index, true, |r, opts| Opened::stream(r, opts)?.read())
    }

    /// Reads array `name` (its key or full name) as its header and its payload's bytes
    /// exactly as the member holds them (the file's byte and memory order; see
    /// [`read_raw_path`](crate::read_raw_path)), checking its CRC and sizes. The member's
    /// declared size is checked against the limits before anything is inflated, and the
    /// bytes inflated are counted against them (and the declared size) as they arrive, so
    /// memory is at most the declared size, which the limits bound.
    pub fn read_raw(&mut self, name: &str) -> Result<(Header, Buffer<u8>)> {
        let index = self.index_of(name)?;
        self.check_declared_at(index)?;
        let member = self.member_at(index)?;
        // The declared size reserves the buffer at once only where the member's real bytes
        // can back it (stored: the same bytes; deflated: at most deflate's ceiling per
        // compressed byte); any larger claim grows as bytes arrive (the guard refuses the
        // member when its inflation ends short), so no claim alone sizes an allocation.
        let backed = member.size <= member.compressed_size.saturating_mul(DEFLATE_MAX_RATIO);
        let size = member.size;
        self.run(index, true, |r, opts| {
            let opened = Opened::new(r, Some(size), opts)?;
            if backed {
                opened.backed_by_bytes()
            } else {
                opened
            }
            .read_raw()
        })
    }

    /// Reads array `name` as a typed array ([`ErrorKind::TypeMismatch`] if `T` cannot represent its dtype).
    pub fn typed<T: Element>(&mut self, name: &str) -> Result<NpyArray<T>> {
        let index = self.index_of(name)?;
        self.run(index, true, |r, opts| NpyArray::<T>::read(r, opts))
    }

    /// Reads only the header of array `name`: just enough of the member is decompressed,
    /// so its CRC is not checked. The header is checked against the member's declared size
    /// as a full read would check it against the bytes ([`check_length`](crate::check_length):
    /// limits, a payload the size does not cover, trailing bytes).
    pub fn header(&mut self, name: &str) -> Result<Header> {
        let index = self.index_of(name)?;
        let size = self.member_at(index)?.size;
        self.run(index, false, |r, opts| {
            Ok(Opened::new(r, Some(size), opts)?.into_parts().0)
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
        Ok(self.member_at(index)?.size)
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

    pub(super) fn index_of(&self, name: &str) -> Result<usize> {
        if let Ok(at) = self.index.binary_search_by(|(k, _)| (**k).cmp(name)) {
            if let Some(&(_, i)) = self.index.get(at) {
                return Ok(i);
            }
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

    /// Member `index`, an index [`index_of`](Self::index_of) gave or below the member count
    /// (any other is npyguard's bug, reported as [`ErrorKind::Internal`]).
    pub(super) fn member_at(&self, index: usize) -> Result<&Member> {
        self.members.get(index).ok_or_else(|| {
            Error::unplaced(ErrorKind::Internal, "a member at its index")
                .found(format!("index {index} of {} members", self.members.len()))
        })
    }

    pub(super) fn limits(&self) -> Limits {
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
        let member = self.member_at(index)?.clone();
        let limits = self.limits();
        let name = member.name.clone();
        let mut guard = Guard::open(&mut self.reader, member, limits)?;
        let mut result = f(&mut guard, &self.opts).map_err(|e| guard.failure.take().unwrap_or(e));
        if to_end && result.is_ok() {
            if let Err(e) = guard.finish() {
                result = Err(e);
            }
        }
        let decoded = guard.decoded;
        drop(guard);
        self.decoded = self.decoded.saturating_add(decoded);
        result.map_err(|e| e.in_member(&name))
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
                .run(index, true, |r, opts| Opened::stream(r, opts)?.read())
                .map(|a| (key, a)),
        )
    }
}
