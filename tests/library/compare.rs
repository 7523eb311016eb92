//! `npyguard::compare` and `npyguard diff` (issue 10).
//!
//! * The cases of the article "Reading a file format in 300 lines": `log(-1)` NaN
//!   against NaN passes, NaN against 1.0 fails, `+inf` against `-inf` fails, and
//!   `2^53 + 1` against `2^53` as `i64` fails — and would pass through `f64`.
//! * The type rules (integers exact in their own type, cross-dtype, complex,
//!   records, strings, datetimes, memory order) and the report.
//! * The CLI's exit codes and JSON (with `--features cli`).
//! * Properties (1000 cases each, failures persisted to
//!   `proptest-regressions/compare.txt`): an array equals itself (NaN payloads
//!   included) in any memory order, exact and ULP comparison are symmetric, and
//!   tolerances are monotonic.
//!
//! Agreement with `np.isclose` itself is checked by `tests/numpy/diff_isclose.py`.

use npyguard::compare::{compare, CompareOptions, Incompatibility, MismatchKind, Report};
use npyguard::{
    Array, ArrayData, DateUnit, Dtype, Element, Endian, Field, Header, NpyArray, Record, TimeUnit,
};
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, FileFailurePersistence};

const REGRESSIONS: &str = "proptest-regressions/compare.txt";

fn arr<T: Element>(v: Vec<T>, shape: Vec<usize>) -> Array {
    NpyArray::from_vec(v, shape).unwrap().to_array()
}

fn vec1<T: Element>(v: &[T]) -> Array {
    arr(v.to_vec(), vec![v.len()])
}

fn raw(dtype: Dtype, shape: Vec<usize>, fortran: bool, data: ArrayData) -> Array {
    Array::new(Header::new(dtype, shape, fortran).unwrap(), data).unwrap()
}

fn c128(v: Vec<[f64; 2]>) -> Array {
    let n = v.len();
    raw(
        Dtype::C128(Endian::Little),
        vec![n],
        false,
        ArrayData::C128(v.into()),
    )
}

fn c64(v: Vec<[f32; 2]>) -> Array {
    let n = v.len();
    raw(
        Dtype::C64(Endian::Little),
        vec![n],
        false,
        ArrayData::C64(v.into()),
    )
}

/// An `<f2` array of IEEE binary16 bit patterns.
fn f2(bits: Vec<u16>) -> Array {
    let n = bits.len();
    raw(
        Dtype::F16(Endian::Little),
        vec![n],
        false,
        ArrayData::F16(bits.into()),
    )
}

fn cmp(a: &Array, b: &Array, opts: &CompareOptions) -> Report {
    compare(a, b, opts).unwrap()
}

fn exact() -> CompareOptions {
    CompareOptions::new()
}

fn indices(r: &Report) -> Vec<Vec<usize>> {
    r.mismatches().iter().map(|m| m.index.clone()).collect()
}

// ------------------------------------------------------------------ the article's cases

#[test]
fn log_of_minus_one_is_nan_and_equals_a_reference_nan() {
    let computed = (-1.0f64).ln();
    assert!(computed.is_nan());
    // NumPy writes np.nan (0x7ff8...); log(-1) on x86-64 gives the "default NaN" with the sign bit set.
    let reference = f64::from_bits(0x7ff8_0000_0000_0000);
    let r = cmp(&vec1(&[computed]), &vec1(&[reference]), &exact());
    assert!(r.is_equal(), "{r}");
    // Under every tolerance mode too.
    for opts in [
        CompareOptions::isclose(1e-7, 0.0),
        exact().ulps(Some(0)),
        exact().signed_zero(true),
    ] {
        assert!(cmp(&vec1(&[computed]), &vec1(&[reference]), &opts).is_equal());
    }
    // NumPy's default equal_nan=False: a NaN is never equal.
    let r = cmp(
        &vec1(&[computed]),
        &vec1(&[reference]),
        &exact().nan_equal(false),
    );
    assert!(!r.is_equal());
    assert_eq!(r.mismatches()[0].kind, MismatchKind::BothNan);
}

#[test]
fn nan_against_a_number_fails_in_every_mode() {
    let generous = [
        exact(),
        CompareOptions::isclose(1e10, 1e10),
        exact().ulps(Some(u64::MAX)),
        exact().nan_equal(false),
    ];
    for opts in &generous {
        for (a, b) in [(f64::NAN, 1.0), (1.0, f64::NAN)] {
            let r = cmp(&vec1(&[a]), &vec1(&[b]), opts);
            assert!(!r.is_equal(), "{a} vs {b} with {opts:?}");
            assert_eq!(r.mismatches()[0].kind, MismatchKind::Nan);
            assert_eq!(r.mismatches()[0].abs_diff, None);
        }
    }
    let r = cmp(&vec1(&[f64::NAN]), &vec1(&[1.0]), &exact());
    assert!(
        r.to_string()
            .contains("[0]: a = nan, b = 1.0  (NaN against a value)"),
        "{r}"
    );
}

#[test]
fn infinities_are_equal_only_with_the_same_sign() {
    let r = cmp(
        &vec1(&[f64::INFINITY]),
        &vec1(&[f64::NEG_INFINITY]),
        &exact(),
    );
    assert!(!r.is_equal());
    assert_eq!(r.mismatches()[0].kind, MismatchKind::Infinity);
    assert!(r.to_string().contains("a = inf, b = -inf"), "{r}");
    let same = vec1(&[f64::INFINITY, f64::NEG_INFINITY]);
    assert!(cmp(&same, &same, &exact()).is_equal());
    // Never equal to a finite value: not within 1 ULP of f64::MAX (though adjacent in the
    // bit order), not within any tolerance.
    for opts in [exact().ulps(Some(1)), CompareOptions::isclose(1.0, 1e300)] {
        for (a, b) in [(f64::INFINITY, f64::MAX), (f64::MAX, f64::INFINITY)] {
            let r = cmp(&vec1(&[a]), &vec1(&[b]), &opts);
            assert!(!r.is_equal(), "{a} vs {b} {opts:?}");
            assert_eq!(r.mismatches()[0].kind, MismatchKind::Infinity);
        }
    }
    // f32: an infinity that NumPy's f32 arithmetic would let through (rtol * |b| overflows to inf).
    let r = cmp(
        &vec1(&[f32::INFINITY]),
        &vec1(&[3e38f32]),
        &CompareOptions::isclose(10.0, 0.0),
    );
    assert!(!r.is_equal(), "{r}");
}

#[test]
fn two_pow_53_plus_one_is_not_two_pow_53_as_i64() {
    let big = (1i64 << 53) + 1;
    let a = vec1(&[big]);
    let b = vec1(&[1i64 << 53]);
    let r = cmp(&a, &b, &exact());
    assert!(!r.is_equal(), "compared as i64, the values differ");
    assert_eq!(r.mismatches()[0].abs_diff, Some(1.0));
    assert!(
        r.to_string()
            .contains("a = 9007199254740993, b = 9007199254740992"),
        "{r}"
    );
    // Integers are exact whatever the tolerance.
    assert!(!cmp(&a, &b, &CompareOptions::isclose(1e-3, 0.5).ulps(Some(10))).is_equal());

    // The trap the article describes: through f64 both become 2^53 and the comparison passes.
    let (fa, fb) = (a.to_f64_lossy().unwrap(), b.to_f64_lossy().unwrap());
    assert_eq!(fa, fb);
    let lossy = cmp(&vec1(&fa), &vec1(&fb), &exact());
    assert!(
        lossy.is_equal(),
        "if this ever fails, f64 gained precision and this assertion can go"
    );

    // u64 likewise, and an integer against a float is exact too.
    let r = cmp(&vec1(&[(1u64 << 53) + 1]), &vec1(&[1u64 << 53]), &exact());
    assert!(!r.is_equal());
    let cross = exact().cross_dtype(true);
    assert!(!cmp(&a, &vec1(&[2f64.powi(53)]), &cross).is_equal());
    assert!(!cmp(&vec1(&[2f64.powi(53)]), &a, &cross).is_equal());
    assert!(cmp(&b, &vec1(&[2f64.powi(53)]), &cross).is_equal());
    assert!(!cmp(&vec1(&[3i64]), &vec1(&[3.5f64]), &cross).is_equal());
    assert!(cmp(
        &vec1(&[3i64]),
        &vec1(&[3.5f64]),
        &CompareOptions::isclose(0.0, 0.5).cross_dtype(true)
    )
    .is_equal());
}

