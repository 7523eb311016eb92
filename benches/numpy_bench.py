#!/usr/bin/env python3
"""NumPy's side of the nonzeros benchmark (the rest is interleaved by benches/interleaved.py):
writes DIR/sparse_20000x2000_f4.npy (1 % density), times np.nonzero + fancy indexing on it.

Usage: numpy_bench.py DIR  -> one JSON object per line on stdout.
"""
import json
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


rng = np.random.default_rng(42)
sp = np.zeros((20000, 2000), dtype=np.float32)
idx = rng.choice(sp.size, size=sp.size // 100, replace=False)
sp.flat[idx] = rng.standard_normal(idx.size).astype(np.float32)
np.save(f"{d}/sparse_20000x2000_f4.npy", sp)


def nz():
    r, c = np.nonzero(sp)
    return r, c, sp[r, c]


s = best(nz)
print(json.dumps({"group": "nonzeros", "name": "numpy np.nonzero + fancy indexing", "bytes": sp.nbytes,
                  "seconds": s, "gbps": sp.nbytes / s / 1e9}))
