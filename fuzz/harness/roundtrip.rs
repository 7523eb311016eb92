//! Target `roundtrip` (structure-aware): an arbitrary array (any dtype the
//! generator makes, bounded size, either order, every float bit pattern,
//! every `char`) → `write::to_vec` → `read_bytes` → the same array.
//!
//! Arrays are compared by re-encoding both to bytes (NaN != NaN, so float
//! `==` would be wrong; bytes also catch a flipped NaN payload or sign of zero).
//!
//! Properties:
//! * what the writer writes, the reader reads back: same dtype, order, shape,
//!   no extra keys, same bytes; `read_from` on a cursor agrees; the payload
//!   starts at a multiple of 64 and the file ends with it;
//! * the version is the one `choose_version` names, and every version the
//!   writer agrees to write (`to_writer_with_version`) reads back the same;
//! * for element types with a typed API, `NpyArray::write` (the streaming
//!   writer) writes the same bytes and `NpyArray::read_bytes` reads the same values;
//! * C → Fortran → C (and the reverse) reorderings are identities, and agree
//!   with `NpyArray::get` indexing;
//! * for records, every field read with `Array::field` holds exactly the
//!   field's bytes of each record (C order).

use std::io::Cursor;

use arbitrary::Unstructured;
use npyguard::write::{choose_version, header_bytes, to_writer_with_version};
use npyguard::{
    read_bytes, read_from, Array, Dtype, Element, ErrorKind, Header, NpyArray, ReadOptions, Version,
};

#[path = "common.rs"]
mod common;

use common::{assert_same, outcome, saved};

/// Largest payload the generator makes.
const MAX_PAYLOAD: usize = 8 * 1024;

pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(dtype) = common::dtype(&mut u) else {
        return;
    };
    let Ok(shape) = common::shape(&mut u, dtype.itemsize(), MAX_PAYLOAD) else {
        return;
    };
    let Ok(fortran) = u.arbitrary::<bool>() else {
        return;
    };
    let header = Header::new(dtype.clone(), shape.clone(), fortran).unwrap_or_else(|e| {
        panic!("Header::new refuses a bounded shape: {e}; {dtype:?} {shape:?}")
    });
    let Ok(values) = common::array_data(&mut u, &dtype, header.element_count()) else {
        return;
    };
    let Some(array) = common::new_array(header.clone(), values) else {
        return;
    };
    let bytes = saved(&array);
    let ctx = || format!("{dtype:?}, shape {shape:?}, fortran {fortran}");

    // Layout of the file.
    let head = header_bytes(&header);
    assert_eq!(head.len() % 64, 0, "payload not aligned to 64; {}", ctx());
    assert_eq!(
        bytes.len(),
        head.len() + header.payload_len(),
        "file size; {}",
        ctx()
    );

    // Read back.
    let opts = ReadOptions::default();
    let back = read_bytes(&bytes, &opts)
        .unwrap_or_else(|e| panic!("the reader refuses the writer's output: {e}; {}", ctx()));
    assert_eq!(back.dtype(), &dtype, "dtype changed; {}", ctx());
    assert_eq!(back.shape(), &shape[..], "shape changed; {}", ctx());
    assert_eq!(back.fortran_order(), fortran, "order changed; {}", ctx());
    assert!(
        back.header().extra().is_empty(),
        "extra keys appeared; {}",
        ctx()
    );
    assert_eq!(back.header().payload_offset(), head.len() as u64);
    assert_eq!(
        back.header().version(),
        choose_version(&header),
        "version is not choose_version's; {}",
        ctx()
    );
    let original = outcome(&Ok(array.clone()));
    assert_same("written array", &original, "read back", &outcome(&Ok(back)));
    assert_same(
        "written array",
        &original,
        "read_from",
        &outcome(&read_from(Cursor::new(&bytes), &opts)),
    );

    // Every version the writer agrees to write reads back the same.
    for version in [Version::V1_0, Version::V2_0, Version::V3_0] {
        let mut out = Vec::new();
        match to_writer_with_version(&mut out, &array, version) {
            Ok(()) => {
                let r = read_bytes(&out, &opts).unwrap_or_else(|e| {
                    panic!(
                        "version {version} output does not read back: {e}; {}",
                        ctx()
                    )
                });
                assert_eq!(r.header().version(), version);
                assert_same(
                    "written array",
                    &original,
                    &format!("version {version}"),
                    &outcome(&Ok(r)),
                );
            }
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::InvalidInput, "version {version}: {e}");
                assert!(
                    version < choose_version(&header),
                    "the writer refuses version {version} but chose it: {e}"
                );
            }
        }
    }

    reorder(&array, &original);
    typed(&array, &bytes);
    if let Dtype::Record(_) = &dtype {
        fields(&array);
    }
}

