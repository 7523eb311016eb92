#!/usr/bin/env python3
"""COPY (query) TO 'out.npy' (FORMAT npy) (issue 28, item 5).

- byte-identical to np.save of the same values, for every numeric dtype (bool, int8..64,
  uint8..64, float, double), DATE and the four TIMESTAMP units, as one column (1-D), several
  columns of one type (2-D, C order), and FLOAT[D]/DOUBLE[D] ARRAY columns ((N, D)); zero
  rows; extreme values (NaN, +-inf, -0.0, integer ends); more rows than one DuckDB chunk;
- the result reads back through read_npy as the same rows;
- refused, with an error naming the column (bind) or the row and column (values): VARCHAR,
  DECIMAL, HUGEINT, LIST, mixed types, two ARRAY columns, NULLs (also inside an ARRAY),
  infinite dates and timestamps, unknown options; the database answers SELECT 42 after each;
- DuckDB's sandbox applies: with enable_external_access=false, COPY TO npy outside
  allowed_directories is refused exactly when COPY TO csv is;
- an existing file is replaced (DuckDB's temporary file), not left with old bytes.

Builds the extension with `bash duckdb-npy/build.sh` unless NPY_DUCKDB_EXTENSION names it.
No pytest: exits 1 on any failure, prints a count of checks.
"""

import io
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "common"))
from duckdb_ext import extension_path, lit  # noqa: E402
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


EXT = None


def connect():
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    con.execute(f"LOAD {lit(EXT)}")
    return con


def npsave_bytes(a):
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


def copy(con, query, path):
    con.execute(f"COPY ({query}) TO {lit(path)} (FORMAT npy)")
    return Path(path).read_bytes()


# (DuckDB type, NumPy dtype, extreme values as SQL literals, the same values for NumPy)
NUMERIC = [
    ("BOOLEAN", "bool", ["true", "false"], [True, False]),
    ("TINYINT", "int8", ["-128", "127", "0"], [-128, 127, 0]),
    ("SMALLINT", "int16", ["-32768", "32767"], [-32768, 32767]),
    ("INTEGER", "int32", [str(-2**31), str(2**31 - 1)], [-2**31, 2**31 - 1]),
    ("BIGINT", "int64", [str(-2**63), str(2**63 - 1)], [-2**63, 2**63 - 1]),
    ("UTINYINT", "uint8", ["0", "255"], [0, 255]),
    ("USMALLINT", "uint16", ["0", "65535"], [0, 65535]),
    ("UINTEGER", "uint32", ["0", str(2**32 - 1)], [0, 2**32 - 1]),
    ("UBIGINT", "uint64", ["0", str(2**64 - 1)], [0, 2**64 - 1]),
    ("FLOAT", "float32", ["'nan'", "'inf'", "'-inf'", "'-0.0'", "3.4028235e38", "1e-45"],
     [np.nan, np.inf, -np.inf, -0.0, 3.4028235e38, 1e-45]),
    ("DOUBLE", "float64", ["'nan'", "'inf'", "'-inf'", "'-0.0'", "1.7976931348623157e308", "5e-324"],
     [np.nan, np.inf, -np.inf, -0.0, 1.7976931348623157e308, 5e-324]),
]


def values_query(sqltype, lits, cols=1):
    rows = ", ".join("(" + ", ".join(f"({v})::{sqltype}" for _ in range(cols)) + ")" for v in lits)
    names = ", ".join(f"c{i}" for i in range(1, cols + 1))
    return f"SELECT * FROM (VALUES {rows}) t({names})"


