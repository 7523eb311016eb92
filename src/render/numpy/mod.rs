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
//! | `_get_format_function` | `formatters`: `Format::from_data`, one formatter built from the shown values |
//! | `FloatingFormat` (`fillFormat`, `__call__`) | `float`: `FloatFormat` (`new`, `call`) |
//! | `dragon4_positional`, `dragon4_scientific` | `float`, on `dragon4`'s `Digits` |
//! | `ComplexFloatingFormat`, `IntegerFormat`, `BoolFormat` | `Format::Complex`, `Format::Int`, `Format::Bool` |
//! | `DatetimeFormat`, `TimedeltaFormat` (`_TimelikeFormat`) | `TimeFormat`; `datetime`: `datetime_as_string` |
//! | `StructuredVoidFormat`, `SubArrayFormat` | `Format::Record`, `FieldFormat` |
//! | `repr_format`, `str_format` (`S`/`U`/`V`) | `py_str`, `py_bytes`, `void_str` |
//! | `_formatArray`, `_extendLine`, `_extendLine_pretty` | `lines`: `Printer`, `extend_line`, `extend_line_pretty` |
//! | `dtype_short_repr`, `dtype_is_implied`, `_struct_str` | `dtype`: `dtype_short_repr`, `dtype_is_implied`, `struct_str` |
//!
//! Float digits are NumPy's Dragon4 in "unique" mode: the shortest digits that read back to
//! the value in its own precision (IEEE round-half-even boundaries, as Dragon4 checks them),
//! cut at the precision, and padded with the value's further exact digits where NumPy asks
//! for a minimum. They come from Rust's formatting: `{:e}` (shortest round trip) for `f4`
//! and `f8`, `{:.N$e}`/`{:.N$}` (exact, ties to even) for the cut and the padding; `f2`
//! chooses among Rust's exact digits the way Dragon4 does (`dragon4`). Lengths are counted
//! in characters, as Python's `len` counts them (`lines::chars`).
//!
//! The modules, bottom up: `dragon4` (decimal digits of a magnitude), `float` (the float
//! formatter), `datetime` (ISO 8601 text of a count), `dtype` (the dtype's repr), `lines`
//! (the nested brackets and line wrapping, whatever the elements), `formatters` (one
//! formatter per dtype family); this file ties them together.
//!
//! The work is bounded by the input as in the rest of [`render`](super): an empty array
//! prints `[]` whatever its shape; the lists and elements to print that no payload byte backs
//! are counted first and checked against [`Header::check_backed`](crate::Header::check_backed);
//! a summarised array visits only the three first and last items of each long axis (and a
//! summarised record subarray only the edges of its long axes).

mod datetime;
mod dragon4;
mod dtype;
mod float;
mod formatters;
mod lines;

use std::borrow::Cow;

use crate::data::array::Array;
use crate::data::layout::strides;
use crate::data::storage::{map_units, units_per_element, ArrayData};
use crate::error::Result;
use crate::format::header::Header;
use crate::format::repr::py_shape;
use crate::render::bounds::{unbacked_items, EDGE};

use dtype::{dtype_is_implied, dtype_short_repr};
use formatters::{Format, FormatOptions};
use lines::{chars, Printer};

/// `linewidth`: the longest line NumPy writes.
const LINE_WIDTH: usize = 75;
/// `threshold`: arrays of more elements than this are summarised.
const THRESHOLD: usize = 1000;
/// What `array_repr` writes before the values.
const PREFIX: &str = "array(";

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
    let last_line = arr_str
        .rsplit_once('\n')
        .map_or(arr_str.as_str(), |(_, l)| l);
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
    let printer = Printer::new(data.shape(), &summarised, |i| format.call(&data, i));
    let indent = " ".repeat(PREFIX.len().saturating_add(1));
    // The line width less the length of the suffix `)`.
    printer.print(&indent, LINE_WIDTH.saturating_sub(1))
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
