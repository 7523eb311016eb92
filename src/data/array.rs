//! Decoded arrays: [`Array`] for any dtype, [`NpyArray<T>`] for a known element type.
//!
//! Data is kept in the file's own memory order (no copy, no reindex);
//! [`Array::to_c_order`] and [`NpyArray::to_c_order`] reindex Fortran data to
//! row-major when wanted. Values are native Rust values: byte order is resolved
//! at decode time and remembered in the header's dtype for writing back.
//!
//! ```
//! use npyguard::{write::to_vec, Array, ArrayData, NpyArray, ReadOptions};
//! let a = NpyArray::from_vec(vec![1.5f64, -2.0, 3.25, 4.0], vec![2, 2]).unwrap();
//! let bytes = to_vec(&a.to_array()).unwrap();
//! let back = npyguard::read_bytes(&bytes, &ReadOptions::default()).unwrap();
//! assert_eq!(back.shape(), &[2, 2]);
//! assert!(matches!(back.data(), ArrayData::F64(v) if v == &[1.5, -2.0, 3.25, 4.0]));
//! ```

use crate::data::buffer::Buffer;
use crate::data::codec::utf32_text;
use crate::data::element::Element;
use crate::data::layout;
use crate::data::scalar::Scalar;
use crate::data::storage::{units_per_element, ArrayData};
use crate::error::{Error, ErrorKind, Result};
use crate::format::dtype::{Dtype, Endian};
use crate::format::f80::{self, LONG_DOUBLE_BYTES};
use crate::format::header::Header;
use crate::prelude::*;

/// An array of any dtype: its validated header and its values.
#[derive(Debug, Clone, PartialEq)]
pub struct Array {
    header: Header,
    data: ArrayData,
}

impl Array {
    /// Builds an array from a header and data, checking that the data holds exactly
    /// the header's element count in the header's variant.
    pub fn new(header: Header, data: ArrayData) -> Result<Array> {
        Array::with_counts_checked(header, data)
    }

    fn with_counts_checked(header: Header, data: ArrayData) -> Result<Array> {
        let expected = ArrayData::with_capacity(header.dtype(), 0);
        if core::mem::discriminant(&expected) != core::mem::discriminant(&data) {
            return Err(Error::unplaced(
                ErrorKind::TypeMismatch,
                format!("data for dtype {}", header.dtype().typestr()),
            ));
        }
        let per = units_per_element(header.dtype());
        let want = header.element_count().checked_mul(per);
        if want != Some(data.units()) {
            return Err(Error::unplaced(
                ErrorKind::InvalidInput,
                format!(
                    "{} elements for shape {:?}",
                    header.element_count(),
                    header.shape()
                ),
            )
            .found(format!("{} stored units ({per} per element)", data.units())));
        }
        Ok(Array { header, data })
    }

    /// Array without the consistency check (callers decoded exactly `element_count` elements).
    pub(crate) fn from_parts(header: Header, data: ArrayData) -> Array {
        Array { header, data }
    }

    /// The header (dtype, shape, order, version, extra keys).
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Dimensions, outermost first.
    pub fn shape(&self) -> &[usize] {
        self.header.shape()
    }

    /// Element type (with the file's byte order).
    pub fn dtype(&self) -> &Dtype {
        self.header.dtype()
    }

    /// Whether [`data`](Array::data) is in Fortran order.
    pub fn fortran_order(&self) -> bool {
        self.header.fortran_order()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.header.element_count()
    }

    /// Whether the array has no elements (some dimension is 0).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values in the file's memory order.
    pub fn data(&self) -> &ArrayData {
        &self.data
    }

    /// Splits into header and data.
    pub fn into_parts(self) -> (Header, ArrayData) {
        (self.header, self.data)
    }

    /// The same array in C (row-major) order: a reindexed copy when the file
    /// was Fortran order, otherwise a plain clone.
    pub fn to_c_order(&self) -> Array {
        if !self.fortran_order() {
            return self.clone();
        }
        let per = units_per_element(self.dtype());
        let data = self.data.reorder(self.shape(), per, true);
        let mut header = self.header.clone();
        header.set_fortran_order(false);
        Array { header, data }
    }

