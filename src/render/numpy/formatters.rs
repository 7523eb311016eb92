//! `_get_format_function` and the formatters of each dtype family but the floats: one
//! [`Format`] built from the values shown (so that they align), then called on each element.

use crate::data::array::Array;
use crate::data::codec::check_code_points;
use crate::data::scalar::{Float as FloatValue, Scalar};
use crate::data::storage::{units_per_element, ArrayData};
use crate::error::{Error, ErrorKind, Result};
use crate::format::dtype::{DateUnit, Dtype, Endian, Record, TimeUnit};
use crate::format::repr::{py_bytes, py_str_units};
use crate::render::bounds::EDGE;
use crate::render::numpy::datetime::datetime_as_string;
use crate::render::numpy::float::{Float, FloatFormat, Half};
use crate::render::numpy::lines::chars;

/// The `datetime64`/`timedelta64` value NaT.
const NAT: i64 = i64::MIN;

/// What the formatters depend on besides the values.
#[derive(Debug, Clone, Copy)]
pub(super) struct FormatOptions {
    /// `threshold`: record subarrays of more elements are summarised.
    pub(super) threshold: usize,
    /// The values were concatenated into native byte order (see [`swapped_reduction`]).
    pub(super) native: bool,
}

/// `_get_format_function`: the formatter of one dtype family, built from the values shown.
/// Called on an element of another kind of value (which the code building it from the same
/// data rules out), it is an [`ErrorKind::Internal`] error, not an empty string.
pub(super) enum Format {
    /// `BoolFormat`: `' True'` pads to the width of `'False'`, except in a 0-d array.
    Bool { padded: bool },
    /// `IntegerFormat`: right-aligned to the widest of the largest and smallest value.
    Int { width: usize },
    /// `FloatingFormat`.
    Float(FloatFormat),
    /// `ComplexFloatingFormat`: the real part signed `-`, the imaginary part signed `+`.
    Complex { re: FloatFormat, im: FloatFormat },
    /// `DatetimeFormat` in the dtype's unit.
    DateTime { time: TimeFormat, unit: DateUnit },
    /// `TimedeltaFormat`: the counts as integers.
    TimeDelta(TimeFormat),
    /// `repr` of the `bytes` value.
    Bytes,
    /// `repr` of the `str` value.
    Str,
    /// `str` of the `np.void` value.
    Void,
    /// `StructuredVoidFormat`: one formatter per field.
    Record(Vec<FieldFormat>),
}

impl Format {
    /// `_get_format_function(data)`.
    pub(super) fn from_data(data: &Array, opts: FormatOptions) -> Result<Format> {
        Ok(match (data.data(), data.dtype()) {
            (ArrayData::Bool(_), _) => Format::Bool {
                padded: !data.shape().is_empty(),
            },
            (
                ArrayData::I8(_)
                | ArrayData::U8(_)
                | ArrayData::I16(_)
                | ArrayData::I32(_)
                | ArrayData::I64(_)
                | ArrayData::U16(_)
                | ArrayData::U32(_)
                | ArrayData::U64(_),
                _,
            ) => Format::integer(data.data())?,
            (ArrayData::F16(v), _) => {
                let halves: Vec<Half> = v.iter().map(|&b| Half(b)).collect();
                Format::Float(FloatFormat::new(&halves, false))
            }
            (ArrayData::F32(v), _) => Format::Float(FloatFormat::new(v, false)),
            (ArrayData::F64(v), _) => Format::Float(FloatFormat::new(v, false)),
            (ArrayData::C64(v), _) => Format::complex(v),
            (ArrayData::C128(v), _) => Format::complex(v),
            (ArrayData::DateTime(v), Dtype::DateTime(unit, _)) => {
                let unit = *unit;
                let swapped = !opts.native && swapped_reduction(data.dtype());
                let time = TimeFormat::new(v, swapped, |x| datetime_repr(x, unit));
                Format::DateTime { time, unit }
            }
            (ArrayData::TimeDelta(v), _) => {
                let swapped = !opts.native && swapped_reduction(data.dtype());
                Format::TimeDelta(TimeFormat::new(v, swapped, |x| x.to_string()))
            }
            (ArrayData::Bytes(_), _) => Format::Bytes,
            (ArrayData::Unicode(v), _) => {
                check_code_points(v, units_per_element(data.dtype()))?;
                Format::Str
            }
            (ArrayData::Void(_), _) => Format::Void,
            (ArrayData::LongDouble(_) | ArrayData::CLongDouble(_), dtype) => {
                return Err(Error::unplaced(
                    ErrorKind::UnsupportedDtype,
                    "a dtype whose NumPy repr npyguard reproduces (NumPy prints long double \
                     (f16, c32) with Dragon4 over the 64-bit x87 significand, which npyguard \
                     does not implement)",
                )
                .found(dtype.typestr()))
            }
            (ArrayData::Record(_), Dtype::Record(record)) => {
                Format::Record(FieldFormat::all(data, record, opts)?)
            }
            (ArrayData::DateTime(_) | ArrayData::Record(_), dtype) => {
                return Err(Error::unplaced(
                    ErrorKind::Internal,
                    "data of the array's dtype (internal invariant)",
                )
                .found(dtype.typestr()))
            }
        })
    }