#[test]
fn i64_against_u64_goes_through_i128() {
    let cross = exact().cross_dtype(true);
    // -1 and u64::MAX have the same bits; 2^63 and i64::MIN too.
    let r = cmp(
        &vec1(&[-1i64, i64::MIN, 5]),
        &vec1(&[u64::MAX, 1u64 << 63, 5]),
        &cross,
    );
    assert_eq!(indices(&r), [vec![0], vec![1]]);
    assert!(
        r.to_string().contains("a = -1, b = 18446744073709551615"),
        "{r}"
    );
    assert!(cmp(&vec1(&[i64::MAX]), &vec1(&[i64::MAX as u64]), &cross).is_equal());
    // Without cross_dtype the dtype difference is reported and nothing is compared.
    let r = cmp(&vec1(&[5i64]), &vec1(&[5u64]), &exact());
    assert!(
        matches!(r.incompatibilities(), [Incompatibility::Dtype { a, b, .. }] if a == "<i8" && b == "<u8")
    );
    assert_eq!(r.compared(), 0);
    // Booleans are 0 and 1 among the integers.
    assert!(cmp(&vec1(&[true, false]), &vec1(&[1u8, 0]), &cross).is_equal());
}

#[test]
fn signed_zero_is_optional() {
    let (p, n) = (vec1(&[0.0f64]), vec1(&[-0.0f64]));
    assert!(cmp(&p, &n, &exact()).is_equal());
    let r = cmp(&p, &n, &exact().signed_zero(true));
    assert_eq!(r.mismatches()[0].kind, MismatchKind::SignedZero);
    assert!(r.to_string().contains("a = 0.0, b = -0.0"), "{r}");
    // Also within a tolerance and within ULPs (+0 and -0 are 0 ULP apart).
    assert!(!cmp(&p, &n, &CompareOptions::isclose(1.0, 1.0).signed_zero(true)).is_equal());
    assert!(!cmp(&p, &n, &exact().ulps(Some(5)).signed_zero(true)).is_equal());
    assert_eq!(cmp(&p, &n, &exact()).max_ulps(), Some(0));
}

// ------------------------------------------------------------------ tolerance semantics

#[test]
fn isclose_scales_with_the_reference_b() {
    let opts = CompareOptions::isclose(0.5, 0.0);
    // |1 - 2| <= 0.5 * |2|, but not <= 0.5 * |1|: not symmetric, as in NumPy.
    assert!(cmp(&vec1(&[1.0f64]), &vec1(&[2.0f64]), &opts).is_equal());
    assert!(!cmp(&vec1(&[2.0f64]), &vec1(&[1.0f64]), &opts).is_equal());
    // The numpy.isclose docstring's examples.
    let dflt = CompareOptions::isclose(1e-5, 1e-8);
    let r = cmp(&vec1(&[1e10, 1e-7]), &vec1(&[1.00001e10, 1e-8]), &dflt);
    assert_eq!(indices(&r), [vec![1]]);
    assert!(cmp(&vec1(&[1e10, 1e-8]), &vec1(&[1.00001e10, 1e-9]), &dflt).is_equal());
    assert_eq!(
        indices(&cmp(&vec1(&[1e10, 1e-8]), &vec1(&[1.0001e10, 1e-9]), &dflt)),
        [vec![0]]
    );
    assert_eq!(
        indices(&cmp(&vec1(&[1e-8, 1e-7]), &vec1(&[0.0, 0.0]), &dflt)),
        [vec![1]]
    );
    assert_eq!(
        cmp(
            &vec1(&[1e-100, 1e-7]),
            &vec1(&[0.0, 0.0]),
            &CompareOptions::isclose(1e-5, 0.0)
        )
        .mismatch_count(),
        2
    );
    assert!(cmp(&vec1(&[1e-10, 1e-10]), &vec1(&[1e-20, 0.0]), &dflt).is_equal());
    let r = cmp(
        &vec1(&[1e-10, 1e-10]),
        &vec1(&[1e-20, 0.999999e-10]),
        &CompareOptions::isclose(1e-5, 0.0),
    );
    assert_eq!(indices(&r), [vec![0]]);
}

#[test]
fn f4_pairs_are_judged_in_f4_arithmetic_as_numpy_does() {
    // b = 1, a = 1 + 2^-23 (1 ULP): |a - b| = 2^-23 exactly; rtol = 2^-23 as f32 is exact.
    let a = vec1(&[1.0f32 + f32::EPSILON]);
    let b = vec1(&[1.0f32]);
    assert!(cmp(
        &a,
        &b,
        &CompareOptions::isclose(f64::from(f32::EPSILON), 0.0)
    )
    .is_equal());
    // An rtol slightly below 2^-23 in f64 rounds to 2^-23 in f32 (NumPy casts the Python float):
    let rtol = f64::from(f32::EPSILON) * (1.0 - 1e-12);
    assert_eq!(rtol as f32, f32::EPSILON);
    assert!(cmp(&a, &b, &CompareOptions::isclose(rtol, 0.0)).is_equal());
    // …whereas against an f8 reference the arithmetic is f8 and the same rtol is too small.
    let b64 = vec1(&[1.0f64]);
    assert!(!cmp(
        &a,
        &b64,
        &CompareOptions::isclose(rtol, 0.0).cross_dtype(true)
    )
    .is_equal());
}

#[test]
fn ulps_count_representable_values() {
    let one = 1.0f64;
    let next = |x: f64, k: u64| f64::from_bits(x.to_bits() + k);
    let r = cmp(
        &vec1(&[next(one, 3)]),
        &vec1(&[one]),
        &exact().ulps(Some(2)),
    );
    assert_eq!(r.mismatches()[0].ulps, Some(3));
    assert!(cmp(
        &vec1(&[next(one, 3)]),
        &vec1(&[one]),
        &exact().ulps(Some(3))
    )
    .is_equal());
    // Across zero: the smallest subnormals of both signs are 2 ULP apart.
    let tiny = f64::from_bits(1);
    assert_eq!(
        cmp(&vec1(&[tiny]), &vec1(&[-tiny]), &exact()).max_ulps(),
        Some(2)
    );
    // Tolerance or ULPs: either passes.
    let opts = CompareOptions::isclose(0.0, 1e-300).ulps(Some(1));
    assert!(cmp(&vec1(&[next(one, 1), 1e-301]), &vec1(&[one, 0.0]), &opts).is_equal());
    // f2 has ULPs of its own.
    let r = cmp(
        &f2(vec![0x3c00, 0x3c05]),
        &f2(vec![0x3c01, 0x3c05]),
        &exact(),
    );
    assert_eq!((r.mismatch_count(), r.max_ulps()), (1, Some(1)));
    // Values print as NumPy's repr prints them, in their own precision.
    assert!(r.to_string().contains("a = 1.0, b = 1.001"), "{r}");
}

#[test]
fn f4_result_against_f8_reference() {
    let result = vec1(&[0.1f32, 1.0 / 3.0, 2.5]);
    let reference = vec1(&[0.1f64, 1.0 / 3.0, 2.5 + 1e-6]);
    let r = cmp(&result, &reference, &exact());
    assert!(matches!(
        r.incompatibilities(),
        [Incompatibility::Dtype { .. }]
    ));
    assert!(
        r.to_string().contains("dtypes differ: a <f4 vs b <f8"),
        "{r}"
    );
    // In f4 ULPs, the first two are the correctly rounded results.
    let r = cmp(
        &result,
        &reference,
        &exact().cross_dtype(true).ulps(Some(0)),
    );
    assert_eq!(indices(&r), [vec![2]]);
    let r = cmp(
        &result,
        &reference,
        &CompareOptions::isclose(1e-6, 0.0).cross_dtype(true),
    );
    assert!(r.is_equal(), "{r}");
    // Byte order is never a difference.
    let be = NpyArray::from_vec_with(vec![0.1f32, 1.0 / 3.0, 2.5], vec![3], false, Endian::Big)
        .unwrap()
        .to_array();
    assert!(cmp(&result, &be, &exact()).is_equal());
}

