//! Element types: the validated meaning of a header's `descr`.
//!
//! A [`Dtype`] is either a scalar type with an explicit byte order or a
//! [`Record`] of named fields. Constructing one from a descr checks every
//! size with checked arithmetic; a `Dtype` that exists has an item size that
//! fits in `usize`.
//!
//! ```
//! use npyguard::{Dtype, Endian};
//! let d = Dtype::from_typestr("<f8").unwrap();
//! assert_eq!(d, Dtype::F64(Endian::Little));
//! assert_eq!(d.itemsize(), 8);
//! assert_eq!(d.descr().to_string(), "'<f8'");
//! ```

use nom::bytes::complete::{tag, take_while, take_while1};
use nom::{IResult, Parser};

use crate::error::{Error, ErrorKind, Result};
use crate::format::literal::{Int, Literal, Value};
use crate::limits::{C_INT_MAX, MAX_DIMS, MAX_FIELDS, MAX_RECORD_DEPTH};

/// Byte order of a multi-byte element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endian {
    /// Least significant byte first (`<`).
    Little,
    /// Most significant byte first (`>`).
    Big,
}

impl Endian {
    /// The order of the machine running this code (what `=` means in a descr).
    pub const HOST: Endian = if cfg!(target_endian = "big") {
        Endian::Big
    } else {
        Endian::Little
    };

    /// The descr prefix character: `<` or `>`.
    pub fn prefix(self) -> char {
        match self {
            Endian::Little => '<',
            Endian::Big => '>',
        }
    }
}

/// Unit of a `datetime64` / `timedelta64` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    /// No unit (`<M8`, `<M8[generic]`).
    Generic,
    /// Years.
    Year,
    /// Months.
    Month,
    /// Weeks.
    Week,
    /// Days.
    Day,
    /// Hours.
    Hour,
    /// Minutes.
    Minute,
    /// Seconds.
    Second,
    /// Milliseconds.
    Milli,
    /// Microseconds.
    Micro,
    /// Nanoseconds.
    Nano,
    /// Picoseconds.
    Pico,
    /// Femtoseconds.
    Femto,
    /// Attoseconds.
    Atto,
}

impl TimeUnit {
    /// The unit's code as NumPy writes it (`ns`, `D`, …; `generic` for none).
    pub fn code(self) -> &'static str {
        match self {
            TimeUnit::Generic => "generic",
            TimeUnit::Year => "Y",
            TimeUnit::Month => "M",
            TimeUnit::Week => "W",
            TimeUnit::Day => "D",
            TimeUnit::Hour => "h",
            TimeUnit::Minute => "m",
            TimeUnit::Second => "s",
            TimeUnit::Milli => "ms",
            TimeUnit::Micro => "us",
            TimeUnit::Nano => "ns",
            TimeUnit::Pico => "ps",
            TimeUnit::Femto => "fs",
            TimeUnit::Atto => "as",
        }
    }

    fn from_code(code: &[u8]) -> Option<TimeUnit> {
        Some(match code {
            b"generic" => TimeUnit::Generic,
            b"Y" => TimeUnit::Year,
            b"M" => TimeUnit::Month,
            b"W" => TimeUnit::Week,
            b"D" => TimeUnit::Day,
            b"h" => TimeUnit::Hour,
            b"m" => TimeUnit::Minute,
            b"s" => TimeUnit::Second,
            b"ms" => TimeUnit::Milli,
            b"us" => TimeUnit::Micro,
            b"ns" => TimeUnit::Nano,
            b"ps" => TimeUnit::Pico,
            b"fs" => TimeUnit::Femto,
            b"as" => TimeUnit::Atto,
            _ => return None,
        })
    }
}

/// A datetime/timedelta unit with its multiple, e.g. `[25s]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DateUnit {
    /// The base unit.
    pub unit: TimeUnit,
    /// The multiple (1 unless written, e.g. 25 in `[25s]`).
    pub multiple: u32,
}

impl std::fmt::Display for DateUnit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.unit, self.multiple) {
            (TimeUnit::Generic, _) => Ok(()),
            (u, 1) => write!(f, "[{}]", u.code()),
            (u, m) => write!(f, "[{m}{}]", u.code()),
        }
    }
}

