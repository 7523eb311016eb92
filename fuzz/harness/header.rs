//! Target `header`: raw header text → `parse_dict` (each version) and `Header::parse`.
//!
//! Properties, for each format version (1.0, 2.0: latin-1 text; 3.0: UTF-8):
//! * no panic; an error's offset lies inside the text;
//! * whatever `parse_dict` accepts, the grammar (`grammar/npy-header.abnf`, run
//!   as a PEG recognizer) matches in full;
//! * whatever the grammar matches, `parse_dict` accepts, unless a rule outside
//!   the grammar explains the refusal (nesting deeper than 32, the `L` suffix
//!   in version 3.0) — the same two exceptions as `tests/grammar_agreement.rs`;
//! * an accepted dict re-renders (its `Display`, Python's repr) to text that
//!   the grammar matches and that parses back to the same dict (keys and values),
//!   and the rendering is a fixpoint;
//! * `Header::parse` accepts only what `parse_dict` accepts; numpy-strict mode
//!   accepts a subset of what the default mode accepts, with the same header;
//!   an accepted header's `to_dict_text` parses back to the same dtype, order and shape.

use std::sync::LazyLock;

use npyguard::literal::{parse_dict, Dict};
use npyguard::{ErrorKind, Header, Preamble, ReadOptions, Version};

/// The grammar, embedded so the fuzz binary does not depend on the working directory.
const GRAMMAR: &str = include_str!("../../grammar/npy-header.abnf");
/// The parser's nesting limit (brackets, the header dict included).
const MAX_NESTING: u32 = 32;
/// Rules whose expansion opens one nesting level.
const CONTAINERS: [&str; 3] = ["dict", "tuple", "list"];
/// pest calls allowed per recognizer run. The PEG backtracks (a tuple's last
/// item is tried twice, so nested tuples cost 2^depth); past this budget the
/// recognizer gives no verdict and the grammar checks are skipped for that input.
const CALL_LIMIT: usize = 2_000_000;

/// The grammar as a compiled PEG (built once): `full_header = SOI header EOI`.
static RECOGNIZER: LazyLock<pest_vm::Vm> = LazyLock::new(|| {
    pest::set_call_limit(std::num::NonZeroUsize::new(CALL_LIMIT));
    let rules =
        abnf_to_pest::parse_abnf(GRAMMAR).expect("abnf_to_pest reads grammar/npy-header.abnf");
    assert!(
        rules.contains_key("header"),
        "abnf_to_pest renamed the start rule `header`"
    );
    let mut pest_text = format!("{}", abnf_to_pest::render_rules_to_pest(rules).pretty(100));
    pest_text.push_str("\nfull_header = { SOI ~ header ~ EOI }\n");
    let (_, optimized) = pest_meta::parse_and_optimize(&pest_text).unwrap_or_else(|errors| {
        let msgs: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        panic!(
            "generated pest grammar does not build:\n{}\n\n{pest_text}",
            msgs.join("\n")
        )
    });
    pest_vm::Vm::new(optimized)
});

/// The recognizer's verdict on a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// The grammar matches the whole text.
    Match { nesting: u32, long_suffix: bool },
    /// The grammar does not match.
    NoMatch,
    /// The recognizer hit its call or stack limit: no verdict.
    Unknown,
}

fn recognize(text: &str) -> Verdict {
    let pairs = match RECOGNIZER.parse("full_header", text) {
        Ok(p) => p,
        Err(e) => {
            let msg = e.to_string();
            return if msg.contains("limit reached") {
                Verdict::Unknown
            } else {
                Verdict::NoMatch
            };
        }
    };
    let (mut nesting, mut long_suffix) = (0u32, false);
    let mut stack: Vec<_> = pairs.map(|p| (p, 0u32)).collect();
    while let Some((pair, depth)) = stack.pop() {
        let rule = pair.as_rule();
        let depth = depth + u32::from(CONTAINERS.contains(&rule));
        nesting = nesting.max(depth);
        long_suffix |= rule == "long_suffix";
        stack.extend(pair.into_inner().map(|p| (p, depth)));
    }
    Verdict::Match {
        nesting,
        long_suffix,
    }
}

fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// The latin-1 bytes of `s`, or `None` if some character is above U+00FF.
fn to_latin1(s: &str) -> Option<Vec<u8>> {
    s.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect()
}

/// Keys and values, without the offsets where they were found.
fn entries(d: &Dict) -> Vec<(&str, &npyguard::literal::Literal)> {
    d.entries
        .iter()
        .map(|e| (e.key.as_str(), &e.value))
        .collect()
}

fn show(bytes: &[u8]) -> String {
    let mut s = format!(
        "{:?}",
        String::from_utf8_lossy(&bytes[..bytes.len().min(400)])
    );
    if bytes.len() > 400 {
        s.push_str(" ...");
    }
    format!("{s} (raw {:02x?})", &bytes[..bytes.len().min(64)])
}

/// The text as the version decodes it, `None` when it is not valid UTF-8 for 3.0.
fn decoded(bytes: &[u8], version: Version) -> Option<String> {
    match version {
        Version::V3_0 => std::str::from_utf8(bytes).ok().map(str::to_string),
        _ => Some(latin1(bytes)),
    }
}

pub fn run(data: &[u8]) {
    // The recognizer is the slow part: run it once per distinct text (1.0 and
    // 2.0 read the same latin-1 text; 3.0 reads the same text when it is ASCII).
    let mut latin1_verdict = None;
    let mut utf8_verdict = None;
    for version in [Version::V1_0, Version::V2_0, Version::V3_0] {
        let parsed = parse_dict(data, version);
        let text = decoded(data, version);
        let mut verdict = |text: &str| -> Verdict {
            let slot = if version == Version::V3_0 && !data.is_ascii() {
                &mut utf8_verdict
            } else {
                &mut latin1_verdict
            };
            *slot.get_or_insert_with(|| recognize(text))
        };
        match (&parsed, &text) {
            (Err(e), _) => {
                assert!(
                    e.offset().is_some_and(|at| at <= data.len() as u64),
                    "parse_dict({version:?}) error offset {:?} is past the {}-byte text: {e}; input {}",
                    e.offset(),
                    data.len(),
                    show(data)
                );
                if text.is_none() {
                    assert_eq!(
                        e.kind(),
                        ErrorKind::HeaderEncoding,
                        "invalid UTF-8 in 3.0 refused as {e}; input {}",
                        show(data)
                    );
                }
            }
            (Ok(_), None) => panic!(
                "parse_dict({version:?}) accepts invalid UTF-8: {}",
                show(data)
            ),
            (Ok(_), Some(_)) => {}
        }
        // The grammar, both directions.
        if let Some(text) = &text {
            match (&parsed, verdict(text)) {
                (_, Verdict::Unknown)
                | (Ok(_), Verdict::Match { .. })
                | (Err(_), Verdict::NoMatch) => {}
                (Ok(_), Verdict::NoMatch) => {
                    panic!(
                        "parse_dict({version:?}) accepts what the grammar refuses: {}",
                        show(data)
                    )
                }
                (
                    Err(e),
                    Verdict::Match {
                        nesting,
                        long_suffix,
                    },
                ) => {
                    let explained = (e.kind() == ErrorKind::NestingTooDeep
                        && nesting > MAX_NESTING)
                        || (version == Version::V3_0
                            && long_suffix
                            && e.kind() == ErrorKind::HeaderSyntax);
                    assert!(
                        explained,
                        "parse_dict({version:?}) refuses a sentence of the grammar: {e} ({:?}); input {}",
                        e.kind(),
                        show(data)
                    );
                }
            }
        }
        if let Ok(dict) = &parsed {
            check_rendering(dict, version, data);
        }
        check_header(data, version, parsed.is_ok());
    }
}

