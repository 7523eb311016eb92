//! Arrow record batches from NumPy arrays (feature `arrow`; Parquet with feature `parquet`).
//!
//! Three table shapes for 0-, 1- and 2-D arrays, as in sturdy.numpy's datasets:
//!
//! | [`Layout`] | columns | rows |
//! | --- | --- | --- |
//! | [`Columns`](Layout::Columns) | `c1`, `c2`, … `cN`, one per NumPy column in file order (1-D: `c1`) | one per NumPy row |
//! | [`RowLists`](Layout::RowLists) | `c1`: a `FixedSizeList` of the row's N values (2-D only) | one per NumPy row |
//! | [`NonZeros`](Layout::NonZeros) | `row_no` (Int64), `col_no` (Int16/Int32/Int64), `val` | one per non-zero element |
//!
//! plus [`csr`] for 2-D arrays (`indptr`, `indices`, `data`). A 0-d array is one row
//! and one column; a 1-D array of length n is n rows of one column (so its non-zeros
//! have `row_no` = the index and `col_no` = 0).
//!
//! **Element types are preserved**:
//!
//! | NumPy | Arrow |
//! | --- | --- |
//! | `b1` | Boolean |
//! | `i1` `i2` `i4` `i8` | Int8 Int16 Int32 Int64 |
//! | `u1` `u2` `u4` `u8` | UInt8 UInt16 UInt32 UInt64 |
//! | `f2` `f4` `f8` | Float16 Float32 Float64 (bit-exact: NaN payloads and −0.0 kept) |
//! | `c8` `c16` | Struct `{re, im}` of Float32 / Float64 |
//! | `M8[s]` `M8[ms]` `M8[us]` `M8[ns]` | Timestamp(unit, no time zone) |
//! | `m8[s]` `m8[ms]` `m8[us]` `m8[ns]` | Duration(unit) |
//! | other `M8`/`m8` units or multiples (`M8[D]`, `M8[25s]`) | Int64, field metadata `numpy.dtype` = the NumPy type string |
//! | `S<n>` | Binary, trailing NULs stripped (NumPy's value) |
//! | `U<n>` | Utf8, trailing NULs stripped (NumPy's value) |
//! | `V<n>` (n ≥ 1) | FixedSizeBinary(n) |
//! | records | refused ([`ErrorKind::UnsupportedDtype`]; use [`Array::field`]) |
//!
//! `NaT` becomes null (datetime and timedelta fields are nullable; nothing else is).
//! Every schema carries metadata `numpy.dtype`, `numpy.shape`, `numpy.fortran_order`
//! and `npyguard.layout`.
//!
//! **Memory.** [`Dataset::new`] takes the array by value and keeps its values in one
//! Arrow buffer without copying (every numeric type, `f2`, datetimes, `V`). A batch is
//! then a zero-copy slice wherever memory order allows: a 1-D array; each column of a
//! Fortran-order 2-D array (columns are contiguous there); the `FixedSizeList` values of
//! a C-order 2-D array. The other cases — columns of a C-order matrix, row lists of a
//! Fortran-order one — copy one batch at a time through a cache-tiled transpose
//! (into a single buffer that the batch's columns share). Booleans
//! (bit-packed in Arrow), complex numbers (split into `re`/`im`) and strings are always
//! copied per batch. [`Dataset::batches`] walks the array in bounded row batches, so a
//! writer needs memory for the input array plus about one batch.
//!
//! **Non-zeros.** Zero is `0` for integers, `false` for booleans, `0` for datetimes and
//! timedeltas (NaT is not zero), exactly `+0.0` or `−0.0` for floats (`f2` too), and
//! `0 + 0j` (either sign) for complex numbers; NaN is not zero. Strings are refused.
//! Each row range is scanned twice — a count (per row, for Fortran data), then a fill
//! into exactly-sized buffers — with no boxing, in the array's memory order (column
//! segments for Fortran data; a Fortran range of more than 65 536 rows is counted once
//! more up front, as it is filled in blocks of 65 536 rows). The
//! output is in **row-major order**: `row_no` ascending, then `col_no` ascending, the
//! order of NumPy's `np.nonzero` for any memory order. `col_no` is Int16 while the array
//! has at most 32 767 columns, Int32 up to 2³¹ − 1 columns, Int64 beyond.
//!
//! ```
//! use arrow_array::{cast::AsArray, types::{Int64Type, UInt32Type}};
//! use npyguard::{arrow, Endian, NpyArray};
//! // The 2 x 3 matrix [[4294967291, 12, 29], [46, 63, 80]], stored in Fortran order.
//! let a = NpyArray::from_vec_with(vec![4294967291u32, 46, 12, 63, 29, 80], vec![2, 3], true, Endian::Big)
//!     .unwrap()
//!     .to_array();
//! let batch = arrow::columns(a.clone()).unwrap();
//! assert_eq!(batch.num_columns(), 3);
//! assert_eq!(batch.schema().field(0).name(), "c1");
//! assert_eq!(batch.column(0).as_primitive::<UInt32Type>().values(), &[4294967291, 46]);
//! assert_eq!(batch.column(2).as_primitive::<UInt32Type>().values(), &[29, 80]);
//!
//! let nz = arrow::nonzeros(&a).unwrap();
//! assert_eq!(nz.num_rows(), 6);
//! assert_eq!(nz.column(0).as_primitive::<Int64Type>().values(), &[0, 0, 0, 1, 1, 1]);
//! ```

use std::collections::HashMap;
use std::io::Write;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::types::{
    ArrowPrimitiveType, DurationMicrosecondType, DurationMillisecondType, DurationNanosecondType,
    DurationSecondType, Float16Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{
    Array as _, ArrayRef, BinaryArray, BooleanArray, FixedSizeBinaryArray, FixedSizeListArray,
    Int32Array, Int64Array, PrimitiveArray, RecordBatch, RecordBatchOptions, StringArray,
    StructArray,
};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{
    ArrowError, DataType, Field, FieldRef, Fields, Schema, SchemaRef, TimeUnit as Unit,
};

use crate::data::array::Array;
use crate::data::layout::{self, Strided};
use crate::data::storage::ArrayData;
use crate::error::{Error, ErrorKind, Result};
use crate::format::dtype::{DateUnit, Dtype, TimeUnit};

/// Most input rows in one batch of [`Dataset::default_batch_rows`] (64 Ki).
///
/// ```
/// assert_eq!(npyguard::arrow::DEFAULT_BATCH_ROWS, 64 * 1024);
/// ```
pub const DEFAULT_BATCH_ROWS: usize = 65_536;

/// The approximate size [`Dataset::default_batch_rows`] keeps one batch under (64 MiB).
///
/// ```
/// assert_eq!(npyguard::arrow::TARGET_BATCH_BYTES, 64 << 20);
/// ```
pub const TARGET_BATCH_BYTES: usize = 64 << 20;

/// Rows the non-zero scan handles at once (bounds its per-row counters).
const NZ_BLOCK_ROWS: usize = 65_536;

/// Most columns an array may have for `col_no` to be Int16 (Int32 beyond, up to
/// 2³¹ − 1 columns; Int64 after that).
///
/// ```
/// use arrow_schema::DataType;
/// use npyguard::{arrow, NpyArray};
/// let n = arrow::INT16_MAX_COLUMNS + 1;
/// let a = NpyArray::from_vec(vec![1u8; n], vec![1, n]).unwrap().to_array();
/// let nz = arrow::nonzeros(&a).unwrap();
/// assert_eq!(nz.schema().field(1).data_type(), &DataType::Int32);
/// ```
pub const INT16_MAX_COLUMNS: usize = 32_767;

/// How an array becomes a table (see the [module docs](self)).
///
/// ```
/// use npyguard::arrow::Layout;
/// assert_eq!(Layout::NonZeros.name(), "nonzeros");
/// assert_eq!("rowlists".parse::<Layout>().unwrap(), Layout::RowLists);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layout {
    /// One column per NumPy column, `c1..cN` (1-D: one column `c1`).
    Columns,
    /// One column `c1` of `FixedSizeList` rows (2-D only).
    RowLists,
    /// Long form `row_no`, `col_no`, `val` of the non-zero elements, row-major.
    NonZeros,
}

impl Layout {
    /// The layout's name as the CLI spells it: `columns`, `rowlists`, `nonzeros`.
    ///
    /// ```
    /// assert_eq!(npyguard::arrow::Layout::Columns.name(), "columns");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Layout::Columns => "columns",
            Layout::RowLists => "rowlists",
            Layout::NonZeros => "nonzeros",
        }
    }
}

impl std::str::FromStr for Layout {
    type Err = Error;

    /// Parses `columns`, `rowlists` or `nonzeros`.
    ///
    /// ```
    /// use npyguard::arrow::Layout;
    /// assert_eq!("nonzeros".parse::<Layout>().unwrap(), Layout::NonZeros);
    /// assert!("sparse".parse::<Layout>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Layout> {
        match s {
            "columns" => Ok(Layout::Columns),
            "rowlists" => Ok(Layout::RowLists),
            "nonzeros" => Ok(Layout::NonZeros),
            other => Err(Error::unplaced(
                ErrorKind::InvalidInput,
                "a layout: columns, rowlists or nonzeros",
            )
            .found(format!("{other:?}"))),
        }
    }
}

// ---------------------------------------------------------------------------
// Errors and small helpers

