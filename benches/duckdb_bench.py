#!/usr/bin/env python3
"""DuckDB's read_npy (duckdb-npy/) against the converted Parquet file, on 2 GiB arrays.

    python3 benches/duckdb_bench.py DIR [--gib 2] [--runs 5] [--ext PATH] [--bin PATH]
                                        [--splice BENCHMARKS.md]

Writes into DIR, with NumPy's `open_memmap` (the generator never holds an array), three
float arrays of GiB each, values from a fixed seed:

- `vec_f8.npy`: 1-D float64 (GiB * 2**27 elements): one column, every byte is c1;
- `emb_C.npy` and `emb_F.npy`: float32 of shape (GiB * 2**25, 8), C and Fortran order;

converts each with the release CLI, `npyguard convert X.npy -o X.parquet --to parquet`
(the intermediate file this extension replaces), and then times, in a fresh Python
process per run (connect, LOAD, one query; the extension is loaded for both sides),

    SELECT sum(c1) FROM read_npy('X.npy')       vs      SELECT sum(c1) FROM 'X.parquet'

with DuckDB's default settings (all cores), runs interleaved (npy, parquet, npy, …), best
and spread (max - min) of --runs, and the peak RSS of the process (`VmHWM`; Python and
DuckDB included; a bare `SELECT 42` process is shown for the baseline). Both answers must
equal NumPy's sum of the same column (float64 accumulation, compared with a relative
tolerance of 1e-9 because summation order differs); exits 1 otherwise.

With --splice FILE the section between `<!-- duckdb:begin -->` and `<!-- duckdb:end -->`
(appended if missing) is rewritten in FILE.
"""

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, sys, time, duckdb
ext, query = sys.argv[1], sys.argv[2]
con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
con.execute(f"LOAD '{ext}'")
con.execute("SET enable_progress_bar = false")
t = time.perf_counter()
value = con.execute(query).fetchall()[0][0]
secs = time.perf_counter() - t
# VmHWM: this process image's peak RSS (ru_maxrss would carry the parent's over fork+exec).
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({"secs": secs, "value": value, "rss_mib": hwm / 1024}))
"""


def make(path: Path, shape, dtype, fortran=False):
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    if path.exists() and path.stat().st_size >= nbytes:
        return
    a = np.lib.format.open_memmap(path, mode="w+", dtype=dtype, shape=shape, fortran_order=fortran)
    rng = np.random.default_rng(19)
    step = 1 << 22
    for r0 in range(0, shape[0], step):
        r1 = min(shape[0], r0 + step)
        a[r0:r1] = rng.standard_normal((r1 - r0,) + tuple(shape[1:]), dtype=np.float64).astype(dtype)
    a.flush()
    del a


def numpy_sum(path: Path, all_columns=False) -> float:
    """NumPy's float64 sum of c1 (or, with all_columns, of each row's columns summed in
    float64 from c1 to cN, as `c1::DOUBLE + c2 + ...` in DuckDB)."""
    a = np.load(path, mmap_mode="r")
    total = 0.0
    for r0 in range(0, a.shape[0], 1 << 22):
        part = a[r0:r0 + (1 << 22)]
        if a.ndim == 1:
            total += float(np.sum(part, dtype=np.float64))
        elif not all_columns:
            total += float(np.sum(part[:, 0], dtype=np.float64))
        else:
            row = part[:, 0].astype(np.float64)
            for j in range(1, a.shape[1]):
                row = row + part[:, j].astype(np.float64)
            total += float(np.sum(row))
    return total


def run(ext, query):
    p = subprocess.run([sys.executable, "-c", CHILD, ext, query], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{query}: {p.stderr.strip()}")
    return json.loads(p.stdout.strip().splitlines()[-1])


COPY_CHILD = r"""
import json, sys, time, duckdb
ext, mode, path, rows = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
con.execute(f"LOAD '{ext}'")
con.execute("SET enable_progress_bar = false")
cols = ", ".join(f"(range + {k})::DOUBLE AS c{k + 1}" for k in range(8))
query = f"SELECT {cols} FROM range({rows})"
t = time.perf_counter()
if mode == "fetchnumpy":
    import numpy as np
    d = con.execute(query).fetchnumpy()
    np.save(path, np.stack([d[f"c{k + 1}"] for k in range(8)], axis=1))
else:
    con.execute(f"COPY ({query}) TO '{path}' (FORMAT {mode})")
