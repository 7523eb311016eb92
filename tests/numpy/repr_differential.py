#!/usr/bin/env python3
"""Differential test: `npyguard dump FILE` against NumPy's live `repr(np.load(FILE))`.

Compares, byte for byte (plus the one newline the CLI ends with):

  * `npyguard dump` with `repr(a)` under NumPy's default print options,
    `npyguard dump --full` with `repr(a)` under `threshold=sys.maxsize` (arrays of at most
    20 000 elements), and `npyguard dump --rows LO..HI` (a random range of the first axis,
    read by RowReader from the file) with `repr(a[LO:HI])`, for
  * every fixture in tests/fixtures/npy/, tests/adversarial/y_*.npy and tests/fixtures/repr/,
  * and --count randomly generated arrays (seeded: random dtypes of every family, both byte
    orders, records with nested and subarray fields, 0-d to 4-D shapes, empty shapes,
    Fortran order, summarised sizes; values with nan/inf/-0.0, huge and tiny magnitudes,
    subnormals, random bit patterns, datetimes with NaT at random units, strings with quotes,
    escapes and non-ASCII text), written to a temporary directory.

A difference is "explained" (counted, not a failure) only when it is the documented
deviation of grammar/DEVIATIONS.md: code points unassigned in Python's Unicode database
(category Cn) that Python's repr escapes and npyguard writes as they are (the
normalisation is tests/numpy/gen_repr.py's). Exits 1 on any other difference, printing the
first few.

It builds nothing when the CLI is there: it runs $NPYGUARD_BIN, else target/debug/npyguard
(which `cargo test --all-features` builds in CI), running `cargo build --features cli` first
only when that binary is missing.

Usage: python3 tests/numpy/repr_differential.py [--count N] [--seed S] [--examples K]
"""

import argparse
import glob
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from gen_repr import deviation, reprs  # noqa: E402

MAX_HEADER = ["--max-header-bytes", "1048576"]


def binary():
    path = os.environ.get("NPYGUARD_BIN") or os.path.join(ROOT, "target", "debug", "npyguard")
    if not os.path.exists(path):
        print(f"{path} missing: cargo build --features cli", flush=True)
        subprocess.run(["cargo", "build", "--features", "cli"], cwd=ROOT, check=True)
        path = os.path.join(ROOT, "target", "debug", "npyguard")
    return path


# ---------------------------------------------------------------- random arrays --

CHARS = (
    list("abcxyz019 '\"\\")
    + ["\t", "\n", "\r", "\x00", "\x01", "\x7f", "\x80", "\xa0", "\xad", "é", "ÿ", "Ā"]
    + ["€", "日", "本", "\u200b", "\u2028", "\ufeff", "\U0001f600", "\U0010ffff", "\ue000"]
    + ["\u0378", "\ud7ff", "\uffff"]  # unassigned (Cn): the documented deviation
)
UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"]


def random_shape(rng):
    kind = rng.random()
    if kind < 0.1:
        return ()
    if kind < 0.18:
        dims = [int(rng.integers(0, 4)) for _ in range(int(rng.integers(1, 4)))]
        dims[int(rng.integers(0, len(dims)))] = 0
        return tuple(dims)
    if kind < 0.3:
        return (int(rng.integers(1001, 3000)),)
    if kind < 0.4:
        return tuple(int(x) for x in rng.integers(1, 40, int(rng.integers(2, 4))))
    if kind < 0.45:
        return tuple(int(x) for x in rng.integers(1, 9, 4))
    ndim = int(rng.integers(1, 4))
    return tuple(int(x) for x in rng.integers(1, 8, ndim))


def float_values(rng, n, dtype):
    dt = np.dtype(dtype)
    style = rng.integers(0, 6)
    if style == 0:  # random bit patterns: every kind of value, NaN payloads included
        bits = rng.integers(0, 2 ** (8 * dt.itemsize), n, dtype=np.uint64, endpoint=False)
        return bits.astype(f"u{dt.itemsize}").view(dt.newbyteorder("="))
    if style == 1:  # one magnitude: positional notation likely
        return (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 6)).astype(dt)
    if style == 2:  # short decimals
        return (rng.integers(-10**6, 10**6, n) / 10.0 ** rng.integers(0, 6)).astype(dt)
    if style == 3:  # wide ranges: scientific notation
        return (rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)).astype(dt)
    special = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, 0.5, 1e-5, 1e8, 65504.0])
    out = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)
    mask = rng.random(n) < 0.3
    out[mask] = rng.choice(special, int(mask.sum()))
    with np.errstate(over="ignore"):
        return out.astype(dt)


