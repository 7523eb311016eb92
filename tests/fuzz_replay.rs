//! Replays the fuzz corpora and crash reproducers on stable Rust.
//!
//! A test target of its own, not in the packaged crate (Cargo.toml `exclude`): it needs
//! the repository's `fuzz/` folder (harnesses, corpora, reproducers), a package of its own.
#![cfg(feature = "std")]
//!
//! Every file in `fuzz/corpus/<target>/` and `fuzz/regressions/<target>/` runs
//! through the very function the libFuzzer target calls (`fuzz/harness/<target>.rs`),
//! so correctness never depends on nightly or cargo-fuzz. Each reproducer also has
//! a named test below (see fuzz/README.md: "From a crash to a regression test").

use std::path::{Path, PathBuf};

#[path = "../fuzz/harness/append.rs"]
mod append;
#[path = "../fuzz/harness/compare.rs"]
mod compare;
#[cfg(feature = "datasets")]
#[path = "../fuzz/harness/datasets.rs"]
mod datasets;
#[path = "../fuzz/harness/file.rs"]
mod file;
#[path = "../fuzz/harness/header.rs"]
mod header;
#[cfg(feature = "npz")]
#[path = "../fuzz/harness/npz.rs"]
mod npz;
#[path = "../fuzz/harness/payload.rs"]
mod payload;
#[path = "../fuzz/harness/preamble.rs"]
mod preamble;
#[path = "../fuzz/harness/render.rs"]
mod render;
#[path = "../fuzz/harness/roundtrip.rs"]
mod roundtrip;
#[path = "../fuzz/harness/views.rs"]
mod views;

const FUZZ_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz");

/// Runs `f` on a thread with a generous stack (debug builds recurse deeper than the fuzzer's).
fn big_stack<F: FnOnce() + Send + 'static>(f: F) {
    let handle = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(f)
        .expect("spawn replay thread");
    if let Err(panic) = handle.join() {
        std::panic::resume_unwind(panic);
    }
}

/// The files of `fuzz/<kind>/<target>/`, sorted (hidden files such as `.gitkeep` skipped).
fn files(kind: &str, target: &str) -> Vec<PathBuf> {
    let dir = Path::new(FUZZ_DIR).join(kind).join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.expect("read fuzz directory entry").path())
        .filter(|p| {
            p.is_file()
                && !p
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with('.'))
        })
        .collect();
    out.sort();
    out
}

/// Replays every corpus file and reproducer of `target`; fails listing each input that panics.
fn replay(target: &'static str, run: fn(&[u8])) {
    big_stack(move || {
        let corpus = files("corpus", target);
        let regressions = files("regressions", target);
        assert!(!corpus.is_empty(), "fuzz/corpus/{target}/ is empty");
        let mut failures = Vec::new();
        for path in corpus.iter().chain(&regressions) {
            let data =
                std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
            if let Err(panic) = std::panic::catch_unwind(|| run(&data)) {
                let msg = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{}: {msg}", path.display()));
            }
        }
        println!(
            "{target}: replayed {} corpus files and {} reproducers",
            corpus.len(),
            regressions.len()
        );
        assert!(
            failures.is_empty(),
            "{} inputs fail the {target} harness:\n{}",
            failures.len(),
            failures.join("\n")
        );
    });
}

/// Runs one reproducer `fuzz/regressions/<target>/<name>` (for the named tests below).
fn regression(target: &'static str, name: &'static str, run: fn(&[u8])) {
    big_stack(move || {
        let path = Path::new(FUZZ_DIR)
            .join("regressions")
            .join(target)
            .join(name);
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        run(&data);
    });
}

#[test]
fn replay_header() {
    replay("header", header::run);
}

#[test]
fn replay_preamble() {
    replay("preamble", preamble::run);
}

#[test]
fn replay_file() {
    replay("file", file::run);
}

#[test]
fn replay_payload() {
    replay("payload", payload::run);
}

#[test]
fn replay_append() {
    replay("append", append::run);
}

#[test]
fn replay_roundtrip() {
    replay("roundtrip", roundtrip::run);
}

/// `.npz` archives (needs the `npz` feature: `cargo test --all-features --test fuzz_replay`).
#[cfg(feature = "npz")]
#[test]
fn replay_npz() {
    replay("npz", npz::run);
}

#[test]
fn replay_views() {
    replay("views", views::run);
}

#[test]
fn replay_render() {
    replay("render", render::run);
}

#[test]
fn replay_compare() {
    replay("compare", compare::run);
}