#[test]
fn fortran_and_c_order_compare_in_logical_order() {
    // [[1, 2, 3], [4, 5, 6]] in Fortran order is 1 4 2 5 3 6 in memory.
    let f = NpyArray::from_vec_with(
        vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0],
        vec![2, 3],
        true,
        Endian::Little,
    )
    .unwrap()
    .to_array();
    let c = arr(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], vec![2, 3]);
    assert!(cmp(&f, &c, &exact()).is_equal());
    assert!(cmp(&c, &f, &exact()).is_equal());
    let c2 = arr(vec![1.0, 2.0, 3.0, 4.0, 5.5, 6.0], vec![2, 3]);
    let r = cmp(&f, &c2, &exact());
    assert_eq!(indices(&r), [vec![1, 1]]);
    assert!(r.to_string().contains("[1, 1]: a = 5.0, b = 5.5"), "{r}");
    // Same memory, different order: not equal.
    let c_same_memory = arr(vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0], vec![2, 3]);
    assert_eq!(cmp(&f, &c_same_memory, &exact()).mismatch_count(), 4);
}

// ------------------------------------------------------------------ other dtypes

#[test]
fn complex_per_component_or_by_modulus() {
    let opts = CompareOptions::isclose(1e-9, 0.0);
    let a = c128(vec![[1e6, 2e-10], [1.0, 1.0]]);
    let b = c128(vec![[1e6, 1e-10], [1.0, 1.0]]);
    let r = cmp(&a, &b, &opts);
    assert_eq!(indices(&r), [vec![0]]);
    assert!(
        r.to_string()
            .contains("a = (1000000.0+2e-10j), b = (1000000.0+1e-10j)"),
        "{r}"
    );
    assert!(cmp(&a, &b, &opts.clone().complex_modulus(true)).is_equal());
    // NaN per component: nan+1j against nan+2j differ in the imaginary part…
    let (x, y) = (c128(vec![[f64::NAN, 1.0]]), c128(vec![[f64::NAN, 2.0]]));
    assert!(!cmp(&x, &y, &exact()).is_equal());
    assert!(cmp(&x, &x, &exact()).is_equal());
    // …while NumPy's isclose(equal_nan=True) calls any complex with a NaN part NaN.
    assert!(cmp(&x, &y, &exact().complex_modulus(true)).is_equal());
    assert!(!cmp(&x, &y, &exact().complex_modulus(true).nan_equal(false)).is_equal());
    // Infinities per component.
    let (p, m) = (
        c128(vec![[f64::INFINITY, 0.0]]),
        c128(vec![[f64::NEG_INFINITY, 0.0]]),
    );
    assert_eq!(
        cmp(&p, &m, &exact()).mismatches()[0].kind,
        MismatchKind::Infinity
    );
    // A real reference against a complex result, across dtypes: imaginary part 0.
    assert!(cmp(
        &c128(vec![[2.0, 0.0]]),
        &vec1(&[2.0f64]),
        &exact().cross_dtype(true)
    )
    .is_equal());
    assert!(!cmp(
        &c128(vec![[2.0, 1e-3]]),
        &vec1(&[2.0f64]),
        &exact().cross_dtype(true)
    )
    .is_equal());
    // c8 against c16.
    let c8 = c64(vec![[0.1, -0.2]]);
    let r = cmp(
        &c8,
        &c128(vec![[0.1, -0.2]]),
        &exact().cross_dtype(true).ulps(Some(0)),
    );
    assert!(r.is_equal(), "{r}");
    assert!(!cmp(&c8, &c128(vec![[0.1, -0.2]]), &exact().cross_dtype(true)).is_equal());
}

fn record(fields: &[(&str, Dtype, Vec<usize>)]) -> Record {
    let mut offset = 0;
    let mut out = Vec::new();
    for (name, dtype, shape) in fields {
        let f = Field {
            name: (*name).into(),
            title: None,
            dtype: dtype.clone(),
            shape: shape.clone(),
            nesting: Vec::new(),
            offset,
        };
        offset += f.size();
        out.push(f);
    }
    Record {
        fields: out,
        itemsize: offset,
    }
}

#[test]
fn records_compare_field_by_field_by_name() {
    let le = Endian::Little;
    // a: (x f8, pos i4[2]); b: the same fields in the other order.
    let ra = record(&[
        ("x", Dtype::F64(le), vec![]),
        ("pos", Dtype::I32(le), vec![2]),
    ]);
    let rb = record(&[
        ("pos", Dtype::I32(le), vec![2]),
        ("x", Dtype::F64(le), vec![]),
    ]);
    let bytes_a = |x: [f64; 2], pos: [[i32; 2]; 2]| {
        let mut v = Vec::new();
        for k in 0..2 {
            v.extend(x[k].to_le_bytes());
            v.extend(pos[k][0].to_le_bytes());
            v.extend(pos[k][1].to_le_bytes());
        }
        v
    };
    let bytes_b = |x: [f64; 2], pos: [[i32; 2]; 2]| {
        let mut v = Vec::new();
        for k in 0..2 {
            v.extend(pos[k][0].to_le_bytes());
            v.extend(pos[k][1].to_le_bytes());
            v.extend(x[k].to_le_bytes());
        }
        v
    };
    let a = raw(
        Dtype::Record(ra.clone()),
        vec![2],
        false,
        ArrayData::Record(bytes_a([1.0, f64::NAN], [[1, 2], [3, 4]]).into()),
    );
    let b = raw(
        Dtype::Record(rb.clone()),
        vec![2],
        false,
        ArrayData::Record(bytes_b([1.0, f64::NAN], [[1, 2], [3, 4]]).into()),
    );
    let r = cmp(&a, &b, &exact());
    assert!(r.is_equal(), "{r}");
    assert_eq!(r.compared(), 6);
    let b2 = raw(
        Dtype::Record(rb),
        vec![2],
        false,
        ArrayData::Record(bytes_b([1.5, f64::NAN], [[1, 2], [3, 5]]).into()),
    );
    let r = cmp(&a, &b2, &exact());
    let found: Vec<(Vec<usize>, String)> = r
        .mismatches()
        .iter()
        .map(|m| (m.index.clone(), m.field.clone()))
        .collect();
    assert_eq!(
        found,
        [(vec![0], "x".to_string()), (vec![1], "pos[1]".to_string())]
    );
    assert!(r.to_string().contains("[1].pos[1]: a = 4, b = 5"), "{r}");
    // A field on one side only.
    let rc = record(&[("x", Dtype::F64(le), vec![]), ("y", Dtype::F64(le), vec![])]);
    let mut bytes = Vec::new();
    for v in [1.0f64, 0.0, f64::NAN, 0.0] {
        bytes.extend(v.to_le_bytes());
    }
    let c = raw(
        Dtype::Record(rc),
        vec![2],
        false,
        ArrayData::Record(bytes.into()),
    );
    let r = cmp(&a, &c, &exact());
    assert!(!r.is_equal());
    let inc: Vec<String> = r
        .incompatibilities()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        inc,
        ["field \"pos\" is only in a", "field \"y\" is only in b"]
    );
    assert_eq!(r.compared(), 2, "the common field x is still compared");
    assert!(r.to_string().contains("field \"y\" is only in b"), "{r}");
    let r = cmp(&a, &vec1(&[1.0f64, 2.0]), &exact().cross_dtype(true));
    assert!(
        matches!(r.incompatibilities(), [Incompatibility::Dtype { reason, .. }] if *reason == "a record and a non-record"),
        "{r}"
    );
}

