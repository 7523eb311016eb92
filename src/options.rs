//! Limits and policies for reading, decided once and enforced where bytes enter.
//!
//! ```
//! use npyguard::ReadOptions;
//! let opts = ReadOptions::default()
//!     .with_max_file_bytes(Some(100 * 1024 * 1024))
//!     .with_numpy_strict(true);
//! assert_eq!(opts.max_file_bytes(), Some(100 * 1024 * 1024));
//! ```

use crate::limits::{
    DEFAULT_HUGE_PAGE_THRESHOLD, DEFAULT_MAX_HEADER_BYTES, DEFAULT_MAX_NPZ_MEMBERS,
    DEFAULT_MAX_NPZ_RATIO,
};

/// Options for every reader in the crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOptions {
    pub(crate) max_file_bytes: Option<u64>,
    pub(crate) max_header_bytes: usize,
    pub(crate) max_header_chars: Option<usize>,
    pub(crate) numpy_strict: bool,
    pub(crate) allow_trailing_bytes: bool,
    pub(crate) max_npz_members: Option<usize>,
    pub(crate) max_npz_total_bytes: Option<u64>,
    pub(crate) max_npz_ratio: Option<u64>,
    pub(crate) huge_page_threshold: usize,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            max_file_bytes: None,
            max_header_bytes: DEFAULT_MAX_HEADER_BYTES,
            max_header_chars: None,
            numpy_strict: false,
            allow_trailing_bytes: false,
            max_npz_members: Some(DEFAULT_MAX_NPZ_MEMBERS),
            max_npz_total_bytes: None,
            max_npz_ratio: Some(DEFAULT_MAX_NPZ_RATIO),
            huge_page_threshold: DEFAULT_HUGE_PAGE_THRESHOLD,
        }
    }
}

impl ReadOptions {
    /// Options with the defaults: no file-size limit, 64 KiB header cap,
    /// extra header keys allowed, trailing bytes refused; for `.npz` archives
    /// at most [`DEFAULT_MAX_NPZ_MEMBERS`] members, a compression ratio of at most
    /// [`DEFAULT_MAX_NPZ_RATIO`], no total-size limit. These are the defaults of every
    /// door: the CLI, the Python package and the DuckDB extension take them from here.
    pub fn new() -> ReadOptions {
        ReadOptions::default()
    }

    /// Limit on the whole file (preamble, header and payload). A file of
    /// exactly this size is accepted. `None` means unlimited.
    ///
    /// In a `.npz` archive the limit applies to each member's decompressed
    /// `.npy` bytes, not to the archive file.
    #[must_use]
    pub fn with_max_file_bytes(mut self, limit: Option<u64>) -> ReadOptions {
        self.max_file_bytes = limit;
        self
    }

    /// Cap on the declared header length, checked before anything is allocated for it.
    #[must_use]
    pub fn with_max_header_bytes(mut self, cap: usize) -> ReadOptions {
        self.max_header_bytes = cap;
        self
    }

    /// Limit on the decoded header's length in characters, NumPy's `max_header_size`
    /// (`np.load(..., max_header_size=n)`: a header of more than `n` characters, padding and
    /// newline included, is refused). Checked once the header's bytes are read (their
    /// number is first capped by [`with_max_header_bytes`](ReadOptions::with_max_header_bytes)),
    /// before any payload byte is. `None` (the default) leaves the character count
    /// unchecked, except in numpy-strict mode, which applies NumPy's default of
    /// [`NUMPY_MAX_HEADER_CHARS`](crate::limits::NUMPY_MAX_HEADER_CHARS); a limit set here
    /// replaces that default.
    ///
    /// ```
    /// use npyguard::{read_bytes, write, ErrorKind, NpyArray, ReadOptions};
    /// let bytes = write::to_vec(&NpyArray::from_vec(vec![1u8; 3], vec![3]).unwrap().to_array()).unwrap();
    /// // np.save pads the header to 118 characters.
    /// assert!(read_bytes(&bytes, &ReadOptions::default().with_max_header_chars(Some(118))).is_ok());
    /// let err = read_bytes(&bytes, &ReadOptions::default().with_max_header_chars(Some(117))).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::HeaderTooLong);
    /// ```
    #[must_use]
    pub fn with_max_header_chars(mut self, limit: Option<usize>) -> ReadOptions {
        self.max_header_chars = limit;
        self
    }

    /// Refuse what NumPy refuses that npyguard would otherwise accept
    /// (extra header keys, headers longer than NumPy's 10 000 characters).
    #[must_use]
    pub fn with_numpy_strict(mut self, strict: bool) -> ReadOptions {
        self.numpy_strict = strict;
        self
    }

