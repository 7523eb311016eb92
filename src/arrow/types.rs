//! Arrow data types for NumPy dtypes (complex as structs, datetimes as timestamps/durations, f2 as Float16).

use std::collections::HashMap;

use arrow_schema::{DataType, Field, Fields, TimeUnit as Unit};

use crate::error::{Error, ErrorKind, Result};
use crate::format::dtype::{DateUnit, Dtype, TimeUnit};

/// How a datetime/timedelta dtype maps to Arrow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TimeKind {
    Timestamp(Unit),
    Duration(Unit),
    /// Int64 counts with the NumPy type in the field metadata.
    Raw,
}

pub(super) fn arrow_unit(u: &DateUnit) -> Option<Unit> {
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

pub(super) fn time_kind(dtype: &Dtype) -> TimeKind {
    match dtype {
        Dtype::DateTime(u, _) => arrow_unit(u).map_or(TimeKind::Raw, TimeKind::Timestamp),
        Dtype::TimeDelta(u, _) => arrow_unit(u).map_or(TimeKind::Raw, TimeKind::Duration),
        _ => TimeKind::Raw,
    }
}

pub(super) fn complex_fields(part: DataType) -> Fields {
    Fields::from(vec![
        Field::new("re", part.clone(), false),
        Field::new("im", part, false),
    ])
}

/// The Arrow type of one element of `dtype`, its nullability and field metadata.
pub(super) fn value_type(dtype: &Dtype) -> Result<(DataType, bool, HashMap<String, String>)> {
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

/// The Arrow type an element of `dtype` becomes (see the [module docs](crate::arrow)).
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

pub(super) fn value_field(name: &str, dtype: &Dtype) -> Result<Field> {
    let (t, nullable, meta) = value_type(dtype)?;
    Ok(Field::new(name, t, nullable).with_metadata(meta))
}