def dtype_checks(tmp):
    con = connect()
    n = 0
    for sqltype, dt, lits, vals in NUMERIC:
        a = np.array(vals, dtype=dt)
        # 1-D: one column
        got = copy(con, values_query(sqltype, lits), tmp / "a.npy")
        check(got == npsave_bytes(a), f"{sqltype}: one column is np.save's bytes")
        # 2-D: three columns of one type
        got = copy(con, values_query(sqltype, lits, 3), tmp / "b.npy")
        check(got == npsave_bytes(np.stack([a, a, a], axis=1)), f"{sqltype}: three columns are np.save's bytes")
        # zero rows
        got = copy(con, values_query(sqltype, lits, 2) + " LIMIT 0", tmp / "z.npy")
        check(got == npsave_bytes(np.zeros((0, 2), dtype=dt)), f"{sqltype}: zero rows")
        # ARRAY[D]
        if sqltype != "BOOLEAN":
            elems = ", ".join(f"({v})::{sqltype}" for v in lits)
            q = f"SELECT [{elems}]::{sqltype}[{len(lits)}] FROM range(3)"
            got = copy(con, q, tmp / "c.npy")
            check(got == npsave_bytes(np.stack([a, a, a])), f"{sqltype}[{len(lits)}]: np.save's bytes")
        # reads back through read_npy as the same rows (NaN-aware)
        back = con.execute(f"SELECT * FROM read_npy({lit(tmp / 'b.npy')})").fetchnumpy()
        check(all(np.array_equal(back[f"c{i}"], a, equal_nan=(a.dtype.kind == 'f')) for i in (1, 2, 3)),
              f"{sqltype}: read_npy gives the rows back")
        n += 1
    # more rows than a chunk (2048) and a buffer: 300 000 rows x 4 doubles, and FLOAT[16]
    got = copy(con, "SELECT range::DOUBLE a, -range::DOUBLE b, (range * 0.5)::DOUBLE c, 1.0::DOUBLE d FROM range(300000)",
               tmp / "big.npy")
    r = np.arange(300000, dtype="f8")
    check(got == npsave_bytes(np.stack([r, -r, r * 0.5, np.ones_like(r)], axis=1)), "300 000 x 4 doubles")
    got = copy(con, "SELECT array_value(" + ", ".join(f"(range + {k})::FLOAT" for k in range(16)) +
               ") FROM range(100000)", tmp / "emb.npy")
    e = (np.arange(100000)[:, None] + np.arange(16)[None, :]).astype("f4")
    check(got == npsave_bytes(e), "100 000 x FLOAT[16]")
    got = copy(con, "SELECT [range, range + 1]::DOUBLE[2] FROM range(5000)", tmp / "d2.npy")
    check(got == npsave_bytes(np.stack([np.arange(5000.0), np.arange(5000.0) + 1], axis=1)), "DOUBLE[2]")
    # dates and timestamps
    got = copy(con, "SELECT * FROM (VALUES (DATE '1970-01-01'), (DATE '2024-02-29'), (DATE '0001-01-01')) t(d)",
               tmp / "dt.npy")
    check(got == npsave_bytes(np.array(["1970-01-01", "2024-02-29", "0001-01-01"], dtype="M8[D]")), "DATE -> M8[D]")
    for sqltype, unit in [("TIMESTAMP_S", "s"), ("TIMESTAMP_MS", "ms"), ("TIMESTAMP", "us"), ("TIMESTAMP_NS", "ns")]:
        got = copy(con, f"SELECT * FROM (VALUES (TIMESTAMP '2001-02-03 04:05:06'::{sqltype}), "
                        f"(TIMESTAMP '1969-12-31 23:59:59'::{sqltype})) t(ts)", tmp / "ts.npy")
        want = np.array(["2001-02-03T04:05:06", "1969-12-31T23:59:59"], dtype=f"M8[{unit}]")
        check(got == npsave_bytes(want), f"{sqltype} -> M8[{unit}]")
    print(f"byte-identical to np.save: {n} numeric types (1-D, 2-D, 0 rows, ARRAY), dates, 4 timestamp units")


