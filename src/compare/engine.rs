//! The comparison itself: walking two arrays (records field by field) and counting what
//! differs, through the scalar rules of `scalar`.

use std::path::Path;

use crate::compare::options::CompareOptions;
use crate::compare::report::*;
use crate::compare::scalar::*;
use crate::data::array::Array;
use crate::data::storage::ArrayData;
use crate::error::Result;
use crate::format::dtype::{Dtype, Endian, Record};
use crate::options::ReadOptions;

/// Compares `a` (the result) with `b` (the reference) value by value.
///
/// Errors only for invalid options (a negative or non-finite tolerance); every
/// difference between the arrays is in the [`Report`].
///
/// ```
/// use npyguard::compare::{compare, CompareOptions};
/// use npyguard::NpyArray;
/// let exact = (1i64 << 53) + 1;
/// let a = NpyArray::from_vec(vec![exact], vec![1]).unwrap().to_array();
/// let b = NpyArray::from_vec(vec![1i64 << 53], vec![1]).unwrap().to_array();
/// let r = compare(&a, &b, &CompareOptions::new()).unwrap();
/// assert!(!r.is_equal(), "i64 is compared as i64, never through f64");
/// assert!(r.to_string().contains("a = 9007199254740993, b = 9007199254740992"), "{r}");
/// ```
pub fn compare(a: &Array, b: &Array, opts: &CompareOptions) -> Result<Report> {
    opts.validate()?;
    let mut acc = Acc::new(opts);
    compare_level(a, b, &mut acc)?;
    Ok(Report {
        options: opts.clone(),
        shapes: [a.shape().to_vec(), b.shape().to_vec()],
        dtypes: [dtype_text(a.dtype()), dtype_text(b.dtype())],
        incompatibilities: acc.incompat,
        compared: acc.compared,
        mismatch_count: acc.count,
        mismatches: acc.list,
        max_abs: acc.max_abs,
        max_rel: acc.max_rel,
        max_ulps: acc.max_ulps,
    })
}

/// Compares `a` with the reference array in the `.npy` file at `reference`.
///
/// ```
/// use npyguard::compare::{compare_file, CompareOptions};
/// use npyguard::{NpyArray, ReadOptions};
/// let path = std::env::temp_dir().join(format!("npyguard-compare-doc-{}.npy", std::process::id()));
/// let reference = NpyArray::from_vec(vec![0.5f32, 1.5], vec![2]).unwrap();
/// reference.write_path(&path).unwrap();
/// let r = compare_file(&reference.to_array(), &path, &CompareOptions::new(), &ReadOptions::default()).unwrap();
/// assert!(r.is_equal(), "{r}");
/// # std::fs::remove_file(&path).unwrap();
/// ```
pub fn compare_file(
    a: &Array,
    reference: impl AsRef<Path>,
    opts: &CompareOptions,
    read: &ReadOptions,
) -> Result<Report> {
    let b = crate::io::read::read_path(reference, read)?;
    compare(a, &b, opts)
}

/// Compares the `.npy` files at `a` (the result) and `b` (the reference).
///
/// ```
/// use npyguard::compare::{compare_files, CompareOptions};
/// use npyguard::{NpyArray, ReadOptions};
/// let dir = std::env::temp_dir();
/// let (pa, pb) = (dir.join(format!("npyguard-cmp-a-{}.npy", std::process::id())), dir.join(format!("npyguard-cmp-b-{}.npy", std::process::id())));
/// NpyArray::from_vec(vec![1.0f64, 2.0], vec![2]).unwrap().write_path(&pa).unwrap();
/// NpyArray::from_vec(vec![1.0f64, 2.0 + 1e-9], vec![2]).unwrap().write_path(&pb).unwrap();
/// let r = compare_files(&pa, &pb, &CompareOptions::isclose(1e-6, 0.0), &ReadOptions::default()).unwrap();
/// assert!(r.is_equal(), "{r}");
/// # std::fs::remove_file(&pa).unwrap(); std::fs::remove_file(&pb).unwrap();
/// ```
pub fn compare_files(
    a: impl AsRef<Path>,
    b: impl AsRef<Path>,
    opts: &CompareOptions,
    read: &ReadOptions,
) -> Result<Report> {
    let a = crate::io::read::read_path(a, read)?;
    compare_file(&a, b, opts, read)
}

/// Counts and collects while comparing one level (the arrays, or one record field).
pub(super) struct Acc<'o> {
    pub(super) opts: &'o CompareOptions,
    pub(super) incompat: Vec<Incompatibility>,
    pub(super) compared: usize,
    pub(super) count: usize,
    pub(super) list: Vec<Mismatch>,
    pub(super) max_abs: Option<f64>,
    pub(super) max_rel: Option<f64>,
    pub(super) max_ulps: Option<u64>,
}

pub(super) fn bump(slot: &mut Option<f64>, v: Option<f64>) {
    if let Some(v) = v.filter(|v| !v.is_nan()) {
        *slot = Some(slot.map_or(v, |m| m.max(v)));
    }
}