    /// `IntegerFormat(data)`.
    fn integer(data: &ArrayData) -> Result<Format> {
        let mut range: Option<(i128, i128)> = None;
        for value in (0..).map_while(|i| data.scalar(i, 1)) {
            let Scalar::Int(x) = value else {
                return Err(not_its_kind(&value));
            };
            range = Some(range.map_or((x, x), |(lo, hi)| (lo.min(x), hi.max(x))));
        }
        let width = range.map_or(0, |(lo, hi)| lo.to_string().len().max(hi.to_string().len()));
        Ok(Format::Int { width })
    }

    /// `ComplexFloatingFormat(data)`.
    fn complex<T: Float>(v: &[[T; 2]]) -> Format {
        let re: Vec<T> = v.iter().map(|&[r, _]| r).collect();
        let im: Vec<T> = v.iter().map(|&[_, i]| i).collect();
        Format::Complex {
            re: FloatFormat::new(&re, false),
            im: FloatFormat::new(&im, true),
        }
    }

    /// The formatter called on element `i` (C order) of `data`, read through
    /// [`ArrayData::scalar`].
    pub(super) fn call(&self, data: &Array, i: usize) -> Result<String> {
        let per = units_per_element(data.dtype());
        let value = data.data().scalar(i, per).ok_or_else(|| {
            Error::unplaced(ErrorKind::Internal, "an element inside the shown data")
                .found(format!("element {i}"))
        })?;
        Ok(match (self, value) {
            (Format::Bool { padded }, Scalar::Bool(b)) => match (b, padded) {
                (true, true) => " True",
                (true, false) => "True",
                (false, _) => "False",
            }
            .to_string(),
            (&Format::Int { width }, Scalar::Int(x)) => format!("{x:>width$}"),
            (Format::Float(f), Scalar::Float(x)) => float_call(f, x),
            (Format::Complex { re, im }, Scalar::Complex(r, j)) => {
                complex_str(float_call(re, r), float_call(im, j))
            }
            (Format::DateTime { time, unit }, Scalar::Time(x)) => {
                time.call(x, |x| datetime_repr(x, *unit))
            }
            (Format::TimeDelta(time), Scalar::Time(x)) => time.call(x, |x| x.to_string()),
            (Format::Bytes, Scalar::Bytes(b)) => py_bytes(b),
            (Format::Str, Scalar::Str(s)) => py_str_units(s),
            (Format::Void, Scalar::Void(b)) => void_str(b),
            (Format::Record(fields), Scalar::Record(_)) => record_str(fields, i)?,
            (_, value) => return Err(not_its_kind(&value)),
        })
    }
}

