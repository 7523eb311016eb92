//! NumPy's `repr` of an array, character for character: what `repr(np.load(f))` prints under
//! NumPy 2.x's default print options (line width 75, threshold 1000, 3 edge items, precision
//! 8, float mode `maxprec`, no suppression, sign `-`, no legacy mode).
//!
//! The structure follows `numpy/_core/arrayprint.py`, which is the specification:
//!
//! | NumPy | here |
//! | --- | --- |
//! | `_array_repr_implementation` | [`numpy_repr`]: `array(`…`)` and the `shape=`/`dtype=` extras |
//! | `_array2string`, `_leading_trailing` | `array2string`, `leading_trailing` (the shown corners) |
//! | `_get_format_function` | `Format::from_data`: one formatter, built from the shown values |
//! | `FloatingFormat` (`fillFormat`, `__call__`) | `FloatFormat` (`new`, `call`) |
//! | `ComplexFloatingFormat`, `IntegerFormat`, `BoolFormat` | `Format::Complex`, `Format::Int`, `Format::Bool` |
//! | `DatetimeFormat`, `TimedeltaFormat` (`_TimelikeFormat`) | `TimeFormat`, `datetime_as_string` |
//! | `StructuredVoidFormat`, `SubArrayFormat` | `Format::Record`, `FieldFormat` |
//! | `repr_format`, `str_format` (`S`/`U`/`V`) | `py_str`, `py_bytes`, `void_str` |
//! | `_formatArray`, `_extendLine`, `_extendLine_pretty` | `Printer`, `extend_line`, `extend_line_pretty` |
//! | `dtype_short_repr`, `dtype_is_implied`, `_struct_str` | `dtype_short_repr`, `dtype_is_implied`, `struct_str` |
//!
//! Float digits are NumPy's Dragon4 in "unique" mode: the shortest digits that read back to
//! the value in its own precision (IEEE round-half-even boundaries, as Dragon4 checks them),
//! cut at the precision, and padded with the value's further exact digits where NumPy asks
//! for a minimum. They come from Rust's formatting: `{:e}` (shortest round trip) for `f4`
//! and `f8`, `{:.N$e}`/`{:.N$}` (exact, ties to even) for the cut and the padding; `f2`
//! chooses among Rust's exact digits the way Dragon4 does. Lengths are counted in
//! characters, as Python's `len` counts them.
//!
//! The work is bounded by the input as in the rest of [`render`](super): an empty array
//! prints `[]` whatever its shape; the lists and elements to print that no payload byte backs
//! are counted first and checked against [`Header::check_backed`](crate::Header::check_backed);
//! a summarised array visits only the three first and last items of each long axis (and a
//! summarised record subarray only the edges of its long axes).

use std::borrow::Cow;

use crate::data::array::Array;
use crate::data::codec::check_code_points;
use crate::data::layout::strides;
use crate::data::scalar::{Float as FloatValue, Scalar};
use crate::data::storage::{map_units, units_per_element, ArrayData};
use crate::error::Result;
use crate::format::dtype::{DateUnit, Dtype, Endian, Field, Record, TimeUnit};
use crate::format::f16::{f16_bits_to_f64, f64_to_f16_bits};
use crate::format::header::Header;
use crate::format::repr::{py_bytes, py_shape, py_str, py_str_units};
use crate::render::bounds::{unbacked_items, EDGE};

/// `linewidth`: the longest line NumPy writes.
const LINE_WIDTH: usize = 75;
/// `threshold`: arrays of more elements than this are summarised.
const THRESHOLD: usize = 1000;
/// `precision`: at most this many fraction digits (positional) or mantissa digits after the
/// point (scientific).
const PRECISION: usize = 8;
/// The separator `array_repr` passes to `array2string`.
const SEPARATOR: &str = ", ";
/// What `array_repr` writes before the values.
const PREFIX: &str = "array(";
/// The `datetime64`/`timedelta64` value NaT.
const NAT: i64 = i64::MIN;

/// `repr(a)` as NumPy 2.x prints it, under its default print options, for the array `a`
/// NumPy loads from the same file: multi-line, aligned and wrapped at 75 columns, floats as
/// NumPy's Dragon4 writes them (shortest unique digits, at most 8 after the point,
/// positional or scientific as NumPy chooses), in logical order whatever the memory order,
/// with the `shape=`/`dtype=` suffixes NumPy adds. With `summarise` (NumPy's default) an
/// array of more than 1000 elements shows only the first and last three items of each long
/// axis; without it, every element (NumPy under `np.set_printoptions(threshold=sys.maxsize)`).
///
/// Two inputs print differently: a string holding a code point that Python's Unicode
/// database marks unassigned shows it as it is where Python escapes it (as npyguard's string
/// repr does everywhere, see `grammar/DEVIATIONS.md`); a `datetime64` of generic unit
/// holding a value other than NaT, which NumPy refuses to print, shows its count.
///
/// [`ErrorKind::Unbacked`](crate::ErrorKind::Unbacked) when the lists and elements to print
/// that no payload byte backs exceed what [`Header::check_backed`](crate::Header::check_backed)
/// allows (e.g. every element of 2^40 records of item size 0, without `summarise`).
///
/// ```
/// use npyguard::{render::numpy_repr, NpyArray};
/// let a = NpyArray::from_vec(vec![1.5f64, f64::NAN, -3.0, 1e-3], vec![2, 2]).unwrap();
/// assert_eq!(
///     numpy_repr(&a.into_array(), true).unwrap(),
///     "array([[ 1.5e+00,      nan],\n       [-3.0e+00,  1.0e-03]])"
/// );
/// let b = NpyArray::from_vec((0..5000i32).collect(), vec![5000]).unwrap().into_array();
/// assert_eq!(
///     numpy_repr(&b, true).unwrap(),
///     "array([   0,    1,    2, ..., 4997, 4998, 4999],\n      shape=(5000,), dtype=int32)"
/// );
/// ```
pub fn numpy_repr(array: &Array, summarise: bool) -> Result<String> {
    let threshold = if summarise { THRESHOLD } else { usize::MAX };
    let lst = if array.is_empty() {
        "[]".to_string()
    } else {
        array2string(array, threshold)?
    };
    let mut extras = Vec::new();
    if (array.is_empty() && array.shape() != [0].as_slice()) || array.len() > threshold {
        let shape: Vec<u64> = array.shape().iter().map(|&d| d as u64).collect();
        extras.push(format!("shape={}", py_shape(&shape)));
    }
    if array.is_empty() || !dtype_is_implied(array.dtype()) {
        extras.push(format!("dtype={}", dtype_short_repr(array.dtype())));
    }
    if extras.is_empty() {
        return Ok(format!("{PREFIX}{lst})"));
    }
    let arr_str = format!("{PREFIX}{lst},");
    let extra_str = format!("{})", extras.join(", "));
    // Put the extras on a line of their own when they would pass the line width.
    let last_line = arr_str.rsplit('\n').next().unwrap_or_default();
    let wraps = chars(last_line)
        .saturating_add(chars(&extra_str))
        .saturating_add(1)
        > LINE_WIDTH;
    let spacer = if wraps {
        format!("\n{}", " ".repeat(PREFIX.len()))
    } else {
        " ".to_string()
    };
    Ok(format!("{arr_str}{spacer}{extra_str}"))
}

