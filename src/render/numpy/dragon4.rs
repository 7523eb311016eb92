//! Dragon4's digits in "unique" mode, from Rust's formatting: [`Digits`] (the decimal digits
//! of a magnitude and their operations: cut, cut and increased, rounded, written
//! positionally), the tie Rust breaks upwards and Dragon4 to the even digit
//! ([`ties_to_even`]), and the shortest digits of an `f2` value ([`half_shortest`]), which
//! Rust does not format.

use crate::format::f16::{f16_bits_to_f64, f64_to_f16_bits};

/// Rust's shortest digits `s` of the magnitude `x` with a tie broken as Dragon4 breaks it.
/// When `x` lies exactly halfway between two candidates of that length that both read back
/// to it (`reads_back`), Rust takes the upper one, Dragon4 the one whose last digit is even.
pub(super) fn ties_to_even(s: Digits, x: f64, reads_back: impl Fn(&Digits) -> bool) -> Digits {
    let n = s.digits.len();
    // The value to one more digit: a tie is an exact expansion of n + 1 digits ending in 5.
    let t = Digits::parse_sci(&format!("{x:.n$e}"));
    if t.digits.len() != n.saturating_add(1) || t.digits.last() != Some(&b'5') || !t.equals(x) {
        return s;
    }
    let down = t.truncated(n);
    let even = down.digits.last().is_some_and(|&d| d & 1 == 0);
    if even && t.truncated_up(n) == s && reads_back(&down) {
        down
    } else {
        s
    }
}

/// Dragon4's unique digits of the positive `f2` value `bits`: at the first length where the
/// value's exact digits cut there (`down`) or cut and increased (`up`) read back to it, the
/// one that does, or the nearer when both do (ties to the even digit).
pub(super) fn half_shortest(bits: u16) -> Digits {
    let x = f16_bits_to_f64(bits);
    // Every f2 value has fewer than 40 significant digits: this is its exact expansion.
    let exact = Digits::parse_sci(&format!("{x:.40e}"));
    let reads_back = |d: &Digits| d.to_f64().is_some_and(|v| f64_to_f16_bits(v) == bits);
    for n in 1..exact.digits.len() {
        let down = exact.truncated(n);
        let up = exact.truncated_up(n);
        match (reads_back(&down), reads_back(&up)) {
            (true, false) => return down,
            (false, true) => return up,
            (true, true) => return exact.rounded(n),
            (false, false) => {}
        }
    }
    exact
}

/// Decimal digits of a magnitude: `d1.d2d3… × 10^exp`, without trailing zeros (`0` for zero).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Digits {
    /// The digits, as ASCII.
    pub(super) digits: Vec<u8>,
    /// The weight of the first digit: `10^exp`.
    pub(super) exp: i32,
}

impl Digits {
    fn zero() -> Digits {
        Digits {
            digits: vec![b'0'],
            exp: 0,
        }
    }

    /// Digits of `digits` (leading zeros allowed) whose first digit has weight `10^exp`.
    fn new(digits: &[u8], exp: i32) -> Digits {
        let lead = digits.iter().take_while(|&&b| b == b'0').count();
        let Some(rest) = digits.get(lead..).filter(|r| !r.is_empty()) else {
            return Digits::zero();
        };
        let len = rest
            .iter()
            .rposition(|&b| b != b'0')
            .map_or(1, |p| p.saturating_add(1));
        Digits {
            digits: rest.get(..len).unwrap_or(rest).to_vec(),
            exp: exp.saturating_sub(i32::try_from(lead).unwrap_or(i32::MAX)),
        }
    }

    /// Rust's `{:e}` / `{:.N$e}` text of a magnitude (`1.25e-7`, `0e0`).
    pub(super) fn parse_sci(s: &str) -> Digits {
        let (mantissa, exp) = s.split_once('e').unwrap_or((s, "0"));
        let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
        Digits::new(&digits, exp.parse().unwrap_or(0))
    }

