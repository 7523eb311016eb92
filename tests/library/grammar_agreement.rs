//! Executes `grammar/npy-header.abnf` in both directions against the nom parser.
//!
//! * Generator direction: a random sentence generator walks the ABNF rule
//!   trees (as parsed by the `abnf` crate) and every sentence of `header` must
//!   be accepted by [`parse_dict`], every sentence of `typestr` by
//!   [`Dtype::from_typestr`] (up to the meaning checks grammar/README.md lists
//!   for type strings, named in `typestr_refusals`).
//! * Recognizer direction: the ABNF is converted to pest (`abnf_to_pest`),
//!   compiled once and run by `pest_vm`. On the header corpus
//!   (`tests/headers/`), on mutations of real headers and on generated
//!   sentences the parser and the recognizer must agree: whatever the parser
//!   accepts the grammar matches, and whatever the grammar matches the parser
//!   accepts unless a rule outside the grammar (nesting depth, the `L` suffix in
//!   version 3.0) explains the refusal.
//!
//! Generation is deterministic (seeded xorshift); proptest failures are
//! persisted to `proptest-regressions/grammar_agreement.txt`.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::LazyLock;

use abnf::types::{Node, Repeat, TerminalValues};
use npyguard::literal::parse_dict;
use npyguard::{Dtype, ErrorKind, Version};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{
    Config as ProptestConfig, FileFailurePersistence, TestCaseError, TestRunner,
};

#[path = "../common/grammar.rs"]
mod grammar;
use grammar::{big_stack, latin1, recognize, Facts, CONTAINERS, GRAMMAR_PATH};

const REGRESSIONS: &str = "proptest-regressions/grammar_agreement.txt";

/// The parser's nesting limit (brackets, the header dict included).
const MAX_NESTING: u32 = 32;

// ------------------------------------------------------------------ grammar --

/// "Impossible" cost: the node cannot be derived in the current mode.
const INF: usize = usize::MAX / 4;

/// The ABNF rules, keyed by lower-cased name (ABNF rule names are case-insensitive;
/// references inside the trees are lower-cased too).
struct Grammar {
    rules: HashMap<String, Node>,
    /// Rules that are or reach a recursive rule: expanding them may grow the sentence.
    grows: HashSet<String>,
}

static GRAMMAR: LazyLock<Grammar> = LazyLock::new(|| {
    let mut text = std::fs::read_to_string(GRAMMAR_PATH).expect("read grammar/npy-header.abnf");
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let list = abnf::rulelist(&text)
        .unwrap_or_else(|e| panic!("grammar/npy-header.abnf is not ABNF:\n{e}"));
    let mut rules = HashMap::new();
    for r in list {
        let mut node = r.node().clone();
        lowercase_refs(&mut node);
        let name = r.name().to_ascii_lowercase();
        assert!(
            rules.insert(name, node).is_none(),
            "rule {} defined twice",
            r.name()
        );
    }
    // For each rule, every rule it reaches (itself only through a cycle).
    let reach = |name: &str| {
        let mut seen = HashSet::new();
        let mut stack = Vec::new();
        rule_refs(&rules[name], &mut stack);
        while let Some(r) = stack.pop() {
            if seen.insert(r.clone()) {
                let node = rules
                    .get(&r)
                    .unwrap_or_else(|| panic!("undefined rule {r}"));
                rule_refs(node, &mut stack);
            }
        }
        seen
    };
    let reaches: HashMap<&String, HashSet<String>> = rules.keys().map(|n| (n, reach(n))).collect();
    let recursive: HashSet<&String> = reaches
        .iter()
        .filter(|(n, r)| r.contains(**n))
        .map(|(n, _)| *n)
        .collect();
    let grows = reaches
        .iter()
        .filter(|(n, r)| recursive.contains(*n) || r.iter().any(|x| recursive.contains(x)))
        .map(|(n, _)| (*n).clone())
        .collect();
    Grammar { rules, grows }
});

fn lowercase_refs(node: &mut Node) {
    match node {
        Node::Alternatives(v) | Node::Concatenation(v) => v.iter_mut().for_each(lowercase_refs),
        Node::Repetition { node, .. } | Node::Group(node) | Node::Optional(node) => {
            lowercase_refs(node)
        }
        Node::Rulename(r) => *r = r.to_ascii_lowercase(),
        Node::String(_) | Node::TerminalValues(_) | Node::Prose(_) => {}
    }
}

fn rule_refs(node: &Node, out: &mut Vec<String>) {
    match node {
        Node::Alternatives(v) | Node::Concatenation(v) => v.iter().for_each(|n| rule_refs(n, out)),
        Node::Repetition { node, .. } | Node::Group(node) | Node::Optional(node) => {
            rule_refs(node, out)
        }
        Node::Rulename(r) => out.push(r.clone()),
        Node::String(_) | Node::TerminalValues(_) | Node::Prose(_) => {}
    }
}

fn rep_bounds(repeat: &Repeat) -> (usize, Option<usize>) {
    (repeat.min().unwrap_or(0), repeat.max())
}

impl Grammar {
    fn rule(&self, name: &str) -> &Node {
        self.rules
            .get(name)
            .unwrap_or_else(|| panic!("undefined rule {name}"))
    }

    /// Whether `node` can reach a recursive rule (expanding it may grow the sentence).
    fn growing(&self, node: &Node) -> bool {
        match node {
            Node::Alternatives(v) | Node::Concatenation(v) => v.iter().any(|n| self.growing(n)),
            Node::Repetition { node, .. } | Node::Group(node) | Node::Optional(node) => {
                self.growing(node)
            }
            Node::Rulename(r) => self.grows.contains(r),
            Node::String(_) | Node::TerminalValues(_) | Node::Prose(_) => false,
        }
    }
}

