//! Target `payload` (structure-aware, like image-png's `buf_independent`):
//! an arbitrary dtype (records, strings, datetimes included), shape (bounded
//! payload), order and payload bytes → `Header::new` → `PayloadDecoder`, fed
//! three ways: the whole payload at once, one byte per `feed`, and chunks of
//! arbitrary sizes (empty chunks included).
//!
//! Properties:
//! * the three ways give the same array (compared by its `np.save` bytes, so
//!   NaN payloads count) or the same error kind and offset, and use the same
//!   number of bytes (`min(payload, payload_len)`);
//! * a decoded array is consistent (`Array::new` accepts its parts) and encodes
//!   back to exactly the payload bytes (booleans normalised to 0/1);
//! * the whole-file readers on `header_bytes(h) ++ payload` agree with the
//!   decoder, offsets moved by the header length.

use std::io::Cursor;

use arbitrary::Unstructured;
use npyguard::write::header_bytes;
use npyguard::PayloadDecoder;
use npyguard::{read_bytes, read_from, Array, Dtype, Endian, ErrorKind, Header, ReadOptions};

#[path = "common.rs"]
mod common;

use common::{assert_same, error_outcome, outcome, saved, Outcome};

/// Largest payload the generator declares.
const MAX_PAYLOAD: usize = 16 * 1024;

/// Result of one decoding: the outcome and the bytes `feed` reported as used.
struct Decoded {
    outcome: Outcome,
    used: usize,
    array: Option<Array>,
}

/// Feeds `payload` in chunks whose sizes come from `sizes` (cycled; 0 feeds an empty chunk).
fn decode(header: &Header, payload: &[u8], sizes: &[usize]) -> Decoded {
    let mut dec = PayloadDecoder::new(header.clone());
    let mut rest = payload;
    let mut used = 0usize;
    let mut step = 0usize;
    loop {
        let want = sizes
            .get(step % sizes.len().max(1))
            .copied()
            .unwrap_or(usize::MAX);
        step += 1;
        // An empty chunk is a no-op; make progress on the next step.
        let n = if want == 0 && step % 2 == 1 {
            0
        } else {
            want.max(1).min(rest.len())
        };
        let (chunk, tail) = rest.split_at(n);
        match dec.feed(chunk) {
            Ok(k) => {
                assert!(
                    k <= chunk.len(),
                    "feed used {k} of a {}-byte chunk",
                    chunk.len()
                );
                if k < chunk.len() {
                    assert!(
                        dec.is_complete(),
                        "feed used {k} of {} bytes but the payload is incomplete",
                        chunk.len()
                    );
                }
                used += k;
            }
            Err(e) => {
                return Decoded {
                    outcome: error_outcome(&e),
                    used,
                    array: None,
                }
            }
        }
        assert_eq!(
            dec.offset(),
            used as u64,
            "decoder offset differs from the bytes used"
        );
        assert_eq!(
            dec.remaining(),
            header.payload_len() - used.min(header.payload_len())
        );
        rest = tail;
        if rest.is_empty() {
            break;
        }
    }
    let r = dec.finish();
    let array = r.as_ref().ok().cloned();
    Decoded {
        outcome: outcome(&r),
        used,
        array,
    }
}

