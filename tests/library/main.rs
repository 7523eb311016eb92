//! The library's integration tests, as one test binary (one link of the crate with all
//! its features, instead of one per file). Each module was a test file of its own; run
//! one with `cargo test --all-features --test library <module>::`.
// The readers, writers and files these tests use need std (tests/core.rs runs without it).
#![cfg(feature = "std")]

mod abnf_quotes;
mod append;
mod architecture;
mod compare;
mod conformance;
mod coverage_gaps;
mod datasets;
mod errors;
mod fixtures;
mod grammar_agreement;
mod header_cases;
mod hugepages;
mod npz;
mod parts_agree;
mod roundtrip;
mod streaming;
mod surrogate_names;
mod views;
