#!/usr/bin/env python3
"""Writes tests/fixtures/surrogate_names/: record arrays whose field names (or titles) hold
lone surrogates, as np.save writes them (DEVIATIONS.md row a14, table (c)), and manifest.json.

np.save writes a field named '\\ud805' as that ASCII escape (`repr` of the name) and np.load
reads it back. The manifest gives, for each file, NumPy's `repr(dtype)`, every field path's
names as lists of code points (JSON cannot carry a lone surrogate as text), the field values
(`tolist()` of each leaf field) and whether a title holds a surrogate.

Usage: python3 tests/numpy/gen_surrogate_names.py [OUT_DIR]
"""
import io
import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "fixtures" / "surrogate_names"


def cases():
    # A name that is one lone surrogate (the example).
    a = np.zeros(3, np.dtype([("\ud805", "<f8")]))
    a["\ud805"] = [1.5, -2.0, 3.25]
    yield "single", a
    # Surrogates in a nested record, next to text names; a low then a high surrogate.
    dt = np.dtype([("a", "<i4"), ("b", [("\udc00", "<i2"), ("x\ud800y", "u1")])])
    a = np.zeros(2, dt)
    a["a"] = [7, -8]
    a["b"]["\udc00"] = [300, -300]
    a["b"]["x\ud800y"] = [1, 255]
    yield "nested", a
    # Two surrogates that would pair in UTF-16 stay two code points in Python.
    dt = np.dtype([("\ud83d\ude00", "u1"), ("\U0001f600", "u1")])
    a = np.zeros(2, dt)
    a["\ud83d\ude00"] = [1, 2]
    a["\U0001f600"] = [3, 4]
    yield "pair_halves", a
    # A title holding a surrogate (np.save writes it: a string title, not text).
    dt = np.dtype({"names": ["a"], "formats": ["<f8"], "titles": ["\ud805"]})
    yield "title", np.zeros(2, dt)


def names(dt, prefix=()):
    out = []
    for n in dt.names or ():
        path = list(prefix) + [[ord(c) for c in n]]
        out.append(path)
        sub = dt.fields[n][0]
        if sub.names:
            out.extend(names(sub, path))
    return out


def leaves(a, prefix=()):
    out = []
    for n in a.dtype.names or ():
        v = a[n]
        path = list(prefix) + [[ord(c) for c in n]]
        if v.dtype.names:
            out.extend(leaves(v, path))
        else:
            out.append({"path": path, "values": v.tolist()})
    return out


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for f in OUT.glob("*.npy"):
        f.unlink()
    rows = []
    for name, a in cases():
        buf = io.BytesIO()
        np.save(buf, a)
        data = buf.getvalue()
        (OUT / f"{name}.npy").write_bytes(data)
        back = np.load(io.BytesIO(data))
        assert back.dtype == a.dtype and back.tobytes() == a.tobytes(), name
        rows.append({
            "file": f"{name}.npy",
            "repr": repr(a.dtype),
            "names": names(a.dtype),
            "leaves": leaves(a),
            "title_surrogate": any(
                len(v) > 2 and any(0xD800 <= ord(c) <= 0xDFFF for c in v[2])
                for v in a.dtype.fields.values()
            ),
        })
    text = json.dumps({"numpy": np.__version__, "cases": rows}, ensure_ascii=True, indent=1)
    (OUT / "manifest.json").write_text(text + "\n")
    print(len(rows), "cases")


if __name__ == "__main__":
    main()
