//! `npyguard dump`: the array as NumPy's `repr` prints it, or as JSON like `tolist()`.

use crate::input::Failure;
use std::path::Path;
use std::process::ExitCode;

use npyguard::render::{self, Style};
use npyguard::{Array, ReadOptions};

use crate::npz_cli;
use crate::report::{descr_json, fail_code, open_or_exit};

/// Rows `A..B` of the first axis (`None`: from the start, to the end).
#[derive(Clone, Copy, Debug)]
pub struct Rows(Option<usize>, Option<usize>);

/// Parses `A..B`, `A..` or `..B`.
pub fn parse_rows(s: &str) -> Result<Rows, String> {
    let bad = || format!("expected a row range A..B, A.. or ..B, found {s:?}");
    let (a, b) = s.split_once("..").ok_or_else(bad)?;
    let end = |t: &str| -> Result<Option<usize>, String> {
        if t.is_empty() {
            Ok(None)
        } else {
            t.parse().map(Some).map_err(|_| bad())
        }
    };
    Ok(Rows(end(a)?, end(b)?))
}

pub fn dump(
    path: &Path,
    opts: &ReadOptions,
    as_json: bool,
    full: bool,
    rows: Option<Rows>,
) -> Result<ExitCode, Failure> {
    let input = match open_or_exit(path)? {
        Ok(i) => i,
        Err(code) => return Ok(code),
    };
    if input.is_npz() {
        if rows.is_some() {
            return Err(format!("{}: --rows applies to a .npy file", path.display()).into());
        }
        return npz_cli::dump(path, input, opts, as_json, full);
    }
    let read = match rows {
        Some(Rows(a, b)) => input.read_rows(opts, |n| a.unwrap_or(0)..b.unwrap_or(n)),
        None => input.read_npy(opts),
    };
    let array = match read {
        Ok(a) => a,
        Err(e) => return fail_code(path, e),
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
    outln!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// The JSON object `dump --json` prints for one array.
pub fn array_json(array: &Array) -> npyguard::Result<String> {
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

/// The text `dump` prints for one array: NumPy's `repr(np.load(f))` under its default print
/// options, or with `--full` under `threshold=sys.maxsize` (no `...` summary).
pub fn array_text(array: &Array, full: bool) -> npyguard::Result<String> {
    render::numpy_repr(array, !full)
}
