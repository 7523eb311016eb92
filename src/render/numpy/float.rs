//! `FloatingFormat` under NumPy's default options: the formatter of `f2`, `f4` and `f8` values
//! ([`FloatFormat`]), which chooses positional or scientific notation and the paddings from
//! the values shown, on Dragon4's digits ([`positional_digits`], [`scientific_digits`]).

use crate::format::f16::{f16_bits_to_f64, f64_to_f16_bits};
use crate::render::numpy::dragon4::{half_shortest, ties_to_even, Digits};

/// `precision`: at most this many fraction digits (positional) or mantissa digits after the
/// point (scientific).
const PRECISION: usize = 8;

/// An `f2` value by its bits.
#[derive(Debug, Clone, Copy)]
pub(super) struct Half(pub(super) u16);

/// What [`FloatFormat`] needs of `f2`, `f4` and `f8`.
pub(super) trait Float: Copy {
    /// The value, exactly.
    fn wide(self) -> f64;
    /// The magnitude.
    fn abs(self) -> Self;
    /// Dragon4's unique digits of the magnitude: the shortest that read back to the value.
    fn shortest(self) -> Digits;
    /// `fillFormat`'s choice of scientific notation from the largest and smallest non-zero
    /// magnitudes, compared and divided in the type's own precision (NumPy casts the Python
    /// constants to the array's type).
    fn needs_exp(max: Self, min: Self) -> bool;
}

impl Float for f64 {
    fn wide(self) -> f64 {
        self
    }
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    fn shortest(self) -> Digits {
        let x = f64::abs(self);
        let s = Digits::parse_sci(&format!("{x:e}"));
        ties_to_even(s, x, |d| d.text().parse::<f64>().ok() == Some(x))
    }
    fn needs_exp(max: f64, min: f64) -> bool {
        max >= 1e8 || min < 1e-4 || max / min > 1000.0
    }
}

impl Float for f32 {
    fn wide(self) -> f64 {
        f64::from(self)
    }
    fn abs(self) -> f32 {
        f32::abs(self)
    }
    fn shortest(self) -> Digits {
        let x = f32::abs(self);
        let s = Digits::parse_sci(&format!("{x:e}"));
        ties_to_even(s, f64::from(x), |d| d.text().parse::<f32>().ok() == Some(x))
    }
    fn needs_exp(max: f32, min: f32) -> bool {
        // 10.**min(8, finfo(float32).precision) = 1e6.
        max >= 1e6 || min < 1e-4 || max / min > 1000.0
    }
}

impl Float for Half {
    fn wide(self) -> f64 {
        f16_bits_to_f64(self.0)
    }
    fn abs(self) -> Half {
        Half(self.0 & 0x7fff)
    }
    fn shortest(self) -> Digits {
        half_shortest(self.0 & 0x7fff)
    }
    fn needs_exp(max: Half, min: Half) -> bool {
        let (max, min) = (max.wide(), min.wide());
        let tiny = f16_bits_to_f64(f64_to_f16_bits(1e-4));
        // float16 division is float32 division rounded to float16.
        let ratio = f16_bits_to_f64(f64_to_f16_bits(f64::from(max as f32 / min as f32)));
        // 10.**min(8, finfo(float16).precision) = 1000.
        max >= 1000.0 || min < tiny || ratio > 1000.0
    }
}

/// `dragon4_positional(x, precision=max_frac, unique=True, fractional=True)` digits: the
/// unique digits, or the exact value rounded to `max_frac` fraction digits when they are more.
pub(super) fn positional_digits<T: Float>(x: T, max_frac: usize) -> Digits {
    let s = x.shortest();
    if s.positional_parts().1.len() <= max_frac {
        s
    } else {
        Digits::parse_pos(&format!("{:.max_frac$}", x.wide().abs()))
    }
}

/// `dragon4_scientific(x, precision=max_frac, min_digits=min_frac, unique=True)` digits: the
/// unique digits, cut at `max_frac` digits after the point or continued to `min_frac` with the
/// exact value's digits (both rounded to nearest, ties to even).
pub(super) fn scientific_digits<T: Float>(x: T, max_frac: usize, min_frac: usize) -> Digits {
    let s = x.shortest();
    let frac = s.digits.len().saturating_sub(1);
    if frac > max_frac {
        Digits::parse_sci(&format!("{:.max_frac$e}", x.wide().abs()))
    } else if frac < min_frac {
        Digits::parse_sci(&format!("{:.min_frac$e}", x.wide().abs()))
    } else {
        s
    }
}

