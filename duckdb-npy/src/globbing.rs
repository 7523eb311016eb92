//! The local files a glob pattern names, as DuckDB's local file system globs them
//! (`LocalFileSystem::Glob`): DuckDB's C API has no glob, so its rules are kept here.
//!
//! - The pattern is cut at `/`; a component without glob characters is joined as it is
//!   (the last one only if it exists); one with them matches the names of each directory
//!   so far (`glob::Pattern`: `*`, `?`, `[…]`), directories for an inner component, files
//!   for the last.
//! - `**` (a whole component, at most one per pattern) is every directory below, itself
//!   included, or every file below when it is the last component. Like DuckDB, it does not
//!   enter or return symbolic links: a link that loops (`d/self -> .`) can neither hang the
//!   query nor read a file twice. Other components follow links.
//! - Matches are returned sorted; none is an empty list (the caller reports the literal
//!   path's error, as DuckDB does).

use std::path::{Path, PathBuf};

/// The files `pattern` matches (see the module documentation).
pub fn local_matches(pattern: &str) -> Result<Vec<PathBuf>, String> {
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    if parts.iter().filter(|p| **p == "**").count() > 1 {
        return Err(format!("cannot use multiple '**' in one path: {pattern:?}"));
    }
    let mut dirs = vec![if pattern.starts_with('/') {
        PathBuf::from("/")
    } else {
        PathBuf::new()
    }];
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let mut next = Vec::new();
        for dir in &dirs {
            step(dir, part, last, &mut next)?;
        }
        if next.is_empty() {
            return Ok(next);
        }
        dirs = next;
    }
    dirs.sort();
    Ok(dirs)
}

/// The paths below `dir` that component `part` matches: directories, or files when `last`.
fn step(dir: &Path, part: &str, last: bool, out: &mut Vec<PathBuf>) -> Result<(), String> {
    if !part.contains(['*', '?', '[']) {
        let path = join(dir, part);
        if !last || path.exists() {
            out.push(path);
        }
        return Ok(());
    }
    if part == "**" {
        if !last {
            out.push(dir.to_path_buf());
        }
        crawl(dir, !last, out);
        return Ok(());
    }
    let glob = glob::Pattern::new(part).map_err(|e| format!("bad glob pattern {part:?}: {e}"))?;
    for (path, is_dir, _) in entries(dir) {
        let matches = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| glob.matches(n));
        if matches && is_dir != last {
            out.push(path);
        }
    }
    Ok(())
}

/// `dir` joined with the literal component `part`, `.` and `..` resolved in the text as
/// DuckDB's `JoinPath` resolves them (`a/b/..` is `a`, whatever `b` is).
fn join(dir: &Path, part: &str) -> PathBuf {
    let parent = dir.parent().filter(|_| {
        matches!(
            dir.components().next_back(),
            Some(std::path::Component::Normal(_))
        )
    });
    match (part, parent) {
        (".", _) => dir.to_path_buf(),
        ("..", Some(parent)) => parent.to_path_buf(),
        _ => dir.join(part),
    }
}

/// Every directory (`dirs`) or file below `dir`, not entering or returning symbolic links.
fn crawl(dir: &Path, dirs: bool, out: &mut Vec<PathBuf>) {
    for (path, is_dir, is_link) in entries(dir) {
        if is_link {
            continue;
        }
        if is_dir == dirs {
            out.push(path.clone());
        }
        if is_dir {
            crawl(&path, dirs, out);
        }
    }
}

/// The entries of directory `dir` (the current directory for an empty path), whether each
/// is a directory (links followed) and whether it is a symbolic link (the listing's own
/// file type, no second call); nothing when it cannot be listed.
fn entries(dir: &Path) -> Vec<(PathBuf, bool, bool)> {
    let listed = if dir.as_os_str().is_empty() {
        std::fs::read_dir(".")
    } else {
        std::fs::read_dir(dir)
    };
    let Ok(listed) = listed else {
        return Vec::new();
    };
    listed
        .filter_map(Result::ok)
        .map(|e| {
            let path = dir.join(e.file_name());
            let is_link = e.file_type().is_ok_and(|t| t.is_symlink());
            let is_dir = path.is_dir();
            (path, is_dir, is_link)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::local_matches;
    use std::path::PathBuf;

    /// A fresh tree of directories and empty files, `name` keeping tests apart.
    fn tree(name: &str) -> PathBuf {
        let dir = format!("npy-glob-{name}-{}", std::process::id());
        let root = std::env::temp_dir().join(dir);
        let _ = std::fs::remove_dir_all(&root);
        for d in ["a/b/c", "a/x", "e"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for f in [
            "a/1.npy",
            "a/b/2.npy",
            "a/b/c/3.npy",
            "a/x/4.npz",
            "e/5.npy",
            "top.npy",
        ] {
            std::fs::write(root.join(f), b"").unwrap();
        }
        root
    }

    fn names(root: &PathBuf, pattern: &str) -> Vec<String> {
        let full = format!("{}/{pattern}", root.display());
        local_matches(&full)
            .unwrap()
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().display().to_string())
            .collect()
    }

    #[test]
    fn components_and_crawls_match_as_duckdb_globs() {
        let root = tree("components");
        assert_eq!(names(&root, "*.npy"), ["top.npy"]);
        assert_eq!(names(&root, "*/*.npy"), ["a/1.npy", "e/5.npy"]);
        assert_eq!(
            names(&root, "a/**/*.npy"),
            ["a/1.npy", "a/b/2.npy", "a/b/c/3.npy"]
        );
        assert_eq!(
            names(&root, "**"),
            [
                "a/1.npy",
                "a/b/2.npy",
                "a/b/c/3.npy",
                "a/x/4.npz",
                "e/5.npy",
                "top.npy"
            ]
        );
        assert_eq!(names(&root, "a/?/*.np[yz]"), ["a/b/2.npy", "a/x/4.npz"]);
        assert!(names(&root, "nothing/*.npy").is_empty());
        assert_eq!(names(&root, "a/b/../*.npy"), ["a/1.npy"]);
        assert_eq!(names(&root, "a/./b/*.npy"), ["a/b/2.npy"]);
        let twice = format!("{}/**/x/**", root.display());
        assert!(local_matches(&twice).is_err());
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_crawl_neither_enters_nor_returns_links() {
        let root = tree("links");
        // Three links back up: the glob crate's ** followed them without end.
        for (link, to) in [
            ("a/self", "."),
            ("a/b/up", ".."),
            ("a/b/c/root", "../../.."),
        ] {
            std::os::unix::fs::symlink(to, root.join(link)).unwrap();
        }
        std::os::unix::fs::symlink("../1.npy", root.join("a/b/link.npy")).unwrap();
        assert_eq!(
            names(&root, "a/**"),
            ["a/1.npy", "a/b/2.npy", "a/b/c/3.npy", "a/x/4.npz"]
        );
        // The component after a crawl is an ordinary one, which follows links (DuckDB's
        // too): the link in a/b, not the files behind the directory links.
        assert_eq!(
            names(&root, "a/**/*.npy"),
            ["a/1.npy", "a/b/2.npy", "a/b/c/3.npy", "a/b/link.npy"]
        );
        assert_eq!(names(&root, "a/b/*.npy"), ["a/b/2.npy", "a/b/link.npy"]);
        assert_eq!(names(&root, "a/self/1.npy"), ["a/self/1.npy"]);
        std::fs::remove_dir_all(root).unwrap();
    }
}
