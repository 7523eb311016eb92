//! The header dict and the containers a value can be: tuples and lists.

use crate::error::ErrorKind;
use crate::format::dtype::name::FieldName;
use crate::format::grammar::cursor::{expect, fail, Ctx, Cursor, PError, PResult};
use crate::format::grammar::scalars::{boolean, complex_sum, none, number, number_value, Body};
use crate::format::grammar::space::ws;
use crate::format::grammar::strings::{bytes, key, string, Decoded};
use crate::format::literal::{Dict, Entry, Literal, Value};
use crate::limits::MAX_DEPTH;
use crate::prelude::*;

/// ```abnf
/// dict            = %x7B ws [ entry *( ws %x2C ws entry ) [ ws %x2C ] ws ] %x7D
/// ```
pub(crate) fn dict<'a>(cx: &Ctx, i: Cursor<'a>) -> PResult<'a, Dict> {
    let (mut i, ()) = expect(b"{", "'{' opening the header dict", i)?;
    let mut entries = Vec::new();
    loop {
        (i, ()) = ws(i)?;
        if i.peek() == Some(b'}') {
            break;
        }
        let (rest, e) = entry(cx, i)?;
        entries.push(e);
        (i, ()) = ws(rest)?;
        match i.peek() {
            Some(b',') => i = i.skip(1),
            Some(b'}') => break,
            _ => return fail(i, ErrorKind::HeaderSyntax, "',' or '}' after a dict entry"),
        }
    }
    let (i, ()) = expect(b"}", "'}'", i)?;
    Ok((i, Dict { entries }))
}

/// ```abnf
/// entry           = key ws %x3A ws value
/// ```
fn entry<'a>(cx: &Ctx, i: Cursor<'a>) -> PResult<'a, Entry> {
    let key_offset = i.offset();
    if !matches!(i.peek(), Some(b'\'' | b'"')) {
        return fail(i, ErrorKind::HeaderSyntax, "a quoted string key");
    }
    let (i, key) = key(cx, i)?;
    let (i, ()) = ws(i)?;
    let (i, ()) = expect(b":", "':' after the key", i)?;
    let (i, ()) = ws(i)?;
    let (i, value) = value(cx, 1, i)?;
    let entry = Entry {
        key,
        key_offset,
        value,
    };
    Ok((i, entry))
}

/// ```abnf
/// value           = string / bytes / number / tuple / list / display / boolean / none
/// ```
///
/// `depth` is the nesting depth of the container holding this value; each value kind is
/// chosen by its first byte (no backtracking).
fn value<'a>(cx: &Ctx, depth: u32, i: Cursor<'a>) -> PResult<'a, Literal> {
    let offset = i.offset();
    let (rest, v) = match i.peek() {
        Some(b'\'' | b'"') => string(cx, i).map(|(r, s)| (r, string_value(s)))?,
        Some(b'b') => bytes(i).map(|(r, b)| (r, Value::Bytes(b)))?,
        Some(b'0'..=b'9' | b'-') => {
            let (r, n) = number(cx, i)?;
            (r, number_value(n)?)
        }
        Some(b'(') => tuple(cx, depth, i)?,
        Some(b'[') => list(cx, depth, i).map(|(r, v)| (r, Value::List(v)))?,
        Some(b'{') => display(cx, depth, i)?,
        Some(b'T' | b'F') => boolean(i).map(|(r, b)| (r, Value::Bool(b)))?,
        Some(b'N') => none(i).map(|(r, ())| (r, Value::None))?,
        _ => {
            return fail(
                i,
                ErrorKind::HeaderSyntax,
                "a value (string, bytes, number, tuple, list, set, dict, True, False or None)",
            )
        }
    };
    Ok((rest, Literal { offset, value: v }))
}

/// A string value: text, or one holding a lone surrogate (validation accepts it only as a
/// field name).
fn string_value(s: Decoded) -> Value {
    match s {
        Decoded::Text(t) => Value::Str(t),
        Decoded::Surrogates { points, .. } => match FieldName::from_code_points(&points) {
            Some(name) => Value::NonText(name),
            // `escape` refuses code points above U+10FFFF: not reached.
            None => Value::Str(String::new()),
        },
    }
}

