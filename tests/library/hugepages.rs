//! The huge-page read path (`Buffer` over an anonymous mapping, feature `hugepages`) reads
//! exactly what the `Vec` path reads: every fixture, from a path and from a slice, dynamic
//! and typed, both byte orders, payloads spanning many swap steps, and truncated inputs
//! (same error kind and offset).

use std::path::PathBuf;

use npyguard::{
    read_bytes, read_path, write, Array, ArrayData, Dtype, Endian, Header, NpyArray, ReadOptions,
};

fn fixtures() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/npy");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "npy"))
        .collect();
    v.sort();
    v
}

fn mapped_opts() -> ReadOptions {
    ReadOptions::default()
        .with_max_header_bytes(1 << 20)
        .with_huge_page_threshold(1)
}

fn heap_opts() -> ReadOptions {
    ReadOptions::default()
        .with_max_header_bytes(1 << 20)
        .with_huge_page_threshold(usize::MAX)
}

/// The array's `np.save` bytes: equal bytes are equal arrays (NaN payloads and -0.0 count).
fn saved(a: &Array) -> Vec<u8> {
    write::to_vec(a).unwrap()
}

/// Whether the reader maps this array's payload (every family, `U` code units included, at
/// least one byte, complex excepted: its pairs are decoded).
fn maps(a: &Array) -> bool {
    let complex = matches!(a.data(), ArrayData::C64(_) | ArrayData::C128(_));
    cfg!(not(miri)) && a.header().payload_len() > 0 && !complex
}

#[test]
fn every_fixture_reads_the_same_into_a_mapping() {
    let (mut n, mut mapped) = (0, 0);
    for path in fixtures() {
        let heap = read_path(&path, &heap_opts()).unwrap();
        assert!(!heap.data().is_mapped(), "{}", path.display());
        let bytes = std::fs::read(&path).unwrap();
        for (how, a) in [
            ("path", read_path(&path, &mapped_opts()).unwrap()),
            ("slice", read_bytes(&bytes, &mapped_opts()).unwrap()),
        ] {
            assert_eq!(saved(&a), saved(&heap), "{} via {how}", path.display());
            assert_eq!(
                a.data().is_mapped(),
                maps(&heap),
                "{} via {how}",
                path.display()
            );
            mapped += usize::from(a.data().is_mapped());
        }
        n += 1;
    }
    assert!(n >= 400, "fixtures: {n}");
    if cfg!(not(miri)) {
        assert!(mapped >= 400, "mapped reads: {mapped} of {}", 2 * n);
    }
}

/// Typed reads into a mapping agree with the dynamic `Vec` read, for the numeric fixtures.
#[test]
fn typed_reads_into_a_mapping_agree() {
    fn check<T: npyguard::Element>(path: &std::path::Path, heap: &Array) -> bool {
        let Ok(t) = NpyArray::<T>::read_path(path, &mapped_opts()) else {
            return false;
        };
        assert_eq!(saved(&t.to_array()), saved(heap), "{}", path.display());
        let bytes = std::fs::read(path).unwrap();
        let s = NpyArray::<T>::read_bytes(&bytes, &mapped_opts()).unwrap();
        assert_eq!(
            saved(&s.to_array()),
            saved(heap),
            "{} (slice)",
            path.display()
        );
        if cfg!(not(miri)) && !t.data().is_empty() {
            assert!(t.into_buffer().is_mapped(), "{}", path.display());
        }
        true
    }
    let mut n = 0;
    for path in fixtures() {
        let heap = read_path(&path, &heap_opts()).unwrap();
        let hit = check::<f64>(&path, &heap)
            || check::<f32>(&path, &heap)
            || check::<i16>(&path, &heap)
            || check::<i32>(&path, &heap)
            || check::<i64>(&path, &heap)
            || check::<u16>(&path, &heap)
            || check::<u32>(&path, &heap)
            || check::<u64>(&path, &heap)
            || check::<i8>(&path, &heap)
            || check::<u8>(&path, &heap);
        n += usize::from(hit);
    }
    assert!(n >= 150, "typed fixtures: {n}");
}

