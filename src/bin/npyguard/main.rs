//! `npyguard`: inspect, validate, dump and convert NumPy `.npy` files.
//!
//! Exit codes: 0 success, 1 an input is invalid (or arrays differ), 2 usage or I/O errors.

mod dataset_cli;
mod diff;
mod input;
mod npz_cli;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use npyguard::{Array, Header, ReadOptions};
use serde_json::{json, Value};

use input::{Failure, Input};
use npyguard::render::{self, Style};

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
    /// .npz: refuse a member that decompresses to more than N times its compressed size.
    #[arg(long, value_name = "N")]
    max_ratio: Option<u64>,
}

impl Limits {
    fn options(&self) -> ReadOptions {
        ReadOptions::default()
            .max_file_bytes(self.max_file_bytes)
            .max_header_bytes(self.max_header_bytes)
            .numpy_strict(self.numpy_strict)
            .allow_trailing_bytes(self.allow_trailing_bytes)
            .max_npz_members(Some(self.max_members))
            .max_npz_total_bytes(self.max_total_bytes)
            .max_npz_ratio(self.max_ratio)
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
    /// Print the array: NumPy-like text, or with --json its header and values like NumPy's tolist().
    Dump {
        /// Print {"descr", "shape", "fortran_order", "data"} as JSON.
        #[arg(long)]
        json: bool,
        /// Print every element (no "..." summary) in text mode.
        #[arg(long)]
        full: bool,
        #[command(flatten)]
        limits: Limits,
        /// The file to dump.
        file: PathBuf,
    },
    /// Re-encode a file through the reader and writer (dtype, byte order and memory order kept).
    Convert {
        /// Input .npy file, or .npz archive (see --member).
        input: PathBuf,
        /// Output path.
        #[arg(short, long)]
        output: PathBuf,
        /// Write in C (row-major) order.
        #[arg(long)]
        c_order: bool,
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("npyguard: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Inspect {
            json,
            limits,
            files,
        } => inspect(&files, &limits.options(), json),
        Command::Validate {
            json,
            limits,
            files,
        } => validate(&files, &limits.options(), json),
        Command::Dump {
            json,
            full,
            limits,
            file,
        } => dump(&file, &limits.options(), json, full),
        Command::Convert {
            input,
            output,
            c_order,
            member,
            dataset,
            limits,
        } => convert(
            &input,
            &output,
            c_order,
            member.as_deref(),
            &dataset,
            &limits.options(),
        ),
        Command::Diff(args) => diff::run(&args),
    }
}

fn descr_json(header: &Header) -> Value {
    literal_json(&header.dtype().descr())
}

fn literal_json(lit: &npyguard::literal::Literal) -> Value {
    use npyguard::literal::{Int, Value as L};
    match &lit.value {
        L::Str(s) => Value::String(s.clone()),
        L::Int(Int::Small(v)) => json!(v),
        L::Int(Int::Big(s)) => Value::String(s.clone()),
        L::Bool(b) => json!(b),
        L::None => Value::Null,
        L::Tuple(items) | L::List(items) => Value::Array(items.iter().map(literal_json).collect()),
    }
}

fn header_json(path: &Path, h: &Header) -> Value {
    json!({
        "file": path.display().to_string(),
        "version": h.version().to_string(),
        "descr": descr_json(h),
        "dtype": h.dtype().typestr(),
        "shape": h.shape(),
        "fortran_order": h.fortran_order(),
        "order": if h.fortran_order() { "F" } else { "C" },
        "element_count": h.element_count(),
        "itemsize": h.dtype().itemsize(),
        "payload_offset": h.payload_offset(),
        "payload_bytes": h.payload_len(),
        "extra_keys": h.extra().iter().map(|(k, v)| (k.clone(), Value::String(v.to_string()))).collect::<serde_json::Map<_, _>>(),
    })
}

fn error_json(path: &Path, e: &npyguard::Error) -> Value {
    json!({
        "file": path.display().to_string(),
        "ok": false,
        "kind": e.kind().name(),
        "offset": e.offset(),
        "message": e.to_string(),
    })
}

/// The exit code of a run in which `os` (usage/OS errors) or `invalid` (invalid input) happened.
fn exit_code(os: bool, invalid: bool) -> ExitCode {
    if os {
        ExitCode::from(2)
    } else if invalid {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn inspect(files: &[PathBuf], opts: &ReadOptions, as_json: bool) -> Result<ExitCode, String> {
    let (mut os, mut invalid) = (false, false);
    for path in files {
        let outcome = input::open(path).and_then(|input| {
            if input.is_npz() {
                return npz_cli::inspect(path, input, opts, as_json);
            }
            let h = input
                .inspect_npy(opts)
                .map_err(|e| input::classify(path, e))?;
            if as_json {
                println!("{}", header_json(path, &h));
            } else {
                print_header(&path.display().to_string(), &h);
            }
            Ok(())
        });
        match outcome {
            Ok(()) => {}
            Err(Failure::Os(msg)) => {
                os = true;
                report_os(path, &msg, as_json);
            }
            Err(Failure::Invalid(e)) => {
                invalid = true;
                if as_json {
                    println!("{}", error_json(path, &e));
                } else {
                    eprintln!("{}: {e}", path.display());
                }
            }
        }
    }
    Ok(exit_code(os, invalid))
}

/// Reports an OS error: on stderr, and in JSON mode also as a result object on stdout.
fn report_os(path: &Path, msg: &str, as_json: bool) {
    eprintln!("npyguard: {msg}");
    if as_json {
        println!("{}", os_json(path, msg));
    }
}

fn os_json(path: &Path, msg: &str) -> Value {
    json!({"file": path.display().to_string(), "ok": false, "kind": "io", "offset": null, "message": msg})
}

/// The text `inspect` prints for one header, under `label`.
fn print_header(label: &str, h: &Header) {
    println!("{label}:");
    println!("  version:        {}", h.version());
    println!("  descr:          {}", h.dtype().descr());
    println!(
        "  shape:          {}",
        npyguard::repr::py_shape(&h.shape().iter().map(|&d| d as u64).collect::<Vec<_>>())
    );
    println!(
        "  order:          {}",
        if h.fortran_order() {
            "F (Fortran, column-major)"
        } else {
            "C (row-major)"
        }
    );
    println!("  elements:       {}", h.element_count());
    println!("  itemsize:       {}", h.dtype().itemsize());
    println!("  payload offset: {}", h.payload_offset());
    println!("  payload bytes:  {}", h.payload_len());
    for (k, v) in h.extra() {
        println!("  extra key:      {k:?}: {v}");
    }
}

fn validate(files: &[PathBuf], opts: &ReadOptions, as_json: bool) -> Result<ExitCode, String> {
    let (mut os, mut invalid) = (false, false);
    let mut results = Vec::new();
    for path in files {
        let outcome = input::open(path).and_then(|input| {
            if input.is_npz() {
                return npz_cli::validate(path, input, opts);
            }
            let a = input.read_npy(opts).map_err(|e| input::classify(path, e))?;
            Ok(json!({"file": path.display().to_string(), "ok": true, "descr": descr_json(a.header()), "shape": a.shape()}))
        });
        match outcome {
            Ok(v) => results.push(v),
            Err(Failure::Os(msg)) => {
                os = true;
                eprintln!("npyguard: {msg}");
                results.push(os_json(path, &msg));
            }
            Err(Failure::Invalid(e)) => {
                invalid = true;
                if !as_json {
                    println!("{}: {e}", path.display());
                }
                results.push(error_json(path, &e));
            }
        }
    }
    if as_json {
        println!("{}", Value::Array(results));
    }
    Ok(exit_code(os, invalid))
}

/// Opens and reads a `.npy` path, or says what to exit with: an OS error is returned as the
/// exit-2 message, an invalid file is reported here (exit 1).
fn read_or_exit(
    path: &Path,
    input: Input,
    opts: &ReadOptions,
) -> Result<Result<Array, ExitCode>, String> {
    match input.read_npy(opts) {
        Ok(a) => Ok(Ok(a)),
        Err(e) => fail(path, e),
    }
}

/// An error while reading `path`: exit 2 (returned as the message) for an OS error, else
/// printed here and exit 1.
fn fail<T>(path: &Path, e: npyguard::Error) -> Result<Result<T, ExitCode>, String> {
    fail_code(path, e).map(Err)
}

/// [`fail`] as the exit code itself.
fn fail_code(path: &Path, e: npyguard::Error) -> Result<ExitCode, String> {
    match input::classify(path, e) {
        Failure::Os(msg) => Err(msg),
        Failure::Invalid(e) => {
            eprintln!("{}: {e}", path.display());
            Ok(ExitCode::from(1))
        }
    }
}

/// [`input::open`], with an invalid input reported (exit 1) and an OS error returned (exit 2).
fn open_or_exit(path: &Path) -> Result<Result<Input, ExitCode>, String> {
    match input::open(path) {
        Ok(i) => Ok(Ok(i)),
        Err(Failure::Os(msg)) => Err(msg),
        Err(Failure::Invalid(e)) => fail(path, e),
    }
}

fn dump(path: &Path, opts: &ReadOptions, as_json: bool, full: bool) -> Result<ExitCode, String> {
    let input = match open_or_exit(path)? {
        Ok(i) => i,
        Err(code) => return Ok(code),
    };
    if input.is_npz() {
        return npz_cli::dump(path, input, opts, as_json, full);
    }
    let array = match read_or_exit(path, input, opts)? {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let text = if as_json {
        array_json(&array)
    } else {
        array_text(&array, full)
    };
    let text = match text {
        Ok(t) => t,
        Err(e) => return fail_code(path, e),
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}").map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

/// The JSON object `dump --json` prints for one array.
fn array_json(array: &Array) -> npyguard::Result<String> {
    let data = render::values(array, Style::Json)?;
    let shape = format!(
        "[{}]",
        array
            .shape()
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let descr = descr_json(array.header());
    Ok(format!(
        "{{\"descr\": {descr}, \"shape\": {shape}, \"fortran_order\": {}, \"data\": {data}}}",
        array.fortran_order()
    ))
}

/// The NumPy-like text `dump` prints for one array.
fn array_text(array: &Array, full: bool) -> npyguard::Result<String> {
    let summarise = !full && array.len() > 1000;
    let data = render::values(array, Style::Text { summarise })?;
    let shape: Vec<u64> = array.shape().iter().map(|&d| d as u64).collect();
    Ok(format!(
        "array({data}, dtype={}, shape={}, order='{}')",
        array.dtype().descr(),
        npyguard::repr::py_shape(&shape),
        if array.fortran_order() { 'F' } else { 'C' }
    ))
}

fn convert(
    input: &Path,
    output: &Path,
    c_order: bool,
    member: Option<&str>,
    dataset: &dataset_cli::DatasetArgs,
    opts: &ReadOptions,
) -> Result<ExitCode, String> {
    dataset_cli::check(dataset, c_order)?;
    let source = match open_or_exit(input)? {
        Ok(i) => i,
        Err(code) => return Ok(code),
    };
    let read = if source.is_npz() {
        npz_cli::read_member(input, source, member, opts)?
    } else if member.is_some() {
        return Err(format!(
            "{}: --member applies to .npz input only",
            input.display()
        ));
    } else {
        read_or_exit(input, source, opts)?
    };
    let array = match read {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    if dataset.to.is_some() {
        return dataset_cli::convert(array, output, dataset);
    }
    let array = if c_order { array.to_c_order() } else { array };
    // Keep the input's format version when the header still fits it (so files written with
    // NumPy's `write_array(version=...)` convert to identical bytes); otherwise choose as np.save.
    let version = array
        .header()
        .version()
        .max(npyguard::write::choose_version(array.header()));
    npyguard::write::to_path_with_version(output, &array, version)
        .map_err(|e| format!("{}: {e}", output.display()))?;
    Ok(ExitCode::SUCCESS)
}
