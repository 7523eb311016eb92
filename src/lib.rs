//! # npyguard
//!
//! A reader and writer for NumPy `.npy` and `.npz` files built to be trusted with hostile
//! input: the header is parsed by a [nom] grammar that implements the formal grammar in
//! `grammar/npy-header.abnf`; sizes are checked before anything is allocated, and
//! allocation follows the bytes that actually exist; there is no `unsafe` and no panic on
//! any input; parsing is linear in the input length. What NumPy writes is read as NumPy
//! reads it, and what npyguard writes is byte-identical to `np.save`.
//!
//! ## Quick start
//!
//! ```no_run
//! use npyguard::{read_path, NpyArray, ReadOptions};
//!
//! // Any dtype, checked against the limits of ReadOptions::default():
//! let array = read_path("examples/data/temperatures.npy", &ReadOptions::default())?;
//! println!("{} {:?}", array.dtype().typestr(), array.shape());
//!
//! // A typed read (the dtype must be f8 in either byte order), in C order:
//! let t = NpyArray::<f64>::read_path("examples/data/temperatures.npy", &ReadOptions::default())?;
//! let values = t.to_c_order(); // a Buffer<f64>: derefs to &[f64], into_vec() for a Vec
//! # Ok::<(), npyguard::Error>(())
//! ```
//!
//! ## Which reader for which input
//!
//! | input | whole array | without holding it all |
//! |---|---|---|
//! | a path | [`read_path`], [`NpyArray::read_path`] | [`RowReader::open`] (any rows), [`validate_from`] |
//! | bytes in memory | [`read_bytes`], [`NpyArray::read_bytes`] | [`View`] / [`ArrayView`] (borrowed, zero-copy) |
//! | a stream (`Read`) | [`read_from`], [`NpyArray::read`] | [`RowChunks`] (consecutive chunks), [`validate_from`] |
//! | the header only | [`read_header`], [`Header::from_bytes`] | |
//! | an `.npz` archive | `npz::NpzArchive` (feature `npz`) | `NpzArchive::row_chunks` |
//!
//! Writing: [`write::to_path`], [`write::to_writer`], [`write::StreamWriter`] (rows as they
//! come), [`write::Appender`] (grow a file in place), `npz::savez` (feature `npz`). Limits
//! (file, header, archive sizes) are in [`ReadOptions`], their defaults in [`limits`].
//! Integrations behind features: `ndarray`, `arrow` (record batches, IPC, CSV), `parquet`.
//!
//! ## How it is built
//!
//! Data flows one way, one stage per folder (ARCHITECTURE.md draws the modules):
//!
//! ```text
//! bytes → preamble → header text → literal AST → validated Header → payload decode → arrays → add-ons
//!         format/     format/        format/        format/dtype/       io/decode         data/    compare/ npz/
//!         preamble    grammar/       literal        format/header       data/codec                 arrow/ render/
//! ```
//!
//! Everything public is listed below, in this file: the root re-exports, the facade
//! modules [`write`](mod@write), [`literal`], [`repr`], [`layout`], and the add-on modules
//! [`compare`], [`render`], [`limits`] (and `npz`, `arrow` behind their features), each of
//! which lists its own exports in its `mod.rs`.
//!
//! A header can be checked on its own, from bytes, without std:
//!
//! ```
//! use npyguard::{Header, ReadOptions, Dtype, Endian};
//! let mut file = b"\x93NUMPY\x01\x00\x46\x00{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }            \n".to_vec();
//! file.extend_from_slice(&7i32.to_le_bytes());
//! file.extend_from_slice(&(-1i32).to_le_bytes());
//! let header = Header::from_bytes(&file, &ReadOptions::default()).unwrap();
//! assert_eq!(header.dtype(), &Dtype::I32(Endian::Little));
//! assert_eq!(header.shape(), &[2]);
//! ```
#![cfg_attr(not(any(feature = "std", test)), no_std)]
#![forbid(unsafe_code)]
// docs.rs (and `cargo +nightly doc` with `--cfg docsrs`): each feature-gated item is labelled
// with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects
    )
)]

// ---------------------------------------------------------------- modules
// The stages, bottom up: error, limits, options, then format (no I/O), data (values), io
// (bytes in and out), then the add-ons. ARCHITECTURE.md's module table lists every module
// in dependency order, and `tests/library/architecture.rs` checks that every `use crate::`
// edge points down that table and that there is no cycle.
extern crate alloc;

/// The `alloc` names the std prelude would give, for the modules that build without std.
#[allow(unused_imports)]
mod prelude {
    pub(crate) use alloc::borrow::ToOwned;
    pub(crate) use alloc::boxed::Box;
    pub(crate) use alloc::string::{String, ToString};
    pub(crate) use alloc::vec::Vec;
    pub(crate) use alloc::{format, vec};
}