/// A field of a structured (record) dtype.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Field {
    /// Field name (never empty: `''` padding fields become gaps between offsets).
    pub name: String,
    /// Optional title (`(title, name)` in the descr).
    pub title: Option<String>,
    /// Element type of the field.
    pub dtype: Dtype,
    /// Subarray shape (`[]` for a scalar field).
    pub shape: Vec<usize>,
    /// Byte offset of the field inside one record.
    pub offset: usize,
}

impl Field {
    /// Bytes the field occupies in one record: itemsize × product of its subarray shape.
    pub fn size(&self) -> usize {
        // Checked when the record was built.
        self.shape
            .iter()
            .fold(self.dtype.itemsize(), |acc, &d| acc.saturating_mul(d))
    }

    /// Number of elements of the field in one record (product of the subarray shape).
    pub fn count(&self) -> usize {
        self.shape
            .iter()
            .fold(1usize, |acc, &d| acc.saturating_mul(d))
    }
}

/// A structured dtype: fields at offsets, with padding as gaps.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Record {
    /// Named fields in descr order.
    pub fields: Vec<Field>,
    /// Size of one record in bytes, padding included.
    pub itemsize: usize,
}

impl Record {
    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// The element type of an array.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dtype {
    /// `b1`: one byte, non-zero is true.
    Bool,
    /// `i1`.
    I8,
    /// `u1`.
    U8,
    /// `i2`.
    I16(Endian),
    /// `i4`.
    I32(Endian),
    /// `i8`.
    I64(Endian),
    /// `u2`.
    U16(Endian),
    /// `u4`.
    U32(Endian),
    /// `u8`.
    U64(Endian),
    /// `f2` (IEEE half precision).
    F16(Endian),
    /// `f4`.
    F32(Endian),
    /// `f8`.
    F64(Endian),
    /// `c8`: two `f4`, real then imaginary.
    C64(Endian),
    /// `c16`: two `f8`, real then imaginary.
    C128(Endian),
    /// `S<n>`: fixed-length bytes, NUL padded.
    Bytes(usize),
    /// `U<n>`: fixed-length string of `n` UTF-32 code units.
    Unicode(usize, Endian),
    /// `V<n>`: raw bytes.
    Void(usize),
    /// `M8[unit]`: datetime64 as i64 counts of the unit.
    DateTime(DateUnit, Endian),
    /// `m8[unit]`: timedelta64 as i64 counts of the unit.
    TimeDelta(DateUnit, Endian),
    /// A structured dtype.
    Record(Record),
}

impl Dtype {
    /// Size of one element in bytes.
    pub fn itemsize(&self) -> usize {
        match self {
            Dtype::Bool | Dtype::I8 | Dtype::U8 => 1,
            Dtype::I16(_) | Dtype::U16(_) | Dtype::F16(_) => 2,
            Dtype::I32(_) | Dtype::U32(_) | Dtype::F32(_) => 4,
            Dtype::I64(_) | Dtype::U64(_) | Dtype::F64(_) | Dtype::C64(_) => 8,
            Dtype::DateTime(..) | Dtype::TimeDelta(..) => 8,
            Dtype::C128(_) => 16,
            Dtype::Bytes(n) | Dtype::Void(n) => *n,
            // Checked at construction: n * 4 fits.
            Dtype::Unicode(n, _) => n.saturating_mul(4),
            Dtype::Record(r) => r.itemsize,
        }
    }

    /// The byte order, for types where it matters.
    pub fn endian(&self) -> Option<Endian> {
        match self {
            Dtype::I16(e)
            | Dtype::I32(e)
            | Dtype::I64(e)
            | Dtype::U16(e)
            | Dtype::U32(e)
            | Dtype::U64(e)
            | Dtype::F16(e)
            | Dtype::F32(e)
            | Dtype::F64(e)
            | Dtype::C64(e)
            | Dtype::C128(e)
            | Dtype::Unicode(_, e)
            | Dtype::DateTime(_, e)
            | Dtype::TimeDelta(_, e) => Some(*e),
            Dtype::Bool
            | Dtype::I8
            | Dtype::U8
            | Dtype::Bytes(_)
            | Dtype::Void(_)
            | Dtype::Record(_) => None,
        }
    }

