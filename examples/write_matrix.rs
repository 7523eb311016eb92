//! Writes a matrix of arrays with npyguard's writer, for `tests/numpy/writer_diff.py`
//! to load and re-save with NumPy.
//!
//! ```text
//! cargo run -q --example write_matrix -- DIR
//! ```
//!
//! Every dtype (all scalar kinds, strings, datetimes with units and
//! multiples, records with padding, titles, subarrays, nesting, non-latin-1
//! names, and one record wide enough to need format 2.0) × both byte orders ×
//! C and Fortran order × the shapes (), (0,), (7,), (0,3), (3,0), (2,3),
//! (3,2,4), (1,1,1,1,2), written as `DIR/{dtype}_{le|be}_{C|F}_{shape}.npy`.
//!
//! Values are deterministic functions of the element's logical (C-order)
//! index `k` (see [`elem_bytes`]): special values first (NaN with payloads,
//! ±inf, −0.0, subnormals, integer extremes, 2^53 ± 1, NaT), then hashed bit
//! patterns. The Python script computes the same bytes independently; keep the
//! two in step. Scalar arrays are built from typed values (so the writer's own
//! encoding is exercised); this program also checks that each C-order payload
//! equals the bytes [`elem_bytes`] gives, and exits 1 if not.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use npyguard::{write, Array, ArrayData, DateUnit, Dtype, Endian, Field, Header, Record, TimeUnit};

const SHAPES: &[&[usize]] = &[
    &[],
    &[0],
    &[7],
    &[0, 3],
    &[3, 0],
    &[2, 3],
    &[3, 2, 4],
    &[1, 1, 1, 1, 2],
];

/// Fields of the wide record (its header does not fit format 1.0's u16 length).
const WIDE_FIELDS: usize = 4000;

fn h(k: u64) -> u64 {
    let x = k.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^ (x >> 29)
}

