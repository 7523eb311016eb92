//! Round-trip properties of the writer, the readers and the header parser.
//!
//! * `payload_round_trip`: arbitrary dtype (every scalar kind, records with
//!   nesting, padding gaps, titles and subarray fields) × shape (0-d,
//!   zero-length axes, up to 4 dims) × memory order × byte order × values
//!   (NaN payloads, ±inf, −0.0, subnormals, integer extremes, 2^53 ± 1, any
//!   Unicode scalar value, arbitrary bytes) → `write::to_vec` → `read_bytes`
//!   gives bit-identical data and re-encodes to the same bytes; so do
//!   `StreamWriter` fed in random chunks (raw and typed), `read_from` over a
//!   reader returning random short reads and `Interrupted`, and
//!   `to_writer_with_version` for every version the header fits.
//! * `header_round_trip`: an arbitrary header (dtype, shape, order, extra keys
//!   holding arbitrary grammar values) rendered canonically and in other
//!   writers' styles (tests/common/render.rs) parses back to the same header.
//! * `canonical_render_is_np_save`: the renderer's `Style::numpy` is byte-identical
//!   to `write::header_bytes` / `header_bytes_with_version`, and `choose_version`
//!   picks the version NumPy would.
//! * `rendered_headers_match_the_grammar`: the pest recognizer built from
//!   grammar/npy-header.abnf matches every rendered header in full, with the
//!   nesting depth and `L` suffixes the renderer wrote.
//! * `stream_writer_refuses_short_and_long_streams`: too few or too many payload
//!   bytes are errors, and what reached the sink is always a prefix of the
//!   correct file.
//!
//! Each property runs `PROPTEST_CASES` cases (at least 1000 when unset);
//! failures are persisted to `proptest-regressions/roundtrip.txt`.

#[path = "../common/grammar.rs"]
mod grammar;
#[path = "../common/render.rs"]
mod render;

use std::cell::RefCell;
use std::collections::HashSet;
use std::io::{Read, Write};
use std::rc::Rc;
use std::time::Instant;

use grammar::{big_stack, recognize, Facts};
use npyguard::literal::{parse_dict, Int, Literal, Value};
use npyguard::write::{
    choose_version, header_bytes, header_bytes_with_version, to_vec, to_writer_with_version,
    StreamWriter,
};
use npyguard::{
    read_bytes, read_from, Array, ArrayData, DateUnit, Dtype, Endian, ErrorKind, Field, Header,
    ReadOptions, Record, TimeUnit, Version,
};
use proptest::prelude::*;
use proptest::test_runner::{
    Config as ProptestConfig, FileFailurePersistence, TestCaseError, TestRunner,
};
use render::{
    render, Comma, Escapes, HeaderSpec, Long, Pad, PadChars, Quotes, Rendered, Style, Ws,
};

const REGRESSIONS: &str = "proptest-regressions/roundtrip.txt";
/// Cases per property when `PROPTEST_CASES` is not set.
const MIN_CASES: u32 = 1000;
/// Largest payload (bytes) the payload strategies aim for.
const PAYLOAD_BUDGET: usize = 2048;
/// Largest record item size the record strategy builds.
const MAX_RECORD_SIZE: usize = 512;

// --------------------------------------------------------------- harness --

/// proptest's default configuration (which reads `PROPTEST_CASES`), with at least
/// [`MIN_CASES`] cases when `PROPTEST_CASES` is not set, and failures persisted.
fn config() -> ProptestConfig {
    let base = ProptestConfig::default();
    let cases = if std::env::var_os("PROPTEST_CASES").is_some() {
        base.cases
    } else {
        base.cases.max(MIN_CASES)
    };
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(REGRESSIONS))),
        ..base
    }
}

