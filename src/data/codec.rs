//! Bytes ↔ stored units: the only decoder and encoder of payload values.
//!
//! [`Unit`] says, for each Rust type [`ArrayData`] stores, how a run of file bytes in a
//! given byte order becomes units and back: numbers through [`Element`] (explicit
//! `from_le_bytes`/`from_be_bytes`), complex numbers as pairs of their parts, `U` text as
//! UTF-32 code units checked to be characters, bytes as they are. [`ArrayData::push_bytes`]
//! and [`ArrayData::encode_chunks`] dispatch through the table of dtype families.
//!
//! ```
//! use npyguard::{read_bytes, write, Array, ArrayData, Dtype, Endian, Header, ReadOptions};
//! let header = Header::new(Dtype::C64(Endian::Big), vec![1], false).unwrap();
//! let a = Array::new(header, ArrayData::C64(vec![[1.5, -2.0]].into())).unwrap();
//! let back = read_bytes(&write::to_vec(&a).unwrap(), &ReadOptions::default()).unwrap();
//! assert_eq!(back.data(), &ArrayData::C64(vec![[1.5, -2.0]].into()));
//! ```

use crate::data::buffer::Direct;
use crate::data::element::{decode_pairs, Element};
use crate::data::layout;
use crate::data::storage::{map_units, with_units, ArrayData};
use crate::error::{Error, ErrorKind, Result};
use crate::format::dtype::{Dtype, Endian};
use crate::prelude::*;

/// A type [`ArrayData`] stores: how runs of it are read from and written to file bytes.
#[cfg_attr(not(feature = "std"), allow(dead_code))] // used by the std readers and writers
pub(crate) trait Unit: Copy {
    /// Decodes every whole unit of `bytes` and appends them; `offset` is the file offset
    /// of `bytes[0]`, for errors.
    fn decode(bytes: &[u8], endian: Endian, out: &mut Vec<Self>, offset: u64) -> Result<()>;

    /// Appends the encoding of `values` in byte order `endian` to `out`.
    fn encode(values: &[Self], endian: Endian, out: &mut Vec<u8>);

    /// The values as bytes, when their encoding is their memory (one-byte units).
    fn as_bytes(_values: &[Self]) -> Option<&[u8]> {
        None
    }

    /// How runs of this unit are read straight into a fresh buffer, when they can be.
    fn direct() -> Option<Direct<Self>> {
        None
    }
}

/// Numbers decode through their [`Element`] implementation.
macro_rules! numeric_unit {
    ($($t:ty),*) => {$(
        impl Unit for $t {
            fn decode(bytes: &[u8], endian: Endian, out: &mut Vec<Self>, _offset: u64) -> Result<()> {
                <$t as Element>::decode_into(bytes, endian, out);
                Ok(())
            }
            fn encode(values: &[Self], endian: Endian, out: &mut Vec<u8>) {
                <$t as Element>::encode_into(values, endian, out);
            }
            fn direct() -> Option<Direct<Self>> {
                <$t as Element>::direct()
            }
        }
    )*};
}
numeric_unit!(i8, i16, i32, i64, u16, u32, u64, f32, f64);

impl Unit for u8 {
    fn decode(bytes: &[u8], _endian: Endian, out: &mut Vec<Self>, _offset: u64) -> Result<()> {
        out.extend_from_slice(bytes);
        Ok(())
    }
    fn encode(values: &[Self], _endian: Endian, out: &mut Vec<u8>) {
        out.extend_from_slice(values);
    }
    fn as_bytes(values: &[Self]) -> Option<&[u8]> {
        Some(values)
    }
    fn direct() -> Option<Direct<Self>> {
        <u8 as Element>::direct()
    }
}

/// Complex numbers: the real part, then the imaginary part, each in the dtype's byte order.
impl<F: Element> Unit for [F; 2] {
    fn decode(bytes: &[u8], endian: Endian, out: &mut Vec<Self>, _offset: u64) -> Result<()> {
        decode_pairs(bytes, endian, out);
        Ok(())
    }
    fn encode(values: &[Self], endian: Endian, out: &mut Vec<u8>) {
        let parts: Vec<F> = values.iter().flatten().copied().collect();
        F::encode_into(&parts, endian, out);
    }
}

