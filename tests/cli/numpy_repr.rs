//! `npyguard dump` prints exactly NumPy's `repr(np.load(f))`, and `dump --full` NumPy's repr
//! under `threshold=sys.maxsize`, for every array whose NumPy text
//! tests/fixtures/repr/expected.json records (written by tests/numpy/gen_repr.py: every
//! fixture of tests/fixtures/npy, tests/adversarial/y_*.npy and the extra arrays of
//! tests/fixtures/repr), so no Python is needed here. Where the file records a documented
//! deviation (grammar/DEVIATIONS.md: unassigned code points), its text is the expectation.
//! `render::numpy_repr` is also called directly on arrays built in memory.
#![cfg(feature = "cli")]

use std::path::PathBuf;
use std::process::Command;

use npyguard::render::numpy_repr;
use npyguard::{Array, ArrayData, Dtype, Endian, ErrorKind, Field, Header, NpyArray, Record};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// stdout of `npyguard <args> --max-header-bytes 1048576 <file>` (the wide-record fixture's
/// header is 72 kB; NumPy's expectations were read with max_header_size=10**6).
fn dump(args: &[&str], file: &str) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_npyguard"))
        .args(args)
        .args(["--max-header-bytes", "1048576"])
        .arg(root().join(file))
        .output()
        .expect("run npyguard");
    (
        out.status.code(),
        String::from_utf8(out.stdout).expect("utf-8 output"),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn expected() -> serde_json::Map<String, Value> {
    let path = root().join("tests/fixtures/repr/expected.json");
    let text = std::fs::read_to_string(&path).expect("tests/fixtures/repr/expected.json");
    match serde_json::from_str(&text).expect("expected.json is JSON") {
        Value::Object(m) => m,
        other => panic!("expected.json: an object, not {other}"),
    }
}

/// The first line where `want` and `got` differ, for the failure message.
fn first_difference(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let k = (0..w.len().max(g.len()))
        .find(|&k| w.get(k) != g.get(k))
        .unwrap_or(0);
    format!(
        "line {}:\n    numpy:    {:?}\n    npyguard: {:?}",
        k + 1,
        w.get(k).unwrap_or(&"(end)"),
        g.get(k).unwrap_or(&"(end)")
    )
}

#[test]
fn dump_prints_numpys_repr_for_every_recorded_array() {
    let expected = expected();
    assert!(expected.len() > 500, "{} arrays recorded", expected.len());
    let mut compared = 0;
    let mut failures = Vec::new();
    for (file, e) in &expected {
        for (args, key) in [(&["dump"][..], "repr"), (&["dump", "--full"][..], "full")] {
            let Some(want) = e.get(key).and_then(Value::as_str) else {
                continue;
            };
            let deviation = e
                .get("deviation")
                .and_then(|d| d.get(key))
                .and_then(Value::as_str);
            let (code, got, stderr) = dump(args, file);
            compared += 1;
            let matches = |text: &str| got.strip_suffix('\n') == Some(text);
            if code != Some(0) || !(matches(want) || deviation.is_some_and(matches)) {
                failures.push(format!(
                    "{} {file} (exit {code:?}) {stderr}\n  {}",
                    args.join(" "),
                    first_difference(deviation.unwrap_or(want), &got)
                ));
            }
        }
    }
    assert!(compared > 1000, "{compared} comparisons");
    assert!(
        failures.is_empty(),
        "{} of {compared} differ from NumPy; the first:\n{}",
        failures.len(),
        failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn a_huge_record_array_of_item_size_zero_is_summarised_or_refused() {
    // 2^40 records of an empty subarray field: NumPy's summary is bounded, so printed;
    // every element (`--full`) is refused as unbacked output.
    let file = "tests/fixtures/repr/rec0_huge.npy";
    let want = expected()[file]["repr"].as_str().unwrap().to_string();
    let (code, got, _) = dump(&["dump"], file);
    assert_eq!((code, got), (Some(0), format!("{want}\n")));
    let (code, _, stderr) = dump(&["dump", "--full"], file);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("unbacked-output"), "{stderr}");
}

#[test]
fn numpy_repr_of_arrays_built_in_memory() {
    let a = NpyArray::from_vec(vec![1.5f64, f64::NAN, -3.0, 1e-3], vec![2, 2]).unwrap();
    assert_eq!(
        numpy_repr(&a.into_array(), true).unwrap(),
        "array([[ 1.5e+00,      nan],\n       [-3.0e+00,  1.0e-03]])"
    );
    // Fortran order prints in logical order; big-endian types name their byte order.
    let f = NpyArray::from_vec_with(vec![1i16, 4, 2, 5, 3, 6], vec![2, 3], true, Endian::Big)
        .unwrap()
        .into_array();
    assert_eq!(
        numpy_repr(&f, true).unwrap(),
        "array([[1, 2, 3],\n       [4, 5, 6]], dtype='>i2')"
    );
    let positional = NpyArray::from_vec(vec![0.25f32, -1.0, 10.5], vec![3]).unwrap();
    assert_eq!(
        numpy_repr(&positional.into_array(), true).unwrap(),
        "array([ 0.25, -1.  , 10.5 ], dtype=float32)"
    );
    let scalar = NpyArray::from_vec(vec![true], vec![]).unwrap().into_array();
    assert_eq!(numpy_repr(&scalar, true).unwrap(), "array(True)");
    let empty = NpyArray::<f32>::from_vec(vec![], vec![0, 3])
        .unwrap()
        .into_array();
    assert_eq!(
        numpy_repr(&empty, true).unwrap(),
        "array([], shape=(0, 3), dtype=float32)"
    );
    // Summarised by default, every element without.
    let big = NpyArray::from_vec((0..1500u32).map(|x| x % 7).collect(), vec![1500]).unwrap();
    let big = big.into_array();
    assert_eq!(
        numpy_repr(&big, true).unwrap(),
        "array([0, 1, 2, ..., 6, 0, 1], shape=(1500,), dtype=uint32)"
    );
    // 1499 separators and the one before `dtype=`; wrapped lines, no summary.
    let full = numpy_repr(&big, false).unwrap();
    assert_eq!(full.matches(',').count(), 1500);
    assert!(
        !full.contains("...") && full.ends_with("0, 1], dtype=uint32)"),
        "{full}"
    );
}

#[test]
fn numpy_repr_is_bounded_for_elements_no_byte_backs() {
    let record = Record {
        fields: vec![Field {
            name: "a".into(),
            title: None,
            dtype: Dtype::F64(Endian::Little),
            shape: vec![0],
            nesting: Vec::new(),
            offset: 0,
        }],
        itemsize: 0,
    };
    let header = Header::new(Dtype::Record(record), vec![1 << 40], false).unwrap();
    let a = Array::new(header, ArrayData::Record(Vec::new().into())).unwrap();
    assert_eq!(
        numpy_repr(&a, true).unwrap(),
        "array([([],), ([],), ([],), ..., ([],), ([],), ([],)],\n      \
         shape=(1099511627776,), dtype=[('a', '<f8', (0,))])"
    );
    assert_eq!(
        numpy_repr(&a, false).unwrap_err().kind(),
        ErrorKind::Unbacked
    );
    // An empty array prints `[]` whatever its shape, without visiting its empty rows.
    let rows = Header::new(Dtype::U8, vec![1 << 40, 0], false).unwrap();
    let rows = Array::new(rows, ArrayData::U8(Vec::new().into())).unwrap();
    assert_eq!(
        numpy_repr(&rows, false).unwrap(),
        "array([], shape=(1099511627776, 0), dtype=uint8)"
    );
}