/// Runs a property on a big stack (the pest recognizer recurses per rule).
/// The strategy is built on that thread (`make`): boxed strategies are not `Send`.
fn run_property<S, M>(name: &'static str, make: M, test: fn(S::Value) -> Result<(), TestCaseError>)
where
    S: Strategy,
    S::Value: 'static,
    M: FnOnce() -> S + Send + 'static,
{
    big_stack(move || {
        let strategy = make();
        let start = Instant::now();
        let config = config();
        let cases = config.cases;
        let mut runner = TestRunner::new(config);
        if let Err(e) = runner.run(&strategy, test) {
            panic!("{name}: {e}\n{runner}");
        }
        println!(
            "{name}: {cases} cases passed in {:.2} s",
            start.elapsed().as_secs_f64()
        );
    });
}

fn check(cond: bool, msg: impl FnOnce() -> String) -> Result<(), TestCaseError> {
    if cond {
        Ok(())
    } else {
        Err(TestCaseError::fail(msg()))
    }
}

fn ok<T>(r: npyguard::Result<T>, what: &str) -> Result<T, TestCaseError> {
    r.map_err(|e| TestCaseError::fail(format!("{what}: {e} ({:?})", e.kind())))
}

// ------------------------------------------------------------ strategies --

fn endian() -> impl Strategy<Value = Endian> + Clone {
    prop_oneof![Just(Endian::Little), Just(Endian::Big)]
}

const UNITS: [TimeUnit; 13] = [
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

fn date_unit() -> impl Strategy<Value = DateUnit> + Clone {
    let multiple = prop_oneof![
        4 => Just(1u32),
        2 => 2u32..1000,
        1 => 1u32..=i32::MAX as u32,
    ];
    prop_oneof![
        1 => Just(DateUnit { unit: TimeUnit::Generic, multiple: 1 }),
        6 => (0..UNITS.len(), multiple).prop_map(|(u, multiple)| DateUnit { unit: UNITS[u], multiple }),
    ]
}

fn scalar_dtype() -> BoxedStrategy<Dtype> {
    let n = || prop_oneof![3 => 1usize..=4, 1 => 5usize..=12];
    prop_oneof![
        Just(Dtype::Bool),
        Just(Dtype::I8),
        Just(Dtype::U8),
        endian().prop_map(Dtype::I16),
        endian().prop_map(Dtype::I32),
        endian().prop_map(Dtype::I64),
        endian().prop_map(Dtype::U16),
        endian().prop_map(Dtype::U32),
        endian().prop_map(Dtype::U64),
        endian().prop_map(Dtype::F16),
        endian().prop_map(Dtype::F32),
        endian().prop_map(Dtype::F64),
        endian().prop_map(Dtype::C64),
        endian().prop_map(Dtype::C128),
        n().prop_map(Dtype::Bytes),
        (n(), endian()).prop_map(|(n, e)| Dtype::Unicode(n, e)),
        n().prop_map(Dtype::Void),
        (date_unit(), endian()).prop_map(|(u, e)| Dtype::DateTime(u, e)),
        (date_unit(), endian()).prop_map(|(u, e)| Dtype::TimeDelta(u, e)),
    ]
    .boxed()
}

/// Characters for names, titles and extra-key strings: plain letters, the
/// characters that need quoting or escaping, latin-1, beyond latin-1, and any.
fn text_char() -> impl Strategy<Value = char> + Clone {
    prop_oneof![
        6 => prop::char::range('a', 'z'),
        2 => prop::sample::select(vec![
            '\'', '"', '\\', ' ', '\n', '\r', '\t', '\0', '\x7f', '\u{80}', '\u{a0}', '\u{ad}',
            'é', 'ÿ', 'Ā', '\u{200b}', '\u{2028}', '日', '\u{d7ff}', '\u{e000}', '\u{fffd}',
            '\u{ffff}', '😀', '\u{f0000}', '\u{10ffff}', '#', ':', ',', '{', '}', '(', ')', '[', ']',
        ]),
        1 => any::<char>(),
    ]
}

fn text(min: usize, max: usize) -> impl Strategy<Value = String> + Clone {
    prop::collection::vec(text_char(), min..=max).prop_map(|v| v.into_iter().collect())
}

/// One field before layout: (name, title, dtype, subarray shape, gap before it).
type FieldSpec = (String, Option<String>, Dtype, Vec<usize>, usize);

/// Lays fields out in order with their gaps (as a list descr does), keeping names
/// and titles distinct and the record small.
fn build_record(specs: Vec<FieldSpec>, trailing: usize) -> Dtype {
    let mut used: HashSet<String> = HashSet::new();
    let mut unique = |s: String| -> String {
        let mut s = s;
        let mut k = 0;
        while s.is_empty() || used.contains(&s) {
            s.push(char::from(b'0' + (k % 10) as u8));
            k += 1;
        }
        used.insert(s.clone());
        s
    };
    let mut fields = Vec::new();
    let mut cursor = 0usize;
    for (name, title, mut dtype, mut shape, gap) in specs {
        let name = unique(name);
        let title = title.map(&mut unique).map(npyguard::Title::from);
        let count = |shape: &[usize]| shape.iter().product::<usize>();
        if cursor + gap + dtype.itemsize() * count(&shape) > MAX_RECORD_SIZE {
            shape.clear();
        }
        if cursor + gap + dtype.itemsize() > MAX_RECORD_SIZE {
            dtype = Dtype::U8;
        }
        let offset = cursor + gap;
        cursor = offset + dtype.itemsize() * count(&shape);
        fields.push(Field {
            name: name.into(),
            title,
            dtype,
            shape,
            nesting: Vec::new(),
            offset,
        });
    }
    Dtype::Record(Record {
        fields,
        itemsize: cursor + trailing,
    })
}

/// A record of 1–4 fields of `inner` types, with gaps, titles, subarrays and trailing padding.
fn record_of(inner: BoxedStrategy<Dtype>) -> BoxedStrategy<Dtype> {
    let field = (
        text(1, 5),
        prop::option::weighted(0.2, text(1, 4)),
        inner,
        prop::collection::vec(prop_oneof![3 => 1usize..=3, 1 => Just(0usize)], 0..=2),
        prop_oneof![3 => Just(0usize), 1 => 1usize..=5],
    );
    (
        prop::collection::vec(field, 1..=4),
        prop_oneof![3 => Just(0usize), 1 => 1usize..=4],
    )
        .prop_map(|(fields, trailing)| build_record(fields, trailing))
        .boxed()
}

/// Any dtype: a scalar, or a record nested up to 3 deep.
fn dtype() -> BoxedStrategy<Dtype> {
    let field_types = scalar_dtype().prop_recursive(2, 12, 4, record_of).boxed();
    prop_oneof![3 => scalar_dtype(), 2 => record_of(field_types)].boxed()
}

/// A shape for an array of `itemsize`-byte elements: up to 4 dims, zero-length
/// axes, at most [`PAYLOAD_BUDGET`] bytes (and 64 elements).
fn payload_shape(itemsize: usize) -> impl Strategy<Value = Vec<usize>> {
    let max_elems = (PAYLOAD_BUDGET / itemsize.max(1)).clamp(1, 64);
    prop::collection::vec(
        prop_oneof![1 => Just(0usize), 1 => Just(1usize), 4 => 2usize..=5],
        0..=4,
    )
    .prop_map(move |mut shape| {
        while shape.iter().product::<usize>() > max_elems {
            let i = (0..shape.len())
                .max_by_key(|&i| shape[i])
                .expect("non-empty");
            shape[i] -= 1;
        }
        shape
    })
}

/// Special values by bit pattern.
const F64_SPECIAL: &[u64] = &[
    0x0000_0000_0000_0000, // 0.0
    0x8000_0000_0000_0000, // -0.0
    0x3ff0_0000_0000_0000, // 1.0
    0xbff8_0000_0000_0000, // -1.5
    0x7ff0_0000_0000_0000, // inf
    0xfff0_0000_0000_0000, // -inf
    0x7ff8_0000_0000_0000, // NaN
    0xfff8_0000_0000_0000, // -NaN
    0x7ff8_0000_dead_beef, // quiet NaN with payload
    0x7ff0_0000_0000_0001, // signalling NaN
    0xfff7_ffff_ffff_ffff, // negative signalling NaN, largest payload
    0x0000_0000_0000_0001, // smallest subnormal
    0x800f_ffff_ffff_ffff, // largest negative subnormal
    0x0010_0000_0000_0000, // smallest normal
    0x7fef_ffff_ffff_ffff, // largest finite
    0xffef_ffff_ffff_ffff, // most negative finite
    0x433f_ffff_ffff_ffff, // 2^53 - 1
    0x4340_0000_0000_0000, // 2^53
    0x4340_0000_0000_0001, // 2^53 + 2
];
const F32_SPECIAL: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x3f80_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7fc0_beef,
    0x7f80_0001,
    0xffbf_ffff,
    0x0000_0001,
    0x807f_ffff,
    0x0080_0000,
    0x7f7f_ffff,
    0x4b7f_ffff, // 2^24 - 1
    0x4b80_0000, // 2^24
];
const F16_SPECIAL: &[u16] = &[
    0x0000, 0x8000, 0x3c00, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7e5a, 0x7c01, 0xfdff, 0x0001, 0x83ff,
    0x0400, 0x7bff, 0xfbff,
];
const I64_SPECIAL: &[i64] = &[
    0,
    1,
    -1,
    i64::MIN,
    i64::MAX,
    i64::MIN + 1,
    i64::MAX - 1,
    (1 << 53) - 1,
    1 << 53,
    (1 << 53) + 1,
    -(1 << 53) - 1,
    i32::MIN as i64,
    i32::MAX as i64,
    u32::MAX as i64,
];
const CHAR_SPECIAL: &[char] = &[
    '\0',
    '\0',
    '\0',
    'a',
    'é',
    '\u{ffff}',
    '\u{10ffff}',
    '\u{d7ff}',
    '\u{e000}',
    '😀',
    ' ',
    '\x7f',
];

/// A raw draw: a special value (by index) or arbitrary bits.
#[derive(Debug, Clone, Copy)]
enum Word {
    Special(usize),
    Raw(u64),
}

/// `n` words: arbitrary bits, with special values at up to 32 positions.
fn words(n: usize) -> impl Strategy<Value = Vec<Word>> {
    let specials = prop::collection::vec((any::<prop::sample::Index>(), 0usize..64), 0..=32);
    (prop::collection::vec(any::<u64>(), n), specials).prop_map(|(raw, specials)| {
        let mut w: Vec<Word> = raw.into_iter().map(Word::Raw).collect();
        if !w.is_empty() {
            for (at, k) in specials {
                let i = at.index(w.len());
                w[i] = Word::Special(k);
            }
        }
        w
    })
}

/// `n` arbitrary bytes with runs of 0x00 / 0xff at up to 8 places.
fn raw_bytes(n: usize) -> impl Strategy<Value = Vec<u8>> {
    let runs = prop::collection::vec(
        (any::<prop::sample::Index>(), 1usize..8, any::<bool>()),
        0..=8,
    );
    (prop::collection::vec(any::<u8>(), n), runs).prop_map(|(mut b, runs)| {
        if !b.is_empty() {
            for (at, len, ff) in runs {
                let i = at.index(b.len());
                let end = (i + len).min(b.len());
                b[i..end].fill(if ff { 0xff } else { 0 });
            }
        }
        b
    })
}

impl Word {
    fn pick<T: Copy>(self, special: &[T], raw: impl Fn(u64) -> T) -> T {
        match self {
            Word::Special(i) => special[i % special.len()],
            Word::Raw(x) => raw(x),
        }
    }
    fn i64(self) -> i64 {
        self.pick(I64_SPECIAL, |x| x as i64)
    }
    fn f64(self) -> f64 {
        f64::from_bits(self.pick(F64_SPECIAL, |x| x))
    }
    fn f32(self) -> f32 {
        f32::from_bits(self.pick(F32_SPECIAL, |x| x as u32))
    }
    fn f16(self) -> u16 {
        self.pick(F16_SPECIAL, |x| x as u16)
    }
    fn char(self) -> char {
        self.pick(CHAR_SPECIAL, |x| {
            char::from_u32((x % 0x11_0000) as u32).unwrap_or('\u{fffd}')
        })
    }
}

/// Stored units per element (see `ArrayData`): 1, or 2 for complex (one word each part),
/// or the width of S/U/V/records.
fn words_per_element(d: &Dtype) -> usize {
    match d {
        Dtype::C64(_) | Dtype::C128(_) => 2,
        Dtype::Bytes(n) | Dtype::Void(n) | Dtype::Unicode(n, _) => *n,
        Dtype::Record(r) => r.itemsize,
        _ => 1,
    }
}

/// Turns every UTF-32 unit of the `U` fields of one record into a Unicode scalar value
/// (records must hold text there, as the reader and `Array::new` check).
fn make_text_valid(r: &Record, rec: &mut [u8]) {
    for f in &r.fields {
        let field = &mut rec[f.offset..f.offset + f.size()];
        match &f.dtype {
            Dtype::Unicode(_, e) => {
                for unit in field.chunks_exact_mut(4) {
                    let b: [u8; 4] = unit.try_into().unwrap();
                    let u = match e {
                        Endian::Big => u32::from_be_bytes(b),
                        Endian::Little => u32::from_le_bytes(b),
                    } % 0x11_0000;
                    let u = if (0xd800..0xe000).contains(&u) {
                        u - 0x800
                    } else {
                        u
                    };
                    unit.copy_from_slice(&match e {
                        Endian::Big => u.to_be_bytes(),
                        Endian::Little => u.to_le_bytes(),
                    });
                }
            }
            Dtype::Record(inner) if inner.itemsize > 0 => {
                for sub in field.chunks_exact_mut(inner.itemsize) {
                    make_text_valid(inner, sub);
                }
            }
            _ => {}
        }
    }
}

fn build_data(d: &Dtype, w: &[Word], bytes: &[u8]) -> ArrayData {
    let pairs = |f: &dyn Fn(Word) -> u64| -> Vec<[u64; 2]> {
        w.chunks_exact(2).map(|p| [f(p[0]), f(p[1])]).collect()
    };
    match d {
        Dtype::Bool => ArrayData::Bool(w.iter().map(|x| u8::from(x.i64() & 1 == 1)).collect()),
        Dtype::I8 => ArrayData::I8(w.iter().map(|x| x.i64() as i8).collect()),
        Dtype::U8 => ArrayData::U8(w.iter().map(|x| x.i64() as u8).collect()),
        Dtype::I16(_) => ArrayData::I16(w.iter().map(|x| x.i64() as i16).collect()),
        Dtype::I32(_) => ArrayData::I32(w.iter().map(|x| x.i64() as i32).collect()),
        Dtype::I64(_) => ArrayData::I64(w.iter().map(|x| x.i64()).collect()),
        Dtype::U16(_) => ArrayData::U16(w.iter().map(|x| x.i64() as u16).collect()),
        Dtype::U32(_) => ArrayData::U32(w.iter().map(|x| x.i64() as u32).collect()),
        Dtype::U64(_) => ArrayData::U64(w.iter().map(|x| x.i64() as u64).collect()),
        Dtype::F16(_) => ArrayData::F16(w.iter().map(|x| x.f16()).collect()),
        Dtype::F32(_) => ArrayData::F32(w.iter().map(|x| x.f32()).collect()),
        Dtype::F64(_) => ArrayData::F64(w.iter().map(|x| x.f64()).collect()),
        Dtype::C64(_) => ArrayData::C64(
            pairs(&|x| u64::from(x.f32().to_bits()))
                .into_iter()
                .map(|[a, b]| [f32::from_bits(a as u32), f32::from_bits(b as u32)])
                .collect(),
        ),
        Dtype::C128(_) => ArrayData::C128(
            pairs(&|x| x.f64().to_bits())
                .into_iter()
                .map(|[a, b]| [f64::from_bits(a), f64::from_bits(b)])
                .collect(),
        ),
        Dtype::Bytes(_) => ArrayData::Bytes(bytes.to_vec().into()),
        Dtype::Void(_) => ArrayData::Void(bytes.to_vec().into()),
        Dtype::Record(r) => {
            let mut raw = bytes.to_vec();
            if r.itemsize > 0 {
                for rec in raw.chunks_exact_mut(r.itemsize) {
                    make_text_valid(r, rec);
                }
            }
            ArrayData::Record(raw.into())
        }
        Dtype::Unicode(..) => ArrayData::Unicode(w.iter().map(|x| u32::from(x.char())).collect()),
        Dtype::DateTime(..) => ArrayData::DateTime(w.iter().map(|x| x.i64()).collect()),
        Dtype::TimeDelta(..) => ArrayData::TimeDelta(w.iter().map(|x| x.i64()).collect()),
        other => panic!("unknown dtype {other:?}"),
    }
}

/// An array of any dtype, shape, memory order and byte order, with special values.
fn array() -> BoxedStrategy<Array> {
    (dtype(), any::<bool>())
        .prop_flat_map(|(d, fortran)| {
            let itemsize = d.itemsize();
            (Just(d), payload_shape(itemsize), Just(fortran))
        })
        .prop_flat_map(|(d, shape, fortran)| {
            let count: usize = shape.iter().product();
            let as_bytes = matches!(d, Dtype::Bytes(_) | Dtype::Void(_) | Dtype::Record(_));
            let (nw, nb) = if as_bytes {
                (0, count * d.itemsize())
            } else {
                (count * words_per_element(&d), 0)
            };
            (
                Just(d),
                Just(shape),
                Just(fortran),
                words(nw),
                raw_bytes(nb),
            )
        })
        .prop_map(|(d, shape, fortran, words, bytes)| {
            let data = build_data(&d, &words, &bytes);
            let header = Header::new(d, shape, fortran).expect("bounded shape");
            Array::new(header, data).expect("data matches the shape")
        })
        .boxed()
}

/// An integer literal: small, any u64, or beyond u64 (decimal digits).
fn int_literal() -> impl Strategy<Value = Int> + Clone {
    prop_oneof![
        2 => (0u64..10).prop_map(Int::Small),
        2 => any::<u64>().prop_map(Int::Small),
        1 => "[1-9][0-9]{20,40}".prop_map(Int::Big),
    ]
}

/// Any value of the header grammar, nested a few levels.
fn literal() -> BoxedStrategy<Literal> {
    let leaf = prop_oneof![
        3 => text(0, 6).prop_map(Value::Str),
        2 => int_literal().prop_map(Value::Int),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => Just(Value::None),
    ]
    .prop_map(Literal::new);
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..=4).prop_map(|v| Literal::new(Value::Tuple(v))),
            prop::collection::vec(inner, 0..=4).prop_map(|v| Literal::new(Value::List(v))),
        ]
    })
    .boxed()
}