fn arrow_err(e: ArrowError) -> Error {
    match e {
        ArrowError::IoError(_, io) => Error::os("cannot write the dataset", io),
        other => Error::unplaced(ErrorKind::Arrow, "a batch the Arrow encoder accepts")
            .found(other.to_string()),
    }
}

/// An internal range that should always be valid; reported instead of panicking.
fn out_of_range() -> Error {
    Error::unplaced(
        ErrorKind::Internal,
        "an element range inside the array (internal invariant)",
    )
}

fn add(a: usize, b: usize) -> Result<usize> {
    a.checked_add(b).ok_or_else(out_of_range)
}

fn mul(a: usize, b: usize) -> Result<usize> {
    a.checked_mul(b).ok_or_else(out_of_range)
}

/// `s[start..start + len]`, or an error.
fn sub<T>(s: &[T], start: usize, len: usize) -> Result<&[T]> {
    s.get(start..add(start, len)?).ok_or_else(out_of_range)
}

fn row_no(r: usize) -> Result<i64> {
    i64::try_from(r).map_err(|_| out_of_range())
}

// ---------------------------------------------------------------------------
// Element types

/// How a datetime/timedelta dtype maps to Arrow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TimeKind {
    Timestamp(Unit),
    Duration(Unit),
    /// Int64 counts with the NumPy type in the field metadata.
    Raw,
}

fn arrow_unit(u: &DateUnit) -> Option<Unit> {
    if u.multiple != 1 {
        return None;
    }
    match u.unit {
        TimeUnit::Second => Some(Unit::Second),
        TimeUnit::Milli => Some(Unit::Millisecond),
        TimeUnit::Micro => Some(Unit::Microsecond),
        TimeUnit::Nano => Some(Unit::Nanosecond),
        _ => None,
    }
}

fn time_kind(dtype: &Dtype) -> TimeKind {
    match dtype {
        Dtype::DateTime(u, _) => arrow_unit(u).map_or(TimeKind::Raw, TimeKind::Timestamp),
        Dtype::TimeDelta(u, _) => arrow_unit(u).map_or(TimeKind::Raw, TimeKind::Duration),
        _ => TimeKind::Raw,
    }
}

fn complex_fields(part: DataType) -> Fields {
    Fields::from(vec![
        Field::new("re", part.clone(), false),
        Field::new("im", part, false),
    ])
}

/// The Arrow type of one element of `dtype`, its nullability and field metadata.
fn value_type(dtype: &Dtype) -> Result<(DataType, bool, HashMap<String, String>)> {
    let plain = |t: DataType| Ok((t, false, HashMap::new()));
    match dtype {
        Dtype::Bool => plain(DataType::Boolean),
        Dtype::I8 => plain(DataType::Int8),
        Dtype::U8 => plain(DataType::UInt8),
        Dtype::I16(_) => plain(DataType::Int16),
        Dtype::I32(_) => plain(DataType::Int32),
        Dtype::I64(_) => plain(DataType::Int64),
        Dtype::U16(_) => plain(DataType::UInt16),
        Dtype::U32(_) => plain(DataType::UInt32),
        Dtype::U64(_) => plain(DataType::UInt64),
        Dtype::F16(_) => plain(DataType::Float16),
        Dtype::F32(_) => plain(DataType::Float32),
        Dtype::F64(_) => plain(DataType::Float64),
        Dtype::C64(_) => plain(DataType::Struct(complex_fields(DataType::Float32))),
        Dtype::C128(_) => plain(DataType::Struct(complex_fields(DataType::Float64))),
        Dtype::Bytes(_) => plain(DataType::Binary),
        Dtype::Unicode(..) => plain(DataType::Utf8),
        Dtype::Void(n) => match i32::try_from(*n) {
            Ok(w) if w > 0 => plain(DataType::FixedSizeBinary(w)),
            _ => Err(Error::unplaced(ErrorKind::UnsupportedDtype, "a void width of 1 to 2^31 - 1 bytes for FixedSizeBinary",
            )
            .found(dtype.typestr())),
        },
        Dtype::DateTime(..) | Dtype::TimeDelta(..) => {
            let t = match time_kind(dtype) {
                TimeKind::Timestamp(u) => DataType::Timestamp(u, None),
                TimeKind::Duration(u) => DataType::Duration(u),
                TimeKind::Raw => {
                    let meta = HashMap::from([("numpy.dtype".to_string(), dtype.typestr())]);
                    return Ok((DataType::Int64, true, meta));
                }
            };
            Ok((t, true, HashMap::new()))
        }
        Dtype::Record(_) => Err(Error::unplaced(ErrorKind::UnsupportedDtype, "a scalar dtype for an Arrow dataset (convert record fields one at a time with Array::field)",
        )
        .found(dtype.typestr())),
    }
}

/// The Arrow type an element of `dtype` becomes (see the [module docs](self)).
///
/// ```
/// use arrow_schema::{DataType, TimeUnit};
/// use npyguard::{arrow::data_type, Dtype};
/// assert_eq!(data_type(&Dtype::from_typestr(">u4").unwrap()).unwrap(), DataType::UInt32);
/// assert_eq!(data_type(&Dtype::from_typestr("<f2").unwrap()).unwrap(), DataType::Float16);
/// assert_eq!(
///     data_type(&Dtype::from_typestr("<M8[ns]").unwrap()).unwrap(),
///     DataType::Timestamp(TimeUnit::Nanosecond, None)
/// );
/// assert_eq!(data_type(&Dtype::from_typestr("<M8[D]").unwrap()).unwrap(), DataType::Int64);
/// assert_eq!(data_type(&Dtype::from_typestr("|S5").unwrap()).unwrap(), DataType::Binary);
/// ```
pub fn data_type(dtype: &Dtype) -> Result<DataType> {
    value_type(dtype).map(|(t, _, _)| t)
}

fn value_field(name: &str, dtype: &Dtype) -> Result<Field> {
    let (t, nullable, meta) = value_type(dtype)?;
    Ok(Field::new(name, t, nullable).with_metadata(meta))
}

// ---------------------------------------------------------------------------
// Arrow arrays from native vectors

fn arc<A: arrow_array::Array + 'static>(a: A) -> ArrayRef {
    Arc::new(a)
}

fn prim_buf<T: ArrowPrimitiveType>(b: ScalarBuffer<T::Native>) -> Result<ArrayRef> {
    PrimitiveArray::<T>::try_new(b, None)
        .map(arc)
        .map_err(arrow_err)
}

fn prim_vec<T: ArrowPrimitiveType>(v: Vec<T::Native>) -> Result<ArrayRef> {
    prim_buf::<T>(ScalarBuffer::from(v))
}

/// NumPy's bool bytes (any non-zero byte is True) as a Boolean array.
fn bool_vec(v: Vec<u8>) -> Result<ArrayRef> {
    Ok(arc(BooleanArray::from_iter(
        v.iter().map(|&b| Some(b != 0)),
    )))
}

/// IEEE binary16 bit patterns as a Float16 array: the same bytes, no copy.
fn f16_buf(b: ScalarBuffer<u16>) -> Result<ArrayRef> {
    let len = b.len();
    let halves =
        ScalarBuffer::<<Float16Type as ArrowPrimitiveType>::Native>::new(b.into_inner(), 0, len);
    prim_buf::<Float16Type>(halves)
}

fn f16_vec(v: Vec<u16>) -> Result<ArrayRef> {
    f16_buf(ScalarBuffer::from(v))
}

fn complex_vec<T: ArrowPrimitiveType>(v: Vec<[T::Native; 2]>) -> Result<ArrayRef> {
    let re: Vec<T::Native> = v.iter().map(|&[re, _]| re).collect();
    let im: Vec<T::Native> = v.iter().map(|&[_, im]| im).collect();
    drop(v);
    let parts = vec![prim_vec::<T>(re)?, prim_vec::<T>(im)?];
    StructArray::try_new(complex_fields(T::DATA_TYPE), parts, None)
        .map(arc)
        .map_err(arrow_err)
}

fn time_buf(b: ScalarBuffer<i64>, kind: TimeKind) -> Result<ArrayRef> {
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

fn offset_i32(n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| {
        Error::unplaced(
            ErrorKind::ShapeOverflow,
            "at most 2 GiB of string data in one batch (use smaller batches)",
        )
    })
}

/// The `i`-th `w`-unit element of fixed-width storage.
fn element<T>(data: &[T], i: usize, w: usize) -> Result<&[T]> {
    sub(data, mul(i, w)?, w)
}

/// Builds S/U/V elements picked by `idx` (`count` of them) into Binary / Utf8 / FixedSizeBinary.
fn fixed_gather(
    view: View<'_>,
    idx: impl Iterator<Item = usize>,
    count: usize,
) -> Result<ArrayRef> {
    match view {
        View::Bytes(data, w) => {
            let mut values = Vec::with_capacity(count.saturating_mul(w));
            let mut offsets = Vec::with_capacity(count.saturating_add(1));
            offsets.push(0i32);
            for i in idx {
                let e = element(data, i, w)?;
                let end = e
                    .iter()
                    .rposition(|&b| b != 0)
                    .map_or(0, |p| p.saturating_add(1));
                values.extend_from_slice(e.get(..end).unwrap_or_default());
                offsets.push(offset_i32(values.len())?);
            }
            let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
            BinaryArray::try_new(offsets, Buffer::from_vec(values), None)
                .map(arc)
                .map_err(arrow_err)
        }
        View::Unicode(chars, w) => {
            let mut values = String::with_capacity(count.saturating_mul(w));
            let mut offsets = Vec::with_capacity(count.saturating_add(1));
            offsets.push(0i32);
            for i in idx {
                let e = element(chars, i, w)?;
                let end = e
                    .iter()
                    .rposition(|&c| c != '\0')
                    .map_or(0, |p| p.saturating_add(1));
                values.extend(e.get(..end).unwrap_or_default());
                offsets.push(offset_i32(values.len())?);
            }
            let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
            StringArray::try_new(offsets, Buffer::from_vec(values.into_bytes()), None)
                .map(arc)
                .map_err(arrow_err)
        }
        View::Void(data, w) => {
            let mut values = Vec::with_capacity(count.saturating_mul(w));
            for i in idx {
                values.extend_from_slice(element(data, i, w)?);
            }
            void_buf(Buffer::from_vec(values), w)
        }
        _ => Err(out_of_range()),
    }
}

