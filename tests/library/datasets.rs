//! Datasets (features `arrow`, `parquet`, `ndarray`): Arrow columns, row lists, sparse
//! non-zeros and CSR of NumPy arrays, checked against the NumPy fixtures' manifest and
//! against a dense reference on random sparse arrays.
//!
//! Run with `cargo test --features cli-datasets --test datasets` (or `--features datasets`).
//! The timing of the 20 000 x 2 000 case is an ignored test:
//! `cargo test --release --features arrow --test datasets -- --ignored --nocapture`.
#![cfg(feature = "arrow")]

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array as _, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Fields, TimeUnit};
use npyguard::arrow::{self, Dataset, Layout};
use npyguard::{
    layout, read_path, Array, ArrayData, Dtype, Endian, ErrorKind, Header, ReadOptions,
};
use proptest::prelude::*;
use proptest::test_runner::{
    Config as ProptestConfig, FileFailurePersistence, TestCaseError, TestRunner,
};
use serde_json::Value;

const REGRESSIONS: &str = "proptest-regressions/datasets.txt";

// ------------------------------------------------------------ canonical values --

/// One element, comparable across NumPy's manifest and Arrow (floats by bit pattern).
#[derive(Debug, Clone, PartialEq)]
enum V {
    Int(i128),
    Bool(bool),
    /// IEEE bits and width (16, 32, 64).
    Float(u64, u32),
    Complex((u64, u32), (u64, u32)),
    Null,
    Bytes(Vec<u8>),
    Str(String),
}

impl V {
    /// NumPy's non-zero rule (the one `np.nonzero` applies).
    fn is_zero(&self) -> bool {
        let fz = |(bits, w): (u64, u32)| bits & !(1u64 << (w - 1)) == 0;
        match self {
            V::Int(i) => *i == 0,
            V::Bool(b) => !*b,
            V::Float(b, w) => fz((*b, *w)),
            V::Complex(re, im) => fz(*re) && fz(*im),
            V::Null => false,
            V::Bytes(_) | V::Str(_) => panic!("strings have no zero here"),
        }
    }
}

/// The elements of an Arrow array as [`V`]s (nulls as [`V::Null`]).
fn values(a: &dyn arrow_array::Array) -> Vec<V> {
    macro_rules! prim {
        ($t:ty, $f:expr) => {{
            let p = a.as_primitive::<$t>();
            (0..p.len())
                .map(|i| {
                    if p.is_null(i) {
                        V::Null
                    } else {
                        $f(p.value(i))
                    }
                })
                .collect()
        }};
    }
    let int = |x: i128| V::Int(x);
    match a.data_type() {
        DataType::Boolean => {
            let b = a.as_boolean();
            (0..b.len()).map(|i| V::Bool(b.value(i))).collect()
        }
        DataType::Int8 => prim!(Int8Type, |x: i8| int(x.into())),
        DataType::Int16 => prim!(Int16Type, |x: i16| int(x.into())),
        DataType::Int32 => prim!(Int32Type, |x: i32| int(x.into())),
        DataType::Int64 => prim!(Int64Type, |x: i64| int(x.into())),
        DataType::UInt8 => prim!(UInt8Type, |x: u8| int(x.into())),
        DataType::UInt16 => prim!(UInt16Type, |x: u16| int(x.into())),
        DataType::UInt32 => prim!(UInt32Type, |x: u32| int(x.into())),
        DataType::UInt64 => prim!(UInt64Type, |x: u64| int(x.into())),
        DataType::Float16 => prim!(Float16Type, |x: half::f16| V::Float(x.to_bits().into(), 16)),
        DataType::Float32 => prim!(Float32Type, |x: f32| V::Float(x.to_bits().into(), 32)),
        DataType::Float64 => prim!(Float64Type, |x: f64| V::Float(x.to_bits(), 64)),
        DataType::Timestamp(TimeUnit::Second, None) => {
            prim!(TimestampSecondType, |x: i64| int(x.into()))
        }
        DataType::Timestamp(TimeUnit::Nanosecond, None) => {
            prim!(TimestampNanosecondType, |x: i64| int(x.into()))
        }
        DataType::Duration(TimeUnit::Second) => prim!(DurationSecondType, |x: i64| int(x.into())),
        DataType::Duration(TimeUnit::Microsecond) => {
            prim!(DurationMicrosecondType, |x: i64| int(x.into()))
        }
        DataType::Struct(_) => {
            let s = a.as_struct();
            let re = values(s.column(0).as_ref());
            let im = values(s.column(1).as_ref());
            re.into_iter()
                .zip(im)
                .map(|(r, i)| match (r, i) {
                    (V::Float(a, w), V::Float(b, v)) => V::Complex((a, w), (b, v)),
                    other => panic!("complex parts {other:?}"),
                })
                .collect()
        }
        DataType::Binary => a
            .as_binary::<i32>()
            .iter()
            .map(|b| V::Bytes(b.expect("no null").to_vec()))
            .collect(),
        DataType::Utf8 => a
            .as_string::<i32>()
            .iter()
            .map(|s| V::Str(s.expect("no null").to_string()))
            .collect(),
        DataType::FixedSizeBinary(_) => a
            .as_fixed_size_binary()
            .iter()
            .map(|b| V::Bytes(b.expect("no null").to_vec()))
            .collect(),
        other => panic!("unexpected type {other}"),
    }
}

