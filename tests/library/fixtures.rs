//! Every fixture NumPy wrote (tests/fixtures/generate.py) is read back exactly, and the
//! writer reproduces each file byte for byte. No Python is needed: the expected
//! values come from tests/fixtures/manifest.json, written by the same generator.

use std::path::PathBuf;

use npyguard::{read_path, write, ArrayData, ReadOptions, Version};
use serde_json::Value;

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn manifest() -> Vec<Value> {
    let text = std::fs::read_to_string(fixtures_dir().join("manifest.json")).expect("manifest");
    serde_json::from_str::<Vec<Value>>(&text).expect("manifest json")
}

fn flatten<'a>(v: &'a Value, out: &mut Vec<&'a Value>, depth: usize) {
    match v {
        Value::Array(items) if depth > 0 => items.iter().for_each(|i| flatten(i, out, depth - 1)),
        other => out.push(other),
    }
}

/// The manifest's logical-order leaves: `depth` = number of array dimensions.
fn leaves(v: &Value, ndim: usize) -> Vec<&Value> {
    let mut out = Vec::new();
    flatten(v, &mut out, ndim);
    out
}

fn hex_u64(v: &Value) -> u64 {
    u64::from_str_radix(v.as_str().expect("hex"), 16).expect("hex digits")
}

fn int_or_nat(v: &Value) -> i128 {
    match v {
        Value::String(s) if s == "NaT" => i128::from(i64::MIN),
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
            .expect("int"),
        Value::Bool(b) => i128::from(*b),
        other => panic!("not an integer: {other}"),
    }
}

