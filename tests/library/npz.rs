//! `.npz` archives: NumPy's own archives, npyguard's writer, and hostile zips
//! built byte by byte in memory (no file is written, nothing needs Python).
#![cfg(feature = "npz")]

use std::io::{Cursor, Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use npyguard::npz::{self, Compression, NpzArchive};
use npyguard::{
    write, Array, ArrayData, Dtype, Endian, Error, ErrorKind, Header, NpyArray, ReadOptions,
};

// ------------------------------------------------------------------------------------------
// A tiny zip writer with every field under the test's control.

fn crc(data: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(data);
    h.finalize()
}

fn deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

#[derive(Clone, Debug)]
struct Entry {
    name: Vec<u8>,
    flags: u16,
    method: u16,
    /// The member's bytes as stored (compressed for method 8).
    data: Vec<u8>,
    crc: u32,
    size: u64,
    /// Declared compressed size (default: data.len()).
    csize: Option<u64>,
    /// As NumPy: local sizes 0xFFFFFFFF with a zip64 extra field holding the real ones.
    numpy_zip64: bool,
    local_name: Option<Vec<u8>>,
    local_method: Option<u16>,
    local_crc: Option<u32>,
    local_size: Option<u64>,
    central_extra: Vec<u8>,
    /// Central directory's local-header offset, instead of where the header really is.
    offset: Option<u64>,
    /// Write no local header and data (for entries pointing into another member).
    no_local: bool,
}

impl Entry {
    fn stored(name: &str, content: &[u8]) -> Entry {
        Entry {
            name: name.as_bytes().to_vec(),
            flags: if name.is_ascii() { 0 } else { 0x800 },
            method: 0,
            data: content.to_vec(),
            crc: crc(content),
            size: content.len() as u64,
            csize: None,
            numpy_zip64: true,
            local_name: None,
            local_method: None,
            local_crc: None,
            local_size: None,
            central_extra: Vec::new(),
            offset: None,
            no_local: false,
        }
    }

    fn deflated(name: &str, content: &[u8]) -> Entry {
        Entry {
            method: 8,
            data: deflate(content),
            ..Entry::stored(name, content)
        }
    }

    fn csize(&self) -> u64 {
        self.csize.unwrap_or(self.data.len() as u64)
    }
}

fn le16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn le32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn le64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// 1980-01-01 in MS-DOS date format, as NumPy writes.
const DOS_DATE: u16 = (1 << 5) | 1;

fn build(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut offsets = Vec::new();
    for e in entries {
        offsets.push(out.len() as u64);
        if e.no_local {
            continue;
        }
        let descriptor = e.flags & 8 != 0;
        let name = e.local_name.clone().unwrap_or_else(|| e.name.clone());
        let size = e.local_size.unwrap_or(e.size);
        let (crc, csize, size) = if descriptor {
            (0, 0, 0)
        } else {
            (e.local_crc.unwrap_or(e.crc), e.csize(), size)
        };
        out.extend_from_slice(b"PK\x03\x04");
        le16(&mut out, 45);
        le16(&mut out, e.flags);
        le16(&mut out, e.local_method.unwrap_or(e.method));
        le16(&mut out, 0);
        le16(&mut out, DOS_DATE);
        le32(&mut out, crc);
        let mut extra = Vec::new();
        if e.numpy_zip64 {
            le32(&mut out, u32::MAX);
            le32(&mut out, u32::MAX);
            le16(&mut extra, 1);
            le16(&mut extra, 16);
            le64(&mut extra, size);
            le64(&mut extra, csize);
        } else {
            le32(&mut out, csize as u32);
            le32(&mut out, size as u32);
        }
        le16(&mut out, name.len() as u16);
        le16(&mut out, extra.len() as u16);
        out.extend_from_slice(&name);
        out.extend_from_slice(&extra);
        out.extend_from_slice(&e.data);
        if descriptor {
            out.extend_from_slice(b"PK\x07\x08");
            le32(&mut out, e.crc);
            le32(&mut out, e.csize() as u32);
            le32(&mut out, e.size as u32);
        }
    }
    let cd_start = out.len() as u64;
    for (e, &at) in entries.iter().zip(&offsets) {
        out.extend_from_slice(b"PK\x01\x02");
        le16(&mut out, (3 << 8) | 45);
        le16(&mut out, 45);
        le16(&mut out, e.flags);
        le16(&mut out, e.method);
        le16(&mut out, 0);
        le16(&mut out, DOS_DATE);
        le32(&mut out, e.crc);
        le32(&mut out, e.csize() as u32);
        le32(&mut out, e.size as u32);
        le16(&mut out, e.name.len() as u16);
        le16(&mut out, e.central_extra.len() as u16);
        le16(&mut out, 0);
        le16(&mut out, 0);
        le16(&mut out, 0);
        le32(&mut out, 0o600 << 16);
        le32(&mut out, e.offset.unwrap_or(at) as u32);
        out.extend_from_slice(&e.name);
        out.extend_from_slice(&e.central_extra);
    }
    let cd_size = out.len() as u64 - cd_start;
    end_record(
        &mut out,
        entries.len() as u16,
        cd_size as u32,
        cd_start as u32,
    );
    out
}

fn end_record(out: &mut Vec<u8>, entries: u16, cd_size: u32, cd_start: u32) {
    out.extend_from_slice(b"PK\x05\x06");
    le16(out, 0);
    le16(out, 0);
    le16(out, entries);
    le16(out, entries);
    le32(out, cd_size);
    le32(out, cd_start);
    le16(out, 0);
}

fn npy<T: npyguard::Element>(data: Vec<T>, shape: Vec<usize>) -> Vec<u8> {
    write::to_vec(&NpyArray::from_vec(data, shape).unwrap().to_array()).unwrap()
}

fn open(bytes: &[u8]) -> npyguard::Result<NpzArchive<Cursor<&[u8]>>> {
    NpzArchive::new(Cursor::new(bytes), &ReadOptions::default())
}

fn open_with<'a>(
    bytes: &'a [u8],
    opts: &ReadOptions,
) -> npyguard::Result<NpzArchive<Cursor<&'a [u8]>>> {
    NpzArchive::new(Cursor::new(bytes), opts)
}

#[track_caller]
fn assert_kind<T: std::fmt::Debug>(r: npyguard::Result<T>, kind: ErrorKind) -> Error {
    let e = r.expect_err("an error");
    assert_eq!(e.kind(), kind, "{e}");
    e
}

fn read_all(bytes: &[u8], opts: &ReadOptions) -> npyguard::Result<Vec<(String, Array)>> {
    open_with(bytes, opts)?.read_all()
}

/// Peak resident set size of this process so far (Linux), in bytes.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

// ------------------------------------------------------------------------------------------
// Well-formed archives.