// ------------------------------------------------------------------ fixtures --

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn manifest() -> Vec<Value> {
    let text = std::fs::read_to_string(fixtures_dir().join("manifest.json")).expect("manifest");
    serde_json::from_str(&text).expect("manifest json")
}

fn flatten<'a>(v: &'a Value, out: &mut Vec<&'a Value>, depth: usize) {
    match v {
        Value::Array(items) if depth > 0 => items.iter().for_each(|i| flatten(i, out, depth - 1)),
        other => out.push(other),
    }
}

fn leaves(v: &Value, ndim: usize) -> Vec<&Value> {
    let mut out = Vec::new();
    flatten(v, &mut out, ndim);
    out
}

fn hex(v: &Value) -> u64 {
    u64::from_str_radix(v.as_str().expect("hex"), 16).expect("hex digits")
}

/// Scalar tags (no records) and the Arrow type each becomes.
fn expected_type(tag: &str) -> Option<DataType> {
    let base = tag.trim_start_matches("lt_").trim_start_matches("be_");
    let cx = |t: DataType| {
        DataType::Struct(Fields::from(vec![
            Field::new("re", t.clone(), false),
            Field::new("im", t, false),
        ]))
    };
    Some(match base {
        "b1" => DataType::Boolean,
        "i1" => DataType::Int8,
        "u1" => DataType::UInt8,
        "i2" => DataType::Int16,
        "i4" => DataType::Int32,
        "i8" => DataType::Int64,
        "u2" => DataType::UInt16,
        "u4" => DataType::UInt32,
        "u8" => DataType::UInt64,
        "f2" => DataType::Float16,
        "f4" => DataType::Float32,
        "f8" => DataType::Float64,
        "c8" => cx(DataType::Float32),
        "c16" => cx(DataType::Float64),
        "M8_ns" => DataType::Timestamp(TimeUnit::Nanosecond, None),
        "M8_D" | "M8_25s" => DataType::Int64,
        "m8_s" => DataType::Duration(TimeUnit::Second),
        "m8_us" => DataType::Duration(TimeUnit::Microsecond),
        "S5" => DataType::Binary,
        "U3" => DataType::Utf8,
        "V4" => DataType::FixedSizeBinary(4),
        _ => return None,
    })
}

/// The manifest's elements in logical (C) order as [`V`]s.
fn expected_values(entry: &Value) -> Vec<V> {
    let tag = entry["tag"].as_str().expect("tag");
    let ndim = entry["shape"].as_array().expect("shape").len();
    let base = tag.trim_start_matches("lt_").trim_start_matches("be_");
    let data = leaves(&entry["data"], ndim);
    let width = match base {
        "f2" => 16,
        "f4" | "c8" => 32,
        _ => 64,
    };
    if let Some(bits) = entry.get("element_bits") {
        let bits = leaves(bits, ndim);
        return bits
            .into_iter()
            .map(|b| match b {
                Value::Array(p) => V::Complex((hex(&p[0]), width), (hex(&p[1]), width)),
                one => V::Float(hex(one), width),
            })
            .collect();
    }
    data.into_iter()
        .map(|v| match (base, v) {
            ("S5", Value::String(s)) => V::Bytes(
                s.chars()
                    .map(|c| u8::try_from(u32::from(c)).expect("latin-1"))
                    .collect(),
            ),
            ("U3", Value::String(s)) => V::Str(s.clone()),
            ("V4", Value::Array(b)) => {
                V::Bytes(b.iter().map(|x| x.as_u64().expect("byte") as u8).collect())
            }
            (_, Value::String(s)) if s == "NaT" => V::Null,
            (_, Value::Bool(b)) => V::Bool(*b),
            (_, Value::Number(n)) => V::Int(
                n.as_i64()
                    .map(i128::from)
                    .or_else(|| n.as_u64().map(i128::from))
                    .expect("int"),
            ),
            (_, other) => panic!("{tag}: unexpected value {other}"),
        })
        .collect()
}

/// Dense reference: logical (C-order) values and (rows, cols) of a 0/1/2-D shape.
fn rows_cols(shape: &[usize]) -> (usize, usize) {
    match shape {
        [] => (1, 1),
        [n] => (*n, 1),
        [r, c] => (*r, *c),
        _ => panic!("not a table"),
    }
}

/// Expected non-zeros (row, col, value), row-major.
fn reference_nonzeros(dense: &[V], cols: usize) -> Vec<(i64, i64, V)> {
    dense
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.is_zero())
        .map(|(i, v)| ((i / cols) as i64, (i % cols) as i64, v.clone()))
        .collect()
}

fn batch_nonzeros(b: &RecordBatch) -> Vec<(i64, i64, V)> {
    let rows = values(b.column(0).as_ref());
    let cols = values(b.column(1).as_ref());
    let vals = values(b.column(2).as_ref());
    rows.into_iter()
        .zip(cols)
        .zip(vals)
        .map(|((r, c), v)| match (r, c) {
            (V::Int(r), V::Int(c)) => (r as i64, c as i64, v),
            other => panic!("indices {other:?}"),
        })
        .collect()
}

fn csr_nonzeros(m: &arrow::Csr) -> Vec<(i64, i64, V)> {
    let ptr = m.indptr.values();
    let vals = values(m.data.as_ref());
    assert_eq!(ptr.len(), m.shape[0] + 1, "indptr has rows + 1 entries");
    assert_eq!(ptr[0], 0);
    assert_eq!(*ptr.last().unwrap() as usize, vals.len());
    let mut out = Vec::new();
    for r in 0..m.shape[0] {
        for k in ptr[r] as usize..ptr[r + 1] as usize {
            out.push((r as i64, i64::from(m.indices.value(k)), vals[k].clone()));
        }
    }
    out
}