#[test]
fn strings_bytes_and_datetimes_are_exact() {
    let u = |s: &str, w: usize| {
        let mut chars: Vec<u32> = s.chars().map(u32::from).collect();
        chars.resize(w, 0);
        raw(
            Dtype::Unicode(w, Endian::Little),
            vec![1],
            false,
            ArrayData::Unicode(chars.into()),
        )
    };
    assert!(cmp(&u("abc", 3), &u("abc", 3), &exact()).is_equal());
    let r = cmp(&u("abc", 3), &u("abd", 3), &exact());
    assert!(r.to_string().contains("a = 'abc', b = 'abd'"), "{r}");
    assert!(!cmp(&u("ab", 3), &u("ab", 5), &exact()).is_equal());
    assert!(cmp(&u("ab", 3), &u("ab", 5), &exact().cross_dtype(true)).is_equal());
    let s = |b: &[u8]| {
        raw(
            Dtype::Bytes(b.len()),
            vec![1],
            false,
            ArrayData::Bytes(b.to_vec().into()),
        )
    };
    assert!(cmp(&s(b"ab\0"), &s(b"ab\0"), &exact()).is_equal());
    assert!(!cmp(&s(b"ab\0"), &s(b"ab\x01"), &exact()).is_equal());
    let r = cmp(&s(b"ab\0"), &u("ab", 3), &exact().cross_dtype(true));
    assert!(matches!(
        r.incompatibilities(),
        [Incompatibility::Dtype { .. }]
    ));

    let ns = DateUnit {
        unit: TimeUnit::Nano,
        multiple: 1,
    };
    let us = DateUnit {
        unit: TimeUnit::Micro,
        multiple: 1,
    };
    let m = |u: DateUnit, v: Vec<i64>| {
        raw(
            Dtype::DateTime(u, Endian::Little),
            vec![v.len()],
            false,
            ArrayData::DateTime(v.into()),
        )
    };
    let nat = i64::MIN;
    assert!(cmp(&m(ns, vec![1, nat]), &m(ns, vec![1, nat]), &exact()).is_equal());
    let r = cmp(
        &m(ns, vec![1, nat]),
        &m(ns, vec![1, nat]),
        &exact().nan_equal(false),
    );
    assert_eq!(r.mismatches()[0].kind, MismatchKind::BothNan);
    let r = cmp(
        &m(ns, vec![1, 5]),
        &m(ns, vec![nat, 6]),
        &CompareOptions::isclose(1.0, 10.0),
    );
    assert_eq!(r.mismatch_count(), 2, "datetimes are exact: {r}");
    assert!(r.to_string().contains("a = 1[ns], b = NaT"), "{r}");
    let r = cmp(&m(ns, vec![1]), &m(us, vec![1]), &exact().cross_dtype(true));
    assert!(
        matches!(r.incompatibilities(), [Incompatibility::Dtype { .. }]),
        "{r}"
    );
}

// ------------------------------------------------------------------ the report

#[test]
fn shapes_must_match() {
    let r = cmp(
        &arr(vec![1.0f64; 6], vec![2, 3]),
        &arr(vec![1.0f64; 6], vec![6]),
        &exact(),
    );
    assert!(!r.is_equal());
    assert_eq!(r.compared(), 0);
    assert!(
        r.to_string().contains("shapes differ: a (2, 3) vs b (6,)"),
        "{r}"
    );
    let r = cmp(
        &arr(vec![1.0f64], vec![]),
        &arr(vec![1.0f64], vec![1]),
        &exact(),
    );
    assert!(!r.is_equal(), "0-d is not (1,)");
    assert!(cmp(
        &arr(Vec::<f64>::new(), vec![0, 3]),
        &arr(Vec::<f64>::new(), vec![0, 3]),
        &exact()
    )
    .is_equal());
}

#[test]
fn report_reads_well_in_a_failing_test() {
    let n = 30;
    let a: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let mut b = a.clone();
    for k in (0..n).step_by(2) {
        b[k] += 0.5;
    }
    b[1] = f64::NAN;
    let r = cmp(
        &arr(a, vec![5, 6]),
        &arr(b, vec![5, 6]),
        &CompareOptions::isclose(1e-3, 0.0).max_report(3),
    );
    assert_eq!(r.mismatch_count(), 16);
    assert_eq!(r.mismatches().len(), 3);
    let text = r.to_string();
    let expected = "arrays differ in 16 of 30 values (53.333%): <f8 (5, 6), compared within |a - b| <= 0.0 + 0.001 * |b| (nan == nan)
  max |a - b| = 0.5, max |a - b|/|b| = 1.0, max 4602678819172646912 ULP
  first 3 mismatches (b is the reference):
    [0, 0]: a = 0.0, b = 0.5  (|a - b| = 0.5, |a - b|/|b| = 1.0, 4602678819172646912 ULP)
    [0, 1]: a = 1.0, b = nan  (NaN against a value)
    [0, 2]: a = 2.0, b = 2.5  (|a - b| = 0.5, |a - b|/|b| = 0.2, 1125899906842624 ULP)
    ... and 13 more";
    assert_eq!(text, expected);
    let ok = cmp(&vec1(&[1.0f64]), &vec1(&[1.0f64]), &exact());
    assert_eq!(
        ok.to_string(),
        "arrays are equal: 1 value of <f8 (1,) compared exactly (nan == nan); max |a - b| = 0.0, max |a - b|/|b| = 0.0, max 0 ULP"
    );
}

#[test]
fn invalid_tolerances_are_errors() {
    let a = vec1(&[1.0f64]);
    for opts in [
        CompareOptions::isclose(-1.0, 0.0),
        CompareOptions::isclose(0.0, f64::NAN),
        CompareOptions::isclose(f64::INFINITY, 0.0),
    ] {
        assert_eq!(
            compare(&a, &a, &opts).unwrap_err().kind(),
            npyguard::ErrorKind::InvalidInput
        );
    }
}

// ------------------------------------------------------------------ the CLI

#[cfg(feature = "cli")]
mod cli {
    use super::*;
    use std::path::PathBuf;
    use std::process::{Command, Output};

    /// A scratch directory for one test, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(test: &str) -> Scratch {
            let dir = std::env::temp_dir()
                .join(format!("npyguard-compare-{}-{test}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }

        fn npy(&self, name: &str, a: &Array) -> PathBuf {
            let p = self.0.join(name);
            npyguard::write::to_path(&p, a).unwrap();
            p
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn diff(args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_npyguard"))
            .arg("diff")
            .args(args)
            .output()
            .unwrap()
    }

    fn s(p: &std::path::Path) -> &str {
        p.to_str().unwrap()
    }

    #[test]
    fn exit_codes() {
        let dir = Scratch::new("exit-codes");
        let a = dir.npy("a.npy", &vec1(&[1.0f64, f64::NAN, 3.0]));
        let b = dir.npy("b.npy", &vec1(&[1.0f64, f64::NAN, 3.0 + 1e-9]));
        let out = diff(&[s(&a), s(&b)]);
        assert_eq!(out.status.code(), Some(1));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("arrays differ in 1 of 3 values")
                && text.contains("[2]: a = 3.0, b = 3.000000001"),
            "{text}"
        );
        assert_eq!(
            diff(&[s(&a), s(&b), "--rtol", "1e-6"]).status.code(),
            Some(0)
        );
        assert_eq!(
            diff(&[s(&a), s(&b), "--atol", "1e-8", "--nan-unequal"])
                .status
                .code(),
            Some(1)
        );
        assert_eq!(
            diff(&[s(&a), s(&b), "--atol", "1e-8", "--nan-equal"])
                .status
                .code(),
            Some(0)
        );
        // Usage and OS errors: 2.
        assert_eq!(
            diff(&[s(&a), s(&b), "--nan-equal", "--nan-unequal"])
                .status
                .code(),
            Some(2)
        );
        assert_eq!(diff(&[s(&a), s(&b), "--rtol", "-1"]).status.code(), Some(2));
        assert_eq!(diff(&[s(&a), "/nonexistent/b.npy"]).status.code(), Some(2));
        let junk = a.with_file_name("junk.npy");
        std::fs::write(&junk, b"not an npy file").unwrap();
        // A malformed input is the input's fault: 1, as for every command (2 is for usage
        // and OS errors only).
        let out = diff(&[s(&a), s(&junk)]);
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("bad-magic"));
    }

    #[cfg(feature = "npz")]
    #[test]
    fn npz_archives_compare_member_by_member() {
        let dir = Scratch::new("npz");
        let (x, y, y2, z) = (
            vec1(&[1.0f64, 2.0]),
            vec1(&[1i32, 2, 3]),
            vec1(&[1i32, 2, 4]),
            vec1(&[0u8]),
        );
        let (pa, pb, pc) = (
            dir.0.join("a.npz"),
            dir.0.join("b.npz"),
            dir.0.join("c.npz"),
        );
        npyguard::npz::savez_path(&pa, &[("x", &x), ("y", &y), ("z", &z)]).unwrap();
        npyguard::npz::savez_path(&pb, &[("y", &y), ("x", &x), ("z", &z)]).unwrap();
        npyguard::npz::savez_path(&pc, &[("x", &x), ("y", &y2), ("w", &z)]).unwrap();
        assert_eq!(
            diff(&[s(&pa), s(&pb)]).status.code(),
            Some(0),
            "member order does not matter"
        );
        let out = diff(&[s(&pa), s(&pc), "--json"]);
        assert_eq!(out.status.code(), Some(1));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["only_in_a"], serde_json::json!(["z"]));
        assert_eq!(v["only_in_b"], serde_json::json!(["w"]));
        assert_eq!(v["members"][0]["equal"], true);
        assert_eq!(v["members"][1]["name"], "y");
        assert_eq!(
            v["members"][1]["mismatches"][0]["index"],
            serde_json::json!([2])
        );
        let text = String::from_utf8(diff(&[s(&pa), s(&pc)]).stdout).unwrap();
        assert!(
            text.contains("y: arrays differ in 1 of 3 values") && text.contains("z: only in a"),
            "{text}"
        );
        let npy = dir.npy("x.npy", &x);
        assert_eq!(diff(&[s(&pa), s(&npy)]).status.code(), Some(2));
    }