impl<'o> Acc<'o> {
    pub(super) fn new(opts: &'o CompareOptions) -> Acc<'o> {
        Acc {
            opts,
            incompat: Vec::new(),
            compared: 0,
            count: 0,
            list: Vec::new(),
            max_abs: None,
            max_rel: None,
            max_ulps: None,
        }
    }

    /// Records the outcome for the element at C-order position `flat` of an array of `shape`.
    pub(super) fn add(
        &mut self,
        flat: usize,
        shape: &[usize],
        out: Outcome,
        render: impl FnOnce() -> (String, String),
    ) {
        self.compared = self.compared.saturating_add(1);
        bump(&mut self.max_abs, out.abs);
        bump(&mut self.max_rel, out.rel);
        if let Some(u) = out.ulps {
            self.max_ulps = Some(self.max_ulps.map_or(u, |m| m.max(u)));
        }
        if out.ok {
            return;
        }
        self.count = self.count.saturating_add(1);
        if self.list.len() < self.opts.max_report {
            let (a, b) = render();
            self.list.push(Mismatch {
                index: unravel(flat, shape),
                field: String::new(),
                a,
                b,
                kind: out.kind,
                abs_diff: out.abs,
                rel_diff: out.rel,
                ulps: out.ulps,
            });
        }
    }

    /// Folds in the results for field `name` of a record array of rank `ndim`.
    pub(super) fn merge_field(&mut self, name: &str, ndim: usize, sub: Acc<'_>) {
        self.incompat
            .extend(sub.incompat.into_iter().map(|i| i.prefixed(name)));
        self.compared = self.compared.saturating_add(sub.compared);
        self.count = self.count.saturating_add(sub.count);
        bump(&mut self.max_abs, sub.max_abs);
        bump(&mut self.max_rel, sub.max_rel);
        if let Some(u) = sub.max_ulps {
            self.max_ulps = Some(self.max_ulps.map_or(u, |m| m.max(u)));
        }
        for mut m in sub.list {
            let inner = m.index.split_off(ndim.min(m.index.len()));
            let mut path = name.to_string();
            if !inner.is_empty() {
                path.push_str(&index_text(&inner));
            }
            if !m.field.is_empty() {
                path.push('.');
                path.push_str(&m.field);
            }
            m.field = path;
            self.list.push(m);
        }
    }
}

pub(super) fn compare_level(a: &Array, b: &Array, acc: &mut Acc<'_>) -> Result<()> {
    if a.shape() != b.shape() {
        acc.incompat.push(Incompatibility::Shape {
            field: String::new(),
            a: a.shape().to_vec(),
            b: b.shape().to_vec(),
        });
        return Ok(());
    }
    match (a.dtype(), b.dtype()) {
        (Dtype::Record(ra), Dtype::Record(rb)) => compare_records(a, b, ra, rb, acc),
        (da, db) => {
            if let Err(reason) = compatible(da, db, acc.opts) {
                acc.incompat.push(Incompatibility::Dtype {
                    field: String::new(),
                    a: dtype_text(da),
                    b: dtype_text(db),
                    reason,
                });
                return Ok(());
            }
            let (a, b) = (a.as_c_order(), b.as_c_order());
            compare_values(&a, &b, acc);
            Ok(())
        }
    }
}

pub(super) fn compare_records(
    a: &Array,
    b: &Array,
    ra: &Record,
    rb: &Record,
    acc: &mut Acc<'_>,
) -> Result<()> {
    for (mine, theirs, in_a) in [(ra, rb, true), (rb, ra, false)] {
        for f in mine
            .fields
            .iter()
            .filter(|f| theirs.field(&f.name).is_none())
        {
            acc.incompat.push(Incompatibility::MissingField {
                field: f.name.to_string(),
                in_a,
            });
        }
    }
    let ndim = a.shape().len();
    let before = acc.list.len();
    for f in ra.fields.iter().filter(|f| rb.field(&f.name).is_some()) {
        let (fa, fb) = (a.field(&f.name)?, b.field(&f.name)?);
        let mut sub = Acc::new(acc.opts);
        compare_level(&fa, &fb, &mut sub)?;
        acc.merge_field(&f.name.to_string(), ndim, sub);
    }
    // Each field listed its own first mismatches; interleave them by element (a stable sort keeps
    // field order within an element) and keep the first `max_report`.
    if let Some(added) = acc.list.get_mut(before..) {
        added.sort_by(|x, y| x.index.cmp(&y.index));
    }
    acc.list.truncate(acc.opts.max_report);
    Ok(())
}

/// The broad kind of a non-record dtype, for the cross-dtype policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Int,
    Float,
    Complex,
    Bytes,
    Unicode,
    Void,
    Time,
}

