#!/usr/bin/env python3
"""Differential test of npyguard's writer against NumPy.

Runs

    cargo run -q --example write_matrix -- TMPDIR

which writes a matrix of .npy files with npyguard's writer (every dtype incl.
records, strings and datetimes × both byte orders × C and Fortran order ×
shapes (), (0,), (7,), (0,3), (3,0), (2,3), (3,2,4), (1,1,1,1,2)), then for
every file checks:

(a) NumPy loads it, with the expected dtype (byte order, field names,
    offsets, titles, subarrays included), shape, memory order and values:
    the expected array is built here, independently of the Rust example,
    from the same per-element formulas (examples/write_matrix.rs); the C-order
    bytes (.tobytes()) must be identical, and values are also compared with
    array_equal (equal_nan for floats/complex/datetimes, -0.0 by sign bit),
    records field by field;
(b) np.save of the array NumPy loaded produces exactly npyguard's bytes. An
    array written with fortran_order True that NumPy sees as C-contiguous too
    (0-d, 1-d, zero-size, (1,1,1,1,2)) is saved by np.save with fortran_order
    False; for those the expected bytes come from NumPy's own header writer
    (_write_array_header) with fortran_order True and the Fortran-order payload.

Exits 1 on any mismatch, printing each; prints counts.

Usage: python3 tests/numpy/writer_diff.py [--dir DIR]
  --dir DIR   check files already written there instead of running cargo
"""

import argparse
import io
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

try:
    from numpy.lib._format_impl import _write_array_header, header_data_from_array_1_0
except ImportError:  # NumPy < 2
    from numpy.lib.format import _write_array_header, header_data_from_array_1_0

ROOT = Path(__file__).resolve().parents[2]

SHAPES = [(), (0,), (7,), (0, 3), (3, 0), (2, 3), (3, 2, 4), (1, 1, 1, 1, 2)]
WIDE_FIELDS = 4000
# The wide record's header is ~70 KB (format 2.0); NumPy's default limit is 10 000 characters.
MAX_HEADER_SIZE = 1 << 20

# ------------------------------------------------------------- dtype table --
# Same ids, same dtypes as dtypes() in examples/write_matrix.rs, built here from
# NumPy's own constructors.

SCALARS = {
    "b1": "b1", "i1": "i1", "u1": "u1", "i2": "i2", "i4": "i4", "i8": "i8",
    "u2": "u2", "u4": "u4", "u8": "u8", "f2": "f2", "f4": "f4", "f8": "f8",
    "c8": "c8", "c16": "c16", "S1": "S1", "S5": "S5", "U1": "U1", "U4": "U4",
    "V3": "V3", "M8": "M8", "M8_ns": "M8[ns]", "M8_D": "M8[D]", "M8_25s": "M8[25s]",
    "m8": "m8", "m8_us": "m8[us]", "m8_7h": "m8[7h]",
}


def records():
    out = {
        "rec_simple": np.dtype([("a", "<i4"), ("b", "<f8")]),
        "rec_pad": np.dtype(
            {"names": ["a", "b", "c"], "formats": ["u1", "<i4", "<f2"],
             "offsets": [0, 4, 8], "itemsize": 12}
        ),
        "rec_title": np.dtype(
            {"names": ["a", "b"], "formats": ["<i2", "S3"], "titles": ["Title A", None],
             "offsets": [0, 2], "itemsize": 5}
        ),
        "rec_sub": np.dtype([("m", "<f4", (2, 3)), ("v", "<u2", (3,))]),
        "rec_nested": np.dtype(
            [("id", "<i8"), ("pt", [("x", "<f4"), ("y", "<f4")], (2,)),
             ("name", "<U3"), ("when", "<M8[ms]")]
        ),
        "rec_deep": np.dtype([("outer", [("inner", [("z", "<c8")]), ("flag", "?")])]),
        "rec_names": np.dtype([("é", "<i2"), ("日本", "<f8"), ("it's", "u1"), ("emoji\U0001F600", "u1"),
                               ("pua\U000F0000", "u1")]),
        # Names Python's repr escapes or quotes specially.
        "rec_escapes": np.dtype([("back\\slash", "u1"), ("tab\there", "u1"), ("nl\nx", "u1"),
                                 ("zw\u200bsp", "u1"), ('dq"', "u1"), ("both'\"", "u1"),
                                 ("del\x7f", "u1"), ("nbsp\xa0", "u1"), ("latin\xe9", "<i2")]),
        "rec_wide": np.dtype([(f"f{i:04}", "u1") for i in range(WIDE_FIELDS)]),
    }
    return out


def dtypes(order_char):
    """(id, dtype) in byte order '<' or '>' (one-byte, S and V types stay '|')."""
    out = [(k, np.dtype(v).newbyteorder(order_char)) for k, v in SCALARS.items()]
    out += [(k, d.newbyteorder(order_char)) for k, d in records().items()]
    return out


