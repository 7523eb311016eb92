//! The `npyguard` command line: `dump --json` equals NumPy's `tolist()` for every
//! fixture; `validate` exit codes and messages; `inspect`; `convert` is byte-identical.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_npyguard"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run npyguard")
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn manifest() -> Vec<Value> {
    serde_json::from_str(&std::fs::read_to_string(fixtures().join("manifest.json")).unwrap())
        .unwrap()
}

/// Equal as NumPy values: exact, except that floats of a lower precision compare
/// after rounding to that precision (the dump writes the shortest decimal for the
/// element's own type; the manifest holds the f64 repr of the same value).
fn same(want: &Value, got: &Value, precision: Precision) -> bool {
    match (want, got) {
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y, precision))
        }
        (Value::Number(a), Value::Number(b)) => {
            if a.is_f64() || b.is_f64() {
                let (x, y) = (a.as_f64().unwrap(), b.as_f64().unwrap());
                let eq = match precision {
                    Precision::F64 => x.to_bits() == y.to_bits(),
                    Precision::F32 => (x as f32).to_bits() == (y as f32).to_bits(),
                    Precision::F16 => {
                        half::f16::from_f64(x).to_bits() == half::f16::from_f64(y).to_bits()
                    }
                };
                eq && a.is_f64() == b.is_f64()
            } else {
                a == b
            }
        }
        _ => want == got,
    }
}

#[derive(Clone, Copy, Debug)]
enum Precision {
    F16,
    F32,
    F64,
}

fn precision_of(descr: &Value) -> Precision {
    let s = descr.to_string();
    if s.contains("f2") {
        Precision::F16
    } else if s.contains("f4") || s.contains("c8\"") {
        Precision::F32
    } else {
        Precision::F64
    }
}

