//! Every command whose standard output is a pipe its reader has already closed (`npyguard
//! inspect --json big.npz | head -1`) stops quietly: exit 0, nothing on stderr, never a
//! panic (exit 101). The read end is closed before the command starts, so its very first
//! write fails: the test does not depend on timing.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use npyguard::npz::savez_path;
use npyguard::write::to_path;
use npyguard::{Array, NpyArray};

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("npyguard-cli-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Runs the CLI with stdout a pipe whose read end is already closed.
fn run_into_closed_pipe(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let child = Command::new(env!("CARGO_BIN_EXE_npyguard"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("run npyguard");
    child.wait_with_output().expect("wait for npyguard")
}

fn array(n: usize) -> Array {
    NpyArray::from_vec((0..n).map(|i| i as f64).collect(), vec![n])
        .expect("array")
        .to_array()
}

/// A `.npy` and an `.npz` of 3 members, written once.
fn files(d: &Path) -> (String, String, String) {
    let (npy, other, npz) = (d.join("a.npy"), d.join("b.npy"), d.join("a.npz"));
    to_path(&npy, &array(10_000)).expect("write npy");
    to_path(&other, &array(9_999)).expect("write npy");
    let (a, b) = (array(3), array(4));
    savez_path(&npz, &[("x", &a), ("y", &b), ("z", &a)]).expect("write npz");
    let s = |p: PathBuf| p.display().to_string();
    (s(npy), s(other), s(npz))
}

#[test]
fn every_command_stops_quietly_on_a_closed_pipe() {
    let d = dir();
    let (npy, other, npz) = files(&d);
    let dst = d.join("dst.npy");
    to_path(&dst, &array(2)).expect("write dst");
    let dst = dst.display().to_string();
    let cases: Vec<Vec<&str>> = vec![
        vec!["inspect", &npy],
        vec!["inspect", "--json", &npy],
        vec!["inspect", &npz],
        vec!["inspect", "--json", &npz],
        vec!["validate", "--json", &npy, &npz],
        vec!["dump", &npy],
        vec!["dump", "--json", "--full", &npy],
        vec!["dump", "--rows", "1..3", &npy],
        vec!["dump", &npz],
        vec!["dump", "--json", &npz],
        vec!["diff", &npy, &other],
        vec!["diff", "--json", &npy, &other],
        vec!["diff", &npz, &npz],
        vec!["diff", "--json", &npz, &npz],
        vec!["append", &dst, &npy],
        // Writers whose output is standard output (`-o -`).
        vec!["convert", &npy, "-o", "-"],
        vec!["convert", &npz, "--member", "x", "-o", "-"],
        vec!["convert", &npy, "--to", "csv", "-o", "-"],
        vec!["convert", &npy, "--to", "arrow", "-o", "-"],
        vec!["convert", &npy, "--to", "parquet", "-o", "-"],
        vec!["convert", &npz, "--member", "y", "--to", "csv", "-o", "-"],
    ];
    for args in &cases {
        let out = run_into_closed_pipe(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&d);
}
