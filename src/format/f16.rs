//! IEEE binary16, the encoding of the dtype `f2`: exact conversions between its bits and `f64`.
//! Crate-private; [`py_f16`](crate::repr::py_f16) is its public face.

/// Converts IEEE binary16 bits to `f64` exactly (every f16 is representable in f64).
pub(crate) fn f16_bits_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let frac = f64::from(bits & 0x3ff);
    match exp {
        0 => sign * frac * pow2(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        e => sign * (1.0 + frac / 1024.0) * pow2(e.saturating_sub(15)),
    }
}

/// Rounds `x` to the nearest IEEE binary16 value (ties to even) and returns its bits.
/// `x` rounded to the nearest integer, ties to even, for `0 <= x < 2^52` (IEEE addition
/// rounds so: past 2^52 a double has no fraction bits). Without std, as std's
/// `round_ties_even` is not in `core`.
fn round_ties_even(x: f64) -> f64 {
    const TWO_52: f64 = 4_503_599_627_370_496.0;
    (x + TWO_52) - TWO_52
}

#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
pub(crate) fn f64_to_f16_bits(x: f64) -> u16 {
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return sign | 0x7e00;
    }
    let a = x.abs();
    // 65520 is halfway between 65504 (the largest f16) and 2^16: it rounds to even, i.e. to infinity.
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < pow2(-14) {
        // Subnormal (or the smallest normal after rounding up: 1024 is its encoding too).
        let m = round_ties_even(a * pow2(24)) as u16;
        return sign | m;
    }
    let exp_field = u32::try_from(a.to_bits() >> 52).unwrap_or(0);
    let e = i32::try_from(exp_field).unwrap_or(0).saturating_sub(1023); // -14..=15
    let m = round_ties_even(a * pow2(10i32.saturating_sub(e))) as u32; // 1024..=2048
    let biased = u32::try_from(e.saturating_add(15)).unwrap_or(0);
    let bits = biased
        .saturating_mul(1024)
        .saturating_add(m.saturating_sub(1024));
    sign | u16::try_from(bits).unwrap_or(0x7c00)
}

/// `2^n` exactly, built from its bits, for the normal exponents `-1022..=1023`
/// (0 below, infinity above). `f64::powi` is not guaranteed to be exact: its
/// precision is platform-dependent, and Miri perturbs it.
pub(crate) fn pow2(n: i32) -> f64 {
    match u64::try_from(n.saturating_add(1023)) {
        Ok(biased @ 1..=2046) => f64::from_bits(biased << 52),
        Ok(0) | Err(_) => 0.0,
        Ok(_) => f64::INFINITY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pow2_is_exact_over_the_normal_range() {
        assert_eq!(pow2(0), 1.0);
        assert_eq!(pow2(-24), 1.0 / 16_777_216.0);
        assert_eq!(pow2(24), 16_777_216.0);
        assert_eq!(pow2(-1022), f64::MIN_POSITIVE);
        assert_eq!(pow2(1023), f64::MAX / (2.0 - f64::EPSILON));
        assert_eq!(pow2(-1023), 0.0);
        assert_eq!(pow2(1024), f64::INFINITY);
        assert_eq!(pow2(i32::MIN), 0.0);
        assert_eq!(pow2(i32::MAX), f64::INFINITY);
    }

    #[test]
    fn f16_conversion() {
        assert_eq!(f16_bits_to_f64(0x3c00), 1.0);
        assert_eq!(f16_bits_to_f64(0xc000), -2.0);
        assert_eq!(f16_bits_to_f64(0x0001), 5.960464477539063e-8); // 2^-24
        assert_eq!(f16_bits_to_f64(0x7c00), f64::INFINITY);
        assert!(f16_bits_to_f64(0x7e01).is_nan());
        assert_eq!(f16_bits_to_f64(0x8000).to_bits(), (-0.0f64).to_bits());
    }
}
