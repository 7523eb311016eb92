//! Hostile input for the layers above the reader (issue 14): every consumer of a validated
//! header is bounded by the bytes present, every path is opened once, and the command
//! line's exit codes say whose fault a failure is. Every file is built here.
//!
//! Each command runs as a child process under a watchdog: one that has not finished after
//! 120 s is killed and the test fails (an unbounded loop is a failure, not a slow run; no
//! speed is asserted). Output is captured and its size checked: gigabytes of `[]` lines
//! are what these files used to produce.
#![cfg(feature = "cli-datasets")]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use npyguard::compare::{compare, CompareOptions};
use npyguard::render::{values, Style};
use npyguard::{read_bytes, ErrorKind, ReadOptions};

/// Killing a child after this long fails the test (a hang, not a slow run).
const WATCHDOG: Duration = Duration::from_secs(120);
/// The most output any command here may print.
const MAX_OUTPUT: usize = 1 << 20;

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the CLI with `args`, killing it after [`WATCHDOG`] and reading at most
/// [`MAX_OUTPUT`] + 1 bytes of its output.
fn run(args: &[&str]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_npyguard"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run npyguard");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = (&mut stdout)
            .take(MAX_OUTPUT as u64 + 1)
            .read_to_end(&mut buf);
        buf
    });
    let err = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = (&mut stderr)
            .take(MAX_OUTPUT as u64 + 1)
            .read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > WATCHDOG {
            let _ = child.kill();
            panic!("npyguard {args:?} did not finish within {WATCHDOG:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    assert!(
        out.len() <= MAX_OUTPUT && err.len() <= MAX_OUTPUT,
        "npyguard {args:?} printed more than {MAX_OUTPUT} bytes"
    );
    Run {
        code: status.code(),
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
    }
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("npyguard-hostile-layers-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// A version 1.0 `.npy` of `header` (a dict literal) and `payload`, padded as NumPy pads.
fn npy(header: &str, payload: &[u8]) -> Vec<u8> {
    let mut text = header.to_string();
    text.push_str(&" ".repeat(63 - (10 + header.len()) % 64));
    text.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(text.len() as u16).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(payload);
    out
}

fn zero_size(descr: &str, shape: &str) -> Vec<u8> {
    npy(
        &format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"),
        b"",
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

// ----------------------------------------------------------------- class 1: zero-size --

/// (file name, shape, whether `dump --json` can print it: `tolist()` of shape (0, n) is `[]`).
const ZERO_SIZE: &[(&str, &str, bool)] = &[
    ("rows_2p40.npy", "(1099511627776, 0)", false),
    ("cols_2p60.npy", "(0, 1152921504606846976)", true),
    ("cols_4e6.npy", "(0, 4000000)", true),
    ("deep.npy", "(65536, 65536, 0)", false),
];

#[test]
fn zero_size_arrays_with_huge_dimensions_are_bounded_in_every_command() {
    for &(name, shape, json_prints) in ZERO_SIZE {
        let bytes = zero_size("|u1", shape);
        assert!(bytes.len() <= 128, "{name}");
        let p = write(name, &bytes);
        // The reader accepts what NumPy loads.
        assert_eq!(run(&["validate", s(&p)]).code, Some(0), "{name}");
        assert_eq!(run(&["inspect", s(&p)]).code, Some(0), "{name}");
        // Text: NumPy's picture of an empty array, whatever its shape.
        let text = run(&["dump", s(&p)]);
        assert_eq!(text.code, Some(0), "{name}: {}", text.stderr);
        assert!(
            text.stdout.starts_with("array([], "),
            "{name}: {}",
            text.stdout
        );
        assert!(
            text.stdout.contains(&format!("shape={shape}")),
            "{name}: {}",
            text.stdout
        );
        // JSON: tolist() is printed when it is small, else refused as unbacked (exit 1).
        let json = run(&["dump", "--json", s(&p)]);
        if json_prints {
            assert_eq!(json.code, Some(0), "{name}: {}", json.stderr);
            assert!(
                json.stdout.contains("\"data\": []"),
                "{name}: {}",
                json.stdout
            );
        } else {
            assert_eq!(json.code, Some(1), "{name}");
            assert!(
                json.stderr.contains("unbacked-output"),
                "{name}: {}",
                json.stderr
            );
        }
        // Datasets: bounded or refused with the typed limit error, never a panic (101).
        for to in ["csv", "arrow", "parquet"] {
            let out = dir().join(format!("{name}.{to}"));
            let r = run(&["convert", s(&p), "-o", s(&out), "--to", to]);
            assert!(
                matches!(r.code, Some(0 | 1)),
                "{name} --to {to}: {:?} {}",
                r.code,
                r.stderr
            );
            if r.code == Some(1) {
                // The typed limit error, or (3-D) the table layouts' shape refusal.
                assert!(
                    r.stderr.contains("unbacked-output") || r.stderr.contains("0-, 1- or 2-D"),
                    "{name} --to {to}: {}",
                    r.stderr
                );
            } else {
                assert!(std::fs::metadata(&out).unwrap().len() <= MAX_OUTPUT as u64);
            }
        }
        // Compare with itself: equal, without visiting what no byte backs.
        assert_eq!(run(&["diff", s(&p), s(&p)]).code, Some(0), "{name}");
    }
}

#[test]
fn the_library_layers_refuse_unbacked_work_with_a_typed_error() {
    let opts = ReadOptions::default();
    let rows = read_bytes(&zero_size("|u1", "(1099511627776, 0)"), &opts).unwrap();
    let cols = read_bytes(&zero_size("|u1", "(0, 1152921504606846976)"), &opts).unwrap();
    for a in [&rows, &cols] {
        for layout in [
            npyguard::arrow::Layout::Columns,
            npyguard::arrow::Layout::NonZeros,
        ] {
            let e = npyguard::arrow::Dataset::new(a.clone(), layout).unwrap_err();
            assert_eq!(
                e.kind(),
                ErrorKind::Unbacked,
                "{:?} {layout:?}: {e}",
                a.shape()
            );
        }
        // The conversions that bypass Dataset::new are bounded too.
        let e = npyguard::arrow::nonzeros(a).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unbacked, "{e}");
        let e = npyguard::arrow::csr(a).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::Unbacked | ErrorKind::ShapeOverflow),
            "{e}"
        );
        assert!(compare(a, a, &CompareOptions::exact()).unwrap().is_equal());
        assert_eq!(values(a, Style::Text { summarise: false }).unwrap(), "[]");
        let nd = a
            .clone()
            .into_typed::<u8>()
            .unwrap()
            .into_ndarray()
            .unwrap();
        assert_eq!(nd.shape(), a.shape());
    }
    assert_eq!(values(&cols, Style::Json).unwrap(), "[]");
    assert_eq!(
        values(&rows, Style::Json).unwrap_err().kind(),
        ErrorKind::Unbacked
    );
    // Up to the allowance, unbacked rows are still produced (65 536 empty lists).
    let some = read_bytes(&zero_size("|u1", "(65535, 0)"), &opts).unwrap();
    assert_eq!(
        values(&some, Style::Json).unwrap().matches("[]").count(),
        65535
    );
}

#[test]
fn records_of_item_size_zero_dump_and_diff_as_numpy_prints_them() {
    // Three records of one empty subarray field: NumPy prints [([],) ([],) ([],)].
    let small = npy(
        "{'descr': [('a', '<f8', (0,))], 'fortran_order': False, 'shape': (3,), }",
        b"",
    );
    let p = write("records0.npy", &small);
    assert_eq!(run(&["validate", s(&p)]).code, Some(0));
    let text = run(&["dump", s(&p)]);
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    assert!(
        text.stdout.contains("[([],), ([],), ([],)]"),
        "{}",
        text.stdout
    );
    let json = run(&["dump", "--json", s(&p)]);
    assert_eq!(json.code, Some(0), "{}", json.stderr);
    assert!(
        json.stdout.contains("\"data\": [[[]], [[]], [[]]]"),
        "{}",
        json.stdout
    );
    assert_eq!(run(&["diff", s(&p), s(&p)]).code, Some(0));
    // 2^40 of them: summarised text prints six; diff compares without visiting each.
    let huge = npy(
        "{'descr': [('a', '<f8', (0,))], 'fortran_order': False, 'shape': (1099511627776,), }",
        b"",
    );
    let p = write("records0_huge.npy", &huge);
    assert_eq!(run(&["dump", s(&p)]).code, Some(0));
    assert_eq!(run(&["diff", s(&p), s(&p)]).code, Some(0));
    assert_eq!(run(&["dump", "--json", s(&p)]).code, Some(1));
    // Empty lists inside each record count too: 4 records x 65 536 empty lists.
    let lists = npy(
        "{'descr': [('a', '<f8', (65536, 0))], 'fortran_order': False, 'shape': (4,), }",
        b"",
    );
    let p = write("records0_lists.npy", &lists);
    let r = run(&["dump", "--json", s(&p)]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("unbacked-output"), "{}", r.stderr);
}

// ---------------------------------------------------------------- class 4: special files --

#[test]
fn a_fifo_is_read_once_and_not_waited_on() {
    let fifo = dir().join("x.npy");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let bytes = npyguard::write::to_vec(
        &npyguard::NpyArray::from_vec(vec![1.5f64, 2.5], vec![2])
            .unwrap()
            .to_array(),
    )
    .unwrap();
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || {
        // Opening for writing blocks until the reader opens; then the bytes go once.
        std::fs::write(&writer_path, &bytes).unwrap();
    });
    let r = run(&["validate", s(&fifo)]);
    writer.join().unwrap();
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    // An archive must be seekable: refused at once, exit 2.
    let fifo_z = dir().join("y.npz");
    let _ = std::fs::remove_file(&fifo_z);
    assert!(Command::new("mkfifo")
        .arg(&fifo_z)
        .status()
        .unwrap()
        .success());
    let writer_path = fifo_z.clone();
    let writer = std::thread::spawn(move || {
        let _ = std::fs::write(&writer_path, b"PK\x05\x06");
    });
    let r = run(&["validate", s(&fifo_z)]);
    writer.join().unwrap();
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("seekable"), "{}", r.stderr);
}

