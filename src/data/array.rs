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
//! let back = Array::from_bytes(&bytes, &ReadOptions::default()).unwrap();
//! assert_eq!(back.shape(), &[2, 2]);
//! assert!(matches!(back.data(), ArrayData::F64(v) if v == &[1.5, -2.0, 3.25, 4.0]));
//! ```

use crate::data::element::Element;
use crate::data::layout;
use crate::error::{Error, ErrorKind, Result};
use crate::format::dtype::{Dtype, Endian, Record};
use crate::format::header::Header;

/// The values of an array of any dtype, in the file's memory order.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ArrayData {
    /// `b1` as the file's bytes: 0 is False, any other byte True. The bytes are kept as
    /// stored (NumPy keeps them too, so `02 ff` reads as `[True, True]` and is written
    /// back as `02 ff`); [`NpyArray<bool>`] gives `bool` values.
    Bool(Vec<u8>),
    /// `i1`.
    I8(Vec<i8>),
    /// `u1`.
    U8(Vec<u8>),
    /// `i2`.
    I16(Vec<i16>),
    /// `i4`.
    I32(Vec<i32>),
    /// `i8`.
    I64(Vec<i64>),
    /// `u2`.
    U16(Vec<u16>),
    /// `u4`.
    U32(Vec<u32>),
    /// `u8`.
    U64(Vec<u64>),
    /// `f2` as IEEE binary16 bit patterns (use feature `half` for `half::f16`).
    F16(Vec<u16>),
    /// `f4`.
    F32(Vec<f32>),
    /// `f8`.
    F64(Vec<f64>),
    /// `c8` as `[re, im]`.
    C64(Vec<[f32; 2]>),
    /// `c16` as `[re, im]`.
    C128(Vec<[f64; 2]>),
    /// `S<n>`: `n` bytes per element, NUL padded, concatenated.
    Bytes(Vec<u8>),
    /// `U<n>`: `n` characters per element, NUL padded, concatenated.
    Unicode(Vec<char>),
    /// `V<n>`: `n` raw bytes per element, concatenated.
    Void(Vec<u8>),
    /// `M8`: counts of the dtype's unit since 1970-01-01; `i64::MIN` is NaT.
    DateTime(Vec<i64>),
    /// `m8`: counts of the dtype's unit; `i64::MIN` is NaT.
    TimeDelta(Vec<i64>),
    /// Records: the raw record bytes in the file's byte order (see [`Array::field`]).
    Record(Vec<u8>),
}

impl ArrayData {
    /// Empty storage of the variant for `dtype`, with room for `capacity` elements.
    pub(crate) fn with_capacity(dtype: &Dtype, capacity: usize) -> ArrayData {
        let n = capacity;
        let per = |k: usize| n.saturating_mul(k);
        match dtype {
            Dtype::Bool => ArrayData::Bool(Vec::with_capacity(n)),
            Dtype::I8 => ArrayData::I8(Vec::with_capacity(n)),
            Dtype::U8 => ArrayData::U8(Vec::with_capacity(n)),
            Dtype::I16(_) => ArrayData::I16(Vec::with_capacity(n)),
            Dtype::I32(_) => ArrayData::I32(Vec::with_capacity(n)),
            Dtype::I64(_) => ArrayData::I64(Vec::with_capacity(n)),
            Dtype::U16(_) => ArrayData::U16(Vec::with_capacity(n)),
            Dtype::U32(_) => ArrayData::U32(Vec::with_capacity(n)),
            Dtype::U64(_) => ArrayData::U64(Vec::with_capacity(n)),
            Dtype::F16(_) => ArrayData::F16(Vec::with_capacity(n)),
            Dtype::F32(_) => ArrayData::F32(Vec::with_capacity(n)),
            Dtype::F64(_) => ArrayData::F64(Vec::with_capacity(n)),
            Dtype::C64(_) => ArrayData::C64(Vec::with_capacity(n)),
            Dtype::C128(_) => ArrayData::C128(Vec::with_capacity(n)),
            Dtype::Bytes(k) => ArrayData::Bytes(Vec::with_capacity(per(*k))),
            Dtype::Unicode(k, _) => ArrayData::Unicode(Vec::with_capacity(per(*k))),
            Dtype::Void(k) => ArrayData::Void(Vec::with_capacity(per(*k))),
            Dtype::DateTime(..) => ArrayData::DateTime(Vec::with_capacity(n)),
            Dtype::TimeDelta(..) => ArrayData::TimeDelta(Vec::with_capacity(n)),
            Dtype::Record(r) => ArrayData::Record(Vec::with_capacity(per(r.itemsize))),
        }
    }

