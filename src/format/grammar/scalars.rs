//! The scalar values: integers, booleans, `None`.

use nom::bytes::complete::{tag, take_while1};
use nom::Parser;

use crate::error::ErrorKind;
use crate::format::grammar::cursor::{expect, fail, Ctx, Cursor, PError, PResult};
use crate::format::literal::Int;
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

/// ```abnf
/// integer         = ( %x30 / nonzero-digit *DIGIT ) [ long-suffix ]
/// long-suffix     = %s"L"
/// nonzero-digit   = %x31-39
/// DIGIT           = %x30-39
/// ```
pub(crate) fn integer<'a>(cx: &Ctx, i: Cursor<'a>) -> PResult<'a, Int> {
    let (rest, digits) = take_while1(|b: u8| b.is_ascii_digit()).parse(i)?;
    let digits = digits.bytes();
    if digits.len() > 1 && digits.first() == Some(&b'0') {
        return fail(
            i,
            ErrorKind::HeaderSyntax,
            "a decimal integer without leading zeros",
        );
    }
    let n = match decimal(digits) {
        Some(v) => Int::Small(v),
        // `digits` holds only ASCII digits, so this conversion cannot fail.
        None => Int::Big(String::from_utf8_lossy(digits).into_owned()),
    };
    match rest.peek() {
        Some(b'L') if cx.long_suffix => Ok((rest.skip(1), n)),
        Some(b'L') => fail(
            rest,
            ErrorKind::HeaderSyntax,
            "no 'L' suffix (allowed only in format versions 1.0 and 2.0)",
        ),
        _ => Ok((rest, n)),
    }
}

/// The value of ASCII decimal `digits`, or `None` above `u64::MAX`.
fn decimal(digits: &[u8]) -> Option<u64> {
    digits.iter().try_fold(0u64, |v, &d| {
        v.checked_mul(10)?
            .checked_add(u64::from(d.wrapping_sub(b'0')))
    })
}
