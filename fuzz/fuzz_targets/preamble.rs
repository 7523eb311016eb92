//! libFuzzer target `preamble`: the body is `fuzz/harness/preamble.rs`, shared with `tests/fuzz_replay.rs`.
#![no_main]

#[path = "../harness/preamble.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
