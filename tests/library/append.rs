//! `write::Appender`: a file grown along its first axis in place.
//!
//! * 1 000 appends of random row blocks (big-endian, `U` text, 1-D and 3-D, sources in the
//!   other byte order and in Fortran order): after every step the bytes are exactly
//!   `np.save`'s for the concatenation so far, and read back with default options;
//! * interrupted appends: a storage that fails after k bytes, for every k up to the data
//!   plus the header update, leaves bytes that read (trailing bytes allowed, as NumPy reads)
//!   as exactly the old or exactly the new array, and the file recovers on reopening;
//! * refusals: Fortran and 0-d files, extra keys, another dtype or trailing shape, bytes
//!   after the payload, a header without growth space (a file written before NumPy 1.24),
//!   and `rewrite_when_full` making that work for a path.

use std::io::{Cursor, SeekFrom};
use std::path::PathBuf;

use npyguard::write::{header_bytes, to_vec, AppendOptions, Appender, Storage};
use npyguard::{read_bytes, read_path, Array, Dtype, Endian, ErrorKind, Header, ReadOptions};

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Random values of `dtype` and `shape` (C order), read through the reader so the array is
/// exactly what a file holds; `U` text is drawn from ASCII, Latin-1, BMP and astral characters.
fn random_array(rng: &mut Rng, dtype: &Dtype, shape: &[usize]) -> Array {
    let header = Header::new(dtype.clone(), shape.to_vec(), false).unwrap();
    let mut file = header_bytes(&header);
    match dtype {
        Dtype::Unicode(_, e) => {
            let chars = ['a', 'Z', '0', ' ', 'é', 'ÿ', '€', '中', '😀', '\0'];
            for _ in 0..header.payload_len() / 4 {
                let c = u32::from(chars[rng.below(chars.len() as u64) as usize]);
                file.extend_from_slice(&match e {
                    Endian::Little => c.to_le_bytes(),
                    Endian::Big => c.to_be_bytes(),
                });
            }
        }
        _ => file.extend((0..header.payload_len()).map(|_| rng.next() as u8)),
    }
    read_bytes(&file, &ReadOptions::default()).unwrap()
}

/// The payload `np.save` writes for `array`'s values in the byte order of `dtype`.
fn payload_as(array: &Array, dtype: &Dtype) -> Vec<u8> {
    let c = array.to_c_order();
    let h = Header::new(dtype.clone(), c.shape().to_vec(), false).unwrap();
    let bytes = to_vec(&Array::new(h, c.data().clone()).unwrap()).unwrap();
    let head = header_bytes(c.header()).len();
    bytes[head..].to_vec()
}

fn other(e: Endian) -> Endian {
    match e {
        Endian::Little => Endian::Big,
        Endian::Big => Endian::Little,
    }
}

