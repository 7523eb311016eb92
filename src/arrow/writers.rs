//! Arrow IPC, CSV and Parquet writers for a [`Dataset`], with progress and statistics.

use crate::arrow::plan::Layout;
use crate::arrow::stream::BatchSource;
use crate::arrow::stream::WriteStats;
use crate::arrow::support::arrow_err;
use crate::arrow::support::out_of_range;
use std::io::Write;
use std::sync::Arc;

use arrow_array::{Array as _, RecordBatch, RecordBatchOptions, StructArray};
use arrow_schema::{DataType, FieldRef, Schema};

use crate::error::{Error, ErrorKind, Result};

/// Writes `ds` as an Arrow IPC file (the random-access "Feather v2" format), batch by batch.
/// `rows_per_batch` 0 means [`Dataset::default_batch_rows`](crate::arrow::Dataset::default_batch_rows); `progress` is called with the
/// input rows done after each batch.
///
/// ```
/// use npyguard::{arrow::{self, Dataset, Layout}, NpyArray};
/// let a = NpyArray::from_vec(vec![1.5f32, 0.0, 2.5], vec![3]).unwrap().to_array();
/// let ds = Dataset::new(a, Layout::Columns).unwrap();
/// let mut out = Vec::new();
/// let stats = arrow::write_ipc(&ds, &mut out, 2, |_| {}).unwrap();
/// assert_eq!((stats.rows, stats.batches), (3, 2));
/// assert!(out.starts_with(b"ARROW1"));
/// ```
pub fn write_ipc<W: Write>(
    ds: impl BatchSource,
    out: W,
    rows_per_batch: usize,
    mut progress: impl FnMut(usize),
) -> Result<WriteStats> {
    let mut w = arrow_ipc::writer::FileWriter::try_new(out, &ds.schema()).map_err(arrow_err)?;
    let stats = ds.drive(rows_per_batch, &mut progress, &mut |b| {
        if b.num_rows() > 0 {
            w.write(b).map_err(arrow_err)?;
        }
        Ok(())
    })?;
    w.finish().map_err(arrow_err)?;
    Ok(stats)
}

/// The batch with each struct column (complex numbers) replaced by its fields, named
/// `<column>_<field>` (`c1_re`, `c1_im`); list columns are refused.
pub(super) fn csv_flat(batch: &RecordBatch) -> Result<RecordBatch> {
    // Field pointers, not fields (8 bytes a column: see `plan::fields`).
    let mut fields: Vec<FieldRef> = Vec::new();
    let mut columns = Vec::new();
    for (f, c) in batch.schema().fields().iter().zip(batch.columns()) {
        match f.data_type() {
            DataType::Struct(parts) => {
                let s = c
                    .as_any()
                    .downcast_ref::<StructArray>()
                    .ok_or_else(out_of_range)?;
                for (p, col) in parts.iter().zip(s.columns()) {
                    fields.push(Arc::new(p.as_ref().clone().with_name(format!(
                        "{}_{}",
                        f.name(),
                        p.name()
                    ))));
                    columns.push(Arc::clone(col));
                }
            }
            DataType::FixedSizeList(..) => {
                return Err(Error::unplaced(
                    ErrorKind::InvalidInput,
                    "a layout without lists for CSV (columns or nonzeros)",
                )
                .found("row lists"))
            }
            _ => {
                fields.push(Arc::clone(f));
                columns.push(Arc::clone(c));
            }
        }
    }
    let schema = Schema::new_with_metadata(fields, batch.schema().metadata().clone());
    let opts = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    RecordBatch::try_new_with_options(Arc::new(schema), columns, &opts).map_err(arrow_err)
}

/// Writes `ds` as CSV with a header line (via `arrow-csv`): complex columns become two
/// columns `cN_re`, `cN_im`; binary values are written as hex, NaT as an empty field;
/// row lists are refused. Arguments as for [`write_ipc`].
///
/// ```
/// use npyguard::{arrow::{self, Dataset, Layout}, NpyArray};
/// let a = NpyArray::from_vec(vec![0i16, 7, 0, -2], vec![2, 2]).unwrap().to_array();
/// let ds = Dataset::new(a, Layout::NonZeros).unwrap();
/// let mut out = Vec::new();
/// arrow::write_csv(&ds, &mut out, 0, |_| {}).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap(), "row_no,col_no,val\n0,1,7\n1,1,-2\n");
/// ```
pub fn write_csv<W: Write>(
    ds: impl BatchSource,
    out: W,
    rows_per_batch: usize,
    mut progress: impl FnMut(usize),
) -> Result<WriteStats> {
    if ds.layout() == Layout::RowLists {
        return Err(Error::unplaced(
            ErrorKind::InvalidInput,
            "a layout without lists for CSV (columns or nonzeros)",
        )
        .found("rowlists"));
    }
    let mut w = arrow_csv::WriterBuilder::new().with_header(true).build(out);
    let mut wrote_any = false;
    let stats = ds.drive(rows_per_batch, &mut progress, &mut |b| {
        if b.num_rows() > 0 || !wrote_any {
            w.write(&csv_flat(b)?).map_err(arrow_err)?;
            wrote_any = true;
        }
        Ok(())
    })?;
    Ok(stats)
}

