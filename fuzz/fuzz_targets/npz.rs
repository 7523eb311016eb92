//! libFuzzer target `npz`: the body is `fuzz/harness/npz.rs`, shared with `tests/fuzz_replay.rs`.
#![no_main]

#[path = "../harness/npz.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
