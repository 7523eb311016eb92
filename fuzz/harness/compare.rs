//! Target `compare`: `npyguard diff` on arbitrary pairs (see `common::layer_array`; the
//! second array is the first with some values overwritten, or, in raw mode, a second
//! `.npy` file after the first's bytes).
//!
//! Properties:
//! * no panic, no unbounded loop (run with `-timeout`), no allocation the input does not
//!   pay for (run with `-malloc_limit_mb`);
//! * an array equals itself under exact comparison with NaN equal to NaN;
//! * exact comparison is symmetric: `compare(a, b)` and `compare(b, a)` find the same
//!   number of mismatches and the same verdict;
//! * at most `max_report` mismatches are listed, never more than were counted; the
//!   report renders (Display) in bounded size.

use npyguard::compare::{compare, CompareOptions};
use npyguard::{read_bytes, Array, Dtype, ErrorKind, ReadOptions};

#[path = "common.rs"]
mod common;

fn second(data: &[u8], a: &Array) -> Option<Array> {
    // Raw mode: a second file may follow the first after a 0xff 0xff marker.
    if let Some(at) = data.windows(2).rposition(|w| w == [0xff, 0xff]) {
        let opts = ReadOptions::default()
            .with_max_file_bytes(Some(1 << 16))
            .with_max_header_bytes(4096);
        if let Ok(b) = read_bytes(&data[at + 2..], &opts) {
            return Some(b);
        }
    }
    // Otherwise: the same array with the last bytes of the input overwriting its payload.
    let mut bytes = npyguard::write::to_vec(a).ok()?;
    let head = npyguard::write::header_bytes(a.header()).len();
    let tail = &data[data.len().saturating_sub(16)..];
    for (i, &b) in tail.iter().enumerate() {
        let n = bytes.len().saturating_sub(head);
        if n == 0 {
            break;
        }
        let at = head + (usize::from(b) * 31 + i * 7) % n;
        bytes[at] ^= b | 1;
    }
    read_bytes(
        &bytes,
        &ReadOptions::default().with_allow_trailing_bytes(true),
    )
    .ok()
}

pub fn run(data: &[u8]) {
    let Some((a, input_len)) = common::layer_array(data) else {
        return;
    };
    let exact = CompareOptions::exact().nan_equal(true).max_report(4);
    if common::holds_long_double(a.dtype()) {
        // Long doubles are never compared (npyguard reads them as bytes or rounded f64s):
        // the report says the arrays differ, naming the dtype, or the compare is refused.
        if let Ok(r) = compare(&a, &a, &exact) {
            assert!(!r.is_equal(), "long doubles compared equal: {r}");
            assert!(r.to_string().contains("long double"), "{r}");
        }
        return;
    }
    let same = match compare(&a, &a, &exact) {
        Ok(r) => r,
        // A record field of a huge item-size-0 record array may not be an array at all
        // (its shape's byte size overflows isize: NumPy's size rule).
        Err(e) if e.kind() == ErrorKind::ShapeOverflow && matches!(a.dtype(), Dtype::Record(_)) => {
            return
        }
        Err(e) => panic!("compare(a, a): {e}"),
    };
    assert!(same.is_equal(), "an array differs from itself: {same}");
    // (Every array the reader hands out can be compared: its record fields, `U` text included,
    // were checked when it was read or built.)
    let Some(b) = second(data, &a) else {
        return;
    };
    let rtol = f64::from(data.first().copied().unwrap_or(0) >> 1) * 1e-3;
    for opts in [
        exact.clone(),
        CompareOptions::exact().max_report(4),
        CompareOptions::isclose(rtol, 1e-12)
            .ulps(Some(2))
            .cross_dtype(true)
            .max_report(4),
        CompareOptions::exact()
            .signed_zero(true)
            .complex_modulus(true)
            .cross_dtype(true),
    ] {
        let Ok(ab) = compare(&a, &b, &opts) else {
            continue; // b's record fields may overflow as a's may (see above)
        };
        assert!(ab.mismatches().len() <= ab.mismatch_count());
        assert!(
            ab.mismatches().len() <= 10,
            "more mismatches listed than max_report"
        );
        let text = ab.to_string();
        assert!(
            text.len() <= common::output_bound(input_len),
            "a report of {} bytes",
            text.len()
        );
    }
    for opts in [exact.clone(), CompareOptions::exact().max_report(4)] {
        let (Ok(ab), Ok(ba)) = (compare(&a, &b, &opts), compare(&b, &a, &opts)) else {
            continue;
        };
        assert_eq!(
            ab.is_equal(),
            ba.is_equal(),
            "exact comparison is not symmetric"
        );
        assert_eq!(
            ab.mismatch_count(),
            ba.mismatch_count(),
            "exact comparison counts differently both ways"
        );
    }
}
