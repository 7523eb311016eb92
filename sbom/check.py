#!/usr/bin/env python3
"""Checks the committed SBOMs against this tree without cargo-cyclonedx: every crate that a
build of the library compiles (`cargo tree -e normal,build` for the host) is a component of
the matching SBOM at the same version, and every component is in Cargo.lock at its version.
A dependency added, removed or updated without `sbom/generate.sh` fails here."""
import json
import re
import subprocess
import sys

lock = open("Cargo.lock").read()
locked = set(re.findall(r'name = "([^"]+)"\nversion = "([^"]+)"', lock))
ok = True
for name, flags in (("default", []), ("all-features", ["--all-features"])):
    sbom = json.load(open(f"sbom/npyguard-{name}.cdx.json"))
    comps = {(c["name"], c["version"]) for c in sbom["components"]}
    tree = subprocess.run(["cargo", "tree", "-e", "normal,build", "--prefix", "none", *flags],
                          capture_output=True, text=True, check=True).stdout
    built = set()
    for line in tree.splitlines():
        m = re.match(r"(\S+) v(\S+)", line)
        if m and m.group(1) != "npyguard":
            built.add((m.group(1), m.group(2)))
    missing = built - comps
    stale = comps - locked
    if missing or stale:
        ok = False
        print(f"sbom/npyguard-{name}.cdx.json is out of date: run sbom/generate.sh")
        for n, v in sorted(missing):
            print(f"  built but not in the SBOM: {n} {v}")
        for n, v in sorted(stale):
            print(f"  in the SBOM but not in Cargo.lock: {n} {v}")
    else:
        print(f"sbom/npyguard-{name}.cdx.json: {len(comps)} components, covers the {len(built)} crates built")
sys.exit(0 if ok else 1)