    /// The same type with byte order `e` (records and 1-byte types are unchanged).
    #[must_use]
    pub fn with_endian(&self, e: Endian) -> Dtype {
        match self {
            Dtype::I16(_) => Dtype::I16(e),
            Dtype::I32(_) => Dtype::I32(e),
            Dtype::I64(_) => Dtype::I64(e),
            Dtype::U16(_) => Dtype::U16(e),
            Dtype::U32(_) => Dtype::U32(e),
            Dtype::U64(_) => Dtype::U64(e),
            Dtype::F16(_) => Dtype::F16(e),
            Dtype::F32(_) => Dtype::F32(e),
            Dtype::F64(_) => Dtype::F64(e),
            Dtype::C64(_) => Dtype::C64(e),
            Dtype::C128(_) => Dtype::C128(e),
            Dtype::Unicode(n, _) => Dtype::Unicode(*n, e),
            Dtype::DateTime(u, _) => Dtype::DateTime(*u, e),
            Dtype::TimeDelta(u, _) => Dtype::TimeDelta(*u, e),
            other => other.clone(),
        }
    }

    /// The type string NumPy writes for a non-record type (`'<f8'`, `'|S5'`, `'<M8[ns]'`).
    ///
    /// For a record this returns `"|V<itemsize>"`, as NumPy's `dtype.str` does.
    pub fn typestr(&self) -> String {
        let order = match self.endian() {
            Some(e) => e.prefix(),
            None => '|',
        };
        let code = match self {
            Dtype::Bool => "b1".to_string(),
            Dtype::I8 => "i1".to_string(),
            Dtype::U8 => "u1".to_string(),
            Dtype::I16(_) => "i2".to_string(),
            Dtype::I32(_) => "i4".to_string(),
            Dtype::I64(_) => "i8".to_string(),
            Dtype::U16(_) => "u2".to_string(),
            Dtype::U32(_) => "u4".to_string(),
            Dtype::U64(_) => "u8".to_string(),
            Dtype::F16(_) => "f2".to_string(),
            Dtype::F32(_) => "f4".to_string(),
            Dtype::F64(_) => "f8".to_string(),
            Dtype::C64(_) => "c8".to_string(),
            Dtype::C128(_) => "c16".to_string(),
            Dtype::Bytes(n) => format!("S{n}"),
            Dtype::Unicode(n, _) => format!("U{n}"),
            Dtype::Void(n) => format!("V{n}"),
            Dtype::DateTime(u, _) => format!("M8{u}"),
            Dtype::TimeDelta(u, _) => format!("m8{u}"),
            Dtype::Record(r) => format!("V{}", r.itemsize),
        };
        format!("{order}{code}")
    }

    /// The descr as NumPy's `dtype_to_descr` would write it: a string, or for
    /// records a list of `(name, descr[, shape])` tuples with `('', '|Vn')` for padding.
    pub fn descr(&self) -> Literal {
        match self {
            Dtype::Record(r) => record_descr(r),
            other => Literal::new(Value::Str(other.typestr())),
        }
    }

    /// Parses a type string such as `<f8` or `|S10` (the `typestr` rule).
    pub fn from_typestr(s: &str) -> Result<Dtype> {
        typestr(s)
    }

    /// Validates a descr value from a header: a type string or a list of fields.
    pub fn from_descr(lit: &Literal) -> Result<Dtype> {
        descr_value(lit, 0)
    }
}

fn record_descr(r: &Record) -> Literal {
    let mut items = Vec::with_capacity(r.fields.len());
    let mut cursor = 0usize;
    let pad = |n: usize| {
        Literal::new(Value::Tuple(vec![
            Literal::new(Value::Str(String::new())),
            Literal::new(Value::Str(format!("|V{n}"))),
        ]))
    };
    for f in &r.fields {
        if f.offset > cursor {
            items.push(pad(f.offset.saturating_sub(cursor)));
        }
        let name = match &f.title {
            Some(t) => Literal::new(Value::Tuple(vec![
                Literal::new(Value::Str(t.clone())),
                Literal::new(Value::Str(f.name.clone())),
            ])),
            None => Literal::new(Value::Str(f.name.clone())),
        };
        let mut t = vec![name, f.dtype.descr()];
        if !f.shape.is_empty() {
            t.push(Literal::new(Value::Tuple(
                f.shape
                    .iter()
                    .map(|&d| Literal::new(Value::Int(Int::Small(d as u64))))
                    .collect(),
            )));
        }
        items.push(Literal::new(Value::Tuple(t)));
        cursor = f.offset.saturating_add(f.size());
    }
    if r.itemsize > cursor {
        items.push(pad(r.itemsize.saturating_sub(cursor)));
    }
    Literal::new(Value::List(items))
}