fn is_table_fixture(entry: &Value) -> bool {
    let file = entry["file"].as_str().unwrap_or_default();
    file.ends_with("__C__2x3.npy") || file.ends_with("__F__2x3.npy") || file.ends_with("__C__7.npy")
}

#[test]
fn fixtures_keep_types_and_values_in_every_layout() {
    let mut checked = 0;
    let mut tags = std::collections::BTreeSet::new();
    for entry in manifest() {
        if !is_table_fixture(&entry) {
            continue;
        }
        let tag = entry["tag"].as_str().unwrap();
        let Some(want_type) = expected_type(tag) else {
            continue;
        };
        let file = entry["file"].as_str().unwrap();
        let array = read_path(fixtures_dir().join(file), &ReadOptions::default()).unwrap();
        let shape = array.shape().to_vec();
        let (rows, cols) = rows_cols(&shape);
        let dense = expected_values(&entry);
        assert_eq!(dense.len(), rows * cols, "{file}");

        // Columns: c1..cN, type preserved, values in logical order.
        let b = arrow::columns(array.clone()).unwrap();
        assert_eq!(b.num_rows(), rows, "{file}");
        assert_eq!(b.num_columns(), cols, "{file}");
        for (j, (f, col)) in b.schema().fields().iter().zip(b.columns()).enumerate() {
            assert_eq!(f.name(), &format!("c{}", j + 1), "{file}");
            assert_eq!(f.data_type(), &want_type, "{file}");
            let want: Vec<V> = (0..rows).map(|r| dense[r * cols + j].clone()).collect();
            assert_eq!(values(col.as_ref()), want, "{file} column {j}");
        }
        let meta = b.schema().metadata().clone();
        assert_eq!(meta["numpy.dtype"], array.dtype().typestr(), "{file}");
        if want_type == DataType::Int64 && tag.contains("M8") {
            assert_eq!(
                b.schema().field(0).metadata()["numpy.dtype"],
                array.dtype().typestr()
            );
        }

        // Row lists (2-D): each row's values.
        if shape.len() == 2 {
            let b = arrow::row_lists(array.clone()).unwrap();
            let lists = b.column(0).as_fixed_size_list();
            assert_eq!(lists.len(), rows);
            assert_eq!(lists.value_type(), want_type);
            for r in 0..rows {
                assert_eq!(
                    values(lists.value(r).as_ref()),
                    dense[r * cols..(r + 1) * cols],
                    "{file} row {r}"
                );
            }
        } else {
            assert_eq!(
                arrow::row_lists(array.clone()).unwrap_err().kind(),
                ErrorKind::InvalidInput
            );
        }

        // Non-zeros and CSR against the dense reference.
        if matches!(
            want_type,
            DataType::Binary | DataType::Utf8 | DataType::FixedSizeBinary(_)
        ) {
            assert_eq!(
                arrow::nonzeros(&array).unwrap_err().kind(),
                ErrorKind::UnsupportedDtype
            );
        } else {
            let want = reference_nonzeros(&dense, cols);
            let nz = arrow::nonzeros(&array).unwrap();
            assert_eq!(nz.schema().field(1).data_type(), &DataType::Int16);
            assert_eq!(nz.schema().field(2).data_type(), &want_type);
            assert_eq!(batch_nonzeros(&nz), want, "{file} nonzeros");
            if shape.len() == 2 {
                assert_eq!(
                    csr_nonzeros(&arrow::csr(&array).unwrap()),
                    want,
                    "{file} csr"
                );
            }
        }
        tags.insert(tag.to_string());
        checked += 1;
    }
    // Every numeric dtype in both byte orders, C and F, plus strings, bool, complex, times.
    for t in [
        "b1", "i1", "u1", "lt_i2", "be_i2", "lt_i4", "be_i4", "lt_i8", "be_i8", "lt_u2", "be_u2",
        "lt_u4", "be_u4", "lt_u8", "be_u8", "lt_f2", "be_f2", "lt_f4", "be_f4", "lt_f8", "be_f8",
        "lt_c8", "be_c16", "lt_M8_ns", "be_M8_D", "lt_m8_us", "S5", "lt_U3", "V4",
    ] {
        assert!(tags.contains(t), "fixture {t} checked");
    }
    assert!(checked >= 39 * 3, "{checked} fixtures checked");
}

#[test]
fn fortran_and_c_fixtures_give_equal_tables() {
    for entry in manifest() {
        let file = entry["file"].as_str().unwrap();
        if !file.ends_with("__F__2x3.npy")
            || expected_type(entry["tag"].as_str().unwrap()).is_none()
        {
            continue;
        }
        let f = read_path(fixtures_dir().join(file), &ReadOptions::default()).unwrap();
        assert!(f.fortran_order());
        let c = f.to_c_order();
        for layout in [Layout::Columns, Layout::RowLists] {
            let a = Dataset::new(f.clone(), layout)
                .unwrap()
                .to_record_batch()
                .unwrap();
            let b = Dataset::new(c.clone(), layout)
                .unwrap()
                .to_record_batch()
                .unwrap();
            assert_eq!(a.columns(), b.columns(), "{file} {layout:?}");
        }
    }
}