/// Restrictions on the sentences of one generator mode.
struct Mode {
    /// Highest code point a terminal may produce (0xFF: latin-1 sentences).
    max_char: u32,
    /// Per rule: height of its shallowest derivation in this mode (INF: none).
    height: HashMap<String, usize>,
    /// Per rule: length of its shortest derivation in this mode (INF: none).
    len: HashMap<String, usize>,
}

impl Mode {
    /// `disabled`: rules never expanded (e.g. `long-suffix` for version 3.0 sentences).
    fn new(g: &Grammar, max_char: u32, disabled: &[&str]) -> Mode {
        let mut m = Mode {
            max_char,
            height: HashMap::new(),
            len: HashMap::new(),
        };
        for name in g.rules.keys() {
            m.height.insert(name.clone(), INF);
            m.len.insert(name.clone(), INF);
        }
        // Least fixpoint: costs only decrease, and are bounded below by 0.
        loop {
            let mut changed = false;
            for (name, node) in &g.rules {
                if disabled.iter().any(|d| d.eq_ignore_ascii_case(name)) {
                    continue;
                }
                let (h, l) = (m.node_height(node), m.node_len(node));
                if h < m.height[name] || l < m.len[name] {
                    m.height.insert(name.clone(), h.min(m.height[name]));
                    m.len.insert(name.clone(), l.min(m.len[name]));
                    changed = true;
                }
            }
            if !changed {
                return m;
            }
        }
    }

    fn node_height(&self, node: &Node) -> usize {
        match node {
            Node::Alternatives(v) => v.iter().map(|n| self.node_height(n)).min().unwrap_or(INF),
            Node::Concatenation(v) => v.iter().map(|n| self.node_height(n)).max().unwrap_or(0),
            Node::Repetition { repeat, node } => match rep_bounds(repeat).0 {
                0 => 0,
                _ => self.node_height(node),
            },
            Node::Rulename(r) => self.height[r].saturating_add(1).min(INF),
            Node::Group(n) => self.node_height(n),
            Node::Optional(_) => 0,
            Node::String(s) => {
                if s.as_str().chars().all(|c| u32::from(c) <= self.max_char) {
                    0
                } else {
                    INF
                }
            }
            Node::TerminalValues(TerminalValues::Range(lo, _)) => {
                if *lo <= self.max_char {
                    0
                } else {
                    INF
                }
            }
            Node::TerminalValues(TerminalValues::Concatenation(v)) => {
                if v.iter().all(|&c| c <= self.max_char) {
                    0
                } else {
                    INF
                }
            }
            Node::Prose(_) => INF,
        }
    }

    fn node_len(&self, node: &Node) -> usize {
        match node {
            Node::Alternatives(v) => v.iter().map(|n| self.node_len(n)).min().unwrap_or(INF),
            Node::Concatenation(v) => v
                .iter()
                .map(|n| self.node_len(n))
                .fold(0, |a, b| a.saturating_add(b).min(INF)),
            Node::Repetition { repeat, node } => rep_bounds(repeat)
                .0
                .saturating_mul(self.node_len(node))
                .min(INF),
            Node::Rulename(r) => self.len[r],
            Node::Group(n) => self.node_len(n),
            Node::Optional(_) => 0,
            Node::String(s) => self.node_height(node).max(s.as_str().chars().count()),
            Node::TerminalValues(TerminalValues::Range(..)) => self.node_height(node).max(1),
            Node::TerminalValues(TerminalValues::Concatenation(v)) => {
                self.node_height(node).max(v.len())
            }
            Node::Prose(_) => INF,
        }
    }

    fn feasible(&self, node: &Node) -> bool {
        self.node_height(node) < INF
    }
}

/// Unicode sentences without the `L` suffix: must parse as version 3.0.
static UNICODE: LazyLock<Mode> = LazyLock::new(|| Mode::new(&GRAMMAR, 0x10FFFF, &["long-suffix"]));
/// Latin-1 sentences, `L` allowed: must parse as versions 1.0 and 2.0.
static LATIN1: LazyLock<Mode> = LazyLock::new(|| Mode::new(&GRAMMAR, 0xFF, &[]));
/// Any sentence: versions 1.0/2.0 read its UTF-8 bytes as latin-1 and must accept them.
static ANY: LazyLock<Mode> = LazyLock::new(|| Mode::new(&GRAMMAR, 0x10FFFF, &[]));

// ---------------------------------------------------------------- generator --

/// xorshift64*: small, deterministic, good enough for sampling.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        // splitmix64 of the seed, so that nearby seeds give unrelated streams.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Uniform in `lo..=hi`.
    fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// Generation settings for one sentence.
#[derive(Clone, Copy)]
struct Settings {
    mode: &'static LazyLock<Mode>,
    /// Rule-expansion depth after which only shallowest derivations are chosen.
    max_depth: usize,
    /// Sentence length (bytes) after which only shortest derivations are chosen.
    budget: usize,
    /// Bias towards recursive alternatives (to reach deep nesting).
    deep: bool,
}

/// A generated sentence and what the generator knows about it.
#[derive(Debug)]
struct Sentence {
    text: String,
    /// Deepest nesting of `dict`/`tuple`/`list` expansions.
    nesting: u32,
    /// Names (lower-cased) of all rules expanded.
    used: HashSet<String>,
}

