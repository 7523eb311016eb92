//! Arrow data types for NumPy dtypes (complex as structs, datetimes as timestamps/durations, f2 as Float16).

use std::collections::HashMap;

use arrow_schema::{DataType, Field, Fields, TimeUnit as Unit};

use crate::arrow::support::out_of_range;
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

/// How an array's stored units become Arrow values, decided once per dtype: the
/// [`Cell`](crate::arrow::cells::Cell) of the family's unit type reads it where several
/// families share a unit type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Integers and `f4`/`f8`: Arrow's primitive of the same width.
    Native,
    /// `b1` bytes as Boolean.
    Bool,
    /// `f2` bit patterns as Float16.
    F16,
    /// `c8`/`c16` pairs as `Struct{re, im}`.
    Complex,
    /// `M8`/`m8` counts.
    Time(TimeKind),
    /// `S<w>`: `w` bytes per element, as Binary.
    Bytes(usize),
    /// `U<w>`: `w` characters per element, as Utf8.
    Unicode(usize),
    /// `V<w>`: `w` bytes per element, as FixedSizeBinary.
    Void(usize),
}

impl Kind {
    /// The kind of `dtype`; refuses what has no Arrow type ([`value_type`]'s errors).
    pub(super) fn of(dtype: &Dtype) -> Result<Kind> {
        value_type(dtype)?;
        Ok(match dtype {
            Dtype::I8
            | Dtype::U8
            | Dtype::I16(_)
            | Dtype::I32(_)
            | Dtype::I64(_)
            | Dtype::U16(_)
            | Dtype::U32(_)
            | Dtype::U64(_)
            | Dtype::F32(_)
            | Dtype::F64(_) => Kind::Native,
            Dtype::Bool => Kind::Bool,
            Dtype::F16(_) => Kind::F16,
            Dtype::C64(_) | Dtype::C128(_) => Kind::Complex,
            Dtype::DateTime(..) | Dtype::TimeDelta(..) => Kind::Time(time_kind(dtype)),
            Dtype::Bytes(w) => Kind::Bytes(*w),
            Dtype::Unicode(w, _) => Kind::Unicode(*w),
            Dtype::Void(w) => Kind::Void(*w),
            Dtype::Record(_) | Dtype::LongDouble(_) | Dtype::CLongDouble(_) => {
                return Err(out_of_range())
            }
        })
    }

    /// Stored units per element (the width of `S`, `U` and `V`; 1 otherwise).
    pub(super) fn width(self) -> usize {
        match self {
            Kind::Bytes(w) | Kind::Unicode(w) | Kind::Void(w) => w,
            _ => 1,
        }
    }

    /// Refuses string and void kinds, which have no zero, for `what` (non-zeros, CSR).
    pub(super) fn numeric(self, what: &str) -> Result<Kind> {
        match self {
            Kind::Bytes(_) | Kind::Unicode(_) | Kind::Void(_) => Err(Error::unplaced(
                ErrorKind::UnsupportedDtype,
                format!("a numeric, bool, complex or datetime dtype for {what}"),
            )
            .found("a string or void dtype")),
            other => Ok(other),
        }
    }
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
        Dtype::LongDouble(_) | Dtype::CLongDouble(_) => Err(Error::unplaced(
            ErrorKind::UnsupportedDtype,
            "a dtype Arrow can hold (Arrow, Parquet and CSV have no long double; f16 and c32 \
             would have to be rounded to f64)",
        )
        .found(dtype.typestr())),
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
