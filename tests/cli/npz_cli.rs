//! The CLI on `.npz` archives: `dump --json` of every NumPy fixture archive
//! (tests/fixtures/npz, written by generate_npz.py) equals the manifest's
//! values; validate, inspect and convert read archives, with limits per member.
#![cfg(feature = "cli")]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_npyguard"))
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/npz")
}

fn run(args: &[&str], files: &[&Path]) -> Output {
    bin().args(args).args(files).output().expect("run npyguard")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 output")
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("npyguard-npz-cli-{}-{name}", std::process::id()))
}

/// JSON equality where numbers compare as values (1.0 == 1.0 whatever the spelling).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(p), Some(q), _, _) => p == q,
                (_, _, Some(p), Some(q)) => p == q,
                _ => {
                    let (p, q) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                    p == q && p.is_sign_negative() == q.is_sign_negative()
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn manifest() -> Vec<Value> {
    let text = std::fs::read_to_string(dir().join("manifest.json")).unwrap();
    let m: Value = serde_json::from_str(&text).unwrap();
    m["archives"].as_array().unwrap().clone()
}

#[test]
fn dump_json_of_numpy_archives_matches_the_manifest() {
    let archives = manifest();
    assert!(archives.len() >= 5);
    let mut members = 0;
    for a in &archives {
        let file = dir().join(a["file"].as_str().unwrap());
        let out = run(&["dump", "--json"], &[&file]);
        assert!(
            out.status.success(),
            "{}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let got: Value = serde_json::from_str(&stdout(&out)).unwrap();
        let arrays = got["arrays"].as_object().expect("an \"arrays\" object");
        let want = a["members"].as_array().unwrap();
        assert_eq!(arrays.len(), want.len(), "{}", file.display());
        // Names in archive order, without .npy.
        let names: Vec<&str> = arrays.keys().map(String::as_str).collect();
        let mut want_names: Vec<&str> = want.iter().map(|m| m["name"].as_str().unwrap()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        want_names.sort_unstable();
        assert_eq!(sorted, want_names);
        for m in want {
            let name = m["name"].as_str().unwrap();
            let g = &arrays[name];
            for key in ["descr", "shape", "fortran_order", "data"] {
                assert!(
                    same(&g[key], &m[key]),
                    "{}:{name} {key}: got {} want {}",
                    file.display(),
                    g[key],
                    m[key]
                );
            }
            members += 1;
        }
    }
    assert!(members >= 20, "{members} members checked");
}

#[test]
fn dump_json_keeps_archive_order() {
    let out = run(
        &["dump", "--json"],
        &[&dir().join("savez_compressed_mixed.npz")],
    );
    let text = stdout(&out);
    let pos: Vec<usize> = ["\"kw\"", "\"arr_0\"", "\"arr_1\"", "\"arr_2\""]
        .iter()
        .map(|k| text.find(k).unwrap())
        .collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "{text}");
}

#[test]
fn dump_of_one_npy_is_unchanged() {
    let npy =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/npy/lt_f8__C__2x3.npy");
    let out = run(&["dump", "--json"], &[&npy]);
    assert!(out.status.success());
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(v.get("arrays").is_none() && v.get("data").is_some(), "{v}");
}

#[test]
fn validate_applies_max_file_bytes_to_each_member() {
    let file = dir().join("savez_compressed_zeros.npz"); // one member: 128 + 160 000 bytes
    let ok = run(&["validate", "--max-file-bytes", "160128"], &[&file]);
    assert!(ok.status.success(), "{}", stdout(&ok));
    let bad = run(&["validate", "--max-file-bytes", "160127"], &[&file]);
    assert_eq!(bad.status.code(), Some(1));
    let text = stdout(&bad);
    assert!(
        text.contains("file-too-large") && text.contains("zeros.npy"),
        "{text}"
    );
    let json = run(
        &["validate", "--json", "--max-file-bytes", "160127"],
        &[&file],
    );
    let v: Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(v[0]["kind"], "file-too-large");
    // The archive limits.
    let ratio = run(&["validate", "--max-ratio", "100"], &[&file]);
    assert!(
        stdout(&ratio).contains("compression-ratio"),
        "{}",
        stdout(&ratio)
    );
    let total = run(&["validate", "--max-total-bytes", "1000"], &[&file]);
    assert!(stdout(&total).contains("total-too-large"));
    let members = run(
        &["validate", "--max-members", "3"],
        &[&dir().join("savez_named.npz")],
    );
    assert!(stdout(&members).contains("too-many-members"));
}

#[test]
fn validate_and_inspect_every_fixture_archive() {
    let files: Vec<PathBuf> = manifest()
        .iter()
        .map(|a| dir().join(a["file"].as_str().unwrap()))
        .collect();
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let out = run(&["validate", "--json"], &refs);
    assert!(out.status.success(), "{}", stdout(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(v.as_array().unwrap().iter().all(|r| r["ok"] == true));

    let out = run(
        &["inspect", "--json"],
        &[&dir().join("savez_positional.npz")],
    );
    assert!(out.status.success());
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let members: Vec<&str> = lines
        .iter()
        .map(|l| l["member"].as_str().unwrap())
        .collect();
    assert_eq!(members, ["arr_0.npy", "arr_1.npy", "arr_2.npy"]);
    assert_eq!(lines[2]["fortran_order"], true);
}

#[test]
fn convert_member_gives_np_save_bytes() {
    let file = dir().join("savez_named.npz");
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&file).unwrap()).unwrap();
    for name in [
        "c_f8",
        "fortran_i4.npy",
        "scalar",
        "empty_fortran",
        "record",
        "text",
    ] {
        let member = if name.ends_with(".npy") {
            name.to_string()
        } else {
            format!("{name}.npy")
        };
        let mut want = Vec::new();
        zip.by_name(&member)
            .unwrap()
            .read_to_end(&mut want)
            .unwrap();
        let out_path = temp(&format!("{}.npy", name.replace('.', "_")));
        let out = bin()
            .args(["convert", "--member", name, "-o"])
            .arg(&out_path)
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got = std::fs::read(&out_path).unwrap();
        std::fs::remove_file(&out_path).ok();
        assert_eq!(got, want, "{name}");
    }
    // Several arrays and no --member: a usage error naming the arrays.
    let out = bin()
        .args(["convert", "-o"])
        .arg(temp("none.npy"))
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--member"));
    // A missing member: invalid input (exit 1), named.
    let out = bin()
        .args(["convert", "--member", "nope", "-o"])
        .arg(temp("nope.npy"))
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("member-not-found"));
    // --member on a .npy input is a usage error.
    let npy =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/npy/lt_f8__C__2x3.npy");
    let out = bin()
        .args(["convert", "--member", "x", "-o"])
        .arg(temp("x.npy"))
        .arg(&npy)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn archives_are_detected_by_magic_or_extension() {
    // An archive without the .npz extension.
    let renamed = temp("archive.bin");
    std::fs::copy(dir().join("savez_positional.npz"), &renamed).unwrap();
    let out = run(&["dump", "--json"], &[&renamed]);
    std::fs::remove_file(&renamed).ok();
    assert!(out.status.success());
    assert!(stdout(&out).starts_with("{\"arrays\""));
    // A file named .npz that is neither: read as an archive, refused as a zip.
    let junk = temp("junk.npz");
    std::fs::write(&junk, b"not a zip, not an npy, just bytes............").unwrap();
    let out = run(&["validate"], &[&junk]);
    std::fs::remove_file(&junk).ok();
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("zip-format"), "{}", stdout(&out));
}

/// `convert --to` of a member (stored or deflated, streamed through the archive's limits
/// chunk by chunk) writes what `convert --to` of that member's own `.npy` writes.
#[cfg(feature = "cli-datasets")]
#[test]
fn convert_member_to_a_dataset_streams_the_member() {
    for archive in [
        "savez_named.npz",
        "savez_compressed_named.npz",
        "savez_compressed_mixed.npz",
    ] {
        let file = dir().join(archive);
        let mut zip = zip::ZipArchive::new(std::fs::File::open(&file).unwrap()).unwrap();
        let names: Vec<String> = zip.file_names().map(str::to_string).collect();
        for member in names {
            let mut npy = Vec::new();
            zip.by_name(&member).unwrap().read_to_end(&mut npy).unwrap();
            let npy_path = temp(&format!("{archive}-{member}"));
            std::fs::write(&npy_path, &npy).unwrap();
            for (to, layout) in [
                ("csv", "columns"),
                ("arrow", "columns"),
                ("csv", "nonzeros"),
            ] {
                let convert = |input: &Path, member: Option<&str>| {
                    let out_path = temp(&format!("{archive}-{member:?}-{to}-{layout}.out"));
                    let mut cmd = bin();
                    cmd.args([
                        "convert",
                        "--to",
                        to,
                        "--layout",
                        layout,
                        "--batch-rows",
                        "2",
                        "-o",
                    ]);
                    cmd.arg(&out_path).arg(input);
                    if let Some(m) = member {
                        cmd.args(["--member", m]);
                    }
                    let out = cmd.output().unwrap();
                    let bytes = std::fs::read(&out_path).ok();
                    std::fs::remove_file(&out_path).ok();
                    (out.status.code(), bytes)
                };
                let want = convert(&npy_path, None);
                let got = convert(&file, Some(&member));
                assert_eq!(got, want, "{archive} {member} --to {to} --layout {layout}");
            }
            std::fs::remove_file(&npy_path).ok();
        }
    }
}

#[test]
fn member_names_cannot_write_to_the_terminal() {
    // A member named with an escape sequence or a newline: text output escapes them (a
    // terminal obeyed `\x1b[31m`; `x\ny` forged a line); JSON keeps the names, escaped.
    let a = npyguard::NpyArray::from_vec(vec![1i16, 2], vec![2])
        .unwrap()
        .to_array();
    let names = ["\u{1b}[31mred", "x\ny", "plain"];
    let path = temp("control_names.npz");
    let members: Vec<(&str, &npyguard::Array)> = names.iter().map(|n| (*n, &a)).collect();
    npyguard::npz::savez_path(&path, &members).unwrap();
    for args in [vec!["dump"], vec!["inspect"], vec!["diff"]] {
        let mut files = vec![path.as_path()];
        if args == ["diff"] {
            files.push(path.as_path());
        }
        let out = run(&args, &files);
        assert!(out.status.success(), "{args:?}");
        let text = stdout(&out);
        assert!(!text.contains('\u{1b}'), "{args:?}: {text:?}");
        assert!(
            text.contains("\\u{1b}[31mred") && text.contains("x\\ny"),
            "{args:?}: {text:?}"
        );
        assert!(
            !text.lines().any(|l| l.starts_with('y')),
            "{args:?}: {text:?}"
        );
    }
    let json: Value = serde_json::from_str(&stdout(&run(&["dump", "--json"], &[&path]))).unwrap();
    let keys: Vec<&str> = json["arrays"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    for n in names {
        assert!(keys.contains(&n), "{keys:?}");
    }
}
