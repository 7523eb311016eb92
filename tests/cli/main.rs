//! The command line's integration tests (they run the built `npyguard` binary), as one
//! test binary. Run one module with `cargo test --all-features --test cli <module>::`.

mod append;
mod cli;
mod hostile_layers;
mod npz_cli;
mod numpy_repr;