    /// Decodes whole elements of `dtype` from `bytes` and appends them.
    /// `offset` is the file offset of `bytes[0]`, for error reporting.
    pub(crate) fn push_bytes(&mut self, dtype: &Dtype, bytes: &[u8], offset: u64) -> Result<()> {
        let e = dtype.endian().unwrap_or(Endian::Little);
        match self {
            ArrayData::I8(v) => i8::decode_into(bytes, e, v),
            ArrayData::Bool(v) | ArrayData::U8(v) | ArrayData::Bytes(v) | ArrayData::Void(v) => {
                v.extend_from_slice(bytes)
            }
            ArrayData::Record(v) => {
                if let Dtype::Record(r) = dtype {
                    check_record_text(r, bytes, offset)?;
                }
                v.extend_from_slice(bytes)
            }
            ArrayData::I16(v) => i16::decode_into(bytes, e, v),
            ArrayData::I32(v) => i32::decode_into(bytes, e, v),
            ArrayData::I64(v) | ArrayData::DateTime(v) | ArrayData::TimeDelta(v) => {
                i64::decode_into(bytes, e, v)
            }
            ArrayData::U16(v) | ArrayData::F16(v) => u16::decode_into(bytes, e, v),
            ArrayData::U32(v) => u32::decode_into(bytes, e, v),
            ArrayData::U64(v) => u64::decode_into(bytes, e, v),
            ArrayData::F32(v) => f32::decode_into(bytes, e, v),
            ArrayData::F64(v) => f64::decode_into(bytes, e, v),
            ArrayData::C64(v) => {
                let mut parts = Vec::with_capacity(bytes.len() / 4);
                f32::decode_into(bytes, e, &mut parts);
                v.extend(parts.chunks_exact(2).map(|p| {
                    [
                        p.first().copied().unwrap_or(0.0),
                        p.get(1).copied().unwrap_or(0.0),
                    ]
                }));
            }
            ArrayData::C128(v) => {
                let mut parts = Vec::with_capacity(bytes.len() / 8);
                f64::decode_into(bytes, e, &mut parts);
                v.extend(parts.chunks_exact(2).map(|p| {
                    [
                        p.first().copied().unwrap_or(0.0),
                        p.get(1).copied().unwrap_or(0.0),
                    ]
                }));
            }
            ArrayData::Unicode(v) => {
                let mut units = Vec::with_capacity(bytes.len() / 4);
                u32::decode_into(bytes, e, &mut units);
                for (i, &u) in units.iter().enumerate() {
                    let at = offset.saturating_add((i as u64).saturating_mul(4));
                    v.push(utf32_char(u, at)?);
                }
            }
        }
        Ok(())
    }

    /// Reserves room for `units` more stored units (see [`ArrayData::units`]).
    pub(crate) fn reserve_units(&mut self, units: usize) {
        match self {
            ArrayData::Bool(v) => v.reserve_exact(units),
            ArrayData::I8(v) => v.reserve_exact(units),
            ArrayData::U8(v) | ArrayData::Bytes(v) | ArrayData::Void(v) | ArrayData::Record(v) => {
                v.reserve_exact(units)
            }
            ArrayData::I16(v) => v.reserve_exact(units),
            ArrayData::I32(v) => v.reserve_exact(units),
            ArrayData::I64(v) | ArrayData::DateTime(v) | ArrayData::TimeDelta(v) => {
                v.reserve_exact(units)
            }
            ArrayData::U16(v) | ArrayData::F16(v) => v.reserve_exact(units),
            ArrayData::U32(v) => v.reserve_exact(units),
            ArrayData::U64(v) => v.reserve_exact(units),
            ArrayData::F32(v) => v.reserve_exact(units),
            ArrayData::F64(v) => v.reserve_exact(units),
            ArrayData::C64(v) => v.reserve_exact(units),
            ArrayData::C128(v) => v.reserve_exact(units),
            ArrayData::Unicode(v) => v.reserve_exact(units),
        }
    }

