//! Views: arrays over bytes the caller owns (a memory map, an uncompressed `.npz` member,
//! a network buffer), validated exactly as a read is, decoded only when an element is asked
//! for.
//!
//! A [`View`] checks everything [`read_bytes`](crate::read_bytes) checks (the header, the
//! limits of [`ReadOptions`], the length: truncated and trailing bytes, `U` text) and then
//! borrows the payload. An [`ArrayView<T>`] reads it as `T`: [`as_slice`](ArrayView::as_slice)
//! hands out the payload itself as `&[T]` when it is aligned for `T` and in the host's byte
//! order (no copy); otherwise [`get`](ArrayView::get) and [`iter`](ArrayView::iter) decode
//! element by element from the borrowed bytes (still no copy of the payload), and
//! [`to_vec`](ArrayView::to_vec) makes the owned copy on request. No `unsafe` is involved:
//! the cast is bytemuck's checked `try_cast_slice`.
//!
//! ```
//! use npyguard::{write::to_vec, ArrayView, NpyArray, ReadOptions};
//! let file = to_vec(&NpyArray::from_vec(vec![1.5f64, -2.0, 4.0], vec![3]).unwrap().to_array()).unwrap();
//! let view = ArrayView::<f64>::new(&file, &ReadOptions::default()).unwrap();
//! assert_eq!(view.get(1), Some(-2.0));
//! assert_eq!(view.iter().sum::<f64>(), 3.5);
//! // The payload starts at byte 128 of the file: aligned for f64 wherever `file` is.
//! if let Some(values) = view.as_slice() {
//!     assert!(std::ptr::eq(values.as_ptr().cast::<u8>(), file[128..].as_ptr()));
//! }
//! ```

use core::marker::PhantomData;
use core::ops::Range;

use crate::data::array::{Array, NpyArray};
use crate::data::element::Element;
use crate::data::storage::ArrayData;
use crate::error::{Error, ErrorKind, Result};
use crate::format::dtype::Endian;
use crate::format::header::Header;
use crate::io::checks::check_type;
use crate::io::opened::Opened;
use crate::options::ReadOptions;
use crate::prelude::*;

/// A validated `.npy` over borrowed bytes, of any dtype.
///
/// ```
/// use npyguard::{write::to_vec, NpyArray, ReadOptions, View};
/// let file = to_vec(&NpyArray::from_vec((0..6u16).collect(), vec![3, 2]).unwrap().to_array()).unwrap();
/// let view = View::new(&file, &ReadOptions::default()).unwrap();
/// assert_eq!(view.header().shape(), &[3, 2]);
/// assert_eq!(view.payload().len(), 12);
/// let rows = view.rows(1..3).unwrap();
/// assert_eq!(rows.typed::<u16>().unwrap().to_vec(), [2, 3, 4, 5]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View<'a> {
    header: Header,
    payload: &'a [u8],
}

impl<'a> View<'a> {
    /// Validates `bytes` as a whole `.npy` file, exactly as [`read_bytes`](crate::read_bytes)
    /// would (same errors, kinds and offsets: [`Opened::from_slice`]), and borrows its payload.
    pub fn new(bytes: &'a [u8], opts: &ReadOptions) -> Result<View<'a>> {
        Opened::from_slice(bytes, opts)?.into_view()
    }

    /// The header (its [`payload_range`](Header::payload_range) locates
    /// [`payload`](View::payload) in the bytes).
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The payload: the array's bytes in the file's byte and memory order.
    pub fn payload(&self) -> &'a [u8] {
        self.payload
    }

