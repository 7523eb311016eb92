#!/usr/bin/env python3
"""Side-by-side benchmarks, interleaved: every run of a Rust implementation is followed by
one run of each other implementation of the same operation (ABAB…, each round starting one
implementation later), so page-cache and writeback state cannot favour one side. The Rust side is `npyguard-bench serve DIR`, which
runs one named operation per line of stdin; NumPy runs here, in this process, on its own
defaults.

Usage: interleaved.py DIR --bin PATH/npyguard-bench [--runs 5] [--only GROUP,GROUP]
Prints one JSON object per implementation: group, name, bytes, the seconds of every run.
"""
import argparse
import io
import json
import os
import subprocess
import sys
import time

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("--bin", required=True)
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("--only", default="", help="comma-separated groups to run (default: all)")
args = ap.parse_args()
d = args.dir

server = subprocess.Popen([args.bin, "serve", d], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def rust(op):
    def run():
        server.stdin.write(op + "\n")
        server.stdin.flush()
        return float(server.stdout.readline())

    return run


def timed(f):
    def run():
        t = time.perf_counter()
        f()
        return time.perf_counter() - t

    return run


def header_numpy():
    with open(f"{d}/f8_le.npy", "rb") as f:
        head = f.read(128)
    k = 5000
    t = time.perf_counter()
    for _ in range(k):
        b = io.BytesIO(head)
        np.lib.format.read_magic(b)
        np.lib.format.read_array_header_1_0(b)
    return (time.perf_counter() - t) / k


le, be = f"{d}/f8_le.npy", f"{d}/f8_be.npy"
f4, f8, f3 = f"{d}/f4_fortran.npy", f"{d}/f8_fortran.npy", f"{d}/f4_fortran_3d.npy"
size = lambda p: np.load(p, mmap_mode="r").nbytes
arr = np.load(le)

groups = [
    ("read_le", size(le), [
        ("numpy np.load", timed(lambda: np.load(le))),
        ("npyguard", rust("read_le/npyguard")),
        ("npyguard read_path (dynamic)", rust("read_le/npyguard read_path (dynamic)")),
        ("std::fs::read", rust("read_le/std::fs::read")),
        ("ndarray-npy", rust("read_le/ndarray-npy")),
        ("npyz", rust("read_le/npyz")),
    ]),
    ("read_be", size(be), [
        ("numpy np.load + astype('<f8')", timed(lambda: np.load(be).astype("<f8"))),
        ("npyguard", rust("read_be/npyguard")),
        ("npyguard (little-endian file, same run)", rust("read_le/npyguard")),
        ("ndarray-npy", rust("read_be/ndarray-npy")),
        ("npyz", rust("read_be/npyz")),
    ]),
    ("read_reuse", size(le), [
        ("read_exact (reused Vec<u8>)", rust("read_reuse/read_exact (reused Vec<u8>)")),
        ("npyguard read_path_into", rust("read_reuse/npyguard read_path_into")),
        ("npyguard read_path_into (big-endian)", rust("read_reuse/npyguard read_path_into (big-endian)")),
    ]),
    ("f2c_f4", size(f4), [
        ("numpy ascontiguousarray(np.load(f))", timed(lambda: np.ascontiguousarray(np.load(f4)))),
        ("npyguard read_path + into_c_order", rust("f2c_f4/npyguard read_path + into_c_order")),
        ("npyguard read_path + to_c_order", rust("f2c_f4/npyguard read_path + to_c_order")),
        ("ndarray-npy read_npy + as_standard_layout", rust("f2c_f4/ndarray-npy read_npy + as_standard_layout")),
    ]),
    ("f2c_f8", size(f8), [
        ("numpy ascontiguousarray(np.load(f))", timed(lambda: np.ascontiguousarray(np.load(f8)))),
        ("npyguard read_path + into_c_order", rust("f2c_f8/npyguard read_path + into_c_order")),
        ("npyguard read_path + to_c_order", rust("f2c_f8/npyguard read_path + to_c_order")),
    ]),
    ("f2c_3d", size(f3), [
        ("numpy ascontiguousarray(np.load(f))", timed(lambda: np.ascontiguousarray(np.load(f3)))),
        ("npyguard read_path + into_c_order", rust("f2c_3d/npyguard read_path + into_c_order")),
    ]),
    ("write", arr.nbytes, [
        ("numpy np.save", timed(lambda: np.save(f"{d}/np_write_out.npy", arr))),
        ("npyguard write_path", rust("write/npyguard write_path")),
        ("std::fs::write", rust("write/std::fs::write")),
        ("ndarray-npy", rust("write/ndarray-npy")),
        ("npyz", rust("write/npyz")),
    ]),
    ("header", 0, [
        ("numpy read_magic + read_array_header_1_0", header_numpy),
        ("npyguard Header::from_bytes", rust("header/npyguard Header::from_bytes")),
        ("npyz NpyFile::new", rust("header/npyz NpyFile::new")),
    ]),
    ("header_1mib", 1 << 20, [
        ("wide nested values (accepted)", rust("header_1mib/wide nested values (accepted)")),
        ("nesting bomb (rejected)", rust("header_1mib/nesting bomb (rejected)")),
        ("string value (accepted)", rust("header_1mib/string value (accepted)")),
    ]),
]

only = set(filter(None, args.only.split(",")))
for group, nbytes, impls in groups:
    if only and group not in only:
        continue
    runs = {name: [] for name, _ in impls}
    for r in range(args.runs):
        # Each round starts one implementation later (ABC, BCA, CAB, ...): no side always
        # runs right after another's writes (writeback of 256 MiB takes a while here).
        k = r % len(impls)
        for name, f in impls[k:] + impls[:k]:
            runs[name].append(f())
    for name, _ in impls:
        print(json.dumps({"group": group, "name": name, "bytes": nbytes, "runs": runs[name]}), flush=True)
    for p in (f"{d}/np_write_out.npy", f"{d}/rust_write_out.npy"):
        if os.path.exists(p) and group == "write":
            os.remove(p)

server.stdin.close()
server.wait()
# Peak memory of one fresh read (a new process; VmHWM).
child = subprocess.run([args.bin], env={**os.environ, "NPYGUARD_BENCH_CHILD": le}, capture_output=True, text=True)
sys.stdout.write(child.stdout)
