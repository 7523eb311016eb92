//! [`values`]: JSON like NumPy's `tolist()`, or compact NumPy-like text (the library's
//! `Style::Text`; `dump` prints [`numpy_repr`](crate::render::numpy_repr)).

use std::borrow::Cow;

use crate::data::array::Array;
use crate::data::codec::check_code_points;
use crate::data::scalar::{Float, Scalar};
use crate::data::storage::units_per_element;
use crate::data::storage::ArrayData;
use crate::error::Result;
use crate::format::dtype::{Dtype, Endian, Field};
use crate::format::f80::{self, LONG_DOUBLE_BYTES};
use crate::format::repr::{py_bytes, py_f16, py_f32, py_float, py_str_units};

use crate::render::bounds::{unbacked_items, EDGE};

/// How [`values`] writes an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// JSON like NumPy's `tolist()`: nested lists, integers exact, floats as the shortest
    /// decimal that reads back in their own precision, `"nan"`, `"inf"`, `"-inf"`, complex
    /// as `[re, im]`, records as lists of field values, `S` as latin-1 strings with trailing
    /// NULs stripped, `U` as strings (a lone surrogate as its `\\u` escape, as Python's
    /// `json.dumps` writes it), `V` as byte lists, datetimes as integers (`"NaT"`), long
    /// doubles (`f16`, `c32`) as their nearest `f64` ([`f80::to_f64`](crate::f80::to_f64);
    /// `tolist()` gives `np.longdouble` objects, whose extra digits JSON numbers lose).
    /// A `U` code unit above U+10FFFF is refused
    /// ([`ErrorKind::BadPayload`](crate::ErrorKind::BadPayload)), as NumPy's `tolist()` fails
    /// on it.
    Json,
    /// Compact NumPy-like text on one line (nested lists, Python reprs of the values, lone
    /// surrogates escaped as Python's `repr` escapes them);
    /// `summarise` elides the middle of axes longer than 6 with `...`. For NumPy's own
    /// multi-line picture, see [`numpy_repr`](crate::render::numpy_repr).
    Text {
        /// Print only the first and last three items of each long axis.
        summarise: bool,
    },
}

/// Renders elements of a C-order array; records render through one renderer per field.
/// The array is borrowed when it already is in C order (a field's array is its own).
struct Renderer<'a> {
    array: Cow<'a, Array>,
    fields: Vec<(Field, Renderer<'static>)>,
    style: Style,
}

