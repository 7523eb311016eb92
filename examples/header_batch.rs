//! Reads many header texts from one file and prints npyguard's reading of each
//! as one compact JSON line (the batch side of `tests/numpy/differential.py`).
//!
//! ```text
//! cargo run -q --example header_batch -- HEADERS.bin   # or `-` for stdin
//! ```
//!
//! The input is a sequence of records, each
//!
//! ```text
//! version: u8 (1, 2 or 3)   length: u32 little-endian   header text: `length` bytes
//! ```
//!
//! where the header text is what follows the preamble of a `.npy` file of that
//! format version (from `{` through the padding). For each record, in input
//! order, one line is printed:
//!
//! ```text
//! {"ok":true,"descr":"'<f8'","shape":[2,3],"fortran_order":false,"extra":0,"strict_ok":true}
//! {"ok":false,"kind":"header-syntax","offset":17,"strict_ok":false}
//! ```
//!
//! `descr` is npyguard's canonical descr (`header.dtype().descr()`, a Python
//! literal), `extra` the number of keys other than the three (an npyguard
//! extension), `offset` the error's byte offset in the whole file (preamble
//! included: 10 bytes for 1.0, 12 for 2.0 and 3.0), `strict_ok` whether
//! numpy-strict options accept it too. A record whose version byte is not 1, 2
//! or 3, or a 1.0 record longer than 65535 bytes, gets `"kind":"invalid-input"`.
//! A truncated record at the end of the input ends the program with exit
//! status 2 after the lines before it. The JSON is plain ASCII.

#[path = "common/json.rs"]
mod json;

use json::push_json_str;
use std::fmt::Write as _;
use std::io::{Read, Write as _};

use npyguard::{Header, Preamble, ReadOptions, Version};

fn describe(out: &mut String, version: Option<Version>, text: &[u8]) {
    let header_len = u32::try_from(text.len()).ok();
    let preamble = match (version, header_len) {
        (Some(Version::V1_0), Some(n)) if n > u32::from(u16::MAX) => None,
        (Some(version), Some(header_len)) => Some(Preamble {
            version,
            header_len,
        }),
        _ => None,
    };
    let Some(preamble) = preamble else {
        out.push_str("{\"ok\":false,\"kind\":\"invalid-input\",\"offset\":0,\"strict_ok\":false}");
        return;
    };
    match Header::parse(preamble, text, &ReadOptions::default()) {
        Ok(h) => {
            out.push_str("{\"ok\":true,\"descr\":");
            push_json_str(out, &h.dtype().descr().to_string());
            out.push_str(",\"shape\":[");
            for (i, d) in h.shape().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{d}");
            }
            let _ = write!(
                out,
                "],\"fortran_order\":{},\"extra\":{}",
                h.fortran_order(),
                h.extra().len()
            );
        }
        Err(e) => {
            out.push_str("{\"ok\":false,\"kind\":");
            push_json_str(out, e.kind().name());
            let _ = write!(out, ",\"offset\":{}", json::json_offset(e.offset()));
        }
    }
    let strict = Header::parse(
        preamble,
        text,
        &ReadOptions::default().with_numpy_strict(true),
    );
    let _ = write!(out, ",\"strict_ok\":{}}}", strict.is_ok());
}

fn main() {
    let Some(arg) = std::env::args_os().nth(1) else {
        eprintln!("usage: header_batch FILE|-");
        std::process::exit(2);
    };
    let input = if arg == "-" {
        let mut v = Vec::new();
        std::io::stdin().read_to_end(&mut v).map(|_| v)
    } else {
        std::fs::read(&arg)
    };
    let input = match input {
        Ok(v) => v,
        Err(e) => {
            eprintln!("header_batch: {}: {e}", arg.to_string_lossy());
            std::process::exit(2);
        }
    };
    let stdout = std::io::stdout();
    let mut stdout = std::io::BufWriter::new(stdout.lock());
    let mut rest = input.as_slice();
    let mut line = String::new();
    while !rest.is_empty() {
        let Some((&[v, a, b, c, d], tail)) = rest.split_first_chunk::<5>() else {
            eprintln!("header_batch: truncated record header");
            let _ = stdout.flush();
            std::process::exit(2);
        };
        let len = u32::from_le_bytes([a, b, c, d]) as usize;
        let Some((text, tail)) = tail.split_at_checked(len) else {
            eprintln!("header_batch: truncated record ({len} bytes declared)");
            let _ = stdout.flush();
            std::process::exit(2);
        };
        let version = match v {
            1 => Some(Version::V1_0),
            2 => Some(Version::V2_0),
            3 => Some(Version::V3_0),
            _ => None,
        };
        line.clear();
        describe(&mut line, version, text);
        line.push('\n');
        if stdout.write_all(line.as_bytes()).is_err() {
            return;
        }
        rest = tail;
    }
    let _ = stdout.flush();
}