    #[test]
    fn json_lists_mismatches() {
        let f = NpyArray::from_vec_with(
            vec![1.0f64, 4.0, 2.0, 5.0, 3.0, 6.0],
            vec![2, 3],
            true,
            Endian::Little,
        )
        .unwrap();
        let dir = Scratch::new("json");
        let a = dir.npy("f.npy", &f.to_array());
        let b = dir.npy(
            "c.npy",
            &arr(vec![1.0, 2.5, 3.0, 4.0, 5.0, f64::INFINITY], vec![2, 3]),
        );
        let out = diff(&[s(&a), s(&b), "--json", "--max-report", "1"]);
        assert_eq!(out.status.code(), Some(1));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["equal"], false);
        assert_eq!(v["mismatch_count"], 2);
        assert_eq!(v["truncated"], true);
        assert_eq!(v["mismatches"][0]["index"], serde_json::json!([0, 1]));
        assert_eq!(v["mismatches"][0]["a"], "2.0");
        assert_eq!(v["mismatches"][0]["b"], "2.5");
        assert_eq!(v["a"]["fortran_order"], true);
        let out = diff(&[s(&a), s(&b), "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["mismatches"][1]["index"], serde_json::json!([1, 2]));
        assert_eq!(v["mismatches"][1]["kind"], "infinity");
        assert_eq!(v["mismatches"][1]["abs_diff"], serde_json::Value::Null);
    }

    /// JSON has no infinities: a difference that overflows is the string "inf", and arrays
    /// that cannot be compared list why, by kind.
    #[test]
    fn json_names_infinite_differences_and_incompatibilities() {
        let dir = Scratch::new("json-kinds");
        let a = dir.npy("a.npy", &vec1(&[1e308f64, 0.0]));
        let b = dir.npy("b.npy", &vec1(&[-1e308f64, 0.0]));
        let out = diff(&[s(&a), s(&b), "--json"]);
        assert_eq!(out.status.code(), Some(1));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["max_abs_diff"], "inf", "{v}");
        assert_eq!(v["mismatches"][0]["abs_diff"], "inf");
        let longer = dir.npy("c.npy", &vec1(&[1e308f64, 0.0, 1.0]));
        let ints = dir.npy("d.npy", &vec1(&[1i32, 0]));
        for (other, kind) in [(&longer, "shape"), (&ints, "dtype")] {
            let out = diff(&[s(&a), s(other), "--json"]);
            assert_eq!(out.status.code(), Some(1), "{kind}");
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(v["equal"], false);
            assert_eq!(v["incompatibilities"][0]["kind"], kind, "{v}");
            assert!(v["incompatibilities"][0]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()));
        }
    }
}

// ------------------------------------------------------------------ properties

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 1000,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(REGRESSIONS))),
        ..ProptestConfig::default()
    }
}

/// Any f64, weighted towards the values that matter: NaNs with payloads and signs,
/// infinities, zeros, subnormals, extremes.
fn any_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => any::<u64>().prop_map(f64::from_bits),
        2 => -1e6f64..1e6,
        1 => (any::<bool>(), 0u64..(1 << 52)).prop_map(|(neg, payload)| {
            f64::from_bits(((neg as u64) << 63) | 0x7ff0_0000_0000_0000 | payload.max(1))
        }),
        1 => prop::sample::select(vec![
            f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, f64::MAX, f64::MIN, f64::MIN_POSITIVE,
            f64::from_bits(1), -f64::from_bits(1), f64::EPSILON, 1.0, -1.0,
        ]),
    ]
}

/// A value near `x`: itself, a few ULPs away (crossing zero too), relatively close, or anything.
fn near(x: f64) -> impl Strategy<Value = f64> {
    prop_oneof![
        1 => Just(x),
        2 => (-4i64..=4).prop_map(move |k| step(x, k)),
        2 => (-1e-6f64..1e-6).prop_map(move |e| x * (1.0 + e)),
        1 => any_f64(),
    ]
}

/// `x` moved `k` representable values (through zero, saturating at the infinities).
fn step(x: f64, k: i64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let ord = |v: f64| -> i64 {
        let b = v.to_bits() as i64;
        if b < 0 {
            -(b & i64::MAX)
        } else {
            b
        }
    };
    let o = ord(x)
        .saturating_add(k)
        .clamp(-(0x7ff0_0000_0000_0000), 0x7ff0_0000_0000_0000);
    if o < 0 {
        -f64::from_bits((-o) as u64)
    } else {
        f64::from_bits(o as u64)
    }
}

/// A shape with `len`-compatible dims: 0 to 3 dimensions of 0 to 4.
fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..5, 0..4)
}

fn f64_array(shape: Vec<usize>, data: Vec<f64>, fortran: bool) -> Array {
    NpyArray::from_vec_with(data, shape, fortran, Endian::Little)
        .unwrap()
        .to_array()
}

fn pairs(shape: Vec<usize>) -> impl Strategy<Value = (Vec<usize>, Vec<(f64, f64)>)> {
    let n: usize = shape.iter().product();
    let pair = any_f64().prop_flat_map(|x| (Just(x), near(x)));
    (Just(shape), prop::collection::vec(pair, n))
}

fn split(p: &[(f64, f64)]) -> (Vec<f64>, Vec<f64>) {
    p.iter().copied().unzip()
}

fn all_listed(opts: CompareOptions) -> CompareOptions {
    opts.max_report(usize::MAX)
}