struct Gen<'a> {
    g: &'a Grammar,
    mode: &'a Mode,
    s: Settings,
    rng: Rng,
    out: String,
    depth: usize,
    nesting: u32,
    max_nesting: u32,
    used: HashSet<String>,
}

impl Gen<'_> {
    fn minimal(&self) -> bool {
        self.depth >= self.s.max_depth || self.out.len() >= self.s.budget
    }

    fn node(&mut self, node: &Node) {
        match node {
            Node::Alternatives(alts) => {
                let feasible: Vec<&Node> = alts.iter().filter(|n| self.mode.feasible(n)).collect();
                assert!(!feasible.is_empty(), "no feasible alternative in {node:?}");
                let pick = if self.minimal() {
                    // Shallowest derivation first (guarantees termination), then shortest.
                    *feasible
                        .iter()
                        .min_by_key(|n| (self.mode.node_height(n), self.mode.node_len(n)))
                        .unwrap()
                } else {
                    let growing: Vec<&Node> = feasible
                        .iter()
                        .copied()
                        .filter(|n| self.g.growing(n))
                        .collect();
                    if self.s.deep && !growing.is_empty() && self.rng.chance(85) {
                        growing[self.rng.below(growing.len())]
                    } else {
                        feasible[self.rng.below(feasible.len())]
                    }
                };
                self.node(pick);
            }
            Node::Concatenation(v) => v.iter().for_each(|n| self.node(n)),
            Node::Repetition { repeat, node } => {
                let (min, max) = rep_bounds(repeat);
                let extra = if !self.mode.feasible(node) {
                    0
                } else if self.s.deep && self.g.growing(node) {
                    self.rng.below(2)
                } else {
                    match self.rng.below(10) {
                        0..=5 => self.rng.below(3),
                        6..=8 => 3 + self.rng.below(4),
                        _ => 7 + self.rng.below(18),
                    }
                };
                let count = match max {
                    Some(max) => min + extra.min(max - min),
                    None => min + extra,
                };
                for i in 0..count {
                    if i >= min && self.minimal() {
                        break;
                    }
                    self.node(node);
                }
            }
            Node::Rulename(name) => {
                let container = CONTAINERS.contains(&name.as_str());
                self.depth += 1;
                if container {
                    self.nesting += 1;
                    self.max_nesting = self.max_nesting.max(self.nesting);
                }
                if !self.used.contains(name) {
                    self.used.insert(name.clone());
                }
                let g = self.g;
                self.node(g.rule(name));
                if container {
                    self.nesting -= 1;
                }
                self.depth -= 1;
            }
            Node::Group(n) => self.node(n),
            Node::Optional(n) => {
                let p = if self.s.deep && self.g.growing(n) {
                    90
                } else {
                    50
                };
                if self.mode.feasible(n) && !self.minimal() && self.rng.chance(p) {
                    self.node(n);
                }
            }
            Node::String(s) => {
                if s.is_case_sensitive() {
                    self.out.push_str(s.as_str());
                } else {
                    for c in s.as_str().chars() {
                        let flip = self.rng.chance(50);
                        self.out.extend(if flip {
                            c.to_uppercase().collect::<Vec<_>>()
                        } else {
                            vec![c]
                        });
                    }
                }
            }
            Node::TerminalValues(TerminalValues::Range(lo, hi)) => {
                let c = self.sample_range(*lo, (*hi).min(self.mode.max_char));
                self.out.push(c);
            }
            Node::TerminalValues(TerminalValues::Concatenation(v)) => {
                for &c in v {
                    self.out.push(
                        char::from_u32(c).unwrap_or_else(|| panic!("%x{c:X} is not a character")),
                    );
                }
            }
            Node::Prose(p) => panic!("prose rule <{p}> cannot be generated"),
        }
    }

    /// A code point in `lo..=hi`: uniform, near either end, or an end itself.
    fn sample_range(&mut self, lo: u32, hi: u32) -> char {
        let (lo64, hi64) = (u64::from(lo), u64::from(hi));
        for _ in 0..64 {
            let c = if hi64 - lo64 < 256 {
                self.rng.between(lo64, hi64)
            } else {
                match self.rng.below(10) {
                    0..=4 => self.rng.between(lo64, hi64),
                    5..=6 => lo64 + self.rng.between(0, 127),
                    7 => hi64 - self.rng.between(0, 127),
                    8 => lo64,
                    _ => hi64,
                }
            };
            if let Some(c) = char::from_u32(c as u32) {
                return c;
            }
        }
        panic!("range %x{lo:X}-{hi:X} holds no character");
    }
}

fn generate(start: &str, seed: u64, s: Settings) -> Sentence {
    let mode: &Mode = s.mode;
    let mut gen = Gen {
        g: &GRAMMAR,
        mode,
        s,
        rng: Rng::new(seed),
        out: String::new(),
        depth: 0,
        nesting: 0,
        max_nesting: 0,
        used: HashSet::new(),
    };
    gen.node(&Node::Rulename(start.to_string()));
    Sentence {
        text: gen.out,
        nesting: gen.max_nesting,
        used: gen.used,
    }
}

