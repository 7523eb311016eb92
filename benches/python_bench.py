#!/usr/bin/env python3
"""npyguard.load against np.load on one large f8 file, side by side (issue 20).

Usage: python3 benches/python_bench.py DIR [--mib 256] [--runs 5] [--splice BENCHMARKS.md]
                                         [--only load|npz]

Writes DIR/py_f8.npy (little-endian f8, MIB MiB of payload, fixed seed) unless it exists,
reads it once to warm the page cache, then times `np.load(path)` and `npyguard.load(path)`
interleaved (A B A B ..., RUNS of each, each result dropped before the next run) and reports
the best time of each, the spread (slowest / best) and the ratio np.load / npyguard.load
(above 1: npyguard is faster). Both results are checked equal bit for bit first.
With --splice, the section between `<!-- python:begin -->` and `<!-- python:end -->` of the
file is rewritten (appended if missing). Needs the package: `pip install ./python`.

The npz part (issue 29): the same MIB MiB array as the one member of an `np.savez` and of an
`np.savez_compressed` archive, read as `np.load(path)[key]` and `npyguard.load_npz(path)[key]`,
interleaved, each run in a fresh interpreter whose peak RSS (VmHWM) and time of the read are
reported, and a 2 GiB zip bomb (a member of zeros, deflated 1 030:1, about 2 MB) given to
npyguard (refused by the ratio limit, 1 000) and to np.load (which inflates it), side by side.
Spliced between `<!-- python-npz:begin -->` and `<!-- python-npz:end -->`.
"""

import argparse
import gc
import json
import os
import platform
import re
import subprocess
import sys
import textwrap
import time
import zipfile
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


def make_bomb(path: Path, size: int) -> None:
    if path.exists():
        return
    import io
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "|u1", "fortran_order": False, "shape": (size,)})
    zeros = bytes(1 << 24)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        with z.open("bomb.npy", "w", force_zip64=True) as f:
            f.write(header.getvalue())
            for _ in range(size // len(zeros)):
                f.write(zeros)


CHILD = """
import sys, time
import numpy as np, npyguard
def hwm():
    for line in open('/proc/self/status'):
        if line.startswith('VmHWM:'):
            return int(line.split()[1]) * 1024
how, path, key = sys.argv[1:4]
base = hwm()
t = time.perf_counter()
outcome = 'read'
try:
    if how == 'np':
        with np.load(path) as f:
            a = f[key]
    else:
        with npyguard.load_npz(path) as f:
            a = f[key]
    a[-1]
except npyguard.Error as e:
    outcome = 'refused: ' + e.kind
dt = time.perf_counter() - t
print(dt, hwm(), base, outcome)
"""


def child(how: str, path: Path, key: str):
    out = subprocess.run([sys.executable, "-c", CHILD, how, str(path), key],
                         capture_output=True, text=True, check=True).stdout.split(None, 3)
    return float(out[0]), int(out[1]), int(out[2]), out[3].strip()


def npz_bench(args, npy: Path) -> list:
    a = np.load(npy, mmap_mode="r")
    stored, deflated, bomb = args.dir / "py_f8.npz", args.dir / "py_f8z.npz", args.dir / "bomb2g.npz"
    if not stored.exists():
        np.savez(stored, a=a)
    if not deflated.exists():
        np.savez_compressed(deflated, a=a)
    make_bomb(bomb, 2 << 30)
    del a
    cases = [
        (f"{args.mib} MiB member, `np.savez`", stored, "a"),
        (f"{args.mib} MiB member, `np.savez_compressed`", deflated, "a"),
        (f"2 GiB bomb ({bomb.stat().st_size / 1e6:.1f} MB archive)", bomb, "bomb"),
    ]
    load_before = os.getloadavg()[0]
    res = {}
    for _ in range(args.runs):  # interleaved: np, npyguard, per case
        for label, path, key in cases:
            for how in ("np", "npyguard"):
                res.setdefault((label, how), []).append(child(how, path, key))
    rows = []
    for label, path, key in cases:
        for how in ("np", "npyguard"):
            rs = res[(label, how)]
            best = min(r[0] for r in rs)
            peak = max(r[1] for r in rs)
            base = min(r[2] for r in rs)
            row = {"case": label, "reader": "np.load" if how == "np" else "npyguard.load_npz",
                   "best_s": best, "spread": max(r[0] for r in rs) / best, "peak_mib": peak / 2**20,
                   "base_mib": base / 2**20, "outcome": rs[0][3]}
            print(json.dumps({"group": "python_npz", **row}))
            rows.append(row)
    lines = [
        "<!-- python-npz:begin -->",
        "## Python: `.npz` members and a zip bomb, `npyguard.load_npz` vs `np.load` (issue 29)",
        "",
        f"`benches/python_bench.py --only npz`: each read in a fresh interpreter (`f[key]` then closed), "
        f"{args.runs} interleaved runs of each; time of the read alone (best, spread slowest/best) and the "
        "process's peak RSS (VmHWM, the interpreter with NumPy and npyguard imported included: "
        f"{rows[0]['base_mib']:.0f} MiB before the read). The member: the {args.mib} MiB `f8` array above. The bomb: "
        "a member of 2 GiB of zeros deflated at level 9 (ratio about 1 030, over the default `max_ratio` 1 000). "
        f"NumPy {np.__version__}, Python {platform.python_version()}. Shared machine: {os.cpu_count()} CPUs, "
        f"1-minute load average {load_before:.2f} before the runs, {os.getloadavg()[0]:.2f} after (other work ran meanwhile).",
        "",
        "| archive | reader | outcome | best | spread | peak RSS |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['case']} | `{r['reader']}` | {r['outcome']} | "
                     + (f"{r['best_s'] * 1000:.2f} ms" if r['best_s'] < 0.01 else f"{r['best_s']:.3f} s") + " | "
                     f"{r['spread']:.2f} | {r['peak_mib']:.0f} MiB |")
    lines += ["", "<!-- python-npz:end -->", ""]
    return lines


def splice(doc_path: Path, name: str, lines: list) -> None:
    text = "\n".join(lines)
    doc = doc_path.read_text() if doc_path.exists() else ""
    pat = re.compile(r"<!-- %s:begin -->.*?<!-- %s:end -->\n?" % (name, name), re.S)
    doc = pat.sub(lambda _: text, doc) if pat.search(doc) else doc.rstrip("\n") + "\n\n" + text
    doc_path.write_text(doc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", type=Path)
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--splice", type=Path)
    ap.add_argument("--only", choices=["load", "npz"])
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    path = args.dir / "py_f8.npy"
    make_input(path, args.mib)
    if args.only != "load":
        lines = npz_bench(args, path)
        if args.splice:
            splice(args.splice, "python-npz", lines)
    if args.only == "npz":
        return

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
