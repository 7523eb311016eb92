#!/usr/bin/env python3
"""The DuckDB extension (duckdb-npy/) returns NumPy's values with DuckDB's exact types.

Builds the extension with `bash duckdb-npy/build.sh` (its last line is the path; or takes
it from NPY_DUCKDB_EXTENSION), loads it unsigned into Python's duckdb, which must be the
version pinned in duckdb-npy/duckdb-version.txt, and checks against np.load:

1. every fixture of tests/fixtures/npy (every dtype, shape and order; records are
   refused with an error) in the three layouts: `columns` (types per column, values bit
   for bit for floats), `rowlists` (c1 is T[N]; unnest gives the C-order elements),
   `nonzeros` (row_no, col_no, val = np.nonzero of the array seen as rows x columns);
   arrays whose layout does not apply (rows of zero elements, rowlists of 0-d/1-D or
   complex arrays, non-zeros of strings) give a DuckDB error;
2. projection pushdown (any one column alone), globs (C and Fortran files concatenated
   in sorted order, `filename`), a glob with a file of another dtype or trailing shape
   (an error naming that file), max_file_bytes and numpy_strict;
3. read_npz on every array of tests/fixtures/npz;
4. a (1000, 8) float32 file gives FLOAT[8] through read_npy(layout := 'rowlists'),
   through `npyguard convert --to arrow --layout rowlists` read with pyarrow, and
   through `--to parquet` with the README's cast `c1::FLOAT[8]`;
5. every hostile file of the Rust suites (tests/adversarial/n_*.npy, tests/hostile/*.npy and
   those cases rebuilt here, truncated and corrupted copies of fixtures) yields a
   DuckDB error naming the file (and the byte offset where npyguard has one), and the
   same connection keeps answering queries afterwards.

No pytest: exits 1 on any mismatch, prints a count of checks.
Usage: python3 tests/numpy/duckdb_extension.py
"""

import glob as globmod
import json
import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import warnings

import numpy as np
import duckdb

# y_python2_long_dims.npy makes NumPy warn that it parsed a Python 2 header.
warnings.filterwarnings("ignore", message="Reading `.npy` or `.npz` file required additional")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "common"))
from duckdb_ext import extension_path, lit  # noqa: E402
FIXTURES = ROOT / "tests" / "fixtures"
PIN = (ROOT / "duckdb-npy" / "duckdb-version.txt").read_text().strip()

failures = []
checks = 0


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        fail(msg)
    return cond


# ---------------------------------------------------------------- types and values

def duck_type(dt):
    """The DuckDB type the extension gives a NumPy dtype (duckdb-npy/src/types.rs)."""
    k, n = dt.kind, dt.itemsize
    if k == "b":
        return "BOOLEAN"
    if k == "i":
        return {1: "TINYINT", 2: "SMALLINT", 4: "INTEGER", 8: "BIGINT"}[n]
    if k == "u":
        return {1: "UTINYINT", 2: "USMALLINT", 4: "UINTEGER", 8: "UBIGINT"}[n]
    if k == "f":
        return {2: "FLOAT", 4: "FLOAT", 8: "DOUBLE"}[n]
    if k == "c":
        part = "FLOAT" if n == 8 else "DOUBLE"
        return f"STRUCT(re {part}, im {part})"
    if k in "SV":
        return "BLOB"
    if k == "U":
        return "VARCHAR"
    unit, count = np.datetime_data(dt)
    if k == "M" and count == 1 and unit in ("s", "ms", "us", "ns"):
        return {"s": "TIMESTAMP_S", "ms": "TIMESTAMP_MS", "us": "TIMESTAMP", "ns": "TIMESTAMP_NS"}[unit]
    if k == "m" and count == 1 and unit == "us":
        return "INTERVAL"
    if k == "M" and count == 1 and unit == "D":
        return "DATE"
    return "BIGINT"


def float_bits(x, dt):
    """Bits of a float (f2 widened to f4 as NumPy does)."""
    if dt.itemsize <= 4:
        return int(np.float32(x).view(np.uint32))
    return int(np.float64(x).view(np.uint64))


