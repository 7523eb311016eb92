//! Runs the header corpus in `tests/headers/` (JSONTestSuite style).
//!
//! Each file holds the raw header text of one case: the bytes that follow the
//! preamble, from `{` through the padding. The name says what must happen:
//!
//! - `y_<desc>.txt`: accepted;
//! - `n_<kind>__<desc>.txt`: rejected with the error kind named `<kind>`
//!   (`ErrorKind::name()`, e.g. `header-syntax`);
//! - `i_<desc>.txt`: implementation-defined, either outcome, never a panic.
//!
//! A case is parsed as format version 1.0 unless its name contains `__v3`
//! (3.0, UTF-8) or `__v2` (2.0). `tests/numpy/header_cases.py` runs the same
//! corpus through NumPy and compares.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use npyguard::{Header, Preamble, ReadOptions, Version};

/// Fewest cases the corpus may hold.
const MIN_CASES: usize = 100;

/// What a case file's name says must happen.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Expect {
    Accept,
    Reject(String),
    Either,
}

struct Case {
    name: String,
    path: PathBuf,
    expect: Expect,
    version: Version,
}

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("headers")
}

/// Reads the expectation from a file name, or says why the name is not a case name.
fn expectation(name: &str) -> Result<Expect, String> {
    let Some(stem) = name.strip_suffix(".txt") else {
        return Err("does not end in .txt".to_string());
    };
    if let Some(desc) = stem.strip_prefix("y_") {
        if desc.is_empty() {
            return Err("has no description".to_string());
        }
        Ok(Expect::Accept)
    } else if let Some(rest) = stem.strip_prefix("n_") {
        match rest.split_once("__") {
            Some((kind, desc)) if !kind.is_empty() && !desc.is_empty() => {
                Ok(Expect::Reject(kind.to_string()))
            }
            _ => Err("is not n_<kind>__<desc>.txt".to_string()),
        }
    } else if let Some(desc) = stem.strip_prefix("i_") {
        if desc.is_empty() {
            return Err("has no description".to_string());
        }
        Ok(Expect::Either)
    } else {
        Err("has no y_, n_ or i_ prefix".to_string())
    }
}

fn version_for(name: &str) -> Version {
    if name.contains("__v3") {
        Version::V3_0
    } else if name.contains("__v2") {
        Version::V2_0
    } else {
        Version::V1_0
    }
}

/// Every file in the corpus directory, sorted; names that are not case names are errors.
fn load_cases() -> (Vec<Case>, Vec<String>) {
    let mut cases = Vec::new();
    let mut bad = Vec::new();
    let entries = std::fs::read_dir(cases_dir()).expect("tests/headers/ exists");
    for entry in entries {
        let entry = entry.expect("readable directory entry");
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if !path.is_file() {
            bad.push(format!("{name}: not a regular file"));
            continue;
        }
        match expectation(&name) {
            Ok(expect) => cases.push(Case {
                version: version_for(&name),
                name,
                path,
                expect,
            }),
            Err(why) => bad.push(format!("{name}: {why}")),
        }
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    bad.sort();
    (cases, bad)
}

/// Parses `text` as the header of a file of `version`, turning a panic into an `Err(message)`.
fn run(
    version: Version,
    text: &[u8],
    opts: &ReadOptions,
) -> Result<npyguard::Result<Header>, String> {
    let header_len = u32::try_from(text.len()).map_err(|_| "header longer than u32".to_string())?;
    if version == Version::V1_0 && header_len > u32::from(u16::MAX) {
        return Err("a 1.0 header cannot be longer than 65535 bytes".to_string());
    }
    let preamble = Preamble {
        version,
        header_len,
    };
    catch_unwind(AssertUnwindSafe(|| Header::parse(preamble, text, opts))).map_err(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        format!("PANIC: {msg}")
    })
}

