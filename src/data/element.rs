//! Element types for typed reads and writes: the Rust types an array can be read as.
//!
//! Each [`Element`] knows which [`Dtype`]s it can represent exactly and how to
//! decode and encode a run of elements in either byte order. Byte order is
//! always explicit: `from_le_bytes`/`from_be_bytes`, never a host assumption.
//!
//! ```
//! use npyguard::{Element, Dtype, Endian};
//! assert_eq!(f64::endian_of(&Dtype::F64(Endian::Big)), Some(Endian::Big));
//! assert_eq!(i64::endian_of(&Dtype::F64(Endian::Big)), None);
//! let mut out = Vec::new();
//! i16::decode_into(&[0x01, 0x02, 0xff, 0xff], Endian::Big, &mut out);
//! assert_eq!(out, vec![0x0102, -1]);
//! ```

use crate::data::buffer::{Buffer, Direct};
use crate::data::storage::ArrayData;
use crate::format::dtype::{Dtype, Endian};
use crate::prelude::*;

mod sealed {
    pub trait Sealed {}
}

/// A Rust type that a `.npy` element decodes to exactly.
pub trait Element:
    Copy + Default + PartialEq + core::fmt::Debug + Send + Sync + sealed::Sealed + 'static
{
    /// Size of one element in bytes.
    const SIZE: usize;

    /// The byte order to decode `dtype` with, or `None` when this type cannot represent it.
    /// One-byte types report `Endian::Little` (the order does not matter for them).
    fn endian_of(dtype: &Dtype) -> Option<Endian>;

    /// The dtype this type is written as, in byte order `endian`.
    fn dtype(endian: Endian) -> Dtype;

    /// Decodes every complete element of `bytes` (a multiple of [`SIZE`](Element::SIZE)) and appends them.
    fn decode_into(bytes: &[u8], endian: Endian, out: &mut Vec<Self>);

    /// Appends the encoding of `values` in byte order `endian` to `out`.
    fn encode_into(values: &[Self], endian: Endian, out: &mut Vec<u8>);

    /// The values' memory as bytes, for types where every bit pattern is valid
    /// (feature `bytemuck`; lets readers fill a typed buffer straight from the file).
    #[doc(hidden)]
    fn bytes_mut(_values: &mut [Self]) -> Option<&mut [u8]> {
        None
    }

    /// The values' memory as bytes (native byte order), for types where that is their
    /// encoding (feature `bytemuck`; lets writers skip the encoding copy).
    #[doc(hidden)]
    fn bytes_of(_values: &[Self]) -> Option<&[u8]> {
        None
    }

    /// Reverses the byte order of every value in place.
    #[doc(hidden)]
    fn swap_bytes_in_place(_values: &mut [Self]) {}

    /// Decodes the element at the start of `bytes` (which holds at least
    /// [`SIZE`](Element::SIZE) bytes; missing bytes read as zero). Used by views, which
    /// decode one element at a time instead of copying the payload.
    #[doc(hidden)]
    fn decode_one(bytes: &[u8], endian: Endian) -> Self;

    /// `bytes` as values without a copy, when they are aligned for this type, a whole number
    /// of values, and every bit pattern is a value (feature `bytemuck`); the caller checks
    /// that the byte order is the host's.
    #[doc(hidden)]
    fn cast_slice(_bytes: &[u8]) -> Option<&[Self]> {
        None
    }

    /// How this type is read straight from a file into a fresh buffer, when it can be
    /// (every bit pattern a value; feature `bytemuck`).
    #[doc(hidden)]
    #[allow(private_interfaces)]
    fn direct() -> Option<Direct<Self>> {
        None
    }

    /// The values of `data` when it holds this type's variant (moved, not copied;
    /// `f2` and complex values are converted in one pass), else `data` back.
    #[doc(hidden)]
    fn take_data(data: ArrayData) -> Result<Buffer<Self>, ArrayData>;

    /// The values as the [`ArrayData`] variant of this type (moved, not copied, where
    /// the representations agree).
    #[doc(hidden)]
    fn into_data(values: Buffer<Self>) -> ArrayData;
}

