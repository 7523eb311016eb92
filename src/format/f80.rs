//! The x87 80-bit extended format, NumPy's `np.longdouble` (`f16`) on x86-64 Linux: its
//! value as an `f64` (rounded), and an `f64` as its bytes (exact).
//!
//! np.save writes a long double as the 16 bytes it holds in memory: on x86-64 Linux the
//! little-endian x87 extended value in the first 10 bytes (a 64-bit significand whose top
//! bit is the explicit integer bit, a 15-bit exponent biased by 16383, the sign) and 6
//! padding bytes, which NumPy does not clear and which are ignored here; `'>f16'` is the
//! same 16 bytes reversed. npyguard assumes this layout for every `f16`: it is what NumPy
//! writes on the platforms where `'<f16'` files come from in practice (x86-64 Linux and
//! macOS on Intel); aarch64 Linux's `long double` is IEEE binary128 and would be
//! misread as x87 (npyguard keeps the bytes unchanged either way, so reading and writing
//! back never changes a file; only the `f64` value depends on the assumption).
//!
//! [`to_f64`] rounds to the nearest `f64`, ties to even, as the x87 `FST m64` instruction
//! (and NumPy's `astype(np.float64)` on x86-64) does: values beyond `f64`'s range become
//! ±infinity, values below its smallest subnormal ±0 or the nearest subnormal, `-0` stays
//! `-0`. Infinities stay infinities; a NaN stays a NaN of the same sign, its payload cut to
//! the top 51 bits and made quiet. Encodings the x87 refuses as operands (an "unnormal":
//! exponent non-zero, integer bit clear; "pseudo-infinity" and "pseudo-NaN": exponent all
//! ones, integer bit clear) are NaN, as the FPU's invalid-operand result is. A
//! "pseudo-denormal" (exponent zero, integer bit set) has the value the FPU gives it, as if
//! its exponent were 1.
//!
//! ```
//! use npyguard::{f80, Endian};
//! // 1/3 as np.longdouble(1) / 3 writes it on x86-64 Linux, then 6 bytes of padding.
//! let third = [0xab, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xfd, 0x3f, 0, 0, 0, 0, 0, 0];
//! assert_eq!(f80::to_f64(&third, Endian::Little), 1.0 / 3.0);
//! assert_eq!(f80::from_f64(0.5, Endian::Little)[8..10], [0xfe, 0x3f]);
//! ```

use crate::format::dtype::Endian;

/// Bytes of one `f16` element (`np.longdouble` on x86-64: 10 bytes of value, 6 of padding).
pub const LONG_DOUBLE_BYTES: usize = 16;

/// The exponent bias of the x87 extended format.
const BIAS: i32 = 16383;

/// The value of one `f16` element (16 bytes in byte order `endian`) as the nearest `f64`
/// (ties to even).
///
/// Values beyond `f64`'s range become ±infinity, values below half its smallest
/// subnormal ±0, `-0` stays `-0`; infinities stay infinities; a NaN stays a NaN of the
/// same sign, its payload cut to the top 51 bits and made quiet. Encodings the x87 refuses
/// as operands (an "unnormal": exponent non-zero, integer bit clear; "pseudo-infinity" and
/// "pseudo-NaN": exponent all ones, integer bit clear) are NaN, as the FPU's
/// invalid-operand result is; a "pseudo-denormal" (exponent zero, integer bit set) has the
/// value the FPU gives it, as if its exponent were 1. The 6 padding bytes are ignored.
pub fn to_f64(element: &[u8; LONG_DOUBLE_BYTES], endian: Endian) -> f64 {
    let mut le = *element;
    if endian == Endian::Big {
        le.reverse();
    }
    let [m0, m1, m2, m3, m4, m5, m6, m7, e0, e1, ..] = le;
    let significand = u64::from_le_bytes([m0, m1, m2, m3, m4, m5, m6, m7]);
    let sign_exponent = u16::from_le_bytes([e0, e1]);
    f64::from_bits(f80_bits_to_f64_bits(significand, sign_exponent))
}

/// The `f16` element (16 bytes in byte order `endian`, padding zero) holding `x` exactly:
/// every `f64` is an x87 extended value. A NaN keeps its sign and payload (shifted to the
/// top of the significand, as the x87 `FLD m64` loads it).
pub fn from_f64(x: f64, endian: Endian) -> [u8; LONG_DOUBLE_BYTES] {
    let (significand, sign_exponent) = f64_to_f80(x);
    let [m0, m1, m2, m3, m4, m5, m6, m7] = significand.to_le_bytes();
    let [e0, e1] = sign_exponent.to_le_bytes();
    let mut out = [m0, m1, m2, m3, m4, m5, m6, m7, e0, e1, 0, 0, 0, 0, 0, 0];
    if endian == Endian::Big {
        out.reverse();
    }
    out
}