/// Settings for header sentence number `seed`: a mix of modes, depths and sizes.
fn header_settings(seed: u64) -> Settings {
    let mut rng = Rng::new(seed ^ 0xD1CE);
    let mode = match rng.below(6) {
        0 | 1 => &LATIN1,
        2 => &ANY,
        _ => &UNICODE,
    };
    if seed % 12 == 7 {
        // Deep: biased towards containers, far past the nesting limit.
        Settings {
            mode,
            max_depth: 60 + rng.below(90),
            budget: 1500,
            deep: true,
        }
    } else {
        Settings {
            mode,
            max_depth: 3 + rng.below(40),
            budget: 100 + rng.below(800),
            deep: false,
        }
    }
}

// --------------------------------------------------------------- recognizer --

// The recognizer (`RECOGNIZER`, `Facts`, `recognize`, `latin1`, `big_stack`) lives in
// tests/common/grammar.rs, shared with tests/roundtrip.rs.

// ------------------------------------------------------- generator direction --

const HEADER_SENTENCES: u64 = 6000;
const TYPESTR_SENTENCES: u64 = 2500;

fn show(s: &str) -> String {
    let mut t: String = s.chars().take(600).collect();
    if t.len() < s.len() {
        t.push_str("...");
    }
    format!("{t:?}")
}

/// Checks one generated `header` sentence; returns whether some version accepted it.
fn check_generated_header(seed: u64, s: &Sentence) -> Result<bool, String> {
    let ctx = || format!("sentence #{seed} {}", show(&s.text));
    let facts = recognize("full_header", &s.text)
        .ok_or_else(|| format!("recognizer refuses generated {}", ctx()))?;
    let long = s.used.contains("long-suffix");
    if facts
        != (Facts {
            nesting: s.nesting,
            long_suffix: long,
        })
    {
        return Err(format!(
            "recognizer parse {facts:?} differs from the derivation (nesting {}, L {long}) of {}",
            s.nesting,
            ctx()
        ));
    }
    let too_deep = s.nesting > MAX_NESTING;
    let bytes = s.text.as_bytes();
    let mut accepted = false;
    let mut expect = |version: Version, input: &[u8], l_refused: bool| -> Result<(), String> {
        let mut allowed = Vec::new();
        if too_deep {
            allowed.push(ErrorKind::NestingTooDeep);
        }
        if l_refused && long {
            allowed.push(ErrorKind::HeaderSyntax);
        }
        match parse_dict(input, version) {
            Err(e) if float_overflow_at(input, e.offset()) => Ok(()),
            Ok(_) if allowed.is_empty() => {
                accepted = true;
                Ok(())
            }
            Ok(_) => Err(format!(
                "parse_dict({version:?}) accepts, expected one of {allowed:?}: {}",
                ctx()
            )),
            Err(e) if allowed.contains(&e.kind()) => Ok(()),
            Err(e) => Err(format!(
                "parse_dict({version:?}) refuses a sentence of the grammar: {e} ({:?}); {}",
                e.kind(),
                ctx()
            )),
        }
    };
    // Version 3.0 reads the UTF-8 text and refuses `L`.
    expect(Version::V3_0, bytes, true)?;
    // Versions 1.0/2.0 read the same bytes as latin-1: every non-ASCII byte lies inside a string.
    expect(Version::V1_0, bytes, false)?;
    if s.text.chars().all(|c| u32::from(c) <= 0xFF) {
        let l1: Vec<u8> = s.text.chars().map(|c| u32::from(c) as u8).collect();
        expect(Version::V2_0, &l1, false)?;
    }
    Ok(accepted)
}

/// Whether the parser's refusal at `offset` is the rule outside the grammar about floats: a
/// float literal there whose value is past the largest finite float (Python reads it as
/// `inf`, which `repr` does not write back as a literal).
fn float_overflow_at(text: &[u8], offset: Option<u64>) -> bool {
    let Some(rest) = offset.and_then(|o| text.get(o as usize..)) else {
        return false;
    };
    let number = regex_lite_float(rest);
    !number.is_empty()
        && std::str::from_utf8(number)
            .ok()
            .and_then(|t| t.parse::<f64>().ok())
            .is_some_and(f64::is_infinite)
}

/// The longest prefix of `s` of the form `digits [. digits] [e sign digits]`.
fn regex_lite_float(s: &[u8]) -> &[u8] {
    let digits = |from: usize| from + s[from..].iter().take_while(|b| b.is_ascii_digit()).count();
    let mut end = digits(0);
    if end == 0 {
        return &s[..0];
    }
    if s.get(end) == Some(&b'.') && s.get(end + 1).is_some_and(u8::is_ascii_digit) {
        end = digits(end + 1);
    }
    if s.get(end) == Some(&b'e')
        && matches!(s.get(end + 1), Some(b'+' | b'-'))
        && s.get(end + 2).is_some_and(u8::is_ascii_digit)
    {
        end = digits(end + 2);
    }
    &s[..end]
}

#[test]
fn generated_headers_are_accepted() {
    big_stack(|| {
        let (mut accepted, mut too_deep, mut with_l, mut non_latin1, mut max_len) = (0, 0, 0, 0, 0);
        let mut failures = Vec::new();
        for seed in 0..HEADER_SENTENCES {
            let s = generate("header", seed, header_settings(seed));
            match check_generated_header(seed, &s) {
                Ok(true) => accepted += 1,
                Ok(false) => {}
                Err(e) => failures.push(e),
            }
            too_deep += u32::from(s.nesting > MAX_NESTING);
            with_l += u32::from(s.used.contains("long-suffix"));
            non_latin1 += u32::from(s.text.chars().any(|c| u32::from(c) > 0xFF));
            max_len = max_len.max(s.text.len());
        }
        println!(
            "header: {HEADER_SENTENCES} sentences, {accepted} accepted, {too_deep} nested past {MAX_NESTING}, \
             {with_l} with L, {non_latin1} beyond latin-1, longest {max_len} bytes"
        );
        assert!(
            failures.is_empty(),
            "{} of {HEADER_SENTENCES} sentences disagree:\n{}",
            failures.len(),
            failures[..failures.len().min(10)].join("\n")
        );
        assert!(accepted >= 5000, "only {accepted} sentences accepted");
        assert!(
            too_deep > 0 && with_l > 0 && non_latin1 > 0,
            "generator misses a case"
        );
    });
}

