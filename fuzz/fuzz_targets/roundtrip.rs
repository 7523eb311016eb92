//! libFuzzer target `roundtrip`: the body is `fuzz/harness/roundtrip.rs`, shared with `tests/fuzz_replay.rs`.
#![no_main]

#[path = "../harness/roundtrip.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
