//! Quoted strings and bytes literals and their escapes, as Python's `repr` writes them.

use nom::bytes::complete::take_while;
use nom::Parser;

use crate::error::ErrorKind;
use crate::format::grammar::cursor::{expect, fail, Ctx, Cursor, PError, PResult};
use crate::format::preamble::Encoding;
use crate::prelude::*;

/// ```abnf
/// string          = sq-string / dq-string
/// sq-string       = %x27 *( sq-char / escape ) %x27
/// dq-string       = %x22 *( dq-char / escape ) %x22
/// sq-char         = %x01-09 / %x0B-0C / %x0E-26 / %x28-5B / %x5D-7F / non-ascii
/// dq-char         = %x01-09 / %x0B-0C / %x0E-21 / %x23-5B / %x5D-7F / non-ascii
/// ```
///
/// Raw control characters other than NUL, LF and CR stand for themselves, as in
/// `ast.literal_eval` (npyz writes a field name's TAB, `\x01` or DEL raw).
///
/// An escape may name a lone surrogate (`\ud805`, `\U0000dc00`): np.save writes a field
/// so named as that escape. The string is then [`Decoded::Surrogates`]; the callers accept
/// it only where NumPy writes it (a field name) and refuse it elsewhere with
/// [`SURROGATE_REFUSED`] at the escape, as every string was refused before.
pub(crate) fn string<'a>(cx: &Ctx, i: Cursor<'a>) -> PResult<'a, Decoded> {
    let quote = match i.peek() {
        Some(q @ (b'\'' | b'"')) => q,
        _ => return fail(i, ErrorKind::HeaderSyntax, "a quoted string"),
    };
    let mut i = i.skip(1);
    let mut out = String::new();
    // Once a lone surrogate is met: the code points so far, and the escape's offset.
    let mut wide: Option<(Vec<u32>, usize)> = None;
    loop {
        // A run of plain ASCII characters is copied in one step.
        let (rest, run) =
            take_while(|b: u8| plain_ascii(b) && b != quote && b != b'\\').parse(i)?;
        // `run` is ASCII: each byte is its character.
        match &mut wide {
            None => out.extend(run.bytes().iter().copied().map(char::from)),
            Some((points, _)) => points.extend(run.bytes().iter().copied().map(u32::from)),
        }
        i = rest;
        let (rest, c) = match i.peek() {
            Some(b) if b == quote => {
                let decoded = match wide {
                    None => Decoded::Text(out),
                    Some((points, at)) => Decoded::Surrogates { points, at },
                };
                return Ok((i.skip(1), decoded));
            }
            Some(b'\\') => escape(i)?,
            Some(b) if b >= 0x80 => non_ascii(cx, i).map(|(r, c)| (r, u32::from(c)))?,
            Some(_) => {
                return fail(
                    i,
                    ErrorKind::HeaderSyntax,
                    "a character other than NUL, LF or CR, an escape or the closing quote",
                )
            }
            None => {
                return fail(
                    i,
                    ErrorKind::HeaderSyntax,
                    "the closing quote of the string",
                )
            }
        };
        match (&mut wide, char::from_u32(c)) {
            (None, Some(ch)) => out.push(ch),
            (None, None) => {
                // The escape letter's offset, where a refusal points (one past the `\`).
                let at = i.offset().saturating_add(1);
                let mut points: Vec<u32> = out.chars().map(u32::from).collect();
                points.push(c);
                wide = Some((points, at));
            }
            (Some((points, _)), _) => points.push(c),
        }
        i = rest;
    }
}

/// A decoded string literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decoded {
    /// Text (every escape named a Unicode scalar value).
    Text(String),
    /// A string holding a lone surrogate: its code points, and the offset of the letter of
    /// its first surrogate escape (where a refusal points).
    Surrogates { points: Vec<u32>, at: usize },
}

/// What a refusal of a lone surrogate outside a field name says is expected.
pub(crate) const SURROGATE_REFUSED: &str =
    "an escape naming a Unicode scalar value (no surrogates, at most 10FFFF)";

