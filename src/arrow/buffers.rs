//! Arrow arrays built from native vectors and buffers, without copies where the layouts agree.

use crate::arrow::support::arrow_err;
use crate::arrow::support::mul;
use crate::arrow::support::out_of_range;
use crate::arrow::support::sub;
use crate::arrow::types::complex_fields;
use crate::arrow::types::TimeKind;
use std::sync::Arc;

use arrow_array::types::{
    ArrowPrimitiveType, DurationMicrosecondType, DurationMillisecondType, DurationNanosecondType,
    DurationSecondType, Float16Type, Int64Type, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{ArrayRef, BooleanArray, FixedSizeBinaryArray, PrimitiveArray, StructArray};
use arrow_buffer::{Buffer, NullBuffer, ScalarBuffer};
use arrow_schema::TimeUnit as Unit;

use crate::error::{Error, ErrorKind, Result};

pub(super) fn arc<A: arrow_array::Array + 'static>(a: A) -> ArrayRef {
    Arc::new(a)
}

pub(super) fn prim_buf<T: ArrowPrimitiveType>(b: ScalarBuffer<T::Native>) -> Result<ArrayRef> {
    PrimitiveArray::<T>::try_new(b, None)
        .map(arc)
        .map_err(arrow_err)
}

pub(super) fn prim_vec<T: ArrowPrimitiveType>(v: Vec<T::Native>) -> Result<ArrayRef> {
    prim_buf::<T>(ScalarBuffer::from(v))
}

/// NumPy's bool bytes (any non-zero byte is True) as a Boolean array.
pub(super) fn bool_array(bytes: &[u8]) -> ArrayRef {
    arc(BooleanArray::from_iter(bytes.iter().map(|&b| Some(b != 0))))
}

/// IEEE binary16 bit patterns as a Float16 array: the same bytes, no copy.
pub(super) fn f16_buf(b: ScalarBuffer<u16>) -> Result<ArrayRef> {
    let len = b.len();
    let halves =
        ScalarBuffer::<<Float16Type as ArrowPrimitiveType>::Native>::new(b.into_inner(), 0, len);
    prim_buf::<Float16Type>(halves)
}

pub(super) fn complex_vec<T: ArrowPrimitiveType>(v: Vec<[T::Native; 2]>) -> Result<ArrayRef> {
    let re: Vec<T::Native> = v.iter().map(|&[re, _]| re).collect();
    let im: Vec<T::Native> = v.iter().map(|&[_, im]| im).collect();
    drop(v);
    let parts = vec![prim_vec::<T>(re)?, prim_vec::<T>(im)?];
    StructArray::try_new(complex_fields(T::DATA_TYPE), parts, None)
        .map(arc)
        .map_err(arrow_err)
}

pub(super) fn time_buf(b: ScalarBuffer<i64>, kind: TimeKind) -> Result<ArrayRef> {
    let nulls = b
        .contains(&i64::MIN)
        .then(|| b.iter().map(|&v| v != i64::MIN).collect::<NullBuffer>());
    macro_rules! mk {
        ($t:ty) => {
            PrimitiveArray::<$t>::try_new(b, nulls)
                .map(arc)
                .map_err(arrow_err)
        };
    }
    match kind {
        TimeKind::Timestamp(Unit::Second) => mk!(TimestampSecondType),
        TimeKind::Timestamp(Unit::Millisecond) => mk!(TimestampMillisecondType),
        TimeKind::Timestamp(Unit::Microsecond) => mk!(TimestampMicrosecondType),
        TimeKind::Timestamp(Unit::Nanosecond) => mk!(TimestampNanosecondType),
        TimeKind::Duration(Unit::Second) => mk!(DurationSecondType),
        TimeKind::Duration(Unit::Millisecond) => mk!(DurationMillisecondType),
        TimeKind::Duration(Unit::Microsecond) => mk!(DurationMicrosecondType),
        TimeKind::Duration(Unit::Nanosecond) => mk!(DurationNanosecondType),
        TimeKind::Raw => mk!(Int64Type),
    }
}

pub(super) fn offset_i32(n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| {
        Error::unplaced(
            ErrorKind::ShapeOverflow,
            "at most 2 GiB of string data in one batch (use smaller batches)",
        )
    })
}

/// The `i`-th `w`-unit element of fixed-width storage.
pub(super) fn element<T>(data: &[T], i: usize, w: usize) -> Result<&[T]> {
    sub(data, mul(i, w)?, w)
}

pub(super) fn void_buf(b: Buffer, w: usize) -> Result<ArrayRef> {
    let size = i32::try_from(w)
        .ok()
        .filter(|&s| s > 0)
        .ok_or_else(out_of_range)?;
    FixedSizeBinaryArray::try_new(size, b, None)
        .map(arc)
        .map_err(arrow_err)
}
