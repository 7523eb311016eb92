#!/usr/bin/env python3
"""Checks a built npyguard wheel before it is installed or published.

    python3 python/check_wheel.py dist/npyguard-*.whl            # run by .ci/run
    python3 python/check_wheel.py --publish dist/npyguard-*.whl  # before an upload

Asserts: one abi3 wheel for CPython >= 3.9 (file name tag ``cp39-abi3-*``, the ``Tag`` lines
of ``WHEEL``, the extension named ``_native.abi3.so``); the metadata (Requires-Python,
the SPDX license expression and both license texts, the PyPI README as a markdown
description, classifiers, keywords); a stripped extension (the wheel under
``MAX_WHEEL_BYTES``: a wheel built with debug info, as ``maturin build --release`` made
before ``strip = true``, is 8.5 MB). ``--publish`` also requires the project URLs.
Prints the wheel's tag and size. Standard library only.
"""

from __future__ import annotations

import argparse
import email.parser
import os
import sys
import zipfile

#: A stripped wheel is about 0.95 MB (python/README.md); with debug info, 8.5 MB.
MAX_WHEEL_BYTES = 3 << 20

LICENSES = ("LICENSE-MIT", "LICENSE-APACHE")


def check(path: str, publish: bool) -> list[str]:
    problems: list[str] = []

    def need(cond: bool, what: str) -> None:
        if not cond:
            problems.append(what)

    name = os.path.basename(path)
    parts = name[: -len(".whl")].split("-")
    need(name.endswith(".whl") and len(parts) == 5, f"{name}: not a wheel file name")
    if len(parts) != 5:
        return problems
    dist, version, py_tag, abi_tag, platform = parts
    need(dist == "npyguard", f"distribution {dist!r}, expected 'npyguard'")
    need(py_tag == "cp39", f"python tag {py_tag!r}, expected 'cp39' (abi3-py39)")
    need(abi_tag == "abi3", f"ABI tag {abi_tag!r}, expected 'abi3' (one wheel for CPython >= 3.9)")

    size = os.path.getsize(path)
    need(size <= MAX_WHEEL_BYTES, f"{size} bytes, over {MAX_WHEEL_BYTES}: is the extension stripped?")

    info = f"{dist}-{version}.dist-info"
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        wheel = z.read(f"{info}/WHEEL").decode()
        meta = email.parser.Parser().parsestr(z.read(f"{info}/METADATA").decode())
        for lic in LICENSES:
            need(f"{info}/licenses/{lic}" in names, f"{lic} missing from {info}/licenses")
            if f"{info}/licenses/{lic}" in names:
                need(len(z.read(f"{info}/licenses/{lic}")) > 500, f"{lic} is not the license text")
    tags = [line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")]
    need(bool(tags), "WHEEL has no Tag line")
    for tag in tags:
        need(tag.startswith("cp39-abi3-"), f"WHEEL tag {tag!r} is not cp39-abi3-*")
    need("Root-Is-Purelib: false" in wheel, "WHEEL says the wheel is pure Python")
    native = sorted(n for n in names if n.startswith("npyguard/_native"))
    need(
        native in (["npyguard/_native.abi3.so", "npyguard/_native.pyi"], ["npyguard/_native.pyd", "npyguard/_native.pyi"]),
        f"extension files {native}, expected _native.abi3.so (or .pyd) and _native.pyi",
    )
    need("npyguard/py.typed" in names, "py.typed missing")

    need(meta.get("Requires-Python") == ">=3.9", f"Requires-Python {meta.get('Requires-Python')!r}")
    need(meta.get("License-Expression") == "MIT OR Apache-2.0", f"License-Expression {meta.get('License-Expression')!r}")
    need(sorted(meta.get_all("License-File") or []) == sorted(LICENSES), "License-File entries")
    need(meta.get("Description-Content-Type", "").startswith("text/markdown"), "the description is not markdown")
    body = meta.get_payload() or ""
    need("pip install npyguard" in body, "the description (python/README.md) lacks 'pip install npyguard'")
    need("Rust" in body and "from source" in body, "the description does not say how to build from source")
    classifiers = meta.get_all("Classifier") or []
    need("Programming Language :: Python :: 3.9" in classifiers, "no Python 3.9 classifier")
    need(not any(c.startswith("License ::") for c in classifiers), "License classifiers next to a License-Expression")
    need(bool(meta.get("Keywords")), "no keywords")
    need((meta.get_all("Requires-Dist") or [""])[0].startswith("numpy"), "numpy is not the first requirement")
    if publish:
        urls = meta.get_all("Project-URL") or []
        need(len(urls) >= 2, f"project URLs {urls}: set [project.urls] in python/pyproject.toml")
    print(f"{name}: tag {py_tag}-{abi_tag}-{platform}, {size} bytes ({size / 2**20:.2f} MiB)")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("wheels", nargs="+")
    ap.add_argument("--publish", action="store_true", help="also require the project URLs")
    args = ap.parse_args()
    failed = False
    for wheel in args.wheels:
        for problem in check(wheel, args.publish):
            print(f"{os.path.basename(wheel)}: {problem}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
