//! Scalar rules: how two numbers compare (exact, `isclose`, ULPs; NaN, signed zero,
//! integer vs float, complex), and their text in a report.

use crate::compare::options::CompareOptions;
use crate::compare::report::MismatchKind;
use crate::data::scalar::{Float as Fl, Scalar};
use crate::data::storage::ArrayData;
use crate::format::dtype::Dtype;

/// The result of comparing one pair of values.
#[derive(Debug, Clone, Copy)]
pub(super) struct Outcome {
    pub(super) ok: bool,
    pub(super) kind: MismatchKind,
    pub(super) abs: Option<f64>,
    pub(super) rel: Option<f64>,
    pub(super) ulps: Option<u64>,
}

impl Outcome {
    pub(super) fn exact(ok: bool) -> Outcome {
        Outcome {
            ok,
            kind: MismatchKind::Value,
            abs: None,
            rel: None,
            ulps: None,
        }
    }

    pub(super) fn special(ok: bool, kind: MismatchKind) -> Outcome {
        Outcome {
            ok,
            kind,
            abs: None,
            rel: None,
            ulps: None,
        }
    }
}

/// The compare-side rules of a float's precision.
impl Fl {
    pub(super) fn rank(self) -> u8 {
        match self {
            Fl::Half(_) => 0,
            Fl::Single(_) => 1,
            Fl::Double(_) => 2,
        }
    }

    /// `(bits, sign mask)` of the value rounded to the format of rank `rank`.
    #[allow(clippy::cast_possible_truncation)]
    pub(super) fn bits_at(self, rank: u8) -> (u64, u64) {
        match rank {
            0 => {
                let h = match self {
                    Fl::Half(h) => h,
                    other => crate::format::f16::f64_to_f16_bits(other.to_f64()),
                };
                (u64::from(h), 0x8000)
            }
            1 => {
                let s = match self {
                    Fl::Single(s) => s,
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
pub(super) enum Num {
    Int(i128),
    Fl(Fl),
    Cx(Fl, Fl),
    Time(i64),
}

/// Element `i` of a numeric, bool or datetime array as a [`Num`] (`None` for the rest).
pub(super) fn num_at(d: &ArrayData, i: usize) -> Option<Num> {
    Some(match d.scalar(i, 1)? {
        Scalar::Bool(b) => Num::Int(i128::from(u8::from(b))),
        Scalar::Int(x) => Num::Int(x),
        Scalar::Float(f) => Num::Fl(f),
        Scalar::Complex(re, im) => Num::Cx(re, im),
        Scalar::Time(t) => Num::Time(t),
        Scalar::Bytes(_)
        | Scalar::Str(_)
        | Scalar::Void(_)
        | Scalar::LongDouble(_)
        | Scalar::Record(_) => return None,
    })
}

pub(super) fn zero_like(f: Fl) -> Fl {
    match f {
        Fl::Half(_) => Fl::Half(0),
        Fl::Single(_) => Fl::Single(0.0),
        Fl::Double(_) => Fl::Double(0.0),
    }
}

pub(super) fn compare_num(x: Num, y: Num, opts: &CompareOptions) -> Outcome {
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
pub(super) fn rel(abs: f64, b_abs: f64) -> f64 {
    if abs == 0.0 {
        0.0
    } else {
        abs / b_abs
    }
}

/// NumPy's `isclose` inequality for finite values, in the type NumPy promotes the pair to.
#[allow(clippy::cast_possible_truncation)]
pub(super) fn within_tolerance(a: Fl, b: Fl, opts: &CompareOptions) -> bool {
    let wide = matches!(a, Fl::Double(_))
        || matches!(b, Fl::Double(_))
        || (matches!(a, Fl::Half(_)) && matches!(b, Fl::Half(_)));
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
pub(super) fn ulp_distance(a: Fl, b: Fl) -> u64 {
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
pub(super) fn float_pair(a: Fl, b: Fl, opts: &CompareOptions) -> Outcome {
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
pub(super) fn int_float(i: i128, f: Fl, int_is_b: bool, opts: &CompareOptions) -> Outcome {
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

pub(super) type Complex = (Fl, Fl);

pub(super) fn complex_pair(a: Complex, b: Complex, opts: &CompareOptions) -> Outcome {
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
    let wide = [a.0, a.1, b.0, b.1]
        .iter()
        .any(|c| matches!(c, Fl::Double(_)));
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

pub(super) fn fl_text(f: Fl) -> String {
    match f {
        Fl::Half(h) => crate::format::repr::py_f16(h),
        Fl::Single(s) => crate::format::repr::py_f32(s),
        Fl::Double(d) => crate::format::repr::py_float(d),
    }
}

pub(super) fn num_text(n: Num, dtype: &Dtype) -> String {
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
