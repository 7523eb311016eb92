//! Views, row ranges and row chunks against the owned read, over every NumPy fixture
//! (tests/fixtures/npy: every dtype in both byte orders, C and Fortran order, 0-d to 5-D,
//! empty arrays): the same values bit for bit, zero copies where the payload is aligned
//! and native, and only the rows asked for.

use std::io::Cursor;
use std::path::PathBuf;

use npyguard::{
    read_bytes, write, Array, ArrayView, Dtype, Element, ErrorKind, Header, ReadOptions, RowChunks,
    RowReader, Table, View,
};

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/npy");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "npy"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).expect("read"))
        })
        .collect();
    out.sort();
    assert!(out.len() > 400, "the fixtures are there");
    out
}

/// One fixture has a 72 116-byte header (written and read by NumPy with `max_header_size`
/// raised); npyguard's 64 KiB default cap is raised for it as in tests/library/fixtures.rs.
fn opts() -> ReadOptions {
    ReadOptions::default().with_max_header_bytes(1 << 20)
}

/// The payload bytes of `a` in C order, as the writer encodes them (NaN-proof comparison).
fn c_payload(a: &Array) -> Vec<u8> {
    let bytes = write::to_vec(&a.to_c_order()).unwrap();
    let h = Header::from_bytes(&bytes, &opts()).unwrap();
    bytes[h.payload_offset() as usize..].to_vec()
}

/// `bytes` copied to a fresh buffer at an address that is `shift` bytes past a multiple of 64.
fn placed(bytes: &[u8], shift: usize) -> (Vec<u8>, usize) {
    let mut store = vec![0u8; bytes.len() + 128];
    let base = store.as_ptr() as usize;
    let at = (64 - base % 64) % 64 + shift;
    store[at..at + bytes.len()].copy_from_slice(bytes);
    (store, at)
}

/// Checks the typed view of `T` over `bytes` against the typed owned read; returns whether
/// `as_slice` borrowed the payload (asserting it is the payload itself when it does).
fn typed_agrees<T: Element>(bytes: &[u8], name: &str) -> bool {
    let view = ArrayView::<T>::new(bytes, &opts()).unwrap();
    let owned = npyguard::NpyArray::<T>::read_bytes(bytes, &opts()).unwrap();
    let enc = |v: &[T]| {
        let mut out = Vec::new();
        T::encode_into(v, npyguard::Endian::Little, &mut out);
        out
    };
    assert_eq!(enc(&view.to_vec()), enc(owned.data()), "{name}: to_vec");
    assert_eq!(
        enc(&view.iter().collect::<Vec<_>>()),
        enc(owned.data()),
        "{name}: iter"
    );
    for i in [0, view.len() / 2, view.len().saturating_sub(1)] {
        if i < view.len() {
            assert_eq!(
                enc(&[view.get(i).unwrap()]),
                enc(&[owned.data()[i]]),
                "{name}: get({i})"
            );
        }
    }
    assert!(view.get(view.len()).is_none());
    match view.as_slice() {
        Some(s) => {
            assert_eq!(
                s.as_ptr().cast::<u8>(),
                view.payload().as_ptr(),
                "{name}: zero copy"
            );
            let h = view.header();
            assert_eq!(
                view.payload().as_ptr(),
                bytes[h.payload_offset() as usize..].as_ptr(),
                "{name}: the payload is borrowed from the caller's bytes"
            );
            true
        }
        None => false,
    }
}

/// Runs `typed_agrees` with the element type of `dtype`, if it has one here.
fn typed_by_dtype(dtype: &Dtype, bytes: &[u8], name: &str) -> Option<bool> {
    Some(match dtype {
        Dtype::Bool => typed_agrees::<bool>(bytes, name),
        Dtype::I8 => typed_agrees::<i8>(bytes, name),
        Dtype::U8 => typed_agrees::<u8>(bytes, name),
        Dtype::I16(_) => typed_agrees::<i16>(bytes, name),
        Dtype::I32(_) => typed_agrees::<i32>(bytes, name),
        Dtype::I64(_) => typed_agrees::<i64>(bytes, name),
        Dtype::U16(_) => typed_agrees::<u16>(bytes, name),
        Dtype::U32(_) => typed_agrees::<u32>(bytes, name),
        Dtype::U64(_) => typed_agrees::<u64>(bytes, name),
        #[cfg(feature = "half")]
        Dtype::F16(_) => typed_agrees::<half::f16>(bytes, name),
        Dtype::F32(_) => typed_agrees::<f32>(bytes, name),
        Dtype::F64(_) => typed_agrees::<f64>(bytes, name),
        _ => return None,
    })
}

