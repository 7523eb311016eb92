//! What Arrow makes of each stored unit type: its owned storage and its arrays, per [`Kind`].
//!
//! The dtype table (`data::storage`) names one unit type per family; [`Cell`] is implemented
//! once per unit type, and the family's [`Kind`] (decided once per dtype) says which Arrow
//! array the units become where several families share a unit type (`u8` holds `b1`, `u1`,
//! `S` and `V`; `u16` holds `u2` and `f2`; `i64` holds `i8`, `M8` and `m8`).

use crate::arrow::buffers::arc;
use crate::arrow::buffers::bool_array;
use crate::arrow::buffers::complex_vec;
use crate::arrow::buffers::element;
use crate::arrow::buffers::f16_buf;
use crate::arrow::buffers::offset_i32;
use crate::arrow::buffers::prim_buf;
use crate::arrow::buffers::time_buf;
use crate::arrow::buffers::void_buf;
use crate::arrow::support::arrow_err;
use crate::arrow::support::mul;
use crate::arrow::support::sub;
use crate::arrow::types::Kind;

use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{ArrayRef, BinaryArray, StringArray};
use arrow_buffer::{ArrowNativeType, Buffer, OffsetBuffer, ScalarBuffer};

use crate::data::codec::utf32_text;
use crate::data::scalar::unpadded;
use crate::error::Result;

/// A stored unit type as Arrow sees it.
pub(super) trait Cell: Copy + Default {
    /// Owned storage of an array's units: Arrow's shared buffer where Arrow's layout is
    /// NumPy's (slices of it are then free), else the vector itself.
    type Owned: std::fmt::Debug;
    /// Moves `units` into owned storage (no copy, also for a mapped buffer).
    fn own(units: crate::Buffer<Self>) -> Self::Owned;
    /// The units of owned storage.
    fn borrow(owned: &Self::Owned) -> &[Self];
    /// `units` holding `n` elements of `kind` as an Arrow array.
    fn array(units: Vec<Self>, n: usize, kind: Kind) -> Result<ArrayRef>;
    /// Whether one element of `kind` (a numeric, bool, complex or time unit) is zero.
    fn is_zero(&self, kind: Kind) -> bool;
    /// Elements `start..start + n` of owned storage; the default copies them.
    fn slice(owned: &Self::Owned, start: usize, n: usize, kind: Kind) -> Result<ArrayRef> {
        let w = kind.width();
        let units = sub(Self::borrow(owned), mul(start, w)?, mul(n, w)?)?;
        Self::array(units.to_vec(), n, kind)
    }
}

/// A unit type Arrow stores natively: owned in a [`ScalarBuffer`] and sliced without a copy.
pub(super) trait Native: ArrowNativeType + Default {
    /// `buf` holding `n` elements of `kind` as an Arrow array (no copy where Arrow's
    /// layout is NumPy's).
    fn from_buf(buf: ScalarBuffer<Self>, n: usize, kind: Kind) -> Result<ArrayRef>;
    /// Whether one element of `kind` is zero.
    fn zero(&self, kind: Kind) -> bool;
}

impl<T: Native> Cell for T {
    type Owned = ScalarBuffer<T>;

    fn own(units: crate::Buffer<T>) -> ScalarBuffer<T> {
        match units.into_mapped_bytes() {
            // A page-aligned mapping of whole values: Arrow shares it (no copy).
            Ok(bytes) => {
                let len = bytes
                    .len()
                    .checked_div(std::mem::size_of::<T>())
                    .unwrap_or(0);
                ScalarBuffer::new(Buffer::from(bytes), 0, len)
            }
            Err(heap) => ScalarBuffer::from(heap.into_vec()),
        }
    }

    fn borrow(owned: &ScalarBuffer<T>) -> &[T] {
        owned
    }

    fn array(units: Vec<T>, n: usize, kind: Kind) -> Result<ArrayRef> {
        T::from_buf(ScalarBuffer::from(units), n, kind)
    }

    fn is_zero(&self, kind: Kind) -> bool {
        self.zero(kind)
    }

    fn slice(owned: &ScalarBuffer<T>, start: usize, n: usize, kind: Kind) -> Result<ArrayRef> {
        let w = kind.width();
        let (start, len) = (mul(start, w)?, mul(n, w)?);
        // Checked first: ScalarBuffer::slice panics out of range.
        sub(owned, start, len)?;
        T::from_buf(owned.slice(start, len), n, kind)
    }
}

/// Unit types that are plain Arrow primitives for every family that stores them.
macro_rules! plain_native {
    ($($t:ty => $arrow:ty, $zero:expr;)*) => {$(
        impl Native for $t {
            fn from_buf(buf: ScalarBuffer<$t>, _: usize, _: Kind) -> Result<ArrayRef> {
                prim_buf::<$arrow>(buf)
            }

            fn zero(&self, _: Kind) -> bool {
                *self == $zero
            }
        }
    )*};
}

plain_native! {
    i8 => Int8Type, 0;
    i16 => Int16Type, 0;
    i32 => Int32Type, 0;
    u64 => UInt64Type, 0;
    f32 => Float32Type, 0.0;
    f64 => Float64Type, 0.0;
}

