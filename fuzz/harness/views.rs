//! Target `views`: raw bytes → the readers of parts of a file (`View`, `ArrayView<T>`,
//! `RowReader`, `RowChunks`) against the whole read.
//!
//! Properties, with trailing bytes refused and allowed, `max_file_bytes` 1 MiB:
//! * no panic, and no allocation beyond what the input pays for (the smoke run and the
//!   campaigns use `-malloc_limit_mb`);
//! * `View::new` gives exactly `read_bytes`'s outcome: the same array (by its `np.save`
//!   bytes, from `View::to_array`) or the same error kind and offset; the view's payload is
//!   the bytes at the header's `payload_range`;
//! * the typed view of the dtype's element type reads the typed read's values (by their
//!   encoding) through `to_vec`, `iter` and `get`, with the payload copied to every
//!   alignment 0..8; `as_slice`, when it borrows, is the payload itself;
//! * `RowReader` (on a cursor) and `RowChunks` (on a stream that returns a few bytes per
//!   read) give, chunk by chunk, the rows of the whole read when it succeeds, and an error
//!   when it fails; a row range taken from the input's last bytes reads exactly those rows.

use std::io::{Cursor, Read};

use npyguard::{
    read_bytes, Array, ArrayView, Dtype, Element, NpyArray, ReadOptions, RowChunks, RowReader, View,
};

#[path = "common.rs"]
mod common;

use common::{assert_same, c_payload, error_outcome, outcome};

/// A reader that returns at most 5 bytes per call.
struct Trickle<R>(R);

impl<R: Read> Read for Trickle<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(5);
        self.0.read(&mut buf[..n])
    }
}

pub fn run(data: &[u8]) {
    let base = ReadOptions::default()
        .with_max_file_bytes(Some(1 << 20))
        .with_max_header_bytes(4096);
    for allow in [false, true] {
        let opts = base.clone().with_allow_trailing_bytes(allow);
        let whole = read_bytes(data, &opts);
        let view = View::new(data, &opts);
        let viewed = match &view {
            Ok(v) => outcome(&v.to_array()),
            Err(e) => error_outcome(e),
        };
        assert_same("read_bytes", &outcome(&whole), "View", &viewed);
        if let (Ok(v), Ok(a)) = (&view, &whole) {
            let r = v.header().payload_range();
            assert_eq!(v.payload(), &data[r.start as usize..r.end as usize]);
            if !allow {
                typed(a, data, &opts);
            }
        }
        rows(data, &opts, &whole);
    }
}

fn rows(data: &[u8], opts: &ReadOptions, whole: &npyguard::Result<Array>) {
    // 1 to 7 chunks (more only make the run slower, not the check stronger).
    let parts = usize::from(data.last().copied().unwrap_or(1) % 7) + 1;
    let n = whole
        .as_ref()
        .ok()
        .and_then(|a| a.shape().first().copied())
        .unwrap_or(7);
    let step = n.div_ceil(parts).max(1);
    let reader = RowReader::new(Cursor::new(data), opts);
    let seek: npyguard::Result<Vec<Array>> = reader.and_then(|r| r.into_chunks(step).collect());
    let stream: npyguard::Result<Vec<Array>> =
        RowChunks::new(Trickle(Cursor::new(data)), step, opts).and_then(|c| c.collect());
    for (what, got) in [("RowReader", &seek), ("RowChunks", &stream)] {
        match (whole, got) {
            (Ok(a), Ok(parts)) => {
                let joined: Vec<u8> = parts.iter().flat_map(c_payload).collect();
                assert_eq!(
                    joined,
                    c_payload(a),
                    "{what}: the chunks are the array's rows"
                );
            }
            (Err(_), Err(_)) => {}
            (w, g) => panic!(
                "{what} and read_bytes disagree: {:?} vs {:?}",
                w.as_ref().map(|a| a.shape().to_vec()),
                g.as_ref().map(|p| p.len())
            ),
        }
    }
    // One range, from the input's last two bytes.
    if let Ok(a) = whole {
        let Some(&n) = a.shape().first() else { return };
        let x = usize::from(data.get(data.len().saturating_sub(2)).copied().unwrap_or(0));
        let (lo, hi) = (x % (n + 1), (x / 3) % (n + 1));
        let (lo, hi) = (lo.min(hi), lo.max(hi));
        let mut r = RowReader::new(Cursor::new(data), opts).expect("accepted above");
        let part = r.read_rows(lo..hi).expect("rows inside the array");
        let all = c_payload(a);
        let per = all.len().checked_div(n).unwrap_or(0);
        assert_eq!(c_payload(&part), all[lo * per..hi * per], "rows {lo}..{hi}");
    }
}

fn typed(a: &Array, data: &[u8], opts: &ReadOptions) {
    match a.dtype() {
        Dtype::Bool => typed_as::<bool>(data, opts),
        Dtype::I8 => typed_as::<i8>(data, opts),
        Dtype::U8 => typed_as::<u8>(data, opts),
        Dtype::I16(_) => typed_as::<i16>(data, opts),
        Dtype::I32(_) => typed_as::<i32>(data, opts),
        Dtype::I64(_) => typed_as::<i64>(data, opts),
        Dtype::U16(_) => typed_as::<u16>(data, opts),
        Dtype::U32(_) => typed_as::<u32>(data, opts),
        Dtype::U64(_) => typed_as::<u64>(data, opts),
        Dtype::F32(_) => typed_as::<f32>(data, opts),
        Dtype::F64(_) => typed_as::<f64>(data, opts),
        _ => {}
    }
}

fn typed_as<T: Element>(data: &[u8], opts: &ReadOptions) {
    let owned = NpyArray::<T>::read_bytes(data, opts).expect("the dynamic read accepted it");
    let enc = |v: &[T]| {
        let mut out = Vec::new();
        T::encode_into(v, npyguard::Endian::Little, &mut out);
        out
    };
    let want = enc(owned.data());
    for shift in 0..8 {
        let mut store = vec![0u8; data.len() + 8];
        store[shift..shift + data.len()].copy_from_slice(data);
        let bytes = &store[shift..shift + data.len()];
        let v = ArrayView::<T>::new(bytes, opts).expect("the typed read accepted it");
        assert_eq!(enc(&v.to_vec()), want, "to_vec at shift {shift}");
        assert_eq!(
            enc(&v.iter().collect::<Vec<_>>()),
            want,
            "iter at shift {shift}"
        );
        if let Some(last) = v.len().checked_sub(1) {
            assert_eq!(
                enc(&[v.get(last).expect("in range")]),
                want[last * T::SIZE..]
            );
        }
        assert!(v.get(v.len()).is_none());
        if let Some(s) = v.as_slice() {
            assert_eq!(
                s.as_ptr().cast::<u8>(),
                v.payload().as_ptr(),
                "as_slice borrows"
            );
        }
    }
}