#[test]
fn a_thousand_appends_are_np_save_bytes_after_every_step() {
    let cases: [(Dtype, Vec<usize>); 4] = [
        (Dtype::F64(Endian::Little), vec![3]),
        (Dtype::I32(Endian::Big), vec![]),
        (Dtype::Unicode(3, Endian::Little), vec![2, 2]),
        (Dtype::U16(Endian::Big), vec![2, 3]),
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut steps = 0;
    for (dtype, trailing) in &cases {
        let shape_of = |n: usize| [&[n][..], trailing].concat();
        let n0 = rng_rows(&mut rng);
        let start = random_array(&mut rng, dtype, &shape_of(n0));
        let mut rows = start.shape()[0];
        let mut payload = payload_as(&start, dtype);
        let mut ap = Appender::new(
            Cursor::new(to_vec(&start).unwrap()),
            &AppendOptions::default(),
        )
        .unwrap();
        for _ in 0..250 {
            let n = rng_rows(&mut rng);
            // Sources in either byte order, and multi-dimensional ones sometimes in Fortran order.
            let src_dtype = match (rng.below(2), dtype.endian()) {
                (1, Some(e)) => dtype.with_endian(other(e)),
                _ => dtype.clone(),
            };
            let mut block = random_array(&mut rng, &src_dtype, &shape_of(n));
            if rng.below(3) == 0 {
                block = block.to_fortran_order();
            }
            ap.append(&block).unwrap();
            rows += n;
            payload.extend(payload_as(&block, dtype));
            steps += 1;

            let want_header = Header::new(dtype.clone(), shape_of(rows), false).unwrap();
            let mut want = header_bytes(&want_header);
            want.extend_from_slice(&payload);
            let bytes = ap_bytes(&mut ap);
            assert_eq!(bytes.len(), want.len(), "{dtype:?} after {steps} appends");
            assert!(
                bytes == want,
                "{dtype:?}: not np.save's bytes after {steps} appends"
            );
            let back = read_bytes(&bytes, &ReadOptions::default()).unwrap();
            assert_eq!(back.shape(), &shape_of(rows)[..]);
            assert_eq!(ap.header().shape(), &shape_of(rows)[..]);
        }
    }
    assert_eq!(steps, 1000);
}

/// 0 to 5 rows, mostly few.
fn rng_rows(rng: &mut Rng) -> usize {
    [0, 1, 1, 2, 3, 5][rng.below(6) as usize]
}

/// The whole storage, read through the appender's own handle.
fn ap_bytes<F: Storage>(ap: &mut Appender<F>) -> Vec<u8> {
    let mut out = Vec::new();
    let s = ap.get_mut();
    s.seek(SeekFrom::Start(0)).unwrap();
    s.read_to_end(&mut out).unwrap();
    out
}

/// The fuzz harness's failing, sector-atomic storage (one model for both).
#[path = "../common/fail_after.rs"]
mod fail_after;
use fail_after::FailAfter;

#[test]
fn an_interrupted_append_leaves_the_old_or_the_new_array() {
    let allow = ReadOptions::default().with_allow_trailing_bytes(true);
    let mut rng = Rng(42);
    let cases: [(Dtype, Vec<usize>, usize, usize); 5] = [
        (Dtype::F64(Endian::Little), vec![3], 9, 1), // 9 -> 10 rows: one more digit
        (Dtype::I32(Endian::Big), vec![], 99, 40),   // 99 -> 139
        (Dtype::Unicode(2, Endian::Big), vec![2], 5, 3), // same digit count
        (Dtype::U8, vec![2, 2], 0, 7),               // from an empty array
        (Dtype::C64(Endian::Little), vec![0], 999_999, 1), // no data bytes: only the header changes
    ];
    let mut checked = 0;
    for (dtype, trailing, n0, n1) in cases {
        let shape_of = |n: usize| [&[n][..], &trailing[..]].concat();
        let old = random_array(&mut rng, &dtype, &shape_of(n0));
        let block = random_array(&mut rng, &dtype.with_endian(Endian::Big), &shape_of(n1));
        let old_bytes = to_vec(&old).unwrap();
        let mut new = old.to_c_order();
        let mut new_payload = payload_as(&new, &dtype);
        new_payload.extend(payload_as(&block, &dtype));
        let new_header = Header::new(dtype.clone(), shape_of(n0 + n1), false).unwrap();
        let mut new_bytes = header_bytes(&new_header);
        new_bytes.extend_from_slice(&new_payload);
        new = read_bytes(&new_bytes, &ReadOptions::default()).unwrap();
        let data_len = payload_as(&block, &dtype).len();
        let head_len = header_bytes(&new_header).len();

        let mut outcomes = [0usize; 2];
        for k in 0..=data_len + head_len {
            let storage = FailAfter {
                inner: Cursor::new(old_bytes.clone()),
                budget: k,
            };
            let opts = AppendOptions::default().with_fsync(true);
            let mut ap = Appender::new(storage, &opts).unwrap();
            let result = ap.append(&block);
            let bytes = ap.into_inner().inner.into_inner();
            let read = read_bytes(&bytes, &allow)
                .unwrap_or_else(|e| panic!("{dtype:?}, k = {k}: unreadable: {e}"));
            let got = to_vec(&read).unwrap();
            if got == to_vec(&old).unwrap() {
                assert!(result.is_err(), "{dtype:?}, k = {k}: Ok but the old array");
                outcomes[0] += 1;
                // Reopening recovers: leftover bytes are refused, then cut on request.
                if bytes.len() > old_bytes.len() {
                    let e = Appender::new(Cursor::new(bytes.clone()), &AppendOptions::default())
                        .unwrap_err();
                    assert_eq!(e.kind(), ErrorKind::TrailingBytes);
                }
                let discard = AppendOptions::default().with_discard_trailing_bytes(true);
                let mut again = Appender::new(Cursor::new(bytes), &discard).unwrap();
                again.append(&block).unwrap();
                assert!(
                    again.into_inner().into_inner() == new_bytes,
                    "{dtype:?}, k = {k}"
                );
            } else {
                assert!(
                    got == to_vec(&new).unwrap(),
                    "{dtype:?}, k = {k}: other values"
                );
                outcomes[1] += 1;
                assert_eq!(bytes, new_bytes, "{dtype:?}, k = {k}");
            }
            checked += 1;
        }
        assert!(
            outcomes[0] > 0 && outcomes[1] > 0,
            "{dtype:?}: {outcomes:?}"
        );
    }
    assert!(checked > 200, "{checked}");
}

#[test]
fn after_a_failed_data_write_the_same_appender_cuts_the_leftover() {
    let old = random_array(&mut Rng(7), &Dtype::I64(Endian::Little), &[4, 2]);
    let block = random_array(&mut Rng(8), &Dtype::I64(Endian::Little), &[3, 2]);
    let storage = FailAfter {
        inner: Cursor::new(to_vec(&old).unwrap()),
        budget: 20,
    };
    let mut ap = Appender::new(storage, &AppendOptions::default()).unwrap();
    assert_eq!(ap.append(&block).unwrap_err().kind(), ErrorKind::Io);
    // The torn rows are cut at once: the storage is the old file, byte for byte.
    assert_eq!(ap.get_mut().inner.get_ref(), &to_vec(&old).unwrap());
    ap.get_mut().budget = usize::MAX;
    let one = random_array(&mut Rng(9), &Dtype::I64(Endian::Big), &[1, 2]);
    ap.append(&one).unwrap();
    let bytes = ap.into_inner().inner.into_inner();
    let back = read_bytes(&bytes, &ReadOptions::default()).unwrap();
    assert_eq!(back.shape(), &[5, 2]);
}

fn tmp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("npyguard-append-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn refusals_name_what_is_wrong() {
    let opts = AppendOptions::default();
    let new = |a: &Array| Appender::new(Cursor::new(to_vec(a).unwrap()), &opts);
    let mut rng = Rng(3);

    // Fortran order with more than one dimension; 0-d.
    let f = random_array(&mut rng, &Dtype::F32(Endian::Little), &[2, 3]).to_fortran_order();
    let e = new(&f).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("Fortran"), "{e}");
    let scalar = random_array(&mut rng, &Dtype::F32(Endian::Little), &[]);
    let e = new(&scalar).unwrap_err();
    assert!(e.to_string().contains("0-d"), "{e}");
    // A 1-D Fortran file is its C layout too: accepted, and the grown header is np.save's
    // of the concatenation (flagged C order).
    let f1 = random_array(&mut rng, &Dtype::F32(Endian::Little), &[2]).to_fortran_order();
    let mut ap = new(&f1).unwrap();
    ap.append(&random_array(&mut rng, &Dtype::F32(Endian::Big), &[1]))
        .unwrap();
    assert!(!ap.header().fortran_order() && ap.header().shape() == [3]);

    // Extra header keys (npyguard reads them, np.save's header would drop them).
    let mut file = b"\x93NUMPY\x01\x00\x76\x00{'descr': '<i2', 'fortran_order': False, 'shape': (1,), 'x': 1, }".to_vec();
    file.resize(127, b' ');
    file.push(b'\n');
    file.extend_from_slice(&[1, 0]);
    let e = Appender::new(Cursor::new(file), &opts).unwrap_err();
    assert!(e.to_string().contains("keys"), "{e}");

    // Another dtype, another trailing shape, another number of dimensions.
    let base = random_array(&mut rng, &Dtype::I16(Endian::Little), &[2, 3]);
    let mut ap = new(&base).unwrap();
    let before = ap_bytes(&mut ap);
    let wrong_dtype = random_array(&mut rng, &Dtype::U16(Endian::Little), &[1, 3]);
    assert_eq!(
        ap.append(&wrong_dtype).unwrap_err().kind(),
        ErrorKind::TypeMismatch
    );
    let wrong_rest = random_array(&mut rng, &Dtype::I16(Endian::Little), &[1, 4]);
    let e = ap.append(&wrong_rest).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("[1, 4]"), "{e}");
    let wrong_ndim = random_array(&mut rng, &Dtype::I16(Endian::Little), &[3]);
    assert_eq!(
        ap.append(&wrong_ndim).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    // Zero rows: checked, nothing written.
    let none = random_array(&mut rng, &Dtype::I16(Endian::Big), &[0, 3]);
    ap.append(&none).unwrap();
    assert!(ap_bytes(&mut ap) == before);

    // Records must be identical (their bytes are not re-encoded).
    let rec = npyguard::read_bytes(
        &{
            let h =
                b"{'descr': [('a', '<i4'), ('b', '>f8')], 'fortran_order': False, 'shape': (1,), }";
            let mut f = b"\x93NUMPY\x01\x00".to_vec();
            let total = (10 + h.len() + 1).div_ceil(64) * 64;
            f.extend_from_slice(&((total - 10) as u16).to_le_bytes());
            f.extend_from_slice(h);
            f.resize(total - 1, b' ');
            f.push(b'\n');
            f.extend_from_slice(&[0u8; 12]);
            f
        },
        &ReadOptions::default(),
    )
    .unwrap();
    let mut ap = new(&rec).unwrap();
    ap.append(&rec).unwrap();
    assert_eq!(ap.header().shape(), &[2]);

    // Bytes after the payload: refused, or cut on request.
    let mut junk = to_vec(&base).unwrap();
    junk.extend_from_slice(b"leftover");
    let e = Appender::new(Cursor::new(junk.clone()), &opts).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TrailingBytes);
    assert!(e.to_string().contains("discard_trailing_bytes"), "{e}");
    let mut ap = Appender::new(
        Cursor::new(junk.clone()),
        &AppendOptions::default().with_discard_trailing_bytes(true),
    )
    .unwrap();
    // Opening touches nothing (a caller may still refuse its sources); a refused source
    // neither; the first accepted append cuts them.
    assert!(ap_bytes(&mut ap) == junk);
    let wrong = npyguard::NpyArray::from_vec(vec![1u64], vec![1])
        .unwrap()
        .to_array();
    assert!(ap.append(&wrong).is_err());
    assert!(ap_bytes(&mut ap) == junk);
    ap.append(&base).unwrap();
    let grown = read_bytes(&ap_bytes(&mut ap), &ReadOptions::default()).unwrap();
    assert_eq!(grown.shape(), &[4, 3]);

    // Truncated and over-limit files are refused as a read refuses them.
    let short = to_vec(&base).unwrap();
    let e = Appender::new(Cursor::new(short[..short.len() - 1].to_vec()), &opts).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated);
    let small = AppendOptions::default()
        .with_read_options(ReadOptions::default().with_max_file_bytes(Some(short.len() as u64)));
    let mut ap = Appender::new(Cursor::new(short.clone()), &small).unwrap();
    let e = ap
        .append(&random_array(
            &mut rng,
            &Dtype::I16(Endian::Little),
            &[1, 3],
        ))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::FileTooLarge);
    // A `U` payload holding a lone surrogate is taken as the reader (and NumPy) takes it.
    let u = random_array(&mut rng, &Dtype::Unicode(1, Endian::Little), &[1]);
    let mut surrogate = to_vec(&u).unwrap();
    let n = surrogate.len();
    surrogate[n - 4..].copy_from_slice(&0xd800u32.to_le_bytes());
    assert!(Appender::new(Cursor::new(surrogate), &opts).is_ok());
}

