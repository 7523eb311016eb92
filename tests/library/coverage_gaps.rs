//! Behaviour the rest of the suite did not exercise (found with
//! `cargo llvm-cov --features cli --lib --tests`, see SECURITY.md): limits on the
//! in-memory reader, public API error paths, limits that only code-built
//! descrs can reach, big-endian direct reads, f16 elements, and the `.npz`
//! end-record defenses (multi-disk archives, zip64 end records, extra fields).
//! Every test asserts what the behaviour is, not merely that code runs.

use std::collections::HashSet;
use std::io::Cursor;

use npyguard::literal::{Literal, Value};
use npyguard::write::StreamWriter;
use npyguard::Version;
use npyguard::{
    layout, read_bytes, read_from, read_path, write, Array, ArrayData, DateUnit, Dtype, Endian,
    Error, ErrorKind, Field, Header, NpyArray, ReadOptions, Record, TimeUnit,
};

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("npyguard-coverage-{}-{name}", std::process::id()))
}

fn f64_file(values: &[f64]) -> Vec<u8> {
    write::to_vec(
        &NpyArray::from_vec(values.to_vec(), vec![values.len()])
            .unwrap()
            .to_array(),
    )
    .unwrap()
}

// ------------------------------------------------------------------ read ---

#[test]
fn every_reader_enforces_max_file_bytes_at_the_exact_limit() {
    let file = f64_file(&[1.0, 2.0, 3.0]);
    let n = file.len() as u64;
    let path = temp("limit.npy");
    std::fs::write(&path, &file).unwrap();
    let at = ReadOptions::default().with_max_file_bytes(Some(n));
    let below = ReadOptions::default().with_max_file_bytes(Some(n - 1));
    for (how, ok, err) in [
        ("bytes", read_bytes(&file, &at), read_bytes(&file, &below)),
        (
            "stream",
            read_from(Cursor::new(&file), &at),
            read_from(Cursor::new(&file), &below),
        ),
        ("path", read_path(&path, &at), read_path(&path, &below)),
    ] {
        assert_eq!(
            ok.unwrap().data(),
            &ArrayData::F64(vec![1.0, 2.0, 3.0].into()),
            "{how}"
        );
        let e = err.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::FileTooLarge, "{how}: {e}");
    }
    // The in-memory reader refuses before parsing anything: the error names the limit.
    let e = read_bytes(&file, &below).unwrap_err();
    assert_eq!(e.offset(), Some(n - 1));
    assert_eq!(e.found_text(), Some(format!("{n} bytes").as_str()));
    std::fs::remove_file(&path).ok();
}

#[test]
fn read_options_report_what_was_set() {
    let d = ReadOptions::new();
    assert_eq!(d, ReadOptions::default());
    assert_eq!(d.max_file_bytes(), None);
    assert_eq!(d.max_header_bytes(), 64 * 1024);
    assert!(!d.numpy_strict());
    assert!(!d.allow_trailing_bytes());
    assert_eq!(d.max_npz_members(), Some(1 << 16));
    assert_eq!(d.max_npz_total_bytes(), None);
    assert_eq!(
        d.max_npz_ratio(),
        Some(npyguard::limits::DEFAULT_MAX_NPZ_RATIO)
    );
    let o = ReadOptions::new()
        .with_max_file_bytes(Some(10))
        .with_max_header_bytes(20)
        .with_numpy_strict(true)
        .with_allow_trailing_bytes(true)
        .with_max_npz_members(Some(3))
        .with_max_npz_total_bytes(Some(40))
        .with_max_npz_ratio(Some(50));
    assert_eq!(o.max_file_bytes(), Some(10));
    assert_eq!(o.max_header_bytes(), 20);
    assert!(o.numpy_strict());
    assert!(o.allow_trailing_bytes());
    assert_eq!(o.max_npz_members(), Some(3));
    assert_eq!(o.max_npz_total_bytes(), Some(40));
    assert_eq!(o.max_npz_ratio(), Some(50));
}

#[test]
fn errors_expose_what_was_expected_and_found() {
    let e = read_bytes(b"\x93NUMPZ\x01\x00", &ReadOptions::default()).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::BadMagic, Some(5)));
    assert!(e.expected().contains("magic"), "{}", e.expected());
    assert_eq!(e.found_text(), Some("byte 0x5a"));
    assert!(e.to_string().contains(", found byte 0x5a"), "{e}");
    let plain = Error::new(ErrorKind::InvalidInput, 3, "something");
    assert_eq!(plain.found_text(), None);
    assert_eq!(plain.expected(), "something");
    assert!(!plain.to_string().contains("found"), "{plain}");
    // Kind names are what the corpus file names use: distinct and kebab-case.
    let kinds = [
        ErrorKind::BadMagic,
        ErrorKind::UnsupportedVersion,
        ErrorKind::HeaderTooLong,
        ErrorKind::HeaderEncoding,
        ErrorKind::HeaderSyntax,
        ErrorKind::NestingTooDeep,
        ErrorKind::DuplicateKey,
        ErrorKind::MissingKey,
        ErrorKind::UnknownKey,
        ErrorKind::BadValue,
        ErrorKind::BadDescr,
        ErrorKind::UnsupportedDtype,
        ErrorKind::DuplicateField,
        ErrorKind::ShapeOverflow,
        ErrorKind::Truncated,
        ErrorKind::TrailingBytes,
        ErrorKind::FileTooLarge,
        ErrorKind::BadPayload,
        ErrorKind::TypeMismatch,
        ErrorKind::InvalidInput,
        ErrorKind::Io,
    ];
    let names: HashSet<&str> = kinds.iter().map(|k| k.name()).collect();
    assert_eq!(names.len(), kinds.len());
    assert!(names
        .iter()
        .all(|n| n.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')));
    assert!(names.contains("file-too-large") && names.contains("truncated"));
}

// ------------------------------------------------------- header and dtype ---

#[test]
fn header_new_allows_64_dimensions_not_65() {
    assert_eq!(
        Header::new(Dtype::F64(Endian::Little), vec![1; 64], false)
            .unwrap()
            .shape()
            .len(),
        64
    );
    let e = Header::new(Dtype::F64(Endian::Little), vec![1; 65], false).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ShapeOverflow);
    assert_eq!(e.found_text(), Some("65 dimensions"));
}

#[test]
fn with_endian_changes_exactly_the_multibyte_types() {
    let unit = DateUnit {
        unit: TimeUnit::Second,
        multiple: 1,
    };
    let multibyte = [
        Dtype::I16(Endian::Little),
        Dtype::I32(Endian::Little),
        Dtype::I64(Endian::Little),
        Dtype::U16(Endian::Little),
        Dtype::U32(Endian::Little),
        Dtype::U64(Endian::Little),
        Dtype::F16(Endian::Little),
        Dtype::F32(Endian::Little),
        Dtype::F64(Endian::Little),
        Dtype::C64(Endian::Little),
        Dtype::C128(Endian::Little),
        Dtype::Unicode(3, Endian::Little),
        Dtype::DateTime(unit, Endian::Little),
        Dtype::TimeDelta(unit, Endian::Little),
    ];
    for d in multibyte {
        let big = d.with_endian(Endian::Big);
        assert_eq!(big.endian(), Some(Endian::Big), "{d:?}");
        assert_eq!(big.itemsize(), d.itemsize());
        assert_eq!(big.typestr().replacen('>', "<", 1), d.typestr());
        assert_eq!(big.with_endian(Endian::Little), d);
    }
    let record = Dtype::Record(Record {
        fields: vec![Field {
            name: "a".into(),
            title: None,
            dtype: Dtype::I32(Endian::Little),
            shape: vec![],
            nesting: Vec::new(),
            offset: 0,
        }],
        itemsize: 4,
    });
    for d in [
        Dtype::Bool,
        Dtype::I8,
        Dtype::U8,
        Dtype::Bytes(4),
        Dtype::Void(2),
        record,
    ] {
        assert_eq!(d.with_endian(Endian::Big), d, "{d:?} has no byte order");
        assert_eq!(d.endian(), None);
    }
}

#[test]
fn every_time_unit_code_reads_back_as_that_unit() {
    let units = [
        TimeUnit::Year,
        TimeUnit::Month,
        TimeUnit::Week,
        TimeUnit::Day,
        TimeUnit::Hour,
        TimeUnit::Minute,
        TimeUnit::Second,
        TimeUnit::Milli,
        TimeUnit::Micro,
        TimeUnit::Nano,
        TimeUnit::Pico,
        TimeUnit::Femto,
        TimeUnit::Atto,
    ];
    for u in units {
        let d = Dtype::from_typestr(&format!("<m8[7{}]", u.code())).unwrap();
        assert_eq!(
            d,
            Dtype::TimeDelta(
                DateUnit {
                    unit: u,
                    multiple: 7
                },
                Endian::Little
            )
        );
        assert_eq!(d.typestr(), format!("<m8[7{}]", u.code()));
    }
    assert_eq!(TimeUnit::Generic.code(), "generic");
    assert_eq!(
        Dtype::from_typestr("<M8[generic]").unwrap().typestr(),
        "<M8"
    );
}