mod error; // Error, ErrorKind, Category

pub mod limits; // every fixed limit and default

mod options; // ReadOptions

mod format; // preamble, grammar, literal AST, dtype, header, Python repr

mod data; // the table of dtype families, codec, scalar, Element, Array, layout, table geometry

mod io; // payload decoder, readers, writers, appender

#[cfg(feature = "arrow")]
pub mod arrow;
#[cfg(feature = "std")]
pub mod compare;
#[cfg(feature = "ndarray")]
mod ndarray;
#[cfg(feature = "npz")]
pub mod npz;
#[cfg(feature = "std")]
pub mod render;

// -------------------------------------------------------------- public API
// Everything a user names is listed here (add-ons list theirs in their `mod.rs`).

// Errors.
pub use error::{Category, Error, ErrorKind, Result};
// The format: preamble, header, dtypes.
pub use format::dtype::{DateUnit, Dtype, Endian, Field, FieldName, Record, TimeUnit, Title};
pub use format::header::Header;
pub use format::preamble::{Encoding, Preamble, Version};
// Limits and policies.
pub use options::ReadOptions;
// Values.
pub use data::array::{Array, NpyArray};
pub use data::buffer::Buffer;
pub use data::element::Element;
pub use data::storage::ArrayData;
pub use data::table::{Table, INT16_MAX_COLUMNS};
// Reading.
pub use io::checks::check_length;
pub use io::decode::PayloadDecoder;
// The one checked opening every door starts from.
#[cfg(feature = "std")]
pub use io::opened::file_length;
pub use io::opened::Opened;
#[cfg(feature = "std")]
pub use io::read::{
    read_bytes, read_file, read_from, read_header, read_path, read_raw_from, read_raw_path,
};
// Parts of a file: views over borrowed bytes, row ranges, row chunks.
#[cfg(feature = "std")]
pub use io::rows::{validate_from, RowChunks, RowReader};
pub use io::view::{ArrayView, View};

/// Writing `.npy` files byte-identical to `np.save` (see also [`NpyArray::write`]), and
/// growing them in place ([`Appender`](write::Appender)).
#[cfg(feature = "std")]
pub mod write {
    pub use crate::io::write::{
        choose_version, header_bytes, header_bytes_with_version, to_path, to_path_with_version,
        to_vec, to_writer, to_writer_with_version, StreamWriter, ARRAY_ALIGN,
    };
    // Appending rows to an existing file in place.
    pub use crate::io::append::{AppendOptions, Appender, Storage};
}

/// The header's literal AST, as the grammar of `grammar/npy-header.abnf` parses it.
///
/// ```
/// use npyguard::literal::{parse_dict, Value};
/// use npyguard::Version;
/// let dict = parse_dict(b"{'shape': (3,), }", Version::V1_0).unwrap();
/// assert!(matches!(dict.entries[0].value.value, Value::Tuple(_)));
/// ```
pub mod literal {
    pub use crate::format::grammar::parse_dict;
    pub use crate::format::literal::{Dict, Entry, Float, Int, Literal, Value};
}

/// Fortran ↔ C reindexing of element buffers, in cache blocks (the one transpose of the crate).
pub mod layout {
    pub use crate::data::layout::{
        c_to_fortran, c_to_fortran_bytes, element_count, fortran_to_c, fortran_to_c_bytes,
    };
}

/// Python's `repr` of the values a header holds: strings, shapes and floats.
pub mod repr {
    pub use crate::format::repr::{
        is_printable, py_bytes, py_complex, py_f16, py_f32, py_float, py_shape, py_str,
        write_py_str,
    };
}

/// NumPy's long double (`f16`, `c32`) as NumPy on x86-64 Linux writes it (x87 80-bit
/// extended, padded to 16 bytes): an element's value as the nearest `f64` (ties to even;
/// infinities, NaNs, subnormals and the encodings the x87 refuses are described at
/// [`to_f64`](f80::to_f64)), and an `f64` as an element (exact).
///
/// ```
/// use npyguard::{f80, Endian};
/// let third = [0xab, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xfd, 0x3f, 0, 0, 0, 0, 0, 0];
/// assert_eq!(f80::to_f64(&third, Endian::Little), 1.0 / 3.0);
/// assert_eq!(f80::from_f64(1.0 / 3.0, Endian::Big)[6..8], [0x3f, 0xfd]);
/// ```
pub mod f80 {
    pub use crate::format::f80::{from_f64, to_f64, LONG_DOUBLE_BYTES};
}

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