/// The header a NumPy before 1.24 wrote: the dict padded to 64 bytes, no growth space.
fn pre_1_24(h: &Header) -> Vec<u8> {
    let text = h.to_dict_text();
    let total = (10 + text.len() + 1).div_ceil(64) * 64;
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&((total - 10) as u16).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    out
}

/// A file as NumPy < 1.24 wrote it whose next header (with growth space) is longer.
fn full_file() -> (Array, Vec<u8>) {
    for (ndim, width) in (2..20usize).flat_map(|n| (1..2000usize).map(move |w| (n, w))) {
        let dtype = Dtype::Bytes(width);
        let rest = vec![1; ndim - 1];
        let h = Header::new(dtype.clone(), [&[1][..], &rest].concat(), false).unwrap();
        let grown = Header::new(dtype.clone(), [&[2][..], &rest].concat(), false).unwrap();
        let old = pre_1_24(&h);
        if header_bytes(&grown).len() > old.len() {
            let mut file = old;
            file.extend(std::iter::repeat_n(b'x', h.payload_len()));
            let a = read_bytes(&file, &ReadOptions::default()).unwrap();
            return (a, file);
        }
    }
    panic!("no dtype width gives a full header");
}

#[test]
fn a_header_without_room_is_refused_or_rewritten_under_the_option() {
    let (old, file) = full_file();
    let block = random_array(
        &mut Rng(5),
        old.dtype(),
        &[&[1][..], &old.shape()[1..]].concat(),
    );
    let mut ap = Appender::new(Cursor::new(file.clone()), &AppendOptions::default()).unwrap();
    let e = ap.append(&block).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::HeaderFull);
    assert!(e.to_string().contains("rewrite_when_full"), "{e}");
    assert!(ap_bytes(&mut ap) == file, "nothing written");
    // The option needs a path: a generic storage still refuses.
    let rewrite = AppendOptions::default().with_rewrite_when_full(true);
    let mut ap = Appender::new(Cursor::new(file.clone()), &rewrite).unwrap();
    assert_eq!(ap.append(&block).unwrap_err().kind(), ErrorKind::HeaderFull);

    let dir = tmp_dir("full");
    let path = dir.join("old.npy");
    std::fs::write(&path, &file).unwrap();
    let e = Appender::open(&path, &AppendOptions::default())
        .unwrap()
        .append(&block)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::HeaderFull);
    assert_eq!(std::fs::read(&path).unwrap(), file);
    let mut ap = Appender::open(&path, &rewrite.clone().with_fsync(true)).unwrap();
    ap.append(&block).unwrap();
    ap.append(&block).unwrap(); // now in place, in the rewritten file
    drop(ap);
    let grown = read_path(&path, &ReadOptions::default()).unwrap();
    assert_eq!(grown.shape()[0], 3);
    assert_eq!(std::fs::read(&path).unwrap(), to_vec(&grown).unwrap());
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "no scratch file left"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_pre_1_24_header_with_room_in_its_padding_is_updated_in_place() {
    let h = Header::new(Dtype::F64(Endian::Little), vec![2], false).unwrap();
    let mut file = pre_1_24(&h);
    assert_eq!(file.len(), 128);
    file.extend_from_slice(&[0u8; 16]);
    let mut ap = Appender::new(Cursor::new(file), &AppendOptions::default()).unwrap();
    ap.append(&random_array(&mut Rng(1), &Dtype::F64(Endian::Big), &[1]))
        .unwrap();
    let bytes = ap_bytes(&mut ap);
    let a = read_bytes(&bytes, &ReadOptions::default()).unwrap();
    assert_eq!(bytes, to_vec(&a).unwrap());
}

