//! The grammar and the code read together: every ABNF rule quoted in a doc comment under
//! `src/` is the rule of `grammar/npy-header.abnf` verbatim (comment lines aside), every
//! quote sits on a function, and every rule of the grammar is quoted by exactly one
//! function.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The rules of an ABNF text: name → the rule's lines (its first line and its indented
/// continuation lines; comment lines left out, trailing spaces trimmed).
fn rules(text: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim_end();
        if trimmed.trim_start().starts_with(';') || trimmed.is_empty() {
            if trimmed.is_empty() {
                current = None;
            }
            continue;
        }
        if !line.starts_with(char::is_whitespace) {
            let name = trimmed.split_whitespace().next().unwrap().to_string();
            assert!(trimmed.contains('='), "not a rule: {trimmed:?}");
            assert!(
                out.insert(name.clone(), vec![trimmed.to_string()])
                    .is_none(),
                "rule {name} defined twice"
            );
            current = Some(name);
        } else if let Some(name) = &current {
            out.get_mut(name).unwrap().push(trimmed.to_string());
        }
    }
    out
}

/// One quote: the file, the line of the item it documents, that item's first line, and the rules.
struct Quote {
    file: PathBuf,
    item: String,
    rules: BTreeMap<String, Vec<String>>,
}

fn quotes_in(file: &Path, text: &str) -> Vec<Quote> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let doc = lines[i].trim_start();
        if doc == "/// ```abnf" || doc == "//! ```abnf" {
            let prefix = &doc[..3];
            let mut block = String::new();
            i += 1;
            while i < lines.len() && lines[i].trim_start() != format!("{prefix} ```") {
                let l = lines[i].trim_start();
                let l = l.strip_prefix(prefix).unwrap_or(l);
                block.push_str(l.strip_prefix(' ').unwrap_or(l));
                block.push('\n');
                i += 1;
            }
            // The item documented: the first line after the doc comment and attributes.
            let mut j = i + 1;
            while j < lines.len() {
                let t = lines[j].trim_start();
                if t.starts_with("///") || t.starts_with("#[") || t.is_empty() {
                    j += 1;
                } else {
                    break;
                }
            }
            out.push(Quote {
                file: file.to_path_buf(),
                item: lines.get(j).unwrap_or(&"").trim().to_string(),
                rules: rules(&block),
            });
        }
        i += 1;
    }
    out
}

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn all_quotes() -> Vec<Quote> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    source_files(&root.join("src"), &mut files);
    files.sort();
    files
        .iter()
        .flat_map(|f| quotes_in(f, &std::fs::read_to_string(f).unwrap()))
        .collect()
}

fn grammar() -> BTreeMap<String, Vec<String>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    rules(&std::fs::read_to_string(root.join("grammar/npy-header.abnf")).unwrap())
}

fn is_function(item: &str) -> bool {
    let item = item
        .trim_start_matches("pub(crate) ")
        .trim_start_matches("pub ");
    item.starts_with("fn ")
}

#[test]
fn every_quoted_rule_is_the_grammars_verbatim() {
    let grammar = grammar();
    let quotes = all_quotes();
    assert!(quotes.len() > 20, "found only {} ABNF quotes", quotes.len());
    for q in &quotes {
        assert!(
            is_function(&q.item),
            "{}: an ABNF quote documents {:?}, not a function",
            q.file.display(),
            q.item
        );
        for (name, lines) in &q.rules {
            let Some(want) = grammar.get(name) else {
                panic!("{}: {name} is not a rule of the grammar", q.file.display());
            };
            assert_eq!(
                lines,
                want,
                "{}: rule {name} (on {})",
                q.file.display(),
                q.item
            );
        }
    }
}

#[test]
fn every_rule_of_the_grammar_is_quoted_by_exactly_one_function() {
    let mut by_rule: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for q in all_quotes() {
        for name in q.rules.keys() {
            by_rule.entry(name.clone()).or_default().push(format!(
                "{}: {}",
                q.file.display(),
                q.item
            ));
        }
    }
    for name in grammar().keys() {
        match by_rule.get(name).map(Vec::as_slice) {
            Some([_]) => {}
            None | Some([]) => panic!("rule {name} is quoted by no function"),
            Some(many) => panic!(
                "rule {name} is quoted by {} functions: {many:#?}",
                many.len()
            ),
        }
    }
}

#[test]
fn the_rule_reader_reads_continuations_and_skips_comments() {
    let r = rules("a = b\n      / c\n      ; note\nd = e ; tail\n\n; top\n");
    assert_eq!(r["a"], vec!["a = b", "      / c"]);
    assert_eq!(r["d"], vec!["d = e ; tail"]);
    assert_eq!(r.len(), 2);
}
