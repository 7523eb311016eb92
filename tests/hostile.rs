//! Hostile files are rejected with typed errors while the process's heap stays
//! small: a counting allocator (the `cap` crate) caps every case at 16 MiB above
//! the baseline (exceeding it aborts the test binary) and records the peak.
//!
//! One #[test] runs all cases in sequence so the allocator's peak belongs to them alone.
// The readers, writers and files these tests use need std (tests/core.rs runs without it).
#![cfg(feature = "std")]

use std::alloc::System;
use std::io::{Cursor, Read};
use std::time::Instant;

use cap::Cap;
use npyguard::{read_bytes, read_from, read_path, ErrorKind, NpyArray, ReadOptions};

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

const BUDGET: usize = 16 << 20;

fn npy(version: u8, header: &str, payload: &[u8]) -> Vec<u8> {
    let mut v = b"\x93NUMPY".to_vec();
    v.push(version);
    v.push(0);
    if version == 1 {
        v.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        v.extend_from_slice(&(header.len() as u32).to_le_bytes());
    }
    v.extend_from_slice(header.as_bytes());
    v.extend_from_slice(payload);
    v
}

/// Bytes forever: a stream that never ends.
struct Endless;
impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        buf.fill(0);
        Ok(buf.len())
    }
}

struct Case {
    name: &'static str,
    bytes: Vec<u8>,
    opts: ReadOptions,
    kind: ErrorKind,
}

fn case(name: &'static str, bytes: Vec<u8>, kind: ErrorKind) -> Case {
    Case {
        name,
        bytes,
        opts: ReadOptions::default(),
        kind,
    }
}

