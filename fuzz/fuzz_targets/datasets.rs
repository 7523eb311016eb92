//! libFuzzer target `datasets`: the body is `fuzz/harness/datasets.rs`, shared with `tests/fuzz_replay.rs`.
#![no_main]

#[path = "../harness/datasets.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
