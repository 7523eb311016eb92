//! Every fixed limit of the crate, in one place.
//!
//! Limits a caller may change are the defaults of [`ReadOptions`](crate::ReadOptions);
//! the rest are fixed: either NumPy's own (its C `int` sizes, 64 dimensions, 10 000 header
//! characters) or bounds on validation work that NumPy never reaches in practice.
//!
//! ```
//! use npyguard::limits;
//! assert_eq!(limits::MAX_DIMS, 64);
//! assert!(limits::DEFAULT_MAX_HEADER_BYTES >= 4 * limits::NUMPY_MAX_HEADER_CHARS);
//! ```

/// Most dimensions an array may have (NumPy 2's limit).
pub const MAX_DIMS: usize = 64;

/// NumPy's own limit on the decoded header length, in characters (`max_header_size`).
pub const NUMPY_MAX_HEADER_CHARS: usize = 10_000;

/// Deepest nesting of dicts, tuples and lists the parser accepts (the header dict counts as 1).
pub const MAX_DEPTH: u32 = 32;

/// Deepest record nesting accepted (the literal parser already bounds bracket depth).
pub const MAX_RECORD_DEPTH: u32 = 16;

/// Most fields a record may have (bounds validation work; NumPy has no such need in practice).
pub const MAX_FIELDS: usize = 4096;

/// NumPy keeps item sizes, datetime multiples and subarray dimensions in a C `int`.
pub const C_INT_MAX: usize = i32::MAX as usize;

/// Most payload bytes reserved up front when the input's size is not known to cover the
/// payload (1 MiB): beyond it, storage grows as bytes arrive, so a header that claims more
/// than exists cannot force an allocation.
pub const SPECULATIVE_BYTES: usize = 1 << 20;

/// Default payload size from which reads use huge-page memory (4 MiB, NumPy's threshold for
/// `madvise(MADV_HUGEPAGE)`); see [`ReadOptions::with_huge_page_threshold`](crate::ReadOptions::with_huge_page_threshold).
pub const DEFAULT_HUGE_PAGE_THRESHOLD: usize = 4 << 20;

/// Default cap on the declared header length: 64 KiB, above NumPy's 10 000
/// characters in any encoding (10 000 UTF-8 characters are at most 40 000 bytes).
pub const DEFAULT_MAX_HEADER_BYTES: usize = 64 * 1024;

/// Default cap on the number of members of a `.npz` archive: 65 536, one more
/// than a zip without zip64 end records can hold. The count is read from the
/// end record and checked before the central directory is parsed.
pub const DEFAULT_MAX_NPZ_MEMBERS: usize = 1 << 16;

/// Default cap on a `.npz` member's decompressed size over its compressed size: 1 000.
///
/// Deflate expands at most about 1 032-fold, so this stops a deflate bomb (a 2 MB archive
/// whose member inflates to 2 GiB) at the first byte past 1 000 × its compressed size,
/// before the member is in memory. The price: a member of constant values above about
/// 1 MB, which `np.savez_compressed` packs at up to 1 028:1, is refused by default with
/// [`ErrorKind::CompressionRatio`](crate::ErrorKind::CompressionRatio), whose message names
/// the option that reads it ([`ReadOptions::with_max_npz_ratio`](crate::ReadOptions::with_max_npz_ratio)).
/// The CLI (`--max-ratio`), Python (`max_ratio=`) and DuckDB (`max_ratio :=`) share it.
pub const DEFAULT_MAX_NPZ_RATIO: u64 = 1000;

/// Most items a consumer of a validated header may produce that no payload byte backs:
/// 65 536.
///
/// A header can describe far more than its file holds when the array has no bytes: a
/// 128-byte file of shape `(2**40, 0)` has 2^40 (empty) rows, one of shape `(0, 2**60)`
/// 2^60 (empty) columns, and a dtype of item size 0 any number of elements. NumPy loads such
/// files, and so does npyguard; but every layer that would do work per row, column, nested
/// list or element (`dump`, the Arrow/Parquet/CSV datasets, `compare`) first checks, through
/// [`Header::check_backed`](crate::Header::check_backed), that its count is at most the
/// elements the payload's bytes back plus this allowance, and refuses with
/// [`ErrorKind::Unbacked`](crate::ErrorKind::Unbacked) otherwise. So every consumer's time
/// and memory are bounded by the bytes present (plus a constant), whatever the header claims.
pub const MAX_UNBACKED_ITEMS: u64 = 1 << 16;

/// How many columns of a table in the `columns` layout (Arrow, Parquet, CSV; feature
/// `arrow`) may go beyond the elements the payload backs: 4 096.
///
/// A column costs far more than an element: an Arrow field, an entry of 16 to 32 bytes in the
/// Arrow IPC schema message, a Parquet column chunk. With [`MAX_UNBACKED_ITEMS`] of them, a
/// 128-byte file of shape `(0, 65536)` made a 2 MiB schema (found by the `datasets` fuzz
/// target under its 2 MiB allocation limit; `fuzz/regressions/datasets/`). A zero-size array
/// of up to 4 096 columns, or any array with a payload byte per column, still converts.
#[cfg(feature = "arrow")]
pub(crate) const MAX_UNBACKED_COLUMNS: u64 = 1 << 12;