/// Payloads of many swap steps (and a partial last step), in both byte orders and both
/// memory orders, at the default threshold (4 MiB): mapped, and equal to the `Vec` read.
#[test]
#[cfg_attr(miri, ignore)] // megabytes of values; the mapping is not used under Miri
fn large_payloads_in_both_byte_orders_are_mapped_and_equal() {
    let n = (5 << 20) / 8 + 3;
    let values: Vec<f64> = (0..n)
        .map(|i| (i as f64).sqrt() * if i % 3 == 0 { -1.0 } else { 1.0 })
        .collect();
    for endian in [Endian::Little, Endian::Big] {
        for fortran in [false, true] {
            let shape = if fortran { vec![n / 7, 7] } else { vec![n] };
            let count: usize = shape.iter().product();
            let a =
                NpyArray::from_vec_with(values[..count].to_vec(), shape, fortran, endian).unwrap();
            let bytes = write::to_vec(&a.to_array()).unwrap();
            let dynamic = read_bytes(&bytes, &ReadOptions::default()).unwrap();
            assert!(dynamic.data().is_mapped(), "{endian:?} fortran {fortran}");
            let heap = read_bytes(&bytes, &heap_opts()).unwrap();
            assert_eq!(saved(&dynamic), saved(&heap));
            let typed = NpyArray::<f64>::read_bytes(&bytes, &ReadOptions::default()).unwrap();
            assert_eq!(
                typed.data(),
                &values[..count],
                "{endian:?} fortran {fortran}"
            );
            assert_eq!(typed.to_c_order(), a.to_c_order());
            assert!(typed.into_buffer().is_mapped());
        }
    }
}

/// A payload one byte short fails the same way (kind and offset) into a mapping or a `Vec`.
#[test]
fn truncated_payloads_fail_alike() {
    let h = Header::new(Dtype::F64(Endian::Big), vec![1000], false).unwrap();
    let a = Array::new(h, ArrayData::F64(vec![1.25; 1000].into())).unwrap();
    let bytes = write::to_vec(&a).unwrap();
    for cut in [1, 7, 8, 4000] {
        let short = &bytes[..bytes.len() - cut];
        let m = read_bytes(short, &mapped_opts()).unwrap_err();
        let v = read_bytes(short, &heap_opts()).unwrap_err();
        assert_eq!((m.kind(), m.offset()), (v.kind(), v.offset()), "cut {cut}");
        let m = NpyArray::<f64>::read_bytes(short, &mapped_opts()).unwrap_err();
        assert_eq!(
            (m.kind(), m.offset()),
            (v.kind(), v.offset()),
            "typed, cut {cut}"
        );
    }
}

/// `into_vec` copies a mapping out; clones are `Vec`s; equality ignores where values live.
#[test]
#[cfg_attr(miri, ignore)]
fn a_mapped_buffer_behaves_as_a_vec() {
    let a = NpyArray::from_vec((0..1000u32).collect(), vec![1000]).unwrap();
    let bytes = write::to_vec(&a.to_array()).unwrap();
    let t = NpyArray::<u32>::read_bytes(&bytes, &mapped_opts()).unwrap();
    let b = NpyArray::<u32>::read_bytes(&bytes, &mapped_opts())
        .unwrap()
        .into_buffer();
    assert!(b.is_mapped());
    assert!(!b.clone().is_mapped());
    assert_eq!(b, b.clone());
    assert_eq!(b.iter().copied().sum::<u32>(), 499_500);
    assert_eq!(b.into_vec(), (0..1000u32).collect::<Vec<_>>());
    assert_eq!(t.into_vec(), (0..1000u32).collect::<Vec<_>>());
}

/// `read_raw_path` / `read_raw_from` give the file's payload bytes as they are, for every
/// fixture (mapped or not), and fail exactly where `read_path` fails (kind and offset) on
/// every hostile and adversarial file.
#[test]
fn raw_payloads_are_the_files_bytes_and_fail_as_reads_fail() {
    use npyguard::{read_raw_from, read_raw_path};
    for path in fixtures() {
        let bytes = std::fs::read(&path).unwrap();
        let want = read_path(&path, &heap_opts()).unwrap();
        for opts in [mapped_opts(), heap_opts()] {
            let (h, raw) = read_raw_path(&path, &opts).unwrap();
            assert_eq!(&h, want.header(), "{}", path.display());
            let range = h.payload_range();
            let range = range.start as usize..range.end as usize;
            assert_eq!(&raw[..], &bytes[range.clone()], "{}", path.display());
            let (_, streamed) = read_raw_from(&bytes[..], &opts).unwrap();
            assert_eq!(&streamed[..], &bytes[range], "{} (stream)", path.display());
        }
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    for dir in ["tests/hostile", "tests/adversarial"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_none_or(|x| x != "npy") {
                continue;
            }
            let opts = ReadOptions::default();
            match (read_path(&path, &opts), read_raw_path(&path, &opts)) {
                (Err(a), Err(b)) => assert_eq!(
                    (a.kind(), a.offset()),
                    (b.kind(), b.offset()),
                    "{}",
                    path.display()
                ),
                (Ok(_), Ok(_)) => {}
                (a, b) => panic!(
                    "{}: read_path {:?} but read_raw_path {:?}",
                    path.display(),
                    a.err(),
                    b.err()
                ),
            }
            n += 1;
        }
    }
    assert!(n >= 50, "hostile files: {n}");
}
