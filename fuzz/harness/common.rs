//! Shared by the harnesses: comparing results, and building arbitrary dtypes,
//! shapes and arrays from fuzz bytes.
//!
//! Each harness pulls this file in with `#[path = "common.rs"] mod common;`,
//! so it is compiled once per harness; not every harness uses every item.
#![allow(dead_code)]

use std::collections::HashSet;
use std::fmt::Debug;

use arbitrary::{Arbitrary, Result as AResult, Unstructured};
use npyguard::literal::{Float, Int, Literal, Value};
use npyguard::write::to_vec;
use npyguard::{
    Array, ArrayData, DateUnit, Dtype, Endian, Error, ErrorKind, Field, Header, Record, TimeUnit,
    Title,
};

// ------------------------------------------------------------- outcomes --

/// What two runs over the same input must agree on: the array (compared by its
/// `np.save` bytes, so floats compare by bit pattern and NaN equals itself) or
/// the error's kind and offset.
#[derive(PartialEq, Eq)]
pub enum Outcome {
    /// A decoded array: dtype, order, shape and the bytes the writer makes of it.
    Array {
        dtype: Dtype,
        fortran_order: bool,
        shape: Vec<usize>,
        extra: usize,
        bytes: Vec<u8>,
    },
    /// An error: its kind and byte offset.
    Error {
        kind: ErrorKind,
        offset: Option<u64>,
    },
}

impl Debug for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Array {
                dtype,
                fortran_order,
                shape,
                extra,
                bytes,
            } => {
                let shown: Vec<u8> = bytes.iter().copied().take(256).collect();
                write!(
                    f,
                    "Array {{ dtype: {dtype:?}, fortran_order: {fortran_order}, shape: {shape:?}, extra keys: {extra}, \
                     {} bytes: {shown:02x?}{} }}",
                    bytes.len(),
                    if bytes.len() > 256 { " ..." } else { "" }
                )
            }
            Outcome::Error { kind, offset } => write!(f, "Error {{ {kind:?} at {offset:?} }}"),
        }
    }
}

/// The `np.save` bytes of `array` (the writer cannot fail on a `Vec`).
pub fn saved(array: &Array) -> Vec<u8> {
    to_vec(array).unwrap_or_else(|e| panic!("to_vec failed on an in-memory Vec: {e}"))
}

/// The payload bytes of `array` in C order, as the writer encodes them: rows compare across
/// memory orders and chunks, and floats by their bits.
pub fn c_payload(array: &Array) -> Vec<u8> {
    let bytes = saved(&array.to_c_order());
    let opts = npyguard::ReadOptions::default().with_max_header_bytes(1 << 20);
    let h = npyguard::Header::from_bytes(&bytes, &opts)
        .unwrap_or_else(|e| panic!("the writer's header reads back: {e}"));
    bytes[h.payload_offset() as usize..].to_vec()
}

/// The outcome of one run.
pub fn outcome(r: &npyguard::Result<Array>) -> Outcome {
    match r {
        Ok(a) => Outcome::Array {
            dtype: a.dtype().clone(),
            fortran_order: a.fortran_order(),
            shape: a.shape().to_vec(),
            extra: a.header().extra().len(),
            bytes: saved(a),
        },
        Err(e) => error_outcome(e),
    }
}

/// The outcome of an error.
pub fn error_outcome(e: &Error) -> Outcome {
    Outcome::Error {
        kind: e.kind(),
        offset: e.offset(),
    }
}

/// Panics unless `a` and `b` agree, naming the two runs.
pub fn assert_same(what_a: &str, a: &Outcome, what_b: &str, b: &Outcome) {
    assert!(
        a == b,
        "{what_a} and {what_b} disagree:\n  {what_a}: {a:?}\n  {what_b}: {b:?}"
    );
}

/// The same, for headers or errors (kind + offset).
pub fn assert_same_header(
    what_a: &str,
    a: &npyguard::Result<Header>,
    what_b: &str,
    b: &npyguard::Result<Header>,
) {
    let same = match (a, b) {
        (Ok(x), Ok(y)) => x == y,
        (Err(x), Err(y)) => (x.kind(), x.offset()) == (y.kind(), y.offset()),
        _ => false,
    };
    let show = |r: &npyguard::Result<Header>| match r {
        Ok(h) => format!("{h:?}"),
        Err(e) => format!("Error {{ {:?} at {:?}: {e} }}", e.kind(), e.offset()),
    };
    assert!(
        same,
        "{what_a} and {what_b} disagree:\n  {what_a}: {}\n  {what_b}: {}",
        show(a),
        show(b)
    );
}