    /// Number of stored scalar units (elements for numeric types; bytes/chars for S, U, V, records).
    fn units(&self) -> usize {
        match self {
            ArrayData::Bool(v) => v.len(),
            ArrayData::I8(v) => v.len(),
            ArrayData::U8(v) | ArrayData::Bytes(v) | ArrayData::Void(v) | ArrayData::Record(v) => {
                v.len()
            }
            ArrayData::I16(v) => v.len(),
            ArrayData::I32(v) => v.len(),
            ArrayData::I64(v) | ArrayData::DateTime(v) | ArrayData::TimeDelta(v) => v.len(),
            ArrayData::U16(v) | ArrayData::F16(v) => v.len(),
            ArrayData::U32(v) => v.len(),
            ArrayData::U64(v) => v.len(),
            ArrayData::F32(v) => v.len(),
            ArrayData::F64(v) => v.len(),
            ArrayData::C64(v) => v.len(),
            ArrayData::C128(v) => v.len(),
            ArrayData::Unicode(v) => v.len(),
        }
    }

    /// Encodes the values in byte order `e`, at most `units` stored units at a
    /// time, passing each encoded chunk to `f` (so a writer needs only a bounded buffer).
    pub(crate) fn encode_chunks(
        &self,
        e: Endian,
        units: usize,
        mut f: impl FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let units = units.max(1);
        let mut buf = Vec::new();
        macro_rules! go {
            ($v:expr, $enc:expr) => {{
                for chunk in $v.chunks(units) {
                    buf.clear();
                    $enc(chunk, &mut buf);
                    f(&buf)?;
                }
            }};
        }
        match self {
            ArrayData::I8(v) => go!(v, |c: &[i8], b: &mut Vec<u8>| i8::encode_into(c, e, b)),
            ArrayData::Bool(v)
            | ArrayData::U8(v)
            | ArrayData::Bytes(v)
            | ArrayData::Void(v)
            | ArrayData::Record(v) => {
                for chunk in v.chunks(units) {
                    f(chunk)?;
                }
            }
            ArrayData::I16(v) => go!(v, |c: &[i16], b: &mut Vec<u8>| i16::encode_into(c, e, b)),
            ArrayData::I32(v) => go!(v, |c: &[i32], b: &mut Vec<u8>| i32::encode_into(c, e, b)),
            ArrayData::I64(v) | ArrayData::DateTime(v) | ArrayData::TimeDelta(v) => {
                go!(v, |c: &[i64], b: &mut Vec<u8>| i64::encode_into(c, e, b))
            }
            ArrayData::U16(v) | ArrayData::F16(v) => {
                go!(v, |c: &[u16], b: &mut Vec<u8>| u16::encode_into(c, e, b))
            }
            ArrayData::U32(v) => go!(v, |c: &[u32], b: &mut Vec<u8>| u32::encode_into(c, e, b)),
            ArrayData::U64(v) => go!(v, |c: &[u64], b: &mut Vec<u8>| u64::encode_into(c, e, b)),
            ArrayData::F32(v) => go!(v, |c: &[f32], b: &mut Vec<u8>| f32::encode_into(c, e, b)),
            ArrayData::F64(v) => go!(v, |c: &[f64], b: &mut Vec<u8>| f64::encode_into(c, e, b)),
            ArrayData::C64(v) => go!(v, |c: &[[f32; 2]], b: &mut Vec<u8>| {
                let parts: Vec<f32> = c.iter().flatten().copied().collect();
                f32::encode_into(&parts, e, b)
            }),
            ArrayData::C128(v) => go!(v, |c: &[[f64; 2]], b: &mut Vec<u8>| {
                let parts: Vec<f64> = c.iter().flatten().copied().collect();
                f64::encode_into(&parts, e, b)
            }),
            ArrayData::Unicode(v) => go!(v, |c: &[char], b: &mut Vec<u8>| {
                let cu: Vec<u32> = c.iter().map(|&ch| u32::from(ch)).collect();
                u32::encode_into(&cu, e, b)
            }),
        }
        Ok(())
    }

