//! Limits and policies for reading, decided once and enforced where bytes enter.
//!
//! ```
//! use npyguard::ReadOptions;
//! let opts = ReadOptions::default()
//!     .max_file_bytes(Some(100 * 1024 * 1024))
//!     .numpy_strict(true);
//! assert_eq!(opts.get_max_file_bytes(), Some(100 * 1024 * 1024));
//! ```

/// Default cap on the declared header length: 64 KiB, above NumPy's 10 000
/// characters in any encoding (10 000 UTF-8 characters are at most 40 000 bytes).
pub const DEFAULT_MAX_HEADER_BYTES: usize = 64 * 1024;

/// Options for every reader in the crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOptions {
    pub(crate) max_file_bytes: Option<u64>,
    pub(crate) max_header_bytes: usize,
    pub(crate) numpy_strict: bool,
    pub(crate) allow_trailing_bytes: bool,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            max_file_bytes: None,
            max_header_bytes: DEFAULT_MAX_HEADER_BYTES,
            numpy_strict: false,
            allow_trailing_bytes: false,
        }
    }
}

impl ReadOptions {
    /// Options with the defaults: no file-size limit, 64 KiB header cap,
    /// extra header keys allowed, trailing bytes refused.
    pub fn new() -> ReadOptions {
        ReadOptions::default()
    }

    /// Limit on the whole file (preamble, header and payload). A file of
    /// exactly this size is accepted. `None` means unlimited.
    #[must_use]
    pub fn max_file_bytes(mut self, limit: Option<u64>) -> ReadOptions {
        self.max_file_bytes = limit;
        self
    }

    /// Cap on the declared header length, checked before anything is allocated for it.
    #[must_use]
    pub fn max_header_bytes(mut self, cap: usize) -> ReadOptions {
        self.max_header_bytes = cap;
        self
    }

    /// Refuse what NumPy refuses that npyguard would otherwise accept
    /// (extra header keys, headers longer than NumPy's 10 000 characters).
    #[must_use]
    pub fn numpy_strict(mut self, strict: bool) -> ReadOptions {
        self.numpy_strict = strict;
        self
    }

    /// Accept bytes after the payload (NumPy ignores them). Off by default:
    /// trailing bytes are how polyglot files hide a second format.
    #[must_use]
    pub fn allow_trailing_bytes(mut self, allow: bool) -> ReadOptions {
        self.allow_trailing_bytes = allow;
        self
    }

    /// The file-size limit.
    pub fn get_max_file_bytes(&self) -> Option<u64> {
        self.max_file_bytes
    }

    /// The header-length cap.
    pub fn get_max_header_bytes(&self) -> usize {
        self.max_header_bytes
    }

    /// Whether numpy-strict mode is on.
    pub fn is_numpy_strict(&self) -> bool {
        self.numpy_strict
    }

    /// Whether trailing bytes are accepted.
    pub fn allows_trailing_bytes(&self) -> bool {
        self.allow_trailing_bytes
    }
}
