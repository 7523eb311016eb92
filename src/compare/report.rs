//! What a comparison found: [`Report`], its [`Mismatch`]es and [`Incompatibility`], and
//! their text.

use std::fmt;

use crate::compare::options::CompareOptions;
use crate::format::dtype::Dtype;

/// Why two arrays (or two fields of record arrays) could not be compared value by value.
///
/// ```
/// use npyguard::compare::{compare, CompareOptions, Incompatibility};
/// use npyguard::NpyArray;
/// let a = NpyArray::from_vec(vec![1.0f64; 6], vec![2, 3]).unwrap().to_array();
/// let b = NpyArray::from_vec(vec![1.0f64; 6], vec![3, 2]).unwrap().to_array();
/// let r = compare(&a, &b, &CompareOptions::new()).unwrap();
/// assert!(matches!(&r.incompatibilities()[0], Incompatibility::Shape { a, b, .. } if a == &[2, 3] && b == &[3, 2]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Incompatibility {
    /// The shapes differ.
    Shape {
        /// Field path (`""` for the arrays themselves, `"pos"`, `"inner.x"` for record fields).
        field: String,
        /// Shape of `a` (for a field: the array's shape followed by the field's subarray shape).
        a: Vec<usize>,
        /// Shape of `b`.
        b: Vec<usize>,
    },
    /// The dtypes differ in a way the options do not allow comparing across.
    Dtype {
        /// Field path (`""` for the arrays themselves).
        field: String,
        /// Dtype of `a` (`'<f8'`, or the descr list of a record).
        a: String,
        /// Dtype of `b`.
        b: String,
        /// Why they cannot be compared.
        reason: &'static str,
    },
    /// A record field exists in only one of the arrays.
    MissingField {
        /// Field path.
        field: String,
        /// `true` when the field is in `a` only, `false` when in `b` only.
        in_a: bool,
    },
}

impl Incompatibility {
    pub(super) fn prefixed(self, name: &str) -> Incompatibility {
        let join = |f: String| {
            if f.is_empty() {
                name.to_string()
            } else {
                format!("{name}.{f}")
            }
        };
        match self {
            Incompatibility::Shape { field, a, b } => Incompatibility::Shape {
                field: join(field),
                a,
                b,
            },
            Incompatibility::Dtype {
                field,
                a,
                b,
                reason,
            } => Incompatibility::Dtype {
                field: join(field),
                a,
                b,
                reason,
            },
            Incompatibility::MissingField { field, in_a } => Incompatibility::MissingField {
                field: join(field),
                in_a,
            },
        }
    }
}

pub(super) fn field_label(field: &str) -> String {
    if field.is_empty() {
        String::new()
    } else {
        format!("field {field:?}: ")
    }
}

impl fmt::Display for Incompatibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Incompatibility::Shape { field, a, b } => {
                write!(
                    f,
                    "{}shapes differ: a {} vs b {}",
                    field_label(field),
                    shape_text(a),
                    shape_text(b)
                )
            }
            Incompatibility::Dtype {
                field,
                a,
                b,
                reason,
            } => {
                write!(
                    f,
                    "{}dtypes differ: a {a} vs b {b} ({reason})",
                    field_label(field)
                )
            }
            Incompatibility::MissingField { field, in_a } => {
                write!(
                    f,
                    "field {field:?} is only in {}",
                    if *in_a { "a" } else { "b" }
                )
            }
        }
    }
}

/// What kind of difference a [`Mismatch`] is.
///
/// ```
/// use npyguard::compare::{compare, CompareOptions, MismatchKind};
/// use npyguard::NpyArray;
/// let a = NpyArray::from_vec(vec![f64::NAN, f64::INFINITY, 1.0], vec![3]).unwrap().to_array();
/// let b = NpyArray::from_vec(vec![1.0, f64::NEG_INFINITY, 2.0], vec![3]).unwrap().to_array();
/// let r = compare(&a, &b, &CompareOptions::new()).unwrap();
/// let kinds: Vec<MismatchKind> = r.mismatches().iter().map(|m| m.kind).collect();
/// assert_eq!(kinds, [MismatchKind::Nan, MismatchKind::Infinity, MismatchKind::Value]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MismatchKind {
    /// The values differ beyond the tolerance (or at all, where comparison is exact).
    Value,
    /// One value is NaN (or NaT) and the other is not.
    Nan,
    /// Both values are NaN (or NaT) and NaN is not equal to NaN.
    BothNan,
    /// An infinity against a finite value or the opposite infinity.
    Infinity,
    /// `0.0` against `-0.0`, with signed zeros distinguished.
    SignedZero,
}