    /// The array in C order without a copy when it already is (a reindexed copy otherwise):
    /// what every reader of logical order uses.
    pub(crate) fn as_c_order(&self) -> alloc::borrow::Cow<'_, Array> {
        if self.fortran_order() {
            alloc::borrow::Cow::Owned(self.to_c_order())
        } else {
            alloc::borrow::Cow::Borrowed(self)
        }
    }

    /// The same array in Fortran (column-major) order.
    pub fn to_fortran_order(&self) -> Array {
        if self.fortran_order() {
            return self.clone();
        }
        let per = units_per_element(self.dtype());
        let data = self.data.reorder(self.shape(), per, false);
        let mut header = self.header.clone();
        header.set_fortran_order(true);
        Array { header, data }
    }

    /// The `i`-th S/U/V element in memory order: the bytes of `S` (trailing NULs
    /// stripped, as NumPy does) or `V`, or `None` for other dtypes / out of range.
    pub fn bytes_at(&self, i: usize) -> Option<&[u8]> {
        match self.data.scalar(i, units_per_element(self.dtype()))? {
            Scalar::Bytes(b) | Scalar::Void(b) => Some(b),
            _ => None,
        }
    }

    /// The `i`-th `U` element in memory order as text, trailing NULs stripped (as NumPy
    /// does); `Ok(None)` for other dtypes or out of range. A `U` element is UTF-32 code
    /// units that NumPy does not check: one holding a lone surrogate (np.save writes them
    /// for Python strings holding one) or a value above U+10FFFF has no UTF-8 text, and
    /// gives [`ErrorKind::BadPayload`] naming the unit and the element
    /// ([`units_at`](Array::units_at) gives the units themselves).
    ///
    /// ```
    /// use npyguard::{Array, ArrayData, Dtype, Endian, Header};
    /// let h = Header::new(Dtype::Unicode(2, Endian::Little), vec![2], false).unwrap();
    /// let a = Array::new(h, ArrayData::Unicode(vec![0x68, 0x69, 0xd805, 0].into())).unwrap();
    /// assert_eq!(a.str_at(0).unwrap().as_deref(), Some("hi"));
    /// assert_eq!(a.units_at(1), Some(&[0xd805][..]));
    /// let e = a.str_at(1).unwrap_err();
    /// assert!(e.to_string().contains("0x0000d805 in element 1"), "{e}");
    /// ```
    pub fn str_at(&self, i: usize) -> Result<Option<String>> {
        self.units_at(i).map(|u| utf32_text(u, i)).transpose()
    }

    /// Stored units per element in [`data`](Array::data): the width of `S`, `U` and `V`
    /// (bytes or UTF-32 code units; a record's item size), 1 for every other dtype. Element
    /// `i` is units `i * per..(i + 1) * per`.
    ///
    /// ```
    /// use npyguard::{Dtype, Endian, NpyArray};
    /// assert_eq!(NpyArray::from_vec(vec![1u8, 2], vec![2]).unwrap().to_array().units_per_element(), 1);
    /// let h = npyguard::Header::new(Dtype::Unicode(3, Endian::Little), vec![0], false).unwrap();
    /// let a = npyguard::Array::new(h, npyguard::ArrayData::Unicode(vec![].into())).unwrap();
    /// assert_eq!(a.units_per_element(), 3);
    /// ```
    pub fn units_per_element(&self) -> usize {
        units_per_element(self.dtype())
    }

    /// The `i`-th `U` element in memory order as its UTF-32 code units, trailing NULs
    /// stripped, as NumPy holds them (unchecked); `None` for other dtypes or out of range.
    pub fn units_at(&self, i: usize) -> Option<&[u32]> {
        match self.data.scalar(i, units_per_element(self.dtype()))? {
            Scalar::Str(s) => Some(s),
            _ => None,
        }
    }

    /// One field of a record array, as an array in C order of shape
    /// `self.shape() + field.shape` (nested records stay records; padding is skipped).
    /// `name` is a `&str`, or a [`FieldName`](crate::FieldName) for a name holding a lone
    /// surrogate.
    pub fn field<N: ?Sized + core::fmt::Debug>(&self, name: &N) -> Result<Array>
    where
        crate::FieldName: PartialEq<N>,
    {
        let Dtype::Record(rec) = self.dtype() else {
            return Err(Error::unplaced(
                ErrorKind::TypeMismatch,
                "a record dtype for field access",
            ));
        };
        let Some(f) = rec.field(name) else {
            return Err(Error::unplaced(
                ErrorKind::InvalidInput,
                format!("a field named {name:?}"),
            ));
        };
        let c = self.as_c_order();
        let ArrayData::Record(raw) = &c.data else {
            return Err(Error::unplaced(
                ErrorKind::Internal,
                "record data for a record dtype (internal invariant)",
            ));
        };
        let mut shape = self.shape().to_vec();
        shape.extend_from_slice(&f.shape);
        let header = Header::new(f.dtype.clone(), shape, false)?;
        let mut data = ArrayData::with_capacity(&f.dtype, header.element_count());
        let size = f.size();
        if rec.itemsize > 0 {
            for (i, chunk) in raw.chunks_exact(rec.itemsize).enumerate() {
                let end = f.offset.saturating_add(size);
                let at = (i as u64).saturating_mul(rec.itemsize as u64);
                let bytes = chunk.get(f.offset..end).ok_or_else(|| {
                    Error::new(
                        ErrorKind::Internal,
                        at,
                        "a field inside its record (a validated dtype's invariant)",
                    )
                    .found(format!("field {name:?} at bytes {}..{end}", f.offset))
                })?;
                data.push_bytes(&f.dtype, bytes, at)?;
            }
        }
        // push_bytes checked the text of nested record fields while decoding them.
        Array::with_counts_checked(header, data)
    }

    /// The values as `f64` in memory order, for numeric, bool and datetime dtypes.
    ///
    /// **Lossy above 2^53**: `f64` has a 53-bit significand, so `i64`/`u64`
    /// values (and datetimes) beyond ±2^53 are rounded to the nearest
    /// representable `f64` (2^53 + 1 becomes 2^53). Use the exact
    /// [`ArrayData::I64`]/[`ArrayData::U64`] values when that matters. A long double
    /// (`f16`) is rounded to the nearest `f64` ([`f80::to_f64`](crate::f80::to_f64)).
    /// Complex numbers, strings and records return `None`.
    pub fn to_f64_lossy(&self) -> Option<Vec<f64>> {
        if let (Dtype::LongDouble(e), ArrayData::LongDouble(v)) = (self.dtype(), &self.data) {
            return Some(
                v.chunks_exact(LONG_DOUBLE_BYTES)
                    .map(|c| {
                        f80::to_f64(
                            &<[u8; LONG_DOUBLE_BYTES]>::try_from(c).unwrap_or_default(),
                            *e,
                        )
                    })
                    .collect(),
            );
        }
        #[allow(clippy::cast_precision_loss)]
        let value = |s: Scalar<'_>| match s {
            Scalar::Bool(b) => Some(f64::from(u8::from(b))),
            Scalar::Int(x) => Some(x as f64),
            Scalar::Time(x) => Some(x as f64),
            Scalar::Float(f) => Some(f.to_f64()),
            _ => None,
        };
        let real = matches!(
            self.dtype(),
            Dtype::Bool
                | Dtype::I8
                | Dtype::U8
                | Dtype::I16(_)
                | Dtype::I32(_)
                | Dtype::I64(_)
                | Dtype::U16(_)
                | Dtype::U32(_)
                | Dtype::U64(_)
                | Dtype::F16(_)
                | Dtype::F32(_)
                | Dtype::F64(_)
                | Dtype::DateTime(..)
                | Dtype::TimeDelta(..)
        );
        if !real {
            return None;
        }
        (0..self.data.units())
            .map(|i| self.data.scalar(i, 1).and_then(value))
            .collect()
    }

    /// The typed array, when `T` represents this dtype exactly.
    pub fn into_typed<T: Element>(self) -> Result<NpyArray<T>> {
        if T::endian_of(self.dtype()).is_none() {
            return Err(Error::unplaced(
                ErrorKind::TypeMismatch,
                format!("an array of {}", T::dtype(Endian::Little).typestr()),
            )
            .found(self.dtype().typestr()));
        }
        let Array { header, data } = self;
        match T::take_data(data) {
            Ok(data) => Ok(NpyArray { header, data }),
            // Unreachable for a consistent array (`Array::new` checks variant against dtype).
            Err(_) => Err(Error::unplaced(
                ErrorKind::Internal,
                format!(
                    "data of {} (internal invariant)",
                    T::dtype(Endian::Little).typestr()
                ),
            )),
        }
    }
}