/// The `f64` bits nearest the x87 value (`significand`, `sign_exponent`).
fn f80_bits_to_f64_bits(significand: u64, sign_exponent: u16) -> u64 {
    let sign = u64::from(sign_exponent >> 15) << 63;
    let exponent = i32::from(sign_exponent & 0x7fff);
    let integer_bit = significand >> 63 == 1;
    const QUIET_NAN: u64 = 0x7ff8_0000_0000_0000;
    if exponent == 0x7fff {
        return match (integer_bit, significand << 1) {
            (true, 0) => sign | 0x7ff0_0000_0000_0000,
            (true, fraction) => sign | QUIET_NAN | (fraction >> 12),
            (false, _) => sign | QUIET_NAN,
        };
    }
    if exponent != 0 && !integer_bit {
        return sign | QUIET_NAN;
    }
    if significand == 0 {
        return sign;
    }
    // value = significand * 2^k; a denormal's exponent counts as 1.
    let k = exponent.max(1).wrapping_sub(BIAS).wrapping_sub(63);
    sign | round_to_f64_bits(significand, k)
}

/// `m * 2^k` (`m` non-zero, `k` in the x87 range) as `f64` bits without the sign, rounded
/// to nearest, ties to even.
fn round_to_f64_bits(m: u64, k: i32) -> u64 {
    // Bit length of m (1..=64) and the exponent of its top bit.
    let bits = 64i32.wrapping_sub(m.leading_zeros() as i32);
    let top = k.wrapping_add(bits).wrapping_sub(1);
    if top > 1023 {
        return 0x7ff0_0000_0000_0000;
    }
    // The exponent of the result's last significand bit: 52 below the top bit, but no
    // lower than the smallest subnormal's.
    let lsb = top.wrapping_sub(52).max(-1074);
    let shift = lsb.wrapping_sub(k);
    let q: u64 = if shift <= 0 {
        // Exact: at most 53 significant bits, shifted left by at most 52 - (bits - 1).
        m.checked_shl(shift.unsigned_abs()).unwrap_or(0)
    } else {
        round_shift(m, shift.unsigned_abs())
    };
    // q < 2^53 (or = 2^53 after a carry); lsb + 1074 is the biased exponent minus one, so
    // the addition carries into the exponent exactly when rounding overflows the significand
    // (up to infinity's bits when it overflows the largest exponent).
    let biased_minus_one = u64::from(lsb.wrapping_add(1074).unsigned_abs());
    (biased_minus_one << 52).wrapping_add(q)
}

/// `m / 2^shift` rounded to nearest, ties to even (`shift` >= 1).
fn round_shift(m: u64, shift: u32) -> u64 {
    let wide = u128::from(m);
    let q = wide.checked_shr(shift).unwrap_or(0);
    let half = 1u128
        .checked_shl(shift.wrapping_sub(1))
        .unwrap_or(u128::MAX);
    let rest = wide.wrapping_sub(q.checked_shl(shift).unwrap_or(0));
    let up = rest > half || (rest == half && q & 1 == 1);
    // q <= 2^53 here (the caller shifts at least 11 bits off a 64-bit m, or more).
    u64::try_from(q)
        .unwrap_or(u64::MAX)
        .wrapping_add(u64::from(up))
}