#[test]
fn stored_and_deflated_members_read_by_name_with_or_without_npy() {
    let a = npy(vec![1i32, 2, 3], vec![3]);
    let b = npy(vec![0.5f64; 6], vec![2, 3]);
    let zip = build(&[Entry::stored("a.npy", &a), Entry::deflated("b.npy", &b)]);
    let mut ar = open(&zip).unwrap();
    assert_eq!(ar.members().len(), 2);
    assert_eq!(ar.members()[0].compression(), Compression::Stored);
    assert_eq!(ar.members()[1].compression(), Compression::Deflated);
    assert_eq!(ar.members()[1].size(), b.len() as u64);
    assert_eq!(ar.array_names().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(
        ar.array("a").unwrap().data(),
        &ArrayData::I32(vec![1, 2, 3].into())
    );
    assert_eq!(
        ar.array("a.npy").unwrap().data(),
        &ArrayData::I32(vec![1, 2, 3].into())
    );
    assert_eq!(ar.typed::<f64>("b").unwrap().data(), &[0.5; 6]);
    assert_eq!(ar.header("b.npy").unwrap().shape(), &[2, 3]);
    assert_kind(ar.typed::<u8>("b"), ErrorKind::TypeMismatch);
    let e = assert_kind(ar.array("c"), ErrorKind::MemberNotFound);
    assert!(e.to_string().contains("c.npy"), "{e}");
    let all = ar.read_all().unwrap();
    assert_eq!(
        all.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        ["a", "b"]
    );
    assert!(ar.decoded_bytes() > 0);
}

#[test]
fn zip64_local_headers_as_numpy_and_classic_ones_both_read() {
    let a = npy(vec![7u8; 10], vec![10]);
    for numpy_zip64 in [true, false] {
        for e in [Entry::stored("a.npy", &a), Entry::deflated("a.npy", &a)] {
            let zip = build(&[Entry { numpy_zip64, ..e }]);
            assert_eq!(
                read_all(&zip, &ReadOptions::default()).unwrap()[0].1.data(),
                &ArrayData::U8(vec![7; 10].into())
            );
        }
    }
}

#[test]
fn data_descriptor_members_are_read_with_the_central_sizes_and_crc() {
    let a = npy(vec![3i16, -4], vec![2]);
    for e in [Entry::stored("a.npy", &a), Entry::deflated("a.npy", &a)] {
        let zip = build(&[Entry {
            flags: 8,
            ..e.clone()
        }]);
        assert_eq!(
            read_all(&zip, &ReadOptions::default()).unwrap()[0].1.data(),
            &ArrayData::I16(vec![3, -4].into())
        );
        let bad = build(&[Entry {
            flags: 8,
            crc: e.crc ^ 1,
            ..e
        }]);
        assert_kind(
            read_all(&bad, &ReadOptions::default()),
            ErrorKind::CrcMismatch,
        );
    }
}

#[test]
fn empty_archive_has_no_members() {
    let zip = build(&[]);
    assert_eq!(zip.len(), 22);
    assert!(npz::looks_like_npz(&zip));
    let mut ar = open(&zip).unwrap();
    assert!(ar.members().is_empty());
    assert!(ar.read_all().unwrap().is_empty());
}

#[test]
fn every_member_is_an_entry_sniffed_by_content_as_numpy_does() {
    let a = npy(vec![1u8], vec![1]);
    let zip = build(&[
        Entry::stored("readme.txt", b"hello"),
        Entry::stored("dir/", b""),
        Entry::deflated("a.npy", &a),
        Entry::stored("b.NPY", &a),
    ]);
    let mut ar = open(&zip).unwrap();
    let names: Vec<_> = ar.members().iter().map(|m| m.name().to_string()).collect();
    assert_eq!(names, ["readme.txt", "dir/", "a.npy", "b.NPY"]);
    // NumPy's NpzFile.files: each name without a final ".npy" (case-sensitive).
    assert_eq!(
        ar.array_names().collect::<Vec<_>>(),
        ["readme.txt", "dir/", "a", "b.NPY"]
    );
    // .npy data under any name is an array, as NumPy sniffs it.
    assert_eq!(ar.array("b.NPY").unwrap().shape(), &[1]);
    assert_eq!(ar.array("a").unwrap().shape(), &[1]);
    // A member NumPy would return as raw bytes is refused as an array, naming it.
    let e = assert_kind(ar.array("readme.txt"), ErrorKind::BadMagic);
    assert!(e.to_string().contains("readme.txt"), "{e}");
    assert_kind(ar.array("dir/"), ErrorKind::Truncated);
    // So reading the whole archive (validate, dump) refuses it.
    assert_kind(ar.read_all(), ErrorKind::BadMagic);
    assert_eq!(ar.verify_member("readme.txt").unwrap(), 5);
    assert_kind(ar.verify_member("nope"), ErrorKind::MemberNotFound);
}

#[test]
fn names_are_only_names_never_paths() {
    let a = npy(vec![1u8, 2], vec![2]);
    let zip = build(&[
        Entry::stored("../../etc/evil.npy", &a),
        Entry::stored("/abs/x.npy", &a),
        Entry::stored("a\\b.npy", &a),
        Entry::stored("é/ü.npy", &a),
    ]);
    let mut ar = open(&zip).unwrap();
    assert_eq!(
        ar.array_names().collect::<Vec<_>>(),
        ["../../etc/evil", "/abs/x", "a\\b", "é/ü"]
    );
    assert_eq!(ar.array("../../etc/evil").unwrap().shape(), &[2]);
    assert_eq!(ar.read_all().unwrap().len(), 4);
}

#[test]
fn cp437_names_decode_as_python_does() {
    let a = npy(vec![1u8], vec![1]);
    // 0x82 is 'é' in code page 437 (no UTF-8 flag), 0xE1 'ß'.
    let mut e = Entry::stored("x", &a);
    e.name = b"\x82\xe1.npy".to_vec();
    e.flags = 0;
    let zip = build(&[e]);
    assert_eq!(
        open(&zip).unwrap().array_names().collect::<Vec<_>>(),
        ["éß"]
    );
}

#[test]
fn numpy_fixture_archives_read_completely() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/npz");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let archives = manifest["archives"].as_array().unwrap();
    assert!(archives.len() >= 5);
    for a in archives {
        let file = a["file"].as_str().unwrap();
        let mut ar = npz::open(dir.join(file), &ReadOptions::default()).unwrap();
        let arrays = ar.read_all().unwrap_or_else(|e| panic!("{file}: {e}"));
        let members = a["members"].as_array().unwrap();
        assert_eq!(arrays.len(), members.len(), "{file}");
        for ((name, array), m) in arrays.iter().zip(members) {
            assert_eq!(name, m["name"].as_str().unwrap(), "{file}");
            let shape: Vec<usize> = m["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as usize)
                .collect();
            assert_eq!(array.shape(), shape.as_slice(), "{file}:{name}");
            assert_eq!(
                array.fortran_order(),
                m["fortran_order"].as_bool().unwrap(),
                "{file}:{name}"
            );
        }
        for (member, m) in ar.members().iter().zip(members) {
            let want = if m["compress_type"] == 8 {
                Compression::Deflated
            } else {
                Compression::Stored
            };
            assert_eq!(member.compression(), want, "{file}");
        }
    }
}

// ------------------------------------------------------------------------------------------
// Writing.

fn sample_arrays() -> Vec<(String, Array)> {
    let f = NpyArray::from_vec_with(
        (0..12).collect::<Vec<i32>>(),
        vec![3, 4],
        true,
        Endian::Little,
    )
    .unwrap();
    vec![
        (
            "c".to_string(),
            NpyArray::from_vec(vec![1.5f64, f64::NAN, -0.0, 4.0], vec![2, 2])
                .unwrap()
                .to_array(),
        ),
        ("f".to_string(), f.to_array()),
        (
            "scalar".to_string(),
            NpyArray::from_vec(vec![9u64], vec![]).unwrap().to_array(),
        ),
        (
            "empty".to_string(),
            NpyArray::<f32>::from_vec(vec![], vec![0, 5])
                .unwrap()
                .to_array(),
        ),
        (
            "be".to_string(),
            NpyArray::from_vec_with(vec![1i64, -2], vec![2], false, Endian::Big)
                .unwrap()
                .to_array(),
        ),
        (
            "x.npy".to_string(),
            NpyArray::from_vec(vec![true], vec![1]).unwrap().to_array(),
        ),
    ]
}

#[test]
fn savez_and_savez_compressed_round_trip_with_np_save_bytes() {
    let arrays = sample_arrays();
    let refs: Vec<(&str, &Array)> = arrays.iter().map(|(n, a)| (n.as_str(), a)).collect();
    for compressed in [false, true] {
        let out = if compressed {
            npz::savez_compressed(Cursor::new(Vec::new()), &refs)
        } else {
            npz::savez(Cursor::new(Vec::new()), &refs)
        }
        .unwrap()
        .into_inner();
        let mut ar = open(&out).unwrap();
        let names: Vec<_> = ar.members().iter().map(|m| m.name().to_string()).collect();
        // `.npy` is always appended, as np.savez does (so "x.npy" becomes "x.npy.npy").
        assert_eq!(
            names,
            [
                "c.npy",
                "f.npy",
                "scalar.npy",
                "empty.npy",
                "be.npy",
                "x.npy.npy"
            ]
        );
        let want = if compressed {
            Compression::Deflated
        } else {
            Compression::Stored
        };
        assert!(ar.members().iter().all(|m| m.compression() == want));
        let back = ar.read_all().unwrap();
        for ((n, a), (bn, b)) in arrays.iter().zip(&back) {
            assert_eq!(n, bn);
            assert_eq!(a.header().dtype(), b.header().dtype());
            assert_eq!(a.shape(), b.shape());
            assert_eq!(a.fortran_order(), b.fortran_order());
            assert_eq!(write::to_vec(a).unwrap(), write::to_vec(b).unwrap(), "{n}");
        }
        // Each member's bytes are exactly write::to_vec's (= np.save's).
        let mut z = zip::ZipArchive::new(Cursor::new(&out)).unwrap();
        for (i, (_, a)) in arrays.iter().enumerate() {
            let mut raw = Vec::new();
            z.by_index(i).unwrap().read_to_end(&mut raw).unwrap();
            assert_eq!(raw, write::to_vec(a).unwrap());
        }
    }
}

#[test]
fn name_arrays_follows_numpy_order_and_refuses_clashes() {
    let arrays = sample_arrays();
    let (a, b, c) = (&arrays[0].1, &arrays[1].1, &arrays[2].1);
    let named = npz::name_arrays(&[a, b], &[("kw", c)]).unwrap();
    assert_eq!(
        named.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        ["kw", "arr_0", "arr_1"]
    );
    assert_eq!(npz::positional_name(12), "arr_12");
    assert_kind(
        npz::name_arrays(&[a], &[("arr_0", c)]),
        ErrorKind::InvalidInput,
    );
    assert_kind(
        npz::savez(Cursor::new(Vec::new()), &[("a", a), ("a", b)]),
        ErrorKind::InvalidInput,
    );
    assert_kind(
        npz::savez(Cursor::new(Vec::new()), &[("a\0b", a)]),
        ErrorKind::InvalidInput,
    );
    let unnamed: Vec<(String, &Array)> = npz::name_arrays(&[a, b, c], &[]).unwrap();
    let out = npz::savez(Cursor::new(Vec::new()), &unnamed)
        .unwrap()
        .into_inner();
    assert_eq!(
        open(&out).unwrap().array_names().collect::<Vec<_>>(),
        ["arr_0", "arr_1", "arr_2"]
    );
}

// ------------------------------------------------------------------------------------------
// Zip structure.

#[test]
fn duplicate_member_names_are_refused() {
    let a = npy(vec![1u8], vec![1]);
    let b = npy(vec![2u8], vec![1]);
    let zip = build(&[Entry::stored("a.npy", &a), Entry::stored("a.npy", &b)]);
    let e = assert_kind(open(&zip), ErrorKind::DuplicateMember);
    assert!(e.to_string().contains("a.npy"), "{e}");
    // The same name in two encodings: cp437 0x82 and UTF-8 "é".
    let mut cp = Entry::stored("x", &a);
    cp.name = b"\x82.npy".to_vec();
    cp.flags = 0;
    let zip = build(&[cp, Entry::stored("é.npy", &b)]);
    assert_kind(open(&zip), ErrorKind::DuplicateMember);
}

#[test]
fn local_and_central_headers_must_agree() {
    let a = npy(vec![1u8, 2, 3], vec![3]);
    let base = Entry::deflated("a.npy", &a);
    let cases = [
        Entry {
            local_name: Some(b"b.npy".to_vec()),
            ..base.clone()
        },
        Entry {
            local_method: Some(0),
            ..base.clone()
        },
        Entry {
            local_crc: Some(base.crc ^ 0xFF),
            ..base.clone()
        },
        Entry {
            local_size: Some(base.size + 1),
            ..base.clone()
        },
    ];
    for case in cases {
        let e = assert_kind(open(&build(&[case])), ErrorKind::ZipHeaderMismatch);
        assert!(e.to_string().contains("a.npy"), "{e}");
    }
    // Local flags: UTF-8 flag set only in the central directory.
    let mut zip = build(&[base]);
    zip[6] = 0x00;
    zip[7] = 0x08;
    assert_kind(open(&zip), ErrorKind::ZipHeaderMismatch);
}

#[test]
fn encrypted_and_unsupported_members_are_refused() {
    let a = npy(vec![1u8], vec![1]);
    let enc = Entry {
        flags: 1,
        ..Entry::stored("a.npy", &a)
    };
    assert_kind(open(&build(&[enc])), ErrorKind::EncryptedMember);
    let aes = Entry {
        method: 99,
        ..Entry::stored("a.npy", &a)
    };
    assert_kind(open(&build(&[aes])), ErrorKind::EncryptedMember);
    for method in [1u16, 9, 12, 14, 93, 95] {
        let e = Entry {
            method,
            ..Entry::stored("a.npy", &a)
        };
        let err = assert_kind(open(&build(&[e])), ErrorKind::UnsupportedCompression);
        assert!(
            err.to_string().contains(&format!("method {method}")),
            "{err}"
        );
    }
    // Refused even on a member that is not an array: the whole archive is checked.
    let txt = Entry {
        method: 12,
        ..Entry::stored("notes.txt", b"x")
    };
    assert_kind(
        open(&build(&[Entry::stored("a.npy", &a), txt])),
        ErrorKind::UnsupportedCompression,
    );
}

#[test]
fn crc_corruption_is_detected() {
    let a = npy(vec![1.0f64, 2.0, 3.0], vec![3]);
    // A flipped payload byte in a stored member.
    let mut zip = build(&[Entry::stored("a.npy", &a)]);
    let at = zip
        .windows(8)
        .position(|w| w == 2.0f64.to_le_bytes())
        .unwrap();
    zip[at] ^= 1;
    let e = assert_kind(
        read_all(&zip, &ReadOptions::default()),
        ErrorKind::CrcMismatch,
    );
    assert!(e.to_string().contains("a.npy"), "{e}");
    // A wrong CRC in both headers of a deflated member.
    let base = Entry::deflated("a.npy", &a);
    let zip = build(&[Entry {
        crc: base.crc.wrapping_add(1),
        ..base.clone()
    }]);
    assert_kind(
        read_all(&zip, &ReadOptions::default()),
        ErrorKind::CrcMismatch,
    );
    // CRC is checked even when trailing bytes are allowed (the member is drained).
    let opts = ReadOptions::default().with_allow_trailing_bytes(true);
    assert_kind(read_all(&zip, &opts), ErrorKind::CrcMismatch);
    // A header-only read does not reach the end, so it cannot check the CRC.
    assert!(open(&zip).unwrap().header("a").is_ok());
    assert_kind(
        open(&zip).unwrap().verify_member("a.npy"),
        ErrorKind::CrcMismatch,
    );
}

#[test]
fn lying_sizes_are_refused() {
    let a = npy(vec![5u32; 20], vec![20]);
    let base = Entry::deflated("a.npy", &a);
    // Declared smaller than the data: stopped as soon as more bytes arrive than declared.
    let small = build(&[Entry {
        size: 100,
        ..base.clone()
    }]);
    let e = assert_kind(
        read_all(&small, &ReadOptions::default()),
        ErrorKind::SizeMismatch,
    );
    assert!(e.to_string().contains("a.npy"), "{e}");
    // Declared larger than the data.
    let large = build(&[Entry {
        size: 1 << 30,
        ..base.clone()
    }]);
    assert_kind(
        read_all(&large, &ReadOptions::default()),
        ErrorKind::SizeMismatch,
    );
    // Compressed size shorter than the deflate stream: the stream is cut.
    let cut = build(&[Entry {
        csize: Some(base.data.len() as u64 - 3),
        ..base.clone()
    }]);
    let r = read_all(&cut, &ReadOptions::default());
    assert!(r.is_err(), "a cut deflate stream must not read");
    // Compressed size longer than the data: it would run into the central directory.
    let long = build(&[Entry {
        csize: Some(base.data.len() as u64 + 10),
        ..base.clone()
    }]);
    assert_kind(open(&long), ErrorKind::ZipFormat);
    // Junk after the deflate stream, inside the compressed size.
    let mut junk = base.clone();
    junk.data.extend_from_slice(b"hidden");
    assert_kind(
        read_all(&build(&[junk]), &ReadOptions::default()),
        ErrorKind::SizeMismatch,
    );
    // Stored members must have equal sizes.
    let stored = Entry {
        size: a.len() as u64 + 1,
        ..Entry::stored("a.npy", &a)
    };
    assert_kind(open(&build(&[stored])), ErrorKind::SizeMismatch);
}

#[test]
fn corrupt_deflate_data_is_a_format_error() {
    let a = npy(vec![1u8; 100], vec![100]);
    let mut e = Entry::deflated("a.npy", &a);
    e.data = vec![0xFF; e.data.len()];
    let err = assert_kind(
        read_all(&build(&[e]), &ReadOptions::default()),
        ErrorKind::ZipFormat,
    );
    assert!(err.to_string().contains("deflate"), "{err}");
}

#[test]
fn overlapping_members_are_refused() {
    // Member b's local header and data lie inside member a's stored bytes.
    let b_npy = npy(vec![1u8], vec![1]);
    let inner = build(&[Entry {
        numpy_zip64: false,
        ..Entry::stored("b.npy", &b_npy)
    }]);
    let local_len = 30 + 5 + b_npy.len();
    let a_data = inner[..local_len].to_vec();
    let a = Entry {
        numpy_zip64: false,
        ..Entry::stored("a.npy", &a_data)
    };
    let b = Entry {
        numpy_zip64: false,
        offset: Some(30 + 5),
        no_local: true,
        ..Entry::stored("b.npy", &b_npy)
    };
    let zip = build(&[a, b]);
    let e = assert_kind(open(&zip), ErrorKind::ZipFormat);
    assert!(e.to_string().contains("overlap"), "{e}");
}

#[test]
fn bytes_around_the_archive_and_truncation_are_refused() {
    let a = npy(vec![1u8], vec![1]);
    let zip = build(&[Entry::stored("a.npy", &a)]);
    let mut after = zip.clone();
    after.extend_from_slice(b"tail");
    assert_kind(open(&after), ErrorKind::ZipFormat);
    let mut before = b"prefix".to_vec();
    before.extend_from_slice(&zip);
    assert_kind(open(&before), ErrorKind::ZipFormat);
    for cut in [0, 10, zip.len() / 2, zip.len() - 1] {
        assert!(open(&zip[..cut]).is_err(), "cut at {cut}");
    }
    assert_kind(
        open(b"PK\x03\x04 not really a zip file at all........"),
        ErrorKind::ZipFormat,
    );
}

#[test]
fn names_with_nul_or_bad_utf8_and_unicode_path_fields_are_refused() {
    let a = npy(vec![1u8], vec![1]);
    // Python's zipfile cuts at NUL: "a.npy\0x" would be "a.npy" there.
    let mut nul = Entry::stored("a", &a);
    nul.name = b"a.npy\0x".to_vec();
    assert_kind(open(&build(&[nul])), ErrorKind::ZipFormat);
    let mut bad = Entry::stored("a", &a);
    bad.name = b"\xff.npy".to_vec();
    bad.flags = 0x800;
    assert_kind(open(&build(&[bad])), ErrorKind::ZipFormat);
    // Info-ZIP Unicode path field (0x7075) renaming "a.npy" to "b.npy": Python's zipfile
    // ignores it, so NumPy's key is "a", and so is npyguard's.
    let mut up = Entry::stored("a.npy", &a);
    let mut extra = Vec::new();
    le16(&mut extra, 0x7075);
    le16(&mut extra, 1 + 4 + 5);
    extra.push(1);
    le32(&mut extra, crc(b"a.npy"));
    extra.extend_from_slice(b"b.npy");
    up.central_extra = extra;
    let zip = build(&[up]);
    let mut ar = open(&zip).unwrap();
    assert_eq!(ar.array_names().collect::<Vec<_>>(), ["a"]);
    assert_eq!(ar.array("a").unwrap().shape(), &[1]);
}

#[test]
fn member_count_is_limited_before_the_directory_is_read() {
    let a = npy(vec![1u8], vec![1]);
    let entries: Vec<Entry> = (0..5)
        .map(|i| Entry::stored(&format!("m{i}.npy"), &a))
        .collect();
    let zip = build(&entries);
    assert_eq!(
        open_with(&zip, &ReadOptions::default().with_max_npz_members(Some(5)))
            .unwrap()
            .members()
            .len(),
        5
    );
    let e = assert_kind(
        open_with(&zip, &ReadOptions::default().with_max_npz_members(Some(4))),
        ErrorKind::TooManyMembers,
    );
    assert!(e.to_string().contains("5 members"), "{e}");
    assert!(open_with(&zip, &ReadOptions::default().with_max_npz_members(None)).is_ok());

    // A zip64 end record claiming 2^40 members in a 128-byte file (behind a local header's
    // 30 bytes, so that NumPy would take it for an archive): refused from the count alone.
    let mut z = b"PK\x03\x04".to_vec();
    z.resize(30, 0);
    let e64_at = 30u64;
    z.extend_from_slice(b"PK\x06\x06");
    le64(&mut z, 44);
    le16(&mut z, 45);
    le16(&mut z, 45);
    le32(&mut z, 0);
    le32(&mut z, 0);
    le64(&mut z, 1 << 40);
    le64(&mut z, 1 << 40);
    le64(&mut z, 0);
    le64(&mut z, e64_at);
    z.extend_from_slice(b"PK\x06\x07");
    le32(&mut z, 0);
    le64(&mut z, e64_at);
    le32(&mut z, 1);
    end_record(&mut z, 0xFFFF, u32::MAX, u32::MAX);
    let e = assert_kind(open(&z), ErrorKind::TooManyMembers);
    assert!(e.to_string().contains("1099511627776"), "{e}");
    // With no member limit it is a format error (the directory cannot hold them), not an allocation.
    assert_kind(
        open_with(&z, &ReadOptions::default().with_max_npz_members(None)),
        ErrorKind::ZipFormat,
    );
}

#[test]
fn compression_ratio_limit() {
    let zeros = npy(vec![0f64; 1 << 17], vec![1 << 17]); // 1 MiB of zeros: about 1000:1
    let zip = build(&[Entry::deflated("z.npy", &zeros)]);
    let ratio = zeros.len() as f64 / build(&[Entry::deflated("z.npy", &zeros)]).len() as f64;
    assert!(ratio > 200.0, "{ratio}");
    let e = assert_kind(
        read_all(&zip, &ReadOptions::default().with_max_npz_ratio(Some(100))),
        ErrorKind::CompressionRatio,
    );
    assert!(e.to_string().contains("z.npy"), "{e}");
    assert!(read_all(&zip, &ReadOptions::default().with_max_npz_ratio(Some(2000))).is_ok());
    assert!(
        read_all(&zip, &ReadOptions::default()).is_ok(),
        "no ratio limit by default"
    );
    // Stored members never pass a ratio of 1.
    let stored = build(&[Entry::stored("z.npy", &zeros)]);
    assert!(read_all(&stored, &ReadOptions::default().with_max_npz_ratio(Some(1))).is_ok());
}

#[test]
fn total_decoded_bytes_limit_names_the_member() {
    let a = npy(vec![1u8; 10_000], vec![10_000]); // 10 128 bytes each
    let zip = build(&[
        Entry::deflated("a.npy", &a),
        Entry::deflated("b.npy", &a),
        Entry::deflated("c.npy", &a),
    ]);
    let opts = ReadOptions::default().with_max_npz_total_bytes(Some(25_000));
    let mut ar = open_with(&zip, &opts).unwrap();
    assert!(ar.array("a").is_ok());
    assert!(ar.array("b").is_ok());
    let e = assert_kind(ar.array("c"), ErrorKind::TotalTooLarge);
    assert!(
        e.to_string().contains("c.npy") && e.to_string().contains("25000"),
        "{e}"
    );
    assert!(
        ar.decoded_bytes() <= 25_000 + (1 << 18),
        "stopped near the limit: {}",
        ar.decoded_bytes()
    );
    // Exactly at the limit is accepted.
    let exact = ReadOptions::default().with_max_npz_total_bytes(Some(3 * a.len() as u64));
    assert_eq!(read_all(&zip, &exact).unwrap().len(), 3);
}

#[test]
fn max_file_bytes_applies_to_each_member() {
    let a = npy(vec![1u8; 1000], vec![1000]); // 1128 bytes
    let zip = build(&[
        Entry::deflated("a.npy", &a),
        Entry::stored("b.npy", &npy(vec![1u8; 2000], vec![2000])),
    ]);
    let opts = ReadOptions::default().with_max_file_bytes(Some(1128));
    let mut ar = open_with(&zip, &opts).unwrap();
    assert!(ar.array("a").is_ok(), "a member of exactly the limit");
    let e = assert_kind(ar.array("b"), ErrorKind::FileTooLarge);
    assert!(e.to_string().contains("b.npy"), "{e}");
    // The archive file itself may be larger than the limit.
    assert!(zip.len() > 1128);
}

// ------------------------------------------------------------------------------------------
// Bombs.

/// Raw deflate of `npy_header` followed by `zeros` zero bytes (a multiple of
/// 1 MiB), built without holding the zeros: one stored block for the header,
/// then the same compressed 1 MiB-of-zeros block repeated (each is
/// self-contained and ends byte-aligned after a sync flush), then an empty
/// final block.
fn deflated_zeros(npy_header: &[u8], zeros: u64) -> Vec<u8> {
    const CHUNK: usize = 1 << 20;
    assert_eq!(zeros % CHUNK as u64, 0);
    let mut c = flate2::Compress::new(flate2::Compression::best(), false);
    let mut block = Vec::with_capacity(CHUNK);
    c.compress_vec(&vec![0u8; CHUNK], &mut block, flate2::FlushCompress::Sync)
        .unwrap();
    assert_eq!(c.total_in(), CHUNK as u64);
    let mut out = vec![0x00];
    out.extend_from_slice(&(npy_header.len() as u16).to_le_bytes());
    out.extend_from_slice(&(!(npy_header.len() as u16)).to_le_bytes());
    out.extend_from_slice(npy_header);
    for _ in 0..zeros / CHUNK as u64 {
        out.extend_from_slice(&block);
    }
    out.extend_from_slice(&[0x03, 0x00]);
    out
}

/// CRC-32 of `head` followed by `zeros` zero bytes (a power-of-two multiple of 1 MiB), by combining.
fn crc_with_zeros(head: &[u8], zeros: u64) -> u32 {
    let mut z = crc32fast::Hasher::new();
    z.update(&vec![0u8; 1 << 20]);
    let mut len = 1u64 << 20;
    while len < zeros {
        let copy = z.clone();
        z.combine(&copy);
        len *= 2;
    }
    assert_eq!(len, zeros);
    let mut h = crc32fast::Hasher::new();
    h.update(head);
    h.combine(&z);
    h.finalize()
}

fn zeros_member(name: &str, shape_len: usize, zeros: u64) -> (Entry, usize) {
    let header = write::header_bytes(&Header::new(Dtype::U8, vec![shape_len], false).unwrap());
    let data = deflated_zeros(&header, zeros);
    let e = Entry {
        method: 8,
        crc: crc_with_zeros(&header, zeros),
        size: header.len() as u64 + zeros,
        data,
        ..Entry::stored(name, b"")
    };
    (e, header.len())
}

#[test]
fn deflate_helpers_are_right() {
    let (e, head) = zeros_member("z.npy", 1 << 21, 2 << 20);
    let mut all = Vec::new();
    flate2::read::DeflateDecoder::new(&e.data[..])
        .read_to_end(&mut all)
        .unwrap();
    assert_eq!(all.len(), head + (2 << 20));
    assert!(all[head..].iter().all(|&b| b == 0));
    assert_eq!(crc(&all), e.crc);
    let zip = build(&[e]);
    let arrays = read_all(&zip, &ReadOptions::default()).unwrap();
    assert_eq!(arrays[0].1.len(), 2 << 20);
}

/// The 2 GiB member, in one test so the peak-memory check sees nothing else large.
#[test]
fn two_gib_of_deflated_zeros_is_refused_quickly_and_in_little_memory() {
    const GIB2: u64 = 1 << 31;
    let start = Instant::now();
    let (bomb, _) = zeros_member("bomb.npy", GIB2 as usize, GIB2);
    let zip = build(&[bomb]);
    assert!(
        zip.len() < 4 << 20,
        "the archive is small: {} bytes",
        zip.len()
    );
    let built = start.elapsed();

    // 1. Its header claims 2 GiB: refused under max_file_bytes 64 MiB before the payload is read.
    let t = Instant::now();
    let opts = ReadOptions::default().with_max_file_bytes(Some(64 << 20));
    let mut ar = open_with(&zip, &opts).unwrap();
    assert_eq!(ar.members()[0].size(), GIB2 + 128);
    let e = assert_kind(ar.array("bomb"), ErrorKind::FileTooLarge);
    assert!(e.to_string().contains("bomb.npy"), "{e}");
    assert!(
        ar.decoded_bytes() < 1 << 20,
        "decoded {}",
        ar.decoded_bytes()
    );
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "took {:?}",
        t.elapsed()
    );

    // 2. With only a total limit, decompression stops at 64 MiB.
    let opts = ReadOptions::default().with_max_npz_total_bytes(Some(64 << 20));
    let mut ar = open_with(&zip, &opts).unwrap();
    let e = assert_kind(ar.array("bomb.npy"), ErrorKind::TotalTooLarge);
    assert!(e.to_string().contains("bomb.npy"), "{e}");
    assert!(
        ar.decoded_bytes() <= (64 << 20) + (1 << 18),
        "decoded {}",
        ar.decoded_bytes()
    );

    // 3. The same zeros behind a header claiming 16 bytes: trailing bytes, seen at once;
    //    when trailing bytes are allowed, the drain stops at max_file_bytes.
    let (liar, _) = zeros_member("liar.npy", 16, 64 << 20);
    let zip2 = build(&[liar]);
    assert_kind(
        read_all(&zip2, &ReadOptions::default()),
        ErrorKind::TrailingBytes,
    );
    let opts = ReadOptions::default()
        .with_allow_trailing_bytes(true)
        .with_max_file_bytes(Some(1 << 20));
    assert_kind(read_all(&zip2, &opts), ErrorKind::FileTooLarge);

    if let Some(peak) = peak_rss() {
        assert!(peak < 512 << 20, "peak RSS {} MiB", peak >> 20);
    }
    eprintln!(
        "built in {built:?}, checked in {:?}",
        start.elapsed() - built
    );
}

