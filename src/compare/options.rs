//! [`CompareOptions`]: tolerances, NaN and zero rules, dtype policy, report size.

use crate::error::{Error, ErrorKind, Result};

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
    pub(super) rtol: f64,
    pub(super) atol: f64,
    pub(super) ulps: Option<u64>,
    pub(super) nan_equal: bool,
    pub(super) signed_zero: bool,
    pub(super) cross_dtype: bool,
    pub(super) complex_modulus: bool,
    pub(super) max_report: usize,
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
    /// Must be finite and not negative ([`compare`](crate::compare::compare) reports [`ErrorKind::InvalidInput`]).
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
    ///     Array::new(Header::new(Dtype::C128(Endian::Little), vec![v.len()], false).unwrap(), ArrayData::C128(v.into())).unwrap()
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

    pub(super) fn validate(&self) -> Result<()> {
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
    pub(super) fn describe(&self) -> String {
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