#[test]
fn os_errors_are_exit_2_with_the_path_and_the_os_message_and_no_offset() {
    let d = dir().join("x.npz");
    std::fs::create_dir_all(&d).unwrap();
    let missing = dir().join("missing.npy");
    for (path, says) in [(&d, "is a directory"), (&missing, "No such file")] {
        for cmd in ["validate", "inspect", "dump"] {
            let r = run(&[cmd, s(path)]);
            assert_eq!(r.code, Some(2), "{cmd} {}: {}", path.display(), r.stderr);
            assert!(
                r.stderr.contains(s(path)) && r.stderr.contains(says),
                "{}",
                r.stderr
            );
            assert!(!r.stderr.contains("at byte"), "{}", r.stderr);
        }
    }
}

// ----------------------------------------------------------------- class 5: CLI contract --

#[test]
fn inspect_honours_every_limit_it_accepts() {
    let a = npyguard::NpyArray::from_vec(vec![0u8; 1000], vec![1000])
        .unwrap()
        .to_array();
    let file = npyguard::write::to_vec(&a).unwrap();
    let p = write("thousand.npy", &file);
    let n = file.len().to_string();
    let less = (file.len() - 1).to_string();
    assert_eq!(
        run(&["inspect", "--max-file-bytes", &n, s(&p)]).code,
        Some(0)
    );
    let r = run(&["inspect", "--max-file-bytes", &less, s(&p)]);
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.contains("file-too-large"), "{}", r.stderr);
    // Truncation and trailing bytes are visible from the length alone.
    let cut = write("cut.npy", &file[..file.len() - 1]);
    assert_eq!(run(&["inspect", s(&cut)]).code, Some(1));
    let mut more = file.clone();
    more.push(0);
    let long = write("long.npy", &more);
    assert_eq!(run(&["inspect", s(&long)]).code, Some(1));
    assert_eq!(
        run(&["inspect", "--allow-trailing-bytes", s(&long)]).code,
        Some(0)
    );
    // In an archive: each member's declared size, the ratio, the total.
    let z =
        npyguard::npz::savez_compressed(std::io::Cursor::new(Vec::new()), &[("a", &a), ("b", &a)])
            .unwrap()
            .into_inner();
    let zp = write("two.npz", &z);
    assert_eq!(run(&["inspect", s(&zp)]).code, Some(0));
    for limit in [
        vec!["--max-file-bytes", &less],
        vec!["--max-total-bytes", &n],
        vec!["--max-ratio", "2"],
    ] {
        let mut args = vec!["inspect"];
        args.extend(limit.iter().copied());
        args.push(s(&zp));
        let r = run(&args);
        assert_eq!(r.code, Some(1), "{limit:?}: {}", r.stderr);
        // validate refuses the same archive under the same limit.
        args[0] = "validate";
        assert_eq!(run(&args).code, Some(1), "validate {limit:?}");
    }
}

