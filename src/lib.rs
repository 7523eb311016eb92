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

pub mod array;
#[cfg(feature = "arrow")]
pub mod arrow;
pub mod compare;
pub mod decode;
pub mod dtype;
pub mod element;
pub mod error;
pub mod header;
pub mod layout;
pub mod literal;
#[cfg(feature = "ndarray")]
pub mod ndarray_interop;
#[cfg(feature = "npz")]
pub mod npz;
pub mod options;
mod parser;
pub mod preamble;
pub mod read;
pub mod render;
pub mod repr;
pub mod write;

pub use array::{Array, ArrayData, NpyArray};
pub use dtype::{DateUnit, Dtype, Endian, Field, Record, TimeUnit};
pub use element::Element;
pub use error::{Error, ErrorKind, Result};
pub use header::Header;
pub use options::ReadOptions;
pub use preamble::{Preamble, Version};
pub use read::{read_bytes, read_from, read_header, read_path};

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
