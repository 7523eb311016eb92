//! Values of a decoded chunk → DuckDB vectors. The only `unsafe` block of the crate outside
//! the entry point is in [`put`]: a typed copy into a vector's memory, after checking at
//! runtime that the vector's type stores exactly that Rust type and that it has room.

use duckdb::core::{FlatVector, Inserter, LogicalTypeId, StructVector};
use duckdb::ffi::duckdb_interval;
use npyguard::ArrayData;

use crate::types::Kind;

/// Which elements of a chunk go to a vector, in output order.
#[derive(Debug, Clone, Copy)]
pub enum Sel<'a> {
    /// `len` consecutive elements from `start`.
    Range {
        /// First element.
        start: usize,
        /// Count.
        len: usize,
    },
    /// `n` elements `start`, `start + step`, …
    Strided {
        /// First element.
        start: usize,
        /// Distance between elements.
        step: usize,
        /// Count.
        n: usize,
    },
    /// These elements.
    List(&'a [usize]),
}

impl Sel<'_> {
    /// The element indices.
    pub fn iter(&self) -> Box<dyn Iterator<Item = usize> + '_> {
        match *self {
            Sel::Range { start, len } => Box::new(start..start.saturating_add(len)),
            Sel::Strided { start, step, n } => {
                Box::new((0..n).map(move |i| start.saturating_add(i.saturating_mul(step))))
            }
            Sel::List(l) => Box::new(l.iter().copied()),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match *self {
            Sel::Range { len, .. } => len,
            Sel::Strided { n, .. } => n,
            Sel::List(l) => l.len(),
        }
    }
}

/// A Rust type that is exactly the physical storage of some DuckDB types.
pub trait Plain: Copy {
    /// The DuckDB types whose vectors store values as `Self`.
    const IDS: &'static [LogicalTypeId];
}

macro_rules! plain {
    ($($t:ty => [$($id:ident),*];)*) => {
        $(impl Plain for $t {
            const IDS: &'static [LogicalTypeId] = &[$(LogicalTypeId::$id),*];
        })*
    };
}

plain! {
    bool => [Boolean];
    i8 => [Tinyint];
    i16 => [Smallint];
    i32 => [Integer];
    i64 => [Bigint, Timestamp, TimestampS, TimestampMs, TimestampNs];
    u8 => [UTinyint];
    u16 => [USmallint];
    u32 => [UInteger];
    u64 => [UBigint];
    f32 => [Float];
    f64 => [Double];
    duckdb_interval => [Interval];
}

/// Copies `values` into the first rows of `v`.
pub fn put<T: Plain>(v: &mut FlatVector, values: &[T]) -> Result<(), String> {
    let id = v.logical_type().id();
    if !T::IDS.contains(&id) {
        return Err(format!(
            "internal: a {id:?} vector cannot take {}",
            std::any::type_name::<T>()
        ));
    }
    if values.len() > v.capacity() {
        return Err(format!(
            "internal: {} values for a vector of {}",
            values.len(),
            v.capacity()
        ));
    }
    // SAFETY: `v`'s logical type was just read from DuckDB and is one of `T::IDS`, whose
    // physical storage is a contiguous array of exactly `T` (bool: one byte 0/1; the
    // integer, float and timestamp types: the same-width integer or float; INTERVAL: the
    // C struct `duckdb_interval`); `values.len()` is within the vector's capacity (checked
    // above, and `copy` asserts it again); nothing else borrows the vector's memory while
    // the chunk is being filled (we hold the only handle).
    unsafe { v.copy(values) };
    Ok(())
}