impl MismatchKind {
    /// A short stable name (`value`, `nan`, `both-nan`, `infinity`, `signed-zero`), used in JSON output.
    ///
    /// ```
    /// use npyguard::compare::MismatchKind;
    /// assert_eq!(MismatchKind::BothNan.name(), "both-nan");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            MismatchKind::Value => "value",
            MismatchKind::Nan => "nan",
            MismatchKind::BothNan => "both-nan",
            MismatchKind::Infinity => "infinity",
            MismatchKind::SignedZero => "signed-zero",
        }
    }

    pub(super) fn note(self) -> &'static str {
        match self {
            MismatchKind::Value => "",
            MismatchKind::Nan => "NaN against a value",
            MismatchKind::BothNan => "NaN against NaN, with nan != nan",
            MismatchKind::Infinity => "infinities differ",
            MismatchKind::SignedZero => "signs of zero differ",
        }
    }
}

/// One pair of values that differ.
///
/// ```
/// use npyguard::compare::{compare, CompareOptions};
/// use npyguard::NpyArray;
/// let a = NpyArray::from_vec(vec![1.0f64, 2.0, 3.0, 4.5], vec![2, 2]).unwrap().to_array();
/// let b = NpyArray::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], vec![2, 2]).unwrap().to_array();
/// let r = compare(&a, &b, &CompareOptions::new()).unwrap();
/// let m = &r.mismatches()[0];
/// assert_eq!((m.index.as_slice(), m.a.as_str(), m.b.as_str()), ([1, 1].as_slice(), "4.5", "4.0"));
/// assert_eq!((m.abs_diff, m.rel_diff), (Some(0.5), Some(0.125)));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Mismatch {
    /// Logical (row-major) multi-index of the element, whatever the memory order.
    pub index: Vec<usize>,
    /// For record arrays, the field path inside the element: `"x"`, `"pos[1]"`,
    /// `"inner[0].x"`; empty otherwise.
    pub field: String,
    /// The value in `a`, rendered (`1.5`, `nan`, `-inf`, `(1.0+2.0j)`, `'text'`).
    pub a: String,
    /// The value in `b`, rendered.
    pub b: String,
    /// What kind of difference this is.
    pub kind: MismatchKind,
    /// `|a - b|` when both values are finite numbers (complex: the modulus of the difference).
    pub abs_diff: Option<f64>,
    /// `|a - b| / |b|` when both values are finite numbers (infinite when `b` is 0 and `a` is not).
    pub rel_diff: Option<f64>,
    /// ULP distance, for two finite floats (complex: the larger of the two parts').
    pub ulps: Option<u64>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", index_text(&self.index))?;
        if !self.field.is_empty() {
            write!(f, ".{}", self.field)?;
        }
        write!(f, ": a = {}, b = {}", self.a, self.b)?;
        let mut notes = Vec::new();
        if self.kind != MismatchKind::Value {
            notes.push(self.kind.note().to_string());
        }
        if let Some(d) = self.abs_diff {
            notes.push(format!("|a - b| = {}", crate::format::repr::py_float(d)));
        }
        if let Some(r) = self.rel_diff {
            notes.push(format!(
                "|a - b|/|b| = {}",
                crate::format::repr::py_float(r)
            ));
        }
        if let Some(u) = self.ulps {
            notes.push(format!("{u} ULP"));
        }
        if !notes.is_empty() {
            write!(f, "  ({})", notes.join(", "))?;
        }
        Ok(())
    }
}

/// The outcome of a comparison.
///
/// Use [`is_equal`](Report::is_equal) for the verdict and the `Display` for the
/// explanation, e.g. `assert!(report.is_equal(), "{report}")`.
///
/// ```
/// use npyguard::compare::{compare, CompareOptions};
/// use npyguard::NpyArray;
/// let a = NpyArray::from_vec(vec![1.0f64, f64::NAN, f64::INFINITY], vec![3]).unwrap().to_array();
/// let b = NpyArray::from_vec(vec![1.0f64, 1.0, f64::NEG_INFINITY], vec![3]).unwrap().to_array();
/// let r = compare(&a, &b, &CompareOptions::new()).unwrap();
/// assert!(!r.is_equal());
/// let text = r.to_string();
/// assert!(text.contains("arrays differ in 2 of 3 values"), "{text}");
/// assert!(text.contains("[1]: a = nan, b = 1.0"), "{text}");
/// assert!(text.contains("[2]: a = inf, b = -inf"), "{text}");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub(super) options: CompareOptions,
    pub(super) shapes: [Vec<usize>; 2],
    pub(super) dtypes: [String; 2],
    pub(super) incompatibilities: Vec<Incompatibility>,
    pub(super) compared: usize,
    pub(super) mismatch_count: usize,
    pub(super) mismatches: Vec<Mismatch>,
    pub(super) max_abs: Option<f64>,
    pub(super) max_rel: Option<f64>,
    pub(super) max_ulps: Option<u64>,
}