/// `array2string(a, separator=', ', prefix='array(', suffix=')')` of a non-empty array.
fn array2string(array: &Array, threshold: usize) -> Result<String> {
    let summary = array.len() > threshold;
    let summarised: Vec<bool> = array
        .shape()
        .iter()
        .map(|&d| summary && d > EDGE.saturating_mul(2))
        .collect();
    check_bounded(array, &summarised, threshold)?;
    let data = leading_trailing(array, &summarised)?;
    // `_leading_trailing` concatenates the corners when it summarises, and concatenation
    // gives native byte order.
    let opts = FormatOptions {
        threshold,
        native: summarised.contains(&true),
    };
    let format = Format::from_data(&data, opts)?;
    let printer = Printer {
        format: &format,
        data: &data,
        strides: strides(data.shape()).0,
        summarised: &summarised,
    };
    let indent = " ".repeat(PREFIX.len().saturating_add(1));
    // The line width less the length of the suffix `)`.
    Ok(printer.recurse(0, 0, &indent, LINE_WIDTH.saturating_sub(1)))
}

/// Refuses to print what no payload byte backs beyond the allowance: the elements of an item
/// size 0 dtype and the empty lists of record subarrays, counted over the shown items.
fn check_bounded(array: &Array, summarised: &[bool], threshold: usize) -> Result<()> {
    let shown: Vec<usize> = array
        .shape()
        .iter()
        .zip(summarised)
        .map(|(&d, &s)| if s { EDGE.saturating_mul(2) } else { d })
        .collect();
    let unbacked = unbacked_items(array.dtype(), &shown, threshold);
    if unbacked > 0 {
        array
            .header()
            .check_backed(unbacked, "unbacked lists and elements to print")?;
    }
    Ok(())
}

/// `_leading_trailing`: the array in C order reduced to the first and last `EDGE` items of
/// each summarised axis (all of it when no axis is summarised).
fn leading_trailing<'a>(array: &'a Array, summarised: &[bool]) -> Result<Cow<'a, Array>> {
    if !summarised.contains(&true) {
        return Ok(array.as_c_order());
    }
    let shape = array.shape();
    let strides = if array.fortran_order() {
        strides(shape).1
    } else {
        strides(shape).0
    };
    // Memory indices of the kept elements, in C order of the kept index tuples. An axis that
    // is not summarised here has at most 2 * EDGE items.
    let mut flat = vec![0usize];
    let mut kept = Vec::with_capacity(shape.len());
    for ((&n, &summary), &stride) in shape.iter().zip(summarised).zip(&strides) {
        let picks: Vec<usize> = if summary {
            (0..EDGE).chain(n.saturating_sub(EDGE)..n).collect()
        } else {
            (0..n).collect()
        };
        kept.push(picks.len());
        flat = flat
            .iter()
            .flat_map(|&base| {
                picks
                    .iter()
                    .map(move |&k| base.saturating_add(k.saturating_mul(stride)))
            })
            .collect();
    }
    let header = Header::new(array.dtype().clone(), kept, false)?;
    let per = units_per_element(array.dtype());
    Array::new(header, pick_units(array.data(), per, &flat)).map(Cow::Owned)
}

/// The elements at memory indices `flat` (`per` stored units each), in that order.
fn pick_units(data: &ArrayData, per: usize, flat: &[usize]) -> ArrayData {
    fn pick<T: Copy>(v: &[T], per: usize, flat: &[usize]) -> Vec<T> {
        let mut out = Vec::with_capacity(flat.len().saturating_mul(per));
        for &i in flat {
            let start = i.saturating_mul(per);
            if let Some(units) = v.get(start..start.saturating_add(per)) {
                out.extend_from_slice(units);
            }
        }
        out
    }
    map_units!(data, v => pick(v, per, flat))
}

/// Python's `len` of `s`: its characters.
fn chars(s: &str) -> usize {
    s.chars().count()
}

// ------------------------------------------------------------------ _formatArray --

/// The items `_formatArray` visits along one axis: the leading ones, the summary `...`, the
/// trailing ones but the last, and the last.
struct Items {
    leading: std::ops::Range<usize>,
    summary: bool,
    trailing: std::ops::Range<usize>,
    last: usize,
}

impl Items {
    fn new(n: usize, summary: bool) -> Items {
        let last = n.saturating_sub(1);
        if summary {
            Items {
                leading: 0..EDGE,
                summary,
                trailing: n.saturating_sub(EDGE)..last,
                last,
            }
        } else {
            Items {
                leading: 0..0,
                summary,
                trailing: 0..last,
                last,
            }
        }
    }
}

/// `_formatArray` over the shown elements (`data`, C order; `summarised` per axis).
struct Printer<'a> {
    format: &'a Format,
    data: &'a Array,
    strides: Vec<usize>,
    summarised: &'a [bool],
}

impl Printer<'_> {
    /// `recurser(index, hanging_indent, curr_width)` for the block at element `offset`.
    fn recurse(&self, axis: usize, offset: usize, hanging: &str, width: usize) -> String {
        let shape = self.data.shape();
        let Some(&n) = shape.get(axis) else {
            return self.format.call(self.data, offset);
        };
        let axes_left = shape.len().saturating_sub(axis);
        // When recursing, add a space to align with the `[` and take one off the width.
        let next_hanging = format!("{hanging} ");
        let next_width = width.saturating_sub(1);
        let stride = self.strides.get(axis).copied().unwrap_or(0);
        let item = |k: usize| {
            let at = offset.saturating_add(k.saturating_mul(stride));
            self.recurse(axis.saturating_add(1), at, &next_hanging, next_width)
        };
        let items = Items::new(n, self.summarised.get(axis).copied().unwrap_or(false));
        let s = if axes_left == 1 {
            row(&items, item, hanging, width)
        } else {
            rows(&items, item, hanging, axes_left)
        };
        // Remove the hanging indent and wrap in [].
        format!("[{}]", s.get(hanging.len()..).unwrap_or_default())
    }
}

/// The last axis: elements wrapped so that no line passes `width` (less the `]`).
fn row(items: &Items, item: impl Fn(usize) -> String, hanging: &str, width: usize) -> String {
    // The width up to the separator or bracket: max(len(', '.rstrip()), len(']')) = 1.
    let elem_width = width.saturating_sub(1);
    let mut s = String::new();
    let mut line = hanging.to_string();
    for k in items.leading.clone() {
        extend_line_pretty(&mut s, &mut line, &item(k), elem_width, hanging);
        line.push_str(SEPARATOR);
    }
    if items.summary {
        extend_line(&mut s, &mut line, "...", elem_width, hanging);
        line.push_str(SEPARATOR);
    }
    for k in items.trailing.clone() {
        extend_line_pretty(&mut s, &mut line, &item(k), elem_width, hanging);
        line.push_str(SEPARATOR);
    }
    extend_line_pretty(&mut s, &mut line, &item(items.last), elem_width, hanging);
    s.push_str(&line);
    s
}

/// The other axes: one block per line, blank lines between blocks of 3-D and more.
fn rows(items: &Items, item: impl Fn(usize) -> String, hanging: &str, axes_left: usize) -> String {
    let line_sep = format!(",{}", "\n".repeat(axes_left.saturating_sub(1)));
    let mut s = String::new();
    let mut push = |block: &str, sep: &str| {
        s.push_str(hanging);
        s.push_str(block);
        s.push_str(sep);
    };
    for k in items.leading.clone() {
        push(&item(k), &line_sep);
    }
    if items.summary {
        push("...", &line_sep);
    }
    for k in items.trailing.clone() {
        push(&item(k), &line_sep);
    }
    push(&item(items.last), "");
    s
}

