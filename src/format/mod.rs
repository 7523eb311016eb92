//! The file format, without I/O: the preamble, the header's grammar and literal AST, the
//! dtype language and the validated [`Header`](header::Header); Python's `repr` of the
//! values a header holds.
//!
//! Each stage takes bytes or the previous stage's output and works on slices only:
//! `preamble` → `grammar` (header text → `literal` AST) → `dtype` and `header` (validation).

pub(crate) mod dtype;
pub(crate) mod f16;
pub(crate) mod f80;
pub(crate) mod grammar;
pub(crate) mod header;
pub(crate) mod literal;
pub(crate) mod preamble;
pub(crate) mod repr;
