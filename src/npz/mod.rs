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
//!   overlap (the "overlapping zip bomb") — [`ErrorKind::ZipFormat`](crate::ErrorKind::ZipFormat);
//! - more members than [`ReadOptions::max_npz_members`](crate::ReadOptions::max_npz_members) (counted from the end
//!   record, before the central directory is read) — [`ErrorKind::TooManyMembers`](crate::ErrorKind::TooManyMembers);
//! - keys that collide — [`ErrorKind::DuplicateMember`](crate::ErrorKind::DuplicateMember): NumPy answers key `x` with
//!   member `x` if there is one, else with `x.npy`, so two members named alike (`a` and
//!   `a.npy`, `a.npy` and `a.npy.npy`, or the same name twice) would leave a member
//!   unreachable or a key ambiguous;
//! - a local header whose name, compression method, flags, CRC or sizes differ
//!   from its central-directory entry — [`ErrorKind::ZipHeaderMismatch`](crate::ErrorKind::ZipHeaderMismatch)
//!   (CRC and sizes are compared unless the member uses a data descriptor, which must
//!   then repeat them);
//! - encrypted members — [`ErrorKind::EncryptedMember`](crate::ErrorKind::EncryptedMember); methods other than
//!   stored and deflated — [`ErrorKind::UnsupportedCompression`](crate::ErrorKind::UnsupportedCompression);
//! - what Python's zipfile refuses (a "version needed to extract" above 6.3, flag bit 5
//!   "compressed patched data", multi-disk archives) or would read differently from the
//!   zip64 locator (a zip64 end record that is not the 56 bytes right before its
//!   locator), a zip64 end record that disagrees with the classic one, names that are
//!   not valid UTF-8 (when flagged so) or hold a NUL — [`ErrorKind::ZipFormat`](crate::ErrorKind::ZipFormat).
//!
//! Each member is then decompressed as a stream straight into the `.npy`
//! reader ([`read_from`](crate::read_from)), so memory grows only as bytes
//! arrive, whatever sizes the zip declares. While bytes are decompressed the
//! reader enforces, and names the member in the error text of:
//!
//! - [`ReadOptions::max_file_bytes`](crate::ReadOptions::max_file_bytes) on each member's `.npy` bytes
//!   ([`ErrorKind::FileTooLarge`](crate::ErrorKind::FileTooLarge); a header that claims more is refused before
//!   its payload is read);
//! - [`ReadOptions::max_npz_total_bytes`](crate::ReadOptions::max_npz_total_bytes) on all members read through the archive
//!   ([`ErrorKind::TotalTooLarge`](crate::ErrorKind::TotalTooLarge));
//! - [`ReadOptions::max_npz_ratio`](crate::ReadOptions::max_npz_ratio) on decompressed / compressed size
//!   ([`ErrorKind::CompressionRatio`](crate::ErrorKind::CompressionRatio));
//! - the member's declared uncompressed size: a member that decodes to more
//!   (or fewer) bytes than declared, or whose deflate stream does not fill its
//!   compressed size exactly, is refused ([`ErrorKind::SizeMismatch`](crate::ErrorKind::SizeMismatch));
//! - its CRC-32, checked when the member has been read to its end
//!   ([`ErrorKind::CrcMismatch`](crate::ErrorKind::CrcMismatch); header-only reads do not check it).
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
//! npyguard refuses to read such a member as an array ([`ErrorKind::BadMagic`](crate::ErrorKind::BadMagic), naming
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
//! assert_eq!(archive.array("a").unwrap().data(), &ArrayData::I32(vec![1, 2, 3].into()));
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

mod archive;
mod member;
mod parts;
mod stream;
mod structure;
mod write;

pub use archive::{
    looks_like_npz, open, read_npz_bytes, Arrays, NpzArchive, EMPTY_ZIP_MAGIC, ZIP_MAGIC,
};
pub use member::{Compression, Member};
pub use parts::MemberChunks;
pub use write::{
    name_arrays, positional_name, savez, savez_compressed, savez_compressed_path, savez_path,
};
