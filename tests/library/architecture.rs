//! ARCHITECTURE.md is true to the code: its module table lists every module of `src/`
//! (bottom of the stack first), each row's "uses" cell is exactly the set of modules the
//! code reaches through `crate::`/`super::` paths and child-module paths, every such edge
//! points down the table, and the module graph has no cycle.
//!
//! Test modules (`#[cfg(test)] mod tests`) and comments are not edges; `src/bin` and
//! `src/lib.rs` (the top: the CLI and the public export list) are not in the table.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[path = "../common/source.rs"]
mod source;
use source::{code, crate_code};

type Graph = BTreeMap<String, BTreeSet<String>>;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every library module file, by module path (`format::dtype` for src/format/dtype.rs or
/// src/format/dtype/mod.rs).
fn module_files() -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root().join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root().join("src")).unwrap().to_path_buf();
            if rel.starts_with("bin") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") && rel != Path::new("lib.rs") {
                out.insert(module_name(&rel), path);
            }
        }
    }
    out
}

fn module_name(rel: &Path) -> String {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts.join("::")
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The paths (as segment lists) that start at byte `at` of `code`: `a::b::c`, or each
/// path of a `{...}` group, expanded.
fn paths_at(code: &[u8], mut at: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut segs = prefix;
    loop {
        let start = at;
        while at < code.len() && is_ident(code[at]) {
            at += 1;
        }
        if at > start {
            segs.push(String::from_utf8_lossy(&code[start..at]).into_owned());
        }
        if code[at..].starts_with(b"::{") {
            at += 3;
            let mut depth = 0;
            let mut item = at;
            while at < code.len() {
                match code[at] {
                    b'{' => depth += 1,
                    b'}' if depth == 0 => break,
                    b'}' => depth -= 1,
                    b',' if depth == 0 => {
                        paths_at(code, skip_ws(code, item), segs.clone(), out);
                        item = at + 1;
                    }
                    _ => {}
                }
                at += 1;
            }
            paths_at(code, skip_ws(code, item), segs.clone(), out);
            return;
        }
        if code[at..].starts_with(b"::") {
            at += 2;
            continue;
        }
        out.push(segs);
        return;
    }
}

fn skip_ws(code: &[u8], mut at: usize) -> usize {
    while at < code.len() && code[at].is_ascii_whitespace() {
        at += 1;
    }
    at
}

/// The longest module named by a prefix of `segs`.
fn resolve(segs: &[String], modules: &BTreeMap<String, PathBuf>) -> Option<String> {
    (1..=segs.len())
        .rev()
        .map(|k| segs[..k].join("::"))
        .find(|m| modules.contains_key(m))
}

/// Starts of `word::` in `code` that begin a path (not preceded by an identifier or `::`).
fn path_starts<'a>(code: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let b = code.as_bytes();
    let pat = format!("{word}::");
    code.match_indices(word).map(|(i, _)| i).filter(move |&i| {
        let before_ok = i == 0 || !(is_ident(b[i - 1]) || b[i - 1] == b':');
        before_ok && code[i..].starts_with(&pat)
    })
}

/// Byte ranges of the inline `mod name { ... }` blocks of `code`.
fn inline_modules(code: &str) -> Vec<std::ops::Range<usize>> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    for (i, _) in code.match_indices("mod ") {
        if i > 0 && is_ident(b[i - 1]) {
            continue;
        }
        let mut j = i + 4;
        while j < b.len() && is_ident(b[j]) {
            j += 1;
        }
        j = skip_ws(b, j);
        if j >= b.len() || b[j] != b'{' {
            continue;
        }
        let mut depth = 0usize;
        let start = j;
        while j < b.len() {
            match b[j] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        out.push(start..j);
    }
    out
}