/// Opens a container one level below `depth`, refusing to go past [`MAX_DEPTH`].
fn deeper(depth: u32, i: Cursor<'_>) -> Result<u32, nom::Err<PError>> {
    let d = depth.saturating_add(1);
    if d > MAX_DEPTH {
        return Err(nom::Err::Failure(PError {
            offset: i.offset(),
            kind: ErrorKind::NestingTooDeep,
            expected: "brackets nested at most 32 deep",
        }));
    }
    Ok(d)
}

/// ```abnf
/// tuple           = %x28 ws ( complex-sum / tuple-body ) ws %x29
/// tuple-body      = [ value ws %x2C [ ws value *( ws %x2C ws value ) [ ws %x2C ] ] ]
/// ```
///
/// A tuple, or a complex number `(1+2j)`: a number right after the `(` followed by a sign
/// makes the parentheses a complex sum's (the number is read once either way).
fn tuple<'a>(cx: &Ctx, depth: u32, i: Cursor<'a>) -> PResult<'a, Value> {
    let d = deeper(depth, i)?;
    let (i, ()) = expect(b"(", "'('", i)?;
    let (i, ()) = ws(i)?;
    if !matches!(i.peek(), Some(b'0'..=b'9' | b'-')) {
        return tuple_items(cx, d, None, i).map(|(r, items)| (r, Value::Tuple(items)));
    }
    let (rest, first) = number(cx, i)?;
    let summable = matches!(first.body, Body::Int { long: false, .. } | Body::Float(_));
    if summable && matches!(rest.peek(), Some(b'+' | b'-')) {
        let (rest, (re, im)) = complex_sum(cx, &first, rest)?;
        let (rest, ()) = ws(rest)?;
        let (rest, ()) = expect(b")", "')' closing the complex number", rest)?;
        return Ok((rest, Value::Complex(re, im)));
    }
    let first = Literal {
        offset: first.offset,
        value: number_value(first)?,
    };
    tuple_items(cx, d, Some(first), rest).map(|(r, items)| (r, Value::Tuple(items)))
}

/// The items of a tuple after its `(`, through its `)`; `first` is an item already read
/// (the cursor is right after it).
fn tuple_items<'a>(
    cx: &Ctx,
    d: u32,
    first: Option<Literal>,
    i: Cursor<'a>,
) -> PResult<'a, Vec<Literal>> {
    let mut i = i;
    let mut pending = first;
    let mut items = Vec::new();
    let mut trailing_comma = false;
    loop {
        let item = match pending.take() {
            Some(item) => item,
            None => {
                (i, ()) = ws(i)?;
                if i.peek() == Some(b')') {
                    break;
                }
                let (rest, v) = value(cx, d, i)?;
                i = rest;
                v
            }
        };
        items.push(item);
        (i, ()) = ws(i)?;
        trailing_comma = i.peek() == Some(b',');
        match i.peek() {
            Some(b',') => i = i.skip(1),
            Some(b')') => break,
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
fn list<'a>(cx: &Ctx, depth: u32, i: Cursor<'a>) -> PResult<'a, Vec<Literal>> {
    let d = deeper(depth, i)?;
    let (mut i, ()) = expect(b"[", "'['", i)?;
    let mut items = Vec::new();
    loop {
        (i, ()) = ws(i)?;
        if i.peek() == Some(b']') {
            break;
        }
        let (rest, v) = value(cx, d, i)?;
        items.push(v);
        (i, ()) = ws(rest)?;
        match i.peek() {
            Some(b',') => i = i.skip(1),
            Some(b']') => break,
            _ => return fail(i, ErrorKind::HeaderSyntax, "',' or ']' in a list"),
        }
    }
    let (i, ()) = expect(b"]", "']'", i)?;
    Ok((i, items))
}