fn s(v: &str) -> Literal {
    Literal::new(Value::Str(v.into()))
}

/// A record descr nested `depth` levels deep, built in code (no parser, so no bracket limit).
fn nested(depth: usize) -> Literal {
    let mut t = s("<f8");
    for _ in 0..depth {
        t = Literal::new(Value::List(vec![Literal::new(Value::Tuple(vec![
            s("a"),
            t,
        ]))]));
    }
    t
}

#[test]
fn descr_limits_hold_for_descrs_built_in_code() {
    // The parser's bracket limit stops nested records at 15 levels in a header; a descr
    // built as a Literal meets the record limit itself: 16 levels.
    assert!(Dtype::from_descr(&nested(16)).is_ok());
    assert_eq!(
        Dtype::from_descr(&nested(17)).unwrap_err().kind(),
        ErrorKind::NestingTooDeep
    );
    let fields = |n: usize| {
        Literal::new(Value::List(
            (0..n)
                .map(|i| Literal::new(Value::Tuple(vec![s(&format!("f{i}")), s("|u1")])))
                .collect(),
        ))
    };
    let Dtype::Record(r) = Dtype::from_descr(&fields(4096)).unwrap() else {
        panic!("a record")
    };
    assert_eq!((r.fields.len(), r.itemsize), (4096, 4096));
    let e = Dtype::from_descr(&fields(4097)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadDescr);
    assert!(e.expected().contains("4096"), "{e}");
}

#[test]
fn literals_compare_and_hash_by_value_not_offset() {
    let a = Literal {
        offset: 3,
        value: Value::Str("x".into()),
    };
    let b = Literal {
        offset: 90,
        value: Value::Str("x".into()),
    };
    let c = Literal {
        offset: 3,
        value: Value::Str("y".into()),
    };
    assert_eq!(a, b);
    assert_ne!(a, c);
    let set: HashSet<Literal> = [a, b, c].into_iter().collect();
    assert_eq!(set.len(), 2);
}

// ----------------------------------------------------------------- arrays ---