#[test]
fn datetimes_map_to_timestamps_and_nat_to_null() {
    let a = read_path(
        fixtures_dir().join("npy/lt_M8_ns__C__2x3.npy"),
        &ReadOptions::default(),
    )
    .unwrap();
    let b = arrow::columns(a).unwrap();
    let c2 = b.column(1).as_primitive::<TimestampNanosecondType>();
    assert!(c2.is_null(0), "NaT is null");
    assert!(b.schema().field(1).is_nullable());
    assert_eq!(c2.value(1), 1_700_000_000_123_456_789);
}

// ---------------------------------------------------------- random sparse arrays --

/// What an element of a generated array is.
#[derive(Debug, Clone, Copy)]
enum Cell {
    Zero,
    NegZero,
    NaN,
    Value(i32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    F32,
    F64,
    F16,
    I16,
    U8,
    Bool,
    C64,
}

/// An array of `kind` from logical (C-order) cells, stored in C or F order, and its
/// reference values.
fn build(kind: Kind, shape: &[usize], cells: &[Cell], fortran: bool) -> (Array, Vec<V>) {
    let to_f64 = |c: Cell| match c {
        Cell::Zero => 0.0,
        Cell::NegZero => -0.0,
        Cell::NaN => f64::NAN,
        Cell::Value(v) => f64::from(v) / 4.0,
    };
    let to_int = |c: Cell| match c {
        Cell::Value(v) => v,
        _ => 0,
    };
    fn reorder<T: Copy + Default + Send + Sync>(
        v: Vec<T>,
        shape: &[usize],
        fortran: bool,
    ) -> Vec<T> {
        if fortran && shape.len() == 2 {
            layout::c_to_fortran(&v, shape)
        } else {
            v
        }
    }
    macro_rules! order {
        ($v:expr) => {
            reorder($v, shape, fortran)
        };
    }
    let (dtype, data, reference): (Dtype, ArrayData, Vec<V>) = match kind {
        Kind::F32 => {
            let v: Vec<f32> = cells.iter().map(|&c| to_f64(c) as f32).collect();
            let r = v.iter().map(|x| V::Float(x.to_bits().into(), 32)).collect();
            (
                Dtype::F32(Endian::Little),
                ArrayData::F32(order!(v).into()),
                r,
            )
        }
        Kind::F64 => {
            let v: Vec<f64> = cells.iter().map(|&c| to_f64(c)).collect();
            let r = v.iter().map(|x| V::Float(x.to_bits(), 64)).collect();
            (Dtype::F64(Endian::Big), ArrayData::F64(order!(v).into()), r)
        }
        Kind::F16 => {
            let v: Vec<u16> = cells
                .iter()
                .map(|&c| half::f16::from_f64(to_f64(c)).to_bits())
                .collect();
            let r = v.iter().map(|&x| V::Float(x.into(), 16)).collect();
            (
                Dtype::F16(Endian::Little),
                ArrayData::F16(order!(v).into()),
                r,
            )
        }
        Kind::I16 => {
            let v: Vec<i16> = cells.iter().map(|&c| to_int(c) as i16).collect();
            let r = v.iter().map(|&x| V::Int(x.into())).collect();
            (Dtype::I16(Endian::Big), ArrayData::I16(order!(v).into()), r)
        }
        Kind::U8 => {
            let v: Vec<u8> = cells.iter().map(|&c| to_int(c) as u8).collect();
            let r = v.iter().map(|&x| V::Int(x.into())).collect();
            (Dtype::U8, ArrayData::U8(order!(v).into()), r)
        }
        Kind::Bool => {
            let v: Vec<bool> = cells.iter().map(|&c| to_int(c) != 0).collect();
            let r = v.iter().map(|&x| V::Bool(x)).collect();
            let bytes: Vec<u8> = v.iter().map(|&b| u8::from(b)).collect();
            (Dtype::Bool, ArrayData::Bool(order!(bytes).into()), r)
        }
        Kind::C64 => {
            // Real part from the cell, imaginary part zero (or -0.0 / value for variety).
            let v: Vec<[f32; 2]> = cells
                .iter()
                .enumerate()
                .map(|(i, &c)| {
                    let x = to_f64(c) as f32;
                    if i % 3 == 0 {
                        [0.0, x]
                    } else {
                        [x, -0.0]
                    }
                })
                .collect();
            let r = v
                .iter()
                .map(|[a, b]| V::Complex((a.to_bits().into(), 32), (b.to_bits().into(), 32)))
                .collect();
            (
                Dtype::C64(Endian::Little),
                ArrayData::C64(order!(v).into()),
                r,
            )
        }
    };
    let header = Header::new(dtype, shape.to_vec(), fortran && shape.len() == 2).unwrap();
    (Array::new(header, data).unwrap(), reference)
}

fn cell() -> impl Strategy<Value = Cell> {
    prop_oneof![
        6 => Just(Cell::Zero),
        1 => Just(Cell::NegZero),
        1 => Just(Cell::NaN),
        3 => (-300i32..300).prop_map(Cell::Value),
    ]
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::F32),
        Just(Kind::F64),
        Just(Kind::F16),
        Just(Kind::I16),
        Just(Kind::U8),
        Just(Kind::Bool),
        Just(Kind::C64),
    ]
}

