//! libFuzzer target `views`: the body is `fuzz/harness/views.rs`, shared with `tests/library/fuzz_replay.rs`.
#![no_main]

#[path = "../harness/views.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
