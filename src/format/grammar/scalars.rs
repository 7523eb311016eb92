//! The scalar values: numbers (integers, floats, imaginary and complex), booleans, `None`.

use nom::bytes::complete::{tag, take_while1};
use nom::Parser;

use crate::error::ErrorKind;
use crate::format::grammar::cursor::{expect, fail, Ctx, Cursor, PError, PResult};
use crate::format::literal::{Float, Int, Value};
use crate::prelude::*;

/// ```abnf
/// boolean         = %s"True" / %s"False"
/// ```
pub(crate) fn boolean(i: Cursor<'_>) -> PResult<'_, bool> {
    if let Ok((rest, _)) = tag::<_, _, PError>(&b"True"[..]).parse(i) {
        return Ok((rest, true));
    }
    let (rest, ()) = expect(b"False", "True or False", i)?;
    Ok((rest, false))
}

/// ```abnf
/// none            = %s"None"
/// ```
pub(crate) fn none(i: Cursor<'_>) -> PResult<'_, ()> {
    expect(b"None", "None", i)
}

/// A number as written, before it is given a value: its sign, the offset of its first
/// byte, and its body.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Number {
    pub(crate) negative: bool,
    pub(crate) offset: usize,
    pub(crate) body: Body,
}

/// What the digits of a [`Number`] spell.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Body {
    /// An integer; `long` when it carried Python 2's `L` suffix.
    Int { n: Int, long: bool },
    /// A float (`real-float`).
    Float(f64),
    /// An imaginary literal: the float (or integer) before its `j`.
    Imag(f64),
}

/// ```abnf
/// number          = %x2D negative / unsigned
/// negative        = real-float [ %s"j" ] / decimal %s"j" / nonzero-digit *DIGIT [ long-suffix ]
/// unsigned        = real-float [ %s"j" ] / decimal %s"j" / integer
/// ```
///
/// The number as written; [`number_value`] gives it its value, and refuses `-0` as an
/// integer (the `negative` rule: `repr` writes `0`; DEVIATIONS a8). A complex sum's real
/// part may be `-0` (`repr` writes `(-0-1j)`): [`complex_sum`] reads it from the number.
pub(crate) fn number<'a>(cx: &Ctx, i: Cursor<'a>) -> PResult<'a, Number> {
    let offset = i.offset();
    let negative = i.peek() == Some(b'-');
    let start = if negative { i.skip(1) } else { i };
    let (rest, body) = unsigned(cx, start)?;
    let n = Number {
        negative,
        offset,
        body,
    };
    Ok((rest, n))
}

/// The value of a [`number`] standing alone: Python's value of the literal.
pub(crate) fn number_value(n: Number) -> core::result::Result<Value, nom::Err<PError>> {
    Ok(match (n.negative, n.body) {
        (false, Body::Int { n, .. }) => Value::Int(n),
        (
            true,
            Body::Int {
                n: Int::Small(0), ..
            },
        ) => {
            return Err(nom::Err::Failure(PError {
                offset: n.offset.saturating_add(1),
                kind: ErrorKind::HeaderSyntax,
                expected: "a nonzero integer after '-' (repr writes 0, not -0)",
            }))
        }
        (true, Body::Int { n, .. }) => Value::NegInt(n),
        (negative, Body::Float(v)) => Value::Float(Float(if negative { -v } else { v })),
        // Python negates the whole complex: -(0+vj) is (-0.0, -v).
        (true, Body::Imag(v)) => Value::Complex(Float(-0.0), Float(-v)),
        (false, Body::Imag(v)) => Value::Complex(Float(0.0), Float(v)),
    })
}

/// ```abnf
/// complex-sum     = [ %x2D ] ( real-float / decimal ) ( %x2B / %x2D ) ( real-float / decimal ) %s"j"
/// ```
///
/// The rest of a complex number written `(real±imag j)` (`repr` writes `(1+2j)`), `i` at
/// its sign; `first` is the real part, already read (an integer without `L` or a float).
/// The value is what `ast.literal_eval` computes in Python before 3.14: the real number
/// made complex (`(real, +0.0)`, an integer's sign of zero lost) plus or minus
/// `(+0.0, imag)`, part by part. (Python 3.14 follows C99 instead and keeps the sign of a
/// zero imaginary part after `-`: `(1-0j)` is `(1, -0.0)` there, `(1, +0.0)` here.)
pub(crate) fn complex_sum<'a>(
    cx: &Ctx,
    first: &Number,
    i: Cursor<'a>,
) -> PResult<'a, (Float, Float)> {
    let real = match &first.body {
        Body::Int { n, long: false } => match int_as_float(n) {
            Some(v) if first.negative && v != 0.0 => -v,
            Some(v) => v,
            None => {
                return fail(
                    i,
                    ErrorKind::HeaderSyntax,
                    "a real part that fits a float (Python raises OverflowError)",
                );
            }
        },
        Body::Float(v) if first.negative => -*v,
        Body::Float(v) => *v,
        _ => return fail(i, ErrorKind::HeaderSyntax, "',' or ')' in a tuple"),
    };
    let minus = i.peek() == Some(b'-');
    let imag_at = i.skip(1);
    let (rest, imag) = unsigned(cx, imag_at)?;
    let Body::Imag(b) = imag else {
        return fail(
            imag_at,
            ErrorKind::HeaderSyntax,
            "an imaginary number such as 2j after the sign",
        );
    };
    let parts = if minus {
        (real - 0.0, 0.0 - b)
    } else {
        (real + 0.0, 0.0 + b)
    };
    Ok((rest, (Float(parts.0), Float(parts.1))))
}