def probes(col, dt):
    """SQL expressions that expose a column's values exactly, and for each how to read
    NumPy's value the same way. Floats are compared through fetchnumpy (no conversion)."""
    k = dt.kind
    t = duck_type(dt)
    if k == "f":
        return [(col, "np", lambda x: float_bits(x, dt))]
    if k == "c":
        return [(f"({col}).re", "np", lambda x: float_bits(x.real, np.dtype(f"f{dt.itemsize // 2}"))),
                (f"({col}).im", "np", lambda x: float_bits(x.imag, np.dtype(f"f{dt.itemsize // 2}")))]
    if k in "bi" or k == "u":
        return [(col, "py", lambda x: x.item())]
    if k in "SU":
        return [(col, "py", lambda x: x.item())]
    if k == "V":
        return [(col, "py", lambda x: x.tobytes())]
    count = lambda x: None if np.isnat(x) else int(x.view(np.int64))
    if t == "INTERVAL":
        return [(f"epoch_us({col})", "py", count)]
    if t == "DATE":
        # Days since the epoch (DuckDB's date subtraction), exact for every DATE.
        return [(f"({col} - DATE '1970-01-01')", "py", count)]
    if t.startswith("TIMESTAMP"):
        fn = {"TIMESTAMP_S": "epoch", "TIMESTAMP_MS": "epoch_ms", "TIMESTAMP": "epoch_us",
              "TIMESTAMP_NS": "epoch_ns"}[t]
        expr = f"{fn}({col})" + ("::BIGINT" if fn == "epoch" else "")
        # The extension refuses the counts DuckDB would read as +-infinity (and any count
        # outside DuckDB's range, see stamp_ok): an infinity here is a failure.
        return [(f"CASE WHEN isinf({col}) THEN {col}::VARCHAR ELSE {expr}::VARCHAR END", "py",
                 lambda x: None if np.isnat(x) else str(int(x.view(np.int64))))]
    return [(col, "py", count)]


# DuckDB's finite instants per timestamp type, in its unit (duckdb-npy/src/write.rs,
# stamp_range): 290309-12-22 (BC) to 294247-01-10 04:00:54.775806 in microseconds (to
# 04:00:54 in milliseconds: later ones fail DuckDB's cast to TIMESTAMP_S); the
# counts +-(2**63 - 1) are DuckDB's +-infinity, NaT (-2**63) is NULL.
STAMP_RANGE = {
    "TIMESTAMP_S": (-9223372022400, 9223372036854),
    "TIMESTAMP_MS": (-9223372022400000, 9223372036854000),
    "TIMESTAMP": (-9223372022400000000, 2**63 - 2),
    "DATE": (-(2**31 - 2), 2**31 - 2),
    "TIMESTAMP_NS": (-2**63 + 2, 2**63 - 2),
}


def stamp_bad(dt, values):
    """Indices of `values` (datetime64 of `dt`) that DuckDB's timestamp type cannot hold."""
    t = duck_type(dt)
    if t not in STAMP_RANGE:
        return []
    lo, hi = STAMP_RANGE[t]
    counts = np.asarray(values, dtype=dt).astype(dt.newbyteorder("=")).view(np.int64)
    return [i for i, c in enumerate(counts.tolist()) if c != -2**63 and not lo <= c <= hi]


def fetch(con, exprs, source):
    """Rows of `SELECT exprs FROM source` as columns: fetchnumpy for 'np' probes (bits),
    fetchall for the others."""
    out = []
    for e, mode, _ in exprs:
        q = f"SELECT {e} AS v FROM {source}"
        if mode == "np":
            arr = con.execute(q).fetchnumpy()["v"]
            arr = np.asarray(arr)
            bits = arr.view(np.uint32 if arr.dtype == np.float32 else np.uint64)
            out.append([int(b) for b in bits])
        else:
            out.append([r[0] for r in con.execute(q).fetchall()])
    return out


def compare(con, source, col, dt, values, what):
    """Column `col` of `source` equals the NumPy `values` (1-D, in row order)."""
    ps = probes(col, dt)
    got = fetch(con, ps, source)
    for (e, _, conv), g in zip(ps, got):
        want = [conv(x) for x in values]
        if not check(g == want, f"{what}: {e}: got {g[:8]}..., want {want[:8]}..."):
            return False
    return True


def describe(con, source):
    return [(r[0], r[1]) for r in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()]


def expect_error(con, sql, what, path=None, offset=False):
    try:
        con.execute(sql).fetchall()
    except duckdb.Error as e:
        msg = str(e)
        if path is not None:
            check(str(path) in msg, f"{what}: the error names the file: {msg}")
        if offset:
            check(" at byte " in msg, f"{what}: the error gives a byte offset: {msg}")
        check(con.execute("SELECT 42").fetchall() == [(42,)], f"{what}: the connection still answers")
        return msg
    fail(f"{what}: no error for {sql}")
    return None