/// Found under the 2 MiB allocation limit (issue 18): a 15-byte input makes an array of
/// thousands of columns whose Arrow IPC (many column headers) grew the harness's output `Vec`
/// past 3.8 MB. The output is now counted, not kept (`common::Counted`): the limit is on
/// npyguard's allocations, which stay under it for this input.
#[cfg(feature = "datasets")]
#[test]
fn datasets_many_columns_output_counted() {
    regression("datasets", "many_columns_output_counted", datasets::run);
}

/// The Arrow/Parquet/CSV datasets (needs the `datasets` feature).
#[cfg(feature = "datasets")]
#[test]
fn replay_datasets() {
    replay("datasets", datasets::run);
}

// ------------------------------------------------------------------ reproducers --
// One named test per file in fuzz/regressions/<target>/ (what it caught is in fuzz/README.md).

/// `append`, first 2-minute run: a file whose shape has a zero dimension and a first
/// dimension near isize::MAX / item size cannot grow (the grown shape's byte size would not
/// fit isize): `append` refuses it with `ShapeOverflow` and leaves the file as it was. The
/// library is right; the harness assumed every grown shape has a header.
#[test]
fn append_to_a_huge_zero_size_array_overflows() {
    regression(
        "append",
        "crash-197eb7557f3cacef31786c6a6162356d04d0ecda",
        append::run,
    );
}

/// `views`, first campaign: a `U` array whose payload holds a non-character (a surrogate)
/// and is followed by more bytes. `read_bytes` decodes the payload before it sees the end
/// (`BadPayload` at the unit), `View::new` checked the length first (`TrailingBytes`). The
/// view now checks in a read's order: limits, header, claim, the text of the payload bytes
/// that are there, then the length.
#[test]
fn views_check_text_before_trailing_bytes() {
    regression("views", "u-bad-text-trailing-error-order", views::run);
}

/// `views`, first campaign: the same with the payload cut short (`Truncated` vs `BadPayload`).
#[test]
fn views_check_text_before_truncation() {
    regression("views", "u-bad-text-truncated-error-order", views::run);
}

/// `views`, first campaign: `<f2` of shape (86740, 0). `read_bytes` reads it (no payload);
/// `RowReader` and `RowChunks` refused it as `unbacked-output` (a guard against looping over
/// empty rows). Now an empty payload is one chunk, and parts read what the whole read reads.
#[test]
fn views_zero_size_rows_are_one_chunk() {
    regression("views", "zero-size-rows-refused-unbacked", views::run);
}

/// `views`, first campaign (an OOM at the 64 MiB malloc limit): a record of item size 0
/// (one `<i2` field of subarray shape (0, 2)), shape (711371,), one trailing byte.
/// `RowChunks` made 355 686 empty chunks of 2 rows before it reported the trailing byte
/// (with shape (2**62,) it would never have ended). Now an empty payload is one chunk.
#[test]
fn views_zero_itemsize_records_are_one_chunk() {
    regression(
        "views",
        "zero-itemsize-record-one-chunk-per-row",
        views::run,
    );
}

/// `roundtrip`, 8-minute run: a record `[('f0', '|S4', (0,))]` (item size 0) with shape
/// (2726025775814803458, 0) is valid, but `Array::field("f0")` must build an array of
/// `|S4` and shape (2726025775814803458, 0, 0), whose non-zero dimensions times 4
/// overflow isize: `ShapeOverflow`. The library is right (NumPy's size rule); the
/// harness expected only `BadPayload` from `field` and now accepts this refusal.
#[test]
fn roundtrip_field_of_zero_size_record_overflows() {
    regression(
        "roundtrip",
        "field-of-zero-size-record-overflows",
        roundtrip::run,
    );
}

// ---------------------------------------------------------- fixed findings --

