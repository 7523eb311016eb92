#!/usr/bin/env python3
"""Runs the header corpus (tests/headers/) through NumPy and compares with npyguard.

For every case file (raw header text, see tests/library/header_cases.rs for the naming
scheme) this builds a complete .npy file: the preamble for the case's format
version, the header text, and enough zero payload bytes for the array the
header describes. NumPy reads it twice:

  header  numpy.lib.format.read_array_header_1_0 / _2_0 (or _read_array_header
          for 3.0) with max_header_size=10**6: the dict check plus
          descr_to_dtype, nothing else;
  load    np.load(..., allow_pickle=False) with its defaults: also the
          10 000-character header limit, the pickle refusal and the shape
          checks ndarray makes (dims >= 0, at most 64, size fits). A header
          whose payload would exceed 64 MiB is not loaded; the same shape
          checks run on a zero-stride view instead (see dry_run), and if they
          pass the case counts as loaded.

npyguard's reading comes from `cargo run -q --example header_json -- FILES`
(one JSON line per file, run once for the whole corpus).

Checks, each a failure (exit status 1) when it does not hold:
  - every y_ case is accepted by NumPy (header and load) and read the same:
    equal dtype (and equal .descr, so titles, padding and byte order count),
    equal shape, equal fortran_order; npyguard's canonical descr is also what
    numpy.lib.format.dtype_to_descr writes for NumPy's dtype;
  - every row of grammar/DEVIATIONS.md holds for the case files it names:
    table (a) rows are rejected by npyguard with an error kind named in the
    row's npyguard column, and loaded by NumPy ("loads") or
    accepted by NumPy's header reader only ("header only"); table (b) rows are
    accepted by npyguard and refused by NumPy ("rejects": already by the header
    reader; "load rejects": by np.load);
  - every case where NumPy and npyguard disagree appears in DEVIATIONS.md
    (a form npyguard rejects that np.load refuses too, after its header
    reader accepted it, may be listed but need not be).

n_ cases NumPy also rejects and i_ cases are reported, not judged.

Usage: python3 tests/numpy/header_cases.py [-v] [--no-build]
"""

import argparse
import ast
import io
import json
import re
import struct
import subprocess
import sys
import warnings
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import numpy.lib.format as npformat

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "headers"
DEVIATIONS = ROOT / "grammar" / "DEVIATIONS.md"
MAX_HEADER_SIZE = 10**6
LOAD_CAP = 64 << 20  # never hand np.load a file that makes it allocate more than this

try:  # NumPy >= 2.0 keeps the implementation in a private module
    from numpy.lib import _format_impl as _fmt_impl
except ImportError:  # pragma: no cover - NumPy 1.x
    _fmt_impl = npformat
_read_array_header = getattr(npformat, "_read_array_header", None) or _fmt_impl._read_array_header


def version_of(name):
    if "__v3" in name:
        return (3, 0)
    if "__v2" in name:
        return (2, 0)
    return (1, 0)


def length_field(version, n):
    return struct.pack("<H" if version == (1, 0) else "<I", n)


def npy_file(text, version, payload=0):
    """A complete .npy file: preamble for `version`, the header text, `payload` zero bytes."""
    return b"\x93NUMPY" + bytes(version) + length_field(version, len(text)) + text + b"\0" * payload


def numpy_header(text, version):
    """NumPy's header reader alone (max_header_size raised to 10**6), on the whole file."""
    fp = io.BytesIO(npy_file(text, version))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if npformat.read_magic(fp) != version:
                raise AssertionError("read_magic disagrees with the case's version")
            if version == (1, 0):
                r = npformat.read_array_header_1_0(fp, max_header_size=MAX_HEADER_SIZE)
            elif version == (2, 0):
                r = npformat.read_array_header_2_0(fp, max_header_size=MAX_HEADER_SIZE)
            else:
                r = _read_array_header(fp, version, max_header_size=MAX_HEADER_SIZE)
    except Exception as e:  # noqa: BLE001 - any exception is a rejection
        return {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}
    shape, fortran_order, dtype = r
    return {"ok": True, "shape": shape, "fortran_order": fortran_order, "dtype": dtype}