fn void_buf(b: Buffer, w: usize) -> Result<ArrayRef> {
    let size = i32::try_from(w)
        .ok()
        .filter(|&s| s > 0)
        .ok_or_else(out_of_range)?;
    FixedSizeBinaryArray::try_new(size, b, None)
        .map(arc)
        .map_err(arrow_err)
}

// ---------------------------------------------------------------------------
// Storage and typed views

/// An array's values in memory order, owned, in Arrow buffers where Arrow's layout is NumPy's.
#[derive(Debug)]
enum Flat {
    Bool(Vec<u8>),
    I8(ScalarBuffer<i8>),
    U8(ScalarBuffer<u8>),
    I16(ScalarBuffer<i16>),
    I32(ScalarBuffer<i32>),
    I64(ScalarBuffer<i64>),
    U16(ScalarBuffer<u16>),
    U32(ScalarBuffer<u32>),
    U64(ScalarBuffer<u64>),
    F16(ScalarBuffer<u16>),
    F32(ScalarBuffer<f32>),
    F64(ScalarBuffer<f64>),
    C64(Vec<[f32; 2]>),
    C128(Vec<[f64; 2]>),
    Time(ScalarBuffer<i64>, TimeKind),
    Bytes(Vec<u8>, usize),
    Unicode(Vec<char>, usize),
    Void(Buffer, usize),
}

