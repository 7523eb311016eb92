#!/usr/bin/env python3
"""Writes NumPy's repr of every .npy fixture, for tests/numpy_repr.rs (no Python needed there).

Usage (from anywhere; rerunning produces identical files):

    python3 tests/numpy/gen_repr.py

For every file under tests/fixtures/npy/*.npy, tests/adversarial/y_*.npy and a set of extra
arrays this script writes under tests/fixtures/repr/ (summarised 1-D to 4-D arrays, floats in
scientific notation, nan/inf mixes, negative zero, big and small magnitudes, complex, f2,
records with nested and subarray fields, datetimes with NaT, strings with quotes and
non-ASCII text, Fortran order, 0-d arrays, a record of item size 0 repeated 2**40 times), it
records in tests/fixtures/repr/expected.json

    {"<path from the crate root>": {"repr": repr(np.load(path)),
                                    "full": the same under threshold=sys.maxsize,
                                    "deviation": {...}},  ...}

"full" is left out for arrays of more than 20 000 elements. "deviation" is present only
where npyguard is documented to differ (grammar/DEVIATIONS.md): strings holding code points
that are unassigned in Python's Unicode database (category Cn), which Python's repr escapes
and npyguard writes as they are. It then holds {"reason": ..., "repr": ..., "full": ...}:
NumPy's repr with those strings written as npyguard writes them (a `numpystr` formatter), so
also wrapped at npyguard's line widths.

np.load is called with max_header_size=10**6 (the wide-record fixture has a 72 kB header);
the test passes --max-header-bytes 1048576 to match.
"""

import glob
import json
import os
import re
import sys
import unicodedata
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT_DIR = os.path.join(ROOT, "tests", "fixtures", "repr")
EXPECTED = os.path.join(OUT_DIR, "expected.json")
FULL_LIMIT = 20_000