/// `_extendLine`: appends `word` to `line`, first moving `line` to `s` when the word would
/// pass `width` (unless the line holds only the prefix: wrapping would not help).
fn extend_line(s: &mut String, line: &mut String, word: &str, width: usize, prefix: &str) {
    let line_len = chars(line);
    if line_len.saturating_add(chars(word)) > width && line_len > chars(prefix) {
        s.push_str(line.trim_end());
        s.push('\n');
        line.clear();
        line.push_str(prefix);
    }
    line.push_str(word);
}

/// `_extendLine_pretty`: [`extend_line`] for a word of several lines, which is kept as a
/// block aligned under its first line.
fn extend_line_pretty(s: &mut String, line: &mut String, word: &str, width: usize, prefix: &str) {
    let words: Vec<&str> = word.lines().collect();
    let (Some(first), Some(last), true) = (words.first(), words.last(), words.len() > 1) else {
        return extend_line(s, line, word, width, prefix);
    };
    let max_len = words.iter().map(|w| chars(w)).max().unwrap_or(0);
    let line_len = chars(line);
    let indent = if line_len.saturating_add(max_len) > width && line_len > chars(prefix) {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = format!("{prefix}{first}");
        prefix.to_string()
    } else {
        line.push_str(first);
        " ".repeat(line_len)
    };
    for w in words.iter().skip(1) {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = format!("{indent}{w}");
    }
    line.push_str(&" ".repeat(max_len.saturating_sub(chars(last))));
}

// ------------------------------------------------------------------- formatters --

/// What the formatters depend on besides the values.
#[derive(Debug, Clone, Copy)]
struct FormatOptions {
    /// `threshold`: record subarrays of more elements are summarised.
    threshold: usize,
    /// The values were concatenated into native byte order (see [`swapped_reduction`]).
    native: bool,
}

/// `_get_format_function`: the formatter of one dtype family, built from the values shown.
enum Format {
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
    fn from_data(data: &Array, opts: FormatOptions) -> Result<Format> {
        Ok(match data.data() {
            ArrayData::Bool(_) => Format::Bool {
                padded: !data.shape().is_empty(),
            },
            ArrayData::I8(_)
            | ArrayData::U8(_)
            | ArrayData::I16(_)
            | ArrayData::I32(_)
            | ArrayData::I64(_)
            | ArrayData::U16(_)
            | ArrayData::U32(_)
            | ArrayData::U64(_) => Format::integer(data.data()),
            ArrayData::F16(v) => {
                let halves: Vec<Half> = v.iter().map(|&b| Half(b)).collect();
                Format::Float(FloatFormat::new(&halves, false))
            }
            ArrayData::F32(v) => Format::Float(FloatFormat::new(v, false)),
            ArrayData::F64(v) => Format::Float(FloatFormat::new(v, false)),
            ArrayData::C64(v) => Format::complex(v),
            ArrayData::C128(v) => Format::complex(v),
            ArrayData::DateTime(v) => {
                let unit = match data.dtype() {
                    Dtype::DateTime(u, _) => *u,
                    _ => DateUnit {
                        unit: TimeUnit::Generic,
                        multiple: 1,
                    },
                };
                let swapped = !opts.native && swapped_reduction(data.dtype());
                let time = TimeFormat::new(v, swapped, |x| datetime_repr(x, unit));
                Format::DateTime { time, unit }
            }
            ArrayData::TimeDelta(v) => {
                let swapped = !opts.native && swapped_reduction(data.dtype());
                Format::TimeDelta(TimeFormat::new(v, swapped, |x| x.to_string()))
            }
            ArrayData::Bytes(_) => Format::Bytes,
            ArrayData::Unicode(v) => {
                check_code_points(v, units_per_element(data.dtype()))?;
                Format::Str
            }
            ArrayData::Void(_) => Format::Void,
            ArrayData::Record(_) => Format::Record(FieldFormat::all(data, opts)?),
        })
    }

    /// `IntegerFormat(data)`.
    fn integer(data: &ArrayData) -> Format {
        let mut range: Option<(i128, i128)> = None;
        let mut i = 0usize;
        while let Some(x) = int_at(data, i) {
            range = Some(range.map_or((x, x), |(lo, hi)| (lo.min(x), hi.max(x))));
            i = i.saturating_add(1);
        }
        let width = range.map_or(0, |(lo, hi)| lo.to_string().len().max(hi.to_string().len()));
        Format::Int { width }
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
    /// [`ArrayData::scalar`] (a formatter and a value of different kinds print nothing).
    fn call(&self, data: &Array, i: usize) -> String {
        let per = units_per_element(data.dtype());
        let Some(value) = data.data().scalar(i, per) else {
            return String::new();
        };
        match (self, value) {
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
            (Format::Record(fields), Scalar::Record(_)) => record_str(fields, i),
            _ => String::new(),
        }
    }
}

/// A float formatter called on a value in its own precision.
fn float_call(f: &FloatFormat, x: FloatValue) -> String {
    match x {
        FloatValue::Half(b) => f.call(Half(b)),
        FloatValue::Single(x) => f.call(x),
        FloatValue::Double(x) => f.call(x),
    }
}

/// Integer element `i` of integer data (`None` past the end or for other dtypes).
fn int_at(data: &ArrayData, i: usize) -> Option<i128> {
    match data.scalar(i, 1)? {
        Scalar::Int(x) => Some(x),
        _ => None,
    }
}

/// `ComplexFloatingFormat.__call__`: the `j` goes before the imaginary part's padding.
fn complex_str(re: String, im: String) -> String {
    let trimmed = im.trim_end_matches(' ');
    let pad = im.get(trimmed.len()..).unwrap_or_default();
    format!("{re}{trimmed}j{pad}")
}

/// `StructuredVoidFormat.__call__`: the fields as a Python tuple.
fn record_str(fields: &[FieldFormat], i: usize) -> String {
    let parts: Vec<String> = fields.iter().map(|f| f.call(i)).collect();
    match parts.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", parts.join(", ")),
    }
}

/// One field of `StructuredVoidFormat`: the formatter of the field's values (`data`, of
/// shape `shown shape + shape`), wrapped in `SubArrayFormat` when the field is a subarray.
struct FieldFormat {
    format: Format,
    data: Array,
    shape: Vec<usize>,
    count: usize,
    /// `SubArrayFormat`'s summary: the subarray has more than `threshold` elements.
    summary: bool,
}