/// ```abnf
/// display         = %x7B ws [ display-body ws ] %x7D
/// display-body    = map-items / set-items
/// map-items       = map-item *( ws %x2C ws map-item ) [ ws %x2C ]
/// map-item        = hashable ws %x3A ws value
/// set-items       = hashable *( ws %x2C ws hashable ) [ ws %x2C ]
/// ```
///
/// A set `{1, 2}` or a dict `{1: 'a'}` inside a value (np.save writes a title that is one):
/// the first item's `:` decides which (the item is read once).
fn display<'a>(cx: &Ctx, depth: u32, i: Cursor<'a>) -> PResult<'a, Value> {
    let d = deeper(depth, i)?;
    let (i, ()) = expect(b"{", "'{'", i)?;
    let (i, ()) = ws(i)?;
    if i.peek() == Some(b'}') {
        return Ok((i.skip(1), Value::Map(Vec::new())));
    }
    let (rest, first) = hashable(cx, d, i)?;
    let (rest, ()) = ws(rest)?;
    if rest.peek() == Some(b':') {
        map_items(cx, d, first, rest).map(|(r, pairs)| (r, Value::Map(pairs)))
    } else {
        set_items(cx, d, first, rest).map(|(r, items)| (r, Value::Set(items)))
    }
}

/// The pairs of a dict display from its first key on (`i` at the `:` after it), through
/// the closing `}`.
fn map_items<'a>(
    cx: &Ctx,
    d: u32,
    first: Literal,
    i: Cursor<'a>,
) -> PResult<'a, Vec<(Literal, Literal)>> {
    let (mut i, mut key) = (i, first);
    let mut pairs = Vec::new();
    loop {
        let (rest, ()) = expect(b":", "':' after a dict key", i)?;
        let (rest, ()) = ws(rest)?;
        let (rest, v) = value(cx, d, rest)?;
        pairs.push((key, v));
        let (rest, ()) = ws(rest)?;
        let (rest, more) = next_item(rest)?;
        if !more {
            return Ok((rest, pairs));
        }
        let (rest, k) = hashable(cx, d, rest)?;
        (i, ()) = ws(rest)?;
        key = k;
    }
}

/// The items of a set display after its first one (`i` right after it), through the `}`.
fn set_items<'a>(cx: &Ctx, d: u32, first: Literal, i: Cursor<'a>) -> PResult<'a, Vec<Literal>> {
    let mut i = i;
    let mut items = vec![first];
    loop {
        let (rest, more) = next_item(i)?;
        if !more {
            return Ok((rest, items));
        }
        let (rest, v) = hashable(cx, d, rest)?;
        items.push(v);
        (i, ()) = ws(rest)?;
    }
}

/// After an item of a set or dict display: `true` and the next item's position after a
/// `,`; `false` and the position after the closing `}` (a trailing `,` allowed).
fn next_item(i: Cursor<'_>) -> PResult<'_, bool> {
    match i.peek() {
        Some(b',') => {
            let (rest, ()) = ws(i.skip(1))?;
            if rest.peek() == Some(b'}') {
                Ok((rest.skip(1), false))
            } else {
                Ok((rest, true))
            }
        }
        Some(b'}') => Ok((i.skip(1), false)),
        _ => fail(i, ErrorKind::HeaderSyntax, "',' or '}' in a set or dict"),
    }
}

/// ```abnf
/// hashable        = string / bytes / number / hashable-tuple / boolean / none
/// hashable-tuple  = %x28 ws ( complex-sum / hashable-body ) ws %x29
/// hashable-body   = [ hashable ws %x2C [ ws hashable *( ws %x2C ws hashable ) [ ws %x2C ] ] ]
/// ```
///
/// A set item or dict key: a [`value`] Python can hash, as `ast.literal_eval` requires
/// (read as a value, then refused at its first byte when a list, set or dict is in it).
fn hashable<'a>(cx: &Ctx, d: u32, i: Cursor<'a>) -> PResult<'a, Literal> {
    let (rest, v) = value(cx, d, i)?;
    if !is_hashable(&v.value) {
        return fail(
            i,
            ErrorKind::HeaderSyntax,
            "a hashable set item or dict key (no list, set or dict in it)",
        );
    }
    Ok((rest, v))
}

fn is_hashable(v: &Value) -> bool {
    match v {
        Value::List(_) | Value::Set(_) | Value::Map(_) => false,
        Value::Tuple(items) => items.iter().all(|x| is_hashable(&x.value)),
        _ => true,
    }
}
