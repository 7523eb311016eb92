//! Target `file`: raw bytes → `read_bytes` and `read_from` with small limits.
//!
//! Properties, with trailing bytes refused (the default) and allowed:
//! * no panic;
//! * `read_bytes` (in memory), `read_from` on a cursor, and `read_from` on a
//!   stream that returns one byte (or a few bytes) per read all give the same
//!   array (compared by its `np.save` bytes, so NaN payloads count) or the same
//!   error kind and offset;
//! * an error's offset lies inside the input (or at its end);
//! * an accepted array is consistent (`Array::new` accepts its parts), its
//!   payload is exactly the bytes after the header, and the bytes the writer
//!   makes of it read back to the same array;
//! * allowing trailing bytes changes nothing but `TrailingBytes` errors;
//! * the typed reader agrees with the dynamic one for the element types it has;
//! * reading into a huge-page mapping (threshold 1 byte) gives the same as into a `Vec`.

use std::io::{Cursor, Read};

use npyguard::{read_bytes, read_from, Array, ErrorKind, NpyArray, ReadOptions};

#[path = "common.rs"]
mod common;

use common::{assert_same, outcome, saved, Outcome};

/// Limit on the whole file for this target.
const MAX_FILE_BYTES: u64 = 1 << 20;
/// Limit on the header.
const MAX_HEADER_BYTES: usize = 4096;
/// Arrays up to this many elements are also reordered (C ↔ Fortran).
const MAX_REORDER: usize = 1 << 16;

/// A reader that returns at most `step` bytes per call (spurious short reads).
struct Trickle<R> {
    inner: R,
    step: usize,
    calls: usize,
}

impl<R: Read> Read for Trickle<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.calls += 1;
        // Step 1: one byte per read. Otherwise vary the length (1..=step) so
        // that reads split elements at every position.
        let n = if self.step <= 1 {
            1
        } else {
            1 + (self.calls * 7) % self.step
        };
        let n = buf.len().min(n);
        self.inner.read(&mut buf[..n])
    }
}

pub fn run(data: &[u8]) {
    let base = ReadOptions::default()
        .with_max_file_bytes(Some(MAX_FILE_BYTES))
        .with_max_header_bytes(MAX_HEADER_BYTES);
    let mut results = Vec::new();
    for allow in [false, true] {
        let opts = base.clone().with_allow_trailing_bytes(allow);
        let whole = read_bytes(data, &opts);
        let streamed = read_from(Cursor::new(data), &opts);
        let trickled = read_from(
            Trickle {
                inner: Cursor::new(data),
                step: 1,
                calls: 0,
            },
            &opts,
        );
        let short = read_from(
            Trickle {
                inner: Cursor::new(data),
                step: 13,
                calls: 0,
            },
            &opts,
        );
        // The whole payload read straight into a huge-page mapping (the default threshold,
        // 4 MiB, is above this target's file limit, so `whole` reads into a `Vec`).
        let mapped = read_bytes(data, &opts.clone().with_huge_page_threshold(1));
        let w = outcome(&whole);
        assert_same(
            &format!("read_bytes (trailing {allow})"),
            &w,
            "read_from",
            &outcome(&streamed),
        );
        assert_same(
            "read_bytes",
            &w,
            "read_bytes (huge-page buffer)",
            &outcome(&mapped),
        );
        assert_same(
            "read_bytes",
            &w,
            "read_from (1 byte per read)",
            &outcome(&trickled),
        );
        assert_same(
            "read_bytes",
            &w,
            "read_from (short reads)",
            &outcome(&short),
        );
        match &whole {
            // FileTooLarge points at the limit, which may lie past a short input
            // whose header claims more.
            Err(e) => assert!(
                e.offset().is_none_or(|at| at <= data.len() as u64)
                    || e.kind() == ErrorKind::FileTooLarge,
                "error offset {:?} past the end of the {}-byte input: {e}",
                e.offset(),
                data.len()
            ),
            Ok(a) => check_array(a, data, allow),
        }
        results.push((whole, w));
    }
    let [(strict, s), (_, lax)] = &results[..] else {
        unreachable!()
    };
    match strict {
        Err(e) if e.kind() == ErrorKind::TrailingBytes => {
            assert!(
                matches!(lax, Outcome::Array { .. }),
                "trailing bytes refused, then allowed gives {lax:?}"
            )
        }
        _ => assert_same("trailing bytes refused", s, "trailing bytes allowed", lax),
    }
}

