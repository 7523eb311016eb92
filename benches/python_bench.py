#!/usr/bin/env python3
"""npyguard.load against np.load on one large f8 file, side by side (issue 20).

Usage: python3 benches/python_bench.py DIR [--mib 256] [--runs 5] [--splice BENCHMARKS.md]

Writes DIR/py_f8.npy (little-endian f8, MIB MiB of payload, fixed seed) unless it exists,
reads it once to warm the page cache, then times `np.load(path)` and `npyguard.load(path)`
interleaved (A B A B ..., RUNS of each, each result dropped before the next run) and reports
the best time of each, the spread (slowest / best) and the ratio np.load / npyguard.load
(above 1: npyguard is faster). Both results are checked equal bit for bit first.
With --splice, the section between `<!-- python:begin -->` and `<!-- python:end -->` of the
file is rewritten (appended if missing). Needs the package: `pip install ./python`.
"""

import argparse
import gc
import json
import os
import platform
import re
import time
from pathlib import Path

import numpy as np

import npyguard


def make_input(path: Path, mib: int) -> None:
    n = mib * (1 << 20) // 8
    if path.exists() and path.stat().st_size >= n * 8:
        return
    a = np.lib.format.open_memmap(path, mode="w+", dtype="<f8", shape=(n,))
    rng = np.random.default_rng(20)
    step = 1 << 22
    for i in range(0, n, step):
        a[i : i + step] = rng.standard_normal(min(step, n - i))
    a.flush()
    del a


def timed(f):
    gc.collect()
    t = time.perf_counter()
    r = f()
    dt = time.perf_counter() - t
    del r
    return dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", type=Path)
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--splice", type=Path)
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    path = args.dir / "py_f8.npy"
    make_input(path, args.mib)

    a, b = np.load(path), npyguard.load(path)
    assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    del a, b

    load_before = os.getloadavg()[0]
    contenders = {
        "np.load(path)": lambda: np.load(path),
        "npyguard.load(path)": lambda: npyguard.load(path),
    }
    times = {k: [] for k in contenders}
    for _ in range(args.runs):  # interleaved: A B A B ...
        for name, f in contenders.items():
            times[name].append(timed(f))
    size = path.stat().st_size
    rows = []
    for name, ts in times.items():
        best = min(ts)
        rows.append({"name": name, "best_s": best, "spread": max(ts) / best,
                     "gbps": size / best / 1e9, "runs": ts})
        print(json.dumps({"group": "python_load", "bytes": size, **rows[-1]}))
    ratio = times["np.load(path)"] and min(times["np.load(path)"]) / min(times["npyguard.load(path)"])
    print(json.dumps({"group": "python_load", "ratio_np_over_npyguard": ratio}))

    if args.splice:
        lines = [
            "<!-- python:begin -->",
            "## Python: `npyguard.load` vs `np.load` (issue 20)",
            "",
            f"`benches/python_bench.py`: one {size / 2**20:.0f} MiB little-endian `f8` file from the page",
            f"cache, {args.runs} interleaved runs of each (A B A B ...), best time and spread (slowest/best);",
            f"NumPy {np.__version__}, Python {platform.python_version()}, npyguard {npyguard.__version__}.",
            "Both results are checked equal bit for bit before timing. "
            f"{os.cpu_count()} CPUs; 1-minute load average {load_before:.2f} before the runs,"
            f" {os.getloadavg()[0]:.2f} after. Both read the page cache into huge-page memory"
            " (npyguard: `read_raw_path`'s `Buffer<u8>`, exported to `np.frombuffer`).",
            "",
            "| read | best | GB/s | spread |",
            "|---|---|---|---|",
        ]
        for r in rows:
            lines.append(f"| `{r['name']}` | {r['best_s']:.3f} s | {r['gbps']:.2f} | {r['spread']:.2f} |")
        lines += [
            "",
            f"Ratio `np.load` / `npyguard.load` (best times, same run): **{ratio:.2f}** "
            "(above 1: npyguard is faster).",
            "<!-- python:end -->",
            "",
        ]
        text = "\n".join(lines)
        doc = args.splice.read_text() if args.splice.exists() else ""
        pat = re.compile(r"<!-- python:begin -->.*?<!-- python:end -->\n?", re.S)
        doc = pat.sub(lambda _: text, doc) if pat.search(doc) else doc.rstrip("\n") + "\n\n" + text
        args.splice.write_text(doc)


if __name__ == "__main__":
    main()
