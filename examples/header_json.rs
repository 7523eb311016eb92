//! Prints npyguard's reading of header-text files as JSON lines.
//!
//! Used by `tests/numpy/header_cases.py` to compare npyguard with NumPy on the
//! corpus in `tests/headers/`. Each argument is a file holding the raw header
//! text (what follows the preamble). The format version comes from the file
//! name as in the corpus: `__v3` means 3.0, `__v2` means 2.0, otherwise 1.0.
//!
//! ```text
//! cargo run -q --example header_json -- tests/headers/y_*.txt
//! {"file":"tests/headers/y_….txt","version":"1.0","ok":true,"descr":"'<f8'","shape":[2,3],"fortran_order":false,"strict_ok":true}
//! {"file":"tests/headers/n_….txt","version":"1.0","ok":false,"kind":"header-syntax","offset":17,"message":"…","strict_ok":false,"strict_kind":"header-syntax"}
//! ```
//!
//! One line per argument, in argument order. `descr` is npyguard's canonical
//! descr (`header.dtype().descr()`), a Python literal. The JSON is written by
//! hand (no serde) and escapes everything outside printable ASCII, so the
//! output is plain ASCII. Nothing here panics: an unreadable file becomes a
//! line with `"kind":"io"`, and a closed stdout ends the program quietly.

#[path = "common/json.rs"]
mod json;

use json::push_json_str;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use npyguard::{Header, Preamble, ReadOptions, Version};

/// The format version a corpus file is parsed as, from its name.
fn version_for(name: &str) -> Version {
    if name.contains("__v3") {
        Version::V3_0
    } else if name.contains("__v2") {
        Version::V2_0
    } else {
        Version::V1_0
    }
}

/// Parses `text` as the header of a file of `version` with the given options.
fn parse(version: Version, text: &[u8], opts: &ReadOptions) -> npyguard::Result<Header> {
    let Ok(header_len) = u32::try_from(text.len()) else {
        return Err(npyguard::Error::new(
            npyguard::ErrorKind::InvalidInput,
            0,
            "a header of at most u32::MAX bytes",
        ));
    };
    if version == Version::V1_0 && header_len > u32::from(u16::MAX) {
        return Err(npyguard::Error::new(
            npyguard::ErrorKind::InvalidInput,
            0,
            "a header of at most 65535 bytes (format version 1.0)",
        ));
    }
    Header::parse(
        Preamble {
            version,
            header_len,
        },
        text,
        opts,
    )
}

/// One JSON line describing npyguard's reading of `text`.
fn describe(file: &str, version: Version, text: &[u8]) -> String {
    let mut out = String::from("{\"file\":");
    push_json_str(&mut out, file);
    let _ = write!(out, ",\"version\":\"{version}\"");
    match parse(version, text, &ReadOptions::default()) {
        Ok(h) => {
            out.push_str(",\"ok\":true,\"descr\":");
            push_json_str(&mut out, &h.dtype().descr().to_string());
            out.push_str(",\"shape\":[");
            for (i, d) in h.shape().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{d}");
            }
            let _ = write!(out, "],\"fortran_order\":{}", h.fortran_order());
        }
        Err(e) => {
            out.push_str(",\"ok\":false,\"kind\":");
            push_json_str(&mut out, e.kind().name());
            let _ = write!(
                out,
                ",\"offset\":{},\"message\":",
                json::json_offset(e.offset())
            );
            push_json_str(&mut out, &e.to_string());
        }
    }
    match parse(
        version,
        text,
        &ReadOptions::default().with_numpy_strict(true),
    ) {
        Ok(_) => out.push_str(",\"strict_ok\":true"),
        Err(e) => {
            out.push_str(",\"strict_ok\":false,\"strict_kind\":");
            push_json_str(&mut out, e.kind().name());
        }
    }
    out.push('}');
    out
}

fn main() {
    let stdout = std::io::stdout();
    let mut stdout = stdout.lock();
    for arg in std::env::args_os().skip(1) {
        let path = Path::new(&arg);
        let file = path.to_string_lossy();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let version = version_for(&name);
        let line = match std::fs::read(path) {
            Ok(text) => describe(&file, version, &text),
            Err(e) => {
                let mut out = String::from("{\"file\":");
                push_json_str(&mut out, &file);
                let _ = write!(out, ",\"version\":\"{version}\"");
                out.push_str(",\"ok\":false,\"kind\":\"io\",\"offset\":0,\"message\":");
                push_json_str(&mut out, &e.to_string());
                out.push('}');
                out
            }
        };
        if writeln!(stdout, "{line}").is_err() {
            return;
        }
    }
    let _ = stdout.flush();
}
