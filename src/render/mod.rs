//! Array values as text: JSON like NumPy's `tolist()`, or NumPy-like text.
//!
//! What `npyguard dump` prints. Both styles render the array in logical (row-major)
//! order whatever its memory order, as nested lists, records as lists (JSON) or tuples
//! (text) of their field values.
//!
//! Every rendering is bounded by the input: an array with no payload bytes can still
//! claim a huge shape (`(2**40, 0)` is 2^40 empty rows; a dtype of item size 0 any number of
//! elements), so before anything is rendered the lists and elements to print are counted
//! and checked against [`Header::check_backed`](crate::Header::check_backed)
//! ([`ErrorKind::Unbacked`](crate::ErrorKind::Unbacked)). The text style prints a zero-size
//! array as NumPy does, `[]` whatever its shape, and with `summarise` visits only the
//! three first and last items of each long axis (NumPy's `...` summary), so its work is
//! bounded by what it prints.
//!
//! ```
//! use npyguard::{render::{values, Style}, NpyArray};
//! let a = NpyArray::from_vec(vec![1.5f64, f64::NAN, 3.0, 4.0], vec![2, 2]).unwrap().to_array();
//! assert_eq!(values(&a, Style::Json).unwrap(), r#"[[1.5, "nan"], [3.0, 4.0]]"#);
//! assert_eq!(values(&a, Style::Text { summarise: false }).unwrap(), "[[1.5, nan], [3.0, 4.0]]");
//!
//! let empty = npyguard::Array::new(
//!     npyguard::Header::new(npyguard::Dtype::U8, vec![1 << 40, 0], false).unwrap(),
//!     npyguard::ArrayData::U8(Vec::new()),
//! ).unwrap();
//! assert_eq!(values(&empty, Style::Text { summarise: true }).unwrap(), "[]");
//! let err = values(&empty, Style::Json).unwrap_err();
//! assert_eq!(err.kind(), npyguard::ErrorKind::Unbacked);
//! ```

use crate::data::array::Array;
use crate::data::storage::ArrayData;
use crate::error::Result;
use crate::format::dtype::{Dtype, Field};
use crate::format::repr::{py_f16, py_f32, py_float, py_str};

/// How [`values`] writes an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// JSON like NumPy's `tolist()`: nested lists, integers exact, floats as the shortest
    /// decimal that reads back in their own precision, `"nan"`, `"inf"`, `"-inf"`, complex
    /// as `[re, im]`, records as lists of field values, `S` as latin-1 strings with trailing
    /// NULs stripped, `V` as byte lists, datetimes as integers (`"NaT"`).
    Json,
    /// NumPy-like text; `summarise` elides the middle of axes longer than 6 with `...`.
    Text {
        /// Print only the first and last three items of each long axis.
        summarise: bool,
    },
}

/// Items printed at each end of a summarised axis.
const EDGE: usize = 3;

/// Renders elements of a C-order array; records render through one renderer per field.
struct Renderer {
    array: Array,
    fields: Vec<(Field, Renderer)>,
    style: Style,
}