fn cases() -> Vec<Case> {
    let deep = |open: &str, n: usize| format!("{{'descr': {}", open.repeat(n));
    // 100 000 levels need more than the default 64 KiB header cap.
    let big_header = ReadOptions::default().with_max_header_bytes(1 << 20);
    vec![
        // 150 bytes claiming 2^40 f8 elements (8 TiB).
        case("claims-8TiB-f8", npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }", &[0; 64]), ErrorKind::Truncated),
        // Item sizes stay within NumPy's C int (larger ones are shape-overflow); the shape makes the claim.
        case("claims-1TiB-S", npy(1, "{'descr': '|S2147483647', 'fortran_order': False, 'shape': (512,), }", &[0; 16]), ErrorKind::Truncated),
        case("claims-4TB-U", npy(1, "{'descr': '<U536870911', 'fortran_order': False, 'shape': (2048,), }", &[0; 16]), ErrorKind::Truncated),
        case("claims-8TiB-subarray", npy(1, "{'descr': [('a', '<f8', (268435455,))], 'fortran_order': False, 'shape': (4096,), }", &[0; 16]), ErrorKind::Truncated),
        case("shape-overflow-2^32x2^32", npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", &[]), ErrorKind::ShapeOverflow),
        case("shape-overflow-with-zero", npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4611686018427387904), }", &[]), ErrorKind::ShapeOverflow),
        case("shape-dim-2^64", npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551616,), }", &[]), ErrorKind::ShapeOverflow),
        case("shape-65-dims", npy(1, &format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({}), }}", "1, ".repeat(65)), &[]), ErrorKind::ShapeOverflow),
        case("header-len-past-eof", {
            let mut v = b"\x93NUMPY\x01\x00\xe8\x03".to_vec();
            v.extend_from_slice(b"{'descr': '<f8'");
            v
        }, ErrorKind::Truncated),
        case("header-len-4GiB", b"\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr'".to_vec(), ErrorKind::HeaderTooLong),
        Case {
            name: "header-len-4GiB-cap-raised",
            bytes: b"\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr'".to_vec(),
            opts: ReadOptions::default().with_max_header_bytes(u32::MAX as usize),
            kind: ErrorKind::Truncated,
        },
        Case { name: "nesting-bomb-lists-100k", bytes: npy(2, &deep("[", 100_000), &[]), opts: big_header.clone(), kind: ErrorKind::NestingTooDeep },
        Case { name: "nesting-bomb-tuples-100k", bytes: npy(2, &deep("(", 100_000), &[]), opts: big_header.clone(), kind: ErrorKind::NestingTooDeep },
        Case { name: "nesting-bomb-mixed", bytes: npy(2, &deep("[(", 50_000), &[]), opts: big_header.clone(), kind: ErrorKind::NestingTooDeep },
        case("record-nesting-bomb", npy(2, &format!("{{'descr': {}'<f8'{}, 'fortran_order': False, 'shape': ()}}", "[('a', ".repeat(20), ")]".repeat(20)), &[]), ErrorKind::NestingTooDeep),
        case("too-many-fields", npy(2, &format!("{{'descr': [{}], 'fortran_order': False, 'shape': ()}}", (0..4100).map(|i| format!("('{i}','|u1')")).collect::<Vec<_>>().join(",")), &[]), ErrorKind::BadDescr),
        case("wide-flat-list-60KiB", npy(2, &format!("{{'x': [{}], 'descr': '<f8', 'fortran_order': False, 'shape': ()}}", "[[]], ".repeat(10_000)), &[0; 4]), ErrorKind::Truncated),
        case("bad-magic", b"\x93NUMPZ\x01\x00".to_vec(), ErrorKind::BadMagic),
        case("version-1.1", b"\x93NUMPY\x01\x01\x10\x00".to_vec(), ErrorKind::UnsupportedVersion),
        case("nul-in-header", npy(1, "{'descr': '<f8',\0 'fortran_order': False, 'shape': ()}", &[0; 8]), ErrorKind::HeaderEncoding),
        case("latin1-bytes-in-3.0", {
            let mut v = npy(3, "{'descr': [('\u{e9}', '<f8')], 'fortran_order': False, 'shape': ()}", &[0; 8]);
            // Replace the UTF-8 é (C3 A9) with the latin-1 byte E9 plus a space: invalid UTF-8.
            let pos = v.windows(2).position(|w| w == [0xc3, 0xa9]).unwrap();
            v[pos] = 0xe9;
            v[pos + 1] = b' ';
            v
        }, ErrorKind::HeaderEncoding),
        case("bom", npy(3, "\u{feff}{'descr': '<f8', 'fortran_order': False, 'shape': ()}", &[0; 8]), ErrorKind::HeaderSyntax),
        case("nbsp-whitespace", npy(3, "{'descr':\u{a0}'<f8', 'fortran_order': False, 'shape': ()}", &[0; 8]), ErrorKind::HeaderSyntax),
        case("vertical-tab", npy(1, "{'descr':\x0b'<f8', 'fortran_order': False, 'shape': ()}", &[0; 8]), ErrorKind::HeaderSyntax),
        case("trailing-polyglot", npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': ()}", b"\0\0\0\0\0\0\0\0PK\x03\x04"), ErrorKind::TrailingBytes),
        Case {
            name: "claim-over-file-limit",
            bytes: npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1048576,), }", &[0; 64]),
            opts: ReadOptions::default().with_max_file_bytes(Some(1 << 20)),
            kind: ErrorKind::FileTooLarge,
        },
        case("object-dtype", npy(1, "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", &[0; 8]), ErrorKind::UnsupportedDtype),
    ]
}

/// The cases above as files, committed under `tests/hostile/` for the front ends' suites (the
/// DuckDB extension's and the Python package's tests read every hostile file from there).
/// `NPYGUARD_BLESS=1` rewrites them; otherwise a committed file that differs from its case,
/// or a case without its file, fails. Called by the one test below (a second test would run
/// on another thread under the same counting allocator).
fn check_committed_hostile_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile");
    let bless = std::env::var_os("NPYGUARD_BLESS").is_some();
    let mut names = Vec::new();
    for c in cases() {
        let path = dir.join(format!("{}.npy", c.name));
        names.push(format!("{}.npy", c.name));
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &c.bytes).unwrap();
        }
        let committed = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            committed == c.bytes,
            "{} differs from its case (NPYGUARD_BLESS=1 rewrites it)",
            path.display()
        );
    }
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".npy"))
        .collect();
    on_disk.sort();
    names.sort();
    assert_eq!(on_disk, names, "tests/hostile/ holds exactly the cases");
}

