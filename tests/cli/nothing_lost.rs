//! `convert` never destroys what it did not create: every output goes to a temporary file
//! beside the destination, renamed into place only when complete; a failure at any stage
//! leaves the destination byte-identical (or, for a stream, in place); an output that is
//! the input is refused; FIFOs, devices and `-` are written as streams and never removed.
#![cfg(all(feature = "cli-datasets", unix))]

use std::os::unix::fs::{symlink, FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use npyguard::write::{header_bytes, to_path};
use npyguard::{Dtype, Header, NpyArray};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("npyguard-cli-lost-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn convert(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_npyguard"))
        .arg("convert")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run npyguard")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A valid `.npy` of `n` f8 values.
fn good(path: &Path, n: usize) {
    let a = NpyArray::from_vec((0..n).map(|i| i as f64).collect(), vec![n]).expect("array");
    to_path(path, &a.to_array()).expect("write");
}

/// A `<U1` file of 3 rows whose second row is the code point 0x110000: NumPy reads it (and
/// so does npyguard, and `convert` to `.npy` keeps it), but no UTF-8 text holds it, so a
/// conversion to CSV or Parquet fails mid-way.
fn bad_text(path: &Path) {
    let h =
        Header::new(Dtype::from_typestr("<U1").expect("dtype"), vec![3], false).expect("header");
    let mut bytes = header_bytes(&h);
    for cp in [0x41u32, 0x11_0000, 0x42] {
        bytes.extend_from_slice(&cp.to_le_bytes());
    }
    std::fs::write(path, bytes).expect("write");
}

/// An `<f8` file of 4 rows whose payload stops 3 bytes short: every conversion fails.
fn short(path: &Path) {
    good(path, 4);
    let mut bytes = std::fs::read(path).expect("read");
    bytes.truncate(bytes.len() - 3);
    std::fs::write(path, bytes).expect("write");
}

/// The conversion failed as the input's refusal: exit 1 (also for a `U` value that the
/// output's UTF-8 text cannot hold: `bad-payload`, found while writing the output).
fn refused(r: &std::process::Output, args: &[&Path]) {
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1), "{args:?}: {stderr}");
}

/// Names in `d` other than `keep`: a temporary file left behind would show here.
fn litter(d: &Path, keep: &[&str]) -> Vec<String> {
    std::fs::read_dir(d)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect()
}

#[test]
fn the_output_is_never_the_input() {
    let d = dir("same");
    let (a, link) = (d.join("a.npy"), d.join("link.npy"));
    good(&a, 100);
    symlink(&a, &link).expect("symlink");
    let before = std::fs::read(&a).expect("read");
    for (inp, out) in [(&a, &a), (&a, &link), (&link, &a)] {
        for to in [None, Some("csv")] {
            let mut args: Vec<&Path> = vec![inp, Path::new("-o"), out];
            if let Some(t) = to {
                args.extend([Path::new("--to"), Path::new(t)]);
            }
            let r = convert(&args);
            assert_eq!(r.status.code(), Some(2), "{args:?}");
            assert!(String::from_utf8_lossy(&r.stderr).contains("the output is the input"));
            assert_eq!(std::fs::read(&a).expect("read"), before, "{args:?}");
        }
    }
    assert!(std::fs::symlink_metadata(&link)
        .expect("link")
        .file_type()
        .is_symlink());
    assert!(litter(&d, &["a.npy", "link.npy"]).is_empty());
}

#[test]
fn a_failure_leaves_the_destination_as_it_was() {
    let d = dir("fail");
    let (bad, cut, out, target, link) = (
        d.join("bad.npy"),
        d.join("cut.npy"),
        d.join("out.npy"),
        d.join("target.csv"),
        d.join("link.csv"),
    );
    bad_text(&bad);
    short(&cut);
    std::fs::write(&out, b"precious").expect("write");
    std::fs::write(&target, b"also precious").expect("write");
    symlink(&target, &link).expect("symlink");
    for (dest, to) in [
        (&out, None),
        (&out, Some("csv")),
        (&link, Some("csv")),
        (&link, Some("parquet")),
    ] {
        let input = if to.is_none() { &cut } else { &bad };
        let mut args: Vec<&Path> = vec![input, Path::new("-o"), dest];
        if let Some(t) = to {
            args.extend([Path::new("--to"), Path::new(t)]);
        }
        let r = convert(&args);
        refused(&r, &args);
    }
    assert_eq!(std::fs::read(&out).expect("read"), b"precious");
    assert_eq!(std::fs::read(&target).expect("read"), b"also precious");
    assert!(std::fs::symlink_metadata(&link)
        .expect("link")
        .file_type()
        .is_symlink());
    assert!(litter(
        &d,
        &["bad.npy", "cut.npy", "out.npy", "target.csv", "link.csv"]
    )
    .is_empty());
}

