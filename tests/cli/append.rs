//! `npyguard append DST SRC...`: the grown file is np.save's bytes for the concatenation;
//! every SRC is checked before DST is touched; exit codes as the other commands.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use npyguard::write::{header_bytes, to_path, to_vec};
use npyguard::{read_bytes, Array, Dtype, Endian, Header, NpyArray, ReadOptions};

fn run(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_npyguard"))
        .arg("append")
        .args(args)
        .output()
        .expect("run npyguard")
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("npyguard-cli-append-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn rows(values: Vec<f32>, shape: Vec<usize>, e: Endian) -> Array {
    NpyArray::from_vec_with(values, shape, false, e)
        .unwrap()
        .to_array()
}

#[test]
fn append_writes_np_save_bytes_of_the_concatenation() {
    let d = dir("ok");
    let (dst, a, b) = (d.join("dst.npy"), d.join("a.npy"), d.join("b.npy"));
    to_path(&dst, &rows(vec![1.0, 2.0], vec![1, 2], Endian::Little)).unwrap();
    to_path(&a, &rows(vec![3.0, 4.0, 5.0, 6.0], vec![2, 2], Endian::Big)).unwrap();
    // A Fortran-order source: appended in logical (row) order.
    let f = rows(vec![7.0, 8.0, 9.0, 10.0], vec![2, 2], Endian::Little).to_fortran_order();
    to_path(&b, &f).unwrap();
    let out = run(&[&dst, &a, &b, Path::new("--fsync")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("shape (5, 2)"));
    let want = rows(
        vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
        vec![5, 2],
        Endian::Little,
    );
    assert_eq!(std::fs::read(&dst).unwrap(), to_vec(&want).unwrap());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn every_source_is_checked_before_dst_is_written() {
    let d = dir("check");
    let (dst, good, bad) = (d.join("dst.npy"), d.join("good.npy"), d.join("bad.npy"));
    to_path(&dst, &rows(vec![1.0, 2.0], vec![1, 2], Endian::Little)).unwrap();
    to_path(&good, &rows(vec![3.0, 4.0], vec![1, 2], Endian::Little)).unwrap();
    let before = std::fs::read(&dst).unwrap();

    to_path(&bad, &rows(vec![3.0, 4.0, 5.0], vec![1, 3], Endian::Little)).unwrap();
    let out = run(&[&dst, &good, &bad]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.npy") && err.contains("[1, 3]"), "{err}");
    assert_eq!(std::fs::read(&dst).unwrap(), before);

    let ints = NpyArray::from_vec(vec![1i32, 2], vec![1, 2])
        .unwrap()
        .to_array();
    to_path(&bad, &ints).unwrap();
    let out = run(&[&dst, &good, &bad]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("type-mismatch"));
    assert_eq!(std::fs::read(&dst).unwrap(), before);

    let out = run(&[&dst, &good, &d.join("missing.npy")]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&dst).unwrap(), before);

    // A Fortran DST is refused (exit 1), as is a truncated one.
    let fd = d.join("fortran.npy");
    to_path(
        &fd,
        &rows(vec![1.0, 2.0, 3.0, 4.0], vec![2, 2], Endian::Little).to_fortran_order(),
    )
    .unwrap();
    assert_eq!(run(&[&fd, &good]).status.code(), Some(1));
    std::fs::write(&fd, &before[..before.len() - 1]).unwrap();
    assert_eq!(run(&[&fd, &good]).status.code(), Some(1));
    std::fs::remove_dir_all(&d).unwrap();
}

/// A DST as NumPy < 1.24 wrote it (no growth space: appending 1 row to its 9 needs 64
/// header bytes more) and a SRC of one row: (dst bytes, src bytes).
fn full_header_pair() -> (Vec<u8>, Vec<u8>) {
    let (h, total) = (1..40)
        .find_map(|ones| {
            let h =
                Header::new(Dtype::Bytes(1), [&[9][..], &vec![1; ones]].concat(), false).ok()?;
            let total = (10 + h.to_dict_text().len() + 1).div_ceil(64) * 64;
            let mut grown = h.shape().to_vec();
            grown[0] = 10;
            let grown = Header::new(Dtype::Bytes(1), grown, false).ok()?;
            (header_bytes(&grown).len() > total).then_some((h, total))
        })
        .expect("a shape whose grown header needs 64 more bytes");
    let text = h.to_dict_text();
    let mut file = b"\x93NUMPY\x01\x00".to_vec();
    file.extend_from_slice(&((total - 10) as u16).to_le_bytes());
    file.extend_from_slice(text.as_bytes());
    file.resize(total - 1, b' ');
    file.push(b'\n');
    file.resize(total + h.payload_len(), b'a');
    let one = Header::new(Dtype::Bytes(1), [&[1][..], &h.shape()[1..]].concat(), false).unwrap();
    let mut src_bytes = header_bytes(&one);
    src_bytes.resize(src_bytes.len() + one.payload_len(), b'b');
    (file, src_bytes)
}

#[test]
fn a_full_header_is_refused_unless_rewrite_when_full() {
    let d = dir("full");
    let (dst, src) = (d.join("dst.npy"), d.join("src.npy"));
    let (file, src_bytes) = full_header_pair();
    std::fs::write(&dst, &file).unwrap();
    std::fs::write(&src, &src_bytes).unwrap();

    let out = run(&[&dst, &src]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("header-full") && err.contains("rewrite_when_full"),
        "{err}"
    );
    assert_eq!(std::fs::read(&dst).unwrap(), file);

    let out = run(&[&dst, &src, Path::new("--rewrite-when-full")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&dst).unwrap();
    let a = read_bytes(&bytes, &ReadOptions::default()).unwrap();
    assert_eq!(a.shape()[0], 10);
    assert_eq!(bytes, to_vec(&a).unwrap());
    std::fs::remove_dir_all(&d).unwrap();
}

/// `--rewrite-when-full` through a symlink rewrites the file it points to: the link stays a
/// link, and the private file (0600) stays private.
#[cfg(unix)]
#[test]
fn a_rewrite_keeps_the_symlink_and_the_mode() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let d = dir("rewrite-link");
    let (target, link, src) = (d.join("target.npy"), d.join("link.npy"), d.join("src.npy"));
    let (file, src_bytes) = full_header_pair();
    std::fs::write(&target, &file).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::write(&src, &src_bytes).unwrap();
    symlink(&target, &link).unwrap();
    let out = run(&[&link, &src, Path::new("--rewrite-when-full")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let a = read_bytes(&std::fs::read(&target).unwrap(), &ReadOptions::default()).unwrap();
    assert_eq!(a.shape()[0], 10);
    let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let names: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// `--discard-trailing-bytes` with a source that is refused: exit 1 and DST byte-identical
/// (the trailing bytes are cut only by an append that writes).
#[test]
fn a_refused_source_leaves_trailing_bytes_in_place() {
    let d = dir("discard");
    let (dst, good, bad) = (d.join("dst.npy"), d.join("good.npy"), d.join("bad.npy"));
    let mut junk = to_vec(&rows(vec![1.0, 2.0], vec![1, 2], Endian::Little)).unwrap();
    junk.extend_from_slice(b"xyz");
    std::fs::write(&dst, &junk).unwrap();
    to_path(&good, &rows(vec![3.0, 4.0], vec![1, 2], Endian::Little)).unwrap();
    // A source of another trailing shape; then a truncated one.
    to_path(&bad, &rows(vec![3.0, 4.0, 5.0], vec![1, 3], Endian::Little)).unwrap();
    for srcs in [vec![&good, &bad], vec![&bad]] {
        let mut args: Vec<&Path> = vec![&dst];
        args.extend(srcs.iter().map(|p| p.as_path()));
        args.push(Path::new("--discard-trailing-bytes"));
        let out = run(&args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(std::fs::read(&dst).unwrap(), junk);
    }
    let out = run(&[&dst, &good, Path::new("--discard-trailing-bytes")]);
    assert!(out.status.success());
    let a = read_bytes(&std::fs::read(&dst).unwrap(), &ReadOptions::default()).unwrap();
    assert_eq!(a.shape(), &[2, 2]);
    std::fs::remove_dir_all(&d).unwrap();
}

/// A full disk (RLIMIT_FSIZE of 0, SIGXFSZ ignored) while the rows or the rewrite are written:
/// DST reads as the old array (an in-place append leaves the rows as trailing bytes that
/// the next --discard-trailing-bytes cuts; a rewrite leaves DST byte-identical).
#[cfg(unix)]
#[test]
fn a_full_disk_leaves_dst_reading_as_the_old_array() {
    let d = dir("disk");
    let (dst, src) = (d.join("dst.npy"), d.join("src.npy"));
    let big = rows(vec![0.5; 20_000], vec![10_000, 2], Endian::Little);
    to_path(&src, &big).unwrap();
    let (full, _) = full_header_pair();
    let start = to_vec(&rows(vec![1.0, 2.0], vec![1, 2], Endian::Little)).unwrap();
    for (old, flag) in [(start.clone(), ""), (full, "--rewrite-when-full")] {
        std::fs::write(&dst, &old).unwrap();
        let src_arg = if flag.is_empty() {
            src.clone()
        } else {
            let s1 = d.join("one.npy");
            let (_, one) = full_header_pair();
            std::fs::write(&s1, one).unwrap();
            s1
        };
        let script = format!(
            "trap '' XFSZ; ulimit -f 0; exec '{}' append '{}' '{}' {flag}",
            env!("CARGO_BIN_EXE_npyguard"),
            dst.display(),
            src_arg.display()
        );
        let out = Command::new("sh").arg("-c").arg(&script).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{flag}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if flag.is_empty() {
            let allow = ReadOptions::default().with_allow_trailing_bytes(true);
            let back = read_bytes(&std::fs::read(&dst).unwrap(), &allow).unwrap();
            assert_eq!(to_vec(&back).unwrap(), old);
        } else {
            assert_eq!(std::fs::read(&dst).unwrap(), old);
        }
        let names: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(names.len() <= 3, "a temporary file left behind: {names:?}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// DST must be a regular file: a FIFO or a device is refused before anything is written,
/// and stays what it was (never replaced or removed).
#[cfg(unix)]
#[test]
fn a_dst_that_is_no_regular_file_is_refused_and_left_alone() {
    use std::os::unix::fs::FileTypeExt;
    let d = dir("not-a-file");
    let (fifo, src) = (d.join("fifo"), d.join("src.npy"));
    to_path(&src, &rows(vec![1.0, 2.0], vec![1, 2], Endian::Little)).unwrap();
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for dst in [fifo.as_path(), Path::new("/dev/null")] {
        let out = run(&[dst, &src]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains("regular file"));
    }
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    assert!(std::fs::symlink_metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn appends_to_one_file_at_once_each_keep_their_rows() {
    // Without a lock, 16 appends at once read the same old header and wrote over each
    // other's rows: 13 of 16 sources were kept, every run exit 0, and the file had
    // trailing bytes. Each now waits for the one before (flock on DST).
    const RUNS: usize = 12;
    let d = dir("concurrent");
    let (dst, src) = (d.join("dst.npy"), d.join("src.npy"));
    to_path(&dst, &rows(vec![], vec![0, 2], Endian::Little)).unwrap();
    let block: Vec<f32> = (0..2000).map(|i| i as f32).collect();
    to_path(&src, &rows(block.clone(), vec![1000, 2], Endian::Little)).unwrap();
    let children: Vec<_> = (0..RUNS)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_npyguard"))
                .arg("append")
                .args([&dst, &src])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("run npyguard")
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().expect("wait for npyguard");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let back = read_bytes(&std::fs::read(&dst).unwrap(), &ReadOptions::default()).unwrap();
    assert_eq!(back.shape(), &[RUNS * 1000, 2]);
    let want: Vec<f32> = (0..RUNS).flat_map(|_| block.iter().copied()).collect();
    assert_eq!(back.into_typed::<f32>().unwrap().data(), &want[..]);
}
