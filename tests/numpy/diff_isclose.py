#!/usr/bin/env python3
"""Checks `npyguard diff` against numpy.isclose, position by position.

For each dtype (f4, f8, c8, c16; C and Fortran order on either side) this
writes pairs of arrays with NumPy: random values over twelve orders of
magnitude, with injected NaN, +-inf, +-0.0, near-misses placed exactly on,
just inside and just outside the tolerance boundary (computed in the array's
own precision, as NumPy computes it), tiny and large errors. It then runs

    cargo run -q --features cli -- diff --json --max-report N [options] a.npy b.npy

and requires the reported mismatch positions to equal exactly

    np.argwhere(~np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))

(in the same row-major order), the mismatch count to match, and the exit
status to be 0 exactly when there is no mismatch, for several rtol/atol pairs
and both --nan-equal and --nan-unequal. Complex arrays are checked twice:
with --complex-modulus against np.isclose itself, and with the default
per-component comparison against isclose(a.real, b.real) & isclose(a.imag,
b.imag). Also checked: --signed-zero (isclose plus a sign-bit test on zero
pairs), --ulps N against numpy.testing's nulp_diff, and --cross-dtype with an
f4 result against an f8 reference (NumPy promotes to f8).

Exits 1 on any disagreement, printing the first differing positions.

Usage: python3 tests/numpy/diff_isclose.py [-v] [--seed N] [--bin PATH]
  --bin PATH   run a built npyguard binary instead of `cargo run`
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from numpy.testing._private.utils import nulp_diff  # what assert_array_max_ulp uses

ROOT = Path(__file__).resolve().parents[2]

TOLERANCES = [
    (0.0, 0.0),
    (1e-5, 1e-8),  # np.isclose's defaults
    (1e-7, 0.0),  # np.testing.assert_allclose's defaults
    (0.0, 1e-6),
    (1e-3, 1e-3),
    (0.5, 0.0),
]

SHAPE = (6, 7, 9)


class Runner:
    def __init__(self, binary, verbose):
        if binary:
            self.cmd = [binary]
        else:
            subprocess.run(["cargo", "build", "-q", "--features", "cli"], cwd=ROOT, check=True)
            self.cmd = ["cargo", "run", "-q", "--features", "cli", "--"]
        self.verbose = verbose
        self.runs = 0

    def diff(self, a_path, b_path, options, max_report):
        cmd = self.cmd + ["diff", "--json", "--max-report", str(max_report), *options, str(a_path), str(b_path)]
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        self.runs += 1
        if out.returncode not in (0, 1):
            raise SystemExit(f"npyguard diff failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr}")
        return out.returncode, json.loads(out.stdout)


def float_type(dtype):
    return np.float32 if np.dtype(dtype) in (np.dtype("f4"), np.dtype("c8")) else np.float64


def real_pair(rng, ft, n, rtol, atol):
    """Reference b and result a (both of float type ft) with the interesting cases mixed in."""
    b = (rng.standard_normal(n) * 10.0 ** rng.uniform(-6, 6, n)).astype(ft)
    a = b.copy()
    kind = rng.integers(0, 12, n)
    eps = np.finfo(ft).eps
    # The tolerance boundary in ft arithmetic, as numpy.isclose computes it.
    tol = ft(atol) + ft(rtol) * np.abs(b)
    with np.errstate(over="ignore", invalid="ignore"):
        boundary = (b + np.where(rng.random(n) < 0.5, tol, -tol)).astype(ft)
        for k, values in [
            (1, b * (1 + rng.choice([-1, 1], n) * eps * rng.integers(1, 5, n))),  # a few ULPs
            (2, boundary),  # on the boundary
            (3, np.nextafter(boundary, ft(np.inf))),  # just past / inside it
            (4, np.nextafter(boundary, ft(-np.inf))),
            (5, b * (1 + rng.uniform(-1e-2, 1e-2, n))),  # clearly off at tight tolerances
            (6, b + ft(atol) * rng.uniform(-2, 2, n)),  # around atol
        ]:
            a[kind == k] = values.astype(ft)[kind == k]
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0], dtype=ft)
    for k, side in [(7, a), (8, b)]:
        m = kind == k
        side[m] = rng.choice(specials, m.sum())
    m = kind == 9  # both special
    a[m] = rng.choice(specials, m.sum())
    b[m] = rng.choice(specials, m.sum())
    m = kind == 10  # zeros against tiny values (only atol can make them close)
    b[m] = rng.choice(np.array([0.0, -0.0], dtype=ft), m.sum())
    a[m] = rng.choice(np.array([0.0, -0.0, 1e-9, -1e-9, 1e-6, 2e-6], dtype=ft), m.sum())
    return a, b


def complex_of(re, im, dtype):
    """re + i im without arithmetic (1j * inf would put a NaN in the real part)."""
    out = np.empty(re.shape, dtype=dtype)
    out.real, out.imag = re, im
    return out


def make_pair(rng, dtype, rtol, atol):
    n = int(np.prod(SHAPE))
    ft = float_type(dtype)
    if np.dtype(dtype).kind == "f":
        a, b = real_pair(rng, ft, n, rtol, atol)
    else:
        ar, br = real_pair(rng, ft, n, rtol, atol)
        ai, bi = real_pair(rng, ft, n, rtol, atol)
        a, b = complex_of(ar, ai, dtype), complex_of(br, bi, dtype)
        # Near-misses of the modulus test: a = b + tol * e^(i theta) * (1 +- tiny).
        m = rng.random(n) < 0.2
        with np.errstate(over="ignore", invalid="ignore"):
            tol = ft(atol) + ft(rtol) * np.abs(b)
            theta = rng.uniform(0, 2 * np.pi, n)
            step = (tol * (1 + rng.choice([-4, -1, 0, 1, 4], n) * np.finfo(ft).eps)).astype(ft)
            near = b + complex_of((step * np.cos(theta)).astype(ft), (step * np.sin(theta)).astype(ft), dtype)
        a[m] = near[m]
    return a.reshape(SHAPE).astype(dtype), b.reshape(SHAPE).astype(dtype)


def save(path, x, fortran):
    np.save(path, np.asfortranarray(x) if fortran else np.ascontiguousarray(x))
    return path


def positions(mask):
    return [[int(i) for i in ix] for ix in np.argwhere(mask)]


def isclose_mismatch(a, b, rtol, atol, equal_nan):
    with np.errstate(invalid="ignore", over="ignore"):
        return ~np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


class Check:
    def __init__(self, runner, tmp, verbose):
        self.runner, self.tmp, self.verbose = runner, tmp, verbose
        self.failures = 0
        self.checks = 0
        self.mismatches_seen = 0

    def run(self, label, a, b, fortran, options, expected_mask):
        a_path = save(self.tmp / "a.npy", a, fortran[0])
        b_path = save(self.tmp / "b.npy", b, fortran[1])
        code, report = self.runner.diff(a_path, b_path, options, a.size)
        want = positions(expected_mask)
        got = [m["index"] for m in report["mismatches"]]
        self.checks += 1
        self.mismatches_seen += len(want)
        problems = []
        if got != want:
            extra = [p for p in got if p not in want][:5]
            missing = [p for p in want if p not in got][:5]
            problems.append(f"positions differ: npyguard-only {extra}, numpy-only {missing}")
            for p in (extra + missing)[:3]:
                t = tuple(p)
                problems.append(f"  at {p}: a = {a[t]!r}, b = {b[t]!r}")
        if report["mismatch_count"] != len(want):
            problems.append(f"mismatch_count {report['mismatch_count']} != {len(want)}")
        if report["truncated"]:
            problems.append("report truncated")
        if code != (1 if want else 0) or report["equal"] != (not want):
            problems.append(f"exit status {code}, equal={report['equal']}, with {len(want)} expected mismatches")
        if problems:
            self.failures += 1
            print(f"FAIL {label} {' '.join(options)}")
            for p in problems:
                print(f"  {p}")
        elif self.verbose:
            print(f"ok   {label} {' '.join(options)}: {len(want)} of {a.size} differ")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--bin", help="path of a built npyguard binary (default: cargo run)")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    runner = Runner(args.bin, args.verbose)
    with tempfile.TemporaryDirectory(prefix="npyguard-diff-") as tmp:
        check = Check(runner, Path(tmp), args.verbose)
        layouts = [(False, False), (True, False), (False, True), (True, True)]
        for dtype in ["f4", "f8", "c8", "c16"]:
            for ti, (rtol, atol) in enumerate(TOLERANCES):
                a, b = make_pair(rng, dtype, rtol, atol)
                fortran = layouts[ti % len(layouts)]
                label = f"{dtype} {'F' if fortran[0] else 'C'}/{'F' if fortran[1] else 'C'}"
                tol = ["--rtol", repr(rtol), "--atol", repr(atol)]
                for equal_nan in (True, False):
                    nan = ["--nan-equal" if equal_nan else "--nan-unequal"]
                    want = isclose_mismatch(a, b, rtol, atol, equal_nan)
                    if np.iscomplexobj(a):
                        check.run(label, a, b, fortran, tol + nan + ["--complex-modulus"], want)
                        per_component = isclose_mismatch(a.real, b.real, rtol, atol, equal_nan) | isclose_mismatch(
                            a.imag, b.imag, rtol, atol, equal_nan
                        )
                        check.run(label + " per-component", a, b, fortran, tol + nan, per_component)
                    else:
                        check.run(label, a, b, fortran, tol + nan, want)
                if np.iscomplexobj(a):
                    continue
                # --signed-zero: additionally 0.0 != -0.0.
                zero_sign = (a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b))
                check.run(label, a, b, fortran, tol + ["--signed-zero"], isclose_mismatch(a, b, rtol, atol, True) | zero_sign)
                # --ulps N (with zero tolerances): numpy.testing's nulp_diff on finite pairs.
                if rtol == 0.0 and atol == 0.0:
                    for n in (0, 1, 4):
                        finite = np.isfinite(a) & np.isfinite(b)
                        with np.errstate(invalid="ignore", over="ignore"):
                            within = np.zeros(a.shape, dtype=bool)
                            within[finite] = nulp_diff(a[finite], b[finite]).reshape(-1) <= n
                        want = isclose_mismatch(a, b, 0.0, 0.0, True) & ~within
                        check.run(label, a, b, fortran, ["--ulps", str(n)], want)
                # --cross-dtype: an f4 result against an f8 reference is computed in f8.
                if dtype == "f8":
                    a32 = a.astype(np.float32)
                    for equal_nan in (True, False):
                        nan = ["--nan-equal" if equal_nan else "--nan-unequal"]
                        want = isclose_mismatch(a32, b, rtol, atol, equal_nan)
                        check.run("f4 vs f8", a32, b, fortran, tol + nan + ["--cross-dtype"], want)
        print(
            f"diff_isclose: {check.checks} comparisons ({runner.runs} npyguard runs, "
            f"{check.mismatches_seen} expected mismatch positions), {check.failures} disagreements"
        )
        return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