    /// Accept bytes after the payload (NumPy ignores them). Off by default:
    /// trailing bytes are how polyglot files hide a second format.
    #[must_use]
    pub fn with_allow_trailing_bytes(mut self, allow: bool) -> ReadOptions {
        self.allow_trailing_bytes = allow;
        self
    }

    /// Limit on the number of members of a `.npz` archive (every member,
    /// `.npy` or not), checked against the count in the zip's end record
    /// before the central directory is read. `None` means unlimited; the
    /// default is [`DEFAULT_MAX_NPZ_MEMBERS`].
    #[must_use]
    pub fn with_max_npz_members(mut self, limit: Option<usize>) -> ReadOptions {
        self.max_npz_members = limit;
        self
    }

    /// Limit on the decompressed bytes read from one `.npz` archive, summed
    /// over every member read through it (a member read twice counts twice).
    /// Checked as bytes are decompressed, so a member is stopped as soon as the
    /// sum passes the limit. `None` (the default) means unlimited; decoding is
    /// still bounded by the archive's size, since deflate expands at most about
    /// 1032-fold and the reader refuses members whose bytes overlap, so all
    /// members together decode to at most about 1032 × the archive's size.
    #[must_use]
    pub fn with_max_npz_total_bytes(mut self, limit: Option<u64>) -> ReadOptions {
        self.max_npz_total_bytes = limit;
        self
    }

    /// Limit on a `.npz` member's decompressed size divided by its compressed
    /// size, checked as bytes are decompressed (a member decoding to more than
    /// `ratio × compressed size` bytes is refused at the first byte past it). The default
    /// is [`DEFAULT_MAX_NPZ_RATIO`] (1 000); `None` means no limit. Deflate's own ceiling
    /// is about 1032:1 and `np.savez_compressed` of a constant array reaches 1028:1 (80 MB
    /// of zeros → 77 843 bytes): such archives need `None` or a higher ratio. Set it lower
    /// (say to 100) when the inputs are measured data that never compress that far.
    #[must_use]
    pub fn with_max_npz_ratio(mut self, ratio: Option<u64>) -> ReadOptions {
        self.max_npz_ratio = ratio;
        self
    }

    /// Payloads of at least this many bytes, read whole from a file or a slice, are read
    /// into an anonymous mapping advised to use huge pages ([`Buffer`](crate::Buffer),
    /// feature `hugepages`) instead of a `Vec`: [`DEFAULT_HUGE_PAGE_THRESHOLD`] (4 MiB, as
    /// NumPy) by default; `usize::MAX` keeps every payload in a `Vec`. Values and errors
    /// are the same either way.
    ///
    /// ```
    /// use npyguard::{read_bytes, write, NpyArray, ReadOptions};
    /// let bytes = write::to_vec(&NpyArray::from_vec(vec![1.5f64; 4], vec![4]).unwrap().to_array()).unwrap();
    /// let mapped = read_bytes(&bytes, &ReadOptions::default().with_huge_page_threshold(1)).unwrap();
    /// let heap = read_bytes(&bytes, &ReadOptions::default().with_huge_page_threshold(usize::MAX)).unwrap();
    /// assert_eq!(mapped, heap);
    /// ```
    #[must_use]
    pub fn with_huge_page_threshold(mut self, bytes: usize) -> ReadOptions {
        self.huge_page_threshold = bytes;
        self
    }

    /// The payload size from which reads use huge-page memory.
    pub fn huge_page_threshold(&self) -> usize {
        self.huge_page_threshold
    }

    /// The `.npz` member-count limit.
    pub fn max_npz_members(&self) -> Option<usize> {
        self.max_npz_members
    }

    /// The `.npz` total decompressed-bytes limit.
    pub fn max_npz_total_bytes(&self) -> Option<u64> {
        self.max_npz_total_bytes
    }

    /// The `.npz` compression-ratio limit.
    pub fn max_npz_ratio(&self) -> Option<u64> {
        self.max_npz_ratio
    }

    /// The file-size limit.
    pub fn max_file_bytes(&self) -> Option<u64> {
        self.max_file_bytes
    }

    /// The header-length cap.
    pub fn max_header_bytes(&self) -> usize {
        self.max_header_bytes
    }

    /// The header's character limit set with
    /// [`with_max_header_chars`](ReadOptions::with_max_header_chars).
    pub fn max_header_chars(&self) -> Option<usize> {
        self.max_header_chars
    }

    /// Whether numpy-strict mode is on.
    pub fn numpy_strict(&self) -> bool {
        self.numpy_strict
    }

    /// Whether trailing bytes are accepted.
    pub fn allow_trailing_bytes(&self) -> bool {
        self.allow_trailing_bytes
    }
}
