//! libFuzzer target `render`: the body is `fuzz/harness/render.rs`, shared with `tests/fuzz_replay.rs`.
#![no_main]

#[path = "../harness/render.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
