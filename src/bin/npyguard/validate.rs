//! `npyguard validate`: read each file completely under the limits, and say whether it is valid.

use std::path::PathBuf;
use std::process::ExitCode;

use npyguard::ReadOptions;
use serde_json::json;

use crate::input::{self, Failure};
use crate::npz_cli;
use crate::report::{descr_json, error_json, exit_code, os_json};

pub fn validate(files: &[PathBuf], opts: &ReadOptions, as_json: bool) -> Result<ExitCode, Failure> {
    let (mut os, mut invalid) = (false, false);
    let mut results = Vec::new();
    for path in files {
        let outcome = input::open(path).and_then(|input| {
            if input.is_npz() {
                return npz_cli::validate(path, input, opts);
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
            Err(Failure::Closed) => return Err(Failure::Closed),
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
