//! `npyguard`: inspect, validate, dump, convert, diff and append to NumPy `.npy` files.
//!
//! Exit codes: 0 success, 1 an input is invalid (or arrays differ), 2 usage or I/O errors.

#[macro_use]
mod out;

mod append;
mod convert;
mod dataset_cli;
mod diff;
mod dump;
mod input;
mod inspect;
mod output;
mod report;
mod validate;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use npyguard::ReadOptions;

use crate::input::Failure;

#[derive(Parser)]
#[command(
    name = "npyguard",
    version,
    about = "A hardened reader and writer for NumPy .npy files"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Clone)]
struct Limits {
    /// Refuse files larger than N bytes (the whole file; a file of exactly N bytes is accepted;
    /// in a .npz, each member's .npy bytes).
    #[arg(long, value_name = "N")]
    max_file_bytes: Option<u64>,
    /// Refuse headers longer than N bytes (checked before the header is read).
    #[arg(long, value_name = "N", default_value_t = npyguard::limits::DEFAULT_MAX_HEADER_BYTES)]
    max_header_bytes: usize,
    /// Refuse what NumPy refuses (extra header keys, headers over 10 000 characters).
    #[arg(long)]
    numpy_strict: bool,
    /// Accept bytes after the payload (NumPy ignores them).
    #[arg(long)]
    allow_trailing_bytes: bool,
    /// .npz: refuse archives of more than N members (checked before the directory is read).
    #[arg(long, value_name = "N", default_value_t = npyguard::limits::DEFAULT_MAX_NPZ_MEMBERS)]
    max_members: usize,
    /// .npz: refuse when the members read decompress to more than N bytes in all.
    #[arg(long, value_name = "N")]
    max_total_bytes: Option<u64>,
    /// .npz: refuse a member that decompresses to more than N times its compressed size
    /// ("none": no limit; constant arrays compress up to 1028:1).
    #[arg(long, value_name = "N|none", default_value_t = Limit(Some(npyguard::limits::DEFAULT_MAX_NPZ_RATIO)), value_parser = parse_limit)]
    max_ratio: Limit,
}

/// A limit that may be switched off: `none`, or a number.
#[derive(Clone, Copy, Debug)]
struct Limit(Option<u64>);

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(n) => write!(f, "{n}"),
            None => f.write_str("none"),
        }
    }
}

fn parse_limit(s: &str) -> Result<Limit, String> {
    if s == "none" {
        return Ok(Limit(None));
    }
    s.parse()
        .map(|n| Limit(Some(n)))
        .map_err(|_| format!("expected a number or \"none\", found {s:?}"))
}

impl Limits {
    fn options(&self) -> ReadOptions {
        ReadOptions::default()
            .with_max_file_bytes(self.max_file_bytes)
            .with_max_header_bytes(self.max_header_bytes)
            .with_numpy_strict(self.numpy_strict)
            .with_allow_trailing_bytes(self.allow_trailing_bytes)
            .with_max_npz_members(Some(self.max_members))
            .with_max_npz_total_bytes(self.max_total_bytes)
            .with_max_npz_ratio(self.max_ratio.0)
    }
}

