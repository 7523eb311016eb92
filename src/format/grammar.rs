//! The nom parser for `grammar/npy-header.abnf`: one function per grammar rule.
//!
//! Each function quotes the rule it implements. The parser works on the raw
//! header bytes (so every offset is a byte offset in the file), over complete
//! input, and never backtracks: every value kind is chosen by its first byte,
//! which makes parsing linear in the header length. Nesting is bounded by
//! [`MAX_DEPTH`] so no input can exhaust the stack.

use nom::bytes::complete::{tag, take_while, take_while1};
use nom::error::{ErrorKind as NomKind, ParseError};
use nom::{IResult, Parser};

use crate::error::{Error, ErrorKind};
use crate::format::literal::{Dict, Entry, Int, Literal, Value};
use crate::format::preamble::{Encoding, Version};
use crate::limits::MAX_DEPTH;

type Input<'a> = &'a [u8];
type PResult<'a, T> = IResult<Input<'a>, T, PError>;

/// A parse failure: where (as bytes remaining), what kind, what was expected.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PError {
    remaining: usize,
    kind: ErrorKind,
    expected: &'static str,
}

impl PError {
    fn at(i: Input<'_>, kind: ErrorKind, expected: &'static str) -> PError {
        PError {
            remaining: i.len(),
            kind,
            expected,
        }
    }
}

impl<'a> ParseError<Input<'a>> for PError {
    fn from_error_kind(input: Input<'a>, _kind: NomKind) -> Self {
        PError::at(input, ErrorKind::HeaderSyntax, "valid header syntax")
    }
    fn append(_input: Input<'a>, _kind: NomKind, other: Self) -> Self {
        other
    }
}

/// Fails (without retry) with `expected` at `i`.
fn fail<'a, T>(i: Input<'a>, kind: ErrorKind, expected: &'static str) -> PResult<'a, T> {
    Err(nom::Err::Failure(PError::at(i, kind, expected)))
}

/// Consumes the literal `lit`, or fails saying it was `expected`.
fn expect<'a>(lit: &'static [u8], expected: &'static str, i: Input<'a>) -> PResult<'a, ()> {
    match tag::<_, _, PError>(lit).parse(i) {
        Ok((rest, _)) => Ok((rest, ())),
        Err(_) => fail(i, ErrorKind::HeaderSyntax, expected),
    }
}

/// Parser settings fixed for one header.
struct Ctx {
    total: usize,
    encoding: Encoding,
    long_suffix: bool,
}

impl Ctx {
    fn offset(&self, i: Input<'_>) -> usize {
        self.total.saturating_sub(i.len())
    }
}

/// Parses a complete header text (the `header` rule) into a [`Dict`].
///
/// Offsets in the returned literals and in errors are relative to the start of
/// `text`; [`crate::format::header`] shifts errors to file offsets.
///
/// ```abnf
/// header          = dict padding
/// ```
pub fn parse_dict(text: &[u8], version: Version) -> Result<Dict, Error> {
    if let Some(pos) = text.iter().position(|&b| b == 0) {
        return Err(Error::new(
            ErrorKind::HeaderEncoding,
            pos as u64,
            "no NUL byte in the header",
        ));
    }
    let encoding = version.encoding();
    if encoding == Encoding::Utf8 {
        if let Err(e) = std::str::from_utf8(text) {
            return Err(Error::new(
                ErrorKind::HeaderEncoding,
                e.valid_up_to() as u64,
                "UTF-8 header text (format version 3.0)",
            ));
        }
    }
    let cx = Ctx {
        total: text.len(),
        encoding,
        long_suffix: version.allows_long_suffix(),
    };
    let result = dict(&cx, text).and_then(|(rest, d)| {
        let (rest, _) = padding(rest)?;
        if rest.is_empty() {
            Ok(d)
        } else {
            Err(nom::Err::Failure(PError::at(
                rest,
                ErrorKind::HeaderSyntax,
                "only whitespace padding after the closing '}'",
            )))
        }
    });
    match result {
        Ok(d) => Ok(d),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => {
            let offset = text.len().saturating_sub(e.remaining);
            let found = match text.get(offset) {
                Some(&b) => describe_byte(b),
                None => "end of header".to_string(),
            };
            Err(Error::new(e.kind, offset as u64, e.expected).found(found))
        }
        Err(nom::Err::Incomplete(_)) => Err(Error::new(
            ErrorKind::HeaderSyntax,
            text.len() as u64,
            "a complete header",
        )),
    }
}

fn describe_byte(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("'{}'", char::from(b))
    } else {
        format!("byte 0x{b:02x}")
    }
}

