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

    /// Whether no element is selected.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
#[allow(unsafe_code)]
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
/// width of `S`/`U`/`V`, 1 otherwise) to rows `0..sel.len()` of `dst`.
pub fn fill(
    dst: &mut Dst,
    kind: Kind,
    data: &ArrayData,
    per: usize,
    sel: Sel,
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
        (Dst::Flat(f), data) => fill_flat(f, kind, data, per, sel),
    }
}

fn fill_flat(
    f: &mut FlatVector,
    kind: Kind,
    data: &ArrayData,
    per: usize,
    sel: Sel,
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
        ArrayData::F16(v) => put(f, &gather(v, sel, f16_to_f32)?),
        ArrayData::F32(v) => put_sel(f, v, sel),
        ArrayData::F64(v) => put_sel(f, v, sel),
        ArrayData::DateTime(v) | ArrayData::TimeDelta(v) => {
            if kind == Kind::Interval {
                let interval = |micros| duckdb_interval {
                    months: 0,
                    days: 0,
                    micros,
                };
                put(f, &gather(v, sel, interval)?)?;
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
            // UTF-32 code units as NumPy keeps them; VARCHAR is UTF-8, which holds no lone
            // surrogate and nothing above U+10FFFF: such a unit is refused, named.
            let mut s = String::new();
            for (row, i) in sel.iter().enumerate() {
                let c = units(v, per, i)?;
                let end = c.iter().rposition(|&x| x != 0).map_or(0, |p| p + 1);
                s.clear();
                for &u in c.get(..end).unwrap_or_default() {
                    let ch = char::from_u32(u).ok_or_else(|| {
                        format!(
                            "invalid code point 0x{u:08x} in a U value (a lone surrogate or \
                             above U+10FFFF: NumPy keeps it, VARCHAR is UTF-8 and cannot)"
                        )
                    })?;
                    s.push(ch);
                }
                f.insert(row, s.as_str());
            }
            Ok(())
        }
        _ => Err(format!("internal: no writer for {}", kind.sql())),
    }
}

/// An IEEE binary16 bit pattern widened to `f32` exactly, NaN payloads included (the
/// quiet bit is not set: NumPy's `astype(np.float32)` keeps a signalling NaN signalling).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    match exp {
        0x1f => f32::from_bits(sign | 0x7f80_0000 | (man << 13)),
        // Subnormal (or zero): man * 2^-24, exact in f32 (a normal number there).
        0 => {
            let v = man as f32 * f32::from_bits(0x3380_0000);
            if sign != 0 {
                -v
            } else {
                v
            }
        }
        _ => f32::from_bits(sign | ((exp + 112) << 23) | (man << 13)),
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
        assert_eq!(
            gather(&[0u8, 1, 2, 3, 4, 5, 6, 7], s, |x| x).unwrap(),
            vec![1, 4, 7]
        );
        assert!(gather(&[0u8; 7], s, |x| x).is_err());
    }

    #[test]
    fn f16_widens_exactly() {
        let cases: [(u16, u32); 9] = [
            (0x0000, 0x0000_0000),
            (0x8000, 0x8000_0000),
            (0x3c00, 0x3f80_0000), // 1.0
            (0x3555, 0x3eaa_a000), // 0.33325
            (0x0001, 0x3380_0000), // smallest subnormal, 2^-24
            (0x83ff, 0xb87f_c000), // largest negative subnormal
            (0x7bff, 0x477f_e000), // 65504
            (0xfc00, 0xff80_0000), // -inf
            (0x7c01, 0x7f80_2000), // signalling NaN stays signalling
        ];
        for (h, f) in cases {
            assert_eq!(f16_to_f32(h).to_bits(), f, "{h:#06x}");
        }
        // Every non-NaN value agrees with the arithmetic definition.
        for h in 0..=u16::MAX {
            let exp = i32::from((h >> 10) & 0x1f);
            let man = f64::from(h & 0x3ff);
            if exp == 0x1f {
                continue;
            }
            let mag = if exp == 0 {
                man * 2f64.powi(-24)
            } else {
                (1.0 + man / 1024.0) * 2f64.powi(exp - 15)
            };
            let want = if h & 0x8000 != 0 { -mag } else { mag };
            assert_eq!(f64::from(f16_to_f32(h)), want, "{h:#06x}");
        }
    }

    #[test]
    fn zero_follows_npyguard() {
        assert!(!nonzero(&ArrayData::F64(vec![-0.0].into()), 0));
        assert!(nonzero(&ArrayData::F64(vec![f64::NAN].into()), 0));
        assert!(!nonzero(&ArrayData::F16(vec![0x8000].into()), 0));
        assert!(nonzero(&ArrayData::F16(vec![0x0001].into()), 0));
        assert!(nonzero(&ArrayData::DateTime(vec![NAT].into()), 0));
        assert!(!nonzero(&ArrayData::C64(vec![[0.0, -0.0]].into()), 0));
        assert!(nonzero(&ArrayData::C64(vec![[0.0, 1.0]].into()), 0));
        assert!(nonzero(&ArrayData::Bool(vec![2].into()), 0));
    }
}