/// The canonical rendering of an accepted dict parses back to the same dict.
fn check_rendering(dict: &Dict, version: Version, data: &[u8]) {
    let canon = dict.to_string();
    let ctx = || {
        format!(
            "dict from {version:?} input {}, rendered {canon:?}",
            show(data)
        )
    };
    assert!(
        !matches!(recognize(&canon), Verdict::NoMatch),
        "the grammar refuses the rendering; {}",
        ctx()
    );
    // The rendering is Unicode text with no `L` suffix: version 3.0 reads it as is.
    let again = parse_dict(canon.as_bytes(), Version::V3_0)
        .unwrap_or_else(|e| panic!("the rendering does not parse (3.0): {e}; {}", ctx()));
    assert_eq!(
        entries(&again),
        entries(dict),
        "the rendering parses (3.0) to another dict; {}",
        ctx()
    );
    assert_eq!(
        again.to_string(),
        canon,
        "rendering is not a fixpoint; {}",
        ctx()
    );
    // Versions 1.0 and 2.0 read it too when it is latin-1 encodable.
    if version != Version::V3_0 {
        if let Some(bytes) = to_latin1(&canon) {
            let again = parse_dict(&bytes, version).unwrap_or_else(|e| {
                panic!(
                    "the latin-1 rendering does not parse ({version:?}): {e}; {}",
                    ctx()
                )
            });
            assert_eq!(
                entries(&again),
                entries(dict),
                "the latin-1 rendering parses to another dict; {}",
                ctx()
            );
        }
    }
}

/// `Header::parse` on the same text: consistent with `parse_dict`, strict ⊆ default,
/// and the validated header re-renders to an equivalent header.
fn check_header(data: &[u8], version: Version, dict_ok: bool) {
    let Ok(header_len) = u32::try_from(data.len()) else {
        return;
    };
    if version == Version::V1_0 && header_len > u32::from(u16::MAX) {
        return;
    }
    let preamble = Preamble {
        version,
        header_len,
    };
    let lax = Header::parse(preamble, data, &ReadOptions::default());
    let strict = Header::parse(
        preamble,
        data,
        &ReadOptions::default().with_numpy_strict(true),
    );
    let ctx = || format!("{version:?} input {}", show(data));
    let end = preamble.header_offset() + data.len() as u64;
    for (mode, r) in [("default", &lax), ("numpy-strict", &strict)] {
        match r {
            Ok(_) => assert!(
                dict_ok,
                "Header::parse ({mode}) accepts what parse_dict refuses; {}",
                ctx()
            ),
            Err(e) => assert!(
                e.offset().is_some_and(|at| at <= end),
                "Header::parse ({mode}) error offset {:?} past the header end {end}: {e}; {}",
                e.offset(),
                ctx()
            ),
        }
    }
    if let Ok(s) = &strict {
        match &lax {
            Ok(l) => assert_eq!(
                s,
                l,
                "numpy-strict and default modes give different headers; {}",
                ctx()
            ),
            Err(e) => panic!(
                "numpy-strict accepts what the default mode refuses ({e}); {}",
                ctx()
            ),
        }
    }
    if let Ok(h) = &lax {
        assert_eq!(
            h.payload_offset(),
            end,
            "payload offset is not the end of the header; {}",
            ctx()
        );
        let text = h.to_dict_text();
        let p = Preamble {
            version: Version::V3_0,
            header_len: text.len() as u32,
        };
        let back = Header::parse(p, text.as_bytes(), &ReadOptions::default()).unwrap_or_else(|e| {
            panic!("to_dict_text {text:?} does not parse back: {e}; {}", ctx())
        });
        assert_eq!(
            (back.dtype(), back.fortran_order(), back.shape()),
            (h.dtype(), h.fortran_order(), h.shape()),
            "to_dict_text {text:?} parses back to another header; {}",
            ctx()
        );
    }
}
