//! The type-string grammar: what a descr string (or a record field's type) means.
//!
//! One function per rule of `grammar/npy-header.abnf`, each quoting it; errors are at
//! offset 0 of the string (the caller moves them to the string literal's offset).

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while1};
use nom::combinator::{opt, value};
use nom::{IResult, Parser};

use crate::error::{Error, ErrorKind, Result};
use crate::format::dtype::types::{DateUnit, Dtype, Endian, TimeUnit};
use crate::limits::C_INT_MAX;
use crate::prelude::*;

type TResult<'a, T> = IResult<&'a [u8], T, nom::error::Error<&'a [u8]>>;

/// ```abnf
/// typestr         = byteorder type-code
/// ```
pub(crate) fn typestr(s: &str) -> Result<Dtype> {
    let Some((order, code)) = byteorder(s.as_bytes()) else {
        if matches!(s, "O" | "O8") || s.ends_with('O') {
            return Err(pickle_error(s));
        }
        return Err(bad_descr(
            "a type string starting with '<', '>', '|' or '='",
            s,
        ));
    };
    type_code(code, order, s)
}

/// The byte order and the rest of the string; `Some(None)` for `|` (not applicable).
///
/// ```abnf
/// byteorder       = %x3C / %x3E / %x7C / %x3D
/// ```
fn byteorder(s: &[u8]) -> Option<(Option<Endian>, &[u8])> {
    let (&order, rest) = s.split_first()?;
    let endian = match order {
        b'<' => Some(Endian::Little),
        b'>' => Some(Endian::Big),
        b'=' => Some(Endian::HOST),
        b'|' => None,
        _ => return None,
    };
    Some((endian, rest))
}

/// ```abnf
/// type-code       = %s"b1"
///                 / %s"i1" / %s"i2" / %s"i4" / %s"i8"
///                 / %s"u1" / %s"u2" / %s"u4" / %s"u8"
///                 / %s"f2" / %s"f4" / %s"f8"
///                 / %s"c8" / %s"c16"
///                 / %s"f16" / %s"c32"
///                 / %s"S" size
///                 / %s"U" size
///                 / %s"V" size
///                 / %s"M8" [ time-unit ]
///                 / %s"m8" [ time-unit ]
/// ```
fn type_code(code: &[u8], order: Option<Endian>, s: &str) -> Result<Dtype> {
    // Multi-byte numeric (and UTF-32) types need a byte order; `|` is refused for them.
    let e = || {
        order.ok_or_else(|| {
            bad_descr(
                "'<', '>' or '=' before a multi-byte type ('|' leaves the byte order unknown)",
                s,
            )
        })
    };
    Ok(match code {
        b"b1" => Dtype::Bool,
        b"i1" => Dtype::I8,
        b"u1" => Dtype::U8,
        b"i2" => Dtype::I16(e()?),
        b"i4" => Dtype::I32(e()?),
        b"i8" => Dtype::I64(e()?),
        b"u2" => Dtype::U16(e()?),
        b"u4" => Dtype::U32(e()?),
        b"u8" => Dtype::U64(e()?),
        b"f2" => Dtype::F16(e()?),
        b"f4" => Dtype::F32(e()?),
        b"f8" => Dtype::F64(e()?),
        b"c8" => Dtype::C64(e()?),
        b"c16" => Dtype::C128(e()?),
        b"f16" => Dtype::LongDouble(e()?),
        b"c32" => Dtype::CLongDouble(e()?),
        b"f12" | b"c24" => return Err(long_double_error(s)),
        b"O" | b"O4" | b"O8" => return Err(pickle_error(s)),
        [k @ (b'S' | b'U' | b'V'), digits @ ..] => sized_type(*k, digits, e, s)?,
        [b'M' | b'm', b'8', unit @ ..] => {
            let du = date_unit(unit, s)?;
            if code.starts_with(b"M8") {
                Dtype::DateTime(du, e()?)
            } else {
                Dtype::TimeDelta(du, e()?)
            }
        }
        _ => {
            return Err(bad_descr(
                "a type code: b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8 f16 c8 c16 c32 S<n> U<n> V<n> M8[unit] m8[unit]",
                s,
            ))
        }
    })
}

/// `S<n>`, `U<n>` or `V<n>` (`kind` is the letter): a size of zero or more, whose item
/// size fits NumPy's C `int`. Size 0 is what np.save writes for a zero-width field taken
/// out of a record (`np.zeros(3, [('a', 'S0')])['a']`).
///
/// ```abnf
/// size            = %x30 / count
/// ```
fn sized_type(
    kind: u8,
    digits: &[u8],
    endian: impl Fn() -> Result<Endian>,
    s: &str,
) -> Result<Dtype> {
    let n = match count(digits) {
        _ if digits == b"0" => 0,
        Ok((b"", n)) => n.ok_or_else(|| too_big("a string size that fits in memory", s))?,
        _ => return Err(bad_descr("a size, without leading zeros", s)),
    };
    let bytes = if kind == b'U' {
        n.checked_mul(4)
    } else {
        Some(n)
    };
    if bytes.is_none_or(|b| b > C_INT_MAX) {
        return Err(too_big(
            "an item size of at most 2^31-1 bytes (NumPy's limit)",
            s,
        ));
    }
    Ok(match kind {
        b'S' => Dtype::Bytes(n),
        b'V' => Dtype::Void(n),
        _ => Dtype::Unicode(n, endian()?),
    })
}