impl Decoded {
    /// The text, or the refusal of a lone surrogate (a header-syntax error at its escape).
    pub(crate) fn into_text(self) -> core::result::Result<String, nom::Err<PError>> {
        match self {
            Decoded::Text(t) => Ok(t),
            Decoded::Surrogates { at, .. } => Err(nom::Err::Failure(PError {
                offset: at,
                kind: ErrorKind::HeaderSyntax,
                expected: SURROGATE_REFUSED,
            })),
        }
    }
}

/// ```abnf
/// key             = sq-key / dq-key
/// sq-key          = %x27 *( sq-char / scalar-escape ) %x27
/// dq-key          = %x22 *( dq-char / scalar-escape ) %x22
/// ```
///
/// A dict key: a [`string`] that is text (a surrogate escape is refused at its letter).
pub(crate) fn key<'a>(cx: &Ctx, i: Cursor<'a>) -> PResult<'a, String> {
    let (rest, decoded) = string(cx, i)?;
    Ok((rest, decoded.into_text()?))
}

/// ```abnf
/// bytes           = %s"b" ( sq-bytes / dq-bytes )
/// sq-bytes        = %x27 *( sq-byte / byte-escape ) %x27
/// dq-bytes        = %x22 *( dq-byte / byte-escape ) %x22
/// sq-byte         = %x01-09 / %x0B-0C / %x0E-26 / %x28-5B / %x5D-7F
/// dq-byte         = %x01-09 / %x0B-0C / %x0E-21 / %x23-5B / %x5D-7F
/// ```
///
/// A bytes literal as `repr` writes one (np.save writes a field title `b't'` so): ASCII
/// only, as in Python, and the escapes `repr` writes.
pub(crate) fn bytes(i: Cursor<'_>) -> PResult<'_, Vec<u8>> {
    let (i, ()) = expect(b"b", "'b' opening a bytes literal", i)?;
    let quote = match i.peek() {
        Some(q @ (b'\'' | b'"')) => q,
        _ => return fail(i, ErrorKind::HeaderSyntax, "a quote after 'b'"),
    };
    let mut i = i.skip(1);
    let mut out = Vec::new();
    loop {
        let (rest, run) =
            take_while(|b: u8| plain_ascii(b) && b != quote && b != b'\\').parse(i)?;
        out.extend_from_slice(run.bytes());
        i = rest;
        match i.peek() {
            Some(b) if b == quote => return Ok((i.skip(1), out)),
            Some(b'\\') => {
                let (rest, b) = byte_escape(i)?;
                out.push(b);
                i = rest;
            }
            Some(_) => {
                return fail(
                    i,
                    ErrorKind::HeaderSyntax,
                    "an ASCII character other than NUL, LF or CR, an escape or the closing quote",
                )
            }
            None => return fail(i, ErrorKind::HeaderSyntax, "the closing quote of the bytes"),
        }
    }
}

/// ```abnf
/// byte-escape     = %x5C ( %x5C / %x27 / %x22 / %s"n" / %s"r" / %s"t" / %s"x" 2HEXDIG )
/// ```
fn byte_escape(i: Cursor<'_>) -> PResult<'_, u8> {
    let (i, ()) = expect(b"\\", "'\\'", i)?;
    let simple = match i.peek() {
        Some(b'\\') => Some(b'\\'),
        Some(b'\'') => Some(b'\''),
        Some(b'"') => Some(b'"'),
        Some(b'n') => Some(b'\n'),
        Some(b'r') => Some(b'\r'),
        Some(b't') => Some(b'\t'),
        _ => None,
    };
    if let Some(b) = simple {
        return Ok((i.skip(1), b));
    }
    if i.peek() != Some(b'x') {
        return fail(
            i,
            ErrorKind::HeaderSyntax,
            "one of the escapes \\\\ \\' \\\" \\n \\r \\t \\xNN",
        );
    }
    let (rest, code) = hex_code_point(i, i.skip(1), 2)?;
    // Two hexadecimal digits name at most 0xFF.
    Ok((rest, u8::try_from(code).unwrap_or(u8::MAX)))
}

/// An ASCII byte a string may hold raw (quote and backslash aside): anything but NUL, LF
/// and CR, which Python's tokenizer refuses inside a one-line string.
fn plain_ascii(b: u8) -> bool {
    b < 0x80 && !matches!(b, 0x00 | b'\n' | b'\r')
}

/// One character above U+007F: a single latin-1 byte, or a UTF-8 sequence
/// (the text was validated as UTF-8 before parsing).
///
/// ```abnf
/// non-ascii       = %x80-D7FF / %xE000-10FFFF
/// ```
pub(crate) fn non_ascii<'a>(cx: &Ctx, i: Cursor<'a>) -> PResult<'a, char> {
    let Some(lead) = i.peek() else {
        return fail(i, ErrorKind::HeaderSyntax, "a character");
    };
    match cx.encoding {
        Encoding::Latin1 => Ok((i.skip(1), char::from(lead))),
        Encoding::Utf8 => {
            let len = match lead {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                _ => 4,
            };
            let decoded = i
                .bytes()
                .get(..len)
                .and_then(|s| core::str::from_utf8(s).ok())
                .and_then(|s| s.chars().next());
            match decoded {
                Some(c) => Ok((i.skip(len), c)),
                None => fail(i, ErrorKind::HeaderEncoding, "a UTF-8 encoded character"),
            }
        }
    }
}

