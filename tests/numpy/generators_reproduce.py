#!/usr/bin/env python3
"""The committed fixtures are what their generators write (run by CI with every other script here).

Reruns `gen_header_cases.py` (tests/headers/) and `gen_surrogate_names.py`
(tests/fixtures/surrogate_names/) into temporary directories with the NumPy at hand and
fails on any file that is missing, extra or different: a case renamed or edited by hand
must be renamed or edited in its generator too. (`conformance_differential.py` does the same
for `gen_conformance.py`.)

Usage: python3 tests/numpy/generators_reproduce.py
"""

import filecmp
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GENERATORS = [
    ("tests/numpy/gen_header_cases.py", "tests/headers"),
    ("tests/numpy/gen_surrogate_names.py", "tests/fixtures/surrogate_names"),
]


def differences(generated, committed):
    g = {p.name for p in generated.iterdir()}
    c = {p.name for p in committed.iterdir()}
    out = [f"only the generator writes {n}" for n in sorted(g - c)]
    out += [f"only committed: {n}" for n in sorted(c - g)]
    out += [f"differs: {n}" for n in sorted(g & c)
            if not filecmp.cmp(generated / n, committed / n, shallow=False)]
    return out


def main():
    problems = []
    for script, committed in GENERATORS:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, str(ROOT / script), tmp], check=True,
                           stdout=subprocess.DEVNULL)
            found = differences(Path(tmp), ROOT / committed)
            print(f"{script}: {len(list(Path(tmp).iterdir()))} files, {len(found)} differences")
            problems += [f"{committed}: {d}" for d in found]
    if problems:
        print("\n".join(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