secs = time.perf_counter() - t
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({"secs": secs, "rss_mib": hwm / 1024}))
"""


def copy_bench(ext, d: Path, gib, runs):
    """COPY (8 DOUBLE columns of gib GiB) TO .npy, to Parquet, and fetchnumpy + np.save:
    seconds and peak RSS; the .npy's shape, dtype, order and sampled rows are checked
    (byte identity with np.save is tests/numpy/duckdb_copy.py's)."""
    rows = gib << 24  # 8 float64 columns: 64 bytes a row
    out = {}
    modes = [("npy", d / "copy.npy", runs), ("parquet", d / "copy.parquet", runs),
             ("fetchnumpy", d / "copy_np.npy", 1)]
    for _ in range(max(r for _, _, r in modes)):
        for mode, path, n in modes:
            if len(out.get(mode, [])) >= n:
                continue
            path.unlink(missing_ok=True)
            p = subprocess.run([sys.executable, "-c", COPY_CHILD, ext, mode, str(path), str(rows)],
                               capture_output=True, text=True)
            if p.returncode != 0:
                raise SystemExit(f"COPY {mode}: {p.stderr.strip()}")
            r = json.loads(p.stdout.strip().splitlines()[-1])
            r["bytes"] = path.stat().st_size
            if mode == "npy":
                a = np.load(path, mmap_mode="r")
                ok = a.shape == (rows, 8) and a.dtype == np.float64 and a.flags.c_contiguous
                idx = np.array([0, 1, rows // 2, rows - 1])
                ok = ok and np.array_equal(a[idx], idx[:, None] + np.arange(8)[None, :])
                del a
                if not ok:
                    raise SystemExit("COPY TO npy: wrong array")
            out.setdefault(mode, []).append(r)
            path.unlink(missing_ok=True)
            print(json.dumps({"copy": mode, **r}))
    return out


def section(gib, runs, rows, base_rss, copies, load=None):
    lines = [
        "<!-- duckdb:begin -->",
        f"## DuckDB: `read_npy` vs the converted Parquet file ({gib} GiB)",
        "",
        "`SELECT sum(c1) FROM read_npy('X.npy')` against `SELECT sum(c1) FROM 'X.parquet'`, where",
        "X.parquet is `npyguard convert X.npy -o X.parquet --to parquet` (release CLI); pip",
        "duckdb at the pinned version with the extension from `duckdb-npy/build.sh`, DuckDB's",
        "default settings (all cores). Each run is a fresh Python process (connect, `LOAD`, the",
        f"query); runs interleaved, best and spread (max − min) of {runs}; files in the page cache",
        "after the first run. Peak RSS is the whole process's `VmHWM` (Python and DuckDB",
        f"included: a bare `SELECT 42` process peaks at {base_rss:.0f} MiB). Both answers equal",
        "NumPy's float64 sum of the column (relative tolerance 1e-9). By `benches/duckdb_bench.py`.",
        "" if load is None else
        f"Load average (1 min) at the start and end of the run: {load[0]:.1f} and {load[1]:.1f} "
        f"on {os.cpu_count()} CPUs.",
        "",
        "What each reader must read for `sum(c1)`: the 1-D file is all c1, for both; the Fortran-order",
        "file keeps c1 in one run, which read_npy reads alone (projection pushdown), as Parquet reads",
        "its c1 column chunk; in the C-order file a row's 8 values are adjacent, so read_npy reads the",
        "whole file (every row's bytes) while Parquet, being columnar, reads one eighth of it. Memory",
        "stays at one 1 MiB chunk per DuckDB thread plus DuckDB's vectors, whatever the file size.",
        "",
        "`sum(c1 + … + c8)` (`sum(c1::DOUBLE + c2 + … + c8)`) needs every column: both readers",
        "read the whole file.",
        "",
        "| file | query | reader | best s | spread s | file GiB / best s | peak RSS (MiB) |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    others = sorted({r["reader"] for r in rows} - {"read_npy", "Parquet"})
    for label in others:
        lines[-2:-2] = [f"`{label}`: read_npy from another build of the extension "
                        "(`--baseline-ext`), timed in the same interleaved rounds.", ""]
    for r in rows:
        lines.append(f"| {r['file']} | {r['query']} | {r['reader']} | {r['best']:.3f} | {r['spread']:.3f} | "
                     f"{r['gibps']:.2f} | {r['rss']:.0f} |")
    lines += [
        "",
        f"### `COPY (query) TO 'x.npy' (FORMAT npy)`: a {gib} GiB result",
        "",
        f"`COPY (SELECT (range + k)::DOUBLE AS ck … FROM range({gib}·2²⁴)) TO …`: 8 DOUBLE columns,",
        f"{gib << 24} rows, a (N, 8) C-order float64 array; against `FORMAT parquet` and against",
        "the way back without the extension, `fetchnumpy()` + `np.stack` + `np.save`. A fresh",
        "process per run (Python and DuckDB included in the peak RSS, `VmHWM`); the .npy's",
        "shape, dtype, order and sampled rows are checked with NumPy.",
        "",
        "| writer | runs | best s | spread s | output MiB | peak RSS (MiB) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    names = {"npy": "COPY TO (FORMAT npy)", "parquet": "COPY TO (FORMAT parquet)",
             "fetchnumpy": "fetchnumpy() + np.save"}
    for mode, rs in copies.items():
        secs = [r["secs"] for r in rs]
        lines.append(f"| {names[mode]} | {len(rs)} | {min(secs):.2f} | {max(secs) - min(secs):.2f} | "
                     f"{rs[0]['bytes'] / 2**20:.0f} | {max(r['rss_mib'] for r in rs):.0f} |")
    lines.append("<!-- duckdb:end -->")
    return "\n".join(lines) + "\n"


def splice(path: Path, text: str):
    doc = path.read_text() if path.exists() else ""
    pat = re.compile(r"<!-- duckdb:begin -->.*?<!-- duckdb:end -->\n?", re.S)
    doc = pat.sub(lambda _: text, doc) if pat.search(doc) else doc.rstrip("\n") + "\n\n" + text
    path.write_text(doc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", type=Path)
    ap.add_argument("--gib", type=int, default=2)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ext", help="the .duckdb_extension (default: run duckdb-npy/build.sh)")
    ap.add_argument("--bin", type=Path, default=ROOT / "target/release/npyguard")
    ap.add_argument("--splice", type=Path)
    ap.add_argument("--baseline-ext", help="another build of the extension to time read_npy with, "
                    "interleaved in the same run (e.g. one that reads with std::fs)")
    ap.add_argument("--baseline-label", default="read_npy (baseline build)")
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    ext = args.ext or subprocess.run(["bash", str(ROOT / "duckdb-npy/build.sh")], check=True,
                                     stdout=subprocess.PIPE, text=True).stdout.strip().splitlines()[-1]
    g = args.gib
    files = [
        ("vec_f8", (g << 27,), "<f8", False, f"float64 ({g}·2²⁷,)"),
        ("emb_C", (g << 25, 8), "<f4", False, f"float32 ({g}·2²⁵, 8) C order"),
        ("emb_F", (g << 25, 8), "<f4", True, f"float32 ({g}·2²⁵, 8) Fortran order"),
    ]
    load0 = os.getloadavg()[0]
    base_rss = min(run(ext, "SELECT 42")["rss_mib"] for _ in range(3))
    rows, bad = [], False
    for name, shape, dtype, fortran, label in files:
        npy, parquet = args.dir / f"{name}.npy", args.dir / f"{name}.parquet"
        make(npy, shape, dtype, fortran)
        if not parquet.exists() or parquet.stat().st_mtime < npy.stat().st_mtime:
            subprocess.run([str(args.bin), "convert", str(npy), "-o", str(parquet), "--to", "parquet"],
                           check=True, stdout=subprocess.DEVNULL)
        exprs = {"sum(c1)": ("sum(c1)", numpy_sum(npy))}
        if len(shape) > 1:
            every = " + ".join(["c1::DOUBLE"] + [f"c{j}" for j in range(2, shape[1] + 1)])
            exprs[f"sum(c1 + … + c{shape[1]})"] = (f"sum({every})", numpy_sum(npy, all_columns=True))
        for what, (expr, want) in exprs.items():
            queries = {
                "read_npy": (ext, f"SELECT {expr} FROM read_npy('{npy}')"),
                "Parquet": (ext, f"SELECT {expr} FROM '{parquet}'"),
            }
            if args.baseline_ext:
                queries[args.baseline_label] = (args.baseline_ext, queries["read_npy"][1])
            results = {k: [] for k in queries}
            run(*queries["read_npy"])  # warm the page cache for both files
            run(*queries["Parquet"])
            for _ in range(args.runs):
                for k, (e, q) in queries.items():
                    results[k].append(run(e, q))
            size_gib = npy.stat().st_size / 2**30
            for k, rs in results.items():
                for r in rs:
                    if abs(r["value"] - want) > 1e-9 * max(1.0, abs(want)):
                        print(f"{name} {k} {what}: {r['value']!r} != NumPy's {want!r}")
                        bad = True
                secs = [r["secs"] for r in rs]
                row = {"file": label, "query": what, "reader": k, "best": min(secs),
                       "spread": max(secs) - min(secs), "gibps": size_gib / min(secs),
                       "rss": max(r["rss_mib"] for r in rs)}
                rows.append(row)
                print(json.dumps(row))
    copies = copy_bench(ext, args.dir, g, args.runs)
    text = section(g, args.runs, rows, base_rss, copies, (load0, os.getloadavg()[0]))
    print(text)
    if args.splice:
        splice(args.splice, text)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
