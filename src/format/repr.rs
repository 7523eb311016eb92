//! Python `repr` of the values a header holds (strings, integers, shape tuples) and of
//! array values (floats).
//!
//! The writer and the literal renderer share these so that what npyguard
//! writes is byte-identical to what `np.save` writes; `dump`, `compare` and the
//! renderers ([`crate::render`]) share the one float repr, [`py_float`].
//!
//! Python escapes a character in `repr` when `str.isprintable()` is false for
//! it. [`is_printable`] reproduces that for ASCII, Latin-1 and the Unicode
//! format/separator/private-use ranges; code points that are unassigned in
//! Python's Unicode database (category Cn) are not known here and are written
//! raw, where Python would escape them (see grammar/DEVIATIONS.md).

use crate::prelude::*;
use core::fmt;

/// Whether Python's `str.isprintable()` is true for `c` (see the module docs for the limits).
pub fn is_printable(c: char) -> bool {
    let u = u32::from(c);
    if u < 0x20 || (0x7f..=0xa0).contains(&u) || u == 0xad {
        return false;
    }
    if u < 0x100 {
        return true;
    }
    // Categories Zs, Zl, Zp, Cf, Co, Cs outside Latin-1 (Unicode 15).
    const NON_PRINTABLE: &[(u32, u32)] = &[
        (0x0600, 0x0605),
        (0x061c, 0x061c),
        (0x06dd, 0x06dd),
        (0x070f, 0x070f),
        (0x0890, 0x0891),
        (0x08e2, 0x08e2),
        (0x1680, 0x1680),
        (0x180e, 0x180e),
        (0x2000, 0x200f),
        (0x2028, 0x202f),
        (0x205f, 0x2064),
        (0x2066, 0x206f),
        (0x3000, 0x3000),
        (0xd800, 0xf8ff),
        (0xfeff, 0xfeff),
        (0xfff9, 0xfffb),
        (0x110bd, 0x110bd),
        (0x110cd, 0x110cd),
        (0x13430, 0x1343f),
        (0x1bca0, 0x1bca3),
        (0x1d173, 0x1d17a),
        (0xe0001, 0xe0001),
        (0xe0020, 0xe007f),
        (0xf0000, 0x10ffff),
    ];
    !NON_PRINTABLE.iter().any(|&(lo, hi)| (lo..=hi).contains(&u))
}

/// Python's `repr` of a float: the shortest digits that read back to the same value, in
/// exponent form outside `1e-4 <= |v| < 1e16` with Python's two-digit signed exponent.
///
/// ```
/// use npyguard::repr::py_float;
/// assert_eq!(py_float(1.0), "1.0");
/// assert_eq!(py_float(-0.0), "-0.0");
/// assert_eq!(py_float(0.0001), "0.0001");
/// assert_eq!(py_float(0.00001), "1e-05");
/// assert_eq!(py_float(1.5e16), "1.5e+16");
/// assert_eq!(py_float(f64::NAN), "nan");
/// assert_eq!(py_float(f64::NEG_INFINITY), "-inf");
/// ```
pub fn py_float(v: f64) -> String {
    float_text(v, v)
}

/// [`py_float`] with the shortest digits that read back to the same `f32` (`0.1`, where
/// Python's repr of the widened value is `0.10000000149011612`).
///
/// ```
/// assert_eq!(npyguard::repr::py_f32(0.1), "0.1");
/// assert_eq!(npyguard::repr::py_f32(3e-8), "3e-08");
/// ```
pub fn py_f32(v: f32) -> String {
    float_text(v, f64::from(v))
}

/// [`py_float`] with the shortest digits that read back to the same IEEE binary16 value
/// (given as its bits): `0.1`, not `0.0999755859375`.
///
/// ```
/// assert_eq!(npyguard::repr::py_f16(0x2e66), "0.1");
/// assert_eq!(npyguard::repr::py_f16(0x3c00), "1.0");
/// assert_eq!(npyguard::repr::py_f16(0x7c00), "inf");
/// ```
pub fn py_f16(bits: u16) -> String {
    let x = crate::format::f16::f16_bits_to_f64(bits);
    if x.is_finite() {
        for digits in 0..6usize {
            let s = format!("{x:.digits$e}");
            match s.parse::<f64>() {
                Ok(back) if crate::format::f16::f64_to_f16_bits(back) == bits => {
                    return py_float(back)
                }
                _ => {}
            }
        }
    }
    py_float(x)
}

