//! Target `render`: what `npyguard dump` prints, JSON (`tolist()`) and NumPy-like text,
//! summarised and in full (see `common::layer_array` for the input).
//!
//! Properties:
//! * no panic, no unbounded loop (run with `-timeout`), no allocation the input does not
//!   pay for (run with `-malloc_limit_mb`);
//! * every rendering is at most `common::output_bound` bytes, or refused as
//!   `ErrorKind::Unbacked` (only for an array with nothing to print per byte: a zero-size
//!   array or a dtype of item size 0), or, for a record array, `ShapeOverflow` (a field
//!   whose array would not fit isize, see the `roundtrip` reproducer);
//! * the JSON rendering is valid JSON (`serde_json` parses it, into nothing: a DOM of a
//!   65 536-item list would itself be a 2 MiB allocation) with one list level per dimension;
//! * a zero-size array prints as `[]` in text;
//! * C and Fortran memory order of the same array render the same;
//! * the same for `numpy_repr` (what `dump` prints), summarised and in full: bounded,
//!   refused only as `Unbacked`/`ShapeOverflow` like `values`, `array(` … `)`, order-independent.

use npyguard::render::{numpy_repr, values, Style};
use npyguard::ErrorKind;

#[path = "common.rs"]
mod common;

pub fn run(data: &[u8]) {
    let Some((array, input_len)) = common::layer_array(data) else {
        return;
    };
    let bound = common::output_bound(input_len);
    let unbacked_possible = array.is_empty() || array.dtype().itemsize() == 0;
    let is_record = matches!(array.dtype(), npyguard::Dtype::Record(_));
    for style in [
        Style::Json,
        Style::Text { summarise: true },
        Style::Text { summarise: false },
    ] {
        let out = match values(&array, style) {
            Ok(out) => out,
            // A record field of a huge item-size-0 record array may not be an array at all
            // (its shape's byte size overflows isize: NumPy's size rule, ShapeOverflow).
            Err(e) if e.kind() == ErrorKind::ShapeOverflow && is_record => continue,
            // A `U` code unit above U+10FFFF (NumPy reads it; no Python string holds it).
            Err(e) if e.kind() == ErrorKind::BadPayload && common::holds_unicode(array.dtype()) => {
                continue
            }
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::Unbacked, "{style:?}: {e}");
                assert!(unbacked_possible, "{style:?} refused a backed array: {e}");
                continue;
            }
        };
        assert!(
            out.len() <= bound,
            "{style:?}: {} bytes of output for {input_len} input bytes",
            out.len()
        );
        if matches!(style, Style::Text { .. }) && array.is_empty() {
            assert_eq!(out, "[]", "a zero-size array prints as NumPy prints it");
        }
        if style == Style::Json {
            check_json_depth(&out, array.shape().len(), array.is_empty());
        }
        // The other memory order prints the same values.
        let other = if array.fortran_order() {
            array.to_c_order()
        } else {
            array.to_fortran_order()
        };
        let again = values(&other, style).unwrap_or_else(|e| panic!("{style:?}: {e}"));
        assert!(
            again == out,
            "{style:?}: C and Fortran order render differently"
        );
    }
    numpy_repr_properties(&array, bound, unbacked_possible, is_record);
}

/// `out` is JSON, and a non-empty array of `ndim` dimensions opens `ndim` lists before its
/// first value (a value is a number, string or record list, never starting with `[` beyond
/// the array's own levels, which the cap at `ndim` ignores).
fn check_json_depth(out: &str, ndim: usize, empty: bool) {
    serde_json::from_str::<serde::de::IgnoredAny>(out)
        .unwrap_or_else(|e| panic!("dump --json is not JSON ({e}): {out:.200}"));
    let opened = out
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .take_while(|&c| c == '[')
        .count();
    assert!(
        empty || opened >= ndim,
        "list depth of a {ndim}-D array: {out:.200}"
    );
}

/// `numpy_repr` under the same bounds as `values`, in both memory orders.
fn numpy_repr_properties(
    array: &npyguard::Array,
    bound: usize,
    unbacked_possible: bool,
    is_record: bool,
) {
    for summarise in [true, false] {
        let out = match numpy_repr(array, summarise) {
            Ok(out) => out,
            Err(e) if e.kind() == ErrorKind::ShapeOverflow && is_record => continue,
            Err(e) if e.kind() == ErrorKind::BadPayload && common::holds_unicode(array.dtype()) => {
                continue
            }
            Err(e)
                if e.kind() == ErrorKind::UnsupportedDtype
                    && common::holds_long_double(array.dtype()) =>
            {
                continue
            }
            Err(e) => {
                assert_eq!(
                    e.kind(),
                    ErrorKind::Unbacked,
                    "numpy_repr({summarise}): {e}"
                );
                assert!(unbacked_possible, "numpy_repr refused a backed array: {e}");
                continue;
            }
        };
        // NumPy's repr adds `array(`, the dtype and the shape to the values, and pads columns:
        // allow the values' bound twice over plus the header-sized extras.
        let limit = bound.saturating_mul(2).saturating_add(1 << 12);
        assert!(
            out.len() <= limit,
            "numpy_repr: {} bytes for bound {bound}",
            out.len()
        );
        assert!(
            out.starts_with("array(") && out.ends_with(')'),
            "{out:.200}"
        );
        let other = if array.fortran_order() {
            array.to_c_order()
        } else {
            array.to_fortran_order()
        };
        let again = numpy_repr(&other, summarise).unwrap_or_else(|e| panic!("numpy_repr: {e}"));
        assert!(
            again == out,
            "numpy_repr: C and Fortran order print differently"
        );
    }
}
