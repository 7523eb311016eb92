//! Parts of a file by rows: [`RowReader`] reads any rows of a seekable input, touching only
//! their bytes; [`RowChunks`] streams any `Read` as consecutive row chunks. Both check what a
//! full read checks (header, limits, length or trailing bytes, `U` text), and both hold at
//! most the rows asked for in memory.
//!
//! Rows are along the first axis. A C-order file's rows are contiguous: one read each. A
//! Fortran-order file's rows are gathered: rows `a..b` are one run of `b - a` elements in
//! each column (each index of the other axes), so [`RowReader`] reads those runs (memory is
//! still the rows asked for, the seeks are one per column); [`RowChunks`], which cannot seek,
//! yields a Fortran-order array of more than one dimension as one chunk (the whole array).
//!
//! ```
//! use npyguard::{write::to_vec, ArrayData, Endian, NpyArray, ReadOptions, RowReader};
//! use std::io::Cursor;
//! // [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]] in Fortran order.
//! let f = NpyArray::from_vec((0..12i32).collect(), vec![4, 3]).unwrap().to_array().to_fortran_order();
//! let file = to_vec(&f).unwrap();
//! let mut rows = RowReader::new(Cursor::new(file), &ReadOptions::default()).unwrap();
//! let part = rows.read_rows(1..3).unwrap();
//! assert_eq!(part.shape(), &[2, 3]);
//! assert_eq!(part.to_c_order().data(), &ArrayData::I32(vec![3, 4, 5, 6, 7, 8].into()));
//! ```

