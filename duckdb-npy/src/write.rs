//! Values of a decoded chunk → DuckDB vectors. This module's `unsafe` blocks are in [`put`]
//! and [`put_with`]: typed access to a vector's memory, after checking at runtime that the
//! vector's type stores exactly that Rust type and that it has room (the file system's are
//! in [`crate::dfs`], the copy function's in [`crate::copy`], the entry point's in `lib.rs`).

use duckdb::core::{FlatVector, Inserter, LogicalTypeId, StructVector};
use duckdb::ffi::duckdb_interval;
use npyguard::ArrayData;

use crate::types::{Kind, Stamp};

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
    i32 => [Integer, Date];
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

/// Fills the first `n` rows of `v` with `fill`, which is given exactly those `n` slots.
#[allow(unsafe_code)]
pub fn put_with<T: Plain>(
    v: &mut FlatVector,
    n: usize,
    fill: impl FnOnce(&mut [T]),
) -> Result<(), String> {
    let id = v.logical_type().id();
    if !T::IDS.contains(&id) {
        return Err(format!(
            "internal: a {id:?} vector cannot take {}",
            std::any::type_name::<T>()
        ));
    }
    if n > v.capacity() {
        return Err(format!(
            "internal: {n} values for a vector of {}",
            v.capacity()
        ));
    }
    // SAFETY: as in `put`: the vector's type stores exactly `T` contiguously (checked just
    // above), `n` is within its capacity (checked above), and we hold the only handle to
    // the vector's memory while the chunk is being filled. Every `T: Plain` is a plain
    // `Copy` type for which any bit pattern the closure writes is a value (bool is written
    // only from `b != 0`).
    let dst = unsafe { v.as_mut_slice_with_len::<T>(n) };
    fill(dst);
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

/// The counts DuckDB's timestamp type `s` holds as finite instants, in its unit: from
/// 290309-12-22 (BC) 00:00:00 to 294247-01-10 04:00:54.775806 UTC (TIMESTAMP_NS: its whole
/// `i64` range). Outside it DuckDB's own functions fail (a cast to VARCHAR of
/// `TIMESTAMP_S` 10**15 raises an INTERNAL error that invalidates the database, measured
/// with DuckDB 2.0.0), and ±(2⁶³ − 1) are DuckDB's `infinity` and `-infinity` (in every
/// unit), not NumPy's instants of those counts: so the range excludes them. TIMESTAMP_MS
/// ends at the last whole second (294247-01-10 04:00:54): a later one's cast to
/// TIMESTAMP_S raises an INTERNAL error in DuckDB 2.0.0 ("Unrecognized type for
/// ConvertToString INT64") that invalidates the database.
pub fn stamp_range(s: Stamp) -> (i64, i64) {
    // TIMESTAMP (µs): the first instant of 290309-12-22 (BC) to 2⁶³ − 2.
    const MIN_US: i64 = -9_223_372_022_400_000_000;
    const MAX_US: i64 = i64::MAX - 1;
    match s {
        Stamp::Seconds => (MIN_US / 1_000_000, MAX_US / 1_000_000),
        Stamp::Millis => (MIN_US / 1_000, MAX_US / 1_000_000 * 1_000),
        Stamp::Micros => (MIN_US, MAX_US),
        // NaT (i64::MIN) is NULL; i64::MIN + 1 is -infinity.
        Stamp::Nanos => (i64::MIN + 2, MAX_US),
    }
}

/// DuckDB's finite DATE days (its `infinity` and `-infinity` are ±(2³¹ − 1)).
pub const DATE_RANGE: (i64, i64) = (-(i32::MAX as i64 - 1), i32::MAX as i64 - 1);

/// The first selected element of `data` that DuckDB cannot hold as `kind` (its position in
/// `sel`, and why), or `None`. Only timestamps have such values: every other mapping of
/// [`crate::types`] takes every value of its dtype (see the module table there).
pub fn invalid(kind: Kind, data: &ArrayData, sel: Sel) -> Option<(usize, String)> {
    if let (Kind::Date, ArrayData::DateTime(v)) = (kind, data) {
        let (lo, hi) = DATE_RANGE;
        return sel.iter().enumerate().find_map(|(k, i)| {
            let x = *v.get(i)?;
            if x == NAT || (lo..=hi).contains(&x) {
                return None;
            }
            Some((
                k,
                format!(
                    "datetime64[D] value {x} is outside DuckDB's DATE range ({lo} to {hi} days: \
                     5877642-06-25 (BC) to 5881580-07-10; ±{} days read as ±infinity); \
                     datetime_counts := true reads datetimes as their BIGINT counts",
                    i32::MAX
                ),
            ))
        });
    }
    let (Kind::Timestamp(s), ArrayData::DateTime(v)) = (kind, data) else {
        return None;
    };
    let (lo, hi) = stamp_range(s);
    sel.iter().enumerate().find_map(|(k, i)| {
        let x = *v.get(i)?;
        if x == NAT || (lo..=hi).contains(&x) {
            return None;
        }
        let (unit, last) = match s {
            Stamp::Seconds => ("s", "294247-01-10 04:00:54"),
            Stamp::Millis => ("ms", "294247-01-10 04:00:54.000"),
            Stamp::Micros => ("us", "294247-01-10 04:00:54.775806"),
            Stamp::Nanos => ("ns", "2262-04-11 23:47:16.854775806"),
        };
        let first = match s {
            Stamp::Nanos => "1677-09-21 00:12:43.145224194",
            _ => "290309-12-22 (BC) 00:00:00",
        };
        let meaning = if x == i64::MAX || x == -i64::MAX {
            " (DuckDB reads that count as infinity)"
        } else {
            ""
        };
        Some((
            k,
            format!(
                "datetime64[{unit}] value {x} is outside DuckDB's {} range ({lo} to {hi}: \
                 {first} to {last}){meaning}; datetime_counts := true reads datetimes as \
                 their BIGINT counts",
                kind.sql()
            ),
        ))
    })
}

/// Checks that every element `sel` selects is inside `src` (before an unchecked-free loop).
fn check_sel<T>(src: &[T], sel: Sel) -> Result<(), String> {
    let last = match sel {
        Sel::Range { start, len } if len > 0 => start.checked_add(len - 1),
        Sel::Strided { start, step, n } if n > 0 => {
            step.checked_mul(n - 1).and_then(|x| x.checked_add(start))
        }
        Sel::List(l) => l.iter().copied().max(),
        _ => None,
    };
    match last {
        Some(i) if i >= src.len() => Err(format!(
            "internal: element {i} outside a chunk of {}",
            src.len()
        )),
        None if !sel.is_empty() => Err("internal: a selection past usize".into()),
        _ => Ok(()),
    }
}

/// `f` of each selected element of `src`, in order, into `dst` (of `sel.len()` slots).
fn map_sel<T: Copy, U>(dst: &mut [U], src: &[T], sel: Sel, f: impl Fn(T) -> U) {
    match sel {
        Sel::Range { start, len } => {
            let part = src
                .get(start..start.saturating_add(len))
                .unwrap_or_default();
            for (d, &x) in dst.iter_mut().zip(part) {
                *d = f(x);
            }
        }
        Sel::Strided { start, step, n } => {
            let part = src.get(start..).unwrap_or_default();
            for (d, &x) in dst.iter_mut().zip(part.iter().step_by(step.max(1)).take(n)) {
                *d = f(x);
            }
        }
        Sel::List(l) => {
            for (d, &i) in dst.iter_mut().zip(l) {
                if let Some(&x) = src.get(i) {
                    *d = f(x);
                }
            }
        }
    }
}

#[cfg(test)]
fn gather<T: Copy, U: Default + Clone>(
    src: &[T],
    sel: Sel,
    f: impl Fn(T) -> U,
) -> Result<Vec<U>, String> {
    check_sel(src, sel)?;
    let mut out = vec![U::default(); sel.len()];
    map_sel(&mut out, src, sel, f);
    Ok(out)
}

/// The selected elements of `src`, converted by `f`, straight into `v`'s first rows.
fn put_map<T: Copy, U: Plain>(
    v: &mut FlatVector,
    src: &[T],
    sel: Sel,
    f: impl Fn(T) -> U,
) -> Result<(), String> {
    check_sel(src, sel)?;
    put_with(v, sel.len(), |dst| map_sel(dst, src, sel, f))
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
    put_map(v, src, sel, |x| x)
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
            put_map(&mut s.child(0, n), v, sel, |c| c[0])?;
            put_map(&mut s.child(1, n), v, sel, |c| c[1])
        }
        (Dst::Complex(s), ArrayData::C128(v)) => {
            let n = sel.len();
            put_map(&mut s.child(0, n), v, sel, |c| c[0])?;
            put_map(&mut s.child(1, n), v, sel, |c| c[1])
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
        ArrayData::Bool(v) => put_map(f, v, sel, |b| b != 0),
        ArrayData::I8(v) => put_sel(f, v, sel),
        ArrayData::U8(v) => put_sel(f, v, sel),
        ArrayData::I16(v) => put_sel(f, v, sel),
        ArrayData::I32(v) => put_sel(f, v, sel),
        ArrayData::I64(v) => put_sel(f, v, sel),
        ArrayData::U16(v) => put_sel(f, v, sel),
        ArrayData::U32(v) => put_sel(f, v, sel),
        ArrayData::U64(v) => put_sel(f, v, sel),
        ArrayData::F16(v) => put_map(f, v, sel, f16_to_f32),
        ArrayData::F32(v) => put_sel(f, v, sel),
        ArrayData::F64(v) => put_sel(f, v, sel),
        ArrayData::DateTime(v) | ArrayData::TimeDelta(v) => {
            if kind == Kind::Date {
                // `invalid` refused every count outside DATE_RANGE (NaT is set NULL below).
                put_map(f, v, sel, |d| i32::try_from(d).unwrap_or(i32::MIN))?;
            } else if kind == Kind::Interval {
                let interval = |micros| duckdb_interval {
                    months: 0,
                    days: 0,
                    micros,
                };
                put_map(f, v, sel, interval)?;
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
    fn timestamp_ranges_are_duckdbs() {
        // Measured with DuckDB 2.0.0 (tests/numpy/duckdb_safety.py): the first and last
        // counts whose casts to VARCHAR and to every other timestamp unit work, per unit.
        assert_eq!(
            stamp_range(Stamp::Seconds),
            (-9_223_372_022_400, 9_223_372_036_854)
        );
        assert_eq!(
            stamp_range(Stamp::Millis),
            (-9_223_372_022_400_000, 9_223_372_036_854_000)
        );
        assert_eq!(
            stamp_range(Stamp::Micros),
            (-9_223_372_022_400_000_000, i64::MAX - 1)
        );
        assert_eq!(stamp_range(Stamp::Nanos), (i64::MIN + 2, i64::MAX - 1));
    }

    #[test]
    fn dates_outside_duckdbs_range_are_invalid() {
        let sel = Sel::Range { start: 0, len: 5 };
        let (lo, hi) = DATE_RANGE;
        let ok = ArrayData::DateTime(vec![lo, hi, 0, NAT, -1].into());
        assert_eq!(invalid(Kind::Date, &ok, sel), None);
        for bad in [hi + 1, lo - 1, i64::MAX, i64::from(i32::MIN)] {
            let v = ArrayData::DateTime(vec![0, 1, bad, 2, 3].into());
            let (at, why) = invalid(Kind::Date, &v, sel).unwrap();
            assert_eq!(at, 2);
            assert!(
                why.contains(&bad.to_string()) && why.contains("DATE"),
                "{why}"
            );
        }
    }

    #[test]
    fn invalid_finds_the_first_count_duckdb_cannot_hold() {
        let secs = Kind::Timestamp(Stamp::Seconds);
        let v =
            ArrayData::DateTime(vec![0, NAT, 9_223_372_036_854, 10i64.pow(15), i64::MAX].into());
        let all = Sel::Range { start: 0, len: 5 };
        let (at, why) = invalid(secs, &v, all).unwrap();
        assert_eq!(at, 3);
        assert!(
            why.contains("1000000000000000") && why.contains("TIMESTAMP_S"),
            "{why}"
        );
        let (at, why) = invalid(secs, &v, Sel::List(&[4, 0])).unwrap();
        assert_eq!(at, 0);
        assert!(why.contains("infinity"), "{why}");
        assert_eq!(invalid(secs, &v, Sel::Range { start: 0, len: 3 }), None);
        // NaT is NULL, and every count of the ns unit but +-(2**63 - 1) is an instant.
        let ns = Kind::Timestamp(Stamp::Nanos);
        let v = ArrayData::DateTime(vec![NAT, i64::MIN + 2, i64::MAX - 1, -i64::MAX].into());
        assert_eq!(
            invalid(ns, &v, Sel::Range { start: 0, len: 3 }).map(|e| e.0),
            None
        );
        assert_eq!(
            invalid(ns, &v, Sel::Range { start: 0, len: 4 }).map(|e| e.0),
            Some(3)
        );
        // Counts, intervals and other kinds take every value.
        let v = ArrayData::DateTime(vec![i64::MAX, -i64::MAX].into());
        let sel = Sel::Range { start: 0, len: 2 };
        assert_eq!(invalid(Kind::Counts, &v, sel), None);
        assert_eq!(
            invalid(
                Kind::Interval,
                &ArrayData::TimeDelta(vec![i64::MAX].into()),
                sel
            ),
            None
        );
        assert_eq!(
            invalid(Kind::I64, &ArrayData::I64(vec![i64::MAX, 0].into()), sel),
            None
        );
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
