//! Bytes in and out: the payload decoder fed by any chunking, the readers (slices,
//! streams, files, under the limits of [`ReadOptions`](crate::ReadOptions)) and the writers.

pub(crate) mod decode;
pub(crate) mod read;
pub(crate) mod rows;
pub(crate) mod view;
pub(crate) mod write;
