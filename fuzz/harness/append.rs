//! Target `append`: an existing file (raw bytes, or an arbitrary array written by the
//! writer with arbitrary bytes after it) and an arbitrary source array (mostly rows of the
//! file's dtype in either byte order and its trailing shape, sometimes anything), appended
//! through `write::Appender` on an in-memory storage that may fail after an arbitrary
//! number of bytes (a write inside one 512-byte sector is all or nothing, as the appender
//! assumes; other writes are torn).
//!
//! Properties:
//! * `Appender::new`, `check` and `append` never panic; `new` accepts only files that
//!   `read_bytes` reads (with trailing bytes allowed when they are to be discarded);
//! * when `append` succeeds, the storage reads back with default options as the old array
//!   followed by the source's rows (re-encoded in the file's byte order), and its bytes
//!   are exactly what `np.save` (`write::to_vec`) writes for the grown array;
//! * when it fails, the storage reads (trailing bytes allowed, as NumPy reads) as the old
//!   array, or, when the failure came after the header was written, as the new one.

use std::io::Cursor;

use arbitrary::Unstructured;
use npyguard::write::{header_bytes, to_vec, AppendOptions, Appender};
use npyguard::{read_bytes, Array, Dtype, Endian, Header, ReadOptions};

#[path = "common.rs"]
mod common;

// The failing storage, shared with tests/library/append.rs (tests/common is packaged with
// the crate; fuzz/ is not).
#[path = "../../tests/common/fail_after.rs"]
mod fail_after;
pub use fail_after::FailAfter;

/// Largest payload of the generated file and of the source.
const MAX_PAYLOAD: usize = 4 * 1024;

/// An arbitrary array of `dtype` with first dimension from `u` and trailing shape `rest`.
fn rows(u: &mut Unstructured<'_>, dtype: &Dtype, rest: &[usize]) -> Option<Array> {
    let n = u.int_in_range(0..=6usize).ok()?;
    let shape = [&[n][..], rest].concat();
    let header = Header::new(dtype.clone(), shape, false).ok()?;
    if header.payload_len() > MAX_PAYLOAD {
        return None;
    }
    let values = common::array_data(u, dtype, header.element_count()).ok()?;
    let a = common::new_array(header, values)?;
    Some(if u.arbitrary::<bool>().ok()? {
        a.to_fortran_order()
    } else {
        a
    })
}

/// The existing file, a written array plus (sometimes) arbitrary bytes after it.
fn existing(u: &mut Unstructured<'_>) -> Option<Vec<u8>> {
    let dtype = common::dtype(u).ok()?;
    let mut shape = common::shape(u, dtype.itemsize(), MAX_PAYLOAD).ok()?;
    if shape.is_empty() && u.arbitrary::<bool>().ok()? {
        shape.push(1);
    }
    let header = Header::new(dtype.clone(), shape, u.ratio(1u8, 8).ok()?).ok()?;
    let values = common::array_data(u, &dtype, header.element_count()).ok()?;
    let mut file = common::saved(&common::new_array(header, values)?);
    if u.ratio(1u8, 8).ok()? {
        let extra = u.int_in_range(1..=64usize).ok()?;
        file.extend_from_slice(u.bytes(extra).ok()?);
    }
    Some(file)
}