def extra_arrays():
    """(name, array) of the extra fixtures: what the NumPy fixtures do not cover."""
    rng = np.random.default_rng(20240229)
    out = []

    def add(name, a):
        out.append((name, a))

    # Summarisation: 1-D to 4-D, C and Fortran order.
    add("i8_5000", np.arange(5000, dtype="<i8"))
    add("i4_5000", np.arange(5000, dtype="<i4"))
    add("be_i4_1001", np.arange(-500, 501, dtype=">i4"))
    add("f8_100x50", rng.standard_normal((100, 50)))
    add("f4_10x20x30", rng.standard_normal((10, 20, 30)).astype("<f4"))
    add("i2_7x8x9x10", rng.integers(-30000, 30000, (7, 8, 9, 10)).astype("<i2"))
    add("i4_F_20x30x40", np.asfortranarray(np.arange(24000, dtype="<i4").reshape(20, 30, 40)))
    add("f8_F_3x4", np.asfortranarray(np.arange(12, dtype="<f8").reshape(3, 4) / 8))
    add("u1_1x1001", np.arange(1001, dtype="u1").reshape(1, 1001) % 251)
    add("b1_2000", rng.integers(0, 2, 2000).astype("?"))
    add("b1_3x4", rng.integers(0, 2, (3, 4)).astype("?"))
    add("f8_exp_5000", rng.standard_normal(5000) * 10.0 ** rng.integers(-20, 20, 5000))
    add("U4_2000", np.array(["w%03d" % (i % 1000) for i in range(2000)], dtype="<U4"))
    add("f8_6x6x6x6", np.arange(1296, dtype="<f8").reshape(6, 6, 6, 6) / 4)
    # Floats: notation, padding, special values, precision cut.
    add("f8_sci", np.array([1e-10, 1.0, 1e10, -2.5e-300, 1.7976931348623157e308]))
    add("f8_nan_inf", np.array([np.nan, np.inf, -np.inf, 1.5, -0.0, 0.0]))
    add("f8_only_nan_inf", np.array([np.nan, -np.inf, np.inf]))
    add("f8_negzero", np.array([-0.0, 0.0]))
    add("f8_negzero_1", np.array([-0.0]))
    add("f8_big", np.array([1e15, 1e16, 123456789.123]))
    add("f8_below_1e8", np.array([99999999.5, 1.0, 12345.678]))
    add("f8_small", np.array([0.0001, 0.00011, 0.5]))
    add("f8_tiny", np.array([1e-5, 2e-5]))
    add("f8_ratio", np.array([0.5, 500.0, 499.99]))
    add("f8_thirds", np.array([1 / 3, 2 / 3, 1.0, 10 / 3]))
    add("f8_ties", np.array([0.001953125, 0.005859375, 1.0]))
    add("f8_round_up", np.array([0.999999999, 1.5]))
    add("f8_ints", np.array([1.0, 2.0, 100.0, -7.0]))
    add("f8_2p53", np.array([2.0**53, 2.0**53 + 2, 1.0]))
    add("f4_mixed", np.array([0.1, 1e-4, 2e-4, 3.4e38, -1.5e-45, np.nan], dtype="<f4"))
    add("f4_pos", np.array([0.0001, 0.0002], dtype="<f4"))
    add("f4_boundary", np.array([33554448.0, 1.0], dtype="<f4"))
    add("f4_wide", np.array([1.0, 999999.9], dtype=">f4"))
    add("f2_values", np.array([16992, 17008, 0.1, 65504, 6e-8, -0.0, 1000, 999], dtype="<f2"))
    add("f2_positional", np.array([0.25, 0.125, 1.0, 512.5, -3.5], dtype="<f2"))
    add("f2_nan", np.array([np.nan, 1.5, -np.inf], dtype=">f2"))
    add("f2_all", np.arange(0, 2**16, 7, dtype="<u2").view("<f2"))
    # Complex.
    add("c16_values", np.array([1 + 2j, -1.5 - 0j, complex(np.nan, np.inf), 1e10 + 1e-10j]))
    add("c16_simple", np.array([1 + 2j, 3 - 4.5j, -0.0 + 0j]))
    add("c8_values", np.array([1 + 2j, complex(0, np.nan), -3.25 + 1e-3j], dtype="<c8"))
    add("c16_0d", np.array(0.5 - 1j))
    add("c16_2000", (rng.standard_normal(2000) + 1j * rng.standard_normal(2000)))
    # Records: nested, subarrays, strings, summarised subarrays.
    nested = np.dtype(
        [("a", "<i4"), ("b", "<f8", (2, 3)), ("c", "S3"), ("d", [("x", "<f4"), ("y", "u1", (2,))])]
    )
    r = np.zeros(4, dtype=nested)
    r["a"] = [1, -2, 300, 4]
    r["b"] = np.arange(24).reshape(4, 2, 3) / 4
    r["c"] = [b"ab", b"x'y", b"", b"\x00\x01"]
    r["d"]["x"] = [1.5, np.nan, -0.0, 1e-7]
    r["d"]["y"] = [[1, 2], [3, 4], [250, 0], [7, 8]]
    add("rec_nested_sub", r)
    add("rec_nested_sub_0d", r[1].copy().reshape(()))
    big_sub = np.zeros(3, dtype=[("v", "<f8", (2000,)), ("n", "<i2")])
    big_sub["v"] = np.arange(6000).reshape(3, 2000) / 3
    big_sub["n"] = [1, -1, 12]
    add("rec_big_subarray", big_sub)
    sub2d = np.zeros(2, dtype=[("m", "<i4", (40, 40))])
    sub2d["m"] = np.arange(3200).reshape(2, 40, 40)
    add("rec_sub_40x40", sub2d)
    many = np.zeros(1500, dtype=[("i", "<u4"), ("t", "<M8[s]"), ("s", "<U2"), ("b", "?")])
    many["i"] = np.arange(1500) * 3
    many["t"] = np.arange(1500) * 86399
    many["s"] = ["ab", "é"] * 750
    many["b"] = np.arange(1500) % 3 == 0
    add("rec_1500", many)
    recarr = np.zeros((2, 2), dtype=[("p", [("q", "<f2"), ("r", ">m8[h]")], (2,)), ("z", "V2")])
    recarr["p"]["q"] = np.arange(8).reshape(2, 2, 2) - 2.5
    recarr["p"]["r"] = np.arange(8).reshape(2, 2, 2) * 5
    add("rec_sub_of_records", recarr)
    add("rec0_huge", np.zeros(2**40, dtype=[("a", "<f8", (0,))]))
    # Datetimes and timedeltas.
    add("M8_ms_nat", np.array(["2020-01-01T00:00:00.123", "NaT", "1969-07-20T20:17"], dtype="<M8[ms]"))
    add("M8_Y", np.array([-1971, -1970, 0, 30, 8030, 2**62], dtype="<i8").view("<M8[Y]"))
    add("M8_W", np.array([0, 1, -1, 2**62, -(2**63)], dtype="<i8").view("<M8[W]"))
    add("M8_us_big", np.array([2**62, -(2**62), 1, 0], dtype="<i8").view(">M8[us]"))
    add("M8_ps_fs_as", np.array([-1, 1, 2**62, -(2**63) + 1], dtype="<i8").view("<M8[fs]"))
    add("M8_as", np.array([-1, 1, 2**62, -(2**63) + 1], dtype="<i8").view("<M8[as]"))
    add("M8_7D", np.array([0, 1, -1, 2**60], dtype="<i8").view("<M8[7D]"))
    add("M8_2M", np.array([0, 1, -1, 2**62], dtype="<i8").view("<M8[2M]"))
    add("M8_m_0d", np.array(12345678, dtype="<i8").view("<M8[m]"))
    add("M8_generic_nat", np.array(["NaT", "NaT"], dtype="M8"))
    add("m8_D_nat", np.array([1, "NaT", -100000], dtype="<m8[D]"))
    add("m8_generic", np.array([5, -3], dtype="<m8"))
    add("m8_nat_only", np.array(["NaT"], dtype="<m8[s]"))
    add("M8_h_1500", (np.arange(1500, dtype="<i8") * 7).view("<M8[h]"))
    # Strings.
    add("U_quotes", np.array(["a'b", 'a"b', "'\"", "tab\tnl\n", "back\\slash", "😀", "日本語"], dtype="<U9"))
    add("S_quotes", np.array([b"a'b", b'a"b', b"'\"", b"\t\n\r\\", b"\x7f\x80", b"plain"], dtype="|S5"))
    add("U_long", np.array(["%d" % i * 7 for i in range(10)], dtype="<U20"))
    add("U_0d", np.array("héllo", dtype=">U5"))
    add("S_0d", np.array(b"ab", dtype="S4"))
    add("V3_1200", np.frombuffer(bytes(range(256)) * 15, dtype="V3")[:1200].copy())
    add("U_wide_chars", np.array(["\u00e9" * 30, "x"], dtype="<U30"))
    # Integers.
    add("u8_extremes", np.array([0, 2**64 - 1, 2**63], dtype="<u8"))
    add("i8_min", np.array([-(2**63), 2**63 - 1], dtype=">i8"))
    add("i1_all", np.arange(-128, 128, dtype="i1"))
    add("i8_0d", np.array(-7, dtype="<i8"))
    add("b1_0d", np.array(True))
    add("f4_0d", np.array(1.25, dtype="<f4"))
    add("f2_0d", np.array(np.nan, dtype="<f2"))
    # Lines just at the width: the dtype suffix moves to the next line or stays.
    add("i4_wrap", np.array([10**8] * 6 + [1], dtype="<i4"))
    add("u2_wrap", np.arange(13, dtype="<u2") * 5000)
    return out