/// A value of another kind than its formatter's: npyguard's bug.
fn not_its_kind(value: &Scalar<'_>) -> Error {
    Error::unplaced(
        ErrorKind::Internal,
        "a value of the kind its formatter was built for (internal invariant)",
    )
    .found(format!("{value:?}"))
}

/// A float formatter called on a value in its own precision.
fn float_call(f: &FloatFormat, x: FloatValue) -> String {
    match x {
        FloatValue::Half(b) => f.call(Half(b)),
        FloatValue::Single(x) => f.call(x),
        FloatValue::Double(x) => f.call(x),
    }
}

/// `ComplexFloatingFormat.__call__`: the `j` goes before the imaginary part's padding.
fn complex_str(re: String, im: String) -> String {
    let trimmed = im.trim_end_matches(' ');
    let pad = " ".repeat(im.len().saturating_sub(trimmed.len()));
    format!("{re}{trimmed}j{pad}")
}

/// `StructuredVoidFormat.__call__`: the fields as a Python tuple.
fn record_str(fields: &[FieldFormat], i: usize) -> Result<String> {
    let parts = fields
        .iter()
        .map(|f| f.call(i))
        .collect::<Result<Vec<String>>>()?;
    Ok(match parts.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", parts.join(", ")),
    })
}

/// One field of `StructuredVoidFormat`: the formatter of the field's values (`data`, of
/// shape `shown shape + shape`), wrapped in `SubArrayFormat` when the field is a subarray.
pub(super) struct FieldFormat {
    format: Format,
    data: Array,
    shape: Vec<usize>,
    count: usize,
    /// `SubArrayFormat`'s summary: the subarray has more than `threshold` elements.
    summary: bool,
}

impl FieldFormat {
    /// `StructuredVoidFormat.from_data(data)`.
    fn all(data: &Array, record: &Record, opts: FormatOptions) -> Result<Vec<FieldFormat>> {
        record
            .fields
            .iter()
            .map(|f| {
                let values = data.field(&f.name)?;
                Ok(FieldFormat {
                    format: Format::from_data(&values, opts)?,
                    data: values,
                    shape: f.shape.clone(),
                    count: f.count(),
                    summary: f.count() > opts.threshold,
                })
            })
            .collect()
    }

    /// The field of record `i`.
    fn call(&self, i: usize) -> Result<String> {
        if self.shape.is_empty() {
            return self.format.call(&self.data, i);
        }
        self.subarray(i.saturating_mul(self.count), &self.shape)
    }

    /// `SubArrayFormat.format_array` of the block at element `start` with `shape`.
    fn subarray(&self, start: usize, shape: &[usize]) -> Result<String> {
        let Some((&n, rest)) = shape.split_first() else {
            return self.format.call(&self.data, start);
        };
        let inner = rest.iter().fold(1usize, |acc, &d| acc.saturating_mul(d));
        let at = |k: usize| self.subarray(start.saturating_add(k.saturating_mul(inner)), rest);
        let items: Vec<String> = if self.summary && n > EDGE.saturating_mul(2) {
            (0..EDGE)
                .map(at)
                .chain(std::iter::once(Ok("...".to_string())))
                .chain((n.saturating_sub(EDGE)..n).map(at))
                .collect::<Result<_>>()?
        } else {
            (0..n).map(at).collect::<Result<_>>()?
        };
        Ok(format!("[{}]", items.join(", ")))
    }
}

/// `_TimelikeFormat`: right-aligned to the widest of the largest and smallest non-NaT value
/// (at least 5, `'NaT'`, when there is a NaT).
pub(super) struct TimeFormat {
    width: usize,
}

