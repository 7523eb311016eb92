#!/usr/bin/env python3
"""The DuckDB extension (duckdb-npy/) keeps DuckDB's own promises (issue 28, items 1-3).

1. Sandbox: `read_npy`, `read_npz`, globs, lists of paths and the replacement scan
   (`FROM 'x.npy'`) read through DuckDB's file system, so they
   are refused exactly when `read_csv` on the same path is refused (`SET
   allowed_directories`, `allowed_paths`, `enable_external_access = false`,
   `disabled_filesystems`), and allowed where it is allowed: every pair of queries is run
   and both outcomes compared.
2. Values: for every type mapping, a .npy of the extreme values NumPy accepts goes
   through DuckDB's own functions (casts to VARCHAR, min/max, ORDER BY, COPY TO CSV,
   arithmetic); a value DuckDB's type cannot hold (timestamps outside DuckDB's range or
   equal to its +-infinity) is an error naming the file, row and column; and after each
   file `SELECT 42` answers on that same connection (no INTERNAL or FATAL error, which
   would invalidate the database).
3. read_npz limits: a deflate bomb is refused by default (max_ratio 1000) and with a
   small explicit limit, read when the limit is raised; max_members and max_total_bytes
   likewise.
4. A file or archive replaced between bind and scan by one of another dtype or shape is an
   error naming the file; no value of the new dtype reaches DuckDB.

Builds the extension with `bash duckdb-npy/build.sh` unless NPY_DUCKDB_EXTENSION names it.
No pytest: exits 1 on any failure, prints a count of checks.
Usage: python3 tests/numpy/duckdb_safety.py
"""

import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import duckdb

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
    con.execute(f"LOAD {lit(EXT)}")  # before external access is disabled
    return con


def run(con, sql):
    """('ok', rows) or (exception class name, message)."""
    try:
        return "ok", con.execute(sql).fetchall()
    except duckdb.Error as e:
        return type(e).__name__, str(e)


def alive(con, what):
    check(run(con, "SELECT 42") == ("ok", [(42,)]), f"{what}: the connection still answers SELECT 42")


# ---------------------------------------------------------------- 1. sandbox

# DuckDB's refusals: "... file system operations are disabled by configuration" (external
# access) and "File system LocalFileSystem has been disabled by configuration".
REFUSED = "disabled by configuration"