#[test]
fn array_new_checks_the_data_kind_and_count() {
    let h = Header::new(Dtype::F64(Endian::Little), vec![2], false).unwrap();
    assert_eq!(
        Array::new(h.clone(), ArrayData::I32(vec![1, 2].into()))
            .unwrap_err()
            .kind(),
        ErrorKind::TypeMismatch
    );
    let e = Array::new(h.clone(), ArrayData::F64(vec![1.0].into())).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert_eq!(e.found_text(), Some("1 stored units (1 per element)"));
    let a = Array::new(h.clone(), ArrayData::F64(vec![1.0, 2.0].into())).unwrap();
    assert!(!a.is_empty());
    let (h2, d2) = a.into_parts();
    assert_eq!((h2, d2), (h, ArrayData::F64(vec![1.0, 2.0].into())));
    let empty = Array::new(
        Header::new(Dtype::U8, vec![0, 3], false).unwrap(),
        ArrayData::U8(vec![].into()),
    )
    .unwrap();
    assert!(empty.is_empty());
    // Strings count characters: 2 elements of U3 are 6 chars.
    let u = Header::new(Dtype::Unicode(3, Endian::Little), vec![2], false).unwrap();
    assert_eq!(
        Array::new(u.clone(), ArrayData::Unicode(vec![0x61; 5].into()))
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
    assert!(Array::new(u, ArrayData::Unicode(vec![0x61; 6].into())).is_ok());
}

#[test]
fn typed_arrays_check_counts_and_indexes() {
    assert_eq!(
        NpyArray::from_vec(vec![1.0f64], vec![2])
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
    let a = NpyArray::from_vec(vec![1u16, 2, 3, 4, 5, 6], vec![2, 3]).unwrap();
    assert_eq!(a.get(&[1, 2]), Some(&6));
    assert_eq!(a.get(&[1]), None, "an index of the wrong length");
    assert_eq!(a.get(&[2, 0]), None, "an index out of bounds");
    assert_eq!(a.into_vec(), vec![1, 2, 3, 4, 5, 6]);
}

#[test]
fn field_access_needs_a_record_and_a_known_name() {
    let plain = NpyArray::from_vec(vec![1i32], vec![1]).unwrap().to_array();
    assert_eq!(
        plain.field("a").unwrap_err().kind(),
        ErrorKind::TypeMismatch
    );
    let header = b"{'descr': [('a', '<i2')], 'fortran_order': False, 'shape': (1,)}";
    let mut file = b"\x93NUMPY\x01\x00".to_vec();
    file.extend_from_slice(&(header.len() as u16).to_le_bytes());
    file.extend_from_slice(header);
    file.extend_from_slice(&7i16.to_le_bytes());
    let rec = read_bytes(&file, &ReadOptions::default()).unwrap();
    assert_eq!(
        rec.field("a").unwrap().data(),
        &ArrayData::I16(vec![7].into())
    );
    let e = rec.field("b").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.expected().contains("\"b\""), "{e}");
}

#[test]
fn element_accessors_only_answer_for_their_dtypes() {
    let u = Array::new(
        Header::new(Dtype::Unicode(2, Endian::Little), vec![2], false).unwrap(),
        ArrayData::Unicode(vec![0x68, 0x69, 0x78, 0].into()),
    )
    .unwrap();
    assert_eq!(u.str_at(0).unwrap().as_deref(), Some("hi"));
    assert_eq!(
        u.str_at(1).unwrap().as_deref(),
        Some("x"),
        "trailing NULs stripped"
    );
    assert_eq!(u.str_at(2).unwrap(), None);
    assert_eq!(u.units_at(1), Some(&[0x78][..]));
    assert_eq!(u.bytes_at(0), None, "a U array has no bytes");
    let b = Array::new(
        Header::new(Dtype::Bytes(2), vec![1], false).unwrap(),
        ArrayData::Bytes(b"ab".to_vec().into()),
    )
    .unwrap();
    assert_eq!(b.bytes_at(0), Some(&b"ab"[..]));
    assert_eq!(b.str_at(0).unwrap(), None, "an S array has no str");
    assert_eq!(b.units_at(0), None, "an S array has no code units");
}

#[test]
fn lossy_f64_view_covers_every_integer_kind() {
    let cases: Vec<(Array, Vec<f64>)> = vec![
        (
            NpyArray::from_vec(vec![true, false], vec![2])
                .unwrap()
                .to_array(),
            vec![1.0, 0.0],
        ),
        (
            NpyArray::from_vec(vec![-128i8, 127], vec![2])
                .unwrap()
                .to_array(),
            vec![-128.0, 127.0],
        ),
        (
            NpyArray::from_vec(vec![0u8, 255], vec![2])
                .unwrap()
                .to_array(),
            vec![0.0, 255.0],
        ),
        (
            NpyArray::from_vec(vec![i16::MIN, 7], vec![2])
                .unwrap()
                .to_array(),
            vec![-32768.0, 7.0],
        ),
        (
            NpyArray::from_vec(vec![u16::MAX, 1], vec![2])
                .unwrap()
                .to_array(),
            vec![65535.0, 1.0],
        ),
        (
            NpyArray::from_vec(vec![i32::MIN, 5], vec![2])
                .unwrap()
                .to_array(),
            vec![-2147483648.0, 5.0],
        ),
        (
            NpyArray::from_vec(vec![u32::MAX, 3], vec![2])
                .unwrap()
                .to_array(),
            vec![4294967295.0, 3.0],
        ),
        (
            NpyArray::from_vec(vec![-(1i64 << 53), 9], vec![2])
                .unwrap()
                .to_array(),
            vec![-9007199254740992.0, 9.0],
        ),
        (
            NpyArray::from_vec(vec![u64::MAX, 2], vec![2])
                .unwrap()
                .to_array(),
            vec![18446744073709551615.0, 2.0],
        ),
        (
            NpyArray::from_vec(vec![0.5f32, -2.0], vec![2])
                .unwrap()
                .to_array(),
            vec![0.5, -2.0],
        ),
        (
            NpyArray::from_vec(vec![0.1f64, -1e300], vec![2])
                .unwrap()
                .to_array(),
            vec![0.1, -1e300],
        ),
        (
            // f2 bit patterns: 1.0, -2.0, 65504 (the largest finite half).
            Array::new(
                Header::new(Dtype::F16(Endian::Big), vec![3], false).unwrap(),
                ArrayData::F16(vec![0x3c00, 0xc000, 0x7bff].into()),
            )
            .unwrap(),
            vec![1.0, -2.0, 65504.0],
        ),
    ];
    for (a, want) in cases {
        assert_eq!(a.to_f64_lossy(), Some(want), "{:?}", a.dtype());
    }
    let s = Array::new(
        Header::new(Dtype::Bytes(1), vec![1], false).unwrap(),
        ArrayData::Bytes(vec![b'x'].into()),
    )
    .unwrap();
    assert_eq!(s.to_f64_lossy(), None, "strings have no numeric view");
}

// ------------------------------------------------------------------ write ---

#[test]
fn typed_write_path_reads_back() {
    let a = NpyArray::from_vec_with(vec![1i64, -2, 3, -4], vec![2, 2], true, Endian::Big).unwrap();
    let path = temp("typed.npy");
    a.write_path(&path).unwrap();
    let b = NpyArray::<i64>::read_path(&path, &ReadOptions::default()).unwrap();
    assert_eq!(
        b,
        NpyArray::<i64>::read_bytes(&std::fs::read(&path).unwrap(), &ReadOptions::default())
            .unwrap()
    );
    assert_eq!(
        (b.shape(), b.fortran_order(), b.data()),
        (&[2, 2][..], true, &[1, -2, 3, -4][..])
    );
    assert_eq!(b.header().dtype(), &Dtype::I64(Endian::Big));
    std::fs::remove_file(&path).ok();
    assert_eq!(
        a.write_path(temp("no-such-dir").join("x.npy"))
            .unwrap_err()
            .kind(),
        ErrorKind::Io
    );
}

#[test]
fn stream_writer_refuses_elements_of_another_type() {
    let h = Header::new(Dtype::F64(Endian::Little), vec![2], false).unwrap();
    let mut w = StreamWriter::new(Vec::new(), h).unwrap();
    let e = w.write_elements(&[1i32, 2]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TypeMismatch);
    w.write_elements(&[1.5f64, 2.5]).unwrap();
    let bytes = w.finish().unwrap();
    assert_eq!(
        read_bytes(&bytes, &ReadOptions::default()).unwrap().data(),
        &ArrayData::F64(vec![1.5, 2.5].into())
    );
}

// ------------------------------------------------------------ layout/decode --

#[test]
fn c_to_fortran_bytes_is_the_inverse_of_fortran_to_c_bytes() {
    let shape = [3usize, 4, 5];
    let itemsize = 3;
    let n: usize = shape.iter().product();
    let c: Vec<u8> = (0..n * itemsize).map(|i| (i * 7 % 251) as u8).collect();
    let f = layout::c_to_fortran_bytes(&c, &shape, itemsize);
    // Element (i, j, k) sits at C index (i*4 + j)*5 + k and at Fortran index i + 3*(j + 4*k).
    for i in 0..3 {
        for j in 0..4 {
            for k in 0..5 {
                let ci = (i * 4 + j) * 5 + k;
                let fi = i + 3 * (j + 4 * k);
                assert_eq!(
                    f[fi * itemsize..(fi + 1) * itemsize],
                    c[ci * itemsize..(ci + 1) * itemsize]
                );
            }
        }
    }
    assert_eq!(layout::fortran_to_c_bytes(&f, &shape, itemsize), c);
}

#[test]
fn direct_typed_reads_swap_big_endian_values() {
    // read_path/read_path_into fill the vector straight from the file, then swap in place.
    let a = NpyArray::from_vec_with(
        vec![1u32, 0x0102_0304, u32::MAX - 1],
        vec![3],
        false,
        Endian::Big,
    )
    .unwrap();
    let path = temp("be.npy");
    a.write_path(&path).unwrap();
    let opts = ReadOptions::default();
    assert_eq!(
        NpyArray::<u32>::read_path(&path, &opts).unwrap().data(),
        &[1, 0x0102_0304, u32::MAX - 1]
    );
    let mut buf = vec![9u32; 10];
    let h = NpyArray::<u32>::read_path_into(&path, &opts, &mut buf).unwrap();
    assert_eq!(
        (h.shape(), buf.as_slice()),
        (&[3][..], &[1, 0x0102_0304, u32::MAX - 1][..])
    );
    // A file shorter than its header claims is refused before the direct read.
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    assert_eq!(
        NpyArray::<u32>::read_path_into(&path, &opts, &mut buf)
            .unwrap_err()
            .kind(),
        ErrorKind::Truncated
    );
    assert!(buf.is_empty(), "on error the buffer is left empty");
    std::fs::remove_file(&path).ok();
}

// ------------------------------------------------------------------- f16 ---

#[cfg(feature = "half")]
#[test]
fn f16_elements_read_and_write_in_both_byte_orders() {
    use half::f16;
    let values = [
        f16::from_f32(1.5),
        f16::from_f32(-0.0),
        f16::MAX,
        f16::from_bits(0x0001),
        f16::INFINITY,
    ];
    for endian in [Endian::Little, Endian::Big] {
        let a = NpyArray::from_vec_with(values.to_vec(), vec![5], false, endian).unwrap();
        let bytes = write::to_vec(&a.to_array()).unwrap();
        let prefix = if endian == Endian::Little {
            "'<f2'"
        } else {
            "'>f2'"
        };
        assert!(
            bytes.windows(5).any(|w| w == prefix.as_bytes()),
            "{endian:?}"
        );
        let back = NpyArray::<f16>::read_bytes(&bytes, &ReadOptions::default()).unwrap();
        let bits: Vec<u16> = back.data().iter().map(|v| v.to_bits()).collect();
        assert_eq!(
            bits,
            values.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "{endian:?}"
        );
        // The dynamic reader agrees, as bits.
        let dynamic = read_bytes(&bytes, &ReadOptions::default()).unwrap();
        assert_eq!(dynamic.data(), &ArrayData::F16(bits.clone().into()));
        // Moving between the two views keeps every bit pattern.
        let typed: NpyArray<f16> = dynamic.into_typed().unwrap();
        let moved: Vec<u16> = typed.data().iter().map(|v| v.to_bits()).collect();
        assert_eq!(moved, bits);
        // The streaming writer encodes f16 values itself.
        let mut out = Vec::new();
        let mut w = npyguard::write::StreamWriter::new(&mut out, typed.header().clone()).unwrap();
        w.write_elements(typed.data()).unwrap();
        w.finish().unwrap();
        assert_eq!(out, bytes, "{endian:?}");
    }
    let f8 = f64_file(&[1.0]);
    assert_eq!(
        NpyArray::<f16>::read_bytes(&f8, &ReadOptions::default())
            .unwrap_err()
            .kind(),
        ErrorKind::TypeMismatch
    );
}

// --------------------------------------------------------------- complex ---

/// `c8` and `c16` through `num_complex::Complex`: every reader and the views decode real
/// then imaginary part in the file's byte order, and the writers encode them back.
#[cfg(feature = "complex")]
fn complex_round_trip<F>(typestr: &str, values: Vec<num_complex::Complex<F>>)
where
    F: Copy + PartialEq + std::fmt::Debug,
    num_complex::Complex<F>: npyguard::Element + PartialEq + std::fmt::Debug,
{
    use npyguard::{ArrayView, View};
    let n = values.len();
    for endian in [Endian::Little, Endian::Big] {
        let a = NpyArray::from_vec_with(values.clone(), vec![n], false, endian).unwrap();
        let bytes = write::to_vec(&a.to_array()).unwrap();
        let order = if endian == Endian::Little { '<' } else { '>' };
        let descr = format!("'{order}{typestr}'");
        assert!(
            bytes.windows(descr.len()).any(|w| w == descr.as_bytes()),
            "{descr}"
        );
        let opts = ReadOptions::default();
        let typed = NpyArray::<num_complex::Complex<F>>::read_bytes(&bytes, &opts).unwrap();
        assert_eq!(typed.data(), &values[..], "{descr}");
        // The dynamic reader's pairs move into the typed array unchanged.
        let moved: NpyArray<num_complex::Complex<F>> =
            read_bytes(&bytes, &opts).unwrap().into_typed().unwrap();
        assert_eq!(moved.data(), &values[..], "{descr}");
        // A view decodes one element at a time, at any offset into the payload.
        let view = ArrayView::<num_complex::Complex<F>>::new(&bytes, &opts).unwrap();
        assert_eq!(
            (view.len(), view.is_empty(), view.shape()),
            (n, false, &[n][..])
        );
        for (i, v) in values.iter().enumerate() {
            assert_eq!(view.get(i).as_ref(), Some(v), "{descr} element {i}");
        }
        assert_eq!(view.get(n), None);
        assert_eq!(view.to_npy_array().data(), &values[..]);
        let raw = View::new(&bytes, &opts).unwrap();
        let size = raw.header().dtype().itemsize();
        assert_eq!(raw.element(1), Some(&raw.payload()[size..2 * size]));
        assert_eq!(raw.element(n), None);
        // Another element type is a type mismatch, not a reinterpretation.
        assert_eq!(
            NpyArray::<f64>::read_bytes(&bytes, &opts)
                .unwrap_err()
                .kind(),
            ErrorKind::TypeMismatch
        );
    }
}

#[cfg(feature = "complex")]
#[test]
fn complex_elements_read_and_write_in_both_byte_orders() {
    use num_complex::Complex;
    complex_round_trip(
        "c8",
        vec![
            Complex::new(1.5f32, -2.0),
            Complex::new(f32::MAX, f32::MIN_POSITIVE),
            Complex::new(-0.0, 3.25),
        ],
    );
    complex_round_trip(
        "c16",
        vec![
            Complex::new(1.5f64, -2.0),
            Complex::new(f64::MAX, 5e-324),
            Complex::new(-0.0, 3.25),
        ],
    );
}

// ------------------------------------------------------------------- npz ---

#[cfg(feature = "npz")]
mod npz {
    use super::*;
    use npyguard::npz::{self, NpzArchive};

    fn le16(b: &[u8], at: usize) -> usize {
        usize::from(u16::from_le_bytes([b[at], b[at + 1]]))
    }
    fn le32(b: &[u8], at: usize) -> usize {
        u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]) as usize
    }

    /// An archive of two stored members written by npyguard.
    fn archive() -> Vec<u8> {
        let a = NpyArray::from_vec(vec![1.0f64, 2.0], vec![2])
            .unwrap()
            .to_array();
        let b = NpyArray::from_vec(vec![7u8], vec![1]).unwrap().to_array();
        npz::savez(Cursor::new(Vec::new()), &[("a", &a), ("b", &b)])
            .unwrap()
            .into_inner()
    }

    fn open(bytes: &[u8]) -> npyguard::Result<NpzArchive<Cursor<&[u8]>>> {
        NpzArchive::new(Cursor::new(bytes), &ReadOptions::default())
    }

    /// (end record offset, central directory offset, central directory size).
    fn end(z: &[u8]) -> (usize, usize, usize) {
        let at = z.len() - 22;
        assert_eq!(&z[at..at + 4], b"PK\x05\x06");
        (at, le32(z, at + 16), le32(z, at + 12))
    }

    /// A zip64 end record (56 bytes) and locator (20 bytes) for `z`'s directory, inserted
    /// before its end record: `n` entries, directory disk `disk`, locator `disks`.
    fn with_zip64(z: &[u8], n: u64, disk: u32, disks: u32, locator_target: Option<u64>) -> Vec<u8> {
        let (at, cd_offset, cd_size) = end(z);
        let entries = le16(z, at + 10) as u64;
        let mut out = z[..at].to_vec();
        let e64_at = out.len() as u64;
        out.extend_from_slice(b"PK\x06\x06");
        out.extend_from_slice(&44u64.to_le_bytes());
        out.extend_from_slice(&45u16.to_le_bytes());
        out.extend_from_slice(&45u16.to_le_bytes());
        out.extend_from_slice(&disk.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&entries.to_le_bytes());
        out.extend_from_slice(&n.to_le_bytes());
        out.extend_from_slice(&(cd_size as u64).to_le_bytes());
        out.extend_from_slice(&(cd_offset as u64).to_le_bytes());
        out.extend_from_slice(b"PK\x06\x07");
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&locator_target.unwrap_or(e64_at).to_le_bytes());
        out.extend_from_slice(&disks.to_le_bytes());
        out.extend_from_slice(&z[at..]);
        out
    }

    #[test]
    fn members_can_be_looked_up_with_or_without_npy() {
        let z = archive();
        let mut ar = open(&z).unwrap();
        let a = ar.member("a").cloned().unwrap();
        assert_eq!(ar.member("a.npy").map(|m| m.name()), Some("a.npy"));
        assert!(ar.member("c").is_none());
        let b = ar.member("b").cloned().unwrap();
        assert_eq!(a.offset(), 0, "the first local header starts the archive");
        assert!(b.offset() > a.offset() + a.compressed_size());
        assert_ne!(a.crc32(), b.crc32());
        assert_eq!(ar.verify_member("a.npy").unwrap(), a.size());
        // Keys or full names, as NumPy looks members up.
        assert_eq!(ar.verify_member("a").unwrap(), a.size());
        assert_eq!(
            ar.verify_member("c").unwrap_err().kind(),
            ErrorKind::MemberNotFound
        );
        let all = npz::read_npz_bytes(&z, &ReadOptions::default()).unwrap();
        assert_eq!(all, ar.read_all().unwrap());
        assert_eq!(
            all.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
    }

    #[test]
    fn end_records_of_multi_disk_archives_are_refused() {
        let z = archive();
        let (at, _, _) = end(&z);
        for field in [4, 6] {
            let mut bad = z.clone();
            bad[at + field] = 1;
            let e = open(&bad).map(|_| ()).unwrap_err();
            assert_eq!(
                (e.kind(), e.offset(), e.expected()),
                (
                    ErrorKind::ZipFormat,
                    Some(at as u64),
                    "a single-disk archive"
                ),
                "field {field}: {e}"
            );
        }
        let mut bad = z.clone();
        bad[at + 8] ^= 1; // entries on this disk != total entries
        let e = open(&bad).map(|_| ()).unwrap_err();
        assert_eq!(
            (e.kind(), e.offset(), e.expected()),
            (
                ErrorKind::ZipFormat,
                Some(at as u64),
                "a single-disk archive"
            ),
        );
    }

    #[test]
    fn archives_with_a_comment_read_and_a_cut_comment_is_refused() {
        let z = archive();
        let (at, _, _) = end(&z);
        let mut commented = z.clone();
        commented[at + 20..at + 22].copy_from_slice(&5u16.to_le_bytes());
        commented.extend_from_slice(b"hello");
        let arrays = npz::read_npz_bytes(&commented, &ReadOptions::default()).unwrap();
        assert_eq!(arrays.len(), 2);
        let e = open(&commented[..commented.len() - 1])
            .map(|_| ())
            .unwrap_err();
        assert_eq!(
            (e.kind(), e.offset()),
            (ErrorKind::ZipFormat, Some(at as u64))
        );
    }

    /// A cursor whose every other read is `Interrupted` (as a signal would cause).
    struct Interrupting<'a> {
        inner: Cursor<&'a [u8]>,
        flip: bool,
    }
    impl std::io::Read for Interrupting<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.flip = !self.flip;
            if self.flip {
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            self.inner.read(buf)
        }
    }
    impl std::io::Seek for Interrupting<'_> {
        fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
            self.inner.seek(pos)
        }
    }

    #[test]
    fn interrupted_reads_inside_members_are_retried() {
        let big = NpyArray::from_vec((0..50_000u32).collect(), vec![50_000])
            .unwrap()
            .into_array();
        for compressed in [false, true] {
            let members = [("big", &big)];
            let z = if compressed {
                npz::savez_compressed(Cursor::new(Vec::new()), &members)
            } else {
                npz::savez(Cursor::new(Vec::new()), &members)
            }
            .unwrap()
            .into_inner();
            let src = Interrupting {
                inner: Cursor::new(&z),
                flip: false,
            };
            let mut archive = NpzArchive::new(src, &ReadOptions::default()).unwrap();
            let got = archive.array("big").unwrap();
            assert!(got.data() == big.data(), "compressed: {compressed}");
            // A header-only read, then verify_member drains the rest through the same retries.
            let src = Interrupting {
                inner: Cursor::new(&z),
                flip: false,
            };
            let mut archive = NpzArchive::new(src, &ReadOptions::default()).unwrap();
            assert_eq!(archive.header("big").unwrap().shape(), &[50_000]);
            assert_eq!(
                archive.verify_member("big.npy").unwrap(),
                archive.members()[0].size()
            );
        }
    }

    #[test]
    fn the_archive_counts_decoded_bytes_and_tells_npz_from_npy() {
        let z = archive();
        assert!(npz::looks_like_npz(&z));
        assert!(!npz::looks_like_npz(&f64_file(&[1.0])));
        assert!(!npz::looks_like_npz(b"PK"));
        let mut a = open(&z).unwrap();
        assert_eq!(a.decoded_bytes(), 0);
        let sizes: u64 = a.members().iter().map(|m| m.size()).sum();
        a.read_all().unwrap();
        assert_eq!(a.decoded_bytes(), sizes);
    }

    #[test]
    fn asking_for_a_member_that_is_not_an_array_says_so() {
        let a = NpyArray::from_vec(vec![1u8], vec![1]).unwrap().into_array();
        let mut buf = Cursor::new(Vec::new());
        {
            let mut zw = zip::ZipWriter::new(&mut buf);
            let o = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Stored);
            zw.start_file("notes.txt", o).unwrap();
            std::io::Write::write_all(&mut zw, b"hi").unwrap();
            zw.start_file("a.npy", o).unwrap();
            std::io::Write::write_all(&mut zw, &write::to_vec(&a).unwrap()).unwrap();
            zw.finish().unwrap();
        }
        let z = buf.into_inner();
        let mut archive = open(&z).unwrap();
        // NumPy sniffs the content (and would return b"hi"): not .npy data, so not an array.
        let not_npy = archive.array("notes.txt").unwrap_err();
        assert_eq!(not_npy.kind(), ErrorKind::BadMagic);
        assert!(
            not_npy.expected().ends_with("in npz member \"notes.txt\""),
            "{not_npy}"
        );
        let missing = archive.array("nope").unwrap_err();
        assert_eq!(missing.found_text(), Some("no such member"));
        assert_eq!(archive.array("a").unwrap().data(), a.data());
    }

    #[test]
    fn zip64_end_records_are_followed_and_checked() {
        let z = archive();
        let entries = 2;
        // Agreeing zip64 records (what Python's zipfile writes for big archives) read normally.
        let ok = with_zip64(&z, entries, 0, 1, None);
        assert_eq!(
            npz::read_npz_bytes(&ok, &ReadOptions::default())
                .unwrap()
                .len(),
            2
        );
        // Each condition alone, on the agreeing archive: (what, byte offset from the zip64
        // record, new little-endian value, the start of the expected text).
        let e64_at = end(&z).0;
        let loc = 56;
        let end_rec = 56 + 20;
        let patch = |at: usize, v: &[u8]| {
            let mut b = ok.clone();
            b[e64_at + at..e64_at + at + v.len()].copy_from_slice(v);
            b
        };
        let field =
            |at: usize| u64::from_le_bytes(ok[e64_at + at..e64_at + at + 8].try_into().unwrap());
        let set_u64s = |fields: &[(usize, u64)]| {
            let mut b = ok.clone();
            for &(at, v) in fields {
                b[e64_at + at..e64_at + at + 8].copy_from_slice(&v.to_le_bytes());
            }
            b
        };
        let cases: Vec<(&str, Vec<u8>, &str)> = vec![
            (
                "locator: two disks",
                patch(loc + 16, &2u32.to_le_bytes()),
                "a single-disk archive (zip64 locator)",
            ),
            (
                "locator: record on disk 1",
                patch(loc + 4, &1u32.to_le_bytes()),
                "a single-disk archive (zip64 locator)",
            ),
            (
                "locator: pointing at a local header",
                patch(loc + 8, &0u64.to_le_bytes()),
                "a 56-byte zip64 end record",
            ),
            (
                "record: bad signature",
                patch(3, &[7]),
                "a 56-byte zip64 end record",
            ),
            (
                "record: size too long",
                patch(4, &45u64.to_le_bytes()),
                "a 56-byte zip64 end record",
            ),
            (
                "record: on disk 1",
                patch(16, &1u32.to_le_bytes()),
                "a single-disk archive (zip64 end record)",
            ),
            (
                "record: directory on disk 1",
                patch(20, &1u32.to_le_bytes()),
                "a single-disk archive (zip64 end record)",
            ),
            (
                "record: entries on disk != entries",
                patch(24, &3u64.to_le_bytes()),
                "a single-disk archive (zip64 end record)",
            ),
            (
                "record: 3 entries where the end record has 2",
                set_u64s(&[(24, 3), (32, 3)]),
                "an end record agreeing with the zip64 end record",
            ),
            (
                "record: directory size",
                set_u64s(&[(40, field(40) + 1)]),
                "an end record agreeing with the zip64 end record",
            ),
            (
                "record: directory offset",
                set_u64s(&[(48, field(48) + 1)]),
                "an end record agreeing with the zip64 end record",
            ),
        ];
        for (what, bad, expected) in cases {
            let e = open(&bad).map(|_| ()).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::ZipFormat, "{what}: {e}");
            assert!(e.expected().starts_with(expected), "{what}: {e}");
        }
        // Saturated end-record fields take their values from the zip64 record.
        let mut saturated = ok.clone();
        saturated[e64_at + end_rec + 8..e64_at + end_rec + 12].copy_from_slice(&[0xFF; 4]);
        saturated[e64_at + end_rec + 12..e64_at + end_rec + 20].copy_from_slice(&[0xFF; 8]);
        assert_eq!(
            npz::read_npz_bytes(&saturated, &ReadOptions::default())
                .unwrap()
                .len(),
            2
        );
    }

    /// `z` with the first central-directory entry's extra fields replaced by `extra`
    /// (lengths in the entry and the end record adjusted). npyguard's writer (like NumPy's)
    /// puts a zip64 field with both sizes there.
    fn with_central_extra(z: &[u8], extra: &[u8]) -> Vec<u8> {
        let (at, cd, cd_size) = end(z);
        let (name_len, extra_len) = (le16(z, cd + 28), le16(z, cd + 30));
        let from = cd + 46 + name_len;
        let mut out = z[..from].to_vec();
        out.extend_from_slice(extra);
        out.extend_from_slice(&z[from + extra_len..]);
        out[cd + 30..cd + 32].copy_from_slice(&(extra.len() as u16).to_le_bytes());
        let end_at = at + extra.len() - extra_len;
        out[end_at + 12..end_at + 16]
            .copy_from_slice(&((cd_size + extra.len() - extra_len) as u32).to_le_bytes());
        out
    }

    #[test]
    fn zip64_extra_fields_are_checked() {
        let z = archive();
        let read = |b: &[u8]| npz::read_npz_bytes(b, &ReadOptions::default()).map(|v| v.len());
        // The writer saturates both sizes in the directory and gives them in a zip64 field.
        let (_, cd, _) = end(&z);
        let (name_len, extra_len) = (le16(&z, cd + 28), le16(&z, cd + 30));
        let field = z[cd + 46 + name_len..cd + 46 + name_len + extra_len].to_vec();
        assert_eq!(
            (&field[..4], field.len()),
            (&[1u8, 0, 16, 0][..], 20),
            "one zip64 field: two sizes"
        );
        assert_eq!(read(&with_central_extra(&z, &field)).unwrap(), 2);
        // Without it the saturated sizes have no value.
        let e = open(&with_central_extra(&z, &[])).map(|_| ()).unwrap_err();
        assert!(e.expected().contains("uncompressed size"), "{e}");
        // Two zip64 fields: which one a reader believes is a differential.
        let mut two = field.clone();
        two.extend_from_slice(&[1, 0, 0, 0]);
        let e = open(&with_central_extra(&z, &two)).map(|_| ()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ZipFormat);
        assert!(e.expected().contains("one zip64"), "{e}");
        // A saturated disk number (0xFFFF) needs the real one after the sizes.
        let on_disk = |disk: Option<u32>| {
            let mut f = field.clone();
            if let Some(d) = disk {
                f[2] = 20;
                f.extend_from_slice(&d.to_le_bytes());
            }
            let mut x = with_central_extra(&z, &f);
            x[cd + 34..cd + 36].copy_from_slice(&[0xff, 0xff]);
            x
        };
        let e = open(&on_disk(None)).map(|_| ()).unwrap_err();
        assert_eq!(
            (e.kind(), e.found_text()),
            (ErrorKind::ZipFormat, Some("none")),
            "{e}"
        );
        assert_eq!(read(&on_disk(Some(0))).unwrap(), 2);
        let e = open(&on_disk(Some(1))).map(|_| ()).unwrap_err();
        assert_eq!(
            (e.kind(), e.found_text()),
            (ErrorKind::ZipFormat, Some("disk 1")),
            "{e}"
        );
    }

    #[test]
    fn extra_fields_longer_than_their_block_are_refused() {
        let z = archive();
        let (at, cd, cd_size) = end(&z);
        let (name_len, extra_len) = (le16(&z, cd + 28), le16(&z, cd + 30));
        // Append an extra field to the first directory entry that declares 100 bytes but has 0.
        let insert_at = cd + 46 + name_len + extra_len;
        let mut bad = z[..insert_at].to_vec();
        bad.extend_from_slice(&[0x99, 0x99, 100, 0]);
        bad.extend_from_slice(&z[insert_at..]);
        let new_extra = (extra_len + 4) as u16;
        bad[cd + 30..cd + 32].copy_from_slice(&new_extra.to_le_bytes());
        let end_at = at + 4;
        bad[end_at + 12..end_at + 16].copy_from_slice(&((cd_size + 4) as u32).to_le_bytes());
        let e = open(&bad).map(|_| ()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ZipFormat, "{e}");
        assert!(e.expected().contains("extra fields"), "{e}");
        // The same field with its 100 bytes present is fine (unknown ids are ignored, as Python does).
        let mut good = z[..insert_at].to_vec();
        good.extend_from_slice(&[0x99, 0x99, 100, 0]);
        good.extend_from_slice(&[0u8; 100]);
        good.extend_from_slice(&z[insert_at..]);
        good[cd + 30..cd + 32].copy_from_slice(&((extra_len + 104) as u16).to_le_bytes());
        let end_at = at + 104;
        good[end_at + 12..end_at + 16].copy_from_slice(&((cd_size + 104) as u32).to_le_bytes());
        assert_eq!(
            npz::read_npz_bytes(&good, &ReadOptions::default())
                .unwrap()
                .len(),
            2
        );
    }
}