#[test]
fn convert_keeps_bool_bytes_as_np_save_writes_them() {
    let file = npy(
        "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }",
        b"\x02\xff\x00\x01",
    );
    let p = write("bools.npy", &file);
    let out = dir().join("bools_out.npy");
    assert_eq!(run(&["convert", s(&p), "-o", s(&out)]).code, Some(0));
    assert_eq!(std::fs::read(&out).unwrap(), file);
    let json = run(&["dump", "--json", s(&p)]);
    assert!(
        json.stdout.contains("[true, true, false, true]"),
        "{}",
        json.stdout
    );
}

#[test]
fn a_deflate_stream_of_zero_or_one_byte_is_exit_1() {
    let a = npyguard::NpyArray::from_vec(vec![1u8], vec![1])
        .unwrap()
        .to_array();
    let z = npyguard::npz::savez_compressed(std::io::Cursor::new(Vec::new()), &[("a", &a)])
        .unwrap()
        .into_inner();
    // Cut the member's deflate stream to 0 and 1 bytes, the sizes and offsets made to fit.
    for keep in [0usize, 1] {
        let bytes = with_compressed_len(&z, keep);
        let p = write(&format!("deflate{keep}.npz"), &bytes);
        for cmd in ["validate", "dump"] {
            let r = run(&[cmd, s(&p)]);
            assert_eq!(
                r.code,
                Some(1),
                "{cmd}, {keep} bytes: {}{}",
                r.stdout,
                r.stderr
            );
        }
    }
}

