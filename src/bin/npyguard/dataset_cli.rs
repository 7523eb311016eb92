//! `convert --to parquet|arrow|csv`: an array as a dataset file (feature `cli-datasets`).
//!
//! A `.npy` input is read chunk by chunk under the usual limits (a regular file through
//! `RowReader`, touching only each chunk's bytes and gathering Fortran-order rows; a FIFO
//! through `RowChunks`) and each chunk is converted and written before the next is read
//! (`npyguard::arrow::ChunkedDataset`): memory is one chunk of about 8 MiB of input rows
//! (`--batch-rows` rows when given), its batch, and for Parquet the row group being encoded
//! (closed at 32 MiB), whatever the file's size. A `.npz` member, stored or deflated,
//! streams the same way through the archive's limits (`NpzArchive::row_chunks`; its CRC is
//! checked after the last chunk).
//! A progress bar is drawn on stderr when it is a terminal and the input takes more than
//! one batch; otherwise the command is silent.
//!
//! Built without `cli-datasets`, `--to` is refused before the input is read.

use crate::input::Failure;
use std::path::Path;
use std::process::ExitCode;

use npyguard::Header;

use crate::input::Chunks;

/// Input bytes in one chunk of a streamed conversion (rows of at most this many bytes,
/// at least one row).
const CHUNK_BYTES: usize = 8 << 20;

/// Most rows in one chunk (as `npyguard::arrow::DEFAULT_BATCH_ROWS`).
const MAX_CHUNK_ROWS: usize = 65_536;

/// What a build without the feature says when `--to` is given.
const UNAVAILABLE: &str = "--to needs dataset support, which this npyguard was built without: \
     rebuild with `cargo build --features cli-datasets` (adds Arrow, Parquet and ndarray)";

/// Dataset file formats.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Apache Parquet (snappy), with the Arrow schema embedded.
    Parquet,
    /// Arrow IPC file (Feather v2).
    Arrow,
    /// CSV with a header line (complex numbers as two columns; no row lists).
    Csv,
}

/// Table layouts (see `npyguard::arrow::Layout`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LayoutArg {
    /// One column per NumPy column: c1, c2, ... (1-D: c1).
    #[default]
    Columns,
    /// One list-valued column c1, a fixed-size list per row (2-D only).
    Rowlists,
    /// row_no, col_no, val of the non-zero elements, row-major (1-D: col_no = 0).
    Nonzeros,
}

/// The `convert` options for dataset output.
#[derive(clap::Args, Clone, Debug)]
pub struct DatasetArgs {
    /// Write a dataset instead of .npy (needs a build with --features cli-datasets).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub to: Option<Format>,
    /// With --to: the table layout [default: columns].
    #[arg(long, value_enum, requires = "to")]
    pub layout: Option<LayoutArg>,
    /// With --to: input rows per batch (default: up to 65536, fewer for wide rows).
    #[arg(long, value_name = "N", requires = "to", value_parser = parse_rows)]
    pub batch_rows: Option<usize>,
}

fn parse_rows(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("expected a positive number of rows, found {s:?}")),
    }
}

/// Refuses `--to` early (before the input is read) when it cannot be honoured.
pub fn check(args: &DatasetArgs, c_order: bool) -> Result<(), String> {
    if args.to.is_none() {
        return Ok(());
    }
    if c_order {
        return Err("--c-order applies to .npy output; datasets are always in row order".into());
    }
    if args.to == Some(Format::Csv) && args.layout == Some(LayoutArg::Rowlists) {
        return Err("CSV has no list type: use --layout columns or nonzeros with --to csv".into());
    }
    if cfg!(feature = "cli-datasets") {
        Ok(())
    } else {
        Err(UNAVAILABLE.into())
    }
}

/// What is converted: a `.npy` (or an archive member), as its header and its row chunks.
#[cfg_attr(not(feature = "cli-datasets"), allow(dead_code))]
pub struct Source<'a>(pub Header, pub Chunks<'a>);

/// Rows per chunk of a streamed conversion: `--batch-rows`, else as many rows as fit
/// [`CHUNK_BYTES`] (at least 1, at most [`MAX_CHUNK_ROWS`]).
pub fn chunk_rows(header: &Header, args: &DatasetArgs) -> usize {
    let row_bytes = header
        .shape()
        .get(1..)
        .unwrap_or_default()
        .iter()
        .fold(header.dtype().itemsize().max(1), |b, &d| {
            b.saturating_mul(d)
        });
    args.batch_rows
        .unwrap_or_else(|| (CHUNK_BYTES / row_bytes.max(1)).clamp(1, MAX_CHUNK_ROWS))
}

/// Writes `source` (read from `input`) to `output` as the dataset `args` asks for.
#[cfg(not(feature = "cli-datasets"))]
pub fn convert(
    _source: Source<'_>,
    _input: &Path,
    _output: &Path,
    _args: &DatasetArgs,
) -> Result<ExitCode, Failure> {
    Err(UNAVAILABLE.into())
}