#[test]
fn dump_json_matches_numpy_tolist_for_every_fixture() {
    let entries = manifest();
    let files: Vec<String> = entries
        .iter()
        .map(|e| {
            fixtures()
                .join(e["file"].as_str().unwrap())
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let mut mismatches = Vec::new();
    for (e, f) in entries.iter().zip(&files) {
        let out = run(&["dump", "--json", "--max-header-bytes", "1048576", f]);
        assert!(
            out.status.success(),
            "{f}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got: Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|err| panic!("{f}: {err}"));
        let p = precision_of(&e["descr"]);
        for key in ["descr", "shape", "fortran_order"] {
            if got[key] != e[key] {
                mismatches.push(format!("{f}: {key} {} != {}", got[key], e[key]));
            }
        }
        if !same(&e["data"], &got["data"], p) {
            mismatches.push(format!(
                "{f}: data\n  numpy: {}\n  dump:  {}",
                e["data"], got["data"]
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// `--keep-header`: the input's own bytes (tests/numpy/convert_differential.py checks the
/// default, np.save(np.load(f)), against NumPy).
#[test]
fn convert_keep_header_is_byte_identical_for_every_fixture() {
    let dir = std::env::temp_dir().join(format!("npyguard-convert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for e in manifest() {
        let src = fixtures().join(e["file"].as_str().unwrap());
        let dst = dir.join("out.npy");
        let out = run(&[
            "convert",
            src.to_str().unwrap(),
            "-o",
            dst.to_str().unwrap(),
            "--max-header-bytes",
            "1048576",
            "--keep-header",
        ]);
        assert!(
            out.status.success(),
            "{}: {}",
            src.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            std::fs::read(&src).unwrap() == std::fs::read(&dst).unwrap(),
            "{}: convert --keep-header changed bytes",
            src.display()
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn convert_c_order_rewrites_fortran_as_row_major() {
    let dir = std::env::temp_dir().join(format!("npyguard-corder-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = fixtures().join("npy/lt_i4__F__3x2x4.npy");
    let c = fixtures().join("npy/lt_i4__C__3x2x4.npy");
    let dst = dir.join("c.npy");
    let out = run(&[
        "convert",
        f.to_str().unwrap(),
        "-o",
        dst.to_str().unwrap(),
        "--c-order",
    ]);
    assert!(out.status.success());
    // NumPy wrote the same values in C order: identical bytes.
    assert!(std::fs::read(&c).unwrap() == std::fs::read(&dst).unwrap());
    std::fs::remove_dir_all(&dir).ok();
}

fn write_temp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("npyguard-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn validate_rejects_every_truncation_with_a_typed_error() {
    let src = fixtures().join("npy/be_f8__C__2x3.npy");
    let bytes = std::fs::read(&src).unwrap();
    let mut paths = Vec::new();
    for cut in 0..bytes.len() {
        paths.push(write_temp(&format!("cut{cut}.npy"), &bytes[..cut]));
    }
    let args: Vec<&str> = std::iter::once("validate")
        .chain(paths.iter().map(|p| p.to_str().unwrap()))
        .collect();
    let out = run(&args);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), bytes.len(), "one line per bad file");
    for (cut, line) in lines.iter().enumerate() {
        assert!(
            line.contains(&format!("cut{cut}.npy: truncated at byte {cut}:")),
            "{line}"
        );
    }
    let ok = run(&["validate", src.to_str().unwrap()]);
    assert_eq!(ok.status.code(), Some(0));
    assert!(ok.stdout.is_empty());
}

#[test]
fn validate_limits_and_json() {
    let src = fixtures().join("npy/lt_f8__C__2x3.npy");
    let len = std::fs::metadata(&src).unwrap().len();
    let at = run(&[
        "validate",
        "--max-file-bytes",
        &len.to_string(),
        src.to_str().unwrap(),
    ]);
    assert_eq!(
        at.status.code(),
        Some(0),
        "a file exactly at the limit is accepted"
    );
    let over = run(&[
        "validate",
        "--json",
        "--max-file-bytes",
        &(len - 1).to_string(),
        src.to_str().unwrap(),
    ]);
    assert_eq!(over.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&over.stdout).unwrap();
    assert_eq!(v[0]["kind"], "file-too-large");
    assert_eq!(v[0]["ok"], false);

    let mut trailing = std::fs::read(&src).unwrap();
    trailing.extend_from_slice(b"PK\x03\x04");
    let p = write_temp("trailing.npy", &trailing);
    assert_eq!(
        run(&["validate", p.to_str().unwrap()]).status.code(),
        Some(1)
    );
    assert_eq!(
        run(&["validate", "--allow-trailing-bytes", p.to_str().unwrap()])
            .status
            .code(),
        Some(0)
    );

    let usage = run(&[
        "validate",
        "--max-file-bytes",
        "lots",
        src.to_str().unwrap(),
    ]);
    assert_eq!(usage.status.code(), Some(2));
    let missing = run(&["validate", "/nonexistent/x.npy"]);
    assert_eq!(missing.status.code(), Some(2));
}

/// `dump --json --rows A..B` equals NumPy's `a[A:B].tolist()` (the manifest's list sliced)
/// for every fixture with a first axis, for every range of up to 3 rows' difference.
#[test]
fn dump_rows_match_numpy_slices_for_every_fixture() {
    let mut checked = 0;
    for e in manifest() {
        let Some(n) = e["shape"]
            .as_array()
            .and_then(|s| s.first())
            .and_then(Value::as_u64)
        else {
            continue;
        };
        let f = fixtures().join(e["file"].as_str().unwrap());
        let f = f.to_str().unwrap();
        let p = precision_of(&e["descr"]);
        let n = n as usize;
        for (a, b) in [
            (0, n),
            (n / 2, n),
            (0, n / 2),
            (n.saturating_sub(1), n),
            (n, n),
        ] {
            let rows = format!("{a}..{b}");
            let out = run(&[
                "dump",
                "--json",
                "--rows",
                &rows,
                "--max-header-bytes",
                "1048576",
                f,
            ]);
            assert!(
                out.status.success(),
                "{f} {rows}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let got: Value = serde_json::from_slice(&out.stdout).unwrap();
            let want = Value::Array(e["data"].as_array().unwrap()[a..b].to_vec());
            assert!(
                same(&want, &got["data"], p),
                "{f} rows {rows}: {} vs {}",
                want,
                got["data"]
            );
            assert_eq!(got["shape"][0], b - a, "{f} {rows}");
            checked += 1;
        }
    }
    assert!(checked > 2000, "{checked}");
    let f = fixtures().join("npy/lt_f8__C__2x3.npy");
    // Out-of-range bounds are clamped as NumPy's a[1:5] (tests/numpy/rows_differential.py
    // compares generated ranges with NumPy itself).
    let out = run(&["dump", "--json", "--rows", "1..5", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["shape"], serde_json::json!([1, 3]));
    let out = run(&["dump", "--rows", "x", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn inspect_reports_the_header() {
    let src = fixtures().join("npy/be_i2__F__3x2x4.npy");
    let out = run(&["inspect", "--json", src.to_str().unwrap()]);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["descr"], ">i2");
    assert_eq!(v["shape"], serde_json::json!([3, 2, 4]));
    assert_eq!(v["fortran_order"], true);
    assert_eq!(v["element_count"], 24);
    assert_eq!(v["payload_offset"], 128);
    assert_eq!(v["payload_bytes"], 48);
    assert_eq!(v["payload_range"], serde_json::json!([128, 176]));
    assert_eq!(v["version"], "1.0");
    let text = run(&["inspect", src.to_str().unwrap()]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("order:          F"));
    assert!(text.contains("payload range:  128..176"));
}

#[test]
fn dump_text_is_numpys_repr_and_summarised() {
    let src = fixtures().join("npy/lt_i4__C__2x3.npy");
    let out = run(&["dump", src.to_str().unwrap()]);
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.starts_with("array([["), "{s}");
    // NumPy's repr names a native-order type by name (a big-endian one as '>i4').
    // (Was `dtype='<i4'` in npyguard's former one-line format; issue 15 made dump NumPy's picture.)
    assert!(s.contains("dtype=int32)"), "{s}");
    // A large array is summarised.
    let big: Vec<u8> = {
        let a = npyguard::NpyArray::from_vec((0..5000i32).collect(), vec![5000]).unwrap();
        npyguard::write::to_vec(&a.to_array()).unwrap()
    };
    let p = write_temp("big.npy", &big);
    let s = String::from_utf8(run(&["dump", p.to_str().unwrap()]).stdout).unwrap();
    // NumPy pads integers to the widest shown (was `[0, 1, 2, ..., 4997, 4998, 4999]`).
    assert!(
        s.contains("[   0,    1,    2, ..., 4997, 4998, 4999]"),
        "{s}"
    );
    let full = String::from_utf8(run(&["dump", "--full", p.to_str().unwrap()]).stdout).unwrap();
    assert!(full.contains("2500, 2501"));
}

#[test]
fn hostile_input_never_panics_the_cli() {
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("magic-only", b"\x93NUMPY".to_vec()),
        ("v4", b"\x93NUMPY\x04\x00\x10\x00".to_vec()),
        (
            "huge-header-len",
            b"\x93NUMPY\x02\x00\xff\xff\xff\xff{".to_vec(),
        ),
        ("deep", {
            let h = format!("{{'descr': {}", "[".repeat(100_000));
            let mut v = b"\x93NUMPY\x02\x00".to_vec();
            v.extend_from_slice(&(h.len() as u32).to_le_bytes());
            v.extend_from_slice(h.as_bytes());
            v
        }),
    ];
    for (name, bytes) in cases {
        let p = write_temp(&format!("{name}.npy"), &bytes);
        for cmd in [vec!["validate"], vec!["inspect"], vec!["dump", "--json"]] {
            let mut args = cmd.clone();
            args.push(p.to_str().unwrap());
            let out = run(&args);
            assert_eq!(
                out.status.code(),
                Some(1),
                "{name} {cmd:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[allow(dead_code)]
fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn dump_refuses_endless_listings_of_zero_size_elements() {
    // 2^40 records of a zero-size dtype: a valid 128-byte file with no payload.
    let h = "{'descr': [('a', '<f8', (0,))], 'fortran_order': False, 'shape': (1099511627776,), }";
    let mut text = h.to_string();
    text.push_str(&" ".repeat(64 - ((10 + h.len() + 1) % 64)));
    text.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(text.len() as u16).to_le_bytes());
    bytes.extend_from_slice(text.as_bytes());
    let p = write_temp("zero-size.npy", &bytes);
    assert_eq!(
        run(&["validate", p.to_str().unwrap()]).status.code(),
        Some(0)
    );
    // Summarised text prints six of them, as NumPy does: bounded, so printed.
    let out = run(&["dump", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("([],), ..., ([],)"));
    // Every element: a refusal of the input, exit 1 with the typed limit error.
    for style in [&["--json"][..], &["--full"]] {
        let mut args = vec!["dump"];
        args.extend_from_slice(style);
        args.push(p.to_str().unwrap());
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "dump {style:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("unbacked-output"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
