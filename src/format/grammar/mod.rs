//! The nom parser for `grammar/npy-header.abnf`: one function per grammar rule, by family.
//!
//! Each function quotes the rules it implements (`tests/library/abnf_quotes.rs` checks the quotes
//! against the grammar, verbatim, and that every rule is quoted once). The parser works
//! on the raw header bytes through a [`Cursor`](cursor::Cursor) (so every offset is a byte
//! offset in the text), over complete input, and never backtracks: every value kind is
//! chosen by its first byte (a `(` opens a tuple, or a complex number `(1+2j)` when a
//! number and a sign follow it: the number is read once either way), which makes parsing
//! linear in the header length. Nesting is bounded by
//! [`MAX_DEPTH`](crate::limits::MAX_DEPTH) so no input can exhaust the stack.
//!
//! Families: `cursor` (the input type, failures), `space` (whitespace), `strings` (strings
//! and bytes), `scalars` (numbers, booleans, `None`), `containers` (dict, tuples, lists);
//! this module holds the start rule, `header`.

mod containers;
mod cursor;
mod scalars;
mod space;
mod strings;

use crate::error::{Error, ErrorKind};
use crate::format::literal::Dict;
use crate::format::preamble::{Encoding, Version};
use crate::prelude::*;
use containers::dict;
use cursor::{Ctx, Cursor, PError};
use space::padding;

/// Parses a complete header text (the `header` rule) into a [`Dict`].
///
/// Offsets in the returned literals and in errors are relative to the start of
/// `text`; [`Header::parse`](crate::Header::parse) shifts errors to file offsets.
///
/// ```abnf
/// header          = dict padding
/// ```
pub fn parse_dict(text: &[u8], version: Version) -> Result<Dict, Error> {
    check_encoding(text, version.encoding())?;
    let cx = Ctx {
        encoding: version.encoding(),
        long_suffix: version.allows_long_suffix(),
    };
    let result = dict(&cx, Cursor::new(text)).and_then(|(rest, d)| {
        let (rest, ()) = padding(rest)?;
        match rest.peek() {
            None => Ok(d),
            Some(_) => Err(nom::Err::Failure(PError {
                offset: rest.offset(),
                kind: ErrorKind::HeaderSyntax,
                expected: "only whitespace padding after the closing '}'",
            })),
        }
    });
    match result {
        Ok(d) => Ok(d),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => {
            let found = match text.get(e.offset) {
                Some(&b) => describe_byte(b),
                None => "end of header".to_string(),
            };
            Err(Error::new(e.kind, e.offset as u64, e.expected).found(found))
        }
        Err(nom::Err::Incomplete(_)) => Err(Error::new(
            ErrorKind::HeaderSyntax,
            text.len() as u64,
            "a complete header",
        )),
    }
}

/// Refuses a NUL anywhere in the header, and text that is not UTF-8 in version 3.0.
fn check_encoding(text: &[u8], encoding: Encoding) -> Result<(), Error> {
    // A branch-free pass first (it vectorizes); the position only when there is a NUL.
    let has_nul = text.iter().fold(false, |acc, &b| acc | (b == 0));
    if let Some(pos) = has_nul.then(|| text.iter().position(|&b| b == 0)).flatten() {
        return Err(Error::new(
            ErrorKind::HeaderEncoding,
            pos as u64,
            "no NUL byte in the header",
        ));
    }
    if encoding == Encoding::Utf8 {
        if let Err(e) = core::str::from_utf8(text) {
            return Err(Error::new(
                ErrorKind::HeaderEncoding,
                e.valid_up_to() as u64,
                "UTF-8 header text (format version 3.0)",
            ));
        }
    }
    Ok(())
}

