#!/usr/bin/env python3
"""DuckDB reads what `npyguard convert --to parquet` writes, and gets NumPy's answers.

Builds the CLI once with `cargo build --features cli-datasets` and runs that binary
(the same program `cargo run -q --features cli-datasets -- convert ...` runs), then:

1. columns: every 1-D (`*__C__7.npy`) and 2-D (`*__C__2x3.npy`, `*__F__2x3.npy`)
   numeric fixture (b1, i1, u1, i2/i4/i8/u2/u4/u8/f2/f4/f8 in both byte orders)
   becomes a Parquet file whose DuckDB column types are the dtype's (BOOLEAN,
   TINYINT..BIGINT, UTINYINT..UBIGINT, FLOAT, DOUBLE; f2 is read as FLOAT) and whose
   values are NumPy's, bit for bit (NaN payloads, infinities, -0.0, subnormals);
2. rowlists: each 2-D fixture's rows come back as DuckDB lists equal to NumPy's rows;
3. nonzeros: each 2-D and 1-D fixture's (row_no, col_no, val) equal np.nonzero and
   a[np.nonzero(a)], col_no is SMALLINT, and sturdy.numpy's query

       SELECT row_no, list(col_no ORDER BY col_no) AS inds,
              list(val ORDER BY col_no) AS vals
       FROM staging GROUP BY row_no

   returns NumPy's per-row column indices and values;
4. a 20 000 x 2 000 float32 array at 1 % density (NumPy, fixed seed, plus a few NaN
   and -0.0), saved in C and in Fortran order to a temp dir: the nonzeros Parquet
   equals np.nonzero exactly (positions and values, bit for bit), and the GROUP BY
   query agrees with NumPy row by row; times are printed;
5. CSV output (columns and nonzeros) read by DuckDB's read_csv has NumPy's values.

Arrow IPC output is checked by the Rust tests (DuckDB needs a downloaded extension
for it). Skips with exit 0 when duckdb is not installed. Exits 1 on any mismatch.

Usage: python3 tests/numpy/duckdb_datasets.py [--keep DIR]
"""

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

try:
    import duckdb
except ImportError:  # CI installs it; say so and skip otherwise.
    print("duckdb_datasets: duckdb not installed (pip install duckdb): skipped")
    sys.exit(0)

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "npy"

NUMERIC = ["b1", "i1", "u1"] + [f"{e}_{t}" for t in
                                ["i2", "i4", "i8", "u2", "u4", "u8", "f2", "f4", "f8"]
                                for e in ["lt", "be"]]
DUCK_TYPE = {
    "b": {1: "BOOLEAN"},
    "i": {1: "TINYINT", 2: "SMALLINT", 4: "INTEGER", 8: "BIGINT"},
    "u": {1: "UTINYINT", 2: "USMALLINT", 4: "UINTEGER", 8: "UBIGINT"},
    "f": {2: "FLOAT", 4: "FLOAT", 8: "DOUBLE"},
}

failures = []
checks = 0


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def ok(cond, msg):
    global checks
    checks += 1
    if not cond:
        fail(msg)
    return cond


def build_cli():
    """Builds the CLI with dataset support; returns the executable's path."""
    out = subprocess.run(
        ["cargo", "build", "-q", "--features", "cli-datasets", "--bin", "npyguard",
         "--message-format=json"],
        cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True,
    ).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable"):
            if msg["target"]["name"] == "npyguard":
                return msg["executable"]
    raise SystemExit("cargo build did not report the npyguard executable")


def convert(exe, src, dst, to="parquet", layout="columns", extra=()):
    cmd = [exe, "convert", str(src), "-o", str(dst), "--to", to, "--layout", layout, *extra]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()}")
        return False
    return True


def duck_types(con, relation):
    return [(row[0], row[1]) for row in con.sql(f"DESCRIBE SELECT * FROM {relation}").fetchall()]


def as_numpy(col):
    """A fetchnumpy() column as a plain ndarray (no NULLs are expected)."""
    if isinstance(col, np.ma.MaskedArray):
        if col.mask is not np.ma.nomask and col.mask.any():
            raise AssertionError("unexpected NULLs")
        col = col.data
    return np.asarray(col)


