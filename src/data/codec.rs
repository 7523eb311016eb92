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
use crate::format::dtype::{Dtype, Endian, Record};
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

/// `U` text: UTF-32 code units that must be characters.
impl Unit for char {
    fn decode(bytes: &[u8], endian: Endian, out: &mut Vec<Self>, offset: u64) -> Result<()> {
        let mut units = Vec::with_capacity(bytes.len() / 4);
        u32::decode_into(bytes, endian, &mut units);
        for (i, &u) in units.iter().enumerate() {
            let at = offset.saturating_add((i as u64).saturating_mul(4));
            out.push(utf32_char(u, at)?);
        }
        Ok(())
    }
    fn encode(values: &[Self], endian: Endian, out: &mut Vec<u8>) {
        let units: Vec<u32> = values.iter().map(|&c| u32::from(c)).collect();
        u32::encode_into(&units, endian, out);
    }
}

impl ArrayData {
    /// Decodes whole elements of `dtype` from `bytes` and appends them.
    /// `offset` is the file offset of `bytes[0]`, for error reporting.
    pub(crate) fn push_bytes(&mut self, dtype: &Dtype, bytes: &[u8], offset: u64) -> Result<()> {
        if let Dtype::Record(r) = dtype {
            check_record_text(r, bytes, offset)?;
        }
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

/// A UTF-32 code unit as a `char`; [`ErrorKind::BadPayload`] at `at` for a surrogate or a
/// value above U+10FFFF (NumPy stores them; npyguard refuses what is not text).
fn utf32_char(u: u32, at: u64) -> Result<char> {
    char::from_u32(u).ok_or_else(|| {
        Error::new(
            ErrorKind::BadPayload,
            at,
            "a UTF-32 code unit that is a Unicode scalar value",
        )
        .found(format!("0x{u:08x}"))
    })
}

/// Checks the `U` fields (at any depth) of whole records in `bytes`, as a plain `U` array
/// is checked when it is decoded: so a record array that reads is one whose every field
/// can be taken out ([`Array::field`]) and printed.
pub(crate) fn check_record_text(r: &Record, bytes: &[u8], offset: u64) -> Result<()> {
    if r.itemsize == 0 || !r.fields.iter().any(|f| holds_unicode(&f.dtype)) {
        return Ok(());
    }
    for (i, rec) in bytes.chunks_exact(r.itemsize).enumerate() {
        let base = offset.saturating_add((i as u64).saturating_mul(r.itemsize as u64));
        for f in &r.fields {
            let end = f.offset.saturating_add(f.size());
            let field = rec.get(f.offset..end).unwrap_or_default();
            let at = base.saturating_add(f.offset as u64);
            match &f.dtype {
                Dtype::Unicode(_, e) => check_utf32(field, *e, at)?,
                Dtype::Record(inner) => check_record_text(inner, field, at)?,
                _ => {}
            }
        }
    }
    Ok(())
}

/// Checks that every UTF-32 code unit of `bytes` (file offset `at`) is a character.
fn check_utf32(bytes: &[u8], e: Endian, at: u64) -> Result<()> {
    for (k, unit) in bytes.chunks_exact(4).enumerate() {
        let u = u32::decode_one(unit, e);
        utf32_char(u, at.saturating_add((k as u64).saturating_mul(4)))?;
    }
    Ok(())
}

/// Checks payload bytes of `dtype` as decoding them would, without decoding: `U` text
/// (also inside records) must be characters ([`ErrorKind::BadPayload`] at the unit's
/// offset, `offset` being the file offset of `bytes[0]`). Every other dtype's bytes are values.
pub(crate) fn check_text(dtype: &Dtype, bytes: &[u8], offset: u64) -> Result<()> {
    match dtype {
        Dtype::Unicode(_, e) => check_utf32(bytes, *e, offset),
        Dtype::Record(r) => check_record_text(r, bytes, offset),
        _ => Ok(()),
    }
}

/// Whether `dtype` holds a `U` type anywhere (whose bytes may be refused as text).
pub(crate) fn holds_unicode(dtype: &Dtype) -> bool {
    match dtype {
        Dtype::Unicode(..) => true,
        Dtype::Record(r) => r.fields.iter().any(|f| holds_unicode(&f.dtype)),
        _ => false,
    }
}