/// (kind, shape, cells, fortran, rows per batch): 0-, 1- and 2-D arrays, empty ones included.
fn case() -> impl Strategy<Value = (Kind, Vec<usize>, Vec<Cell>, bool, usize)> {
    let shape = prop_oneof![
        1 => Just(vec![]),
        2 => (0usize..40).prop_map(|n| vec![n]),
        6 => (0usize..25, 0usize..25).prop_map(|(r, c)| vec![r, c]),
    ];
    (kind(), shape, any::<bool>(), 1usize..9).prop_flat_map(|(k, shape, fortran, step)| {
        let n: usize = shape.iter().product();
        (
            Just(k),
            Just(shape),
            proptest::collection::vec(cell(), n),
            Just(fortran),
            Just(step),
        )
    })
}

fn check(cond: bool, msg: impl FnOnce() -> String) -> Result<(), TestCaseError> {
    if cond {
        Ok(())
    } else {
        Err(TestCaseError::fail(msg()))
    }
}

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(REGRESSIONS))),
        ..ProptestConfig::default()
    }
}

fn sparse_property(
    (kind, shape, cells, fortran, step): (Kind, Vec<usize>, Vec<Cell>, bool, usize),
) -> Result<(), TestCaseError> {
    let (array, dense) = build(kind, &shape, &cells, fortran);
    let (rows, cols) = rows_cols(&shape);
    let want = reference_nonzeros(&dense, cols);
    let ctx = || format!("{kind:?} {shape:?} fortran={fortran} step={step}");

    // Whole-array non-zeros.
    let nz = arrow::nonzeros(&array).map_err(|e| TestCaseError::fail(e.to_string()))?;
    check(batch_nonzeros(&nz) == want, || {
        format!("nonzeros differ: {}", ctx())
    })?;

    // Batched non-zeros concatenate to the same triples.
    let ds = Dataset::new(array.clone(), Layout::NonZeros).unwrap();
    let mut got = Vec::new();
    for b in ds.batches(step) {
        got.extend(batch_nonzeros(&b.unwrap()));
    }
    check(got == want, || {
        format!("batched nonzeros differ: {}", ctx())
    })?;

    // CSR of 2-D arrays.
    if shape.len() == 2 {
        let m = arrow::csr(&array).unwrap();
        check(csr_nonzeros(&m) == want, || {
            format!("csr differs: {}", ctx())
        })?;
    }

    // Columns, batched.
    let ds = Dataset::new(array.clone(), Layout::Columns).unwrap();
    let mut columns = vec![Vec::new(); cols];
    let mut n = 0;
    for b in ds.batches(step) {
        let b = b.unwrap();
        n += b.num_rows();
        for (j, c) in b.columns().iter().enumerate() {
            columns[j].extend(values(c.as_ref()));
        }
    }
    check(n == rows, || {
        format!("column rows {n} != {rows}: {}", ctx())
    })?;
    for (j, got) in columns.iter().enumerate() {
        let want: Vec<V> = (0..rows).map(|r| dense[r * cols + j].clone()).collect();
        check(*got == want, || format!("column {j} differs: {}", ctx()))?;
    }

    // Row lists, batched (2-D with columns).
    if shape.len() == 2 && cols > 0 {
        let ds = Dataset::new(array, Layout::RowLists).unwrap();
        let mut got = Vec::new();
        for b in ds.batches(step) {
            let b = b.unwrap();
            let l = b.column(0).as_fixed_size_list();
            for r in 0..l.len() {
                got.extend(values(l.value(r).as_ref()));
            }
        }
        check(got == dense, || format!("row lists differ: {}", ctx()))?;
    }
    Ok(())
}

#[test]
fn random_sparse_arrays_match_the_dense_reference() {
    let mut runner = TestRunner::new(config());
    if let Err(e) = runner.run(&case(), sparse_property) {
        panic!("{e}\n{runner}");
    }
}

#[test]
fn nan_negative_zero_and_all_zero_rows() {
    // Row 0 all zeros (+0 and -0), row 1 NaN and a value, row 2 all zero, row 3 -0.0 then 1.
    let cells = [
        Cell::Zero,
        Cell::NegZero,
        Cell::Zero,
        Cell::NaN,
        Cell::Zero,
        Cell::Value(8),
        Cell::Zero,
        Cell::Zero,
        Cell::Zero,
        Cell::NegZero,
        Cell::Value(4),
        Cell::NegZero,
    ];
    for kind in [Kind::F32, Kind::F64, Kind::F16, Kind::C64] {
        for fortran in [false, true] {
            let (a, dense) = build(kind, &[4, 3], &cells, fortran);
            let nz = batch_nonzeros(&arrow::nonzeros(&a).unwrap());
            let pos: Vec<(i64, i64)> = nz.iter().map(|(r, c, _)| (*r, *c)).collect();
            if kind == Kind::C64 {
                // The C64 builder puts the cell in the imaginary part of every third element.
                assert_eq!(nz.len(), reference_nonzeros(&dense, 3).len());
            } else {
                assert_eq!(pos, [(1, 0), (1, 2), (3, 1)], "{kind:?} fortran={fortran}");
                assert!(
                    matches!(nz[0].2, V::Float(b, w) if b & !(1 << (w - 1)) != 0),
                    "NaN kept"
                );
            }
            let m = arrow::csr(&a).unwrap();
            assert_eq!(m.indptr.values().len(), 5);
            assert_eq!(csr_nonzeros(&m), nz);
        }
    }
}