# ---------------------------------------------------------------- values --
# Element k (logical C-order index) of each kind, as in examples/write_matrix.rs.

M64 = (1 << 64) - 1


def h(k):
    x = ((k + 1) * 0x9E3779B97F4A7C15) & M64
    return x ^ (x >> 29)


def int_bits(bits, k):
    b = bits
    special = [0, 1, -1, -(1 << (b - 1)), (1 << (b - 1)) - 1, -(1 << (b - 1)) + 1,
               (1 << (b - 1)) - 2, (1 << 53) - 1, 1 << 53, (1 << 53) + 1, -(1 << 53) - 1]
    v = special[k] if k < len(special) else h(k)
    return v & ((1 << bits) - 1)


F16 = [0x0000, 0x8000, 0x3C00, 0xBE00, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7E5A, 0x7C01, 0x0001,
       0x83FF, 0x0400, 0x7BFF, 0xFBFF]
F32 = [0x00000000, 0x80000000, 0x3F800000, 0xBFC00000, 0x7F800000, 0xFF800000, 0x7FC00000,
       0xFFC00000, 0x7FC0BEEF, 0x7F800001, 0x00000001, 0x807FFFFF, 0x00800000, 0x7F7FFFFF,
       0x4B7FFFFF, 0x4B800000]
F64 = [0x0000000000000000, 0x8000000000000000, 0x3FF0000000000000, 0xBFF8000000000000,
       0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0xFFF8000000000000,
       0x7FF80000DEADBEEF, 0x7FF0000000000001, 0x0000000000000001, 0x800FFFFFFFFFFFFF,
       0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0x433FFFFFFFFFFFFF, 0x4340000000000000,
       0x4340000000000001]


def float_bits(bits, k):
    special = {16: F16, 32: F32, 64: F64}[bits]
    return special[k] if k < len(special) else h(k) & ((1 << bits) - 1)


TIME = [-(1 << 63), 0, 1, -1, (1 << 63) - 1, -(1 << 63) + 1, (1 << 53) + 1, -(1 << 53) - 1]


def time_bits(k):
    return (TIME[k] if k < len(TIME) else h(k)) & M64


CHARS = [0x61, 0xE9, 0x1F600, 0xFFFF, 0x10FFFF, 0xD7FF, 0xE000, 0x20, 0x7F, 0x0, 0x65E5, 0x80]


def put(bits, size, order):
    return bits.to_bytes(size, "big" if order == ">" else "little")


def elem_bytes(dt, k):
    """The payload bytes of element k of dtype dt."""
    if dt.names is not None:
        size = dt.itemsize
        buf = bytearray((h(k * size + j) & 0xFF) for j in range(size))
        for name in dt.names:
            fdt, offset = dt.fields[name][:2]
            if fdt.subdtype is not None:
                base, shape = fdt.subdtype
                count = int(np.prod(shape))
            else:
                base, count = fdt, 1
            w = base.itemsize
            for i in range(count):
                at = offset + i * w
                buf[at:at + w] = elem_bytes(base, k * count + i)
        return bytes(buf)
    order = dt.str[0]
    kind, size = dt.kind, dt.itemsize
    if kind == "b":
        return bytes([1 if k % 3 != 1 else 0])
    if kind in "iu":
        return put(int_bits(8 * size, k), size, order)
    if kind == "f":
        return put(float_bits(8 * size, k), size, order)
    if kind == "c":
        half = size // 2
        return put(float_bits(8 * half, 2 * k), half, order) + put(float_bits(8 * half, 2 * k + 1), half, order)
    if kind == "S":
        n = size
        return bytes((h(k * n + j) & 0xFF) if j < k % (n + 1) else 0 for j in range(n))
    if kind == "V":
        n = size
        return bytes(h(k * n + j) & 0xFF for j in range(n))
    if kind == "U":
        n = size // 4
        cps = [CHARS[(k * 3 + j) % len(CHARS)] if j < k % (n + 1) else 0 for j in range(n)]
        return b"".join(put(c, 4, order) for c in cps)
    if kind in "Mm":
        return put(time_bits(k), 8, order)
    raise ValueError(f"no values for {dt}")


def expected_array(dt, shape):
    n = int(np.prod(shape)) if shape else 1
    raw = b"".join(elem_bytes(dt, k) for k in range(n))
    return np.frombuffer(raw, dtype=dt, count=n).reshape(shape)


# ------------------------------------------------------------- comparison --

def same_values(a, b, path="value"):
    """Compares values kind by kind (records field by field); returns a list of differences."""
    if a.dtype.names is not None:
        errs = []
        for name in a.dtype.names:
            errs += same_values(a[name], b[name], f"{path}[{name!r}]")
        return errs
    if a.dtype != b.dtype or a.shape != b.shape:
        return [f"{path}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}"]
    kind = a.dtype.kind
    if kind in "fc":
        ok = np.array_equal(a, b, equal_nan=True)
        ok = ok and np.array_equal(np.signbit(a.real), np.signbit(b.real))
        if kind == "c":
            ok = ok and np.array_equal(np.signbit(a.imag), np.signbit(b.imag))
    elif kind in "Mm":
        ok = np.array_equal(a, b, equal_nan=True)
    elif kind == "V":
        ok = a.tobytes() == b.tobytes()
    else:
        ok = np.array_equal(a, b)
    return [] if ok else [f"{path}: values differ"]