/// An array whose element type `T` is known: header and values in the file's memory order.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray<T> {
    header: Header,
    data: Buffer<T>,
}

impl<T: Element> NpyArray<T> {
    /// A C-order array of `shape` holding `data` (little-endian when written).
    pub fn from_vec(data: Vec<T>, shape: Vec<usize>) -> Result<NpyArray<T>> {
        NpyArray::from_vec_with(data, shape, false, Endian::Little)
    }

    /// An array of `shape` holding `data` in the given memory order, to be written in byte order `endian`.
    pub fn from_vec_with(
        data: Vec<T>,
        shape: Vec<usize>,
        fortran_order: bool,
        endian: Endian,
    ) -> Result<NpyArray<T>> {
        let header = Header::new(T::dtype(endian), shape, fortran_order)?;
        if header.element_count() != data.len() {
            return Err(Error::unplaced(
                ErrorKind::InvalidInput,
                format!(
                    "{} elements for shape {:?}",
                    header.element_count(),
                    header.shape()
                ),
            )
            .found(format!("{} elements", data.len())));
        }
        Ok(NpyArray {
            header,
            data: data.into(),
        })
    }

    pub(crate) fn from_parts(header: Header, data: Buffer<T>) -> NpyArray<T> {
        NpyArray { header, data }
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Dimensions, outermost first.
    pub fn shape(&self) -> &[usize] {
        self.header.shape()
    }

    /// Whether [`data`](NpyArray::data) is in Fortran order.
    pub fn fortran_order(&self) -> bool {
        self.header.fortran_order()
    }

    /// The values in the file's memory order, without copying.
    pub fn data(&self) -> &[T] {
        &self.data
    }

    /// The values in the file's memory order, as a `Vec`: moved when they are in one,
    /// copied when a large read put them in a huge-page mapping (see [`Buffer`];
    /// [`into_buffer`](NpyArray::into_buffer) never copies).
    pub fn into_vec(self) -> Vec<T> {
        self.data.into_vec()
    }

    /// The values in the file's memory order, where they are (no copy).
    pub fn into_buffer(self) -> Buffer<T> {
        self.data
    }

    /// The values in C (row-major) order, in a new buffer: reindexed when the file was
    /// Fortran order, by the same mechanism as [`into_c_order`](NpyArray::into_c_order)
    /// (huge-page memory when large, no pre-filling pass, two threads for large arrays);
    /// copied as they are otherwise. [`Buffer::into_vec`] gives a `Vec` (a copy when the
    /// buffer is a mapping).
    ///
    /// ```
    /// use npyguard::{Endian, NpyArray};
    /// let f = NpyArray::from_vec_with(vec![1u16, 4, 2, 5, 3, 6], vec![2, 3], true, Endian::Little).unwrap();
    /// assert_eq!(f.to_c_order(), vec![1, 2, 3, 4, 5, 6]);
    /// ```
    pub fn to_c_order(&self) -> Buffer<T> {
        if self.fortran_order() {
            layout::fortran_to_c_buffer(T::direct(), &self.data, self.shape(), 1)
        } else {
            self.data.clone()
        }
    }

    /// The array in C (row-major) order: itself when it already is; a square matrix is
    /// transposed where it lies (no second buffer); anything else is reindexed into a new
    /// buffer (huge-page memory when large, as reads use; no pre-filling pass). Large arrays
    /// use two threads.
    ///
    /// ```
    /// use npyguard::{Endian, NpyArray};
    /// // [[1, 2, 3], [4, 5, 6]] stored in Fortran order.
    /// let f = NpyArray::from_vec_with(vec![1u16, 4, 2, 5, 3, 6], vec![2, 3], true, Endian::Little).unwrap();
    /// let c = f.into_c_order();
    /// assert!(!c.fortran_order());
    /// assert_eq!(c.data(), &[1, 2, 3, 4, 5, 6]);
    /// ```
    pub fn into_c_order(mut self) -> NpyArray<T> {
        if !self.fortran_order() {
            return self;
        }
        if !layout::fortran_to_c_in_place(self.data.as_mut_slice(), self.header.shape()) {
            self.data =
                layout::fortran_to_c_buffer(T::direct(), &self.data, self.header.shape(), 1);
        }
        self.header.set_fortran_order(false);
        self
    }

    /// The element at a logical (row-major) multi-index, whatever the memory order.
    pub fn get(&self, index: &[usize]) -> Option<&T> {
        if index.len() != self.shape().len() {
            return None;
        }
        let mut flat = 0usize;
        let mut stride = 1usize;
        let dims: Box<dyn Iterator<Item = (&usize, &usize)>> = if self.fortran_order() {
            Box::new(index.iter().zip(self.shape()))
        } else {
            Box::new(index.iter().zip(self.shape()).rev())
        };
        for (&i, &d) in dims {
            if i >= d {
                return None;
            }
            flat = flat.checked_add(i.checked_mul(stride)?)?;
            stride = stride.checked_mul(d)?;
        }
        self.data.get(flat)
    }

    /// The untyped array (for writing or dynamic inspection); copies the values once.
    pub fn to_array(&self) -> Array {
        Array::from_parts(self.header.clone(), T::into_data(self.data.clone()))
    }

    /// The untyped array, moving the values (no copy for types whose
    /// [`ArrayData`] variant holds them as they are: every type but `f16` and complex).
    ///
    /// ```
    /// use npyguard::{ArrayData, NpyArray};
    /// let a = NpyArray::from_vec(vec![1i32, 2, 3], vec![3]).unwrap();
    /// assert_eq!(a.into_array().data(), &ArrayData::I32(vec![1, 2, 3].into()));
    /// ```
    pub fn into_array(self) -> Array {
        Array::from_parts(self.header, T::into_data(self.data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_f64_is_lossy_above_2_pow_53() {
        let big = (1i64 << 53) + 1;
        let a = NpyArray::from_vec(vec![big, 1 << 53], vec![2])
            .unwrap()
            .to_array();
        let f = a.to_f64_lossy().unwrap();
        assert_eq!(f[0], f[1], "2^53 + 1 and 2^53 collapse in f64");
        assert!(
            matches!(a.data(), ArrayData::I64(v) if v[0] == big),
            "exact access keeps it"
        );
    }

    #[test]
    fn logical_get_handles_fortran() {
        let f = NpyArray::from_vec_with(vec![1, 4, 2, 5, 3, 6], vec![2, 3], true, Endian::Little)
            .unwrap();
        assert_eq!(f.get(&[0, 1]), Some(&2));
        assert_eq!(f.get(&[1, 0]), Some(&4));
        assert_eq!(f.get(&[2, 0]), None);
        assert_eq!(f.to_c_order(), vec![1, 2, 3, 4, 5, 6]);
    }
}
