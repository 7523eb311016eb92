//! Comparing arrays with reference data: shape, dtype and values, reported element by element.
//!
//! [`compare`] checks an array `a` (the result being tested) against a reference
//! `b` (typically written by NumPy) and returns a [`Report`]: whether they are
//! equal under the [`CompareOptions`], how many values differ, the first few
//! differences with their logical (row-major) multi-indices, and the largest
//! absolute, relative and ULP errors. The report's `Display` is written to be
//! read in a failing test.
//!
//! ```
//! use npyguard::compare::{compare, CompareOptions};
//! use npyguard::NpyArray;
//! let result = NpyArray::from_vec(vec![1.0f64, f64::NAN, 3.0 + 1e-12], vec![3]).unwrap().to_array();
//! let reference = NpyArray::from_vec(vec![1.0f64, (-1.0f64).ln(), 3.0], vec![3]).unwrap().to_array();
//! // Exact by default: the last value differs. NaN == NaN by default.
//! let exact = compare(&result, &reference, &CompareOptions::default()).unwrap();
//! assert_eq!(exact.mismatch_count(), 1);
//! assert_eq!(exact.mismatches()[0].index, vec![2]);
//! // NumPy's isclose: |a - b| <= atol + rtol * |b|.
//! let close = compare(&result, &reference, &CompareOptions::isclose(1e-9, 0.0)).unwrap();
//! assert!(close.is_equal(), "{close}");
//! ```
//!
//! # Semantics
//!
//! * **Shape** must be equal (no broadcasting); otherwise no value is compared.
//! * **Dtype** must be the same kind and width; byte order never matters. With
//!   [`CompareOptions::cross_dtype`], numeric values are compared across types:
//!   an `f4` result with an `f8` reference, an `i4` with an `i8`, an integer with
//!   a float, a real float with a complex (imaginary part +0).
//! * **Memory order** never matters: Fortran-order arrays are compared in logical
//!   (row-major) order, and indices in the report are logical multi-indices.
//! * **Floats** (`f2`, `f4`, `f8`): a pair is equal when it passes NumPy's
//!   [`isclose`] test `|a - b| <= atol + rtol * |b|` (the reference `b` scales the
//!   relative tolerance, so the test is not symmetric, as in NumPy), or — when
//!   [`CompareOptions::ulps`] is set — when the values are at most that many
//!   units in the last place apart. With both tolerances 0 (the default) this is
//!   exact equality. The arithmetic is done in the type NumPy would promote to
//!   (`f4` with `f4` in `f4`, anything with `f8` in `f8`; `f2` with `f2` in `f8`,
//!   where NumPy would use half precision), so the verdicts are NumPy's own.
//!   On top of the tolerance test, and in every mode:
//!   * NaN equals NaN (any payload, any sign) unless [`CompareOptions::nan_equal`]
//!     is turned off, and never equals a number (NumPy's `equal_nan`);
//!   * an infinity equals only the same infinity — never a finite value, however
//!     large the tolerance (NumPy's `isclose` lets `inf` match a finite `b` when
//!     `rtol * |b|` overflows; this comparison does not);
//!   * `0.0` equals `-0.0` unless [`CompareOptions::signed_zero`] is on.
//! * **ULP distance** counts the representable values between `a` and `b`, as
//!   NumPy's `testing.nulp_diff` does (`0.0` and `-0.0` are 0 ULP apart). Across
//!   widths it is counted in the narrower type, after rounding the wider value to
//!   it (an `f4` result is 0 ULP from an `f8` reference it is the rounding of).
//! * **Integers** (and `b1`) are compared exactly, in their own type: never
//!   through `f64`, which cannot tell `2^53 + 1` from `2^53`; `i8` against `u8`
//!   goes through `i128`. Tolerances and ULPs do not apply between integers.
//!   An integer against a float is exact when the float is integral and equal;
//!   otherwise the tolerance test applies, with the difference taken exactly
//!   before it is rounded once.
//! * **Complex** numbers are compared per component (real and imaginary parts
//!   each by the float rules). [`CompareOptions::complex_modulus`] switches to
//!   NumPy's `isclose` on complex values instead: `|a - b| <= atol + rtol * |b|`
//!   with complex moduli, and a value with a NaN in either part counts as NaN.
//!   The moduli are computed as NumPy's array `absolute` computes them
//!   (`max * sqrt(1 + (min/max)^2)` with a fused multiply-add, which can differ
//!   from `hypot` in the last bit), so the verdicts at the boundary are NumPy's
//!   wherever NumPy runs its FMA kernels (x86-64 with AVX2, AArch64).
//! * **Records** are compared field by field, matching fields by name (order,
//!   offsets and padding do not matter); a field on one side only is reported.
//! * **Strings** (`S`, `U`) and raw bytes (`V`) are compared exactly (trailing
//!   NULs stripped for `S` and `U`, as NumPy does).
//! * **Datetimes and timedeltas** are compared exactly; NaT equals NaT exactly
//!   when NaN equals NaN. Different units are a dtype mismatch.
//!
//! [`isclose`]: https://numpy.org/doc/stable/reference/generated/numpy.isclose.html

