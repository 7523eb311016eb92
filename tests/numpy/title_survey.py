#!/usr/bin/env python3
"""Writer survey for grammar/DEVIATIONS.md row a26: which field titles can NumPy write?

A title is any Python object NumPy keeps with a field (`np.dtype({'names': [...],
'formats': [...], 'titles': [...]})`); np.save writes `repr(title)` into the descr as
`((title, name), type)`. For each candidate title this script builds a one-field record,
writes it with every public writer (np.save, np.savez, np.savez_compressed,
np.lib.format.write_array in versions 1.0, 2.0, 3.0), and reads it back with np.load. It
prints, per title, the verdict and the header np.save writes.

A title is "written" when every writer writes it and np.load reads the same dtype back;
`None` is no title (NumPy writes a plain field). Exit status 1 if the findings differ from
EXPECTED below (which DEVIATIONS.md row a26 quotes).

Usage: python3 tests/numpy/title_survey.py
"""

import io
import sys
import tempfile
import zipfile

import numpy as np
import numpy.lib.format as npformat

CANDIDATES = [
    ("str", "t"),
    ("int", 1),
    ("zero", 0),
    ("negative int", -1),
    ("int above 2^64", 2**70),
    ("negative int below -2^64", -(2**70)),
    ("bool", True),
    ("float", 1.5),
    ("negative zero", -0.0),
    ("float 1e300", 1e300),
    ("inf", float("inf")),
    ("nan", float("nan")),
    ("complex", 1j),
    ("bytes", b"t"),
    ("None", None),
    ("tuple of ints", (1, 2)),
    ("tuple of int and str", (1, "x")),
    ("one-tuple", ("x",)),
    ("empty tuple", ()),
    ("frozenset", frozenset()),
]

# What NumPy 2.4.6 does with each: "written" (every writer writes it, np.load reads it
# back), "plain" (written as a field without a title), "load fails" (written, np.load
# refuses: repr is not a literal), or "refused" (np.dtype refuses the title).
EXPECTED = {
    "str": "written", "int": "written", "zero": "written", "negative int": "written",
    "int above 2^64": "written", "negative int below -2^64": "written", "bool": "written",
    "float": "written", "negative zero": "written", "float 1e300": "written",
    "inf": "load fails", "nan": "load fails", "complex": "written", "bytes": "written",
    "None": "plain", "tuple of ints": "written", "tuple of int and str": "written",
    "one-tuple": "written", "empty tuple": "written", "frozenset": "load fails",
}


def writers(a):
    """{writer: file bytes} of `a` for every public writer."""
    out = {}
    b = io.BytesIO()
    np.save(b, a)
    out["np.save"] = b.getvalue()
    for name, fn in (("np.savez", np.savez), ("np.savez_compressed", np.savez_compressed)):
        b = io.BytesIO()
        fn(b, x=a)
        with zipfile.ZipFile(io.BytesIO(b.getvalue())) as z:
            out[name] = z.read("x.npy")
    for v in (None, (1, 0), (2, 0), (3, 0)):
        with tempfile.TemporaryFile() as f:
            npformat.write_array(f, a, version=v)
            f.seek(0)
            out[f"write_array {v}"] = f.read()
    return out


def header_text(data):
    major = data[6]
    if major == 1:
        n = int.from_bytes(data[8:10], "little")
        return data[10:10 + n].decode("latin-1").strip()
    n = int.from_bytes(data[8:12], "little")
    return data[12:12 + n].decode("utf-8" if major == 3 else "latin-1").strip()


def survey(title):
    try:
        dt = np.dtype({"names": ["a"], "formats": ["<i4"], "titles": [title]})
    except Exception as e:  # noqa: BLE001
        return "refused", f"np.dtype: {type(e).__name__}: {e}"
    files = writers(np.zeros(2, dt))
    h = header_text(files["np.save"])
    if dt.descr == [("a", "<i4")]:
        return "plain", h
    for name, data in files.items():
        try:
            back = np.load(io.BytesIO(data))
        except Exception as e:  # noqa: BLE001
            return "load fails", f"{h} ({name}: {type(e).__name__})"
        if back.dtype != dt:
            return "load differs", f"{h} ({name})"
    return "written", h


def main():
    problems = []
    for what, title in CANDIDATES:
        verdict, detail = survey(title)
        print(f"{what:26} {verdict:11} {detail}")
        if EXPECTED.get(what) != verdict:
            problems.append(f"{what}: expected {EXPECTED.get(what)}, found {verdict}")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"title survey: {len(CANDIDATES)} titles as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
