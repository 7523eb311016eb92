//! `npyguard dump`: the array as NumPy's `repr` prints it, or as JSON like `tolist()`.

use std::path::Path;
use std::process::ExitCode;

use npyguard::render::{self, Style};
use npyguard::{Array, ReadOptions};

use crate::input::{Failure, Input};
use crate::report::{descr_json, fail_code, open_or_exit};

/// Rows `A..B` of the first axis, as Python's slice `a[A:B]`: either bound may be omitted
/// or negative (counted from the end), and any integer is accepted (bounds are clamped, a
/// reversed range is empty).
#[derive(Clone, Copy, Debug)]
pub struct Rows(Option<i128>, Option<i128>);

impl Rows {
    /// The rows of an axis of `n`, exactly as Python's `slice(A, B).indices(n)` with step 1.
    pub fn resolve(self, n: usize) -> std::ops::Range<usize> {
        let n_i = i128::try_from(n).unwrap_or(i128::MAX);
        let clamp = |bound: Option<i128>, default: i128| -> usize {
            let v = match bound {
                None => default,
                Some(v) if v < 0 => v.saturating_add(n_i).max(0),
                Some(v) => v.min(n_i),
            };
            usize::try_from(v).unwrap_or(n)
        };
        let start = clamp(self.0, 0);
        let end = clamp(self.1, n_i);
        start..end.max(start)
    }
}

impl Rows {
    /// The rows of `header`'s array; a 0-d array has no axis to slice (NumPy's IndexError).
    fn of(self, header: &npyguard::Header) -> npyguard::Result<std::ops::Range<usize>> {
        match header.shape().first() {
            Some(&n) => Ok(self.resolve(n)),
            None => Err(npyguard::Error::unplaced(
                npyguard::ErrorKind::InvalidInput,
                "an array of at least one dimension for --rows (NumPy: too many indices for array)",
            )
            .found("a 0-dimensional array")),
        }
    }
}

/// Parses `A..B`, `A..`, `..B` or `..` (integers, optionally negative; a bound beyond the
/// 128-bit range is clamped like any other out-of-range bound).
pub fn parse_rows(s: &str) -> Result<Rows, String> {
    let bad = || {
        format!(
            "expected a row range A..B, A.. or ..B (integers, negative from the end), found {s:?}"
        )
    };
    let (a, b) = s.split_once("..").ok_or_else(bad)?;
    let bound = |t: &str| -> Result<Option<i128>, String> {
        if t.is_empty() {
            return Ok(None);
        }
        let digits = t.strip_prefix('-').unwrap_or(t);
        if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
            return Err(bad());
        }
        let saturated = if t.starts_with('-') {
            i128::MIN
        } else {
            i128::MAX
        };
        Ok(Some(t.parse().unwrap_or(saturated)))
    };
    Ok(Rows(bound(a)?, bound(b)?))
}

pub fn dump(
    path: &Path,
    opts: &ReadOptions,
    as_json: bool,
    full: bool,
    rows: Option<Rows>,
) -> Result<ExitCode, Failure> {
    let input = open_or_exit(path)?;
    if input.is_npz() {
        if rows.is_some() {
            return Err(format!("{}: --rows applies to a .npy file", path.display()).into());
        }
        return dump_npz(path, input, opts, as_json, full);
    }
    let read = match rows {
        Some(rows) => input.read_rows(opts, |h| rows.of(h)),
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

/// `dump` of an archive: `{"arrays": {NAME: <dump --json of one array>, ...}}` in archive
/// order, or in text mode `NAME = array(...)` per array.
fn dump_npz(
    path: &Path,
    input: Input,
    opts: &ReadOptions,
    as_json: bool,
    full: bool,
) -> Result<ExitCode, Failure> {
    let mut archive = match input.whole_archive(opts) {
        Ok(a) => a,
        Err(e) => return crate::report::fail_code(path, e),
    };
    let mut parts = Vec::new();
    for item in archive.arrays() {
        let rendered = item.and_then(|(name, array)| {
            if as_json {
                let key = serde_json::to_string(&name).unwrap_or_default();
                Ok(format!("{key}: {}", array_json(&array)?))
            } else {
                let name = crate::out::shown(&name);
                Ok(format!("{name} = {}", array_text(&array, full)?))
            }
        });
        match rendered {
            Ok(p) => parts.push(p),
            Err(e) => return crate::report::fail_code(path, e),
        }
    }
    if as_json {
        outln!("{{\"arrays\": {{{}}}}}", parts.join(", "));
    } else {
        for p in parts {
            outln!("{p}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
