//! What the writers write ([`BatchSource`]): a whole [`Dataset`], or a [`ChunkedDataset`]
//! whose rows arrive in chunks and are converted and written one chunk at a time.

use crate::arrow::dataset::Dataset;
use crate::arrow::plan::Layout;
use crate::arrow::plan::Plan;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::data::array::Array;
use crate::error::{Error, ErrorKind, Result};
use crate::format::header::Header;

/// What the writers count.
///
/// ```
/// let s = npyguard::arrow::WriteStats::default();
/// assert_eq!((s.input_rows, s.rows, s.batches), (0, 0, 0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WriteStats {
    /// Input (NumPy) rows converted.
    pub input_rows: usize,
    /// Table rows written.
    pub rows: usize,
    /// Batches produced.
    pub batches: usize,
}

mod sealed {
    pub trait Sealed {}
}

/// What [`write_parquet`](crate::arrow::write_parquet), [`write_ipc`](crate::arrow::write_ipc)
/// and [`write_csv`](crate::arrow::write_csv) write: `&Dataset` (an array in memory) or a
/// [`ChunkedDataset`] (an array read chunk by chunk). Sealed.
pub trait BatchSource: sealed::Sealed {
    /// The schema of every batch.
    fn schema(&self) -> SchemaRef;
    /// The layout.
    fn layout(&self) -> Layout;
    /// Bytes of one output row's values (for Parquet row-group sizing).
    #[doc(hidden)]
    fn out_row_bytes(&self) -> usize;
    /// Passes every batch of `rows_per_batch` input rows (0: the default) to `sink`, in
    /// order, reporting the input rows done to `progress`.
    #[doc(hidden)]
    fn drive(
        self,
        rows_per_batch: usize,
        progress: &mut dyn FnMut(usize),
        sink: &mut dyn FnMut(&RecordBatch) -> Result<()>,
    ) -> Result<WriteStats>;
}

impl sealed::Sealed for &Dataset {}

impl BatchSource for &Dataset {
    fn schema(&self) -> SchemaRef {
        Dataset::schema(self)
    }

    fn layout(&self) -> Layout {
        Dataset::layout(self)
    }

    fn out_row_bytes(&self) -> usize {
        self.plan.out_row_bytes
    }

    fn drive(
        self,
        rows_per_batch: usize,
        progress: &mut dyn FnMut(usize),
        sink: &mut dyn FnMut(&RecordBatch) -> Result<()>,
    ) -> Result<WriteStats> {
        let mut stats = WriteStats::default();
        let mut it = self.batches(rows_per_batch);
        while let Some(rows) = it.next_rows() {
            let Some(batch) = it.next() else { break };
            let batch = batch?;
            sink(&batch)?;
            stats.input_rows = rows.end;
            stats.rows = stats.rows.saturating_add(batch.num_rows());
            stats.batches = stats.batches.saturating_add(1);
            progress(rows.end);
        }
        Ok(stats)
    }
}

/// An array converted chunk by chunk: the chunks (consecutive rows, from
/// [`RowChunks`](crate::RowChunks) or [`RowReader::into_chunks`](crate::RowReader::into_chunks)) are
/// read, converted and written one at a time, so memory is one chunk and its batch, not the
/// array. The schema, batch sizing and `row_no`s are the whole array's: the output is the
/// one [`Dataset`] of the whole array would give.
///
/// ```
/// use npyguard::{arrow::{self, ChunkedDataset, Dataset, Layout}, write::to_vec, NpyArray, ReadOptions, RowChunks};
/// let a = NpyArray::from_vec(vec![0i32, 3, 0, 0, 5, 6, 0, 7], vec![4, 2]).unwrap();
/// let file = to_vec(&a.to_array()).unwrap();
/// let chunks = RowChunks::new(&file[..], 1, &ReadOptions::default()).unwrap();
/// let header = chunks.header().clone();
/// let streamed = ChunkedDataset::new(&header, Layout::NonZeros, chunks).unwrap();
/// let (mut a_csv, mut b_csv) = (Vec::new(), Vec::new());
/// arrow::write_csv(streamed, &mut a_csv, 0, |_| {}).unwrap();
/// let whole = Dataset::new(a.to_array(), Layout::NonZeros).unwrap();
/// arrow::write_csv(&whole, &mut b_csv, 0, |_| {}).unwrap();
/// assert_eq!(a_csv, b_csv);
/// assert!(String::from_utf8(a_csv).unwrap().ends_with("3,1,7\n"));
/// ```
#[derive(Debug)]
pub struct ChunkedDataset<I> {
    plan: Plan,
    chunks: I,
}

impl<I: Iterator<Item = Result<Array>>> ChunkedDataset<I> {
    /// The dataset of the array `header` describes, whose rows `chunks` yields in order.
    /// Refuses what [`Dataset::new`] refuses for that array; each chunk must have the
    /// header's dtype and trailing shape, and the chunks must cover its rows exactly.
    pub fn new(header: &Header, layout: Layout, chunks: I) -> Result<ChunkedDataset<I>> {
        Ok(ChunkedDataset {
            plan: Plan::new(header, layout)?,
            chunks,
        })
    }

    /// Rows of the whole array.
    pub fn num_input_rows(&self) -> usize {
        self.plan.geom.rows()
    }

    /// Input rows per batch as [`Dataset::default_batch_rows`] chooses them for the whole
    /// array (a good chunk size: one batch per chunk).
    pub fn default_batch_rows(&self) -> usize {
        self.plan.default_batch_rows()
    }
}

impl<I> sealed::Sealed for ChunkedDataset<I> {}

impl<I: Iterator<Item = Result<Array>>> BatchSource for ChunkedDataset<I> {
    fn schema(&self) -> SchemaRef {
        SchemaRef::clone(&self.plan.schema)
    }

    fn layout(&self) -> Layout {
        self.plan.layout
    }

    fn out_row_bytes(&self) -> usize {
        self.plan.out_row_bytes
    }

    fn drive(
        self,
        rows_per_batch: usize,
        progress: &mut dyn FnMut(usize),
        sink: &mut dyn FnMut(&RecordBatch) -> Result<()>,
    ) -> Result<WriteStats> {
        let rows_per_batch = match rows_per_batch {
            0 => self.plan.default_batch_rows(),
            n => n,
        };
        let mut stats = WriteStats::default();
        let mut first = 0usize;
        for chunk in self.chunks {
            let part = Dataset::part(chunk?, &self.plan, first)?;
            let mut done = |rows: usize| progress(first.saturating_add(rows));
            let s = (&part).drive(rows_per_batch, &mut done, sink)?;
            first = first.saturating_add(part.num_input_rows());
            stats.input_rows = first;
            stats.rows = stats.rows.saturating_add(s.rows);
            stats.batches = stats.batches.saturating_add(s.batches);
        }
        if first != self.plan.geom.rows() {
            return Err(Error::unplaced(
                ErrorKind::InvalidInput,
                format!("chunks covering the array's {} rows", self.plan.geom.rows()),
            )
            .found(format!("{first} rows")));
        }
        Ok(stats)
    }
}