/// Whether `as_slice` must borrow: a plain number type of several bytes in the host's order
/// or a one-byte integer, with the payload aligned for it.
fn must_borrow(dtype: &Dtype, addr: usize) -> bool {
    let native = dtype.endian().is_none_or(|e| e == npyguard::Endian::HOST);
    let plain = matches!(
        dtype,
        Dtype::I8
            | Dtype::U8
            | Dtype::I16(_)
            | Dtype::I32(_)
            | Dtype::I64(_)
            | Dtype::U16(_)
            | Dtype::U32(_)
            | Dtype::U64(_)
            | Dtype::F32(_)
            | Dtype::F64(_)
    );
    plain && native && addr % dtype.itemsize().max(1) == 0
}

#[test]
fn views_read_every_fixture_as_the_owned_read_does() {
    let (mut borrowed, mut decoded) = (0, 0);
    for (name, file) in fixtures() {
        for shift in 0..8 {
            let (store, at) = placed(&file, shift);
            let bytes = &store[at..at + file.len()];
            let owned = read_bytes(bytes, &opts()).unwrap();
            let view = View::new(bytes, &opts()).unwrap();
            assert_eq!(view.header(), owned.header(), "{name}");
            let range = view.header().payload_range();
            assert_eq!(
                range.end,
                file.len() as u64,
                "{name}: the payload ends the file"
            );
            assert_eq!(view.payload(), &bytes[range.start as usize..], "{name}");
            assert_eq!(
                c_payload(&view.to_array().unwrap()),
                c_payload(&owned),
                "{name}"
            );
            let payload_addr = view.payload().as_ptr() as usize;
            if let Some(zero_copy) = typed_by_dtype(owned.dtype(), bytes, &name) {
                let must = must_borrow(owned.dtype(), payload_addr);
                assert!(
                    !must || zero_copy,
                    "{name} shifted {shift}: aligned and native must borrow"
                );
                if zero_copy {
                    borrowed += 1;
                } else {
                    decoded += 1;
                }
            }
        }
    }
    // Little-endian numeric fixtures at shift 0 borrow; big-endian and shifted ones decode.
    assert!(
        borrowed > 300 && decoded > 1000,
        "borrowed {borrowed}, decoded {decoded}"
    );
}