impl FieldFormat {
    /// `StructuredVoidFormat.from_data(data)`.
    fn all(data: &Array, opts: FormatOptions) -> Result<Vec<FieldFormat>> {
        let Dtype::Record(record) = data.dtype() else {
            return Ok(Vec::new());
        };
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
    fn call(&self, i: usize) -> String {
        if self.shape.is_empty() {
            return self.format.call(&self.data, i);
        }
        self.subarray(i.saturating_mul(self.count), &self.shape)
    }

    /// `SubArrayFormat.format_array` of the block at element `start` with `shape`.
    fn subarray(&self, start: usize, shape: &[usize]) -> String {
        let Some((&n, rest)) = shape.split_first() else {
            return self.format.call(&self.data, start);
        };
        let inner = rest.iter().fold(1usize, |acc, &d| acc.saturating_mul(d));
        let at = |k: usize| self.subarray(start.saturating_add(k.saturating_mul(inner)), rest);
        let items: Vec<String> = if self.summary && n > EDGE.saturating_mul(2) {
            (0..EDGE)
                .map(at)
                .chain(std::iter::once("...".to_string()))
                .chain((n.saturating_sub(EDGE)..n).map(at))
                .collect()
        } else {
            (0..n).map(at).collect()
        };
        format!("[{}]", items.join(", "))
    }
}

/// `_TimelikeFormat`: right-aligned to the widest of the largest and smallest non-NaT value
/// (at least 5, `'NaT'`, when there is a NaT).
struct TimeFormat {
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

// -------------------------------------------------------------- FloatingFormat --

/// An `f2` value by its bits.
#[derive(Debug, Clone, Copy)]
struct Half(u16);

/// What [`FloatFormat`] needs of `f2`, `f4` and `f8`.
trait Float: Copy {
    /// The value, exactly.
    fn wide(self) -> f64;
    /// The magnitude.
    fn abs(self) -> Self;
    /// Dragon4's unique digits of the magnitude: the shortest that read back to the value.
    fn shortest(self) -> Digits;
    /// `fillFormat`'s choice of scientific notation from the largest and smallest non-zero
    /// magnitudes, compared and divided in the type's own precision (NumPy casts the Python
    /// constants to the array's type).
    fn needs_exp(max: Self, min: Self) -> bool;
}

impl Float for f64 {
    fn wide(self) -> f64 {
        self
    }
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    fn shortest(self) -> Digits {
        let x = f64::abs(self);
        let s = Digits::parse_sci(&format!("{x:e}"));
        ties_to_even(s, x, |d| d.text().parse::<f64>().ok() == Some(x))
    }
    fn needs_exp(max: f64, min: f64) -> bool {
        max >= 1e8 || min < 1e-4 || max / min > 1000.0
    }
}

impl Float for f32 {
    fn wide(self) -> f64 {
        f64::from(self)
    }
    fn abs(self) -> f32 {
        f32::abs(self)
    }
    fn shortest(self) -> Digits {
        let x = f32::abs(self);
        let s = Digits::parse_sci(&format!("{x:e}"));
        ties_to_even(s, f64::from(x), |d| d.text().parse::<f32>().ok() == Some(x))
    }
    fn needs_exp(max: f32, min: f32) -> bool {
        // 10.**min(8, finfo(float32).precision) = 1e6.
        max >= 1e6 || min < 1e-4 || max / min > 1000.0
    }
}

impl Float for Half {
    fn wide(self) -> f64 {
        f16_bits_to_f64(self.0)
    }
    fn abs(self) -> Half {
        Half(self.0 & 0x7fff)
    }
    fn shortest(self) -> Digits {
        half_shortest(self.0 & 0x7fff)
    }
    fn needs_exp(max: Half, min: Half) -> bool {
        let (max, min) = (max.wide(), min.wide());
        let tiny = f16_bits_to_f64(f64_to_f16_bits(1e-4));
        // float16 division is float32 division rounded to float16.
        let ratio = f16_bits_to_f64(f64_to_f16_bits(f64::from(max as f32 / min as f32)));
        // 10.**min(8, finfo(float16).precision) = 1000.
        max >= 1000.0 || min < tiny || ratio > 1000.0
    }
}

/// Rust's shortest digits `s` of the magnitude `x` with a tie broken as Dragon4 breaks it.
/// When `x` lies exactly halfway between two candidates of that length that both read back
/// to it (`reads_back`), Rust takes the upper one, Dragon4 the one whose last digit is even.
fn ties_to_even(s: Digits, x: f64, reads_back: impl Fn(&Digits) -> bool) -> Digits {
    let n = s.digits.len();
    // The value to one more digit: a tie is an exact expansion of n + 1 digits ending in 5.
    let t = Digits::parse_sci(&format!("{x:.n$e}"));
    if t.digits.len() != n.saturating_add(1) || t.digits.last() != Some(&b'5') || !t.equals(x) {
        return s;
    }
    let down = t.truncated(n);
    let even = down.digits.last().is_some_and(|&d| d & 1 == 0);
    if even && t.truncated_up(n) == s && reads_back(&down) {
        down
    } else {
        s
    }
}

/// Dragon4's unique digits of the positive `f2` value `bits`: at the first length where the
/// value's exact digits cut there (`down`) or cut and increased (`up`) read back to it, the
/// one that does, or the nearer when both do (ties to the even digit).
fn half_shortest(bits: u16) -> Digits {
    let x = f16_bits_to_f64(bits);
    // Every f2 value has fewer than 40 significant digits: this is its exact expansion.
    let exact = Digits::parse_sci(&format!("{x:.40e}"));
    let reads_back = |d: &Digits| d.to_f64().is_some_and(|v| f64_to_f16_bits(v) == bits);
    for n in 1..exact.digits.len() {
        let down = exact.truncated(n);
        let up = exact.truncated_up(n);
        match (reads_back(&down), reads_back(&up)) {
            (true, false) => return down,
            (false, true) => return up,
            (true, true) => return exact.rounded(n),
            (false, false) => {}
        }
    }
    exact
}

/// Decimal digits of a magnitude: `d1.d2d3… × 10^exp`, without trailing zeros (`0` for zero).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Digits {
    digits: Vec<u8>,
    exp: i32,
}

impl Digits {
    fn zero() -> Digits {
        Digits {
            digits: vec![b'0'],
            exp: 0,
        }
    }

    /// Digits of `digits` (leading zeros allowed) whose first digit has weight `10^exp`.
    fn new(digits: &[u8], exp: i32) -> Digits {
        let lead = digits.iter().take_while(|&&b| b == b'0').count();
        let Some(rest) = digits.get(lead..).filter(|r| !r.is_empty()) else {
            return Digits::zero();
        };
        let len = rest
            .iter()
            .rposition(|&b| b != b'0')
            .map_or(1, |p| p.saturating_add(1));
        Digits {
            digits: rest.get(..len).unwrap_or(rest).to_vec(),
            exp: exp.saturating_sub(i32::try_from(lead).unwrap_or(i32::MAX)),
        }
    }

    /// Rust's `{:e}` / `{:.N$e}` text of a magnitude (`1.25e-7`, `0e0`).
    fn parse_sci(s: &str) -> Digits {
        let (mantissa, exp) = s.split_once('e').unwrap_or((s, "0"));
        let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
        Digits::new(&digits, exp.parse().unwrap_or(0))
    }

    /// Rust's `{:.N$}` text of a magnitude (`12.34500000`).
    fn parse_pos(s: &str) -> Digits {
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        let digits: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
        let exp = i32::try_from(int.len())
            .unwrap_or(i32::MAX)
            .saturating_sub(1);
        Digits::new(&digits, exp)
    }

    /// The decimal exponent of the last digit.
    fn scale(&self) -> i32 {
        let len = i32::try_from(self.digits.len()).unwrap_or(i32::MAX);
        self.exp.saturating_sub(len).saturating_add(1)
    }

    /// The value as text Rust's float parsing reads (`1699e1`).
    fn text(&self) -> String {
        format!("{}e{}", String::from_utf8_lossy(&self.digits), self.scale())
    }