/// C -> F -> C and F -> C -> F are identities.
fn reorder(array: &Array, original: &common::Outcome) {
    let c = array.to_c_order();
    let f = array.to_fortran_order();
    assert!(
        !c.fortran_order() && f.fortran_order(),
        "to_c_order/to_fortran_order set the wrong order flag"
    );
    let back = if array.fortran_order() {
        c.to_fortran_order()
    } else {
        f.to_c_order()
    };
    assert_same("array", original, "reordered and back", &outcome(&Ok(back)));
    assert_same(
        "C order",
        &outcome(&Ok(c.clone())),
        "C -> F -> C",
        &outcome(&Ok(f.to_c_order())),
    );
    assert_same(
        "F order",
        &outcome(&Ok(f.clone())),
        "F -> C -> F",
        &outcome(&Ok(c.to_fortran_order())),
    );
    // The reordered arrays are written and read back too.
    for a in [&c, &f] {
        let back = read_bytes(&saved(a), &ReadOptions::default())
            .unwrap_or_else(|e| panic!("a reordered array does not read back: {e}"));
        assert_same(
            "reordered",
            &outcome(&Ok(a.clone())),
            "read back",
            &outcome(&Ok(back)),
        );
    }
}

/// The typed API for element types: same bytes through `NpyArray::write`, same values read.
fn typed(array: &Array, bytes: &[u8]) {
    fn check<T: Element>(array: &Array, bytes: &[u8]) {
        let t = array
            .clone()
            .into_typed::<T>()
            .unwrap_or_else(|e| panic!("into_typed refuses its own dtype: {e}"));
        let mut out = Vec::new();
        t.write(&mut out)
            .unwrap_or_else(|e| panic!("NpyArray::write failed: {e}"));
        assert!(
            out == bytes,
            "NpyArray::write and to_vec write different bytes ({:?})",
            array.dtype()
        );
        assert!(
            saved(&t.to_array()) == bytes,
            "NpyArray::to_array changes the array ({:?})",
            array.dtype()
        );
        let opts = ReadOptions::default();
        let r = NpyArray::<T>::read_bytes(bytes, &opts)
            .unwrap_or_else(|e| panic!("NpyArray::read_bytes: {e}"));
        assert!(
            saved(&r.to_array()) == bytes,
            "NpyArray::read_bytes reads other values ({:?})",
            array.dtype()
        );
        let s = NpyArray::<T>::read(Cursor::new(bytes), &opts)
            .unwrap_or_else(|e| panic!("NpyArray::read: {e}"));
        assert!(
            saved(&s.to_array()) == bytes,
            "NpyArray::read reads other values ({:?})",
            array.dtype()
        );
        // Logical indexing agrees with the C-order copy.
        let c = t.to_c_order();
        let shape = t.shape().to_vec();
        let mut idx = vec![0usize; shape.len()];
        for (flat, v) in c.iter().enumerate() {
            let got = t
                .get(&idx)
                .unwrap_or_else(|| panic!("get({idx:?}) is None for shape {shape:?}"));
            let (mut a, mut b) = (Vec::new(), Vec::new());
            T::encode_into(std::slice::from_ref(got), npyguard::Endian::Little, &mut a);
            T::encode_into(std::slice::from_ref(v), npyguard::Endian::Little, &mut b);
            assert!(
                a == b,
                "get({idx:?}) differs from to_c_order()[{flat}] for shape {shape:?}"
            );
            for k in (0..idx.len()).rev() {
                idx[k] += 1;
                if idx[k] < shape[k] {
                    break;
                }
                idx[k] = 0;
            }
        }
        if !shape.is_empty() {
            assert!(
                t.get(&shape).is_none(),
                "get({shape:?}) (out of bounds) is Some"
            );
        }
    }
    match array.dtype() {
        Dtype::Bool => {
            // `bool` values hold True as 1: typed, the array's bytes are the canonical ones.
            let canonical = Array::new(
                array.header().clone(),
                npyguard::ArrayData::Bool(match array.data() {
                    npyguard::ArrayData::Bool(v) => v.iter().map(|&b| u8::from(b != 0)).collect(),
                    _ => Vec::new().into(),
                }),
            )
            .unwrap_or_else(|e| panic!("canonical bool array: {e}"));
            check::<bool>(&canonical, &saved(&canonical))
        }
        Dtype::I8 => check::<i8>(array, bytes),
        Dtype::U8 => check::<u8>(array, bytes),
        Dtype::I16(_) => check::<i16>(array, bytes),
        Dtype::I32(_) => check::<i32>(array, bytes),
        Dtype::I64(_) => check::<i64>(array, bytes),
        Dtype::U16(_) => check::<u16>(array, bytes),
        Dtype::U32(_) => check::<u32>(array, bytes),
        Dtype::U64(_) => check::<u64>(array, bytes),
        Dtype::F32(_) => check::<f32>(array, bytes),
        Dtype::F64(_) => check::<f64>(array, bytes),
        _ => {
            // No element type: the typed reader must say so.
            let e = NpyArray::<u8>::read_bytes(bytes, &ReadOptions::default())
                .expect_err("typed read of a non-u1 array");
            assert_eq!(e.kind(), ErrorKind::TypeMismatch, "{e}");
        }
    }
}