/// Where a column's values go.
pub enum Dst<'a> {
    /// A flat vector (or an ARRAY's child).
    Flat(FlatVector<'a>),
    /// A STRUCT(re, im) vector (complex numbers).
    Complex(StructVector<'a>),
}

/// The NaT value of `M8`/`m8`.
const NAT: i64 = i64::MIN;

fn gather<T: Copy, U>(src: &[T], sel: Sel, f: impl Fn(T) -> U) -> Result<Vec<U>, String> {
    let mut out = Vec::with_capacity(sel.len());
    for i in sel.iter() {
        let x = src
            .get(i)
            .ok_or_else(|| format!("internal: element {i} outside a chunk of {}", src.len()))?;
        out.push(f(*x));
    }
    Ok(out)
}

/// `put` of the selected elements of a plain slice (no copy when they are consecutive).
fn put_sel<T: Plain>(v: &mut FlatVector, src: &[T], sel: Sel) -> Result<(), String> {
    if let Sel::Range { start, len } = sel {
        let part = start
            .checked_add(len)
            .and_then(|end| src.get(start..end))
            .ok_or_else(|| "internal: a range outside the chunk".to_string())?;
        return put(v, part);
    }
    put(v, &gather(src, sel, |x| x)?)
}

/// The units of element `i` of a chunk whose elements are `per` units each.
fn units<T>(src: &[T], per: usize, i: usize) -> Result<&[T], String> {
    let a = i.saturating_mul(per);
    src.get(a..a.saturating_add(per))
        .ok_or_else(|| format!("internal: element {i} outside a chunk of {}", src.len()))
}

/// Writes the selected elements of `data` (elements of `kind`, `per` stored units each: the
/// width of `S`/`U`/`V`, 1 otherwise) to rows `0..sel.len()` of `dst`. `overflow` names the element whose INTERVAL would overflow (an error with its
/// file and byte offset).
pub fn fill(
    dst: &mut Dst,
    kind: Kind,
    data: &ArrayData,
    per: usize,
    sel: Sel,
    overflow: &dyn Fn(usize) -> String,
) -> Result<(), String> {
    match (dst, data) {
        (Dst::Complex(s), ArrayData::C64(v)) => {
            let n = sel.len();
            put(&mut s.child(0, n), &gather(v, sel, |c| c[0])?)?;
            put(&mut s.child(1, n), &gather(v, sel, |c| c[1])?)
        }
        (Dst::Complex(s), ArrayData::C128(v)) => {
            let n = sel.len();
            put(&mut s.child(0, n), &gather(v, sel, |c| c[0])?)?;
            put(&mut s.child(1, n), &gather(v, sel, |c| c[1])?)
        }
        (Dst::Complex(_), _) => Err("internal: a STRUCT column for a non-complex dtype".into()),
        (Dst::Flat(f), data) => fill_flat(f, kind, data, per, sel, overflow),
    }
}

fn fill_flat(
    f: &mut FlatVector,
    kind: Kind,
    data: &ArrayData,
    per: usize,
    sel: Sel,
    overflow: &dyn Fn(usize) -> String,
) -> Result<(), String> {
    match data {
        ArrayData::Bool(v) => put(f, &gather(v, sel, |b| b != 0)?),
        ArrayData::I8(v) => put_sel(f, v, sel),
        ArrayData::U8(v) => put_sel(f, v, sel),
        ArrayData::I16(v) => put_sel(f, v, sel),
        ArrayData::I32(v) => put_sel(f, v, sel),
        ArrayData::I64(v) => put_sel(f, v, sel),
        ArrayData::U16(v) => put_sel(f, v, sel),
        ArrayData::U32(v) => put_sel(f, v, sel),
        ArrayData::U64(v) => put_sel(f, v, sel),
        ArrayData::F16(v) => put(f, &gather(v, sel, |b| half::f16::from_bits(b).to_f32())?),
        ArrayData::F32(v) => put_sel(f, v, sel),
        ArrayData::F64(v) => put_sel(f, v, sel),
        ArrayData::DateTime(v) | ArrayData::TimeDelta(v) => {
            if let Kind::Interval(micros) = kind {
                let mut out = Vec::with_capacity(sel.len());
                for i in sel.iter() {
                    let x = *v.get(i).ok_or("internal: element outside the chunk")?;
                    let us = if x == NAT {
                        0
                    } else {
                        x.checked_mul(micros).ok_or_else(|| overflow(i))?
                    };
                    out.push(duckdb_interval {
                        months: 0,
                        days: 0,
                        micros: us,
                    });
                }
                put(f, &out)?;
            } else {
                put_sel(f, v, sel)?;
            }
            for (row, i) in sel.iter().enumerate() {
                if v.get(i) == Some(&NAT) {
                    f.set_null(row);
                }
            }
            Ok(())
        }
        ArrayData::Bytes(v) => {
                        for (row, i) in sel.iter().enumerate() {
                let b = units(v, per, i)?;
                let end = b.iter().rposition(|&x| x != 0).map_or(0, |p| p + 1);
                f.insert(row, b.get(..end).unwrap_or_default());
            }
            Ok(())
        }
        ArrayData::Void(v) => {
                        for (row, i) in sel.iter().enumerate() {
                f.insert(row, units(v, per, i)?);
            }
            Ok(())
        }
        ArrayData::Unicode(v) => {
                        let mut s = String::new();
            for (row, i) in sel.iter().enumerate() {
                let c = units(v, per, i)?;
                let end = c.iter().rposition(|&x| x != '\0').map_or(0, |p| p + 1);
                s.clear();
                s.extend(c.get(..end).unwrap_or_default());
                f.insert(row, s.as_str());
            }
            Ok(())
        }
        _ => Err(format!("internal: no writer for {}", kind.sql())),
    }
}

/// Whether element `i` of `data` is non-zero (npyguard's rule: ±0.0 is zero, NaN is not;
/// NaT is not zero; complex is zero when both parts are).
pub fn nonzero(data: &ArrayData, i: usize) -> bool {
    fn at<T: Copy>(v: &[T], i: usize) -> Option<T> {
        v.get(i).copied()
    }
    match data {
        ArrayData::Bool(v) | ArrayData::U8(v) => at(v, i).is_some_and(|x| x != 0),
        ArrayData::I8(v) => at(v, i).is_some_and(|x| x != 0),
        ArrayData::I16(v) => at(v, i).is_some_and(|x| x != 0),
        ArrayData::I32(v) => at(v, i).is_some_and(|x| x != 0),
        ArrayData::I64(v) | ArrayData::DateTime(v) | ArrayData::TimeDelta(v) => {
            at(v, i).is_some_and(|x| x != 0)
        }
        ArrayData::U16(v) => at(v, i).is_some_and(|x| x != 0),
        ArrayData::U32(v) => at(v, i).is_some_and(|x| x != 0),
        ArrayData::U64(v) => at(v, i).is_some_and(|x| x != 0),
        // f2 bits: zero is 0x0000 or 0x8000.
        ArrayData::F16(v) => at(v, i).is_some_and(|x| x & 0x7fff != 0),
        ArrayData::F32(v) => at(v, i).is_some_and(|x| x != 0.0),
        ArrayData::F64(v) => at(v, i).is_some_and(|x| x != 0.0),
        ArrayData::C64(v) => at(v, i).is_some_and(|[a, b]| a != 0.0 || b != 0.0),
        ArrayData::C128(v) => at(v, i).is_some_and(|[a, b]| a != 0.0 || b != 0.0),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections() {
        let s = Sel::Strided {
            start: 1,
            step: 3,
            n: 3,
        };
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![1, 4, 7]);
        assert_eq!(gather(&[0u8, 1, 2, 3, 4, 5, 6, 7], s, |x| x).unwrap(), vec![1, 4, 7]);
        assert!(gather(&[0u8; 7], s, |x| x).is_err());
    }

    #[test]
    fn zero_follows_npyguard() {
        assert!(!nonzero(&ArrayData::F64(vec![-0.0]), 0));
        assert!(nonzero(&ArrayData::F64(vec![f64::NAN]), 0));
        assert!(!nonzero(&ArrayData::F16(vec![0x8000]), 0));
        assert!(nonzero(&ArrayData::F16(vec![0x0001]), 0));
        assert!(nonzero(&ArrayData::DateTime(vec![NAT]), 0));
        assert!(!nonzero(&ArrayData::C64(vec![[0.0, -0.0]]), 0));
        assert!(nonzero(&ArrayData::C64(vec![[0.0, 1.0]]), 0));
        assert!(nonzero(&ArrayData::Bool(vec![2]), 0));
    }
}