use std::fs::File;
use std::io::{ErrorKind as IoKind, Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;

use crate::data::array::Array;
use crate::data::storage::ArrayData;
use crate::data::table::Table;
use crate::error::{Error, ErrorKind, Result};
use crate::format::header::Header;
use crate::io::decode::Decoder;
use crate::io::opened::{check_end, elements_in, fill, Opened, CHUNK};
use crate::io::view::{check_rows, row_span};
use crate::options::ReadOptions;

/// Reads a whole `.npy` stream and checks it exactly as [`read_from`](crate::read_from)
/// does (header, limits, every element, the end of the input), keeping none of the payload:
/// memory is one chunk of about 256 KiB (or one element, if an element is larger), whatever
/// the file's size or what its header claims. An endless stream is read until a limit
/// (`max_file_bytes`) refuses it, or forever without one, in constant memory.
///
/// Returns the validated header.
///
/// ```
/// use npyguard::{validate_from, write::to_vec, NpyArray, ReadOptions};
/// let file = to_vec(&NpyArray::from_vec(vec![1.5f64; 1000], vec![10, 100]).unwrap().to_array()).unwrap();
/// let header = validate_from(&file[..], &ReadOptions::default()).unwrap();
/// assert_eq!(header.shape(), &[10, 100]);
/// // One byte short: refused as a full read refuses it.
/// assert!(validate_from(&file[..file.len() - 1], &ReadOptions::default()).is_err());
/// ```
pub fn validate_from<R: Read>(reader: R, opts: &ReadOptions) -> Result<Header> {
    Opened::stream(reader, opts)?.validate()
}

impl<R: Read> Opened<R> {
    /// Reads the payload and checks it (and the input's end) as [`read`](Opened::read)
    /// does, keeping none of it: memory is one chunk of about 256 KiB (see [`validate_from`]).
    pub fn validate(self) -> Result<Header> {
        let header = self.header().clone();
        let per_chunk = elements_in(CHUNK, header.dtype().itemsize());
        for chunk in self.flattened().into_chunks(per_chunk) {
            drop(chunk?);
        }
        Ok(header)
    }

    /// The input's rows as consecutive chunks of `rows_per_chunk` rows ([`RowChunks`]).
    pub fn into_chunks(self, rows_per_chunk: usize) -> RowChunks<R> {
        let allow_trailing = self.options().allow_trailing_bytes;
        let (header, reader) = self.into_parts();
        RowChunks {
            offset: header.payload_offset(),
            reader,
            header,
            step: rows_per_chunk.max(1),
            next: Some(0),
            allow_trailing,
        }
    }
}

impl<R: Read + Seek> Opened<R> {
    /// The input read by row ranges ([`RowReader`]).
    pub fn into_rows(mut self) -> Result<RowReader<R>> {
        let base = self.base()?;
        let (header, reader) = self.into_parts();
        Ok(RowReader {
            reader,
            header,
            base,
            buf: Vec::new(),
        })
    }
}

/// A validated `.npy` on a seekable input, read by row ranges (along the first axis): only
/// the rows' bytes are read, with memory for those rows only. A C-order file's rows are one
/// contiguous read; a Fortran-order file's rows `a..b` are one run of `b - a` elements per
/// column (each index of the other axes), gathered with one seek per column. The checks are
/// a full read's: header, limits and the input's length up front, `U` text as rows are read.
///
/// ```
/// use npyguard::{write::to_vec, ArrayData, NpyArray, ReadOptions, RowReader};
/// use std::io::Cursor;
/// // [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]] in Fortran order.
/// let f = NpyArray::from_vec((0..12i32).collect(), vec![4, 3]).unwrap().to_array().to_fortran_order();
/// let mut rows = RowReader::new(Cursor::new(to_vec(&f).unwrap()), &ReadOptions::default()).unwrap();
/// let part = rows.read_rows(1..3).unwrap();
/// assert_eq!(part.shape(), &[2, 3]);
/// assert_eq!(part.to_c_order().data(), &ArrayData::I32(vec![3, 4, 5, 6, 7, 8].into()));
/// ```
#[derive(Debug)]
pub struct RowReader<R> {
    reader: R,
    header: Header,
    /// Stream position of the file's first byte.
    base: u64,
    /// The read buffer, kept between reads (at most about [`CHUNK`] bytes).
    buf: Vec<u8>,
}

impl RowReader<File> {
    /// Opens `path` and validates it ([`RowReader::new`]).
    pub fn open(path: impl AsRef<Path>, opts: &ReadOptions) -> Result<RowReader<File>> {
        Opened::path(path, opts)?.into_rows()
    }
}

impl<R: Read + Seek> RowReader<R> {
    /// Reads and validates the header of the `.npy` that starts at `reader`'s position and
    /// checks the input's length as a full read would (size limit, truncation, trailing
    /// bytes): [`Opened::seekable`]. No payload byte is read.
    pub fn new(reader: R, opts: &ReadOptions) -> Result<RowReader<R>> {
        Opened::seekable(reader, opts)?.into_rows()
    }

    /// The whole file's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Rows of the first axis (1 for a 0-d array).
    pub fn num_rows(&self) -> usize {
        self.header.shape().first().copied().unwrap_or(1)
    }

    /// Rows `rows` of the first axis as an array of shape `(rows.len(), ...)` in the file's
    /// memory order, reading only their bytes. A 0-d array is one row.
    /// [`ErrorKind::InvalidInput`] for rows outside the array.
    pub fn read_rows(&mut self, rows: Range<usize>) -> Result<Array> {
        if self.header.shape().is_empty() {
            return self.read_whole(rows);
        }
        let n = check_rows(&self.header, &rows)?;
        let sub = self.header.with_rows(n)?;
        let data = if sub.payload_len() > 0 {
            // Rows with bytes: the table's rows and columns are backed.
            let table = Table::of(&self.header)?;
            self.read_runs(table.row_runs(rows), sub.element_count())?
        } else {
            ArrayData::with_capacity(sub.dtype(), 0)
        };
        Ok(Array::from_parts(sub, data))
    }

    /// Column `col` (C-order index over the trailing axes, as [`Table`] numbers columns) of
    /// rows `rows`, as a 1-D array of `rows.len()` elements, reading only that column's
    /// bytes: one run in a Fortran-order file (a column projection), one element per row in
    /// C order (where whole rows by [`read_rows`](RowReader::read_rows) are fewer reads).
    /// [`ErrorKind::InvalidInput`] for rows or a column outside the table.
    ///
    /// ```
    /// use npyguard::{write::to_vec, ArrayData, NpyArray, ReadOptions, RowReader};
    /// use std::io::Cursor;
    /// // [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]] in Fortran order.
    /// let f = NpyArray::from_vec((0..12i32).collect(), vec![4, 3]).unwrap().to_array().to_fortran_order();
    /// let mut rows = RowReader::new(Cursor::new(to_vec(&f).unwrap()), &ReadOptions::default()).unwrap();
    /// let col = rows.read_column(2, 1..4).unwrap();
    /// assert_eq!(col.data(), &ArrayData::I32(vec![5, 8, 11].into()));
    /// ```
    pub fn read_column(&mut self, col: usize, rows: Range<usize>) -> Result<Array> {
        let table = Table::of(&self.header)?;
        let (total, cols) = (table.rows(), table.cols());
        if rows.start > rows.end || rows.end > total || col >= cols {
            return Err(Error::unplaced(
                ErrorKind::InvalidInput,
                format!("a row range inside 0..{total} and a column below {cols}"),
            )
            .found(format!("rows {}..{}, column {col}", rows.start, rows.end)));
        }
        let n = rows.end.saturating_sub(rows.start);
        let data = self.read_runs(table.column_runs(col, rows), n)?;
        Ok(Array::from_parts(self.header.column(n)?, data))
    }

    /// Consecutive chunks of `rows_per_chunk` rows (at least 1) covering the array, in order;
    /// an array without rows gives one empty chunk (so its dtype and shape are seen), and an
    /// array whose payload is empty (shape `(2**40, 0)`) one chunk of all its rows: no byte
    /// pays for more chunks, so the number of chunks is bounded by the payload's bytes.
    pub fn into_chunks(mut self, rows_per_chunk: usize) -> impl Iterator<Item = Result<Array>> {
        let total = self.num_rows();
        let step = if self.header.payload_len() == 0 {
            total.max(1)
        } else {
            rows_per_chunk.max(1)
        };
        let mut next = Some(0usize);
        std::iter::from_fn(move || {
            let start = next?;
            let end = start.saturating_add(step).min(total);
            next = (end < total).then_some(end);
            Some(self.read_rows(start..end))
        })
    }

    /// The input back.
    pub fn into_inner(self) -> R {
        self.reader
    }

    /// The elements of payload byte ranges `runs`, read one after the other (`elements` in
    /// all), through the reader's one read buffer.
    fn read_runs(
        &mut self,
        runs: impl Iterator<Item = Range<u64>>,
        elements: usize,
    ) -> Result<ArrayData> {
        let mut data = ArrayData::with_capacity(self.header.dtype(), elements);
        let mut buf = std::mem::take(&mut self.buf);
        let at = self.header.payload_offset();
        for run in runs {
            let len = usize::try_from(run.end.saturating_sub(run.start)).unwrap_or(usize::MAX);
            let read = self.read_segment(at.saturating_add(run.start), len, &mut data, &mut buf);
            if let Err(e) = read {
                self.buf = buf;
                return Err(e);
            }
        }
        self.buf = buf;
        Ok(data)
    }

    /// A 0-d array is one row: rows `0..1` are the array, an empty range an empty 1-D array.
    fn read_whole(&mut self, rows: Range<usize>) -> Result<Array> {
        if rows.start > rows.end || rows.end > 1 {
            return Err(
                Error::unplaced(ErrorKind::InvalidInput, "a row range inside 0..1")
                    .found(format!("{}..{} of a 0-d array", rows.start, rows.end)),
            );
        }
        let mut data = ArrayData::with_capacity(self.header.dtype(), 1);
        if rows.is_empty() {
            let h = Header::new(self.header.dtype().clone(), vec![0], false)?;
            return Ok(Array::from_parts(h, data));
        }
        let (at, len) = (self.header.payload_offset(), self.header.payload_len());
        self.read_segment(at, len, &mut data, &mut Vec::new())?;
        Ok(Array::from_parts(self.header.with_rows(1)?, data))
    }

    /// Reads `len` bytes at file offset `at` and decodes them into `data`, through `buf`
    /// (grown to at most about [`CHUNK`] bytes, a whole number of elements, and kept by the
    /// caller for its next segment).
    fn read_segment(
        &mut self,
        at: u64,
        len: usize,
        data: &mut ArrayData,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        let size = self.header.dtype().itemsize();
        let piece = elements_in(CHUNK, size).saturating_mul(size.max(1));
        if buf.len() < piece.min(len) {
            buf.resize(piece.min(len), 0);
        }
        let pos = self.base.saturating_add(at);
        self.reader
            .seek(SeekFrom::Start(pos))
            .map_err(|e| Error::io(at, e))?;
        let mut done = 0usize;
        while done < len {
            let k = piece.min(len.saturating_sub(done));
            let chunk = buf.get_mut(..k).unwrap_or_default();
            let off = at.saturating_add(done as u64);
            self.reader.read_exact(chunk).map_err(|e| match e.kind() {
                IoKind::UnexpectedEof => {
                    Error::new(ErrorKind::Truncated, off, format!("{k} more payload bytes"))
                        .found("end of input (the file shrank after it was checked)")
                }
                _ => Error::io(off, e),
            })?;
            data.push_bytes(self.header.dtype(), chunk, off)?;
            done = done.saturating_add(k);
        }
        Ok(())
    }
}

/// Consecutive row chunks of a `.npy` read from any `Read`, with the checks of a full read
/// (an array whose payload is empty comes as one chunk, so chunks never outnumber the
/// payload's bytes): each item is an array of shape `(k, ...)` with `k` at most the chunk size; after the last
/// row, the end of the input is checked (trailing bytes refused unless
/// [`allow_trailing_bytes`](ReadOptions::with_allow_trailing_bytes)). Memory is one chunk.
///
/// ```
/// use npyguard::{write::to_vec, ArrayData, NpyArray, ReadOptions, RowChunks};
/// let file = to_vec(&NpyArray::from_vec((0..10u8).collect(), vec![5, 2]).unwrap().to_array()).unwrap();
/// let chunks: Vec<_> = RowChunks::new(&file[..], 2, &ReadOptions::default())
///     .unwrap()
///     .collect::<Result<_, _>>()
///     .unwrap();
/// assert_eq!(chunks.len(), 3);
/// assert_eq!(chunks[2].shape(), &[1, 2]);
/// assert_eq!(chunks[2].data(), &ArrayData::U8(vec![8, 9].into()));
/// ```
#[derive(Debug)]
pub struct RowChunks<R> {
    reader: R,
    header: Header,
    step: usize,
    /// The next row; `None` once the end was checked (or an error was returned).
    next: Option<usize>,
    /// File offset of the next byte.
    offset: u64,
    allow_trailing: bool,
}

impl<R: Read> RowChunks<R> {
    /// Reads and validates the header. A Fortran-order array of more than one dimension
    /// comes as one chunk (its rows are not contiguous and a stream cannot seek: use
    /// [`RowReader`] on a seekable input to gather them with bounded memory).
    pub fn new(reader: R, rows_per_chunk: usize, opts: &ReadOptions) -> Result<RowChunks<R>> {
        Ok(Opened::stream(reader, opts)?.into_chunks(rows_per_chunk))
    }

    /// The whole file's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The input (for a wrapper that checks what the reader saw: `npz::MemberChunks`).
    #[cfg_attr(not(feature = "npz"), allow(dead_code))]
    pub(crate) fn reader_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// The same chunks with `rows_per_chunk` rows each (at least 1), for a size chosen after
    /// seeing the [`header`](RowChunks::header).
    #[must_use]
    pub fn with_rows_per_chunk(mut self, rows_per_chunk: usize) -> RowChunks<R> {
        self.set_rows_per_chunk(rows_per_chunk);
        self
    }

    /// Sets the rows of the chunks still to come (at least 1).
    pub(crate) fn set_rows_per_chunk(&mut self, rows_per_chunk: usize) {
        self.step = rows_per_chunk.max(1);
    }

    fn chunk(&mut self, start: usize) -> Result<Array> {
        let h = &self.header;
        // One chunk: a 0-d array; a Fortran-order array of more than one dimension (its
        // rows cannot be gathered from a stream); an empty payload (no byte pays for more
        // chunks: shape `(2**40, 0)` must not loop 2**40 times).
        let whole = h.shape().is_empty()
            || (h.fortran_order() && h.shape().len() > 1)
            || h.payload_len() == 0;
        let total = h.shape().first().copied().unwrap_or(1);
        let end = if whole {
            total
        } else {
            start.saturating_add(self.step).min(total)
        };
        let sub = if whole {
            h.clone()
        } else {
            row_span(h, &(start..end))?.0
        };
        // The decoder grows its storage as bytes arrive (a header may claim rows that
        // the stream does not hold) and carries partial elements between reads.
        let sink = ArrayData::with_capacity(sub.dtype(), 0);
        let mut dec = Decoder::with_sink(sub, sink);
        dec.set_offset(self.offset);
        fill(&mut dec, &mut self.reader)?;
        dec.check_complete()?;
        self.offset = dec.offset();
        if end >= total {
            check_end(&mut self.reader, self.offset, self.allow_trailing)?;
        } else {
            self.next = Some(end);
        }
        let (sub, data) = dec.into_parts();
        Ok(Array::from_parts(sub, data))
    }
}

impl<R: Read> Iterator for RowChunks<R> {
    type Item = Result<Array>;

    fn next(&mut self) -> Option<Result<Array>> {
        let start = self.next.take()?;
        Some(self.chunk(start))
    }
}