pub(super) fn kind(d: &Dtype) -> Kind {
    match d {
        Dtype::F16(_) | Dtype::F32(_) | Dtype::F64(_) => Kind::Float,
        Dtype::C64(_) | Dtype::C128(_) => Kind::Complex,
        Dtype::Bytes(_) => Kind::Bytes,
        Dtype::Unicode(..) => Kind::Unicode,
        Dtype::Void(_) | Dtype::Record(_) => Kind::Void,
        Dtype::DateTime(..) | Dtype::TimeDelta(..) => Kind::Time,
        _ => Kind::Int,
    }
}

/// Whether values of `a` and `b` can be compared under `opts`, or why not.
pub(super) fn compatible(
    a: &Dtype,
    b: &Dtype,
    opts: &CompareOptions,
) -> std::result::Result<(), &'static str> {
    if is_long_double(a) || is_long_double(b) {
        return Err("long double (f16, c32) values are not compared (npyguard reads them only as bytes or as rounded f64)");
    }
    if a.with_endian(Endian::Little) == b.with_endian(Endian::Little) {
        return Ok(());
    }
    let why = match (kind(a), kind(b)) {
        (Kind::Int | Kind::Float, Kind::Int | Kind::Float)
        | (Kind::Float | Kind::Complex, Kind::Float | Kind::Complex)
        | (Kind::Bytes, Kind::Bytes)
        | (Kind::Unicode, Kind::Unicode) => {
            return if opts.cross_dtype {
                Ok(())
            } else {
                Err("different types; cross-dtype comparison would compare the values")
            };
        }
        (Kind::Int, Kind::Complex) | (Kind::Complex, Kind::Int) => {
            "integers are not compared with complex numbers"
        }
        (Kind::Void, _) | (_, Kind::Void) if is_record(a) || is_record(b) => {
            "a record and a non-record"
        }
        (Kind::Void, Kind::Void) => "raw bytes of different widths",
        (Kind::Time, Kind::Time) => match (a, b) {
            (Dtype::DateTime(..), Dtype::DateTime(..))
            | (Dtype::TimeDelta(..), Dtype::TimeDelta(..)) => {
                "different time units (convert to one unit first)"
            }
            _ => "a datetime and a timedelta",
        },
        _ => "these kinds of values cannot be compared",
    };
    Err(why)
}

/// Whether `d` is a long double, or a record holding one at any depth.
fn is_long_double(d: &Dtype) -> bool {
    match d {
        Dtype::LongDouble(_) | Dtype::CLongDouble(_) => true,
        Dtype::Record(r) => r.fields.iter().any(|f| is_long_double(&f.dtype)),
        _ => false,
    }
}

pub(super) fn is_record(d: &Dtype) -> bool {
    matches!(d, Dtype::Record(_))
}

pub(super) fn compare_values(a: &Array, b: &Array, acc: &mut Acc<'_>) {
    let n = a.len().min(b.len());
    let shape = a.shape();
    if a.dtype().itemsize() == 0 && b.dtype().itemsize() == 0 {
        // Elements of item size 0 (`S0`, `V0`) hold no value: all equal, and no byte backs
        // them, so count them without visiting each (a header may claim 2^60 of them).
        acc.compared = acc.compared.saturating_add(n);
        return;
    }
    match (a.data(), b.data()) {
        (ArrayData::Bytes(_), ArrayData::Bytes(_)) | (ArrayData::Void(_), ArrayData::Void(_)) => {
            for i in 0..n {
                let (x, y) = (a.bytes_at(i), b.bytes_at(i));
                acc.add(i, shape, Outcome::exact(x == y), || {
                    (bytes_text(x), bytes_text(y))
                });
            }
        }
        (ArrayData::Unicode(_), ArrayData::Unicode(_)) => {
            for i in 0..n {
                // Code units, as NumPy compares them (lone surrogates included).
                let (x, y) = (a.units_at(i), b.units_at(i));
                let render = |s: &Option<&[u32]>| {
                    s.map_or_else(String::new, crate::format::repr::py_str_units)
                };
                acc.add(i, shape, Outcome::exact(x == y), || {
                    (render(&x), render(&y))
                });
            }
        }
        (da, db) => {
            let opts = acc.opts;
            for i in 0..n {
                let (Some(x), Some(y)) = (num_at(da, i), num_at(db, i)) else {
                    acc.incompat.push(Incompatibility::Dtype {
                        field: String::new(),
                        a: dtype_text(a.dtype()),
                        b: dtype_text(b.dtype()),
                        reason: "these kinds of values cannot be compared",
                    });
                    return;
                };
                let out = compare_num(x, y, opts);
                acc.add(i, shape, out, || {
                    (num_text(x, a.dtype()), num_text(y, b.dtype()))
                });
            }
        }
    }
}

/// C-order flat index to multi-index.
pub(super) fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0usize; shape.len()];
    for (slot, &d) in idx.iter_mut().zip(shape).rev() {
        *slot = flat.checked_rem(d).unwrap_or(0);
        flat = flat.checked_div(d).unwrap_or(0);
    }
    idx
}