fn check_array(a: &Array, data: &[u8], allow_trailing: bool) {
    let h = a.header();
    Array::new(h.clone(), a.data().clone())
        .unwrap_or_else(|e| panic!("read an inconsistent array ({e}): {h:?}"));
    let start = h.payload_offset() as usize;
    let end = start + h.payload_len();
    assert!(
        end <= data.len(),
        "payload {start}..{end} past the input ({} bytes)",
        data.len()
    );
    if !allow_trailing {
        assert_eq!(end, data.len(), "trailing bytes accepted");
    }
    // The writer's bytes read back to the same array (extra keys are not written).
    let bytes = saved(a);
    let back = read_bytes(&bytes, &ReadOptions::default()).unwrap_or_else(|e| {
        panic!("the writer's output of a read array does not read back: {e}; header {h:?}")
    });
    let mut read = outcome(&Ok(a.clone()));
    if let Outcome::Array { extra, .. } = &mut read {
        *extra = 0;
    }
    assert_same(
        "read array",
        &read,
        "written and read again",
        &outcome(&Ok(back)),
    );
    // Orders: C -> F -> C and F -> C -> F are identities.
    if a.len() <= MAX_REORDER {
        let c = a.to_c_order();
        let f = a.to_fortran_order();
        let cc = if a.fortran_order() {
            c.to_fortran_order()
        } else {
            f.to_c_order()
        };
        assert_same(
            "read array",
            &outcome(&Ok(a.clone())),
            "reordered twice",
            &outcome(&Ok(cc)),
        );
    }
    typed_agrees(a, data);
}

/// The typed reader gives the same values as the dynamic one (or `TypeMismatch`).
fn typed_agrees(a: &Array, data: &[u8]) {
    // Threshold 1 byte: the typed buffer is a huge-page mapping whenever it is read whole.
    let opts = ReadOptions::default()
        .with_allow_trailing_bytes(true)
        .with_huge_page_threshold(1);
    fn check<T: npyguard::Element>(a: &Array, data: &[u8], opts: &ReadOptions) {
        match NpyArray::<T>::read_bytes(data, opts) {
            Ok(t) => {
                let mine = a.clone().into_typed::<T>().unwrap_or_else(|e| {
                    panic!("into_typed refuses ({e}) what read_bytes::<T> reads")
                });
                assert_same(
                    "NpyArray::read_bytes",
                    &outcome(&Ok(t.to_array())),
                    "into_typed",
                    &outcome(&Ok(mine.to_array())),
                );
            }
            Err(e) => {
                assert_eq!(
                    e.kind(),
                    ErrorKind::TypeMismatch,
                    "typed read fails ({e}) where the dynamic read succeeds"
                );
                assert!(
                    a.clone().into_typed::<T>().is_err(),
                    "into_typed accepts a type read_bytes::<T> refuses"
                );
            }
        }
    }
    check::<f64>(a, data, &opts);
    check::<u8>(a, data, &opts);
    check::<i32>(a, data, &opts);
    check::<bool>(a, data, &opts);
    match a.dtype() {
        npyguard::Dtype::I8 => check::<i8>(a, data, &opts),
        npyguard::Dtype::I16(_) => check::<i16>(a, data, &opts),
        npyguard::Dtype::I64(_) => check::<i64>(a, data, &opts),
        npyguard::Dtype::U16(_) => check::<u16>(a, data, &opts),
        npyguard::Dtype::U32(_) => check::<u32>(a, data, &opts),
        npyguard::Dtype::U64(_) => check::<u64>(a, data, &opts),
        npyguard::Dtype::F32(_) => check::<f32>(a, data, &opts),
        _ => {}
    }
}