/// A header shape: any number of dims up to 6 (sometimes up to 64) with values
/// up to 2^40, fixed up so that the byte size fits in isize.
fn header_shape(itemsize: usize) -> impl Strategy<Value = Vec<usize>> {
    let dim = prop_oneof![
        3 => 0usize..=9,
        1 => any::<u32>().prop_map(|d| d as usize),
        1 => 0usize..=(1 << 40),
    ];
    prop_oneof![
        6 => prop::collection::vec(dim, 0..=6),
        1 => prop::collection::vec(0usize..=2, 30..=64),
    ]
    .prop_map(move |mut shape| {
        let fits = |s: &[usize]| {
            s.iter()
                .filter(|&&d| d != 0)
                .try_fold(itemsize.max(1), |acc, &d| acc.checked_mul(d))
                .is_some_and(|b| b <= isize::MAX as usize)
        };
        if !fits(&shape) {
            shape.iter_mut().for_each(|d| *d %= 1000);
        }
        if !fits(&shape) {
            shape.iter_mut().for_each(|d| *d = (*d).min(1));
        }
        shape
    })
}

fn header_spec() -> BoxedStrategy<HeaderSpec> {
    (dtype(), any::<bool>())
        .prop_flat_map(|(d, fortran)| {
            let itemsize = d.itemsize();
            let extra = prop::collection::vec((text(0, 8), literal()), 0..=3);
            (Just(d), Just(fortran), header_shape(itemsize), extra)
        })
        .prop_map(|(dtype, fortran_order, shape, extra)| {
            let mut seen: HashSet<String> = ["descr", "fortran_order", "shape"]
                .into_iter()
                .map(String::from)
                .collect();
            let extra = extra
                .into_iter()
                .filter(|(k, _)| seen.insert(k.clone()))
                .collect();
            HeaderSpec {
                dtype,
                fortran_order,
                shape,
                extra,
            }
        })
        .boxed()
}

fn version() -> impl Strategy<Value = Version> {
    prop_oneof![
        Just(Version::V1_0),
        Just(Version::V2_0),
        Just(Version::V3_0)
    ]
}

fn comma() -> impl Strategy<Value = Comma> + Clone {
    prop_oneof![Just(Comma::Repr), Just(Comma::Always), Just(Comma::Mixed)]
}