// ------------------------------------- decoder boundaries (mutation testing) --
// cargo-mutants (MUTANTS.md) showed that no test in the fast subset split an element
// across two chunks, nor checked the offsets the decoder reports.

/// Decodes `payload` for `header`, fed in chunks of `sizes` (cycled); returns the array.
fn decode_in_chunks(header: &Header, payload: &[u8], sizes: &[usize]) -> npyguard::Result<Array> {
    let mut dec = npyguard::PayloadDecoder::new(header.clone());
    let mut at = 0;
    for &n in sizes.iter().cycle() {
        if at >= payload.len() {
            break;
        }
        let chunk = &payload[at..(at + n).min(payload.len())];
        let used = dec.feed(chunk)?;
        assert_eq!(
            used,
            chunk.len(),
            "a chunk within the payload is used whole"
        );
        at += used;
        assert_eq!(dec.remaining(), payload.len() - at);
        assert_eq!(
            dec.offset(),
            header.payload_offset() + at as u64,
            "offset after {at} bytes"
        );
    }
    dec.finish()
}

#[test]
fn elements_split_across_chunks_decode_like_whole_ones() {
    // Item sizes 3 (S3), 12 (U3) and 7 (a packed record): every chunk size splits some element.
    let files: Vec<Vec<u8>> = vec![
        {
            let h = b"{'descr': '|S3', 'fortran_order': False, 'shape': (5,), }";
            let mut f = b"\x93NUMPY\x01\x00".to_vec();
            f.extend_from_slice(&(h.len() as u16).to_le_bytes());
            f.extend_from_slice(h);
            f.extend_from_slice(b"abcdefghijklmn\0");
            f
        },
        write::to_vec(
            &Array::new(
                Header::new(Dtype::Unicode(3, Endian::Big), vec![3], false).unwrap(),
                ArrayData::Unicode("x\u{e9}\u{1F600}ab\0cde".chars().map(u32::from).collect()),
            )
            .unwrap(),
        )
        .unwrap(),
        {
            let h = b"{'descr': [('a', '<i2'), ('b', '<u4'), ('c', '|u1')], 'fortran_order': False, 'shape': (4,), }";
            let mut f = b"\x93NUMPY\x01\x00".to_vec();
            f.extend_from_slice(&(h.len() as u16).to_le_bytes());
            f.extend_from_slice(h);
            f.extend((0u8..28).map(|i| i.wrapping_mul(37)));
            f
        },
    ];
    for file in files {
        let whole = read_bytes(&file, &ReadOptions::default()).unwrap();
        let header = whole.header().clone();
        let payload = &file[header.payload_offset() as usize..];
        for sizes in [&[1usize][..], &[2], &[5], &[4, 1, 9], &[11, 2]] {
            let got = decode_in_chunks(&header, payload, sizes).unwrap();
            assert_eq!(
                got.data(),
                whole.data(),
                "{:?} in chunks {sizes:?}",
                header.dtype()
            );
        }
        // A missing last byte is reported where the input ends.
        let mut dec = npyguard::PayloadDecoder::new(header.clone());
        dec.feed(&payload[..payload.len() - 1]).unwrap();
        assert!(!dec.is_complete());
        assert_eq!(dec.remaining(), 1);
        let e = dec.finish().unwrap_err();
        assert_eq!(
            (e.kind(), e.offset()),
            (ErrorKind::Truncated, Some(file.len() as u64 - 1))
        );
    }
}