/// The typestr facts `from_typestr` checks beyond the grammar (the "meaning of a
/// descr string"); each one explains a refusal of a sentence of `typestr`.
fn typestr_refusals(s: &str) -> Vec<ErrorKind> {
    let (order, code) = s.split_at(1);
    let mut allowed = Vec::new();
    // `|` ("not applicable") leaves the byte order of a multi-byte type unknown.
    let multi_byte = matches!(
        code,
        "i2" | "i4" | "i8" | "u2" | "u4" | "u8" | "f2" | "f4" | "f8" | "c8" | "c16" | "f16" | "c32"
    ) || code.starts_with(['U', 'M', 'm']);
    if order == "|" && multi_byte {
        allowed.push(ErrorKind::BadDescr);
    }
    // Item sizes above NumPy's C int (2^31 - 1 bytes).
    let size = |digits: &str| digits.parse::<u128>().unwrap_or(u128::MAX);
    let c_int_max = i32::MAX as u128;
    if let Some(digits) = code.strip_prefix(['S', 'V']) {
        if size(digits) > c_int_max {
            allowed.push(ErrorKind::ShapeOverflow);
        }
    }
    if let Some(digits) = code.strip_prefix('U') {
        if size(digits).saturating_mul(4) > c_int_max {
            allowed.push(ErrorKind::ShapeOverflow);
        }
    }
    // A unit multiple must fit NumPy's C int, and `generic` takes none.
    if let Some(unit) = code
        .get(2..)
        .and_then(|u| u.strip_prefix('['))
        .and_then(|u| u.strip_suffix(']'))
    {
        let name_at = unit
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(unit.len());
        let (digits, name) = unit.split_at(name_at);
        if !digits.is_empty() && (name == "generic" || size(digits) > c_int_max) {
            allowed.push(ErrorKind::BadDescr);
        }
    }
    allowed
}

/// Checks `from_typestr` on a string the grammar matches.
fn check_matched_typestr(s: &str) -> Result<(), String> {
    match Dtype::from_typestr(s) {
        Ok(_) => Ok(()),
        Err(e) if typestr_refusals(s).contains(&e.kind()) => Ok(()),
        Err(e) => Err(format!(
            "from_typestr refuses {s:?}, a sentence of typestr: {e} ({:?})",
            e.kind()
        )),
    }
}

#[test]
fn generated_typestrs_are_accepted() {
    let (mut accepted, mut refused) = (0, HashMap::<String, u32>::new());
    for seed in 0..TYPESTR_SENTENCES {
        let settings = Settings {
            mode: &UNICODE,
            max_depth: 12,
            budget: 64,
            deep: false,
        };
        let s = generate("typestr", seed, settings);
        assert!(
            recognize("full_typestr", &s.text).is_some(),
            "recognizer refuses generated typestr {:?}",
            s.text
        );
        check_matched_typestr(&s.text).unwrap();
        match Dtype::from_typestr(&s.text) {
            Ok(_) => accepted += 1,
            Err(e) => *refused.entry(format!("{:?}", e.kind())).or_default() += 1,
        }
    }
    println!("typestr: {TYPESTR_SENTENCES} sentences, {accepted} accepted, refused (explained): {refused:?}");
    assert!(
        accepted >= 1500,
        "only {accepted} typestr sentences accepted"
    );
}

// ------------------------------------------------------ recognizer direction --

/// The header corpus (`y_`/`n_`/`i_` cases, one raw header text per file).
const CORPUS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/headers");