/// ```abnf
/// wsp             = %x20 / %x09 / %x0A / %x0D / %x0C
/// ```
fn is_wsp(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0c)
}

/// ```abnf
/// ws              = *wsp
/// ```
fn ws(i: Input<'_>) -> PResult<'_, ()> {
    let (rest, _) = take_while(is_wsp).parse(i)?;
    Ok((rest, ()))
}

/// ```abnf
/// padding         = *wsp
/// ```
fn padding(i: Input<'_>) -> PResult<'_, ()> {
    ws(i)
}

/// Returns the next byte without consuming it.
fn peek(i: Input<'_>) -> Option<u8> {
    i.first().copied()
}

/// ```abnf
/// dict            = %x7B ws [ entry *( ws %x2C ws entry ) [ ws %x2C ] ws ] %x7D
/// ```
fn dict<'a>(cx: &Ctx, i: Input<'a>) -> PResult<'a, Dict> {
    let (mut i, ()) = expect(b"{", "'{' opening the header dict", i)?;
    let mut entries = Vec::new();
    loop {
        (i, ()) = ws(i)?;
        if peek(i) == Some(b'}') {
            break;
        }
        let (rest, e) = entry(cx, i)?;
        entries.push(e);
        (i, ()) = ws(rest)?;
        match peek(i) {
            Some(b',') => i = i.get(1..).unwrap_or_default(),
            Some(b'}') => break,
            _ => return fail(i, ErrorKind::HeaderSyntax, "',' or '}' after a dict entry"),
        }
    }
    let (i, ()) = expect(b"}", "'}'", i)?;
    Ok((i, Dict { entries }))
}

/// ```abnf
/// entry           = string ws %x3A ws value
/// ```
fn entry<'a>(cx: &Ctx, i: Input<'a>) -> PResult<'a, Entry> {
    let key_offset = cx.offset(i);
    if !matches!(peek(i), Some(b'\'' | b'"')) {
        return fail(i, ErrorKind::HeaderSyntax, "a quoted string key");
    }
    let (i, key) = string(cx, i)?;
    let (i, ()) = ws(i)?;
    let (i, ()) = expect(b":", "':' after the key", i)?;
    let (i, ()) = ws(i)?;
    let (i, value) = value(cx, 1, i)?;
    Ok((
        i,
        Entry {
            key,
            key_offset,
            value,
        },
    ))
}

/// ```abnf
/// value           = string / integer / tuple / list / boolean / none
/// ```
///
/// `depth` is the nesting depth of the container holding this value.
fn value<'a>(cx: &Ctx, depth: u32, i: Input<'a>) -> PResult<'a, Literal> {
    let offset = cx.offset(i);
    let (rest, v) = match peek(i) {
        Some(b'\'' | b'"') => {
            let (rest, s) = string(cx, i)?;
            (rest, Value::Str(s))
        }
        Some(b'0'..=b'9') => {
            let (rest, n) = integer(cx, i)?;
            (rest, Value::Int(n))
        }
        Some(b'(') => {
            let (rest, items) = tuple(cx, depth, i)?;
            (rest, Value::Tuple(items))
        }
        Some(b'[') => {
            let (rest, items) = list(cx, depth, i)?;
            (rest, Value::List(items))
        }
        Some(b'T' | b'F') => {
            let (rest, b) = boolean(i)?;
            (rest, Value::Bool(b))
        }
        Some(b'N') => {
            let (rest, ()) = none(i)?;
            (rest, Value::None)
        }
        _ => {
            return fail(
                i,
                ErrorKind::HeaderSyntax,
                "a value (string, integer, tuple, list, True, False or None)",
            )
        }
    };
    Ok((rest, Literal { offset, value: v }))
}

/// Opens a container one level below `depth`, refusing to go past [`MAX_DEPTH`].
fn deeper(depth: u32, i: Input<'_>) -> Result<u32, nom::Err<PError>> {
    let d = depth.saturating_add(1);
    if d > MAX_DEPTH {
        return Err(nom::Err::Failure(PError::at(
            i,
            ErrorKind::NestingTooDeep,
            "brackets nested at most 32 deep",
        )));
    }
    Ok(d)
}