def random_scalar_dtype(rng, depth=0):
    order = rng.choice(["<", ">"])
    kind = rng.integers(0, 13 if depth < 2 else 12)
    if kind == 0:
        return np.dtype("?")
    if kind == 1:
        return np.dtype(str(rng.choice(["i1", "u1"])))
    if kind == 2:
        return np.dtype(order + str(rng.choice(["i2", "i4", "i8", "u2", "u4", "u8"])))
    if kind in (3, 4, 5):
        return np.dtype(order + str(rng.choice(["f2", "f4", "f8"])))
    if kind == 6:
        return np.dtype(order + str(rng.choice(["c8", "c16"])))
    if kind == 7:
        return np.dtype(f"S{int(rng.integers(1, 8))}")
    if kind == 8:
        return np.dtype(f"{order}U{int(rng.integers(1, 8))}")
    if kind == 9:
        return np.dtype(f"V{int(rng.integers(1, 5))}")
    if kind == 10:
        mult = int(rng.choice([1, 1, 1, 2, 3, 25]))
        unit = str(rng.choice(UNITS))
        return np.dtype(f"{order}M8[{'' if mult == 1 else mult}{unit}]")
    if kind == 11:
        unit = str(rng.choice(UNITS + ["generic"]))
        return np.dtype(f"{order}m8" + ("" if unit == "generic" else f"[{unit}]"))
    return random_record(rng, depth + 1)


def random_record(rng, depth):
    fields = []
    for k in range(int(rng.integers(1, 4))):
        base = random_scalar_dtype(rng, depth)
        name = str(rng.choice(["a", "b", "val", "ñ", "日本", "x'y"])) + str(k)
        if rng.random() < 0.3:
            fields.append((name, base, tuple(int(x) for x in rng.integers(0, 4, rng.integers(1, 3)))))
        else:
            fields.append((name, base))
    return np.dtype(fields)


def fill(rng, a):
    """Random values for every element (and field) of `a`, in place."""
    dt = a.dtype
    n = a.size
    if n == 0:
        return
    if dt.names is not None:
        for name in dt.names:
            fill(rng, a[name])
        return
    flat = a.reshape(-1)
    if dt.kind == "b":
        flat[...] = rng.random(n) < 0.5
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        if rng.random() < 0.5:
            flat[...] = rng.integers(info.min, info.max, n, endpoint=True, dtype=dt.newbyteorder("="))
        else:
            flat[...] = rng.integers(max(info.min, -50), min(info.max, 50), n, endpoint=True)
    elif dt.kind == "f":
        flat[...] = float_values(rng, n, dt)
    elif dt.kind == "c":
        part = np.dtype(f"f{dt.itemsize // 2}")
        flat.real = float_values(rng, n, part)
        flat.imag = float_values(rng, n, part)
    elif dt.kind in "Mm":
        unit = np.datetime_data(dt)[0]
        style = rng.integers(0, 3)
        if style == 0:
            v = rng.integers(-(2**63) + 1, 2**63 - 1, n, dtype=np.int64)
        elif style == 1:
            v = rng.integers(-(10**6), 10**6, n, dtype=np.int64)
        else:
            v = rng.integers(-(10**12), 10**12, n, dtype=np.int64)
        v[rng.random(n) < 0.15] = np.iinfo(np.int64).min  # NaT
        if unit == "generic" and dt.kind == "M":
            v[...] = np.iinfo(np.int64).min  # NumPy cannot print other generic datetimes
        flat[...] = v.view(dt.newbyteorder("="))
    elif dt.kind == "S":
        flat[...] = [bytes(rng.integers(0, 256, rng.integers(0, dt.itemsize + 1), dtype=np.uint8)) for _ in range(n)]
    elif dt.kind == "U":
        width = dt.itemsize // 4
        flat[...] = ["".join(rng.choice(CHARS, rng.integers(0, width + 1))) for _ in range(n)]
    elif dt.kind == "V":
        flat[...] = np.frombuffer(bytes(rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8)), dtype=dt)