#[test]
fn a_full_disk_leaves_the_destination_as_it_was() {
    // RLIMIT_FSIZE of 8 KiB (SIGXFSZ ignored, so the write fails with EFBIG): the 80 KB
    // output cannot be written; the existing destination keeps its bytes.
    let d = dir("full");
    let (src, out) = (d.join("src.npy"), d.join("out.npy"));
    good(&src, 10_000);
    std::fs::write(&out, b"precious").expect("write");
    for to in ["", "--to csv", "--to arrow"] {
        let script = format!(
            "trap '' XFSZ; ulimit -f 16; exec '{}' convert '{}' -o '{}' {to}",
            env!("CARGO_BIN_EXE_npyguard"),
            s(&src),
            s(&out)
        );
        let r = Command::new("sh")
            .arg("-c")
            .arg(&script)
            .output()
            .expect("sh");
        assert_eq!(
            r.status.code(),
            Some(2),
            "{to}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        assert_eq!(std::fs::read(&out).expect("read"), b"precious", "{to}");
    }
    assert!(litter(&d, &["src.npy", "out.npy"]).is_empty());
}

#[test]
fn success_replaces_the_target_of_a_link_and_keeps_its_mode() {
    let d = dir("link");
    let (src, target, link) = (d.join("src.npy"), d.join("target.npy"), d.join("link.npy"));
    good(&src, 10);
    std::fs::write(&target, b"old").expect("write");
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    symlink(&target, &link).expect("symlink");
    let r = convert(&[&src, Path::new("-o"), &link]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(std::fs::symlink_metadata(&link)
        .expect("link")
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read(&target).expect("read"),
        std::fs::read(&src).expect("read")
    );
    let mode = std::fs::metadata(&target)
        .expect("meta")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
    assert!(litter(&d, &["src.npy", "target.npy", "link.npy"]).is_empty());
}

#[test]
fn streams_are_written_in_place_and_never_removed() {
    let d = dir("streams");
    let (src, bad, cut, fifo) = (
        d.join("src.npy"),
        d.join("bad.npy"),
        d.join("cut.npy"),
        d.join("fifo"),
    );
    good(&src, 1000);
    bad_text(&bad);
    short(&cut);
    let ok = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(ok.success());
    let want = std::fs::read(&src).expect("read");
    // `-`: standard output.
    let r = convert(&[&src, Path::new("-o"), Path::new("-")]);
    assert!(r.status.success());
    assert_eq!(r.stdout, want);
    // A FIFO, read by another thread; then a failing conversion into it.
    for (input, code) in [(&src, 0), (&cut, 1)] {
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).expect("read fifo"))
        };
        let r = convert(&[input, Path::new("-o"), &fifo]);
        assert_eq!(
            r.status.code(),
            Some(code),
            "{}",
            String::from_utf8_lossy(&r.stderr)
        );
        if code != 0 {
            // The failing input wrote nothing; open the FIFO once so the reader returns.
            drop(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&fifo)
                    .expect("open fifo"),
            );
        }
        let got = reader.join().expect("reader");
        if code == 0 {
            assert_eq!(got, want);
        }
        assert!(std::fs::symlink_metadata(&fifo)
            .expect("fifo")
            .file_type()
            .is_fifo());
    }
    // A device: written, still there.
    let r = convert(&[&src, Path::new("-o"), Path::new("/dev/null")]);
    assert!(r.status.success());
    assert!(Path::new("/dev/null").exists());
    let r = convert(&[
        &bad,
        Path::new("-o"),
        Path::new("/dev/null"),
        Path::new("--to"),
        Path::new("csv"),
    ]);
    refused(&r, &[&bad]);
    assert!(Path::new("/dev/null").exists());
    assert!(litter(&d, &["src.npy", "bad.npy", "cut.npy", "fifo"]).is_empty());
}

/// Parquet cannot hold rows without columns: an `(n, 0)` array is refused (exit 1, nothing
/// created) instead of written as a 0-row file; Arrow IPC keeps its n rows.
#[test]
fn rows_without_columns_are_refused_by_parquet_only() {
    let d = dir("n0");
    let (src, pq, ipc) = (d.join("n0.npy"), d.join("n0.parquet"), d.join("n0.arrow"));
    let a = NpyArray::from_vec(Vec::<f64>::new(), vec![5, 0]).expect("array");
    to_path(&src, &a.to_array()).expect("write");
    let r = convert(&[
        &src,
        Path::new("-o"),
        &pq,
        Path::new("--to"),
        Path::new("parquet"),
    ]);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("columns for Parquet to hold rows"));
    assert!(!pq.exists());
    let r = convert(&[
        &src,
        Path::new("-o"),
        &ipc,
        Path::new("--to"),
        Path::new("arrow"),
    ]);
    assert!(r.status.success());
    assert!(litter(&d, &["n0.npy", "n0.arrow"]).is_empty());
}