// ------------------------------------------------------------------ typestr

type TResult<'a, T> = IResult<&'a [u8], T, nom::error::Error<&'a [u8]>>;

fn bad_descr(expected: impl Into<String>, found: &str) -> Error {
    Error::new(ErrorKind::BadDescr, 0, expected).found(format!("{found:?}"))
}

/// ```abnf
/// count           = nonzero-digit *DIGIT
/// ```
fn count(i: &[u8]) -> TResult<'_, &[u8]> {
    let (rest, digits) = take_while1(|b: u8| b.is_ascii_digit()).parse(i)?;
    if digits.first() == Some(&b'0') {
        return Err(nom::Err::Error(nom::error::Error::new(
            i,
            nom::error::ErrorKind::Digit,
        )));
    }
    Ok((rest, digits))
}

fn count_value(digits: &[u8]) -> Option<usize> {
    digits.iter().try_fold(0usize, |acc, &d| {
        acc.checked_mul(10)?
            .checked_add(usize::from(d.wrapping_sub(b'0')))
    })
}

/// ```abnf
/// time-unit       = %x5B [ count ] unit-name %x5D
/// unit-name       = %s"Y" / %s"M" / %s"W" / %s"D" / %s"h" / %s"ms" / %s"m"
///                 / %s"us" / %s"s" / %s"ns" / %s"ps" / %s"fs" / %s"as"
///                 / %s"generic"
/// ```
fn time_unit(i: &[u8]) -> TResult<'_, (Option<&[u8]>, &[u8])> {
    let (i, _) = tag(&b"["[..]).parse(i)?;
    let (i, multiple) = nom::combinator::opt(count).parse(i)?;
    let (i, name) = take_while(|b: u8| b.is_ascii_alphabetic()).parse(i)?;
    let (i, _) = tag(&b"]"[..]).parse(i)?;
    Ok((i, (multiple, name)))
}

