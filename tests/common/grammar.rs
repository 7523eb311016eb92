//! The header grammar (`grammar/npy-header.abnf`) as an executable recognizer,
//! shared by test files (`#[path = "common/grammar.rs"] mod grammar;`).
//!
//! The ABNF is converted to pest (`abnf_to_pest`), compiled once and run by
//! `pest_vm`, with whole-input start rules `full_header` and `full_typestr`.
//! The recognizer recurses once per rule: run it on a thread with a large stack
//! ([`big_stack`]) when inputs may nest deeply.
#![allow(dead_code)]

use std::sync::LazyLock;

/// The grammar file.
pub const GRAMMAR_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/grammar/npy-header.abnf");

/// Rules whose expansion opens one nesting level.
pub const CONTAINERS: [&str; 5] = ["dict", "tuple", "list", "display", "hashable-tuple"];

/// The grammar as a compiled PEG, with whole-input start rules `full_header` and `full_typestr`.
pub static RECOGNIZER: LazyLock<pest_vm::Vm> = LazyLock::new(|| {
    let text = std::fs::read_to_string(GRAMMAR_PATH).expect("read grammar/npy-header.abnf");
    let rules = abnf_to_pest::parse_abnf(&text).expect("abnf_to_pest reads the grammar");
    for start in ["header", "typestr"] {
        assert!(
            rules.contains_key(start),
            "abnf_to_pest renamed the start rule {start}"
        );
    }
    let mut pest = format!("{}", abnf_to_pest::render_rules_to_pest(rules).pretty(100));
    pest.push_str(
        "\nfull_header = { SOI ~ header ~ EOI }\nfull_typestr = { SOI ~ typestr ~ EOI }\n",
    );
    let (_, optimized) = pest_meta::parse_and_optimize(&pest).unwrap_or_else(|errors| {
        let msgs: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        panic!(
            "generated pest grammar does not build:\n{}\n\n{pest}",
            msgs.join("\n")
        )
    });
    pest_vm::Vm::new(optimized)
});

/// What the recognizer's parse tree says about a matched input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facts {
    /// Deepest nesting of the [`CONTAINERS`] rules.
    pub nesting: u32,
    /// Whether an integer carries the `L` suffix.
    pub long_suffix: bool,
}

/// Runs the recognizer on the whole of `text` from `start` (`full_header` / `full_typestr`).
pub fn recognize(start: &str, text: &str) -> Option<Facts> {
    let pairs = RECOGNIZER.parse(start, text).ok()?;
    let mut facts = Facts {
        nesting: 0,
        long_suffix: false,
    };
    // Iterative walk: (pair, nesting of its parent).
    let mut stack: Vec<_> = pairs.map(|p| (p, 0u32)).collect();
    while let Some((pair, depth)) = stack.pop() {
        let rule = pair.as_rule();
        // pest names a rule as abnf_to_pest spells it (`hashable_tuple` for `hashable-tuple`).
        let container = CONTAINERS.iter().any(|c| c.replace('-', "_") == rule);
        let depth = depth + u32::from(container);
        facts.nesting = facts.nesting.max(depth);
        facts.long_suffix |= rule == "long_suffix";
        stack.extend(pair.into_inner().map(|p| (p, depth)));
    }
    Some(facts)
}

/// Bytes read as latin-1 (each byte is the code point of the same value).
pub fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// Runs `f` on a thread with a large stack: the PEG recognizer recurses once per
/// rule, and generated sentences nest far deeper than real headers.
pub fn big_stack<F: FnOnce() + Send + 'static>(f: F) {
    let handle = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(f)
        .expect("spawn test thread");
    if let Err(panic) = handle.join() {
        std::panic::resume_unwind(panic);
    }
}