proptest! {
    #![proptest_config(config())]

    /// compare(a, a) is equal for every value (NaN payloads included) with nan == nan,
    /// in every mode and whatever the memory order of either side.
    #[test]
    fn an_array_equals_itself(
        (shape, data) in shape().prop_flat_map(|s| { let n: usize = s.iter().product(); (Just(s), prop::collection::vec(any_f64(), n)) }),
        fortran in any::<bool>(),
        signed_zero in any::<bool>(),
        ulps in prop::option::of(0u64..4),
        rtol in prop::sample::select(vec![0.0, 1e-7, 0.5]),
    ) {
        let a = f64_array(shape.clone(), data.clone(), false);
        let opts = CompareOptions::isclose(rtol, 0.0).ulps(ulps).signed_zero(signed_zero);
        let r = cmp(&a, &a, &opts);
        prop_assert!(r.is_equal(), "{}", r);
        prop_assert_eq!(r.compared(), a.len());
        let other = if fortran { a.to_fortran_order() } else { a.clone() };
        prop_assert!(cmp(&a, &other, &opts).is_equal());
        prop_assert!(cmp(&other, &a, &opts).is_equal());
        // The same through f32, c16 and i64/u64 (bit patterns reused).
        let f32s: Vec<f32> = data.iter().map(|&x| f32::from_bits(x.to_bits() as u32)).collect();
        let a32 = NpyArray::from_vec_with(f32s, shape.clone(), fortran, Endian::Big).unwrap().to_array();
        prop_assert!(cmp(&a32, &a32.to_c_order(), &opts).is_equal());
        let cx: Vec<[f64; 2]> = data.iter().map(|&x| [x, f64::from_bits(x.to_bits().rotate_left(17))]).collect();
        let ac = raw(Dtype::C128(Endian::Little), shape.clone(), false, ArrayData::C128(cx.into()));
        prop_assert!(cmp(&ac, &ac.to_fortran_order(), &opts).is_equal());
        prop_assert!(cmp(&ac, &ac, &opts.clone().complex_modulus(true)).is_equal());
        let ints: Vec<i64> = data.iter().map(|&x| x.to_bits() as i64).collect();
        let ai = NpyArray::from_vec_with(ints, shape.clone(), fortran, Endian::Little).unwrap().to_array();
        prop_assert!(cmp(&ai, &ai.to_c_order(), &opts).is_equal());
    }

    /// Exact and ULP comparison are symmetric: the same mismatches, at the same indices,
    /// of the same kinds, with the same ULP distances — also across f4 and f8.
    #[test]
    fn exact_and_ulp_comparison_are_symmetric(
        (shape, p) in shape().prop_flat_map(pairs),
        ulps in prop::option::of(0u64..6),
        nan_equal in any::<bool>(),
        signed_zero in any::<bool>(),
        fortran in any::<bool>(),
    ) {
        let (x, y) = split(&p);
        let a = f64_array(shape.clone(), x.clone(), fortran);
        let b = f64_array(shape.clone(), y, false);
        let opts = all_listed(CompareOptions::new().ulps(ulps).nan_equal(nan_equal).signed_zero(signed_zero));
        let (ab, ba) = (cmp(&a, &b, &opts), cmp(&b, &a, &opts));
        prop_assert_eq!(ab.mismatch_count(), ba.mismatch_count());
        prop_assert_eq!(ab.max_ulps(), ba.max_ulps());
        let key = |r: &Report| r.mismatches().iter().map(|m| (m.index.clone(), m.kind, m.ulps)).collect::<Vec<_>>();
        prop_assert_eq!(key(&ab), key(&ba));
        // f4 against f8 (ULPs counted in f4).
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let a32 = NpyArray::from_vec_with(x32, shape, fortran, Endian::Little).unwrap().to_array();
        let cross = opts.cross_dtype(true);
        let (ab, ba) = (cmp(&a32, &b, &cross), cmp(&b, &a32, &cross));
        prop_assert_eq!(key(&ab), key(&ba));
    }

    /// Tolerances are monotonic: what is equal at (rtol, atol, ulps) is equal at any larger
    /// ones — per element, so the mismatches at the larger tolerance are a subset.
    #[test]
    fn tolerance_is_monotonic(
        (shape, p) in shape().prop_flat_map(pairs),
        r in prop::sample::select(vec![0.0, 1e-12, 1e-9, 1e-7, 1e-6, 1e-3]),
        dr in prop::sample::select(vec![0.0, 1e-12, 1e-7, 1e-6, 1.0]),
        t in prop::sample::select(vec![0.0, 1e-300, 1e-9, 1.0]),
        dt in prop::sample::select(vec![0.0, 1e-300, 1e-9, 1.0]),
        u in prop::option::of(0u64..4),
        du in 0u64..3,
        single in any::<bool>(),
        nan_equal in any::<bool>(),
    ) {
        let (x, y) = split(&p);
        let (a, b) = if single {
            let f = |v: &[f64]| -> Array { NpyArray::from_vec(v.iter().map(|&v| v as f32).collect::<Vec<f32>>(), shape.clone()).unwrap().to_array() };
            (f(&x), f(&y))
        } else {
            (f64_array(shape.clone(), x, false), f64_array(shape.clone(), y, false))
        };
        let base = all_listed(CompareOptions::new().nan_equal(nan_equal));
        let tight = cmp(&a, &b, &base.clone().rtol(r).atol(t).ulps(u));
        let loose = cmp(&a, &b, &base.rtol(r + dr).atol(t + dt).ulps(u.map(|u| u + du)));
        let bad = |r: &Report| r.mismatches().iter().map(|m| m.index.clone()).collect::<std::collections::BTreeSet<_>>();
        prop_assert!(bad(&loose).is_subset(&bad(&tight)), "{}\n{}", tight, loose);
        prop_assert!(!tight.is_equal() || loose.is_equal());
    }
}

// ------------------------------------------------ mutation-testing boundaries

/// An array of one zero-filled element of `dtype`.
fn one_of(dtype: Dtype) -> Array {
    let header = Header::new(dtype.clone(), vec![1], false).unwrap();
    let bytes = vec![0u8; dtype.itemsize()];
    let mut file = npyguard::write::header_bytes(&header);
    file.extend_from_slice(&bytes);
    npyguard::read_bytes(&file, &npyguard::ReadOptions::default()).unwrap()
}

#[test]
fn dtype_pairs_are_compared_or_refused_with_their_reason() {
    let le = Endian::Little;
    let unit = |unit| DateUnit { unit, multiple: 1 };
    let rec = Dtype::Record(record(&[("x", Dtype::I32(le), vec![])]));
    let cross = exact().cross_dtype(true);
    // (a, b, reason with cross-dtype comparison allowed; None = compared)
    let cases: Vec<(Dtype, Dtype, Option<&str>)> = vec![
        (Dtype::I32(le), Dtype::F64(le), None),
        (Dtype::C128(le), Dtype::F64(le), None),
        (Dtype::Bytes(3), Dtype::Bytes(5), None),
        (Dtype::Unicode(3, le), Dtype::Unicode(5, le), None),
        (
            Dtype::C128(le),
            Dtype::I32(le),
            Some("integers are not compared with complex numbers"),
        ),
        (
            Dtype::I32(le),
            Dtype::C64(le),
            Some("integers are not compared with complex numbers"),
        ),
        (
            Dtype::Bytes(3),
            Dtype::I32(le),
            Some("these kinds of values cannot be compared"),
        ),
        (
            Dtype::Unicode(1, le),
            Dtype::I32(le),
            Some("these kinds of values cannot be compared"),
        ),
        (
            Dtype::Void(4),
            Dtype::Void(8),
            Some("raw bytes of different widths"),
        ),
        (
            rec.clone(),
            Dtype::Void(4),
            Some("a record and a non-record"),
        ),
        (Dtype::I32(le), rec, Some("a record and a non-record")),
        (
            Dtype::DateTime(unit(TimeUnit::Second), le),
            Dtype::DateTime(unit(TimeUnit::Milli), le),
            Some("different time units (convert to one unit first)"),
        ),
        (
            Dtype::TimeDelta(unit(TimeUnit::Second), le),
            Dtype::TimeDelta(unit(TimeUnit::Day), le),
            Some("different time units (convert to one unit first)"),
        ),
        (
            Dtype::DateTime(unit(TimeUnit::Second), le),
            Dtype::TimeDelta(unit(TimeUnit::Second), le),
            Some("a datetime and a timedelta"),
        ),
        (
            Dtype::DateTime(unit(TimeUnit::Second), le),
            Dtype::I64(le),
            Some("these kinds of values cannot be compared"),
        ),
    ];
    for (a, b, want) in cases {
        let r = cmp(&one_of(a.clone()), &one_of(b.clone()), &cross);
        let reason = r.incompatibilities().iter().find_map(|i| match i {
            Incompatibility::Dtype { reason, .. } => Some(*reason),
            _ => None,
        });
        assert_eq!(reason, want, "{a:?} vs {b:?}: {r}");
        assert_eq!(r.is_equal(), want.is_none(), "{a:?} vs {b:?}: {r}");
    }
    // Without cross-dtype comparison, comparable kinds are refused until asked for.
    let r = cmp(&one_of(Dtype::I32(le)), &one_of(Dtype::F64(le)), &exact());
    assert!(matches!(
        &r.incompatibilities()[0],
        Incompatibility::Dtype { reason, .. } if reason.starts_with("different types")
    ));
}