/// ```abnf
/// typestr         = byteorder type-code
/// byteorder       = %x3C / %x3E / %x7C / %x3D
/// type-code       = %s"b1"
///                 / %s"i1" / %s"i2" / %s"i4" / %s"i8"
///                 / %s"u1" / %s"u2" / %s"u4" / %s"u8"
///                 / %s"f2" / %s"f4" / %s"f8"
///                 / %s"c8" / %s"c16"
///                 / %s"S" count
///                 / %s"U" count
///                 / %s"V" count
///                 / %s"M8" [ time-unit ]
///                 / %s"m8" [ time-unit ]
/// ```
fn typestr(s: &str) -> Result<Dtype> {
    let bytes = s.as_bytes();
    let (order, code) = match bytes.split_first() {
        Some((&o @ (b'<' | b'>' | b'|' | b'='), rest)) => (o, rest),
        _ => {
            if matches!(s, "O" | "O8") || s.ends_with('O') {
                return Err(pickle_error(s));
            }
            return Err(bad_descr(
                "a type string starting with '<', '>', '|' or '='",
                s,
            ));
        }
    };
    let endian = match order {
        b'<' => Some(Endian::Little),
        b'>' => Some(Endian::Big),
        b'=' => Some(Endian::HOST),
        _ => None,
    };
    // Multi-byte numeric (and UTF-32) types need a byte order; `|` is refused for them.
    let need = |e: Option<Endian>| -> Result<Endian> {
        e.ok_or_else(|| {
            bad_descr(
                "'<', '>' or '=' before a multi-byte type ('|' leaves the byte order unknown)",
                s,
            )
        })
    };
    let sized = |digits: &[u8], what: &str| -> Result<usize> {
        count_value(digits).ok_or_else(|| {
            Error::new(
                ErrorKind::ShapeOverflow,
                0,
                format!("a {what} size that fits in memory"),
            )
            .found(format!("{s:?}"))
        })
    };
    let dt = match code {
        b"b1" => Dtype::Bool,
        b"i1" => Dtype::I8,
        b"u1" => Dtype::U8,
        b"i2" => Dtype::I16(need(endian)?),
        b"i4" => Dtype::I32(need(endian)?),
        b"i8" => Dtype::I64(need(endian)?),
        b"u2" => Dtype::U16(need(endian)?),
        b"u4" => Dtype::U32(need(endian)?),
        b"u8" => Dtype::U64(need(endian)?),
        b"f2" => Dtype::F16(need(endian)?),
        b"f4" => Dtype::F32(need(endian)?),
        b"f8" => Dtype::F64(need(endian)?),
        b"c8" => Dtype::C64(need(endian)?),
        b"c16" => Dtype::C128(need(endian)?),
        b"f12" | b"f16" | b"c24" | b"c32" => {
            return Err(Error::new(
                ErrorKind::UnsupportedDtype,
                0,
                "a portable type (long double is platform-dependent: its size and layout differ between machines)",
            )
            .found(format!("{s:?}")))
        }
        b"O" | b"O4" | b"O8" => return Err(pickle_error(s)),
        _ => match code.split_first() {
            Some((&k @ (b'S' | b'U' | b'V'), digits)) => {
                let ok = matches!(count(digits), Ok((rest, _)) if rest.is_empty());
                if !ok {
                    return Err(bad_descr("a size of one or more, without leading zeros", s));
                }
                let n = sized(digits, "string")?;
                // NumPy's item size is a C int.
                let bytes = if k == b'U' { n.checked_mul(4) } else { Some(n) };
                if bytes.is_none_or(|b| b > C_INT_MAX) {
                    return Err(Error::new(
                        ErrorKind::ShapeOverflow,
                        0,
                        "an item size of at most 2^31-1 bytes (NumPy's limit)",
                    )
                    .found(format!("{s:?}")));
                }
                match k {
                    b'S' => Dtype::Bytes(n),
                    b'V' => Dtype::Void(n),
                    _ => {
                        n.checked_mul(4).ok_or_else(|| {
                            Error::new(ErrorKind::ShapeOverflow, 0, "a unicode size that fits in memory")
                        })?;
                        Dtype::Unicode(n, need(endian)?)
                    }
                }
            }
            _ if code.starts_with(b"M8") || code.starts_with(b"m8") => {
                let unit = code.get(2..).unwrap_or_default();
                let du = if unit.is_empty() {
                    DateUnit { unit: TimeUnit::Generic, multiple: 1 }
                } else {
                    let parsed = match time_unit(unit) {
                        Ok((b"", v)) => Some(v),
                        _ => None,
                    };
                    let Some((multiple, name)) = parsed else {
                        return Err(bad_descr("a time unit such as [ns], [s] or [25s]", s));
                    };
                    let Some(tu) = TimeUnit::from_code(name) else {
                        return Err(bad_descr("a time unit: Y M W D h m s ms us ns ps fs as generic", s));
                    };
                    let multiple = match multiple {
                        None => 1,
                        Some(d) => count_value(d)
                            .filter(|&v| v <= C_INT_MAX)
                            .and_then(|v| u32::try_from(v).ok())
                            .filter(|_| tu != TimeUnit::Generic)
                            .ok_or_else(|| bad_descr("a unit multiple between 1 and 2^31-1 (NumPy's limit)", s))?,
                    };
                    DateUnit { unit: tu, multiple }
                };
                if code.starts_with(b"M8") {
                    Dtype::DateTime(du, need(endian)?)
                } else {
                    Dtype::TimeDelta(du, need(endian)?)
                }
            }
            _ => {
                return Err(bad_descr(
                    "a type code: b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8 c8 c16 S<n> U<n> V<n> M8[unit] m8[unit]",
                    s,
                ))
            }
        },
    };
    Ok(dt)
}

fn pickle_error(s: &str) -> Error {
    Error::new(
        ErrorKind::UnsupportedDtype,
        0,
        "a non-object type (object arrays are Python pickles; unpickling runs arbitrary code)",
    )
    .found(format!("{s:?}"))
}

// ------------------------------------------------------------------- descr

fn at(lit: &Literal, e: Error) -> Error {
    e.shifted(lit.offset as u64)
}

