#!/usr/bin/env python3
"""Regenerates the conformance fixtures with the NumPy at hand and compares (issue 32).

tests/numpy/gen_conformance.py writes every dtype form NumPy's public writers produce
(nested subarrays, zero-width S/U/V, records without fields, fields named '', titles,
lone surrogates, control characters in names, both byte orders and memory orders) with
what NumPy reads from each file and the bytes of np.save(np.load(f)). This script runs it
into a temporary directory and checks that every file and the manifest are byte-identical
to the committed ones in tests/fixtures/conformance/, so the fixtures that
tests/library/conformance.rs checks npyguard against (without Python) are what this NumPy
writes and reads. Exit status 1 on any difference.

Usage: python3 tests/numpy/conformance_differential.py
"""

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "tests" / "fixtures" / "conformance"


def main():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-W", "ignore", str(ROOT / "tests" / "numpy" / "gen_conformance.py"), tmp],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        fresh = {p.name: p.read_bytes() for p in Path(tmp).iterdir()}
    committed = {p.name: p.read_bytes() for p in COMMITTED.iterdir()}
    problems = []
    for name in sorted(set(fresh) | set(committed)):
        if name not in committed:
            problems.append(f"{name}: written by this NumPy, not committed")
        elif name not in fresh:
            problems.append(f"{name}: committed, not written by this NumPy")
        elif fresh[name] != committed[name]:
            problems.append(f"{name}: differs from what this NumPy writes or reads")
    n = sum(1 for k in committed if k.endswith(".npy") and not k.endswith(".resave.npy"))
    if problems:
        print("\n".join(problems))
        print(f"FAIL: {len(problems)} differences over {n} cases")
        return 1
    print(f"conformance fixtures: {n} cases, every file and the manifest as this NumPy writes them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