#[test]
fn a_full_decoder_uses_no_more_bytes() {
    let file = f64_file(&[1.0, 2.0]);
    let header = read_bytes(&file, &ReadOptions::default())
        .unwrap()
        .header()
        .clone();
    let mut dec = npyguard::PayloadDecoder::new(header.clone());
    let mut payload = file[header.payload_offset() as usize..].to_vec();
    payload.extend_from_slice(b"extra");
    assert_eq!(dec.feed(&payload).unwrap(), 16, "only the payload is used");
    assert!(dec.is_complete());
    assert_eq!(dec.feed(b"more").unwrap(), 0);
    assert_eq!(dec.offset(), file.len() as u64);
    assert_eq!(
        dec.finish().unwrap().data(),
        &ArrayData::F64(vec![1.0, 2.0].into())
    );
}

#[test]
fn payload_errors_point_at_the_end_of_the_payload() {
    let file = f64_file(&[1.0, 2.0, 3.0]);
    let mut longer = file.clone();
    longer.extend_from_slice(b"PK");
    let path = temp("offsets.npy");
    let opts = ReadOptions::default();
    for (what, bytes, kind, offset) in [
        (
            "trailing",
            &longer,
            ErrorKind::TrailingBytes,
            file.len() as u64,
        ),
        (
            "truncated",
            &file[..file.len() - 3].to_vec(),
            ErrorKind::Truncated,
            file.len() as u64 - 3,
        ),
    ] {
        std::fs::write(&path, bytes).unwrap();
        for (how, r) in [
            ("bytes", read_bytes(bytes, &opts).map(|_| ())),
            ("stream", read_from(Cursor::new(bytes), &opts).map(|_| ())),
            (
                "typed stream",
                NpyArray::<f64>::read(Cursor::new(bytes), &opts).map(|_| ()),
            ),
        ] {
            let e = r.unwrap_err();
            assert_eq!(
                (e.kind(), e.offset()),
                (kind, Some(offset)),
                "{what} via {how}: {e}"
            );
        }
        // The path readers know the file's length: the claim is checked before reading.
        let e = read_path(&path, &opts).unwrap_err();
        assert_eq!(e.kind(), kind, "{what} via path: {e}");
    }
    std::fs::remove_file(&path).ok();
}