#[test]
fn column_number_width_follows_the_column_count() {
    for (cols, want) in [
        (32_767usize, DataType::Int16),
        (32_768, DataType::Int32),
        (40_000, DataType::Int32),
    ] {
        let mut v = vec![0.0f32; 3 * cols];
        v[cols - 1] = 1.0; // (0, cols - 1)
        v[2 * cols] = f32::NAN; // (2, 0)
        v[3 * cols - 1] = -2.5; // (2, cols - 1)
        let a = Array::new(
            Header::new(Dtype::F32(Endian::Little), vec![3, cols], false).unwrap(),
            ArrayData::F32(v.into()),
        )
        .unwrap();
        let f = a.to_fortran_order();
        for a in [a, f] {
            let nz = arrow::nonzeros(&a).unwrap();
            assert_eq!(nz.schema().field(1).data_type(), &want, "{cols} columns");
            let got: Vec<(i64, i64)> = batch_nonzeros(&nz)
                .iter()
                .map(|(r, c, _)| (*r, *c))
                .collect();
            let last = cols as i64 - 1;
            assert_eq!(got, [(0, last), (2, 0), (2, last)]);
        }
    }
}

#[test]
fn long_arrays_cross_the_scan_blocks() {
    // More rows than one non-zero scan block (65 536), in both memory orders.
    let (rows, cols) = (140_003usize, 3usize);
    let cells: Vec<Cell> = (0..rows * cols)
        .map(|i| match (i * 7919) % 97 {
            0 => Cell::Value((i % 251) as i32 + 1),
            1 => Cell::NaN,
            2 => Cell::NegZero,
            _ => Cell::Zero,
        })
        .collect();
    for fortran in [false, true] {
        let (a, dense) = build(Kind::F32, &[rows, cols], &cells, fortran);
        let want = reference_nonzeros(&dense, cols);
        assert_eq!(
            batch_nonzeros(&arrow::nonzeros(&a).unwrap()),
            want,
            "fortran={fortran}"
        );
        assert_eq!(
            csr_nonzeros(&arrow::csr(&a).unwrap()),
            want,
            "fortran={fortran}"
        );
        let ds = Dataset::new(a, Layout::NonZeros).unwrap();
        let mut got = Vec::new();
        for b in ds.batches(100_000) {
            got.extend(batch_nonzeros(&b.unwrap()));
        }
        assert_eq!(got, want, "batched, fortran={fortran}");
    }
}