#[test]
fn every_fixture_reads_back_exactly_and_rewrites_identically() {
    let entries = manifest();
    assert!(
        entries.len() >= 400,
        "fixture matrix present ({} files)",
        entries.len()
    );
    // rec_wide4000 has a 72 KiB header (np.save picked 2.0); NumPy itself needs
    // max_header_size raised for it, and so does npyguard's 64 KiB default cap.
    let opts = ReadOptions::default().with_max_header_bytes(1 << 20);
    let mut checked_values = 0;
    for e in &entries {
        let rel = e["file"].as_str().unwrap();
        let path = fixtures_dir().join(rel);
        let bytes = std::fs::read(&path).unwrap();
        let a = read_path(&path, &opts).unwrap_or_else(|err| panic!("{rel}: {err}"));
        let h = a.header();

        // Header facts.
        let shape: Vec<usize> = e["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(h.shape(), shape.as_slice(), "{rel} shape");
        assert_eq!(
            h.fortran_order(),
            e["fortran_order"].as_bool().unwrap(),
            "{rel} order"
        );
        let version = match e["version"][0].as_u64().unwrap() {
            1 => Version::V1_0,
            2 => Version::V2_0,
            _ => Version::V3_0,
        };
        assert_eq!(h.version(), version, "{rel} version");
        assert_eq!(
            h.payload_offset(),
            e["payload_offset"].as_u64().unwrap(),
            "{rel} payload offset"
        );
        assert_eq!(
            h.payload_len() as u64,
            e["payload_len"].as_u64().unwrap(),
            "{rel} payload len"
        );
        assert_eq!(
            h.dtype().itemsize() as u64,
            e["itemsize"].as_u64().unwrap(),
            "{rel} itemsize"
        );
        let descr: Value = serde_json::from_str(&literal_to_json(&h.dtype().descr())).unwrap();
        assert_eq!(descr, e["descr"], "{rel} descr");

        // The writer reproduces np.save's bytes exactly.
        // (Files written with an explicit version= keep it, as `convert` does.)
        let mut again = Vec::new();
        if write::choose_version(h) == h.version() {
            write::to_writer(&mut again, &a).unwrap();
        } else {
            write::to_writer_with_version(&mut again, &a, h.version()).unwrap();
        }
        assert!(again == bytes, "{rel}: writer output differs from NumPy's");

        // Values in logical order.
        let c = a.to_c_order();
        let ndim = shape.len();
        if let Some(bits) = e.get("element_bits") {
            let want: Vec<u64> = leaves(
                bits,
                ndim + usize::from(matches!(c.data(), ArrayData::C64(_) | ArrayData::C128(_))),
            )
            .into_iter()
            .map(hex_u64)
            .collect();
            let got: Vec<u64> = match c.data() {
                ArrayData::F16(v) => v.iter().map(|&b| u64::from(b)).collect(),
                ArrayData::F32(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
                ArrayData::F64(v) => v.iter().map(|x| x.to_bits()).collect(),
                ArrayData::C64(v) => v.iter().flatten().map(|x| u64::from(x.to_bits())).collect(),
                ArrayData::C128(v) => v.iter().flatten().map(|x| x.to_bits()).collect(),
                other => panic!("{rel}: element_bits for non-float {other:?}"),
            };
            assert_eq!(got, want, "{rel} float bits");
            checked_values += 1;
            continue;
        }
        let want = leaves(&e["data"], ndim);
        let got: Option<Vec<i128>> = match c.data() {
            ArrayData::Bool(v) => Some(v.iter().map(|&b| i128::from(b)).collect()),
            ArrayData::I8(v) => Some(v.iter().map(|&x| i128::from(x)).collect()),
            ArrayData::U8(v) => Some(v.iter().map(|&x| i128::from(x)).collect()),
            ArrayData::I16(v) => Some(v.iter().map(|&x| i128::from(x)).collect()),
            ArrayData::I32(v) => Some(v.iter().map(|&x| i128::from(x)).collect()),
            ArrayData::I64(v) | ArrayData::DateTime(v) | ArrayData::TimeDelta(v) => {
                Some(v.iter().map(|&x| i128::from(x)).collect())
            }
            ArrayData::U16(v) => Some(v.iter().map(|&x| i128::from(x)).collect()),
            ArrayData::U32(v) => Some(v.iter().map(|&x| i128::from(x)).collect()),
            ArrayData::U64(v) => Some(v.iter().map(|&x| i128::from(x)).collect()),
            _ => None,
        };
        if let Some(got) = got {
            let want: Vec<i128> = want.into_iter().map(int_or_nat).collect();
            assert_eq!(got, want, "{rel} values");
            checked_values += 1;
            continue;
        }
        match c.data() {
            ArrayData::Bytes(_) => {
                let got: Vec<String> = (0..c.len())
                    .map(|i| {
                        c.bytes_at(i)
                            .unwrap()
                            .iter()
                            .map(|&b| char::from(b))
                            .collect()
                    })
                    .collect();
                let want: Vec<&str> = want.iter().map(|v| v.as_str().unwrap()).collect();
                assert_eq!(got, want, "{rel} bytes");
            }
            ArrayData::Unicode(_) => {
                let got: Vec<String> = (0..c.len())
                    .map(|i| c.str_at(i).unwrap().unwrap())
                    .collect();
                let want: Vec<&str> = want.iter().map(|v| v.as_str().unwrap()).collect();
                assert_eq!(got, want, "{rel} unicode");
            }
            ArrayData::Void(_) => {
                let want = leaves(&e["data"], ndim + 1);
                let want: Vec<u8> = want.iter().map(|v| v.as_u64().unwrap() as u8).collect();
                let got: Vec<u8> = (0..c.len())
                    .flat_map(|i| c.bytes_at(i).unwrap().to_vec())
                    .collect();
                assert_eq!(got, want, "{rel} void");
            }
            ArrayData::Record(_) => {
                // Record values are compared field by field through the CLI test; here:
                // every field decodes and has the right element count.
                let npyguard::Dtype::Record(r) = c.dtype() else {
                    unreachable!()
                };
                for f in &r.fields {
                    let field = c.field(&f.name).unwrap();
                    assert_eq!(field.len(), c.len() * f.count(), "{rel} field {}", f.name);
                }
            }
            other => panic!("{rel}: unexpected data {other:?}"),
        }
        checked_values += 1;
    }
    assert_eq!(checked_values, entries.len());
}

/// A Python literal (descr) as JSON: tuples and lists both become arrays.
fn literal_to_json(lit: &npyguard::literal::Literal) -> String {
    use npyguard::literal::Value as L;
    match &lit.value {
        L::Str(s) => serde_json::to_string(s).unwrap(),
        // Python's json.dumps: every non-ASCII code point as `\\uXXXX` (surrogates alone).
        L::NonText(s) => {
            let mut out = String::from("\"");
            for u in s.code_points() {
                match char::from_u32(u).filter(|c| c.is_ascii()) {
                    Some(c) => out.push_str(serde_json::to_string(&c).unwrap().trim_matches('"')),
                    None if u > 0xffff => {
                        let v = u - 0x10000;
                        out.push_str(&format!(
                            "\\u{:04x}\\u{:04x}",
                            0xd800 + (v >> 10),
                            0xdc00 + (v & 0x3ff)
                        ));
                    }
                    None => out.push_str(&format!("\\u{u:04x}")),
                }
            }
            out.push('"');
            out
        }
        L::Int(i) => i.to_string(),
        // Python's repr of these is also their JSON (json.dumps writes -7, 1e+300).
        L::NegInt(_) | L::Float(_) => lit.to_string(),
        L::Complex(..) | L::Bytes(_) | L::Set(_) | L::Map(_) => {
            panic!("{lit}: no JSON form (not in these fixtures)")
        }
        L::Bool(b) => b.to_string(),
        L::None => "null".into(),
        L::Tuple(items) | L::List(items) => {
            format!(
                "[{}]",
                items
                    .iter()
                    .map(literal_to_json)
                    .collect::<Vec<_>>()
                    .join(",")
            )
        }
    }
}

#[test]
fn record_fields_have_numpy_values() {
    let path = fixtures_dir().join("npy/rec_simple_be__C__2x3.npy");
    let a = read_path(&path, &ReadOptions::default()).unwrap();
    let e = manifest()
        .into_iter()
        .find(|e| e["file"] == "npy/rec_simple_be__C__2x3.npy")
        .unwrap();
    let a_field = a.field("a").unwrap();
    let ArrayData::I32(got) = a_field.data() else {
        panic!("a is i4")
    };
    let want: Vec<i64> = leaves(&e["data"], 2)
        .iter()
        .map(|rec| rec[0].as_i64().unwrap())
        .collect();
    assert_eq!(got.iter().map(|&x| i64::from(x)).collect::<Vec<_>>(), want);
    let b = a.field("b").unwrap();
    assert_eq!(b.shape(), &[2, 3, 2], "subarray field appends its shape");
}

/// Typed reads from a path (which fill the buffer straight from the file) give the same
/// values as the dynamic reader, for every numeric fixture in both byte orders.
#[test]
fn typed_path_reads_match_dynamic_reads() {
    use npyguard::{Element, NpyArray};
    fn check<T: Element>(
        path: &std::path::Path,
        want: &ArrayData,
        pick: impl Fn(&ArrayData) -> Option<Vec<T>>,
    ) -> bool {
        let Some(want) = pick(want) else { return false };
        let opts = ReadOptions::default();
        let typed = NpyArray::<T>::read_path(path, &opts).unwrap();
        let bits = |v: &[T]| format!("{v:?}");
        assert_eq!(bits(typed.data()), bits(&want), "{}", path.display());
        let mut buf = Vec::with_capacity(3);
        NpyArray::<T>::read_path_into(path, &opts, &mut buf).unwrap();
        assert_eq!(
            bits(&buf),
            bits(&want),
            "{} (read_path_into)",
            path.display()
        );
        true
    }
    let mut n = 0;
    for e in manifest() {
        let path = fixtures_dir().join(e["file"].as_str().unwrap());
        let a = read_path(
            &path,
            &ReadOptions::default().with_max_header_bytes(1 << 20),
        )
        .unwrap();
        let d = a.data();
        let hit = check::<f64>(&path, d, |d| {
            if let ArrayData::F64(v) = d {
                Some(v.to_vec())
            } else {
                None
            }
        }) || check::<f32>(&path, d, |d| {
            if let ArrayData::F32(v) = d {
                Some(v.to_vec())
            } else {
                None
            }
        }) || check::<i16>(&path, d, |d| {
            if let ArrayData::I16(v) = d {
                Some(v.to_vec())
            } else {
                None
            }
        }) || check::<i32>(&path, d, |d| {
            if let ArrayData::I32(v) = d {
                Some(v.to_vec())
            } else {
                None
            }
        }) || check::<i64>(&path, d, |d| {
            if let ArrayData::I64(v) = d {
                Some(v.to_vec())
            } else {
                None
            }
        }) || check::<u16>(&path, d, |d| {
            if let ArrayData::U16(v) = d {
                Some(v.to_vec())
            } else {
                None
            }
        }) || check::<u32>(&path, d, |d| {
            if let ArrayData::U32(v) = d {
                Some(v.to_vec())
            } else {
                None
            }
        }) || check::<u64>(&path, d, |d| {
            if let ArrayData::U64(v) = d {
                Some(v.to_vec())
            } else {
                None
            }
        }) || check::<bool>(&path, d, |d| {
            if let ArrayData::Bool(v) = d {
                Some(v.iter().map(|&b| b != 0).collect())
            } else {
                None
            }
        }) || check::<u8>(&path, d, |d| {
            if let ArrayData::U8(v) = d {
                Some(v.to_vec())
            } else {
                None
            }
        });
        n += usize::from(hit);
    }
    assert!(n >= 150, "typed fixtures checked: {n}");
}

/// A file shorter than its header claims fails with a typed error at the offset where data ended.
#[test]
fn typed_path_read_of_truncated_file_reports_where_data_ended() {
    use npyguard::{ErrorKind, NpyArray};
    let src = fixtures_dir().join("npy/be_f8__C__3x2x4.npy");
    let bytes = std::fs::read(&src).unwrap();
    let dir = std::env::temp_dir().join(format!("npyguard-trunc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for cut in [bytes.len() - 1, bytes.len() - 8, 129, 128, 100, 5] {
        let p = dir.join("t.npy");
        std::fs::write(&p, &bytes[..cut]).unwrap();
        let e = NpyArray::<f64>::read_path(&p, &ReadOptions::default()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Truncated, "cut {cut}: {e}");
        assert_eq!(e.offset(), Some(cut as u64), "cut {cut}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A reused buffer never leaks stale values, whatever its previous length, on both the
/// direct (path) and the streaming (reader) paths.
#[test]
fn reused_buffers_hold_exactly_the_new_values() {
    use npyguard::NpyArray;
    let dir = std::env::temp_dir().join(format!("npyguard-reuse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let opts = ReadOptions::default();
    let mut buf: Vec<i32> = vec![-7; 50];
    for (k, n) in [3usize, 40, 0, 1, 60, 2].into_iter().enumerate() {
        let vals: Vec<i32> = (0..n as i32).map(|i| i * 3 + k as i32).collect();
        let bytes = write::to_vec(
            &NpyArray::from_vec(vals.clone(), vec![n])
                .unwrap()
                .to_array(),
        )
        .unwrap();
        let p = dir.join("r.npy");
        std::fs::write(&p, &bytes).unwrap();
        NpyArray::<i32>::read_path_into(&p, &opts, &mut buf).unwrap();
        assert_eq!(buf, vals, "path, n = {n}");
        buf.resize(buf.len() + 5, -9);
        NpyArray::<i32>::read_into(&bytes[..], &opts, &mut buf).unwrap();
        assert_eq!(buf, vals, "stream, n = {n}");
        buf.resize(buf.len() + 11, -9);
    }
    std::fs::remove_dir_all(&dir).ok();
}