impl ArrayData {
    /// Decodes whole elements of `dtype` from `bytes` and appends them.
    /// `offset` is the file offset of `bytes[0]`, for error reporting.
    pub(crate) fn push_bytes(&mut self, dtype: &Dtype, bytes: &[u8], offset: u64) -> Result<()> {
        let e = dtype.endian().unwrap_or(Endian::Little);
        with_units!(self, v => Unit::decode(bytes, e, v.vec_mut(), offset))
    }

    /// Reindexes from Fortran to C order (`to_c == true`) or back, for an array of `shape`
    /// whose elements are `per` stored units each. A large result of a plain-data family
    /// goes to huge-page memory (no pre-filling pass: its pages fault in 2 MiB at a time).
    pub(crate) fn reorder(&self, shape: &[usize], per: usize, to_c: bool) -> ArrayData {
        let sh: Vec<usize> = if to_c {
            shape.to_vec()
        } else {
            shape.iter().rev().copied().collect()
        };
        map_units!(self, v => layout::fortran_to_c_buffer(Unit::direct(), v, &sh, per))
    }

    /// Encodes the values in byte order `e`, at most `units` stored units at a
    /// time, passing each encoded chunk to `f` (so a writer needs only a bounded buffer).
    #[cfg(feature = "std")]
    pub(crate) fn encode_chunks(
        &self,
        e: Endian,
        units: usize,
        f: impl FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        with_units!(self, v => encode_in_chunks(v, e, units.max(1), f))
    }
}

#[cfg(feature = "std")]
fn encode_in_chunks<T: Unit>(
    values: &[T],
    e: Endian,
    units: usize,
    mut f: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    for chunk in values.chunks(units) {
        if let Some(bytes) = T::as_bytes(chunk) {
            f(bytes)?;
            continue;
        }
        buf.clear();
        T::encode(chunk, e, &mut buf);
        f(&buf)?;
    }
    Ok(())
}

/// `U` code units as UTF-8 text (trailing NULs already stripped by the caller):
/// [`ErrorKind::BadPayload`] naming the first unit that is not a Unicode scalar value (a
/// lone surrogate, or a value above U+10FFFF) and element `element` (memory order), which
/// UTF-8 cannot hold. NumPy keeps such units; only conversions to UTF-8 refuse them.
pub(crate) fn utf32_text(units: &[u32], element: usize) -> Result<String> {
    units
        .iter()
        .map(|&u| {
            char::from_u32(u).ok_or_else(|| {
                Error::unplaced(
                    ErrorKind::BadPayload,
                    "UTF-32 code units that are Unicode scalar values (UTF-8 text cannot hold \
                     a lone surrogate or a value above U+10FFFF)",
                )
                .found(format!("0x{u:08x} in element {element}"))
            })
        })
        .collect()
}

/// Checks that `U` code units (elements of `per` units) are Python code points, at most
/// U+10FFFF, as NumPy's conversions to Python strings (`tolist`, `repr`, `str`) need:
/// NumPy fails on a larger unit ("invalid maximum character passed to PyUnicode_New"),
/// while a lone surrogate is a code point Python holds. [`ErrorKind::BadPayload`] names the
/// first larger unit and its element (memory order).
#[cfg_attr(not(feature = "std"), allow(dead_code))] // used by `render`
pub(crate) fn check_code_points(units: &[u32], per: usize) -> Result<()> {
    match units.iter().position(|&u| u > 0x10_ffff) {
        None => Ok(()),
        Some(k) => {
            let u = units.get(k).copied().unwrap_or_default();
            let element = k.checked_div(per).unwrap_or(0);
            Err(Error::unplaced(
                ErrorKind::BadPayload,
                "UTF-32 code units of at most U+10FFFF (NumPy cannot make a Python string of \
                 a larger one either)",
            )
            .found(format!("0x{u:08x} in element {element}")))
        }
    }
}