def sandbox_checks(tmp):
    inside, outside = tmp / "inside", tmp / "outside"
    for d in (inside, outside, inside / "sub"):
        d.mkdir(parents=True)
        np.save(d / "a.npy", np.arange(3, dtype=np.int64))
        np.save(d / "b.npy", np.arange(4, dtype=np.int64))
        np.savez(d / "a.npz", x=np.arange(5, dtype=np.int64))
        (d / "a.csv").write_text("x\n1\n2\n3\n")
        (d / "b.csv").write_text("x\n4\n5\n6\n7\n")
    # Each setting: statements run after LOAD, in order.
    settings = {
        "unrestricted": [],
        "allowed_directories": [f"SET allowed_directories=[{lit(str(inside) + '/')}]",
                                "SET enable_external_access=false"],
        "external access off": ["SET enable_external_access=false"],
        "allowed_paths": [f"SET allowed_paths=[{lit(outside / 'a.npy')}, {lit(outside / 'a.csv')}, "
                          f"{lit(outside / 'a.npz')}]",
                          "SET enable_external_access=false"],
        "disabled_filesystems": ["SET disabled_filesystems='LocalFileSystem'"],
    }
    # (what, path for read_npy/read_npz, path for read_csv, rows when read)
    paths = []
    for name, d in (("inside", inside), ("outside", outside), ("inside/sub", inside / "sub")):
        paths += [
            (f"{name} file", d / "a.npy", d / "a.csv", 3),
            (f"{name} glob", d / "*.npy", d / "*.csv", 7),
            (f"{name} glob ?", d / "?.npy", d / "?.csv", 7),
            (f"{name} glob without match", d / "none*.npy", d / "none*.csv", None),
            (f"{name} missing file", d / "none.npy", d / "none.csv", None),
            (f"{name} directory", d, d, None),
        ]
    paths += [
        ("inside/../outside file", inside / ".." / "outside" / "a.npy", inside / ".." / "outside" / "a.csv", 3),
        ("inside/../outside glob", inside / ".." / "outside" / "*.npy", inside / ".." / "outside" / "*.csv", 7),
        ("recursive glob", tmp / "**" / "a.npy", tmp / "**" / "a.csv", 9),
    ]
    counts = {}
    for setting, stmts in settings.items():
        con = connect()
        for s in stmts:
            con.execute(s)
        for what, npy_path, csv_path, rows in paths:
            csv = run(con, f"SELECT count(*) FROM read_csv({lit(csv_path)})")
            npy = run(con, f"SELECT count(*) FROM read_npy({lit(npy_path)})")
            label = f"{setting}: {what}"
            csv_refused = csv[0] != "ok" and REFUSED in csv[1]
            npy_refused = npy[0] != "ok" and REFUSED in npy[1]
            check(csv_refused == npy_refused,
                  f"{label}: read_npy refused={npy_refused} ({npy}), read_csv refused={csv_refused} ({csv})")
            # (read_csv reads the files under a directory; read_npy reads files only: for a
            # directory only the refusals are compared.)
            if not what.endswith("directory"):
                check((npy[0] == "ok") == (csv[0] == "ok"),
                      f"{label}: read_npy {npy[0]}, read_csv {csv[0]} ({npy[1]!s:.200} / {csv[1]!s:.200})")
            if npy[0] == "ok" and rows is not None:
                check(npy[1] == [(rows,)], f"{label}: read_npy rows {npy[1]} want {rows}")
            if npy[0] != "ok":
                check(str(npy_path) in npy[1], f"{label}: the error names the file: {npy[1]:.200}")
            counts[npy_refused] = counts.get(npy_refused, 0) + 1
            # The same path as a one-element list, and through the replacement scan
            # (FROM 'x.npy' against FROM 'x.csv'): the same opens, the same refusals.
            if not what.endswith("directory"):
                for form, npy_q, csv_q in (
                        ("list", f"read_npy([{lit(npy_path)}])", f"read_csv([{lit(csv_path)}])"),
                        ("FROM 'path'", lit(npy_path), lit(csv_path))):
                    n2 = run(con, f"SELECT count(*) FROM {npy_q}")
                    c2 = run(con, f"SELECT count(*) FROM {csv_q}")
                    n2_refused = n2[0] != "ok" and REFUSED in n2[1]
                    c2_refused = c2[0] != "ok" and REFUSED in c2[1]
                    check(n2_refused == c2_refused == csv_refused,
                          f"{label} ({form}): npy refused={n2_refused} ({n2}), csv refused={c2_refused}")
                    if n2[0] == "ok" and rows is not None:
                        check(n2[1] == [(rows,)], f"{label} ({form}): rows {n2[1]} want {rows}")
            if what.endswith("file") and "glob" not in what:
                npz_path = Path(str(npy_path).replace("a.npy", "a.npz"))
                npz = run(con, f"SELECT count(*) FROM read_npz({lit(npz_path)})")
                npz_refused = npz[0] != "ok" and REFUSED in npz[1]
                check(npz_refused == csv_refused,
                      f"{label}: read_npz refused={npz_refused} ({npz}), read_csv refused={csv_refused}")
                if npz[0] == "ok":
                    check(npz[1] == [(5,)], f"{label}: read_npz rows {npz[1]}")
                else:
                    check(str(npz_path) in npz[1], f"{label}: the npz error names the file: {npz[1]:.200}")
        # The named options of both functions go through the same open.
        npy = run(con, f"SELECT count(*) FROM read_npy({lit(outside / 'b.npy')}, layout := 'nonzeros')")
        csv = run(con, f"SELECT count(*) FROM read_csv({lit(outside / 'b.csv')})")
        check((npy[0] == "ok") == (csv[0] == "ok"), f"{setting}: nonzeros layout {npy[0]} vs read_csv {csv[0]}")
        alive(con, f"sandbox {setting}")
    check(counts.get(True, 0) > 20 and counts.get(False, 0) > 20, f"both outcomes seen: {counts}")

    # A statement prepared while access was allowed and run after it was disabled: the
    # files are opened (and checked) again when the scan runs.
    con = connect()
    npy_stmt = f"SELECT count(*) FROM read_npy({lit(outside / 'a.npy')})"
    csv_stmt = f"SELECT count(*) FROM read_csv({lit(outside / 'a.csv')})"
    con.execute(f"PREPARE p_npy AS {npy_stmt}")
    con.execute(f"PREPARE p_csv AS {csv_stmt}")
    con.execute(f"SET allowed_directories=[{lit(str(inside) + '/')}]")
    con.execute("SET enable_external_access=false")
    npy, csv = run(con, "EXECUTE p_npy"), run(con, "EXECUTE p_csv")
    check((npy[0] == "ok") == (csv[0] == "ok"),
          f"prepared before the sandbox: read_npy {npy}, read_csv {csv}")
    alive(con, "prepared statements")
    print(f"sandbox: {len(paths)} paths x {len(settings)} settings, read_npy/read_npz refused exactly when "
          f"read_csv is ({counts.get(True, 0)} refused, {counts.get(False, 0)} not)")