/// ```abnf
/// tuple           = %x28 ws tuple-body ws %x29
/// tuple-body      = [ value ws %x2C [ ws value *( ws %x2C ws value ) [ ws %x2C ] ] ]
/// ```
fn tuple<'a>(cx: &Ctx, depth: u32, i: Input<'a>) -> PResult<'a, Vec<Literal>> {
    let d = deeper(depth, i)?;
    let (mut i, ()) = expect(b"(", "'('", i)?;
    let mut items = Vec::new();
    let mut trailing_comma = false;
    loop {
        (i, ()) = ws(i)?;
        if peek(i) == Some(b')') {
            break;
        }
        let (rest, v) = value(cx, d, i)?;
        items.push(v);
        (i, ()) = ws(rest)?;
        match peek(i) {
            Some(b',') => {
                trailing_comma = true;
                i = i.get(1..).unwrap_or_default();
            }
            Some(b')') => {
                trailing_comma = false;
                break;
            }
            _ => return fail(i, ErrorKind::HeaderSyntax, "',' or ')' in a tuple"),
        }
    }
    if items.len() == 1 && !trailing_comma {
        return fail(
            i,
            ErrorKind::HeaderSyntax,
            "',' (a one-element tuple is written '(x,)')",
        );
    }
    let (i, ()) = expect(b")", "')'", i)?;
    Ok((i, items))
}

/// ```abnf
/// list            = %x5B ws [ value *( ws %x2C ws value ) [ ws %x2C ] ] ws %x5D
/// ```
fn list<'a>(cx: &Ctx, depth: u32, i: Input<'a>) -> PResult<'a, Vec<Literal>> {
    let d = deeper(depth, i)?;
    let (mut i, ()) = expect(b"[", "'['", i)?;
    let mut items = Vec::new();
    loop {
        (i, ()) = ws(i)?;
        if peek(i) == Some(b']') {
            break;
        }
        let (rest, v) = value(cx, d, i)?;
        items.push(v);
        (i, ()) = ws(rest)?;
        match peek(i) {
            Some(b',') => i = i.get(1..).unwrap_or_default(),
            Some(b']') => break,
            _ => return fail(i, ErrorKind::HeaderSyntax, "',' or ']' in a list"),
        }
    }
    let (i, ()) = expect(b"]", "']'", i)?;
    Ok((i, items))
}

/// ```abnf
/// boolean         = %s"True" / %s"False"
/// ```
fn boolean(i: Input<'_>) -> PResult<'_, bool> {
    if let Ok((rest, _)) = tag::<_, _, PError>(&b"True"[..]).parse(i) {
        return Ok((rest, true));
    }
    let (rest, ()) = expect(b"False", "True or False", i)?;
    Ok((rest, false))
}

/// ```abnf
/// none            = %s"None"
/// ```
fn none(i: Input<'_>) -> PResult<'_, ()> {
    expect(b"None", "None", i)
}

/// ```abnf
/// integer         = ( %x30 / nonzero-digit *DIGIT ) [ long-suffix ]
/// long-suffix     = %s"L"
/// ```
fn integer<'a>(cx: &Ctx, i: Input<'a>) -> PResult<'a, Int> {
    let (rest, digits) = take_while1(|b: u8| b.is_ascii_digit()).parse(i)?;
    if digits.len() > 1 && digits.first() == Some(&b'0') {
        return fail(
            i,
            ErrorKind::HeaderSyntax,
            "a decimal integer without leading zeros",
        );
    }
    let mut value: Option<u64> = Some(0);
    for &d in digits {
        value = value
            .and_then(|v| v.checked_mul(10))
            .and_then(|v| v.checked_add(u64::from(d.wrapping_sub(b'0'))));
    }
    let n = match value {
        Some(v) => Int::Small(v),
        // `digits` holds only ASCII digits, so this conversion cannot fail.
        None => Int::Big(String::from_utf8_lossy(digits).into_owned()),
    };
    match peek(rest) {
        Some(b'L') if cx.long_suffix => Ok((rest.get(1..).unwrap_or_default(), n)),
        Some(b'L') => fail(
            rest,
            ErrorKind::HeaderSyntax,
            "no 'L' suffix (allowed only in format versions 1.0 and 2.0)",
        ),
        _ => Ok((rest, n)),
    }
}