/// `b1` (Boolean), `u1` (UInt8), `S` (Binary) and `V` (FixedSizeBinary).
impl Native for u8 {
    fn from_buf(buf: ScalarBuffer<u8>, n: usize, kind: Kind) -> Result<ArrayRef> {
        match kind {
            Kind::Bool => Ok(bool_array(&buf)),
            Kind::Bytes(w) => binary(&buf, n, w),
            Kind::Void(w) => void_buf(buf.into_inner(), w),
            _ => prim_buf::<UInt8Type>(buf),
        }
    }

    fn zero(&self, _: Kind) -> bool {
        *self == 0
    }
}

/// `u4` (UInt32) and `U` code units (Utf8).
impl Native for u32 {
    fn from_buf(buf: ScalarBuffer<u32>, n: usize, kind: Kind) -> Result<ArrayRef> {
        match kind {
            Kind::Unicode(w) => utf8(&buf, n, w),
            _ => prim_buf::<UInt32Type>(buf),
        }
    }

    fn zero(&self, _: Kind) -> bool {
        *self == 0
    }
}

/// `u2` (UInt16) and `f2` bit patterns (Float16).
impl Native for u16 {
    fn from_buf(buf: ScalarBuffer<u16>, _: usize, kind: Kind) -> Result<ArrayRef> {
        match kind {
            Kind::F16 => f16_buf(buf),
            _ => prim_buf::<UInt16Type>(buf),
        }
    }

    fn zero(&self, kind: Kind) -> bool {
        match kind {
            // +0.0 and -0.0 (sign bit ignored); NaN has a non-zero exponent.
            Kind::F16 => *self & 0x7fff == 0,
            _ => *self == 0,
        }
    }
}

/// `i8` (Int64), `M8` and `m8` (timestamps, durations or Int64 counts; NaT is null).
impl Native for i64 {
    fn from_buf(buf: ScalarBuffer<i64>, _: usize, kind: Kind) -> Result<ArrayRef> {
        match kind {
            Kind::Time(t) => time_buf(buf, t),
            _ => prim_buf::<Int64Type>(buf),
        }
    }

    fn zero(&self, _: Kind) -> bool {
        *self == 0
    }
}

/// `c8` and `c16` pairs as `Struct{re, im}` (the parts are split, so always a copy).
macro_rules! complex_cell {
    ($($part:ty => $arrow:ty;)*) => {$(
        impl Cell for [$part; 2] {
            type Owned = crate::Buffer<[$part; 2]>;

            fn own(units: crate::Buffer<[$part; 2]>) -> crate::Buffer<[$part; 2]> {
                units
            }

            fn borrow(owned: &crate::Buffer<[$part; 2]>) -> &[[$part; 2]] {
                owned
            }

            fn array(units: Vec<[$part; 2]>, _: usize, _: Kind) -> Result<ArrayRef> {
                complex_vec::<$arrow>(units)
            }

            fn is_zero(&self, _: Kind) -> bool {
                self[0] == 0.0 && self[1] == 0.0
            }
        }
    )*};
}

complex_cell! {
    f32 => Float32Type;
    f64 => Float64Type;
}

/// `n` `U<w>` elements (UTF-32 code units) as Utf8, trailing NULs stripped. A unit UTF-8
/// cannot hold (a lone surrogate, a value above U+10FFFF: NumPy keeps both) is refused with
/// [`ErrorKind::BadPayload`](crate::ErrorKind::BadPayload), naming the unit and its element
/// (counted from the first element converted).
fn utf8(units: &[u32], n: usize, w: usize) -> Result<ArrayRef> {
    let mut values = String::with_capacity(units.len());
    let mut i = 0usize;
    let mut refused = None;
    let offsets = stripped_offsets(units, n, w, 0, |e| {
        match utf32_text(e, i) {
            Ok(text) => values.push_str(&text),
            Err(err) => {
                refused.get_or_insert(err);
            }
        }
        i = i.saturating_add(1);
        values.len()
    })?;
    if let Some(err) = refused {
        return Err(err);
    }
    StringArray::try_new(offsets, Buffer::from_vec(values.into_bytes()), None)
        .map(arc)
        .map_err(arrow_err)
}

/// `n` `S<w>` elements as Binary, trailing NULs stripped (NumPy's value).
fn binary(units: &[u8], n: usize, w: usize) -> Result<ArrayRef> {
    let mut values = Vec::with_capacity(units.len());
    let offsets = stripped_offsets(units, n, w, 0, |e| {
        values.extend_from_slice(e);
        values.len()
    })?;
    BinaryArray::try_new(offsets, Buffer::from_vec(values), None)
        .map(arc)
        .map_err(arrow_err)
}

/// Passes each of the `n` `w`-unit elements of `units`, trailing `pad` units stripped, to
/// `push` (which appends it and returns the values' new length in bytes); the offsets.
fn stripped_offsets<T: Copy + PartialEq>(
    units: &[T],
    n: usize,
    w: usize,
    pad: T,
    mut push: impl FnMut(&[T]) -> usize,
) -> Result<OffsetBuffer<i32>> {
    let mut offsets = Vec::with_capacity(n.saturating_add(1));
    offsets.push(0i32);
    for i in 0..n {
        let e = element(units, i, w)?;
        offsets.push(offset_i32(push(unpadded(e, &pad)))?);
    }
    Ok(OffsetBuffer::new(ScalarBuffer::from(offsets)))
}