#[test]
fn object_type_strings_are_refused_as_pickles_with_or_without_byte_order() {
    for s in ["O", "O8", "|O", "<O", "|O8", "=O4"] {
        let e = Dtype::from_typestr(s).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::UnsupportedDtype, "{s}: {e}");
        assert!(e.to_string().contains("pickle"), "{s}: {e}");
    }
    assert_eq!(
        Dtype::from_typestr("f8").unwrap_err().kind(),
        ErrorKind::BadDescr
    );
}

#[test]
fn trailing_record_padding_is_written_and_read_back() {
    // NumPy's descr for a record ending in padding lists it: ('', '|V5').
    let descr = "[('id', '<u4'), ('tag', '|S3'), ('', '|V5')]";
    let dict = format!("{{'descr': {descr}, 'fortran_order': False, 'shape': (2,), }}");
    let mut file = b"\x93NUMPY\x01\x00".to_vec();
    file.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    file.extend_from_slice(dict.as_bytes());
    file.extend((0u8..24).collect::<Vec<_>>());
    let a = read_bytes(&file, &ReadOptions::default()).unwrap();
    let Dtype::Record(r) = a.dtype() else {
        panic!("a record")
    };
    assert_eq!((r.fields.len(), r.itemsize), (2, 12));
    assert_eq!(a.dtype().descr().to_string(), descr);
    assert!(a.header().to_dict_text().contains("('', '|V5')"));
    let again = read_bytes(&write::to_vec(&a).unwrap(), &ReadOptions::default()).unwrap();
    assert_eq!(again.dtype(), a.dtype());
    assert_eq!(again.data(), a.data());
}

// ------------------------------------- more mutation-testing boundaries ---

fn v1(header: &str, payload: &[u8]) -> Vec<u8> {
    let mut f = b"\x93NUMPY\x01\x00".to_vec();
    f.extend_from_slice(&(header.len() as u16).to_le_bytes());
    f.extend_from_slice(header.as_bytes());
    f.extend_from_slice(payload);
    f
}

#[test]
fn extra_keys_are_kept_in_file_order() {
    let f = v1(
        "{'z': 1, 'descr': '|u1', 'a': ('x', None), 'fortran_order': False, 'shape': (1,)}",
        &[5],
    );
    let a = read_bytes(&f, &ReadOptions::default()).unwrap();
    let extra: Vec<(&str, String)> = a
        .header()
        .extra()
        .iter()
        .map(|(k, v)| (k.as_str(), v.to_string()))
        .collect();
    assert_eq!(
        extra,
        [("z", "1".to_string()), ("a", "('x', None)".to_string())]
    );
    let plain = read_bytes(&f64_file(&[1.0]), &ReadOptions::default()).unwrap();
    assert!(plain.header().extra().is_empty());
}

