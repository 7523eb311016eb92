//! The command line on a stream (a pipe on stdin: no length, no seeking) and the
//! `convert --to` paths a regular file does not take: every command must give a stream the
//! same answer it gives the same bytes in a file, and refuse what it cannot honour before
//! reading, with exit 2 and a message naming the flag.
#![cfg(feature = "cli-datasets")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use npyguard::write::to_vec;
use npyguard::{Endian, NpyArray, ReadOptions};

/// Runs the CLI with `args`, `stdin` piped in (the child sees a pipe, not a file).
fn run_with_stdin(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_npyguard"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run npyguard");
    let mut pipe = child.stdin.take().expect("stdin");
    let bytes = stdin.to_vec();
    // A command that refuses early closes its end: a broken pipe here is not a failure.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&bytes);
    });
    let out = child.wait_with_output().expect("wait for npyguard");
    writer.join().expect("stdin writer");
    out
}

fn run(args: &[&str]) -> Output {
    run_with_stdin(args, b"")
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("npyguard-cli-streams-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A 5x3 `<f4` array in Fortran order (so row reads gather) as `np.save` bytes, and its path.
fn sample() -> (Vec<u8>, PathBuf) {
    let values: Vec<f32> = (0..15).map(|i| i as f32 * 0.5 - 2.0).collect();
    let a = NpyArray::from_vec_with(values, vec![5, 3], true, Endian::Little).expect("array");
    let bytes = to_vec(&a.to_array()).expect("np.save bytes");
    let path = dir().join("sample.npy");
    std::fs::write(&path, &bytes).expect("write sample");
    (bytes, path)
}

#[test]
fn every_command_reads_a_pipe_as_it_reads_the_same_bytes_in_a_file() {
    let (bytes, file) = sample();
    let cases: &[&[&str]] = &[
        &["inspect"],
        &["inspect", "--json"],
        &["validate"],
        &["dump"],
        &["dump", "--json"],
        &["dump", "--rows", "1..4"],
        &["dump", "--json", "--rows", "3.."],
    ];
    for args in cases {
        let from_file = run(&[args, &[s(&file)][..]].concat());
        let from_pipe = run_with_stdin(&[args, &["/dev/stdin"][..]].concat(), &bytes);
        assert_eq!(
            from_file.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&from_file.stderr)
        );
        assert_eq!(
            from_pipe.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&from_pipe.stderr)
        );
        // Only the path differs (inspect and validate print it).
        let want = text(&from_file.stdout).replace(s(&file), "/dev/stdin");
        assert_eq!(text(&from_pipe.stdout), want, "{args:?}");
    }
}

#[test]
fn convert_from_a_pipe_writes_what_it_writes_from_a_file() {
    let (bytes, file) = sample();
    let d = dir();
    for (to, ext) in [
        (None, "npy"),
        (Some("csv"), "csv"),
        (Some("parquet"), "parquet"),
    ] {
        let mut outs = Vec::new();
        for (input, stdin) in [(s(&file), &b""[..]), ("/dev/stdin", &bytes[..])] {
            let out = d.join(format!("from-{}.{ext}", outs.len()));
            let mut args = vec!["convert", input, "-o", s(&out)];
            if let Some(to) = to {
                args.extend(["--to", to, "--batch-rows", "2"]);
            }
            let r = run_with_stdin(&args, stdin);
            assert_eq!(r.status.code(), Some(0), "{args:?}: {}", text(&r.stderr));
            outs.push(std::fs::read(&out).expect("output written"));
        }
        assert_eq!(
            outs[0], outs[1],
            "convert --to {to:?}: file and pipe outputs differ"
        );
    }
    // The .npy written from the pipe is np.save's bytes of the input.
    assert_eq!(std::fs::read(d.join("from-1.npy")).expect("npy"), bytes);
    // CSV rows are the array's logical rows, whatever its memory order.
    let csv = text(&std::fs::read(d.join("from-1.csv")).expect("csv"));
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("c1,c2,c3"));
    // Fortran order: element (0, j) is value 5j of the column-major data.
    assert_eq!(lines.next(), Some("-2.0,0.5,3.0"));
    assert_eq!(lines.count(), 4);
}

#[test]
fn row_lists_go_to_arrow_as_one_fixed_size_list_per_row() {
    use arrow_array::{Array, FixedSizeListArray, Float32Array};
    let (_, file) = sample();
    let out = dir().join("rowlists.arrow");
    let r = run(&[
        "convert",
        s(&file),
        "-o",
        s(&out),
        "--to",
        "arrow",
        "--layout",
        "rowlists",
    ]);
    assert_eq!(r.status.code(), Some(0), "{}", text(&r.stderr));
    let f = std::fs::File::open(&out).expect("arrow file");
    let reader = arrow_ipc::reader::FileReader::try_new(f, None).expect("an Arrow IPC file");
    let mut rows: Vec<Vec<f32>> = Vec::new();
    for batch in reader {
        let batch = batch.expect("batch");
        assert_eq!(batch.num_columns(), 1);
        let lists = batch
            .column(0)
            .as_any()
            .downcast_ref::<FixedSizeListArray>()
            .expect("a fixed-size list column");
        assert_eq!(lists.value_length(), 3);
        for i in 0..lists.len() {
            let row = lists.value(i);
            let row = row
                .as_any()
                .downcast_ref::<Float32Array>()
                .expect("f32 items");
            rows.push(row.values().to_vec());
        }
    }
    let want = npyguard::NpyArray::<f32>::read_path(&file, &ReadOptions::default())
        .expect("read")
        .into_c_order();
    assert_eq!(rows.concat(), want.data());
    assert_eq!(rows.len(), 5);
}