/// The exponent as Dragon4 writes it: sign and at least `min_digits` (and 2) digits.
fn exp_text(exp: i32, min_digits: usize) -> String {
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{sign}{:0>w$}", exp.unsigned_abs(), w = min_digits.max(2))
}

/// `FloatingFormat` under the default options (`floatmode='maxprec'`, precision 8).
#[derive(Debug, Clone)]
pub(super) struct FloatFormat {
    sign_plus: bool,
    exp: bool,
    precision: usize,
    pad_left: usize,
    pad_right: usize,
    exp_size: usize,
}

impl FloatFormat {
    /// `FloatingFormat.__init__` / `fillFormat(data)`; `sign_plus` is `sign='+'`.
    pub(super) fn new<T: Float>(data: &[T], sign_plus: bool) -> FloatFormat {
        let finite: Vec<T> = data
            .iter()
            .copied()
            .filter(|x| x.wide().is_finite())
            .collect();
        let range = finite
            .iter()
            .map(|x| x.abs())
            .filter(|x| x.wide() != 0.0)
            .fold(None, |acc: Option<(T, T)>, x| {
                Some(acc.map_or((x, x), |(lo, hi)| {
                    let lo = if x.wide() < lo.wide() { x } else { lo };
                    let hi = if x.wide() > hi.wide() { x } else { hi };
                    (lo, hi)
                }))
            });
        let mut f = FloatFormat {
            sign_plus,
            exp: range.is_some_and(|(min, max)| T::needs_exp(max, min)),
            precision: PRECISION,
            pad_left: 0,
            pad_right: 0,
            exp_size: 0,
        };
        if f.exp {
            f.fill_scientific(&finite);
        } else {
            f.fill_positional(&finite);
        }
        if finite.len() < data.len() {
            // Room for nan and inf (and -inf, or +nan/+inf with sign '+').
            let neginf = sign_plus || data.iter().any(|x| x.wide() == f64::NEG_INFINITY);
            let inf_len = 3usize.saturating_add(usize::from(neginf));
            let offset = f.pad_right.saturating_add(1);
            f.pad_left = f.pad_left.max(inf_len.saturating_sub(offset));
        }
        f
    }

    fn fill_scientific<T: Float>(&mut self, finite: &[T]) {
        let (mut pad_left, mut precision, mut exp_size) = (0, 0, 0);
        for &x in finite {
            let d = scientific_digits(x, PRECISION, 0);
            pad_left = pad_left.max(self.sign(x.wide()).len().saturating_add(1));
            precision = precision.max(d.digits.len().saturating_sub(1));
            exp_size = exp_size.max(exp_text(d.exp, 0).len().saturating_sub(1));
        }
        self.pad_left = pad_left;
        self.precision = precision;
        self.exp_size = exp_size;
        self.pad_right = exp_size.saturating_add(2).saturating_add(precision);
    }

    fn fill_positional<T: Float>(&mut self, finite: &[T]) {
        for &x in finite {
            let (int, frac) = positional_digits(x, PRECISION).positional_parts();
            let int_len = self.sign(x.wide()).len().saturating_add(int.len());
            self.pad_left = self.pad_left.max(int_len);
            self.pad_right = self.pad_right.max(frac.len());
        }
    }

