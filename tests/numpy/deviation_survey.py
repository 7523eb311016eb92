#!/usr/bin/env python3
"""Writer survey for grammar/DEVIATIONS.md: can NumPy's public writers produce each form?

The rule (issue 32): npyguard refuses a form NumPy loads only when NumPy cannot write it
with its public API (np.save, np.savez, np.lib.format.write_array) and the refusal buys
safety. This script checks the first half for every row of table (a).

How: it builds a corpus of arrays with NumPy's public API: every dtype the conformance
generator covers (tests/numpy/gen_conformance.py), every scalar type in both byte orders,
titles, padding, field names holding every character class the header escapes (quotes,
backslashes, control characters, latin-1, non-latin-1, lone surrogates where NumPy takes
them), datetime units, long double, object arrays, records nested 20 deep, and, for each
row, the dtypes one would try to produce the form with (`'|f8'`, `'f8'`, `'d'`,
`'<f8,<i4'`, `('<f8', (3,))`, `[('a', ('<f8', (2,)))]`, `'|S'`, …; NumPy normalises them
or refuses them). Every array is written by each writer:

  np.save                       to a file and to a BytesIO
  np.savez, np.savez_compressed each member
  np.lib.format.write_array     version None, (1, 0), (2, 0), (3, 0)

and each row's predicate (a test on the header text and its tokens, or on the literal it
holds) is run on every header written. A row passes when its "Writers" column in
DEVIATIONS.md says what the survey finds: "none" when no header has the form, or
"np.save writes it" when one does (then the row must also say why the refusal buys
safety). Exit status 1 if a row's claim does not hold, or a row of table (a) has no
predicate here.

Usage: python3 tests/numpy/deviation_survey.py [-v]
"""

import ast
import io
import re
import struct
import sys
import tempfile
import tokenize
import warnings
import zipfile
from pathlib import Path

import numpy as np
import numpy.lib.format as npformat

ROOT = Path(__file__).resolve().parents[2]
DEVIATIONS = ROOT / "grammar" / "DEVIATIONS.md"
sys.path.insert(0, str(ROOT / "tests" / "numpy"))
import gen_conformance  # noqa: E402


# ------------------------------------------------------------------ corpus --

def dtypes_to_try():
    """(what, dtype or a callable giving an array) pairs; a failing construction is recorded."""
    out = []
    scalars = ["b1", "i1", "u1", "i2", "i4", "i8", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16",
               "S5", "U3", "V4", "M8[ns]", "M8[D]", "M8[25s]", "m8[us]", "M8", "m8", "g", "G"]
    for s in scalars:
        for order in "<>|=":
            out.append((order + s, order + s))
        out.append((s, s))
    # Attempts at the refused forms.
    for s in ["d", "<d", "<i", "l", "?", "float64", "<f 8", "<f08", "|S05", "<f8,", "<f8,<i4",
              "|S", "<U", "|V", "S0", "U0", "V0", "<M8[ns/2]", "<M8[0s]", "<M8[25generic]",
              "(3,)<f8", "O", "|O8"]:
        out.append((s, s))
    out.append(("('<f8', (3,))", ("<f8", (3,))))
    out.append(("[('a', ('<f8', (2,)))]", [("a", ("<f8", (2,)))]))
    out.append(("[('a', '(2,)<f8')]", [("a", "(2,)<f8")]))
    out.append(("[('a', '<f8', 3)]", [("a", "<f8", 3)]))
    out.append(("[('a', '<f8', ())]", [("a", "<f8", ())]))
    out.append(("[('a', '|S0')]", [("a", "|S0")]))
    out.append(("[]", []))
    out.append(("titles", [(("Title", "t"), "<i2"), ("u", "<f4")]))
    out.append(("title ''", {"names": ["a"], "formats": ["<i4"], "titles": [""]}))
    out.append(("name '' title t", {"names": [""], "formats": ["V4"], "titles": ["t"]}))
    out.append(("title 1", {"names": ["a"], "formats": ["<i4"], "titles": [1]}))
    for what, t in (("-7", -7), ("1.5", 1.5), ("1e+300", 1e300), ("1j", 1j), ("(1+2j)", 1 + 2j),
                    ("b't'", b"t"), ("(1, 'x')", (1, "x")), ("[1]", [1]), ("{1}", {1}), ("{1: 2}", {1: 2})):
        out.append((f"title {what}", {"names": ["a"], "formats": ["<i4"], "titles": [t]}))
    out.append(("title '\\ud805'", {"names": ["a"], "formats": ["<f8"], "titles": ["\ud805"]}))
    out.append(("name ''", {"names": [""], "formats": ["<f8"]}))
    out.append(("name '' V4 (2,)", {"names": ["", "a"], "formats": [("V4", (2,)), "<f8"]}))
    out.append(("aligned", np.dtype([("a", "u1"), ("b", "<i8")], align=True)))
    out.append(("padding only", {"names": [], "formats": [], "itemsize": 8}))
    names = ["a'b", 'a"b', "a\\b", "a\tb", "a\nb", "a\rb", "a\x00b", "a\x01b", "a\x7fb", "a\x85b",
             "\u00f1ame", "\u540d", "\U0001f600", "a\u2028b", "a\ufeffb", "\ud805", "a#b", "a b",
             "descr", "0x2", "(1)"]
    for n in names:
        out.append((f"field {n!r}", [(n, "<f8")]))
    deep = "<f8"
    for k in range(20):
        deep = [(f"f{k}", deep)]
    out.append(("records nested 20 deep", deep))
    for case_name, arr, writer in gen_conformance.cases():
        if writer == "save":
            out.append((f"conformance {case_name}", lambda arr=arr: arr))
    out.append(("object array", lambda: np.array([1, "a"], dtype=object)))
    out.append(("shape (6, 1) Fortran", lambda: np.asfortranarray(np.zeros((6, 1)))))
    out.append(("shape (2, 3) Fortran", lambda: np.asfortranarray(np.zeros((2, 3)))))
    out.append(("0-d", lambda: np.zeros(())))
    out.append(("shape (0, 2**40)", lambda: np.zeros((0, 2**40))))
    return out