def strings_of(a):
    """Every str value in `a` (its U elements and the U fields of its records)."""
    if a.size == 0:
        return []
    dt = a.dtype
    if dt.names is not None:
        out = []
        for name in dt.names:
            out.extend(strings_of(a[name]))
        return out
    if dt.kind == "U":
        return [str(s) for s in a.ravel()[: 10**6]]
    return []


def written_raw_by_npyguard(c):
    """Whether npyguard writes `c`, which Python's repr escapes, as it is: a code point of
    category Cn outside the surrogate/private-use ranges src/format/repr.rs escapes
    (U+D800..U+F8FF, U+F0000..U+10FFFF, whose noncharacters Python also counts as Cn)."""
    u = ord(c)
    return (
        unicodedata.category(c) == "Cn"
        and not 0xD800 <= u <= 0xF8FF
        and not 0xF0000 <= u <= 0x10FFFF
    )


def npyguard_str_repr(x):
    """arrayprint's repr_format as npyguard writes it: Python's repr of the value, with the
    escapes of the code points `written_raw_by_npyguard` replaced by the characters."""
    text = repr(x.item())
    if isinstance(x, np.str_):
        for c in sorted({c for c in str(x) if written_raw_by_npyguard(c)}):
            escape = re.escape(repr(c)[1:-1])
            # An escape that is not itself preceded by an escaped backslash.
            text = re.sub(r"(?<!\\)((?:\\\\)*)" + escape, lambda m: m.group(1) + c, text)
    return text


