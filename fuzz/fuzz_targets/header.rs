//! libFuzzer target `header`: the body is `fuzz/harness/header.rs`, shared with `tests/fuzz_replay.rs`.
#![no_main]

#[path = "../harness/header.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
