//! `npyguard diff A B`: compare two `.npy` files value by value (see `npyguard::compare`),
//! or two `.npz` archives array by array (matched by name).
//!
//! Exit codes: 0 equal within tolerance, 1 different (the report is printed),
//! 2 usage errors or a file that cannot be read.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

use npyguard::compare::{compare, CompareOptions, Incompatibility, Report};
use npyguard::{npz, Array, ReadOptions};
use serde_json::{json, Value};

use crate::input::{Failure, Input};

/// Arguments of `npyguard diff`.
#[derive(clap::Args)]
pub(crate) struct DiffArgs {
    /// The array being checked (the result).
    a: PathBuf,
    /// The reference array: the relative tolerance scales with |b|, as in numpy.isclose(a, b).
    b: PathBuf,
    /// Relative tolerance: floats pass when |a - b| <= atol + rtol * |b| (numpy.isclose).
    #[arg(long, value_name = "R", default_value_t = 0.0)]
    rtol: f64,
    /// Absolute tolerance (see --rtol).
    #[arg(long, value_name = "A", default_value_t = 0.0)]
    atol: f64,
    /// Also let floats pass that are at most N units in the last place apart.
    #[arg(long, value_name = "N")]
    ulps: Option<u64>,
    /// NaN equals NaN, NaT equals NaT (the default).
    #[arg(long, conflicts_with = "nan_unequal")]
    nan_equal: bool,
    /// NaN never equals anything (numpy.isclose's default equal_nan=False).
    #[arg(long)]
    nan_unequal: bool,
    /// Treat 0.0 and -0.0 as different.
    #[arg(long)]
    signed_zero: bool,
    /// Compare values across numeric dtypes (e.g. an f4 result with an f8 reference).
    #[arg(long)]
    cross_dtype: bool,
    /// Compare complex numbers as numpy.isclose does (by modulus) instead of per component.
    #[arg(long)]
    complex_modulus: bool,
    /// List at most N mismatches (all are counted).
    #[arg(long, value_name = "N", default_value_t = 10)]
    max_report: usize,
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    limits: super::Limits,
}

impl DiffArgs {
    fn options(&self) -> CompareOptions {
        CompareOptions::isclose(self.rtol, self.atol)
            .ulps(self.ulps)
            .nan_equal(!self.nan_unequal)
            .signed_zero(self.signed_zero)
            .cross_dtype(self.cross_dtype)
            .complex_modulus(self.complex_modulus)
            .max_report(self.max_report)
    }
}

/// Opens both inputs, which must be of one format.
fn open_pair(args: &DiffArgs) -> Result<(Input, Input), Failure> {
    let stdin = std::path::Path::new("-");
    if args.a == stdin && args.b == stdin {
        // Both would read the one standard input, the second after the first's bytes.
        return Err("diff: A and B are both standard input (-): give at most one as -".into());
    }
    let a = super::report::open_or_exit(&args.a)?;
    let b = super::report::open_or_exit(&args.b)?;
    if a.is_npz() != b.is_npz() {
        return Err(format!(
            "{} and {}: an .npz archive can only be compared with another .npz archive",
            args.a.display(),
            args.b.display()
        )
        .into());
    }
    Ok((a, b))
}

pub(crate) fn run(args: &DiffArgs) -> Result<ExitCode, Failure> {
    let read_opts = args.limits.options();
    let opts = args.options();
    let (a, b) = open_pair(args)?;
    if a.is_npz() {
        return archives(args, a, b, &read_opts, &opts);
    }
    let a = super::report::read_or_exit(&args.a, a, &read_opts)?;
    let b = super::report::read_or_exit(&args.b, b, &read_opts)?;
    let report = match compare(&a, &b, &opts) {
        Ok(r) => r,
        Err(e) => return compare_failed(&args.a, e),
    };
    if args.json {
        let labels = [args.a.display().to_string(), args.b.display().to_string()];
        outln!("{}", report_json(args, &labels, &a, &b, &report));
    } else {
        outln!("{report}");
    }
    Ok(exit(report.is_equal()))
}

/// A comparison that could not be made: bad options are a usage error (exit 2); anything
/// else comes from the arrays (exit 1).
fn compare_failed(path: &std::path::Path, e: npyguard::Error) -> Result<ExitCode, Failure> {
    if e.kind() == npyguard::ErrorKind::InvalidInput {
        return Err(e.to_string().into());
    }
    super::report::fail_code(path, e)
}

