//! The dtype types: scalar types with their byte order, records of fields, time units;
//! their item sizes and how NumPy writes them (`typestr`, `descr`).

use crate::format::dtype::name::FieldName;
use crate::format::dtype::title::Title;
use crate::format::literal::{Int, Literal, Value};
use crate::prelude::*;

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
}

/// A datetime/timedelta unit with its multiple, e.g. `[25s]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DateUnit {
    /// The base unit.
    pub unit: TimeUnit,
    /// The multiple (1 unless written, e.g. 25 in `[25s]`).
    pub multiple: u32,
}

impl core::fmt::Display for DateUnit {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
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
    /// Field name. It may be empty: NumPy writes a field named `''` (`('', '<i4')`); only the
    /// items NumPy's `descr_to_dtype` takes for padding (`('', '|Vn')`, or `''` with a subarray
    /// shape) become gaps between offsets. It may hold a lone surrogate (np.save writes a
    /// field named `'\\ud805'`): see [`FieldName`].
    pub name: FieldName,
    /// Optional title (`(title, name)` in the descr): any literal NumPy writes as a title
    /// (a string, bytes, a number, a tuple ...), see [`Title`].
    pub title: Option<Title>,
    /// Element type of the field.
    pub dtype: Dtype,
    /// Subarray shape (`[]` for a scalar field). For a subarray of a subarray this is the
    /// whole shape, outermost level first, as NumPy gives it for the field's values
    /// (`[('c', ('<f8', (5,)), (2,))]`: `[2, 5]`).
    pub shape: Vec<usize>,
    /// How [`shape`](Field::shape) splits into nested subarray levels: the number of
    /// dimensions of each level, outermost first. Empty for a scalar field and for a plain
    /// subarray; `[1, 1]` for `[('c', ('<f8', (5,)), (2,))]`, which NumPy keeps (and writes
    /// back) as a subarray of a subarray rather than as `('c', '<f8', (2, 5))`.
    pub nesting: Vec<usize>,
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

    /// The subarray levels of [`shape`](Field::shape), outermost first, as NumPy keeps them
    /// (split by [`nesting`](Field::nesting)); empty for a scalar field.
    pub(crate) fn levels(&self) -> Vec<&[usize]> {
        subarray_levels(&self.shape, &self.nesting)
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
    /// The field called `name` (a `&str`, or a [`FieldName`] for a name holding a lone
    /// surrogate).
    pub fn field<N: ?Sized>(&self, name: &N) -> Option<&Field>
    where
        FieldName: PartialEq<N>,
    {
        self.fields.iter().find(|f| f.name == *name)
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
    /// `f16`: `np.longdouble` as NumPy on x86-64 Linux writes it: the x87 80-bit extended
    /// format (64-bit significand with an explicit integer bit, 15-bit exponent, sign) in
    /// the first 10 bytes of the little-endian value, padded to 16 bytes. Other platforms'
    /// `long double` (IEEE binary128 on aarch64 Linux) is not assumed; the bytes are kept as
    /// stored and only [`format::f80`](crate::f80) gives them a value.
    LongDouble(Endian),
    /// `c32`: two `f16` long doubles, real then imaginary.
    CLongDouble(Endian),
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
            Dtype::C128(_) | Dtype::LongDouble(_) => 16,
            Dtype::CLongDouble(_) => 32,
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
            | Dtype::LongDouble(e)
            | Dtype::CLongDouble(e)
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
            Dtype::LongDouble(_) => Dtype::LongDouble(e),
            Dtype::CLongDouble(_) => Dtype::CLongDouble(e),
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
            Dtype::LongDouble(_) => "f16".to_string(),
            Dtype::CLongDouble(_) => "c32".to_string(),
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
            Some(t) => Literal::new(Value::Tuple(vec![t.to_literal(), name_literal(&f.name)])),
            None => name_literal(&f.name),
        };
        let levels = f.levels();
        let mut ty = f.dtype.descr();
        for level in levels.iter().skip(1).rev() {
            ty = Literal::new(Value::Tuple(vec![ty, shape_literal(level)]));
        }
        let mut t = vec![name, ty];
        if let Some(outer) = levels.first() {
            t.push(shape_literal(outer));
        }
        items.push(Literal::new(Value::Tuple(t)));
        cursor = f.offset.saturating_add(f.size());
    }
    if r.itemsize > cursor {
        items.push(pad(r.itemsize.saturating_sub(cursor)));
    }
    Literal::new(Value::List(items))
}

/// A field name as NumPy writes it: a string, lone surrogates as their escapes.
fn name_literal(name: &FieldName) -> Literal {
    Literal::new(match name.as_str() {
        Some(t) => Value::Str(t.to_string()),
        None => Value::NonText(name.clone()),
    })
}

/// A shape as NumPy writes it: a tuple of integers.
fn shape_literal(dims: &[usize]) -> Literal {
    Literal::new(Value::Tuple(
        dims.iter()
            .map(|&d| Literal::new(Value::Int(Int::Small(d as u64))))
            .collect(),
    ))
}

/// `shape` split into its nested subarray levels, outermost first (`[]` for a scalar
/// field; one level when `nesting` is empty or does not add up to the shape).
fn subarray_levels<'a>(shape: &'a [usize], nesting: &[usize]) -> Vec<&'a [usize]> {
    if shape.is_empty() {
        return Vec::new();
    }
    let mut levels = Vec::with_capacity(nesting.len());
    let mut rest = shape;
    for &rank in nesting {
        match (rank, rest.split_at_checked(rank)) {
            (1.., Some((level, tail))) => {
                levels.push(level);
                rest = tail;
            }
            _ => return vec![shape],
        }
    }
    if levels.is_empty() || !rest.is_empty() {
        return vec![shape];
    }
    levels
}