/// ```abnf
/// escape          = scalar-escape / surrogate-escape
/// scalar-escape   = %x5C ( %x5C / %x27 / %x22 / %s"n" / %s"r" / %s"t"
///                        / %s"x" 2HEXDIG
///                        / %s"u" bmp-scalar
///                        / %s"U" %x30.30 ( %x30.30 bmp-scalar
///                                        / %x30 nonzero-hexdig 4HEXDIG
///                                        / %x31.30 4HEXDIG ) )
/// surrogate-escape = %x5C ( %s"u" surrogate / %s"U" %x30.30 %x30.30 surrogate )
/// surrogate       = ( %x44 / %x64 ) ( %x38-39 / %x41-46 / %x61-66 ) 2HEXDIG
/// bmp-scalar      = ( DIGIT / %x41-43 / %x45-46 / %x61-63 / %x65-66 ) 3HEXDIG
///                 / ( %x44 / %x64 ) %x30-37 2HEXDIG
/// nonzero-hexdig  = %x31-39 / %x41-46 / %x61-66
/// HEXDIG          = DIGIT / %x41-46 / %x61-66
/// ```
///
/// The hexadecimal digits are read as one number, which must be at most U+10FFFF: the
/// values `bmp-scalar`, `surrogate` and the `\U` alternatives spell. The code point is
/// returned; [`string`] tells a lone surrogate (`surrogate-escape`) from a Unicode scalar
/// value (`scalar-escape`).
pub(crate) fn escape(i: Cursor<'_>) -> PResult<'_, u32> {
    let (i, ()) = expect(b"\\", "'\\'", i)?;
    let simple = match i.peek() {
        Some(b'\\') => Some('\\'),
        Some(b'\'') => Some('\''),
        Some(b'"') => Some('"'),
        Some(b'n') => Some('\n'),
        Some(b'r') => Some('\r'),
        Some(b't') => Some('\t'),
        _ => None,
    };
    if let Some(c) = simple {
        return Ok((i.skip(1), u32::from(c)));
    }
    let digits = match i.peek() {
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
    hex_code_point(i, i.skip(1), digits)
}

/// The code point named by the `digits` hexadecimal digits at `hex` (`escape` is the
/// escape letter's position, for the error of a value above U+10FFFF); surrogates pass.
fn hex_code_point<'a>(escape: Cursor<'a>, hex: Cursor<'a>, digits: usize) -> PResult<'a, u32> {
    // The digits are checked and read in one step (`to_digit(16)` takes exactly the ASCII
    // hexadecimal digits).
    let code = hex.bytes().get(..digits).and_then(|text| {
        text.iter().try_fold(0u32, |acc, &h| {
            Some(acc.wrapping_shl(4) | char::from(h).to_digit(16)?)
        })
    });
    let Some(code) = code else {
        return fail(
            hex,
            ErrorKind::HeaderSyntax,
            "hexadecimal digits of the escape",
        );
    };
    if code > 0x10_ffff {
        return fail(
            escape,
            ErrorKind::HeaderSyntax,
            "an escape naming a code point of at most 10FFFF",
        );
    }
    Ok((hex.skip(digits), code))
}
