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
use std::io::Read;
use std::path::Path;

use crate::data::array::{Array, NpyArray};
use crate::data::buffer::Buffer;
use crate::data::element::Element;
use crate::data::storage::ArrayData;
use crate::error::Result;
use crate::format::header::Header;
use crate::io::decode::{Raw, Reused};
use crate::io::opened::{read_header_from, Opened};
use crate::options::ReadOptions;

/// Reads a whole `.npy` file held in memory.
pub fn read_bytes(bytes: &[u8], opts: &ReadOptions) -> Result<Array> {
    Opened::from_slice(bytes, opts)?.read()
}

/// Reads a `.npy` file from a stream, stopping right after the payload
/// (and, unless trailing bytes are allowed, checking that the stream ends there).
pub fn read_from<R: Read>(reader: R, opts: &ReadOptions) -> Result<Array> {
    Opened::stream(reader, opts)?.read()
}

/// Reads a `.npy` file from a path. The file's size is checked against
/// `max_file_bytes` before reading, and the read itself is bounded, so a file
/// that grows meanwhile cannot push memory past the limit.
pub fn read_path(path: impl AsRef<Path>, opts: &ReadOptions) -> Result<Array> {
    Opened::path(path, opts)?.read()
}

/// Reads an array from a file opened by the caller (a path opened once: see
/// [`file_length`](crate::file_length) for what is checked before the first byte is read).
pub fn read_file(file: File, opts: &ReadOptions) -> Result<Array> {
    Opened::file(file, opts)?.read()
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
    Opened::path(path, opts)?.read_raw()
}

/// [`read_raw_path`] from any stream (nothing reserved beyond 1 MiB before the bytes arrive).
pub fn read_raw_from<R: Read>(reader: R, opts: &ReadOptions) -> Result<(Header, Buffer<u8>)> {
    Opened::stream(reader, opts)?.read_raw()
}

/// Reads only the preamble and header from a stream (the payload is not touched, and
/// nothing is checked against the input's length: [`Opened`] makes every check of a read).
pub fn read_header<R: Read>(mut reader: R, opts: &ReadOptions) -> Result<Header> {
    read_header_from(&mut reader, opts)
}

impl<R: Read> Opened<R> {
    /// Reads the payload into an [`Array`] (values in the file's memory order) and checks
    /// the input's end.
    pub fn read(self) -> Result<Array> {
        let sink = ArrayData::with_capacity(self.header().dtype(), 0);
        self.decode(sink).map(|(h, d)| Array::from_parts(h, d))
    }

    /// The header and the payload's bytes exactly as the input holds them (see
    /// [`read_raw_path`]).
    pub fn read_raw(self) -> Result<(Header, Buffer<u8>)> {
        self.decode(Raw::default()).map(|(h, raw)| (h, raw.0))
    }

    /// Reads the payload as values of `T` (opened by a typed door, which checked the type).
    fn read_typed<T: Element>(self) -> Result<NpyArray<T>> {
        self.decode(Buffer::<T>::new())
            .map(|(h, d)| NpyArray::from_parts(h, d))
    }

    /// Reads the payload into `buf`'s allocation (see [`NpyArray::read_into`]).
    fn read_reusing<T: Element>(self, buf: &mut Vec<T>) -> Result<Header> {
        let taken = Reused::new(std::mem::take(buf));
        let (header, mut data) = self.decode(taken)?;
        if header.element_count() == 0 {
            data.vec.clear();
        }
        *buf = data.vec;
        Ok(header)
    }
}

impl<T: Element> NpyArray<T> {
    /// Reads a typed array from memory; [`ErrorKind::TypeMismatch`](crate::ErrorKind) if `T`
    /// cannot represent the dtype.
    pub fn read_bytes(bytes: &[u8], opts: &ReadOptions) -> Result<NpyArray<T>> {
        Opened::slice_of::<T>(bytes, opts)?.read_typed()
    }

    /// Reads a typed array from a stream.
    pub fn read<R: Read>(reader: R, opts: &ReadOptions) -> Result<NpyArray<T>> {
        Opened::stream_of::<T>(reader, opts)?.read_typed()
    }

    /// Reads a typed array from a path.
    pub fn read_path(path: impl AsRef<Path>, opts: &ReadOptions) -> Result<NpyArray<T>> {
        Opened::path_of::<T>(path, opts)?.read_typed()
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
        buf.clear();
        Opened::stream_of::<T>(reader, opts)?.read_reusing(buf)
    }

    /// [`read_into`](NpyArray::read_into) from a path (size checked first, bounded read).
    pub fn read_path_into(
        path: impl AsRef<Path>,
        opts: &ReadOptions,
        buf: &mut Vec<T>,
    ) -> Result<Header> {
        buf.clear();
        Opened::path_of::<T>(path, opts)?.read_reusing(buf)
    }
}
