//! Bytes in and out: the payload decoder fed by any chunking, the readers (slices,
//! streams, files, under the limits of [`ReadOptions`](crate::ReadOptions)), the writers and
//! the appender (a file grown along its first axis in place).

pub(crate) mod append;
pub(crate) mod decode;
pub(crate) mod read;
pub(crate) mod rows;
pub(crate) mod view;
pub(crate) mod write;
