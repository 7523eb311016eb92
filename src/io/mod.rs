//! Bytes in and out: the payload decoder fed by any chunking, the readers (slices,
//! streams, files, under the limits of [`ReadOptions`](crate::ReadOptions)), the writers and
//! the appender (a file grown along its first axis in place).

// Without std: the checks a read makes, the payload decoder and the views.
pub(crate) mod checks;
pub(crate) mod decode;
pub(crate) mod opened;
pub(crate) mod view;
// With std: streams, files and writers.
#[cfg(feature = "std")]
pub(crate) mod append;
#[cfg(feature = "std")]
pub(crate) mod read;
#[cfg(feature = "std")]
pub(crate) mod rows;
#[cfg(feature = "std")]
pub(crate) mod write;