/// Writes `source` (read from `input`) to `output` as the dataset `args` asks for.
#[cfg(feature = "cli-datasets")]
pub fn convert(
    source: Source<'_>,
    input: &Path,
    output: &Path,
    args: &DatasetArgs,
) -> Result<ExitCode, Failure> {
    use npyguard::arrow::{ChunkedDataset, Layout};
    use std::cell::RefCell;
    use std::rc::Rc;

    let layout = match args.layout.unwrap_or_default() {
        LayoutArg::Columns => Layout::Columns,
        LayoutArg::Rowlists => Layout::RowLists,
        LayoutArg::Nonzeros => Layout::NonZeros,
    };
    // The input does not fit the layout, or would need work no byte of it backs: an
    // input error (exit 1), like any other refusal of the input.
    let refused = |h: &Header, e: npyguard::Error| {
        eprintln!(
            "npyguard: cannot write a {} array of shape {:?} as {}: {e}",
            h.dtype().typestr(),
            h.shape(),
            layout.name()
        );
        Ok(ExitCode::from(1))
    };
    // A chunk that cannot be read is the input's error, not the output's: keep it aside
    // and report it against the input.
    let Source(header, chunks) = source;
    let input_error: Rc<RefCell<Option<npyguard::Error>>> = Rc::default();
    let slot = Rc::clone(&input_error);
    let chunks = chunks.map(move |c| {
        c.map_err(|e| {
            *slot.borrow_mut() = Some(e);
            npyguard::Error::unplaced(
                npyguard::ErrorKind::InvalidInput,
                "a readable input (see the input's error)",
            )
        })
    });
    let ds = match ChunkedDataset::new(&header, layout, chunks) {
        Ok(ds) => ds,
        Err(e) => return refused(&header, e),
    };
    let rows = ds.num_input_rows();
    let batch = chunk_rows(&header, args);
    let written = write_dataset(ds, rows, batch, layout, input, output, args);
    match input_error.take() {
        Some(e) => crate::report::fail_code(input, e),
        None => written,
    }
}

/// Writes the batches of `source` (`rows` input rows, `batch` per batch) to `output`,
/// with a progress bar on a terminal; on failure the output is left as it was
/// ([`Output`](crate::output::Output)).
#[cfg(feature = "cli-datasets")]
fn write_dataset(
    source: impl npyguard::arrow::BatchSource,
    rows: usize,
    batch: usize,
    layout: npyguard::arrow::Layout,
    input: &Path,
    output: &Path,
    args: &DatasetArgs,
) -> Result<ExitCode, Failure> {
    use npyguard::arrow::{self, ParquetOptions};
    use std::io::{BufWriter, IsTerminal, Write};

    let Some(format) = args.to else {
        return Err("--to is required for a dataset".into());
    };
    let bar = (std::io::stderr().is_terminal() && rows > batch).then(|| {
        let bar = indicatif::ProgressBar::new(rows as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{msg} [{bar:40}] {human_pos}/{human_len} rows, {elapsed} (eta {eta})",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(format!("{} → {}", layout.name(), output.display()));
        bar
    });
    let progress = |done: usize| {
        if let Some(b) = &bar {
            b.set_position(done as u64);
        }
    };
    // Row groups of at most 32 MiB of input values: with an 8 MiB chunk and its batch, the
    // process stays near 100 MiB (benches/stream_bench.py).
    let parquet = ParquetOptions {
        max_row_group_bytes: 32 << 20,
        ..ParquetOptions::default()
    };
    let mut dest = crate::output::Output::open(output, input)?;
    let mut out = BufWriter::with_capacity(1 << 20, dest.writer());
    let written = match format {
        Format::Parquet => arrow::write_parquet(source, &mut out, batch, &parquet, progress),
        Format::Arrow => arrow::write_ipc(source, &mut out, batch, progress),
        Format::Csv => arrow::write_csv(source, &mut out, batch, progress),
    }
    .and_then(|stats| {
        out.flush()
            .map_err(|e| npyguard::Error::os("cannot write the output", e))
            .map(|()| stats)
    });
    drop(out);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    // On failure `dest` is dropped: its temporary file goes, the destination is untouched.
    match written {
        // The input cannot be written in this format (rows without columns for Parquet, a
        // `U` value no UTF-8 text holds): the input's refusal (exit 1), not an OS error.
        Err(e)
            if matches!(
                e.category(),
                npyguard::Category::Format | npyguard::Category::Limit | npyguard::Category::Usage
            ) =>
        {
            eprintln!("npyguard: cannot write {}: {e}", output.display());
            return Ok(ExitCode::from(1));
        }
        Err(e) => return Err(crate::output::write_error(output, &e)),
        Ok(_) => {}
    }
    dest.commit()?;
    Ok(ExitCode::SUCCESS)
}