// ------------------------------------------------------ arbitrary dtypes --

/// The dtype kinds the structure-aware targets draw from.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Kind {
    Bool,
    I8,
    U8,
    I16,
    I32,
    I64,
    U16,
    U32,
    U64,
    F16,
    F32,
    F64,
    C64,
    C128,
    LongDouble,
    CLongDouble,
    Bytes,
    Unicode,
    Void,
    DateTime,
    TimeDelta,
    Record,
}

/// Time units (mirrors `TimeUnit`, which has no `Arbitrary`).
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Unit {
    Generic,
    Year,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Milli,
    Micro,
    Nano,
    Pico,
    Femto,
    Atto,
}

/// Deepest record nesting the generator builds (the reader allows 16).
const MAX_RECORD_DEPTH: u32 = 3;
/// Most fields per generated record.
const MAX_FIELDS: usize = 4;

fn endian(u: &mut Unstructured<'_>) -> AResult<Endian> {
    Ok(if u.arbitrary::<bool>()? {
        Endian::Big
    } else {
        Endian::Little
    })
}

fn date_unit(u: &mut Unstructured<'_>) -> AResult<DateUnit> {
    let unit = match u.arbitrary::<Unit>()? {
        Unit::Generic => {
            return Ok(DateUnit {
                unit: TimeUnit::Generic,
                multiple: 1,
            })
        }
        Unit::Year => TimeUnit::Year,
        Unit::Month => TimeUnit::Month,
        Unit::Week => TimeUnit::Week,
        Unit::Day => TimeUnit::Day,
        Unit::Hour => TimeUnit::Hour,
        Unit::Minute => TimeUnit::Minute,
        Unit::Second => TimeUnit::Second,
        Unit::Milli => TimeUnit::Milli,
        Unit::Micro => TimeUnit::Micro,
        Unit::Nano => TimeUnit::Nano,
        Unit::Pico => TimeUnit::Pico,
        Unit::Femto => TimeUnit::Femto,
        Unit::Atto => TimeUnit::Atto,
    };
    // Mostly 1; sometimes any multiple NumPy allows (1 to 2^31-1; 0 is not a multiple).
    let multiple = if u.ratio(1u8, 4)? {
        u.int_in_range(1..=i32::MAX as u32)?
    } else {
        1
    };
    Ok(DateUnit { unit, multiple })
}

/// An arbitrary valid dtype: every scalar kind, S/U/V of sizes 1..=12,
/// datetimes with any unit, and records (titles, padding, subarrays, nesting).
pub fn dtype(u: &mut Unstructured<'_>) -> AResult<Dtype> {
    dtype_at(u, 0)
}

fn dtype_at(u: &mut Unstructured<'_>, depth: u32) -> AResult<Dtype> {
    let kind: Kind = u.arbitrary()?;
    Ok(match kind {
        Kind::Bool => Dtype::Bool,
        Kind::I8 => Dtype::I8,
        Kind::U8 => Dtype::U8,
        Kind::I16 => Dtype::I16(endian(u)?),
        Kind::I32 => Dtype::I32(endian(u)?),
        Kind::I64 => Dtype::I64(endian(u)?),
        Kind::U16 => Dtype::U16(endian(u)?),
        Kind::U32 => Dtype::U32(endian(u)?),
        Kind::U64 => Dtype::U64(endian(u)?),
        Kind::F16 => Dtype::F16(endian(u)?),
        Kind::F32 => Dtype::F32(endian(u)?),
        Kind::F64 => Dtype::F64(endian(u)?),
        Kind::C64 => Dtype::C64(endian(u)?),
        Kind::C128 => Dtype::C128(endian(u)?),
        Kind::LongDouble => Dtype::LongDouble(endian(u)?),
        Kind::CLongDouble => Dtype::CLongDouble(endian(u)?),
        Kind::Bytes => Dtype::Bytes(u.int_in_range(1..=12)?),
        Kind::Unicode => Dtype::Unicode(u.int_in_range(1..=6)?, endian(u)?),
        Kind::Void => Dtype::Void(u.int_in_range(1..=12)?),
        Kind::DateTime => Dtype::DateTime(date_unit(u)?, endian(u)?),
        Kind::TimeDelta => Dtype::TimeDelta(date_unit(u)?, endian(u)?),
        Kind::Record if depth < MAX_RECORD_DEPTH => Dtype::Record(record(u, depth + 1)?),
        Kind::Record => Dtype::I32(endian(u)?),
    })
}

