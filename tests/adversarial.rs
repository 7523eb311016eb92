//! Adversarial whole files through every reader, in bounded memory.
//!
//! `tests/adversarial/` holds representative files (written by
//! `tests/numpy/gen_adversarial.py`), named like the header corpus:
//!
//! - `y_<desc>.npy`: read by `read_bytes`, `read_from` and `read_path` alike;
//! - `n_<kind>__<desc>.npy`: refused by all three with the error kind `<kind>`
//!   (`ErrorKind::name()`), the slice and stream readers at the same offset;
//! - `i_<desc>.npy`: either, but the three readers agree.
//!
//! Thousands more cases are derived here from the `y_` files (also re-wrapped
//! as format 2.0 and 3.0): truncation at every byte, header-length fields that
//! lie (every value near the truth, and huge ones), a NUL at every header byte,
//! non-ASCII and non-grammar whitespace and the BOM at every token boundary,
//! invalid UTF-8 in 3.0, every latin-1 byte in 1.0/2.0 inside and outside
//! strings, shape overflows, huge claims and nesting bombs.
//!
//! Every read runs under a counting allocator (`cap`) whose limit is set to
//! [`BUDGET`] above the bytes already allocated, only around the npyguard calls
//! (a failing assertion's message and a panic's backtrace allocate): a read
//! that allocated more would abort the test binary. The largest peak seen is
//! printed. One `#[test]` runs every case in sequence so that nothing else
//! allocates while the limit is on, and a panic hook lifts the limit before a
//! panic message is formatted.
// The readers, writers and files these tests use need std (tests/core.rs runs without it).
#![cfg(feature = "std")]

use std::alloc::System;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use cap::Cap;
use npyguard::{read_bytes, read_from, read_path, write, Array, ArrayData, NpyArray, ReadOptions};

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

/// Most heap one case (its four reads) may use above what was allocated before it.
const BUDGET: usize = 4 << 20;

/// What must happen to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Expect {
    /// Read by every reader, to the same array.
    Accept,
    /// Refused by every reader with this kind (`ErrorKind::name()`).
    Reject(&'static str),
    /// Refused by every reader, with any kind (the same for all three).
    Fail,
    /// Either, as long as the readers agree.
    Either,
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("adversarial")
}

/// The expectation a file name states, or why the name is not a case name.
fn expectation(name: &str) -> Result<Expect, String> {
    let stem = name.strip_suffix(".npy").ok_or("does not end in .npy")?;
    if let Some(desc) = stem.strip_prefix("y_") {
        return if desc.is_empty() {
            Err("no description".into())
        } else {
            Ok(Expect::Accept)
        };
    }
    if let Some(desc) = stem.strip_prefix("i_") {
        return if desc.is_empty() {
            Err("no description".into())
        } else {
            Ok(Expect::Either)
        };
    }
    let rest = stem
        .strip_prefix("n_")
        .ok_or("has no y_, n_ or i_ prefix")?;
    let (kind, desc) = rest.split_once("__").ok_or("is not n_<kind>__<desc>.npy")?;
    let known = KINDS
        .iter()
        .find(|k| **k == kind)
        .ok_or(format!("unknown error kind {kind:?}"))?;
    if desc.is_empty() {
        return Err("no description".into());
    }
    Ok(Expect::Reject(known))
}

/// Error kinds a `.npy` read can end with (`ErrorKind::name()`).
const KINDS: &[&str] = &[
    "bad-magic",
    "unsupported-version",
    "header-too-long",
    "header-encoding",
    "header-syntax",
    "nesting-too-deep",
    "duplicate-key",
    "missing-key",
    "unknown-key",
    "bad-value",
    "bad-descr",
    "unsupported-dtype",
    "duplicate-field",
    "shape-overflow",
    "truncated",
    "trailing-bytes",
    "file-too-large",
    "bad-payload",
];

/// The committed files, sorted by name.
fn committed() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir())
        .expect("tests/adversarial/ exists")
        .map(|e| e.expect("directory entry").path())
        .map(|p| {
            let name = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()));
            (name, bytes)
        })
        .collect();
    files.sort();
    files
}