fn descr_value(lit: &Literal, depth: u32) -> Result<Dtype> {
    match &lit.value {
        Value::Str(s) => typestr(s).map_err(|e| at(lit, e)),
        Value::List(items) => record(lit, items, depth).map(Dtype::Record),
        _ => Err(Error::new(
            ErrorKind::BadDescr,
            lit.offset as u64,
            "a type string or a list of fields",
        )
        .found(lit.type_name())),
    }
}

fn record(lit: &Literal, items: &[Literal], depth: u32) -> Result<Record> {
    if depth >= MAX_RECORD_DEPTH {
        return Err(Error::new(
            ErrorKind::NestingTooDeep,
            lit.offset as u64,
            "records nested at most 16 deep",
        ));
    }
    if items.is_empty() {
        return Err(Error::new(
            ErrorKind::BadDescr,
            lit.offset as u64,
            "at least one field (an empty record is V0)",
        ));
    }
    if items.len() > MAX_FIELDS {
        return Err(Error::new(
            ErrorKind::BadDescr,
            lit.offset as u64,
            "at most 4096 fields",
        ));
    }
    let mut seen: std::collections::HashSet<String> =
        std::collections::HashSet::with_capacity(items.len());
    let mut fields: Vec<Field> = Vec::with_capacity(items.len());
    let mut offset = 0usize;
    for item in items {
        let Value::Tuple(parts) = &item.value else {
            return Err(Error::new(
                ErrorKind::BadDescr,
                item.offset as u64,
                "a field tuple (name, type[, shape])",
            )
            .found(item.type_name()));
        };
        let (name_lit, type_lit, shape_lit) = match parts.as_slice() {
            [n, t] => (n, t, None),
            [n, t, s] => (n, t, Some(s)),
            _ => {
                return Err(Error::new(
                    ErrorKind::BadDescr,
                    item.offset as u64,
                    "a field tuple of 2 or 3 items",
                )
                .found(format!("{} items", parts.len())))
            }
        };
        let (title, name) = match &name_lit.value {
            Value::Str(n) => (None, n.clone()),
            Value::Tuple(tn) => match tn.as_slice() {
                [Literal {
                    value: Value::Str(t),
                    ..
                }, Literal {
                    value: Value::Str(n),
                    ..
                }] => (Some(t.clone()), n.clone()),
                _ => {
                    return Err(Error::new(
                        ErrorKind::BadDescr,
                        name_lit.offset as u64,
                        "a (title, name) pair of strings",
                    ))
                }
            },
            _ => {
                return Err(Error::new(
                    ErrorKind::BadDescr,
                    name_lit.offset as u64,
                    "a field name string",
                )
                .found(name_lit.type_name()))
            }
        };
        let dtype = descr_value(type_lit, depth.saturating_add(1))?;
        let shape = match shape_lit {
            None => Vec::new(),
            Some(s) => subarray_shape(s)?,
        };
        let count = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
        let size = count
            .and_then(|c| c.checked_mul(dtype.itemsize()))
            .filter(|&b| b <= C_INT_MAX);
        let Some(size) = size else {
            return Err(Error::new(
                ErrorKind::ShapeOverflow,
                item.offset as u64,
                "a field size of at most 2^31-1 bytes (NumPy's limit)",
            ));
        };
        let end = offset.checked_add(size).filter(|&e| e <= C_INT_MAX);
        let Some(end) = end else {
            return Err(Error::new(
                ErrorKind::ShapeOverflow,
                item.offset as u64,
                "a record size of at most 2^31-1 bytes (NumPy's limit)",
            ));
        };
        if name.is_empty() {
            // A padding field: NumPy writes ('', '|Vn'); it is a gap, not a field.
            if title.is_some() || !matches!(dtype, Dtype::Void(_)) || !shape.is_empty() {
                return Err(Error::new(
                    ErrorKind::BadDescr,
                    item.offset as u64,
                    "padding written as ('', '|V<n>')",
                ));
            }
        } else {
            // Names and titles share one namespace (a title is another key for its field).
            if !seen.insert(name.clone()) {
                return Err(Error::new(
                    ErrorKind::DuplicateField,
                    name_lit.offset as u64,
                    "distinct field names",
                )
                .found(format!("{name:?} twice")));
            }
            if let Some(t) = &title {
                if !seen.insert(t.clone()) {
                    return Err(Error::new(
                        ErrorKind::DuplicateField,
                        name_lit.offset as u64,
                        "distinct field titles",
                    )
                    .found(format!("{t:?} twice")));
                }
            }
            fields.push(Field {
                name,
                title,
                dtype,
                shape,
                offset,
            });
        }
        offset = end;
    }
    if fields.is_empty() {
        return Err(Error::new(
            ErrorKind::BadDescr,
            lit.offset as u64,
            "at least one named field",
        ));
    }
    Ok(Record {
        fields,
        itemsize: offset,
    })
}