impl TimeFormat {
    /// `_TimelikeFormat(data)`; `swapped`: see [`swapped_reduction`].
    fn new(values: &[i64], swapped: bool, text: impl Fn(i64) -> String) -> TimeFormat {
        let mut non_nat = values.iter().copied().filter(|&x| x != NAT);
        let range = non_nat.next().map(|first| {
            non_nat.fold((first, first), |(lo, hi), x| {
                if !swapped {
                    return (lo.min(x), hi.max(x));
                }
                // NumPy's reduction: the later elements byte-swapped, NaT propagating.
                let raw = x.swap_bytes();
                let pick = |acc: i64, better: bool| match (acc, raw) {
                    (NAT, _) | (_, NAT) => NAT,
                    _ if better => raw,
                    _ => acc,
                };
                (pick(lo, raw < lo), pick(hi, raw > hi))
            })
        });
        let mut width = range.map_or(0, |(lo, hi)| chars(&text(hi)).max(chars(&text(lo))));
        if values.contains(&NAT) {
            width = width.max(5);
        }
        TimeFormat { width }
    }

    fn call(&self, x: i64, text: impl Fn(i64) -> String) -> String {
        let s = if x == NAT {
            "'NaT'".to_string()
        } else {
            text(x)
        };
        format!("{s:>w$}", w = self.width)
    }
}

/// Whether NumPy's `np.max`/`np.min` of `dtype`'s values read them wrongly: for a
/// `datetime64`/`timedelta64` of generic unit in non-native byte order, NumPy 2.x reduces
/// with the first element read right and every later one byte-swapped (a swapped value that
/// is NaT's bit pattern propagates). `_TimelikeFormat` takes its width from those values, so
/// the widths NumPy prints for such arrays follow them; mirrored in [`TimeFormat::new`].
fn swapped_reduction(dtype: &Dtype) -> bool {
    match dtype {
        Dtype::DateTime(u, e) | Dtype::TimeDelta(u, e) => {
            u.unit == TimeUnit::Generic && *e != Endian::HOST
        }
        _ => false,
    }
}

/// `DatetimeFormat._format_non_nat`: the ISO 8601 text in quotes. NumPy refuses to print a
/// non-NaT value of generic unit (`datetime64` without unit); here it is its count.
fn datetime_repr(x: i64, unit: DateUnit) -> String {
    match unit.unit {
        TimeUnit::Generic => x.to_string(),
        _ => format!("'{}'", datetime_as_string(x, unit)),
    }
}

/// `str` of an `np.void` value: every byte as `\xNN`, upper-case hex.
fn void_str(b: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::from("b'");
    for &c in b {
        let _ = write!(out, "\\x{c:02X}");
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NpyArray;

    /// A formatter called on a value of another kind, or past the data's end, is an
    /// internal error (it printed an empty string).
    #[test]
    fn a_value_of_another_kind_is_an_internal_error() {
        let floats = NpyArray::from_vec(vec![1.5f64, -2.0], vec![2])
            .unwrap()
            .into_array();
        let ints = NpyArray::from_vec(vec![7i32, 8], vec![2])
            .unwrap()
            .into_array();
        let opts = FormatOptions {
            threshold: 1000,
            native: false,
        };
        let format = Format::from_data(&floats, opts).unwrap();
        assert_eq!(format.call(&floats, 1).unwrap(), "-2. ");
        for e in [
            format.call(&ints, 0).unwrap_err(),
            format.call(&floats, 2).unwrap_err(),
        ] {
            assert_eq!(e.kind(), ErrorKind::Internal, "{e}");
        }
        let format = Format::from_data(&ints, opts).unwrap();
        assert_eq!(format.call(&ints, 0).unwrap(), "7");
        assert!(format.call(&floats, 0).is_err());
    }

    #[test]
    fn bytes_and_void_follow_python() {
        assert_eq!(py_bytes(b"a'b"), "b\"a'b\"");
        assert_eq!(py_bytes(b"'\""), "b'\\'\"'");
        assert_eq!(py_bytes(b"\x00\x80\xff\t"), "b'\\x00\\x80\\xff\\t'");
        assert_eq!(void_str(b"ab"), "b'\\x61\\x62'");
        assert_eq!(complex_str(" 1.".into(), "+0.  ".into()), " 1.+0.j  ");
    }
}