# ---------------------------------------------------------------- 1. fixtures

def as_table(a):
    if a.ndim == 0:
        return a.reshape(1, 1)
    return a.reshape(a.shape[0], int(np.prod(a.shape[1:], dtype=np.int64)))


def check_file(con, path):
    """`path` in the three layouts against np.load; 'covered', 'refused' or 'empty'."""
    a = np.load(path, max_header_size=1 << 20)
    src = f"read_npy({lit(path)})"
    if a.dtype.names is not None:
        expect_error(con, f"SELECT * FROM {src}", f"{path.name} (records)", path)
        return "refused"
    m = as_table(a)
    rows, cols = m.shape
    t = duck_type(a.dtype)
    what = path.name
    # DuckDB reads column c1 for count(*): with a timestamp DuckDB cannot hold, count the
    # raw counts' rows instead.
    any_bad = bool(stamp_bad(a.dtype, m.reshape(-1)))
    counted = lambda extra="": f"read_npy({lit(path)}{extra}" + (", datetime_counts := true)" if any_bad else ")")
    # columns
    if cols == 0:
        expect_error(con, f"SELECT * FROM {src}", f"{what} columns (rows without elements)", path)
    else:
        d = describe(con, src)
        check(d == [(f"c{j + 1}", t) for j in range(cols)], f"{what}: columns {d[:3]}... want {t}")
        check(con.execute(f"SELECT count(*) FROM {counted()}").fetchall() == [(rows,)], f"{what}: count(*)")
        for j in range(cols):
            bad = stamp_bad(a.dtype, m[:, j])
            if bad:
                # A count outside DuckDB's range: an error naming the file, row and column.
                msg = expect_error(con, f"SELECT c{j + 1} FROM {src}", f"{what} c{j + 1} (out of range)", path)
                check(msg is not None and any(f"row {r}, column c{j + 1}:" in msg for r in bad),
                      f"{what} c{j + 1}: the error names a bad row and the column: {msg}")
                # datetime_counts := true reads the counts.
                cs = f"read_npy({lit(path)}, datetime_counts := true)"
                got = [r[0] for r in con.execute(f"SELECT c{j + 1} FROM {cs}").fetchall()]
                want = [None if np.isnat(x) else int(x.view(np.int64)) for x in m[:, j]]
                check(got == want, f"{what} c{j + 1} datetime_counts: {got[:4]} want {want[:4]}")
                continue
            compare(con, src, f"c{j + 1}", a.dtype, list(m[:, j]), f"{what} c{j + 1}")
    # rowlists
    rl = f"read_npy({lit(path)}, layout := 'rowlists')"
    if a.ndim < 2 or cols == 0 or a.dtype.kind == "c":
        expect_error(con, f"SELECT * FROM {rl}", f"{what} rowlists (not applicable)")
    else:
        d = describe(con, rl)
        check(d == [("c1", f"{t}[{cols}]")], f"{what}: rowlists type {d}")
        rl_count = counted(", layout := 'rowlists'")
        check(con.execute(f"SELECT count(*) FROM {rl_count}").fetchall() == [(rows,)], f"{what}: rowlists rows")
        if any_bad:
            expect_error(con, f"SELECT * FROM {rl}", f"{what} rowlists (out of range)", path)
        else:
            compare(con, f"(SELECT unnest(c1) AS e FROM {rl})", "e", a.dtype, list(m.reshape(-1)),
                    f"{what} rowlists")
    # nonzeros
    nz = f"read_npy({lit(path)}, layout := 'nonzeros')"
    if a.dtype.kind in "SUV":
        expect_error(con, f"SELECT * FROM {nz}", f"{what} nonzeros of strings")
    else:
        col_t = "SMALLINT" if cols <= 32767 else "INTEGER"
        d = describe(con, nz)
        check(d == [("row_no", "BIGINT"), ("col_no", col_t), ("val", t)], f"{what}: nonzeros types {d}")
        r, c = np.nonzero(m.view(np.int64) if a.dtype.kind in "mM" else m)
        got = con.execute(f"SELECT row_no, col_no FROM {nz}").fetchall()
        check(got == list(zip(r.tolist(), c.tolist())), f"{what}: nonzero positions {got[:5]}")
        if stamp_bad(a.dtype, m[r, c]):
            expect_error(con, f"SELECT val FROM {nz}", f"{what} nonzeros val (out of range)", path)
        else:
            compare(con, nz, "val", a.dtype, list(m[r, c]), f"{what} nonzeros val")
    return "covered" if cols else "empty"