def np_save_bytes(a):
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Stored array in format 3.0"
        np.save(buf, a)
    return buf.getvalue()


def numpy_bytes_fortran(a):
    """What NumPy's writer emits for `a` with fortran_order True (header by NumPy's own code)."""
    d = header_data_from_array_1_0(a)
    d["fortran_order"] = True
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _write_array_header(buf, d, None)
    buf.write(a.tobytes(order="F"))
    return buf.getvalue()


def shape_id(shape):
    return "s" if not shape else "x".join(str(d) for d in shape)


def check_dir(d):
    errors = []
    counts = {"files": 0, "values": 0, "np.save": 0, "numpy header writer": 0, "fortran": 0}
    expected_names = set()
    for order_char, eid in (("<", "le"), (">", "be")):
        for id_, dt in dtypes(order_char):
            for shape in SHAPES:
                for order in ("C", "F"):
                    name = f"{id_}_{eid}_{order}_{shape_id(shape)}.npy"
                    expected_names.add(name)
                    path = d / name
                    if not path.exists():
                        errors.append(f"{name}: missing")
                        continue
                    counts["files"] += 1
                    data = path.read_bytes()
                    try:
                        a = np.load(path, allow_pickle=False, max_header_size=MAX_HEADER_SIZE)
                    except Exception as e:  # noqa: BLE001 - report any load failure
                        errors.append(f"{name}: np.load failed: {type(e).__name__}: {e}")
                        continue
                    want = expected_array(dt, shape)
                    # (a) dtype, shape, memory order, bytes, values.
                    errs = []
                    if a.dtype != dt or a.dtype.descr != dt.descr:
                        errs.append(f"dtype {a.dtype.descr} != {dt.descr}")
                    if a.shape != shape:
                        errs.append(f"shape {a.shape} != {shape}")
                    if order == "F" and a.ndim >= 2 and not a.flags.f_contiguous:
                        errs.append("written Fortran order, loaded not F-contiguous")
                    if not errs:
                        if a.tobytes() != want.tobytes():
                            errs.append("C-order bytes differ from the expected values")
                        errs += same_values(want, a)
                    if errs:
                        errors += [f"{name}: {e}" for e in errs]
                        continue
                    counts["values"] += 1
                    # (b) np.save of the loaded array gives npyguard's bytes.
                    if order == "F":
                        counts["fortran"] += 1
                    saved = np_save_bytes(a)
                    if saved == data:
                        counts["np.save"] += 1
                        continue
                    if order == "F" and a.flags.c_contiguous:
                        # np.save writes fortran_order False here; NumPy's header writer with True.
                        ref = numpy_bytes_fortran(a)
                        if ref == data:
                            counts["numpy header writer"] += 1
                            continue
                        saved = ref
                    errors.append(f"{name}: bytes differ from NumPy's\n{describe_diff(saved, data)}")
    extra = sorted(p.name for p in d.glob("*.npy") if p.name not in expected_names)
    errors += [f"{n}: unexpected file" for n in extra]
    return counts, errors


def describe_diff(want, got):
    i = next((i for i, (x, y) in enumerate(zip(want, got)) if x != y), min(len(want), len(got)))
    lo = max(0, i - 40)
    return (f"    first difference at byte {i} (NumPy {len(want)} bytes, npyguard {len(got)})\n"
            f"    NumPy    {want[lo:i + 40]!r}\n    npyguard {got[lo:i + 40]!r}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, help="check files already written there")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = args.dir
        if d is None:
            d = Path(tmp)
            cmd = ["cargo", "run", "-q", "--example", "write_matrix", "--", str(d)]
            r = subprocess.run(cmd, cwd=ROOT)
            if r.returncode != 0:
                print(f"writer_diff: {' '.join(cmd)} failed with exit code {r.returncode}")
                return 1
        counts, errors = check_dir(d)
    for e in errors:
        print(f"MISMATCH {e}")
    print(
        f"writer_diff (NumPy {np.__version__}): {counts['files']} files, "
        f"{counts['values']} loaded with the expected dtype, shape and values, "
        f"{counts['np.save'] + counts['numpy header writer']} byte-identical to NumPy "
        f"({counts['np.save']} to np.save of the loaded array, {counts['numpy header writer']} "
        f"to NumPy's header writer with fortran_order True for arrays np.save would call C-order); "
        f"{counts['fortran']} Fortran-order files"
    )
    if errors:
        print(f"writer_diff: {len(errors)} mismatches")
        return 1
    print("writer_diff: all files agree with NumPy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