impl<'a> Renderer<'a> {
    fn build(array: &'a Array, style: Style) -> Result<Renderer<'a>> {
        Renderer::of(array.as_c_order(), style)
    }

    fn of(array: Cow<'a, Array>, style: Style) -> Result<Renderer<'a>> {
        if let ArrayData::Unicode(v) = array.data() {
            check_code_points(v, units_per_element(array.dtype()))?;
        }
        let fields = match array.dtype() {
            Dtype::Record(r) => r
                .fields
                .iter()
                .map(|f| {
                    Ok((
                        f.clone(),
                        Renderer::of(Cow::Owned(array.field(&f.name)?), style)?,
                    ))
                })
                .collect::<Result<Vec<_>>>()?,
            _ => Vec::new(),
        };
        Ok(Renderer {
            array,
            fields,
            style,
        })
    }

    fn element(&self, i: usize, out: &mut String) {
        let st = self.style;
        let per = units_per_element(self.array.dtype());
        let Some(value) = self.array.data().scalar(i, per) else {
            return;
        };
        let s: String = match value {
            Scalar::Bool(b) => match (b, st) {
                (true, Style::Json) => "true".into(),
                (false, Style::Json) => "false".into(),
                (true, _) => "True".into(),
                (false, _) => "False".into(),
            },
            Scalar::Int(x) => x.to_string(),
            Scalar::Float(f) => self.float(f),
            Scalar::Complex(re, im) => self.pair(self.float(re), self.float(im)),
            Scalar::Time(i64::MIN) => match st {
                Style::Json => "\"NaT\"".into(),
                Style::Text { .. } => "NaT".into(),
            },
            Scalar::Time(x) => x.to_string(),
            Scalar::Bytes(b) => match st {
                // `tolist()` gives `bytes`; JSON has no bytes, so they are latin-1 text.
                Style::Json => json_str(&b.iter().map(|&c| char::from(c)).collect::<String>()),
                Style::Text { .. } => py_bytes(b),
            },
            Scalar::Str(units) => match st {
                Style::Json => json_units(units),
                Style::Text { .. } => py_str_units(units),
            },
            Scalar::Void(b) => {
                let items: Vec<String> = b.iter().map(u8::to_string).collect();
                format!("[{}]", items.join(", "))
            }
            Scalar::LongDouble(b) => self.long_double(b),
            Scalar::Record(_) => self.record(i),
        };
        out.push_str(&s);
    }

    /// A float in the shortest digits of its own precision; JSON quotes `nan` and `inf`.
    fn float(&self, f: Float) -> String {
        let (wide, text) = match f {
            Float::Half(b) => (f.to_f64(), py_f16(b)),
            Float::Single(x) => (f.to_f64(), py_f32(x)),
            Float::Double(x) => (x, py_float(x)),
        };
        match (self.style, wide.is_finite()) {
            (Style::Json, false) => format!("\"{text}\""),
            _ => text,
        }
    }

    /// A long double (16 bytes) or its complex pair (32) as the nearest `f64`s.
    fn long_double(&self, bytes: &[u8]) -> String {
        let e = self.array.dtype().endian().unwrap_or(Endian::Little);
        let mut parts = bytes.chunks_exact(LONG_DOUBLE_BYTES).map(|c| {
            let element = <[u8; LONG_DOUBLE_BYTES]>::try_from(c).unwrap_or_default();
            self.float(Float::Double(f80::to_f64(&element, e)))
        });
        match (parts.next(), parts.next()) {
            (Some(re), Some(im)) => self.pair(re, im),
            (Some(x), None) => x,
            _ => String::new(),
        }
    }

    /// Record `i`: its fields' values, a list (JSON) or a tuple (text).
    fn record(&self, i: usize) -> String {
        let mut parts = Vec::with_capacity(self.fields.len());
        for (f, r) in &self.fields {
            let mut s = String::new();
            let count = f.count();
            r.block(i.saturating_mul(count), &f.shape, &mut s);
            parts.push(s);
        }
        match (self.style, parts.as_slice()) {
            (Style::Json, _) => format!("[{}]", parts.join(", ")),
            // Python's one-element tuple: `([],)`.
            (Style::Text { .. }, [one]) => format!("({one},)"),
            (Style::Text { .. }, _) => format!("({})", parts.join(", ")),
        }
    }

    fn pair(&self, re: String, im: String) -> String {
        match self.style {
            Style::Json => format!("[{re}, {im}]"),
            Style::Text { .. } => {
                format!("{re}{}{im}j", if im.starts_with('-') { "" } else { "+" })
            }
        }
    }

    /// Renders the block of elements starting at `start` with `shape` (C order) as nested
    /// lists; a summarised axis longer than 6 visits only its first and last three items.
    fn block(&self, start: usize, shape: &[usize], out: &mut String) {
        let Some((&n, rest)) = shape.split_first() else {
            self.element(start, out);
            return;
        };
        let inner = rest
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .unwrap_or(usize::MAX);
        let summarise =
            matches!(self.style, Style::Text { summarise: true }) && n > EDGE.saturating_mul(2);
        let (head, tail) = if summarise {
            (0..EDGE, n.saturating_sub(EDGE)..n)
        } else {
            (0..n, n..n)
        };
        out.push('[');
        for k in head.clone() {
            if k > 0 {
                out.push_str(", ");
            }
            self.block(start.saturating_add(k.saturating_mul(inner)), rest, out);
        }
        if summarise {
            out.push_str(", ...");
        }
        for k in tail {
            out.push_str(", ");
            self.block(start.saturating_add(k.saturating_mul(inner)), rest, out);
        }
        out.push(']');
    }
}

/// Renders the values of `array` in logical (row-major) order (see the [module docs](crate::render)).
/// [`ErrorKind::Unbacked`](crate::ErrorKind::Unbacked) when the lists and elements to print
/// that no payload byte backs exceed what [`Header::check_backed`](crate::Header::check_backed)
/// allows.
pub fn values(array: &Array, style: Style) -> Result<String> {
    if matches!(style, Style::Text { .. }) && array.is_empty() {
        // NumPy prints every zero-size array as `[]` (its repr adds the shape).
        return Ok("[]".to_string());
    }
    let shown: Vec<usize> = match style {
        Style::Text { summarise: true } => array
            .shape()
            .iter()
            .map(|&d| d.min(EDGE.saturating_mul(2)))
            .collect(),
        _ => array.shape().to_vec(),
    };
    let unbacked = unbacked_items(array.dtype(), &shown, usize::MAX);
    if unbacked > 0 {
        array
            .header()
            .check_backed(unbacked, "unbacked lists and elements to print")?;
    }
    let r = Renderer::build(array, style)?;
    let mut out = String::new();
    r.block(0, r.array.shape(), &mut out);
    Ok(out)
}

/// `s` as a JSON string: `"` and `\\` escaped, control characters as `\n`, `\t`… or
/// `\u00XX`, everything else as it is (what `serde_json` writes).
fn json_str(s: &str) -> String {
    json_points(s.chars().map(u32::from))
}

/// A `U` element's code units as a JSON string; a lone surrogate is written as its `\u`
/// escape, as Python's `json.dumps` writes it (units above U+10FFFF are refused before).
fn json_units(units: &[u32]) -> String {
    json_points(units.iter().copied())
}

fn json_points(points: impl Iterator<Item = u32>) -> String {
    use std::fmt::Write as _;
    let mut out = String::from("\"");
    for u in points {
        let Some(c) = char::from_u32(u) else {
            let _ = write!(out, "\\u{u:04x}");
            continue;
        };
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