#[test]
fn views_over_a_memory_map_borrow_the_map() {
    let dir = std::env::temp_dir().join(format!("npyguard-views-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut zero_copy = 0;
    for (name, file) in fixtures() {
        let path = dir.join(&name);
        std::fs::write(&path, &file).unwrap();
        let f = std::fs::File::open(&path).unwrap();
        // SAFETY (the caller's, as in examples/mmap_view.rs): the file is ours and nobody
        // changes it while it is mapped.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&f) }.unwrap();
        let view = View::new(&map, &opts()).unwrap();
        let owned = read_bytes(&file, &opts()).unwrap();
        assert_eq!(
            c_payload(&view.to_array().unwrap()),
            c_payload(&owned),
            "{name}"
        );
        if let Some(borrowed) = typed_by_dtype(owned.dtype(), &map, &name) {
            // A page-aligned map borrows exactly the native plain numbers.
            let must = must_borrow(owned.dtype(), view.payload().as_ptr() as usize);
            assert_eq!(borrowed, must, "{name}");
            zero_copy += usize::from(borrowed);
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(zero_copy > 40, "{zero_copy}");
}

#[test]
fn views_refuse_what_reads_refuse_with_the_same_error() {
    let file = fixtures()
        .into_iter()
        .find(|(n, _)| n == "lt_f8__C__2x3.npy")
        .unwrap()
        .1;
    let mut long = file.clone();
    long.push(0);
    let cases: Vec<(&str, Vec<u8>, ReadOptions)> = vec![
        ("truncated", file[..file.len() - 1].to_vec(), opts()),
        ("trailing", long.clone(), opts()),
        ("header only", file[..128].to_vec(), opts()),
        (
            "too large",
            file.clone(),
            opts().with_max_file_bytes(Some(100)),
        ),
        (
            "bad magic",
            [b"\x93NUMPX".as_slice(), &file[6..]].concat(),
            opts(),
        ),
    ];
    for (what, bytes, o) in cases {
        let want = read_bytes(&bytes, &o).unwrap_err();
        let got = View::new(&bytes, &o).unwrap_err();
        assert_eq!(
            (got.kind(), got.offset()),
            (want.kind(), want.offset()),
            "{what}"
        );
    }
    // Trailing bytes allowed: the view ends at the payload.
    let v = View::new(&long, &opts().with_allow_trailing_bytes(true)).unwrap();
    assert_eq!(v.payload().len(), 48);
    // A U array holding a lone surrogate is read and viewed as NumPy reads it.
    let u = npyguard::NpyArray::<u32>::from_vec(vec![0x41, 0xD800], vec![2]).unwrap();
    let mut bytes = write::to_vec(&u.to_array()).unwrap();
    let text = b"'<U1'";
    let at = bytes.windows(5).position(|w| w == b"'<u4'").unwrap();
    bytes[at..at + 5].copy_from_slice(text);
    let read = read_bytes(&bytes, &opts()).unwrap();
    assert_eq!(read.units_at(1), Some(&[0xD800][..]));
    let view = View::new(&bytes, &opts()).unwrap();
    assert_eq!(view.to_array().unwrap(), read);
    // A typed view of another type is refused as the typed read refuses it.
    let e = ArrayView::<i32>::new(&file, &opts()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TypeMismatch);
}

#[test]
fn row_ranges_are_slices_of_the_full_read_for_every_fixture() {
    let mut checked = 0;
    for (name, file) in fixtures() {
        let full = read_bytes(&file, &opts()).unwrap();
        let mut reader = RowReader::new(Cursor::new(&file), &opts()).unwrap();
        let rows = reader.num_rows();
        let whole = c_payload(&full);
        let row_bytes = whole.len().checked_div(rows).unwrap_or(0);
        for a in 0..=rows {
            for b in a..=rows {
                let part = reader.read_rows(a..b).unwrap();
                assert_eq!(part.fortran_order(), full.fortran_order(), "{name}");
                if !full.shape().is_empty() {
                    assert_eq!(part.shape()[0], b - a, "{name}");
                    assert_eq!(&part.shape()[1..], &full.shape()[1..], "{name}");
                }
                assert_eq!(
                    c_payload(&part),
                    whole[a * row_bytes..b * row_bytes],
                    "{name} rows {a}..{b}"
                );
                // A C-order view of the same rows borrows the same bytes.
                if !full.fortran_order() || full.shape().len() < 2 {
                    if !full.shape().is_empty() {
                        let v = View::new(&file, &opts()).unwrap().rows(a..b).unwrap();
                        assert_eq!(
                            c_payload(&v.to_array().unwrap()),
                            c_payload(&part),
                            "{name}"
                        );
                    }
                }
                checked += 1;
            }
        }
        let e = reader.read_rows(0..rows + 1).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{name}");
    }
    assert!(checked > 3000, "{checked}");
}

/// `RowReader::read_column` reads element `(r, c)` of every row asked for, as the C-order
/// full read holds it (columns numbered as `Table` numbers them: the trailing axes
/// flattened in C order), in both memory orders, 0-d to 5-D; and refuses rows or a column
/// outside the table.
#[test]
fn columns_are_the_full_reads_columns_for_every_fixture() {
    let mut checked = 0;
    for (name, file) in fixtures() {
        let full = read_bytes(&file, &opts()).unwrap();
        let table = Table::of(full.header()).unwrap();
        let (rows, cols) = (table.rows(), table.cols());
        let whole = c_payload(&full);
        let item = table.item_bytes();
        let mut reader = RowReader::new(Cursor::new(&file), &opts()).unwrap();
        for c in 0..cols.min(7) {
            for (a, b) in [
                (0, rows),
                (rows / 2, rows),
                (0, rows.min(1)),
                (rows / 3, rows / 3 + rows.min(2) / 2),
            ] {
                let col = reader.read_column(c, a..b).unwrap();
                assert_eq!(col.shape(), &[b - a], "{name}");
                assert!(!col.fortran_order(), "{name}");
                let want: Vec<u8> = (a..b)
                    .flat_map(|r| {
                        let at = (r * cols + c) * item;
                        whole[at..at + item].to_vec()
                    })
                    .collect();
                assert_eq!(c_payload(&col), want, "{name} column {c} rows {a}..{b}");
                checked += 1;
            }
        }
        let e = reader.read_column(cols, 0..rows).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{name}");
        let e = reader.read_column(0, 0..rows + 1).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{name}");
    }
    assert!(checked > 2000, "{checked}");
}

#[test]
fn row_chunks_cover_every_fixture() {
    for (name, file) in fixtures() {
        let full = read_bytes(&file, &opts()).unwrap();
        let fortran = full.fortran_order() && full.shape().len() > 1;
        for step in [1, 2, 3, 1000] {
            let chunks = RowChunks::new(&file[..], step, &opts()).unwrap();
            let parts: Vec<Array> = chunks.collect::<Result<_, _>>().unwrap();
            if fortran {
                // A stream cannot gather Fortran rows: the array is one chunk.
                assert_eq!(parts.len(), 1, "{name}");
                assert_eq!(c_payload(&parts[0]), c_payload(&full), "{name}");
                continue;
            }
            let joined: Vec<u8> = parts.iter().flat_map(c_payload).collect();
            assert_eq!(joined, c_payload(&full), "{name} by {step}");
            // At most `step` rows per chunk, except the one chunk of an empty payload.
            let empty = full.header().payload_len() == 0;
            assert!(parts
                .iter()
                .all(|p| empty || p.shape().first().is_none_or(|&n| n <= step)));
        }
        // The seekable reader's chunks gather Fortran rows too.
        let reader = RowReader::new(Cursor::new(&file), &opts()).unwrap();
        let joined: Vec<u8> = reader
            .into_chunks(2)
            .flat_map(|c| c_payload(&c.unwrap()))
            .collect();
        assert_eq!(joined, c_payload(&full), "{name}");
    }
}

#[test]
fn row_chunks_check_the_end_of_the_stream() {
    let a = npyguard::NpyArray::from_vec((0..12u16).collect(), vec![6, 2]).unwrap();
    let file = write::to_vec(&a.to_array()).unwrap();
    let mut long = file.clone();
    long.extend_from_slice(b"xx");
    let results: Vec<_> = RowChunks::new(&long[..], 4, &opts()).unwrap().collect();
    assert_eq!(results.len(), 2);
    assert!(results[0].is_ok());
    let e = results[1].as_ref().unwrap_err();
    let want = read_bytes(&long, &opts()).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (want.kind(), want.offset()));
    let ok = RowChunks::new(&long[..], 4, &opts().with_allow_trailing_bytes(true)).unwrap();
    assert_eq!(ok.filter(|r| r.is_ok()).count(), 2);
    let short = &file[..file.len() - 3];
    let last = RowChunks::new(short, 4, &opts())
        .unwrap()
        .last()
        .unwrap()
        .unwrap_err();
    assert_eq!(last.kind(), ErrorKind::Truncated);
    // A header that claims far more rows than the stream holds allocates as bytes arrive.
    let claim = Header::new(Dtype::U8, vec![1 << 40], false).unwrap();
    let mut lie = write::header_bytes(&claim);
    lie.extend_from_slice(&[1, 2, 3]);
    let mut it = RowChunks::new(&lie[..], 1 << 39, &opts()).unwrap();
    assert_eq!(it.next().unwrap().unwrap_err().kind(), ErrorKind::Truncated);
    assert!(it.next().is_none());
}

/// Row ranges are checked before any byte is touched, with what was asked in the error.
#[test]
fn view_rows_refuse_what_they_cannot_hand_out_contiguously() {
    let c = npyguard::NpyArray::from_vec((0..6i32).collect(), vec![3, 2]).unwrap();
    let bytes = write::to_vec(&c.to_array()).unwrap();
    let v = View::new(&bytes, &opts()).unwrap();
    assert_eq!(v.rows(1..3).unwrap().to_array().unwrap().shape(), &[2, 2]);
    for bad in [2..1, 0..4] {
        let e = v.rows(bad.clone()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert_eq!(
            e.found_text(),
            Some(format!("{}..{}", bad.start, bad.end).as_str())
        );
        assert!(e.to_string().contains("inside 0..3"), "{e}");
    }
    let f = npyguard::NpyArray::from_vec_with(
        (0..6i32).collect(),
        vec![3, 2],
        true,
        npyguard::Endian::Little,
    )
    .unwrap();
    let bytes = write::to_vec(&f.to_array()).unwrap();
    let e = View::new(&bytes, &opts()).unwrap().rows(0..1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(
        e.to_string().contains("RowReader"),
        "says where Fortran rows are: {e}"
    );
    let scalar = npyguard::NpyArray::from_vec(vec![7u8], vec![]).unwrap();
    let bytes = write::to_vec(&scalar.to_array()).unwrap();
    let e = View::new(&bytes, &opts()).unwrap().rows(0..1).unwrap_err();
    assert_eq!(e.found_text(), Some("a 0-d array"));
}

/// `RowReader::open` reads files by path, and `into_inner` hands the input back where the
/// last read left it.
#[test]
fn row_reader_opens_paths_and_gives_its_input_back() {
    let a = npyguard::NpyArray::from_vec((0..12u16).collect(), vec![4, 3]).unwrap();
    let bytes = write::to_vec(&a.to_array()).unwrap();
    let path = std::env::temp_dir().join(format!("npyguard-rows-open-{}.npy", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    let mut r = RowReader::open(&path, &opts()).unwrap();
    assert_eq!(r.num_rows(), 4);
    let rows = r.read_rows(3..4).unwrap();
    let last = npyguard::NpyArray::from_vec(vec![9u16, 10, 11], vec![1, 3]).unwrap();
    assert_eq!(rows, last.to_array());
    use std::io::Seek;
    let mut file = r.into_inner();
    assert_eq!(
        file.stream_position().unwrap(),
        bytes.len() as u64,
        "after the last row"
    );
    std::fs::remove_file(&path).unwrap();
    let e = RowReader::open(&path, &opts()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(e.to_string().contains("cannot open"), "{e}");
}