impl Renderer {
    fn build(array: Array, style: Style) -> Result<Renderer> {
        let array = array.to_c_order();
        let fields = match array.dtype() {
            Dtype::Record(r) => r
                .fields
                .iter()
                .map(|f| Ok((f.clone(), Renderer::build(array.field(&f.name)?, style)?)))
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
        let num = |v: f64, s: String| match (st, v.is_finite()) {
            (Style::Json, false) => format!("\"{s}\""),
            _ => s,
        };
        let s: String = match self.array.data() {
            ArrayData::Bool(v) => match (v.get(i).map(|&b| b != 0), st) {
                (Some(true), Style::Json) => "true".into(),
                (Some(false), Style::Json) => "false".into(),
                (Some(true), _) => "True".into(),
                (Some(false), _) => "False".into(),
                (None, _) => "?".into(),
            },
            ArrayData::I8(v) => v.get(i).map_or_else(String::new, |x| x.to_string()),
            ArrayData::U8(v) => v.get(i).map_or_else(String::new, |x| x.to_string()),
            ArrayData::I16(v) => v.get(i).map_or_else(String::new, |x| x.to_string()),
            ArrayData::I32(v) => v.get(i).map_or_else(String::new, |x| x.to_string()),
            ArrayData::I64(v) => v.get(i).map_or_else(String::new, |x| x.to_string()),
            ArrayData::U16(v) => v.get(i).map_or_else(String::new, |x| x.to_string()),
            ArrayData::U32(v) => v.get(i).map_or_else(String::new, |x| x.to_string()),
            ArrayData::U64(v) => v.get(i).map_or_else(String::new, |x| x.to_string()),
            ArrayData::F16(v) => v.get(i).map_or_else(String::new, |&b| {
                num(crate::format::f16::f16_bits_to_f64(b), py_f16(b))
            }),
            ArrayData::F32(v) => v
                .get(i)
                .map_or_else(String::new, |&x| num(f64::from(x), py_f32(x))),
            ArrayData::F64(v) => v.get(i).map_or_else(String::new, |&x| num(x, py_float(x))),
            ArrayData::C64(v) => v.get(i).map_or_else(String::new, |&[re, im]| {
                self.pair(
                    num(f64::from(re), py_f32(re)),
                    num(f64::from(im), py_f32(im)),
                )
            }),
            ArrayData::C128(v) => v.get(i).map_or_else(String::new, |&[re, im]| {
                self.pair(num(re, py_float(re)), num(im, py_float(im)))
            }),
            ArrayData::DateTime(v) | ArrayData::TimeDelta(v) => {
                v.get(i).map_or_else(String::new, |&x| {
                    if x == i64::MIN {
                        match st {
                            Style::Json => "\"NaT\"".into(),
                            Style::Text { .. } => "NaT".into(),
                        }
                    } else {
                        x.to_string()
                    }
                })
            }
            ArrayData::Bytes(_) => {
                let b = self.array.bytes_at(i).unwrap_or_default();
                let text: String = b.iter().map(|&c| char::from(c)).collect();
                match st {
                    Style::Json => json_str(&text),
                    Style::Text { .. } => format!("b{}", py_str(&text)),
                }
            }
            ArrayData::Unicode(_) => {
                let text = self.array.str_at(i).unwrap_or_default();
                match st {
                    Style::Json => json_str(&text),
                    Style::Text { .. } => py_str(&text),
                }
            }
            ArrayData::Void(_) => {
                let b = self.array.bytes_at(i).unwrap_or_default();
                let items: Vec<String> = b.iter().map(u8::to_string).collect();
                format!("[{}]", items.join(", "))
            }
            ArrayData::Record(_) => {
                let mut parts = Vec::with_capacity(self.fields.len());
                for (f, r) in &self.fields {
                    let mut s = String::new();
                    let count = f.count();
                    r.block(i.saturating_mul(count), &f.shape, &mut s);
                    parts.push(s);
                }
                match (st, parts.as_slice()) {
                    (Style::Json, _) => format!("[{}]", parts.join(", ")),
                    // Python's one-element tuple: `([],)`.
                    (Style::Text { .. }, [one]) => format!("({one},)"),
                    (Style::Text { .. }, _) => format!("({})", parts.join(", ")),
                }
            }
        };
        out.push_str(&s);
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

/// Lists and elements a rendering of `shape` elements of `dtype` prints that no payload
/// byte backs: the lists around a zero-size block (1 + d0 + d0·d1 + … up to the first 0),
/// the elements of a dtype of item size 0, and per element the unbacked items of its record
/// fields' subarrays. Saturates at `u64::MAX`.
fn unbacked_items(dtype: &Dtype, shape: &[usize]) -> u64 {
    let mut lists = 0u64;
    let mut level = 1u64;
    for &d in shape {
        lists = lists.saturating_add(level);
        level = level.saturating_mul(d as u64);
        if level == 0 {
            return lists;
        }
    }
    let per_element = match dtype {
        Dtype::Record(r) => r.fields.iter().fold(0u64, |acc, f| {
            acc.saturating_add(unbacked_items(&f.dtype, &f.shape))
        }),
        _ => 0,
    };
    let own = u64::from(dtype.itemsize() == 0);
    level.saturating_mul(per_element.saturating_add(own))
}

/// Renders the values of `array` in logical (row-major) order (see the [module docs](self)).
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
    let unbacked = unbacked_items(array.dtype(), &shown);
    if unbacked > 0 {
        array
            .header()
            .check_backed(unbacked, "unbacked lists and elements to print")?;
    }
    let r = Renderer::build(array.clone(), style)?;
    let mut out = String::new();
    r.block(0, r.array.shape(), &mut out);
    Ok(out)
}

/// `s` as a JSON string: `"` and `\\` escaped, control characters as `\n`, `\t`… or
/// `\u00XX`, everything else as it is (what `serde_json` writes).
fn json_str(s: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(s.len().saturating_add(2));
    out.push('"');
    for c in s.chars() {
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