fn exit(equal: bool) -> ExitCode {
    if equal {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Two `.npz` archives: every array in both is compared; an array in only one makes them differ.
/// One pair of arrays is in memory at a time.
fn archives(
    args: &DiffArgs,
    a: Input,
    b: Input,
    read_opts: &ReadOptions,
    opts: &CompareOptions,
) -> Result<ExitCode, Failure> {
    let (mut za, mut zb) = match (a.whole_archive(read_opts), b.whole_archive(read_opts)) {
        (Ok(za), Ok(zb)) => (za, zb),
        (Err(e), _) => return super::report::fail_code(&args.a, e),
        (_, Err(e)) => return super::report::fail_code(&args.b, e),
    };
    let names =
        |z: &npz::NpzArchive<_>| z.array_names().map(str::to_string).collect::<Vec<String>>();
    let (names_a, names_b) = (names(&za), names(&zb));
    // Hashed look-ups: two archives of 65 536 members compare in linear time.
    let (in_a, in_b) = (key_set(&names_a), key_set(&names_b));
    let only_a: Vec<&String> = names_a
        .iter()
        .filter(|n| !in_b.contains_key(n.as_str()))
        .collect();
    let only_b: Vec<&String> = names_b
        .iter()
        .filter(|n| !in_a.contains_key(n.as_str()))
        .collect();
    let mut equal = only_a.is_empty() && only_b.is_empty();
    let mut members = Vec::new();
    for name in names_a.iter().filter(|n| in_b.contains_key(n.as_str())) {
        let labels = [
            format!("{}[{name}]", args.a.display()),
            format!("{}[{name}]", args.b.display()),
        ];
        let a = match za.array(name) {
            Ok(x) => x,
            Err(e) => return super::report::fail_code(&args.a, e),
        };
        let b = match zb.array(name) {
            Ok(x) => x,
            Err(e) => return super::report::fail_code(&args.b, e),
        };
        let report = match compare(&a, &b, opts) {
            Ok(r) => r,
            Err(e) => return compare_failed(&args.a, e),
        };
        equal &= report.is_equal();
        if args.json {
            let mut v = report_json(args, &labels, &a, &b, &report);
            v["name"] = json!(name);
            members.push(v);
        } else {
            outln!("{}: {report}", crate::out::shown(name));
        }
    }
    if args.json {
        let v = json!({
            "equal": equal,
            "a": args.a.display().to_string(),
            "b": args.b.display().to_string(),
            "only_in_a": only_a,
            "only_in_b": only_b,
            "members": members,
        });
        outln!("{v}");
    } else {
        for n in &only_a {
            outln!("{}: only in a ({})", crate::out::shown(n), args.a.display());
        }
        for n in &only_b {
            outln!("{}: only in b ({})", crate::out::shown(n), args.b.display());
        }
    }
    Ok(exit(equal))
}

/// A float as a JSON number, or `"nan"`, `"inf"`, `"-inf"` (JSON has no such numbers).
fn num(v: Option<f64>) -> Value {
    match v {
        None => Value::Null,
        Some(v) if v.is_finite() => json!(v),
        Some(v) if v.is_nan() => json!("nan"),
        Some(v) => json!(if v > 0.0 { "inf" } else { "-inf" }),
    }
}

fn incompatibility_json(i: &Incompatibility) -> Value {
    let (kind, field): (&str, &str) = match i {
        Incompatibility::Shape { field, .. } => ("shape", field),
        Incompatibility::Dtype { field, .. } => ("dtype", field),
        Incompatibility::MissingField { field, .. } => ("missing-field", field),
        _ => ("other", ""),
    };
    json!({"kind": kind, "field": field, "message": i.to_string()})
}

fn report_json(args: &DiffArgs, labels: &[String; 2], a: &Array, b: &Array, r: &Report) -> Value {
    let mismatches: Vec<Value> = r
        .mismatches()
        .iter()
        .map(|m| {
            json!({
                "index": m.index,
                "field": m.field,
                "a": m.a,
                "b": m.b,
                "kind": m.kind.name(),
                "abs_diff": num(m.abs_diff),
                "rel_diff": num(m.rel_diff),
                "ulps": m.ulps,
            })
        })
        .collect();
    json!({
        "equal": r.is_equal(),
        "a": {"file": labels[0], "descr": super::report::descr_json(a.header()), "shape": a.shape(), "fortran_order": a.fortran_order()},
        "b": {"file": labels[1], "descr": super::report::descr_json(b.header()), "shape": b.shape(), "fortran_order": b.fortran_order()},
        "options": {
            "rtol": args.rtol,
            "atol": args.atol,
            "ulps": args.ulps,
            "nan_equal": !args.nan_unequal,
            "signed_zero": args.signed_zero,
            "cross_dtype": args.cross_dtype,
            "complex_modulus": args.complex_modulus,
            "max_report": args.max_report,
        },
        "incompatibilities": r.incompatibilities().iter().map(incompatibility_json).collect::<Vec<_>>(),
        "compared": r.compared(),
        "mismatch_count": r.mismatch_count(),
        "truncated": r.mismatch_count() > r.mismatches().len(),
        "max_abs_diff": num(r.max_abs_diff()),
        "max_rel_diff": num(r.max_rel_diff()),
        "max_ulps": r.max_ulps(),
        "mismatches": mismatches,
    })
}

/// Keys of archive `b` by name, to match `a`'s keys in one hashed look-up each.
fn key_set(names: &[String]) -> HashMap<&str, usize> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect()
}