def arrays():
    """(what, array) for every construction that NumPy accepts; (what, error) for the rest."""
    made, refused = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for what, spec in dtypes_to_try():
            try:
                a = spec() if callable(spec) else np.zeros(2, dtype=np.dtype(spec))
            except Exception as e:  # NumPy refuses to build it: a writer never sees it
                refused.append((what, f"{type(e).__name__}: {e}"))
                continue
            made.append((what, a))
            if a.ndim == 1 and a.dtype.names is not None:
                # A field taken out of a record keeps zero-width types (`|S0`).
                for n in a.dtype.names:
                    made.append((f"{what}[{n!r}]", a[n]))
    return made, refused


def header_of(data):
    major = data[6]
    if major == 1:
        (n,) = struct.unpack("<H", data[8:10])
        text = data[10:10 + n]
    else:
        (n,) = struct.unpack("<I", data[8:12])
        text = data[12:12 + n]
    return text.decode("utf-8" if major == 3 else "latin-1")


WRITERS = ["np.save (file)", "np.save (BytesIO)", "np.savez", "np.savez_compressed",
           "write_array", "write_array 1.0", "write_array 2.0", "write_array 3.0"]


def write_all(a):
    """{writer: header text or None when the writer refuses the array}."""
    out = {}

    def attempt(name, fn):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out[name] = fn()
        except Exception:
            out[name] = None

    def save_file():
        with tempfile.TemporaryFile() as f:
            np.save(f, a, allow_pickle=True)
            f.seek(0)
            return header_of(f.read())

    def save_bytes():
        b = io.BytesIO()
        np.save(b, a, allow_pickle=True)
        return header_of(b.getvalue())

    def savez(fn):
        def go():
            b = io.BytesIO()
            fn(b, x=a, allow_pickle=True)
            with zipfile.ZipFile(b) as z:
                return header_of(z.read("x.npy"))
        return go

    def write_array(version):
        def go():
            b = io.BytesIO()
            npformat.write_array(b, a, version=version, allow_pickle=True)
            return header_of(b.getvalue())
        return go

    attempt("np.save (file)", save_file)
    attempt("np.save (BytesIO)", save_bytes)
    attempt("np.savez", savez(np.savez))
    attempt("np.savez_compressed", savez(np.savez_compressed))
    attempt("write_array", write_array(None))
    attempt("write_array 1.0", write_array((1, 0)))
    attempt("write_array 2.0", write_array((2, 0)))
    attempt("write_array 3.0", write_array((3, 0)))
    return out


# -------------------------------------------------------------- predicates --