    /// Reindexes from Fortran to C order (`to_c == true`) or back, for an array of `shape`.
    /// `per` is the number of stored units per element (1, or the width of S/U/V/records).
    fn reorder(&self, shape: &[usize], per: usize, to_c: bool) -> ArrayData {
        let shape_for = |s: &[usize]| -> Vec<usize> {
            if to_c {
                s.to_vec()
            } else {
                s.iter().rev().copied().collect()
            }
        };
        let sh = shape_for(shape);
        macro_rules! re {
            ($v:expr) => {
                layout::fortran_to_c($v, &sh)
            };
        }
        match self {
            ArrayData::Bool(v) => ArrayData::Bool(re!(v)),
            ArrayData::I8(v) => ArrayData::I8(re!(v)),
            ArrayData::U8(v) => ArrayData::U8(re!(v)),
            ArrayData::I16(v) => ArrayData::I16(re!(v)),
            ArrayData::I32(v) => ArrayData::I32(re!(v)),
            ArrayData::I64(v) => ArrayData::I64(re!(v)),
            ArrayData::U16(v) => ArrayData::U16(re!(v)),
            ArrayData::U32(v) => ArrayData::U32(re!(v)),
            ArrayData::U64(v) => ArrayData::U64(re!(v)),
            ArrayData::F16(v) => ArrayData::F16(re!(v)),
            ArrayData::F32(v) => ArrayData::F32(re!(v)),
            ArrayData::F64(v) => ArrayData::F64(re!(v)),
            ArrayData::C64(v) => ArrayData::C64(re!(v)),
            ArrayData::C128(v) => ArrayData::C128(re!(v)),
            ArrayData::DateTime(v) => ArrayData::DateTime(re!(v)),
            ArrayData::TimeDelta(v) => ArrayData::TimeDelta(re!(v)),
            ArrayData::Bytes(v) => ArrayData::Bytes(layout::fortran_to_c_bytes(v, &sh, per)),
            ArrayData::Void(v) => ArrayData::Void(layout::fortran_to_c_bytes(v, &sh, per)),
            ArrayData::Record(v) => ArrayData::Record(layout::fortran_to_c_bytes(v, &sh, per)),
            ArrayData::Unicode(v) => {
                // Reorder whole fixed-width strings: group chars per element.
                let groups: Vec<&[char]> = if per == 0 {
                    Vec::new()
                } else {
                    v.chunks(per).collect()
                };
                ArrayData::Unicode(layout::fortran_to_c(&groups, &sh).concat())
            }
        }
    }
}

/// An array of any dtype: its validated header and its values.
#[derive(Debug, Clone, PartialEq)]
pub struct Array {
    header: Header,
    data: ArrayData,
}

impl Array {
    /// Builds an array from a header and data, checking that the data holds exactly
    /// the header's element count in the header's variant, and that the `U` fields of
    /// record bytes are text ([`ErrorKind::BadPayload`] otherwise, as the reader refuses them).
    pub fn new(header: Header, data: ArrayData) -> Result<Array> {
        let array = Array::with_counts_checked(header, data)?;
        // Record bytes are checked as the reader checks them: every `U` field is text.
        if let (Dtype::Record(r), ArrayData::Record(bytes)) = (array.dtype(), &array.data) {
            check_record_text(r, bytes, 0)?;
        }
        Ok(array)
    }

