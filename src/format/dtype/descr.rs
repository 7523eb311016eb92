//! Validation of a descr literal: a type string, or a list of record fields, with every
//! size checked against NumPy's C `int` limits.

use alloc::collections::BTreeSet;

use crate::error::{Error, ErrorKind, Result};
use crate::format::dtype::name::FieldName;
use crate::format::dtype::title::Title;
use crate::format::dtype::types::{Dtype, Field, Record};
use crate::format::dtype::typestr::typestr;
use crate::format::literal::{Literal, Value};
use crate::limits::{C_INT_MAX, MAX_DIMS, MAX_FIELDS, MAX_RECORD_DEPTH};
use crate::prelude::*;

/// A type string or a list of fields; `depth` is the record nesting so far.
pub(crate) fn descr_value(lit: &Literal, depth: u32) -> Result<Dtype> {
    match &lit.value {
        Value::Str(s) => typestr(s).map_err(|e| e.shifted(lit.offset as u64)),
        Value::List(items) => record(lit, items, depth).map(Dtype::Record),
        _ => Err(bad(lit, "a type string or a list of fields").found(lit.type_name())),
    }
}

fn bad(lit: &Literal, expected: &str) -> Error {
    Error::new(ErrorKind::BadDescr, lit.offset as u64, expected)
}

/// One item of a record's field list, parsed but not yet placed.
struct FieldItem<'a> {
    title: Option<Title>,
    name: FieldName,
    /// Whether the name was written as a plain string (not a `(title, name)` pair).
    plain_name: bool,
    name_lit: &'a Literal,
    dtype: Dtype,
    shape: Vec<usize>,
    nesting: Vec<usize>,
}

/// A list of fields: at most [`MAX_FIELDS`], names and titles distinct, fields laid out one
/// after the other. Padding is what NumPy's `descr_to_dtype` takes for padding (its
/// `is_pad`): an item named `''` (a plain string, not a title pair) whose type is `V` or a
/// subarray; it is a gap, not a field. A record may have no field at all (`[]`, or only
/// padding): NumPy writes such records.
fn record(lit: &Literal, items: &[Literal], depth: u32) -> Result<Record> {
    if depth >= MAX_RECORD_DEPTH {
        let e = Error::new(
            ErrorKind::NestingTooDeep,
            lit.offset as u64,
            "records nested at most 16 deep",
        );
        return Err(e);
    }
    if items.len() > MAX_FIELDS {
        return Err(bad(lit, "at most 4096 fields"));
    }
    let mut seen = BTreeSet::new();
    let mut fields = Vec::with_capacity(items.len());
    let mut offset = 0usize;
    for item in items {
        let f = field_item(item, depth)?;
        let end = field_end(item, &f, offset)?;
        if !is_padding(&f) {
            claim_names(&mut seen, &f)?;
            fields.push(Field {
                name: f.name,
                title: f.title,
                dtype: f.dtype,
                shape: f.shape,
                nesting: f.nesting,
                offset,
            });
        }
        offset = end;
    }
    Ok(Record {
        fields,
        itemsize: offset,
    })
}

/// NumPy's `is_pad`: a plain name `''` and a type that is `V` without fields, which a
/// subarray of any type also is.
fn is_padding(f: &FieldItem<'_>) -> bool {
    f.plain_name && f.name.is_empty() && (matches!(f.dtype, Dtype::Void(_)) || !f.shape.is_empty())
}