def fixture_checks(con):
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    seen = {"covered": 0, "refused": 0, "empty": 0}
    for entry in manifest:
        if entry["file"].startswith("npy/"):
            seen[check_file(con, FIXTURES / entry["file"])] += 1
    # The accepted files of the adversarial corpus (y_*) too.
    for path in sorted((FIXTURES.parent / "adversarial").glob("y_*.npy")):
        seen[check_file(con, path)] += 1
    check(seen["covered"] > 300, f"fixtures covered: {seen}")
    print(f"fixtures: {seen['covered']} read in every layout that applies, {seen['empty']} with rows of "
          f"no element (an error in columns/rowlists), {seen['refused']} record files refused")


# ---------------------------------------------------------------- 2. scans

def scan_checks(con, tmp):
    rng = np.random.default_rng(19)
    parts = [rng.standard_normal((n, 4)).astype(np.float32) for n in (5000, 1, 0, 3000)]
    names = []
    for i, p in enumerate(parts):
        name = tmp / f"part_{i}.npy"
        np.save(name, np.asfortranarray(p) if i % 2 else p)
        names.append(name)
    src = f"read_npy({lit(tmp / 'part_*.npy')}, filename := true)"
    whole = np.concatenate(parts)
    check(describe(con, src)[-1] == ("filename", "VARCHAR"), "glob: filename column")
    for j in range(4):
        compare(con, src, f"c{j + 1}", whole.dtype, list(whole[:, j]), f"glob c{j + 1}")
    files = [r[0] for r in con.execute(f"SELECT filename FROM {src}").fetchall()]
    want = [str(n) for n, p in zip(names, parts) for _ in range(len(p))]
    check(files == want, "glob: filename values in sorted file order")
    # projection: each column alone, and the file name alone
    for j in range(4):
        got = con.execute(f"SELECT c{j + 1} FROM {src}").fetchnumpy()["c" + str(j + 1)]
        check(np.array_equal(np.asarray(got).view(np.uint32), whole[:, j].view(np.uint32)),
              f"projection c{j + 1}")
    with_rows = sum(1 for p in parts if len(p))
    check(con.execute(f"SELECT count(DISTINCT filename) FROM {src}").fetchall() == [(with_rows,)],
          "projection: filename alone")
    check(con.execute(f"SELECT sum(c2)::DOUBLE, count(*) FROM {src}").fetchall()[0][1] == len(whole), "count")
    # a file of another dtype, and one of another trailing shape, in the glob
    np.save(tmp / "part_9.npy", np.zeros((2, 4), np.float64))
    expect_error(con, f"SELECT * FROM {src}", "glob with a float64 file", tmp / "part_9.npy")
    np.save(tmp / "part_9.npy", np.zeros((2, 5), np.float32))
    expect_error(con, f"SELECT * FROM {src}", "glob with 5 columns", tmp / "part_9.npy")
    os.remove(tmp / "part_9.npy")
    expect_error(con, f"SELECT * FROM read_npy({lit(tmp / 'none_*.npy')})", "glob without matches")
    expect_error(con, f"SELECT * FROM read_npy({lit(tmp / 'missing.npy')})", "missing file", tmp / "missing.npy")
    # options
    big = tmp / "part_0.npy"
    expect_error(con, f"SELECT * FROM read_npy({lit(big)}, max_file_bytes := 1000)", "max_file_bytes", big, True)
    check(con.execute(f"SELECT count(*) FROM read_npy({lit(big)}, max_file_bytes := {big.stat().st_size})")
          .fetchall() == [(5000,)], "max_file_bytes: a file of exactly the limit")
    extra = FIXTURES.parent / "adversarial" / "i_extra_key.npy"
    con.execute(f"SELECT * FROM read_npy({lit(extra)})").fetchall()
    expect_error(con, f"SELECT * FROM read_npy({lit(extra)}, numpy_strict := true)", "numpy_strict", extra, True)
    expect_error(con, f"SELECT * FROM read_npy({lit(big)}, layout := 'rows')", "bad layout")
    # a large Fortran file: chunks and vectors
    f = np.asfortranarray(rng.integers(-9, 9, (70000, 3), dtype=np.int16))
    np.save(tmp / "fortran.npy", f)
    got = con.execute(f"SELECT c1, c2, c3 FROM read_npy({lit(tmp / 'fortran.npy')})").fetchnumpy()
    check(all(np.array_equal(got[f"c{j + 1}"], f[:, j]) for j in range(3)), "70000 x 3 Fortran int16")
    got = con.execute(f"SELECT c3 FROM read_npy({lit(tmp / 'fortran.npy')})").fetchnumpy()
    check(np.array_equal(got["c3"], f[:, 2]), "70000 x 3 Fortran int16: c3 alone")
    # Several units of work (8 MiB each) on 4 threads: the rows still come in file order
    # (DuckDB runs an order-preserving sink single-threaded) and the aggregates agree.
    big = rng.standard_normal(3_000_001)
    np.save(tmp / "units.npy", big)
    np.save(tmp / "units_F.npy", np.asfortranarray(big[:3_000_000].reshape(1_000_000, 3)))
    con.execute("SET threads = 4")
    got = con.execute(f"SELECT c1 FROM read_npy({lit(tmp / 'units.npy')})").fetchnumpy()["c1"]
    check(np.array_equal(np.asarray(got).view(np.uint64), big.view(np.uint64)), "3 units: rows in file order")
    s = con.execute(f"SELECT sum(c1), count(*), min(c1), max(c1) FROM read_npy({lit(tmp / 'units.npy')})").fetchall()[0]
    check(abs(s[0] - big.sum()) < 1e-6 and s[1:] == (len(big), big.min(), big.max()), f"3 units: aggregates {s}")
    f = big[:3_000_000].reshape(1_000_000, 3)
    got = con.execute(f"SELECT c2, c3 FROM read_npy({lit(tmp / 'units_F.npy')}) LIMIT 10 OFFSET 999990").fetchall()
    check(got == [tuple(r) for r in f[999990:, 1:].tolist()], "Fortran units: the last rows")
    s = con.execute(f"SELECT sum(c3) FROM read_npy({lit(tmp / 'units_F.npy')})").fetchall()[0][0]
    check(abs(s - f[:, 2].sum()) < 1e-6, "Fortran units: sum(c3)")
    con.execute("RESET threads")
    print("scans: globs, filename, projection, options, units on 4 threads checked")


