//! How results and failures are reported, shared by every subcommand: header and error
//! JSON, the exit code of a run, and reading a path with its failure reported (an invalid
//! input printed here, exit 1; an OS error returned as the exit-2 message).

use std::path::Path;
use std::process::ExitCode;

use npyguard::{Array, Header, ReadOptions};
use serde_json::{json, Value};

use crate::input::{self, Failure, Input};

pub fn descr_json(header: &Header) -> Value {
    literal_json(&header.dtype().descr())
}

pub fn literal_json(lit: &npyguard::literal::Literal) -> Value {
    use npyguard::literal::{Int, Value as L};
    match &lit.value {
        L::Str(s) => Value::String(s.clone()),
        // A field name holding a lone surrogate, which a JSON text cannot carry as text:
        // its Display form, each surrogate as its Python escape (`\ud805`).
        L::NonText(s) => Value::String(s.to_string()),
        L::Int(Int::Small(v)) => json!(v),
        L::Int(Int::Big(s)) => Value::String(s.clone()),
        L::NegInt(Int::Small(v)) => i64::try_from(*v)
            .ok()
            .and_then(i64::checked_neg)
            .map_or_else(|| Value::String(format!("-{v}")), |n| json!(n)),
        L::NegInt(Int::Big(s)) => Value::String(format!("-{s}")),
        L::Float(v) if v.0.is_finite() => json!(v.0),
        // Values JSON has no number for (non-finite floats, complex numbers, bytes): the
        // Python literal, as the header spells it.
        L::Float(_) | L::Complex(..) | L::Bytes(_) | L::Map(_) => Value::String(lit.to_string()),
        L::Set(items) => Value::Array(items.iter().map(literal_json).collect()),
        L::Bool(b) => json!(b),
        L::None => Value::Null,
        L::Tuple(items) | L::List(items) => Value::Array(items.iter().map(literal_json).collect()),
    }
}

pub fn header_json(path: &Path, h: &Header) -> Value {
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
        "payload_range": [h.payload_range().start, h.payload_range().end],
        "extra_keys": h.extra().iter().map(|(k, v)| (k.clone(), Value::String(v.to_string()))).collect::<serde_json::Map<_, _>>(),
    })
}

pub fn error_json(path: &Path, e: &npyguard::Error) -> Value {
    json!({
        "file": path.display().to_string(),
        "ok": false,
        "kind": e.kind().name(),
        "offset": e.offset(),
        "message": e.to_string(),
    })
}

/// The exit code of a run in which `os` (usage/OS errors) or `invalid` (invalid input) happened.
pub fn exit_code(os: bool, invalid: bool) -> ExitCode {
    if os {
        ExitCode::from(2)
    } else if invalid {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Reports an OS error: on stderr, and in JSON mode also as a result object on stdout.
pub fn report_os(path: &Path, msg: &str, as_json: bool) -> Result<(), Failure> {
    eprintln!("npyguard: {msg}");
    if as_json {
        outln!("{}", os_json(path, msg));
    }
    Ok(())
}

pub fn os_json(path: &Path, msg: &str) -> Value {
    json!({"file": path.display().to_string(), "ok": false, "kind": "io", "offset": null, "message": msg})
}

/// The text `inspect` prints for one header, under `label`.
/// The header's shape as Python prints the tuple: `(3,)`, `(2, 3)`.
pub fn shape_text(h: &Header) -> String {
    let dims: Vec<u64> = h.shape().iter().map(|&d| d as u64).collect();
    npyguard::repr::py_shape(&dims)
}

pub fn print_header(label: &str, h: &Header) -> Result<(), Failure> {
    outln!("{label}:");
    outln!("  version:        {}", h.version());
    outln!("  descr:          {}", h.dtype().descr());
    outln!("  shape:          {}", shape_text(h));
    outln!(
        "  order:          {}",
        if h.fortran_order() {
            "F (Fortran, column-major)"
        } else {
            "C (row-major)"
        }
    );
    outln!("  elements:       {}", h.element_count());
    outln!("  itemsize:       {}", h.dtype().itemsize());
    outln!("  payload offset: {}", h.payload_offset());
    outln!("  payload bytes:  {}", h.payload_len());
    let r = h.payload_range();
    outln!("  payload range:  {}..{}", r.start, r.end);
    for (k, v) in h.extra() {
        outln!("  extra key:      {k:?}: {v}");
    }
    Ok(())
}

/// Reads the `.npy` of `input` (opened from `path`); a failure is [`fail`]'s.
pub fn read_or_exit(path: &Path, input: Input, opts: &ReadOptions) -> Result<Array, Failure> {
    input.read_npy(opts).map_err(|e| fail(path, e))
}

/// An error while reading `path` as the failure it means: an OS error is returned with its
/// message (exit 2); an invalid input is printed here with its path and is
/// [`Failure::Reported`] (exit 1).
pub fn fail(path: &Path, e: npyguard::Error) -> Failure {
    match input::classify(path, e) {
        Failure::Invalid(e) => {
            eprintln!("{}: {e}", path.display());
            Failure::Reported(ExitCode::from(1))
        }
        other => other,
    }
}

/// [`fail`] as a command's result.
pub fn fail_code(path: &Path, e: npyguard::Error) -> Result<ExitCode, Failure> {
    Err(fail(path, e))
}

/// [`input::open`], with an invalid input reported (exit 1) and an OS error returned (exit 2).
pub fn open_or_exit(path: &Path) -> Result<Input, Failure> {
    input::open(path).map_err(|f| match f {
        Failure::Invalid(e) => fail(path, e),
        other => other,
    })
}