/// A field tuple `(name, type[, shape])`, where the name may be a `(title, name)` pair.
/// With a shape, the type may itself be a subarray `(type, shape)` (NumPy writes a subarray
/// of a subarray so); its shape is appended to the field's.
fn field_item(item: &Literal, depth: u32) -> Result<FieldItem<'_>> {
    let Value::Tuple(parts) = &item.value else {
        return Err(bad(item, "a field tuple (name, type[, shape])").found(item.type_name()));
    };
    let (name_lit, type_lit, shape_lit) = match parts.as_slice() {
        [n, t] => (n, t, None),
        [n, t, s] => (n, t, Some(s)),
        _ => {
            let found = format!("{} items", parts.len());
            return Err(bad(item, "a field tuple of 2 or 3 items").found(found));
        }
    };
    let (title, name) = field_name(name_lit)?;
    let plain_name = matches!(name_lit.value, Value::Str(_) | Value::NonText(_));
    let (dtype, shape, nesting) = match shape_lit {
        None => (
            descr_value(type_lit, depth.saturating_add(1))?,
            Vec::new(),
            Vec::new(),
        ),
        Some(s) => {
            let mut levels = Levels::default();
            let dtype = subarray_level(type_lit, s, depth, &mut levels)?;
            let nesting = if levels.ranks.len() > 1 {
                levels.ranks
            } else {
                Vec::new()
            };
            (dtype, levels.shape, nesting)
        }
    };
    Ok(FieldItem {
        title,
        name,
        plain_name,
        name_lit,
        dtype,
        shape,
        nesting,
    })
}

/// The dimensions of a field's nested subarray levels, outermost first, and how many
/// dimensions each non-empty level has.
#[derive(Default)]
struct Levels {
    shape: Vec<usize>,
    ranks: Vec<usize>,
}

/// One subarray level `(type, shape)`: NumPy's `np.dtype((type, shape))`. The type is a
/// type string, a list of fields or another level `(type, shape)`; a level with shape `()`
/// is its type. NumPy refuses a level whose type has item size 0 and no fields (`|S0`,
/// `<U0`, `|V0`, a subarray of size 0: "invalid itemsize in generic type tuple"); so does
/// this. The flattened shape has at most [`MAX_DIMS`] dimensions and each level's size fits
/// NumPy's C `int`.
fn subarray_level(
    type_lit: &Literal,
    shape_lit: &Literal,
    depth: u32,
    levels: &mut Levels,
) -> Result<Dtype> {
    let dims = subarray_shape(shape_lit)?;
    if levels.shape.len().saturating_add(dims.len()) > MAX_DIMS {
        let e = Error::new(
            ErrorKind::ShapeOverflow,
            shape_lit.offset as u64,
            "a subarray of at most 64 dimensions",
        );
        return Err(e);
    }
    if !dims.is_empty() {
        levels.ranks.push(dims.len());
    }
    levels.shape.extend_from_slice(&dims);
    let inner_start = levels.shape.len();
    let dtype = match &type_lit.value {
        Value::Tuple(inner) => match inner.as_slice() {
            [t, s] => subarray_level(t, s, depth, levels)?,
            _ => {
                let found = format!("{} items", inner.len());
                return Err(bad(type_lit, "a type or a subarray (type, shape)").found(found));
            }
        },
        _ => descr_value(type_lit, depth.saturating_add(1))?,
    };
    // The level's type: the element type with the inner levels' dimensions.
    let inner = levels.shape.get(inner_start..).unwrap_or_default();
    let base_size = inner
        .iter()
        .try_fold(dtype.itemsize(), |acc, &d| acc.checked_mul(d))
        .filter(|&b| b <= C_INT_MAX);
    let Some(base_size) = base_size else {
        let e = Error::new(
            ErrorKind::ShapeOverflow,
            type_lit.offset as u64,
            "a subarray size of at most 2^31-1 bytes (NumPy's limit)",
        );
        return Err(e);
    };
    if base_size == 0 && (!inner.is_empty() || !matches!(dtype, Dtype::Record(_))) {
        let e = bad(
            type_lit,
            "a subarray type of one byte or more (NumPy: invalid itemsize in generic type tuple)",
        );
        return Err(e);
    }
    Ok(dtype)
}