use std::borrow::Cow;
use std::fmt;
use std::path::Path;

use crate::data::array::Array;
use crate::data::storage::ArrayData;
use crate::error::{Error, ErrorKind, Result};
use crate::format::dtype::{Dtype, Endian, Record};
use crate::format::f16::f16_bits_to_f64;
use crate::options::ReadOptions;

/// How two arrays are compared: tolerances, NaN and zero rules, dtype policy, report size.
///
/// The default is exact comparison with NaN equal to NaN, `0.0` equal to
/// `-0.0`, dtypes required to match, and up to 10 mismatches listed.
///
/// ```
/// use npyguard::compare::CompareOptions;
/// let opts = CompareOptions::isclose(1e-7, 1e-12) // NumPy's rtol, atol
///     .ulps(Some(4))                              // …or at most 4 ULP apart
///     .nan_equal(false)                           // NaN != NaN, as NumPy's default
///     .signed_zero(true)                          // 0.0 != -0.0
///     .cross_dtype(true)                          // e.g. an f4 result against an f8 reference
///     .max_report(100);
/// # let _ = opts;
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CompareOptions {
    rtol: f64,
    atol: f64,
    ulps: Option<u64>,
    nan_equal: bool,
    signed_zero: bool,
    cross_dtype: bool,
    complex_modulus: bool,
    max_report: usize,
}

impl Default for CompareOptions {
    fn default() -> CompareOptions {
        CompareOptions {
            rtol: 0.0,
            atol: 0.0,
            ulps: None,
            nan_equal: true,
            signed_zero: false,
            cross_dtype: false,
            complex_modulus: false,
            max_report: 10,
        }
    }
}

impl CompareOptions {
    /// Exact comparison (the default): no tolerance, NaN == NaN, `0.0 == -0.0`.
    ///
    /// ```
    /// use npyguard::compare::CompareOptions;
    /// assert_eq!(CompareOptions::exact(), CompareOptions::default());
    /// ```
    pub fn exact() -> CompareOptions {
        CompareOptions::default()
    }

    /// NumPy's `isclose(a, b, rtol, atol)` test for floats: `|a - b| <= atol + rtol * |b|`,
    /// with `b` the reference. NaN still equals NaN (see [`nan_equal`](CompareOptions::nan_equal)).
    ///
    /// ```
    /// use npyguard::compare::{compare, CompareOptions};
    /// use npyguard::NpyArray;
    /// let a = NpyArray::from_vec(vec![1e10, 1e-7], vec![2]).unwrap().to_array();
    /// let b = NpyArray::from_vec(vec![1.00001e10, 1e-8], vec![2]).unwrap().to_array();
    /// // np.isclose([1e10, 1e-7], [1.00001e10, 1e-8]) == [True, False]
    /// let r = compare(&a, &b, &CompareOptions::isclose(1e-5, 1e-8)).unwrap();
    /// assert_eq!(r.mismatch_count(), 1);
    /// assert_eq!(r.mismatches()[0].index, vec![1]);
    /// ```
    pub fn isclose(rtol: f64, atol: f64) -> CompareOptions {
        CompareOptions::default().rtol(rtol).atol(atol)
    }

    /// Relative tolerance (default 0): scales with the magnitude of the reference `b`.
    /// Must be finite and not negative ([`compare`] reports [`ErrorKind::InvalidInput`]).
    ///
    /// ```
    /// use npyguard::compare::CompareOptions;
    /// let opts = CompareOptions::new().rtol(1e-6);
    /// # let _ = opts;
    /// ```
    #[must_use]
    pub fn rtol(mut self, rtol: f64) -> CompareOptions {
        self.rtol = rtol;
        self
    }

    /// Absolute tolerance (default 0). Must be finite and not negative.
    ///
    /// ```
    /// use npyguard::compare::CompareOptions;
    /// let opts = CompareOptions::new().atol(1e-12);
    /// # let _ = opts;
    /// ```
    #[must_use]
    pub fn atol(mut self, atol: f64) -> CompareOptions {
        self.atol = atol;
        self
    }

    /// Also accept floats at most `n` ULP apart (`None`, the default: no ULP test).
    /// A pair passes when it passes the tolerance test *or* the ULP test.
    ///
    /// ```
    /// use npyguard::compare::{compare, CompareOptions};
    /// use npyguard::NpyArray;
    /// let a = NpyArray::from_vec(vec![1.0f32], vec![1]).unwrap().to_array();
    /// let b = NpyArray::from_vec(vec![1.0f32 + 2.0 * f32::EPSILON], vec![1]).unwrap().to_array();
    /// assert!(!compare(&a, &b, &CompareOptions::new().ulps(Some(1))).unwrap().is_equal());
    /// assert!(compare(&a, &b, &CompareOptions::new().ulps(Some(2))).unwrap().is_equal());
    /// ```
    #[must_use]
    pub fn ulps(mut self, n: Option<u64>) -> CompareOptions {
        self.ulps = n;
        self
    }

