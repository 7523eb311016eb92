//! Decoded values in memory: the storage of every dtype family ([`ArrayData`](storage::ArrayData)),
//! the Rust types a dtype reads as ([`Element`](element::Element)), arrays, the
//! Fortran ↔ C reindexing, and the table geometry of an array ([`Table`](table::Table)).

pub(crate) mod array;
pub(crate) mod buffer;
pub(crate) mod codec;
pub(crate) mod element;
pub(crate) mod layout;
pub(crate) mod scalar;
pub(crate) mod storage;
pub(crate) mod table;
