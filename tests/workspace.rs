//! Rules over the whole workspace: the front ends (the CLI, the Python package, the DuckDB
//! extension) beside the library. The crate's package holds only the library, so this file
//! is left out of it (Cargo.toml `exclude`); `cargo test` in the repository runs it.

use std::path::PathBuf;

#[path = "common/source.rs"]
mod source;
use source::crate_code;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every front end (the CLI, the Python package, the DuckDB extension) opens a `.npy`
/// through `npyguard::Opened` and never assembles the checks or calls the readers that
/// wrap it: one way in, whatever the door.
#[test]
fn front_ends_open_inputs_only_through_opened() {
    let front_ends = [
        root().join("src/bin/npyguard"),
        root().join("python/src"),
        root().join("duckdb-npy/src"),
    ];
    let bypasses = [
        "read_header(",
        "check_length(",
        "file_length(",
        "Header::from_bytes(",
        "Header::parse(",
        "RowReader::new(",
        "RowReader::open(",
        "RowChunks::new(",
        "View::new(",
        "ArrayView::new(",
        "read_raw_path(",
        "read_raw_from(",
        "validate_from(",
        "npyguard::read_file(",
        "npyguard::read_from(",
        "npyguard::read_path(",
        "npyguard::read_bytes(",
    ];
    let mut found = Vec::new();
    for dir in &front_ends {
        let files = crate_code(dir);
        assert!(!files.is_empty(), "{} has sources", dir.display());
        assert!(
            files.values().any(|c| c.contains("Opened::")),
            "{} opens its inputs through npyguard::Opened",
            dir.display()
        );
        for (path, code) in files {
            for b in bypasses {
                if code.contains(b) {
                    found.push(format!("{}: {b}", path.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "front ends opening inputs around npyguard::Opened: {found:#?}"
    );
}
