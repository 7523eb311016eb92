//! `npyguard dump`: the array as NumPy's `repr` prints it, or as JSON like `tolist()`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use npyguard::render::{self, Style};
use npyguard::{Array, ReadOptions};

use crate::npz_cli;
use crate::report::{descr_json, fail_code, open_or_exit, read_or_exit};

pub fn dump(
    path: &Path,
    opts: &ReadOptions,
    as_json: bool,
    full: bool,
) -> Result<ExitCode, String> {
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