/// A named writer style, or any combination of the style's settings.
fn style() -> BoxedStrategy<Style> {
    let presets = Style::presets();
    let preset = (0..presets.len(), prop::collection::vec(any::<u8>(), 0..8)).prop_map(
        move |(i, key_rank)| Style {
            key_rank,
            ..presets[i].1.clone()
        },
    );
    let tokens = (
        prop::collection::vec(any::<u8>(), 0..8),
        prop_oneof![
            Just(Quotes::Repr),
            Just(Quotes::Single),
            Just(Quotes::Double),
            Just(Quotes::Mixed)
        ],
        prop_oneof![Just(Escapes::Repr), Just(Escapes::Mixed)],
        prop_oneof![
            1 => Just(Ws::Repr),
            1 => Just(Ws::Npyz),
            1 => Just(Ws::Pprint),
            1 => Just(Ws::None),
            3 => Just(Ws::Mixed),
        ],
        any::<bool>(),
        comma(),
        comma(),
        comma(),
        prop_oneof![Just(Long::Never), Just(Long::All), Just(Long::Mixed)],
        any::<bool>(),
    );
    let layout = (
        any::<bool>(),
        prop_oneof![Just(16usize), Just(64usize)],
        prop_oneof![
            Just(Pad::Numpy),
            Just(Pad::Minimal),
            Just(Pad::NoNewlineWhenAligned),
            Just(Pad::Bare)
        ],
        prop_oneof![Just(PadChars::Spaces), Just(PadChars::Mixed)],
        prop::collection::vec(any::<u8>(), 0..64),
    );
    let any_style = (tokens, layout).prop_map(
        |(
            (
                key_rank,
                quotes,
                escapes,
                ws,
                dict_comma,
                shape_comma,
                tuple_comma,
                list_comma,
                long_suffix,
                typestr_variants,
            ),
            (growth, align, pad, pad_chars, tape),
        )| Style {
            key_rank,
            quotes,
            escapes,
            ws,
            dict_comma,
            shape_comma,
            tuple_comma,
            list_comma,
            long_suffix,
            typestr_variants,
            growth,
            align,
            pad,
            pad_chars,
            tape,
        },
    );
    prop_oneof![1 => preset, 3 => any_style].boxed()
}

// --------------------------------------------------------------- helpers --

/// The data as comparable words: float bits, not float values.
fn bits(d: &ArrayData) -> (&'static str, Vec<u64>) {
    match d {
        ArrayData::Bool(v) => ("b1", v.iter().map(|&x| u64::from(x)).collect()),
        ArrayData::I8(v) => ("i1", v.iter().map(|&x| x as u64).collect()),
        ArrayData::U8(v) => ("u1", v.iter().map(|&x| u64::from(x)).collect()),
        ArrayData::I16(v) => ("i2", v.iter().map(|&x| x as u64).collect()),
        ArrayData::I32(v) => ("i4", v.iter().map(|&x| x as u64).collect()),
        ArrayData::I64(v) => ("i8", v.iter().map(|&x| x as u64).collect()),
        ArrayData::U16(v) => ("u2", v.iter().map(|&x| u64::from(x)).collect()),
        ArrayData::U32(v) => ("u4", v.iter().map(|&x| u64::from(x)).collect()),
        ArrayData::U64(v) => ("u8", v.to_vec()),
        ArrayData::F16(v) => ("f2", v.iter().map(|&x| u64::from(x)).collect()),
        ArrayData::F32(v) => ("f4", v.iter().map(|&x| u64::from(x.to_bits())).collect()),
        ArrayData::F64(v) => ("f8", v.iter().map(|&x| x.to_bits()).collect()),
        ArrayData::C64(v) => (
            "c8",
            v.iter()
                .flat_map(|c| c.map(|x| u64::from(x.to_bits())))
                .collect(),
        ),
        ArrayData::C128(v) => ("c16", v.iter().flat_map(|c| c.map(f64::to_bits)).collect()),
        ArrayData::Bytes(v) => ("S", v.iter().map(|&x| u64::from(x)).collect()),
        ArrayData::Unicode(v) => ("U", v.iter().map(|&x| u64::from(x)).collect()),
        ArrayData::Void(v) => ("V", v.iter().map(|&x| u64::from(x)).collect()),
        ArrayData::DateTime(v) => ("M8", v.iter().map(|&x| x as u64).collect()),
        ArrayData::TimeDelta(v) => ("m8", v.iter().map(|&x| x as u64).collect()),
        ArrayData::Record(v) => ("V-record", v.iter().map(|&x| u64::from(x)).collect()),
        other => panic!("unknown ArrayData variant {other:?}"),
    }
}

/// Checks that `back` is `a` read back: same dtype, shape, order and bit-identical data.
fn same_array(a: &Array, back: &Array, how: &str) -> Result<(), TestCaseError> {
    check(back.dtype() == a.dtype(), || {
        format!(
            "{how}: dtype {:?} read back as {:?}",
            a.dtype(),
            back.dtype()
        )
    })?;
    check(back.shape() == a.shape(), || {
        format!(
            "{how}: shape {:?} read back as {:?}",
            a.shape(),
            back.shape()
        )
    })?;
    check(back.fortran_order() == a.fortran_order(), || {
        format!(
            "{how}: fortran_order {} read back as {}",
            a.fortran_order(),
            back.fortran_order()
        )
    })?;
    let (want, got) = (bits(a.data()), bits(back.data()));
    check(want == got, || {
        format!("{how}: data differs:\n wrote {want:?}\n  read {got:?}")
    })
}

/// Cuts `len` items into chunks whose sizes come from `plan` (cyclically; 0-sized chunks too).
fn chunks(len: usize, plan: &[u16]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut i = 0;
    while at < len {
        let step = match plan.get(i % plan.len().max(1)) {
            None => len,
            Some(&p) => match p % 8 {
                0 => 0,
                1..=5 => usize::from(p % 17),
                _ => usize::from(p),
            },
        };
        let end = (at + step).min(len);
        out.push(at..end);
        at = end;
        i += 1;
        if i > 4 * len + 8 {
            // Plans of only empty chunks: finish in one.
            out.push(at..len);
            break;
        }
    }
    out
}

/// A reader returning at most a few bytes per call, sometimes `Interrupted`.
struct ShortReader<'a> {
    data: &'a [u8],
    pos: usize,
    plan: Vec<u16>,
    step: usize,
    interrupted: bool,
}

impl Read for ShortReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let p = if self.plan.is_empty() {
            1
        } else {
            self.plan[self.step % self.plan.len()]
        };
        self.step += 1;
        if p % 9 == 0 && !self.interrupted {
            self.interrupted = true;
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "again",
            ));
        }
        self.interrupted = false;
        let want = match p % 4 {
            0..=2 => 1 + usize::from(p % 13),
            _ => usize::from(p),
        };
        let n = want.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// A sink whose bytes stay visible after the writer that owns it is consumed.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn bytes(&self) -> Vec<u8> {
        self.0.borrow().clone()
    }
}

/// Writes typed elements in chunks when `data` has an element type; `None` otherwise.
fn write_typed<W: Write>(
    w: &mut StreamWriter<W>,
    data: &ArrayData,
    plan: &[u16],
) -> Option<npyguard::Result<()>> {
    fn go<W: Write, T: npyguard::Element>(
        w: &mut StreamWriter<W>,
        v: &[T],
        plan: &[u16],
    ) -> npyguard::Result<()> {
        for r in chunks(v.len(), plan) {
            w.write_elements(&v[r])?;
        }
        Ok(())
    }
    Some(match data {
        ArrayData::Bool(v) => go(w, &v.iter().map(|&b| b != 0).collect::<Vec<bool>>(), plan),
        ArrayData::I8(v) => go(w, v, plan),
        ArrayData::U8(v) => go(w, v, plan),
        ArrayData::I16(v) => go(w, v, plan),
        ArrayData::I32(v) => go(w, v, plan),
        ArrayData::I64(v) => go(w, v, plan),
        ArrayData::U16(v) => go(w, v, plan),
        ArrayData::U32(v) => go(w, v, plan),
        ArrayData::U64(v) => go(w, v, plan),
        ArrayData::F32(v) => go(w, v, plan),
        ArrayData::F64(v) => go(w, v, plan),
        _ => return None,
    })
}

