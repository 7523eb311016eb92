#!/usr/bin/env python3
"""The DuckDB releases the extension supports (issue 28, item 6), from a test.

duckdb-npy/supported-duckdb.txt names the oldest and newest supported release and the
newest refused one. Each is installed with pip (`pip install --no-deps --target DIR
duckdb==V`, once, into $NPY_DUCKDB_VERSIONS_DIR or ~/.cache/npyguard/duckdb-versions: never
into the clone) and run in a subprocess with PYTHONPATH=DIR:

- oldest and newest: LOAD succeeds; read_npy, FROM 'x.npy', read_npz, npy_limits() and
  COPY TO (FORMAT npy) give the expected rows and np.save's bytes;
- refused: LOAD fails with DuckDB's own message (the extension asks for a newer C API),
  and the database still answers SELECT 42.

The pinned build version (duckdb-version.txt, the Python duckdb the other tests use) is
between the two. Builds the extension with `bash duckdb-npy/build.sh` unless
NPY_DUCKDB_EXTENSION names it.
"""

import io
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "common"))
from duckdb_ext import extension_path  # noqa: E402
failures = []
checks = 0


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)
    return cond


def versions():
    out = {}
    for line in (ROOT / "duckdb-npy" / "supported-duckdb.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            k, v = line.split()
            out[k] = v
    return out


def install(version):
    base = Path(os.environ.get("NPY_DUCKDB_VERSIONS_DIR", Path.home() / ".cache" / "npyguard" / "duckdb-versions"))
    target = base / version
    probe = [sys.executable, "-c", "import duckdb, sys; sys.exit(duckdb.__version__ != sys.argv[1])", version]
    if subprocess.run(probe, env={**os.environ, "PYTHONPATH": str(target)}, cwd="/").returncode != 0:
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--upgrade",
                        "--disable-pip-version-check", "--root-user-action=ignore",
                        "--target", str(target), f"duckdb=={version}"], check=True)
    return target


CHILD = r'''
import sys, duckdb
ext, d = sys.argv[1], sys.argv[2]
print("version", duckdb.__version__)
con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
try:
    con.execute(f"LOAD '{ext}'")
    print("load ok")
except Exception as e:
    print("load error", type(e).__name__, str(e).replace("\n", " "))
    print("alive", con.execute("SELECT 42").fetchall())
    sys.exit(0)
print("read_npy", con.execute(f"SELECT sum(c1), sum(c2), count(*) FROM read_npy('{d}/a.npy')").fetchall())
print("scan", con.execute(f"SELECT count(*) FROM '{d}/a.npy'").fetchall())
print("read_npz", con.execute(f"SELECT sum(c1) FROM read_npz('{d}/z.npz', member := 'x')").fetchall())
print("limits", con.execute("SELECT count(*) FROM npy_limits()").fetchall())
con.execute(f"COPY (SELECT range::DOUBLE a, (range * 2)::DOUBLE b FROM range(5)) TO '{d}/out.npy' (FORMAT npy)")
print("copy ok")
'''


def main():
    ext = extension_path()
    v = versions()
    with tempfile.TemporaryDirectory() as d:
        np.save(Path(d) / "a.npy", np.arange(6.0).reshape(3, 2))
        np.savez(Path(d) / "z.npz", x=np.arange(4))
        want_copy = io.BytesIO()
        np.save(want_copy, np.stack([np.arange(5.0), np.arange(5.0) * 2], axis=1))
        for role in ("oldest", "newest", "refused"):
            version = v[role]
            target = install(version)
            r = subprocess.run([sys.executable, "-c", CHILD, ext, d], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, cwd="/",
                               env={**os.environ, "PYTHONPATH": str(target)})
            out = r.stdout
            check(r.returncode == 0, f"{version}: the child ran: {out[-500:]}")
            check(f"version {version}" in out, f"{version}: PYTHONPATH gave that DuckDB: {out[:200]}")
            if role == "refused":
                check("load error" in out and "load ok" not in out, f"{version}: LOAD refused: {out}")
                # DuckDB 1.5.5: "The file was built for DuckDB C API version 'v1.5.6', but we
                # can only load extensions built for DuckDB C API 'v1.2.0' and lower."
                check("C API version 'v1.5.6'" in out, f"{version}: DuckDB's message names the C API: {out}")
                check("alive [(42,)]" in out, f"{version}: the database answers after the refusal: {out}")
            else:
                check("load ok" in out, f"{version}: LOAD succeeded: {out}")
                check("read_npy [(6.0, 9.0, 3)]" in out, f"{version}: read_npy: {out}")
                check("scan [(3,)]" in out, f"{version}: FROM 'x.npy': {out}")
                check("read_npz [(6,)]" in out, f"{version}: read_npz: {out}")
                check("limits [(5,)]" in out, f"{version}: npy_limits(): {out}")
                check("copy ok" in out and (Path(d) / "out.npy").read_bytes() == want_copy.getvalue(),
                      f"{version}: COPY TO npy is np.save's bytes: {out}")
                (Path(d) / "out.npy").unlink(missing_ok=True)
            print(f"DuckDB {version} ({role}): " + ("refused, database alive" if role == "refused" else "loads and reads, COPY TO np.save's bytes"))
    print(f"duckdb_versions: {checks} checks, {len(failures)} failures "
          f"(supported {v['oldest']} .. {v['newest']}, refused {v['refused']})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