    /// Whether NaN equals NaN (default `true`, whatever the payloads; NaT likewise).
    /// `false` is NumPy's `equal_nan=False`: a NaN never equals anything.
    ///
    /// ```
    /// use npyguard::compare::{compare, CompareOptions};
    /// use npyguard::NpyArray;
    /// let a = NpyArray::from_vec(vec![f64::NAN], vec![1]).unwrap().to_array();
    /// assert!(compare(&a, &a, &CompareOptions::new()).unwrap().is_equal());
    /// assert!(!compare(&a, &a, &CompareOptions::new().nan_equal(false)).unwrap().is_equal());
    /// ```
    #[must_use]
    pub fn nan_equal(mut self, yes: bool) -> CompareOptions {
        self.nan_equal = yes;
        self
    }

    /// Whether `0.0` and `-0.0` differ (default `false`: they are equal, as in IEEE 754 and NumPy).
    ///
    /// ```
    /// use npyguard::compare::{compare, CompareOptions};
    /// use npyguard::NpyArray;
    /// let a = NpyArray::from_vec(vec![0.0f64], vec![1]).unwrap().to_array();
    /// let b = NpyArray::from_vec(vec![-0.0f64], vec![1]).unwrap().to_array();
    /// assert!(compare(&a, &b, &CompareOptions::new()).unwrap().is_equal());
    /// assert!(!compare(&a, &b, &CompareOptions::new().signed_zero(true)).unwrap().is_equal());
    /// ```
    #[must_use]
    pub fn signed_zero(mut self, yes: bool) -> CompareOptions {
        self.signed_zero = yes;
        self
    }

    /// Whether numeric values of different dtypes are compared (default `false`:
    /// a dtype difference other than byte order is reported and values are not compared).
    ///
    /// ```
    /// use npyguard::compare::{compare, CompareOptions};
    /// use npyguard::NpyArray;
    /// let result = NpyArray::from_vec(vec![0.1f32], vec![1]).unwrap().to_array();
    /// let reference = NpyArray::from_vec(vec![0.1f64], vec![1]).unwrap().to_array();
    /// assert!(!compare(&result, &reference, &CompareOptions::new()).unwrap().is_equal());
    /// let r = compare(&result, &reference, &CompareOptions::isclose(1e-7, 0.0).cross_dtype(true)).unwrap();
    /// assert!(r.is_equal(), "{r}");
    /// assert_eq!(r.max_ulps(), Some(0)); // 0.1f32 is the f32 rounding of 0.1f64
    /// ```
    #[must_use]
    pub fn cross_dtype(mut self, yes: bool) -> CompareOptions {
        self.cross_dtype = yes;
        self
    }

    /// Whether complex values are compared as NumPy's `isclose` does — by the
    /// modulus of the difference against `atol + rtol * |b|`, a NaN in either part
    /// making the value NaN — instead of per component (default `false`).
    ///
    /// ```
    /// use npyguard::compare::{compare, CompareOptions};
    /// use npyguard::{Array, ArrayData, Dtype, Endian, Header};
    /// let c = |v: Vec<[f64; 2]>| {
    ///     Array::new(Header::new(Dtype::C128(Endian::Little), vec![v.len()], false).unwrap(), ArrayData::C128(v)).unwrap()
    /// };
    /// // The imaginary part is off by 100%, the modulus by 1e-16.
    /// let a = c(vec![[1e6, 2e-10]]);
    /// let b = c(vec![[1e6, 1e-10]]);
    /// let opts = CompareOptions::isclose(1e-9, 0.0);
    /// assert!(!compare(&a, &b, &opts).unwrap().is_equal());
    /// assert!(compare(&a, &b, &opts.complex_modulus(true)).unwrap().is_equal());
    /// ```
    #[must_use]
    pub fn complex_modulus(mut self, yes: bool) -> CompareOptions {
        self.complex_modulus = yes;
        self
    }

    /// How many mismatches the report lists (default 10); all are counted.
    ///
    /// ```
    /// use npyguard::compare::{compare, CompareOptions};
    /// use npyguard::NpyArray;
    /// let a = NpyArray::from_vec(vec![1i32, 2, 3], vec![3]).unwrap().to_array();
    /// let b = NpyArray::from_vec(vec![0i32, 0, 0], vec![3]).unwrap().to_array();
    /// let r = compare(&a, &b, &CompareOptions::new().max_report(1)).unwrap();
    /// assert_eq!((r.mismatch_count(), r.mismatches().len()), (3, 1));
    /// ```
    #[must_use]
    pub fn max_report(mut self, n: usize) -> CompareOptions {
        self.max_report = n;
        self
    }