/// Each field of a record array holds exactly the field's bytes of every record.
fn fields(array: &Array) {
    let Dtype::Record(rec) = array.dtype() else {
        return;
    };
    let c = array.to_c_order();
    let raw = match c.data() {
        npyguard::ArrayData::Record(v) => v.clone(),
        other => panic!("record array holds {other:?}"),
    };
    for f in &rec.fields {
        let mut want_shape = array.shape().to_vec();
        want_shape.extend_from_slice(&f.shape);
        let got = match array.field(&f.name) {
            Ok(g) => g,
            // Invalid UTF-32 inside the record's raw bytes.
            Err(e) if e.kind() == ErrorKind::BadPayload && common::holds_unicode(&f.dtype) => {
                continue
            }
            // The field's array cannot be sized although the record array can: a zero
            // subarray dimension makes the record small (even 0 bytes) while the field's
            // own item size times the other dimensions overflows (NumPy's rule counts
            // the non-zero dimensions). Regression `field-of-zero-size-record-overflows`.
            Err(e)
                if e.kind() == ErrorKind::ShapeOverflow
                    && Header::new(f.dtype.clone(), want_shape.clone(), false).is_err() =>
            {
                continue
            }
            Err(e) => panic!(
                "field {:?} ({:?}) of shape {want_shape:?} refused: {e}",
                f.name, f.dtype
            ),
        };
        assert_eq!(got.shape(), &want_shape[..], "field {:?} shape", f.name);
        assert_eq!(got.dtype(), &f.dtype, "field {:?} dtype", f.name);
        assert!(!got.fortran_order(), "field {:?} is not C order", f.name);
        let mut want = Vec::new();
        if rec.itemsize > 0 {
            for record in raw.chunks_exact(rec.itemsize) {
                want.extend_from_slice(&record[f.offset..f.offset + f.size()]);
            }
        }
        let bytes = saved(&got);
        let head = header_bytes(got.header()).len();
        assert!(
            bytes[head..] == want[..],
            "field {:?} ({:?}) holds other bytes than the records",
            f.name,
            f.dtype
        );
    }
}
