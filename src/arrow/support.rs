//! Errors and checked index arithmetic shared by the Arrow conversions.

use arrow_schema::ArrowError;

use crate::error::{Error, ErrorKind, Result};

pub(super) fn arrow_err(e: ArrowError) -> Error {
    match e {
        ArrowError::IoError(_, io) => Error::os("cannot write the dataset", io),
        other => Error::unplaced(ErrorKind::Arrow, "a batch the Arrow encoder accepts")
            .found(other.to_string()),
    }
}

/// An internal range that should always be valid; reported instead of panicking.
pub(super) fn out_of_range() -> Error {
    Error::unplaced(
        ErrorKind::Internal,
        "an element range inside the array (internal invariant)",
    )
}

pub(super) fn add(a: usize, b: usize) -> Result<usize> {
    a.checked_add(b).ok_or_else(out_of_range)
}

pub(super) fn mul(a: usize, b: usize) -> Result<usize> {
    a.checked_mul(b).ok_or_else(out_of_range)
}

/// `s[start..start + len]`, or an error.
pub(super) fn sub<T>(s: &[T], start: usize, len: usize) -> Result<&[T]> {
    s.get(start..add(start, len)?).ok_or_else(out_of_range)
}

pub(super) fn row_no(r: usize) -> Result<i64> {
    i64::try_from(r).map_err(|_| out_of_range())
}