# ---------------------------------------------------------------- 2. values

I64MIN, I64MAX = -2**63, 2**63 - 1
NAT = I64MIN

# DuckDB's finite instants per timestamp unit (duckdb-npy/src/write.rs, stamp_range).
STAMP = {
    "s": ("TIMESTAMP_S", -9223372022400, 9223372036854),
    "ms": ("TIMESTAMP_MS", -9223372022400000, 9223372036854000),
    "us": ("TIMESTAMP", -9223372022400000000, I64MAX - 1),
    "ns": ("TIMESTAMP_NS", I64MIN + 2, I64MAX - 1),
    "D": ("DATE", -(2**31 - 2), 2**31 - 2),
}
# DuckDB's text of those instants.
STAMP_TEXT = {
    "s": ("290309-12-22 (BC) 00:00:00", "294247-01-10 04:00:54"),
    "ms": ("290309-12-22 (BC) 00:00:00", "294247-01-10 04:00:54"),
    "us": ("290309-12-22 (BC) 00:00:00", "294247-01-10 04:00:54.775806"),
    "ns": ("1677-09-21 00:12:43.145224194", "2262-04-11 23:47:16.854775806"),
    "D": ("5877642-06-25 (BC)", "5881580-07-10"),
}


def counts(dtype, values):
    return np.array(values, dtype=np.int64).view(dtype)