/// A short field name or title: arbitrary text (any Unicode, quotes,
/// backslashes, controls), never empty; `fallback` when the bytes give none.
fn name(u: &mut Unstructured<'_>, fallback: String) -> AResult<String> {
    let len = u.int_in_range(0..=6)?;
    let mut s = String::new();
    for _ in 0..len {
        s.push(u.arbitrary::<char>()?);
    }
    Ok(if s.is_empty() { fallback } else { s })
}

/// A title: text (which shares the names' namespace: `None` when taken) or, one time in
/// two, another literal np.save writes as a title (numbers, bytes, booleans, tuples).
fn title(
    u: &mut Unstructured<'_>,
    i: usize,
    taken: &mut HashSet<String>,
) -> AResult<Option<Title>> {
    if u.arbitrary()? {
        return Ok(Title::from_value(title_value(u, 0)?));
    }
    let t = name(u, format!("T{i}"))?;
    Ok(taken.insert(t.clone()).then(|| Title::from(t)))
}

/// A literal that reads back as itself after np.save's `repr`: finite floats; complex
/// numbers whose signed zeros survive `repr` and `literal_eval` (a nonzero real part and
/// no `-0.0` imaginary part, or a `+0.0` real part and a non-negative imaginary part).
fn title_value(u: &mut Unstructured<'_>, depth: u32) -> AResult<Value> {
    let finite = |v: f64| if v.is_finite() { v } else { 0.5 };
    Ok(match u.int_in_range(0..=6)? {
        0 => Value::Int(Int::Small(u.arbitrary()?)),
        1 => Value::NegInt(Int::Small(u.int_in_range(1..=u64::MAX)?)),
        2 => Value::Float(Float(finite(u.arbitrary()?))),
        3 => {
            let (re, im) = (finite(u.arbitrary()?), finite(u.arbitrary()?));
            if re == 0.0 {
                Value::Complex(Float(0.0), Float(im.abs()))
            } else {
                Value::Complex(Float(re), Float(if im == 0.0 { 0.0 } else { im }))
            }
        }
        4 => Value::Bytes(u.arbitrary::<Vec<u8>>()?.into_iter().take(6).collect()),
        5 => Value::Bool(u.arbitrary()?),
        _ if depth < 2 => {
            let n = u.int_in_range(0..=3)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(Literal::new(title_value(u, depth + 1)?));
            }
            Value::Tuple(items)
        }
        _ => Value::Str(name(u, "t".into())?),
    })
}

/// A valid record: fields in offset order with gaps (written as `('', '|Vn')`),
/// distinct names and titles, optional subarray shapes, trailing padding.
fn record(u: &mut Unstructured<'_>, depth: u32) -> AResult<Record> {
    let n = u.int_in_range(1..=MAX_FIELDS)?;
    let mut fields = Vec::with_capacity(n);
    let mut taken = HashSet::new();
    let mut cursor = 0usize;
    for i in 0..n {
        let gap = if u.ratio(1u8, 4)? {
            u.int_in_range(1..=4)?
        } else {
            0
        };
        let mut field_name = name(u, format!("f{i}"))?;
        if !taken.insert(field_name.clone()) {
            field_name = format!("f{i}_{depth}");
            // A generated name may already be this one: then stop adding fields.
            if !taken.insert(field_name.clone()) {
                break;
            }
        }
        let title = if u.ratio(1u8, 5)? {
            title(u, i, &mut taken)?
        } else {
            None
        };
        let dtype = dtype_at(u, depth)?;
        let ndim = if u.ratio(1u8, 4)? {
            u.int_in_range(1..=2)?
        } else {
            0
        };
        let mut shape = Vec::with_capacity(ndim);
        for _ in 0..ndim {
            shape.push(u.int_in_range(0..=3)?);
        }
        let size = shape.iter().product::<usize>() * dtype.itemsize();
        let offset = cursor + gap;
        cursor = offset + size;
        fields.push(Field {
            name: field_name.into(),
            title,
            dtype,
            shape,
            nesting: Vec::new(),
            offset,
        });
    }
    let tail = if u.ratio(1u8, 4)? {
        u.int_in_range(1..=4)?
    } else {
        0
    };
    Ok(Record {
        fields,
        itemsize: cursor + tail,
    })
}

