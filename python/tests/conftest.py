"""Shared fixtures of the npyguard Python tests: the repository's test files and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
NPY_FIXTURES = sorted((FIXTURES / "npy").glob("*.npy"))
NPZ_FIXTURES = sorted((FIXTURES / "npz").glob("*.npz"))
_ADVERSARIAL = ROOT / "tests" / "adversarial"
# tests/adversarial: n_<kind>__<what>.npy is refused with error kind <kind>; i_*.npy is
# accepted by npyguard and refused by NumPy (refused under numpy_strict); y_*.npy is valid,
# read as NumPy reads it. tests/hostile: the cases of tests/hostile.rs, every one refused.
HOSTILE = sorted(p for p in _ADVERSARIAL.glob("*.npy") if p.name[:2] in ("n_", "i_")) + sorted(
    (ROOT / "tests" / "hostile").glob("*.npy")
)
ACCEPTED = sorted(_ADVERSARIAL.glob("y_*.npy"))


def _target_dir() -> Path:
    out = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    return Path(json.loads(out)["target_directory"])


@pytest.fixture(scope="session")
def cli() -> Path:
    """The `npyguard` binary with every feature (`NPYGUARD_BIN`, or built by cargo: in CI
    `cargo test --all-features` has already built it, so this is a no-op)."""
    if os.environ.get("NPYGUARD_BIN"):
        return Path(os.environ["NPYGUARD_BIN"])
    subprocess.run(
        ["cargo", "build", "--quiet", "--all-features", "--bin", "npyguard"], cwd=ROOT, check=True
    )
    return _target_dir() / "debug" / "npyguard"
