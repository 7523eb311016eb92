//! The fixed-size start of a `.npy` file: magic, version, header length.
//!
//! ```text
//! \x93NUMPY  major minor  HEADER_LEN (u16 LE in 1.0, u32 LE in 2.0/3.0)  header text ...
//! ```
//!
//! ```
//! use npyguard::{Preamble, Version};
//! let p = Preamble::parse(b"\x93NUMPY\x01\x00\x76\x00").unwrap().unwrap();
//! assert_eq!(p.version, Version::V1_0);
//! assert_eq!(p.header_len, 118);
//! assert_eq!(p.header_offset(), 10);
//! ```

use crate::error::{Error, ErrorKind, Result};
use crate::prelude::*;

/// The six magic bytes every `.npy` file starts with.
pub const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// A `.npy` format version; only the three NumPy defines exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Version {
    /// 1.0: u16 header length, latin-1 header.
    V1_0,
    /// 2.0: u32 header length, latin-1 header.
    V2_0,
    /// 3.0: u32 header length, UTF-8 header.
    V3_0,
}

/// How the header text is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// ISO-8859-1: each byte is the code point of the same value.
    Latin1,
    /// Strict UTF-8.
    Utf8,
}

impl Version {
    /// `(major, minor)` as written in the file.
    pub fn bytes(self) -> [u8; 2] {
        match self {
            Version::V1_0 => [1, 0],
            Version::V2_0 => [2, 0],
            Version::V3_0 => [3, 0],
        }
    }

    /// Width in bytes of the header-length field (2 or 4).
    pub fn len_field_size(self) -> usize {
        match self {
            Version::V1_0 => 2,
            Version::V2_0 | Version::V3_0 => 4,
        }
    }

    /// The header text encoding this version uses.
    pub fn encoding(self) -> Encoding {
        match self {
            Version::V1_0 | Version::V2_0 => Encoding::Latin1,
            Version::V3_0 => Encoding::Utf8,
        }
    }

    /// Whether integers may carry the Python 2 `L` suffix (NumPy strips it for 1.0 and 2.0 only).
    pub fn allows_long_suffix(self) -> bool {
        self != Version::V3_0
    }
}

impl core::fmt::Display for Version {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let [a, b] = self.bytes();
        write!(f, "{a}.{b}")
    }
}

/// The decoded preamble.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preamble {
    /// Format version.
    pub version: Version,
    /// Declared length of the header text in bytes (padding and newline included).
    pub header_len: u32,
}

impl Preamble {
    /// The six bytes every `.npy` file starts with: `\x93NUMPY`.
    pub const MAGIC: &'static [u8; 6] = MAGIC;

    /// The longest a preamble can be (2.0 and 3.0).
    pub const MAX_LEN: usize = 12;

    /// Parses a preamble from the start of `bytes`.
    ///
    /// Returns `Ok(None)` when `bytes` is a valid prefix that is too short to
    /// decide (so a streaming caller can read more), and an error as soon as a
    /// byte is wrong.
    pub fn parse(bytes: &[u8]) -> Result<Option<Preamble>> {
        for (i, (&got, &want)) in bytes.iter().zip(MAGIC.iter()).enumerate() {
            if got != want {
                return Err(Error::new(
                    ErrorKind::BadMagic,
                    i as u64,
                    "the magic string \\x93NUMPY",
                )
                .found(format!("byte 0x{got:02x}")));
            }
        }
        let (Some(&major), Some(&minor)) = (bytes.get(6), bytes.get(7)) else {
            return Ok(None);
        };
        let version = match (major, minor) {
            (1, 0) => Version::V1_0,
            (2, 0) => Version::V2_0,
            (3, 0) => Version::V3_0,
            _ => {
                return Err(Error::new(
                    ErrorKind::UnsupportedVersion,
                    6,
                    "format version 1.0, 2.0 or 3.0",
                )
                .found(format!("version {major}.{minor}")))
            }
        };
        let header_len = match version {
            Version::V1_0 => match bytes.get(8..10) {
                Some(&[a, b]) => u32::from(u16::from_le_bytes([a, b])),
                _ => return Ok(None),
            },
            Version::V2_0 | Version::V3_0 => match bytes.get(8..12) {
                Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
                _ => return Ok(None),
            },
        };
        Ok(Some(Preamble {
            version,
            header_len,
        }))
    }

    /// Length of the preamble itself: 10 for 1.0, 12 for 2.0 and 3.0.
    pub fn len(&self) -> usize {
        8usize.saturating_add(self.version.len_field_size())
    }

    /// Always false: a preamble is never empty (provided for clippy's `len_without_is_empty`).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// File offset of the first header byte (same as [`len`](Preamble::len)).
    pub fn header_offset(&self) -> u64 {
        self.len() as u64
    }

    /// File offset of the first payload byte.
    pub fn payload_offset(&self) -> u64 {
        self.header_offset()
            .saturating_add(u64::from(self.header_len))
    }

    /// Checks the declared header length against `cap` (before anything is allocated for it).
    pub fn check_header_cap(&self, cap: usize) -> Result<()> {
        if u64::from(self.header_len) > cap as u64 {
            return Err(Error::new(
                ErrorKind::HeaderTooLong,
                8,
                format!("a header length of at most {cap} bytes (max_header_bytes)"),
            )
            .found(format!("{} bytes", self.header_len)));
        }
        Ok(())
    }
}