#[test]
fn header_claiming_8_tib_is_refused_without_allocating() {
    // A 128-byte .npy whose header claims 2^40 f8 (8 TiB) and holds no payload.
    let header = write::header_bytes(
        &Header::new(Dtype::F64(Endian::Little), vec![1 << 40], false).unwrap(),
    );
    assert_eq!(header.len(), 128);
    for e in [
        Entry::stored("huge.npy", &header),
        Entry::deflated("huge.npy", &header),
    ] {
        let zip = build(&[e]);
        let t = Instant::now();
        let err = assert_kind(
            read_all(&zip, &ReadOptions::default()),
            ErrorKind::Truncated,
        );
        assert!(err.to_string().contains("huge.npy"), "{err}");
        let err = assert_kind(
            read_all(
                &zip,
                &ReadOptions::default().with_max_file_bytes(Some(64 << 20)),
            ),
            ErrorKind::FileTooLarge,
        );
        assert!(err.to_string().contains("huge.npy"), "{err}");
        // Header only (inspect): checked against the member's declared 128 bytes as a read would be.
        let err = assert_kind(open(&zip).unwrap().header("huge"), ErrorKind::Truncated);
        assert!(err.to_string().contains("8796093022336"), "{err}");
        assert!(t.elapsed() < Duration::from_secs(2));
    }
}

