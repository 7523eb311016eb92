//! Whole `.npy` files as validated bytes, for NumPy to build its array over.
//!
//! npyguard's readers decode a payload into typed values; NumPy wants the payload's own
//! bytes (its dtype may be big-endian, a record, text). These functions get those bytes
//! under the same [`ReadOptions`], opened through npyguard's one checked opening
//! ([`Opened`], as the CLI and the library's readers open the same input: same errors,
//! kinds and offsets):
//!
//! - a path: `Opened::path(..).read_raw()` (a payload of `ReadOptions::huge_page_threshold`
//!   bytes or more, 4 MiB by default, in huge-page memory);
//! - a stream: `Opened::stream(..).read_raw()`;
//! - bytes: `Opened::from_slice(..).into_view()`, then one copy of the payload (NumPy's
//!   array is writable; the caller's `bytes` are not).

use std::io::Read;
use std::path::Path;

use npyguard::{Buffer, Error, Header, Opened, ReadOptions, Version};

/// A validated file's payload and header.
pub struct Raw {
    /// The payload's bytes, in the file's byte and memory order.
    pub bytes: Bytes,
    /// The header.
    pub header: Header,
}

/// The memory a payload is held in. Never resized after the read.
pub enum Bytes {
    /// Heap memory (a copy of caller-owned bytes, or a re-encoded `.npz` member).
    Heap(Vec<u8>),
    /// npyguard's buffer (a `Vec`, or a huge-page mapping for large payloads).
    Buffer(Buffer<u8>),
}

impl Bytes {
    /// The bytes, writable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        match self {
            Bytes::Heap(v) => v,
            Bytes::Buffer(b) => b,
        }
    }

    /// Whether the bytes live in a huge-page mapping.
    pub fn is_mapped(&self) -> bool {
        matches!(self, Bytes::Buffer(b) if b.is_mapped())
    }
}

/// Reads the file at `path` as `read_path` reads it (a FIFO or device as a stream).
pub fn path(path: &Path, opts: &ReadOptions) -> Result<Raw, Error> {
    let (header, payload) = Opened::path(path, opts)?.read_raw()?;
    Ok(Raw {
        bytes: Bytes::Buffer(payload),
        header,
    })
}

/// Reads a stream as `read_from` reads it: exactly the header and payload, then (unless
/// trailing bytes are allowed) one byte more to check that the stream ends there.
pub fn stream<R: Read>(reader: R, opts: &ReadOptions) -> Result<Raw, Error> {
    let (header, payload) = Opened::stream(reader, opts)?.read_raw()?;
    Ok(Raw {
        bytes: Bytes::Buffer(payload),
        header,
    })
}

/// Validates a whole file held in memory exactly as `read_bytes` would, and copies its
/// payload (the result is NumPy's to write to).
pub fn buffer(data: &[u8], opts: &ReadOptions) -> Result<Raw, Error> {
    let view = Opened::from_slice(data, opts)?.into_view()?;
    Ok(Raw {
        bytes: Bytes::Heap(view.payload().to_vec()),
        header: view.header().clone(),
    })
}

/// The header of the file at `path`, checked against the file's length as a full read
/// would check it (`npyguard inspect`); the payload is not read.
pub fn header_path(path: &Path, opts: &ReadOptions) -> Result<Header, Error> {
    Ok(Opened::path(path, opts)?.into_parts().0)
}

/// Parses a header dict as `np.save` would write it (`{'descr': ..., 'fortran_order':
/// ..., 'shape': ..., }`) into a validated [`Header`] (text in UTF-8, as in a 3.0 file).
pub fn parse_dict_text(text: &str) -> Result<Header, Error> {
    Header::from_dict(text.as_bytes(), Version::V3_0)
}