fn edges_of(name: &str, text: &str, modules: &BTreeMap<String, PathBuf>) -> BTreeSet<String> {
    let code = code(text);
    let bytes = code.as_bytes();
    let mut paths = Vec::new();
    let parent: Vec<String> = {
        let mut p: Vec<String> = name.split("::").map(String::from).collect();
        p.pop();
        p
    };
    let this: Vec<String> = name.split("::").map(String::from).collect();
    for i in path_starts(&code, "crate") {
        paths_at(bytes, i + "crate::".len(), Vec::new(), &mut paths);
    }
    let inline = inline_modules(&code);
    for i in path_starts(&code, "super") {
        // `super` is the parent module (for a folder's mod.rs, the folder's parent); inside
        // an inline `mod x { ... }` of this file, it is this file's module.
        let inside = inline.iter().any(|r| r.contains(&i));
        let base = if inside { this.clone() } else { parent.clone() };
        let before = paths.len();
        paths_at(bytes, i + "super::".len(), base.clone(), &mut paths);
        if paths.len() == before {
            paths.push(base);
        }
    }
    // Child modules declared here (`mod x;`) and used by relative paths (`x::...`).
    let children: Vec<String> = code
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l
                .strip_prefix("pub(crate) ")
                .or(l.strip_prefix("pub "))
                .unwrap_or(l);
            l.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(str::to_string)
        })
        .collect();
    for child in &children {
        for i in path_starts(&code, child) {
            paths_at(bytes, i, this.clone(), &mut paths);
        }
    }
    paths
        .iter()
        .filter_map(|p| resolve(p, modules))
        .filter(|m| m != name)
        .collect()
}

fn graph() -> Graph {
    let modules = module_files();
    modules
        .iter()
        .map(|(name, path)| {
            let text = std::fs::read_to_string(path).unwrap();
            (name.clone(), edges_of(name, &text, &modules))
        })
        .collect()
}

/// ARCHITECTURE.md's module table: (module, uses) in table order.
fn table() -> Vec<(String, BTreeSet<String>)> {
    let doc = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let section = doc
        .split("## Modules")
        .nth(1)
        .expect("ARCHITECTURE.md has a ## Modules section");
    let section = section.split("\n## ").next().unwrap();
    let ticked = |cell: &str| -> Vec<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').collect();
            let module = ticked(cells[0]).remove(0);
            let uses = ticked(cells.last().unwrap()).into_iter().collect();
            (module, uses)
        })
        .collect()
}