fn subarray_shape(lit: &Literal) -> Result<Vec<usize>> {
    let Value::Tuple(dims) = &lit.value else {
        return Err(Error::new(
            ErrorKind::BadDescr,
            lit.offset as u64,
            "a subarray shape tuple such as (3,)",
        )
        .found(lit.type_name()));
    };
    if dims.len() > MAX_DIMS {
        return Err(Error::new(
            ErrorKind::ShapeOverflow,
            lit.offset as u64,
            "a subarray of at most 64 dimensions",
        ));
    }
    dims.iter()
        .map(|d| match &d.value {
            Value::Int(n) => n
                .as_u64()
                .and_then(|v| usize::try_from(v).ok())
                .filter(|&v| v <= C_INT_MAX)
                .ok_or_else(|| {
                    Error::new(
                        ErrorKind::ShapeOverflow,
                        d.offset as u64,
                        "a subarray dimension of at most 2^31-1 (NumPy's limit)",
                    )
                }),
            _ => Err(
                Error::new(ErrorKind::BadDescr, d.offset as u64, "an integer dimension")
                    .found(d.type_name()),
            ),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typestrs() {
        assert_eq!(typestr("|b1").unwrap(), Dtype::Bool);
        assert_eq!(typestr("<b1").unwrap(), Dtype::Bool);
        assert_eq!(typestr("<u1").unwrap(), Dtype::U8);
        assert_eq!(typestr(">i2").unwrap(), Dtype::I16(Endian::Big));
        assert_eq!(typestr("=f8").unwrap(), Dtype::F64(Endian::HOST));
        assert_eq!(typestr("|S5").unwrap(), Dtype::Bytes(5));
        assert_eq!(typestr("<S5").unwrap(), Dtype::Bytes(5));
        assert_eq!(typestr(">U3").unwrap(), Dtype::Unicode(3, Endian::Big));
        assert_eq!(
            typestr("<M8[25s]").unwrap(),
            Dtype::DateTime(
                DateUnit {
                    unit: TimeUnit::Second,
                    multiple: 25
                },
                Endian::Little
            )
        );
        assert_eq!(
            typestr("<m8").unwrap(),
            Dtype::TimeDelta(
                DateUnit {
                    unit: TimeUnit::Generic,
                    multiple: 1
                },
                Endian::Little
            )
        );
        for bad in [
            "|f8",
            "|i2",
            "|U3",
            "<f 8",
            "<f08",
            "f8",
            "<S0",
            "<S05",
            "<M8[ns/2]",
            "<M8[xs]",
            "<d",
            "<f3",
        ] {
            assert_eq!(
                typestr(bad).unwrap_err().kind(),
                ErrorKind::BadDescr,
                "{bad}"
            );
        }
        for unsup in ["<f16", "<c32", "|O", "|O8"] {
            assert_eq!(
                typestr(unsup).unwrap_err().kind(),
                ErrorKind::UnsupportedDtype,
                "{unsup}"
            );
        }
        assert!(typestr("|O").unwrap_err().to_string().contains("pickle"));
        assert!(typestr("<f16")
            .unwrap_err()
            .to_string()
            .contains("platform-dependent"));
        assert_eq!(
            typestr("|S99999999999999999999999").unwrap_err().kind(),
            ErrorKind::ShapeOverflow
        );
    }

    #[test]
    fn typestr_round_trips() {
        for s in [
            "|b1", "|i1", "|u1", "<i2", ">u8", "<f2", ">c16", "|S7", "<U2", "|V3", "<M8[ns]",
            ">m8[25s]", "<M8",
        ] {
            assert_eq!(typestr(s).unwrap().typestr(), s);
        }
    }
}