def refusal_checks(tmp):
    con = connect()
    cases = [
        ("SELECT 'a' AS s", ["column 1", "VARCHAR"]),
        ("SELECT 1.5 AS d", ["column 1", "DECIMAL"]),
        ("SELECT 1::HUGEINT", ["column 1", "HUGEINT"]),
        ("SELECT [1, 2] AS l", ["column 1", "LIST"]),
        ("SELECT 1::INTEGER a, 2::DOUBLE b", ["column 2", "another type"]),
        ("SELECT [1,2]::INT[2] a, [1,2]::INT[2] b", ["column 1", "ARRAY"]),
        ("SELECT * FROM (VALUES (1.0::DOUBLE), (NULL)) t(x)", ["row 1", "column 1", "NULL"]),
        ("SELECT range::DOUBLE a, CASE WHEN range = 5000 THEN NULL ELSE 1.0 END::DOUBLE b FROM range(6000)",
         ["row 5000", "column 2", "NULL"]),
        ("SELECT [1, NULL]::INT[2]", ["row 0", "column 1", "NULL element"]),
        ("SELECT 'infinity'::TIMESTAMP", ["row 0", "column 1", "infinity"]),
        ("SELECT '-infinity'::DATE", ["row 0", "column 1", "infinity"]),
    ]
    for q, needles in cases:
        try:
            con.execute(f"COPY ({q}) TO {lit(tmp / 'r.npy')} (FORMAT npy)")
            fail(f"{q}: accepted")
        except duckdb.Error as e:
            msg = str(e)
            check(all(s in msg for s in needles), f"{q}: the error names {needles}: {msg}")
            check("INTERNAL" not in msg.upper(), f"{q}: not an internal error: {msg}")
        check(con.execute("SELECT 42").fetchall() == [(42,)], f"{q}: SELECT 42 answers after it")
        if (tmp / "r.npy").exists():
            (tmp / "r.npy").unlink()
    try:
        con.execute(f"COPY (SELECT 1) TO {lit(tmp / 'o.npy')} (FORMAT npy, foo 1)")
        fail("an unknown option was accepted")
    except duckdb.Error as e:
        check("FOO" in str(e).upper(), f"unknown option named: {e}")
    # an existing, longer file is replaced as a whole
    target = tmp / "existing.npy"
    target.write_bytes(b"x" * 100000)
    got = copy(con, "SELECT 1::INTEGER", target)
    check(got == npsave_bytes(np.array([1], dtype="i4")), "an existing longer file is replaced")
    # A COPY failing part-way (row 5000 of 6000, after two chunks were written) leaves no
    # partial file, and an existing target as it was.
    late_null = "SELECT CASE WHEN range = 5000 THEN NULL ELSE range END::BIGINT FROM range(6000)"
    fresh = tmp / "fresh.npy"
    try:
        con.execute(f"COPY ({late_null}) TO {lit(fresh)} (FORMAT npy)")
        fail("a late NULL was accepted")
    except duckdb.Error as e:
        check("row 5000" in str(e), f"late NULL named: {e}")
    check(not fresh.exists(), "a failed COPY leaves no new file")
    target.write_bytes(b"old contents")
    try:
        con.execute(f"COPY ({late_null}) TO {lit(target)} (FORMAT npy)")
        fail("a late NULL was accepted")
    except duckdb.Error:
        pass
    check(target.read_bytes() == b"old contents", "a failed COPY leaves an existing target as it was")
    check(not list(tmp.glob("tmp_*")), f"no temporary file left: {list(tmp.glob('tmp_*'))}")
    # USE_TMP_FILE false onto an existing non-empty file: refused (no truncation in the C API).
    try:
        con.execute(f"COPY (SELECT 1::INTEGER) TO {lit(target)} (FORMAT npy, USE_TMP_FILE false)")
        fail("USE_TMP_FILE false over a non-empty file was accepted")
    except duckdb.Error as e:
        check("not empty" in str(e), f"USE_TMP_FILE false refusal says why: {e}")
    check(target.read_bytes() == b"old contents", "USE_TMP_FILE false: the file is untouched")
    print(f"refusals: {len(cases)} queries refused with row/column named, the database alive after each")


def sandbox_checks(tmp):
    inside = tmp / "in"
    inside.mkdir()
    outside = Path(tempfile.mkdtemp())
    try:
        for where in (inside, outside):
            con = connect()
            con.execute(f"SET allowed_directories=[{lit(str(inside) + '/')}]")
            con.execute("SET enable_external_access=false")
            res = {}
            for fmt in ("csv", "npy"):
                try:
                    con.execute(f"COPY (SELECT 1::INTEGER) TO {lit(where / ('x.' + fmt))} (FORMAT {fmt})")
                    res[fmt] = "ok"
                except duckdb.Error as e:
                    res[fmt] = "permission" if "disabled by configuration" in str(e) or "Permission" in str(e) \
                        else f"other: {e}"
            check(res["csv"] == res["npy"], f"sandbox {where}: COPY TO npy {res['npy']} as csv {res['csv']}")
            check(res["npy"] == ("ok" if where == inside else "permission"), f"sandbox {where}: {res}")
            check(not (outside / "x.npy").exists(), "nothing written outside allowed_directories")
    finally:
        for f in outside.iterdir():
            f.unlink()
        outside.rmdir()
    print("sandbox: COPY TO npy refused exactly when COPY TO csv is")


def main():
    global EXT
    EXT = extension_path()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        dtype_checks(tmp)
        refusal_checks(tmp)
        sandbox_checks(tmp)
    print(f"duckdb_copy: {checks} checks, {len(failures)} failures (duckdb {duckdb.__version__}, {EXT})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