#[test]
fn dataset_flags_that_cannot_be_honoured_are_refused_before_the_input_is_read() {
    // The input does not exist: a refusal that read it would say so instead.
    let missing = dir().join("never-read.npy");
    let out = dir().join("never-written.csv");
    let cases: &[(&[&str], &str)] = &[
        (
            &["--to", "csv", "--layout", "rowlists"],
            "CSV has no list type",
        ),
        (
            &["--to", "parquet", "--c-order"],
            "--c-order applies to .npy output",
        ),
        (
            &["--to", "csv", "--batch-rows", "0"],
            "expected a positive number of rows",
        ),
        (&["--member", "a"], "--member applies to .npz input only"),
    ];
    for (flags, says) in cases {
        let input = if flags[0] == "--member" {
            sample().1
        } else {
            missing.clone()
        };
        let mut args = vec!["convert", s(&input), "-o", s(&out)];
        args.extend_from_slice(flags);
        let r = run(&args);
        assert_eq!(r.status.code(), Some(2), "{flags:?}: {}", text(&r.stderr));
        assert!(
            text(&r.stderr).contains(says),
            "{flags:?}: {}",
            text(&r.stderr)
        );
        assert!(!out.exists(), "{flags:?} wrote an output");
    }
}

#[test]
fn a_truncated_input_is_the_inputs_error_and_leaves_no_dataset_behind() {
    let (bytes, _) = sample();
    // Whole rows of the first batch are present; the file ends inside the third row.
    let cut = &bytes[..bytes.len() - 20];
    let d = dir();
    for (name, input, stdin) in [("file", "", &b""[..]), ("pipe", "/dev/stdin", cut)] {
        let path = d.join(format!("cut-{name}.npy"));
        std::fs::write(&path, cut).expect("write");
        let input = if input.is_empty() { s(&path) } else { input };
        for to in ["parquet", "arrow", "csv"] {
            let out = d.join(format!("cut-{name}.{to}"));
            let args = [
                "convert",
                input,
                "-o",
                s(&out),
                "--to",
                to,
                "--batch-rows",
                "1",
            ];
            let r = run_with_stdin(&args, stdin);
            let err = text(&r.stderr);
            assert_eq!(r.status.code(), Some(1), "{name} --to {to}: {err}");
            assert!(
                err.contains("truncated") || err.contains("more payload bytes"),
                "{err}"
            );
            assert!(
                !out.exists(),
                "{name} --to {to}: a partial dataset was left"
            );
        }
    }
}

#[test]
fn an_output_that_cannot_be_created_is_exit_2_naming_it() {
    let (_, file) = sample();
    let out = dir().join("no-such-dir").join("x.parquet");
    for to in [None, Some("parquet")] {
        let mut args = vec!["convert", s(&file), "-o", s(&out)];
        if let Some(to) = to {
            args.extend(["--to", to]);
        }
        let r = run(&args);
        assert_eq!(r.status.code(), Some(2), "{to:?}: {}", text(&r.stderr));
        assert!(text(&r.stderr).contains(s(&out)), "{}", text(&r.stderr));
    }
}

#[test]
fn an_archive_where_a_npy_is_needed_is_refused_by_name() {
    let z = dir().join("one.npz");
    let a = NpyArray::from_vec(vec![1u8, 2, 3], vec![3])
        .expect("array")
        .to_array();
    npyguard::npz::savez_path(&z, &[("a", &a)]).expect("savez");
    let r = run(&["dump", "--rows", "0..1", s(&z)]);
    assert_eq!(r.status.code(), Some(2), "{}", text(&r.stderr));
    assert!(
        text(&r.stderr).contains("--rows applies to a .npy file"),
        "{}",
        text(&r.stderr)
    );
}

#[test]
fn diff_of_standard_input_with_itself_is_a_usage_error() {
    // Both sides read the one stdin: the second side saw the first's payload ("found
    // version 100.101", exit 1) where the call itself is wrong (exit 2).
    let npy = npyguard::write::to_vec(
        &npyguard::NpyArray::from_vec(vec![1.0f64, 2.0], vec![2])
            .unwrap()
            .to_array(),
    )
    .unwrap();
    let out = run_with_stdin(&["diff", "-", "-"], &npy);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("both standard input"), "{stderr}");
}