/// Borrowed typed values in memory order (from a [`Flat`] or straight from [`ArrayData`]).
#[derive(Debug, Clone, Copy)]
enum View<'a> {
    Bool(&'a [u8]),
    I8(&'a [i8]),
    U8(&'a [u8]),
    I16(&'a [i16]),
    I32(&'a [i32]),
    I64(&'a [i64]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
    F16(&'a [u16]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    C64(&'a [[f32; 2]]),
    C128(&'a [[f64; 2]]),
    Time(&'a [i64], TimeKind),
    Bytes(&'a [u8], usize),
    Unicode(&'a [char], usize),
    Void(&'a [u8], usize),
}

fn width(dtype: &Dtype) -> usize {
    match dtype {
        Dtype::Unicode(n, _) => *n,
        other => other.itemsize(),
    }
}

fn record_refused(dtype: &Dtype) -> Error {
    // value_type reports records (and anything else without an Arrow type) first.
    value_type(dtype).err().unwrap_or_else(out_of_range)
}

impl Flat {
    fn from_data(data: ArrayData, dtype: &Dtype) -> Result<Flat> {
        Ok(match data {
            ArrayData::Bool(v) => Flat::Bool(v),
            ArrayData::I8(v) => Flat::I8(v.into()),
            ArrayData::U8(v) => Flat::U8(v.into()),
            ArrayData::I16(v) => Flat::I16(v.into()),
            ArrayData::I32(v) => Flat::I32(v.into()),
            ArrayData::I64(v) => Flat::I64(v.into()),
            ArrayData::U16(v) => Flat::U16(v.into()),
            ArrayData::U32(v) => Flat::U32(v.into()),
            ArrayData::U64(v) => Flat::U64(v.into()),
            ArrayData::F16(v) => Flat::F16(v.into()),
            ArrayData::F32(v) => Flat::F32(v.into()),
            ArrayData::F64(v) => Flat::F64(v.into()),
            ArrayData::C64(v) => Flat::C64(v),
            ArrayData::C128(v) => Flat::C128(v),
            ArrayData::DateTime(v) | ArrayData::TimeDelta(v) => {
                Flat::Time(v.into(), time_kind(dtype))
            }
            ArrayData::Bytes(v) => Flat::Bytes(v, width(dtype)),
            ArrayData::Unicode(v) => Flat::Unicode(v, width(dtype)),
            ArrayData::Void(v) => Flat::Void(Buffer::from_vec(v), width(dtype)),
            ArrayData::Record(_) => return Err(record_refused(dtype)),
        })
    }

    fn view(&self) -> View<'_> {
        match self {
            Flat::Bool(v) => View::Bool(v),
            Flat::I8(v) => View::I8(v),
            Flat::U8(v) => View::U8(v),
            Flat::I16(v) => View::I16(v),
            Flat::I32(v) => View::I32(v),
            Flat::I64(v) => View::I64(v),
            Flat::U16(v) => View::U16(v),
            Flat::U32(v) => View::U32(v),
            Flat::U64(v) => View::U64(v),
            Flat::F16(v) => View::F16(v),
            Flat::F32(v) => View::F32(v),
            Flat::F64(v) => View::F64(v),
            Flat::C64(v) => View::C64(v),
            Flat::C128(v) => View::C128(v),
            Flat::Time(v, k) => View::Time(v, *k),
            Flat::Bytes(v, w) => View::Bytes(v, *w),
            Flat::Unicode(v, w) => View::Unicode(v, *w),
            Flat::Void(v, w) => View::Void(v.as_slice(), *w),
        }
    }

    /// Elements `start..start + len` in memory order: zero-copy for Arrow-native storage.
    fn contiguous(&self, start: usize, len: usize) -> Result<ArrayRef> {
        fn slice<T: arrow_buffer::ArrowNativeType>(
            b: &ScalarBuffer<T>,
            start: usize,
            len: usize,
        ) -> Result<ScalarBuffer<T>> {
            if add(start, len)? > b.len() {
                return Err(out_of_range());
            }
            Ok(b.slice(start, len))
        }
        match self {
            Flat::I8(b) => prim_buf::<Int8Type>(slice(b, start, len)?),
            Flat::U8(b) => prim_buf::<UInt8Type>(slice(b, start, len)?),
            Flat::I16(b) => prim_buf::<Int16Type>(slice(b, start, len)?),
            Flat::I32(b) => prim_buf::<Int32Type>(slice(b, start, len)?),
            Flat::I64(b) => prim_buf::<Int64Type>(slice(b, start, len)?),
            Flat::U16(b) => prim_buf::<UInt16Type>(slice(b, start, len)?),
            Flat::U32(b) => prim_buf::<UInt32Type>(slice(b, start, len)?),
            Flat::U64(b) => prim_buf::<UInt64Type>(slice(b, start, len)?),
            Flat::F16(b) => f16_buf(slice(b, start, len)?),
            Flat::F32(b) => prim_buf::<Float32Type>(slice(b, start, len)?),
            Flat::F64(b) => prim_buf::<Float64Type>(slice(b, start, len)?),
            Flat::Time(b, k) => time_buf(slice(b, start, len)?, *k),
            Flat::Void(b, w) => {
                let (off, n) = (mul(start, *w)?, mul(len, *w)?);
                if add(off, n)? > b.len() {
                    return Err(out_of_range());
                }
                void_buf(b.slice_with_length(off, n), *w)
            }
            Flat::Bool(_) | Flat::C64(_) | Flat::C128(_) | Flat::Bytes(..) | Flat::Unicode(..) => {
                self.view().copy_range(start, len)
            }
        }
    }
}

/// Runs `$body` with `$s: &[T]`, `$mk: Fn(Vec<T>) -> Result<ArrayRef>` and
/// `$zero: Fn(&T) -> bool` bound for a numeric, bool, complex or time view;
/// evaluates `$fixed` for S, U and V.
macro_rules! typed {
    ($view:expr, |$s:ident, $mk:ident, $zero:ident| $body:expr, fixed => $fixed:expr) => {
        match $view {
            View::Bool($s) => {
                let $mk = bool_vec;
                let $zero = |v: &u8| *v == 0;
                $body
            }
            View::I8($s) => {
                let $mk = prim_vec::<Int8Type>;
                let $zero = |v: &i8| *v == 0;
                $body
            }
            View::U8($s) => {
                let $mk = prim_vec::<UInt8Type>;
                let $zero = |v: &u8| *v == 0;
                $body
            }
            View::I16($s) => {
                let $mk = prim_vec::<Int16Type>;
                let $zero = |v: &i16| *v == 0;
                $body
            }
            View::I32($s) => {
                let $mk = prim_vec::<Int32Type>;
                let $zero = |v: &i32| *v == 0;
                $body
            }
            View::I64($s) => {
                let $mk = prim_vec::<Int64Type>;
                let $zero = |v: &i64| *v == 0;
                $body
            }
            View::U16($s) => {
                let $mk = prim_vec::<UInt16Type>;
                let $zero = |v: &u16| *v == 0;
                $body
            }
            View::U32($s) => {
                let $mk = prim_vec::<UInt32Type>;
                let $zero = |v: &u32| *v == 0;
                $body
            }
            View::U64($s) => {
                let $mk = prim_vec::<UInt64Type>;
                let $zero = |v: &u64| *v == 0;
                $body
            }
            View::F16($s) => {
                let $mk = f16_vec;
                // +0.0 and -0.0 (sign bit ignored); NaN has a non-zero exponent.
                let $zero = |v: &u16| *v & 0x7fff == 0;
                $body
            }
            View::F32($s) => {
                let $mk = prim_vec::<Float32Type>;
                let $zero = |v: &f32| *v == 0.0;
                $body
            }
            View::F64($s) => {
                let $mk = prim_vec::<Float64Type>;
                let $zero = |v: &f64| *v == 0.0;
                $body
            }
            View::C64($s) => {
                let $mk = complex_vec::<Float32Type>;
                let $zero = |&[re, im]: &[f32; 2]| re == 0.0 && im == 0.0;
                $body
            }
            View::C128($s) => {
                let $mk = complex_vec::<Float64Type>;
                let $zero = |&[re, im]: &[f64; 2]| re == 0.0 && im == 0.0;
                $body
            }
            View::Time($s, kind) => {
                let $mk = move |v: Vec<i64>| time_buf(ScalarBuffer::from(v), kind);
                let $zero = |v: &i64| *v == 0;
                $body
            }
            View::Bytes(..) | View::Unicode(..) | View::Void(..) => $fixed,
        }
    };
}

impl<'a> View<'a> {
    fn of(data: &'a ArrayData, dtype: &Dtype) -> Result<View<'a>> {
        Ok(match data {
            ArrayData::Bool(v) => View::Bool(v),
            ArrayData::I8(v) => View::I8(v),
            ArrayData::U8(v) => View::U8(v),
            ArrayData::I16(v) => View::I16(v),
            ArrayData::I32(v) => View::I32(v),
            ArrayData::I64(v) => View::I64(v),
            ArrayData::U16(v) => View::U16(v),
            ArrayData::U32(v) => View::U32(v),
            ArrayData::U64(v) => View::U64(v),
            ArrayData::F16(v) => View::F16(v),
            ArrayData::F32(v) => View::F32(v),
            ArrayData::F64(v) => View::F64(v),
            ArrayData::C64(v) => View::C64(v),
            ArrayData::C128(v) => View::C128(v),
            ArrayData::DateTime(v) | ArrayData::TimeDelta(v) => View::Time(v, time_kind(dtype)),
            ArrayData::Bytes(v) => View::Bytes(v, width(dtype)),
            ArrayData::Unicode(v) => View::Unicode(v, width(dtype)),
            ArrayData::Void(v) => View::Void(v, width(dtype)),
            ArrayData::Record(_) => return Err(record_refused(dtype)),
        })
    }

    /// A copy of elements `start..start + len`.
    fn copy_range(self, start: usize, len: usize) -> Result<ArrayRef> {
        typed!(self, |s, mk, _zero| mk(sub(s, start, len)?.to_vec()),
            fixed => fixed_gather(self, start..add(start, len)?, len))
    }

    /// The columns of C-order rows `r0..r0 + len` (tiled transpose into one shared buffer).
    fn c_block_columns(self, g: Geom, r0: usize, len: usize) -> Result<Vec<ArrayRef>> {
        typed!(self, |s, mk, _zero| {
            // Column c of the block is out[c * len..][..len] = s[(r0 + r) * cols + c].
            let whole = mk(transpose(s, mul(r0, g.cols)?, g.cols, g.cols, len)?)?;
            (0..g.cols)
                .map(|c| Ok(whole.slice(mul(c, len)?, len)))
                .collect()
        }, fixed => (0..g.cols)
            .map(|c| fixed_gather(self, (r0..r0.saturating_add(len)).map(|r| g.index(r, c)), len))
            .collect())
    }

    /// The values of Fortran-order rows `r0..r0 + len` in row-major order.
    fn f_block_rows(self, g: Geom, r0: usize, len: usize) -> Result<ArrayRef> {
        typed!(self, |s, mk, _zero| {
            // Row r of the block is out[r * cols..][..cols] = s[c * rows + r0 + r].
            mk(transpose(s, r0, g.rows, len, g.cols)?)
        }, fixed => {
            let idx = (r0..r0.saturating_add(len))
                .flat_map(|r| (0..g.cols).map(move |c| g.index(r, c)));
            fixed_gather(self, idx, mul(len, g.cols)?)
        })
    }

    /// `row_no`, `col_no`, `val` of the non-zero elements of rows `rows`, row-major.
    fn nonzeros(self, g: Geom, rows: Range<usize>, w: ColWidth) -> Result<[ArrayRef; 3]> {
        typed!(self, |s, mk, zero| match w {
            ColWidth::I16 => nz_arrays::<_, Int16Type>(s, g, rows, zero, mk),
            ColWidth::I32 => nz_arrays::<_, Int32Type>(s, g, rows, zero, mk),
            ColWidth::I64 => nz_arrays::<_, Int64Type>(s, g, rows, zero, mk),
        }, fixed => Err(Error::unplaced(ErrorKind::UnsupportedDtype, "a numeric, bool, complex or datetime dtype for non-zeros",
        )
        .found("a string or void dtype")))
    }

    fn csr(self, g: Geom) -> Result<(Vec<i64>, Vec<i32>, ArrayRef)> {
        typed!(self, |s, mk, zero| {
            let (indptr, indices, vals) = csr_parts(s, g, zero)?;
            Ok((indptr, indices, mk(vals)?))
        }, fixed => Err(Error::unplaced(ErrorKind::UnsupportedDtype, "a numeric, bool, complex or datetime dtype for CSR",
        )
        .found("a string or void dtype")))
    }
}

/// The `n` x `m` matrix `out[i * m + j] = src[off + j * ld + i]`: the strided sub-matrix of
/// `src` whose `m` columns of `n` contiguous elements start `ld` apart at `off`, transposed
/// by the crate's one tiled transpose.
fn transpose<T: Copy + Default>(
    src: &[T],
    off: usize,
    ld: usize,
    n: usize,
    m: usize,
) -> Result<Vec<T>> {
    let mut out = vec![T::default(); mul(n, m)?];
    let from = Strided { off, ld };
    let to = Strided { off: 0, ld: m };
    if !layout::transpose_into(src, from, &mut out, to, (n, m), 1) {
        return Err(out_of_range());
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// Geometry

/// A 0-, 1- or 2-D array seen as `rows` x `cols` in one memory order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Geom {
    rows: usize,
    cols: usize,
    /// Fortran order with more than one row and column (otherwise both orders coincide).
    fortran: bool,
    two_d: bool,
}

impl Geom {
    /// The table geometry of `array`, for every conversion (datasets, non-zeros, CSR). A
    /// zero-size array (shape `(2**40, 0)` or `(0, 2**60)`) has rows or columns that no
    /// byte backs, and each costs a field, an index entry, a loop step or a line of output:
    /// they are bounded here, once ([`Header::check_backed`](crate::Header::check_backed)).
    fn of(array: &Array) -> Result<Geom> {
        let g = Geom::new(array.shape(), array.fortran_order())?;
        array.header().check_backed(g.rows as u64, "table rows")?;
        array
            .header()
            .check_backed(g.cols as u64, "table columns")?;
        Ok(g)
    }

    fn new(shape: &[usize], fortran: bool) -> Result<Geom> {
        match *shape {
            [] => Ok(Geom {
                rows: 1,
                cols: 1,
                fortran: false,
                two_d: false,
            }),
            [n] => Ok(Geom {
                rows: n,
                cols: 1,
                fortran: false,
                two_d: false,
            }),
            [r, c] => Ok(Geom {
                rows: r,
                cols: c,
                fortran: fortran && r > 1 && c > 1,
                two_d: true,
            }),
            _ => Err(
                Error::unplaced(ErrorKind::InvalidInput, "a 0-, 1- or 2-D array for a table")
                    .found(format!("{}-D shape {shape:?}", shape.len())),
            ),
        }
    }

    /// Memory index of element (r, c); callers keep r < rows and c < cols.
    fn index(&self, r: usize, c: usize) -> usize {
        if self.fortran {
            c.saturating_mul(self.rows).saturating_add(r)
        } else {
            r.saturating_mul(self.cols).saturating_add(c)
        }
    }
}

/// The Arrow type of `col_no`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ColWidth {
    I16,
    I32,
    I64,
}

impl ColWidth {
    fn of(cols: usize) -> ColWidth {
        if cols <= INT16_MAX_COLUMNS {
            ColWidth::I16
        } else if i32::try_from(cols).is_ok() {
            ColWidth::I32
        } else {
            ColWidth::I64
        }
    }

    fn data_type(self) -> DataType {
        match self {
            ColWidth::I16 => DataType::Int16,
            ColWidth::I32 => DataType::Int32,
            ColWidth::I64 => DataType::Int64,
        }
    }
}

// ---------------------------------------------------------------------------
// Non-zeros: count, then fill exactly-sized buffers

/// Number of non-zero elements in rows `rows`.
fn nz_count<T>(s: &[T], g: Geom, rows: &Range<usize>, zero: impl Fn(&T) -> bool) -> Result<usize> {
    let len = rows.end.saturating_sub(rows.start);
    if g.fortran {
        let mut n = 0usize;
        for c in 0..g.cols {
            let seg = sub(s, g.index(rows.start, c), len)?;
            n = n.saturating_add(seg.iter().filter(|v| !zero(v)).count());
        }
        Ok(n)
    } else {
        let block = sub(s, mul(rows.start, g.cols)?, mul(len, g.cols)?)?;
        Ok(block.iter().filter(|v| !zero(v)).count())
    }
}

/// Appends the non-zeros of rows `rows` to `cols`/`vals` in row-major order and
/// sets `counts` to the number found in each row.
#[allow(clippy::too_many_arguments)]
fn nz_fill<T: Copy + Default, C: Copy + Default + TryFrom<usize>>(
    s: &[T],
    g: Geom,
    rows: &Range<usize>,
    zero: impl Fn(&T) -> bool,
    counts: &mut Vec<usize>,
    cols: &mut Vec<C>,
    vals: &mut Vec<T>,
) -> Result<()> {
    let col = |c: usize| C::try_from(c).map_err(|_| out_of_range());
    let len = rows.end.saturating_sub(rows.start);
    counts.clear();
    if g.fortran {
        // Pass 1 over the block's column segments: per-row counts.
        counts.resize(len, 0);
        for c in 0..g.cols {
            let seg = sub(s, g.index(rows.start, c), len)?;
            for (n, v) in counts.iter_mut().zip(seg) {
                *n = n.wrapping_add(usize::from(!zero(v)));
            }
        }
        // Each row's first output slot.
        let base = vals.len();
        let mut next = Vec::with_capacity(len);
        let mut at = base;
        for &n in counts.iter() {
            next.push(at);
            at = add(at, n)?;
        }
        vals.resize(at, T::default());
        cols.resize(at, C::default());
        // Pass 2: columns in ascending order, so each row's entries come out sorted.
        for c in 0..g.cols {
            let id = col(c)?;
            let seg = sub(s, g.index(rows.start, c), len)?;
            for (p, v) in next.iter_mut().zip(seg) {
                if !zero(v) {
                    if let (Some(o), Some(k)) = (vals.get_mut(*p), cols.get_mut(*p)) {
                        *o = *v;
                        *k = id;
                    }
                    *p = p.saturating_add(1);
                }
            }
        }
    } else if g.cols == 1 {
        let id = col(0)?;
        for v in sub(s, rows.start, len)? {
            let nz = !zero(v);
            if nz {
                cols.push(id);
                vals.push(*v);
            }
            counts.push(usize::from(nz));
        }
    } else if g.cols == 0 {
        counts.resize(len, 0);
    } else {
        let block = sub(s, mul(rows.start, g.cols)?, mul(len, g.cols)?)?;
        for row in block.chunks_exact(g.cols) {
            let before = vals.len();
            for (c, v) in row.iter().enumerate() {
                if !zero(v) {
                    cols.push(col(c)?);
                    vals.push(*v);
                }
            }
            counts.push(vals.len().saturating_sub(before));
        }
    }
    Ok(())
}

/// Calls `f(block)` for consecutive blocks of at most [`NZ_BLOCK_ROWS`] rows covering `rows`.
fn for_blocks(rows: Range<usize>, mut f: impl FnMut(Range<usize>) -> Result<()>) -> Result<()> {
    let mut r = rows.start;
    while r < rows.end {
        let end = r.saturating_add(NZ_BLOCK_ROWS).min(rows.end);
        f(r..end)?;
        r = end;
    }
    Ok(())
}

/// The non-zero count of `rows` when the output buffers must be sized up front; `None`
/// for Fortran data that [`nz_fill`] handles in one block, which counts each row itself
/// and sizes its buffers exactly (so the array is read twice, not three times).
fn exact_total<T>(
    s: &[T],
    g: Geom,
    rows: &Range<usize>,
    zero: impl Fn(&T) -> bool,
) -> Result<Option<usize>> {
    if g.fortran && rows.end.saturating_sub(rows.start) <= NZ_BLOCK_ROWS {
        return Ok(None);
    }
    nz_count(s, g, rows, zero).map(Some)
}

fn nz_arrays<T: Copy + Default, C: ArrowPrimitiveType>(
    s: &[T],
    g: Geom,
    rows: Range<usize>,
    zero: impl Fn(&T) -> bool + Copy,
    mk: impl Fn(Vec<T>) -> Result<ArrayRef>,
) -> Result<[ArrayRef; 3]>
where
    C::Native: Default + TryFrom<usize>,
{
    let total = exact_total(s, g, &rows, zero)?;
    let cap = total.unwrap_or(0);
    let mut row_nos: Vec<i64> = Vec::with_capacity(cap);
    let mut cols: Vec<C::Native> = Vec::with_capacity(cap);
    let mut vals: Vec<T> = Vec::with_capacity(cap);
    let mut counts = Vec::new();
    for_blocks(rows, |block| {
        nz_fill(s, g, &block, zero, &mut counts, &mut cols, &mut vals)?;
        row_nos.reserve_exact(vals.len().saturating_sub(row_nos.len()));
        for (r, &n) in block.zip(counts.iter()) {
            let r = row_no(r)?;
            row_nos.extend(std::iter::repeat_n(r, n));
        }
        Ok(())
    })?;
    let n = vals.len();
    if row_nos.len() != n || cols.len() != n || total.is_some_and(|t| t != n) {
        return Err(out_of_range());
    }
    Ok([
        prim_vec::<Int64Type>(row_nos)?,
        prim_vec::<C>(cols)?,
        mk(vals)?,
    ])
}

fn csr_parts<T: Copy + Default>(
    s: &[T],
    g: Geom,
    zero: impl Fn(&T) -> bool + Copy,
) -> Result<(Vec<i64>, Vec<i32>, Vec<T>)> {
    let rows = 0..g.rows;
    let total = exact_total(s, g, &rows, zero)?;
    let mut indptr: Vec<i64> = Vec::with_capacity(g.rows.saturating_add(1));
    indptr.push(0);
    let mut indices: Vec<i32> = Vec::with_capacity(total.unwrap_or(0));
    let mut vals: Vec<T> = Vec::with_capacity(total.unwrap_or(0));
    let mut counts = Vec::new();
    let mut end = 0usize;
    for_blocks(rows, |block| {
        nz_fill(s, g, &block, zero, &mut counts, &mut indices, &mut vals)?;
        for &n in counts.iter() {
            end = add(end, n)?;
            indptr.push(row_no(end)?);
        }
        Ok(())
    })?;
    if indices.len() != vals.len() || total.is_some_and(|t| t != vals.len()) {
        return Err(out_of_range());
    }
    Ok((indptr, indices, vals))
}

// ---------------------------------------------------------------------------
// Datasets

/// A NumPy array held for conversion to Arrow record batches in one [`Layout`].
///
/// Built once from an owned [`Array`] (values moved into Arrow buffers without a copy),
/// then cut into batches of input rows by [`batch`](Dataset::batch) or
/// [`batches`](Dataset::batches); the batches of a [`RowLists`](Layout::RowLists) or
/// [`Columns`](Layout::Columns) dataset have one row per input row, those of a
/// [`NonZeros`](Layout::NonZeros) dataset one row per non-zero element of those input rows.
///
/// ```
/// use arrow_array::{cast::AsArray, types::Float32Type};
/// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
/// let a = NpyArray::from_vec(vec![0.0f32, 1.5, 0.0, -0.0, f32::NAN, 2.0], vec![3, 2]).unwrap();
/// let ds = Dataset::new(a.to_array(), Layout::NonZeros).unwrap();
/// assert_eq!(ds.num_input_rows(), 3);
/// let batches: Vec<_> = ds.batches(2).collect::<Result<_, _>>().unwrap();
/// assert_eq!(batches.len(), 2);
/// assert_eq!(batches[0].num_rows(), 1); // 1.5 (-0.0 is zero)
/// assert_eq!(batches[1].num_rows(), 2); // NaN and 2.0
/// let vals = batches[1].column(2).as_primitive::<Float32Type>();
/// assert!(vals.value(0).is_nan());
/// ```
#[derive(Debug)]
pub struct Dataset {
    flat: Flat,
    geom: Geom,
    layout: Layout,
    schema: SchemaRef,
    col_width: ColWidth,
    /// Bytes one input row takes in an output batch, at most (for batch sizing).
    row_bytes: usize,
    /// Bytes of one output row's values (for Parquet row-group sizing).
    out_row_bytes: usize,
}

fn schema_metadata(array: &Array, layout: Layout) -> HashMap<String, String> {
    let shape: Vec<u64> = array.shape().iter().map(|&d| d as u64).collect();
    HashMap::from([
        ("numpy.dtype".to_string(), array.dtype().typestr()),
        (
            "numpy.shape".to_string(),
            crate::format::repr::py_shape(&shape),
        ),
        (
            "numpy.fortran_order".to_string(),
            array.fortran_order().to_string(),
        ),
        ("npyguard.layout".to_string(), layout.name().to_string()),
    ])
}

fn bad_layout(expected: &str, shape: &[usize]) -> Error {
    Error::unplaced(ErrorKind::InvalidInput, expected.to_string()).found(format!("shape {shape:?}"))
}

impl Dataset {
    /// Takes `array` for conversion in `layout`. Refuses arrays of more than 2
    /// dimensions, record dtypes, `V0`; row lists need a 2-D array with at least one
    /// column; non-zeros refuse string and void dtypes. Rows and columns that no payload
    /// byte backs (a zero-size array of shape `(2**40, 0)` or `(0, 2**60)`) are refused
    /// beyond [`MAX_UNBACKED_ITEMS`](crate::limits::MAX_UNBACKED_ITEMS)
    /// ([`ErrorKind::Unbacked`]).
    ///
    /// ```
    /// use npyguard::{arrow::{Dataset, Layout}, ErrorKind, NpyArray};
    /// let a = NpyArray::from_vec(vec![1u8, 2, 3, 4], vec![4]).unwrap().to_array();
    /// assert_eq!(Dataset::new(a.clone(), Layout::Columns).unwrap().schema().fields().len(), 1);
    /// let err = Dataset::new(a, Layout::RowLists).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::InvalidInput);
    /// ```
    pub fn new(array: Array, layout: Layout) -> Result<Dataset> {
        let geom = Geom::of(&array)?;
        // A zero-size array (shape (2**40, 0) or (0, 2**60)) has rows or columns that no
        // byte backs: each costs a field, a batch or a line of output, so bound them.
        array
            .header()
            .check_backed(geom.rows as u64, "table rows")?;
        array
            .header()
            .check_backed(geom.cols as u64, "table columns")?;
        let dtype = array.dtype().clone();
        let item = value_field("item", &dtype)?;
        let col_width = ColWidth::of(geom.cols);
        let fields: Vec<Field> = match layout {
            Layout::Columns => (1..=geom.cols)
                .map(|i| item.clone().with_name(format!("c{i}")))
                .collect(),
            Layout::RowLists => {
                let size = i32::try_from(geom.cols).ok().filter(|&n| n > 0);
                let (true, Some(size)) = (geom.two_d, size) else {
                    return Err(bad_layout(
                        "a 2-D array with 1 to 2^31 - 1 columns for row lists",
                        array.shape(),
                    ));
                };
                vec![Field::new(
                    "c1",
                    DataType::FixedSizeList(Arc::new(item.clone()), size),
                    false,
                )]
            }
            Layout::NonZeros => {
                if matches!(dtype, Dtype::Bytes(_) | Dtype::Unicode(..) | Dtype::Void(_)) {
                    return Err(Error::unplaced(
                        ErrorKind::UnsupportedDtype,
                        "a numeric, bool, complex or datetime dtype for non-zeros",
                    )
                    .found(dtype.typestr()));
                }
                vec![
                    Field::new("row_no", DataType::Int64, false),
                    Field::new("col_no", col_width.data_type(), false),
                    item.clone().with_name("val"),
                ]
            }
        };
        let schema = Arc::new(Schema::new_with_metadata(
            fields,
            schema_metadata(&array, layout),
        ));
        let per = dtype.itemsize().max(1);
        let per = if layout == Layout::NonZeros {
            per.saturating_add(16)
        } else {
            per
        };
        let row_bytes = geom.cols.saturating_mul(per).max(1);
        let out_row_bytes = match layout {
            Layout::NonZeros => dtype.itemsize().saturating_add(16),
            Layout::Columns | Layout::RowLists => row_bytes,
        };
        let (_, data) = array.into_parts();
        let flat = Flat::from_data(data, &dtype)?;
        Ok(Dataset {
            flat,
            geom,
            layout,
            schema,
            col_width,
            row_bytes,
            out_row_bytes,
        })
    }

    /// The layout.
    ///
    /// ```
    /// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
    /// let a = NpyArray::from_vec(vec![1i8], vec![1]).unwrap().to_array();
    /// assert_eq!(Dataset::new(a, Layout::NonZeros).unwrap().layout(), Layout::NonZeros);
    /// ```
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The schema every batch has.
    ///
    /// ```
    /// use arrow_schema::DataType;
    /// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
    /// let a = NpyArray::from_vec(vec![1u16; 6], vec![2, 3]).unwrap().to_array();
    /// let s = Dataset::new(a, Layout::RowLists).unwrap().schema();
    /// assert!(matches!(s.field(0).data_type(), DataType::FixedSizeList(f, 3) if f.data_type() == &DataType::UInt16));
    /// assert_eq!(s.metadata()["numpy.shape"], "(2, 3)");
    /// ```
    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    /// Rows of the NumPy array (elements of a 1-D array; 1 for a 0-d array): the unit of
    /// [`batch`](Dataset::batch) ranges.
    ///
    /// ```
    /// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
    /// let a = NpyArray::from_vec(vec![0i32; 12], vec![4, 3]).unwrap().to_array();
    /// assert_eq!(Dataset::new(a, Layout::Columns).unwrap().num_input_rows(), 4);
    /// ```
    pub fn num_input_rows(&self) -> usize {
        self.geom.rows
    }

    /// Input rows per batch that keep one batch near [`TARGET_BATCH_BYTES`], at most
    /// [`DEFAULT_BATCH_ROWS`] and at least 1.
    ///
    /// ```
    /// use npyguard::{arrow::{Dataset, Layout, DEFAULT_BATCH_ROWS}, NpyArray};
    /// let narrow = NpyArray::from_vec(vec![0f64; 10], vec![10]).unwrap().to_array();
    /// assert_eq!(Dataset::new(narrow, Layout::Columns).unwrap().default_batch_rows(), DEFAULT_BATCH_ROWS);
    /// let wide = NpyArray::from_vec(vec![0f64; 2 << 20], vec![2, 1 << 20]).unwrap().to_array();
    /// assert_eq!(Dataset::new(wide, Layout::Columns).unwrap().default_batch_rows(), 8);
    /// ```
    pub fn default_batch_rows(&self) -> usize {
        TARGET_BATCH_BYTES
            .checked_div(self.row_bytes)
            .unwrap_or(1)
            .clamp(1, DEFAULT_BATCH_ROWS)
    }

    /// The batch for input rows `rows` (clamped to the array).
    ///
    /// ```
    /// use arrow_array::{cast::AsArray, types::Int32Type};
    /// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
    /// let a = NpyArray::from_vec((0..12).collect::<Vec<i32>>(), vec![4, 3]).unwrap().to_array();
    /// let ds = Dataset::new(a, Layout::Columns).unwrap();
    /// let b = ds.batch(1..3).unwrap();
    /// assert_eq!(b.num_rows(), 2);
    /// assert_eq!(b.column(1).as_primitive::<Int32Type>().values(), &[4, 7]);
    /// ```
    pub fn batch(&self, rows: Range<usize>) -> Result<RecordBatch> {
        let g = self.geom;
        let end = rows.end.min(g.rows);
        let start = rows.start.min(end);
        let len = end.saturating_sub(start);
        let columns = match self.layout {
            Layout::Columns => {
                if g.fortran || g.cols == 1 {
                    (0..g.cols)
                        .map(|c| self.flat.contiguous(g.index(start, c), len))
                        .collect::<Result<Vec<_>>>()?
                } else {
                    self.flat.view().c_block_columns(g, start, len)?
                }
            }
            Layout::RowLists => {
                let values = if g.fortran {
                    self.flat.view().f_block_rows(g, start, len)?
                } else {
                    self.flat.contiguous(g.index(start, 0), mul(len, g.cols)?)?
                };
                let Some(DataType::FixedSizeList(item, size)) =
                    self.schema.fields().first().map(|f| f.data_type())
                else {
                    return Err(out_of_range());
                };
                let list = FixedSizeListArray::try_new(FieldRef::clone(item), *size, values, None)
                    .map_err(arrow_err)?;
                vec![arc(list)]
            }
            Layout::NonZeros => {
                Vec::from(self.flat.view().nonzeros(g, start..end, self.col_width)?)
            }
        };
        let n = match (self.layout, columns.first()) {
            (Layout::NonZeros, Some(c)) => c.len(),
            _ => len,
        };
        let opts = RecordBatchOptions::new().with_row_count(Some(n));
        RecordBatch::try_new_with_options(self.schema(), columns, &opts).map_err(arrow_err)
    }

    /// Batches of `rows_per_batch` input rows (0 means [`default_batch_rows`](Dataset::default_batch_rows)),
    /// in order, covering the array. An array with no rows gives one empty batch.
    ///
    /// ```
    /// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
    /// let a = NpyArray::from_vec(vec![1u8; 10], vec![10]).unwrap().to_array();
    /// let ds = Dataset::new(a, Layout::Columns).unwrap();
    /// let sizes: Vec<usize> = ds.batches(4).map(|b| b.unwrap().num_rows()).collect();
    /// assert_eq!(sizes, [4, 4, 2]);
    /// ```
    pub fn batches(&self, rows_per_batch: usize) -> Batches<'_> {
        let step = if rows_per_batch == 0 {
            self.default_batch_rows()
        } else {
            rows_per_batch
        };
        Batches {
            dataset: self,
            next: 0,
            step,
            first: true,
        }
    }

    /// All input rows as one batch.
    ///
    /// ```
    /// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
    /// let a = NpyArray::from_vec(vec![0u64, 5, 0, 7], vec![2, 2]).unwrap().to_array();
    /// assert_eq!(Dataset::new(a, Layout::NonZeros).unwrap().to_record_batch().unwrap().num_rows(), 2);
    /// ```
    pub fn to_record_batch(&self) -> Result<RecordBatch> {
        self.batch(0..self.geom.rows)
    }
}

/// Iterator over a [`Dataset`]'s batches (see [`Dataset::batches`]).
///
/// ```
/// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
/// let a = NpyArray::from_vec(vec![1i64; 5], vec![5]).unwrap().to_array();
/// let ds = Dataset::new(a, Layout::Columns).unwrap();
/// let mut it = ds.batches(3);
/// assert_eq!(it.next_rows(), Some(0..3));
/// assert_eq!(it.next().unwrap().unwrap().num_rows(), 3);
/// ```
#[derive(Debug)]
pub struct Batches<'a> {
    dataset: &'a Dataset,
    next: usize,
    step: usize,
    first: bool,
}

impl Batches<'_> {
    /// The input rows of the batch [`next`](Iterator::next) returns, if any.
    ///
    /// ```
    /// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
    /// let a = NpyArray::from_vec(vec![1i64; 5], vec![5]).unwrap().to_array();
    /// let ds = Dataset::new(a, Layout::Columns).unwrap();
    /// let mut it = ds.batches(3);
    /// it.next();
    /// assert_eq!(it.next_rows(), Some(3..5));
    /// it.next();
    /// assert_eq!(it.next_rows(), None);
    /// ```
    pub fn next_rows(&self) -> Option<Range<usize>> {
        let rows = self.dataset.geom.rows;
        if self.next >= rows && !(self.first && rows == 0) {
            return None;
        }
        Some(self.next..self.next.saturating_add(self.step).min(rows))
    }
}

impl Iterator for Batches<'_> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Result<RecordBatch>> {
        let rows = self.next_rows()?;
        self.first = false;
        self.next = rows.end;
        Some(self.dataset.batch(rows))
    }
}

/// A 0-, 1- or 2-D array as one batch of columns `c1..cN` (see [`Layout::Columns`]).
///
/// ```
/// use arrow_array::cast::AsArray;
/// use npyguard::{arrow, NpyArray};
/// let a = NpyArray::from_vec(vec![true, false, true], vec![3]).unwrap().to_array();
/// let b = arrow::columns(a).unwrap();
/// assert_eq!(b.schema().field(0).name(), "c1");
/// assert!(b.column(0).as_boolean().value(2));
/// ```
pub fn columns(array: Array) -> Result<RecordBatch> {
    Dataset::new(array, Layout::Columns)?.to_record_batch()
}

/// A 2-D array as one batch with a `FixedSizeList` column `c1` (see [`Layout::RowLists`]).
/// For C-order input the list values are the array's buffer, not a copy.
///
/// ```
/// use arrow_array::{cast::AsArray, types::Int32Type};
/// use npyguard::{arrow, NpyArray};
/// let a = NpyArray::from_vec(vec![-5i32, 12, 29, 46, 63, 80], vec![2, 3]).unwrap().to_array();
/// let b = arrow::row_lists(a).unwrap();
/// let rows = b.column(0).as_fixed_size_list();
/// assert_eq!(rows.value(1).as_primitive::<Int32Type>().values(), &[46, 63, 80]);
/// ```
pub fn row_lists(array: Array) -> Result<RecordBatch> {
    Dataset::new(array, Layout::RowLists)?.to_record_batch()
}

/// The non-zero elements of a 0-, 1- or 2-D array as one batch `row_no`, `col_no`, `val`,
/// row-major (see [`Layout::NonZeros`] and the [module docs](self) for what is zero).
/// Reads the array in place: only the output is allocated, at its exact size.
///
/// ```
/// use arrow_array::{cast::AsArray, types::{Int16Type, Int64Type}};
/// use npyguard::{arrow, NpyArray};
/// let a = NpyArray::from_vec(vec![0i8, 3, 0, 0, 0, -1], vec![2, 3]).unwrap().to_array();
/// let b = arrow::nonzeros(&a).unwrap();
/// assert_eq!(b.column(0).as_primitive::<Int64Type>().values(), &[0, 1]);
/// assert_eq!(b.column(1).as_primitive::<Int16Type>().values(), &[1, 2]);
/// ```
pub fn nonzeros(array: &Array) -> Result<RecordBatch> {
    let geom = Geom::of(array)?;
    let w = ColWidth::of(geom.cols);
    let val = value_field("val", array.dtype())?;
    let view = View::of(array.data(), array.dtype())?;
    let columns = Vec::from(view.nonzeros(geom, 0..geom.rows, w)?);
    let fields = vec![
        Field::new("row_no", DataType::Int64, false),
        Field::new("col_no", w.data_type(), false),
        val,
    ];
    let schema = Schema::new_with_metadata(fields, schema_metadata(array, Layout::NonZeros));
    RecordBatch::try_new(Arc::new(schema), columns).map_err(arrow_err)
}

/// A 2-D array in compressed sparse row form: row `r`'s non-zeros are
/// `indices[indptr[r]..indptr[r + 1]]` (column numbers, ascending) and the same range of `data`.
///
/// ```
/// use arrow_array::{cast::AsArray, types::Float64Type};
/// use npyguard::{arrow, NpyArray};
/// let a = NpyArray::from_vec(vec![0.0, 2.0, 0.0, 0.0, 3.0, 4.0], vec![3, 2]).unwrap().to_array();
/// let m = arrow::csr(&a).unwrap();
/// assert_eq!(m.shape, [3, 2]);
/// assert_eq!(m.indptr.values(), &[0, 1, 1, 3]);
/// assert_eq!(m.indices.values(), &[1, 0, 1]);
/// assert_eq!(m.data.as_primitive::<Float64Type>().values(), &[2.0, 3.0, 4.0]);
/// ```
#[derive(Debug, Clone)]
pub struct Csr {
    /// `[rows, columns]` of the dense array.
    pub shape: [usize; 2],
    /// Row start offsets into `indices` and `data`; `rows + 1` entries, the last is the count.
    pub indptr: Int64Array,
    /// Column number of each non-zero.
    pub indices: Int32Array,
    /// Value of each non-zero, with the dtype's Arrow type.
    pub data: ArrayRef,
}

/// The non-zeros of a 2-D array as [`Csr`] (same zero rule and order as [`nonzeros`]).
/// Arrays with more than 2³¹ − 1 columns are refused ([`ErrorKind::ShapeOverflow`]).
///
/// ```
/// use npyguard::{arrow, NpyArray};
/// let a = NpyArray::from_vec(vec![1u8, 0, 0, 1], vec![2, 2]).unwrap().to_array();
/// assert_eq!(arrow::csr(&a).unwrap().indices.values(), &[0, 1]);
/// ```
pub fn csr(array: &Array) -> Result<Csr> {
    let g = Geom::of(array)?;
    if !g.two_d {
        return Err(bad_layout("a 2-D array for CSR", array.shape()));
    }
    if i32::try_from(g.cols).is_err() {
        return Err(Error::unplaced(
            ErrorKind::ShapeOverflow,
            "at most 2^31 - 1 columns for Int32 CSR indices",
        )
        .found(format!("{} columns", g.cols)));
    }
    value_type(array.dtype())?;
    let (indptr, indices, data) = View::of(array.data(), array.dtype())?.csr(g)?;
    Ok(Csr {
        shape: [g.rows, g.cols],
        indptr: Int64Array::new(ScalarBuffer::from(indptr), None),
        indices: Int32Array::new(ScalarBuffer::from(indices), None),
        data,
    })
}

// ---------------------------------------------------------------------------
// Writers

/// What a dataset writer wrote.
///
/// ```
/// let s = npyguard::arrow::WriteStats::default();
/// assert_eq!((s.input_rows, s.rows, s.batches), (0, 0, 0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WriteStats {
    /// Input (NumPy) rows converted.
    pub input_rows: usize,
    /// Table rows written.
    pub rows: usize,
    /// Batches produced.
    pub batches: usize,
}

/// Runs `sink` on each batch of `ds`, reporting input rows done to `progress`.
fn drive(
    ds: &Dataset,
    rows_per_batch: usize,
    mut progress: impl FnMut(usize),
    mut sink: impl FnMut(&RecordBatch) -> Result<()>,
) -> Result<WriteStats> {
    let mut stats = WriteStats::default();
    let mut it = ds.batches(rows_per_batch);
    while let Some(rows) = it.next_rows() {
        let Some(batch) = it.next() else { break };
        let batch = batch?;
        sink(&batch)?;
        stats.input_rows = rows.end;
        stats.rows = stats.rows.saturating_add(batch.num_rows());
        stats.batches = stats.batches.saturating_add(1);
        progress(rows.end);
    }
    Ok(stats)
}

/// Writes `ds` as an Arrow IPC file (the random-access "Feather v2" format), batch by batch.
/// `rows_per_batch` 0 means [`Dataset::default_batch_rows`]; `progress` is called with the
/// input rows done after each batch.
///
/// ```
/// use npyguard::{arrow::{self, Dataset, Layout}, NpyArray};
/// let a = NpyArray::from_vec(vec![1.5f32, 0.0, 2.5], vec![3]).unwrap().to_array();
/// let ds = Dataset::new(a, Layout::Columns).unwrap();
/// let mut out = Vec::new();
/// let stats = arrow::write_ipc(&ds, &mut out, 2, |_| {}).unwrap();
/// assert_eq!((stats.rows, stats.batches), (3, 2));
/// assert!(out.starts_with(b"ARROW1"));
/// ```
pub fn write_ipc<W: Write>(
    ds: &Dataset,
    out: W,
    rows_per_batch: usize,
    progress: impl FnMut(usize),
) -> Result<WriteStats> {
    let mut w = arrow_ipc::writer::FileWriter::try_new(out, &ds.schema()).map_err(arrow_err)?;
    let stats = drive(ds, rows_per_batch, progress, |b| {
        if b.num_rows() > 0 {
            w.write(b).map_err(arrow_err)?;
        }
        Ok(())
    })?;
    w.finish().map_err(arrow_err)?;
    Ok(stats)
}

/// The batch with each struct column (complex numbers) replaced by its fields, named
/// `<column>_<field>` (`c1_re`, `c1_im`); list columns are refused.
fn csv_flat(batch: &RecordBatch) -> Result<RecordBatch> {
    let mut fields = Vec::new();
    let mut columns = Vec::new();
    for (f, c) in batch.schema().fields().iter().zip(batch.columns()) {
        match f.data_type() {
            DataType::Struct(parts) => {
                let s = c
                    .as_any()
                    .downcast_ref::<StructArray>()
                    .ok_or_else(out_of_range)?;
                for (p, col) in parts.iter().zip(s.columns()) {
                    fields.push(
                        p.as_ref()
                            .clone()
                            .with_name(format!("{}_{}", f.name(), p.name())),
                    );
                    columns.push(Arc::clone(col));
                }
            }
            DataType::FixedSizeList(..) => {
                return Err(Error::unplaced(
                    ErrorKind::InvalidInput,
                    "a layout without lists for CSV (columns or nonzeros)",
                )
                .found("row lists"))
            }
            _ => {
                fields.push(f.as_ref().clone());
                columns.push(Arc::clone(c));
            }
        }
    }
    let schema = Schema::new_with_metadata(fields, batch.schema().metadata().clone());
    let opts = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    RecordBatch::try_new_with_options(Arc::new(schema), columns, &opts).map_err(arrow_err)
}

/// Writes `ds` as CSV with a header line (via `arrow-csv`): complex columns become two
/// columns `cN_re`, `cN_im`; binary values are written as hex, NaT as an empty field;
/// row lists are refused. Arguments as for [`write_ipc`].
///
/// ```
/// use npyguard::{arrow::{self, Dataset, Layout}, NpyArray};
/// let a = NpyArray::from_vec(vec![0i16, 7, 0, -2], vec![2, 2]).unwrap().to_array();
/// let ds = Dataset::new(a, Layout::NonZeros).unwrap();
/// let mut out = Vec::new();
/// arrow::write_csv(&ds, &mut out, 0, |_| {}).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap(), "row_no,col_no,val\n0,1,7\n1,1,-2\n");
/// ```
pub fn write_csv<W: Write>(
    ds: &Dataset,
    out: W,
    rows_per_batch: usize,
    progress: impl FnMut(usize),
) -> Result<WriteStats> {
    if ds.layout == Layout::RowLists {
        return Err(Error::unplaced(
            ErrorKind::InvalidInput,
            "a layout without lists for CSV (columns or nonzeros)",
        )
        .found("rowlists"));
    }
    let mut w = arrow_csv::WriterBuilder::new().with_header(true).build(out);
    let mut wrote_any = false;
    let stats = drive(ds, rows_per_batch, progress, |b| {
        if b.num_rows() > 0 || !wrote_any {
            w.write(&csv_flat(b)?).map_err(arrow_err)?;
            wrote_any = true;
        }
        Ok(())
    })?;
    Ok(stats)
}

/// Parquet options for [`write_parquet`].
///
/// The writer's memory beyond the input array and the batch being written is about one
/// row group: its encoded pages plus, with dictionary encoding, 8 bytes per value not yet
/// in a page. Row groups are therefore closed by size (`max_row_group_bytes` of input
/// values), not only by rows, and pages hold at most `data_page_rows` rows.
///
/// ```
/// let o = npyguard::arrow::ParquetOptions::default();
/// assert_eq!(o.max_row_group_rows, 1 << 20);
/// assert_eq!(o.max_row_group_bytes, 64 << 20);
/// ```
#[cfg(feature = "parquet")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParquetOptions {
    /// Most rows in one row group.
    pub max_row_group_rows: usize,
    /// Most bytes of input values in one row group (a 2 000-column `f4` array gets
    /// 8 388 rows per group at 64 MiB); also the cap on the writer's buffered size.
    pub max_row_group_bytes: usize,
    /// Most rows in one data page.
    pub data_page_rows: usize,
}

#[cfg(feature = "parquet")]
impl Default for ParquetOptions {
    fn default() -> ParquetOptions {
        ParquetOptions {
            max_row_group_rows: 1 << 20,
            max_row_group_bytes: 64 << 20,
            data_page_rows: 8192,
        }
    }
}

#[cfg(feature = "parquet")]
fn parquet_err(e: parquet::errors::ParquetError) -> Error {
    Error::unplaced(ErrorKind::Arrow, "a batch the Parquet writer accepts").found(e.to_string())
}

/// Writes `ds` as a Parquet file (snappy-compressed; the Arrow schema with its
/// metadata is embedded, so unsigned, Float16, timestamp and list types read back as
/// written). Arguments as for [`write_ipc`]. Feature `parquet`.
///
/// ```
/// use npyguard::{arrow::{self, Dataset, Layout, ParquetOptions}, NpyArray};
/// let a = NpyArray::from_vec(vec![7u32, 0, 9, 0], vec![2, 2]).unwrap().to_array();
/// let ds = Dataset::new(a, Layout::Columns).unwrap();
/// let mut out = Vec::new();
/// let stats = arrow::write_parquet(&ds, &mut out, 0, &ParquetOptions::default(), |_| {}).unwrap();
/// assert_eq!(stats.rows, 2);
/// assert!(out.starts_with(b"PAR1") && out.ends_with(b"PAR1"));
/// ```
#[cfg(feature = "parquet")]
pub fn write_parquet<W: Write + Send>(
    ds: &Dataset,
    out: W,
    rows_per_batch: usize,
    opts: &ParquetOptions,
    progress: impl FnMut(usize),
) -> Result<WriteStats> {
    use parquet::arrow::ArrowWriter;
    use parquet::basic::Compression;
    use parquet::file::properties::WriterProperties;

    // Output rows whose values fit max_row_group_bytes.
    let group_rows = opts
        .max_row_group_bytes
        .checked_div(ds.out_row_bytes.max(1))
        .unwrap_or(1)
        .clamp(1, opts.max_row_group_rows.max(1));
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_size(group_rows)
        .set_data_page_row_count_limit(opts.data_page_rows.max(1))
        .build();
    let mut w = ArrowWriter::try_new(out, ds.schema(), Some(props)).map_err(parquet_err)?;
    let stats = drive(ds, rows_per_batch, progress, |b| {
        if b.num_rows() > 0 {
            w.write(b).map_err(parquet_err)?;
            if w.in_progress_size() >= opts.max_row_group_bytes {
                w.flush().map_err(parquet_err)?;
            }
        }
        Ok(())
    })?;
    w.close().map_err(parquet_err)?;
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Endian, NpyArray};
    use arrow_array::cast::AsArray;

    #[test]
    fn fortran_columns_share_one_buffer() {
        let a =
            NpyArray::from_vec_with(vec![1i32, 4, 2, 5, 3, 6], vec![2, 3], true, Endian::Little)
                .unwrap()
                .to_array();
        let b = columns(a).unwrap();
        let c0 = b.column(0).as_primitive::<Int32Type>();
        let c2 = b.column(2).as_primitive::<Int32Type>();
        assert_eq!(c0.values(), &[1, 4]);
        assert_eq!(c2.values(), &[3, 6]);
        // Same allocation: the columns are slices of one buffer.
        let base0 = c0.values().inner().as_ptr() as usize;
        let base2 = c2.values().inner().as_ptr() as usize;
        assert_eq!(base2 - base0, 16);
    }

    #[test]
    fn transpose_matches_naive() {
        for (rows, cols) in [(1, 1), (3, 5), (33, 70), (64, 1), (1, 65), (100, 37)] {
            let s: Vec<u32> = (0..rows * cols).map(|x| x as u32).collect();
            // F-order rows r0..r0+len of a rows x cols matrix, as C order.
            for (r0, len) in [(0, rows), (rows / 3, rows - rows / 3)] {
                let got = transpose(&s, r0, rows, len, cols).unwrap();
                let want: Vec<u32> = (r0..r0 + len)
                    .flat_map(|r| (0..cols).map(move |c| (c * rows + r) as u32))
                    .collect();
                assert_eq!(got, want, "{rows}x{cols} from {r0}");
            }
        }
        assert!(transpose(&[1u8, 2, 3], 1, 2, 2, 2).is_err());
    }

    #[test]
    fn c_rowlists_are_the_data() {
        let a = NpyArray::from_vec(vec![1u16, 2, 3, 4, 5, 6], vec![3, 2]).unwrap();
        let ds = Dataset::new(a.to_array(), Layout::RowLists).unwrap();
        let b = ds.batch(1..3).unwrap();
        let l = b.column(0).as_fixed_size_list();
        assert_eq!(l.len(), 2);
        assert_eq!(l.value(0).as_primitive::<UInt16Type>().values(), &[3, 4]);
    }

    #[test]
    fn fortran_nonzeros_are_row_major() {
        // [[0, 1, 2], [3, 0, 5]] in F order.
        let a = NpyArray::from_vec_with(vec![0u8, 3, 1, 0, 2, 5], vec![2, 3], true, Endian::Little)
            .unwrap()
            .to_array();
        let b = nonzeros(&a).unwrap();
        assert_eq!(
            b.column(0).as_primitive::<Int64Type>().values(),
            &[0, 0, 1, 1]
        );
        assert_eq!(
            b.column(1).as_primitive::<Int16Type>().values(),
            &[1, 2, 0, 2]
        );
        assert_eq!(
            b.column(2).as_primitive::<UInt8Type>().values(),
            &[1, 2, 3, 5]
        );
    }
}