/// A one-line description of a result, cut to a readable length.
fn outcome(r: &npyguard::Result<Header>) -> String {
    let full = match r {
        Ok(h) => format!(
            "accepted: descr {}, shape {:?}, fortran_order {}",
            h.dtype().descr(),
            h.shape(),
            h.fortran_order()
        ),
        Err(e) => format!("rejected: {} at {:?}: {e}", e.kind().name(), e.offset()),
    };
    const MAX: usize = 240;
    match full.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &full[..cut]),
        None => full,
    }
}

#[test]
fn corpus_has_only_case_files_and_enough_of_them() {
    let (cases, bad) = load_cases();
    assert!(
        bad.is_empty(),
        "files in tests/headers/ that are not cases:\n{}",
        bad.join("\n")
    );
    assert!(
        cases.len() >= MIN_CASES,
        "only {} cases in tests/headers/ (want at least {MIN_CASES})",
        cases.len()
    );
    for prefix in ["y_", "n_", "i_"] {
        assert!(
            cases.iter().any(|c| c.name.starts_with(prefix)),
            "no {prefix} case"
        );
    }
}

#[test]
fn every_case_behaves_as_its_name_says() {
    let (cases, _) = load_cases();
    let default = ReadOptions::default();
    let strict = ReadOptions::default().with_numpy_strict(true);
    let mut failures = Vec::new();
    let (mut y, mut n, mut i) = (0, 0, 0);
    for case in &cases {
        let text = std::fs::read(&case.path).expect("readable case file");
        let (got, got_strict) = match (
            run(case.version, &text, &default),
            run(case.version, &text, &strict),
        ) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(why), _) | (_, Err(why)) => {
                failures.push(format!("{}: {why}", case.name));
                continue;
            }
        };
        match &case.expect {
            Expect::Accept => {
                y += 1;
                match (&got, &got_strict) {
                    (Ok(h), Ok(hs)) if h == hs => {}
                    (Ok(_), Ok(_)) => failures.push(format!(
                        "{}: numpy-strict reads it differently",
                        case.name
                    )),
                    (Err(_), _) => failures.push(format!(
                        "{}: expected acceptance, {}",
                        case.name,
                        outcome(&got)
                    )),
                    (Ok(_), Err(_)) => failures.push(format!(
                        "{}: accepted by default but numpy-strict {} (a y_ case must be one NumPy loads)",
                        case.name,
                        outcome(&got_strict)
                    )),
                }
            }
            Expect::Reject(kind) => {
                n += 1;
                match &got {
                    Err(e) if e.kind().name() == kind => {}
                    _ => failures.push(format!(
                        "{}: expected rejection with {kind}, {}",
                        case.name,
                        outcome(&got)
                    )),
                }
                if got_strict.is_ok() {
                    failures.push(format!(
                        "{}: numpy-strict accepts what default options reject",
                        case.name
                    ));
                }
            }
            Expect::Either => {
                i += 1;
                println!("{}: {}", case.name, outcome(&got));
                println!("{}: numpy-strict {}", case.name, outcome(&got_strict));
            }
        }
    }
    println!(
        "{} cases: {y} y_, {n} n_, {i} i_; {} failures",
        cases.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} header cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn name_parsing() {
    assert_eq!(expectation("y_a.txt"), Ok(Expect::Accept));
    assert_eq!(
        expectation("n_header-syntax__a__v3.txt"),
        Ok(Expect::Reject("header-syntax".into()))
    );
    assert_eq!(expectation("i_a.txt"), Ok(Expect::Either));
    assert!(expectation("n_header-syntax.txt").is_err());
    assert!(expectation("x_a.txt").is_err());
    assert!(expectation("y_a.bin").is_err());
    assert_eq!(version_for("y_a__v3.txt"), Version::V3_0);
    assert_eq!(version_for("y_a__v2.txt"), Version::V2_0);
    assert_eq!(version_for("y_a.txt"), Version::V1_0);
}
