//! Rendering array values as JSON (`dump --json`, like NumPy's `tolist()`) or as a NumPy-like print.

use npyguard::{Array, ArrayData, Dtype, Field};

/// Output style.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// JSON: nested lists, numbers exact, NaN/inf as strings.
    Json,
    /// NumPy-like text; `summarise` elides the middle of long axes.
    Text { summarise: bool },
}

const EDGE: usize = 3;

/// Most elements of a zero-size dtype `dump` will print (they cost no input bytes).
const MAX_UNBACKED_ELEMENTS: usize = 1 << 20;

/// Shortest decimal for `v` that reads back to the same `f64`, JSON-compatible.
pub fn fmt_f64(v: f64) -> String {
    plain_or_exp(v, format!("{v}"), format!("{v:e}"))
}

/// Shortest decimal for `v` that reads back to the same `f32`.
pub fn fmt_f32(v: f32) -> String {
    plain_or_exp(f64::from(v), format!("{v}"), format!("{v:e}"))
}

/// Shortest decimal for an IEEE half `bits` that reads back to the same half.
pub fn fmt_f16(bits: u16) -> String {
    let v = half::f16::from_bits(bits);
    let x = f64::from(v);
    if !x.is_finite() {
        return fmt_f64(x);
    }
    for p in 0..6 {
        let s = format!("{x:.p$e}");
        if let Ok(back) = s.parse::<f64>() {
            if half::f16::from_f64(back).to_bits() == bits {
                // `back` is the shortest decimal; f64's Display writes exactly those digits.
                return fmt_f64(back);
            }
        }
    }
    fmt_f64(x)
}

fn plain_or_exp(v: f64, plain: String, exp: String) -> String {
    let a = v.abs();
    let s = if a != 0.0 && !(1e-5..1e16).contains(&a) {
        exp
    } else {
        plain
    };
    // Keep a float looking like a float in JSON, as Python's repr does ("1.0", not "1").
    if v.is_finite() && !s.contains(['.', 'e', 'E']) {
        format!("{s}.0")
    } else {
        s
    }
}

fn special(v: f64, style: Style) -> Option<String> {
    let s = if v.is_nan() {
        "nan"
    } else if v == f64::INFINITY {
        "inf"
    } else if v == f64::NEG_INFINITY {
        "-inf"
    } else {
        return None;
    };
    Some(match style {
        Style::Json => format!("\"{s}\""),
        Style::Text { .. } => s.to_string(),
    })
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

/// Renders elements of a C-order array; records render through one renderer per field.
struct Renderer {
    array: Array,
    fields: Vec<(Field, Renderer)>,
    style: Style,
}

impl Renderer {
    fn build(array: Array, style: Style) -> Result<Renderer, npyguard::Error> {
        let array = array.to_c_order();
        let fields = match array.dtype() {
            Dtype::Record(r) => r
                .fields
                .iter()
                .map(|f| Ok((f.clone(), Renderer::build(array.field(&f.name)?, style)?)))
                .collect::<Result<Vec<_>, npyguard::Error>>()?,
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
        let num = |v: f64, s: String| special(v, st).unwrap_or(s);
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
                num(npyguard::array::f16_bits_to_f64(b), fmt_f16(b))
            }),
            ArrayData::F32(v) => v
                .get(i)
                .map_or_else(String::new, |&x| num(f64::from(x), fmt_f32(x))),
            ArrayData::F64(v) => v.get(i).map_or_else(String::new, |&x| num(x, fmt_f64(x))),
            ArrayData::C64(v) => v.get(i).map_or_else(String::new, |&[re, im]| {
                self.pair(
                    num(f64::from(re), fmt_f32(re)),
                    num(f64::from(im), fmt_f32(im)),
                )
            }),
            ArrayData::C128(v) => v.get(i).map_or_else(String::new, |&[re, im]| {
                self.pair(num(re, fmt_f64(re)), num(im, fmt_f64(im)))
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
                    Style::Text { .. } => format!("b{}", npyguard::repr::py_str(&text)),
                }
            }
            ArrayData::Unicode(_) => {
                let text = self.array.str_at(i).unwrap_or_default();
                match st {
                    Style::Json => json_str(&text),
                    Style::Text { .. } => npyguard::repr::py_str(&text),
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
                match st {
                    Style::Json => format!("[{}]", parts.join(", ")),
                    Style::Text { .. } => format!("({})", parts.join(", ")),
                }
            }
            _ => String::new(),
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

    /// Renders the block of elements starting at `start` with `shape` (C order) as nested lists.
    fn block(&self, start: usize, shape: &[usize], out: &mut String) {
        let Some((&n, rest)) = shape.split_first() else {
            self.element(start, out);
            return;
        };
        let inner: usize = rest.iter().product();
        out.push('[');
        let summarise = matches!(self.style, Style::Text { summarise: true }) && n > 2 * EDGE;
        let mut first = true;
        for k in 0..n {
            if summarise && k >= EDGE && k < n - EDGE {
                if k == EDGE {
                    out.push_str(", ...");
                }
                continue;
            }
            if !first {
                out.push_str(", ");
            }
            first = false;
            self.block(start + k * inner, rest, out);
        }
        out.push(']');
    }
}

/// Renders the values of `array` in logical (row-major) order.
pub fn values(array: &Array, style: Style) -> Result<String, npyguard::Error> {
    // Elements of a zero-size dtype (a record of empty subarrays) are not backed by any
    // byte, so a tiny file could ask for a practically endless listing: cap it.
    if array.dtype().itemsize() == 0 && array.len() > MAX_UNBACKED_ELEMENTS {
        return Err(npyguard::Error::new(
            npyguard::ErrorKind::InvalidInput,
            array.header().payload_offset(),
            format!("at most {MAX_UNBACKED_ELEMENTS} elements of a zero-size dtype to print"),
        )
        .found(format!("{} elements", array.len())));
    }
    let r = Renderer::build(array.clone(), style)?;
    let mut out = String::new();
    r.block(0, r.array.shape(), &mut out);
    Ok(out)
}