    /// [`Array::new`] without the text check, for data `push_bytes` decoded (and so checked).
    fn with_counts_checked(header: Header, data: ArrayData) -> Result<Array> {
        let expected = ArrayData::with_capacity(header.dtype(), 0);
        if std::mem::discriminant(&expected) != std::mem::discriminant(&data) {
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
        let w = self.dtype().itemsize();
        let start = i.checked_mul(w)?;
        match &self.data {
            ArrayData::Bytes(v) => {
                let s = v.get(start..start.checked_add(w)?)?;
                let end = s
                    .iter()
                    .rposition(|&b| b != 0)
                    .map_or(0, |p| p.saturating_add(1));
                s.get(..end)
            }
            ArrayData::Void(v) => v.get(start..start.checked_add(w)?),
            _ => None,
        }
    }

    /// The `i`-th `U` element in memory order, trailing NULs stripped (as NumPy does).
    pub fn str_at(&self, i: usize) -> Option<String> {
        let Dtype::Unicode(w, _) = self.dtype() else {
            return None;
        };
        let ArrayData::Unicode(v) = &self.data else {
            return None;
        };
        let start = i.checked_mul(*w)?;
        let s = v.get(start..start.checked_add(*w)?)?;
        let end = s
            .iter()
            .rposition(|&c| c != '\0')
            .map_or(0, |p| p.saturating_add(1));
        Some(s.get(..end)?.iter().collect())
    }

    /// One field of a record array, as an array in C order of shape
    /// `self.shape() + field.shape` (nested records stay records; padding is skipped).
    pub fn field(&self, name: &str) -> Result<Array> {
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
        let c = if self.fortran_order() {
            std::borrow::Cow::Owned(self.to_c_order())
        } else {
            std::borrow::Cow::Borrowed(self)
        };
        let ArrayData::Record(raw) = &c.data else {
            return Err(Error::unplaced(ErrorKind::TypeMismatch, "record data"));
        };
        let mut shape = self.shape().to_vec();
        shape.extend_from_slice(&f.shape);
        let header = Header::new(f.dtype.clone(), shape, false)?;
        let mut data = ArrayData::with_capacity(&f.dtype, header.element_count());
        let size = f.size();
        if rec.itemsize > 0 {
            for (i, chunk) in raw.chunks_exact(rec.itemsize).enumerate() {
                let end = f.offset.saturating_add(size);
                let bytes = chunk.get(f.offset..end).unwrap_or_default();
                let at = (i as u64).saturating_mul(rec.itemsize as u64);
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
    /// [`ArrayData::I64`]/[`ArrayData::U64`] values when that matters. Complex
    /// numbers, strings and records return `None`.
    pub fn to_f64_lossy(&self) -> Option<Vec<f64>> {
        #[allow(clippy::cast_precision_loss)]
        let out = match &self.data {
            ArrayData::Bool(v) => v.iter().map(|&b| f64::from(u8::from(b != 0))).collect(),
            ArrayData::I8(v) => v.iter().map(|&x| f64::from(x)).collect(),
            ArrayData::U8(v) => v.iter().map(|&x| f64::from(x)).collect(),
            ArrayData::I16(v) => v.iter().map(|&x| f64::from(x)).collect(),
            ArrayData::I32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            ArrayData::U16(v) => v.iter().map(|&x| f64::from(x)).collect(),
            ArrayData::U32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            ArrayData::I64(v) | ArrayData::DateTime(v) | ArrayData::TimeDelta(v) => {
                v.iter().map(|&x| x as f64).collect()
            }
            ArrayData::U64(v) => v.iter().map(|&x| x as f64).collect(),
            ArrayData::F16(v) => v.iter().map(|&b| f16_bits_to_f64(b)).collect(),
            ArrayData::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            ArrayData::F64(v) => v.clone(),
            _ => return None,
        };
        Some(out)
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
                ErrorKind::TypeMismatch,
                format!("data of {}", T::dtype(Endian::Little).typestr()),
            )),
        }
    }
}

/// Stored units per element for `dtype` in [`ArrayData`].
pub(crate) fn units_per_element(dtype: &Dtype) -> usize {
    match dtype {
        Dtype::Bytes(n) | Dtype::Void(n) | Dtype::Unicode(n, _) => *n,
        Dtype::Record(Record { itemsize, .. }) => *itemsize,
        _ => 1,
    }
}

/// Converts IEEE binary16 bits to `f64` exactly (every f16 is representable in f64).
pub fn f16_bits_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let frac = f64::from(bits & 0x3ff);
    match exp {
        0 => sign * frac * pow2(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        e => sign * (1.0 + frac / 1024.0) * pow2(e.saturating_sub(15)),
    }
}

/// A UTF-32 code unit as a `char`; [`ErrorKind::BadPayload`] at `at` for a surrogate or a
/// value above U+10FFFF (NumPy stores them; npyguard refuses what is not text).
fn utf32_char(u: u32, at: u64) -> Result<char> {
    char::from_u32(u).ok_or_else(|| {
        Error::new(
            ErrorKind::BadPayload,
            at,
            "a UTF-32 code unit that is a Unicode scalar value",
        )
        .found(format!("0x{u:08x}"))
    })
}

/// Checks the `U` fields (at any depth) of whole records in `bytes`, as a plain `U` array
/// is checked when it is decoded: so a record array that reads is one whose every field
/// can be taken out ([`Array::field`]) and printed.
fn check_record_text(r: &crate::format::dtype::Record, bytes: &[u8], offset: u64) -> Result<()> {
    if r.itemsize == 0 || !r.fields.iter().any(|f| holds_unicode(&f.dtype)) {
        return Ok(());
    }
    for (i, rec) in bytes.chunks_exact(r.itemsize).enumerate() {
        let base = offset.saturating_add((i as u64).saturating_mul(r.itemsize as u64));
        for f in &r.fields {
            let end = f.offset.saturating_add(f.size());
            let field = rec.get(f.offset..end).unwrap_or_default();
            let at = base.saturating_add(f.offset as u64);
            match &f.dtype {
                Dtype::Unicode(_, e) => {
                    for (k, unit) in field.chunks_exact(4).enumerate() {
                        let b: [u8; 4] = unit.try_into().unwrap_or_default();
                        let u = match e {
                            Endian::Big => u32::from_be_bytes(b),
                            Endian::Little => u32::from_le_bytes(b),
                        };
                        utf32_char(u, at.saturating_add((k as u64).saturating_mul(4)))?;
                    }
                }
                Dtype::Record(inner) => check_record_text(inner, field, at)?,
                _ => {}
            }
        }
    }
    Ok(())
}

/// Whether `dtype` holds a `U` type anywhere.
fn holds_unicode(dtype: &Dtype) -> bool {
    match dtype {
        Dtype::Unicode(..) => true,
        Dtype::Record(r) => r.fields.iter().any(|f| holds_unicode(&f.dtype)),
        _ => false,
    }
}

/// Rounds `x` to the nearest IEEE binary16 value (ties to even) and returns its bits.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
pub(crate) fn f64_to_f16_bits(x: f64) -> u16 {
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return sign | 0x7e00;
    }
    let a = x.abs();
    // 65520 is halfway between 65504 (the largest f16) and 2^16: it rounds to even, i.e. to infinity.
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < pow2(-14) {
        // Subnormal (or the smallest normal after rounding up: 1024 is its encoding too).
        let m = (a * pow2(24)).round_ties_even() as u16;
        return sign | m;
    }
    let exp_field = u32::try_from(a.to_bits() >> 52).unwrap_or(0);
    let e = i32::try_from(exp_field).unwrap_or(0).saturating_sub(1023); // -14..=15
    let m = (a * pow2(10i32.saturating_sub(e))).round_ties_even() as u32; // 1024..=2048
    let biased = u32::try_from(e.saturating_add(15)).unwrap_or(0);
    let bits = biased
        .saturating_mul(1024)
        .saturating_add(m.saturating_sub(1024));
    sign | u16::try_from(bits).unwrap_or(0x7c00)
}

