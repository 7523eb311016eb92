//! One element as a value: the one dispatch from dtype families to the kinds of value the
//! consumers print, compare or convert.
//!
//! [`ArrayData::scalar`] maps each family of the table in `storage` to a [`Scalar`]: every
//! integer family to one exact `Int`, the three float widths to [`Float`] in their own
//! precision, text without its NUL padding. `render`, `compare` and the lossy `f64`
//! conversion read elements through it, so they match on kinds of value, not on families.

use crate::data::storage::ArrayData;
use crate::format::f16::f16_bits_to_f64;

/// A floating-point value in its own precision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Float {
    /// IEEE binary16, as its bits.
    Half(u16),
    /// `f4`.
    Single(f32),
    /// `f8`.
    Double(f64),
}

impl Float {
    /// The value as an `f64` (exact for every width).
    pub(crate) fn to_f64(self) -> f64 {
        match self {
            Float::Half(h) => f16_bits_to_f64(h),
            Float::Single(s) => f64::from(s),
            Float::Double(d) => d,
        }
    }
}

/// One element of an array, by kind of value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Scalar<'a> {
    /// `b1`: any non-zero byte is true.
    Bool(bool),
    /// Every integer family, exactly.
    Int(i128),
    /// `f2`, `f4`, `f8`.
    Float(Float),
    /// `c8`, `c16`: real and imaginary parts.
    Complex(Float, Float),
    /// `M8`, `m8`: the count of the dtype's unit (`i64::MIN` is NaT).
    Time(i64),
    /// `S`: the bytes without trailing NULs (as NumPy reads them).
    Bytes(&'a [u8]),
    /// `U`: the UTF-32 code units without trailing NULs (not checked: NumPy keeps lone
    /// surrogates and values above U+10FFFF).
    Str(&'a [u32]),
    /// `V`: the raw bytes.
    Void(&'a [u8]),
    /// `f16`, `c32`: the element's bytes in the dtype's byte order (16, or 32 for the two
    /// parts of a complex), read as values by [`f80`](crate::f80).
    LongDouble(&'a [u8]),
    /// A record's raw bytes (its fields are read through [`Array::field`](crate::Array::field)).
    Record(&'a [u8]),
}

impl ArrayData {
    /// Element `i` in memory order, whose storage is `per` units (see
    /// [`units_per_element`](crate::data::storage::units_per_element)); `None` out of range.
    pub(crate) fn scalar(&self, i: usize, per: usize) -> Option<Scalar<'_>> {
        let int = |x: i128| Some(Scalar::Int(x));
        match self {
            ArrayData::Bool(v) => Some(Scalar::Bool(*v.get(i)? != 0)),
            ArrayData::I8(v) => int(i128::from(*v.get(i)?)),
            ArrayData::U8(v) => int(i128::from(*v.get(i)?)),
            ArrayData::I16(v) => int(i128::from(*v.get(i)?)),
            ArrayData::I32(v) => int(i128::from(*v.get(i)?)),
            ArrayData::I64(v) => int(i128::from(*v.get(i)?)),
            ArrayData::U16(v) => int(i128::from(*v.get(i)?)),
            ArrayData::U32(v) => int(i128::from(*v.get(i)?)),
            ArrayData::U64(v) => int(i128::from(*v.get(i)?)),
            ArrayData::F16(v) => Some(Scalar::Float(Float::Half(*v.get(i)?))),
            ArrayData::F32(v) => Some(Scalar::Float(Float::Single(*v.get(i)?))),
            ArrayData::F64(v) => Some(Scalar::Float(Float::Double(*v.get(i)?))),
            ArrayData::C64(v) => v
                .get(i)
                .map(|&[re, im]| Scalar::Complex(Float::Single(re), Float::Single(im))),
            ArrayData::C128(v) => v
                .get(i)
                .map(|&[re, im]| Scalar::Complex(Float::Double(re), Float::Double(im))),
            ArrayData::DateTime(v) | ArrayData::TimeDelta(v) => Some(Scalar::Time(*v.get(i)?)),
            ArrayData::Bytes(v) => Some(Scalar::Bytes(unpadded(element(v, i, per)?, &0))),
            ArrayData::Unicode(v) => Some(Scalar::Str(unpadded(element(v, i, per)?, &0))),
            ArrayData::Void(v) => Some(Scalar::Void(element(v, i, per)?)),
            ArrayData::LongDouble(v) | ArrayData::CLongDouble(v) => {
                Some(Scalar::LongDouble(element(v, i, per)?))
            }
            ArrayData::Record(v) => Some(Scalar::Record(element(v, i, per)?)),
        }
    }
}

/// The `per` units of element `i`.
fn element<T>(v: &[T], i: usize, per: usize) -> Option<&[T]> {
    let start = i.checked_mul(per)?;
    v.get(start..start.checked_add(per)?)
}

/// `s` without its trailing `pad` units (NumPy's value of an `S` or `U` element).
pub(crate) fn unpadded<'a, T: PartialEq>(mut s: &'a [T], pad: &T) -> &'a [T] {
    while let [rest @ .., last] = s {
        if last != pad {
            break;
        }
        s = rest;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unpadded_strips_only_the_trailing_padding() {
        assert_eq!(unpadded(b"a\0b\0\0", &0), b"a\0b");
        assert_eq!(unpadded(b"\0\0", &0), b"");
        assert_eq!(unpadded(&[0u32, 7, 0], &0), &[0, 7]);
        assert_eq!(unpadded::<u32>(&[], &0), &[] as &[u32]);
    }
}
