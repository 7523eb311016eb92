//! Reads many `.npz` archives from one file and prints npyguard's reading of each as one
//! compact JSON line (the batch side of `tests/numpy/npz_differential.py`).
//!
//! ```text
//! cargo run -q --release --features npz --example npz_batch -- ARCHIVES.bin   # or `-` for stdin
//! ```
//!
//! The input is a sequence of records, each `length: u32 little-endian` then `length`
//! bytes of archive. For each record, in input order, one line is printed: what
//! `npyguard dump` reads (every key, in archive order, read as an array with the default
//! options), or the first refusal:
//!
//! ```text
//! {"ok":true,"keys":["a","b"],"arrays":[{"descr":"'<f8'","shape":[2],"c_hex":"000000000000f03f..."}, ...]}
//! {"ok":false,"kind":"zip-format","offset":17,"message":"..."}
//! ```
//!
//! `descr` is npyguard's canonical descr (a Python literal, as NumPy's `dtype_to_descr`
//! repr), `c_hex` the array's payload in C order as hex (NumPy's `tobytes()`). A
//! truncated record at the end of the input ends the program with exit status 2.

#[path = "common/json.rs"]
mod json;

use json::push_json_str;
use std::fmt::Write as _;
use std::io::{Cursor, Read, Write as _};

use npyguard::npz::NpzArchive;
use npyguard::{Array, ReadOptions};

fn push_array(out: &mut String, a: &Array) {
    out.push_str("{\"descr\":");
    push_json_str(out, &a.dtype().descr().to_string());
    out.push_str(",\"shape\":[");
    for (i, d) in a.shape().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{d}");
    }
    out.push_str("],\"c_hex\":\"");
    let c = a.to_c_order();
    let bytes = npyguard::write::to_vec(&c).unwrap_or_default();
    let payload = bytes
        .get(usize::try_from(npyguard::write::header_bytes(c.header()).len()).unwrap_or(0)..)
        .unwrap_or_default();
    for b in payload {
        let _ = write!(out, "{b:02x}");
    }
    out.push_str("\"}");
}

fn describe(out: &mut String, archive: &[u8]) {
    let read = NpzArchive::new(Cursor::new(archive), &ReadOptions::default()).and_then(|mut z| {
        let keys: Vec<String> = z.array_names().map(str::to_string).collect();
        let arrays = z.read_all()?;
        Ok((keys, arrays))
    });
    match read {
        Ok((keys, arrays)) => {
            out.push_str("{\"ok\":true,\"keys\":[");
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_json_str(out, k);
            }
            out.push_str("],\"arrays\":[");
            for (i, (_, a)) in arrays.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_array(out, a);
            }
            out.push_str("]}");
        }
        Err(e) => {
            out.push_str("{\"ok\":false,\"kind\":");
            push_json_str(out, e.kind().name());
            let _ = write!(
                out,
                ",\"offset\":{},\"message\":",
                json::json_offset(e.offset())
            );
            push_json_str(out, &e.to_string());
            out.push('}');
        }
    }
}

fn main() -> std::process::ExitCode {
    let path = std::env::args().nth(1).unwrap_or_else(|| "-".to_string());
    let mut input = Vec::new();
    let read = if path == "-" {
        std::io::stdin().read_to_end(&mut input)
    } else {
        std::fs::File::open(&path).and_then(|mut f| f.read_to_end(&mut input))
    };
    if let Err(e) = read {
        eprintln!("npz_batch: {path}: {e}");
        return std::process::ExitCode::from(2);
    }
    let stdout = std::io::stdout();
    let mut stdout = std::io::BufWriter::new(stdout.lock());
    let mut rest = &input[..];
    while !rest.is_empty() {
        let Some((len, tail)) = rest.split_first_chunk::<4>() else {
            eprintln!("npz_batch: truncated record length");
            return std::process::ExitCode::from(2);
        };
        let len = u32::from_le_bytes(*len) as usize;
        let Some((archive, tail)) = tail.split_at_checked(len) else {
            eprintln!("npz_batch: truncated record");
            return std::process::ExitCode::from(2);
        };
        let mut line = String::new();
        describe(&mut line, archive);
        line.push('\n');
        if stdout.write_all(line.as_bytes()).is_err() {
            return std::process::ExitCode::from(2);
        }
        rest = tail;
    }
    let _ = stdout.flush();
    std::process::ExitCode::SUCCESS
}