/// A field name string, or a `(title, name)` pair. A name may hold a lone surrogate
/// (np.save writes one as its escape, `'\\ud805'`). A title is any literal (DEVIATIONS
/// a26); `None` is no title, as NumPy reads it (`((None, ''), '|V4')` is then a field named
/// `''`, not padding: only a plain `''` is).
fn field_name(lit: &Literal) -> Result<(Option<Title>, FieldName)> {
    let name = |v: &Value| match v {
        Value::Str(n) => Some(FieldName::from(n.as_str())),
        Value::NonText(n) => Some(n.clone()),
        _ => None,
    };
    match &lit.value {
        Value::Tuple(pair) => match pair.as_slice() {
            [t, n] => match name(&n.value) {
                Some(name) => Ok((Title::from_value(t.value.clone()), name)),
                None => Err(bad(n, "a field name string after the title").found(n.type_name())),
            },
            _ => Err(bad(lit, "a (title, name) pair").found(format!("{} items", pair.len()))),
        },
        v => match name(v) {
            Some(n) => Ok((None, n)),
            None => Err(bad(lit, "a field name string").found(lit.type_name())),
        },
    }
}

/// Where the field placed at `offset` ends; its size and the record's must fit a C `int`.
fn field_end(item: &Literal, f: &FieldItem<'_>, offset: usize) -> Result<usize> {
    let count = f
        .shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d));
    let overflow =
        |expected: &str| Error::new(ErrorKind::ShapeOverflow, item.offset as u64, expected);
    let size = count
        .and_then(|c| c.checked_mul(f.dtype.itemsize()))
        .filter(|&b| b <= C_INT_MAX)
        .ok_or_else(|| overflow("a field size of at most 2^31-1 bytes (NumPy's limit)"))?;
    offset
        .checked_add(size)
        .filter(|&e| e <= C_INT_MAX)
        .ok_or_else(|| overflow("a record size of at most 2^31-1 bytes (NumPy's limit)"))
}

/// Records the field's name and title; names and titles share one namespace (a title is
/// another key for its field).
fn claim_names(seen: &mut BTreeSet<FieldName>, f: &FieldItem<'_>) -> Result<()> {
    let twice = |expected: &str, what: &FieldName| {
        let shown = match what.as_str() {
            Some(s) => format!("{s:?}"),
            None => format!("{what:?}"),
        };
        Error::new(
            ErrorKind::DuplicateField,
            f.name_lit.offset as u64,
            expected,
        )
        .found(format!("{shown} twice"))
    };
    if !seen.insert(f.name.clone()) {
        return Err(twice("distinct field names", &f.name));
    }
    if let Some(t) = f.title.as_ref().and_then(Title::as_name) {
        if !seen.insert(t.clone()) {
            return Err(twice("distinct field titles", &t));
        }
    }
    Ok(())
}

/// A subarray shape: a tuple of at most [`MAX_DIMS`] dimensions, each at most 2^31-1.
fn subarray_shape(lit: &Literal) -> Result<Vec<usize>> {
    let Value::Tuple(dims) = &lit.value else {
        return Err(bad(lit, "a subarray shape tuple such as (3,)").found(lit.type_name()));
    };
    if dims.len() > MAX_DIMS {
        let e = Error::new(
            ErrorKind::ShapeOverflow,
            lit.offset as u64,
            "a subarray of at most 64 dimensions",
        );
        return Err(e);
    }
    dims.iter().map(subarray_dim).collect()
}

fn subarray_dim(d: &Literal) -> Result<usize> {
    match &d.value {
        Value::Int(n) => n
            .as_u64()
            .and_then(|v| usize::try_from(v).ok())
            .filter(|&v| v <= C_INT_MAX)
            .ok_or_else(|| {
                let expected = "a subarray dimension of at most 2^31-1 (NumPy's limit)";
                Error::new(ErrorKind::ShapeOverflow, d.offset as u64, expected)
            }),
        _ => Err(bad(d, "an integer dimension").found(d.type_name())),
    }
}
