"""The installed package is the abi3 build (one wheel for CPython >= 3.9) with its metadata.

CI installs the wheel that python/check_wheel.py has checked (file name tag, WHEEL tags,
metadata, size); this checks what was installed from it.
"""

from __future__ import annotations

import importlib.metadata
import os

import npyguard


def test_extension_is_abi3():
    name = os.path.basename(npyguard._native.__file__)
    assert name in ("_native.abi3.so", "_native.pyd"), name


def test_installed_wheel_tag_is_abi3():
    dist = importlib.metadata.distribution("npyguard")
    wheel = dist.read_text("WHEEL")
    assert wheel is not None, "installed without a WHEEL record"
    tags = [line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")]
    assert tags and all(t.startswith("cp39-abi3-") for t in tags), tags


def test_installed_metadata():
    meta = importlib.metadata.metadata("npyguard")
    assert meta["Requires-Python"] == ">=3.9"
    assert meta["License-Expression"] == "MIT OR Apache-2.0"
    assert sorted(meta.get_all("License-File")) == ["LICENSE-APACHE", "LICENSE-MIT"]
    assert "pip install npyguard" in (meta.get_payload() or meta["Description"] or "")
    assert meta["Version"] == npyguard.__version__