/// A Python `int` as `float(n)`: correctly rounded, `None` past the largest finite float.
fn int_as_float(n: &Int) -> Option<f64> {
    let v = match n {
        Int::Small(v) => *v as f64,
        Int::Big(digits) => digits.parse::<f64>().ok()?,
    };
    v.is_finite().then_some(v)
}

/// The body of a [`number`]: `real-float`, an imaginary literal, or an `integer`.
fn unsigned<'a>(cx: &Ctx, i: Cursor<'a>) -> PResult<'a, Body> {
    let (after_decimal, n) = decimal(i)?;
    let (rest, is_float) = float_tail(after_decimal)?;
    let text_len = rest.offset().saturating_sub(i.offset());
    let value = || float_value(i, text_len);
    match rest.peek() {
        Some(b'j') => Ok((rest.skip(1), Body::Imag(value()?))),
        _ if is_float => Ok((rest, Body::Float(value()?))),
        _ => {
            let (rest, long) = long_suffix(cx, rest)?;
            Ok((rest, Body::Int { n, long }))
        }
    }
}

/// ```abnf
/// real-float      = decimal ( fraction [ exponent ] / exponent )
/// fraction        = %x2E 1*DIGIT
/// exponent        = %s"e" ( %x2B / %x2D ) 1*DIGIT
/// ```
///
/// What follows a float's `decimal` (nothing, for an integer); `true` when there was a
/// fraction or an exponent.
fn float_tail(i: Cursor<'_>) -> PResult<'_, bool> {
    let mut i = i;
    let mut is_float = false;
    if i.peek() == Some(b'.') {
        (i, _) = digits(i.skip(1), "digits after '.'")?;
        is_float = true;
    }
    if i.peek() == Some(b'e') {
        let signed = i.skip(1);
        if !matches!(signed.peek(), Some(b'+' | b'-')) {
            return fail(signed, ErrorKind::HeaderSyntax, "'+' or '-' after 'e'");
        }
        (i, _) = digits(signed.skip(1), "digits of the exponent")?;
        is_float = true;
    }
    Ok((i, is_float))
}

/// One or more ASCII digits.
fn digits<'a>(i: Cursor<'a>, expected: &'static str) -> PResult<'a, Cursor<'a>> {
    match take_while1::<_, _, PError>(|b: u8| b.is_ascii_digit()).parse(i) {
        Ok(r) => Ok(r),
        Err(_) => fail(i, ErrorKind::HeaderSyntax, expected),
    }
}

/// The `len` bytes at `i` (a float's text, ASCII) read as Python reads a float literal
/// (correctly rounded). A literal past the largest finite float is refused: Python reads it
/// as `inf`, whose `repr` no reader reads back (DEVIATIONS a8).
fn float_value(i: Cursor<'_>, len: usize) -> core::result::Result<f64, nom::Err<PError>> {
    let parsed = i
        .bytes()
        .get(..len)
        .and_then(|t| core::str::from_utf8(t).ok())
        .and_then(|t| t.parse::<f64>().ok())
        .filter(|v| v.is_finite());
    match parsed {
        Some(v) => Ok(v),
        None => fail(
            i,
            ErrorKind::HeaderSyntax,
            "a finite float (Python reads this one as inf, which repr writes as a name)",
        )
        .map(|(_, v)| v),
    }
}

/// ```abnf
/// integer         = decimal [ long-suffix ]
/// decimal         = %x30 / nonzero-digit *DIGIT
/// long-suffix     = %s"L"
/// nonzero-digit   = %x31-39
/// DIGIT           = %x30-39
/// ```
///
/// The `decimal` part: digits without leading zeros, their value.
fn decimal(i: Cursor<'_>) -> PResult<'_, Int> {
    let (rest, digits) = digits(i, "a digit")?;
    let digits = digits.bytes();
    if digits.len() > 1 && digits.first() == Some(&b'0') {
        return fail(
            i,
            ErrorKind::HeaderSyntax,
            "a decimal integer without leading zeros",
        );
    }
    let n = match decimal_value(digits) {
        Some(v) => Int::Small(v),
        // `digits` holds only ASCII digits, so this conversion cannot fail.
        None => Int::Big(String::from_utf8_lossy(digits).into_owned()),
    };
    Ok((rest, n))
}

/// An `L` after an integer's digits: allowed in versions 1.0 and 2.0 only.
fn long_suffix<'a>(cx: &Ctx, rest: Cursor<'a>) -> PResult<'a, bool> {
    match rest.peek() {
        Some(b'L') if cx.long_suffix => Ok((rest.skip(1), true)),
        Some(b'L') => fail(
            rest,
            ErrorKind::HeaderSyntax,
            "no 'L' suffix (allowed only in format versions 1.0 and 2.0)",
        ),
        _ => Ok((rest, false)),
    }
}

/// The value of ASCII decimal `digits`, or `None` above `u64::MAX`.
fn decimal_value(digits: &[u8]) -> Option<u64> {
    digits.iter().try_fold(0u64, |v, &d| {
        v.checked_mul(10)?
            .checked_add(u64::from(d.wrapping_sub(b'0')))
    })
}