/// The unit after `M8`/`m8`: none (generic), or a `time-unit` with a multiple of at most
/// 2^31-1 (none for `generic`).
fn date_unit(text: &[u8], s: &str) -> Result<DateUnit> {
    if text.is_empty() {
        return Ok(DateUnit {
            unit: TimeUnit::Generic,
            multiple: 1,
        });
    }
    let Ok((b"", (multiple, unit))) = time_unit(text) else {
        return Err(bad_descr(
            "a time unit such as [ns], [s] or [25s] (units: Y M W D h m s ms us ns ps fs as generic)",
            s,
        ));
    };
    let multiple = match multiple {
        None => 1,
        Some(n) => n
            .filter(|&v| v <= C_INT_MAX)
            .and_then(|v| u32::try_from(v).ok())
            .filter(|_| unit != TimeUnit::Generic)
            .ok_or_else(|| bad_descr("a unit multiple between 1 and 2^31-1 (NumPy's limit)", s))?,
    };
    Ok(DateUnit { unit, multiple })
}

/// The count's value (`None` when it does not fit in `usize`).
///
/// ```abnf
/// count           = nonzero-digit *DIGIT
/// ```
fn count(i: &[u8]) -> TResult<'_, Option<usize>> {
    let (rest, digits) = take_while1(|b: u8| b.is_ascii_digit()).parse(i)?;
    if digits.first() == Some(&b'0') {
        let kind = nom::error::ErrorKind::Digit;
        return Err(nom::Err::Error(nom::error::Error::new(i, kind)));
    }
    let n = digits.iter().try_fold(0usize, |acc, &d| {
        acc.checked_mul(10)?
            .checked_add(usize::from(d.wrapping_sub(b'0')))
    });
    Ok((rest, n))
}

/// ```abnf
/// time-unit       = %x5B [ count ] unit-name %x5D
/// ```
fn time_unit(i: &[u8]) -> TResult<'_, (Option<Option<usize>>, TimeUnit)> {
    let (i, _) = tag(&b"["[..]).parse(i)?;
    let (i, multiple) = opt(count).parse(i)?;
    let (i, unit) = unit_name(i)?;
    let (i, _) = tag(&b"]"[..]).parse(i)?;
    Ok((i, (multiple, unit)))
}

/// ```abnf
/// unit-name       = %s"Y" / %s"M" / %s"W" / %s"D" / %s"h" / %s"ms" / %s"m"
///                 / %s"us" / %s"s" / %s"ns" / %s"ps" / %s"fs" / %s"as"
///                 / %s"generic"
/// ```
fn unit_name(i: &[u8]) -> TResult<'_, TimeUnit> {
    let unit = |code: &'static str, u: TimeUnit| value(u, tag(code.as_bytes()));
    alt((
        unit("Y", TimeUnit::Year),
        unit("M", TimeUnit::Month),
        unit("W", TimeUnit::Week),
        unit("D", TimeUnit::Day),
        unit("h", TimeUnit::Hour),
        unit("ms", TimeUnit::Milli),
        unit("m", TimeUnit::Minute),
        unit("us", TimeUnit::Micro),
        unit("s", TimeUnit::Second),
        unit("ns", TimeUnit::Nano),
        unit("ps", TimeUnit::Pico),
        unit("fs", TimeUnit::Femto),
        unit("as", TimeUnit::Atto),
        unit("generic", TimeUnit::Generic),
    ))
    .parse(i)
}

fn bad_descr(expected: impl Into<String>, found: &str) -> Error {
    Error::new(ErrorKind::BadDescr, 0, expected).found(format!("{found:?}"))
}

fn too_big(expected: &str, found: &str) -> Error {
    Error::new(ErrorKind::ShapeOverflow, 0, expected).found(format!("{found:?}"))
}

fn long_double_error(s: &str) -> Error {
    Error::new(
        ErrorKind::UnsupportedDtype,
        0,
        "a long double of 16 bytes (f16, c32: x87 extended as NumPy writes it on x86-64 Linux); 12-byte long double (f12, c24, 32-bit x86) is not read",
    )
    .found(format!("{s:?}"))
}

fn pickle_error(s: &str) -> Error {
    Error::new(
        ErrorKind::UnsupportedDtype,
        0,
        "a non-object type (object arrays are Python pickles; unpickling runs arbitrary code)",
    )
    .found(format!("{s:?}"))
}