    /// The bytes of element `i` (in memory order), if it exists.
    ///
    /// ```
    /// use npyguard::{write::to_vec, NpyArray, ReadOptions, View};
    /// let file = to_vec(&NpyArray::from_vec(vec![0x0102u16], vec![1]).unwrap().to_array()).unwrap();
    /// let view = View::new(&file, &ReadOptions::default()).unwrap();
    /// assert_eq!(view.element(0), Some(&[2u8, 1][..]));
    /// assert_eq!(view.element(1), None);
    /// ```
    pub fn element(&self, i: usize) -> Option<&'a [u8]> {
        let size = self.header.dtype().itemsize();
        if i >= self.header.element_count() {
            return None;
        }
        let start = i.checked_mul(size)?;
        self.payload.get(start..start.checked_add(size)?)
    }

    /// The view as elements of `T`; [`ErrorKind::TypeMismatch`] if `T` cannot represent the
    /// dtype (as the typed readers refuse it).
    pub fn typed<T: Element>(&self) -> Result<ArrayView<'a, T>> {
        check_type::<T>(&self.header)?;
        let endian = T::endian_of(self.header.dtype()).unwrap_or(Endian::Little);
        Ok(ArrayView {
            header: self.header.clone(),
            payload: self.payload,
            endian,
            element: PhantomData,
        })
    }

    /// Rows `rows` (of the first axis) of a C-order array, as a view of those bytes only.
    /// Refuses a Fortran-order array of more than one dimension (its rows are not
    /// contiguous: use [`RowReader`](crate::RowReader) to gather them), a 0-d array and
    /// rows outside the array ([`ErrorKind::InvalidInput`]).
    pub fn rows(&self, rows: Range<usize>) -> Result<View<'a>> {
        let (header, bytes) = row_span(&self.header, &rows)?;
        let payload = self
            .payload
            .get(bytes)
            .ok_or_else(|| internal("the rows inside the payload"))?;
        Ok(View { header, payload })
    }

    /// Decodes the view into an owned [`Array`] (a copy of the payload).
    pub fn to_array(&self) -> Result<Array> {
        let dtype = self.header.dtype();
        let mut data = ArrayData::with_capacity(dtype, self.header.element_count());
        data.push_bytes(dtype, self.payload, self.header.payload_offset())?;
        Array::new(self.header.clone(), data)
    }
}

/// A validated `.npy` over borrowed bytes, read as elements of `T`.
/// [`as_slice`](ArrayView::as_slice) hands out the payload itself as `&[T]` when it is
/// aligned for `T` and in the host's byte order (no copy); otherwise
/// [`get`](ArrayView::get) and [`iter`](ArrayView::iter) decode element by element from the
/// borrowed bytes (still no copy of the payload), and [`to_vec`](ArrayView::to_vec) makes
/// the owned copy on request.
///
/// ```
/// use npyguard::{write::to_vec, ArrayView, Endian, NpyArray, ReadOptions};
/// // Big-endian data: read in place, element by element, no payload copy.
/// let a = NpyArray::from_vec_with(vec![1i32, -7, 300], vec![3], false, Endian::Big).unwrap();
/// let file = to_vec(&a.to_array()).unwrap();
/// let view = ArrayView::<i32>::new(&file, &ReadOptions::default()).unwrap();
/// assert!(view.as_slice().is_none() || cfg!(target_endian = "big"));
/// assert_eq!(view.iter().collect::<Vec<_>>(), [1, -7, 300]);
/// assert_eq!(view.to_vec(), [1, -7, 300]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayView<'a, T> {
    header: Header,
    payload: &'a [u8],
    endian: Endian,
    element: PhantomData<T>,
}

