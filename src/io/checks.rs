//! The checks every reader makes of a header against the bytes that hold it: the element
//! type a typed read asks for, the file-size limit (of the input and of the header's claim),
//! a payload the input does not cover, bytes after it. Shared by the readers (with std) and
//! the views (without).

use crate::data::element::Element;
use crate::error::{Error, ErrorKind, Result};
use crate::format::header::Header;
use crate::options::ReadOptions;
use crate::prelude::*;

/// Refuses a typed read whose element type `T` cannot hold the header's dtype.
pub(crate) fn check_type<T: Element>(h: &Header) -> Result<()> {
    if T::endian_of(h.dtype()).is_none() {
        return Err(Error::unplaced(
            ErrorKind::TypeMismatch,
            format!(
                "an array of {} (the requested element type)",
                T::dtype(crate::Endian::Little).typestr()
            ),
        )
        .found(h.dtype().typestr()));
    }
    Ok(())
}

/// The checks every door makes on a parsed header, in this one order, before any payload
/// byte is looked at: the element type a typed door asks for (`want`), then the size the
/// header claims against `max_file_bytes`. Then each door checks the payload's bytes and
/// its length as a read does (text first, as far as the bytes go; then the length).
pub(crate) fn check_opened(
    header: &Header,
    opts: &ReadOptions,
    want: Option<fn(&Header) -> Result<()>>,
) -> Result<()> {
    if let Some(check) = want {
        check(header)?;
    }
    check_claim(header, opts)
}

/// [`ErrorKind::FileTooLarge`]: an input of `size` bytes over `limit` (`max_file_bytes`).
pub(crate) fn file_too_large(limit: u64, size: u64) -> Error {
    Error::new(
        ErrorKind::FileTooLarge,
        limit,
        format!("a file of at most {limit} bytes (max_file_bytes)"),
    )
    .found(format!("{size} bytes"))
}

/// Checks a header read on its own (`inspect`) against the length of what holds it, as a
/// full read would: the length and the header's claim against `max_file_bytes`
/// ([`ErrorKind::FileTooLarge`]), a payload that the length does not cover
/// ([`ErrorKind::Truncated`]) and bytes after it unless `allow_trailing_bytes`
/// ([`ErrorKind::TrailingBytes`]).
///
/// ```
/// use npyguard::{check_length, write::to_vec, ErrorKind, NpyArray, ReadOptions};
/// let file = to_vec(&NpyArray::from_vec(vec![1u8, 2, 3], vec![3]).unwrap().to_array()).unwrap();
/// let h = npyguard::read_header(&file[..], &ReadOptions::default()).unwrap();
/// assert!(check_length(&h, file.len() as u64, &ReadOptions::default()).is_ok());
/// let e = check_length(&h, file.len() as u64 - 1, &ReadOptions::default()).unwrap_err();
/// assert_eq!(e.kind(), ErrorKind::Truncated);
/// let small = ReadOptions::default().with_max_file_bytes(Some(100));
/// assert_eq!(check_length(&h, file.len() as u64, &small).unwrap_err().kind(), ErrorKind::FileTooLarge);
/// ```
pub fn check_length(header: &Header, len: u64, opts: &ReadOptions) -> Result<()> {
    check_size(len, opts)?;
    check_claim(header, opts)?;
    let end = header.payload_range().end;
    if len < end {
        return Err(truncated_file(end, len));
    }
    if len > end && !opts.allow_trailing_bytes {
        return Err(trailing(end));
    }
    Ok(())
}

/// [`ErrorKind::FileTooLarge`] for an input of `len` bytes over `max_file_bytes`.
pub(crate) fn check_size(len: u64, opts: &ReadOptions) -> Result<()> {
    match opts.max_file_bytes.filter(|&l| len > l) {
        Some(limit) => Err(file_too_large(limit, len)),
        None => Ok(()),
    }
}

/// [`ErrorKind::Truncated`]: an input of `len` bytes where the header claims `payload_end`.
pub(crate) fn truncated_file(payload_end: u64, len: u64) -> Error {
    Error::new(
        ErrorKind::Truncated,
        len,
        format!("{payload_end} bytes (the header's claim)"),
    )
    .found(format!("a file of {len} bytes"))
}

/// Checks the total size a header implies against the file-size limit.
pub(crate) fn check_claim(header: &Header, opts: &ReadOptions) -> Result<()> {
    if let Some(limit) = opts.max_file_bytes {
        let total = header.payload_range().end;
        if total > limit {
            return Err(
                file_too_large(limit, total).found(format!("a header that implies {total} bytes"))
            );
        }
    }
    Ok(())
}

/// [`ErrorKind::TrailingBytes`]: bytes after the payload, which ends at `offset`.
pub(crate) fn trailing(offset: u64) -> Error {
    Error::new(
        ErrorKind::TrailingBytes,
        offset,
        "end of file after the payload (allow_trailing_bytes to ignore)",
    )
    .found("more bytes")
}
