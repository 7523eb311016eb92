#!/usr/bin/env python3
"""Checks that NumPy loads the .npz archives npyguard writes, with equal values.

Runs

    cargo run -q --features npz --example npz_write -- TMPDIR

which writes TMPDIR/rust_savez.npz (np.savez layout, stored) and
TMPDIR/rust_savez_compressed.npz (np.savez_compressed layout, deflated), then
for each archive:

* np.load reads it, and its .files are the expected names in NumPy's order
  (keywords first, then arr_0, arr_1, ...);
* every array has the expected dtype (byte order included), shape, memory
  order and values (NaN-aware, -0.0 checked by sign);
* every member's bytes are exactly what np.save writes for the expected array;
* zipfile.testzip() finds no CRC error, members are stored (0) or deflated (8)
  as the writer promises, and every timestamp is NumPy's 1980-01-01.

The expected arrays are built here independently of the Rust example
(examples/npz_write.rs); keep the two in step. Exits 1 on any mismatch.

Usage: python3 tests/numpy/npz_roundtrip.py [--dir DIR]
  --dir DIR   check archives already written there instead of running cargo
"""

import argparse
import io
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def expected():
    f_i4 = np.zeros((3, 4), dtype="<i4", order="F")
    f_i4[...] = np.arange(-5, 7).reshape(3, 4)
    named = {
        "c_f8": np.array([[0.5, -1.25, np.nan], [np.inf, -0.0, 1e300]], dtype="<f8"),
        "fortran_i4": f_i4,
        "scalar": np.array(7, dtype="|u1"),
        "empty": np.zeros((0, 3), dtype="<f4"),
        "flags": np.array([True, False, True]),
        "be_i8": np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0], dtype=">i8"),
        "text": np.array(["a", "bc", "\U0001F600"], dtype="<U3"),
    }
    positional = [np.array([1, 2, 3], dtype="<u2"), np.array([1.5, -2.5], dtype="<f4")]
    out = list(named.items()) + [(f"arr_{i}", a) for i, a in enumerate(positional)]
    return out


def np_save_bytes(a):
    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()


def same_values(a, b):
    if a.dtype.kind in "fc":
        if not np.array_equal(a, b, equal_nan=True):
            return False
        # -0.0 and 0.0 compare equal; check the sign bits too.
        return np.array_equal(np.signbit(a.real), np.signbit(b.real))
    return np.array_equal(a, b)


def check(path, method):
    errors = []
    exp = expected()
    with np.load(path) as z:
        if z.files != [n for n, _ in exp]:
            errors.append(f"{path.name}: files {z.files} != {[n for n, _ in exp]}")
        for name, want in exp:
            if name not in z.files:
                continue
            got = z[name]
            if got.dtype != want.dtype:
                errors.append(f"{path.name}:{name}: dtype {got.dtype.str} != {want.dtype.str}")
            if got.shape != want.shape:
                errors.append(f"{path.name}:{name}: shape {got.shape} != {want.shape}")
            fortran = got.flags.f_contiguous and not got.flags.c_contiguous
            want_fortran = want.flags.f_contiguous and not want.flags.c_contiguous
            if fortran != want_fortran:
                errors.append(f"{path.name}:{name}: fortran_order {fortran} != {want_fortran}")
            if got.shape == want.shape and not same_values(got, want):
                errors.append(f"{path.name}:{name}: values {got!r} != {want!r}")
    with zipfile.ZipFile(path) as zf:
        bad = zf.testzip()
        if bad is not None:
            errors.append(f"{path.name}: CRC error in {bad}")
        for info in zf.infolist():
            if info.compress_type != method:
                errors.append(f"{path.name}:{info.filename}: method {info.compress_type} != {method}")
            if info.date_time != (1980, 1, 1, 0, 0, 0):
                errors.append(f"{path.name}:{info.filename}: timestamp {info.date_time}")
        for name, want in exp:
            member = name + ".npy"
            if member in zf.namelist() and zf.read(member) != np_save_bytes(want):
                errors.append(f"{path.name}:{member}: bytes differ from np.save")
    return errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.dir
        if out is None:
            out = Path(tmp)
            subprocess.run(
                ["cargo", "run", "-q", "--features", "npz", "--example", "npz_write", "--", str(out)],
                cwd=ROOT,
                check=True,
            )
        errors = check(out / "rust_savez.npz", zipfile.ZIP_STORED)
        errors += check(out / "rust_savez_compressed.npz", zipfile.ZIP_DEFLATED)
    for e in errors:
        print(e)
    # One check per (archive, array); an archive-wide error fails all of its arrays.
    names = [n for n, _ in expected()]
    failed = set()
    for e in errors:
        archive, _, rest = e.partition(":")
        member = rest.split(":")[0].removesuffix(".npy") if ":" in rest else None
        failed.update((archive, n) for n in names if member is None or n == member)
    total = 2 * len(names)
    print(f"{total - len(failed)} passed, {len(failed)} failed")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