/// An arbitrary shape (0 to 4 dimensions, zeros included) whose payload is at
/// most `max_bytes` for `itemsize`-byte elements; a shape with a zero
/// dimension may have large other dimensions (the header must still size them).
pub fn shape(u: &mut Unstructured<'_>, itemsize: usize, max_bytes: usize) -> AResult<Vec<usize>> {
    let ndim = u.int_in_range(0..=4)?;
    let mut dims = Vec::with_capacity(ndim);
    let mut product = 1usize;
    let max_elems = max_bytes / itemsize.max(1);
    for _ in 0..ndim {
        let room = max_elems / product.max(1);
        let d = match u.int_in_range(0u8..=15)? {
            0 => 0,
            1 => u.int_in_range(0..=room.max(1).min(4096))?.min(room),
            _ => u.int_in_range(1..=6)?.min(room.max(1)),
        };
        if product.saturating_mul(d) > max_elems {
            dims.push(1);
        } else {
            product *= d.max(1);
            dims.push(d);
        }
    }
    if dims.contains(&0) && u.ratio(1u8, 4)? {
        // With a zero dimension, another one may be huge: still no payload.
        let i = u.choose_index(dims.len())?;
        if dims[i] != 0 {
            let others: usize = dims
                .iter()
                .enumerate()
                .filter(|&(j, &d)| j != i && d != 0)
                .map(|(_, &d)| d)
                .product();
            dims[i] =
                u.int_in_range(1..=(isize::MAX as usize / itemsize.max(1) / others.max(1)))?;
        }
    }
    Ok(dims)
}

// ------------------------------------------------------ arbitrary arrays --