#[derive(Subcommand)]
enum Command {
    /// Print version, dtype, shape, order, element count, payload offset and size (header only).
    Inspect {
        /// Print one JSON object per file.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        limits: Limits,
        /// Files to inspect.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Read every byte of each file; exit 1 if any is invalid.
    Validate {
        /// Print a JSON array of results.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        limits: Limits,
        /// Files to validate.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print the array exactly as NumPy prints repr(np.load(FILE)), or with --json its header and values like tolist().
    Dump {
        /// Print {"descr", "shape", "fortran_order", "data"} as JSON.
        #[arg(long)]
        json: bool,
        /// Print every element (NumPy's repr under threshold=sys.maxsize: no "..." summary).
        #[arg(long)]
        full: bool,
        /// Only rows A..B of the first axis, exactly NumPy's a[A:B] (A.., ..B, negative
        /// bounds from the end, out-of-range bounds clamped, a 0-d array refused); from a
        /// regular file only those rows' bytes are read (Fortran-order rows are gathered).
        #[arg(long, value_name = "A..B", value_parser = dump::parse_rows, allow_hyphen_values = true)]
        rows: Option<dump::Rows>,
        #[command(flatten)]
        limits: Limits,
        /// The file to dump.
        file: PathBuf,
    },
    /// Re-encode a file as np.save(np.load(IN)) writes it (dtype, byte order and memory order kept).
    ///
    /// The output (-o) is written to a temporary file beside it and renamed into place only
    /// when complete: on any failure it is left as it was. `-`, a FIFO or a device is
    /// written as a stream (never created or removed); an output that is the input is refused.
    Convert {
        /// Input .npy file, or .npz archive (see --member).
        input: PathBuf,
        /// Output path.
        #[arg(short, long)]
        output: PathBuf,
        /// Write in C (row-major) order.
        #[arg(long)]
        c_order: bool,
        /// Keep the input's format version and order flag where they still fit (the
        /// default writes np.save's bytes of the loaded array: the smallest version, and C
        /// order for an array that is both C- and F-contiguous).
        #[arg(long)]
        keep_header: bool,
        /// The array of a .npz input to convert (with or without .npy; optional for one array).
        #[arg(long, value_name = "NAME")]
        member: Option<String>,
        #[command(flatten)]
        dataset: dataset_cli::DatasetArgs,
        #[command(flatten)]
        limits: Limits,
    },
    /// Compare two arrays value by value (exit 0 equal within tolerance, 1 different, 2 unreadable).
    Diff(diff::DiffArgs),
    /// Append the rows of each SRC to DST in place (DST grows along its first axis).
    ///
    /// DST must be a C-order .npy (or 1-D) of at least one dimension. Before anything is
    /// written, every SRC is read into memory under the limits and checked: its dtype must be
    /// DST's up to byte order (values are re-encoded in DST's byte order; records must be
    /// identical) and its shape after the first dimension DST's; any memory order. DST's
    /// rows are written first, then its header, byte-identical to np.save's for the new
    /// shape: an interrupted append leaves a file NumPy reads as the old array. The limits
    /// apply to DST and every SRC (--allow-trailing-bytes to the SRCs only; for DST see
    /// --discard-trailing-bytes). Exit 0
    /// appended, 1 DST or a SRC invalid or refused (nothing written), 2 usage or I/O errors.
    Append {
        /// The .npy file to grow.
        dst: PathBuf,
        /// The .npy files whose rows are appended, in order.
        #[arg(required = true)]
        srcs: Vec<PathBuf>,
        #[command(flatten)]
        args: append::AppendArgs,
        #[command(flatten)]
        limits: Limits,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match run(cli).and_then(|code| out::flush().map(|()| code)) {
        Ok(code) => code,
        Err(Failure::Os(msg)) => {
            eprintln!("npyguard: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Invalid(e)) => {
            eprintln!("npyguard: {e}");
            ExitCode::from(1)
        }
        Err(Failure::Closed) => ExitCode::SUCCESS,
        Err(Failure::Reported(code)) => code,
    };
    code
}

fn run(cli: Cli) -> Result<ExitCode, Failure> {
    match cli.command {
        Command::Inspect {
            json,
            limits,
            files,
        } => inspect::inspect(&files, &limits.options(), json),
        Command::Validate {
            json,
            limits,
            files,
        } => validate::validate(&files, &limits.options(), json),
        Command::Dump {
            json,
            full,
            rows,
            limits,
            file,
        } => dump::dump(&file, &limits.options(), json, full, rows),
        Command::Convert {
            input,
            output,
            c_order,
            keep_header,
            member,
            dataset,
            limits,
        } => convert::convert(
            &input,
            &output,
            c_order,
            keep_header,
            member.as_deref(),
            &dataset,
            &limits.options(),
        ),
        Command::Diff(args) => diff::run(&args),
        Command::Append {
            dst,
            srcs,
            args,
            limits,
        } => append::append(&dst, &srcs, &args, &limits.options()),
    }
}
