//! `npyguard inspect`: the header of each file (its members, for an archive), as text or JSON.

use std::path::PathBuf;
use std::process::ExitCode;

use npyguard::ReadOptions;

use crate::input::{self, Failure};
use crate::npz_cli;
use crate::report::{error_json, exit_code, header_json, print_header, report_os};

pub fn inspect(files: &[PathBuf], opts: &ReadOptions, as_json: bool) -> Result<ExitCode, Failure> {
    let (mut os, mut invalid) = (false, false);
    for path in files {
        let outcome = input::open(path).and_then(|input| {
            if input.is_npz() {
                return npz_cli::inspect(path, input, opts, as_json);
            }
            let h = input
                .inspect_npy(opts)
                .map_err(|e| input::classify(path, e))?;
            if as_json {
                outln!("{}", header_json(path, &h));
            } else {
                print_header(&path.display().to_string(), &h)?;
            }
            Ok(())
        });
        match outcome {
            Ok(()) => {}
            Err(Failure::Os(msg)) => {
                os = true;
                report_os(path, &msg, as_json)?;
            }
            Err(Failure::Closed) => return Err(Failure::Closed),
            Err(Failure::Invalid(e)) => {
                invalid = true;
                if as_json {
                    outln!("{}", error_json(path, &e));
                } else {
                    eprintln!("{}: {e}", path.display());
                }
            }
        }
    }
    Ok(exit_code(os, invalid))
}
