//! `npyguard inspect`: the header of each file (its members, for an archive), as text or JSON.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use npyguard::npz::{self, Member};
use npyguard::ReadOptions;
use serde_json::{json, Value};

use crate::input::{self, Failure, Input};
use crate::report::{error_json, exit_code, header_json, print_header, report_os};

pub fn inspect(files: &[PathBuf], opts: &ReadOptions, as_json: bool) -> Result<ExitCode, Failure> {
    let (mut os, mut invalid) = (false, false);
    for path in files {
        let outcome = input::open(path).and_then(|input| {
            if input.is_npz() {
                return inspect_npz(path, input, opts, as_json);
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
            Err(stop @ (Failure::Closed | Failure::Reported(_))) => return Err(stop),
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

fn label(path: &Path, member: &str) -> String {
    format!("{}[{}]", path.display(), crate::out::shown(member))
}

/// `inspect` of an archive: one header per member (only headers are decompressed), after
/// the members' declared sizes are checked against the limits a full read enforces.
fn inspect_npz(
    path: &Path,
    input: Input,
    opts: &ReadOptions,
    as_json: bool,
) -> Result<(), Failure> {
    let classify = |e| input::classify(path, e);
    let mut archive = input.whole_archive(opts).map_err(classify)?;
    let members: Vec<Member> = archive.members().to_vec();
    for m in &members {
        let h = archive.header(m.name()).map_err(classify)?;
        if as_json {
            let mut v = crate::report::header_json(path, &h);
            if let Value::Object(map) = &mut v {
                map.insert("member".into(), json!(m.name()));
                map.insert("array".into(), json!(m.key()));
                map.insert("compression".into(), json!(compression(m)));
                map.insert("compressed_bytes".into(), json!(m.compressed_size()));
            }
            outln!("{v}");
        } else {
            crate::report::print_header(&label(path, m.name()), &h)?;
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
