//! libFuzzer target `payload`: the body is `fuzz/harness/payload.rs`, shared with `tests/fuzz_replay.rs`.
#![no_main]

#[path = "../harness/payload.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