def random_array(rng):
    shape = random_shape(rng)
    dt = random_scalar_dtype(rng)
    size = int(np.prod(shape)) if shape else 1
    if dt.names is not None and size > 1500:
        shape = (int(rng.integers(1001, 1500)),)
    a = np.zeros(shape, dtype=dt)
    fill(rng, a)
    if a.ndim > 1 and rng.random() < 0.3:
        a = np.asfortranarray(a)
    return a


def float_battery(rng, count):
    """Short float arrays of one dtype: many values through the digit and padding rules."""
    out = []
    for _ in range(count):
        dt = np.dtype(str(rng.choice(["<f2", "<f4", "<f8", ">f4", "<c8"])))
        n = int(rng.integers(1, 12))
        a = np.zeros(n, dtype=dt)
        fill(rng, a)
        out.append(a)
    return out


# ------------------------------------------------------------------ comparison --

def row_case(a, rng):
    """`dump --rows LO..HI` and NumPy's repr of a[LO:HI], for arrays with a first axis."""
    if a.ndim == 0:
        return [], {}
    n = a.shape[0]
    lo = int(rng.integers(0, n + 1))
    hi = int(rng.integers(lo, n + 1))
    part = a[lo:hi]
    try:
        text, full = reprs(part)
        dev = deviation(part, text, full) or {}
    except ValueError:
        return [], {}
    explained = {"rows": dev["repr"]} if "repr" in dev else {}
    return [(["dump", "--rows", f"{lo}..{hi}"], "rows", text)], explained


def compare(bin_path, path, a, results, rng):
    try:
        text, full = reprs(a)
        dev = deviation(a, text, full) or {}
    except ValueError as e:  # NumPy has no repr for it
        results["skipped"].append((path, str(e)))
        return
    rows, rows_dev = row_case(a, rng)
    dev.update(rows_dev)
    cases = [(["dump"], "repr", text), (["dump", "--full"], "full", full)] + rows
    for args, key, want in cases:
        if want is None:
            continue
        r = subprocess.run([bin_path, *args, *MAX_HEADER, path], capture_output=True)
        got = r.stdout.decode("utf-8", "replace")
        results["compared"] += 1
        if got == want + "\n":
            continue
        if key in dev and got == dev[key] + "\n":
            results["explained"] += 1
            continue
        results["diffs"].append((" ".join(args), path, want + "\n", got, r.stderr.decode("utf-8", "replace")))


def show(mode, path, want, got, err):
    """The first differing line of NumPy's text and npyguard's."""
    w, g = want.splitlines(), got.splitlines()
    k = next((i for i, (x, y) in enumerate(zip(w, g)) if x != y), min(len(w), len(g)))
    line = lambda lines: repr(lines[k]) if k < len(lines) else "(end)"  # noqa: E731
    print(f"--- {mode} {path}: line {k + 1} of {len(w)} (npyguard: {len(g)})")
    print(f"  numpy:    {line(w)}\n  npyguard: {line(g)}")
    if err.strip():
        print(f"  stderr:   {err.strip()[:300]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=500, help="random arrays (default 500)")
    ap.add_argument("--floats", type=int, default=300, help="short random float arrays")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--examples", type=int, default=5)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    bin_path = binary()
    results = {"compared": 0, "explained": 0, "diffs": [], "skipped": []}

    fixtures = (
        sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "npy", "*.npy")))
        + sorted(glob.glob(os.path.join(ROOT, "tests", "adversarial", "y_*.npy")))
        + sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "repr", "*.npy")))
    )
    rows_rng = np.random.default_rng(args.seed + 1)
    for path in fixtures:
        compare(bin_path, path, np.load(path, max_header_size=10**6), results, rows_rng)
    n_fixtures = len(fixtures)

    rng = np.random.default_rng(args.seed)
    arrays = [random_array(rng) for _ in range(args.count)] + float_battery(rng, args.floats)
    with tempfile.TemporaryDirectory() as tmp:
        for k, a in enumerate(arrays):
            path = os.path.join(tmp, f"r{k:04d}.npy")
            np.save(path, a)
            compare(bin_path, path, np.load(path), results, rows_rng)

    print(
        f"repr differential: {n_fixtures} fixtures + {len(arrays)} random arrays, "
        f"{results['compared']} comparisons, {len(results['diffs'])} differences, "
        f"{results['explained']} explained by the documented Cn deviation, "
        f"{len(results['skipped'])} without a NumPy repr"
    )
    for diff in results["diffs"][: args.examples]:
        show(*diff)
    return 1 if results["diffs"] else 0


if __name__ == "__main__":
    sys.exit(main())