// ------------------------------------------------------------------ files --

/// A `.npy` file: preamble of `version` (1, 2 or 3) with the real header length.
fn npy(version: u8, header: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut v = b"\x93NUMPY".to_vec();
    v.extend_from_slice(&[version, 0]);
    if version == 1 {
        v.extend_from_slice(
            &u16::try_from(header.len())
                .expect("1.0 header fits u16")
                .to_le_bytes(),
        );
    } else {
        v.extend_from_slice(
            &u32::try_from(header.len())
                .expect("header fits u32")
                .to_le_bytes(),
        );
    }
    v.extend_from_slice(header);
    v.extend_from_slice(payload);
    v
}

/// (version, header text, payload) of a well-formed file.
fn split(file: &[u8]) -> (u8, Vec<u8>, Vec<u8>) {
    let version = file[6];
    let (pre, len) = if version == 1 {
        (10, usize::from(u16::from_le_bytes([file[8], file[9]])))
    } else {
        (
            12,
            u32::from_le_bytes([file[8], file[9], file[10], file[11]]) as usize,
        )
    };
    (
        version,
        file[pre..pre + len].to_vec(),
        file[pre + len..].to_vec(),
    )
}

/// Offsets in `header` between tokens, outside strings: after each `{ , :` and
/// `}`, and before the first byte. Inserting any non-whitespace byte there
/// breaks the grammar without entering a string.
fn boundaries(header: &[u8]) -> Vec<usize> {
    let mut out = vec![0];
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    for (i, &b) in header.iter().enumerate() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == q {
                    quote = None;
                }
            }
            None => match b {
                b'\'' | b'"' => quote = Some(b),
                b'{' | b',' | b':' | b'}' => out.push(i + 1),
                _ => {}
            },
        }
    }
    out
}

/// Offset just inside the first string of `header` (after its opening quote).
fn inside_first_string(header: &[u8]) -> usize {
    header
        .iter()
        .position(|&b| b == b'\'' || b == b'"')
        .expect("a string")
        + 1
}

fn insert(header: &[u8], at: usize, bytes: &[u8]) -> Vec<u8> {
    let mut h = header.to_vec();
    h.splice(at..at, bytes.iter().copied());
    h
}

/// Characters Python or Unicode call whitespace (or that look like it) that the
/// grammar's `wsp` (SP HT LF CR FF) does not include.
const ODD_WHITESPACE: &[char] = &[
    '\u{0b}', '\u{1c}', '\u{1d}', '\u{1e}', '\u{1f}', '\u{85}', '\u{a0}', '\u{1680}', '\u{180e}',
    '\u{2000}', '\u{2005}', '\u{200a}', '\u{200b}', '\u{2028}', '\u{2029}', '\u{202f}', '\u{205f}',
    '\u{3000}', '\u{feff}',
];

/// Byte sequences that are not UTF-8.
const INVALID_UTF8: &[&[u8]] = &[
    b"\x80",
    b"\xbf",
    b"\xc0\x80",
    b"\xc1\xbf",
    b"\xc3",
    b"\xe0\x80\x80",
    b"\xe6\x97",
    b"\xed\xa0\x80",
    b"\xed\xbf\xbf",
    b"\xf4\x90\x80\x80",
    b"\xf5\x80\x80\x80",
    b"\xf8\x88\x80\x80\x80",
    b"\xfe",
    b"\xff",
];

/// The character in the encoding of `version` (latin-1 for 1.0/2.0 when it fits, else UTF-8).
fn encode(c: char, version: u8) -> Vec<u8> {
    match u8::try_from(u32::from(c)) {
        Ok(b) if version != 3 => vec![b],
        _ => c.to_string().into_bytes(),
    }
}

