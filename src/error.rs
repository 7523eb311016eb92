//! The one error type of the crate: a kind, who caused it, where, what was expected.
//!
//! Every failure, from a bad magic string to a truncated payload, is reported
//! as an [`Error`] whose [`kind`](Error::kind) can be matched on, whose
//! [`category`](Error::category) says who caused it (the input's format, a limit, the
//! operating system, the caller, or npyguard itself), whose [`offset`](Error::offset)
//! is the position in the file (or stream) where the problem was detected when there is
//! one, and whose [`expected`](Error::expected) text says what the reader wanted there.
//!
//! ```
//! use npyguard::{Category, ErrorKind, Preamble};
//! let err = Preamble::parse(b"\x93NUMPY\x04\x00").unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::UnsupportedVersion);
//! assert_eq!(err.category(), Category::Format);
//! assert_eq!(err.offset(), Some(6));
//! assert_eq!(err.to_string(), "unsupported-version at byte 6: expected format version 1.0, 2.0 or 3.0, found version 4.0");
//! ```

use core::fmt;

use crate::prelude::*;

/// What went wrong, as a value that can be matched on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file does not start with `\x93NUMPY`.
    BadMagic,
    /// The format version is not 1.0, 2.0 or 3.0.
    UnsupportedVersion,
    /// The declared header length exceeds the configured cap.
    HeaderTooLong,
    /// The header text is not valid in its encoding (UTF-8 for 3.0), or holds a NUL.
    HeaderEncoding,
    /// The header text is not a sentence of the grammar in `grammar/npy-header.abnf`.
    HeaderSyntax,
    /// Brackets nested deeper than the parser allows.
    NestingTooDeep,
    /// A key appears twice in the header dict.
    DuplicateKey,
    /// One of `descr`, `fortran_order`, `shape` is missing.
    MissingKey,
    /// A key other than the three NumPy keys, refused in numpy-strict mode.
    UnknownKey,
    /// A value has the wrong type for its key (e.g. a list as shape).
    BadValue,
    /// The descr is not a type npyguard reads (or not a valid type at all).
    BadDescr,
    /// The dtype is valid NumPy but deliberately unsupported (pickled objects, long double).
    UnsupportedDtype,
    /// Two fields of a record share a name.
    DuplicateField,
    /// The shape, element count or byte size does not fit (more than 64 dims, overflow).
    ShapeOverflow,
    /// The input ended before the declared data.
    Truncated,
    /// Bytes follow the payload and trailing bytes are not allowed.
    TrailingBytes,
    /// The file exceeds `max_file_bytes`.
    FileTooLarge,
    /// A payload value is invalid for its dtype (e.g. a UTF-32 code unit that is not a character).
    BadPayload,
    /// The array's dtype is not the one the caller asked for.
    TypeMismatch,
    /// The caller passed inconsistent arguments (e.g. data length does not match shape).
    InvalidInput,
    /// An I/O error from the underlying reader or writer.
    Io,
    /// A `.npz` archive is not a well-formed zip file (no end record, a bad
    /// signature, truncated or overlapping records, a member name that does not decode).
    ZipFormat,
    /// A `.npz` member's local header disagrees with its central-directory entry
    /// (name, compression method, flags, CRC or sizes).
    ZipHeaderMismatch,
    /// Two `.npz` members have the same name.
    DuplicateMember,
    /// A `.npz` member is encrypted.
    EncryptedMember,
    /// A `.npz` member uses a compression method other than stored (0) or deflated (8).
    UnsupportedCompression,
    /// A `.npz` member's decompressed bytes do not have the CRC-32 its headers declare.
    CrcMismatch,
    /// A `.npz` member's data does not match the sizes its headers declare.
    SizeMismatch,
    /// A `.npz` archive has more members than `max_npz_members`.
    TooManyMembers,
    /// The members read from a `.npz` archive decode to more than `max_npz_total_bytes`.
    TotalTooLarge,
    /// A `.npz` member decodes to more than `max_npz_ratio` times its compressed size.
    CompressionRatio,
    /// No `.npy` member of a `.npz` archive has the requested name.
    MemberNotFound,
    /// The output asked for (rows, columns, nested lists or elements of an array with no
    /// payload bytes, or of a dtype of item size 0) is not backed by input bytes and
    /// exceeds [`MAX_UNBACKED_ITEMS`](crate::limits::MAX_UNBACKED_ITEMS): producing it
    /// would take time or memory that the input does not pay for.
    Unbacked,
    /// An Arrow, Parquet or CSV encoder refused a batch, or a dataset writer failed
    /// (features `arrow` / `parquet`).
    Arrow,
    /// An internal invariant of npyguard did not hold: a bug, reported instead of a panic.
    Internal,
    /// An append needs a header that does not fit in place: `np.save`'s header for the new
    /// shape is longer than the file's (no growth space), or its changed bytes cross a
    /// 512-byte sector boundary (see [`Appender`](crate::write::Appender)).
    HeaderFull,
    /// The memory for a payload that must be held whole could not be had: the allocator
    /// refused to grow it (a container's memory limit, an address-space limit), reported
    /// instead of aborting the process. Storage grows only as bytes arrive, so this is
    /// reached by inputs that really are that large (or endless streams).
    OutOfMemory,
}