/// The corpus files, sorted by name (none if the directory is absent).
fn corpus() -> Vec<(String, Vec<u8>)> {
    let Ok(dir) = std::fs::read_dir(CORPUS_DIR) else {
        return Vec::new();
    };
    let mut files: Vec<(String, Vec<u8>)> = dir
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
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

/// Real headers to mutate: the ones below and the corpus cases of at most 4 KiB.
static SEEDS: LazyLock<Vec<Vec<u8>>> = LazyLock::new(|| {
    let mut seeds: Vec<Vec<u8>> = REAL_HEADERS.iter().map(|h| h.to_vec()).collect();
    seeds.extend(
        corpus()
            .into_iter()
            .map(|(_, b)| b)
            .filter(|b| b.len() <= 4096),
    );
    seeds
});

/// Real headers (as NumPy and other writers produce them) to mutate.
const REAL_HEADERS: &[&[u8]] = &[
    b"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }                                                          \n",
    b"{'descr': '|b1', 'fortran_order': True, 'shape': (), }           \n",
    b"{'descr': [('x', '<i4'), ('y', '<f8', (2, 2))], 'fortran_order': False, 'shape': (10,), }    \n",
    b"{'descr': '<U5', 'fortran_order': False, 'shape': (3L, 4L), }   \n",
    b"{\"descr\": \">M8[25s]\", \"fortran_order\": False, \"shape\": [1, 2], 'extra': None}\n",
    b"{'descr': [(('title', 'name'), '|S3'), ('', '|V4')], 'fortran_order': False, 'shape': (0,), }\n",
    b"{'shape': (8 ,), 'descr': '<c16', 'fortran_order': False}\r\n\x0c\t",
    "{'k\\'\\\"\\\\\\n\\r\\t\\x41\\u00e9\\U0001F600': 'é', 'descr': '=m8', 'fortran_order': False, 'shape': (18446744073709551616,)}\n".as_bytes(),
    b"{'a': [[(1, [2, (3,)]), []]], 'b': (True, None, False,), }",
    b"{'descr': '\xe9', 'fortran_order': False, 'shape': (1L,), }\n",
];

/// Tokens inserted or substituted by mutations: the token alphabet, a few words
/// and escapes, and bytes outside ASCII (valid UTF-8 or not) and controls.
static TOKENS: LazyLock<Vec<Vec<u8>>> = LazyLock::new(|| {
    let mut t: Vec<Vec<u8>> =
        "{}()[],:'\" \t\n\r\x0c0123456789LTrueFalseNone<>|=fiucbSUVMm8[]\\xu_.-+#"
            .bytes()
            .collect::<HashSet<u8>>()
            .into_iter()
            .map(|b| vec![b])
            .collect();
    t.sort();
    for w in [
        "True",
        "False",
        "None",
        "\\x",
        "\\u",
        "\\U",
        "\\\\",
        "\\'",
        "00",
        "é",
        "\u{1F600}",
        "\u{FFFF}",
    ] {
        t.push(w.as_bytes().to_vec());
    }
    for b in [0x00u8, 0x7F, 0x80, 0xE9, 0xFF] {
        t.push(vec![b]);
    }
    t
});

/// Applies insert (0) / delete (1) / replace (2) operations to `bytes`.
fn mutate(bytes: &mut Vec<u8>, ops: &[(u8, Index, Index)]) {
    for (op, pos, tok) in ops {
        let tok = &TOKENS[tok.index(TOKENS.len())];
        match op {
            0 => {
                let at = pos.index(bytes.len() + 1);
                bytes.splice(at..at, tok.iter().copied());
            }
            _ if bytes.is_empty() => {}
            1 => {
                let at = pos.index(bytes.len());
                let end = (at + 1 + tok.len() % 3).min(bytes.len());
                bytes.drain(at..end);
            }
            _ => {
                let at = pos.index(bytes.len());
                bytes.splice(at..at + 1, tok.iter().copied());
            }
        }
    }
}

/// The agreement property on arbitrary bytes, for versions 1.0 (latin-1, `L`) and 3.0 (UTF-8).
/// Returns whether some version accepted the input.
fn check_agreement(bytes: &[u8]) -> Result<bool, String> {
    let mut accepted = false;
    for version in [Version::V1_0, Version::V3_0] {
        let parsed = parse_dict(bytes, version);
        accepted |= parsed.is_ok();
        let text = match version {
            Version::V3_0 => match std::str::from_utf8(bytes) {
                Ok(t) => t.to_string(),
                Err(_) => match parsed {
                    Err(e) if e.kind() == ErrorKind::HeaderEncoding => continue,
                    _ => {
                        return Err(format!(
                            "{version:?} does not refuse invalid UTF-8 {bytes:?} as HeaderEncoding"
                        ))
                    }
                },
            },
            _ => latin1(bytes),
        };
        let ctx = || format!("{version:?}, input {}", show(&text));
        match (parsed, recognize("full_header", &text)) {
            (Ok(_), Some(_)) | (Err(_), None) => {}
            (Ok(_), None) => {
                return Err(format!(
                    "parse_dict accepts what the grammar refuses: {}",
                    ctx()
                ))
            }
            (Err(e), Some(facts)) => {
                let explained = (e.kind() == ErrorKind::NestingTooDeep
                    && facts.nesting > MAX_NESTING)
                    || float_overflow_at(bytes, e.offset())
                    || (version == Version::V3_0
                        && facts.long_suffix
                        && e.kind() == ErrorKind::HeaderSyntax);
                if !explained {
                    return Err(format!(
                        "parse_dict refuses a sentence of the grammar: {e} ({:?}); {}",
                        e.kind(),
                        ctx()
                    ));
                }
            }
        }
    }
    Ok(accepted)
}

/// proptest's default configuration (which reads `PROPTEST_CASES`), with at least
/// `min_cases` cases when `PROPTEST_CASES` is not set, and failures persisted.
fn proptest_config(min_cases: u32) -> ProptestConfig {
    let base = ProptestConfig::default();
    let cases = if std::env::var_os("PROPTEST_CASES").is_some() {
        base.cases
    } else {
        base.cases.max(min_cases)
    };
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(REGRESSIONS))),
        ..base
    }
}

/// Runs a property on a big stack with the persisted-failure configuration.
fn run_property<S>(min_cases: u32, strategy: S, test: fn(S::Value) -> Result<(), TestCaseError>)
where
    S: Strategy + Send + 'static,
{
    big_stack(move || {
        let mut runner = TestRunner::new(proptest_config(min_cases));
        if let Err(e) = runner.run(&strategy, test) {
            panic!("{e}\n{runner}");
        }
    });
}