def value_cases():
    """(name, array, expected DuckDB type, extra checks) of arrays DuckDB must hold."""
    cases = []
    cases.append(("b1 bytes 0 1 2 255", np.frombuffer(bytes([0, 1, 2, 255]), dtype="?"), "BOOLEAN"))
    for t, sql in (("i1", "TINYINT"), ("i2", "SMALLINT"), ("i4", "INTEGER"), ("i8", "BIGINT"),
                   ("u1", "UTINYINT"), ("u2", "USMALLINT"), ("u4", "UINTEGER"), ("u8", "UBIGINT")):
        info = np.iinfo(t)
        for order in "<>":
            dt = np.dtype(order + t) if np.dtype(t).itemsize > 1 else np.dtype(t)
            cases.append((f"{dt.str} extremes", np.array([info.min, info.max, 0, info.min + 1], dtype=dt), sql))
    for t, sql in (("f2", "FLOAT"), ("f4", "FLOAT"), ("f8", "DOUBLE")):
        fi = np.finfo(t)
        bits = {"f2": "u2", "f4": "u4", "f8": "u8"}[t]
        snan = np.array([{"f2": 0x7C01, "f4": 0x7F800001, "f8": 0x7FF0000000000001}[t]], dtype=bits).view(t)[0]
        vals = [fi.max, -fi.max, fi.tiny, fi.smallest_subnormal, -0.0, np.inf, -np.inf, np.nan, snan, -np.nan]
        cases.append((f"{t} extremes", np.array(vals, dtype=t), sql))
    for t, part in (("c8", "FLOAT"), ("c16", "DOUBLE")):
        f = np.finfo(t)
        vals = [complex(f.max, -f.max), complex(np.nan, np.inf), complex(-0.0, f.smallest_subnormal)]
        cases.append((f"{t} extremes", np.array(vals, dtype=t), f"STRUCT(re {part}, im {part})"))
    cases.append(("S invalid UTF-8, NULs", np.array([b"", b"\xff\xfe\x80", b"a\x00b", b"\x00" * 7 + b"z"], dtype="S8"),
                  "BLOB"))
    cases.append(("U extremes", np.array(["", "\U0010FFFF" * 3, "a\x00b", "\x7f\x80\uffff", "é" * 6], dtype="<U6"),
                  "VARCHAR"))
    cases.append(("U big-endian", np.array(["\U0010FFFF", "z"], dtype=">U2"), "VARCHAR"))
    cases.append(("V raw", np.frombuffer(bytes(range(256)) * 2, dtype="V8"), "BLOB"))
    for unit, (sql, lo, hi) in STAMP.items():
        cases.append((f"M8[{unit}] range edges and NaT", counts(f"<M8[{unit}]", [lo, hi, 0, NAT, -1, 1]), sql))
        cases.append((f"M8[{unit}] big-endian edges", counts(f"<M8[{unit}]", [lo, hi]).astype(f">M8[{unit}]"), sql))
    # Units kept as BIGINT counts: every int64 is a value.
    for unit in ("Y", "M", "W", "2D", "h", "m", "ps", "fs", "as", "25s", "7us"):
        cases.append((f"M8[{unit}] int64 extremes", counts(f"<M8[{unit}]", [I64MIN + 1, I64MAX, 0, NAT]), "BIGINT"))
    for unit in ("s", "ms", "ns", "D", "h", "as", "3us"):
        cases.append((f"m8[{unit}] int64 extremes", counts(f"<m8[{unit}]", [I64MIN + 1, I64MAX, 0, NAT]), "BIGINT"))
    cases.append(("m8[us] int64 extremes", counts("<m8[us]", [I64MIN + 1, I64MAX, 0, NAT, -1]), "INTERVAL"))
    return cases


FUNCS = [
    "SELECT c1::VARCHAR FROM {src}",
    "SELECT min(c1)::VARCHAR, max(c1)::VARCHAR FROM {src}",
    "SELECT c1::VARCHAR FROM {src} ORDER BY c1",
    "SELECT c1::VARCHAR FROM {src} ORDER BY c1 DESC NULLS FIRST",
    "SELECT count(DISTINCT c1), count(c1) FROM {src}",
    "SELECT c1::VARCHAR, count(*) FROM {src} GROUP BY c1",
    "SELECT hash(c1) FROM {src}",
    "COPY (SELECT * FROM {src}) TO {out} (FORMAT csv)",
    "COPY (SELECT * FROM {src}) TO {outp} (FORMAT parquet)",
    "SELECT to_json(c1)::VARCHAR FROM {src}",
]
# Functions of some types only: errors are allowed (overflow) but never INTERNAL/FATAL.
TYPE_FUNCS = {
    "TIMESTAMP": ["SELECT (c1 + INTERVAL 1 SECOND)::VARCHAR FROM {src}", "SELECT (c1 - INTERVAL 1 DAY)::VARCHAR FROM {src}",
                  "SELECT epoch_us(c1), year(c1), strftime(c1, '%Y-%m-%d') FROM {src}",
                  "SELECT c1::DATE::VARCHAR, c1::TIMESTAMPTZ::VARCHAR FROM {src}", "SELECT date_trunc('day', c1) FROM {src}",
                  # Casts to every other unit (TIMESTAMP_MS past 294247-01-10 04:00:54 to
                  # TIMESTAMP_S raised an INTERNAL error in DuckDB 2.0.0).
                  "SELECT c1::TIMESTAMP_S::VARCHAR, c1::TIMESTAMP_MS::VARCHAR FROM {src}",
                  "SELECT c1::TIMESTAMP::VARCHAR, c1::TIMESTAMP_NS::VARCHAR FROM {src}"],
    "DATE": ["SELECT (c1 + 1)::VARCHAR FROM {src}", "SELECT (c1 - INTERVAL 1 DAY)::VARCHAR FROM {src}",
             "SELECT year(c1), strftime(c1, '%Y-%m-%d'), c1::TIMESTAMP::VARCHAR FROM {src}",
             "SELECT date_trunc('month', c1), c1 - DATE '2000-01-01' FROM {src}"],
    "INTERVAL": ["SELECT (c1 + INTERVAL 1 DAY)::VARCHAR, epoch_us(c1) FROM {src}", "SELECT sum(c1) FROM {src}",
                 "SELECT to_microseconds(0) + c1 FROM {src}", "SELECT TIMESTAMP '2000-01-01' + c1 FROM {src}"],
    "BIGINT": ["SELECT sum(c1), avg(c1) FROM {src}", "SELECT c1 + 1 FROM {src}"],
    "FLOAT": ["SELECT sum(c1), avg(c1), c1::DOUBLE FROM {src}"],
    "DOUBLE": ["SELECT sum(c1), avg(c1), c1::FLOAT FROM {src}"],
    "VARCHAR": ["SELECT length(c1), upper(c1), c1 || 'x', c1::BLOB FROM {src}"],
    "BLOB": ["SELECT octet_length(c1), hex(c1) FROM {src}", "SELECT c1::VARCHAR FROM {src}"],
}


