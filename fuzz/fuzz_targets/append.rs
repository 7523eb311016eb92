//! libFuzzer target `append`: the body is `fuzz/harness/append.rs`, shared with `tests/library/fuzz_replay.rs`.
#![no_main]

#[path = "../harness/append.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