impl<'a, T: Element> ArrayView<'a, T> {
    /// Validates `bytes` as a whole `.npy` file of elements `T` ([`View::new`], then
    /// [`View::typed`]).
    pub fn new(bytes: &'a [u8], opts: &ReadOptions) -> Result<ArrayView<'a, T>> {
        Opened::slice_of::<T>(bytes, opts)?.into_view()?.typed()
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        self.header.shape()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.header.element_count()
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The payload.
    pub fn payload(&self) -> &'a [u8] {
        self.payload
    }

    /// The payload itself as `&[T]`, without a copy, when it is in the host's byte order,
    /// aligned for `T`, and `T` is a plain number (feature `bytemuck`, on by default; not
    /// for `bool`, `f16` or complex, whose bytes need converting). `None` otherwise: then
    /// read through [`get`](ArrayView::get), [`iter`](ArrayView::iter) or
    /// [`to_vec`](ArrayView::to_vec).
    pub fn as_slice(&self) -> Option<&'a [T]> {
        if T::SIZE > 1 && self.endian != Endian::HOST {
            return None;
        }
        T::cast_slice(self.payload)
    }

    /// Element `i` in memory order, decoded from the borrowed bytes.
    pub fn get(&self, i: usize) -> Option<T> {
        if i >= self.len() {
            return None;
        }
        let start = i.checked_mul(T::SIZE)?;
        let bytes = self.payload.get(start..start.checked_add(T::SIZE)?)?;
        Some(T::decode_one(bytes, self.endian))
    }

    /// The elements in memory order, decoded one at a time from the borrowed bytes.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = T> + 'a {
        let endian = self.endian;
        self.payload
            .chunks_exact(T::SIZE.max(1))
            .map(move |b| T::decode_one(b, endian))
    }

    /// The elements as an owned vector in memory order (one copy).
    pub fn to_vec(&self) -> Vec<T> {
        if let Some(values) = self.as_slice() {
            return values.to_vec();
        }
        let mut out = Vec::with_capacity(self.len());
        T::decode_into(self.payload, self.endian, &mut out);
        out
    }

    /// The elements as an owned [`NpyArray`] (one copy), with the view's header.
    pub fn to_npy_array(&self) -> NpyArray<T> {
        NpyArray::from_parts(self.header.clone(), self.to_vec().into())
    }
}

/// The header of rows `rows` of the array `header` describes and their bytes in its payload,
/// for C-order arrays (and Fortran-order arrays of one dimension, which are the same).
pub(crate) fn row_span(header: &Header, rows: &Range<usize>) -> Result<(Header, Range<usize>)> {
    let n = check_rows(header, rows)?;
    if header.fortran_order() && header.shape().len() > 1 {
        return Err(Error::unplaced(
            ErrorKind::InvalidInput,
            "a C-order array for contiguous rows (Fortran-order rows are gathered by RowReader)",
        )
        .found("a Fortran-order array of more than one dimension"));
    }
    let sub = header.with_rows(n)?;
    let row_bytes = header
        .payload_len()
        .checked_div(header.shape().first().copied().unwrap_or(1))
        .unwrap_or(0);
    let start = rows.start.saturating_mul(row_bytes);
    Ok((
        sub,
        start..start.saturating_add(n.saturating_mul(row_bytes)),
    ))
}

/// Checks that `rows` lie inside the first axis of `header`'s array; the number of rows.
pub(crate) fn check_rows(header: &Header, rows: &Range<usize>) -> Result<usize> {
    let Some(&total) = header.shape().first() else {
        return Err(Error::unplaced(
            ErrorKind::InvalidInput,
            "an array of at least one dimension for a row range",
        )
        .found("a 0-d array"));
    };
    if rows.start > rows.end || rows.end > total {
        return Err(Error::unplaced(
            ErrorKind::InvalidInput,
            format!("a row range inside 0..{total}"),
        )
        .found(format!("{}..{}", rows.start, rows.end)));
    }
    Ok(rows.end.saturating_sub(rows.start))
}

impl<'a> Opened<&'a [u8]> {
    /// The validated file as a [`View`] of its payload (no copy).
    pub fn into_view(self) -> Result<View<'a>> {
        let payload = self.payload()?;
        let (header, _) = self.into_parts();
        Ok(View { header, payload })
    }
}

fn internal(expected: &str) -> Error {
    Error::unplaced(
        ErrorKind::Internal,
        format!("{expected} (internal invariant)"),
    )
}