    fn sign(&self, x: f64) -> &'static str {
        if x.is_sign_negative() {
            "-"
        } else if self.sign_plus {
            "+"
        } else {
            ""
        }
    }

    /// `FloatingFormat.__call__(x)`.
    pub(super) fn call<T: Float>(&self, x: T) -> String {
        let w = x.wide();
        let sign = self.sign(w);
        if !w.is_finite() {
            let ret = if w.is_nan() {
                format!("{}nan", if self.sign_plus { "+" } else { "" })
            } else {
                format!("{sign}inf")
            };
            let width = self
                .pad_left
                .saturating_add(self.pad_right)
                .saturating_add(1);
            return format!("{ret:>width$}");
        }
        if self.exp {
            let d = scientific_digits(x, self.precision, self.precision);
            let first = String::from_utf8_lossy(d.digits.get(..1).unwrap_or(b"0".as_slice()));
            let frac = String::from_utf8_lossy(d.digits.get(1..).unwrap_or_default());
            let int = format!("{sign}{first}");
            format!(
                "{int:>l$}.{frac:0<p$}e{}",
                exp_text(d.exp, self.exp_size),
                l = self.pad_left,
                p = self.precision
            )
        } else {
            let (int, frac) = positional_digits(x, PRECISION).positional_parts();
            let int = format!("{sign}{int}");
            format!(
                "{int:>l$}.{frac:<r$}",
                l = self.pad_left,
                r = self.pad_right
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn half(x: f64) -> Half {
        Half(f64_to_f16_bits(x))
    }

    fn digits_text(d: &Digits) -> String {
        format!("{}e{}", String::from_utf8_lossy(&d.digits), d.exp)
    }

    #[test]
    fn half_shortest_follows_dragon4() {
        // 16992 has an even mantissa: 17000, on its upper boundary, reads back to it.
        assert_eq!(digits_text(&half(16992.0).shortest()), "17e4");
        assert_eq!(digits_text(&half(17008.0).shortest()), "1701e4");
        assert_eq!(digits_text(&half(0.1).shortest()), "1e-1");
        assert_eq!(digits_text(&half(65504.0).shortest()), "655e4");
        assert_eq!(digits_text(&Half(1).shortest()), "6e-8");
        assert_eq!(digits_text(&half(0.0).shortest()), "0e0");
    }

    #[test]
    fn ties_go_to_the_even_digit() {
        // 3566238.25 is halfway between 3566238.2 and 3566238.3: Dragon4 takes the even one.
        assert_eq!(digits_text(&3_566_238.2_f32.shortest()), "35662382e6");
        assert_eq!(digits_text(&9.5f64.shortest()), "95e0");
        assert_eq!(digits_text(&0.3f64.shortest()), "3e-1");
    }

    #[test]
    fn min_digits_continue_with_exact_digits() {
        // NumPy prints float16(16992) as 1.699e+04 when three digits are asked for.
        assert_eq!(
            digits_text(&scientific_digits(half(16992.0), 8, 3)),
            "1699e4"
        );
        assert_eq!(
            digits_text(&scientific_digits(1.0f64 / 3.0, 8, 0)),
            "333333333e-1"
        );
        assert_eq!(
            digits_text(&positional_digits(0.001953125f64, 8)),
            "195312e-3"
        );
        assert_eq!(digits_text(&positional_digits(0.999999999f64, 8)), "1e0");
    }

    #[test]
    fn float_format_pads_and_aligns() {
        let f = FloatFormat::new(&[1.5f64, f64::NAN, -3.0, 1e-3], false);
        let out: Vec<String> = [1.5, f64::NAN, -3.0, 1e-3]
            .iter()
            .map(|&x| f.call(x))
            .collect();
        assert_eq!(out, [" 1.5e+00", "     nan", "-3.0e+00", " 1.0e-03"]);
        let f = FloatFormat::new(&[0.0f64, 0.25, -1.0], false);
        assert_eq!(f.call(0.25), " 0.25");
        assert_eq!(f.call(-1.0), "-1.  ");
        let f = FloatFormat::new(&[f64::INFINITY, f64::NAN], false);
        assert_eq!(f.call(f64::INFINITY), "inf");
        let f = FloatFormat::new(&[0.0f64, 1e300], false);
        assert_eq!(f.call(1e300), "1.e+300");
        assert_eq!(f.call(0.0), "0.e+000");
    }

    #[test]
    fn native_precision_decides_the_notation() {
        // float32(0.0001) is not below float32(0.0001): positional, where float64 would not be.
        let f = FloatFormat::new(&[1e-4f32, 2e-4], false);
        assert!(!f.exp);
        assert!(FloatFormat::new(&[f64::from(1e-4f32), 2e-4], false).exp);
        assert!(FloatFormat::new(&[half(1.0), half(1000.0)], false).exp);
        assert!(!FloatFormat::new(&[half(1.0), half(999.0)], false).exp);
    }
}