def type_funcs(sql):
    if sql == "DATE":
        return TYPE_FUNCS["DATE"]
    if sql.startswith("TIMESTAMP"):
        return TYPE_FUNCS["TIMESTAMP"]
    return TYPE_FUNCS.get(sql, [])


def run_functions(con, src, sql_type, tmp, what):
    """Runs DuckDB's functions over `src`: an error must be an ordinary one (the database
    stays valid); returns the results by query."""
    out = {}
    for i, q in enumerate(FUNCS + type_funcs(sql_type)):
        q = q.format(src=src, out=lit(tmp / f"o{i}.csv"), outp=lit(tmp / f"o{i}.parquet"))
        r = run(con, q)
        out[q] = r
        check(r[0] not in ("InternalException", "FatalException"), f"{what}: {q}: {r}")
    return out


def value_checks(tmp):
    vdir = tmp / "values"
    vdir.mkdir()
    n_files = 0
    for i, (name, a, sql) in enumerate(value_cases()):
        path = vdir / f"v{i}.npy"
        np.save(path, a)
        con = connect()
        src = f"read_npy({lit(path)})"
        desc = run(con, f"SELECT column_type FROM (DESCRIBE SELECT * FROM {src})")
        check(desc == ("ok", [(sql,)]), f"{name}: type {desc} want {sql}")
        res = run_functions(con, src, sql, vdir, name)
        text = res[FUNCS[0].format(src=src)]
        check(text[0] == "ok", f"{name}: cast to VARCHAR: {text}")
        if name.startswith("M8[") and "range edges" in name:
            unit = name[3:name.index("]")]
            lo_t, hi_t = STAMP_TEXT[unit]
            check(text[1][:2] == [(lo_t,), (hi_t,)], f"{name}: DuckDB's text of the edges {text[1][:2]}")
            check(text[1][3] == (None,), f"{name}: NaT is NULL")
            mm = res[FUNCS[1].format(src=src)]
            check(mm == ("ok", [(lo_t, hi_t)]), f"{name}: min/max {mm}")
        if sql == "BIGINT" and name[:2] in ("M8", "m8"):
            got = run(con, f"SELECT c1 FROM {src}")
            check(got == ("ok", [(I64MIN + 1,), (I64MAX,), (0,), (None,)]), f"{name}: counts {got}")
        if sql == "INTERVAL":
            got = run(con, f"SELECT epoch_us(c1) FROM {src}")
            check(got == ("ok", [(I64MIN + 1,), (I64MAX,), (0,), (None,), (-1,)]), f"{name}: micros {got}")
        # The same values in the other layouts where they apply.
        if a.dtype.kind not in "SUV":
            nz = run(con, f"SELECT val::VARCHAR FROM read_npy({lit(path)}, layout := 'nonzeros')")
            check(nz[0] == "ok", f"{name}: nonzeros {nz}")
        if a.dtype.kind != "c" and len(a) % 2 == 0:
            p2 = vdir / f"v{i}_2d.npy"
            np.save(p2, a.reshape(len(a) // 2, 2))
            rl = f"(SELECT unnest(c1) AS c1 FROM read_npy({lit(p2)}, layout := 'rowlists'))"
            run_functions(con, rl, sql, vdir, f"{name} rowlists")
            got = run(con, f"SELECT c1::VARCHAR FROM {rl}")
            check(got == text, f"{name}: rowlists give the columns' values {got} vs {text}")
        alive(con, name)
        n_files += 1

    # Out of range: an error naming the file, the row and the column, in every layout;
    # the counts with datetime_counts := true; and the database keeps answering.
    bad_cases = []
    for unit, (sql, lo, hi) in STAMP.items():
        # Just outside each end, and DuckDB's +-infinity counts.
        for v in sorted({lo - 1, hi + 1, I64MAX, I64MIN + 1, I64MIN + 2}):
            if lo <= v <= hi:
                continue
            bad_cases.append((unit, sql, v))
    bad_cases.append(("s", "TIMESTAMP_S", 10**15))  # the 136-byte file
    for unit, sql, v in bad_cases:
        name = f"M8[{unit}] {v}"
        for order in "<>":
            a = counts(f"<M8[{unit}]", [0, 1, NAT, 2, 3, v, 4, 5]).astype(f"{order}M8[{unit}]")
            path = vdir / f"bad_{unit}_{v}_{order == '>'}.npy"
            np.save(path, a.reshape(4, 2))  # the bad value is row 2, column c2
            con = connect()
            src = f"read_npy({lit(path)})"
            for q in ("SELECT c2::VARCHAR FROM {src}", "SELECT max(c2) FROM {src}",
                      "COPY (SELECT * FROM {src}) TO {out}"):
                r = run(con, q.format(src=src, out=lit(vdir / "bad.csv")))
                check(r[0] == "InvalidInputException", f"{name}: {q}: an ordinary error, got {r}")
                if r[0] != "ok":
                    check(str(path) in r[1] and "row 2, column c2:" in r[1] and str(v) in r[1],
                          f"{name}: the error names the file, row, column and value: {r[1]:.300}")
            # Column c1 has no bad value: read (projection pushdown reads c2 not at all).
            r = run(con, f"SELECT c1::VARCHAR FROM {src}")
            check(r[0] == "ok" and len(r[1]) == 4, f"{name}: the other column is read: {r}")
            r = run(con, f"SELECT * FROM read_npy({lit(path)}, layout := 'rowlists')")
            check(r[0] == "InvalidInputException" and "row 2, column c1, element 1:" in r[1],
                  f"{name}: rowlists error {r}")
            r = run(con, f"SELECT * FROM read_npy({lit(path)}, layout := 'nonzeros')")
            check(r[0] == "InvalidInputException" and "row 2, column val (col_no 1):" in r[1],
                  f"{name}: nonzeros error {r}")
            r = run(con, f"SELECT c2 FROM read_npy({lit(path)}, datetime_counts := true)")
            check(r == ("ok", [(1,), (2,), (v,), (5,)]), f"{name}: datetime_counts {r}")
            run_functions(con, f"read_npy({lit(path)}, datetime_counts := true)", "BIGINT", vdir, name)
            alive(con, name)
            n_files += 1
    # An npz member is checked the same way.
    path = vdir / "bad.npz"
    np.savez(path, t=counts("<M8[s]", [0, 10**15]))
    con = connect()
    r = run(con, f"SELECT c1::VARCHAR FROM read_npz({lit(path)})")
    check(r[0] == "InvalidInputException" and str(path) in r[1] and "row 1, column c1:" in r[1], f"npz: {r}")
    alive(con, "npz out of range")
    print(f"values: {n_files} files of every mapping through DuckDB's functions, the database alive after each")


# ---------------------------------------------------------------- 3. read_npz limits

def bomb(path, nbytes, name="x"):
    """An .npz whose member is `nbytes` of u1 zeros, deflated (written in pieces)."""
    header = np.lib.format.header_data_from_array_1_0(np.zeros(0, np.uint8))
    header["shape"] = (nbytes,)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        with z.open(f"{name}.npy", "w", force_zip64=True) as f:
            np.lib.format.write_array_header_1_0(f, header)
            piece = bytes(1 << 20)
            left = nbytes
            while left:
                k = min(left, len(piece))
                f.write(piece[:k])
                left -= k


def limit_checks(tmp):
    ldir = tmp / "limits"
    ldir.mkdir()
    path = ldir / "bomb.npz"
    size = 64 << 20
    bomb(path, size)
    ratio = size / path.stat().st_size
    check(ratio > 1000, f"the bomb inflates {ratio:.0f}-fold")
    con = connect()
    q = f"SELECT count(*), max(c1) FROM read_npz({lit(path)}{{}})"
    for opts, what in (("", "default max_ratio"), (", max_ratio := 10", "max_ratio := 10"),
                       (", max_total_bytes := 1000000", "max_total_bytes"),
                       (", max_file_bytes := 1000000", "max_file_bytes (the member's .npy bytes)")):
        r = run(con, q.format(opts))
        check(r[0] != "ok" and str(path) in r[1], f"bomb, {what}: refused naming the file: {r}")
        alive(con, f"bomb, {what}")
    r = run(con, q.format(", max_ratio := 10"))
    check("ratio" in r[1], f"bomb: the error says ratio: {r}")
    for opts in (", max_ratio := 2000", ", max_ratio := NULL", ", max_ratio := NULL, max_total_bytes := 100000000"):
        r = run(con, q.format(opts))
        check(r == ("ok", [(size, 0)]), f"bomb{opts}: read {r}")
    # Members: the default is the library's (65 536, duckdb_limits.py checks it and its
    # refusal); 4097 members are read by default and refused with max_members := 4096.
    many = ldir / "many.npz"
    np.savez(many, **{f"a{i}": np.arange(2) for i in range(4097)})
    r = run(con, f"SELECT count(*) FROM read_npz({lit(many)}, member := 'a7', max_members := 4096)")
    check(r[0] != "ok" and str(many) in r[1] and "4096" in r[1], f"4097 members refused with max_members := 4096: {r}")
    r = run(con, f"SELECT sum(c1) FROM read_npz({lit(many)}, member := 'a7')")
    check(r == ("ok", [(1,)]), f"4097 members read by default: {r}")
    three = ldir / "three.npz"
    np.savez(three, a=np.arange(3), b=np.arange(4), c=np.arange(5))
    r = run(con, f"SELECT count(*) FROM read_npz({lit(three)}, member := 'c', max_members := 2)")
    check(r[0] != "ok" and str(three) in r[1], f"max_members := 2: {r}")
    r = run(con, f"SELECT count(*) FROM read_npz({lit(three)}, member := 'c', max_members := 3)")
    check(r == ("ok", [(5,)]), f"max_members := 3: {r}")
    for bad in ("max_ratio := -1", "max_members := -5", "max_total_bytes := -1"):
        r = run(con, f"SELECT count(*) FROM read_npz({lit(three)}, member := 'c', {bad})")
        check(r[0] != "ok" and ">= 0" in r[1], f"{bad}: refused {r}")
    # read_npy takes none of them.
    r = run(con, f"SELECT count(*) FROM read_npy({lit(ldir / 'x.npy')}, max_ratio := 5)")
    check(r[0] != "ok", f"read_npy has no max_ratio: {r}")
    alive(con, "limits")
    print(f"read_npz limits: a {size >> 20} MiB deflate bomb ({ratio:.0f}:1) refused by default and by each "
          f"limit, read when raised; member count")


# ------------------------------------------------------------- 1b. globs as DuckDB's

GLOBS = ["*.npy", "*/*.npy", "**/*.npy", "a/**", "a/**/*.npy", "a/?/*.np[yz]", "a/self/*.npy",
         "**/b/*.npy", "a/b/../*.npy", "a/./b/*.npy", "nothing/*.npy"]


def glob_checks(tmp):
    """read_npy expands a glob as DuckDB's own glob() does (the extension expands it itself:
    DuckDB's C API has none), symbolic links included: a `**` neither enters nor returns a
    link, so links that loop (`a/self -> .`) neither hang the query nor read a file twice."""
    root = tmp / "globs"
    for d in ("a/b/c", "a/x", "e"):
        (root / d).mkdir(parents=True)
    for f in ("a/1.npy", "a/b/2.npy", "a/b/c/3.npy", "a/x/4.npy", "e/5.npy", "top.npy"):
        np.save(root / f, np.arange(3))
    for link, to in (("a/self", "."), ("a/b/up", ".."), ("a/b/c/root", "../../.."),
                     ("a/b/link.npy", "../1.npy")):
        os.symlink(to, root / link)
    con = connect()
    for pattern in GLOBS:
        full = f"{root}/{pattern}"
        duck = run(con, f"SELECT file FROM glob({lit(full)}) WHERE file LIKE '%.npy' ORDER BY file")
        ours = run(con, f"SELECT DISTINCT filename FROM read_npy({lit(full)}, filename := true) "
                        f"ORDER BY filename")
        if duck == ("ok", []):
            check(ours[0] != "ok" and "no file matches" in ours[1],
                  f"glob {pattern}: no match in DuckDB's glob, an error in read_npy: {ours}")
            continue
        check(ours == duck, f"glob {pattern}: read_npy reads {ours}, DuckDB's glob lists {duck}")
        rows = run(con, f"SELECT count(*) FROM read_npy({lit(full)})")
        check(rows == ("ok", [(3 * len(duck[1]),)]), f"glob {pattern}: each file read once: {rows}")
    alive(con, "globs")
    print(f"globs: {len(GLOBS)} patterns over a tree with looping links expand as DuckDB's glob()")


# ------------------------------------------------- 4. files replaced between bind and scan

# (bound array, the array that replaces it): each replacement changes the DuckDB type the
# query was bound to (TIMESTAMP_S, DATE, VARCHAR), the row count or the trailing axes.
SWAPS = [
    ("timestamp to int64", np.array([0, 1], dtype="M8[s]"), np.array([10**15, 2**62], dtype="<i8")),
    ("date to int32", np.array([0, 1], dtype="M8[D]"), np.array([-(2**31), 2**31 - 1], dtype="<i4")),
    ("U to non-UTF-8 S", np.array(["a", "b"]), np.array([b"\xff\xfe", b"\xc0"], dtype="S2")),
    ("more rows", np.arange(2.0), np.arange(5.0)),
    ("other trailing axes", np.zeros((2, 2)), np.zeros((2, 3))),
]


def swapper(write, replacement):
    """A one-argument SQL function that writes `replacement` (DuckDB reads its arity)."""
    def swap(_):
        write(replacement)
        return 1
    return swap


def swap_checks(tmp):
    """A file replaced after the query was bound (here by a function on the build side of the
    same query, as a concurrent writer would) is an error naming the file, never values of
    another type in the bound vectors: DuckDB's casts of those would raise INTERNAL errors
    and invalidate the database."""
    for func in ("read_npy", "read_npz"):
        for what, bound, replacement in SWAPS:
            path = tmp / f"swap.{func[-3:]}"
            write = (lambda a: np.save(path, a)) if func == "read_npy" else (lambda a: np.savez(path, x=a))
            write(bound)
            con = connect()

            con.create_function("swap", swapper(write, replacement), ["INTEGER"], "INTEGER",
                                side_effects=True)
            r = run(con, f"WITH t AS MATERIALIZED (SELECT swap(1) s) "
                         f"SELECT n.c1::VARCHAR, t.s FROM t, {func}({lit(path)}) n")
            check(r[0] != "ok" and "changed its dtype or shape" in r[1] and str(path) in r[1],
                  f"{func}, {what}: an error naming the file, got {r}")
            alive(con, f"{func}, {what}")
            con.close()
    print(f"files replaced between bind and scan: {len(SWAPS)} replacements for read_npy and read_npz refused")


def main():
    global EXT
    EXT = extension_path()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        sandbox_checks(tmp)
        glob_checks(tmp)
        value_checks(tmp)
        limit_checks(tmp)
        swap_checks(tmp)
    print(f"duckdb_safety: {checks} checks, {len(failures)} failures (duckdb {duckdb.__version__}, {EXT})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
