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

mod engine;
mod options;
mod report;
mod scalar;

pub use engine::{compare, compare_file, compare_files};
pub use options::CompareOptions;
pub use report::{Incompatibility, Mismatch, MismatchKind, Report};

#[cfg(test)]
mod tests {
    use super::engine::*;
    use super::scalar::*;
    use crate::data::scalar::Float as Fl;
    use crate::format::f16::f16_bits_to_f64;

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
        assert_eq!(ulp_distance(Fl::Double(0.0), Fl::Double(-0.0)), 0);
        assert_eq!(
            ulp_distance(
                Fl::Double(f64::from_bits(1)),
                Fl::Double(-f64::from_bits(1))
            ),
            2
        );
        assert_eq!(
            ulp_distance(Fl::Double(1.0), Fl::Double(1.0 + f64::EPSILON)),
            1
        );
        assert_eq!(ulp_distance(Fl::Single(0.1), Fl::Double(0.1)), 0);
        assert_eq!(
            ulp_distance(
                Fl::Single(1.0),
                Fl::Double(1.0 + 2.0 * f64::from(f32::EPSILON))
            ),
            2
        );
        assert_eq!(ulp_distance(Fl::Half(0x3c00), Fl::Half(0x3c01)), 1);
        assert_eq!(
            ulp_distance(Fl::Double(f64::MAX), Fl::Double(-f64::MAX)),
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
        assert_eq!(fl_text(Fl::Double(1.0)), "1.0");
        assert_eq!(fl_text(Fl::Double(-0.0)), "-0.0");
        assert_eq!(fl_text(Fl::Double(1e-7)), "1e-07");
        assert_eq!(fl_text(Fl::Single(0.1)), "0.1");
        assert_eq!(fl_text(Fl::Half(0x2e66)), "0.1");
        assert_eq!(fl_text(Fl::Double(f64::NEG_INFINITY)), "-inf");
    }
}