fn values<T>(
    u: &mut Unstructured<'_>,
    n: usize,
    mut f: impl FnMut(&mut Unstructured<'_>) -> AResult<T>,
) -> AResult<Vec<T>> {
    (0..n).map(|_| f(u)).collect()
}

/// Arbitrary data for `n` elements of `dtype` (every float bit pattern, every `char`).
pub fn array_data(u: &mut Unstructured<'_>, dtype: &Dtype, n: usize) -> AResult<ArrayData> {
    let any = |u: &mut Unstructured<'_>| u.arbitrary::<u8>();
    Ok(match dtype {
        // Any byte: NumPy keeps non-canonical bool bytes (2, 0xff), and so must a round trip.
        Dtype::Bool => ArrayData::Bool((values(u, n, any)?).into()),
        Dtype::I8 => ArrayData::I8((values(u, n, |u| u.arbitrary())?).into()),
        Dtype::U8 => ArrayData::U8((values(u, n, any)?).into()),
        Dtype::I16(_) => ArrayData::I16((values(u, n, |u| u.arbitrary())?).into()),
        Dtype::I32(_) => ArrayData::I32((values(u, n, |u| u.arbitrary())?).into()),
        Dtype::I64(_) => ArrayData::I64((values(u, n, |u| u.arbitrary())?).into()),
        Dtype::U16(_) => ArrayData::U16((values(u, n, |u| u.arbitrary())?).into()),
        Dtype::U32(_) => ArrayData::U32((values(u, n, |u| u.arbitrary())?).into()),
        Dtype::U64(_) => ArrayData::U64((values(u, n, |u| u.arbitrary())?).into()),
        Dtype::F16(_) => ArrayData::F16((values(u, n, |u| u.arbitrary())?).into()),
        Dtype::F32(_) => {
            ArrayData::F32((values(u, n, |u| Ok(f32::from_bits(u.arbitrary()?)))?).into())
        }
        Dtype::F64(_) => {
            ArrayData::F64((values(u, n, |u| Ok(f64::from_bits(u.arbitrary()?)))?).into())
        }
        Dtype::C64(_) => ArrayData::C64(
            (values(u, n, |u| {
                Ok([
                    f32::from_bits(u.arbitrary()?),
                    f32::from_bits(u.arbitrary()?),
                ])
            })?)
            .into(),
        ),
        Dtype::C128(_) => ArrayData::C128(
            (values(u, n, |u| {
                Ok([
                    f64::from_bits(u.arbitrary()?),
                    f64::from_bits(u.arbitrary()?),
                ])
            })?)
            .into(),
        ),
        // Each element's 16 (32) bytes as a file holds them: any x87 pattern, padding too.
        Dtype::LongDouble(_) => ArrayData::LongDouble((values(u, n * 16, any)?).into()),
        Dtype::CLongDouble(_) => ArrayData::CLongDouble((values(u, n * 32, any)?).into()),
        Dtype::Bytes(k) => ArrayData::Bytes((values(u, n * k, any)?).into()),
        Dtype::Unicode(k, _) => ArrayData::Unicode(
            (values(u, n * k, |u| Ok(u32::from(u.arbitrary::<char>()?)))?).into(),
        ),
        Dtype::Void(k) => ArrayData::Void((values(u, n * k, any)?).into()),
        Dtype::DateTime(..) => ArrayData::DateTime((values(u, n, |u| u.arbitrary())?).into()),
        Dtype::TimeDelta(..) => ArrayData::TimeDelta((values(u, n, |u| u.arbitrary())?).into()),
        Dtype::Record(r) => ArrayData::Record((values(u, n * r.itemsize, any)?).into()),
        other => panic!("the generator made a dtype the harness does not know: {other:?}"),
    })
}

/// `Array::new` of generated parts (`U` code units are not checked, as NumPy does not check
/// them: every generated array is taken); a refusal panics.
pub fn new_array(header: Header, values: ArrayData) -> Option<Array> {
    let unicode = holds_unicode(header.dtype());
    match Array::new(header, values) {
        Ok(a) => Some(a),
        Err(e) if unicode && e.kind() == ErrorKind::BadPayload => None,
        Err(e) => panic!("Array::new refuses generated data: {e}"),
    }
}

/// Whether `dtype` holds a `U` (UTF-32) type anywhere, i.e. whether its bytes can be invalid.
pub fn holds_unicode(dtype: &Dtype) -> bool {
    match dtype {
        Dtype::Unicode(..) => true,
        Dtype::Record(r) => r.fields.iter().any(|f| holds_unicode(&f.dtype)),
        _ => false,
    }
}

/// Whether `dtype` holds a long double (`f16`/`c32`) anywhere: the NumPy repr, Arrow and
/// compare refuse those (`unsupported-dtype`, or "not compared"), by design.
pub fn holds_long_double(dtype: &Dtype) -> bool {
    match dtype {
        Dtype::LongDouble(_) | Dtype::CLongDouble(_) => true,
        Dtype::Record(r) => r.fields.iter().any(|f| holds_long_double(&f.dtype)),
        _ => false,
    }
}

// ------------------------------------------------------ inputs of a layer --

/// Largest payload an array built from fuzz bytes holds.
pub const LAYER_MAX_PAYLOAD: usize = 1 << 14;

/// The array a layer above the reader (datasets, renderers, compare) gets from fuzz bytes,
/// and the input length its work is bounded by. The first byte selects the source:
/// * even: **raw** — the rest is a `.npy` file, read with `read_bytes` (64 KiB file limit;
///   hostile headers such as shape `(2**40, 0)` or `(0, 2**60)` arrive this way);
/// * odd: **structure-aware** — an arbitrary dtype, shape (zero-size shapes with huge
///   dimensions included), memory order and values from the rest.
pub fn layer_array(data: &[u8]) -> Option<(Array, usize)> {
    let (&mode, rest) = data.split_first()?;
    if mode & 1 == 0 {
        let opts = npyguard::ReadOptions::default()
            .with_max_file_bytes(Some(1 << 16))
            .with_max_header_bytes(4096);
        return npyguard::read_bytes(rest, &opts)
            .ok()
            .map(|a| (a, rest.len()));
    }
    let mut u = Unstructured::new(rest);
    let dtype = dtype(&mut u).ok()?;
    let shape = shape(&mut u, dtype.itemsize(), LAYER_MAX_PAYLOAD).ok()?;
    let fortran = u.arbitrary::<bool>().ok()?;
    let header = Header::new(dtype.clone(), shape, fortran).ok()?;
    let values = array_data(&mut u, &dtype, header.element_count()).ok()?;
    Some((new_array(header, values)?, rest.len()))
}

/// The most output bytes a layer may produce for an input of `input_len` bytes: linear in
/// the input plus the unbacked allowance (`MAX_UNBACKED_ITEMS` items), with room for the
/// widest rendering of an element (a `U` character escaped, a complex pair, brackets of
/// up to 64 dimensions). More is a finding: output no input byte pays for.
/// A writer that counts the bytes written to it and keeps none.
#[derive(Debug, Default)]
pub struct Counted(pub usize);

impl std::io::Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len());
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub fn output_bound(input_len: usize) -> usize {
    let items = input_len.saturating_add(npyguard::limits::MAX_UNBACKED_ITEMS as usize);
    items.saturating_mul(256).saturating_add(1 << 20)
}