/// Makes each 4-byte unit a valid Unicode scalar value (so `U` arrays decode).
fn sanitize_utf32(bytes: &mut [u8], e: Endian) {
    for unit in bytes.chunks_exact_mut(4) {
        let raw = [unit[0], unit[1], unit[2], unit[3]];
        let v = match e {
            Endian::Little => u32::from_le_bytes(raw),
            Endian::Big => u32::from_be_bytes(raw),
        } % 0xD800;
        unit.copy_from_slice(&match e {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        });
    }
}

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
    let Ok(mode) = u.arbitrary::<u8>() else {
        return;
    };
    let Ok(size_bytes) = u.arbitrary::<Vec<u8>>() else {
        return;
    };
    let header = Header::new(dtype.clone(), shape.clone(), fortran).unwrap_or_else(|e| {
        panic!("Header::new refuses a bounded shape: {e}; {dtype:?} {shape:?}")
    });
    let len = header.payload_len();
    let mut payload = u.take_rest().to_vec();
    if mode % 4 != 0 {
        // Mostly exactly the declared length (the bytes repeated, or zeros).
        payload = if payload.is_empty() {
            vec![0; len]
        } else {
            payload.iter().copied().cycle().take(len).collect()
        };
        if let (Dtype::Unicode(_, e), true) = (&dtype, mode % 8 != 1) {
            sanitize_utf32(&mut payload, *e);
        }
    }
    // Chunk sizes: small ones mostly, sometimes larger.
    let sizes: Vec<usize> = size_bytes
        .iter()
        .map(|&b| {
            if b >= 0xF0 {
                usize::from(b & 0x0F) * 97
            } else {
                usize::from(b % 17)
            }
        })
        .collect();

    let whole = decode(&header, &payload, &[usize::MAX]);
    let bytewise = decode(&header, &payload, &[1]);
    let chunked = decode(&header, &payload, &sizes);
    assert_same(
        "whole",
        &whole.outcome,
        "one byte per feed",
        &bytewise.outcome,
    );
    assert_same(
        "whole",
        &whole.outcome,
        &format!("chunks {sizes:?}"),
        &chunked.outcome,
    );
    if let Outcome::Array { .. } = whole.outcome {
        let expect_used = payload.len().min(len);
        for (what, d) in [
            ("whole", &whole),
            ("one byte per feed", &bytewise),
            ("chunks", &chunked),
        ] {
            assert_eq!(
                d.used, expect_used,
                "{what}: feed used {} bytes of a {len}-byte payload",
                d.used
            );
        }
    }

    // A decoded array is consistent and encodes back to the payload.
    if let Some(a) = &whole.array {
        Array::new(a.header().clone(), a.data().clone())
            .unwrap_or_else(|e| panic!("decoded an inconsistent array: {e}"));
        let head = header_bytes(&header);
        let bytes = saved(a);
        assert_eq!(
            &bytes[..head.len()],
            &head[..],
            "to_vec writes another header than header_bytes"
        );
        // The identity for every dtype: bool bytes other than 0/1 are kept, as NumPy keeps them.
        let expect = payload[..len].to_vec();
        assert!(
            bytes[head.len()..] == expect[..],
            "decode then encode is not the identity on the payload ({dtype:?})"
        );
    }

    // The whole-file readers agree, offsets moved by the header.
    let head = header_bytes(&header);
    let mut file = head.clone();
    file.extend_from_slice(&payload);
    let shift = |o: &Outcome| match o {
        Outcome::Error { kind, offset } => Outcome::Error {
            kind: *kind,
            offset: offset.map(|at| at + head.len() as u64),
        },
        Outcome::Array {
            dtype,
            fortran_order,
            shape,
            extra,
            bytes,
        } => Outcome::Array {
            dtype: dtype.clone(),
            fortran_order: *fortran_order,
            shape: shape.clone(),
            extra: *extra,
            bytes: bytes.clone(),
        },
    };
    let expected = shift(&whole.outcome);
    let lax = ReadOptions::default().with_allow_trailing_bytes(true);
    assert_same(
        "decoder",
        &expected,
        "read_bytes (trailing allowed)",
        &outcome(&read_bytes(&file, &lax)),
    );
    assert_same(
        "decoder",
        &expected,
        "read_from (trailing allowed)",
        &outcome(&read_from(Cursor::new(&file), &lax)),
    );
    let strict_expected = match &whole.outcome {
        Outcome::Array { .. } if payload.len() > len => Outcome::Error {
            kind: ErrorKind::TrailingBytes,
            offset: Some((head.len() + len) as u64),
        },
        other => shift(other),
    };
    let strict = ReadOptions::default();
    assert_same(
        "decoder",
        &strict_expected,
        "read_bytes",
        &outcome(&read_bytes(&file, &strict)),
    );
    assert_same(
        "decoder",
        &strict_expected,
        "read_from",
        &outcome(&read_from(Cursor::new(&file), &strict)),
    );
}
