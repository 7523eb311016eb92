#!/usr/bin/env python3
"""NumPy's side of the side-by-side benchmarks, on the files the Rust bench wrote.

Usage: numpy_bench.py DIR  -> one JSON object per line on stdout (same shape as the Rust bench).
"""
import io
import json
import statistics
import sys
import time

import numpy as np

d = sys.argv[1]
runs = 5


def best(f):
    b = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        f()
        b = min(b, time.perf_counter() - t)
    return b


def emit(group, name, nbytes, s):
    print(json.dumps({"group": group, "name": name, "bytes": nbytes, "seconds": s, "gbps": nbytes / s / 1e9}))


le, be, fo = f"{d}/f8_le.npy", f"{d}/f8_be.npy", f"{d}/f4_fortran.npy"
n = np.load(le, mmap_mode="r").nbytes
emit("read_le", "numpy np.load", n, best(lambda: np.load(le)))
emit("read_be", "numpy np.load + astype('<f8')", n, best(lambda: np.load(be).astype("<f8")))
fa = np.load(fo)
emit("fortran_to_c", "numpy ascontiguousarray (conversion only)", fa.nbytes, best(lambda: np.ascontiguousarray(fa)))
emit("fortran_to_c", "numpy ascontiguousarray(np.load(f))", fa.nbytes, best(lambda: np.ascontiguousarray(np.load(fo))))

with open(le, "rb") as f:
    head = f.read(128)
samples = []
for _ in range(20):
    k = 2000
    t = time.perf_counter()
    for _ in range(k):
        b = io.BytesIO(head)
        np.lib.format.read_magic(b)
        np.lib.format.read_array_header_1_0(b)
    samples.append((time.perf_counter() - t) / k * 1e6)
print(json.dumps({"group": "header", "name": "numpy read_magic + read_array_header_1_0 (median)", "micros": statistics.median(samples)}))

arr = np.load(le)
emit("write", "numpy np.save", arr.nbytes, best(lambda: np.save(f"{d}/np_write_out.npy", arr)))

rng = np.random.default_rng(42)
sp = np.zeros((20000, 2000), dtype=np.float32)
idx = rng.choice(sp.size, size=sp.size // 100, replace=False)
sp.flat[idx] = rng.standard_normal(idx.size).astype(np.float32)
np.save(f"{d}/sparse_20000x2000_f4.npy", sp)


def nz():
    r, c = np.nonzero(sp)
    return r, c, sp[r, c]


emit("nonzeros", "numpy np.nonzero + fancy indexing", sp.nbytes, best(nz))
