//! Commands that need no payload in memory run in bounded memory on an endless stream: a
//! pipe whose header claims 1 TiB, then zeros for as long as the command reads. `validate`
//! keeps no payload, `dump --rows 0..1` keeps one row (both must still read to the end to
//! refuse what a whole read refuses, so the stream is checked and dropped as it passes).
//! The peak resident memory (VmHWM) after a few seconds of reading stays under 32 MiB.
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