fn describe_byte(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("'{}'", char::from(b))
    } else {
        format!("byte 0x{b:02x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::literal::{Float, Int, Literal, Value};

    fn p(s: &str) -> Result<Dict, Error> {
        parse_dict(s.as_bytes(), Version::V1_0)
    }

    #[test]
    fn parses_numpy_header() {
        let d =
            p("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }          \n").unwrap();
        assert_eq!(d.entries.len(), 3);
        assert_eq!(
            d.entries[2].value.value,
            Value::Tuple(vec![
                Literal::new(Value::Int(Int::Small(2))),
                Literal::new(Value::Int(Int::Small(3)))
            ])
        );
        assert_eq!(d.entries[2].key_offset, 41);
    }

    #[test]
    fn error_offsets_are_exact() {
        let e = p("{'a': 02}").unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::HeaderSyntax, Some(6)));
        let e = p("{'a': (1)}").unwrap_err();
        assert_eq!(e.offset(), Some(8));
        let e = p("{'a': 1} x").unwrap_err();
        assert_eq!(e.offset(), Some(9));
    }

    #[test]
    fn depth_limit_is_exact() {
        // The dict is level 1, so 31 nested lists reach level 32: accepted.
        let ok = format!("{{'a': {}{}}}", "[".repeat(31), "]".repeat(31));
        assert!(p(&ok).is_ok());
        let bad = format!("{{'a': {}{}}}", "[".repeat(32), "]".repeat(32));
        assert_eq!(p(&bad).unwrap_err().kind(), ErrorKind::NestingTooDeep);
    }

    #[test]
    fn big_integers_are_kept_exactly() {
        let d = p("{'a': 18446744073709551616}").unwrap();
        assert_eq!(
            d.entries[0].value.value,
            Value::Int(Int::Big("18446744073709551616".into()))
        );
        let d = p("{'a': 18446744073709551615}").unwrap();
        assert_eq!(d.entries[0].value.value, Value::Int(Int::Small(u64::MAX)));
    }

    fn value(s: &str) -> Result<Value, Error> {
        p(&format!("{{'a': {s}}}")).map(|d| d.entries[0].value.value.clone())
    }

    #[test]
    fn numbers_read_as_python_reads_them_and_write_back_as_repr() {
        let f = |v: f64| Float(v);
        let cases = [
            ("-7", Value::NegInt(Int::Small(7)), "-7"),
            ("1.5", Value::Float(f(1.5)), "1.5"),
            ("-0.0", Value::Float(f(-0.0)), "-0.0"),
            ("1e+300", Value::Float(f(1e300)), "1e+300"),
            ("1e-05", Value::Float(f(1e-5)), "1e-05"),
            ("1j", Value::Complex(f(0.0), f(1.0)), "1j"),
            // -(0+1j): both parts negated; written back as itself (repr writes (-0-1j),
            // which reads as (0.0, -1.0)).
            ("-1j", Value::Complex(f(-0.0), f(-1.0)), "-1j"),
            ("-0j", Value::Complex(f(-0.0), f(-0.0)), "-0j"),
            ("(1+2j)", Value::Complex(f(1.0), f(2.0)), "(1+2j)"),
            (
                "( 1.5-1e+300j )",
                Value::Complex(f(1.5), f(-1e300)),
                "(1.5-1e+300j)",
            ),
            // The integer -0 is 0, and 0 - 0j keeps a positive zero (Python before 3.14).
            ("(-0-0j)", Value::Complex(f(0.0), f(0.0)), "0j"),
            ("(-0.0-0j)", Value::Complex(f(-0.0), f(0.0)), "(-0.0-0j)"),
            ("(-0-1j)", Value::Complex(f(0.0), f(-1.0)), "(0-1j)"),
            ("(2.5-1j)", Value::Complex(f(2.5), f(-1.0)), "(2.5-1j)"),
            (
                "b'a\\x00\\'\"'",
                Value::Bytes(b"a\x00'\"".to_vec()),
                "b'a\\x00\\'\"'",
            ),
            ("b\"it's\"", Value::Bytes(b"it's".to_vec()), "b\"it's\""),
        ];
        for (text, want, repr) in cases {
            let got = value(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(got, want, "{text}");
            assert_eq!(Literal::new(got.clone()).to_string(), repr, "{text}");
            // What is written reads back to the same value.
            assert_eq!(value(repr).unwrap(), got, "{text} -> {repr}");
        }
        let big = value("-18446744073709551616").unwrap();
        assert_eq!(big, Value::NegInt(Int::Big("18446744073709551616".into())));
    }

    #[test]
    fn every_complex_spelling_is_written_back_as_a_literal_that_reads_back_to_itself() {
        let reals = ["0", "-0", "0.0", "-0.0", "1", "-1", "2.5", "-2.5e-05"];
        let imags = ["0", "1", "2.5", "1e+300"];
        let mut texts = Vec::new();
        for im in imags {
            texts.push(format!("{im}j"));
            texts.push(format!("-{im}j"));
            for re in reals {
                texts.push(format!("({re}+{im}j)"));
                texts.push(format!("({re}-{im}j)"));
            }
        }
        for text in texts {
            let v = value(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let written = Literal::new(v.clone()).to_string();
            let back = value(&written).unwrap_or_else(|e| panic!("{text} -> {written}: {e}"));
            assert_eq!(back, v, "{text} -> {written}");
        }
    }

    #[test]
    fn sets_and_dicts_keep_their_items_as_written() {
        let one = |v| Literal::new(Value::Int(Int::Small(v)));
        assert_eq!(
            value("{2, 1, 2}").unwrap(),
            Value::Set(vec![one(2), one(1), one(2)])
        );
        assert_eq!(value("{}").unwrap(), Value::Map(Vec::new()));
        let m = value("{1: [2], 'k': (3,),}").unwrap();
        assert_eq!(Literal::new(m).to_string(), "{1: [2], 'k': (3,)}");
        assert_eq!(Literal::new(Value::Set(Vec::new())).to_string(), "set()");
        // An unhashable item is refused where it starts, as literal_eval's TypeError.
        let e = value("{1, [2]}").unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::HeaderSyntax, Some(10)));
        let e = value("{1: 2, 3}").unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::HeaderSyntax, Some(14)));
    }

    #[test]
    fn number_spellings_repr_never_writes_are_refused_where_they_start_to_differ() {
        for (text, at) in [
            ("-0", 7),
            ("+1", 6),
            ("1e5", 8),
            ("1E+5", 7),
            ("1.", 8),
            (".5", 6),
            ("01.5", 6),
            ("1J", 7),
            ("(1 + 2j)", 9),
            ("(1+2L)", 9),
            ("(1L+2j)", 9),
            ("(1+2)", 9),
            ("(1+2j, 3)", 11),
            ("(1j+2j)", 9),
            ("- 1", 7),
            ("B'x'", 6),
            ("b'\\a'", 9),
            ("b'\u{e9}'", 8),
            ("1e+400", 6),
            ("(1e+400+1j)", 7),
            ("1e+400j", 6),
        ] {
            let e = value(text).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::HeaderSyntax, "{text}: {e}");
            assert_eq!(e.offset(), Some(at), "{text}: {e}");
        }
        // An integer real part too large for a float: Python raises OverflowError.
        let e = value(&format!("({}+1j)", "9".repeat(400))).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::HeaderSyntax, "{e}");
    }

    #[test]
    fn long_suffix_depends_on_version() {
        assert!(parse_dict(b"{'a': (2L,)}", Version::V2_0).is_ok());
        let e = parse_dict(b"{'a': (2L,)}", Version::V3_0).unwrap_err();
        assert_eq!(e.offset(), Some(8));
    }

    #[test]
    fn encodings() {
        let latin = parse_dict(b"{'\xe9': 1}", Version::V1_0).unwrap();
        assert_eq!(latin.entries[0].key, "é");
        let utf8 = parse_dict("{'é': 1}".as_bytes(), Version::V3_0).unwrap();
        assert_eq!(utf8.entries[0].key, "é");
        let e = parse_dict(b"{'\xe9': 1}", Version::V3_0).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::HeaderEncoding, Some(2)));
    }
}
