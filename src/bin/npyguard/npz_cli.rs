//! `.npz` support for inspect, validate, dump and convert.
//!
//! `--max-file-bytes` applies to each member's `.npy` bytes, `--max-members`,
//! `--max-total-bytes` and `--max-ratio` to the archive. Errors inside a member name it.
//! Keys are NumPy's: each member's name without a final `.npy`.

use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;

use npyguard::npz::{self, Member};
use npyguard::{Array, ReadOptions};
use serde_json::{json, Value};

use super::input::{self, Failure, Input};

fn label(path: &Path, member: &str) -> String {
    format!("{}[{member}]", path.display())
}

/// `inspect` of an archive: one header per member (only headers are decompressed), after
/// the members' declared sizes are checked against the limits a full read enforces.
pub fn inspect(
    path: &Path,
    input: Input,
    opts: &ReadOptions,
    as_json: bool,
) -> Result<(), Failure> {
    let classify = |e| input::classify(path, e);
    let mut archive = input.archive(opts).map_err(classify)?;
    archive.check_declared_sizes().map_err(classify)?;
    let members: Vec<Member> = archive.members().to_vec();
    for m in &members {
        let h = archive.header(m.name()).map_err(classify)?;
        if as_json {
            let mut v = super::report::header_json(path, &h);
            if let Value::Object(map) = &mut v {
                map.insert("member".into(), json!(m.name()));
                map.insert("array".into(), json!(m.key()));
                map.insert("compression".into(), json!(compression(m)));
                map.insert("compressed_bytes".into(), json!(m.compressed_size()));
            }
            outln!("{v}");
        } else {
            super::report::print_header(&label(path, m.name()), &h)?;
            outln!(
                "  compression:    {} ({} bytes stored)",
                compression(m),
                m.compressed_size()
            );
        }
    }
    Ok(())
}

fn compression(m: &Member) -> &'static str {
    match m.compression() {
        npz::Compression::Stored => "stored",
        _ => "deflated",
    }
}

/// `validate` of an archive: every member read as an array would be (CRC and sizes
/// checked), in row chunks of about 1 MiB that are dropped once checked; returns the JSON
/// result as text (built as it goes: a value tree per member of a 65 536-member archive
/// took 100 MB).
pub fn validate(path: &Path, input: Input, opts: &ReadOptions) -> Result<String, Failure> {
    let classify = |e| input::classify(path, e);
    let mut archive = input.archive(opts).map_err(classify)?;
    let mut arrays = String::new();
    for i in 0..archive.members().len() {
        let Some(name) = archive.members().get(i).map(|m| m.key().to_string()) else {
            break;
        };
        let chunks = archive.row_chunks(&name, 1).map_err(classify)?;
        let header = chunks.header().clone();
        for chunk in chunks.with_rows_per_chunk(input::rows_per_chunk(&header)) {
            drop(chunk.map_err(classify)?);
        }
        if !arrays.is_empty() {
            arrays.push(',');
        }
        let item = json!({"name": name, "descr": super::report::descr_json(&header), "shape": header.shape()});
        arrays.push_str(&item.to_string());
    }
    // The keys in serde_json's (sorted) order, as the other results print them.
    Ok(format!(
        "{{\"arrays\":[{arrays}],\"file\":{},\"members\":{},\"ok\":true}}",
        Value::String(path.display().to_string()),
        archive.members().len()
    ))
}

/// `dump` of an archive: `{"arrays": {NAME: <dump --json of one array>, ...}}` in archive
/// order, or in text mode `NAME = array(...)` per array.
pub fn dump(
    path: &Path,
    input: Input,
    opts: &ReadOptions,
    as_json: bool,
    full: bool,
) -> Result<ExitCode, Failure> {
    let mut archive = match input.archive(opts) {
        Ok(a) => a,
        Err(e) => return super::report::fail_code(path, e),
    };
    let mut parts = Vec::new();
    for item in archive.arrays() {
        let rendered = item.and_then(|(name, array)| {
            if as_json {
                let key = serde_json::to_string(&name).unwrap_or_default();
                Ok(format!("{key}: {}", super::dump::array_json(&array)?))
            } else {
                Ok(format!(
                    "{name} = {}",
                    super::dump::array_text(&array, full)?
                ))
            }
        });
        match rendered {
            Ok(p) => parts.push(p),
            Err(e) => return super::report::fail_code(path, e),
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

/// The array `convert` writes from an archive: `--member NAME`, or the only array.
pub fn read_member(
    path: &Path,
    input: Input,
    member: Option<&str>,
    opts: &ReadOptions,
) -> Result<Result<Array, ExitCode>, Failure> {
    let mut archive = match input.archive(opts) {
        Ok(a) => a,
        Err(e) => return super::report::fail(path, e),
    };
    let name = member_name(path, &archive, member)?;
    match archive.array(&name) {
        Ok(a) => Ok(Ok(a)),
        Err(e) => super::report::fail(path, e),
    }
}

/// The member `--member` names, or the archive's only array (an error otherwise).
pub fn member_name<R>(
    path: &Path,
    archive: &npyguard::npz::NpzArchive<R>,
    member: Option<&str>,
) -> Result<String, String>
where
    R: std::io::Read + std::io::Seek,
{
    let names: Vec<String> = archive.array_names().map(str::to_string).collect();
    match (member, names.as_slice()) {
        (Some(m), _) => Ok(m.to_string()),
        (None, [only]) => Ok(only.clone()),
        (None, _) => Err(format!(
            "{}: an archive of {} arrays; choose one with --member NAME (arrays: {})",
            path.display(),
            names.len(),
            names.join(", ")
        )),
    }
}

/// Keys of archive `b` by name, to match `a`'s keys in one hashed look-up each.
pub fn key_set<'a>(names: &'a [String]) -> HashMap<&'a str, usize> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect()
}
