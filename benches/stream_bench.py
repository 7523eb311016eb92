#!/usr/bin/env python3
"""Peak memory of `npyguard convert --to parquet` on a file far larger than one batch.

    python3 benches/stream_bench.py DIR [--gib 2] [--bin target/release/npyguard] [--splice BENCHMARKS.md]

Writes DIR/big_C.npy and DIR/big_F.npy with NumPy (`np.lib.format.open_memmap`, so the
generator itself never holds the array): float32, shape (GiB * 2**22, 64), C and Fortran
order, values from a fixed seed with NaN, -0.0 and infinities sprinkled in. Then, for each
file and the `columns` and `rowlists` layouts, runs the command a user types

    npyguard convert big_C.npy -o big_C.parquet --to parquet [--layout rowlists]

under `/usr/bin/time -v` (peak resident set size of the whole process, start-up included)
and checks with DuckDB that the Parquet file holds NumPy's values: the row count, every
column's min and max (exact, order-independent) and 8 blocks of 4 096 rows at random
positions compared bit for bit against the memory-mapped array (`file_row_number`). For
scale it also reports `np.load` of the same file (NumPy's default: the whole array in
memory) in a subprocess under the same `time -v`.

With --splice FILE, the table (between `<!-- stream:begin -->` and `<!-- stream:end -->`,
added at the end if missing) is rewritten in FILE. Exits 1 if a value differs.
"""

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
COLS = 64
BLOCK = 4096


def make_input(path: Path, rows: int, fortran: bool):
    if path.exists() and path.stat().st_size > rows * COLS * 4:
        return
    a = np.lib.format.open_memmap(path, mode="w+", dtype="<f4", shape=(rows, COLS), fortran_order=fortran)
    rng = np.random.default_rng(7)
    step = 1 << 18
    for r0 in range(0, rows, step):
        r1 = min(rows, r0 + step)
        block = rng.standard_normal((r1 - r0, COLS), dtype=np.float32)
        block[::997, 3] = np.nan
        block[::991, 5] = -0.0
        block[::1009, 7] = np.inf
        a[r0:r1] = block
    a.flush()
    del a


def peak_rss(cmd) -> tuple[float, int]:
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True)
    secs = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"{cmd} failed:\n{p.stderr[-2000:]}")
    kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    return secs, kib


def check_values(npy: Path, pq: Path, layout: str) -> int:
    import duckdb

    a = np.load(npy, mmap_mode="r")
    con = duckdb.connect()
    src = f"read_parquet('{pq}', file_row_number=true)"
    n = con.execute(f"SELECT count(*) FROM {src}").fetchone()[0]
    bad = int(n != a.shape[0])
    if layout == "columns":
        cols = ", ".join(f"min(c{i + 1}), max(c{i + 1})" for i in range(COLS))
        got = con.execute(f"SELECT {cols} FROM {src}").fetchone()
        for i in range(COLS):
            col = np.asarray(a[:, i])
            finite = col[~np.isnan(col)]
            # DuckDB orders NaN above every number (as its max) and NumPy's nanmax skips it.
            want_min = finite.min()
            want_max = np.nan if np.isnan(col).any() else finite.max()
            gmin, gmax = got[2 * i], got[2 * i + 1]
            if not (gmin == want_min and (gmax == want_max or (np.isnan(want_max) and np.isnan(gmax)))):
                print(f"  column c{i + 1}: DuckDB min/max {gmin}/{gmax}, NumPy {want_min}/{want_max}")
                bad += 1
    rng = np.random.default_rng(11)
    for r0 in rng.integers(0, a.shape[0] - BLOCK, 8):
        r0 = int(r0)
        if layout == "columns":
            sel = ", ".join(f"c{i + 1}" for i in range(COLS))
        else:
            sel = "c1"
        rows = con.execute(
            f"SELECT {sel} FROM {src} WHERE file_row_number >= {r0} AND file_row_number < {r0 + BLOCK} "
            "ORDER BY file_row_number"
        ).fetchnumpy()
        if layout == "columns":
            got = np.stack([rows[f"c{i + 1}"] for i in range(COLS)], axis=1).astype("<f4")
        else:
            got = np.stack([np.asarray(r, dtype="<f4") for r in rows["c1"]])
        want = np.ascontiguousarray(a[r0 : r0 + BLOCK])
        if got.tobytes() != want.tobytes():
            print(f"  rows {r0}..{r0 + BLOCK}: values differ")
            bad += 1
    return bad


def table(results, gib) -> str:
    lines = [
        "<!-- stream:begin -->",
        f"## Streaming conversion: a {gib} GiB .npy to Parquet",
        "",
        "`npyguard convert BIG.npy -o BIG.parquet --to parquet` (release build, the command a user",
        f"types; defaults: about 8 MiB of input rows per chunk, row groups closed at 32 MiB) on a",
        f"float32 array of shape ({gib} * 2**22, 64) written by NumPy, peak RSS of the whole process",
        "by `/usr/bin/time -v`; DuckDB then checked the row count, every column's min and max",
        "and 8 random blocks of 4 096 rows bit for bit against NumPy. `np.load` of the same file",
        "(NumPy's default, the whole array in memory) is shown for scale. By",
        "`benches/stream_bench.py`.",
        "",
        "| input | layout | seconds | peak RSS (MiB) | DuckDB check |",
        "|---|---|---:|---:|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['input']} | {r['layout']} | {r['seconds']:.1f} | {r['rss_mib']:.0f} | {r['check']} |"
        )
    lines.append("<!-- stream:end -->")
    return "\n".join(lines) + "\n"


def splice(path: Path, text: str):
    doc = path.read_text() if path.exists() else ""
    pat = re.compile(r"<!-- stream:begin -->.*?<!-- stream:end -->\n?", re.S)
    doc = pat.sub(text, doc) if pat.search(doc) else doc.rstrip("\n") + "\n\n" + text
    path.write_text(doc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", type=Path)
    ap.add_argument("--gib", type=int, default=2)
    ap.add_argument("--bin", type=Path, default=ROOT / "target/release/npyguard")
    ap.add_argument("--splice", type=Path)
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    rows = args.gib << 22
    results, bad = [], 0
    for order in "CF":
        npy = args.dir / f"big_{order}.npy"
        make_input(npy, rows, order == "F")
        for layout in ["columns", "rowlists"]:
            pq = args.dir / f"big_{order}_{layout}.parquet"
            cmd = [str(args.bin), "convert", str(npy), "-o", str(pq), "--to", "parquet", "--layout", layout]
            secs, kib = peak_rss(cmd)
            b = check_values(npy, pq, layout)
            bad += b
            r = {"input": f"{order} order", "layout": layout, "seconds": secs, "rss_mib": kib / 1024,
                 "check": "NumPy's values" if b == 0 else f"{b} differences"}
            print(json.dumps(r), flush=True)
            results.append(r)
            pq.unlink()
        code = f"import numpy as np; a = np.load({str(npy)!r}); print(a.shape)"
        secs, kib = peak_rss([sys.executable, "-c", code])
        r = {"input": f"{order} order", "layout": "`np.load` (for scale)", "seconds": secs,
             "rss_mib": kib / 1024, "check": "—"}
        print(json.dumps(r), flush=True)
        results.append(r)
    if args.splice:
        splice(args.splice, table(results, args.gib))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