/// The one complex decoder: pairs of `F` (real, imaginary) from `bytes`.
pub(crate) fn decode_pairs<F: Element>(bytes: &[u8], endian: Endian, out: &mut Vec<[F; 2]>) {
    let mut parts = Vec::with_capacity(bytes.len().checked_div(F::SIZE).unwrap_or(0));
    F::decode_into(bytes, endian, &mut parts);
    out.extend(parts.chunks_exact(2).map(|p| match p {
        [re, im] => [*re, *im],
        _ => [F::default(); 2],
    }));
}

/// `take_data`/`into_data` for a type stored as-is in the [`ArrayData`] variant `$variant`.
macro_rules! same_variant_data {
    ($variant:ident) => {
        fn take_data(data: ArrayData) -> Result<Buffer<Self>, ArrayData> {
            match data {
                ArrayData::$variant(v) => Ok(v),
                other => Err(other),
            }
        }
        fn into_data(values: Buffer<Self>) -> ArrayData {
            ArrayData::$variant(values)
        }
    };
}

macro_rules! numeric_element {
    ($t:ty, $n:expr, $variant:ident) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const SIZE: usize = $n;
            fn endian_of(dtype: &Dtype) -> Option<Endian> {
                match dtype {
                    Dtype::$variant(e) => Some(*e),
                    _ => None,
                }
            }
            fn dtype(endian: Endian) -> Dtype {
                Dtype::$variant(endian)
            }
            fn decode_into(bytes: &[u8], endian: Endian, out: &mut Vec<Self>) {
                let chunks = bytes.chunks_exact($n);
                match endian {
                    Endian::Little => out.extend(
                        chunks.map(|c| <$t>::from_le_bytes(c.try_into().unwrap_or_default())),
                    ),
                    Endian::Big => out.extend(
                        chunks.map(|c| <$t>::from_be_bytes(c.try_into().unwrap_or_default())),
                    ),
                }
            }
            fn encode_into(values: &[Self], endian: Endian, out: &mut Vec<u8>) {
                out.reserve(values.len().saturating_mul($n));
                match endian {
                    Endian::Little => values
                        .iter()
                        .for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
                    Endian::Big => values
                        .iter()
                        .for_each(|v| out.extend_from_slice(&v.to_be_bytes())),
                }
            }
            fn decode_one(bytes: &[u8], endian: Endian) -> Self {
                let b: [u8; $n] = bytes
                    .get(..$n)
                    .and_then(|b| b.try_into().ok())
                    .unwrap_or_default();
                match endian {
                    Endian::Little => <$t>::from_le_bytes(b),
                    Endian::Big => <$t>::from_be_bytes(b),
                }
            }
            #[cfg(feature = "bytemuck")]
            fn cast_slice(bytes: &[u8]) -> Option<&[Self]> {
                bytemuck::try_cast_slice(bytes).ok()
            }
            #[cfg(feature = "bytemuck")]
            fn bytes_mut(values: &mut [Self]) -> Option<&mut [u8]> {
                Some(bytemuck::cast_slice_mut(values))
            }
            #[cfg(feature = "bytemuck")]
            fn bytes_of(values: &[Self]) -> Option<&[u8]> {
                Some(bytemuck::cast_slice(values))
            }
            #[cfg(feature = "bytemuck")]
            #[allow(private_interfaces)]
            fn direct() -> Option<Direct<Self>> {
                Some(Direct::pod(<$t as Element>::swap_bytes_in_place))
            }
            fn swap_bytes_in_place(values: &mut [Self]) {
                values.iter_mut().for_each(|v| {
                    *v = <$t>::from_ne_bytes({
                        let mut b = v.to_ne_bytes();
                        b.reverse();
                        b
                    })
                });
            }
            same_variant_data!($variant);
        }
    };
}