/// `x` as (significand, sign and exponent) of the x87 extended format, exactly.
fn f64_to_f80(x: f64) -> (u64, u16) {
    let bits = x.to_bits();
    let sign: u16 = if bits >> 63 == 1 { 0x8000 } else { 0 };
    let exponent = (bits >> 52) & 0x7ff;
    let fraction = bits & 0x000f_ffff_ffff_ffff;
    let integer_bit = 1u64 << 63;
    match exponent {
        0x7ff => (integer_bit | (fraction << 11), sign | 0x7fff),
        0 if fraction == 0 => (0, sign),
        0 => {
            // A subnormal: fraction * 2^-1074, normalized.
            let lz = fraction.leading_zeros();
            let e = 63i32
                .wrapping_sub(lz as i32)
                .wrapping_sub(1074)
                .wrapping_add(BIAS);
            (fraction << lz, sign | u16::try_from(e).unwrap_or(0))
        }
        e => {
            let e = i32::try_from(e)
                .unwrap_or(0)
                .wrapping_sub(1023)
                .wrapping_add(BIAS);
            (
                integer_bit | (fraction << 11),
                sign | u16::try_from(e).unwrap_or(0),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn le(significand: u64, sign_exponent: u16) -> [u8; 16] {
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&significand.to_le_bytes());
        out[8..10].copy_from_slice(&sign_exponent.to_le_bytes());
        out
    }

    fn value(significand: u64, sign_exponent: u16) -> f64 {
        to_f64(&le(significand, sign_exponent), Endian::Little)
    }

    #[test]
    fn every_f64_round_trips_exactly() {
        let samples = [
            0.0,
            -0.0,
            1.0,
            -1.5,
            1.0 / 3.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            2.225_073_858_507_201e-308,
            f64::INFINITY,
            f64::NEG_INFINITY,
            123_456_789.125,
        ];
        for x in samples {
            for e in [Endian::Little, Endian::Big] {
                assert_eq!(to_f64(&from_f64(x, e), e).to_bits(), x.to_bits(), "{x}");
            }
        }
        let nan = to_f64(&from_f64(f64::NAN, Endian::Little), Endian::Little);
        assert_eq!(nan.to_bits(), f64::NAN.to_bits());
    }

    #[test]
    fn rounding_is_to_nearest_even() {
        let one = 1u64 << 63;
        // 1 + 2^-53 is halfway between 1 and 1 + 2^-52: ties to even (1).
        assert_eq!(value(one | (1 << 10), 0x3fff), 1.0);
        // 1 + 3 * 2^-53: halfway, rounds up to the even 1 + 2^-51.
        assert_eq!(value(one | (3 << 10), 0x3fff), 1.0 + 2.0 * f64::EPSILON);
        // Just above halfway rounds up.
        assert_eq!(value(one | (1 << 10) | 1, 0x3fff), 1.0 + f64::EPSILON);
        // The largest significand rounds up into the next binade.
        assert_eq!(value(u64::MAX, 0x3fff), 2.0);
        // Above f64::MAX by more than half an ulp: infinity; the largest x87 value too.
        assert_eq!(value(u64::MAX, 0x3fff + 1023), f64::INFINITY);
        assert_eq!(value(u64::MAX, 0xfffe), f64::NEG_INFINITY);
        assert_eq!(value(one, 0x3fff + 1024), f64::INFINITY);
    }

    #[test]
    fn subnormals_and_underflow() {
        let one = 1u64 << 63;
        // 2^-1074 exactly, and half of it (a tie with 0: even is 0), and just above half.
        assert_eq!(value(one, (0x3fff - 1074) as u16), 5e-324);
        assert_eq!(value(one, (0x3fff - 1075) as u16), 0.0);
        assert_eq!(value(one | 1, (0x3fff - 1075) as u16), 5e-324);
        // 1.5 * 2^-1075 rounds to 2 * 2^-1075 = 2^-1074.
        assert_eq!(value(one | (1 << 62), (0x3fff - 1075) as u16), 5e-324);
        // The smallest x87 denormal (2^-16445) and the smallest normal: signed zeros.
        assert_eq!(value(1, 0).to_bits(), 0);
        assert_eq!(value(1, 0x8000).to_bits(), (-0.0f64).to_bits());
        assert_eq!(value(one, 1), 0.0);
        // A pseudo-denormal counts with exponent 1, like the normal of the same bits.
        assert_eq!(value(one, 0), value(one, 1));
    }

    #[test]
    fn infinities_nans_and_invalid_encodings() {
        let one = 1u64 << 63;
        assert_eq!(value(one, 0x7fff), f64::INFINITY);
        assert_eq!(value(one, 0xffff), f64::NEG_INFINITY);
        let qnan = value(one | (1 << 62), 0x7fff);
        assert!(qnan.is_nan() && qnan.is_sign_positive());
        let neg = value(one | (1 << 62), 0xffff);
        assert!(neg.is_nan() && neg.is_sign_negative());
        // A signalling NaN becomes quiet, its payload's top bits kept.
        assert_eq!(
            value(one | (1 << 40), 0x7fff).to_bits(),
            0x7ff8_0000_2000_0000
        );
        // Pseudo-infinity, pseudo-NaN, unnormal.
        assert!(value(0, 0x7fff).is_nan());
        assert!(value(1, 0x7fff).is_nan());
        assert!(value(1 << 62, 0x3fff).is_nan());
    }

    #[test]
    fn big_endian_is_the_reversed_element_and_padding_is_ignored() {
        let mut third = le(0xaaaa_aaaa_aaaa_aaab, 0x3ffd);
        third[10..].copy_from_slice(&[1, 2, 3, 4, 5, 6]);
        assert_eq!(to_f64(&third, Endian::Little), 1.0 / 3.0);
        third.reverse();
        assert_eq!(to_f64(&third, Endian::Big), 1.0 / 3.0);
    }
}