#[test]
fn parser_and_grammar_agree_on_mutated_headers() {
    let ops = prop::collection::vec((0u8..3, any::<Index>(), any::<Index>()), 0..5);
    run_property(
        4000,
        (any::<bool>(), any::<Index>(), any::<u64>(), ops),
        |(real, idx, seed, ops)| {
            let mut bytes = if real {
                SEEDS[idx.index(SEEDS.len())].clone()
            } else {
                let s = generate("header", seed, header_settings(seed));
                if ops.is_empty() {
                    // A sentence of the grammar: both must accept it (up to the explained refusals).
                    check_generated_header(seed, &s).map_err(TestCaseError::fail)?;
                }
                s.text.into_bytes()
            };
            mutate(&mut bytes, &ops);
            let accepted = check_agreement(&bytes).map_err(TestCaseError::fail)?;
            let stat = match (ops.is_empty(), accepted) {
                (true, _) => &STATS[0],
                (false, true) => &STATS[1],
                (false, false) => &STATS[2],
            };
            stat.fetch_add(1, Ordering::Relaxed);
            Ok(())
        },
    );
    let [unmutated, accepted, refused] = STATS.each_ref().map(|a| a.load(Ordering::Relaxed));
    println!(
        "mutated headers: {unmutated} unmutated inputs, {accepted} mutated inputs accepted, \
         {refused} mutated inputs refused (by parser and grammar alike)"
    );
}

/// Case counts of the mutation property: unmutated, mutated and accepted, mutated and refused.
static STATS: [AtomicU32; 3] = [AtomicU32::new(0), AtomicU32::new(0), AtomicU32::new(0)];

#[test]
fn parser_and_grammar_agree_on_the_corpus() {
    big_stack(|| {
        let files = corpus();
        let failures: Vec<String> = files
            .iter()
            .filter_map(|(name, bytes)| {
                check_agreement(bytes).err().map(|e| format!("{name}: {e}"))
            })
            .collect();
        println!("corpus: {} header cases from tests/headers", files.len());
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}

/// Real type strings to mutate.
const REAL_TYPESTRS: &[&str] = &[
    "<f8",
    "|b1",
    ">i2",
    "=u8",
    "<c16",
    "<f16",
    ">c32",
    "|S10",
    "<U5",
    "|V16",
    "<M8[ns]",
    ">m8[25s]",
    "<M8",
    "<m8[generic]",
];

#[test]
fn from_typestr_and_grammar_agree_on_mutated_typestrs() {
    const ALPHABET: &[u8] = b"<>|=biufcSUVOMm8[]0123456789YWDhsnpagenric";
    let ops = prop::collection::vec((0u8..3, any::<Index>(), any::<Index>()), 0..5);
    run_property(1000, (any::<Index>(), ops), |(idx, ops)| {
        let mut s = REAL_TYPESTRS[idx.index(REAL_TYPESTRS.len())]
            .as_bytes()
            .to_vec();
        for (op, pos, tok) in ops {
            let b = ALPHABET[tok.index(ALPHABET.len())];
            match op {
                0 => s.insert(pos.index(s.len() + 1), b),
                _ if s.is_empty() => {}
                1 => drop(s.remove(pos.index(s.len()))),
                _ => {
                    let at = pos.index(s.len());
                    s[at] = b;
                }
            }
        }
        let s = String::from_utf8(s).expect("ASCII alphabet");
        match (Dtype::from_typestr(&s), recognize("full_typestr", &s)) {
            (Ok(_), None) => Err(TestCaseError::fail(format!(
                "from_typestr accepts {s:?}, the grammar refuses it"
            ))),
            (_, Some(_)) => check_matched_typestr(&s).map_err(TestCaseError::fail),
            (Err(_), None) => Ok(()),
        }
    });
}

// ---------------------------------------------------------- known sentences --

fn accepted_by_both(text: &str) {
    assert!(
        recognize("full_header", text).is_some(),
        "grammar refuses {text:?}"
    );
    for version in [Version::V1_0, Version::V2_0, Version::V3_0] {
        if let Err(e) = parse_dict(text.as_bytes(), version) {
            panic!("parse_dict({version:?}) refuses {text:?}: {e}");
        }
    }
}

fn refused_by_both(text: &str) {
    assert!(
        recognize("full_header", text).is_none(),
        "grammar matches {text:?}"
    );
    for version in [Version::V1_0, Version::V2_0, Version::V3_0] {
        let e = parse_dict(text.as_bytes(), version).expect_err(text);
        assert_eq!(e.kind(), ErrorKind::HeaderSyntax, "{text:?}: {e}");
    }
}

#[test]
fn numpy_header_with_padding() {
    accepted_by_both(&format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }}{}\n",
        " ".repeat(60)
    ));
}

#[test]
fn space_before_comma() {
    accepted_by_both("{'shape': (8 ,), 'descr': '<i4', 'fortran_order': False}");
    accepted_by_both("{'shape': [8 , 9 ,] , }");
}

#[test]
fn tuples() {
    accepted_by_both("{'a': (2, 3, )}");
    accepted_by_both("{'a': (3,)}");
    accepted_by_both("{'a': ( 3 , )}");
    accepted_by_both("{'a': ()}");
    accepted_by_both("{'a': ( )}");
    refused_by_both("{'a': (3)}");
    refused_by_both("{'a': (,)}");
    refused_by_both("{'a': (1,,)}");
}

#[test]
fn integers() {
    accepted_by_both("{'a': 0, 'b': 10, 'c': 18446744073709551616}");
    refused_by_both("{'a': 02}");
    accepted_by_both("{'a': -1, 'b': -18446744073709551616}");
    refused_by_both("{'a': -0}");
    refused_by_both("{'a': +1}");
    refused_by_both("{'a': 1_000}");
    refused_by_both("{'a': 0x10}");
}

