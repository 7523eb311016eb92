//! Python `repr` of the values a header holds: strings, integers, shape tuples.
//!
//! The writer and the literal renderer share these so that what npyguard
//! writes is byte-identical to what `np.save` writes.
//!
//! Python escapes a character in `repr` when `str.isprintable()` is false for
//! it. [`is_printable`] reproduces that for ASCII, Latin-1 and the Unicode
//! format/separator/private-use ranges; code points that are unassigned in
//! Python's Unicode database (category Cn) are not known here and are written
//! raw, where Python would escape them (see grammar/DEVIATIONS.md).

use std::fmt;

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

/// Writes `s` as Python's `repr(s)` does: quotes chosen as Python chooses, escapes as Python writes them.
pub fn write_py_str<W: fmt::Write + ?Sized>(out: &mut W, s: &str) -> fmt::Result {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.write_char(quote)?;
    for c in s.chars() {
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

/// `repr(s)` as a `String`.
pub fn py_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len().saturating_add(2));
    // Writing to a String cannot fail.
    let _ = write_py_str(&mut out, s);
    out
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
