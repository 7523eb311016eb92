#!/usr/bin/env python3
"""Differential test: `npyguard convert F -o OUT` writes exactly `np.save(np.load(F))`
(tests/fixtures/npy and tests/fixtures/conformance).

For every committed NumPy fixture (tests/fixtures/npy, written by NumPy in every dtype,
shape, order and format version) the CLI's output is compared byte for byte with what
np.save writes for the array np.load reads: the smallest format version that holds the
header, and C order for an array that is both C- and F-contiguous.

Runs $NPYGUARD_BIN, else target/debug/npyguard (built by `cargo test --all-features`).
"""
import glob
import io
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "common"))
from cli import ROOT, binary  # noqa: E402


def main():
    exe = binary()
    files = sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "npy", "*.npy")))
    assert len(files) > 400, len(files)
    changed = 0
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.npy")
        for f in files:
            a = np.load(f, max_header_size=1 << 20)
            want = io.BytesIO()
            np.save(want, a)
            r = subprocess.run([exe, "convert", f, "-o", out, "--max-header-bytes", "1048576"], capture_output=True)
            assert r.returncode == 0, (f, r.stderr.decode())
            got = open(out, "rb").read()
            assert got == want.getvalue(), (f, got[:128], want.getvalue()[:128])
            changed += got != open(f, "rb").read()
    print(f"convert differential: {len(files)} fixtures equal to np.save(np.load(f)) ({changed} differ from their input)")
    conformance(exe)
    return 0


# Titles whose repr does not read back to themselves (a complex number's signed zeros).
SIGNED_ZERO_TITLES = {"title_neg_imag.npy", "title_complex_neg_zero_real.npy"}


def conformance(exe):
    """Every form NumPy writes (tests/fixtures/conformance: nested subarrays, zero-width types,
    titles of every kind, lone surrogates ...): convert writes the manifest's `resave` bytes,
    np.save(np.load(f)) with the file's own record padding (NumPy leaves padding undefined on
    that trip), which gen_conformance.py checked against NumPy."""
    import json
    base = os.path.join(ROOT, "tests", "fixtures", "conformance")
    with open(os.path.join(base, "manifest.json")) as fh:
        cases = json.load(fh)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.npy")
        for case in cases:
            f = os.path.join(base, case["file"])
            r = subprocess.run([exe, "convert", f, "-o", out], capture_output=True)
            assert r.returncode == 0, (f, r.stderr.decode())
            want = open(os.path.join(base, case["resave"]), "rb").read()
            got = open(out, "rb").read()
            if case["file"] in SIGNED_ZERO_TITLES:
                # npyguard writes a title that reads back to itself where repr's does not
                # (DEVIATIONS a26): the loaded title, compared as np.load reads both.
                assert np.load(io.BytesIO(got)).dtype == np.load(io.BytesIO(want)).dtype, case["file"]
                h = want.index(b"\n", 10) + 1  # the same header length (its padding absorbs it)
                assert len(got) == len(want) and got[h:] == want[h:], case["file"]
                continue
            assert got == want, case["file"]
    print(f"convert differential: {len(cases)} conformance fixtures equal to np.save(np.load(f))")


if __name__ == "__main__":
    sys.exit(main())