/// Found while writing the `roundtrip` target (its generator makes only valid dtypes):
/// `Header::new` used to check only sizes, so it accepted hand-built dtypes that the
/// writer then wrote and the reader refused (`|S0`, `|V0`, `<U0`, `<M8[0s]`, records
/// without named fields) or misread (`<M8` with multiple 5 read back with multiple 1),
/// and records whose fields overlap or overrun the item size, for which the writer
/// wrote a descr implying another item size, i.e. a corrupt file. Fixed upstream in
/// c50b4e8 ("Header::new refuses dtypes whose descr would not read back").
#[test]
fn header_new_refuses_dtypes_the_reader_would_refuse() {
    use npyguard::PayloadDecoder;
    use npyguard::{
        read_bytes, write, DateUnit, Dtype, Endian, Field, Header, ReadOptions, Record, TimeUnit,
    };
    let field = |name: &str, dtype: Dtype, offset: usize| Field {
        name: name.into(),
        title: None,
        dtype,
        shape: vec![],
        nesting: Vec::new(),
        offset,
    };
    let cases = [
        ("|S0", Dtype::Bytes(0)),
        ("|V0", Dtype::Void(0)),
        ("<U0", Dtype::Unicode(0, Endian::Little)),
        (
            "<M8[0s]",
            Dtype::DateTime(
                DateUnit {
                    unit: TimeUnit::Second,
                    multiple: 0,
                },
                Endian::Little,
            ),
        ),
        (
            "<M8 with multiple 5",
            Dtype::DateTime(
                DateUnit {
                    unit: TimeUnit::Generic,
                    multiple: 5,
                },
                Endian::Little,
            ),
        ),
        (
            "record without fields",
            Dtype::Record(Record {
                fields: vec![],
                itemsize: 4,
            }),
        ),
        (
            "field with empty name",
            Dtype::Record(Record {
                fields: vec![field("", Dtype::U8, 0)],
                itemsize: 1,
            }),
        ),
        (
            "overlapping fields",
            Dtype::Record(Record {
                fields: vec![
                    field("a", Dtype::I32(Endian::Little), 0),
                    field("b", Dtype::U8, 1),
                ],
                itemsize: 4,
            }),
        ),
        (
            "itemsize below the fields",
            Dtype::Record(Record {
                fields: vec![field("a", Dtype::I32(Endian::Little), 0)],
                itemsize: 2,
            }),
        ),
    ];
    let mut wrong = Vec::new();
    for (label, dtype) in cases {
        // Refusing is right; accepting is right only if the written file reads back the same.
        let Ok(header) = Header::new(dtype.clone(), vec![2], false) else {
            continue;
        };
        let mut dec = PayloadDecoder::new(header.clone());
        dec.feed(&vec![0u8; header.payload_len()])
            .expect("zero bytes decode");
        let bytes =
            write::to_vec(&dec.finish().expect("complete payload")).expect("write to a Vec");
        match read_bytes(&bytes, &ReadOptions::default()) {
            Ok(back) if back.dtype() == &dtype => {}
            Ok(back) => wrong.push(format!("{label}: reads back as {:?}", back.dtype())),
            Err(e) => wrong.push(format!("{label}: written, then refused: {e}")),
        }
    }
    assert!(
        wrong.is_empty(),
        "Header::new accepts dtypes that do not round-trip:\n{}",
        wrong.join("\n")
    );
}

/// `compare`, first seconds of its first run: a structure-aware record array whose `U` field
/// held a code unit that is not a character (0xf7d7f773). `Array::new` accepted the record
/// bytes, and `compare` (through `Array::field`) then failed on them; `npyguard diff` made
/// that exit 2. Record `U` fields are now checked where records enter (the reader and
/// `Array::new`, `BadPayload`), so every array that exists can be compared and printed.
#[test]
fn compare_record_u_field_not_text() {
    regression("compare", "record_u_field_not_text", compare::run);
}

/// `render` and `compare`, first minutes: an item-size-0 record array of a huge shape whose
/// field array (`Array::field`) would not fit isize (the `roundtrip` reproducer's case) made
/// `render::values` and `compare` return `ShapeOverflow`, which the harnesses did not yet
/// allow. The library is right (NumPy's size rule; `dump`/`diff` exit 1, a typed refusal);
/// the harnesses now accept exactly that error for record arrays.
#[test]
fn render_record_field_shape_overflows() {
    regression("render", "record_field_shape_overflows", render::run);
}

#[test]
fn compare_record_field_shape_overflows() {
    regression("compare", "record_field_shape_overflows", compare::run);
}

/// `datasets`, 30 CPU-minute run under the 2 MiB allocation limit (issue 18): a 13-byte
/// input makes a zero-size array of shape (0, 65536), and the `columns` layout built one
/// `Vec<Field>` of 65 536 fields (4.2 MB in one allocation), then a 2 MiB Arrow IPC schema.
/// Now the fields are separate allocations and at most `limits::MAX_UNBACKED_COLUMNS`
/// (4 096) columns may go beyond what the payload backs: `Unbacked` otherwise.
#[cfg(feature = "datasets")]
#[test]
fn datasets_unbacked_columns_are_bounded() {
    regression("datasets", "zero-rows-65536-columns-schema", datasets::run);
}

/// `render`, 30 CPU-minute run under the 2 MiB limit: the harness checked `dump --json` by
/// building a `serde_json::Value` DOM, a 2 MiB `Vec` for the 65 536 empty lists of a
/// zero-size array. The library was within bounds; the harness now validates without a DOM.
#[test]
fn render_json_check_needs_no_dom() {
    regression("render", "json-check-dom-of-65536-lists", render::run);
}