#[test]
fn ulps_count_across_zero_in_every_float_width() {
    // The smallest subnormals of each sign are two representable values apart (via ±0).
    let r = cmp(
        &vec1(&[-f32::from_bits(1)]),
        &vec1(&[f32::from_bits(1)]),
        &exact(),
    );
    assert_eq!(r.max_ulps(), Some(2), "{r}");
    let r = cmp(
        &vec1(&[-f64::from_bits(1)]),
        &vec1(&[f64::from_bits(1)]),
        &exact(),
    );
    assert_eq!(r.max_ulps(), Some(2), "{r}");
    let r = cmp(&f2(vec![0x8001]), &f2(vec![0x0001]), &exact());
    assert_eq!(r.max_ulps(), Some(2), "{r}");
}

#[test]
fn reports_give_maxima_kinds_and_plural_forms() {
    let r = cmp(&vec1(&[1.0f64, 5.0]), &vec1(&[1.5f64, 4.0]), &exact());
    assert_eq!(r.max_abs_diff(), Some(1.0));
    assert_eq!(r.max_rel_diff(), Some(1.0 / 3.0));
    // One value compared: singular.
    let single = cmp(&vec1(&[1i32]), &vec1(&[2i32]), &exact());
    assert!(
        single
            .to_string()
            .starts_with("arrays differ in 1 of 1 value (100.000%)"),
        "{single}"
    );
    // One mismatch shown of one: singular, and no "... and 0 more".
    let one = cmp(&vec1(&[1.0f64, 2.0]), &vec1(&[1.0f64, 3.0]), &exact());
    let text = one.to_string();
    assert!(
        text.contains("first 1 mismatch (b is the reference):"),
        "{text}"
    );
    assert!(!text.contains("more"), "{text}");
    // Every mismatch shown: no "... and N more" either.
    let two = cmp(&vec1(&[0.0f64, 0.0]), &vec1(&[1.0f64, 1.0]), &exact());
    assert!(two.to_string().contains("first 2 mismatches"), "{two}");
    assert!(!two.to_string().contains("more"), "{two}");
    // Same dtype, different shapes: both shapes are named.
    let shapes = cmp(
        &arr(vec![1u8; 2], vec![2]),
        &arr(vec![1u8; 2], vec![1, 2]),
        &exact(),
    );
    assert!(
        shapes
            .to_string()
            .starts_with("arrays differ: a |u1 (2,) vs b |u1 (1, 2)"),
        "{shapes}"
    );
    let names: Vec<&str> = [
        MismatchKind::Value,
        MismatchKind::Nan,
        MismatchKind::BothNan,
        MismatchKind::Infinity,
        MismatchKind::SignedZero,
    ]
    .iter()
    .map(|k| k.name())
    .collect();
    assert_eq!(
        names,
        ["value", "nan", "both-nan", "infinity", "signed-zero"]
    );
}

#[test]
fn record_incompatibilities_name_their_field() {
    let le = Endian::Little;
    let mk = |ndt: Dtype| {
        let rec = record(&[("x", Dtype::F64(le), vec![]), ("n", ndt.clone(), vec![])]);
        let bytes = vec![0u8; rec.itemsize];
        raw(
            Dtype::Record(rec),
            vec![1],
            false,
            ArrayData::Record(bytes.into()),
        )
    };
    let r = cmp(&mk(Dtype::I32(le)), &mk(Dtype::I16(le)), &exact());
    let text = r.to_string();
    assert!(
        text.contains("\n  field \"n\": dtypes differ: a <i4 vs b <i2 (different types"),
        "{text}"
    );
    let plain = cmp(&vec1(&[1i32]), &vec1(&[1i16]), &exact());
    assert!(
        plain
            .to_string()
            .contains("\n  dtypes differ: a <i4 vs b <i2"),
        "{plain}"
    );
}

#[test]
fn every_integer_width_compares_by_value() {
    fn check<T: Element>(a: [T; 3], b: [T; 3]) {
        let r = cmp(&vec1(&a), &vec1(&b), &exact());
        assert_eq!(r.mismatch_count(), 1, "{r}");
        assert_eq!(r.mismatches()[0].index, vec![2], "{r}");
        assert_eq!(r.mismatches()[0].abs_diff, Some(1.0), "{r}");
        assert!(cmp(&vec1(&a), &vec1(&a), &exact()).is_equal());
    }
    check([true, false, false], [true, false, true]);
    check([-1i8, 5, -128], [-1, 5, -127]);
    check([1u8, 2, 255], [1, 2, 254]);
    check([-1i16, 5, i16::MIN], [-1, 5, i16::MIN + 1]);
    check([-1i32, 5, 7], [-1, 5, 8]);
    check([-1i64, 5, 7], [-1, 5, 8]);
    check([1u16, 2, u16::MAX], [1, 2, u16::MAX - 1]);
    check([1u32, 2, u32::MAX], [1, 2, u32::MAX - 1]);
    check([1u64, 2, 9], [1, 2, 10]);
}

#[test]
fn mixed_kind_pairs_and_nat_follow_their_own_rules() {
    let cross = exact().cross_dtype(true);
    // A float result against an integer reference: compared as numbers, with the difference.
    let r = cmp(&vec1(&[1.5f64, 2.0]), &vec1(&[1i32, 2]), &cross);
    assert_eq!(r.mismatch_count(), 1, "{r}");
    assert_eq!(r.mismatches()[0].abs_diff, Some(0.5));
    // A real result against a complex reference: the real part's imaginary part is 0.
    assert!(cmp(&vec1(&[1.0f64]), &c128(vec![[1.0, 0.0]]), &cross).is_equal());
    assert!(!cmp(&vec1(&[1.0f64]), &c128(vec![[1.0, 1.0]]), &cross).is_equal());
    // Datetimes: NaT against a value is a NaN-kind mismatch; values differ by a count.
    let unit = DateUnit {
        unit: TimeUnit::Second,
        multiple: 1,
    };
    let m8 = |v: Vec<i64>| {
        let n = v.len();
        raw(
            Dtype::DateTime(unit, Endian::Little),
            vec![n],
            false,
            ArrayData::DateTime(v.into()),
        )
    };
    let r = cmp(&m8(vec![i64::MIN, 5]), &m8(vec![3, 8]), &exact());
    assert_eq!(r.mismatch_count(), 2, "{r}");
    assert_eq!(r.mismatches()[0].kind, MismatchKind::Nan);
    assert_eq!(r.mismatches()[1].kind, MismatchKind::Value);
    assert_eq!(r.mismatches()[1].abs_diff, Some(3.0));
    let r = cmp(&m8(vec![3, i64::MIN]), &m8(vec![3, 8]), &exact());
    assert_eq!(r.mismatches()[0].kind, MismatchKind::Nan, "NaT in b");
    assert!(cmp(&m8(vec![i64::MIN]), &m8(vec![i64::MIN]), &exact()).is_equal());
}

#[test]
fn an_f2_result_against_an_f4_reference_is_judged_in_f4() {
    // |1.0 - (1 + 2^-23)| = 2^-23 in f4. An atol just below 2^-23 in f8 rounds to
    // 2^-23 in f4, so NumPy (which computes this pair in float32) calls them close.
    let one = f2(vec![0x3c00]);
    let b = vec1(&[1.0f32 + f32::EPSILON]);
    let atol = f64::from(f32::EPSILON) * (1.0 - 1e-12);
    let opts = CompareOptions::isclose(0.0, atol).cross_dtype(true);
    assert!(cmp(&one, &b, &opts).is_equal());
    // The same pair as f8 values is not within that atol.
    let r = cmp(
        &vec1(&[1.0f64]),
        &vec1(&[f64::from(1.0f32 + f32::EPSILON)]),
        &opts,
    );
    assert!(!r.is_equal(), "{r}");
}