def same_values(got, want):
    """Equal dtype family and values; floats compared bit for bit at the expected width."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return False
    want = want.astype(want.dtype.newbyteorder("="))
    if want.dtype.kind == "f":
        if got.dtype != want.dtype:
            return False
        u = {4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
        return np.array_equal(got.view(u), want.view(u))
    return got.dtype.kind == want.dtype.kind and np.array_equal(got, want)


def floats_equal(a, b):
    """One value pair: NaN-aware, -0.0 distinct from +0.0."""
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b


def check_columns(exe, con, tmp, path, a, tag):
    out = tmp / (path.stem + ".columns.parquet")
    if not convert(exe, path, out):
        return
    rel = f"read_parquet('{out}')"
    a2 = a.reshape(-1, 1) if a.ndim == 1 else a
    want_names = [f"c{j + 1}" for j in range(a2.shape[1])]
    want_type = DUCK_TYPE[a.dtype.kind][a.dtype.itemsize]
    types = duck_types(con, rel)
    ok([n for n, _ in types] == want_names, f"{path.name}: columns {types}")
    ok(all(t == want_type for _, t in types), f"{path.name}: types {types}, want {want_type}")
    got = con.sql(f"SELECT * FROM {rel}").fetchnumpy()
    for j, name in enumerate(want_names):
        col = as_numpy(got[name])
        want = a2[:, j]
        if a.dtype.kind == "f" and a.dtype.itemsize == 2:
            want = want.astype(np.float32)  # DuckDB reads Float16 as FLOAT (exact widening)
        ok(same_values(col, want), f"{path.name} {name}: {col!r} != {want!r}")


def check_rowlists(exe, con, tmp, path, a):
    out = tmp / (path.stem + ".rowlists.parquet")
    if not convert(exe, path, out, layout="rowlists"):
        return
    rel = f"read_parquet('{out}')"
    types = duck_types(con, rel)
    base = DUCK_TYPE[a.dtype.kind][a.dtype.itemsize]
    ok(types == [("c1", base + "[]")], f"{path.name} rowlists: {types}")
    rows = [r[0] for r in con.sql(f"SELECT c1 FROM {rel}").fetchall()]
    ok(len(rows) == a.shape[0], f"{path.name} rowlists: {len(rows)} rows")
    for r, got in enumerate(rows):
        want = a[r].tolist()
        ok(len(got) == len(want) and all(floats_equal(x, y) for x, y in zip(got, want)),
           f"{path.name} row {r}: {got} != {want}")


GROUP_BY = """
    SELECT row_no,
           list(col_no ORDER BY col_no) AS inds,
           list(val    ORDER BY col_no) AS vals
    FROM {rel}
    GROUP BY row_no
    ORDER BY row_no