impl Report {
    /// Whether shapes and dtypes are compatible and every value pair is equal under the options.
    ///
    /// ```
    /// use npyguard::compare::{compare, CompareOptions};
    /// use npyguard::NpyArray;
    /// let a = NpyArray::from_vec(vec![1u8, 2], vec![2]).unwrap().to_array();
    /// assert!(compare(&a, &a, &CompareOptions::new()).unwrap().is_equal());
    /// ```
    pub fn is_equal(&self) -> bool {
        self.incompatibilities.is_empty() && self.mismatch_count == 0
    }

    /// Number of value pairs that differ (all of them, not only those listed).
    ///
    /// ```
    /// use npyguard::compare::{compare, CompareOptions};
    /// use npyguard::NpyArray;
    /// let a = NpyArray::from_vec(vec![1i64, 2, 3], vec![3]).unwrap().to_array();
    /// let b = NpyArray::from_vec(vec![1i64, 0, 0], vec![3]).unwrap().to_array();
    /// assert_eq!(compare(&a, &b, &CompareOptions::new()).unwrap().mismatch_count(), 2);
    /// ```
    pub fn mismatch_count(&self) -> usize {
        self.mismatch_count
    }

    /// The first [`max_report`](CompareOptions::max_report) mismatches in logical
    /// (row-major) order; for records, by element and then by field.
    ///
    /// ```
    /// use npyguard::compare::{compare, CompareOptions};
    /// use npyguard::{NpyArray, Endian};
    /// // Fortran order: memory holds 1 4 2 5 3 6 for [[1, 2, 3], [4, 5, 6]].
    /// let a = NpyArray::from_vec_with(vec![1, 4, 2, 5, 3, 6], vec![2, 3], true, Endian::Little).unwrap().to_array();
    /// let b = NpyArray::from_vec(vec![1, 2, 3, 4, 5, 0], vec![2, 3]).unwrap().to_array();
    /// let r = compare(&a, &b, &CompareOptions::new()).unwrap();
    /// assert_eq!(r.mismatches()[0].index, vec![1, 2]);
    /// ```
    pub fn mismatches(&self) -> &[Mismatch] {
        &self.mismatches
    }

    /// Number of value pairs compared (0 when the arrays are incompatible; for
    /// records, one per field value).
    ///
    /// ```
    /// use npyguard::compare::{compare, CompareOptions};
    /// use npyguard::NpyArray;
    /// let a = NpyArray::from_vec(vec![0u16; 6], vec![2, 3]).unwrap().to_array();
    /// assert_eq!(compare(&a, &a, &CompareOptions::new()).unwrap().compared(), 6);
    /// ```
    pub fn compared(&self) -> usize {
        self.compared
    }

    /// Shape and dtype differences, and record fields present on one side only.
    ///
    /// ```
    /// use npyguard::compare::{compare, CompareOptions, Incompatibility};
    /// use npyguard::NpyArray;
    /// let a = NpyArray::from_vec(vec![1i32], vec![1]).unwrap().to_array();
    /// let b = NpyArray::from_vec(vec![1i64], vec![1]).unwrap().to_array();
    /// let r = compare(&a, &b, &CompareOptions::new()).unwrap();
    /// assert!(matches!(&r.incompatibilities()[0], Incompatibility::Dtype { a, b, .. } if a == "<i4" && b == "<i8"));
    /// assert!(compare(&a, &b, &CompareOptions::new().cross_dtype(true)).unwrap().is_equal());
    /// ```
    pub fn incompatibilities(&self) -> &[Incompatibility] {
        &self.incompatibilities
    }

    /// Largest `|a - b|` over every compared pair of finite numbers (`None` if there was none).
    ///
    /// ```
    /// use npyguard::compare::{compare, CompareOptions};
    /// use npyguard::NpyArray;
    /// let a = NpyArray::from_vec(vec![1.0f64, 2.5], vec![2]).unwrap().to_array();
    /// let b = NpyArray::from_vec(vec![1.25f64, 2.0], vec![2]).unwrap().to_array();
    /// assert_eq!(compare(&a, &b, &CompareOptions::new()).unwrap().max_abs_diff(), Some(0.5));
    /// ```
    pub fn max_abs_diff(&self) -> Option<f64> {
        self.max_abs
    }