/// A cycle of `g`, if it has one (depth-first search with colours).
fn find_cycle(g: &Graph) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        g: &Graph,
        colour: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        colour.insert(n.to_string(), 1);
        path.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            match colour.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = path.iter().position(|p| p == m).unwrap();
                    let mut cycle = path[start..].to_vec();
                    cycle.push(m.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(m, g, colour, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        colour.insert(n.to_string(), 2);
        None
    }
    let mut colour = BTreeMap::new();
    for n in g.keys() {
        if colour.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, g, &mut colour, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn the_module_graph_has_no_cycle() {
    let g = graph();
    assert!(g.len() > 20, "found only {} modules", g.len());
    assert_eq!(find_cycle(&g), None, "module cycle");
}

#[test]
fn the_cycle_finder_finds_cycles() {
    // The check above can fail: a graph with a cycle is reported.
    let mut g = Graph::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    g.entry("c".into()).or_default().insert("a".into());
    assert_eq!(find_cycle(&g).map(|c| c.len()), Some(4));
    g.get_mut("c").unwrap().clear();
    assert_eq!(find_cycle(&g), None);
}

#[test]
fn the_edge_parser_reads_use_groups_super_and_children() {
    let modules: BTreeMap<String, PathBuf> = ["a", "a::b", "a::c", "d", "d::e"]
        .iter()
        .map(|m| (m.to_string(), PathBuf::new()))
        .collect();
    let text = "mod e;\nuse crate::a::{b::X, c};\n// crate::d\nuse super::Y;\nfn f() { e::g(); let s = \"crate::a\"; }\n#[cfg(test)]\nmod tests { use crate::a::b; }";
    let edges = edges_of("d", text, &modules);
    assert_eq!(
        edges,
        ["a::b", "a::c", "d::e"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
    let edges = edges_of("d::e", "use super::Z;", &modules);
    assert_eq!(edges, ["d"].iter().map(|s| s.to_string()).collect());
    let edges = edges_of("d::e", "mod inner { use super::*; }", &modules);
    assert!(
        edges.is_empty(),
        "super inside an inline module is this module: {edges:?}"
    );
}

/// The uses cells of `g` in an order where every edge points up (for the failure message).
fn suggested_rows(g: &Graph) -> String {
    let mut done: Vec<String> = Vec::new();
    while done.len() < g.len() {
        let next = g
            .iter()
            .find(|(m, uses)| !done.contains(m) && uses.iter().all(|u| done.contains(u)));
        let Some((m, uses)) = next else { break };
        done.push(m.clone());
        let _ = uses;
    }
    done.iter()
        .map(|m| {
            let uses: Vec<String> = g[m].iter().map(|u| format!("`{u}`")).collect();
            let uses = if uses.is_empty() {
                "—".to_string()
            } else {
                uses.join(", ")
            };
            format!("| `{m}` | … | {uses} |")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn architecture_md_lists_every_module_and_its_uses_in_dependency_order() {
    let g = graph();
    let rows = table();
    let hint = suggested_rows(&g);
    let listed: Vec<&String> = rows.iter().map(|(m, _)| m).collect();
    let missing: Vec<&String> = g.keys().filter(|m| !listed.contains(m)).collect();
    assert!(
        missing.is_empty(),
        "modules missing from ARCHITECTURE.md: {missing:?}\n{hint}"
    );
    let unknown: Vec<&&String> = listed.iter().filter(|m| !g.contains_key(**m)).collect();
    assert!(
        unknown.is_empty(),
        "ARCHITECTURE.md lists modules that do not exist: {unknown:?}"
    );
    for (i, (module, uses)) in rows.iter().enumerate() {
        assert_eq!(
            uses, &g[module],
            "ARCHITECTURE.md: the uses of `{module}`\n{hint}"
        );
        for dep in uses {
            let j = listed.iter().position(|m| *m == dep).unwrap();
            assert!(
                j < i,
                "`{module}` uses `{dep}`, which is not below it in the table"
            );
        }
    }
}

/// The functions of `path` (test modules left out) as (lines, name), by scanning for
/// `fn` items and their closing brace at the same indentation.
fn function_lengths(path: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        let item = body
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub ")
            .trim_start_matches("const ");
        let Some(name) = item.strip_prefix("fn ") else {
            continue;
        };
        let name: String = name
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if line.trim_end().ends_with('}') {
            out.push((1, name));
            continue;
        }
        let close = format!("{indent}}}");
        if let Some(end) = lines[i..].iter().position(|l| *l == close) {
            out.push((end + 1, name));
        }
    }
    out
}

#[test]
fn functions_of_the_format_stage_fit_on_a_screen() {
    let modules = module_files();
    let mut long = Vec::new();
    for (module, path) in &modules {
        if !module.starts_with("format") {
            continue;
        }
        for (lines, name) in function_lengths(path) {
            if lines > 60 {
                long.push(format!("{module}::{name}: {lines} lines"));
            }
        }
    }
    assert!(
        modules.keys().any(|m| m == "format::grammar"),
        "scanned the format stage"
    );
    assert!(
        long.is_empty(),
        "functions over 60 lines in src/format: {long:#?}"
    );
}

/// The checks a read makes before the payload are written once, in `io::opened` (the
/// `checked` function): no other library module calls the pieces (the header read from a
/// stream, the claim and length checks). `read_header` is the public header-only read.
#[test]
fn the_read_checks_are_called_only_by_the_one_checked_opening() {
    let pieces = [
        "check_opened(",
        "check_length(",
        "check_size(",
        "check_claim(",
        "read_header_from(",
    ];
    let allowed = [
        root().join("src/io/opened.rs"),
        root().join("src/io/checks.rs"),
    ];
    let mut found = Vec::new();
    for (path, code) in crate_code(&root().join("src")) {
        if allowed.contains(&path) || path.starts_with(root().join("src/bin")) {
            continue;
        }
        for piece in pieces {
            for (i, _) in code.match_indices(piece) {
                let before = &code[..i];
                let line = before.lines().last().unwrap_or("");
                // Definitions and the public header-only read are not openings.
                let defines = line.trim_start().starts_with("pub fn")
                    || line.trim_start().starts_with("pub(crate) fn");
                let header_only = path.ends_with("io/read.rs") && piece == "read_header_from(";
                if !defines && !header_only {
                    found.push(format!("{}: {piece}", path.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "read checks called outside io::opened: {found:#?}"
    );
    let opened = std::fs::read_to_string(root().join("src/io/opened.rs")).unwrap();
    for piece in ["check_size(", "check_opened(", "check_length("] {
        assert!(opened.contains(piece), "io::opened runs {piece}");
    }
}