#[test]
fn errors_inside_a_member_name_the_member() {
    // A member whose .npy is cut short: the .npy reader's error, with the member named.
    let a = npy(vec![1.0f64, 2.0, 3.0], vec![3]);
    let cut = &a[..a.len() - 5];
    for entry in [
        Entry::stored("cut.npy", cut),
        Entry::deflated("cut.npy", cut),
    ] {
        let zip = build(&[Entry::stored("ok.npy", &a), entry]);
        let e = assert_kind(
            read_all(&zip, &ReadOptions::default()),
            ErrorKind::Truncated,
        );
        assert!(
            e.expected().ends_with(" in npz member \"cut.npy\""),
            "{}",
            e.expected()
        );
        let e = open(&zip).unwrap().array("cut").unwrap_err();
        assert!(e.expected().ends_with(" in npz member \"cut.npy\""), "{e}");
    }
}

#[test]
fn every_compared_flag_must_agree_between_local_and_central_headers() {
    // Encryption, strong encryption, data descriptor and UTF-8 name flags: set in the
    // local header only (bytes 6..8 of the first local header), each is a header mismatch.
    let a = npy(vec![7u16; 4], vec![4]);
    let zip = build(&[Entry::stored("a.npy", &a)]);
    assert!(read_all(&zip, &ReadOptions::default()).is_ok());
    for bit in [0x0001u16, 0x0008, 0x0040, 0x0800] {
        let mut bad = zip.clone();
        let flags = u16::from_le_bytes([bad[6], bad[7]]) | bit;
        bad[6..8].copy_from_slice(&flags.to_le_bytes());
        let e = assert_kind(
            read_all(&bad, &ReadOptions::default()),
            ErrorKind::ZipHeaderMismatch,
        );
        assert!(e.expected().contains("(flags)"), "{bit:#x}: {e}");
    }
    // A flag outside the compared set (bit 1, a deflate option) may differ.
    let mut other = zip.clone();
    other[6] |= 0x02;
    assert!(read_all(&other, &ReadOptions::default()).is_ok());
}