# ---------------------------------------------------------------- 3. npz

def npz_checks(con, tmp):
    # A member of many chunks (1 MiB each), compressed, in both orders; LIMIT stops early;
    # a corrupted member is an error naming the archive.
    big = np.random.default_rng(3).integers(0, 1000, (400_000, 3)).astype(np.float64)
    path = tmp / "big.npz"
    np.savez_compressed(path, c=big, f=np.asfortranarray(big))
    for member in ("c", "f"):
        src = f"read_npz({lit(path)}, member := '{member}')"
        got = con.execute(f"SELECT c1, c2, c3 FROM {src}").fetchnumpy()
        check(all(np.array_equal(got[f"c{j + 1}"], big[:, j]) for j in range(3)), f"big.npz:{member} in order")
        check(con.execute(f"SELECT c2 FROM {src} LIMIT 3").fetchall() == [(x,) for x in big[:3, 1]],
              f"big.npz:{member} LIMIT 3")
    stored = tmp / "stored.npz"
    np.savez(stored, a=big[:1000])
    data = bytearray(stored.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad = tmp / "bad_crc.npz"
    bad.write_bytes(bytes(data))
    expect_error(con, f"SELECT sum(c1) FROM read_npz({lit(bad)}, member := 'a')", "npz with a bad CRC", bad)
    n = 0
    for path in sorted((FIXTURES / "npz").glob("*.npz")):
        with np.load(path) as z:
            members = {k: z[k] for k in z.files}
        for name, a in members.items():
            if a.dtype.names is not None or a.dtype.kind == "O":
                continue
            m = as_table(a)
            src = f"read_npz({lit(path)}, member := {lit(name)})"
            if m.shape[1] == 0:
                expect_error(con, f"SELECT * FROM {src}", f"{path.name}:{name} (rows without elements)")
                continue
            t = duck_type(a.dtype)
            check(describe(con, src) == [(f"c{j + 1}", t) for j in range(m.shape[1])], f"{path.name}:{name} types")
            for j in range(m.shape[1]):
                compare(con, src, f"c{j + 1}", a.dtype, list(m[:, j]), f"{path.name}:{name} c{j + 1}")
            n += 1
        if len(members) > 1:
            expect_error(con, f"SELECT * FROM read_npz({lit(path)})", f"{path.name} without member", path)
        expect_error(con, f"SELECT * FROM read_npz({lit(path)}, member := 'nope')", f"{path.name}: no member", path)
    check(n > 5, f"npz members read: {n}")
    print(f"npz: {n} members")


# ---------------------------------------------------------------- 4. FLOAT[8]

def build_cli():
    out = subprocess.run(
        ["cargo", "build", "-q", "--features", "cli-datasets", "--bin", "npyguard", "--message-format=json"],
        cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and msg["target"]["name"] == "npyguard":
            return msg["executable"]
    raise SystemExit("cargo build did not report the npyguard executable")


def fixed_size_checks(con, tmp):
    import pyarrow.ipc
    emb = np.random.default_rng(8).standard_normal((1000, 8)).astype(np.float32)
    path = tmp / "emb.npy"
    np.save(path, emb)
    src = f"read_npy({lit(path)}, layout := 'rowlists')"
    check(describe(con, src) == [("c1", "FLOAT[8]")], "read_npy rowlists: FLOAT[8]")
    check(con.execute(f"SELECT array_cosine_similarity(c1, c1) FROM {src} LIMIT 1").fetchall()[0][0] > 0.99,
          "an array function takes the FLOAT[8] column")
    exe = build_cli()
    arrow = tmp / "emb.arrow"
    subprocess.run([exe, "convert", str(path), "-o", str(arrow), "--to", "arrow", "--layout", "rowlists"],
                   check=True)
    with pyarrow.ipc.open_file(arrow) as f:
        con.register("emb_arrow", f.read_all())
    check(describe(con, "emb_arrow") == [("c1", "FLOAT[8]")], "Arrow IPC rowlists via pyarrow: FLOAT[8]")
    same = con.execute(f"SELECT count(*) FROM (SELECT row_number() OVER () AS i, c1 FROM emb_arrow) a "
                       f"JOIN (SELECT row_number() OVER () AS i, c1 FROM {src}) b USING (i) WHERE a.c1 = b.c1").fetchall()
    check(same == [(1000,)], f"Arrow IPC rows equal read_npy's: {same}")
    parquet = tmp / "emb.parquet"
    subprocess.run([exe, "convert", str(path), "-o", str(parquet), "--to", "parquet", "--layout", "rowlists"],
                   check=True)
    check(describe(con, lit(parquet)) == [("c1", "FLOAT[]")], "Parquet alone: FLOAT[] (duckdb/duckdb#17238)")
    cast = f"(SELECT c1::FLOAT[8] AS c1 FROM {lit(parquet)})"
    check(describe(con, cast) == [("c1", "FLOAT[8]")], "Parquet with the README's cast: FLOAT[8]")
    got = np.array([r[0] for r in con.execute(f"SELECT c1 FROM {cast}").fetchall()], np.float32)
    check(np.array_equal(got, emb), "Parquet cast values")
    print("FLOAT[8]: read_npy, Arrow IPC (pyarrow) and Parquet + cast")


# ---------------------------------------------------------------- 5. hostile files

def npy(version, header, payload=b""):
    h = header.encode("utf-8") if isinstance(header, str) else header
    size = struct.pack("<H", len(h)) if version == 1 else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes([version, 0]) + size + h + payload


def hostile_cases():
    """The cases of tests/hostile.rs (same bytes), name -> (bytes, extra SQL options)."""
    deep = lambda open_, n: "{'descr': " + open_ * n
    rec = "{'descr': " + "[('a', " * 20 + "'<f8'" + ")]" * 20 + ", 'fortran_order': False, 'shape': ()}"
    fields = ",".join(f"('{i}','|u1')" for i in range(4100))
    latin = bytearray(npy(3, "{'descr': [('\u00e9', '<f8')], 'fortran_order': False, 'shape': ()}", b"\0" * 8))
    pos = latin.find(b"\xc3\xa9")
    latin[pos:pos + 2] = b"\xe9 "
    f8 = "{'descr': '<f8', 'fortran_order': False, 'shape': %s, }"
    return {
        "claims-8TiB-f8": (npy(1, f8 % "(1099511627776,)", b"\0" * 64), ""),
        "claims-1TiB-S": (npy(1, "{'descr': '|S2147483647', 'fortran_order': False, 'shape': (512,), }", b"\0" * 16), ""),
        "claims-4TB-U": (npy(1, "{'descr': '<U536870911', 'fortran_order': False, 'shape': (2048,), }", b"\0" * 16), ""),
        "claims-8TiB-subarray": (npy(1, "{'descr': [('a', '<f8', (268435455,))], 'fortran_order': False, 'shape': (4096,), }", b"\0" * 16), ""),
        "shape-overflow-2^32x2^32": (npy(1, f8 % "(4294967296, 4294967296)"), ""),
        "shape-overflow-with-zero": (npy(1, f8 % "(0, 4611686018427387904)"), ""),
        "shape-dim-2^64": (npy(1, f8 % "(18446744073709551616,)"), ""),
        "shape-65-dims": (npy(1, f8 % ("(" + "1, " * 65 + ")")), ""),
        "header-len-past-eof": (b"\x93NUMPY\x01\x00\xe8\x03{'descr': '<f8'", ""),
        "header-len-4GiB": (b"\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr'", ""),
        "nesting-bomb-lists-100k": (npy(2, deep("[", 100_000)), ""),
        "nesting-bomb-tuples-100k": (npy(2, deep("(", 100_000)), ""),
        "nesting-bomb-mixed": (npy(2, deep("[(", 50_000)), ""),
        "record-nesting-bomb": (npy(2, rec), ""),
        "too-many-fields": (npy(2, "{'descr': [" + fields + "], 'fortran_order': False, 'shape': ()}"), ""),
        "wide-flat-list-60KiB": (npy(2, "{'x': [" + "[[]], " * 10_000 + "], 'descr': '<f8', 'fortran_order': False, 'shape': ()}", b"\0" * 4), ""),
        "bad-magic": (b"\x93NUMPZ\x01\x00", ""),
        "version-1.1": (b"\x93NUMPY\x01\x01\x10\x00", ""),
        "nul-in-header": (npy(1, "{'descr': '<f8',\0 'fortran_order': False, 'shape': ()}", b"\0" * 8), ""),
        "latin1-bytes-in-3.0": (bytes(latin), ""),
        "bom": (npy(3, "\ufeff{'descr': '<f8', 'fortran_order': False, 'shape': ()}", b"\0" * 8), ""),
        "nbsp-whitespace": (npy(3, "{'descr':\u00a0'<f8', 'fortran_order': False, 'shape': ()}", b"\0" * 8), ""),
        "vertical-tab": (npy(1, "{'descr':\x0b'<f8', 'fortran_order': False, 'shape': ()}", b"\0" * 8), ""),
        "trailing-polyglot": (npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': ()}", b"\0" * 8 + b"PK\x03\x04"), ""),
        "claim-over-file-limit": (npy(1, f8 % "(1048576,)", b"\0" * 64), ", max_file_bytes := 1048576"),
        "object-dtype": (npy(1, "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", b"\0" * 8), ""),
    }


def hostile_checks(con, tmp):
    hostile = tmp / "hostile"
    hostile.mkdir()
    n = 0
    for path in sorted((FIXTURES.parent / "adversarial").glob("n_*.npy")):
        for layout in ("columns", "rowlists", "nonzeros"):
            expect_error(con, f"SELECT * FROM read_npy({lit(path)}, layout := '{layout}')",
                         f"{path.name} ({layout})", path, offset=True)
            n += 1
    # The hostile files of the Rust suites as committed (tests/hostile/, the cases of
    # tests/hostile.rs), read with default options: each is refused.
    committed = sorted((FIXTURES.parent / "hostile").glob("*.npy"))
    check(len(committed) >= 20, f"tests/hostile/*.npy: {len(committed)} files")
    for path in committed:
        expect_error(con, f"SELECT * FROM read_npy({lit(path)})", f"hostile/{path.name}", path)
        n += 1
    # The same cases rebuilt here, one with the limit it was written for.
    for name, (data, opts) in hostile_cases().items():
        path = hostile / f"{name}.npy"
        path.write_bytes(data)
        expect_error(con, f"SELECT * FROM read_npy({lit(path)}{opts})", name, path)
        n += 1
    # Truncated, extended and bit-flipped copies of fixtures: an error or NumPy's values,
    # never a crash; truncations and extensions are always errors with an offset.
    rng = np.random.default_rng(1)
    fixtures = sorted((FIXTURES / "npy").glob("*__C__2x3.npy")) + sorted((FIXTURES / "npy").glob("*__F__3x2x4.npy"))
    for fx in fixtures:
        data = fx.read_bytes()
        for cut in sorted({len(data) - 1, len(data) // 2, 9}):
            path = hostile / f"cut{cut}_{fx.name}"
            path.write_bytes(data[:cut])
            expect_error(con, f"SELECT * FROM read_npy({lit(path)})", path.name, path, offset=True)
            n += 1
        path = hostile / f"long_{fx.name}"
        path.write_bytes(data + b"\0")
        expect_error(con, f"SELECT * FROM read_npy({lit(path)})", path.name, path, offset=True)
        n += 1
        for k in range(4):
            flipped = bytearray(data)
            i = int(rng.integers(0, len(flipped)))
            flipped[i] ^= 1 << int(rng.integers(0, 8))
            path = hostile / f"flip{k}_{fx.name}"
            path.write_bytes(bytes(flipped))
            try:
                con.execute(f"SELECT * FROM read_npy({lit(path)})").fetchall()
            except duckdb.Error:
                pass
            check(con.execute("SELECT 42").fetchall() == [(42,)], f"{path.name}: the connection still answers")
            n += 1
    # Tables DuckDB would pay for without bytes behind them, or could not hold: refused at
    # bind with an error (the limits are in duckdb-npy/src/lib.rs and source.rs).
    for name, data, layout in [
        ("v0_2p40_rows", npy(1, "{'descr': '|V0', 'fortran_order': False, 'shape': (1099511627776,), }"), "columns"),
        ("u1_0x2p60", npy(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 1152921504606846976), }"), "columns"),
    ]:
        path = hostile / f"{name}.npy"
        path.write_bytes(data)
        expect_error(con, f"SELECT count(*) FROM read_npy({lit(path)}, layout := '{layout}')", name, path)
        n += 1
    wide = hostile / "wide.npy"
    np.save(wide, np.ones((2, 200_000), np.uint8))
    expect_error(con, f"SELECT * FROM read_npy({lit(wide)})", "200 000 columns", wide)
    expect_error(con, f"SELECT * FROM read_npy({lit(wide)}, layout := 'rowlists')", "ARRAY of 200 000", wide)
    check(con.execute(f"SELECT count(*), sum(val) FROM read_npy({lit(wide)}, layout := 'nonzeros')").fetchall()
          == [(400_000, 400_000)], "the wide file's non-zeros")
    n += 2
    # An invalid code point in a Fortran-order U file: NumPy reads it (U payloads are not
    # checked, issue 32), VARCHAR cannot hold it: the scan refuses it, naming the unit,
    # whether it reads whole rows or only that column (projection pushdown).
    u = np.asfortranarray(np.array([["ab", "c", "d"]] * 4, dtype="<U2"))
    path = hostile / "bad_text_F.npy"
    np.save(path, u)
    data = bytearray(path.read_bytes())
    start = len(data) - u.nbytes
    at = start + (2 * 4 + 1) * 8  # element (1, 2): Fortran index 9, 8 bytes each
    data[at:at + 4] = (0x110000).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    for sql in (f"SELECT * FROM read_npy({lit(path)})", f"SELECT c3 FROM read_npy({lit(path)})"):
        msg = expect_error(con, sql, "invalid code point", path)
        check(msg is not None and "0x00110000" in msg, f"the code point is named: {msg}")
    check(con.execute(f"SELECT c1, c2 FROM read_npy({lit(path)})").fetchall() == [("ab", "c")] * 4,
          "the other columns of that file are read (their bytes are valid)")
    n += 3
    check(n > 100, f"hostile inputs: {n}")
    print(f"hostile: {n} inputs, each an error (or a value) on one connection that kept working")


def long_double_checks(con, tmp):
    """np.longdouble ('<f16', '>f16', '<c32'): DuckDB has no long double; the scan refuses
    it naming the dtype and the file (npyguard reads the file, grammar/DEVIATIONS.md a29)."""
    conf = FIXTURES / "conformance"
    for name, typestr in (("longdouble_le.npy", "<f16"), ("longdouble_be.npy", ">f16"),
                          ("clongdouble_le.npy", "<c32")):
        path = conf / name
        msg = expect_error(con, f"SELECT * FROM read_npy({lit(path)})", f"long double {name}", path)
        check(msg is not None and "long double" in msg and typestr in msg, f"{name}: the dtype is named: {msg}")
    print("long double: refused by name in 3 files")


def main():
    ext = extension_path()
    check(duckdb.__version__ == PIN, f"Python duckdb is {duckdb.__version__}, pinned {PIN} "
                                     f"(pip install duckdb=={PIN})")
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    con.execute(f"LOAD {lit(ext)}")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        fixture_checks(con)
        scan_checks(con, tmp)
        npz_checks(con, tmp)
        fixed_size_checks(con, tmp)
        hostile_checks(con, tmp)
        long_double_checks(con, tmp)
    print(f"duckdb_extension: {checks} checks, {len(failures)} failures (duckdb {duckdb.__version__}, {ext})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
