//! `convert --to parquet|arrow|csv`: an array as a dataset file (feature `cli-datasets`).
//!
//! The input (.npy, or a .npz member) is read under the usual limits, handed to
//! [`npyguard::arrow::Dataset`] without a copy, and written in batches of input rows
//! (`--batch-rows`, by default up to 65 536 and fewer for wide rows, so a batch stays
//! near 64 MiB): memory is the input array plus about one batch (plus, for Parquet,
//! the row group being encoded, closed at 128 MiB). A progress bar is drawn on stderr
//! when it is a terminal and the input takes more than one batch; otherwise the
//! command is silent.
//!
//! Built without `cli-datasets`, `--to` is refused before the input is read.

use std::path::Path;
use std::process::ExitCode;

use npyguard::Array;

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

/// Writes `array` to `output` as the dataset `args` asks for.
#[cfg(not(feature = "cli-datasets"))]
pub fn convert(_array: Array, _output: &Path, _args: &DatasetArgs) -> Result<ExitCode, String> {
    Err(UNAVAILABLE.into())
}

/// Writes `array` to `output` as the dataset `args` asks for.
#[cfg(feature = "cli-datasets")]
pub fn convert(array: Array, output: &Path, args: &DatasetArgs) -> Result<ExitCode, String> {
    use npyguard::arrow::{self, Dataset, Layout, ParquetOptions};
    use std::io::{BufWriter, IsTerminal, Write};

    let Some(format) = args.to else {
        return Err("--to is required for a dataset".into());
    };
    let layout = match args.layout.unwrap_or_default() {
        LayoutArg::Columns => Layout::Columns,
        LayoutArg::Rowlists => Layout::RowLists,
        LayoutArg::Nonzeros => Layout::NonZeros,
    };
    let shape = array.shape().to_vec();
    let dtype = array.dtype().typestr();
    // The input does not fit the layout, or would need work no byte of it backs: an
    // input error (exit 1), like any other refusal of the input.
    let ds = match Dataset::new(array, layout) {
        Ok(ds) => ds,
        Err(e) => {
            eprintln!(
                "npyguard: cannot write a {dtype} array of shape {shape:?} as {}: {e}",
                layout.name()
            );
            return Ok(ExitCode::from(1));
        }
    };
    let rows_per_batch = args.batch_rows.unwrap_or_else(|| ds.default_batch_rows());
    let total = ds.num_input_rows();
    let bar = (std::io::stderr().is_terminal() && total > rows_per_batch).then(|| {
        let bar = indicatif::ProgressBar::new(total as u64);
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

    let file = std::fs::File::create(output).map_err(|e| format!("{}: {e}", output.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let written = match format {
        Format::Parquet => arrow::write_parquet(
            &ds,
            &mut out,
            rows_per_batch,
            &ParquetOptions::default(),
            progress,
        ),
        Format::Arrow => arrow::write_ipc(&ds, &mut out, rows_per_batch, progress),
        Format::Csv => arrow::write_csv(&ds, &mut out, rows_per_batch, progress),
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
    match written {
        Ok(_) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            // Leave no half-written dataset behind.
            let _ = std::fs::remove_file(output);
            Err(format!("{}: {e}", output.display()))
        }
    }
}
