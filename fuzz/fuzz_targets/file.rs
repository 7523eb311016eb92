//! libFuzzer target `file`: the body is `fuzz/harness/file.rs`, shared with `tests/fuzz_replay.rs`.
#![no_main]

#[path = "../harness/file.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