    /// The value, as `f64` parsing reads it.
    fn to_f64(&self) -> Option<f64> {
        self.text().parse().ok()
    }

    /// Whether the decimal is exactly the finite, non-zero `x`: it reads back to `x` and is a
    /// binary number of at most 53 significant bits (its odd part, after the powers of 5 of
    /// its scale, fits), so reading it rounded nothing.
    fn equals(&self, x: f64) -> bool {
        let Ok(m) = String::from_utf8_lossy(&self.digits).parse::<u128>() else {
            return false;
        };
        let scale = self.scale();
        let Some(pow5) = 5u128.checked_pow(scale.unsigned_abs()) else {
            return false;
        };
        let odd = if scale >= 0 {
            m.checked_mul(pow5)
        } else {
            m.checked_rem(pow5)
                .filter(|&r| r == 0)
                .and_then(|_| m.checked_div(pow5))
        };
        let fits = odd.is_some_and(|q| q.checked_shr(q.trailing_zeros()).unwrap_or(q) < 1 << 53);
        fits && self.to_f64() == Some(x)
    }

    /// The first `n` digits.
    fn truncated(&self, n: usize) -> Digits {
        Digits::new(self.digits.get(..n).unwrap_or(&self.digits), self.exp)
    }

    /// The first `n` digits plus one unit in the last of them.
    fn truncated_up(&self, n: usize) -> Digits {
        let mut digits = self.digits.get(..n).unwrap_or(&self.digits).to_vec();
        for d in digits.iter_mut().rev() {
            if *d == b'9' {
                *d = b'0';
            } else {
                *d = d.saturating_add(1);
                return Digits::new(&digits, self.exp);
            }
        }
        Digits::new(b"1", self.exp.saturating_add(1))
    }

    /// The nearest of `n` digits, ties to the even digit.
    fn rounded(&self, n: usize) -> Digits {
        let down = self.truncated(n);
        let rest = self.digits.get(n..).unwrap_or_default();
        let up = match rest.first() {
            Some(&d) if d > b'5' => true,
            Some(&b'5') if rest.len() > 1 => true,
            Some(&b'5') => self
                .digits
                .get(n.saturating_sub(1))
                .is_some_and(|&d| d & 1 == 1),
            _ => false,
        };
        if up {
            self.truncated_up(n)
        } else {
            down
        }
    }

    /// The integer and fraction digits written positionally (`("12", "345")`, `("0", "0012")`).
    fn positional_parts(&self) -> (String, String) {
        let text = |d: &[u8]| String::from_utf8_lossy(d).into_owned();
        match usize::try_from(self.exp) {
            Ok(e) => {
                let whole = e.saturating_add(1);
                let mut int = text(self.digits.get(..whole).unwrap_or(&self.digits));
                int.push_str(&"0".repeat(whole.saturating_sub(self.digits.len())));
                (int, text(self.digits.get(whole..).unwrap_or_default()))
            }
            Err(_) => {
                let zeros = usize::try_from(self.exp.unsigned_abs()).unwrap_or(0);
                let frac = format!(
                    "{}{}",
                    "0".repeat(zeros.saturating_sub(1)),
                    text(&self.digits)
                );
                ("0".to_string(), frac)
            }
        }
    }
}

/// `dragon4_positional(x, precision=max_frac, unique=True, fractional=True)` digits: the
/// unique digits, or the exact value rounded to `max_frac` fraction digits when they are more.
fn positional_digits<T: Float>(x: T, max_frac: usize) -> Digits {
    let s = x.shortest();
    if s.positional_parts().1.len() <= max_frac {
        s
    } else {
        Digits::parse_pos(&format!("{:.max_frac$}", x.wide().abs()))
    }
}

/// `dragon4_scientific(x, precision=max_frac, min_digits=min_frac, unique=True)` digits: the
/// unique digits, cut at `max_frac` digits after the point or continued to `min_frac` with the
/// exact value's digits (both rounded to nearest, ties to even).
fn scientific_digits<T: Float>(x: T, max_frac: usize, min_frac: usize) -> Digits {
    let s = x.shortest();
    let frac = s.digits.len().saturating_sub(1);
    if frac > max_frac {
        Digits::parse_sci(&format!("{:.max_frac$e}", x.wide().abs()))
    } else if frac < min_frac {
        Digits::parse_sci(&format!("{:.min_frac$e}", x.wide().abs()))
    } else {
        s
    }
}

/// The exponent as Dragon4 writes it: sign and at least `min_digits` (and 2) digits.
fn exp_text(exp: i32, min_digits: usize) -> String {
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{sign}{:0>w$}", exp.unsigned_abs(), w = min_digits.max(2))
}

/// `FloatingFormat` under the default options (`floatmode='maxprec'`, precision 8).
#[derive(Debug, Clone)]
struct FloatFormat {
    sign_plus: bool,
    exp: bool,
    precision: usize,
    pad_left: usize,
    pad_right: usize,
    exp_size: usize,
}

impl FloatFormat {
    /// `FloatingFormat.__init__` / `fillFormat(data)`; `sign_plus` is `sign='+'`.
    fn new<T: Float>(data: &[T], sign_plus: bool) -> FloatFormat {
        let finite: Vec<T> = data
            .iter()
            .copied()
            .filter(|x| x.wide().is_finite())
            .collect();
        let range = finite
            .iter()
            .map(|x| x.abs())
            .filter(|x| x.wide() != 0.0)
            .fold(None, |acc: Option<(T, T)>, x| {
                Some(acc.map_or((x, x), |(lo, hi)| {
                    let lo = if x.wide() < lo.wide() { x } else { lo };
                    let hi = if x.wide() > hi.wide() { x } else { hi };
                    (lo, hi)
                }))
            });
        let mut f = FloatFormat {
            sign_plus,
            exp: range.is_some_and(|(min, max)| T::needs_exp(max, min)),
            precision: PRECISION,
            pad_left: 0,
            pad_right: 0,
            exp_size: 0,
        };
        if f.exp {
            f.fill_scientific(&finite);
        } else {
            f.fill_positional(&finite);
        }
        if finite.len() < data.len() {
            // Room for nan and inf (and -inf, or +nan/+inf with sign '+').
            let neginf = sign_plus || data.iter().any(|x| x.wide() == f64::NEG_INFINITY);
            let inf_len = 3usize.saturating_add(usize::from(neginf));
            let offset = f.pad_right.saturating_add(1);
            f.pad_left = f.pad_left.max(inf_len.saturating_sub(offset));
        }
        f
    }

    fn fill_scientific<T: Float>(&mut self, finite: &[T]) {
        let (mut pad_left, mut precision, mut exp_size) = (0, 0, 0);
        for &x in finite {
            let d = scientific_digits(x, PRECISION, 0);
            pad_left = pad_left.max(self.sign(x.wide()).len().saturating_add(1));
            precision = precision.max(d.digits.len().saturating_sub(1));
            exp_size = exp_size.max(exp_text(d.exp, 0).len().saturating_sub(1));
        }
        self.pad_left = pad_left;
        self.precision = precision;
        self.exp_size = exp_size;
        self.pad_right = exp_size.saturating_add(2).saturating_add(precision);
    }

    fn fill_positional<T: Float>(&mut self, finite: &[T]) {
        for &x in finite {
            let (int, frac) = positional_digits(x, PRECISION).positional_parts();
            let int_len = self.sign(x.wide()).len().saturating_add(int.len());
            self.pad_left = self.pad_left.max(int_len);
            self.pad_right = self.pad_right.max(frac.len());
        }
    }

