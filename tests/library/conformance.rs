//! Every dtype form NumPy's public writers produce is read as NumPy reads it and written
//! back as np.save writes it (issue 32).
//!
//! The fixtures in `tests/fixtures/conformance/` come from `tests/numpy/gen_conformance.py`
//! (nested subarrays to depth 3, zero-width `S`/`U`/`V`, records without fields, fields
//! named `''`, titles, padding NumPy takes for a field named `''`, lone surrogates, raw and
//! escaped control characters in names; both byte orders, both memory orders, versions
//! 1.0 to 3.0). Its manifest records what NumPy 2.4.6 reads from each file (header, values,
//! `repr`) and the bytes of `np.save(np.load(f))`; this test needs no Python.

use std::path::PathBuf;

use npyguard::render::{numpy_repr, values, Style};
use npyguard::{read_path, write, ReadOptions, Version};
use serde_json::Value;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/conformance")
}

#[test]
fn every_form_numpy_writes_reads_as_numpy_and_writes_back_as_np_save() {
    let text = std::fs::read_to_string(dir().join("manifest.json")).unwrap();
    let entries: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert!(entries.len() >= 40, "{} cases", entries.len());
    let mut failures = Vec::new();
    for e in &entries {
        let file = e["file"].as_str().unwrap();
        if let Err(why) = check(e) {
            failures.push(format!("{file}: {why}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from NumPy:\n{}",
        failures.len(),
        entries.len(),
        failures.join("\n")
    );
}

/// Titles whose `repr` does not read back to themselves (Python's `repr` and `literal_eval`
/// disagree on a complex number's signed zeros: np.save(np.load(f)) flips them at every
/// trip). npyguard writes a literal that reads back to the value (DEVIATIONS a26): (file,
/// NumPy's spelling of the loaded title, npyguard's).
const SIGNED_ZERO_TITLES: [(&str, &str, &str); 2] = [
    ("title_neg_imag.npy", "(-0-1j)", "-1j"),
    ("title_complex_neg_zero_real.npy", "-1j", "(0-1j)"),
];

/// NumPy's text `numpy` with npyguard's spelling of a [`SIGNED_ZERO_TITLES`] title.
fn ours(file: &str, numpy: &str) -> String {
    match SIGNED_ZERO_TITLES.iter().find(|(f, ..)| *f == file) {
        Some((_, theirs, mine)) => {
            numpy.replacen(&format!("(({theirs}, "), &format!("(({mine}, "), 1)
        }
        None => numpy.to_string(),
    }
}

/// The bytes np.save wrote for `file`, with npyguard's spelling of a
/// [`SIGNED_ZERO_TITLES`] title: the same header padded to the same length (the padding to
/// 64 bytes absorbs a character or two), the preamble and payload unchanged.
fn our_resave(file: &str, mut resave: Vec<u8>) -> Vec<u8> {
    if !SIGNED_ZERO_TITLES.iter().any(|(f, ..)| *f == file) {
        return resave;
    }
    let head = resave.iter().position(|&b| b == b'\n').unwrap();
    let latin1: String = resave[10..head].iter().map(|&b| char::from(b)).collect();
    let mut header = ours(file, latin1.trim_end()).into_bytes();
    header.resize(head - 10, b' ');
    resave.splice(10..head, header);
    resave
}

fn check(e: &Value) -> Result<(), String> {
    let file = e["file"].as_str().unwrap();
    let a = read_path(dir().join(file), &ReadOptions::default()).map_err(|x| x.to_string())?;
    let descr = a.dtype().descr().to_string();
    if descr != ours(file, e["descr"].as_str().unwrap()) {
        return Err(format!("descr {descr} (NumPy: {})", e["descr"]));
    }
    let shape: Vec<u64> = a.shape().iter().map(|&d| d as u64).collect();
    let want: Vec<u64> = e["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap())
        .collect();
    if shape != want {
        return Err(format!("shape {shape:?} (NumPy: {want:?})"));
    }
    if a.fortran_order() != e["fortran_order"].as_bool().unwrap() {
        return Err(format!("fortran_order {}", a.fortran_order()));
    }
    let version: [u64; 2] = match a.header().version() {
        Version::V1_0 => [1, 0],
        Version::V2_0 => [2, 0],
        Version::V3_0 => [3, 0],
    };
    if serde_json::json!(version) != e["version"] {
        return Err(format!("version {version:?} (NumPy: {})", e["version"]));
    }
    if a.dtype().itemsize() as u64 != e["itemsize"].as_u64().unwrap() {
        return Err(format!("itemsize {}", a.dtype().itemsize()));
    }
    let json = values(&a, Style::Json).map_err(|x| format!("values: {x}"))?;
    if json != e["values"].as_str().unwrap() {
        return Err(format!("values {json} (NumPy: {})", e["values"]));
    }
    if holds_long_double(a.dtype()) {
        // NumPy prints long doubles with Dragon4 over the x87 significand; npyguard refuses
        // to render them rather than print other digits.
        match numpy_repr(&a, true) {
            Err(x) if x.kind() == npyguard::ErrorKind::UnsupportedDtype => {
                let s = x.to_string();
                if !(s.contains("f16") || s.contains("c32")) {
                    return Err(format!("numpy_repr refusal does not name the dtype: {s}"));
                }
            }
            other => return Err(format!("numpy_repr of a long double: {other:?}")),
        }
    } else {
        let repr = numpy_repr(&a, true).map_err(|x| format!("numpy_repr: {x}"))?;
        if repr != ours(file, e["repr"].as_str().unwrap()) {
            return Err(format!("repr {repr:?} (NumPy: {:?})", e["repr"]));
        }
    }
    let written = write::to_vec(&a).map_err(|x| format!("write: {x}"))?;
    let resave = std::fs::read(dir().join(e["resave"].as_str().unwrap())).unwrap();
    let resave = our_resave(file, resave);
    if written != resave {
        return Err(format!(
            "written back as {:?}, np.save writes {:?}",
            String::from_utf8_lossy(&written),
            String::from_utf8_lossy(&resave)
        ));
    }
    Ok(())
}

fn holds_long_double(d: &npyguard::Dtype) -> bool {
    match d {
        npyguard::Dtype::LongDouble(_) | npyguard::Dtype::CLongDouble(_) => true,
        npyguard::Dtype::Record(r) => r.fields.iter().any(|f| holds_long_double(&f.dtype)),
        _ => false,
    }
}

/// Long double files hold the values NumPy wrote: `to_f64_lossy` (through `f80::to_f64`)
/// gives `float(x)` of each, and `f80::from_f64` of those values is NumPy's bytes where the
/// value is an f64 (1, -2.5, -0, inf, nan); the padding bytes are kept as written.
#[test]
fn long_double_files_hold_numpys_values() {
    use npyguard::{f80, ArrayData, Dtype, Endian};
    let third = 1.0f64 / 3.0;
    for (file, e) in [
        ("longdouble_le.npy", Endian::Little),
        ("longdouble_be.npy", Endian::Big),
    ] {
        let a = read_path(dir().join(file), &ReadOptions::default()).unwrap();
        assert_eq!(a.dtype(), &Dtype::LongDouble(e));
        let v = a.to_f64_lossy().unwrap();
        assert_eq!(v[0], third);
        assert_eq!(v[1], f64::INFINITY, "1e4000 is above f64's range");
        assert_eq!(v[2].to_bits(), (-0.0f64).to_bits());
        assert_eq!(v[3], f64::INFINITY);
        assert!(v[4].is_nan());
        assert_eq!(v[5], 0.0, "the smallest x87 subnormal is below f64's");
        assert_eq!(v[6], f64::INFINITY);
        assert_eq!(&v[7..], &[1.0, -2.5]);
        let ArrayData::LongDouble(bytes) = a.data() else {
            panic!("{:?}", a.data())
        };
        for (k, x) in [(2, -0.0), (3, f64::INFINITY), (7, 1.0), (8, -2.5)] {
            assert_eq!(
                &bytes[k * 16..k * 16 + 16],
                &f80::from_f64(x, e),
                "element {k}"
            );
        }
    }
    let a = read_path(
        dir().join("longdouble_padding_kept.npy"),
        &ReadOptions::default(),
    )
    .unwrap();
    let ArrayData::LongDouble(bytes) = a.data() else {
        panic!()
    };
    assert_eq!(&bytes[10..16], &[1, 2, 3, 4, 5, 6]);
    assert_eq!(a.to_f64_lossy().unwrap()[0], third);
}

/// Every conformance case through the Arrow/Parquet/CSV conversions (`convert --to`;
/// records field by field, as `Array::field` takes them out, nested records too): each
/// converts, or is refused with a typed error; a `U` value holding a lone surrogate is
/// refused as `bad-payload` naming the code unit, as UTF-8 cannot hold it.
#[test]
fn every_form_converts_to_arrow_or_is_refused_by_name() {
    use npyguard::arrow::{self, Dataset, Layout};
    use npyguard::{Array, Dtype, ErrorKind, Header};
    fn leaves(a: Array, out: &mut Vec<(String, Array)>, path: String) {
        match a.dtype().clone() {
            Dtype::Record(r) => {
                for f in &r.fields {
                    let field = a.field(&f.name).unwrap();
                    leaves(field, out, format!("{path}[{:?}]", f.name));
                }
            }
            // Tables are at most 2-D: rows, then every other axis as columns.
            _ if a.shape().len() > 2 => {
                let rows = a.shape()[0];
                let cols = a.shape()[1..].iter().product();
                let (h, data) = a.to_c_order().into_parts();
                let h = Header::new(h.dtype().clone(), vec![rows, cols], false).unwrap();
                out.push((path, Array::new(h, data).unwrap()));
            }
            _ => out.push((path, a)),
        }
    }
    let text = std::fs::read_to_string(dir().join("manifest.json")).unwrap();
    let entries: Vec<Value> = serde_json::from_str(&text).unwrap();
    let (mut converted, mut surrogates, mut refused, mut long_double) = (0, 0, Vec::new(), 0);
    for e in &entries {
        let file = e["file"].as_str().unwrap();
        let a = read_path(dir().join(file), &ReadOptions::default()).unwrap();
        let mut arrays = Vec::new();
        leaves(a, &mut arrays, file.to_string());
        for (what, a) in arrays {
            let lone = (0..a.len()).any(|i| {
                a.units_at(i)
                    .is_some_and(|u| u.iter().any(|&c| (0xd800..0xe000).contains(&c)))
            });
            let result = Dataset::new(a.clone(), Layout::Columns).and_then(|ds| {
                let mut csv = Vec::new();
                arrow::write_csv(&ds, &mut csv, 0, |_| {})?;
                let mut pq = Vec::new();
                arrow::write_parquet(&ds, &mut pq, 0, &Default::default(), |_| {})?;
                Ok(())
            });
            match result {
                Ok(()) => {
                    assert!(!lone, "{what}: a lone surrogate became UTF-8");
                    converted += 1;
                }
                Err(err) if holds_long_double(a.dtype()) => {
                    // Arrow, Parquet and CSV have no long double: refused, naming it.
                    assert_eq!(err.kind(), ErrorKind::UnsupportedDtype, "{what}: {err}");
                    let s = err.to_string();
                    assert!(s.contains("f16") || s.contains("c32"), "{what}: {err}");
                    long_double += 1;
                }
                Err(err) if lone && err.kind() == ErrorKind::BadPayload => {
                    assert!(err.to_string().contains("0x0000d"), "{what}: {err}");
                    surrogates += 1;
                }
                Err(err) => {
                    // A typed refusal: Arrow has no zero-width FixedSizeBinary (`|V0`) and
                    // zero-size items back no rows.
                    assert!(
                        matches!(
                            err.kind(),
                            ErrorKind::Unbacked | ErrorKind::UnsupportedDtype
                        ),
                        "{what}: {err}"
                    );
                    refused.push(format!("{what}: {err}"));
                }
            }
        }
    }
    assert!(
        converted > 40 && surrogates >= 4 && refused.len() < 10 && long_double >= 12,
        "{converted} converted, {surrogates} surrogates refused, refused:\n{}",
        refused.join("\n")
    );
}