/// Checks `to_c_order`/`to_fortran_order` against index arithmetic done here.
fn check_reorder(a: &Array) -> Result<(), TestCaseError> {
    let (c, f) = (a.to_c_order(), a.to_fortran_order());
    check(!c.fortran_order() && f.fortran_order(), || {
        "reordered flags".into()
    })?;
    let (_, cb) = bits(c.data());
    let (_, fb) = bits(f.data());
    let n = a.len();
    if n == 0 {
        return check(cb.is_empty() && fb.is_empty(), || {
            "empty reorder has data".into()
        });
    }
    let per = cb.len() / n;
    check(cb.len() == n * per && fb.len() == n * per, || {
        "reorder changed the size".into()
    })?;
    let shape = a.shape();
    // For each logical multi-index: its C-order and Fortran-order flat positions.
    let mut idx = vec![0usize; shape.len()];
    for ci in 0..n {
        let mut fi = 0;
        let mut stride = 1;
        for (k, &d) in shape.iter().enumerate() {
            fi += idx[k] * stride;
            stride *= d;
        }
        check(
            cb[ci * per..(ci + 1) * per] == fb[fi * per..(fi + 1) * per],
            || format!("element {idx:?} differs between C order ({ci}) and Fortran order ({fi})"),
        )?;
        for k in (0..shape.len()).rev() {
            idx[k] += 1;
            if idx[k] < shape[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    let back = if a.fortran_order() {
        c.to_fortran_order()
    } else {
        f.to_c_order()
    };
    same_array(a, &back, "reorder there and back")
}

fn spec_of(header: &Header) -> HeaderSpec {
    HeaderSpec {
        dtype: header.dtype().clone(),
        fortran_order: header.fortran_order(),
        shape: header.shape().to_vec(),
        extra: Vec::new(),
    }
}

fn show(r: &Rendered) -> String {
    format!("{:?} header {:?}", r.version, r.text_str())
}

// ------------------------------------------------------------ properties --

#[test]
fn payload_round_trip() {
    let plans = (
        prop::collection::vec(any::<u16>(), 1..8),
        prop::collection::vec(any::<u16>(), 1..8),
    );
    run_property(
        "payload_round_trip",
        move || (array(), plans),
        |(a, (cut, reads))| {
            let opts = ReadOptions::default();
            let bytes = ok(to_vec(&a), "to_vec")?;
            let head = header_bytes(a.header());
            check(bytes.starts_with(&head), || {
                "file does not start with header_bytes".into()
            })?;
            check(bytes.len() == head.len() + a.header().payload_len(), || {
                format!(
                    "file of {} bytes, expected {} + {}",
                    bytes.len(),
                    head.len(),
                    a.header().payload_len()
                )
            })?;
            check(head.len() % 64 == 0, || {
                format!("payload offset {} not 64-aligned", head.len())
            })?;

            // read_bytes: same array, and it re-encodes to the same bytes.
            let back = ok(read_bytes(&bytes, &opts), "read_bytes")?;
            same_array(&a, &back, "read_bytes")?;
            check(
                back.header().version() == choose_version(a.header()),
                || {
                    format!(
                        "version {:?}, choose_version says {:?}",
                        back.header().version(),
                        choose_version(a.header())
                    )
                },
            )?;
            check(back.header().payload_offset() == head.len() as u64, || {
                "payload offset".into()
            })?;
            check(ok(to_vec(&back), "to_vec(read back)")? == bytes, || {
                "re-encoding the read-back array gives other bytes".into()
            })?;

            // read_from over short reads and interruptions.
            let reader = ShortReader {
                data: &bytes,
                pos: 0,
                plan: reads.clone(),
                step: 0,
                interrupted: false,
            };
            let streamed = ok(read_from(reader, &opts), "read_from(short reads)")?;
            same_array(&a, &streamed, "read_from")?;

            // StreamWriter fed raw payload bytes in random chunks.
            let payload = &bytes[head.len()..];
            let mut w = ok(
                StreamWriter::new(Vec::new(), a.header().clone()),
                "StreamWriter::new",
            )?;
            for r in chunks(payload.len(), &cut) {
                ok(w.write_raw(&payload[r]), "write_raw")?;
            }
            let out = ok(w.finish(), "finish")?;
            check(out == bytes, || {
                "StreamWriter (raw chunks) differs from to_vec".into()
            })?;

            // StreamWriter fed the whole data at once.
            let mut w = ok(
                StreamWriter::new(Vec::new(), a.header().clone()),
                "StreamWriter::new",
            )?;
            ok(w.write_data(a.data()), "write_data")?;
            check(ok(w.finish(), "finish")? == bytes, || {
                "StreamWriter (write_data) differs".into()
            })?;

            // StreamWriter fed typed elements in random chunks.
            let mut w = ok(
                StreamWriter::new(Vec::new(), a.header().clone()),
                "StreamWriter::new",
            )?;
            if let Some(r) = write_typed(&mut w, a.data(), &cut) {
                ok(r, "write_elements")?;
                check(ok(w.finish(), "finish")? == bytes, || {
                    "StreamWriter (typed) differs".into()
                })?;
            }

            // Memory order: to_c_order / to_fortran_order move whole elements to
            // the logical positions, and converting back restores the data.
            check_reorder(&a)?;

            // Every version the header fits.
            for v in [Version::V1_0, Version::V2_0, Version::V3_0] {
                let Ok(vhead) = header_bytes_with_version(a.header(), v) else {
                    continue;
                };
                let mut out = Vec::new();
                ok(
                    to_writer_with_version(&mut out, &a, v),
                    "to_writer_with_version",
                )?;
                check(
                    out.starts_with(&vhead) && out[vhead.len()..] == *payload,
                    || format!("to_writer_with_version({v:?}): header or payload differs"),
                )?;
                let back = ok(read_bytes(&out, &opts), "read_bytes(version)")?;
                same_array(&a, &back, &format!("version {v:?}"))?;
                check(back.header().version() == v, || {
                    format!("version {v:?} read as {:?}", back.header().version())
                })?;
            }
            Ok(())
        },
    );
}

#[test]
fn header_round_trip() {
    run_property(
        "header_round_trip",
        || (header_spec(), style(), version()),
        |(spec, style, version)| {
            let r = render(&spec, &style, version).map_err(TestCaseError::fail)?;
            let head = r.head();
            let opts = ReadOptions::default();
            let h = Header::parse(r.preamble(), &r.text, &opts).map_err(|e| {
                TestCaseError::fail(format!("Header::parse refuses {}: {e}", show(&r)))
            })?;
            let ctx = || show(&r);
            check(h.dtype() == &spec.dtype, || {
                format!("dtype {:?} != {:?}; {}", h.dtype(), spec.dtype, ctx())
            })?;
            check(h.shape() == spec.shape, || {
                format!("shape {:?}; {}", h.shape(), ctx())
            })?;
            check(h.fortran_order() == spec.fortran_order, || {
                format!("fortran_order; {}", ctx())
            })?;
            check(h.version() == version, || {
                format!("version {:?}; {}", h.version(), ctx())
            })?;
            check(h.payload_offset() == head.len() as u64, || {
                format!("payload offset {}; {}", h.payload_offset(), ctx())
            })?;
            // Extra keys by value, in file order.
            let want: Vec<(String, Literal)> = r
                .keys
                .iter()
                .filter_map(|k| spec.extra.iter().find(|(e, _)| e == k).cloned())
                .collect();
            check(h.extra() == want.as_slice(), || {
                format!("extra keys {:?} != {want:?}; {}", h.extra(), ctx())
            })?;
            if style.aligns() {
                check(head.len() % style.align == 0, || {
                    format!(
                        "{} bytes before the payload, not {}-aligned; {}",
                        head.len(),
                        style.align,
                        ctx()
                    )
                })?;
            }
            // The same through the whole-file entry point, and with a payload.
            let from_bytes = ok(Header::from_bytes(&head, &opts), "Header::from_bytes")?;
            check(from_bytes == h, || {
                "Header::from_bytes differs from Header::parse".into()
            })?;
            let payload_len = h.payload_len();
            if payload_len <= 4096 {
                let mut file = head.clone();
                file.resize(head.len() + payload_len, 0);
                let a = ok(
                    read_bytes(&file, &opts),
                    "read_bytes(rendered header + zeros)",
                )?;
                // Normalisation: written back canonically, whatever style it came in.
                let canonical =
                    Header::new(spec.dtype.clone(), spec.shape.clone(), spec.fortran_order)
                        .expect("valid header");
                let mut want = header_bytes(&canonical);
                want.resize(want.len() + payload_len, 0);
                check(ok(to_vec(&a), "to_vec")? == want, || {
                    format!("rewriting a {} file is not np.save's file", ctx())
                })?;
            }
            Ok(())
        },
    );
}

#[test]
fn canonical_render_is_np_save() {
    let spec = || {
        (dtype(), any::<bool>()).prop_flat_map(|(d, fortran)| {
            let itemsize = d.itemsize();
            (Just(d), Just(fortran), header_shape(itemsize))
        })
    };
    run_property(
        "canonical_render_is_np_save",
        spec,
        |(dtype, fortran, shape)| {
            let header = Header::new(dtype, shape, fortran).expect("valid header");
            let spec = spec_of(&header);
            let style = Style::numpy();
            let mut rendered = Vec::new();
            for v in [Version::V1_0, Version::V2_0, Version::V3_0] {
                let r = render(&spec, &style, v).map_err(TestCaseError::fail)?;
                match header_bytes_with_version(&header, v) {
                    Ok(b) => check(b == r.head(), || {
                        format!(
                            "np.save header for {v:?}:\n  writer   {:?}\n  renderer {:?}",
                            String::from_utf8_lossy(&b),
                            String::from_utf8_lossy(&r.head())
                        )
                    })?,
                    // Only 1.0/2.0 refuse, and only a header whose repr is not latin-1.
                    Err(_) => {
                        let r3 =
                            render(&spec, &style, Version::V3_0).map_err(TestCaseError::fail)?;
                        let latin1 = r3.text_str().chars().all(|c| u32::from(c) <= 0xff);
                        let fits = v != Version::V1_0 || r.text.len() <= usize::from(u16::MAX);
                        check(v != Version::V3_0 && (!latin1 || !fits), || {
                            format!("header_bytes_with_version({v:?}) refuses {}", show(&r))
                        })?;
                    }
                }
                rendered.push(r);
            }
            // The version NumPy chooses: 1.0 if latin-1 and short enough, 2.0 if latin-1, else 3.0.
            let latin1 = rendered[2].text_str().chars().all(|c| u32::from(c) <= 0xff);
            let want = if !latin1 {
                Version::V3_0
            } else if rendered[0].text.len() <= usize::from(u16::MAX) {
                Version::V1_0
            } else {
                Version::V2_0
            };
            check(choose_version(&header) == want, || {
                format!(
                    "choose_version {:?}, NumPy chooses {want:?}",
                    choose_version(&header)
                )
            })?;
            let idx = match want {
                Version::V1_0 => 0,
                Version::V2_0 => 1,
                _ => 2,
            };
            check(header_bytes(&header) == rendered[idx].head(), || {
                format!(
                    "header_bytes differs from the canonical render {}",
                    show(&rendered[idx])
                )
            })
        },
    );
}

#[test]
fn rendered_headers_match_the_grammar() {
    run_property(
        "rendered_headers_match_the_grammar",
        || (header_spec(), style(), version()),
        |(spec, style, version)| {
            let r = render(&spec, &style, version).map_err(TestCaseError::fail)?;
            let text = r.text_str();
            let facts = recognize("full_header", &text).ok_or_else(|| {
                TestCaseError::fail(format!("the grammar does not match {}", show(&r)))
            })?;
            let want = Facts {
                nesting: r.nesting,
                long_suffix: r.long_suffix,
            };
            check(facts == want, || {
                format!(
                    "recognizer facts {facts:?}, renderer wrote {want:?}; {}",
                    show(&r)
                )
            })?;
            // And the parser accepts what the grammar matched, for this version.
            parse_dict(&r.text, version)
                .map(|_| ())
                .map_err(|e| TestCaseError::fail(format!("parse_dict refuses {}: {e}", show(&r))))
        },
    );
}

#[derive(Debug, Clone)]
enum Plan {
    /// Only the first `k` (mod payload length) payload bytes.
    Short(usize),
    /// The payload, then these extra bytes.
    Long(Vec<u8>),
    /// The whole data with `write_data`, then `write_data` again.
    Twice,
}

#[test]
fn stream_writer_refuses_short_and_long_streams() {
    let plan = prop_oneof![
        any::<usize>().prop_map(Plan::Short),
        prop::collection::vec(any::<u8>(), 1..20).prop_map(Plan::Long),
        Just(Plan::Twice),
    ];
    let cuts = prop::collection::vec(any::<u16>(), 1..8);
    run_property(
        "stream_writer_refuses_short_and_long_streams",
        move || (array(), plan, cuts),
        |(a, plan, cuts)| {
            let correct = ok(to_vec(&a), "to_vec")?;
            let head_len = header_bytes(a.header()).len();
            let payload = &correct[head_len..];
            let sink = Shared::default();
            let mut w = ok(
                StreamWriter::new(sink.clone(), a.header().clone()),
                "StreamWriter::new",
            )?;
            let prefix = |what: &str| -> Result<(), TestCaseError> {
                let got = sink.bytes();
                check(correct.starts_with(&got), || {
                    format!(
                        "after {what}, the {} bytes written are not a prefix of the file",
                        got.len()
                    )
                })
            };
            prefix("the header")?;
            check(sink.bytes().len() == head_len, || {
                "StreamWriter::new wrote more than the header".into()
            })?;
            match plan {
                Plan::Short(k) => {
                    if payload.is_empty() {
                        // Nothing can be short: an empty stream is complete.
                        ok(w.finish(), "finish of an empty payload")?;
                        check(sink.bytes() == correct, || {
                            "empty payload file differs".into()
                        })?;
                        return Ok(());
                    }
                    let k = k % payload.len();
                    for r in chunks(k, &cuts) {
                        ok(w.write_raw(&payload[r]), "write_raw (short stream)")?;
                        prefix("a short write")?;
                    }
                    let e = w.finish().err().ok_or_else(|| {
                        TestCaseError::fail(format!(
                            "finish accepts {k} of {} payload bytes",
                            payload.len()
                        ))
                    })?;
                    check(e.kind() == ErrorKind::InvalidInput, || {
                        format!("short stream: {e} ({:?})", e.kind())
                    })?;
                    check(sink.bytes().len() == head_len + k, || {
                        "short stream: bytes lost or added".into()
                    })?;
                    prefix("finish")
                }
                Plan::Long(extra) => {
                    let mut stream = payload.to_vec();
                    stream.extend_from_slice(&extra);
                    let mut sent = 0usize;
                    let mut refused = false;
                    for r in chunks(stream.len(), &cuts) {
                        let n = r.len();
                        match w.write_raw(&stream[r]) {
                            Ok(()) => {
                                check(sent + n <= payload.len(), || {
                                    format!(
                                        "write_raw accepted bytes past the payload ({} > {})",
                                        sent + n,
                                        payload.len()
                                    )
                                })?;
                                sent += n;
                            }
                            Err(e) => {
                                check(e.kind() == ErrorKind::InvalidInput, || {
                                    format!("long stream: {e} ({:?})", e.kind())
                                })?;
                                check(sent + n > payload.len(), || {
                                    "write_raw refused bytes that fit".into()
                                })?;
                                refused = true;
                            }
                        }
                        prefix("a long write")?;
                        if refused {
                            break;
                        }
                    }
                    check(refused, || "no write was refused in a long stream".into())?;
                    check(sink.bytes().len() == head_len + sent, || {
                        "long stream: refused bytes reached the sink".into()
                    })?;
                    match w.finish() {
                        Ok(_) => check(sink.bytes() == correct, || {
                            "finish accepted an incomplete file".into()
                        }),
                        Err(e) => check(
                            sent < payload.len() && e.kind() == ErrorKind::InvalidInput,
                            || format!("finish refused a complete payload: {e}"),
                        ),
                    }
                }
                Plan::Twice => {
                    ok(w.write_data(a.data()), "write_data")?;
                    prefix("write_data")?;
                    let second = w.write_data(a.data());
                    prefix("a second write_data")?;
                    if payload.is_empty() {
                        ok(second, "write_data of nothing")?;
                    } else {
                        let e = second.err().ok_or_else(|| {
                            TestCaseError::fail("a second write_data was accepted".to_string())
                        })?;
                        check(e.kind() == ErrorKind::InvalidInput, || format!("{e}"))?;
                    }
                    ok(w.finish(), "finish after a refused write")?;
                    check(sink.bytes() == correct, || {
                        "file after a refused write differs".into()
                    })
                }
            }
        },
    );
}

// ----------------------------------------------------- fixed style checks --

/// The named writer styles on a 2×3 f8 header give the file sizes the
/// reference lists (NumPy 128, NumPy < 1.14 / cnpy / NPZ.jl 80, npyz and ndarray-npy 128).
#[test]
fn writer_styles_match_the_reference_layouts() {
    let spec = HeaderSpec {
        dtype: Dtype::F64(Endian::Little),
        fortran_order: false,
        shape: vec![2, 3],
        extra: Vec::new(),
    };
    let text = |s: Style| {
        let r = render(&spec, &s, Version::V1_0).unwrap();
        (r.head().len(), r.text_str())
    };
    let (n, t) = text(Style::numpy());
    assert_eq!(n, 128);
    assert!(t.starts_with("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }"));
    let (n, t) = text(Style::numpy_old());
    assert_eq!(n, 80);
    assert_eq!(
        t,
        format!(
            "{{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }}{}\n",
            " ".repeat(10)
        )
    );
    let (n, t) = text(Style::npyz());
    assert_eq!(n, 128);
    assert!(t.starts_with("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, ), }"));
    let (n, t) = text(Style::ndarray_npy());
    assert_eq!(n, 128);
    assert!(t.starts_with("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)}"));
    let (_, t) = text(Style::pprint());
    assert!(t.starts_with("{'descr': '<f8',\n 'fortran_order': False,\n 'shape': (2, 3)}"));
    let (_, t) = text(Style::python2());
    assert!(t.contains("(2L, 3L)"));
    // In 3.0 no L is ever written.
    let r = render(&spec, &Style::python2(), Version::V3_0).unwrap();
    assert!(!r.long_suffix && !r.text_str().contains('L'));
    // cnpy pads minimally, NPZ.jl drops the newline when already aligned.
    for s in [Style::cnpy(), Style::npz_jl()] {
        let r = render(&spec, &s, Version::V1_0).unwrap();
        assert_eq!(r.head().len() % 16, 0);
    }
    let npyz_record = HeaderSpec {
        dtype: Dtype::Record(Record {
            fields: vec![Field {
                name: "a".into(),
                title: None,
                dtype: Dtype::F64(Endian::Little),
                shape: vec![],
                nesting: Vec::new(),
                offset: 0,
            }],
            itemsize: 8,
        }),
        ..spec.clone()
    };
    let r = render(&npyz_record, &Style::npyz(), Version::V1_0).unwrap();
    assert!(
        r.text_str().starts_with("{'descr': [('a', '<f8'), ], "),
        "{}",
        r.text_str()
    );
}

/// NPZ.jl's rule: a dict that already ends on the boundary gets no padding and no newline.
#[test]
fn npz_jl_omits_the_newline_when_aligned() {
    let mut seen_bare = false;
    // Each extra dimension adds ", 1" (3 bytes, coprime with 16): every residue occurs.
    for n in 0..32 {
        let spec = HeaderSpec {
            dtype: Dtype::Bytes(3),
            fortran_order: true,
            shape: vec![1; n],
            extra: Vec::new(),
        };
        let r = render(&spec, &Style::npz_jl(), Version::V1_0).unwrap();
        assert_eq!(r.head().len() % 16, 0);
        if !r.text.ends_with(b"\n") {
            seen_bare = true;
            assert!(r.text.ends_with(b"}"));
        }
        let h = Header::parse(r.preamble(), &r.text, &ReadOptions::default()).unwrap();
        assert_eq!(h.shape(), vec![1; n]);
    }
    assert!(seen_bare, "no header ended aligned");
}

// --------------------------------------------------------- generator reach --

fn walk_dtypes<'a>(d: &'a Dtype, out: &mut Vec<(&'a Dtype, u32)>, depth: u32) {
    out.push((d, depth));
    if let Dtype::Record(r) = d {
        for f in &r.fields {
            walk_dtypes(&f.dtype, out, depth + 1);
        }
    }
}

fn has_big_int(l: &Literal) -> bool {
    match &l.value {
        Value::Int(Int::Big(_)) => true,
        Value::Tuple(v) | Value::List(v) => v.iter().any(has_big_int),
        _ => false,
    }
}

fn literal_depth(l: &Literal) -> u32 {
    match &l.value {
        Value::Tuple(v) | Value::List(v) => 1 + v.iter().map(literal_depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// The strategies reach every case the properties claim to cover (so a change to
/// a generator cannot silently narrow them).
#[test]
fn generators_reach_every_case() {
    use proptest::strategy::ValueTree;
    use std::collections::BTreeMap;
    big_stack(|| {
        let mut runner = TestRunner::deterministic();
        let mut seen: BTreeMap<&'static str, u32> = BTreeMap::new();
        let mut hit = |k: &'static str, c: bool| {
            *seen.entry(k).or_default() += u32::from(c);
        };
        let arrays = array();
        for _ in 0..1500 {
            let a = arrays.new_tree(&mut runner).unwrap().current();
            let mut ds = Vec::new();
            walk_dtypes(a.dtype(), &mut ds, 0);
            for (d, depth) in &ds {
                let code = render::canonical_typestr(d);
                for (k, pat) in [
                    ("b1", "b1"),
                    ("i1", "i1"),
                    ("u1", "u1"),
                    ("i2", "i2"),
                    ("i4", "i4"),
                    ("i8", "i8"),
                    ("u2", "u2"),
                    ("u4", "u4"),
                    ("u8", "u8"),
                    ("f2", "f2"),
                    ("f4", "f4"),
                    ("f8", "f8"),
                    ("c8", "c8"),
                    ("c16", "c16"),
                    ("S", "S"),
                    ("U", "U"),
                    ("M8", "M8"),
                    ("m8", "m8"),
                    ("M8[25s]-like multiple", "M8[2"),
                    ("generic datetime", "8"),
                ] {
                    let m = if k == "generic datetime" {
                        (code.ends_with("M8") || code.ends_with("m8"))
                            && !matches!(d, Dtype::Record(_))
                    } else {
                        code[1..].starts_with(pat) && !matches!(d, Dtype::Record(_))
                    };
                    hit(k, m);
                }
                hit("V (not record)", matches!(d, Dtype::Void(_)));
                hit("big-endian", d.endian() == Some(Endian::Big));
                if let Dtype::Record(r) = d {
                    hit("record", true);
                    hit("nested record", *depth > 0);
                    hit(
                        "record field of record",
                        r.fields.iter().any(|f| matches!(f.dtype, Dtype::Record(_))),
                    );
                    let mut end = 0;
                    let mut gap = false;
                    for f in &r.fields {
                        gap |= f.offset > end;
                        end = f.offset + f.size();
                    }
                    hit("padding gap", gap);
                    hit("trailing padding", r.itemsize > end);
                    hit("title", r.fields.iter().any(|f| f.title.is_some()));
                    hit(
                        "subarray field",
                        r.fields.iter().any(|f| !f.shape.is_empty()),
                    );
                    hit("zero-size record", r.itemsize == 0);
                    hit(
                        "non-ASCII field name",
                        r.fields
                            .iter()
                            .any(|f| !f.name.as_str().is_some_and(|n| n.is_ascii())),
                    );
                }
            }
            hit("0-d", a.shape().is_empty());
            hit("zero-length axis", a.shape().contains(&0));
            hit(
                "zero-length axis then non-zero",
                a.shape().len() >= 2 && a.shape()[0] == 0 && a.shape()[1] > 0,
            );
            hit("4 dims", a.shape().len() == 4);
            hit("fortran", a.fortran_order());
            hit(
                "fortran 2+ dims with elements",
                a.fortran_order() && a.shape().len() >= 2 && a.len() > 1,
            );
            let (_, b) = bits(a.data());
            match a.data() {
                ArrayData::F64(v) => {
                    hit(
                        "f8 NaN with payload",
                        v.iter().any(|x| {
                            x.is_nan()
                                && x.to_bits() & 0x7_ffff_ffff_ffff
                                    != 0x8_0000_0000_0000 & 0x7_ffff_ffff_ffff
                                && x.to_bits() != 0x7ff8_0000_0000_0000
                        }),
                    );
                    hit(
                        "f8 signalling NaN",
                        v.iter().any(|x| x.is_nan() && x.to_bits() & (1 << 51) == 0),
                    );
                    hit("f8 -0.0", b.contains(&0x8000_0000_0000_0000));
                    hit("f8 subnormal", v.iter().any(|x| x.is_subnormal()));
                    hit("f8 -inf", v.contains(&f64::NEG_INFINITY));
                }
                ArrayData::I64(v) => {
                    hit("i8 min", v.contains(&i64::MIN));
                    hit("i8 2^53+1", v.contains(&((1 << 53) + 1)));
                }
                ArrayData::Unicode(v) => {
                    hit("U beyond BMP", v.iter().any(|&c| c > 0xffff));
                    hit(
                        "U interior NUL",
                        v.windows(2).any(|w| w[0] == 0 && w[1] != 0),
                    );
                }
                _ => {}
            }
        }
        let headers = (header_spec(), style(), version());
        for _ in 0..600 {
            let (spec, style, version) = headers.new_tree(&mut runner).unwrap().current();
            let r = render(&spec, &style, version).unwrap();
            hit("extra keys", !spec.extra.is_empty());
            hit(
                "extra value nested 3+",
                spec.extra.iter().any(|(_, v)| literal_depth(v) >= 3),
            );
            hit(
                "extra big int",
                spec.extra.iter().any(|(_, v)| has_big_int(v)),
            );
            hit(
                "huge dim",
                spec.shape.iter().any(|&d| d > u32::MAX as usize),
            );
            hit("30+ dims", spec.shape.len() >= 30);
            hit("L suffix written", r.long_suffix);
            hit(
                "non-latin-1 in a 1.0/2.0 header",
                version != Version::V3_0 && r.text_str().contains("\\u"),
            );
            hit(
                "raw non-ASCII in a 3.0 header",
                version == Version::V3_0 && r.text.iter().any(|&b| b >= 0x80),
            );
            hit(
                "mixed whitespace incl. \\x0c",
                r.text_str()
                    .split('}')
                    .next()
                    .unwrap_or("")
                    .contains('\x0c'),
            );
            hit("double-quoted key", r.text_str().contains("\"descr\""));
            hit(
                "key order not sorted",
                r.keys.windows(2).any(|w| w[0] > w[1]),
            );
            hit("no final newline", !r.text.ends_with(b"\n"));
            hit(
                "16-aligned only",
                r.head().len() % 64 != 0 && r.head().len() % 16 == 0,
            );
            hit(
                "=-prefixed typestr",
                r.text_str().contains("'=") || r.text_str().contains("\"="),
            );
        }
        for (k, n) in &seen {
            println!("{n:6}  {k}");
        }
        let missing: Vec<_> = seen
            .iter()
            .filter(|(_, &n)| n == 0)
            .map(|(k, _)| *k)
            .collect();
        assert!(missing.is_empty(), "generators never reach: {missing:?}");
    });
}

/// A header too long for 1.0's u16 length is 2.0 (latin-1) or 3.0 (not latin-1), and
/// the canonical render agrees byte for byte with the writer in every version it fits.
#[test]
fn long_headers_choose_versions_as_numpy() {
    let wide = |last: &str| {
        let mut fields: Vec<Field> = (0..4000)
            .map(|i| Field {
                name: format!("f{i:04}").into(),
                title: None,
                dtype: Dtype::U8,
                shape: vec![],
                nesting: Vec::new(),
                offset: i,
            })
            .collect();
        fields[3999].name = last.into();
        Dtype::Record(Record {
            fields,
            itemsize: 4000,
        })
    };
    for (last, want) in [
        ("f3999", Version::V2_0),
        ("é", Version::V2_0),
        ("日", Version::V3_0),
    ] {
        let header = Header::new(wide(last), vec![3], false).unwrap();
        assert_eq!(choose_version(&header), want, "{last}");
        let spec = spec_of(&header);
        let r = render(&spec, &Style::numpy(), want).unwrap();
        assert!(r.text.len() > usize::from(u16::MAX));
        assert_eq!(header_bytes(&header), r.head(), "{last}");
        assert!(header_bytes_with_version(&header, Version::V1_0).is_err());
        assert!(render(&spec, &Style::numpy(), Version::V1_0).is_err());
        let back = Header::parse(r.preamble(), &r.text, &ReadOptions::default()).unwrap();
        assert_eq!(back.dtype(), header.dtype());
    }
    // A short header with a non-latin-1 name is 3.0; with a latin-1 one, 1.0 (raw 0xE9).
    let named = |name: &str| {
        Header::new(
            Dtype::Record(Record {
                fields: vec![Field {
                    name: name.into(),
                    title: None,
                    dtype: Dtype::F64(Endian::Little),
                    shape: vec![],
                    nesting: Vec::new(),
                    offset: 0,
                }],
                itemsize: 8,
            }),
            vec![],
            false,
        )
        .unwrap()
    };
    assert_eq!(choose_version(&named("日")), Version::V3_0);
    assert_eq!(choose_version(&named("é")), Version::V1_0);
    assert!(header_bytes(&named("é")).contains(&0xe9));
}

// ------------------------------------------------- hand-built dtypes --

/// Dtypes built by hand, valid or not: zero and oversized item sizes, multiples
/// of 0 and past NumPy's 2^31-1, generic units with multiples, records with
/// unnamed, duplicate, overlapping or out-of-order fields and any item size.
fn hand_built_dtype() -> BoxedStrategy<Dtype> {
    let size = prop_oneof![
        3 => 0usize..=4,
        1 => prop::sample::select(vec![(1 << 29) - 1, 1 << 29, (1 << 31) - 1, 1 << 31, usize::MAX / 4]),
    ];
    let unit = (
        0..=UNITS.len(),
        prop::sample::select(vec![0u32, 1, 5, (1 << 31) - 1, 1 << 31, u32::MAX]),
    )
        .prop_map(|(u, multiple)| DateUnit {
            unit: UNITS.get(u).copied().unwrap_or(TimeUnit::Generic),
            multiple,
        });
    let scalar = prop_oneof![
        scalar_dtype(),
        size.clone().prop_map(Dtype::Bytes),
        size.clone().prop_map(Dtype::Void),
        (size, endian()).prop_map(|(n, e)| Dtype::Unicode(n, e)),
        (unit.clone(), endian()).prop_map(|(u, e)| Dtype::DateTime(u, e)),
        (unit, endian()).prop_map(|(u, e)| Dtype::TimeDelta(u, e)),
    ];
    let name = prop::sample::select(vec!["", "a", "b", "t"]);
    let field = (
        name.clone(),
        prop::option::weighted(0.2, name),
        scalar.clone(),
        prop::collection::vec(0usize..=2, 0..=1),
        0usize..=12,
    )
        .prop_map(|(name, title, dtype, shape, offset)| Field {
            name: name.into(),
            title: title.map(npyguard::Title::from),
            dtype,
            shape,
            nesting: Vec::new(),
            offset,
        });
    let record = (prop::collection::vec(field, 0..=3), 0usize..=24)
        .prop_map(|(fields, itemsize)| Dtype::Record(Record { fields, itemsize }));
    prop_oneof![2 => scalar, 3 => record].boxed()
}

/// Whatever dtype a caller builds by hand, `Header::new` either refuses it or the
/// writer's file reads back as the same dtype and bytes: the writer never writes a
/// header the reader refuses or misreads.
#[test]
fn hand_built_dtypes_round_trip_or_are_refused() {
    run_property(
        "hand_built_dtypes_round_trip_or_are_refused",
        || (hand_built_dtype(), prop::collection::vec(0usize..=3, 0..=2)),
        |(dtype, shape)| {
            // Keep the payload small whatever the item size.
            let shape = if dtype.itemsize() > 256 {
                vec![0]
            } else {
                shape
            };
            let Ok(header) = Header::new(dtype.clone(), shape.clone(), false) else {
                return Ok(());
            };
            let mut file = header_bytes(&header);
            file.resize(file.len() + header.payload_len(), 0);
            let back = read_bytes(&file, &ReadOptions::default()).map_err(|e| {
                TestCaseError::fail(format!(
                    "Header::new accepts {dtype:?}, the writer writes it, the reader refuses it: {e}"
                ))
            })?;
            check(back.dtype() == &dtype, || {
                format!("{dtype:?} is written, then read back as {:?}", back.dtype())
            })?;
            check(ok(to_vec(&back), "to_vec")? == file, || {
                format!("{dtype:?}: rewriting the read-back array gives other bytes")
            })
        },
    );
}

/// The cases `hand_built_dtypes_round_trip_or_are_refused` found before
/// `Header::new` checked that a dtype reads back from its descr.
#[test]
fn header_new_refuses_dtypes_the_reader_refuses() {
    let field = |name: &str, dtype: Dtype, offset: usize| Field {
        name: name.into(),
        title: None,
        dtype,
        shape: vec![],
        nesting: Vec::new(),
        offset,
    };
    let dt = |unit, multiple| Dtype::DateTime(DateUnit { unit, multiple }, Endian::Little);
    for dtype in [
        dt(TimeUnit::Year, 1 << 31),
        dt(TimeUnit::Second, 0),
        dt(TimeUnit::Generic, 5),
        Dtype::Bytes(1 << 31),
        Dtype::Unicode(1 << 29, Endian::Little),
        Dtype::Record(Record {
            fields: vec![
                field("a", Dtype::I32(Endian::Little), 0),
                field("b", Dtype::U8, 1),
            ],
            itemsize: 4,
        }),
        Dtype::Record(Record {
            fields: vec![field("a", Dtype::I32(Endian::Little), 0)],
            itemsize: 2,
        }),
        // Named '' with a V type: NumPy's reader takes the item for padding.
        Dtype::Record(Record {
            fields: vec![field("", Dtype::Void(1), 0)],
            itemsize: 1,
        }),
        Dtype::Record(Record {
            fields: vec![field("a", Dtype::U8, 0), field("a", Dtype::U8, 1)],
            itemsize: 2,
        }),
    ] {
        assert!(
            Header::new(dtype.clone(), vec![0], false).is_err(),
            "Header::new accepts {dtype:?}"
        );
    }
    assert!(Header::new(dt(TimeUnit::Year, (1 << 31) - 1), vec![1], false).is_ok());
    // What np.save writes (issue 32): `|S0`, a field named '' of another type.
    assert!(Header::new(Dtype::Bytes(0), vec![1], false).is_ok());
    let named_empty = Dtype::Record(Record {
        fields: vec![field("", Dtype::U8, 0)],
        itemsize: 1,
    });
    assert!(Header::new(named_empty, vec![1], false).is_ok());
}
