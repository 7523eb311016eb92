//! The command line's integration tests (they run the built `npyguard` binary), as one
//! test binary. Run one module with `cargo test --all-features --test cli <module>::`.
// The readers, writers and files these tests use need std (tests/core.rs runs without it).
#![cfg(feature = "std")]

mod append;
mod cli;
mod closed_pipe;
mod endless;
mod hostile_layers;
mod nothing_lost;
mod npz_cli;
mod numpy_repr;
mod streams;
