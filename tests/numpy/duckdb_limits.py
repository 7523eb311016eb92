#!/usr/bin/env python3
"""One table of defaults (issue 32, item 6): DuckDB's `npy_limits()` against the library.

The truth is the library's source: `ReadOptions::default()` in src/options.rs and the
`DEFAULT_*` constants of src/limits.rs it names (parsed here, not copied). Checked:

- every row of `SELECT * FROM npy_limits()` equals the library's default (NULL = None);
- read_npz applies them: an archive of more members than the default is refused, one
  of fewer is read (the member limit is checked from the zip's end record);
- the CLI (target/debug/npyguard or target/release/npyguard, when built) prints the same
  `[default: N]` in `validate --help` for every limit it shows a default for;
- the Python package (installed by .ci/run before these suites): `load_npz`'s signature
  defaults and `npyguard.DEFAULT_MAX_HEADER_BYTES` equal them.

Builds the extension with `bash duckdb-npy/build.sh` unless NPY_DUCKDB_EXTENSION names it.
"""

import io
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import duckdb
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "common"))
from duckdb_ext import extension_path  # noqa: E402
failures = []
checks = 0


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)
    return cond


def library_defaults():
    """ReadOptions::default() as {field: value or None}, from the source."""
    consts = {}
    for m in re.finditer(r"pub const (\w+): \w+ = ([^;]+);", (ROOT / "src" / "limits.rs").read_text()):
        expr = m.group(2).strip().replace("_", "")
        if re.fullmatch(r"[0-9 <*+()]+", expr):
            consts[m.group(1)] = eval(expr)  # integer arithmetic of literals only
    src = (ROOT / "src" / "options.rs").read_text()
    body = re.search(r"fn default\(\) -> ReadOptions \{\s*ReadOptions \{(.*?)\}\s*\}", src, re.S).group(1)
    out = {}
    for field, value in re.findall(r"(\w+): ([^,]+),", body):
        value = value.strip()
        if value == "None":
            out[field] = None
        elif value.startswith("Some(") and value[5:-1] in consts:
            out[field] = consts[value[5:-1]]
        elif value in consts:
            out[field] = consts[value]
    return out


# npy_limits() name -> ReadOptions field
FIELDS = {
    "max_file_bytes": "max_file_bytes",
    "max_header_bytes": "max_header_bytes",
    "max_members": "max_npz_members",
    "max_total_bytes": "max_npz_total_bytes",
    "max_ratio": "max_npz_ratio",
}
# CLI flag -> npy_limits() name
CLI = {"--max-file-bytes": "max_file_bytes", "--max-header-bytes": "max_header_bytes",
       "--max-members": "max_members", "--max-total-bytes": "max_total_bytes", "--max-ratio": "max_ratio"}


def main():
    ext = extension_path()
    lib = library_defaults()
    check(all(f in lib for f in FIELDS.values()), f"parsed every default from src/options.rs: {lib}")
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    con.execute(f"LOAD '{ext}'")
    rows = {name: value for name, value, _ in con.execute("SELECT * FROM npy_limits()").fetchall()}
    check(set(rows) == set(FIELDS), f"npy_limits() names: {sorted(rows)}")
    for name, field in FIELDS.items():
        check(rows.get(name) == lib.get(field), f"npy_limits() {name} = {rows.get(name)}, library {lib.get(field)}")

    # read_npz applies the member default (from the zip's end record): default + 1 members
    # refused, default read. Members are empty .npy files (stored), so this stays small.
    limit = rows["max_members"]
    if limit is not None and limit <= 1 << 17:
        with tempfile.TemporaryDirectory() as d:
            one = io.BytesIO()
            np.save(one, np.zeros(0, dtype="u1"))
            body = one.getvalue()
            for count, ok in ((limit, True), (limit + 1, False)):
                p = Path(d) / f"m{count}.npz"
                with zipfile.ZipFile(p, "w", zipfile.ZIP_STORED) as z:
                    for i in range(count):
                        z.writestr(f"a{i}.npy", body)
                try:
                    con.execute(f"SELECT count(*) FROM read_npz('{p}', member := 'a0')").fetchall()
                    got = True
                except duckdb.Error as e:
                    got = False
                    check("member" in str(e), f"the refusal names the member limit: {e}")
                check(got == ok, f"read_npz of {count} members {'read' if ok else 'refused'} by default")

    # The CLI, when built: its help's defaults.
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    for exe in (target / "debug" / "npyguard", target / "release" / "npyguard"):
        if exe.exists():
            text = subprocess.run([str(exe), "validate", "--help"], stdout=subprocess.PIPE, text=True).stdout
            shown = 0
            for flag, name in CLI.items():
                m = re.search(re.escape(flag) + r" <N(?:\|none)?>[^\n]*?\[default: (\d+)\]", text)
                if m:
                    shown += 1
                    check(int(m.group(1)) == rows[name], f"{exe.name} {flag} default {m.group(1)} = npy_limits() {rows[name]}")
            print(f"CLI {exe}: {shown} defaults shown in validate --help, compared")
            break
    else:
        print("CLI: not built (target/debug/npyguard), not compared")

    # The Python package (installed by .ci/run before these suites): load_npz's defaults.
    import inspect

    import npyguard

    params = inspect.signature(npyguard.load_npz).parameters
    for name in ("max_members", "max_total_bytes", "max_ratio"):
        check(params[name].default == rows[name], f"python load_npz {name}={params[name].default} = npy_limits() {rows[name]}")
    check(npyguard.DEFAULT_MAX_HEADER_BYTES == rows["max_header_bytes"],
          f"python DEFAULT_MAX_HEADER_BYTES {npyguard.DEFAULT_MAX_HEADER_BYTES} = npy_limits() {rows['max_header_bytes']}")
    print(f"duckdb_limits: {checks} checks, {len(failures)} failures (npy_limits() = {rows})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