numeric_element!(i16, 2, I16);
numeric_element!(i32, 4, I32);
numeric_element!(i64, 8, I64);
numeric_element!(u16, 2, U16);
numeric_element!(u32, 4, U32);
numeric_element!(u64, 8, U64);
numeric_element!(f32, 4, F32);
numeric_element!(f64, 8, F64);

macro_rules! byte_element {
    ($t:ty, $variant:ident, $from:expr, $to:expr) => {
        byte_element!($t, $variant, $from, $to, { same_variant_data!($variant); });
    };
    ($t:ty, $variant:ident, $from:expr, $to:expr, { $($data:tt)* }) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const SIZE: usize = 1;
            fn endian_of(dtype: &Dtype) -> Option<Endian> {
                matches!(dtype, Dtype::$variant).then_some(Endian::Little)
            }
            fn dtype(_endian: Endian) -> Dtype {
                Dtype::$variant
            }
            fn decode_into(bytes: &[u8], _endian: Endian, out: &mut Vec<Self>) {
                out.extend(bytes.iter().map($from));
            }
            fn decode_one(bytes: &[u8], _endian: Endian) -> Self {
                bytes.first().map($from).unwrap_or_default()
            }
            fn encode_into(values: &[Self], _endian: Endian, out: &mut Vec<u8>) {
                out.extend(values.iter().map($to));
            }
            $($data)*
        }
    };
}

byte_element!(u8, U8, |&b| b, |&v| v, {
    same_variant_data!(U8);
    #[cfg(feature = "bytemuck")]
    #[allow(private_interfaces)]
    fn direct() -> Option<Direct<Self>> {
        Some(Direct::pod(|_| {}))
    }
    fn cast_slice(bytes: &[u8]) -> Option<&[Self]> {
        Some(bytes)
    }
});
byte_element!(
    i8,
    I8,
    |&b| i8::from_le_bytes([b]),
    |&v| v.to_le_bytes()[0],
    {
        same_variant_data!(I8);
        #[cfg(feature = "bytemuck")]
        #[allow(private_interfaces)]
        fn direct() -> Option<Direct<Self>> {
            Some(Direct::pod(|_| {}))
        }
        #[cfg(feature = "bytemuck")]
        fn cast_slice(bytes: &[u8]) -> Option<&[Self]> {
            Some(bytemuck::cast_slice(bytes))
        }
    }
);
// NumPy reads any non-zero byte as True and writes True as 1. `ArrayData::Bool` keeps the
// file's bytes (as NumPy's memory does), so the typed values convert from and to them.
byte_element!(bool, Bool, |&b| b != 0, |&v| u8::from(v), {
    fn take_data(data: ArrayData) -> Result<Buffer<Self>, ArrayData> {
        match data {
            ArrayData::Bool(v) => Ok(v.iter().map(|&b| b != 0).collect()),
            other => Err(other),
        }
    }
    fn into_data(values: Buffer<Self>) -> ArrayData {
        ArrayData::Bool(values.iter().map(|&b| u8::from(b)).collect())
    }
});

#[cfg(feature = "half")]
mod half_impl {
    use super::*;
    use half::f16;

