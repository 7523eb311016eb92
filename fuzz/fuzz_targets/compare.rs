//! libFuzzer target `compare`: the body is `fuzz/harness/compare.rs`, shared with `tests/fuzz_replay.rs`.
#![no_main]

#[path = "../harness/compare.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