fn mask(bits: u32) -> u64 {
    if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Integer element `k` of a `bits`-wide integer type, as a bit pattern.
fn int_bits(bits: u32, k: u64) -> u64 {
    let b = i128::from(bits);
    let special: [i128; 11] = [
        0,
        1,
        -1,
        -(1 << (b - 1)),
        (1 << (b - 1)) - 1,
        -(1 << (b - 1)) + 1,
        (1 << (b - 1)) - 2,
        (1 << 53) - 1,
        1 << 53,
        (1 << 53) + 1,
        -(1 << 53) - 1,
    ];
    let v = match special.get(k as usize) {
        Some(&s) => s as u64,
        None => h(k),
    };
    v & mask(bits)
}

const F16: &[u64] = &[
    0x0000, 0x8000, 0x3c00, 0xbe00, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7e5a, 0x7c01, 0x0001, 0x83ff,
    0x0400, 0x7bff, 0xfbff,
];
const F32: &[u64] = &[
    0x0000_0000,
    0x8000_0000,
    0x3f80_0000,
    0xbfc0_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7fc0_beef,
    0x7f80_0001,
    0x0000_0001,
    0x807f_ffff,
    0x0080_0000,
    0x7f7f_ffff,
    0x4b7f_ffff,
    0x4b80_0000,
];
const F64: &[u64] = &[
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xbff8_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0xfff8_0000_0000_0000,
    0x7ff8_0000_dead_beef,
    0x7ff0_0000_0000_0001,
    0x0000_0000_0000_0001,
    0x800f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0x433f_ffff_ffff_ffff,
    0x4340_0000_0000_0000,
    0x4340_0000_0000_0001,
];

/// Float element `k` of a `bits`-wide float type, as a bit pattern.
fn float_bits(bits: u32, k: u64) -> u64 {
    let special = match bits {
        16 => F16,
        32 => F32,
        _ => F64,
    };
    match special.get(k as usize) {
        Some(&s) => s,
        None => h(k) & mask(bits),
    }
}

/// Datetime/timedelta element `k` (i64::MIN is NaT).
fn time_bits(k: u64) -> u64 {
    let special: [i64; 8] = [
        i64::MIN,
        0,
        1,
        -1,
        i64::MAX,
        i64::MIN + 1,
        (1 << 53) + 1,
        -(1 << 53) - 1,
    ];
    match special.get(k as usize) {
        Some(&s) => s as u64,
        None => h(k),
    }
}

/// Code points for `U` elements (NUL inside a string included).
const CHARS: &[u32] = &[
    0x61, 0xe9, 0x1f600, 0xffff, 0x10ffff, 0xd7ff, 0xe000, 0x20, 0x7f, 0x0, 0x65e5, 0x80,
];

/// Character `j` of `U<n>` element `k`: the first `k % (n + 1)` are from [`CHARS`], the rest NUL.
fn char_at(n: usize, k: u64, j: usize) -> u32 {
    if (j as u64) < k % (n as u64 + 1) {
        CHARS[((k * 3 + j as u64) % CHARS.len() as u64) as usize]
    } else {
        0
    }
}

/// Byte `j` of `S<n>` element `k`: the first `k % (n + 1)` hashed, the rest NUL.
fn s_byte(n: usize, k: u64, j: usize) -> u8 {
    if (j as u64) < k % (n as u64 + 1) {
        (h(k * n as u64 + j as u64) & 0xff) as u8
    } else {
        0
    }
}

fn put(out: &mut Vec<u8>, bits: u64, size: usize, e: Endian) {
    let le = bits.to_le_bytes();
    let part = &le[..size];
    match e {
        Endian::Little => out.extend_from_slice(part),
        Endian::Big => out.extend(part.iter().rev()),
    }
}

/// The bytes of element `k` of `d` in `d`'s byte order (the file's payload bytes).
fn elem_bytes(d: &Dtype, k: u64, out: &mut Vec<u8>) {
    let e = d.endian().unwrap_or(Endian::Little);
    match d {
        Dtype::Bool => out.push(u8::from(k % 3 != 1)),
        Dtype::I8 | Dtype::U8 => put(out, int_bits(8, k), 1, e),
        Dtype::I16(_) | Dtype::U16(_) => put(out, int_bits(16, k), 2, e),
        Dtype::I32(_) | Dtype::U32(_) => put(out, int_bits(32, k), 4, e),
        Dtype::I64(_) | Dtype::U64(_) => put(out, int_bits(64, k), 8, e),
        Dtype::F16(_) => put(out, float_bits(16, k), 2, e),
        Dtype::F32(_) => put(out, float_bits(32, k), 4, e),
        Dtype::F64(_) => put(out, float_bits(64, k), 8, e),
        Dtype::C64(_) => {
            put(out, float_bits(32, 2 * k), 4, e);
            put(out, float_bits(32, 2 * k + 1), 4, e);
        }
        Dtype::C128(_) => {
            put(out, float_bits(64, 2 * k), 8, e);
            put(out, float_bits(64, 2 * k + 1), 8, e);
        }
        Dtype::Bytes(n) => out.extend((0..*n).map(|j| s_byte(*n, k, j))),
        Dtype::Void(n) => out.extend((0..*n).map(|j| (h(k * *n as u64 + j as u64) & 0xff) as u8)),
        Dtype::Unicode(n, _) => (0..*n).for_each(|j| put(out, u64::from(char_at(*n, k, j)), 4, e)),
        Dtype::DateTime(..) | Dtype::TimeDelta(..) => put(out, time_bits(k), 8, e),
        Dtype::Record(r) => {
            let start = out.len();
            let size = r.itemsize as u64;
            // Gaps hold hashed garbage: the writer must keep padding bytes as they are.
            out.extend((0..size).map(|j| (h(k * size + j) & 0xff) as u8));
            for f in &r.fields {
                let count = f.count() as u64;
                let w = f.dtype.itemsize();
                for i in 0..count {
                    let mut tmp = Vec::with_capacity(w);
                    elem_bytes(&f.dtype, k * count + i, &mut tmp);
                    let at = start + f.offset + i as usize * w;
                    out[at..at + w].copy_from_slice(&tmp);
                }
            }
        }
        other => panic!("no values for {other:?}"),
    }
}

/// The array's data in C order, as typed values for scalar kinds (raw bytes for S, V, records).
fn c_order_data(d: &Dtype, n: u64) -> ArrayData {
    let ks = 0..n;
    let raw = || {
        let mut out = Vec::new();
        for k in 0..n {
            elem_bytes(d, k, &mut out);
        }
        out
    };
    match d {
        Dtype::Bool => ArrayData::Bool(ks.map(|k| u8::from(k % 3 != 1)).collect()),
        Dtype::I8 => ArrayData::I8(ks.map(|k| int_bits(8, k) as u8 as i8).collect()),
        Dtype::U8 => ArrayData::U8(ks.map(|k| int_bits(8, k) as u8).collect()),
        Dtype::I16(_) => ArrayData::I16(ks.map(|k| int_bits(16, k) as u16 as i16).collect()),
        Dtype::I32(_) => ArrayData::I32(ks.map(|k| int_bits(32, k) as u32 as i32).collect()),
        Dtype::I64(_) => ArrayData::I64(ks.map(|k| int_bits(64, k) as i64).collect()),
        Dtype::U16(_) => ArrayData::U16(ks.map(|k| int_bits(16, k) as u16).collect()),
        Dtype::U32(_) => ArrayData::U32(ks.map(|k| int_bits(32, k) as u32).collect()),
        Dtype::U64(_) => ArrayData::U64(ks.map(|k| int_bits(64, k)).collect()),
        Dtype::F16(_) => ArrayData::F16(ks.map(|k| float_bits(16, k) as u16).collect()),
        Dtype::F32(_) => ArrayData::F32(
            ks.map(|k| f32::from_bits(float_bits(32, k) as u32))
                .collect(),
        ),
        Dtype::F64(_) => ArrayData::F64(ks.map(|k| f64::from_bits(float_bits(64, k))).collect()),
        Dtype::C64(_) => ArrayData::C64(
            ks.map(|k| {
                [
                    f32::from_bits(float_bits(32, 2 * k) as u32),
                    f32::from_bits(float_bits(32, 2 * k + 1) as u32),
                ]
            })
            .collect(),
        ),
        Dtype::C128(_) => ArrayData::C128(
            ks.map(|k| {
                [
                    f64::from_bits(float_bits(64, 2 * k)),
                    f64::from_bits(float_bits(64, 2 * k + 1)),
                ]
            })
            .collect(),
        ),
        Dtype::Unicode(w, _) => ArrayData::Unicode(
            ks.flat_map(|k| (0..*w).map(move |j| char_at(*w, k, j)))
                .collect(),
        ),
        Dtype::DateTime(..) => ArrayData::DateTime(ks.map(|k| time_bits(k) as i64).collect()),
        Dtype::TimeDelta(..) => ArrayData::TimeDelta(ks.map(|k| time_bits(k) as i64).collect()),
        Dtype::Bytes(_) => ArrayData::Bytes(raw().into()),
        Dtype::Void(_) => ArrayData::Void(raw().into()),
        Dtype::Record(_) => ArrayData::Record(raw().into()),
        other => panic!("no values for {other:?}"),
    }
}

fn unit(unit: TimeUnit, multiple: u32) -> DateUnit {
    DateUnit { unit, multiple }
}

fn field(name: &str, title: Option<&str>, dtype: Dtype, shape: &[usize], offset: usize) -> Field {
    Field {
        name: name.into(),
        title: title.map(npyguard::Title::from),
        dtype,
        shape: shape.to_vec(),
        nesting: Vec::new(),
        offset,
    }
}

/// A record laid out packed, in order.
fn packed(fields: Vec<(&str, Dtype, &[usize])>) -> Dtype {
    let mut offset = 0;
    let mut out = Vec::new();
    for (name, dtype, shape) in fields {
        let f = field(name, None, dtype, shape, offset);
        offset += f.size();
        out.push(f);
    }
    Dtype::Record(Record {
        fields: out,
        itemsize: offset,
    })
}

/// The dtypes, by the id used in file names, in byte order `e`
/// (tests/numpy/writer_diff.py has the same table).
fn dtypes(e: Endian) -> Vec<(String, Dtype)> {
    use TimeUnit::*;
    let mut v: Vec<(&str, Dtype)> = vec![
        ("b1", Dtype::Bool),
        ("i1", Dtype::I8),
        ("u1", Dtype::U8),
        ("i2", Dtype::I16(e)),
        ("i4", Dtype::I32(e)),
        ("i8", Dtype::I64(e)),
        ("u2", Dtype::U16(e)),
        ("u4", Dtype::U32(e)),
        ("u8", Dtype::U64(e)),
        ("f2", Dtype::F16(e)),
        ("f4", Dtype::F32(e)),
        ("f8", Dtype::F64(e)),
        ("c8", Dtype::C64(e)),
        ("c16", Dtype::C128(e)),
        ("S1", Dtype::Bytes(1)),
        ("S5", Dtype::Bytes(5)),
        ("U1", Dtype::Unicode(1, e)),
        ("U4", Dtype::Unicode(4, e)),
        ("V3", Dtype::Void(3)),
        ("M8", Dtype::DateTime(unit(Generic, 1), e)),
        ("M8_ns", Dtype::DateTime(unit(Nano, 1), e)),
        ("M8_D", Dtype::DateTime(unit(Day, 1), e)),
        ("M8_25s", Dtype::DateTime(unit(Second, 25), e)),
        ("m8", Dtype::TimeDelta(unit(Generic, 1), e)),
        ("m8_us", Dtype::TimeDelta(unit(Micro, 1), e)),
        ("m8_7h", Dtype::TimeDelta(unit(Hour, 7), e)),
        (
            "rec_simple",
            packed(vec![("a", Dtype::I32(e), &[]), ("b", Dtype::F64(e), &[])]),
        ),
        (
            "rec_pad",
            Dtype::Record(Record {
                fields: vec![
                    field("a", None, Dtype::U8, &[], 0),
                    field("b", None, Dtype::I32(e), &[], 4),
                    field("c", None, Dtype::F16(e), &[], 8),
                ],
                itemsize: 12,
            }),
        ),
        (
            "rec_title",
            Dtype::Record(Record {
                fields: vec![
                    field("a", Some("Title A"), Dtype::I16(e), &[], 0),
                    field("b", None, Dtype::Bytes(3), &[], 2),
                ],
                itemsize: 5,
            }),
        ),
        (
            "rec_sub",
            packed(vec![
                ("m", Dtype::F32(e), &[2, 3]),
                ("v", Dtype::U16(e), &[3]),
            ]),
        ),
        (
            "rec_nested",
            packed(vec![
                ("id", Dtype::I64(e), &[]),
                (
                    "pt",
                    packed(vec![("x", Dtype::F32(e), &[]), ("y", Dtype::F32(e), &[])]),
                    &[2],
                ),
                ("name", Dtype::Unicode(3, e), &[]),
                ("when", Dtype::DateTime(unit(Milli, 1), e), &[]),
            ]),
        ),
        (
            "rec_deep",
            packed(vec![(
                "outer",
                packed(vec![
                    ("inner", packed(vec![("z", Dtype::C64(e), &[])]), &[]),
                    ("flag", Dtype::Bool, &[]),
                ]),
                &[],
            )]),
        ),
        (
            "rec_names",
            packed(vec![
                ("é", Dtype::I16(e), &[]),
                ("日本", Dtype::F64(e), &[]),
                ("it's", Dtype::U8, &[]),
                ("emoji😀", Dtype::U8, &[]),
                ("pua\u{f0000}", Dtype::U8, &[]),
            ]),
        ),
        (
            // Names Python's repr escapes or quotes specially.
            "rec_escapes",
            packed(vec![
                ("back\\slash", Dtype::U8, &[]),
                ("tab\there", Dtype::U8, &[]),
                ("nl\nx", Dtype::U8, &[]),
                ("zw\u{200b}sp", Dtype::U8, &[]),
                ("dq\"", Dtype::U8, &[]),
                ("both'\"", Dtype::U8, &[]),
                ("del\x7f", Dtype::U8, &[]),
                ("nbsp\u{a0}", Dtype::U8, &[]),
                ("latin\u{e9}", Dtype::I16(e), &[]),
            ]),
        ),
    ];
    let names: Vec<String> = (0..WIDE_FIELDS).map(|i| format!("f{i:04}")).collect();
    let wide = packed(
        names
            .iter()
            .map(|n| (n.as_str(), Dtype::U8, &[][..]))
            .collect(),
    );
    v.push(("rec_wide", wide));
    v.into_iter().map(|(id, d)| (id.to_string(), d)).collect()
}

fn shape_id(shape: &[usize]) -> String {
    if shape.is_empty() {
        "s".to_string()
    } else {
        shape
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join("x")
    }
}

fn write_all(dir: &Path) -> Result<usize, String> {
    let mut count = 0;
    for (e, eid) in [(Endian::Little, "le"), (Endian::Big, "be")] {
        for (id, dtype) in dtypes(e) {
            for &shape in SHAPES {
                let n: usize = shape.iter().product();
                let header = Header::new(dtype.clone(), shape.to_vec(), false)
                    .map_err(|err| format!("{id} {shape:?}: {err}"))?;
                let c = Array::new(header, c_order_data(&dtype, n as u64))
                    .map_err(|err| format!("{id} {shape:?}: {err}"))?;
                // Self-check: the C-order payload is exactly the bytes elem_bytes gives.
                let bytes = write::to_vec(&c).map_err(|err| format!("{id}: {err}"))?;
                let head = write::header_bytes(c.header()).len();
                let mut want = Vec::new();
                for k in 0..n as u64 {
                    elem_bytes(&dtype, k, &mut want);
                }
                if bytes[head..] != want[..] {
                    return Err(format!(
                        "{id}_{eid} {shape:?}: the writer's payload differs from elem_bytes"
                    ));
                }
                for (order, array) in [("C", c.clone()), ("F", c.to_fortran_order())] {
                    let name = format!("{id}_{eid}_{order}_{}.npy", shape_id(shape));
                    write::to_path(dir.join(&name), &array)
                        .map_err(|err| format!("{name}: {err}"))?;
                    count += 1;
                }
            }
        }
    }
    Ok(count)
}

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: write_matrix DIR");
        return ExitCode::from(2);
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("{}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    match write_all(&dir) {
        Ok(n) => {
            println!("wrote {n} files to {}", dir.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("write_matrix: {e}");
            ExitCode::FAILURE
        }
    }
}
