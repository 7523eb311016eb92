//! # npyguard
//!
//! A reader and writer for NumPy `.npy` files built to be trusted with hostile
//! input: the header is parsed by a [nom] grammar that implements the formal
//! grammar in `grammar/npy-header.abnf`; sizes are checked before anything is
//! allocated, and allocation follows the bytes that actually exist; there is no
//! `unsafe` and no panic on any input; parsing is linear in the input length.
//!
//! Data flows one way, one module per step:
//!
//! ```text
//! bytes → preamble → header text → literal AST → validated Header → payload decode → arrays
//!         preamble    parser        literal        header/dtype      decode            array
//! ```
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
#![forbid(unsafe_code)]
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
// The pipeline, bottom up (ARCHITECTURE.md draws it; `tests/architecture.rs` checks that
// every `use crate::` edge points down this list):
mod data; // storage of every dtype family, Element, Array/NpyArray, layout
mod error; // Error, ErrorKind, Category
mod format; // preamble, grammar, literal AST, dtype, header, Python repr (no I/O)
mod io;
pub mod limits; // every fixed limit and default
mod options; // ReadOptions // payload decoder, readers, writers
             // Add-ons on top of the pipeline:
#[cfg(feature = "arrow")]
pub mod arrow;
pub mod compare;
#[cfg(feature = "ndarray")]
mod ndarray;
#[cfg(feature = "npz")]
pub mod npz;
pub mod render;

// -------------------------------------------------------------- public API
// Everything a user names is listed here (add-ons list theirs in their `mod.rs`).

// Errors.
pub use error::{Category, Error, ErrorKind, Result};
// The format: preamble, header, dtypes.
pub use format::dtype::{DateUnit, Dtype, Endian, Field, Record, TimeUnit};
pub use format::header::Header;
pub use format::preamble::{Encoding, Preamble, Version};
// Limits and policies.
pub use options::ReadOptions;
// Values.
pub use data::array::{Array, NpyArray};
pub use data::element::Element;
pub use data::storage::ArrayData;
// Reading.
pub use io::decode::PayloadDecoder;
pub use io::read::{
    check_length, file_length, read_bytes, read_file, read_from, read_header, read_path,
};

/// Writing `.npy` files byte-identical to `np.save` (see also [`NpyArray::write`]).
pub mod write {
    pub use crate::io::write::{
        choose_version, header_bytes, header_bytes_with_version, to_path, to_path_with_version,
        to_vec, to_writer, to_writer_with_version, StreamWriter, ARRAY_ALIGN,
    };
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
    pub use crate::format::literal::{Dict, Entry, Int, Literal, Value};
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
        is_printable, py_f16, py_f32, py_float, py_shape, py_str, write_py_str,
    };
}

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