#[test]
fn f4_pairs_outside_the_tolerance_are_not_close() {
    let opts = CompareOptions::isclose(1e-3, 0.0);
    let r = cmp(&vec1(&[1.0f32, 2.0]), &vec1(&[1.0005f32, 2.5]), &opts);
    assert_eq!(r.mismatch_count(), 1, "{r}");
    assert_eq!(r.mismatches()[0].index, vec![1]);
    // f2 pairs: 1.0 vs 1.5 is outside 1e-3, 1.0 vs itself inside.
    let r = cmp(&f2(vec![0x3c00, 0x3c00]), &f2(vec![0x3c00, 0x3e00]), &opts);
    assert_eq!(r.mismatch_count(), 1, "{r}");
}

#[test]
fn integer_against_float_differences_and_tolerances() {
    // (float a, integer b, rtol, atol, NumPy's isclose) — checked with NumPy 2.4.6.
    for (a, b, rtol, atol, close) in [
        (10.4f64, 10i64, 0.05, 0.0, true),
        (10.4, 10, 0.03, 0.0, false),
        (10.4, 10, 0.01, 0.35, true),
    ] {
        let r = cmp(
            &vec1(&[a]),
            &vec1(&[b]),
            &CompareOptions::isclose(rtol, atol).cross_dtype(true),
        );
        assert_eq!(
            r.is_equal(),
            close,
            "{a} vs {b}, rtol {rtol}, atol {atol}: {r}"
        );
    }
    let diff = |a: f64, b: i64| {
        cmp(&vec1(&[a]), &vec1(&[b]), &exact().cross_dtype(true)).mismatches()[0].abs_diff
    };
    assert_eq!(diff(7.25, 5), Some(2.25));
    assert_eq!(diff(-3.5, -3), Some(0.5));
    assert_eq!(diff(2.75, 5), Some(2.25));
    assert_eq!(diff(1e39, 5), Some(1e39));
    // An integer result against a float reference: |b| is the float's.
    let r = cmp(&vec1(&[5i64]), &vec1(&[4.0f64]), &exact().cross_dtype(true));
    assert_eq!(r.mismatches()[0].rel_diff, Some(0.25));
    let r = cmp(&vec1(&[4.0f64]), &vec1(&[5i64]), &exact().cross_dtype(true));
    assert_eq!(r.mismatches()[0].rel_diff, Some(0.2));
}

#[test]
fn complex_by_modulus_follows_numpy_isclose() {
    let modulus = |rtol, atol| CompareOptions::isclose(rtol, atol).complex_modulus(true);
    // (a, b, rtol, atol, NumPy's isclose) — checked with NumPy 2.4.6.
    for (a, b, rtol, atol, close) in [
        ([1.0, 0.0], [1.0, 0.1], 0.1, 0.0, true),
        ([1.0, 0.0], [1.0, 0.1], 0.09, 0.0, false),
        ([1.0, 1.0], [1.2, 1.0], 0.0, 0.2, true),
        ([1.0, 1.0], [1.2, 1.0], 0.0, 0.19, false),
        ([f64::NAN, 0.0], [1.0, 0.0], 0.0, 0.0, false),
        ([f64::NAN, 0.0], [0.0, f64::NAN], 0.0, 0.0, true),
        ([f64::INFINITY, 1.0], [f64::INFINITY, 1.0], 0.0, 0.0, true),
        ([f64::INFINITY, 1.0], [f64::INFINITY, 2.0], 0.0, 0.0, false),
    ] {
        let r = cmp(&c128(vec![a]), &c128(vec![b]), &modulus(rtol, atol));
        assert_eq!(
            r.is_equal(),
            close,
            "{a:?} vs {b:?}, rtol {rtol}, atol {atol}: {r}"
        );
    }
    // Per component (the default) the first pair is not close: 0 vs 0.1 fails rtol 0.1 alone.
    let r = cmp(
        &c128(vec![[1.0, 0.0]]),
        &c128(vec![[1.0, 0.1]]),
        &CompareOptions::isclose(0.1, 0.0),
    );
    assert!(!r.is_equal(), "{r}");
    let m = &r.mismatches()[0];
    assert!((m.abs_diff.unwrap() - 0.1).abs() < 1e-15, "{m:?}");
    // c8 pairs are judged in float32, as NumPy does.
    assert!(cmp(
        &c64(vec![[1.0, 0.0]]),
        &c64(vec![[1.0, 0.1]]),
        &modulus(0.1, 0.0)
    )
    .is_equal());
    let r = cmp(
        &c64(vec![[1.0, 0.0]]),
        &c64(vec![[1.5, 0.0]]),
        &modulus(0.1, 0.0),
    );
    assert_eq!(r.mismatches()[0].abs_diff, Some(0.5));
    // Signed zeros count only when asked for, in either part.
    let z = cmp(
        &c128(vec![[0.0, -0.0]]),
        &c128(vec![[0.0, 0.0]]),
        &modulus(0.0, 0.0).signed_zero(true),
    );
    assert_eq!(z.mismatches()[0].kind, MismatchKind::SignedZero);
    assert!(cmp(
        &c128(vec![[0.0, -0.0]]),
        &c128(vec![[0.0, 0.0]]),
        &modulus(0.0, 0.0)
    )
    .is_equal());
    // A ULP budget admits near values the tolerance does not.
    let next = f64::from_bits(1.0f64.to_bits() + 2);
    let u = cmp(
        &c128(vec![[1.0, 0.0]]),
        &c128(vec![[next, 0.0]]),
        &modulus(0.0, 0.0).ulps(Some(2)),
    );
    assert!(u.is_equal(), "{u}");
    assert!(!cmp(
        &c128(vec![[1.0, 0.0]]),
        &c128(vec![[next, 0.0]]),
        &modulus(0.0, 0.0).ulps(Some(1))
    )
    .is_equal());
}

#[test]
fn float32_tolerances_scale_with_the_reference_and_use_both_parts() {
    // rtol * |b| with |b| = 2 (a division would halve the tolerance).
    let r = cmp(
        &vec1(&[2.001f32]),
        &vec1(&[2.0f32]),
        &CompareOptions::isclose(1e-3, 0.0),
    );
    assert!(r.is_equal(), "{r}");
    // c8 by modulus: |2j - 1j| = 1 <= atol 1.5 (NumPy: True).
    let opts = CompareOptions::isclose(0.0, 1.5).complex_modulus(true);
    assert!(cmp(&c64(vec![[0.0, 2.0]]), &c64(vec![[0.0, 1.0]]), &opts).is_equal());
    assert!(!cmp(&c64(vec![[0.0, 3.0]]), &c64(vec![[0.0, 1.0]]), &opts).is_equal());
}

/// `compare_file` and `compare_files` read with the caller's `ReadOptions` and compare as
/// `compare` does; an unreadable file is the read's error, not a report.
#[test]
fn files_compare_as_their_arrays_do() {
    use npyguard::compare::{compare_file, compare_files};
    use npyguard::ReadOptions;
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    let (pa, pb) = (
        dir.join(format!("npyguard-cmpfiles-a-{pid}.npy")),
        dir.join(format!("npyguard-cmpfiles-b-{pid}.npy")),
    );
    let a = NpyArray::from_vec(vec![1.0f64, 2.0, 3.0], vec![3]).unwrap();
    let b = NpyArray::from_vec(vec![1.0f64, 2.5, 3.0], vec![3]).unwrap();
    a.write_path(&pa).unwrap();
    b.write_path(&pb).unwrap();
    let read = ReadOptions::default();
    let r = compare_files(&pa, &pb, &CompareOptions::new(), &read).unwrap();
    let direct = compare(&a.to_array(), &b.to_array(), &CompareOptions::new()).unwrap();
    assert!(!r.is_equal());
    assert_eq!(r.to_string(), direct.to_string());
    let r = compare_file(&a.to_array(), &pa, &CompareOptions::new(), &read).unwrap();
    assert!(r.is_equal(), "{r}");
    let tiny = read.clone().with_max_file_bytes(Some(16));
    let e = compare_file(&a.to_array(), &pb, &CompareOptions::new(), &tiny).unwrap_err();
    assert_eq!(e.kind(), npyguard::ErrorKind::FileTooLarge);
    std::fs::remove_file(&pb).unwrap();
    let e = compare_files(&pa, &pb, &CompareOptions::new(), &read).unwrap_err();
    assert_eq!(e.kind(), npyguard::ErrorKind::Io);
    std::fs::remove_file(&pa).unwrap();
}