"""


def check_group_by(con, rel, a2, label, sample=None):
    """sturdy.numpy's query against NumPy, for every row (or `sample` rows)."""
    groups = con.sql(GROUP_BY.format(rel=rel)).fetchall()
    nz_rows = np.unique(np.nonzero(a2)[0])
    ok([g[0] for g in groups] == nz_rows.tolist(), f"{label}: GROUP BY rows")
    picked = groups if sample is None else groups[::max(1, len(groups) // sample)]
    for row_no, inds, vals in picked:
        want_inds = np.nonzero(a2[row_no])[0]
        want_vals = a2[row_no][want_inds].tolist()
        good = inds == want_inds.tolist() and len(vals) == len(want_vals) and all(
            floats_equal(x, y) for x, y in zip(vals, want_vals))
        if not ok(good, f"{label}: row {row_no}: {inds} {vals} != {want_inds.tolist()} {want_vals}"):
            break


def check_nonzeros(exe, con, tmp, path, a, extra=(), group_sample=None):
    out = tmp / (path.stem + ".nonzeros.parquet")
    t0 = time.perf_counter()
    if not convert(exe, path, out, layout="nonzeros", extra=extra):
        return None
    elapsed = time.perf_counter() - t0
    rel = f"read_parquet('{out}')"
    a2 = a.reshape(-1, 1) if a.ndim == 1 else a
    types = dict(duck_types(con, rel))
    want_col = "SMALLINT" if a2.shape[1] <= 32767 else "INTEGER"
    val_type = DUCK_TYPE[a.dtype.kind][a.dtype.itemsize]
    ok(types == {"row_no": "BIGINT", "col_no": want_col, "val": val_type},
       f"{path.name} nonzeros types {types}")
    got = con.sql(f"SELECT row_no, col_no, val FROM {rel}").fetchnumpy()
    r, c = np.nonzero(a2)
    vals = a2[r, c]
    if a.dtype.kind == "f" and a.dtype.itemsize == 2:
        vals = vals.astype(np.float32)
    ok(np.array_equal(as_numpy(got["row_no"]), r), f"{path.name}: row_no != np.nonzero rows")
    ok(np.array_equal(as_numpy(got["col_no"]), c), f"{path.name}: col_no != np.nonzero cols")
    ok(same_values(as_numpy(got["val"]), vals), f"{path.name}: val != a[np.nonzero(a)]")
    check_group_by(con, rel, a2, f"{path.name} GROUP BY", sample=group_sample)
    return elapsed


def check_csv(exe, con, tmp):
    for name, layout in [("lt_i4__F__2x3.npy", "columns"), ("be_f8__C__2x3.npy", "nonzeros"),
                         ("lt_u8__C__2x3.npy", "columns")]:
        path = FIXTURES / name
        a = np.load(path)
        out = tmp / (path.stem + f".{layout}.csv")
        if not convert(exe, path, out, to="csv", layout=layout):
            continue
        rel = f"read_csv('{out}', header = true)"
        got = con.sql(f"SELECT * FROM {rel}").fetchall()
        if layout == "columns":
            want = [tuple(row) for row in a.tolist()]
        else:
            r, c = np.nonzero(a)
            want = list(zip(r.tolist(), c.tolist(), a[r, c].tolist()))
        good = len(got) == len(want) and all(
            len(x) == len(y) and all(floats_equal(p, q) for p, q in zip(x, y))
            for x, y in zip(got, want))
        ok(good, f"{name} csv {layout}: {got} != {want}")


def big_array():
    rng = np.random.default_rng(20_000_2_000)
    a = np.zeros((20_000, 2_000), dtype=np.float32)
    mask = rng.random(a.shape) < 0.01
    a[mask] = rng.standard_normal(int(mask.sum())).astype(np.float32)
    # A few values np.nonzero treats specially: NaN is non-zero, -0.0 is zero.
    a[rng.integers(0, 20_000, 50), rng.integers(0, 2_000, 50)] = np.nan
    a[rng.integers(0, 20_000, 50), rng.integers(0, 2_000, 50)] = -0.0
    return a


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keep", type=Path, help="write outputs here and keep them")
    args = parser.parse_args()

    exe = build_cli()
    con = duckdb.connect()
    ctx = tempfile.TemporaryDirectory() if args.keep is None else None
    tmp = Path(ctx.name) if ctx else args.keep
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        converted = 0
        for tag in NUMERIC:
            for shape in ["C__2x3", "F__2x3", "C__7"]:
                path = FIXTURES / f"{tag}__{shape}.npy"
                a = np.load(path)
                check_columns(exe, con, tmp, path, a, tag)
                if a.ndim == 2:
                    check_rowlists(exe, con, tmp, path, a)
                check_nonzeros(exe, con, tmp, path, a)
                converted += 1
        print(f"fixtures: {converted} numeric fixtures converted 3 ways and checked")
        check_csv(exe, con, tmp)

        a = big_array()
        t0 = time.perf_counter()
        r, c = np.nonzero(a)
        v = a[r, c]
        t_np = time.perf_counter() - t0
        print(f"20000x2000 float32: {len(r)} non-zeros; NumPy np.nonzero + a[r, c]: {t_np * 1e3:.0f} ms")
        for order in ["C", "F"]:
            path = tmp / f"big_{order}.npy"
            np.save(path, np.asarray(a, order=order))
            took = check_nonzeros(exe, con, tmp, path, a, group_sample=2000)
            if took is not None:
                print(f"  npyguard convert --to parquet --layout nonzeros ({order} order, debug "
                      f"build, read + scan + parquet write): {took * 1e3:.0f} ms")
            path.unlink()
    finally:
        if ctx:
            ctx.cleanup()

    if failures:
        print(f"duckdb_datasets: {len(failures)} failed, {checks - len(failures)} passed")
        sys.exit(1)
    print(f"duckdb_datasets: {checks} passed, 0 failed")


if __name__ == "__main__":
    main()