    impl sealed::Sealed for f16 {}
    /// `f2` through the `half` crate (feature `half`).
    impl Element for f16 {
        const SIZE: usize = 2;
        fn endian_of(dtype: &Dtype) -> Option<Endian> {
            match dtype {
                Dtype::F16(e) => Some(*e),
                _ => None,
            }
        }
        fn dtype(endian: Endian) -> Dtype {
            Dtype::F16(endian)
        }
        fn decode_into(bytes: &[u8], endian: Endian, out: &mut Vec<Self>) {
            let mut bits = Vec::with_capacity(bytes.len() / 2);
            u16::decode_into(bytes, endian, &mut bits);
            out.extend(bits.into_iter().map(f16::from_bits));
        }
        fn decode_one(bytes: &[u8], endian: Endian) -> Self {
            f16::from_bits(u16::decode_one(bytes, endian))
        }
        fn encode_into(values: &[Self], endian: Endian, out: &mut Vec<u8>) {
            let bits: Vec<u16> = values.iter().map(|v| v.to_bits()).collect();
            u16::encode_into(&bits, endian, out);
        }
        fn take_data(data: ArrayData) -> Result<Buffer<Self>, ArrayData> {
            match data {
                ArrayData::F16(v) => Ok(v.iter().map(|&b| f16::from_bits(b)).collect()),
                other => Err(other),
            }
        }
        fn into_data(values: Buffer<Self>) -> ArrayData {
            ArrayData::F16(values.iter().map(|v| v.to_bits()).collect())
        }
    }
}

#[cfg(feature = "complex")]
mod complex_impl {
    use super::*;
    use num_complex::Complex;

    macro_rules! complex_element {
        ($f:ty, $n:expr, $variant:ident) => {
            impl sealed::Sealed for Complex<$f> {}
            /// `c8`/`c16` through the `num-complex` crate (feature `complex`): real part first.
            impl Element for Complex<$f> {
                const SIZE: usize = $n;
                fn endian_of(dtype: &Dtype) -> Option<Endian> {
                    match dtype {
                        Dtype::$variant(e) => Some(*e),
                        _ => None,
                    }
                }
                fn dtype(endian: Endian) -> Dtype {
                    Dtype::$variant(endian)
                }
                fn decode_into(bytes: &[u8], endian: Endian, out: &mut Vec<Self>) {
                    let mut pairs = Vec::with_capacity(bytes.len() / $n);
                    decode_pairs::<$f>(bytes, endian, &mut pairs);
                    out.extend(pairs.into_iter().map(|[re, im]| Complex::new(re, im)));
                }
                fn decode_one(bytes: &[u8], endian: Endian) -> Self {
                    let half = bytes.get($n / 2..).unwrap_or_default();
                    Complex::new(
                        <$f>::decode_one(bytes, endian),
                        <$f>::decode_one(half, endian),
                    )
                }
                fn encode_into(values: &[Self], endian: Endian, out: &mut Vec<u8>) {
                    let parts: Vec<$f> = values.iter().flat_map(|c| [c.re, c.im]).collect();
                    <$f>::encode_into(&parts, endian, out);
                }
                fn take_data(data: ArrayData) -> Result<Buffer<Self>, ArrayData> {
                    match data {
                        ArrayData::$variant(v) => {
                            Ok(v.iter().map(|&[re, im]| Complex::new(re, im)).collect())
                        }
                        other => Err(other),
                    }
                }
                fn into_data(values: Buffer<Self>) -> ArrayData {
                    ArrayData::$variant(values.iter().map(|c| [c.re, c.im]).collect())
                }
            }
        };
    }
    complex_element!(f32, 8, C64);
    complex_element!(f64, 16, C128);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_bit_exact_in_both_orders() {
        let vals = [
            f64::from_bits(0x7ff8_0000_0000_0123),
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.0,
            5e-324,
        ];
        for e in [Endian::Little, Endian::Big] {
            let mut bytes = Vec::new();
            f64::encode_into(&vals, e, &mut bytes);
            let mut back = Vec::new();
            f64::decode_into(&bytes, e, &mut back);
            let bits: Vec<u64> = back.iter().map(|v| v.to_bits()).collect();
            assert_eq!(bits, vals.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
        }
        let mut be = Vec::new();
        f64::encode_into(&[1.0], Endian::Big, &mut be);
        assert_eq!(be, [0x3f, 0xf0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn any_nonzero_byte_is_true() {
        let mut out = Vec::new();
        bool::decode_into(&[0, 1, 2, 255], Endian::Little, &mut out);
        assert_eq!(out, [false, true, true, true]);
    }
}
