//! The core that builds without std (`--no-default-features`: `#![no_std]` + `alloc`):
//! header parsing and validation, dtypes, the view API, the payload decoder, arrays and
//! their reindexing, the length checks. Runs in both configurations (CI runs it with and
//! without default features); the files are built by hand, as the writer needs std.

use npyguard::{
    check_length, Array, ArrayData, ArrayView, Dtype, Endian, ErrorKind, Header, NpyArray,
    PayloadDecoder, ReadOptions, View,
};

/// A version 1.0 `.npy` file of `header` (padded as np.save pads it) and `payload`.
fn npy(header: &str, payload: &[u8]) -> Vec<u8> {
    let mut text = header.to_string();
    let unpadded = 10 + text.len() + 1;
    text.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    text.push('\n');
    let mut v = b"\x93NUMPY\x01\x00".to_vec();
    v.extend_from_slice(&(text.len() as u16).to_le_bytes());
    v.extend_from_slice(text.as_bytes());
    v.extend_from_slice(payload);
    v
}

fn be_f8(values: &[f64], shape: &str, fortran: bool) -> Vec<u8> {
    let order = if fortran { "True" } else { "False" };
    let payload: Vec<u8> = values.iter().flat_map(|v| v.to_be_bytes()).collect();
    npy(
        &format!("{{'descr': '>f8', 'fortran_order': {order}, 'shape': {shape}, }}"),
        &payload,
    )
}

#[test]
fn headers_parse_and_validate() {
    let file = be_f8(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "(2, 3)", false);
    let h = Header::from_bytes(&file, &ReadOptions::default()).unwrap();
    assert_eq!(h.dtype(), &Dtype::F64(Endian::Big));
    assert_eq!(h.shape(), &[2, 3]);
    assert_eq!(h.payload_offset() % 64, 0);
    assert_eq!(h.payload_range().end, file.len() as u64);
    let e = Header::from_bytes(
        &npy(
            "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': ()}",
            &[],
        ),
        &ReadOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DuplicateKey);
    assert_eq!(e.offset(), Some(10 + 17));
}

#[test]
fn views_read_in_place_and_check_like_reads() {
    let file = be_f8(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "(2, 3)", false);
    let view = View::new(&file, &ReadOptions::default()).unwrap();
    let typed: ArrayView<'_, f64> = view.typed().unwrap();
    assert_eq!(typed.get(4), Some(5.0));
    assert_eq!(typed.to_vec(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(
        view.rows(1..2).unwrap().to_array().unwrap().data(),
        &ArrayData::F64(vec![4.0, 5.0, 6.0].into())
    );
    let short = &file[..file.len() - 1];
    let e = View::new(short, &ReadOptions::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated);
    let h = Header::from_bytes(&file, &ReadOptions::default()).unwrap();
    assert_eq!(
        check_length(&h, file.len() as u64 - 1, &ReadOptions::default())
            .unwrap_err()
            .kind(),
        ErrorKind::Truncated
    );
    let limit = ReadOptions::default().with_max_file_bytes(Some(100));
    assert_eq!(
        View::new(&file, &limit).unwrap_err().kind(),
        ErrorKind::FileTooLarge
    );
}

#[test]
fn the_decoder_gives_the_same_array_for_any_chunking() {
    let file = be_f8(&[1.5, -0.0, f64::NAN, 4.0, 5.0, 6.0], "(3, 2)", true);
    let h = Header::from_bytes(&file, &ReadOptions::default()).unwrap();
    let payload = &file[h.payload_offset() as usize..];
    let mut whole = PayloadDecoder::new(h.clone());
    whole.feed(payload).unwrap();
    let whole = whole.finish().unwrap();
    let mut bytewise = PayloadDecoder::new(h.clone());
    for b in payload {
        bytewise.feed(core::slice::from_ref(b)).unwrap();
    }
    let bytewise = bytewise.finish().unwrap();
    let bits = |a: &Array| match a.data() {
        ArrayData::F64(v) => v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        other => panic!("{other:?}"),
    };
    assert_eq!(bits(&whole), bits(&bytewise));
    // Fortran (3, 2) [1.5, -0.0, NaN | 4, 5, 6] is C [[1.5, 4], [-0.0, 5], [NaN, 6]].
    let c = whole.to_c_order();
    assert!(!c.fortran_order());
    assert_eq!(
        bits(&c)[..4],
        [
            1.5f64.to_bits(),
            4f64.to_bits(),
            (-0.0f64).to_bits(),
            5f64.to_bits()
        ]
    );
    let mut short = PayloadDecoder::new(h);
    short.feed(&payload[..payload.len() - 3]).unwrap();
    assert_eq!(short.finish().unwrap_err().kind(), ErrorKind::Truncated);
}

#[test]
fn typed_arrays_reindex() {
    let f = NpyArray::from_vec_with(vec![1u32, 4, 2, 5, 3, 6], vec![2, 3], true, Endian::Little)
        .unwrap();
    assert_eq!(f.get(&[1, 2]), Some(&6));
    let c = f.into_c_order();
    assert_eq!(c.data(), &[1, 2, 3, 4, 5, 6]);
    assert_eq!(c.into_vec(), vec![1, 2, 3, 4, 5, 6]);
}