def tokens(h):
    try:
        return list(tokenize.generate_tokens(io.StringIO(h.rstrip()).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []


def strings(h):
    return [t.string for t in tokens(h) if t.type == tokenize.STRING]


def literal(h):
    return ast.literal_eval(h)


def descr_strings(d):
    """Every type string inside a descr."""
    if isinstance(d, str):
        yield d
    elif isinstance(d, list):
        for f in d:
            if isinstance(f, tuple) and len(f) >= 2:
                yield from descr_strings(f[1])
    elif isinstance(d, tuple) and len(d) == 2:
        yield from descr_strings(d[0])


def fields(d):
    if isinstance(d, list):
        for f in d:
            yield f
            if isinstance(f, tuple) and len(f) >= 2:
                yield from fields(f[1] if not isinstance(f[1], tuple) else f[1][0])


def record_depth(d):
    if not isinstance(d, list):
        return 0
    return 1 + max((record_depth(f[1]) for f in d if isinstance(f, tuple) and len(f) >= 2), default=0)


def parenthesised(toks):
    """A `(` whose contents are one value and no comma (a parenthesised value, not a tuple),
    other than a complex number as repr writes it."""
    toks = [t for t in toks if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER)]
    for i, t in enumerate(toks):
        if t.type == tokenize.OP and t.string == "(":
            depth, commas, j = 0, 0, i
            while j < len(toks):
                u = toks[j]
                if u.type == tokenize.OP and u.string in "([{":
                    depth += 1
                elif u.type == tokenize.OP and u.string in ")]}":
                    depth -= 1
                    if depth == 0:
                        break
                elif u.type == tokenize.OP and u.string == "," and depth == 1:
                    commas += 1
                j += 1
            inner = "".join(u.string for u in toks[i + 1:j])
            # `(1+2j)` is how repr writes a complex number (the grammar's `complex-sum`).
            complex_sum = re.fullmatch(r"-?[0-9.e+-]+[+-][0-9.e+-]+j", inner) is not None
            if commas == 0 and j > i + 1 and not complex_sum:
                return True
    return False


def surrogate_in_names(lit):
    """Row a14 (table (c)): a lone surrogate in a field name or a string title."""
    def has(s):
        return isinstance(s, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in s)

    def names(f):
        if not isinstance(f, tuple) or not f:
            return []
        return list(f[0]) if isinstance(f[0], tuple) else [f[0]]

    return any(has(n) for f in fields(lit["descr"]) for n in names(f))


def title_kinds(lit):
    """The Python types of the (non-None) titles in the descr."""
    return {type(f[0][0]) for f in fields(lit["descr"])
            if isinstance(f, tuple) and f and isinstance(f[0], tuple) and len(f[0]) == 2 and f[0][0] is not None}


def number_not_as_repr(h):
    """Row a8: a number token `repr` never writes (see the grammar's `number` rule), a
    unary `+`, or `-0` as an integer (repr writes it only as a complex sum's real part)."""
    toks = tokens(h)
    for k, t in enumerate(toks):
        prev = toks[k - 1] if k else None
        nxt = toks[k + 1] if k + 1 < len(toks) else None
        if t.type == tokenize.NUMBER and not re.fullmatch(r"(0|[1-9]\d*)((\.\d+)?(e[+-]\d+)?j?)", t.string):
            return True
        unary = prev is None or (prev.type == tokenize.OP and prev.string in "([{,:")
        if t.type == tokenize.OP and t.string == "+" and unary:
            return True
        if (t.type == tokenize.OP and t.string == "-" and unary and nxt is not None and nxt.string == "0"
                and not (k + 2 < len(toks) and toks[k + 2].string in "+-")):
            return True
    return False


TYPESTR = re.compile(r"^[<>|=](b1|[iu][1248]|f[248]|c(8|16)|[SUV](0|[1-9]\d*)|[Mm]8(\[([1-9]\d*)?(Y|M|W|D|h|ms|m|us|s|ns|ps|fs|as|generic)\])?|O|f16|c32)$")

PREDICATES = {
    "a1": lambda h: not h.startswith("{"),
    "a2": lambda h: any(t.type == tokenize.COMMENT for t in tokens(h)),
    "a3": lambda h: "\\\n" in h and not any("\\\n" in s for s in strings(h)),
    "a4": lambda h: any(s[0] in "uUrRBfF" or s[:2].lower() in ("br", "rb") for s in strings(h)),
    "a5": lambda h: any(s.startswith(("'''", '"""')) for s in strings(h)),
    "a6": lambda h: any(a.type == b.type == tokenize.STRING for a, b in zip(tokens(h), tokens(h)[1:])),
    "a7": lambda h: parenthesised(tokens(h)),
    "a8": number_not_as_repr,
    "a9": lambda h: any(t.type == tokenize.NAME and t.string == "L" for t in tokens(h)),
    "a10": lambda h: len(literal(h)) != len(re.findall(r"['\"](descr|fortran_order|shape)['\"]\s*:", h)) and False,
    "a12": lambda h: any("\\\n" in s for s in strings(h)),
    "a13": lambda h: any(re.search(r"(?<!\\)(\\\\)*\\[abfv0-7N]", s) for s in strings(h)),
    "a14": lambda h: surrogate_in_names(literal(h)),
    "a15": lambda h: any(re.match(r"^\|(?!b1$|i1$|u1$|S|V|O)", s) for s in descr_strings(literal(h)["descr"])),
    "a16": lambda h: any(not re.match(r"^[<>|=]([biufcSUVO]\d*|[Mm]8)", s) or re.match(r"^[<>|=][biufc]$", s) for s in descr_strings(literal(h)["descr"])),
    "a17": lambda h: any(re.search(r"\s|[a-zA-Z]0\d", s) for s in descr_strings(literal(h)["descr"])),
    "a18": lambda h: any("," in s for s in descr_strings(literal(h)["descr"])),
    "a19": lambda h: any(re.match(r"^[<>|=][SUV]$", s) for s in descr_strings(literal(h)["descr"])),
    "a21": lambda h: any(re.search(r"/|\u03bc|\[0|\[\d+generic", s) for s in descr_strings(literal(h)["descr"])),
    "a22": lambda h: any(not isinstance(f, tuple) for f in fields(literal(h)["descr"])),
    "a23": lambda h: any(isinstance(f, tuple) and len(f) == 3 and not isinstance(f[2], tuple) for f in fields(literal(h)["descr"])),
    "a24": lambda h: any(isinstance(f, tuple) and ((len(f) == 2 and isinstance(f[1], tuple)) or (isinstance(f[1], str) and f[1].startswith("("))) for f in fields(literal(h)["descr"])),
    "a26": lambda h: bool(title_kinds(literal(h)) - {str}),
    "a27": lambda h: record_depth(literal(h)["descr"]) >= 16,
    "a29": lambda h: any(s[1:] in ("f16", "c32", "f12", "c24") for s in descr_strings(literal(h)["descr"])),
    "a30": lambda h: any(s[1:].startswith("O") for s in descr_strings(literal(h)["descr"])),
    "a31": lambda h: any(d is True or d is False for d in literal(h)["shape"]),
    "a32": lambda h: isinstance(literal(h)["descr"], tuple) or str(literal(h)["descr"]).startswith("("),
}
# Duplicate keys: a writer's header is repr(dict), which cannot repeat a key.
PREDICATES["a10"] = lambda h: len(re.findall(r"['\"](descr|fortran_order|shape)['\"]\s*:", h)) > 3


def deviation_rows():
    """{label: writers-column text} of table (a) and of table (c) (forms accepted after the
    survey found NumPy writing them: their claim is checked the same way)."""
    rows = {}
    table = None
    col = None
    seen_header = False
    for line in DEVIATIONS.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^##\s*\(([abc])\)", line)
        if m:
            table, col, seen_header = m.group(1), None, False
            continue
        if line.startswith("## "):
            table = None
        if table not in ("a", "c") or not line.startswith("|"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if not seen_header:
            seen_header = True
            col = next((i for i, c in enumerate(cells) if c.lower().startswith("writers")), None)
            continue
        if set("".join(cells)) <= set("-: "):
            continue
        rows[cells[0]] = cells[col] if col is not None and col < len(cells) else ""
    return rows


def main():
    verbose = "-v" in sys.argv
    made, refused = arrays()
    headers = []  # (what, writer, header)
    refusals = 0
    for what, a in made:
        for writer, h in write_all(a).items():
            if h is None:
                refusals += 1
            else:
                headers.append((what, writer, h))
    print(f"corpus: {len(made)} arrays built with NumPy's public API ({len(refused)} constructions "
          f"NumPy refuses), {len(WRITERS)} writers: {len(headers)} headers written, {refusals} refusals")
    if verbose:
        for what, why in refused:
            print(f"  NumPy refuses to build {what}: {why}")
    rows = deviation_rows()
    problems = []
    for label, claim in rows.items():
        pred = PREDICATES.get(label)
        if pred is None:
            problems.append(f"{label}: no predicate in deviation_survey.py")
            continue
        hits = []
        for what, writer, h in headers:
            try:
                if pred(h):
                    hits.append((what, writer, h))
            except Exception as e:  # a header the predicate cannot read is a bug here
                problems.append(f"{label}: predicate failed on {what} ({writer}): {e}")
                break
        writers = sorted({w for _, w, _ in hits})
        found = f"{len(hits)} of {len(headers)} headers ({', '.join(writers)})" if hits else "none"
        print(f"{label}: {found}" + (f"; e.g. {hits[0][0]}: {hits[0][2].strip()}" if hits else ""))
        says_none = claim.lower().startswith("none")
        if says_none and hits:
            problems.append(f"{label}: DEVIATIONS.md says no writer emits it; {found}")
        if not says_none and not hits:
            problems.append(f"{label}: DEVIATIONS.md says {claim!r}; the survey finds none")
    if problems:
        print("\n".join(problems))
        print(f"FAIL: {len(problems)} rows do not hold")
        return 1
    print(f"deviation survey: {len(rows)} rows of tables (a) and (c) hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