#[test]
fn members_report_their_compressed_sizes() {
    let a = npy(vec![0u8; 1000], vec![1000]);
    let stored = build(&[Entry::stored("s.npy", &a)]);
    let deflated_entry = Entry::deflated("d.npy", &a);
    let csize = deflated_entry.data.len() as u64;
    let deflated = build(&[deflated_entry]);
    let s = open(&stored).unwrap();
    assert_eq!(s.members()[0].compressed_size(), a.len() as u64);
    let d = open(&deflated).unwrap();
    assert_eq!(d.members()[0].compressed_size(), csize);
    assert!(csize < 100, "1000 zero bytes deflate to {csize}");
}

#[test]
fn path_writers_write_archives_that_read_back() {
    let a = npyguard::NpyArray::from_vec(vec![1.5f32; 300], vec![300])
        .unwrap()
        .into_array();
    let dir = std::env::temp_dir();
    let stored = dir.join(format!("npyguard-npz-{}-stored.npz", std::process::id()));
    let deflated = dir.join(format!("npyguard-npz-{}-deflated.npz", std::process::id()));
    npz::savez_path(&stored, &[("a", &a)]).unwrap();
    npz::savez_compressed_path(&deflated, &[("a", &a)]).unwrap();
    let (s, d) = (
        std::fs::read(&stored).unwrap(),
        std::fs::read(&deflated).unwrap(),
    );
    std::fs::remove_file(&stored).unwrap();
    std::fs::remove_file(&deflated).unwrap();
    for (bytes, compression) in [(&s, Compression::Stored), (&d, Compression::Deflated)] {
        let archive = open(bytes).unwrap();
        assert_eq!(archive.members()[0].compression(), compression);
        let all = read_all(bytes, &ReadOptions::default()).unwrap();
        assert_eq!((all[0].0.as_str(), all[0].1.data()), ("a", a.data()));
    }
    assert!(d.len() < s.len() / 4, "300 equal floats deflate well");
}