    fn sign(&self, x: f64) -> &'static str {
        if x.is_sign_negative() {
            "-"
        } else if self.sign_plus {
            "+"
        } else {
            ""
        }
    }

    /// `FloatingFormat.__call__(x)`.
    fn call<T: Float>(&self, x: T) -> String {
        let w = x.wide();
        let sign = self.sign(w);
        if !w.is_finite() {
            let ret = if w.is_nan() {
                format!("{}nan", if self.sign_plus { "+" } else { "" })
            } else {
                format!("{sign}inf")
            };
            let width = self
                .pad_left
                .saturating_add(self.pad_right)
                .saturating_add(1);
            return format!("{ret:>width$}");
        }
        if self.exp {
            let d = scientific_digits(x, self.precision, self.precision);
            let first = String::from_utf8_lossy(d.digits.get(..1).unwrap_or(b"0".as_slice()));
            let frac = String::from_utf8_lossy(d.digits.get(1..).unwrap_or_default());
            let int = format!("{sign}{first}");
            format!(
                "{int:>l$}.{frac:0<p$}e{}",
                exp_text(d.exp, self.exp_size),
                l = self.pad_left,
                p = self.precision
            )
        } else {
            let (int, frac) = positional_digits(x, PRECISION).positional_parts();
            let int = format!("{sign}{int}");
            format!(
                "{int:>l$}.{frac:<r$}",
                l = self.pad_left,
                r = self.pad_right
            )
        }
    }
}

// ------------------------------------------------------------ datetime_as_string --

/// The fields of `npy_datetimestruct`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DateTimeStruct {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    min: i64,
    sec: i64,
    us: i64,
    ps: i64,
    attos: i64,
}

/// `extract_unit_64`: floor division of `*d` by `unit`, leaving the remainder in `*d`.
fn extract(d: &mut i64, unit: i64) -> i64 {
    let q = d.checked_div_euclid(unit).unwrap_or(0);
    *d = d.checked_rem_euclid(unit).unwrap_or(0);
    q
}

/// `days_to_yearsdays`: the year of `*days` (days since 1970-01-01), leaving the day of
/// the year in `*days`. Wraps as NumPy's C arithmetic does at the ends of the range.
fn days_to_yearsdays(days: &mut i64) -> i64 {
    // 400 * 365 + 100 - 4 + 1.
    const DAYS_PER_400_YEARS: i64 = 146_097;
    // Relative to the year 2000 (divisible by 400): 365 * 30 + 7 days after 1970.
    let mut d = days.wrapping_sub(10_957);
    let mut year = extract(&mut d, DAYS_PER_400_YEARS).wrapping_mul(400);
    if d >= 366 {
        year = year.wrapping_add(d.wrapping_sub(1).wrapping_div(36524).wrapping_mul(100));
        d = d.wrapping_sub(1).wrapping_rem(36524);
        if d >= 365 {
            year = year.wrapping_add(d.wrapping_add(1).wrapping_div(1461).wrapping_mul(4));
            d = d.wrapping_add(1).wrapping_rem(1461);
            if d >= 366 {
                year = year.wrapping_add(d.wrapping_sub(1).wrapping_div(365));
                d = d.wrapping_sub(1).wrapping_rem(365);
            }
        }
    }
    *days = d;
    year.wrapping_add(2000)
}

