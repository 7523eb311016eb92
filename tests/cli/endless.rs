//! Commands that need no payload in memory run in bounded memory on an endless stream: a
//! pipe whose header claims 1 TiB, then zeros for as long as the command reads. `validate`
//! keeps no payload, `dump --rows 0..1` keeps one row (both must still read to the end to
//! refuse what a whole read refuses, so the stream is checked and dropped as it passes).
//! The peak resident memory (VmHWM) after a few seconds of reading stays under 32 MiB.
//! `validate` of a 65 536-member archive stays under 40 MiB even in a debug build (26.4 MiB
//! in a release build; it took 130 MiB: a JSON value tree per member).
#![cfg(all(feature = "cli", target_os = "linux"))]

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use npyguard::write::header_bytes;
use npyguard::{Dtype, Header};

/// Peak resident set of `pid` in KiB (VmHWM).
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Runs the CLI on an endless stream for `seconds`; returns (peak KiB, bytes it consumed).
fn peak_on_endless_stream(args: &[&str], seconds: u64) -> (u64, u64) {
    // 2**37 little-endian f8 = 1 TiB of payload claimed.
    let header = Header::new(Dtype::from_typestr("<f8").unwrap(), vec![1 << 37], false).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_npyguard"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run npyguard");
    let mut stdin = child.stdin.take().expect("stdin");
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicU64::new(0));
    let feeder = {
        let (stop, sent) = (stop.clone(), sent.clone());
        std::thread::spawn(move || {
            let zeros = vec![0u8; 1 << 20];
            if stdin.write_all(&header_bytes(&header)).is_err() {
                return;
            }
            while !stop.load(Ordering::Relaxed) {
                if stdin.write_all(&zeros).is_err() {
                    return;
                }
                sent.fetch_add(zeros.len() as u64, Ordering::Relaxed);
            }
        })
    };
    let start = Instant::now();
    let mut peak = 0;
    while start.elapsed() < Duration::from_secs(seconds) {
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            child.try_wait().expect("poll").is_none(),
            "{args:?} ended early"
        );
        peak = peak.max(peak_kib(child.id()));
    }
    peak = peak.max(peak_kib(child.id()));
    let _ = child.kill();
    let _ = child.wait();
    stop.store(true, Ordering::Relaxed);
    let _ = feeder.join();
    (peak, sent.load(Ordering::Relaxed))
}

#[test]
fn validate_and_dump_rows_of_an_endless_stream_stay_under_32_mib() {
    for args in [&["validate", "-"][..], &["dump", "--rows", "0..1", "-"][..]] {
        let (peak, sent) = peak_on_endless_stream(args, 3);
        eprintln!("{args:?}: peak {peak} KiB after reading {} MiB", sent >> 20);
        assert!(peak > 0, "{args:?}: no VmHWM read");
        // The stream was really consumed (at least 64 MiB): memory did not stay low by
        // the command blocking.
        assert!(sent > 64 << 20, "{args:?}: only {sent} bytes read");
        assert!(peak < 32 << 10, "{args:?}: peak {peak} KiB");
    }
}

/// Runs the CLI to its end, polling its peak resident set; returns (peak KiB, exit code).
fn peak_of_run(args: &[&str]) -> (u64, Option<i32>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_npyguard"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run npyguard");
    let mut peak = 0;
    loop {
        // VmHWM only grows: the last read before the exit holds nearly all of it.
        peak = peak.max(peak_kib(child.id()));
        if let Some(status) = child.try_wait().expect("poll") {
            return (peak, status.code());
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn validate_of_a_65536_member_archive_stays_small() {
    use npyguard::npz::savez_path;
    use npyguard::NpyArray;
    let dir = std::env::temp_dir().join(format!("npyguard-cli-members-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let many = dir.join("many.npz");
    let a = NpyArray::from_vec(vec![7u8], vec![1])
        .expect("array")
        .to_array();
    let names: Vec<String> = (0..65_536).map(|i| format!("a{i}")).collect();
    let members: Vec<(&str, &npyguard::Array)> = names.iter().map(|n| (n.as_str(), &a)).collect();
    savez_path(&many, &members).expect("write archive");
    let (peak, code) = peak_of_run(&["validate", "--json", many.to_str().expect("utf-8")]);
    assert_eq!(code, Some(0));
    eprintln!("validate: 65 536 members {peak} KiB");
    // Measured: 26.4 MiB with a release build, 32-33 MiB with a debug one (whose binary
    // alone maps more); the JSON value tree per member took about 130 MiB. A baseline run
    // of a one-member archive is too short for the poll to see its peak, so the bound is
    // absolute.
    assert!(peak > 0, "no VmHWM read");
    assert!(peak < 40 << 10, "65 536 members: {peak} KiB");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `dump` must hold the payload: on an endless stream under a 1.5 GB address-space limit (a
/// container's memory limit) it stops with a typed `out-of-memory` error (exit 1) when the
/// allocator refuses to grow the payload, instead of aborting (SIGABRT, "memory allocation
/// of 4294967296 bytes failed").
#[test]
fn running_out_of_memory_is_a_typed_error() {
    let header = Header::new(Dtype::from_typestr("<f8").unwrap(), vec![1 << 37], false).unwrap();
    let script = format!(
        "ulimit -v 1500000; exec '{}' dump -",
        env!("CARGO_BIN_EXE_npyguard")
    );
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh");
    let mut stdin = child.stdin.take().expect("stdin");
    let feeder = std::thread::spawn(move || {
        let zeros = vec![0u8; 1 << 20];
        if stdin.write_all(&header_bytes(&header)).is_err() {
            return;
        }
        // At most 4 GiB: the command must have stopped long before.
        for _ in 0..4096 {
            if stdin.write_all(&zeros).is_err() {
                return;
            }
        }
    });
    let out = child.wait_with_output().expect("wait");
    let _ = feeder.join();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("out-of-memory"), "{stderr}");
}