/// Who caused an error, as image-png separates them: what a program does about an error
/// (report the file as bad, raise a limit, retry, fix its own call, file a bug) follows
/// from its category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Category {
    /// The input is not a valid or supported `.npy`/`.npz` file.
    Format,
    /// The input exceeds a limit: one of [`ReadOptions`](crate::ReadOptions) or a fixed
    /// one of [`limits`](crate::limits).
    Limit,
    /// The operating system or the underlying reader or writer failed.
    Io,
    /// The caller asked for something inconsistent (a wrong element type, a missing field
    /// or member, data that does not fit its shape).
    Usage,
    /// npyguard or a library it drives failed an invariant (a bug worth reporting).
    Internal,
}

impl ErrorKind {
    /// A short stable name for the kind, used by the CLI (`validate`) and in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::BadMagic => "bad-magic",
            ErrorKind::UnsupportedVersion => "unsupported-version",
            ErrorKind::HeaderTooLong => "header-too-long",
            ErrorKind::HeaderEncoding => "header-encoding",
            ErrorKind::HeaderSyntax => "header-syntax",
            ErrorKind::NestingTooDeep => "nesting-too-deep",
            ErrorKind::DuplicateKey => "duplicate-key",
            ErrorKind::MissingKey => "missing-key",
            ErrorKind::UnknownKey => "unknown-key",
            ErrorKind::BadValue => "bad-value",
            ErrorKind::BadDescr => "bad-descr",
            ErrorKind::UnsupportedDtype => "unsupported-dtype",
            ErrorKind::DuplicateField => "duplicate-field",
            ErrorKind::ShapeOverflow => "shape-overflow",
            ErrorKind::Truncated => "truncated",
            ErrorKind::TrailingBytes => "trailing-bytes",
            ErrorKind::FileTooLarge => "file-too-large",
            ErrorKind::BadPayload => "bad-payload",
            ErrorKind::TypeMismatch => "type-mismatch",
            ErrorKind::InvalidInput => "invalid-input",
            ErrorKind::Io => "io",
            ErrorKind::ZipFormat => "zip-format",
            ErrorKind::ZipHeaderMismatch => "zip-header-mismatch",
            ErrorKind::DuplicateMember => "duplicate-member",
            ErrorKind::EncryptedMember => "encrypted-member",
            ErrorKind::UnsupportedCompression => "unsupported-compression",
            ErrorKind::CrcMismatch => "crc-mismatch",
            ErrorKind::SizeMismatch => "size-mismatch",
            ErrorKind::TooManyMembers => "too-many-members",
            ErrorKind::TotalTooLarge => "total-too-large",
            ErrorKind::CompressionRatio => "compression-ratio",
            ErrorKind::MemberNotFound => "member-not-found",
            ErrorKind::Unbacked => "unbacked-output",
            ErrorKind::Arrow => "arrow",
            ErrorKind::Internal => "internal",
            ErrorKind::HeaderFull => "header-full",
            ErrorKind::OutOfMemory => "out-of-memory",
        }
    }

    /// Who caused errors of this kind.
    ///
    /// ```
    /// use npyguard::{Category, ErrorKind};
    /// assert_eq!(ErrorKind::Truncated.category(), Category::Format);
    /// assert_eq!(ErrorKind::FileTooLarge.category(), Category::Limit);
    /// assert_eq!(ErrorKind::TypeMismatch.category(), Category::Usage);
    /// ```
    pub fn category(self) -> Category {
        use ErrorKind as K;
        match self {
            K::HeaderTooLong
            | K::NestingTooDeep
            | K::FileTooLarge
            | K::TooManyMembers
            | K::TotalTooLarge
            | K::CompressionRatio
            | K::Unbacked
            | K::HeaderFull
            | K::OutOfMemory => Category::Limit,
            K::Io => Category::Io,
            K::TypeMismatch | K::InvalidInput | K::MemberNotFound => Category::Usage,
            K::Arrow | K::Internal => Category::Internal,
            K::BadMagic
            | K::UnsupportedVersion
            | K::HeaderEncoding
            | K::HeaderSyntax
            | K::DuplicateKey
            | K::MissingKey
            | K::UnknownKey
            | K::BadValue
            | K::BadDescr
            | K::UnsupportedDtype
            | K::DuplicateField
            | K::ShapeOverflow
            | K::Truncated
            | K::TrailingBytes
            | K::BadPayload
            | K::ZipFormat
            | K::ZipHeaderMismatch
            | K::DuplicateMember
            | K::EncryptedMember
            | K::UnsupportedCompression
            | K::CrcMismatch
            | K::SizeMismatch => Category::Format,
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An error with its kind, the byte offset where it was detected (when it concerns a
/// position of an input) and what was expected there.
///
/// Displayed as `kind at byte N: expected E, found F`; without a position as
/// `kind: expected E, found F`; an operating-system failure on a path as
/// `cannot open x.npy: No such file or directory`.
#[derive(Debug, thiserror::Error)]
#[error("{}", self.message())]
pub struct Error {
    kind: ErrorKind,
    offset: Option<u64>,
    expected: String,
    found: Option<String>,
    #[source]
    source: Option<IoSource>,
}

/// What an [`ErrorKind::Io`] error wraps: the operating system's error (none without std).
#[cfg(feature = "std")]
type IoSource = std::io::Error;
#[cfg(not(feature = "std"))]
type IoSource = core::convert::Infallible;

impl Error {
    /// Builds an error of `kind` detected at byte `offset` of the input, saying what was `expected`.
    pub fn new(kind: ErrorKind, offset: u64, expected: impl Into<String>) -> Error {
        Error {
            kind,
            offset: Some(offset),
            expected: expected.into(),
            found: None,
            source: None,
        }
    }

    /// Builds an error of `kind` that concerns no position of an input (a caller's
    /// argument, a limit on a whole archive, a failed invariant).
    pub fn unplaced(kind: ErrorKind, expected: impl Into<String>) -> Error {
        Error {
            offset: None,
            ..Error::new(kind, 0, expected)
        }
    }

    /// Adds a description of what was found instead.
    #[must_use]
    pub fn found(mut self, found: impl Into<String>) -> Error {
        self.found = Some(found.into());
        self
    }

    /// Wraps an I/O error of a stream that happened at byte `offset`.
    #[cfg(feature = "std")]
    pub fn io(offset: u64, err: std::io::Error) -> Error {
        Error {
            kind: ErrorKind::Io,
            offset: Some(offset),
            expected: "a readable/writable stream".to_string(),
            found: Some(err.to_string()),
            source: Some(err),
        }
    }

    /// Wraps an I/O error of an operation on a whole file: `action` is what was tried,
    /// e.g. `cannot open x.npy`; displayed as `cannot open x.npy: No such file or directory`.
    #[cfg(feature = "std")]
    pub fn os(action: impl Into<String>, err: std::io::Error) -> Error {
        Error {
            offset: None,
            expected: action.into(),
            ..Error::io(0, err)
        }
    }

    fn message(&self) -> String {
        let found = self.found.as_deref();
        match (self.kind, self.offset) {
            (ErrorKind::Io, None) => format!("{}: {}", self.expected, found.unwrap_or("failed")),
            (kind, Some(at)) => format!(
                "{kind} at byte {at}: expected {}{}",
                self.expected,
                found_suffix(found)
            ),
            (kind, None) => format!("{kind}: expected {}{}", self.expected, found_suffix(found)),
        }
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Who caused the error (see [`Category`]).
    pub fn category(&self) -> Category {
        self.kind.category()
    }

    /// Byte offset in the file or stream where the error was detected; `None` when the
    /// error concerns no position of an input.
    pub fn offset(&self) -> Option<u64> {
        self.offset
    }

    /// What the reader expected at [`offset`](Error::offset).
    pub fn expected(&self) -> &str {
        &self.expected
    }

    /// What was found instead, when known.
    pub fn found_text(&self) -> Option<&str> {
        self.found.as_deref()
    }

    /// The same error with the `.npz` member it happened in named at the end of its expected text.
    #[cfg(feature = "npz")]
    #[must_use]
    pub(crate) fn in_member(mut self, member: &str) -> Error {
        self.expected = format!("{} in npz member {member:?}", self.expected);
        self
    }

    /// The same error without a position (for errors in what a caller built, not in an input).
    #[must_use]
    pub(crate) fn without_offset(mut self) -> Error {
        self.offset = None;
        self
    }

    /// The same error moved by `delta` bytes (used when a sub-parser works on a slice).
    #[must_use]
    pub(crate) fn shifted(mut self, delta: u64) -> Error {
        self.offset = self.offset.map(|at| at.saturating_add(delta));
        self
    }
}

fn found_suffix(found: Option<&str>) -> String {
    match found {
        Some(f) => format!(", found {f}"),
        None => String::new(),
    }
}

/// Shorthand for `Result<T, npyguard::Error>`.
pub type Result<T> = core::result::Result<T, Error>;