def reprs(a, formatter=None):
    """(repr, full repr or None), with `formatter` as np.set_printoptions takes it."""
    with np.printoptions(formatter=formatter):
        text = repr(a)
    full = None
    if a.size <= FULL_LIMIT:
        with np.printoptions(threshold=sys.maxsize, formatter=formatter):
            full = repr(a)
    return text, full


def deviation(a, text, full):
    """What npyguard prints where it is documented to differ, or None: NumPy's repr with
    strings written by `npyguard_str_repr` (so lines wrap at npyguard's widths)."""
    if not any(written_raw_by_npyguard(c) for s in strings_of(a) for c in s):
        return None
    dev_text, dev_full = reprs(a, {"numpystr": npyguard_str_repr})
    if (dev_text, dev_full) == (text, full):
        return None
    d = {
        "reason": "grammar/DEVIATIONS.md: code points unassigned in Python's Unicode "
        "database (category Cn) are escaped by Python's repr, written as they are by npyguard",
        "repr": dev_text,
    }
    if dev_full is not None:
        d["full"] = dev_full
    return d


def entry(a):
    text, full = reprs(a)
    e = {"repr": text}
    if full is not None:
        e["full"] = full
    dev = deviation(a, text, full)
    if dev is not None:
        e["deviation"] = dev
    return e


def main():
    warnings.simplefilter("ignore")
    os.makedirs(OUT_DIR, exist_ok=True)
    for old in glob.glob(os.path.join(OUT_DIR, "*.npy")):
        os.remove(old)
    for name, a in extra_arrays():
        np.save(os.path.join(OUT_DIR, name + ".npy"), a)
    files = (
        sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "npy", "*.npy")))
        + sorted(glob.glob(os.path.join(ROOT, "tests", "adversarial", "y_*.npy")))
        + sorted(glob.glob(os.path.join(OUT_DIR, "*.npy")))
    )
    expected = {}
    for path in files:
        rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
        a = np.load(path, max_header_size=10**6)
        try:
            expected[rel] = entry(a)
        except ValueError as e:
            print(f"{rel}: NumPy has no repr ({e}); left out")
    with open(EXPECTED, "w", encoding="utf-8") as f:
        json.dump(expected, f, indent=1, sort_keys=True, ensure_ascii=True)
        f.write("\n")
    size = sum(os.path.getsize(p) for p in glob.glob(os.path.join(OUT_DIR, "*")))
    print(f"{len(expected)} arrays, {size} bytes under {os.path.relpath(OUT_DIR, ROOT)}")


if __name__ == "__main__":
    main()