pub fn run(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    // Even mode: raw file bytes, their length in the next two bytes (little-endian);
    // odd: a generated file. The source is built from what follows.
    let (file, rest) = if mode & 1 == 0 {
        let Some((len, rest)) = rest.split_first_chunk::<2>() else {
            return;
        };
        let len = usize::from(u16::from_le_bytes(*len)).min(rest.len());
        (Some(rest[..len].to_vec()), &rest[len..])
    } else {
        (None, rest)
    };
    let mut u = Unstructured::new(rest);
    let Some(file) = file.or_else(|| existing(&mut u)) else {
        return;
    };
    let discard = mode & 2 != 0;
    let opts = AppendOptions::default()
        .with_read_options(
            ReadOptions::default()
                .with_max_file_bytes(Some(1 << 20))
                .with_max_header_bytes(4096),
        )
        .with_discard_trailing_bytes(discard)
        .with_fsync(mode & 4 != 0);
    let budget = if mode & 8 != 0 {
        u.int_in_range(0..=MAX_PAYLOAD + 600).unwrap_or(0)
    } else {
        usize::MAX
    };
    let storage = FailAfter {
        inner: Cursor::new(file.clone()),
        budget,
    };
    let Ok(mut ap) = Appender::new(storage, &opts) else {
        return;
    };
    let read_opts = opts
        .read_options()
        .clone()
        .with_allow_trailing_bytes(discard);
    let old = read_bytes(&file, &read_opts)
        .unwrap_or_else(|e| panic!("Appender::new accepts a file read_bytes refuses: {e}"));
    let old_saved = to_vec(&old).expect("to_vec of a read array");

    // The source: mostly rows of the file's dtype (either byte order), sometimes anything.
    let dtype = old.dtype().clone();
    let src_dtype = match (u.arbitrary::<u8>().unwrap_or(0), dtype.endian()) {
        (0..=31, _) => common::dtype(&mut u).unwrap_or(Dtype::U8),
        (32..=127, Some(e)) => dtype.with_endian(if e == Endian::Little {
            Endian::Big
        } else {
            Endian::Little
        }),
        _ => dtype.clone(),
    };
    let rest_shape: Vec<usize> = if u.ratio(1u8, 16).unwrap_or(false) {
        vec![u.int_in_range(0..=3usize).unwrap_or(0)]
    } else {
        old.shape().iter().skip(1).copied().collect()
    };
    let Some(src) = rows(&mut u, &src_dtype, &rest_shape) else {
        return;
    };
    let checked = ap.check(&src);
    let result = ap.append(&src);
    if let Err(c) = &checked {
        let kind = result.as_ref().err().map(|e| e.kind());
        assert_eq!(kind, Some(c.kind()), "append accepts what check refuses");
    }
    let bytes = ap.into_inner().inner.into_inner();

    // The grown array, when the source fits and the grown shape has a size (a file of shape
    // (2**62, 0) cannot grow: `append` refuses it with the header's error).
    let grown = checked.ok().and_then(|()| {
        let c = src.to_c_order();
        let h = Header::new(dtype.clone(), c.shape().to_vec(), false).expect("source header");
        let encoded =
            to_vec(&Array::new(h.clone(), c.data().clone()).expect("source in file order"))
                .expect("to_vec");
        let mut shape = old.shape().to_vec();
        shape[0] = shape[0].checked_add(src.shape()[0])?;
        // np.save flags a 1-D array C order.
        let fortran = old.fortran_order() && shape.len() > 1;
        let gh = Header::new(dtype.clone(), shape, fortran).ok()?;
        let mut want = header_bytes(&gh);
        let payload_at = header_bytes(old.header()).len();
        want.extend_from_slice(&old_saved[payload_at..]);
        want.extend_from_slice(&encoded[header_bytes(&h).len()..]);
        Some(want)
    });
    match result {
        Ok(()) => {
            let back = read_bytes(&bytes, &ReadOptions::default())
                .unwrap_or_else(|e| panic!("an appended file does not read back: {e}"));
            let want = grown
                .expect("append succeeded on a source check refused, or a shape without a size");
            if src.shape()[0] == 0 {
                assert_eq!(
                    to_vec(&back).unwrap(),
                    old_saved,
                    "zero rows changed the array"
                );
            } else {
                assert!(
                    bytes == want,
                    "appended bytes are not np.save's of old ++ new"
                );
            }
        }
        Err(e) => {
            let back = read_bytes(
                &bytes,
                &ReadOptions::default().with_allow_trailing_bytes(true),
            )
            .unwrap_or_else(|r| panic!("after a failed append ({e}) the file does not read: {r}"));
            let got = to_vec(&back).unwrap();
            let is_new = grown.as_ref().is_some_and(|w| {
                read_bytes(w, &ReadOptions::default()).is_ok_and(|a| to_vec(&a).unwrap() == got)
            });
            assert!(
                got == old_saved || is_new,
                "a failed append ({e}) left other values"
            );
        }
    }
}