    /// Largest `|a - b| / |b|` over every compared pair of finite numbers
    /// (infinite when some `b` is 0 and its `a` is not).
    ///
    /// ```
    /// use npyguard::compare::{compare, CompareOptions};
    /// use npyguard::NpyArray;
    /// let a = NpyArray::from_vec(vec![1.0f64, 3.0], vec![2]).unwrap().to_array();
    /// let b = NpyArray::from_vec(vec![1.25f64, 2.0], vec![2]).unwrap().to_array();
    /// assert_eq!(compare(&a, &b, &CompareOptions::new()).unwrap().max_rel_diff(), Some(0.5));
    /// ```
    pub fn max_rel_diff(&self) -> Option<f64> {
        self.max_rel
    }

    /// Largest ULP distance over every compared pair of finite floats.
    ///
    /// ```
    /// use npyguard::compare::{compare, CompareOptions};
    /// use npyguard::NpyArray;
    /// let a = NpyArray::from_vec(vec![1.0f64], vec![1]).unwrap().to_array();
    /// let b = NpyArray::from_vec(vec![1.0f64 + 3.0 * f64::EPSILON], vec![1]).unwrap().to_array();
    /// assert_eq!(compare(&a, &b, &CompareOptions::new()).unwrap().max_ulps(), Some(3));
    /// ```
    pub fn max_ulps(&self) -> Option<u64> {
        self.max_ulps
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [sa, sb] = &self.shapes;
        let [da, db] = &self.dtypes;
        let arrays = if da == db && sa == sb {
            format!("{da} {}", shape_text(sa))
        } else {
            format!("a {da} {} vs b {db} {}", shape_text(sa), shape_text(sb))
        };
        let values = |n: usize| if n == 1 { "value" } else { "values" };
        if self.is_equal() {
            write!(
                f,
                "arrays are equal: {} {} of {arrays} compared {}",
                self.compared,
                values(self.compared),
                self.options.describe()
            )?;
            return self.write_maxima(f, "; ");
        }
        #[allow(clippy::cast_precision_loss)]
        let pct = if self.compared == 0 {
            0.0
        } else {
            100.0 * self.mismatch_count as f64 / self.compared as f64
        };
        let count = format!(
            "{} of {} {} ({pct:.3}%)",
            self.mismatch_count,
            self.compared,
            values(self.compared)
        );
        if self.incompatibilities.is_empty() {
            write!(
                f,
                "arrays differ in {count}: {arrays}, compared {}",
                self.options.describe()
            )?;
        } else {
            write!(f, "arrays differ: {arrays}")?;
            for inc in &self.incompatibilities {
                write!(f, "\n  {inc}")?;
            }
            if self.mismatch_count == 0 {
                return Ok(());
            }
            write!(
                f,
                "\n  and in {count} of the fields compared {}",
                self.options.describe()
            )?;
        }
        self.write_maxima(f, "\n  ")?;
        if !self.mismatches.is_empty() {
            let shown = self.mismatches.len();
            write!(
                f,
                "\n  first {shown} mismatch{} (b is the reference):",
                if shown == 1 { "" } else { "es" }
            )?;
            for m in &self.mismatches {
                write!(f, "\n    {m}")?;
            }
            let more = self.mismatch_count.saturating_sub(shown);
            if more > 0 {
                write!(f, "\n    ... and {more} more")?;
            }
        }
        Ok(())
    }
}

impl Report {
    pub(super) fn write_maxima(&self, f: &mut fmt::Formatter<'_>, sep: &str) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(d) = self.max_abs {
            parts.push(format!(
                "max |a - b| = {}",
                crate::format::repr::py_float(d)
            ));
        }
        if let Some(r) = self.max_rel {
            parts.push(format!(
                "max |a - b|/|b| = {}",
                crate::format::repr::py_float(r)
            ));
        }
        if let Some(u) = self.max_ulps {
            parts.push(format!("max {u} ULP"));
        }
        if parts.is_empty() {
            return Ok(());
        }
        write!(f, "{sep}{}", parts.join(", "))
    }
}

pub(super) fn shape_text(shape: &[usize]) -> String {
    crate::format::repr::py_shape(&shape.iter().map(|&d| d as u64).collect::<Vec<_>>())
}

pub(super) fn index_text(index: &[usize]) -> String {
    let parts: Vec<String> = index.iter().map(usize::to_string).collect();
    format!("[{}]", parts.join(", "))
}

pub(super) fn dtype_text(d: &Dtype) -> String {
    match d {
        Dtype::Record(_) => d.descr().to_string(),
        _ => d.typestr(),
    }
}

pub(super) fn bytes_text(b: Option<&[u8]>) -> String {
    let text: String = b
        .unwrap_or_default()
        .iter()
        .map(|&c| char::from(c))
        .collect();
    format!("b{}", crate::format::repr::py_str(&text))
}