#[test]
fn array_names_may_be_as_long_as_a_zip_name_allows() {
    // A zip name is at most 65 535 bytes; with ".npy" that leaves 65 531 for the array name.
    let a = npyguard::NpyArray::from_vec(vec![1u8], vec![1])
        .unwrap()
        .into_array();
    let longest = "n".repeat(65_531);
    let z = npz::savez(Cursor::new(Vec::new()), &[(longest.as_str(), &a)])
        .unwrap()
        .into_inner();
    assert_eq!(open(&z).unwrap().members()[0].name().len(), 65_535);
    let too_long = "n".repeat(65_532);
    let e = npz::savez(Cursor::new(Vec::new()), &[(too_long.as_str(), &a)]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    // The error quotes the name's first 64 characters, wherever the 64th byte falls (it
    // quoted "" when byte 64 was inside a character).
    let wide = format!("n{}", "é".repeat(40_000));
    let e = npz::savez(Cursor::new(Vec::new()), &[(wide.as_str(), &a)]).unwrap_err();
    let quoted = format!("\"n{}\"", "é".repeat(63));
    assert!(e.to_string().contains(&quoted), "{e}");
}

// ------------------------------------------------------------------------------------------
// Read as NumPy reads them (issue 14): each case is an archive NumPy's np.load reads in
// a way another zip reader would not, or does not read at all.

/// Offset of the central directory, from the end record of an archive `build` made.
fn cd_start(zip: &[u8]) -> usize {
    let end = zip.len() - 22;
    u32::from_le_bytes(zip[end + 16..end + 20].try_into().unwrap()) as usize
}

#[test]
fn keys_that_collide_as_numpy_resolves_them_are_refused_in_either_order() {
    let a = npy(vec![1u8], vec![1]);
    let b = npy(vec![2u8], vec![1]);
    // NumPy answers key "a" with member "a" if there is one, else "a.npy": with both, one
    // member is unreachable by its key; with "a.npy" and "a.npy.npy", key "a.npy" names
    // member "a.npy" and "a.npy.npy" only by its full name.
    for (x, y) in [
        ("a", "a.npy"),
        ("a.npy", "a.npy.npy"),
        ("a.npy", "a.npy"),
        ("a", "a"),
    ] {
        for (first, second) in [(x, y), (y, x)] {
            let zip = build(&[Entry::stored(first, &a), Entry::stored(second, &b)]);
            let e = assert_kind(open(&zip), ErrorKind::DuplicateMember);
            assert!(
                e.to_string().contains("answer to key"),
                "{first} {second}: {e}"
            );
        }
    }
    // Names that only look alike are distinct keys.
    let zip = build(&[
        Entry::stored("a.npy", &a),
        Entry::stored("a.NPY", &b),
        Entry::stored("aa.npy", &b),
    ]);
    assert_eq!(
        open(&zip).unwrap().array_names().collect::<Vec<_>>(),
        ["a", "a.NPY", "aa"]
    );
}

#[test]
fn a_member_without_the_npy_suffix_is_read_by_its_content() {
    let a = npy(vec![7i16, 8], vec![2]);
    let zip = build(&[Entry::stored("weights", &a), Entry::deflated("b.npy", &a)]);
    let all = read_all(&zip, &ReadOptions::default()).unwrap();
    let keys: Vec<&str> = all.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["weights", "b"]);
    assert_eq!(all[0].1.data(), &ArrayData::I16(vec![7, 8].into()));
    // A pickled-object .npy under any name is refused as NumPy refuses it (allow_pickle=False).
    let header = "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }";
    let mut text = header.to_string();
    text.push_str(&" ".repeat(64 - (10 + header.len() + 1) % 64));
    text.push('\n');
    let mut pickled = b"\x93NUMPY\x01\x00".to_vec();
    pickled.extend_from_slice(&(text.len() as u16).to_le_bytes());
    pickled.extend_from_slice(text.as_bytes());
    pickled.extend_from_slice(b"\x80\x04N.");
    let zip = build(&[Entry::stored("obj", &pickled)]);
    assert_kind(
        read_all(&zip, &ReadOptions::default()),
        ErrorKind::UnsupportedDtype,
    );
}

#[test]
fn a_zip64_record_hiding_another_in_its_extensible_data_is_refused() {
    // The locator points at record A, whose extensible data holds a second record B that
    // ends right before the locator: Python's zipfile reads B (the 56 bytes before the
    // locator), a reader following the locator reads A.
    let a = npy(vec![1u8], vec![1]);
    let zip = build(&[Entry::stored("a.npy", &a)]);
    let cd = cd_start(&zip);
    let (body, _) = zip.split_at(zip.len() - 22);
    let cd_size = (body.len() - cd) as u64;
    let record = |extensible: usize| {
        let mut r = b"PK\x06\x06".to_vec();
        le64(&mut r, 44 + extensible as u64);
        le16(&mut r, 45);
        le16(&mut r, 45);
        le32(&mut r, 0);
        le32(&mut r, 0);
        le64(&mut r, 1);
        le64(&mut r, 1);
        le64(&mut r, cd_size);
        le64(&mut r, cd as u64);
        r
    };
    let b = record(0);
    let mut a_rec = record(b.len());
    a_rec.extend_from_slice(&b);
    let mut out = body.to_vec();
    let a_at = out.len() as u64;
    out.extend_from_slice(&a_rec);
    out.extend_from_slice(b"PK\x06\x07");
    le32(&mut out, 0);
    le64(&mut out, a_at);
    le32(&mut out, 1);
    end_record(&mut out, 0xFFFF, u32::MAX, u32::MAX);
    let e = assert_kind(open(&out), ErrorKind::ZipFormat);
    assert!(e.to_string().contains("56-byte zip64 end record"), "{e}");
    // The same archive with a plain zip64 record where the locator points reads.
    let mut plain = body.to_vec();
    let at = plain.len() as u64;
    plain.extend_from_slice(&b);
    plain.extend_from_slice(b"PK\x06\x07");
    le32(&mut plain, 0);
    le64(&mut plain, at);
    le32(&mut plain, 1);
    end_record(&mut plain, 0xFFFF, u32::MAX, u32::MAX);
    assert_eq!(read_all(&plain, &ReadOptions::default()).unwrap().len(), 1);
}

#[test]
fn bytes_before_between_or_hidden_around_members_are_refused() {
    let a = npy(vec![1u8, 2, 3], vec![3]);
    let zip = build(&[Entry::stored("a.npy", &a), Entry::stored("b.npy", &a)]);
    // A shell-script prefix, with every offset counting it (what `cat run.sh x.zip` plus
    // `zip -A` makes): NumPy does not take the file for an archive at all.
    let prefix = b"#!/bin/sh\nexec python3 -c 'print(1)'\n";
    let shifted = |z: &[u8]| {
        let mut out = prefix.to_vec();
        out.extend_from_slice(z);
        out
    };
    let mut counted = shifted(&zip);
    let p = prefix.len();
    let cd = cd_start(&zip);
    let end = counted.len() - 22;
    let new_cd = (cd + p) as u32;
    counted[end + 16..end + 20].copy_from_slice(&new_cd.to_le_bytes());
    let mut at = p + cd;
    while counted[at..at + 4] == *b"PK\x01\x02" {
        let off = u32::from_le_bytes(counted[at + 42..at + 46].try_into().unwrap()) + p as u32;
        counted[at + 42..at + 46].copy_from_slice(&off.to_le_bytes());
        let n =
            |i: usize| u16::from_le_bytes(counted[at + i..at + i + 2].try_into().unwrap()) as usize;
        at += 46 + n(28) + n(30) + n(32);
    }
    for bad in [counted, shifted(&zip)] {
        let e = assert_kind(open(&bad), ErrorKind::ZipFormat);
        assert!(e.to_string().contains("PK\\x03\\x04"), "{e}");
    }
    // A gap between the two members, the central directory moved along.
    let a_len = 30 + 5 + 20 + a.len();
    let mut gap = zip[..a_len].to_vec();
    gap.extend_from_slice(b"hidden");
    gap.extend_from_slice(&zip[a_len..]);
    let end = gap.len() - 22;
    gap[end + 16..end + 20].copy_from_slice(&((cd + 6) as u32).to_le_bytes());
    let second = cd + 6 + 46 + 5 + 42;
    let off = u32::from_le_bytes(gap[second..second + 4].try_into().unwrap()) + 6;
    gap[second..second + 4].copy_from_slice(&off.to_le_bytes());
    let e = assert_kind(open(&gap), ErrorKind::ZipFormat);
    assert!(e.to_string().contains("without gaps or overlaps"), "{e}");
}

#[test]
fn what_pythons_zipfile_refuses_is_refused() {
    let a = npy(vec![1u8], vec![1]);
    let zip = build(&[Entry::stored("a.npy", &a)]);
    let cd = cd_start(&zip);
    // "Version needed to extract" above 6.3: zipfile raises NotImplementedError.
    let mut v64 = zip.clone();
    v64[cd + 6] = 64;
    let e = assert_kind(open(&v64), ErrorKind::ZipFormat);
    assert!(e.to_string().contains("version 6.4"), "{e}");
    let mut v63 = zip.clone();
    v63[cd + 6] = 63;
    assert!(open(&v63).is_ok());
    // Flag bit 5, compressed patched data: zipfile raises NotImplementedError.
    let mut patched = Entry::stored("a.npy", &a);
    patched.flags |= 0x20;
    let e = assert_kind(open(&build(&[patched])), ErrorKind::ZipFormat);
    assert!(e.to_string().contains("patched"), "{e}");
}