/// Parquet options for [`write_parquet`].
///
/// The writer's memory beyond the input array and the batch being written is about one
/// row group: its encoded pages plus, with dictionary encoding, 8 bytes per value not yet
/// in a page. Row groups are therefore closed by size (`max_row_group_bytes` of input
/// values), not only by rows, and pages hold at most `data_page_rows` rows.
///
/// ```
/// let o = npyguard::arrow::ParquetOptions::default();
/// assert_eq!(o.max_row_group_rows, 1 << 20);
/// assert_eq!(o.max_row_group_bytes, 64 << 20);
/// assert_eq!(o.dictionary_page_bytes, 64 << 10);
/// ```
#[cfg(feature = "parquet")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParquetOptions {
    /// Most rows in one row group.
    pub max_row_group_rows: usize,
    /// Most bytes of input values in one row group (a 2 000-column `f4` array gets
    /// 8 388 rows per group at 64 MiB); also the cap on the writer's buffered size.
    pub max_row_group_bytes: usize,
    /// Most rows in one data page.
    pub data_page_rows: usize,
    /// Most bytes of one column's dictionary (per row group); a column with more distinct
    /// values falls back to plain encoding. Each column keeps its dictionary and its hash
    /// table in memory while a row group is written, so this bounds the writer's memory per
    /// column: at Parquet's usual 1 MiB, a 64-column `f4` array of random values held about
    /// 150 MiB of dictionaries that compressed nothing (and took 3x the time).
    pub dictionary_page_bytes: usize,
}

#[cfg(feature = "parquet")]
impl Default for ParquetOptions {
    fn default() -> ParquetOptions {
        ParquetOptions {
            max_row_group_rows: 1 << 20,
            max_row_group_bytes: 64 << 20,
            data_page_rows: 8192,
            dictionary_page_bytes: 64 << 10,
        }
    }
}

/// A Parquet writer's error: the output's I/O error as one (a closed pipe, a full disk:
/// the writer wraps them as `External`), anything else as a refused batch.
#[cfg(feature = "parquet")]
pub(super) fn parquet_err(e: parquet::errors::ParquetError) -> Error {
    let e = match e {
        parquet::errors::ParquetError::External(inner) => {
            match inner.downcast::<std::io::Error>() {
                Ok(io) => return Error::os("cannot write the dataset", *io),
                Err(other) => other.to_string(),
            }
        }
        other => other.to_string(),
    };
    Error::unplaced(ErrorKind::Arrow, "a batch the Parquet writer accepts").found(e)
}

/// Writes `ds` as a Parquet file (snappy-compressed; the Arrow schema with its
/// metadata is embedded, so unsigned, Float16, timestamp and list types read back as
/// written). Arguments as for [`write_ipc`]. Feature `parquet`.
///
/// ```
/// use npyguard::{arrow::{self, Dataset, Layout, ParquetOptions}, NpyArray};
/// let a = NpyArray::from_vec(vec![7u32, 0, 9, 0], vec![2, 2]).unwrap().to_array();
/// let ds = Dataset::new(a, Layout::Columns).unwrap();
/// let mut out = Vec::new();
/// let stats = arrow::write_parquet(&ds, &mut out, 0, &ParquetOptions::default(), |_| {}).unwrap();
/// assert_eq!(stats.rows, 2);
/// assert!(out.starts_with(b"PAR1") && out.ends_with(b"PAR1"));
/// ```
#[cfg(feature = "parquet")]
pub fn write_parquet<W: Write + Send>(
    ds: impl BatchSource,
    out: W,
    rows_per_batch: usize,
    opts: &ParquetOptions,
    mut progress: impl FnMut(usize),
) -> Result<WriteStats> {
    use parquet::arrow::ArrowWriter;
    use parquet::basic::Compression;
    use parquet::file::properties::WriterProperties;

    // Output rows whose values fit max_row_group_bytes.
    let group_rows = opts
        .max_row_group_bytes
        .checked_div(ds.out_row_bytes().max(1))
        .unwrap_or(1)
        .clamp(1, opts.max_row_group_rows.max(1));
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_size(group_rows)
        .set_data_page_row_count_limit(opts.data_page_rows.max(1))
        .set_dictionary_page_size_limit(opts.dictionary_page_bytes.max(1))
        .build();
    let mut w = ArrowWriter::try_new(out, ds.schema(), Some(props)).map_err(parquet_err)?;
    let stats =
        ds.drive(rows_per_batch, &mut progress, &mut |b| {
            if b.num_rows() > 0 && b.num_columns() == 0 {
                // Parquet counts rows by their column chunks: rows without columns would be
                // written as a file of 0 rows.
                return Err(Error::unplaced(
                ErrorKind::InvalidInput,
                "columns for Parquet to hold rows (Arrow IPC and CSV keep rows without columns)",
            )
            .found(format!("{} rows of no column (an array of shape (n, 0))", b.num_rows())));
            }
            if b.num_rows() > 0 {
                w.write(b).map_err(parquet_err)?;
                if w.in_progress_size() >= opts.max_row_group_bytes {
                    w.flush().map_err(parquet_err)?;
                }
            }
            Ok(())
        })?;
    w.close().map_err(parquet_err)?;
    Ok(stats)
}