#[test]
fn sets_and_dicts_as_values_with_hashable_items() {
    accepted_by_both("{'a': {1, 2}, 'b': {}, 'c': {1: 'x', (2, b'y'): [3]}, 'd': {(1, (2,)),}}");
    for refused in [
        "{[1]}",
        "{{1}}",
        "{(1, [2])}",
        "{[1]: 2}",
        "{1: 2, 3}",
        "{1, 2: 3}",
        "{,}",
    ] {
        refused_by_both(&format!("{{'a': {refused}}}"));
    }
}

#[test]
fn floats_complex_numbers_and_bytes_as_repr_writes_them() {
    accepted_by_both("{'a': 1.5, 'b': -0.0, 'c': 1e+300, 'd': 1.5e-05, 'e': 0.0001}");
    accepted_by_both(
        "{'a': 1j, 'b': -0j, 'c': 1.5e+300j, 'd': (1+2j), 'e': (-0-1j), 'f': ( 1.5-1e-05j )}",
    );
    accepted_by_both("{'a': b'', 'b': b't\\x00\\'', 'c': b\"it's\", 'd': (b'x', -1, 2.5, 3j)}");
    for refused in [
        "1e5",
        "1E+5",
        "1.",
        ".5",
        "01.5",
        "1J",
        "(1 + 2j)",
        "1+2j",
        "(1j+2j)",
        "(1+2)",
        "(1+2L)",
        "- 1",
        "B'x'",
        "b'\\a'",
        "b'\\u0041'",
        "rb'x'",
    ] {
        refused_by_both(&format!("{{'a': {refused}}}"));
    }
}

#[test]
fn long_suffix_only_before_3_0() {
    let text = "{'shape': (2L, 3L), }";
    assert_eq!(
        recognize("full_header", text),
        Some(Facts {
            nesting: 2,
            long_suffix: true
        })
    );
    assert!(parse_dict(text.as_bytes(), Version::V1_0).is_ok());
    assert!(parse_dict(text.as_bytes(), Version::V2_0).is_ok());
    assert_eq!(
        parse_dict(text.as_bytes(), Version::V3_0)
            .unwrap_err()
            .kind(),
        ErrorKind::HeaderSyntax
    );
}

#[test]
fn strings() {
    accepted_by_both("{'it\\'s': 1}");
    accepted_by_both("{\"it's\": 'say \"hi\"', 'e': '\\xe9\\u00e9\\U0001F600 é\u{10FFFF}'}");
    // Raw control characters are themselves, as in `ast.literal_eval`; NUL, LF and CR are
    // refused (Python's tokenizer ends or refuses a one-line string there; a NUL byte is refused before parsing).
    accepted_by_both("{'a': 'x\ty', 'b': \"\u{1}\u{b}\u{c}\u{1f}\u{7f}\"}");
    refused_by_both("{'a': 'x\ny'}");
    refused_by_both("{'a': 'x\ry'}");
    refused_by_both("{'a': 'a' 'b'}");
    refused_by_both("{'a': 'a''b'}");
    refused_by_both("{'a': '\\q'}");
    refused_by_both("{'a': '\\x4'}");
    accepted_by_both("{'a': 'x\u{7f}'}");
}

#[test]
fn escapes_name_code_points_and_keys_name_scalar_values() {
    accepted_by_both("{'a': '\\uD7FF\\ue000\\U0010FFFF\\U0000d7ff'}");
    // A lone surrogate is syntax in a value (np.save writes field names so); validation
    // accepts it in a field name only.
    accepted_by_both("{'a': '\\uD800'}");
    accepted_by_both("{'a': '\\udfff\\ud800'}");
    accepted_by_both("{'a': '\\U0000DC00'}");
    refused_by_both("{'\\ud800': 1}");
    refused_by_both("{\"a\\U0000dfff\": 1}");
    refused_by_both("{'a': '\\U00110000'}");
    refused_by_both("{'a': '\\U0011d800'}");
}

#[test]
fn nesting_is_validation_not_syntax() {
    let ok = format!("{{'a': {}{}}}", "[".repeat(31), "]".repeat(31));
    accepted_by_both(&ok);
    let deep = format!("{{'a': {}{}}}", "[".repeat(32), "]".repeat(32));
    assert_eq!(recognize("full_header", &deep).map(|f| f.nesting), Some(33));
    assert_eq!(
        parse_dict(deep.as_bytes(), Version::V3_0)
            .unwrap_err()
            .kind(),
        ErrorKind::NestingTooDeep
    );
}

#[test]
fn known_typestrs() {
    for s in [
        "<f8",
        "|b1",
        "|S5",
        "<U3",
        "<M8",
        "<M8[generic]",
        "<m8[25s]",
        ">M8[ms]",
        "=c16",
        "|V12",
        "|S0",
        "<U0",
        "|V0",
        "<f16",
        ">f16",
        "<c32",
    ] {
        assert!(
            recognize("full_typestr", s).is_some(),
            "grammar refuses {s:?}"
        );
        assert!(Dtype::from_typestr(s).is_ok(), "from_typestr refuses {s:?}");
    }
    for s in [
        "f8", "<f12", "<c24", "<S", "<S00", "<S05", "<M8[]", "<M8[0s]", "<M8[ns", "<O", "<i8 ",
    ] {
        assert!(
            recognize("full_typestr", s).is_none(),
            "grammar matches {s:?}"
        );
        assert!(
            Dtype::from_typestr(s).is_err(),
            "from_typestr accepts {s:?}"
        );
    }
}