def numpy_load(text, version, hdr):
    """np.load on a complete file; None for ok when the file would be too big to try."""
    nbytes = 0
    if hdr["ok"]:
        shape, dtype = hdr["shape"], hdr["dtype"]
        try:
            count = int(np.multiply.reduce(shape, dtype=np.int64)) if len(shape) else 1
        except Exception:  # noqa: BLE001 - np.load will fail the same way
            count = 0
        nbytes = 0 if dtype.hasobject else max(count, 0) * dtype.itemsize
        if nbytes > LOAD_CAP:
            return dry_run(shape, dtype, count, nbytes)
    data = npy_file(text, version, nbytes)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.load(io.BytesIO(data), allow_pickle=False)
    except Exception as e:  # noqa: BLE001
        return {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}
    return {"ok": True}


def dry_run(shape, dtype, count, nbytes):
    """What np.load does before it reads, without allocating: the ndarray(count)
    it makes for the payload, then the reshape to `shape` (both check dims >= 0,
    at most 64 dims and a byte size that fits in intp). Zero-stride views of one
    element go through the same checks and allocate nothing."""
    one = np.zeros(1, dtype=dtype)
    try:
        # np.ndarray on the one element's buffer, not as_strided: as_strided rebuilds the dtype
        # from __array_interface__, which names ('', '|Vn') padding 'f<i>' and can collide with a
        # real field of that name ("field 'f1' occurs more than once"). With a buffer, ndarray
        # takes a 1-d shape (-1,), so negative dimensions are refused explicitly, as np.load does.
        if count < 0 or any(d < 0 for d in shape):
            raise ValueError("negative dimensions are not allowed")
        np.ndarray((count,), dtype=dtype, buffer=one, strides=(0,))
        np.ndarray(tuple(shape), dtype=dtype, buffer=one, strides=(0,) * len(shape))
    except Exception as e:  # noqa: BLE001
        return {"ok": False, "error": "%s: %s (checked without loading)" % (type(e).__name__, e)}
    return {"ok": None, "error": "not loaded: the payload would be %d bytes; the shape checks pass" % nbytes}


def numpy_verdict(hdr, load):
    if not hdr["ok"]:
        return "rejects"
    if load["ok"] is False:
        return "header only"
    return "loads"


def run_npyguard(files, build):
    cmd = ["cargo", "run", "-q", "--example", "header_json", "--"]
    if not build:
        exe = ROOT / "target" / "debug" / "examples" / "header_json"
        cmd = [str(exe)]
    cmd += [str(f.relative_to(ROOT)) for f in files]
    out = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, check=True).stdout
    results = {}
    for line in out.decode("ascii").splitlines():
        r = json.loads(line)
        results[Path(r["file"]).name] = r
    return results


def dims_match(ng_shape, np_shape):
    return all(type(x) is int for x in np_shape) and list(np_shape) == list(ng_shape)


def compare(ng, hdr):
    """Differences between npyguard's reading and NumPy's header reading (empty when equal).

    npyguard's descr is turned into a dtype with descr_to_dtype, NumPy's own
    inverse of dtype.descr: for a type string that is numpy.dtype(descr); for a
    record it also drops the ('', '|Vn') padding entries that numpy.dtype would
    turn into fields named 'f1', 'f2', ...
    """
    diffs = []
    try:
        literal = ast.literal_eval(ng["descr"])
        ng_dtype = npformat.descr_to_dtype(literal)
    except Exception as e:  # noqa: BLE001
        return ["npyguard's descr %s is not a NumPy descr: %s" % (ng["descr"], e)]
    np_dtype = hdr["dtype"]
    if ng_dtype != np_dtype or ng_dtype.descr != np_dtype.descr or ng_dtype.itemsize != np_dtype.itemsize:
        diffs.append("dtype: npyguard %r, NumPy %r" % (ng_dtype.descr, np_dtype.descr))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        canonical = npformat.dtype_to_descr(np_dtype)
    if canonical != literal:
        diffs.append("canonical descr: npyguard %s, NumPy writes %r" % (ng["descr"], canonical))
    if not dims_match(ng["shape"], hdr["shape"]):
        diffs.append("shape: npyguard %r, NumPy %r" % (ng["shape"], hdr["shape"]))
    if ng["fortran_order"] != hdr["fortran_order"]:
        diffs.append("fortran_order: npyguard %r, NumPy %r" % (ng["fortran_order"], hdr["fortran_order"]))
    return diffs