/// `z` (one deflated member written by `savez_compressed`, zip64 extra fields) with the
/// member's compressed data cut to `keep` bytes and every size and offset adjusted.
fn with_compressed_len(z: &[u8], keep: usize) -> Vec<u8> {
    let u16at = |b: &[u8], i: usize| u16::from_le_bytes(b[i..i + 2].try_into().unwrap()) as usize;
    let (name_len, extra_len) = (u16at(z, 26), u16at(z, 28));
    let data_at = 30 + name_len + extra_len;
    let end = z.len() - 22;
    let cd = u32::from_le_bytes(z[end + 16..end + 20].try_into().unwrap()) as usize;
    let old = cd - data_at;
    let mut out = z[..data_at + keep].to_vec();
    out.extend_from_slice(&z[cd..]);
    let shift = old - keep;
    // Local zip64 field: size (8) then compressed size (8), after the 4-byte field header.
    let z64 = 30 + name_len + 4 + 8;
    out[z64..z64 + 8].copy_from_slice(&(keep as u64).to_le_bytes());
    // Central entry: compressed size at +20 (32-bit; zip64 only when saturated).
    let c = data_at + keep;
    let csize = u32::from_le_bytes(out[c + 20..c + 24].try_into().unwrap());
    if csize != u32::MAX {
        out[c + 20..c + 24].copy_from_slice(&(keep as u32).to_le_bytes());
    } else {
        let cz = c + 46 + u16at(&out, c + 28) + 4 + 8;
        out[cz..cz + 8].copy_from_slice(&(keep as u64).to_le_bytes());
    }
    let e = out.len() - 22;
    let new_cd = (cd - shift) as u32;
    out[e + 16..e + 20].copy_from_slice(&new_cd.to_le_bytes());
    out
}