#[test]
fn a_path_appender_grows_the_file_on_disk() {
    let dir = tmp_dir("path");
    let path = dir.join("a.npy");
    let start = random_array(&mut Rng(11), &Dtype::U32(Endian::Little), &[2, 2]);
    npyguard::write::to_path(&path, &start).unwrap();
    let mut ap = Appender::open(&path, &AppendOptions::default().with_fsync(true)).unwrap();
    let block = random_array(&mut Rng(12), &Dtype::U32(Endian::Big), &[3, 2]);
    ap.append(&block).unwrap();
    drop(ap);
    let a = read_path(&path, &ReadOptions::default()).unwrap();
    assert_eq!(a.shape(), &[5, 2]);
    assert_eq!(std::fs::read(&path).unwrap(), to_vec(&a).unwrap());
    let e = Appender::open(dir.join("missing.npy"), &AppendOptions::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn append_options_report_what_was_set() {
    let d = AppendOptions::default();
    assert_eq!(
        (d.fsync(), d.rewrite_when_full(), d.discard_trailing_bytes()),
        (false, false, false)
    );
    let limits = ReadOptions::default().with_max_file_bytes(Some(77));
    let o = AppendOptions::default()
        .with_fsync(true)
        .with_rewrite_when_full(true)
        .with_discard_trailing_bytes(true)
        .with_read_options(limits);
    assert_eq!(
        (o.fsync(), o.rewrite_when_full(), o.discard_trailing_bytes()),
        (true, true, true)
    );
    assert_eq!(o.read_options().max_file_bytes(), Some(77));
}

#[test]
fn a_failed_header_write_stops_the_appender_until_the_file_is_reopened() {
    let old = random_array(&mut Rng(21), &Dtype::I16(Endian::Little), &[3]);
    let block = random_array(&mut Rng(22), &Dtype::I16(Endian::Little), &[2]);
    // The rows (4 bytes) are written, the header update is not.
    let storage = FailAfter {
        inner: Cursor::new(to_vec(&old).unwrap()),
        budget: 4,
    };
    let mut ap = Appender::new(storage, &AppendOptions::default()).unwrap();
    assert_eq!(ap.append(&block).unwrap_err().kind(), ErrorKind::Io);
    ap.get_mut().budget = usize::MAX;
    let e = ap.append(&block).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("reopen the file"), "{e}");
    // Appending no rows writes nothing and is never refused.
    ap.append(&random_array(
        &mut Rng(23),
        &Dtype::I16(Endian::Little),
        &[0],
    ))
    .unwrap();
    // What the storage holds reads as the old array (the new rows are trailing bytes).
    let bytes = ap.into_inner().inner.into_inner();
    let allow = ReadOptions::default().with_allow_trailing_bytes(true);
    assert_eq!(read_bytes(&bytes, &allow).unwrap(), old);
}

#[test]
fn a_borrowed_storage_and_a_file_with_trailing_bytes_append_as_owned_ones() {
    let start = random_array(&mut Rng(31), &Dtype::F32(Endian::Big), &[2, 3]);
    let block = random_array(&mut Rng(32), &Dtype::F32(Endian::Little), &[1, 3]);
    // `&mut Cursor`: the caller keeps its storage.
    let mut cursor = Cursor::new(to_vec(&start).unwrap());
    let mut ap = Appender::new(&mut cursor, &AppendOptions::default()).unwrap();
    ap.append(&block).unwrap();
    drop(ap);
    let grown = read_bytes(cursor.get_ref(), &ReadOptions::default()).unwrap();
    assert_eq!(grown.shape(), &[3, 3]);
    assert_eq!(cursor.get_ref(), &to_vec(&grown).unwrap());
    // A file with bytes after its payload: refused, or cut (File::set_len) on request.
    let dir = tmp_dir("trailing");
    let path = dir.join("t.npy");
    let mut bytes = to_vec(&start).unwrap();
    bytes.extend_from_slice(b"junk");
    std::fs::write(&path, &bytes).unwrap();
    let e = Appender::open(&path, &AppendOptions::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TrailingBytes);
    let discard = AppendOptions::default().with_discard_trailing_bytes(true);
    let mut ap = Appender::open(&path, &discard).unwrap();
    ap.append(&block).unwrap();
    drop(ap);
    assert_eq!(std::fs::read(&path).unwrap(), cursor.into_inner());
    // The file limit applies to the file as found, before anything is written.
    let small = AppendOptions::default()
        .with_read_options(ReadOptions::default().with_max_file_bytes(Some(64)));
    let e = Appender::open(&path, &small).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::FileTooLarge);
    // Only a regular file can be appended to: a FIFO is refused before any read.
    let fifo = dir.join("fifo.npy");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let e = Appender::open(&fifo, &AppendOptions::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("a regular file"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An appender over a borrowed storage (`&mut S`) syncs, cuts trailing bytes and grows the
/// file as one that owns it does; a typed array appends as its `Array`.
#[test]
fn borrowed_storage_appends_like_an_owned_one() {
    let start = npyguard::NpyArray::from_vec(vec![1i32, 2, 3, 4], vec![2, 2]).unwrap();
    let mut bytes = to_vec(&start.to_array()).unwrap();
    bytes.extend_from_slice(b"junk after the payload");
    let mut storage = Cursor::new(bytes);
    let opts = AppendOptions::default()
        .with_fsync(true)
        .with_discard_trailing_bytes(true);
    {
        let mut ap = Appender::new(&mut storage, &opts).unwrap();
        ap.append_typed(&npyguard::NpyArray::from_vec(vec![5i32, 6], vec![1, 2]).unwrap())
            .unwrap();
        assert_eq!(ap.header().shape(), &[3, 2]);
    }
    let want = npyguard::NpyArray::from_vec((1..=6i32).collect(), vec![3, 2]).unwrap();
    assert_eq!(
        storage.get_ref(),
        &to_vec(&want.to_array()).unwrap(),
        "np.save's bytes"
    );
}

/// `max_file_bytes` bounds the file an appender opens, before any byte of it is read.
#[test]
fn appender_refuses_a_file_over_max_file_bytes() {
    let start = npyguard::NpyArray::from_vec(vec![0u8; 100], vec![100]).unwrap();
    let bytes = to_vec(&start.to_array()).unwrap();
    let n = bytes.len() as u64;
    let at = |limit| {
        AppendOptions::default()
            .with_read_options(ReadOptions::default().with_max_file_bytes(Some(limit)))
    };
    assert!(Appender::new(Cursor::new(bytes.clone()), &at(n)).is_ok());
    let e = Appender::new(Cursor::new(bytes), &at(n - 1)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::FileTooLarge);
    assert_eq!(e.found_text(), Some(format!("{n} bytes").as_str()));
}
