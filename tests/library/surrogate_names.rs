//! Field names holding lone surrogates (grammar/DEVIATIONS.md row a14): np.save writes a
//! field named `'\ud805'` as that escape and np.load reads it back. The files and the
//! expected names and values come from `tests/numpy/gen_surrogate_names.py`
//! (tests/fixtures/surrogate_names/); npyguard reads them as NumPy does, renders them as
//! NumPy's `repr`, compares them by code points and writes them back byte for byte.

use std::path::PathBuf;

use npyguard::compare::{compare, CompareOptions};
use npyguard::render::numpy_repr;
use npyguard::{read_bytes, write, Array, Dtype, ErrorKind, FieldName, ReadOptions};
use serde_json::Value;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/surrogate_names")
}

fn manifest() -> Vec<Value> {
    let text = std::fs::read_to_string(dir().join("manifest.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["cases"].as_array().unwrap().clone()
}

fn name_of(points: &Value) -> FieldName {
    let points: Vec<u32> = points
        .as_array()
        .unwrap()
        .iter()
        .map(|p| u32::try_from(p.as_u64().unwrap()).unwrap())
        .collect();
    FieldName::from_code_points(&points).unwrap()
}

/// The array reached by following `path` (a list of names) through nested records.
fn leaf(a: &Array, path: &[Value]) -> Array {
    let mut cur = a.clone();
    for p in path {
        cur = cur.field(&name_of(p)).unwrap();
    }
    cur
}

#[test]
fn numpy_files_with_surrogate_field_names_read_render_compare_and_rewrite_as_numpy() {
    let cases = manifest();
    assert_eq!(cases.len(), 4);
    let mut read = 0;
    for case in &cases {
        let file = case["file"].as_str().unwrap();
        let bytes = std::fs::read(dir().join(file)).unwrap();
        let got = read_bytes(&bytes, &ReadOptions::default());
        let a = got.unwrap_or_else(|e| panic!("{file}: {e}"));
        if case["title_surrogate"].as_bool().unwrap() {
            // A title holding a lone surrogate is a string title: not text, but a key of
            // its field like any string title.
            let Dtype::Record(rec) = a.dtype() else {
                panic!("{file}: not a record")
            };
            let t = rec.fields[0].title.as_ref().unwrap();
            assert_eq!(t.as_str(), None, "{file}");
            assert_eq!(t.to_string(), "'\\ud805'", "{file}");
            let key = t.as_name().unwrap();
            assert_eq!(key.code_points().collect::<Vec<_>>(), [0xd805], "{file}");
        }
        read += 1;
        // Every field path NumPy lists is there, by code points.
        let Dtype::Record(rec) = a.dtype() else {
            panic!("{file}: not a record")
        };
        for path in case["names"].as_array().unwrap() {
            let path = path.as_array().unwrap();
            let mut r = rec.clone();
            for (k, p) in path.iter().enumerate() {
                let f = r
                    .field(&name_of(p))
                    .unwrap_or_else(|| panic!("{file}: {p}"));
                if k + 1 < path.len() {
                    let Dtype::Record(inner) = &f.dtype else {
                        panic!("{file}: {p} is not a record")
                    };
                    r = inner.clone();
                }
            }
        }
        // The values of each leaf field are NumPy's.
        for l in case["leaves"].as_array().unwrap() {
            let arr = leaf(&a, l["path"].as_array().unwrap());
            let want: Vec<f64> = l["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            assert_eq!(arr.to_f64_lossy().unwrap(), want, "{file}: {l}");
        }
        // The repr names the dtype as NumPy's repr(dtype) does.
        let want = case["repr"].as_str().unwrap();
        let inner = &want["dtype(".len()..want.len() - 1];
        let repr = numpy_repr(&a, false).unwrap();
        assert!(
            repr.ends_with(&format!("dtype={inner})")),
            "{file}: {repr} vs {want}"
        );
        // Compare finds the fields by code points: the array equals itself.
        let report = compare(&a, &a, &CompareOptions::default()).unwrap();
        assert!(report.is_equal(), "{file}");
        // The writer writes np.save's bytes back.
        let h = a.header();
        let mut again = Vec::new();
        if write::choose_version(h) == h.version() {
            write::to_writer(&mut again, &a).unwrap();
        } else {
            write::to_writer_with_version(&mut again, &a, h.version()).unwrap();
        }
        assert!(
            again == bytes,
            "{file}: writer output differs from np.save's"
        );
    }
    assert_eq!(read, 4);
}

#[test]
fn a_surrogate_field_name_is_not_text_and_says_which_field() {
    let bytes = std::fs::read(dir().join("single.npy")).unwrap();
    let a = read_bytes(&bytes, &ReadOptions::default()).unwrap();
    let Dtype::Record(rec) = a.dtype() else {
        panic!("not a record")
    };
    let name = &rec.fields[0].name;
    assert_eq!(name.as_str(), None);
    assert_eq!(name.code_points().collect::<Vec<_>>(), [0xd805]);
    assert_eq!(name.to_string(), "\\ud805");
    let e = name.text().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("'\\ud805'"), "{e}");
    // Looking it up by text finds nothing; by its code points, the field.
    assert!(rec.field("\u{fffd}").is_none());
    assert!(a.field("\\ud805").is_err());
    assert!(a.field(name).is_ok());
}

#[test]
fn two_surrogate_halves_are_not_the_character_they_would_pair_into() {
    let halves = FieldName::from_code_points(&[0xd83d, 0xde00]).unwrap();
    let emoji = FieldName::from("\u{1f600}");
    assert_ne!(halves, emoji);
    // Python orders strings by code points: U+D83D sorts before U+1F600.
    assert!(halves < emoji);
    assert_eq!(
        FieldName::from_code_points(&[0x61]).unwrap(),
        FieldName::from("a")
    );
    assert!(FieldName::from_code_points(&[0x110000]).is_none());
}