#[test]
fn reordering_updates_the_header_order_flag() {
    let f = NpyArray::from_vec_with(vec![1u8, 2, 3, 4, 5, 6], vec![2, 3], true, Endian::Little)
        .unwrap()
        .to_array();
    let c = f.to_c_order();
    assert!(!c.fortran_order() && !c.header().fortran_order());
    assert_eq!(c.data(), &ArrayData::U8(vec![1, 3, 5, 2, 4, 6].into()));
    let back = c.to_fortran_order();
    assert!(back.fortran_order());
    assert_eq!(back, f);
}

#[test]
fn header_new_refuses_dtypes_whose_descr_would_not_read_back() {
    // A field named '' of a V type (or with a subarray shape): its descr item is what
    // NumPy's `descr_to_dtype` takes for padding, so it would read back without the field.
    let bad = [
        Dtype::Record(Record {
            fields: vec![Field {
                name: "".into(),
                title: None,
                dtype: Dtype::Void(1),
                shape: vec![],
                nesting: Vec::new(),
                offset: 0,
            }],
            itemsize: 1,
        }),
        Dtype::Record(Record {
            fields: vec![Field {
                name: "".into(),
                title: None,
                dtype: Dtype::U8,
                shape: vec![2],
                nesting: Vec::new(),
                offset: 0,
            }],
            itemsize: 2,
        }),
        // Nesting that does not add up to the shape is written as one level.
        Dtype::Record(Record {
            fields: vec![Field {
                name: "a".into(),
                title: None,
                dtype: Dtype::U8,
                shape: vec![2, 3],
                nesting: vec![1, 3],
                offset: 0,
            }],
            itemsize: 6,
        }),
        Dtype::Record(Record {
            fields: vec![
                Field {
                    name: "a".into(),
                    title: None,
                    dtype: Dtype::U8,
                    shape: vec![],
                    nesting: Vec::new(),
                    offset: 0,
                },
                Field {
                    name: "a".into(),
                    title: None,
                    dtype: Dtype::U8,
                    shape: vec![],
                    nesting: Vec::new(),
                    offset: 1,
                },
            ],
            itemsize: 2,
        }),
    ];
    for d in bad {
        assert!(Header::new(d.clone(), vec![1], false).is_err(), "{d:?}");
    }
    assert!(Header::new(Dtype::Bytes(1), vec![1], false).is_ok());
    // What np.save writes and NumPy reads back: zero-width types, a field named '' of a
    // non-V type, a record without fields, a subarray of a subarray.
    let field = |name: &str, dtype: Dtype, shape: Vec<usize>, nesting: Vec<usize>| Field {
        name: name.into(),
        title: None,
        dtype,
        shape,
        nesting,
        offset: 0,
    };
    let good = [
        Dtype::Bytes(0),
        Dtype::Void(0),
        Dtype::Unicode(0, Endian::Big),
        Dtype::Record(Record {
            fields: vec![field("", Dtype::U8, vec![], vec![])],
            itemsize: 1,
        }),
        Dtype::Record(Record {
            fields: vec![],
            itemsize: 0,
        }),
        Dtype::Record(Record {
            fields: vec![],
            itemsize: 8,
        }),
        Dtype::Record(Record {
            fields: vec![field(
                "c",
                Dtype::F64(Endian::Little),
                vec![2, 5],
                vec![1, 1],
            )],
            itemsize: 80,
        }),
    ];
    for d in good {
        let h = Header::new(d.clone(), vec![2], false).unwrap_or_else(|e| panic!("{d:?}: {e}"));
        assert_eq!(Dtype::from_descr(&d.descr()).unwrap(), d);
        drop(h);
    }
}

#[test]
fn a_missing_key_is_reported_after_the_last_entry() {
    // Text offsets: the value False starts at 34; the preamble adds 10.
    let f = v1("{'descr': '<f8', 'fortran_order': False}", &[]);
    let e = read_bytes(&f, &ReadOptions::default()).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::MissingKey, Some(44)));
    assert!(e.expected().contains("'shape'"), "{e}");
    let e = read_bytes(&v1("{}", &[]), &ReadOptions::default()).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset()),
        (ErrorKind::MissingKey, Some(11)),
        "just inside the empty dict"
    );
}

#[test]
fn reordering_leaves_mismatched_input_unchanged() {
    // Documented: when data.len() is not the shape's product, the input comes back as it is.
    assert_eq!(layout::fortran_to_c(&[1, 2, 3], &[2, 2]), vec![1, 2, 3]);
    assert_eq!(
        layout::c_to_fortran(&[1, 2, 3, 4, 5], &[2, 2]),
        vec![1, 2, 3, 4, 5]
    );
    assert_eq!(
        layout::fortran_to_c_bytes(&[1, 2, 3], &[2, 2], 1),
        vec![1, 2, 3]
    );
    assert_eq!(
        layout::fortran_to_c_bytes(&[1, 2, 3, 4, 5, 6], &[2, 2], 2),
        vec![1, 2, 3, 4, 5, 6]
    );
    // And a matching 2 x 2 input is transposed.
    assert_eq!(
        layout::fortran_to_c(&[1, 2, 3, 4], &[2, 2]),
        vec![1, 3, 2, 4]
    );
    assert_eq!(
        layout::fortran_to_c_bytes(&[1, 2, 3, 4], &[2, 2], 1),
        vec![1, 3, 2, 4]
    );
}

#[test]
fn syntax_errors_name_the_byte_found() {
    let e = read_bytes(&v1("{'descr': x}", &[]), &ReadOptions::default()).unwrap_err();
    assert_eq!(
        (e.kind(), e.found_text()),
        (ErrorKind::HeaderSyntax, Some("'x'"))
    );
    let e = read_bytes(&v1("{'descr': \u{1}}", &[]), &ReadOptions::default()).unwrap_err();
    assert_eq!(e.found_text(), Some("byte 0x01"));
    let e = read_bytes(&v1("{'descr': '<f8'", &[]), &ReadOptions::default()).unwrap_err();
    assert_eq!(e.found_text(), Some("end of header"));
}

#[test]
fn an_l_suffix_in_format_3_is_refused_with_its_reason() {
    let h = "{'descr': '<f8', 'fortran_order': False, 'shape': (2L,), }";
    let mut f = b"\x93NUMPY\x03\x00".to_vec();
    f.extend_from_slice(&(h.len() as u32).to_le_bytes());
    f.extend_from_slice(h.as_bytes());
    f.extend_from_slice(&[0; 16]);
    let e = read_bytes(&f, &ReadOptions::default()).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset()),
        (ErrorKind::HeaderSyntax, Some(12 + 52))
    );
    assert!(e.expected().contains("'L' suffix"), "{e}");
    f[6] = 2; // the same header in 2.0 reads
    assert_eq!(
        read_bytes(&f, &ReadOptions::default()).unwrap().shape(),
        &[2]
    );
}

#[test]
fn versions_display_as_written_and_preambles_are_never_empty() {
    use npyguard::{Preamble, Version};
    let shown: Vec<String> = [Version::V1_0, Version::V2_0, Version::V3_0]
        .iter()
        .map(|v| v.to_string())
        .collect();
    assert_eq!(shown, ["1.0", "2.0", "3.0"]);
    let p = Preamble::parse(b"\x93NUMPY\x02\x00\x10\x00\x00\x00")
        .unwrap()
        .unwrap();
    assert_eq!((p.len(), p.is_empty()), (12, false));
}

// ------------------------------- mutation testing, the rest of src/ ---

#[test]
fn typed_and_untyped_views_move_values_and_keep_the_header() {
    // A big-endian Fortran-order i16 file: values stay native, order and byte order stay in the header.
    let typed =
        NpyArray::from_vec_with(vec![1i16, -2, 300, -400], vec![2, 2], true, Endian::Big).unwrap();
    assert!(typed.fortran_order());
    let file = write::to_vec(&typed.to_array()).unwrap();
    let untyped = read_bytes(&file, &ReadOptions::default()).unwrap();
    assert_eq!(
        untyped.data(),
        &ArrayData::I16(vec![1, -2, 300, -400].into())
    );
    let back: NpyArray<i16> = untyped.clone().into_typed().unwrap();
    assert_eq!(back.data(), &[1, -2, 300, -400]);
    assert_eq!(back.shape(), &[2, 2]);
    assert!(back.fortran_order());
    assert_eq!(back.header().dtype(), &Dtype::I16(Endian::Big));
    assert_eq!(back.to_c_order(), vec![1, 300, -2, -400]);
    assert_eq!(back.to_array(), untyped);
    assert_eq!(back.into_array(), untyped);
    let c = NpyArray::from_vec(vec![1u8, 2], vec![2]).unwrap();
    assert!(!c.fortran_order());
    assert_eq!(c.into_array().data(), &ArrayData::U8(vec![1, 2].into()));
    // Every element type moves through both directions unchanged.
    fn both_ways<T: npyguard::Element>(v: Vec<T>) {
        let n = v.len();
        let a = NpyArray::from_vec(v.clone(), vec![n]).unwrap();
        let typed: NpyArray<T> = a.into_array().into_typed().unwrap();
        assert_eq!(typed.data(), v.as_slice());
    }
    both_ways(vec![true, false]);
    both_ways(vec![-1i8, 2]);
    both_ways(vec![i32::MIN, 3]);
    both_ways(vec![i64::MAX, -3]);
    both_ways(vec![u16::MAX, 4]);
    both_ways(vec![u32::MAX, 5]);
    both_ways(vec![u64::MAX, 6]);
    both_ways(vec![0.25f32, -0.0]);
    both_ways(vec![f64::MIN_POSITIVE, 7.5]);
    let wrong = read_bytes(&file, &ReadOptions::default())
        .unwrap()
        .into_typed::<i32>()
        .unwrap_err();
    assert_eq!(wrong.kind(), ErrorKind::TypeMismatch);
    assert_eq!(wrong.found_text(), Some(">i2"));
}

