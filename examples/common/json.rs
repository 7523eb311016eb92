//! Shared by the batch examples (`header_batch`, `header_json`, `npz_batch`): JSON text
//! without a JSON dependency.

use std::fmt::Write as _;

/// Appends `s` as a JSON string literal (quoted, escaped, ASCII only).
pub fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}

/// An error's byte offset as JSON: a number, or `null` when the error has no position.
pub fn json_offset(offset: Option<u64>) -> String {
    offset.map_or_else(|| "null".to_string(), |at| at.to_string())
}