#[test]
fn layouts_refuse_what_they_cannot_represent() {
    let opts = ReadOptions::default();
    let three_d = read_path(fixtures_dir().join("npy/lt_f4__C__3x2x4.npy"), &opts).unwrap();
    assert_eq!(
        arrow::columns(three_d.clone()).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        arrow::nonzeros(&three_d).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    let one_d = read_path(fixtures_dir().join("npy/lt_f4__C__7.npy"), &opts).unwrap();
    assert_eq!(
        arrow::csr(&one_d).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    let rec = read_path(fixtures_dir().join("npy/rec_simple_le__C__7.npy"), &opts).unwrap();
    assert_eq!(
        arrow::columns(rec).unwrap_err().kind(),
        ErrorKind::UnsupportedDtype
    );
    let no_cols = read_path(fixtures_dir().join("npy/lt_f4__C__3x0.npy"), &opts).unwrap();
    assert_eq!(
        arrow::row_lists(no_cols.clone()).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    let b = arrow::columns(no_cols.clone()).unwrap();
    assert_eq!((b.num_rows(), b.num_columns()), (3, 0));
    assert_eq!(arrow::nonzeros(&no_cols).unwrap().num_rows(), 0);
    let scalar = read_path(fixtures_dir().join("npy/lt_f8__C__scalar.npy"), &opts).unwrap();
    assert_eq!(arrow::columns(scalar).unwrap().num_rows(), 1);
}

#[test]
fn zero_copy_where_the_layout_allows() {
    // C-order row lists: the list values are the array's own buffer.
    let v: Vec<i64> = (0..12).collect();
    let a = Array::new(
        Header::new(Dtype::I64(Endian::Little), vec![4, 3], false).unwrap(),
        ArrayData::I64(v.into()),
    )
    .unwrap();
    let ArrayData::I64(src) = a.data() else {
        unreachable!()
    };
    let src_ptr = src.as_ptr() as usize;
    let ds = Dataset::new(a, Layout::RowLists).unwrap();
    let b = ds.batch(1..3).unwrap();
    let l = b.column(0).as_fixed_size_list();
    let values: ArrayRef = Arc::clone(l.values());
    let p = values.as_primitive::<Int64Type>().values().inner().as_ptr() as usize;
    assert_eq!(p, src_ptr + 3 * 8, "rows 1.. of the original allocation");

    // Fortran-order columns: slices of the one buffer.
    let v: Vec<f64> = (0..12).map(f64::from).collect();
    let a = Array::new(
        Header::new(Dtype::F64(Endian::Big), vec![4, 3], true).unwrap(),
        ArrayData::F64(v.into()),
    )
    .unwrap();
    let ArrayData::F64(src) = a.data() else {
        unreachable!()
    };
    let src_ptr = src.as_ptr() as usize;
    let b = arrow::columns(a).unwrap();
    for j in 0..3 {
        let p = b
            .column(j)
            .as_primitive::<Float64Type>()
            .values()
            .inner()
            .as_ptr() as usize;
        assert_eq!(p, src_ptr + j * 4 * 8, "column {j}");
    }
}

#[test]
fn ipc_and_csv_writers() {
    let a = read_path(
        fixtures_dir().join("npy/lt_c8__F__2x3.npy"),
        &ReadOptions::default(),
    )
    .unwrap();
    let ds = Dataset::new(a, Layout::Columns).unwrap();
    let mut ipc = Vec::new();
    let stats = arrow::write_ipc(&ds, &mut ipc, 1, |_| {}).unwrap();
    assert_eq!((stats.input_rows, stats.rows, stats.batches), (2, 2, 2));
    let reader = arrow_ipc::reader::FileReader::try_new(std::io::Cursor::new(ipc), None).unwrap();
    let back: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    let whole = ds.to_record_batch().unwrap();
    for j in 0..3 {
        let got: Vec<V> = back
            .iter()
            .flat_map(|b| values(b.column(j).as_ref()))
            .collect();
        assert_eq!(got, values(whole.column(j).as_ref()));
    }
    let mut csv = Vec::new();
    arrow::write_csv(&ds, &mut csv, 0, |_| {}).unwrap();
    let text = String::from_utf8(csv).unwrap();
    assert!(
        text.starts_with("c1_re,c1_im,c2_re,c2_im,c3_re,c3_im\n"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 3);
}

#[cfg(feature = "parquet")]
#[test]
fn parquet_round_trip_keeps_types_and_values() {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let dir = std::env::temp_dir().join(format!("npyguard-datasets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (file, layout) in [
        ("npy/be_u8__F__2x3.npy", Layout::Columns),
        ("npy/lt_f2__C__2x3.npy", Layout::Columns),
        ("npy/be_i2__F__2x3.npy", Layout::RowLists),
        ("npy/lt_f4__F__2x3.npy", Layout::NonZeros),
        ("npy/lt_M8_ns__C__2x3.npy", Layout::Columns),
        ("npy/lt_U3__C__7.npy", Layout::Columns),
    ] {
        let a = read_path(fixtures_dir().join(file), &ReadOptions::default()).unwrap();
        let ds = Dataset::new(a, layout).unwrap();
        let path = dir.join("t.parquet");
        let out = std::fs::File::create(&path).unwrap();
        arrow::write_parquet(&ds, out, 1, &arrow::ParquetOptions::default(), |_| {}).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&path).unwrap())
            .unwrap()
            .build()
            .unwrap();
        let back: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
        let whole = ds.to_record_batch().unwrap();
        assert_eq!(back[0].schema().fields(), whole.schema().fields(), "{file}");
        for j in 0..whole.num_columns() {
            let got: Vec<ArrayRef> = back.iter().map(|b| Arc::clone(b.column(j))).collect();
            let got: Vec<V> = got
                .iter()
                .flat_map(|c| match c.data_type() {
                    DataType::FixedSizeList(..) => {
                        let l = c.as_fixed_size_list();
                        (0..l.len())
                            .flat_map(|r| values(l.value(r).as_ref()))
                            .collect::<Vec<_>>()
                    }
                    _ => values(c.as_ref()),
                })
                .collect();
            let want = match whole.column(j).data_type() {
                DataType::FixedSizeList(..) => {
                    let l = whole.column(j).as_fixed_size_list();
                    (0..l.len())
                        .flat_map(|r| values(l.value(r).as_ref()))
                        .collect::<Vec<_>>()
                }
                _ => values(whole.column(j).as_ref()),
            };
            assert_eq!(got, want, "{file} column {j}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(feature = "ndarray")]
#[test]
fn ndarray_views_of_fixtures_have_numpys_values() {
    use npyguard::NpyArray;
    for entry in manifest() {
        let file = entry["file"].as_str().unwrap();
        let tag = entry["tag"].as_str().unwrap();
        if !(file.ends_with("__2x3.npy") || file.ends_with("__3x2x4.npy"))
            || !matches!(tag, "lt_i4" | "be_i4" | "lt_u8" | "be_f8" | "lt_f4")
        {
            continue;
        }
        let ndim = entry["shape"].as_array().unwrap().len();
        let path = fixtures_dir().join(file);
        let want = expected_values(&entry);
        let check = |got: Vec<V>| assert_eq!(got, want, "{file}");
        match tag {
            "lt_i4" | "be_i4" => {
                let a = NpyArray::<i32>::read_path(&path, &ReadOptions::default()).unwrap();
                check(
                    a.view_ndarray()
                        .unwrap()
                        .iter()
                        .map(|&x| V::Int(x.into()))
                        .collect(),
                );
                let nd = a.clone().into_ndarray().unwrap();
                assert_eq!(nd.ndim(), ndim);
                assert_eq!(nd.t().is_standard_layout(), a.fortran_order());
                let back = NpyArray::from_ndarray_owned(nd).unwrap();
                assert_eq!(back.data(), a.data(), "no reorder, same memory order");
                assert_eq!(back.fortran_order(), a.fortran_order());
            }
            "lt_u8" => {
                let a = NpyArray::<u64>::read_path(&path, &ReadOptions::default()).unwrap();
                check(
                    a.into_ndarray()
                        .unwrap()
                        .iter()
                        .map(|&x| V::Int(x.into()))
                        .collect(),
                );
            }
            "be_f8" => {
                let a = NpyArray::<f64>::read_path(&path, &ReadOptions::default()).unwrap();
                check(
                    a.into_ndarray()
                        .unwrap()
                        .iter()
                        .map(|x| V::Float(x.to_bits(), 64))
                        .collect(),
                );
            }
            _ => {
                let a = NpyArray::<f32>::read_path(&path, &ReadOptions::default()).unwrap();
                check(
                    a.view_ndarray()
                        .unwrap()
                        .iter()
                        .map(|x| V::Float(x.to_bits().into(), 32))
                        .collect(),
                );
            }
        }
    }
}

// ------------------------------------------------------------------- timing --

/// 20 000 x 2 000 float32 at 1 % density (a fixed LCG), C and Fortran order.
#[test]
#[ignore = "timing; run in release with --ignored --nocapture"]
fn time_nonzeros_20000_by_2000() {
    let (rows, cols) = (20_000usize, 2_000usize);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state >> 11
    };
    let v: Vec<f32> = (0..rows * cols)
        .map(|_| {
            if next() % 100 == 0 {
                (next() % 1000) as f32 / 7.0 + 0.5
            } else {
                0.0
            }
        })
        .collect();
    let c = Array::new(
        Header::new(Dtype::F32(Endian::Little), vec![rows, cols], false).unwrap(),
        ArrayData::F32(v.into()),
    )
    .unwrap();
    let f = c.to_fortran_order();
    for (name, a) in [("C", &c), ("F", &f)] {
        let mut best = f64::MAX;
        let mut n = 0;
        for _ in 0..5 {
            let t = std::time::Instant::now();
            let b = arrow::nonzeros(a).unwrap();
            best = best.min(t.elapsed().as_secs_f64());
            n = b.num_rows();
        }
        println!(
            "nonzeros {name} order: {n} non-zeros in {:.1} ms (best of 5)",
            best * 1e3
        );
        let ms = |t: std::time::Instant| t.elapsed().as_secs_f64() * 1e3;
        for layout in [Layout::NonZeros, Layout::Columns, Layout::RowLists] {
            let owned = (*a).clone();
            let t = std::time::Instant::now();
            let ds = Dataset::new(owned, layout).unwrap();
            let t_new = ms(t);
            let t = std::time::Instant::now();
            let mut out_rows = 0;
            let mut batches = 0;
            for b in ds.batches(0) {
                out_rows += b.unwrap().num_rows();
                batches += 1;
            }
            if layout == Layout::NonZeros {
                assert_eq!(out_rows, n);
            }
            println!(
                "  {layout:?}: Dataset::new {t_new:.1} ms, {batches} batches of {} rows in {:.1} ms",
                ds.default_batch_rows(),
                ms(t)
            );
        }
    }
}

// -------------------------------------------------- mutation-testing boundaries --

#[test]
fn dataset_sizes_names_and_batch_rows() {
    let a = |n: usize, shape: Vec<usize>| {
        npyguard::NpyArray::from_vec(vec![0f64; n], shape)
            .unwrap()
            .into_array()
    };
    let names: Vec<&str> = [Layout::Columns, Layout::RowLists, Layout::NonZeros]
        .iter()
        .map(|l| l.name())
        .collect();
    assert_eq!(names, ["columns", "rowlists", "nonzeros"]);
    let ds = Dataset::new(a(12, vec![4, 3]), Layout::Columns).unwrap();
    assert_eq!(ds.num_input_rows(), 4);
    assert_eq!(ds.default_batch_rows(), arrow::DEFAULT_BATCH_ROWS);
    // 2^20 f8 columns are 8 MiB a row: 8 rows make the 64 MiB target.
    let wide = Dataset::new(a(2 << 20, vec![2, 1 << 20]), Layout::Columns).unwrap();
    assert_eq!(wide.default_batch_rows(), 8);
    assert_eq!(arrow::TARGET_BATCH_BYTES, 64 << 20);
}

#[test]
fn every_arrow_time_unit_is_used() {
    use npyguard::{DateUnit, TimeUnit as T};
    for (unit, want) in [
        (T::Second, TimeUnit::Second),
        (T::Milli, TimeUnit::Millisecond),
        (T::Micro, TimeUnit::Microsecond),
        (T::Nano, TimeUnit::Nanosecond),
    ] {
        let dt = Dtype::DateTime(DateUnit { unit, multiple: 1 }, Endian::Little);
        let a = Array::new(
            Header::new(dt, vec![2, 1], false).unwrap(),
            ArrayData::DateTime(vec![5, i64::MIN].into()),
        )
        .unwrap();
        let b = arrow::columns(a).unwrap();
        assert_eq!(
            b.schema().field(0).data_type(),
            &DataType::Timestamp(want, None)
        );
        assert!(b.column(0).is_null(1));
    }
}

#[test]
fn csv_of_an_empty_or_all_zero_dataset_is_its_header() {
    let zeros = npyguard::NpyArray::from_vec(vec![0i32; 6], vec![3, 2])
        .unwrap()
        .into_array();
    for (layout, header) in [(Layout::NonZeros, "row_no,col_no,val\n")] {
        let ds = Dataset::new(zeros.clone(), layout).unwrap();
        let mut csv = Vec::new();
        arrow::write_csv(&ds, &mut csv, 1, |_| {}).unwrap();
        assert_eq!(String::from_utf8(csv).unwrap(), header);
    }
    let some = npyguard::NpyArray::from_vec(vec![1i32, 0, 0, 2, 0, 0], vec![3, 2])
        .unwrap()
        .into_array();
    let ds = Dataset::new(some, Layout::Columns).unwrap();
    let mut csv = Vec::new();
    arrow::write_csv(&ds, &mut csv, 1, |_| {}).unwrap();
    assert_eq!(String::from_utf8(csv).unwrap(), "c1,c2\n1,0\n0,2\n0,0\n");
}