/// `2^n` exactly, built from its bits, for the normal exponents `-1022..=1023`
/// (0 below, infinity above). `f64::powi` is not guaranteed to be exact: its
/// precision is platform-dependent, and Miri perturbs it.
pub(crate) fn pow2(n: i32) -> f64 {
    match u64::try_from(n.saturating_add(1023)) {
        Ok(biased @ 1..=2046) => f64::from_bits(biased << 52),
        Ok(0) | Err(_) => 0.0,
        Ok(_) => f64::INFINITY,
    }
}

/// An array whose element type `T` is known: header and values in the file's memory order.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray<T> {
    header: Header,
    data: Vec<T>,
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
        Ok(NpyArray { header, data })
    }

    pub(crate) fn from_parts(header: Header, data: Vec<T>) -> NpyArray<T> {
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

    /// The values in the file's memory order.
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }

    /// The values in C (row-major) order: reindexed when the file was Fortran order.
    pub fn to_c_order(&self) -> Vec<T> {
        if self.fortran_order() {
            layout::fortran_to_c(&self.data, self.shape())
        } else {
            self.data.clone()
        }
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
    /// assert_eq!(a.into_array().data(), &ArrayData::I32(vec![1, 2, 3]));
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
    fn pow2_is_exact_over_the_normal_range() {
        assert_eq!(pow2(0), 1.0);
        assert_eq!(pow2(-24), 1.0 / 16_777_216.0);
        assert_eq!(pow2(24), 16_777_216.0);
        assert_eq!(pow2(-1022), f64::MIN_POSITIVE);
        assert_eq!(pow2(1023), f64::MAX / (2.0 - f64::EPSILON));
        assert_eq!(pow2(-1023), 0.0);
        assert_eq!(pow2(1024), f64::INFINITY);
        assert_eq!(pow2(i32::MIN), 0.0);
        assert_eq!(pow2(i32::MAX), f64::INFINITY);
    }

    #[test]
    fn f16_conversion() {
        assert_eq!(f16_bits_to_f64(0x3c00), 1.0);
        assert_eq!(f16_bits_to_f64(0xc000), -2.0);
        assert_eq!(f16_bits_to_f64(0x0001), 5.960464477539063e-8); // 2^-24
        assert_eq!(f16_bits_to_f64(0x7c00), f64::INFINITY);
        assert!(f16_bits_to_f64(0x7e01).is_nan());
        assert_eq!(f16_bits_to_f64(0x8000).to_bits(), (-0.0f64).to_bits());
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
