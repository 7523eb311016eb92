#!/usr/bin/env python3
"""Differential test: `npyguard dump --rows A..B FILE` against NumPy's `repr(np.load(FILE)[A:B])`.

Ranges are generated over every kind Python's slices take: in bounds, past the end,
reversed (empty), negative (from the end), huge (beyond 64 and 128 bits) and omitted; arrays
are 1-D, 2-D and 3-D in C and Fortran order, empty and 0-d (where NumPy raises IndexError
and npyguard must exit 1). Each case runs on the file (only the rows' bytes are read) and
on the same bytes piped to `-` (a stream, read to its end in chunks).

Runs $NPYGUARD_BIN, else target/debug/npyguard (built by `cargo test --all-features`),
building it first when missing.
"""
import io
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "common"))
from cli import binary  # noqa: E402


def arrays():
    yield "1d", np.arange(10, dtype="<i8")
    yield "2d-c", np.arange(24, dtype=">f4").reshape(6, 4) / 4
    yield "2d-f", np.asfortranarray(np.arange(24, dtype="<i2").reshape(6, 4))
    yield "3d-f", np.asfortranarray(np.arange(60, dtype="<u1").reshape(5, 3, 4))
    yield "big-rows", np.arange(300_000, dtype="<f8").reshape(100_000, 3)
    yield "empty", np.zeros((0, 3), dtype="<f8")
    yield "0d", np.array(2.5)


def bounds(n, rng):
    fixed = [None, 0, 1, -1, n, n + 1, -n, -n - 1, n // 2, -(n // 2), 2**63, -(2**63), 2**200, -(2**200)]
    return fixed + [rng.randint(-2 * n - 3, 2 * n + 3) for _ in range(6)]


def text(b):
    return "" if b is None else str(b)


def main():
    exe = binary()
    rng = random.Random(20261204)
    checked = 0
    with tempfile.TemporaryDirectory() as d:
        for name, a in arrays():
            path = os.path.join(d, name + ".npy")
            np.save(path, a)
            data = open(path, "rb").read()
            n = a.shape[0] if a.ndim else 1
            bs = bounds(n, rng)
            pairs = [(x, y) for x in bs for y in bs]
            rng.shuffle(pairs)
            for lo, hi in pairs[: 40 if name == "big-rows" else 120]:
                spec = f"{text(lo)}..{text(hi)}"
                try:
                    want = repr(np.load(path)[lo:hi])
                except IndexError:
                    want = None
                for src, stdin in ((path, None), ("-", data)):
                    r = subprocess.run([exe, "dump", f"--rows={spec}", src], input=stdin, capture_output=True)
                    if want is None:
                        assert r.returncode == 1, (name, spec, src, r.returncode, r.stderr)
                    else:
                        assert r.returncode == 0, (name, spec, src, r.stderr.decode())
                        got = r.stdout.decode().rstrip("\n")
                        assert got == want, (name, spec, src, got[:200], want[:200])
                    checked += 1
    print(f"rows differential: {checked} cases equal to NumPy's a[A:B] (files and streams)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
