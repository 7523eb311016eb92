//! The dtype as NumPy's `repr` names it: whether it is implied by the values, its short
//! repr (`dtype=` suffix) and a record's list or dict form.

use crate::format::dtype::{Dtype, Endian, Field, Record};
use crate::format::repr::py_shape;

/// `dtype_is_implied`: the dtypes whose values show them (`bool`, native `int64`, `float64`,
/// `complex128`), which `repr` does not name.
pub(super) fn dtype_is_implied(dtype: &Dtype) -> bool {
    match dtype {
        Dtype::Bool => true,
        Dtype::I64(e) | Dtype::F64(e) | Dtype::C128(e) => *e == Endian::HOST,
        _ => false,
    }
}

/// `dtype_short_repr`: `int32`, `'>i4'`, `'<U5'`, `'datetime64[ns]'`, `[('a', '<i4')]`, …
pub(super) fn dtype_short_repr(dtype: &Dtype) -> String {
    match dtype {
        Dtype::Record(r) => struct_str(r),
        Dtype::Bytes(_) | Dtype::Unicode(..) | Dtype::Void(_) => format!("'{}'", dtype.typestr()),
        d if d.endian().is_some_and(|e| e != Endian::HOST) => format!("'{}'", d.typestr()),
        d => {
            let name = type_name(d);
            // Python's repr of names that are not identifiers (`'datetime64[ns]'`).
            if name.chars().all(|c| c.is_ascii_alphanumeric()) {
                name
            } else {
                format!("'{name}'")
            }
        }
    }
}

/// `dtype.name` of a non-record dtype.
fn type_name(dtype: &Dtype) -> String {
    match dtype {
        Dtype::Bool => "bool".into(),
        Dtype::I8 => "int8".into(),
        Dtype::U8 => "uint8".into(),
        Dtype::I16(_) => "int16".into(),
        Dtype::I32(_) => "int32".into(),
        Dtype::I64(_) => "int64".into(),
        Dtype::U16(_) => "uint16".into(),
        Dtype::U32(_) => "uint32".into(),
        Dtype::U64(_) => "uint64".into(),
        Dtype::F16(_) => "float16".into(),
        Dtype::F32(_) => "float32".into(),
        Dtype::F64(_) => "float64".into(),
        Dtype::C64(_) => "complex64".into(),
        Dtype::C128(_) => "complex128".into(),
        Dtype::DateTime(u, _) => format!("datetime64{u}"),
        Dtype::TimeDelta(u, _) => format!("timedelta64{u}"),
        other => other.typestr(),
    }
}

/// `_construction_repr(dtype, short=True)`: how a record writes a field's type.
fn construction_repr(dtype: &Dtype) -> String {
    let sized = |code: &str, n: usize| {
        if n == 0 {
            format!("'{code}'")
        } else {
            format!("'{code}{n}'")
        }
    };
    match dtype {
        Dtype::Record(r) => struct_str(r),
        Dtype::Bool => "'?'".into(),
        Dtype::I8 => "'i1'".into(),
        Dtype::U8 => "'u1'".into(),
        Dtype::Bytes(n) => sized("S", *n),
        Dtype::Void(n) => sized("V", *n),
        Dtype::Unicode(n, e) => sized(&format!("{}U", e.prefix()), *n),
        other => format!("'{}'", other.typestr()),
    }
}

/// `_struct_str`: the list form when the fields follow each other without gaps, else the
/// dict form with offsets (and titles).
fn struct_str(r: &Record) -> String {
    if is_packed(r) {
        let items: Vec<String> = r.fields.iter().map(list_item).collect();
        format!("[{}]", items.join(", "))
    } else {
        dict_str(r)
    }
}

/// `_is_packed`: every field at the end of the previous one, the last at the item size.
fn is_packed(r: &Record) -> bool {
    let mut total = 0usize;
    for f in &r.fields {
        if f.offset != total {
            return false;
        }
        total = total.saturating_add(f.size());
    }
    total == r.itemsize
}

/// One field of `_struct_list_str`: `('a', '<i4')`, `(('t', 'a'), '<f8', (2,))`.
fn list_item(f: &Field) -> String {
    let name = match &f.title {
        Some(t) => format!("({t}, {:?})", f.name),
        None => format!("{:?}", f.name),
    };
    match subarray_repr(f) {
        None => format!("({name}, {})", construction_repr(&f.dtype)),
        Some((ty, outer)) => format!("({name}, {ty}, {outer})"),
    }
}

/// A subarray field's type and outer shape as NumPy prints them: a subarray of a subarray
/// keeps its levels (`('<f8', (5,))` with outer shape `(2,)`); `None` for a scalar field.
fn subarray_repr(f: &Field) -> Option<(String, String)> {
    let levels = f.levels();
    let (outer, inner) = levels.split_first()?;
    let mut ty = construction_repr(&f.dtype);
    for level in inner.iter().rev() {
        ty = format!("({ty}, {})", shape_str(level));
    }
    Some((ty, shape_str(outer)))
}

/// `_struct_dict_str` (NumPy ≥ 1.22 spacing).
fn dict_str(r: &Record) -> String {
    let join = |items: Vec<String>| items.join(", ");
    let names = join(r.fields.iter().map(|f| format!("{:?}", f.name)).collect());
    let formats = join(
        r.fields
            .iter()
            .map(|f| match subarray_repr(f) {
                None => construction_repr(&f.dtype),
                Some((ty, outer)) => format!("({ty}, {outer})"),
            })
            .collect(),
    );
    let offsets = join(r.fields.iter().map(|f| f.offset.to_string()).collect());
    let mut s = format!("{{'names': [{names}], 'formats': [{formats}], 'offsets': [{offsets}]");
    if r.fields.iter().any(|f| f.title.is_some()) {
        let titles = join(
            r.fields
                .iter()
                .map(|f| {
                    f.title
                        .as_ref()
                        .map_or_else(|| "None".into(), ToString::to_string)
                })
                .collect(),
        );
        s.push_str(&format!(", 'titles': [{titles}]"));
    }
    s.push_str(&format!(", 'itemsize': {}}}", r.itemsize));
    s
}

/// Python's repr of a shape tuple.
fn shape_str(shape: &[usize]) -> String {
    let dims: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    py_shape(&dims)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::dtype::{DateUnit, TimeUnit};

    #[test]
    fn dtype_reprs_follow_numpy() {
        let le = Endian::Little;
        let be = Endian::Big;
        assert_eq!(dtype_short_repr(&Dtype::I32(le)), "int32");
        assert_eq!(dtype_short_repr(&Dtype::I32(be)), "'>i4'");
        assert_eq!(dtype_short_repr(&Dtype::Unicode(5, le)), "'<U5'");
        assert_eq!(dtype_short_repr(&Dtype::Bytes(3)), "'|S3'");
        let ns = DateUnit {
            unit: TimeUnit::Nano,
            multiple: 1,
        };
        assert_eq!(
            dtype_short_repr(&Dtype::DateTime(ns, le)),
            "'datetime64[ns]'"
        );
        assert_eq!(dtype_short_repr(&Dtype::DateTime(ns, be)), "'>M8[ns]'");
        let generic = DateUnit {
            unit: TimeUnit::Generic,
            multiple: 1,
        };
        assert_eq!(
            dtype_short_repr(&Dtype::TimeDelta(generic, le)),
            "timedelta64"
        );
        assert!(dtype_is_implied(&Dtype::F64(le)) && !dtype_is_implied(&Dtype::F64(be)));
    }
}