/// `v` as Rust writes its shortest digits, in Python's layout; `wide` is `v` as an `f64`.
fn float_text<T: fmt::Display + fmt::LowerExp>(v: T, wide: f64) -> String {
    if wide.is_nan() {
        return "nan".to_string();
    }
    if wide.is_infinite() {
        return if wide > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let a = wide.abs();
    if a != 0.0 && !(1e-4..1e16).contains(&a) {
        let s = format!("{v:e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let (sign, digits) = match exp.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exp),
        };
        return format!("{mantissa}e{sign}{digits:0>2}");
    }
    let s = format!("{v}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

/// Writes `s` as Python's `repr(s)` does: quotes chosen as Python chooses, escapes as Python writes them.
pub fn write_py_str<W: fmt::Write + ?Sized>(out: &mut W, s: &str) -> fmt::Result {
    write_py_code_points(out, s.chars().map(u32::from))
}

/// `repr` of a Python string given as its code points, which may include lone surrogates
/// (a NumPy `U` element may hold them; Python's `repr` escapes them as `\udxxx`). Code
/// points above U+10FFFF, which no Python string holds, are escaped as `\Uxxxxxxxx`.
pub(crate) fn write_py_code_points<W: fmt::Write + ?Sized>(
    out: &mut W,
    points: impl Iterator<Item = u32> + Clone,
) -> fmt::Result {
    let has = |c: char| points.clone().any(|u| u == u32::from(c));
    let quote = if has('\'') && !has('"') { '"' } else { '\'' };
    out.write_char(quote)?;
    for u in points {
        let Some(c) = char::from_u32(u) else {
            if u < 0x10000 {
                write!(out, "\\u{u:04x}")?;
            } else {
                write!(out, "\\U{u:08x}")?;
            }
            continue;
        };
        match c {
            '\\' => out.write_str("\\\\")?,
            '\n' => out.write_str("\\n")?,
            '\r' => out.write_str("\\r")?,
            '\t' => out.write_str("\\t")?,
            c if c == quote => {
                out.write_char('\\')?;
                out.write_char(c)?;
            }
            c if is_printable(c) => out.write_char(c)?,
            c => {
                let u = u32::from(c);
                if u < 0x100 {
                    write!(out, "\\x{u:02x}")?;
                } else if u < 0x10000 {
                    write!(out, "\\u{u:04x}")?;
                } else {
                    write!(out, "\\U{u:08x}")?;
                }
            }
        }
    }
    out.write_char(quote)
}

/// `repr` of a NumPy `U` element given as its UTF-32 code units (lone surrogates escaped
/// as Python escapes them).
#[cfg_attr(not(feature = "std"), allow(dead_code))] // used by `render` and `compare`
pub(crate) fn py_str_units(units: &[u32]) -> String {
    let mut out = String::with_capacity(units.len().saturating_add(2));
    // Writing to a String cannot fail.
    let _ = write_py_code_points(&mut out, units.iter().copied());
    out
}

/// `repr(s)` as a `String`.
pub fn py_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len().saturating_add(2));
    // Writing to a String cannot fail.
    let _ = write_py_str(&mut out, s);
    out
}

/// Python's `repr` of a `bytes` value: `b'...'`, quotes chosen as Python chooses, `\t`,
/// `\n`, `\r`, `\\`, printable ASCII as it is and every other byte as `\\xNN`.
///
/// ```
/// assert_eq!(npyguard::repr::py_bytes(b"a\xe9'"), "b\"a\\xe9'\"");
/// ```
pub fn py_bytes(b: &[u8]) -> String {
    use core::fmt::Write as _;
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(b.len().saturating_add(3));
    out.push('b');
    out.push(quote);
    for &c in b {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            c if char::from(c) == quote => {
                out.push('\\');
                out.push(quote);
            }
            0x20..=0x7e => out.push(char::from(c)),
            c => {
                let _ = write!(out, "\\x{c:02x}");
            }
        }
    }
    out.push(quote);
    out
}

/// Python's `repr` of a `complex`: the imaginary part alone (`1j`, `-0j`) when the real
/// part is `+0.0`, otherwise `(real±imag j)` in parentheses (`(1+2j)`, `(-0-1j)`); each
/// part is [`py_float`] without its `.0` (Python's `'r'` format without `ADD_DOT_0`).
///
/// ```
/// use npyguard::repr::py_complex;
/// assert_eq!(py_complex(0.0, 1.0), "1j");
/// assert_eq!(py_complex(0.0, -1.0), "-1j");
/// assert_eq!(py_complex(-0.0, -1.0), "(-0-1j)");
/// assert_eq!(py_complex(1.5, 1e300), "(1.5+1e+300j)");
/// ```
pub fn py_complex(re: f64, im: f64) -> String {
    let part = py_float_r;
    if re == 0.0 && re.is_sign_positive() {
        return format!("{}j", part(im));
    }
    let sign = if im.is_sign_negative() && !im.is_nan() {
        ""
    } else {
        "+"
    };
    format!("({}{sign}{}j)", part(re), part(im))
}

/// [`py_float`] without its `.0`: Python's `'r'` format without `ADD_DOT_0`, which
/// `repr(complex)` writes each part in (`1`, `-0`, `1.5`, `1e+16`).
pub(crate) fn py_float_r(v: f64) -> String {
    let s = py_float(v);
    match s.strip_suffix(".0") {
        Some(t) => t.to_string(),
        None => s,
    }
}

/// Python's `repr` of a shape tuple: `()`, `(3,)`, `(2, 3)`.
pub fn py_shape(shape: &[u64]) -> String {
    match shape {
        [] => "()".to_string(),
        [one] => format!("({one},)"),
        dims => {
            let inner: Vec<String> = dims.iter().map(u64::to_string).collect();
            format!("({})", inner.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_follow_python() {
        assert_eq!(py_str("abc"), "'abc'");
        assert_eq!(py_str("a'b"), "\"a'b\"");
        assert_eq!(py_str("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(py_str("a\"b"), "'a\"b'");
    }

    #[test]
    fn escapes_follow_python() {
        assert_eq!(py_str("\\\n\r\t"), "'\\\\\\n\\r\\t'");
        assert_eq!(py_str("\x7f\u{1}"), "'\\x7f\\x01'");
        assert_eq!(py_str("\u{a0}\u{ad}é"), "'\\xa0\\xadé'");
        assert_eq!(py_str("\u{200b}"), "'\\u200b'");
        assert_eq!(py_str("\u{f0000}"), "'\\U000f0000'");
        assert_eq!(py_str("日本"), "'日本'");
    }

    #[test]
    fn shapes_follow_python() {
        assert_eq!(py_shape(&[]), "()");
        assert_eq!(py_shape(&[3]), "(3,)");
        assert_eq!(py_shape(&[2, 3, 4]), "(2, 3, 4)");
    }
}