#[test]
fn data_descriptors_must_fill_the_gap_they_stand_in() {
    let a = npy(vec![5u8; 4], vec![4]);
    let mut d = Entry::stored("a.npy", &a);
    d.flags |= 8;
    let good = build(&[d.clone(), Entry::stored("b.npy", &a)]);
    assert_eq!(read_all(&good, &ReadOptions::default()).unwrap().len(), 2);
    // A descriptor whose CRC is not the member's.
    let at = 30 + 5 + 20 + a.len();
    assert_eq!(&good[at..at + 4], b"PK\x07\x08");
    let mut bad = good.clone();
    bad[at + 4] ^= 1;
    let e = assert_kind(open(&bad), ErrorKind::ZipFormat);
    assert!(e.to_string().contains("data descriptor"), "{e}");
}

#[test]
fn deflate_streams_of_zero_or_one_byte_are_malformed_input_not_io_errors() {
    let a = npy(vec![1u8], vec![1]);
    for stream in [&b""[..], &b"\x03"[..], &b"\xff"[..]] {
        let mut e = Entry::deflated("a.npy", &a);
        e.data = stream.to_vec();
        let err = read_all(&build(&[e]), &ReadOptions::default()).unwrap_err();
        assert_ne!(err.kind(), ErrorKind::Io, "{stream:02x?}: {err}");
    }
}

#[test]
fn sixty_five_thousand_members_open_and_read_with_hashed_lookups() {
    // The most a classic end record counts (65 536, the default limit, needs zip64 end
    // records: benches/ times that one, written by NumPy). Each member is found by a hashed key look-up and
    // drained through a buffer sized by what it declares (the old reader searched names
    // linearly and zeroed 64 KiB per member: quadratic, 21 s and 149 MiB for `validate`).
    let a = npy(vec![1u8], vec![1]);
    let n = usize::from(u16::MAX);
    let entries: Vec<Entry> = (0..n)
        .map(|i| Entry::stored(&format!("m{i}"), &a))
        .collect();
    let zip = build(&entries);
    let mut ar = open(&zip).unwrap();
    assert_eq!(ar.members().len(), n);
    assert_eq!(ar.array("m65534").unwrap().shape(), &[1]);
    assert_eq!(ar.read_all().unwrap().len(), n);
}

#[test]
fn exactly_the_default_member_limit_reads_through_zip64_end_records() {
    // 65 536 members, the default max_npz_members: a classic end record cannot count them,
    // so the writer adds zip64 end records (as NumPy's zipfile does for such an archive).
    let a = NpyArray::from_vec(vec![1u8], vec![1]).unwrap().to_array();
    let names: Vec<String> = (0..1usize << 16).map(|i| format!("m{i}")).collect();
    let named: Vec<(&str, &Array)> = names.iter().map(|n| (n.as_str(), &a)).collect();
    let zip = npz::savez(Cursor::new(Vec::new()), &named)
        .unwrap()
        .into_inner();
    let end = zip.len() - 22;
    assert_eq!(&zip[end - 20..end - 16], b"PK\x06\x07", "a zip64 locator");
    let mut ar = open(&zip).unwrap();
    assert_eq!(ar.members().len(), 1 << 16);
    assert_eq!(ar.array("m65535").unwrap().data(), a.data());
    let one_less = ReadOptions::default().with_max_npz_members(Some((1 << 16) - 1));
    assert_kind(open_with(&zip, &one_less), ErrorKind::TooManyMembers);
}

// ------------------------------------------------------------------------------------------
// Parts of members: stored members viewed in place, any member streamed as row chunks.

fn c_bytes(a: &Array) -> Vec<u8> {
    let bytes = write::to_vec(&a.to_c_order()).unwrap();
    let h = Header::from_bytes(&bytes, &ReadOptions::default()).unwrap();
    bytes[h.payload_offset() as usize..].to_vec()
}

#[test]
fn stored_members_are_viewed_in_place_and_every_member_streams() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/npz");
    let (mut viewed, mut streamed) = (0, 0);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "npz") {
            continue;
        }
        let zip = std::fs::read(&path).unwrap();
        let opts = ReadOptions::default();
        let mut archive = NpzArchive::new(Cursor::new(&zip), &opts).unwrap();
        let members: Vec<_> = archive.members().to_vec();
        for m in members.iter().filter(|m| m.is_npy()) {
            let whole = archive.array(m.key()).unwrap();
            match m.compression() {
                Compression::Stored => {
                    let v = archive.view(&zip, m.key()).unwrap();
                    assert_eq!(
                        c_bytes(&v.to_array().unwrap()),
                        c_bytes(&whole),
                        "{path:?} {}",
                        m.name()
                    );
                    let r = m.data_range();
                    let start = r.start as usize + v.header().payload_offset() as usize;
                    assert_eq!(v.payload().as_ptr(), zip[start..].as_ptr(), "in place");
                    viewed += 1;
                }
                _ => {
                    let e = archive.view(&zip, m.key()).unwrap_err();
                    assert_eq!(e.kind(), ErrorKind::InvalidInput);
                }
            }
            for k in [1, 3] {
                let parts: Vec<Array> = archive
                    .row_chunks(m.key(), k)
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                let joined: Vec<u8> = parts.iter().flat_map(c_bytes).collect();
                assert_eq!(joined, c_bytes(&whole), "{path:?} {} by {k}", m.name());
            }
            streamed += 1;
        }
    }
    assert!(viewed >= 5 && streamed >= 10, "{viewed} {streamed}");
}

#[test]
fn member_parts_are_checked_as_reads_are() {
    let a = NpyArray::from_vec((0..64u32).collect(), vec![16, 4])
        .unwrap()
        .to_array();
    let stored = npz::savez(Cursor::new(Vec::new()), &[("a", &a)])
        .unwrap()
        .into_inner();
    let deflated = npz::savez_compressed(Cursor::new(Vec::new()), &[("a", &a)])
        .unwrap()
        .into_inner();
    let opts = ReadOptions::default();
    // A flipped payload byte: the stored member's CRC no longer matches, for the view at
    // once and for the chunks after the last one.
    let mut bad = stored.clone();
    let at = {
        let ar = NpzArchive::new(Cursor::new(&bad), &opts).unwrap();
        ar.members()[0].data_range().end as usize - 1
    };
    bad[at] ^= 1;
    let mut ar = NpzArchive::new(Cursor::new(&bad), &opts).unwrap();
    assert_eq!(
        ar.view(&bad, "a").unwrap_err().kind(),
        ErrorKind::CrcMismatch
    );
    let items: Vec<_> = ar.row_chunks("a", 5).unwrap().collect();
    assert_eq!(items.len(), 5);
    assert_eq!(
        items.last().unwrap().as_ref().unwrap_err().kind(),
        ErrorKind::CrcMismatch
    );
    // The archive's limits apply to the chunks as to a read.
    for zip in [&stored, &deflated] {
        let tight = opts.clone().with_max_npz_total_bytes(Some(100));
        let mut ar = NpzArchive::new(Cursor::new(zip), &tight).unwrap();
        let want = ar.array("a").unwrap_err();
        let mut ar = NpzArchive::new(Cursor::new(zip), &tight).unwrap();
        let got: Vec<_> = ar
            .row_chunks("a", 4)
            .map(|c| c.collect::<Vec<_>>())
            .unwrap_or_else(|e| vec![Err(e)]);
        let e = got.into_iter().find_map(|r| r.err()).unwrap();
        assert_eq!(e.kind(), want.kind(), "{e}");
        let ar = NpzArchive::new(
            Cursor::new(zip),
            &opts.clone().with_max_file_bytes(Some(100)),
        )
        .unwrap();
        assert_eq!(
            ar.view(zip, "a").map(|_| ()).unwrap_err().kind(),
            if zip == &stored {
                ErrorKind::FileTooLarge
            } else {
                ErrorKind::InvalidInput
            }
        );
    }
    // Bytes of another archive are refused, not misread.
    let ar = NpzArchive::new(Cursor::new(&stored), &opts).unwrap();
    assert!(ar.view(&stored[..100], "a").is_err());
    // Streaming charges the running total, as a read does.
    let two = npz::savez(Cursor::new(Vec::new()), &[("a", &a), ("b", &a)])
        .unwrap()
        .into_inner();
    let limit = opts.clone().with_max_npz_total_bytes(Some(300));
    let mut ar = NpzArchive::new(Cursor::new(&two), &limit).unwrap();
    assert_eq!(ar.row_chunks("a", 100).unwrap().count(), 1);
    let e = ar
        .row_chunks("b", 100)
        .map(|c| c.collect::<Vec<_>>())
        .unwrap_or_else(|e| vec![Err(e)]);
    assert_eq!(
        e.into_iter().find_map(|r| r.err()).unwrap().kind(),
        ErrorKind::TotalTooLarge
    );
}