#[test]
fn fields_of_zero_size_records_are_empty_arrays() {
    // A record whose only field is an empty subarray has item size 0; its field
    // is an array of shape (n, 0) with no values (and no division by the item size).
    let rec = Record {
        fields: vec![Field {
            name: "a".into(),
            title: None,
            dtype: Dtype::F64(Endian::Little),
            shape: vec![0],
            nesting: Vec::new(),
            offset: 0,
        }],
        itemsize: 0,
    };
    let a = Array::new(
        Header::new(Dtype::Record(rec), vec![3], false).unwrap(),
        ArrayData::Record(vec![].into()),
    )
    .unwrap();
    let f = a.field("a").unwrap();
    assert_eq!(f.shape(), &[3, 0]);
    assert_eq!(f.data(), &ArrayData::F64(vec![].into()));
}

#[test]
fn error_kinds_display_as_their_names() {
    for kind in [
        ErrorKind::BadMagic,
        ErrorKind::Truncated,
        ErrorKind::Io,
        ErrorKind::BadDescr,
    ] {
        assert_eq!(kind.to_string(), kind.name());
        assert!(!kind.name().is_empty());
    }
    assert_eq!(ErrorKind::Truncated.to_string(), "truncated");
}

#[test]
fn literal_type_names_and_hashes_follow_the_value() {
    use std::hash::{BuildHasher, BuildHasherDefault};
    type H = BuildHasherDefault<std::collections::hash_map::DefaultHasher>;
    let names: Vec<&str> = [
        Value::Str("x".into()),
        Value::Int(npyguard::literal::Int::Small(1)),
        Value::Bool(true),
        Value::None,
        Value::Tuple(vec![]),
        Value::List(vec![]),
    ]
    .into_iter()
    .map(|v| Literal::new(v).type_name())
    .collect();
    assert_eq!(
        names,
        [
            "a string",
            "an integer",
            "a boolean",
            "None",
            "a tuple",
            "a list"
        ]
    );
    let h = |l: &Literal| H::default().hash_one(l);
    let one = Literal::new(Value::Int(npyguard::literal::Int::Small(1)));
    let two = Literal::new(Value::Int(npyguard::literal::Int::Small(2)));
    assert_ne!(h(&one), h(&two), "different values hash differently");
    // The found text of a wrongly typed header value is its type name.
    let err = Header::from_bytes(
        &v1(
            "{'descr': '<f8', 'fortran_order': False, 'shape': 'x', }",
            &[],
        ),
        &ReadOptions::default(),
    )
    .unwrap_err();
    assert_eq!(err.found_text(), Some("a string"));
}

#[test]
fn dicts_display_as_python_repr_with_separators() {
    let d =
        npyguard::literal::parse_dict(b"{'b': (2, 3), 'a': 'x', 'c': [True, None]}", Version::V1_0)
            .unwrap();
    assert_eq!(d.to_string(), "{'b': (2, 3), 'a': 'x', 'c': [True, None]}");
    let one = npyguard::literal::parse_dict(b"{'k': 1}", Version::V1_0).unwrap();
    assert_eq!(one.to_string(), "{'k': 1}");
}

#[test]
fn a_path_under_the_size_limit_is_read() {
    let file = f64_file(&[1.0, 2.0]);
    let path = temp("under-limit.npy");
    std::fs::write(&path, &file).unwrap();
    let opts = ReadOptions::default().with_max_file_bytes(Some(file.len() as u64 + 1000));
    let read = read_path(&path, &opts);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(read.unwrap().data(), &ArrayData::F64(vec![1.0, 2.0].into()));
}

/// Yields `data` in pieces, with an `Interrupted` error before each and a hard
/// error after `fail_at` bytes.
struct Flaky<'a> {
    data: &'a [u8],
    pos: usize,
    fail_at: usize,
    interrupt: bool,
}

impl std::io::Read for Flaky<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.interrupt = !self.interrupt;
        if self.interrupt {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        if self.pos >= self.fail_at {
            return Err(std::io::Error::other("disk on fire"));
        }
        let end = (self.pos + 7).min(self.fail_at).min(self.data.len());
        let n = (end - self.pos).min(buf.len());
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[test]
fn interrupted_reads_are_retried_and_hard_errors_reported_where_they_happen() {
    let file = f64_file(&[1.0, 2.0, 3.0]);
    let ok = read_from(
        Flaky {
            data: &file,
            pos: 0,
            fail_at: usize::MAX,
            interrupt: false,
        },
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(ok.data(), &ArrayData::F64(vec![1.0, 2.0, 3.0].into()));
    for fail_at in [3, 20, file.len() - 4] {
        let err = read_from(
            Flaky {
                data: &file,
                pos: 0,
                fail_at,
                interrupt: false,
            },
            &ReadOptions::default(),
        )
        .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Io, "fail at {fail_at}");
        assert!(err.offset() <= Some(fail_at as u64), "{err}");
    }
    let header = npyguard::read_header(
        &mut Flaky {
            data: &file,
            pos: 0,
            fail_at: 5,
            interrupt: false,
        },
        &ReadOptions::default(),
    )
    .unwrap_err();
    assert_eq!((header.kind(), header.offset()), (ErrorKind::Io, Some(5)));
}

#[test]
fn streams_longer_than_one_read_chunk_are_read_whole() {
    // 600 000 bytes of payload: more than two of the stream reader's 256 KiB chunks,
    // through a reader that is not a file (so no direct read).
    let values: Vec<f64> = (0..75_000).map(|i| i as f64 * 0.5).collect();
    let file = f64_file(&values);
    let a = read_from(Cursor::new(&file), &ReadOptions::default()).unwrap();
    assert_eq!(a.data(), &ArrayData::F64(values.clone().into()));
    let typed = NpyArray::<f64>::read(Cursor::new(&file), &ReadOptions::default()).unwrap();
    assert_eq!(typed.data(), values.as_slice());
    // Cut inside the third chunk: truncated where the bytes end.
    let cut = &file[..file.len() - 1000];
    let e = read_from(Cursor::new(cut), &ReadOptions::default()).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset()),
        (ErrorKind::Truncated, Some(cut.len() as u64))
    );
}

#[test]
fn python_reprs_escape_only_what_python_escapes() {
    use npyguard::repr::{is_printable, py_str};
    assert_eq!(py_str("a b~"), "'a b~'");
    assert!(is_printable(' ') && !is_printable('\u{1f}') && is_printable('\u{a1}'));
    assert!(is_printable('\u{100}') && is_printable('\u{10000}'));
    assert_eq!(
        py_str("\u{1f}\u{ad}\u{2028}\u{e0001}"),
        "'\\x1f\\xad\\u2028\\U000e0001'"
    );
}

#[test]
fn path_writers_write_files_that_read_back() {
    let a = NpyArray::from_vec(vec![1u32, 2, 3, 4], vec![2, 2])
        .unwrap()
        .into_array();
    let p1 = temp("to_path.npy");
    let p2 = temp("to_path_v3.npy");
    write::to_path(&p1, &a).unwrap();
    write::to_path_with_version(&p2, &a, Version::V3_0).unwrap();
    let (b1, b2) = (std::fs::read(&p1).unwrap(), std::fs::read(&p2).unwrap());
    std::fs::remove_file(&p1).unwrap();
    std::fs::remove_file(&p2).unwrap();
    assert_eq!(b1, write::to_vec(&a).unwrap());
    assert_eq!(&b2[6..8], &[3, 0]);
    let back = read_bytes(&b2, &ReadOptions::default()).unwrap();
    assert_eq!((back.shape(), back.data()), (a.shape(), a.data()));
}