#[test]
fn record_text_fields_hold_what_numpy_holds() {
    // A record whose `U` field holds 0xd800 (a lone surrogate): NumPy reads it (np.save
    // writes such strings), and so does npyguard (issue 32); only a conversion to UTF-8
    // text refuses it, naming the unit and the element.
    let h = "{'descr': [('n', '<u2'), ('s', '<U1')], 'fortran_order': False, 'shape': (2,), }";
    let good = npy(h, b"\x01\x00A\x00\x00\x00\x02\x00B\x00\x00\x00");
    let bad = npy(h, b"\x01\x00A\x00\x00\x00\x02\x00\x00\xd8\x00\x00");
    let opts = ReadOptions::default();
    let a = read_bytes(&good, &opts).unwrap();
    let b = read_bytes(&bad, &opts).unwrap();
    assert!(compare(&b, &b, &CompareOptions::exact())
        .unwrap()
        .is_equal());
    assert!(!compare(&a, &b, &CompareOptions::exact())
        .unwrap()
        .is_equal());
    let s_field = b.field("s").unwrap();
    assert_eq!(s_field.units_at(1), Some(&[0xd800][..]));
    let e = s_field.str_at(1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadPayload, "{e}");
    assert!(e.to_string().contains("0x0000d800 in element 1"), "{e}");
    let p = write("record_text.npy", &bad);
    for cmd in ["validate", "dump"] {
        assert_eq!(run(&[cmd, s(&p)]).code, Some(0), "{cmd}");
    }
    assert_eq!(run(&["diff", s(&p), s(&p)]).code, Some(0));
    // Built in code: `Array::new` takes the same bytes.
    let header = a.header().clone();
    let raw = bad[bad.len() - 12..].to_vec();
    assert!(npyguard::Array::new(header, npyguard::ArrayData::Record(raw.into())).is_ok());
}

/// An archive of one deflated member `bomb.npy`: 128 MiB of `u1` zeros declared honestly,
/// at a ratio over the default limit of 1000 (about 1030: deflate's ceiling on zeros). The
/// deflate stream is one compressed MiB of zeros repeated (each piece ends on a full
/// flush, so pieces join), so building it takes no 128 MiB compression.
fn declared_bomb() -> Vec<u8> {
    use flate2::{Compress, Compression, FlushCompress};
    const PIECES: usize = 128;
    let zeros = vec![0u8; 1 << 20];
    let header = npy(
        &format!(
            "{{'descr': '|u1', 'fortran_order': False, 'shape': ({},), }}",
            PIECES << 20
        ),
        b"",
    );
    let deflate = |data: &[u8]| {
        let mut c = Compress::new(Compression::best(), false);
        let mut out = Vec::with_capacity(data.len() + 1024);
        c.compress_vec(data, &mut out, FlushCompress::Full).unwrap();
        out
    };
    let mut stream = deflate(&header);
    let piece = deflate(&zeros);
    for _ in 0..PIECES {
        stream.extend_from_slice(&piece);
    }
    stream.extend_from_slice(&[0x01, 0x00, 0x00, 0xff, 0xff]); // a final, empty stored block
    let mut crc = crc32fast::Hasher::new();
    crc.update(&header);
    for _ in 0..PIECES {
        crc.update(&zeros);
    }
    zip_one::zip_one(&zip_one::OneMember {
        name: b"bomb.npy",
        method: 8,
        crc: crc.finalize(),
        size: u32::try_from(header.len() + (PIECES << 20)).unwrap(),
        data: &stream,
        header_offset: 0,
        central_extra: b"",
    })
}

#[path = "../common/zip_one.rs"]
mod zip_one;

#[test]
fn every_command_refuses_a_member_declared_over_the_ratio_before_inflating_it() {
    // Under a 64 MiB address-space limit (util-linux's prlimit), inflating the 128 MiB
    // member first ends in out-of-memory (dump, convert and diff did); refused by what it
    // declares, it ends in compression-ratio at once, in every command.
    let zip = write("declared_bomb.npz", &declared_bomb());
    let out = dir().join("declared_bomb_out.npy");
    let commands: [Vec<&str>; 5] = [
        vec!["inspect", s(&zip)],
        vec!["validate", s(&zip)],
        vec!["dump", s(&zip)],
        vec!["diff", s(&zip), s(&zip)],
        vec!["convert", s(&zip), "--member", "bomb", "-o", s(&out)],
    ];
    for args in commands {
        let bin = env!("CARGO_BIN_EXE_npyguard");
        let done = Command::new("prlimit")
            .arg(format!("--as={}", 64u64 << 20))
            .arg(bin)
            .args(&args)
            .output()
            .expect("prlimit (util-linux) runs");
        // validate reports on stdout, the others on stderr.
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&done.stdout),
            String::from_utf8_lossy(&done.stderr)
        );
        assert_eq!(done.status.code(), Some(1), "{args:?}: {said}");
        assert!(said.contains("compression-ratio"), "{args:?}: {said}");
    }
    assert!(!out.exists());
}
