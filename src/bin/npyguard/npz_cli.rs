//! `.npz` support for inspect, validate, dump and convert.
//!
//! A file is an archive when it starts with a zip signature (`PK\x03\x04`, or
//! `PK\x05\x06` for an empty archive), or, when it starts with neither that nor
//! the `.npy` magic, when its name ends in `.npz`. `--max-file-bytes` applies to
//! each member's `.npy` bytes, `--max-members`, `--max-total-bytes` and
//! `--max-ratio` to the archive. Errors inside a member name it.

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use npyguard::npz::{self, Member, NpzArchive};
use npyguard::{Array, Error, ReadOptions};
use serde_json::{json, Value};

/// Whether `path` is read as a `.npz` archive (see the module docs).
pub fn is_npz(path: &Path) -> bool {
    let mut head = [0u8; 6];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    let head = head.get(..n).unwrap_or_default();
    if npz::looks_like_npz(head) {
        return true;
    }
    if head.starts_with(npyguard::preamble::MAGIC) {
        return false;
    }
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npz"))
}

fn label(path: &Path, member: &str) -> String {
    format!("{}[{member}]", path.display())
}

fn report(path: &Path, e: &Error, as_json: bool) {
    if as_json {
        println!("{}", super::error_json(path, e));
    } else {
        eprintln!("{}: {e}", path.display());
    }
}

/// `inspect` of an archive: one header per `.npy` member (only headers are decompressed).
/// Returns the exit code to report when something failed.
pub fn inspect(path: &Path, opts: &ReadOptions, as_json: bool) -> Option<u8> {
    let mut archive = match npz::open(path, opts) {
        Ok(a) => a,
        Err(e) => {
            report(path, &e, as_json);
            return Some(if super::is_io(&e) { 2 } else { 1 });
        }
    };
    let members: Vec<Member> = archive.members().to_vec();
    let mut code = None;
    for m in &members {
        let Some(name) = m.array_name() else {
            if as_json {
                println!(
                    "{}",
                    json!({"file": path.display().to_string(), "member": m.name(), "npy": false, "bytes": m.size()})
                );
            } else {
                println!(
                    "{}: not a .npy member ({} bytes), not an array",
                    label(path, m.name()),
                    m.size()
                );
            }
            continue;
        };
        match archive.header(m.name()) {
            Ok(h) => {
                if as_json {
                    let mut v = super::header_json(path, &h);
                    if let Value::Object(map) = &mut v {
                        map.insert("member".into(), json!(m.name()));
                        map.insert("array".into(), json!(name));
                        map.insert("compression".into(), json!(compression(m)));
                        map.insert("compressed_bytes".into(), json!(m.compressed_size()));
                    }
                    println!("{v}");
                } else {
                    super::print_header(&label(path, m.name()), &h);
                    println!(
                        "  compression:    {} ({} bytes stored)",
                        compression(m),
                        m.compressed_size()
                    );
                }
            }
            Err(e) => {
                report(path, &e, as_json);
                code = Some(if super::is_io(&e) && e.offset() == 0 {
                    2
                } else {
                    1
                });
            }
        }
    }
    code
}

fn compression(m: &Member) -> &'static str {
    match m.compression() {
        npz::Compression::Stored => "stored",
        _ => "deflated",
    }
}

/// `validate` of an archive: every member decompressed to its end (CRC and sizes
/// checked), every `.npy` member read as an array. Returns the JSON result.
pub fn validate(path: &Path, opts: &ReadOptions) -> Result<Value, Error> {
    let mut archive = npz::open(path, opts)?;
    let members: Vec<Member> = archive.members().to_vec();
    let mut arrays = Vec::new();
    for m in &members {
        match m.array_name() {
            Some(name) => {
                let a = archive.array(m.name())?;
                arrays.push(json!({"name": name, "descr": super::descr_json(a.header()), "shape": a.shape()}));
            }
            None => {
                archive.verify_member(m.name())?;
            }
        }
    }
    Ok(
        json!({"file": path.display().to_string(), "ok": true, "arrays": arrays, "members": members.len()}),
    )
}

fn open_or_exit(
    path: &Path,
    opts: &ReadOptions,
) -> Result<Result<NpzArchive<std::io::BufReader<std::fs::File>>, ExitCode>, String> {
    npz::open(path, opts).map(Ok).or_else(|e| fail(path, e))
}

fn fail<T>(path: &Path, e: Error) -> Result<Result<T, ExitCode>, String> {
    if super::is_io(&e) && e.offset() == 0 {
        return Err(format!("{}: {e}", path.display()));
    }
    eprintln!("{}: {e}", path.display());
    Ok(Err(ExitCode::from(1)))
}

/// `dump` of an archive: `{"arrays": {NAME: <dump --json of one array>, ...}}` in archive
/// order, or in text mode `NAME = array(...)` per array.
pub fn dump(
    path: &Path,
    opts: &ReadOptions,
    as_json: bool,
    full: bool,
) -> Result<ExitCode, String> {
    let mut archive = match open_or_exit(path, opts)? {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let mut parts = Vec::new();
    for item in archive.arrays() {
        let (name, array) = match item {
            Ok(x) => x,
            Err(e) => return fail::<()>(path, e).map(|r| r.err().unwrap_or(ExitCode::from(1))),
        };
        let key = serde_json::to_string(&name).map_err(|e| e.to_string())?;
        if as_json {
            parts.push(format!("{key}: {}", super::array_json(&array)?));
        } else {
            parts.push(format!("{name} = {}", super::array_text(&array, full)?));
        }
    }
    if as_json {
        println!("{{\"arrays\": {{{}}}}}", parts.join(", "));
    } else {
        for p in parts {
            println!("{p}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The array `convert` writes from an archive: `--member NAME`, or the only array.
pub fn read_member(
    path: &Path,
    member: Option<&str>,
    opts: &ReadOptions,
) -> Result<Result<Array, ExitCode>, String> {
    let mut archive = match open_or_exit(path, opts)? {
        Ok(a) => a,
        Err(code) => return Ok(Err(code)),
    };
    let names: Vec<String> = archive.array_names().map(str::to_string).collect();
    let name = match (member, names.as_slice()) {
        (Some(m), _) => m.to_string(),
        (None, [only]) => only.clone(),
        (None, _) => {
            return Err(format!(
                "{}: an archive of {} arrays; choose one with --member NAME (arrays: {})",
                path.display(),
                names.len(),
                names.join(", ")
            ))
        }
    };
    match archive.array(&name) {
        Ok(a) => Ok(Ok(a)),
        Err(e) => fail(path, e),
    }
}