#[test]
fn hostile_inputs_are_rejected_in_bounded_memory() {
    check_committed_hostile_files();
    let dir = std::env::temp_dir().join(format!("npyguard-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let baseline = ALLOC.allocated();
    let mut report = Vec::new();
    for c in cases() {
        let path = dir.join(format!("{}.npy", c.name));
        std::fs::write(&path, &c.bytes).unwrap();
        // The cap is on only while npyguard runs (a failing assertion's backtrace allocates a lot).
        ALLOC.set_limit(ALLOC.allocated() + BUDGET).unwrap();
        let t = Instant::now();
        let from_slice = read_bytes(&c.bytes, &c.opts).map(|_| ());
        let from_stream = read_from(Cursor::new(&c.bytes), &c.opts).map(|_| ());
        let from_path = read_path(&path, &c.opts).map(|_| ());
        let typed = NpyArray::<f64>::read_bytes(&c.bytes, &c.opts).map(|_| ());
        let elapsed = t.elapsed();
        ALLOC.set_limit(usize::MAX).unwrap();
        let (from_slice, from_stream, from_path, typed) = (
            from_slice.expect_err(c.name),
            from_stream.expect_err(c.name),
            from_path.expect_err(c.name),
            typed.expect_err(c.name),
        );
        for (how, e) in [
            ("slice", &from_slice),
            ("stream", &from_stream),
            ("path", &from_path),
        ] {
            assert_eq!(e.kind(), c.kind, "{} via {how}: {e}", c.name);
        }
        // A typed read may stop earlier, at the type check, but never succeeds.
        assert!(
            typed.kind() == c.kind || typed.kind() == ErrorKind::TypeMismatch,
            "{}: {typed}",
            c.name
        );
        assert_eq!(
            from_slice.offset(),
            from_stream.offset(),
            "{}: slice and stream agree on the offset",
            c.name
        );
        report.push(format!(
            "{:32} {:>18} at {:>7}  {:>8.3} ms (3 readers)",
            c.name,
            c.kind.name(),
            from_slice
                .offset()
                .map_or("-".to_string(), |at| at.to_string()),
            elapsed.as_secs_f64() * 1e3
        ));
    }
    // An endless stream after a valid header: bounded by max_file_bytes, never read to the end.
    let head = npy(
        1,
        "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }",
        &[],
    );
    let opts = ReadOptions::default().with_max_file_bytes(Some(1 << 20));
    let e = read_from(Cursor::new(head.clone()).chain(Endless), &opts).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TrailingBytes);
    let ok = read_from(
        Cursor::new(head).chain(Endless),
        &opts.clone().with_allow_trailing_bytes(true),
    )
    .unwrap();
    assert_eq!(ok.len(), 4);

    // A length the caller only declares (Opened::new) is checked against the header but
    // never sizes an allocation: 16 bytes that claim 2 GiB, declared as 2 GiB long, end as
    // a truncated read within the budget (a reservation of the claim would abort here).
    let claim = npy(
        1,
        "{'descr': '<f8', 'fortran_order': False, 'shape': (268435456,), }",
        &[0u8; 16],
    );
    let declared = (claim.len() as u64 - 16) + (2u64 << 30);
    ALLOC.set_limit(ALLOC.allocated() + BUDGET).unwrap();
    let lied = npyguard::Opened::new(Cursor::new(&claim), Some(declared), &ReadOptions::default())
        .and_then(npyguard::Opened::read);
    ALLOC.set_limit(usize::MAX).unwrap();
    assert_eq!(lied.unwrap_err().kind(), ErrorKind::Truncated);

    let peak = ALLOC.max_allocated().saturating_sub(baseline);
    println!("{}", report.join("\n"));
    println!(
        "peak heap above baseline across all cases: {:.2} MiB",
        peak as f64 / (1 << 20) as f64
    );
    assert!(peak < BUDGET, "peak {peak} bytes");
    std::fs::remove_dir_all(&dir).ok();
}