/// A chunk stream says which member it reads, and its chunk size can be chosen after
/// seeing the member's header.
#[test]
fn member_chunks_show_their_member_and_take_a_later_chunk_size() {
    let a = NpyArray::from_vec((0..20i32).collect(), vec![10, 2])
        .unwrap()
        .to_array();
    let zip = npz::savez(Cursor::new(Vec::new()), &[("a", &a)])
        .unwrap()
        .into_inner();
    let mut ar = NpzArchive::new(Cursor::new(&zip), &ReadOptions::default()).unwrap();
    let chunks = ar.row_chunks("a", 1).unwrap();
    let shown = format!("{chunks:?}");
    assert!(
        shown.contains("MemberChunks") && shown.contains("a.npy"),
        "{shown}"
    );
    assert_eq!(chunks.header().shape(), &[10, 2]);
    let sizes: Vec<usize> = chunks
        .with_rows_per_chunk(4)
        .map(|c| c.unwrap().shape()[0])
        .collect();
    assert_eq!(sizes, [4, 4, 2]);
}

/// A test storage: accepts `room` bytes, then fails every write ("disk full"); with
/// `interrupt`, every other write call is `Interrupted` first (a signal), which callers retry.
#[derive(Debug)]
struct TestDisk {
    inner: Cursor<Vec<u8>>,
    room: usize,
    interrupt: bool,
    calls: usize,
    /// Whether a write was refused.
    full: bool,
    /// Calls (writes, flushes, seeks) after the first refused write, shared with the test
    /// (which no longer has the disk once the writer is dropped).
    late: std::rc::Rc<std::cell::Cell<usize>>,
}

impl TestDisk {
    fn new(room: usize, interrupt: bool) -> TestDisk {
        TestDisk {
            inner: Cursor::new(Vec::new()),
            room,
            interrupt,
            calls: 0,
            full: false,
            late: Default::default(),
        }
    }
}

impl Write for TestDisk {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.calls += 1;
        if self.interrupt && self.calls % 2 == 1 {
            return Err(std::io::Error::from(std::io::ErrorKind::Interrupted));
        }
        self.count_late();
        if self.inner.get_ref().len() + buf.len() > self.room {
            self.full = true;
            return Err(std::io::Error::new(std::io::ErrorKind::Other, "disk full"));
        }
        self.inner.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.count_late();
        Ok(())
    }
}

impl TestDisk {
    /// Counts a call made after a write was refused.
    fn count_late(&self) {
        if self.full {
            self.late.set(self.late.get() + 1);
        }
    }
}

impl std::io::Seek for TestDisk {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.count_late();
        self.inner.seek(pos)
    }
}

/// A write that fails is an `Io` error naming the member being written (or the central
/// directory), whichever byte it failed at.
#[test]
fn savez_reports_a_failing_writer_with_the_member() {
    let a = NpyArray::from_vec((0..64u8).collect(), vec![64])
        .unwrap()
        .to_array();
    let full = npz::savez(Cursor::new(Vec::new()), &[("first", &a), ("second", &a)])
        .unwrap()
        .into_inner()
        .len();
    let mut places = std::collections::BTreeSet::new();
    for room in (0..full).step_by(23) {
        let disk = TestDisk::new(room, false);
        let late = disk.late.clone();
        let e = npz::savez(disk, &[("first", &a), ("second", &a)]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Io, "room {room}: {e}");
        // The unfinished zip writer's drop (which finishes the archive) reaches nothing.
        assert_eq!(late.get(), 0, "room {room}: calls after the failure");
        let text = e.to_string();
        let place = ["first.npy", "second.npy", "(central directory)"]
            .into_iter()
            .find(|m| text.contains(m))
            .unwrap_or_else(|| panic!("room {room}: no member named in {text}"));
        places.insert(place);
    }
    assert_eq!(
        places.len(),
        3,
        "failures at every stage were seen: {places:?}"
    );
}

/// Deflated members fail the same way: an `Io` error, and nothing reaches the writer after
/// the call that failed (the deflater's and the zip writer's drops included).
#[test]
fn savez_compressed_stops_at_a_failing_writer() {
    let a = NpyArray::from_vec((0..4096u32).map(|x| x % 7).collect(), vec![4096])
        .unwrap()
        .to_array();
    let arrays = [("first", &a), ("second", &a)];
    let full = npz::savez_compressed(Cursor::new(Vec::new()), &arrays)
        .unwrap()
        .into_inner()
        .len();
    for room in (0..full).step_by(11) {
        let disk = TestDisk::new(room, false);
        let late = disk.late.clone();
        let e = npz::savez_compressed(disk, &arrays).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Io, "room {room}: {e}");
        assert_eq!(late.get(), 0, "room {room}: calls after the failure");
    }
}

/// The two tests above print nothing: the `zip` writer's drop after a failure, which
/// finishes the archive, neither fails (printing "ZipWriter drop failed" to stderr, past any
/// capture) nor panics. They run again in a child process whose stderr is read.
#[test]
fn a_failing_savez_prints_nothing() {
    for name in [
        "npz::savez_reports_a_failing_writer_with_the_member",
        "npz::savez_compressed_stops_at_a_failing_writer",
    ] {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", name, "--nocapture", "--test-threads=1"])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{name}: {stdout}");
        assert!(stdout.contains("1 passed"), "{name} ran: {stdout}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{name}'s stderr");
    }
}

#[test]
fn savez_retries_interrupted_writes() {
    let a = NpyArray::from_vec((0..64u8).collect(), vec![64])
        .unwrap()
        .to_array();
    let want = npz::savez(Cursor::new(Vec::new()), &[("a", &a)])
        .unwrap()
        .into_inner();
    let got = npz::savez(TestDisk::new(usize::MAX, true), &[("a", &a)]).unwrap();
    assert!(got.calls > 2, "writes were interrupted");
    assert_eq!(got.inner.into_inner(), want);
}

#[test]
fn read_raw_sizes_no_buffer_by_a_claim_the_bytes_cannot_back() {
    // A deflated member of a few dozen bytes whose directory claims 3.75 GiB, read with the ratio
    // limit off: the claim is beyond what its bytes can inflate to (deflate tops out near
    // 1 032:1), so no buffer is sized by it (the process's peak virtual size does not grow
    // by gigabytes: it reserved 3.75 GiB); the member is refused when its inflation ends
    // short of the claim.
    // The header agrees with the claim (a payload of 3.75 GiB less the header); 16 bytes follow.
    let claim: u64 = 0xF000_0000;
    let h = Header::new(Dtype::U8, vec![claim as usize - 128], false).unwrap();
    let mut content = write::header_bytes(&h);
    assert_eq!(content.len(), 128);
    content.extend_from_slice(&[7u8; 16]);
    let mut e = Entry::deflated("a.npy", &content);
    e.size = claim;
    let zip = build(&[e]);
    let opts = ReadOptions::default().with_max_npz_ratio(None);
    let mut z = NpzArchive::new(Cursor::new(&zip[..]), &opts).unwrap();
    let vm_peak = || {
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmPeak:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            })
            .unwrap_or(0)
    };
    let before = vm_peak();
    let err = z.read_raw("a").unwrap_err();
    assert!(
        vm_peak().saturating_sub(before) < 2 << 20,
        "VmPeak grew by gigabytes"
    );
    assert!(
        matches!(err.kind(), ErrorKind::SizeMismatch | ErrorKind::Truncated),
        "{err}"
    );
    // A member whose claim its bytes back is read whole, as before.
    let a = npy(vec![7u8; 16], vec![16]);
    let zip = build(&[Entry::deflated("a.npy", &a)]);
    let mut z = NpzArchive::new(Cursor::new(&zip[..]), &opts).unwrap();
    let (h, raw) = z.read_raw("a").unwrap();
    assert_eq!(h.shape(), &[16]);
    assert_eq!(&raw[..], &[7u8; 16][..]);
}

#[path = "../common/zip_one.rs"]
mod zip_one;

#[test]
fn a_local_header_offset_past_the_central_directory_is_malformed_in_a_file_too() {
    // A zip64 local-header offset the file system cannot seek to (ext4's largest file is
    // 16 TiB: seeking a File to 2**44 is EINVAL) was an I/O error, exit 2 in the CLI.
    let a = npy(vec![1u8], vec![1]);
    let c = crc(&a);
    let dir = std::env::temp_dir().join(format!("npyguard-z64-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for offset in [1u64 << 40, 1 << 44, 1 << 50, 1 << 62, (1 << 63) - 5] {
        let mut extra = Vec::new();
        extra.extend(1u16.to_le_bytes());
        extra.extend(8u16.to_le_bytes());
        extra.extend(offset.to_le_bytes());
        let zip = zip_one::zip_one(&zip_one::OneMember {
            name: b"a.npy",
            method: 0,
            crc: c,
            size: u32::try_from(a.len()).unwrap(),
            data: &a,
            header_offset: u32::MAX,
            central_extra: &extra,
        });
        let path = dir.join("z64.npz");
        std::fs::write(&path, &zip).unwrap();
        let err = npz::open(&path, &ReadOptions::default()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ZipFormat, "offset {offset}: {err}");
        assert!(err.to_string().contains("local header offset"), "{err}");
        let err = open(&zip).unwrap_err();
        assert_eq!(
            err.kind(),
            ErrorKind::ZipFormat,
            "offset {offset} in memory: {err}"
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}