    /// The default options (see [`CompareOptions::exact`]).
    ///
    /// ```
    /// use npyguard::compare::CompareOptions;
    /// assert_eq!(CompareOptions::new(), CompareOptions::default());
    /// ```
    pub fn new() -> CompareOptions {
        CompareOptions::default()
    }

    fn validate(&self) -> Result<()> {
        for (name, v) in [("rtol", self.rtol), ("atol", self.atol)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::unplaced(
                    ErrorKind::InvalidInput,
                    format!("a finite, non-negative {name}"),
                )
                .found(format!("{v}")));
            }
        }
        Ok(())
    }

    /// How the values were compared, in words.
    fn describe(&self) -> String {
        let mut s = if self.rtol == 0.0 && self.atol == 0.0 {
            match self.ulps {
                None => "exactly".to_string(),
                Some(n) => format!("within {n} ULP"),
            }
        } else {
            let mut t = format!(
                "within |a - b| <= {} + {} * |b|",
                crate::format::repr::py_float(self.atol),
                crate::format::repr::py_float(self.rtol)
            );
            if let Some(n) = self.ulps {
                t.push_str(&format!(" or {n} ULP"));
            }
            t
        };
        s.push_str(if self.nan_equal {
            " (nan == nan"
        } else {
            " (nan != nan"
        });
        if self.signed_zero {
            s.push_str(", 0.0 != -0.0");
        }
        if self.complex_modulus {
            s.push_str(", complex by modulus");
        }
        if self.cross_dtype {
            s.push_str(", across dtypes");
        }
        s.push(')');
        s
    }
}

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
    fn prefixed(self, name: &str) -> Incompatibility {
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

fn field_label(field: &str) -> String {
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

    fn note(self) -> &'static str {
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
    options: CompareOptions,
    shapes: [Vec<usize>; 2],
    dtypes: [String; 2],
    incompatibilities: Vec<Incompatibility>,
    compared: usize,
    mismatch_count: usize,
    mismatches: Vec<Mismatch>,
    max_abs: Option<f64>,
    max_rel: Option<f64>,
    max_ulps: Option<u64>,
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
    fn write_maxima(&self, f: &mut fmt::Formatter<'_>, sep: &str) -> fmt::Result {
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

// ------------------------------------------------------------------ engine

/// Counts and collects while comparing one level (the arrays, or one record field).
struct Acc<'o> {
    opts: &'o CompareOptions,
    incompat: Vec<Incompatibility>,
    compared: usize,
    count: usize,
    list: Vec<Mismatch>,
    max_abs: Option<f64>,
    max_rel: Option<f64>,
    max_ulps: Option<u64>,
}

fn bump(slot: &mut Option<f64>, v: Option<f64>) {
    if let Some(v) = v.filter(|v| !v.is_nan()) {
        *slot = Some(slot.map_or(v, |m| m.max(v)));
    }
}

impl<'o> Acc<'o> {
    fn new(opts: &'o CompareOptions) -> Acc<'o> {
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
    fn add(
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
    fn merge_field(&mut self, name: &str, ndim: usize, sub: Acc<'_>) {
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

/// The result of comparing one pair of values.
#[derive(Debug, Clone, Copy)]
struct Outcome {
    ok: bool,
    kind: MismatchKind,
    abs: Option<f64>,
    rel: Option<f64>,
    ulps: Option<u64>,
}

impl Outcome {
    fn exact(ok: bool) -> Outcome {
        Outcome {
            ok,
            kind: MismatchKind::Value,
            abs: None,
            rel: None,
            ulps: None,
        }
    }

    fn special(ok: bool, kind: MismatchKind) -> Outcome {
        Outcome {
            ok,
            kind,
            abs: None,
            rel: None,
            ulps: None,
        }
    }
}

fn c_order(a: &Array) -> Cow<'_, Array> {
    if a.fortran_order() {
        Cow::Owned(a.to_c_order())
    } else {
        Cow::Borrowed(a)
    }
}

fn compare_level(a: &Array, b: &Array, acc: &mut Acc<'_>) -> Result<()> {
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
            let (a, b) = (c_order(a), c_order(b));
            compare_values(&a, &b, acc);
            Ok(())
        }
    }
}

fn compare_records(
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
                field: f.name.clone(),
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
        acc.merge_field(&f.name, ndim, sub);
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
enum Kind {
    Int,
    Float,
    Complex,
    Bytes,
    Unicode,
    Void,
    Time,
}

fn kind(d: &Dtype) -> Kind {
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
fn compatible(
    a: &Dtype,
    b: &Dtype,
    opts: &CompareOptions,
) -> std::result::Result<(), &'static str> {
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

fn is_record(d: &Dtype) -> bool {
    matches!(d, Dtype::Record(_))
}

fn compare_values(a: &Array, b: &Array, acc: &mut Acc<'_>) {
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
                let (x, y) = (a.str_at(i), b.str_at(i));
                let render = |s: &Option<String>| {
                    s.as_deref()
                        .map_or_else(String::new, crate::format::repr::py_str)
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
fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0usize; shape.len()];
    for (slot, &d) in idx.iter_mut().zip(shape).rev() {
        *slot = flat.checked_rem(d).unwrap_or(0);
        flat = flat.checked_div(d).unwrap_or(0);
    }
    idx
}

// ------------------------------------------------------------------ scalars

/// A float of one of the three widths, kept in its own type.
#[derive(Debug, Clone, Copy)]
enum Fl {
    H(u16),
    S(f32),
    D(f64),
}

impl Fl {
    fn to_f64(self) -> f64 {
        match self {
            Fl::H(h) => f16_bits_to_f64(h),
            Fl::S(s) => f64::from(s),
            Fl::D(d) => d,
        }
    }

    fn rank(self) -> u8 {
        match self {
            Fl::H(_) => 0,
            Fl::S(_) => 1,
            Fl::D(_) => 2,
        }
    }

    /// `(bits, sign mask)` of the value rounded to the format of rank `rank`.
    #[allow(clippy::cast_possible_truncation)]
    fn bits_at(self, rank: u8) -> (u64, u64) {
        match rank {
            0 => {
                let h = match self {
                    Fl::H(h) => h,
                    other => crate::format::f16::f64_to_f16_bits(other.to_f64()),
                };
                (u64::from(h), 0x8000)
            }
            1 => {
                let s = match self {
                    Fl::S(s) => s,
                    // Exact for f16; round-to-nearest-even for f64.
                    other => other.to_f64() as f32,
                };
                (u64::from(s.to_bits()), 1 << 31)
            }
            _ => (self.to_f64().to_bits(), 1 << 63),
        }
    }
}

/// A numeric value, exact in its own type.
#[derive(Debug, Clone, Copy)]
enum Num {
    Int(i128),
    Fl(Fl),
    Cx(Fl, Fl),
    Time(i64),
}

fn num_at(d: &ArrayData, i: usize) -> Option<Num> {
    Some(match d {
        ArrayData::Bool(v) => Num::Int(i128::from(u8::from(*v.get(i)? != 0))),
        ArrayData::I8(v) => Num::Int(i128::from(*v.get(i)?)),
        ArrayData::U8(v) => Num::Int(i128::from(*v.get(i)?)),
        ArrayData::I16(v) => Num::Int(i128::from(*v.get(i)?)),
        ArrayData::I32(v) => Num::Int(i128::from(*v.get(i)?)),
        ArrayData::I64(v) => Num::Int(i128::from(*v.get(i)?)),
        ArrayData::U16(v) => Num::Int(i128::from(*v.get(i)?)),
        ArrayData::U32(v) => Num::Int(i128::from(*v.get(i)?)),
        ArrayData::U64(v) => Num::Int(i128::from(*v.get(i)?)),
        ArrayData::F16(v) => Num::Fl(Fl::H(*v.get(i)?)),
        ArrayData::F32(v) => Num::Fl(Fl::S(*v.get(i)?)),
        ArrayData::F64(v) => Num::Fl(Fl::D(*v.get(i)?)),
        ArrayData::C64(v) => {
            let [re, im] = *v.get(i)?;
            Num::Cx(Fl::S(re), Fl::S(im))
        }
        ArrayData::C128(v) => {
            let [re, im] = *v.get(i)?;
            Num::Cx(Fl::D(re), Fl::D(im))
        }
        ArrayData::DateTime(v) | ArrayData::TimeDelta(v) => Num::Time(*v.get(i)?),
        _ => return None,
    })
}

fn zero_like(f: Fl) -> Fl {
    match f {
        Fl::H(_) => Fl::H(0),
        Fl::S(_) => Fl::S(0.0),
        Fl::D(_) => Fl::D(0.0),
    }
}

fn compare_num(x: Num, y: Num, opts: &CompareOptions) -> Outcome {
    match (x, y) {
        (Num::Int(a), Num::Int(b)) => {
            let d = a.abs_diff(b) as f64;
            Outcome {
                ok: a == b,
                kind: MismatchKind::Value,
                abs: Some(d),
                rel: Some(rel(d, b.unsigned_abs() as f64)),
                ulps: None,
            }
        }
        (Num::Int(a), Num::Fl(b)) => int_float(a, b, false, opts),
        (Num::Fl(a), Num::Int(b)) => int_float(b, a, true, opts),
        (Num::Fl(a), Num::Fl(b)) => float_pair(a, b, opts),
        (Num::Cx(ar, ai), Num::Cx(br, bi)) => complex_pair((ar, ai), (br, bi), opts),
        (Num::Fl(a), Num::Cx(br, bi)) => complex_pair((a, zero_like(a)), (br, bi), opts),
        (Num::Cx(ar, ai), Num::Fl(b)) => complex_pair((ar, ai), (b, zero_like(b)), opts),
        (Num::Time(a), Num::Time(b)) => {
            let (na, nb) = (a == i64::MIN, b == i64::MIN);
            if na || nb {
                let both = na && nb;
                return Outcome::special(
                    both && opts.nan_equal,
                    if both {
                        MismatchKind::BothNan
                    } else {
                        MismatchKind::Nan
                    },
                );
            }
            Outcome {
                abs: Some(a.abs_diff(b) as f64),
                ..Outcome::exact(a == b)
            }
        }
        _ => Outcome::exact(false),
    }
}

/// `|a - b| / |b|`, infinite for `b == 0 != a`.
fn rel(abs: f64, b_abs: f64) -> f64 {
    if abs == 0.0 {
        0.0
    } else {
        abs / b_abs
    }
}

/// NumPy's `isclose` inequality for finite values, in the type NumPy promotes the pair to.
#[allow(clippy::cast_possible_truncation)]
fn within_tolerance(a: Fl, b: Fl, opts: &CompareOptions) -> bool {
    let wide = matches!(a, Fl::D(_))
        || matches!(b, Fl::D(_))
        || (matches!(a, Fl::H(_)) && matches!(b, Fl::H(_)));
    if wide {
        let (x, y) = (a.to_f64(), b.to_f64());
        x == y || (x - y).abs() <= opts.atol + opts.rtol * y.abs()
    } else {
        // f4 (or f2 with f4): NumPy computes in float32, with rtol and atol cast to float32.
        let (x, y) = (a.to_f64() as f32, b.to_f64() as f32);
        x == y || (x - y).abs() <= opts.atol as f32 + opts.rtol as f32 * y.abs()
    }
}

/// ULP distance of two finite floats, counted in the narrower of their formats.
fn ulp_distance(a: Fl, b: Fl) -> u64 {
    let rank = a.rank().min(b.rank());
    let ord = |(bits, sign): (u64, u64)| -> i128 {
        let mag = i128::from(bits & !sign);
        if bits & sign != 0 {
            mag.saturating_neg()
        } else {
            mag
        }
    };
    let d = ord(a.bits_at(rank)).abs_diff(ord(b.bits_at(rank)));
    u64::try_from(d).unwrap_or(u64::MAX)
}

/// Two floats of any widths (the rules of the module docs).
fn float_pair(a: Fl, b: Fl, opts: &CompareOptions) -> Outcome {
    let (x, y) = (a.to_f64(), b.to_f64());
    if x.is_nan() || y.is_nan() {
        let both = x.is_nan() && y.is_nan();
        return Outcome::special(
            both && opts.nan_equal,
            if both {
                MismatchKind::BothNan
            } else {
                MismatchKind::Nan
            },
        );
    }
    if x.is_infinite() || y.is_infinite() {
        return Outcome::special(x == y, MismatchKind::Infinity);
    }
    let abs = (x - y).abs();
    let ulps = ulp_distance(a, b);
    let measured = |ok: bool, kind: MismatchKind| Outcome {
        ok,
        kind,
        abs: Some(abs),
        rel: Some(rel(abs, y.abs())),
        ulps: Some(ulps),
    };
    if opts.signed_zero && x == 0.0 && y == 0.0 && x.is_sign_negative() != y.is_sign_negative() {
        return measured(false, MismatchKind::SignedZero);
    }
    let ok = within_tolerance(a, b, opts) || opts.ulps.is_some_and(|n| ulps <= n);
    measured(ok, MismatchKind::Value)
}

/// An integer against a float: exact when the float is integral and equal; otherwise the
/// tolerance test on the exactly formed difference (rounded once). No ULP test.
fn int_float(i: i128, f: Fl, int_is_b: bool, opts: &CompareOptions) -> Outcome {
    let v = f.to_f64();
    if v.is_nan() {
        return Outcome::special(false, MismatchKind::Nan);
    }
    if v.is_infinite() {
        return Outcome::special(false, MismatchKind::Infinity);
    }
    let t = v.trunc();
    let frac = v - t; // exact
                      // |t| < 2^127 converts exactly; beyond that no i128 is equal and f64 arithmetic is exact enough.
    let diff = if t.abs() < 1.7e38 {
        let ti = t as i128;
        let whole = i.abs_diff(ti) as f64;
        let whole = if i >= ti { whole } else { -whole };
        whole - frac
    } else {
        i as f64 - v
    };
    let abs = diff.abs();
    let b_abs = if int_is_b {
        i.unsigned_abs() as f64
    } else {
        v.abs()
    };
    let ok = abs == 0.0 || abs <= opts.atol + opts.rtol * b_abs;
    Outcome {
        ok,
        kind: MismatchKind::Value,
        abs: Some(abs),
        rel: Some(rel(abs, b_abs)),
        ulps: None,
    }
}

type Complex = (Fl, Fl);

fn complex_pair(a: Complex, b: Complex, opts: &CompareOptions) -> Outcome {
    let (xr, xi, yr, yi) = (a.0.to_f64(), a.1.to_f64(), b.0.to_f64(), b.1.to_f64());
    let b_abs = cabs_f64(yr, yi);
    if !opts.complex_modulus {
        let (re, im) = (float_pair(a.0, b.0, opts), float_pair(a.1, b.1, opts));
        let abs = re.abs.zip(im.abs).map(|(r, i)| cabs_f64(r, i));
        return Outcome {
            ok: re.ok && im.ok,
            kind: if re.ok { im.kind } else { re.kind },
            abs,
            rel: abs.map(|d| rel(d, b_abs)),
            ulps: re.ulps.zip(im.ulps).map(|(r, i)| r.max(i)),
        };
    }
    // NumPy's isclose on complex values.
    let (x_nan, y_nan) = (xr.is_nan() || xi.is_nan(), yr.is_nan() || yi.is_nan());
    if x_nan || y_nan {
        let both = x_nan && y_nan;
        return Outcome::special(
            both && opts.nan_equal,
            if both {
                MismatchKind::BothNan
            } else {
                MismatchKind::Nan
            },
        );
    }
    if [xr, xi, yr, yi].iter().any(|v| v.is_infinite()) {
        return Outcome::special(xr == yr && xi == yi, MismatchKind::Infinity);
    }
    let abs = cabs_f64(xr - yr, xi - yi);
    let re_ulps = ulp_distance(a.0, b.0);
    let im_ulps = ulp_distance(a.1, b.1);
    let ulps = re_ulps.max(im_ulps);
    let measured = |ok: bool, kind: MismatchKind| Outcome {
        ok,
        kind,
        abs: Some(abs),
        rel: Some(rel(abs, b_abs)),
        ulps: Some(ulps),
    };
    let zero_sign =
        |x: f64, y: f64| x == 0.0 && y == 0.0 && x.is_sign_negative() != y.is_sign_negative();
    if opts.signed_zero && (zero_sign(xr, yr) || zero_sign(xi, yi)) {
        return measured(false, MismatchKind::SignedZero);
    }
    let wide = [a.0, a.1, b.0, b.1].iter().any(|c| matches!(c, Fl::D(_)));
    #[allow(clippy::cast_possible_truncation)]
    let close = if xr == yr && xi == yi {
        true
    } else if wide {
        abs <= opts.atol + opts.rtol * b_abs
    } else {
        // c8: NumPy computes |x - y| and |y| in float32.
        let (xr, xi, yr, yi) = (xr as f32, xi as f32, yr as f32, yi as f32);
        cabs_f32(xr - yr, xi - yi) <= opts.atol as f32 + opts.rtol as f32 * cabs_f32(yr, yi)
    };
    measured(
        close || opts.ulps.is_some_and(|n| ulps <= n),
        MismatchKind::Value,
    )
}

macro_rules! numpy_cabs {
    ($name:ident, $t:ty) => {
        /// `|re + i im|` computed as NumPy's vectorized complex `absolute` does for arrays
        /// (`numpy/_core/src/umath/loops_unary_complex.dispatch.cpp`): `larger * sqrt(ratio * ratio + 1)`
        /// with `ratio = smaller / larger` and a fused multiply-add. It can differ from `hypot`
        /// in the last bit, and at a tolerance boundary that bit decides `isclose`.
        fn $name(re: $t, im: $t) -> $t {
            let (re, im) = (re.abs(), im.abs());
            let (larger, smaller) = if re >= im { (re, im) } else { (im, re) };
            if larger == 0.0 || larger.is_infinite() {
                return larger;
            }
            let ratio = smaller / larger;
            ratio.mul_add(ratio, 1.0).sqrt() * larger
        }
    };
}
numpy_cabs!(cabs_f64, f64);
numpy_cabs!(cabs_f32, f32);

// ------------------------------------------------------------------ rendering

fn shape_text(shape: &[usize]) -> String {
    crate::format::repr::py_shape(&shape.iter().map(|&d| d as u64).collect::<Vec<_>>())
}

fn index_text(index: &[usize]) -> String {
    let parts: Vec<String> = index.iter().map(usize::to_string).collect();
    format!("[{}]", parts.join(", "))
}

fn dtype_text(d: &Dtype) -> String {
    match d {
        Dtype::Record(_) => d.descr().to_string(),
        _ => d.typestr(),
    }
}

fn fl_text(f: Fl) -> String {
    match f {
        Fl::H(h) => crate::format::repr::py_f16(h),
        Fl::S(s) => crate::format::repr::py_f32(s),
        Fl::D(d) => crate::format::repr::py_float(d),
    }
}

fn num_text(n: Num, dtype: &Dtype) -> String {
    match n {
        Num::Int(i) if matches!(dtype, Dtype::Bool) => {
            (if i == 0 { "False" } else { "True" }).to_string()
        }
        Num::Int(i) => i.to_string(),
        Num::Fl(f) => fl_text(f),
        Num::Cx(re, im) => {
            let im = fl_text(im);
            let sep = if im.starts_with('-') { "" } else { "+" };
            format!("({}{sep}{im}j)", fl_text(re))
        }
        Num::Time(t) => {
            let unit = match dtype {
                Dtype::DateTime(u, _) | Dtype::TimeDelta(u, _) => u.to_string(),
                _ => String::new(),
            };
            if t == i64::MIN {
                "NaT".to_string()
            } else {
                format!("{t}{unit}")
            }
        }
    }
}

fn bytes_text(b: Option<&[u8]>) -> String {
    let text: String = b
        .unwrap_or_default()
        .iter()
        .map(|&c| char::from(c))
        .collect();
    format!("b{}", crate::format::repr::py_str(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    // Exhaustive safe arithmetic (65 536 values): minutes under Miri, which has no unsafe
    // code to check here; the ordinary test run covers it.
    #[cfg_attr(miri, ignore)]
    fn f16_rounding_round_trips_every_value() {
        for bits in 0..=u16::MAX {
            let v = f16_bits_to_f64(bits);
            if v.is_nan() {
                assert!(f16_bits_to_f64(crate::format::f16::f64_to_f16_bits(v)).is_nan());
                continue;
            }
            assert_eq!(
                crate::format::f16::f64_to_f16_bits(v),
                bits,
                "{bits:#06x} = {v}"
            );
        }
    }

    #[test]
    // Exhaustive safe arithmetic (65 536 values): minutes under Miri, which has no unsafe
    // code to check here; the ordinary test run covers it.
    #[cfg_attr(miri, ignore)]
    fn f16_rounding_matches_half() {
        // Midpoints (ties to even) and a deterministic spread of values.
        let mut vals = Vec::new();
        for bits in 0..0x7c00u16 {
            let lo = f16_bits_to_f64(bits);
            let hi = f16_bits_to_f64(bits + 1);
            vals.extend([
                (lo + hi) / 2.0,
                lo + (hi - lo) * 0.49,
                lo + (hi - lo) * 0.51,
            ]);
        }
        vals.extend([
            65504.0,
            65519.99,
            65520.0,
            1e-10,
            2.9802322387695312e-8, // 2^-25: halfway to the smallest subnormal
            2.9802322387695312e-8 * 1.0001,
            1e300,
        ]);
        for v in vals {
            for s in [v, -v] {
                assert_eq!(
                    crate::format::f16::f64_to_f16_bits(s),
                    half::f16::from_f64(s).to_bits(),
                    "{s:e}"
                );
            }
        }
    }

    #[test]
    fn ulp_distance_basics() {
        assert_eq!(ulp_distance(Fl::D(0.0), Fl::D(-0.0)), 0);
        assert_eq!(
            ulp_distance(Fl::D(f64::from_bits(1)), Fl::D(-f64::from_bits(1))),
            2
        );
        assert_eq!(ulp_distance(Fl::D(1.0), Fl::D(1.0 + f64::EPSILON)), 1);
        assert_eq!(ulp_distance(Fl::S(0.1), Fl::D(0.1)), 0);
        assert_eq!(
            ulp_distance(Fl::S(1.0), Fl::D(1.0 + 2.0 * f64::from(f32::EPSILON))),
            2
        );
        assert_eq!(ulp_distance(Fl::H(0x3c00), Fl::H(0x3c01)), 1);
        assert_eq!(
            ulp_distance(Fl::D(f64::MAX), Fl::D(-f64::MAX)),
            (0x7fef_ffff_ffff_ffffu64) * 2
        );
    }

    #[test]
    fn unravel_row_major() {
        assert_eq!(unravel(5, &[2, 3]), [1, 2]);
        assert_eq!(unravel(0, &[]), Vec::<usize>::new());
        assert_eq!(unravel(7, &[2, 2, 2]), [1, 1, 1]);
    }

    #[test]
    fn float_text_like_python() {
        assert_eq!(fl_text(Fl::D(1.0)), "1.0");
        assert_eq!(fl_text(Fl::D(-0.0)), "-0.0");
        assert_eq!(fl_text(Fl::D(1e-7)), "1e-07");
        assert_eq!(fl_text(Fl::S(0.1)), "0.1");
        assert_eq!(fl_text(Fl::H(0x2e66)), "0.1");
        assert_eq!(fl_text(Fl::D(f64::NEG_INFINITY)), "-inf");
    }
}