/// ```abnf
/// string          = sq-string / dq-string
/// sq-string       = %x27 *( sq-char / escape ) %x27
/// dq-string       = %x22 *( dq-char / escape ) %x22
/// sq-char         = %x20-26 / %x28-5B / %x5D-7E / non-ascii
/// dq-char         = %x20-21 / %x23-5B / %x5D-7E / non-ascii
/// non-ascii       = %x80-D7FF / %xE000-10FFFF
/// ```
fn string<'a>(cx: &Ctx, i: Input<'a>) -> PResult<'a, String> {
    let quote = match peek(i) {
        Some(q @ (b'\'' | b'"')) => q,
        _ => return fail(i, ErrorKind::HeaderSyntax, "a quoted string"),
    };
    let mut i = i.get(1..).unwrap_or_default();
    let mut out = String::new();
    loop {
        // A run of plain printable ASCII is copied in one step.
        let (rest, run) =
            take_while(|b: u8| (0x20..0x7f).contains(&b) && b != quote && b != b'\\').parse(i)?;
        // `run` is printable ASCII, hence valid UTF-8.
        out.push_str(std::str::from_utf8(run).unwrap_or_default());
        i = rest;
        match peek(i) {
            Some(b) if b == quote => return Ok((i.get(1..).unwrap_or_default(), out)),
            Some(b'\\') => {
                let (rest, c) = escape(i)?;
                out.push(c);
                i = rest;
            }
            Some(b) if b >= 0x80 => {
                let (rest, c) = non_ascii(cx, i)?;
                out.push(c);
                i = rest;
            }
            Some(_) => {
                return fail(
                    i,
                    ErrorKind::HeaderSyntax,
                    "a printable character, an escape or the closing quote",
                )
            }
            None => {
                return fail(
                    i,
                    ErrorKind::HeaderSyntax,
                    "the closing quote of the string",
                )
            }
        }
    }
}

/// One character above U+007F: a single latin-1 byte, or a UTF-8 sequence
/// (the text was validated as UTF-8 before parsing).
///
/// ```abnf
/// non-ascii       = %x80-D7FF / %xE000-10FFFF
/// ```
fn non_ascii<'a>(cx: &Ctx, i: Input<'a>) -> PResult<'a, char> {
    let Some(&lead) = i.first() else {
        return fail(i, ErrorKind::HeaderSyntax, "a character");
    };
    match cx.encoding {
        Encoding::Latin1 => Ok((i.get(1..).unwrap_or_default(), char::from(lead))),
        Encoding::Utf8 => {
            let len = match lead {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                _ => 4,
            };
            let decoded = i
                .get(..len)
                .and_then(|s| std::str::from_utf8(s).ok())
                .and_then(|s| s.chars().next());
            match decoded {
                Some(c) => Ok((i.get(len..).unwrap_or_default(), c)),
                None => fail(i, ErrorKind::HeaderEncoding, "a UTF-8 encoded character"),
            }
        }
    }
}

/// ```abnf
/// escape          = %x5C ( %x5C / %x27 / %x22 / %s"n" / %s"r" / %s"t"
///                        / %s"x" 2HEXDIG
///                        / %s"u" bmp-scalar
///                        / %s"U" %x30.30 ( %x30.30 bmp-scalar
///                                        / %x30 nonzero-hexdig 4HEXDIG
///                                        / %x31.30 4HEXDIG ) )
/// bmp-scalar      = ( DIGIT / %x41-43 / %x45-46 / %x61-63 / %x65-66 ) 3HEXDIG
///                 / ( %x44 / %x64 ) %x30-37 2HEXDIG
/// nonzero-hexdig  = %x31-39 / %x41-46 / %x61-66
/// ```
///
/// The hexadecimal digits are read as one number and checked with
/// `char::from_u32`, which accepts exactly the values `bmp-scalar` and the
/// `\U` alternatives spell (Unicode scalar values).
fn escape(i: Input<'_>) -> PResult<'_, char> {
    let (i, ()) = expect(b"\\", "'\\'", i)?;
    let simple = match peek(i) {
        Some(b'\\') => Some('\\'),
        Some(b'\'') => Some('\''),
        Some(b'"') => Some('"'),
        Some(b'n') => Some('\n'),
        Some(b'r') => Some('\r'),
        Some(b't') => Some('\t'),
        _ => None,
    };
    if let Some(c) = simple {
        return Ok((i.get(1..).unwrap_or_default(), c));
    }
    let digits = match peek(i) {
        Some(b'x') => 2,
        Some(b'u') => 4,
        Some(b'U') => 8,
        _ => {
            return fail(
                i,
                ErrorKind::HeaderSyntax,
                "one of the escapes \\\\ \\' \\\" \\n \\r \\t \\xNN \\uNNNN \\UNNNNNNNN",
            )
        }
    };
    let hex_start = i.get(1..).unwrap_or_default();
    let Some(hex) = hex_start
        .get(..digits)
        .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
    else {
        return fail(
            hex_start,
            ErrorKind::HeaderSyntax,
            "hexadecimal digits of the escape",
        );
    };
    let code = hex.iter().fold(0u32, |acc, &h| {
        let d = char::from(h).to_digit(16).unwrap_or(0);
        acc.wrapping_shl(4) | d
    });
    match char::from_u32(code) {
        Some(c) => Ok((hex_start.get(digits..).unwrap_or_default(), c)),
        None => fail(
            i,
            ErrorKind::HeaderSyntax,
            "an escape naming a Unicode scalar value (no surrogates, at most 10FFFF)",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
