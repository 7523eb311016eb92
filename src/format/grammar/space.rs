//! Whitespace between tokens, and the padding after the dict.

use nom::bytes::complete::take_while;
use nom::Parser;

use crate::format::grammar::cursor::{Cursor, PResult};

/// ```abnf
/// wsp             = %x20 / %x09 / %x0A / %x0D / %x0C
/// ```
pub(crate) fn is_wsp(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0c)
}

/// ```abnf
/// ws              = *wsp
/// ```
pub(crate) fn ws(i: Cursor<'_>) -> PResult<'_, ()> {
    let (rest, _) = take_while(is_wsp).parse(i)?;
    Ok((rest, ()))
}

/// ```abnf
/// padding         = *wsp
/// ```
pub(crate) fn padding(i: Cursor<'_>) -> PResult<'_, ()> {
    ws(i)
}
