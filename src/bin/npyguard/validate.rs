//! `npyguard validate`: read each file completely under the limits, and say whether it is valid.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use npyguard::ReadOptions;
use serde_json::{json, Value};

use crate::input::{self, Failure, Input};
use crate::report::{descr_json, error_json, exit_code, os_json};

pub fn validate(files: &[PathBuf], opts: &ReadOptions, as_json: bool) -> Result<ExitCode, Failure> {
    let (mut os, mut invalid) = (false, false);
    let mut results = Vec::new();
    for path in files {
        let outcome = input::open(path).and_then(|input| {
            if input.is_npz() {
                return validate_npz(path, input, opts);
            }
            let h = input
                .validate_npy(opts)
                .map_err(|e| input::classify(path, e))?;
            Ok(json!({"file": path.display().to_string(), "ok": true, "descr": descr_json(&h), "shape": h.shape()}).to_string())
        });
        match outcome {
            Ok(v) => results.push(v),
            Err(Failure::Os(msg)) => {
                os = true;
                eprintln!("npyguard: {msg}");
                results.push(os_json(path, &msg).to_string());
            }
            Err(stop @ (Failure::Closed | Failure::Reported(_))) => return Err(stop),
            Err(Failure::Invalid(e)) => {
                invalid = true;
                if !as_json {
                    outln!("{}: {e}", path.display());
                }
                results.push(error_json(path, &e).to_string());
            }
        }
    }
    if as_json {
        // Each result is JSON text already (an archive's is built member by member).
        outln!("[{}]", results.join(","));
    }
    Ok(exit_code(os, invalid))
}

/// `validate` of an archive: every member read as an array would be (CRC and sizes
/// checked), in row chunks of about 1 MiB that are dropped once checked; returns the JSON
/// result as text (built as it goes: a value tree per member of a 65 536-member archive
/// took 100 MB).
fn validate_npz(path: &Path, input: Input, opts: &ReadOptions) -> Result<String, Failure> {
    let classify = |e| input::classify(path, e);
    let mut archive = input.whole_archive(opts).map_err(classify)?;
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
        let item = json!({"name": name, "descr": crate::report::descr_json(&header), "shape": header.shape()});
        arrays.push_str(&item.to_string());
    }
    // The keys in serde_json's (sorted) order, as the other results print them.
    Ok(format!(
        "{{\"arrays\":[{arrays}],\"file\":{},\"members\":{},\"ok\":true}}",
        Value::String(path.display().to_string()),
        archive.members().len()
    ))
}