/// Every derived case: (label, file bytes, options, expectation).
fn derived(bases: &[(String, Vec<u8>)]) -> Vec<(String, Vec<u8>, ReadOptions, Expect)> {
    let opts = ReadOptions::default();
    let mut out = Vec::new();
    let mut add = |label: String, bytes: Vec<u8>, expect: Expect| {
        out.push((label, bytes, opts.clone(), expect))
    };
    for (name, file) in bases {
        let (version, header, payload) = split(file);
        let pre = if version == 1 { 10 } else { 12 };
        // Truncation at every byte.
        for cut in 0..file.len() {
            add(
                format!("{name} cut at {cut}"),
                file[..cut].to_vec(),
                Expect::Reject("truncated"),
            );
        }
        // Header-length fields that lie.
        let truth = header.len() as u64;
        let mut lies: Vec<u64> = (0..=truth + 72).filter(|&l| l != truth).collect();
        lies.extend([0x7fff, 0x8000, 0xfffe, 0xffff]);
        if version != 1 {
            lies.extend([
                0x1_0000,
                0x1_0001,
                1 << 20,
                (1 << 31) - 1,
                1 << 31,
                u64::from(u32::MAX),
            ]);
        }
        for lie in lies {
            let mut f = file.clone();
            if version == 1 {
                f[8..10].copy_from_slice(&(lie as u16).to_le_bytes());
            } else {
                f[8..12].copy_from_slice(&(lie as u32).to_le_bytes());
            }
            add(
                format!("{name} header length {lie} (truly {truth})"),
                f,
                Expect::Fail,
            );
        }
        // A NUL at every header byte.
        for i in 0..header.len() {
            let mut f = file.clone();
            f[pre + i] = 0;
            add(
                format!("{name} NUL at header byte {i}"),
                f,
                Expect::Reject("header-encoding"),
            );
        }
        // Whitespace outside the grammar (and the BOM) at every token boundary.
        for &at in &boundaries(&header) {
            for &c in ODD_WHITESPACE {
                let h = insert(&header, at, &encode(c, version));
                add(
                    format!("{name} U+{:04X} at header byte {at}", u32::from(c)),
                    npy(version, &h, &payload),
                    Expect::Reject("header-syntax"),
                );
            }
        }
        match version {
            3 => {
                // Invalid UTF-8 anywhere: inside a string, between tokens, in the padding.
                let spots = [0, inside_first_string(&header), header.len()];
                for &at in &spots {
                    for bad in INVALID_UTF8 {
                        let h = insert(&header, at, bad);
                        add(
                            format!("{name} {bad:02x?} at header byte {at}"),
                            npy(3, &h, &payload),
                            Expect::Reject("header-encoding"),
                        );
                    }
                }
            }
            _ => {
                // Latin-1 bytes outside strings.
                for b in (0x80u8..=0xff).step_by(7) {
                    let at = boundaries(&header)[1];
                    let h = insert(&header, at, &[b]);
                    add(
                        format!("{name} byte {b:#04x} at header byte {at}"),
                        npy(version, &h, &payload),
                        Expect::Reject("header-syntax"),
                    );
                }
            }
        }
    }
    // Every latin-1 byte inside a field name: one character in 1.0/2.0, invalid UTF-8 in 3.0.
    for b in 0x80u8..=0xff {
        let mut h = b"{'descr': [('a".to_vec();
        h.push(b);
        h.extend_from_slice(b"', '<f8')], 'fortran_order': False, 'shape': (1,), }\n");
        for version in [1, 2] {
            add(
                format!("v{version} field name a\\x{b:02x}"),
                npy(version, &h, &[0; 8]),
                Expect::Accept,
            );
        }
        add(
            format!("v3 field name a\\x{b:02x}"),
            npy(3, &h, &[0; 8]),
            Expect::Reject("header-encoding"),
        );
    }
    // Shape overflows and claims no file backs.
    let dict = |descr: &str, shape: &str| {
        format!("{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}\n")
    };
    let claims: &[(&str, &str, &'static str)] = &[
        ("'<f8'", "(4294967296, 4294967296)", "shape-overflow"),
        ("'<f8'", "(1152921504606846976,)", "shape-overflow"), // 2^60 * 8 > isize::MAX
        ("'|u1'", "(9223372036854775807,)", "truncated"),      // isize::MAX bytes: fits, not there
        ("'|u1'", "(9223372036854775808,)", "shape-overflow"),
        ("'<f8'", "(18446744073709551616,)", "shape-overflow"),
        (
            "'<f8'",
            "(1000000000000000000000000000000,)",
            "shape-overflow",
        ),
        ("'<f8'", "(0, 4611686018427387904)", "shape-overflow"),
        ("'<f8'", "(0, 1152921504606846975)", "trailing-bytes"), // zero elements; the 8 payload bytes are extra
        ("'<f8'", "(1099511627776,)", "truncated"),
        ("'|S2147483647'", "(4,)", "truncated"),
        ("'|S2147483648'", "(1,)", "shape-overflow"),
        ("'<U536870911'", "(2,)", "truncated"),
        ("'<c16'", "(2147483647, 1000)", "truncated"),
        ("[('a', '<f8', (268435455,))]", "(1000,)", "truncated"),
        ("[('a', '<f8', (268435456,))]", "(1,)", "shape-overflow"),
        ("[('a', '|u1', (65536, 65536))]", "(1,)", "shape-overflow"),
        ("'<M8[ns]'", "(1099511627776,)", "truncated"),
    ];
    for &(descr, shape, kind) in claims {
        add(
            format!("claim {descr} {shape}"),
            npy(1, dict(descr, shape).as_bytes(), &[0; 8]),
            Expect::Reject(kind),
        );
    }
    let dims65 = format!("({})", "1, ".repeat(65));
    add(
        "65 dims".into(),
        npy(1, dict("'<f8'", &dims65).as_bytes(), &[0; 8]),
        Expect::Reject("shape-overflow"),
    );
    // Nesting bombs, closed and unclosed, in every value position.
    for n in [33, 64, 1000, 10_000] {
        for (open, close) in [("[", "]"), ("(", ",)"), ("[(", ",)]")] {
            let deep = format!("{}{}", open.repeat(n), close.repeat(n));
            for (what, h) in [
                ("descr", dict(&deep, "(1,)")),
                ("shape", dict("'<f8'", &deep)),
                (
                    "extra key",
                    format!(
                        "{{'x': {deep}, 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}}"
                    ),
                ),
                ("unclosed", format!("{{'descr': {}", open.repeat(n))),
            ] {
                add(
                    format!("{n} x {open} in {what}"),
                    npy(2, h.as_bytes(), &[0; 8]),
                    Expect::Reject("nesting-too-deep"),
                );
            }
        }
    }
    for depth in [16, 17, 100] {
        let descr = format!("{}'<f8'{}", "[('a', ".repeat(depth), ")]".repeat(depth));
        add(
            format!("record nested {depth} deep"),
            npy(2, dict(&descr, "()").as_bytes(), &[0; 8]),
            Expect::Reject("nesting-too-deep"),
        );
    }
    // A claim over max_file_bytes is refused before any payload is read.
    out.push((
        "claim over max_file_bytes".into(),
        npy(1, dict("'<f8'", "(1048576,)").as_bytes(), &[0; 64]),
        ReadOptions::default().with_max_file_bytes(Some(1 << 20)),
        Expect::Reject("file-too-large"),
    ));
    out
}

/// The same file with its header re-wrapped in another format version.
fn rewrap(file: &[u8], version: u8) -> Option<Vec<u8>> {
    let (from, header, payload) = split(file);
    // 1.0/2.0 are latin-1, 3.0 UTF-8: only ASCII headers mean the same in both;
    // Python 2 `L` suffixes are refused in 3.0.
    let long_suffix = header
        .windows(2)
        .any(|w| w[0].is_ascii_digit() && w[1] == b'L');
    if from == version || !header.is_ascii() || (version == 3 && long_suffix) {
        return None;
    }
    Some(npy(version, &header, &payload))
}

// ---------------------------------------------------------------- running --

/// Runs the readers on files, tracking the largest heap peak of a read.
struct Runner {
    path: PathBuf,
    worst: (usize, String),
    reads: usize,
    failures: Vec<String>,
}

type Read = npyguard::Result<Array>;

impl Runner {
    /// read_bytes, read_from, read_path and a typed read_bytes, under the allocation cap.
    fn reads(
        &mut self,
        label: &str,
        bytes: &[u8],
        opts: &ReadOptions,
    ) -> (Read, Read, Read, npyguard::Result<()>) {
        std::fs::write(&self.path, bytes).expect("write the case file");
        let max_before = ALLOC.max_allocated();
        let base = ALLOC.allocated();
        ALLOC
            .set_limit(base + BUDGET)
            .expect("set the allocation limit");
        let slice = read_bytes(bytes, opts);
        let stream = read_from(Cursor::new(bytes), opts);
        let path = read_path(&self.path, opts);
        let typed = NpyArray::<f64>::read_bytes(bytes, opts).map(|_| ());
        ALLOC
            .set_limit(usize::MAX)
            .expect("lift the allocation limit");
        let max_after = ALLOC.max_allocated();
        if max_after > max_before && max_after - base > self.worst.0 {
            self.worst = (max_after - base, label.to_string());
        }
        self.reads += 4;
        (slice, stream, path, typed)
    }

    fn check(&mut self, label: &str, bytes: &[u8], opts: &ReadOptions, expect: &Expect) {
        let (slice, stream, path, typed) = self.reads(label, bytes, opts);
        let show = |r: &Read| match r {
            Ok(a) => format!("ok {:?} {:?}", a.dtype(), a.shape()),
            Err(e) => format!(
                "{} at {}",
                e.kind().name(),
                e.offset().map_or("-".to_string(), |at| at.to_string())
            ),
        };
        let outcome = format!(
            "slice {}, stream {}, path {}",
            show(&slice),
            show(&stream),
            show(&path)
        );
        let problem = match expect {
            Expect::Accept => match (&slice, &stream, &path) {
                (Ok(a), Ok(b), Ok(c)) => {
                    let enc = |x: &Array| write::to_vec(x).expect("an accepted array re-encodes");
                    let ea = enc(a);
                    if ea != enc(b)
                        || ea != enc(c)
                        || a.header() != b.header()
                        || a.header() != c.header()
                    {
                        Some("the readers read different arrays".to_string())
                    } else {
                        None
                    }
                }
                _ => Some("expected acceptance".to_string()),
            },
            Expect::Reject(_) | Expect::Fail => match (&slice, &stream, &path) {
                (Err(a), Err(b), Err(c)) => if let Expect::Reject(kind) = expect {
                    if a.kind().name() != *kind
                        || b.kind().name() != *kind
                        || c.kind().name() != *kind
                    {
                        Some(format!("expected {kind}"))
                    } else {
                        None
                    }
                } else if a.kind() != b.kind() || a.kind() != c.kind() {
                    Some("the readers fail differently".to_string())
                } else {
                    None
                }
                .or_else(|| {
                    (a.offset() != b.offset())
                        .then(|| "slice and stream report different offsets".to_string())
                })
                .or_else(|| match &typed {
                    Ok(()) => Some("the typed reader accepts it".to_string()),
                    Err(t)
                        if t.kind() != a.kind()
                            && t.kind() != npyguard::ErrorKind::TypeMismatch =>
                    {
                        Some(format!("the typed reader fails with {}", t.kind().name()))
                    }
                    Err(_) => None,
                }),
                _ => Some("expected a refusal".to_string()),
            },
            Expect::Either => {
                let key = |r: &Read| r.as_ref().map(|_| ()).map_err(|e| e.kind());
                (key(&slice) != key(&stream) || key(&slice) != key(&path))
                    .then(|| "the readers disagree".to_string())
            }
        };
        if let Some(p) = problem {
            self.failures.push(format!("{label}: {p}: {outcome}"));
        }
    }
}

#[test]
fn adversarial_files_are_read_or_refused_in_bounded_memory() {
    // A panic while the cap is on would make the panic message and backtrace fail to
    // allocate: lift the cap first, so an assertion inside a read reports normally.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = ALLOC.set_limit(usize::MAX);
        default_hook(info);
    }));
    committed_files_are_named_as_cases();
    let files = committed();
    let tmp = std::env::temp_dir().join(format!("npyguard-adversarial-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let mut runner = Runner {
        path: tmp.join("case.npy"),
        worst: (0, String::new()),
        reads: 0,
        failures: Vec::new(),
    };
    let mut bases = Vec::new();
    for (name, bytes) in &files {
        let expect = expectation(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        runner.check(name, bytes, &ReadOptions::default(), &expect);
        if expect == Expect::Accept {
            bases.push((name.clone(), bytes.clone()));
            for version in [2, 3] {
                if let Some(f) = rewrap(bytes, version) {
                    bases.push((format!("{name} as {version}.0"), f));
                }
            }
        }
    }
    // The i_ file: default options read it, numpy-strict refuses it (an extra key).
    let extra = &files
        .iter()
        .find(|(n, _)| n == "i_extra_key.npy")
        .expect("i_extra_key.npy")
        .1;
    runner.check(
        "i_extra_key.npy numpy-strict",
        extra,
        &ReadOptions::default().with_numpy_strict(true),
        &Expect::Reject("unknown-key"),
    );
    runner.check(
        "i_extra_key.npy default",
        extra,
        &ReadOptions::default(),
        &Expect::Accept,
    );

    let cases = derived(&bases);
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for (label, bytes, opts, expect) in &cases {
        runner.check(label, bytes, opts, expect);
        let key = match expect {
            Expect::Reject(k) => format!("refused: {k}"),
            Expect::Fail => "refused (any kind)".to_string(),
            Expect::Accept => "accepted".to_string(),
            Expect::Either => "either".to_string(),
        };
        *counts.entry(key).or_default() += 1;
    }
    std::fs::remove_dir_all(&tmp).ok();

    println!(
        "{} committed files, {} bases, {} derived cases, {} reads; by expectation: {counts:?}",
        files.len(),
        bases.len(),
        cases.len(),
        runner.reads
    );
    println!(
        "largest heap peak of one case (4 reads): {:.1} KiB ({}); budget {} MiB per case",
        runner.worst.0 as f64 / 1024.0,
        runner.worst.1,
        BUDGET >> 20,
    );
    assert!(
        runner.failures.is_empty(),
        "{} of {} cases failed:\n{}",
        runner.failures.len(),
        cases.len() + files.len() + 2,
        runner.failures[..runner.failures.len().min(30)].join("\n")
    );
    assert!(cases.len() > 5000, "only {} derived cases", cases.len());
}

/// The committed files are all case files, of every prefix (run first, without the cap).
fn committed_files_are_named_as_cases() {
    let files = committed();
    let bad: Vec<String> = files
        .iter()
        .filter_map(|(n, _)| expectation(n).err().map(|e| format!("{n}: {e}")))
        .collect();
    assert!(
        bad.is_empty(),
        "files in tests/adversarial/ that are not cases:\n{}",
        bad.join("\n")
    );
    for prefix in ["y_", "n_", "i_"] {
        assert!(
            files.iter().any(|(n, _)| n.starts_with(prefix)),
            "no {prefix} file"
        );
    }
    assert!(files.len() >= 30, "only {} files", files.len());
    assert_eq!(
        expectation("n_truncated__x.npy"),
        Ok(Expect::Reject("truncated"))
    );
    assert!(expectation("n_no-such-kind__x.npy").is_err());
    assert!(expectation("n_truncated.npy").is_err());
    assert!(expectation("y_.npy").is_err());
    assert!(expectation("y_a.txt").is_err());
    // The latin-1 field name reads as the characters it encodes.
    let (_, bytes) = files
        .iter()
        .find(|(n, _)| n == "y_latin1_field_name.npy")
        .expect("file");
    let a = read_bytes(bytes, &ReadOptions::default()).expect("reads");
    assert!(a.field("\u{e9}t\u{e9}").is_ok(), "{:?}", a.dtype());
    assert!(
        matches!(a.field("\u{e9}t\u{e9}").map(|f| f.data().clone()), Ok(ArrayData::I32(v)) if v == [0, 0])
    );
}