# --------------------------------------------------------- DEVIATIONS.md --
CASE_RE = re.compile(r"`([yni]_[^`]*\.txt)`")
NUMPY_CLAIMS = {"loads", "header only", "rejects", "load rejects"}


def parse_deviations(path):
    """{(table, case file): (row label, numpy claim)} from the two tables of DEVIATIONS.md."""
    rows = {}
    problems = []
    if not path.exists():
        return rows, ["%s is missing" % path.relative_to(ROOT)]
    table = None
    numpy_col = ng_col = None
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = re.match(r"^##\s*\(([ab])\)", line)
        if m:
            table, numpy_col, ng_col = m.group(1), None, None
            continue
        if line.startswith("## "):
            table = None
            continue
        if table is None or not line.startswith("|"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if numpy_col is None:
            for i, c in enumerate(cells):
                if c.lower().startswith("numpy"):
                    numpy_col = i
                elif c.lower() == "npyguard":
                    ng_col = i
            if numpy_col is None:
                problems.append("DEVIATIONS.md:%d: table (%s) has no NumPy column" % (lineno, table))
            continue
        if set("".join(cells)) <= set("-: "):
            continue  # the |---|---| line
        claim = cells[numpy_col].strip("* ").lower() if numpy_col < len(cells) else ""
        files = CASE_RE.findall(line)
        label = cells[0]
        if claim not in NUMPY_CLAIMS:
            problems.append("DEVIATIONS.md:%d: NumPy column %r is not one of %s" % (lineno, claim, sorted(NUMPY_CLAIMS)))
            continue
        if not files:
            problems.append("DEVIATIONS.md:%d: row %s names no case file" % (lineno, label))
        ng_cell = cells[ng_col] if ng_col is not None and ng_col < len(cells) else ""
        for f in files:
            rows[(table, f)] = (label, claim, lineno, ng_cell)
    return rows, problems


def check_deviations(results):
    rows, problems = parse_deviations(DEVIATIONS)
    listed = set()
    for (table, f), (label, claim, lineno, ng_cell) in sorted(rows.items()):
        r = results.get(f)
        where = "DEVIATIONS.md:%d (%s) %s" % (lineno, label, f)
        if r is None:
            problems.append("%s: no such case in tests/headers/" % where)
            continue
        listed.add(f)
        ng_ok = r["ng"]["ok"]
        verdict = r["verdict"]
        if table == "a":
            if ng_ok:
                problems.append("%s: npyguard accepts it (table (a) is for forms npyguard rejects)" % where)
            elif r["ng"]["kind"] not in ng_cell:
                problems.append("%s: npyguard rejects it with %s, the row says %r" % (where, r["ng"]["kind"], ng_cell))
            if claim not in ("loads", "header only"):
                problems.append("%s: table (a) claims must be 'loads' or 'header only'" % where)
            elif verdict != claim:
                problems.append("%s: claims NumPy %s, but NumPy %s (%s)" % (where, claim, verdict, r["np_error"]))
        else:
            if not ng_ok:
                problems.append("%s: npyguard rejects it (table (b) is for forms npyguard accepts)" % where)
            if claim == "rejects" and r["hdr"]["ok"]:
                problems.append("%s: claims NumPy's header reader rejects it, but it accepts it" % where)
            elif claim == "load rejects" and not (r["hdr"]["ok"] and r["load"]["ok"] is False):
                problems.append("%s: claims np.load rejects it after the header reader accepts it, but NumPy %s" % (where, verdict))
            elif claim not in ("rejects", "load rejects"):
                problems.append("%s: table (b) claims must be 'rejects' or 'load rejects'" % where)
    for f, r in sorted(results.items()):
        # A form npyguard rejects and NumPy's header reader accepts but np.load
        # refuses anyway (negative dims, object arrays...) may be listed, need not be.
        disagree = (not r["ng"]["ok"] and r["verdict"] == "loads") or (r["ng"]["ok"] and r["verdict"] != "loads")
        if disagree and f not in listed:
            problems.append("%s: npyguard %s, NumPy %s: not listed in grammar/DEVIATIONS.md"
                            % (f, "accepts" if r["ng"]["ok"] else "rejects (%s)" % r["ng"]["kind"], r["verdict"]))
    return problems, len(rows)


def short(s, n=110):
    s = str(s).replace("\n", "\\n")
    return s if len(s) <= n else s[: n - 1] + "…"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case")
    ap.add_argument("--no-build", action="store_true", help="use target/debug/examples/header_json as built")
    args = ap.parse_args()

    files = sorted(p for p in CASES.iterdir() if p.is_file())
    ng_results = run_npyguard(files, build=not args.no_build)
    failures = []
    results = {}
    for path in files:
        name = path.name
        text = path.read_bytes()
        version = version_of(name)
        ng = ng_results.get(name)
        if ng is None:
            failures.append("%s: no output from header_json" % name)
            continue
        hdr = numpy_header(text, version)
        load = numpy_load(text, version, hdr)
        verdict = numpy_verdict(hdr, load)
        np_error = hdr.get("error") or load.get("error") or ""
        results[name] = {"ng": ng, "hdr": hdr, "load": load, "verdict": verdict, "np_error": np_error}
        note = ""
        if name.startswith("y_"):
            if verdict != "loads":
                failures.append("%s: y_ case, but NumPy %s: %s" % (name, verdict, short(np_error)))
            elif not ng["ok"]:
                failures.append("%s: y_ case, but npyguard rejects it: %s" % (name, ng["kind"]))
            else:
                diffs = compare(ng, hdr)
                if diffs:
                    failures.append("%s: read differently: %s" % (name, "; ".join(diffs)))
        if args.verbose:
            ng_txt = ("accepts %s %s%s" % (short(ng["descr"], 40), tuple(ng["shape"]), " F" if ng["fortran_order"] else "")
                      if ng["ok"] else "rejects (%s)" % ng["kind"])
            print("%-62s npyguard %-44s NumPy %-11s %s" % (short(name, 62), ng_txt, verdict,
                                                            short(np_error, 60) if verdict != "loads" else note))

    # --------------------------------------------------------- summary table --
    table = defaultdict(Counter)
    for name, r in results.items():
        table[name[:2]][(r["ng"]["ok"], r["verdict"])] += 1
    print()
    print("%-8s %6s | %-28s | %-28s" % ("prefix", "cases", "npyguard accepts: NumPy", "npyguard rejects: NumPy"))
    print("%-8s %6s | %8s %8s %10s | %8s %8s %10s" % ("", "", "loads", "header", "rejects", "loads", "header", "rejects"))
    for prefix in ("y_", "n_", "i_"):
        c = table[prefix]
        print("%-8s %6d | %8d %8d %10d | %8d %8d %10d" % (
            prefix, sum(c.values()),
            c[(True, "loads")], c[(True, "header only")], c[(True, "rejects")],
            c[(False, "loads")], c[(False, "header only")], c[(False, "rejects")]))
    print("(header = accepted by NumPy's header reader, refused later by np.load)")

    print("\nDeviations: n_ cases NumPy accepts")
    for name, r in sorted(results.items()):
        if name.startswith("n_") and r["verdict"] != "rejects":
            print("  %-64s NumPy %s" % (name, r["verdict"] + ("" if r["verdict"] == "loads" else ": " + short(r["np_error"], 60))))
    print("\nImplementation-defined (i_) cases")
    for name, r in sorted(results.items()):
        if name.startswith("i_"):
            ng = r["ng"]
            ng_txt = "accepts" if ng["ok"] else "rejects (%s)" % ng["kind"]
            strict = "accepts" if ng["strict_ok"] else "rejects (%s)" % ng.get("strict_kind")
            print("  %-48s npyguard %-8s numpy-strict %-26s NumPy %-11s %s" % (
                name, ng_txt, strict, r["verdict"], short(r["np_error"], 50) if r["verdict"] != "loads" else ""))

    problems, nrows = check_deviations(results)
    print("\ngrammar/DEVIATIONS.md: %d case files named in its tables, %d problems" % (nrows, len(problems)))
    failures += problems

    if failures:
        print("\nFAILED (%d):" % len(failures))
        for f in failures:
            print("  " + f)
        return 1
    print("\nOK: %d cases; every y_ case is loaded by NumPy %s and read the same way; DEVIATIONS.md verified."
          % (len(results), np.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main())
