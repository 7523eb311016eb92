#!/usr/bin/env python3
"""Runs the extension's SQLLogicTests (duckdb-npy/test/sql/*.test) with Python's duckdb.

The files are in the format of DuckDB's sqllogictest runner, as the DuckDB
community-extensions repository runs them (`require npy`, `statement ok`, `statement
error` with an expected message, `query <types> [rowsort|valuesort|nosort]` with
tab-separated expected rows, `# comments`, `__TEST_DIR__`). This runner implements that
subset so CI can run them without building DuckDB's C++ runner; it refuses any other
directive (so a test never silently does less than it says). Each file gets a fresh
in-memory database; the working directory is duckdb-npy/ (paths `test/data/...`, as in
an extension repository).

Values are compared as DuckDB's runner prints them: NULL, true/false, numbers as
Python's repr of the value (1.0, 0.25), dates as ISO text; `statement error` passes when
the statement fails and its message contains the expected text.

Builds the extension with `bash duckdb-npy/build.sh` unless NPY_DUCKDB_EXTENSION names it.
Usage: python3 tests/numpy/duckdb_sqllogic.py [file.test ...]
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "common"))
from duckdb_ext import extension_path  # noqa: E402
EXT_DIR = ROOT / "duckdb-npy"


def fmt(v):
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v if v else "(empty)"
    return str(v)


def records(text):
    """(line number, directive words, sql, expected lines or None) per record."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            i += 1
            continue
        start = i + 1
        words = line.split()
        i += 1
        body, expected = [], None
        if words[0] in ("statement", "query"):
            while i < len(lines) and lines[i].strip() and lines[i].strip() != "----":
                body.append(lines[i])
                i += 1
            if i < len(lines) and lines[i].strip() == "----":
                i += 1
                expected = []
                while i < len(lines) and lines[i].strip():
                    expected.append(lines[i])
                    i += 1
        yield start, words, "\n".join(body), expected


def run_file(path, ext, tmp):
    """Runs one .test file: (checks, failures)."""
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    checks, failures = 0, []
    for line, words, sql, expected in records(path.read_text()):
        where = f"{path.name}:{line}"
        sql = sql.replace("__TEST_DIR__", str(tmp))
        if words[0] == "require":
            if words[1:] != ["npy"]:
                return checks, failures + [f"{where}: require {words[1:]}: unknown extension"]
            con.execute(f"LOAD '{ext}'")
            continue
        if words[0] == "statement" and words[1] in ("ok", "error"):
            checks += 1
            try:
                con.execute(sql)
                err = None
            except duckdb.Error as e:
                err = str(e)
            if words[1] == "ok" and err is not None:
                failures.append(f"{where}: statement ok failed: {err}")
            elif words[1] == "error":
                if err is None:
                    failures.append(f"{where}: statement error succeeded")
                elif expected and "\n".join(expected) not in err:
                    failures.append(f"{where}: error {err!r} does not contain {expected!r}")
                elif "INTERNAL" in err.upper().split(":")[0]:
                    failures.append(f"{where}: an INTERNAL error: {err}")
            continue
        if words[0] == "query":
            checks += 1
            sort = words[2] if len(words) > 2 else "nosort"
            try:
                rows = con.execute(sql).fetchall()
            except duckdb.Error as e:
                failures.append(f"{where}: query failed: {e}")
                continue
            got = ["\t".join(fmt(v) for v in r) for r in rows]
            want = list(expected or [])
            if sort == "rowsort":
                got, want = sorted(got), sorted(want)
            elif sort == "valuesort":
                got = sorted(v for r in got for v in r.split("\t"))
                want = sorted(v for r in want for v in r.split("\t"))
            elif sort != "nosort":
                failures.append(f"{where}: unknown sort mode {sort}")
                continue
            if len(words[1]) != (len(rows[0]) if rows else len(words[1])):
                failures.append(f"{where}: {len(words[1])} column types for {len(rows[0])} columns")
            if got != want:
                failures.append(f"{where}: got\n" + "\n".join(got) + "\nwant\n" + "\n".join(want))
            continue
        return checks, failures + [f"{where}: directive {words[0]!r} not supported by this runner"]
    return checks, failures


def main():
    ext = extension_path()
    files = [Path(a).resolve() for a in sys.argv[1:]] or sorted((EXT_DIR / "test" / "sql").glob("*.test"))
    total, all_failures = 0, []
    os.chdir(EXT_DIR)
    for f in files:
        with tempfile.TemporaryDirectory() as tmp:
            n, failures = run_file(f, ext, Path(tmp))
        total += n
        all_failures += failures
        print(f"{f.relative_to(EXT_DIR)}: {n} records, {len(failures)} failures")
        for msg in failures:
            print("FAIL:", msg)
    print(f"duckdb_sqllogic: {len(files)} files, {total} records, {len(all_failures)} failures "
          f"(duckdb {duckdb.__version__})")
    sys.exit(1 if all_failures or not files else 0)


if __name__ == "__main__":
    main()