    /// Rust's `{:.N$}` text of a magnitude (`12.34500000`).
    pub(super) fn parse_pos(s: &str) -> Digits {
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        let digits: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
        let exp = i32::try_from(int.len())
            .unwrap_or(i32::MAX)
            .saturating_sub(1);
        Digits::new(&digits, exp)
    }

    /// The decimal exponent of the last digit.
    fn scale(&self) -> i32 {
        let len = i32::try_from(self.digits.len()).unwrap_or(i32::MAX);
        self.exp.saturating_sub(len).saturating_add(1)
    }

    /// The value as text Rust's float parsing reads (`1699e1`).
    pub(super) fn text(&self) -> String {
        format!("{}e{}", String::from_utf8_lossy(&self.digits), self.scale())
    }

    /// The value, as `f64` parsing reads it.
    fn to_f64(&self) -> Option<f64> {
        self.text().parse().ok()
    }

    /// Whether the decimal is exactly the finite, non-zero `x`: it reads back to `x` and is a
    /// binary number of at most 53 significant bits (its odd part, after the powers of 5 of
    /// its scale, fits), so reading it rounded nothing.
    fn equals(&self, x: f64) -> bool {
        let Ok(m) = String::from_utf8_lossy(&self.digits).parse::<u128>() else {
            return false;
        };
        let scale = self.scale();
        let Some(pow5) = 5u128.checked_pow(scale.unsigned_abs()) else {
            return false;
        };
        let odd = if scale >= 0 {
            m.checked_mul(pow5)
        } else {
            m.checked_rem(pow5)
                .filter(|&r| r == 0)
                .and_then(|_| m.checked_div(pow5))
        };
        let fits = odd.is_some_and(|q| q.checked_shr(q.trailing_zeros()).unwrap_or(q) < 1 << 53);
        fits && self.to_f64() == Some(x)
    }

    /// The first `n` digits.
    fn truncated(&self, n: usize) -> Digits {
        Digits::new(self.digits.get(..n).unwrap_or(&self.digits), self.exp)
    }

    /// The first `n` digits plus one unit in the last of them.
    fn truncated_up(&self, n: usize) -> Digits {
        let mut digits = self.digits.get(..n).unwrap_or(&self.digits).to_vec();
        for d in digits.iter_mut().rev() {
            if *d == b'9' {
                *d = b'0';
            } else {
                *d = d.saturating_add(1);
                return Digits::new(&digits, self.exp);
            }
        }
        Digits::new(b"1", self.exp.saturating_add(1))
    }

    /// The nearest of `n` digits, ties to the even digit.
    fn rounded(&self, n: usize) -> Digits {
        let down = self.truncated(n);
        let rest = self.digits.get(n..).unwrap_or_default();
        let up = match rest.first() {
            Some(&d) if d > b'5' => true,
            Some(&b'5') if rest.len() > 1 => true,
            Some(&b'5') => self
                .digits
                .get(n.saturating_sub(1))
                .is_some_and(|&d| d & 1 == 1),
            _ => false,
        };
        if up {
            self.truncated_up(n)
        } else {
            down
        }
    }

    /// The integer and fraction digits written positionally (`("12", "345")`, `("0", "0012")`).
    pub(super) fn positional_parts(&self) -> (String, String) {
        let text = |d: &[u8]| String::from_utf8_lossy(d).into_owned();
        match usize::try_from(self.exp) {
            Ok(e) => {
                let whole = e.saturating_add(1);
                let mut int = text(self.digits.get(..whole).unwrap_or(&self.digits));
                int.push_str(&"0".repeat(whole.saturating_sub(self.digits.len())));
                (int, text(self.digits.get(whole..).unwrap_or_default()))
            }
            Err(_) => {
                let zeros = usize::try_from(self.exp.unsigned_abs()).unwrap_or(0);
                let frac = format!(
                    "{}{}",
                    "0".repeat(zeros.saturating_sub(1)),
                    text(&self.digits)
                );
                ("0".to_string(), frac)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_equal_only_the_values_they_are_exactly() {
        assert!(Digits::parse_sci("2.5e-1").equals(0.25));
        assert!(!Digits::parse_sci("1e-1").equals(0.1));
    }
}