/// `set_datetimestruct_days`: year, month and day of `days` since 1970-01-01.
fn set_days(days: i64, ts: &mut DateTimeStruct) {
    const COMMON: [i64; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    const LEAP: [i64; 12] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut d = days;
    ts.year = days_to_yearsdays(&mut d);
    let y = ts.year;
    let leap = y & 3 == 0 && (y.wrapping_rem(100) != 0 || y.wrapping_rem(400) == 0);
    let lengths = if leap { &LEAP } else { &COMMON };
    for (month, &len) in (1i64..=12).zip(lengths) {
        if d < len {
            ts.month = month;
            ts.day = d.wrapping_add(1);
            return;
        }
        d = d.wrapping_sub(len);
    }
}

/// `convert_datetime_to_datetimestruct` for a count `dt` of the base `unit`.
fn datetime_struct(mut dt: i64, unit: TimeUnit) -> DateTimeStruct {
    let mut ts = DateTimeStruct {
        year: 1970,
        month: 1,
        day: 1,
        hour: 0,
        min: 0,
        sec: 0,
        us: 0,
        ps: 0,
        attos: 0,
    };
    // Days, then hours, minutes and seconds of a count of `per_sec` units per second.
    let clock = |dt: &mut i64, ts: &mut DateTimeStruct, per_sec: i64| {
        set_days(extract(dt, per_sec.wrapping_mul(86_400)), ts);
        ts.hour = extract(dt, per_sec.wrapping_mul(3600));
        ts.min = extract(dt, per_sec.wrapping_mul(60));
        ts.sec = extract(dt, per_sec);
    };
    match unit {
        TimeUnit::Generic => {}
        TimeUnit::Year => ts.year = dt.wrapping_add(1970),
        TimeUnit::Month => {
            ts.year = extract(&mut dt, 12).wrapping_add(1970);
            ts.month = dt.wrapping_add(1);
        }
        TimeUnit::Week => set_days(dt.wrapping_mul(7), &mut ts),
        TimeUnit::Day => set_days(dt, &mut ts),
        TimeUnit::Hour => {
            set_days(extract(&mut dt, 24), &mut ts);
            ts.hour = dt;
        }
        TimeUnit::Minute => {
            set_days(extract(&mut dt, 1440), &mut ts);
            ts.hour = extract(&mut dt, 60);
            ts.min = dt;
        }
        TimeUnit::Second => {
            clock(&mut dt, &mut ts, 1);
        }
        TimeUnit::Milli => {
            clock(&mut dt, &mut ts, 1000);
            ts.us = dt.wrapping_mul(1000);
        }
        TimeUnit::Micro => {
            clock(&mut dt, &mut ts, 1_000_000);
            ts.us = dt;
        }
        TimeUnit::Nano => {
            clock(&mut dt, &mut ts, 1_000_000_000);
            ts.us = extract(&mut dt, 1000);
            ts.ps = dt.wrapping_mul(1000);
        }
        TimeUnit::Pico => {
            clock(&mut dt, &mut ts, 1_000_000_000_000);
            ts.us = extract(&mut dt, 1_000_000);
            ts.ps = dt;
        }
        TimeUnit::Femto | TimeUnit::Atto => sub_second(dt, unit, &mut ts),
    }
    ts
}

/// The femto- and attosecond cases, whose whole range is a few hours around the epoch.
fn sub_second(mut dt: i64, unit: TimeUnit, ts: &mut DateTimeStruct) {
    const FS_PER_SEC: i64 = 1_000_000_000_000_000;
    if unit == TimeUnit::Femto {
        ts.hour = extract(&mut dt, 3_600_000_000_000_000_000);
        if ts.hour < 0 {
            (ts.year, ts.month, ts.day) = (1969, 12, 31);
            ts.hour = ts.hour.wrapping_add(24);
        }
        ts.min = extract(&mut dt, 60_000_000_000_000_000);
        ts.sec = extract(&mut dt, FS_PER_SEC);
        ts.us = extract(&mut dt, 1_000_000_000);
        ts.ps = extract(&mut dt, 1000);
        ts.attos = dt.wrapping_mul(1000);
    } else {
        ts.sec = extract(&mut dt, 1_000_000_000_000_000_000);
        if ts.sec < 0 {
            (ts.year, ts.month, ts.day, ts.hour, ts.min) = (1969, 12, 31, 23, 59);
            ts.sec = ts.sec.wrapping_add(60);
        }
        ts.us = extract(&mut dt, 1_000_000_000_000);
        ts.ps = extract(&mut dt, 1_000_000);
        ts.attos = dt;
    }
}

/// `np.datetime_as_string(x, unit=<the dtype's unit>)` of a non-NaT value of `unit`.
fn datetime_as_string(x: i64, unit: DateUnit) -> String {
    // The cast from [N unit] to [unit] multiplies, wrapping as NumPy's does.
    let dt = x.wrapping_mul(i64::from(unit.multiple));
    let ts = datetime_struct(dt, unit.unit);
    let rank = time_rank(unit.unit);
    let mut s = format!("{:04}", ts.year);
    let parts: [(u8, &str, i64, usize); 11] = [
        (1, "-", ts.month, 2),
        (2, "-", ts.day, 2),
        (3, "T", ts.hour, 2),
        (4, ":", ts.min, 2),
        (5, ":", ts.sec, 2),
        (6, ".", ts.us.wrapping_div(1000), 3),
        (7, "", ts.us.wrapping_rem(1000), 3),
        (8, "", ts.ps.wrapping_div(1000), 3),
        (9, "", ts.ps.wrapping_rem(1000), 3),
        (10, "", ts.attos.wrapping_div(1000), 3),
        (11, "", ts.attos.wrapping_rem(1000), 3),
    ];
    for (r, sep, v, w) in parts {
        if rank >= r {
            s.push_str(&format!("{sep}{v:0w$}"));
        }
    }
    s
}

/// How far down `make_iso_8601_datetime` writes a unit: 0 the year … 11 attoseconds
/// (weeks are written as days).
fn time_rank(unit: TimeUnit) -> u8 {
    match unit {
        TimeUnit::Generic | TimeUnit::Year => 0,
        TimeUnit::Month => 1,
        TimeUnit::Week | TimeUnit::Day => 2,
        TimeUnit::Hour => 3,
        TimeUnit::Minute => 4,
        TimeUnit::Second => 5,
        TimeUnit::Milli => 6,
        TimeUnit::Micro => 7,
        TimeUnit::Nano => 8,
        TimeUnit::Pico => 9,
        TimeUnit::Femto => 10,
        TimeUnit::Atto => 11,
    }
}

// ------------------------------------------------------------------ dtype reprs --

/// `dtype_is_implied`: the dtypes whose values show them (`bool`, native `int64`, `float64`,
/// `complex128`), which `repr` does not name.
fn dtype_is_implied(dtype: &Dtype) -> bool {
    match dtype {
        Dtype::Bool => true,
        Dtype::I64(e) | Dtype::F64(e) | Dtype::C128(e) => *e == Endian::HOST,
        _ => false,
    }
}

/// `dtype_short_repr`: `int32`, `'>i4'`, `'<U5'`, `'datetime64[ns]'`, `[('a', '<i4')]`, …
fn dtype_short_repr(dtype: &Dtype) -> String {
    match dtype {
        Dtype::Record(r) => struct_str(r),
        Dtype::Bytes(_) | Dtype::Unicode(..) | Dtype::Void(_) => format!("'{}'", dtype.typestr()),
        d if d.endian().is_some_and(|e| e != Endian::HOST) => format!("'{}'", d.typestr()),
        d => {
            let name = type_name(d);
            // Python's repr of names that are not identifiers (`'datetime64[ns]'`).
            if name.chars().all(|c| c.is_ascii_alphanumeric()) {
                name
            } else {
                format!("'{name}'")
            }
        }
    }
}

/// `dtype.name` of a non-record dtype.
fn type_name(dtype: &Dtype) -> String {
    match dtype {
        Dtype::Bool => "bool".into(),
        Dtype::I8 => "int8".into(),
        Dtype::U8 => "uint8".into(),
        Dtype::I16(_) => "int16".into(),
        Dtype::I32(_) => "int32".into(),
        Dtype::I64(_) => "int64".into(),
        Dtype::U16(_) => "uint16".into(),
        Dtype::U32(_) => "uint32".into(),
        Dtype::U64(_) => "uint64".into(),
        Dtype::F16(_) => "float16".into(),
        Dtype::F32(_) => "float32".into(),
        Dtype::F64(_) => "float64".into(),
        Dtype::C64(_) => "complex64".into(),
        Dtype::C128(_) => "complex128".into(),
        Dtype::DateTime(u, _) => format!("datetime64{u}"),
        Dtype::TimeDelta(u, _) => format!("timedelta64{u}"),
        other => other.typestr(),
    }
}

/// `_construction_repr(dtype, short=True)`: how a record writes a field's type.
fn construction_repr(dtype: &Dtype) -> String {
    let sized = |code: &str, n: usize| {
        if n == 0 {
            format!("'{code}'")
        } else {
            format!("'{code}{n}'")
        }
    };
    match dtype {
        Dtype::Record(r) => struct_str(r),
        Dtype::Bool => "'?'".into(),
        Dtype::I8 => "'i1'".into(),
        Dtype::U8 => "'u1'".into(),
        Dtype::Bytes(n) => sized("S", *n),
        Dtype::Void(n) => sized("V", *n),
        Dtype::Unicode(n, e) => sized(&format!("{}U", e.prefix()), *n),
        other => format!("'{}'", other.typestr()),
    }
}

/// `_struct_str`: the list form when the fields follow each other without gaps, else the
/// dict form with offsets (and titles).
fn struct_str(r: &Record) -> String {
    if is_packed(r) {
        let items: Vec<String> = r.fields.iter().map(list_item).collect();
        format!("[{}]", items.join(", "))
    } else {
        dict_str(r)
    }
}

/// `_is_packed`: every field at the end of the previous one, the last at the item size.
fn is_packed(r: &Record) -> bool {
    let mut total = 0usize;
    for f in &r.fields {
        if f.offset != total {
            return false;
        }
        total = total.saturating_add(f.size());
    }
    total == r.itemsize
}

/// One field of `_struct_list_str`: `('a', '<i4')`, `(('t', 'a'), '<f8', (2,))`.
fn list_item(f: &Field) -> String {
    let name = match &f.title {
        Some(t) => format!("({}, {})", py_str(t), py_str(&f.name)),
        None => py_str(&f.name),
    };
    match subarray_repr(f) {
        None => format!("({name}, {})", construction_repr(&f.dtype)),
        Some((ty, outer)) => format!("({name}, {ty}, {outer})"),
    }
}

/// A subarray field's type and outer shape as NumPy prints them: a subarray of a subarray
/// keeps its levels (`('<f8', (5,))` with outer shape `(2,)`); `None` for a scalar field.
fn subarray_repr(f: &Field) -> Option<(String, String)> {
    let levels = f.levels();
    let (outer, inner) = levels.split_first()?;
    let mut ty = construction_repr(&f.dtype);
    for level in inner.iter().rev() {
        ty = format!("({ty}, {})", shape_str(level));
    }
    Some((ty, shape_str(outer)))
}

/// `_struct_dict_str` (NumPy ≥ 1.22 spacing).
fn dict_str(r: &Record) -> String {
    let join = |items: Vec<String>| items.join(", ");
    let names = join(r.fields.iter().map(|f| py_str(&f.name)).collect());
    let formats = join(
        r.fields
            .iter()
            .map(|f| match subarray_repr(f) {
                None => construction_repr(&f.dtype),
                Some((ty, outer)) => format!("({ty}, {outer})"),
            })
            .collect(),
    );
    let offsets = join(r.fields.iter().map(|f| f.offset.to_string()).collect());
    let mut s = format!("{{'names': [{names}], 'formats': [{formats}], 'offsets': [{offsets}]");
    if r.fields.iter().any(|f| f.title.is_some()) {
        let titles = join(
            r.fields
                .iter()
                .map(|f| f.title.as_deref().map_or_else(|| "None".into(), py_str))
                .collect(),
        );
        s.push_str(&format!(", 'titles': [{titles}]"));
    }
    s.push_str(&format!(", 'itemsize': {}}}", r.itemsize));
    s
}

/// Python's repr of a shape tuple.
fn shape_str(shape: &[usize]) -> String {
    let dims: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    py_shape(&dims)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn half(x: f64) -> Half {
        Half(f64_to_f16_bits(x))
    }

    fn digits_text(d: &Digits) -> String {
        format!("{}e{}", String::from_utf8_lossy(&d.digits), d.exp)
    }

    #[test]
    fn half_shortest_follows_dragon4() {
        // 16992 has an even mantissa: 17000, on its upper boundary, reads back to it.
        assert_eq!(digits_text(&half(16992.0).shortest()), "17e4");
        assert_eq!(digits_text(&half(17008.0).shortest()), "1701e4");
        assert_eq!(digits_text(&half(0.1).shortest()), "1e-1");
        assert_eq!(digits_text(&half(65504.0).shortest()), "655e4");
        assert_eq!(digits_text(&Half(1).shortest()), "6e-8");
        assert_eq!(digits_text(&half(0.0).shortest()), "0e0");
    }

    #[test]
    fn ties_go_to_the_even_digit() {
        // 3566238.25 is halfway between 3566238.2 and 3566238.3: Dragon4 takes the even one.
        assert_eq!(digits_text(&3_566_238.2_f32.shortest()), "35662382e6");
        assert_eq!(digits_text(&9.5f64.shortest()), "95e0");
        assert_eq!(digits_text(&0.3f64.shortest()), "3e-1");
        assert!(Digits::parse_sci("2.5e-1").equals(0.25));
        assert!(!Digits::parse_sci("1e-1").equals(0.1));
    }

    #[test]
    fn min_digits_continue_with_exact_digits() {
        // NumPy prints float16(16992) as 1.699e+04 when three digits are asked for.
        assert_eq!(
            digits_text(&scientific_digits(half(16992.0), 8, 3)),
            "1699e4"
        );
        assert_eq!(
            digits_text(&scientific_digits(1.0f64 / 3.0, 8, 0)),
            "333333333e-1"
        );
        assert_eq!(
            digits_text(&positional_digits(0.001953125f64, 8)),
            "195312e-3"
        );
        assert_eq!(digits_text(&positional_digits(0.999999999f64, 8)), "1e0");
    }

    #[test]
    fn float_format_pads_and_aligns() {
        let f = FloatFormat::new(&[1.5f64, f64::NAN, -3.0, 1e-3], false);
        let out: Vec<String> = [1.5, f64::NAN, -3.0, 1e-3]
            .iter()
            .map(|&x| f.call(x))
            .collect();
        assert_eq!(out, [" 1.5e+00", "     nan", "-3.0e+00", " 1.0e-03"]);
        let f = FloatFormat::new(&[0.0f64, 0.25, -1.0], false);
        assert_eq!(f.call(0.25), " 0.25");
        assert_eq!(f.call(-1.0), "-1.  ");
        let f = FloatFormat::new(&[f64::INFINITY, f64::NAN], false);
        assert_eq!(f.call(f64::INFINITY), "inf");
        let f = FloatFormat::new(&[0.0f64, 1e300], false);
        assert_eq!(f.call(1e300), "1.e+300");
        assert_eq!(f.call(0.0), "0.e+000");
    }

    #[test]
    fn native_precision_decides_the_notation() {
        // float32(0.0001) is not below float32(0.0001): positional, where float64 would not be.
        let f = FloatFormat::new(&[1e-4f32, 2e-4], false);
        assert!(!f.exp);
        assert!(FloatFormat::new(&[f64::from(1e-4f32), 2e-4], false).exp);
        assert!(FloatFormat::new(&[half(1.0), half(1000.0)], false).exp);
        assert!(!FloatFormat::new(&[half(1.0), half(999.0)], false).exp);
    }

    #[test]
    fn datetimes_follow_numpy() {
        let u = |unit, multiple| DateUnit { unit, multiple };
        assert_eq!(
            datetime_as_string(0, u(TimeUnit::Second, 1)),
            "1970-01-01T00:00:00"
        );
        assert_eq!(
            datetime_as_string(-1, u(TimeUnit::Nano, 1)),
            "1969-12-31T23:59:59.999999999"
        );
        assert_eq!(datetime_as_string(-1971, u(TimeUnit::Year, 1)), "-001");
        assert_eq!(
            datetime_as_string(i64::MAX, u(TimeUnit::Second, 1)),
            "292277026596-12-04T15:30:07"
        );
        assert_eq!(
            datetime_as_string(1 << 62, u(TimeUnit::Month, 2)),
            "-768614336404562681-05"
        );
        assert_eq!(datetime_as_string(1, u(TimeUnit::Week, 3)), "1970-01-22");
        assert_eq!(
            datetime_as_string(i64::MIN + 1, u(TimeUnit::Femto, 1)),
            "1969-12-31T21:26:16.627963145224193"
        );
        assert_eq!(
            datetime_as_string(-1, u(TimeUnit::Atto, 1)),
            "1969-12-31T23:59:59.999999999999999999"
        );
        assert_eq!(
            datetime_as_string(i64::MIN + 1, u(TimeUnit::Day, 1)),
            "25252734927768524-07-29"
        );
    }

    #[test]
    fn dtype_reprs_follow_numpy() {
        let le = Endian::Little;
        let be = Endian::Big;
        assert_eq!(dtype_short_repr(&Dtype::I32(le)), "int32");
        assert_eq!(dtype_short_repr(&Dtype::I32(be)), "'>i4'");
        assert_eq!(dtype_short_repr(&Dtype::Unicode(5, le)), "'<U5'");
        assert_eq!(dtype_short_repr(&Dtype::Bytes(3)), "'|S3'");
        let ns = DateUnit {
            unit: TimeUnit::Nano,
            multiple: 1,
        };
        assert_eq!(
            dtype_short_repr(&Dtype::DateTime(ns, le)),
            "'datetime64[ns]'"
        );
        assert_eq!(dtype_short_repr(&Dtype::DateTime(ns, be)), "'>M8[ns]'");
        let generic = DateUnit {
            unit: TimeUnit::Generic,
            multiple: 1,
        };
        assert_eq!(
            dtype_short_repr(&Dtype::TimeDelta(generic, le)),
            "timedelta64"
        );
        assert!(dtype_is_implied(&Dtype::F64(le)) && !dtype_is_implied(&Dtype::F64(be)));
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
