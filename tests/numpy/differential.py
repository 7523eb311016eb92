#!/usr/bin/env python3
"""Differential test of npyguard's header reader against NumPy's, on many headers.

Headers come from four sources:

  generated   sentences built from grammar/npy-header.abnf: an ABNF interpreter
              (below) expands the grammar's rules, steered so that most dicts hold
              the keys descr, fortran_order and shape with meaningful values (type
              strings from the `typestr` rule, records, shapes), rendered
              non-canonically: key order, quote style, escapes, whitespace from the
              `wsp` rule, trailing commas, `L` suffixes, padding styles;
  mutated     generated or corpus headers mutated at the byte level (bit flips,
              byte insert/delete/replace, truncation, splices) and the token level
              (delete/duplicate/swap/replace tokens; Python spellings outside the
              grammar: comments, prefixes, triple quotes, non-decimal numbers,
              parentheses, escapes, type-string aliases ...);
  corpus      tests/headers/ (version from the file name) and, when present,
              fuzz/corpus/header/ (as versions 1.0 and 3.0).

Each header is read by NumPy exactly as tests/numpy/header_cases.py does (its
functions are reused): NumPy's header reader (`_read_array_header` via
read_array_header_1_0/_2_0 on a BytesIO holding a proper preamble, with
max_header_size=10**6), then np.load for what it refuses beyond that. NumPy
"accepts" a header when np.load loads it. npyguard reads all headers in batches
through `examples/header_batch.rs` (length-prefixed records in one file, one JSON
line each).

Failures (exit status 1, with examples printed):

  * npyguard accepts a header NumPy loads, but reads a different dtype, shape or
    fortran_order (compared as header_cases.compare does);
  * npyguard accepts a header NumPy refuses, and no row of DEVIATIONS.md table (b)
    explains it. Each explanation is verified: b1 (extra keys) by re-reading the
    header without its extra keys with NumPy, which must then load it and read it
    the same way (or refuse it for another table (b) reason); b2 (over 10 000
    characters) by np.load with max_header_size raised, which must load it and read
    it the same; b6 (padding whose last line is indented) by normalising the
    whitespace, after which NumPy must load it and read it the same;
  * numpy-strict npyguard accepts a header NumPy refuses, outside the table (b)
    rows numpy-strict does not cover (STRICT_ROWS);
  * npyguard refuses a header NumPy loads, and the classifier (`classify_a`,
    keyed on features of the text: leading whitespace, comments, prefixes,
    non-decimal numbers, parentheses, duplicate keys, escapes, type strings
    outside the grammar, record shapes ...) cannot name a row of DEVIATIONS.md
    table (a) whose npyguard column lists npyguard's error kind (syntax features
    must also contain npyguard's error offset).

Usage: python3 tests/numpy/differential.py [--count N] [--seed S] [--no-build]
                                           [--dump FILE] [--examples K]

--count is the number of generated and mutated headers (default 20 000, the CI
run; the full run is --count 1000000); the corpus headers come on top.
"""

import argparse
import ast
import io
import json
import os
import random
import re
import struct
import subprocess
import sys
import tempfile
import time
import tokenize
import warnings
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import header_cases as hc  # noqa: E402  (reused: NumPy's reading, comparison, DEVIATIONS.md parser)

ROOT = HERE.parents[1]
GRAMMAR = ROOT / "grammar" / "npy-header.abnf"
CORPUS = ROOT / "tests" / "headers"
FUZZ_CORPUS = ROOT / "fuzz" / "corpus" / "header"

# np.load is handed payloads of at most 1 MiB; bigger ones get header_cases.dry_run's
# allocation-free shape checks (the same treatment header_cases gives payloads over 64 MiB).
hc.LOAD_CAP = 1 << 20

INT_MAX = 2**31 - 1  # NumPy's C int: the limit of item sizes, multiples, subarray dims
EXPECTED_KEYS = {"descr", "fortran_order", "shape"}
# Table (b) rows numpy-strict does not cover (DEVIATIONS.md says so for each).
STRICT_ROWS = {"b6"}
PREAMBLE_LEN = {(1, 0): 10, (2, 0): 12, (3, 0): 12}
VERSION_BYTE = {(1, 0): 1, (2, 0): 2, (3, 0): 3}


# ===================================================================== ABNF ==
class Abnf:
    """A small RFC 5234/7405 ABNF reader and random sentence generator.

    Nodes: ("alt", [n]), ("cat", [n]), ("rep", min, max|None, n), ("opt", n),
    ("rule", name), ("str", text, case_sensitive), ("range", lo, hi), ("seq", [cp]).
    """

    TOKEN = re.compile(r"""
        (?P<ws>\s+)
      | (?P<num>%[xX][0-9A-Fa-f]+(?:-[0-9A-Fa-f]+|(?:\.[0-9A-Fa-f]+)+)?)
      | (?P<str>%[sS]"[^"]*"|%[iI]"[^"]*"|"[^"]*")
      | (?P<rep>\d*\*\d*|\d+)
      | (?P<name>[A-Za-z][A-Za-z0-9-]*)
      | (?P<op>[/()\[\]])
    """, re.X)

    def __init__(self, text):
        self.rules = {}
        current = None
        for raw in text.splitlines():
            line = self._strip_comment(raw)
            if not line.strip():
                continue
            if line[0].isspace():
                if current is None:
                    raise ValueError("continuation line before any rule: %r" % raw)
                self.rules[current] += " " + line.strip()
                continue
            name, eq, body = line.partition("=")
            if not eq:
                raise ValueError("not a rule: %r" % raw)
            current = name.strip().lower()
            self.rules[current] = body.strip()
        self.rules = {name: self._parse(body) for name, body in self.rules.items()}
        self._heights = {}

    @staticmethod
    def _strip_comment(line):
        inside = False
        for i, c in enumerate(line):
            if c == '"':
                inside = not inside
            elif c == ";" and not inside:
                return line[:i]
        return line

    def _parse(self, body):
        toks = [(m.lastgroup, m.group()) for m in self.TOKEN.finditer(body) if m.lastgroup != "ws"]
        if sum(len(t) for _, t in toks) != len(re.sub(r"\s+", "", body)):
            raise ValueError("cannot tokenise ABNF: %r" % body)
        pos = [0]

        def peek():
            return toks[pos[0]] if pos[0] < len(toks) else (None, None)

        def take():
            pos[0] += 1
            return toks[pos[0] - 1]

        def alternation():
            alts = [concatenation()]
            while peek() == ("op", "/"):
                take()
                alts.append(concatenation())
            return alts[0] if len(alts) == 1 else ("alt", alts)

        def concatenation():
            items = []
            while peek()[0] is not None and peek() not in (("op", "/"), ("op", ")"), ("op", "]")):
                items.append(repetition())
            return items[0] if len(items) == 1 else ("cat", items)

        def repetition():
            kind, tok = peek()
            if kind == "rep":
                take()
                if "*" in tok:
                    lo, hi = tok.split("*")
                    lo, hi = int(lo or 0), (int(hi) if hi else None)
                else:
                    lo = hi = int(tok)
                return ("rep", lo, hi, element())
            return element()

        def element():
            kind, tok = take()
            if kind == "name":
                return ("rule", tok.lower())
            if tok == "(":
                n = alternation()
                assert take() == ("op", ")")
                return n
            if tok == "[":
                n = alternation()
                assert take() == ("op", "]")
                return ("opt", n)
            if kind == "str":
                sensitive = tok[:2].lower() == "%s"
                return ("str", tok[tok.index('"') + 1:-1], sensitive)
            if kind == "num":
                body = tok[2:]
                if "-" in body:
                    lo, hi = body.split("-")
                    return ("range", int(lo, 16), int(hi, 16))
                return ("seq", [int(x, 16) for x in body.split(".")])
            raise ValueError("unexpected ABNF token %r" % tok)

        node = alternation()
        if pos[0] != len(toks):
            raise ValueError("trailing ABNF tokens in %r" % body)
        return node

    # -- generation --------------------------------------------------------
    INF = 10**9

    def heights(self, max_char):
        """Per rule, the height of its shallowest derivation using code points <= max_char."""
        if max_char in self._heights:
            return self._heights[max_char]
        h = {name: self.INF for name in self.rules}

        def node_h(n):
            k = n[0]
            if k == "alt":
                return min(node_h(x) for x in n[1])
            if k == "cat":
                return max(node_h(x) for x in n[1])
            if k == "rep":
                return 0 if n[1] == 0 else node_h(n[3])
            if k == "opt":
                return 0
            if k == "rule":
                return min(h[n[1]] + 1, self.INF)
            if k == "str":
                return 0 if all(ord(c) <= max_char for c in n[1]) else self.INF
            if k == "range":
                return 0 if n[1] <= max_char else self.INF
            if k == "seq":
                return 0 if all(c <= max_char for c in n[1]) else self.INF
            raise ValueError(k)

        changed = True
        while changed:
            changed = False
            for name, node in self.rules.items():
                v = node_h(node)
                if v < h[name]:
                    h[name], changed = v, True
        self._heights[max_char] = (h, node_h)
        return h, node_h

    def generate(self, rule, rng, max_char=0x10FFFF, max_depth=12, hooks=None, weights=None):
        """A random sentence of `rule`. `hooks`: {rule: fn(rng) -> str} replaces a
        rule's expansion (to bias it; the hook must produce sentences of the rule);
        `weights`: {rule: [w per alternative]} biases a top-level alternation."""
        h, node_h = self.heights(max_char)
        hooks = hooks or {}
        weights = weights or {}
        out = []

        def gen(n, depth, rule_name=None):
            k = n[0]
            minimal = depth >= max_depth
            if k == "alt":
                feasible = [x for x in n[1] if node_h(x) < self.INF]
                if minimal:
                    pick = min(feasible, key=node_h)
                elif rule_name in weights:
                    ws = [w for x, w in zip(n[1], weights[rule_name]) if node_h(x) < self.INF]
                    pick = rng.choices(feasible, ws)[0]
                else:
                    pick = rng.choice(feasible)
                gen(pick, depth)
            elif k == "cat":
                for x in n[1]:
                    gen(x, depth)
            elif k == "rep":
                lo, hi = n[1], n[2]
                count = lo
                if not minimal and node_h(n[3]) < self.INF:
                    r = rng.random()
                    extra = 0 if r < 0.35 else 1 if r < 0.6 else rng.randint(2, 4) if r < 0.9 else rng.randint(5, 20)
                    count = lo + extra if hi is None else min(hi, lo + extra)
                for _ in range(count):
                    gen(n[3], depth)
            elif k == "opt":
                if not minimal and node_h(n[1]) < self.INF and rng.random() < 0.5:
                    gen(n[1], depth)
            elif k == "rule":
                name = n[1]
                if name in hooks:
                    out.append(hooks[name](rng))
                else:
                    gen(self.rules[name], depth + 1, name)
            elif k == "str":
                out.append(n[1] if n[2] else "".join(rng.choice((c.lower(), c.upper())) for c in n[1]))
            elif k == "range":
                lo, hi = n[1], min(n[2], max_char)
                r = rng.random()
                if hi - lo > 256 and r < 0.5:
                    c = lo + rng.randint(0, min(127, hi - lo)) if r < 0.35 else hi - rng.randint(0, min(127, hi - lo))
                else:
                    c = rng.randint(lo, hi)
                out.append(chr(c))
            elif k == "seq":
                out.append("".join(chr(c) for c in n[1]))

        gen(self.rules[rule], 0, rule)
        return "".join(out)


# ============================================================ generation ==
def small_count(rng):
    """A `count` (nonzero-digit *DIGIT), mostly small, sometimes past C int / u32 / u64."""
    r = rng.random()
    if r < 0.8:
        return str(rng.randint(1, 40))
    if r < 0.9:
        return str(rng.randint(1, 10**6))
    return str(rng.choice([INT_MAX, INT_MAX + 1, (INT_MAX + 1) // 4, INT_MAX // 4 + 1, 2**32 - 1, 2**32,
                           2**62, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 10**30]))


class Generator:
    """Builds headers whose parts are sentences of the ABNF rules."""

    KEY_NAMES = ["descr", "fortran_order", "shape"]
    FIELD_NAMES = ["a", "b", "x", "y", "f0", "f1", "id", "pos", "name", "é", "\u00ff", "\u4e2d", "\U0001F600", "t a b"]

    def __init__(self, abnf, rng):
        self.g = abnf
        self.rng = rng
        self.hooks = {"count": small_count}
        self.weights = {"byteorder": [6, 4, 1, 2]}

    # -- leaves (ABNF) -----------------------------------------------------
    def typestr(self):
        return self.g.generate("typestr", self.rng, hooks=self.hooks, weights=self.weights)

    def abnf_value(self, max_char, depth=5):
        return self.g.generate("value", self.rng, max_char=max_char, max_depth=depth, hooks=self.hooks)

    def abnf_string(self, max_char):
        return self.g.generate("string", self.rng, max_char=max_char, max_depth=6, hooks=self.hooks)

    def wsp(self, max_char):
        return self.g.generate("wsp", self.rng, max_char=max_char)

    # -- semantic model ----------------------------------------------------
    def dim(self):
        r = self.rng.random()
        if r < 0.85:
            return self.rng.choice([0, 1, 1, 2, 2, 3, 4, 5, 7, 10, 16])
        if r < 0.95:
            return self.rng.randint(11, 5000)
        return self.rng.choice([INT_MAX, INT_MAX + 1, 2**32, 2**62, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 10**25])

    def shape(self):
        r = self.rng.random()
        n = 0 if r < 0.15 else 1 if r < 0.5 else 2 if r < 0.75 else self.rng.randint(3, 5) if r < 0.98 \
            else self.rng.choice([32, 33, 63, 64, 65])
        if n > 5:
            dims = [1] * n
            dims[self.rng.randrange(n)] = self.dim()
        else:
            dims = [self.dim() for _ in range(n)]
        # Keep the payload np.load has to read small (large claims still occur, see dim()).
        if n > 2 and all(d < 2**31 for d in dims):
            while np.prod([max(d, 1) for d in dims], dtype=object) > 10**5:
                dims[self.rng.randrange(n)] = self.rng.choice([1, 2])
        return ("tuple", [("int", d) for d in dims])

    def record(self, depth):
        fields = []
        n = self.rng.choice([1, 1, 2, 2, 3, 4])
        for _ in range(n):
            r = self.rng.random()
            if r < 0.08:
                fields.append(("tuple", [("str", ""), ("str", "|V%d" % self.rng.randint(1, 8))]))
                continue
            if r < 0.55:
                name = ("str", self.rng.choice(self.FIELD_NAMES))
            else:
                name = ("raw_string",)
            if self.rng.random() < 0.1:
                name = ("tuple", [("str", self.rng.choice(["title", "T", "é t"])), name])
            typ = self.descr(depth + 1) if self.rng.random() < 0.15 else ("str", self.typestr())
            parts = [name, typ]
            if self.rng.random() < 0.2:
                k = self.rng.choice([1, 1, 2, 3]) if self.rng.random() < 0.98 else self.rng.choice([32, 33])
                parts.append(("tuple", [("int", self.rng.choice([1, 2, 3, 4]) if self.rng.random() < 0.97
                                         else self.dim()) for _ in range(k)]))
            fields.append(("tuple", parts))
        return ("list", fields)

    def descr(self, depth=0):
        r = self.rng.random()
        if depth == 0 and r < 0.005:
            # Deep records (the 16-level limit).
            d = self.rng.choice([14, 15, 16, 17])
            t = ("str", "<f8")
            for i in range(d):
                t = ("list", [("tuple", [("str", "f%d" % i), t])])
            return t
        if r < (0.72 if depth == 0 else 0.6) or depth > 3:
            return ("str", self.typestr())
        return self.record(depth)

    def header_model(self, max_char):
        rng = self.rng
        entries = [("descr", self.descr()),
                   ("fortran_order", ("bool", rng.random() < 0.3) if rng.random() < 0.97 else ("raw", self.abnf_value(max_char, 3))),
                   ("shape", self.shape() if rng.random() < 0.97 else ("raw", self.abnf_value(max_char, 3)))]
        r = rng.random()
        if r < 0.6:
            pass  # NumPy's sorted order
        elif r < 0.9:
            rng.shuffle(entries)
        else:
            entries.reverse()
        r = rng.random()
        if r < 0.05:
            # Extra keys (npyguard extension b1): an ABNF string key and an ABNF value.
            for _ in range(rng.randint(1, 2)):
                key = ("raw", self.abnf_string(max_char)) if rng.random() < 0.5 else ("str", rng.choice(["version", "extra", "é"]))
                entries.insert(rng.randint(0, len(entries)), (key, ("raw", self.abnf_value(max_char))))
        elif r < 0.07:
            entries.insert(rng.randint(0, len(entries)), rng.choice(entries))  # a duplicate key
        elif r < 0.08:
            del entries[rng.randrange(len(entries))]  # a missing key
        return entries


class Style:
    """One rendering style for a header: quotes, escapes, whitespace, commas, L suffixes."""

    def __init__(self, rng, gen, version, max_char):
        self.rng = rng
        self.gen = gen
        self.max_char = max_char
        self.quote = rng.choices(["'", '"', None], [70, 20, 10])[0]
        self.escape_p = rng.choice([0, 0, 0, 0.02, 0.2])
        self.space = rng.choices(["numpy", "compact", "spaced", "wild"], [55, 15, 15, 15])[0]
        self.trailing_dict = rng.random() < 0.6
        self.trailing_tuple = rng.random() < 0.15
        self.trailing_list = rng.random() < 0.15
        self.long = version != (3, 0) and rng.random() < 0.12 or version == (3, 0) and rng.random() < 0.01

    def ws(self, canonical=""):
        s = self.space
        if s == "numpy":
            return canonical
        if s == "compact":
            return ""
        if s == "spaced":
            return canonical or " "
        r = self.rng.random()
        if r < 0.5:
            return canonical
        return "".join(self.gen.wsp(self.max_char) for _ in range(self.rng.randint(1, 3)))

    def string(self, value):
        """`value` rendered per the ABNF `string` rule (sq-string / dq-string)."""
        q = self.quote or self.rng.choice("'\"")
        out = [q]
        for c in value:
            o = ord(c)
            must = c in (q, "\\") or o < 0x20 or o == 0x7F or o > self.max_char
            if must or (self.escape_p and self.rng.random() < self.escape_p):
                out.append(self.escape(c))
            else:
                out.append(c)
        out.append(q)
        return "".join(out)

    def escape(self, c):
        o = ord(c)
        simple = {"\\": "\\\\", "'": "\\'", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
        opts = []
        if c in simple:
            opts.append(simple[c])
        if o <= 0xFF:
            opts.append("\\x%02x" % o if self.rng.random() < 0.5 else "\\x%02X" % o)
        if o <= 0xFFFF:
            opts.append("\\u%04x" % o)
        opts.append("\\U%08x" % o)
        return self.rng.choice(opts)

    def integer(self, n):
        return str(n) + ("L" if self.long and self.rng.random() < 0.7 else "")

    def render(self, v):
        k = v[0]
        if k == "str":
            return self.string(v[1])
        if k == "raw_string":
            return self.gen.abnf_string(self.max_char)
        if k == "raw":
            return v[1]
        if k == "int":
            return self.integer(v[1])
        if k == "bool":
            return "True" if v[1] else "False"
        if k == "none":
            return "None"
        if k in ("tuple", "list"):
            items = [self.render(x) for x in v[1]]
            o, c = "()" if k == "tuple" else "[]"
            sep = "," + self.ws(" ")
            body = sep.join(self.ws() + it + self.ws() for it in items)
            if k == "tuple" and len(items) == 1:
                body += "," + self.ws()
            elif items and (self.trailing_tuple if k == "tuple" else self.trailing_list):
                body += "," + self.ws()
            return o + self.ws() + body + self.ws() + c
        raise ValueError(k)

    def header(self, entries):
        parts = []
        for key, value in entries:
            ktxt = self.render(key) if isinstance(key, tuple) else self.string(key)
            parts.append(self.ws() + ktxt + self.ws() + ":" + self.ws(" ") + self.render(value) + self.ws())
        body = ("," + self.ws(" ")).join(parts)
        if parts and self.trailing_dict:
            body += ", "
        return "{" + self.ws() + body + self.ws() + "}"


def pad(rng, gen, text_bytes, version, max_char, long_ok=True):
    """Padding after the dict, in one of the styles writers use (or odd ones the ABNF allows)."""
    pre = PREAMBLE_LEN[version]
    r = rng.random()
    if r < 0.35:  # NumPy >= 1.14: spaces to a 64-byte boundary, then \n
        n = (-(pre + len(text_bytes) + 1)) % 64
        return text_bytes + b" " * n + b"\n"
    if r < 0.45:  # NumPy >= 1.24: growth spaces too
        n = (-(pre + len(text_bytes) + 1)) % 64 + 64 * rng.randint(0, 2)
        return text_bytes + b" " * n + b"\n"
    if r < 0.55:  # NumPy < 1.14, cnpy, libnpy: 16-byte boundary
        n = (-(pre + len(text_bytes) + 1)) % 16
        return text_bytes + b" " * n + b"\n"
    if r < 0.62:
        return text_bytes  # NPZ.jl: no padding at all
    if r < 0.67:
        return text_bytes + b"\n"
    if r < 0.72:
        return text_bytes + b"\n" + b" " * rng.randint(0, 40)  # \n first
    if r < 0.77:
        return text_bytes + b" " * rng.randint(0, 20) + b"\r\n"
    if r < 0.995 or not long_ok:
        padding = gen.g.generate("padding", rng, max_char=max_char)
        return text_bytes + padding.encode("ascii")
    # Long headers (row b2): more than 10 000 characters of padding.
    n = 10_000 - len(text_bytes) + rng.choice([0, 1, 2, 100, 5000])
    return text_bytes + b" " * max(n, 0) + b"\n"


def encode(text, version):
    if version == (3, 0):
        return text.encode("utf-8")
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        return text.encode("utf-8")  # a UTF-8 header read as latin-1: still bytes to compare on


def generate_header(gen, rng, long_ok=True):
    """A generated header; `long_ok=False` for headers that will be mutated (NumPy's
    Python 2 filter tokenizes a long line of padding in quadratic time: row b2 is
    covered by unmutated headers)."""
    version = rng.choices([(1, 0), (2, 0), (3, 0)], [50, 15, 35])[0]
    max_char = 0x10FFFF if version == (3, 0) else 0xFF
    if rng.random() < 0.03:
        # A bare sentence of the `header` rule (almost never the right keys).
        text = gen.g.generate("header", rng, max_char=max_char, max_depth=8, hooks=gen.hooks)
        return version, encode(text, version)
    style = Style(rng, gen, version, max_char)
    text = style.header(gen.header_model(max_char))
    return version, pad(rng, gen, encode(text, version), version, max_char, long_ok)


# ============================================================== mutation ==
TOKEN_RE = re.compile(rb"""
    (?P<str>'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")
  | (?P<num>[0-9][0-9A-Za-z_]*)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<ws>[ \t\r\n\x0c]+)
  | (?P<op>.)
""", re.X | re.S)

ALPHABET = [s.encode("utf-8") if isinstance(s, str) else s for s in [
    "{", "}", "(", ")", "[", "]", ",", ":", "'", '"', " ", "\t", "\n", "\r", "\x0c", "\x0b",
    "0", "1", "2", "00", "L", "l", "j", ".", "e", "_", "+", "-", "*", "x", "0x", "0o", "0b",
    "True", "False", "None", "true", "#", " # c\n", "\\\n", "\\", ";", "=", "<", ">", "|",
    "u", "r", "b", "U", "R", "f", "'''", '"""', "'descr'", "'shape'", "'fortran_order'",
    "'<f8'", "'|u1'", "(1,)", "()", "[]", "{}", "('a', '<i4')", ",,", "...",
    "\u00a0", "\u2028", "\u3000", "\ufeff", "é", "\U0001F600", b"\x00", b"\x80", b"\xe9", b"\xff", b"\x7f", b"\x01",
]]
STRING_INSERTS = [s.encode("utf-8") if isinstance(s, str) else s for s in [
    "\\a", "\\b", "\\f", "\\v", "\\0", "\\101", "\\N{LATIN SMALL LETTER A}", "\\z", "\\x41", "\\x4",
    "\\u00e9", "\\ud800", "\\udfff", "\\U0001F600", "\\U0000dc00", "\\U00110000", "\\\n", "\\'", '\\"',
    "\t", b"\x01", b"\x7f", b"\x85", "\n", "é", "\u00a0", " ", ",", "(2,)", "[ns]", "L",
]]
TYPESTR_REWRITES = [
    "|f8", "|i2", "|c16", "|U5", "|M8[ns]", "f8", "float64", "d", "<d", "<i", "?", "b", "i", "l", "q", "g", "G",
    "<f 8", "<f08", "|S05", "<f8,", "<f8,<i4", "|S0", "|S", "<U0", "|V0", "<U", "V", "<M8[ns/2]", "<M8[\u03bcs]",
    "<M8[\u00b5s]", "<M8[0s]", "<M8[25generic]", "<M8[]", "<f16", "<c32", "<f12", "|O", "|O8", "O", "(2,)<f8",
    "(2,3)<i4", "<f8 ", " <f8", "<F8", "<i16", "<u3", "=?", "|b", "<b1", ">u1", "=S3", "<V4", "<m8[W]", "<M8[2147483648s]",
    "<M8[2147483647s]", "|S2147483648", "|V2147483647", "<U536870912", "<U536870911", "int32", "<int32", "<f2", "e",
]
STRUCT_REWRITES = [
    # (pattern, replacement) pairs applied once at a random match
    (rb"\('([^']*)', '([^']*)'\)", rb"['\1', '\2']"),                 # field as list
    (rb"\('([^']*)', '([^']*)'\)", rb"'\1\2'"),                       # field as string
    (rb"\('([^']*)', ('[^']*')\)", rb"((None, '\1'), \2)"),           # title None
    (rb"\('([^']*)', ('[^']*')\)", rb"((1, '\1'), \2)"),              # title not a string
    (rb"\('([^']*)', ('[^']*')\)", rb"(b't', '\1'), \2)"),            # bytes title (broken on purpose sometimes)
    (rb"\('([^']*)', ('[^']*')\)", rb"('\1', \2, 3)"),                # bare int subarray shape
    (rb"\('([^']*)', ('[^']*')\)", rb"('\1', \2, [3])"),              # list subarray shape
    (rb"\('([^']*)', ('[^']*')\)", rb"('\1', \2, None)"),             # None subarray shape
    (rb"\('([^']*)', ('[^']*')\)", rb"('\1', (\2, (2,)))"),           # field type as subarray tuple
    (rb"\('([^']*)', ('[^']*')\)", rb"('\1', \2, (True,))"),          # bool subarray dim
    (rb"\('([^']*)', ('[^']*')\)", rb"('\1', \2, (False,))"),
    (rb"\('([^']*)', ('[^']*')\)", rb"('\1', \2, ())"),
    (rb"\('([^']*)', ('[^']*')\)", rb"('', \2)"),                     # padding that is not void
    (rb"\('([^']*)', ('[^']*')\)", rb"('\1', \2), ('\1', \2)"),       # duplicate field
    (rb"'shape': \(", rb"'shape': ["),
    (rb"'shape': \(([^)]*)\)", rb"'shape': [\1]"),
    (rb"'shape': \(([0-9]+),\)", rb"'shape': (\1)"),
    (rb"'shape': \(([0-9]+)", rb"'shape': (True"),
    (rb"'shape': \(([0-9]+)", rb"'shape': (-\1"),
    (rb"'shape': \(([0-9]+)", rb"'shape': (\1.0"),
    (rb"'fortran_order': (True|False)", rb"'fortran_order': 0"),
    (rb"'fortran_order': (True|False)", rb"'fortran_order': '\1'"),
    (rb"'descr': ('[^']*')", rb"'descr': (\1, (3,))"),               # top-level subarray
    (rb"'descr': ('[^']*')", rb"'descr': [('a', \1)]"),
    (rb"'descr': ('[^']*')", rb"'descr': [('', '|V8')]"),
    (rb"'descr': ('[^']*')", rb"'descr': []"),
    (rb"'descr': ('[^']*')", rb"'descr': {'ab': 1}"),
    (rb"'descr'", rb"'d\\x65scr'"),
    (rb"'descr'", rb"'des' 'cr'"),
    (rb"'descr'", rb"u'descr'"),
    (rb"'", rb'"'),
    (rb"\{", rb" {"),
    (rb"\{", rb"\t{"),
    (rb"\{", rb"\n{"),
    (rb"\{", rb"({"),
    (rb"\}", rb"})"),
    (rb"\}", rb"} # c"),
    (rb", ", rb",  # c\n "),
    (rb", ", rb", \\\n"),
]


def tokens(b):
    return [(m.lastgroup, m.group()) for m in TOKEN_RE.finditer(b)]


def number_variant(rng, tok):
    try:
        n = int(tok)
    except ValueError:
        n = 2
    return rng.choice([hex(n), oct(n), bin(n), "%d_0" % n if n else "0_0", "+%d" % n, "-%d" % n, "-0", "00",
                       "0%d" % n, "%d.0" % n, "%dj" % n, "%dL" % n, "%d L" % n, "%dl" % n, "(%d)" % n, "%de0" % n,
                       "%d" % (n + 2**31), "%d" % (2**64 + n), "1" + "0" * 5000]).encode()


def mutate_tokens(rng, b, others):
    toks = tokens(b)
    if not toks:
        return b
    i = rng.randrange(len(toks))
    kind, tok = toks[i]
    op = rng.random()
    if op < 0.1:
        toks[i] = (kind, b"")
    elif op < 0.16:
        toks.insert(i, (kind, tok))
    elif op < 0.22 and i + 1 < len(toks):
        toks[i], toks[i + 1] = toks[i + 1], toks[i]
    elif op < 0.38:
        toks[i] = ("op", rng.choice(ALPHABET))
    elif op < 0.5:
        toks.insert(i, ("op", rng.choice(ALPHABET)))
    elif op < 0.56 and kind in ("str", "num", "name"):
        toks[i] = (kind, b"(" + tok + b")")
    elif op < 0.7:
        strs = [j for j, t in enumerate(toks) if t[0] == "str"]
        if strs:
            j = rng.choice(strs)
            s = toks[j][1]
            q = s[:1]
            body = s[1:-1]
            r = rng.random()
            if r < 0.25:
                s = rng.choice([b"u", b"r", b"b", b"U", b"R", b"f", b"rb", b"B"]) + s
            elif r < 0.35:
                s = q * 3 + body + q * 3
            elif r < 0.45 and len(body) > 1:
                k = rng.randrange(1, len(body))
                s = q + body[:k] + q + rng.choice([b" ", b"", b"\n", b"\\\n"]) + q + body[k:] + q
            elif r < 0.7:
                k = rng.randrange(0, len(body) + 1)
                s = q + body[:k] + rng.choice(STRING_INSERTS) + body[k:] + q
            else:
                s = b"'" + rng.choice(TYPESTR_REWRITES).encode("utf-8") + b"'"
            toks[j] = ("str", s)
    elif op < 0.8:
        nums = [j for j, t in enumerate(toks) if t[0] == "num"]
        if nums:
            j = rng.choice(nums)
            toks[j] = ("num", number_variant(rng, toks[j][1]))
    elif op < 0.95:
        pat, rep = rng.choice(STRUCT_REWRITES)
        ms = list(re.finditer(pat, b))
        if ms:
            m = rng.choice(ms)
            return b[:m.start()] + m.expand(rep) + b[m.end():]
        return b
    else:
        o = rng.choice(others)
        cut = rng.randrange(len(o) + 1)
        toks.insert(i, ("op", o[cut:cut + rng.randint(1, 30)]))
    return b"".join(t for _, t in toks)


INTERESTING = [0x00, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x22, 0x23, 0x27, 0x28, 0x29, 0x2C, 0x30, 0x3A, 0x4C,
               0x5B, 0x5C, 0x5D, 0x7B, 0x7D, 0x7F, 0x80, 0x85, 0xA0, 0xC3, 0xE9, 0xEF, 0xFF]


def mutate_bytes(rng, b, others):
    b = bytearray(b)
    op = rng.random()
    if op < 0.2 and b:
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
    elif op < 0.4 and b:
        b[rng.randrange(len(b))] = rng.choice(INTERESTING) if rng.random() < 0.6 else rng.randrange(256)
    elif op < 0.6:
        b.insert(rng.randrange(len(b) + 1), rng.choice(INTERESTING) if rng.random() < 0.6 else rng.randrange(256))
    elif op < 0.75 and b:
        i = rng.randrange(len(b))
        del b[i:i + rng.randint(1, 4)]
    elif op < 0.85 and b:
        del b[rng.randrange(len(b)):]
    elif op < 0.93 and b:
        i = rng.randrange(len(b))
        j = min(len(b), i + rng.randint(1, 16))
        b[j:j] = b[i:j]
    else:
        o = rng.choice(others)
        cut = rng.randrange(len(o) + 1)
        b[rng.randrange(len(b) + 1):0] = o[cut:cut + rng.randint(1, 24)]
    return bytes(b)


def mutate(rng, b, others):
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        b = mutate_tokens(rng, b, others) if rng.random() < 0.6 else mutate_bytes(rng, b, others)
    return b


# ================================================================ corpora ==
def corpus_headers():
    out = []
    for p in sorted(CORPUS.iterdir()):
        if p.is_file():
            out.append(("corpus", hc.version_of(p.name), p.read_bytes(), p.name))
    if FUZZ_CORPUS.is_dir():
        for p in sorted(FUZZ_CORPUS.iterdir()):
            if p.is_file():
                b = p.read_bytes()
                for v in ((1, 0), (3, 0)):
                    if v != (1, 0) or len(b) <= 0xFFFF:
                        out.append(("fuzz-corpus", v, b, "fuzz/corpus/header/" + p.name))
    return out


# =============================================================== npyguard ==
def build_batch(no_build):
    if no_build:
        exe = ROOT / "target" / "debug" / "examples" / "header_batch"
        if not exe.exists():
            sys.exit("--no-build: %s does not exist" % exe)
        return str(exe)
    out = subprocess.run(["cargo", "build", "-q", "--example", "header_batch", "--message-format=json"],
                         cwd=ROOT, stdout=subprocess.PIPE, check=True).stdout
    for line in out.decode().splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("target", {}).get("name") == "header_batch":
            if msg.get("executable"):
                return msg["executable"]
    sys.exit("cargo build did not report the header_batch executable")


def run_batch(exe, items):
    with tempfile.NamedTemporaryFile(prefix="npyguard-diff-", suffix=".bin", delete=False) as f:
        for version, text in items:
            f.write(bytes([VERSION_BYTE[version]]) + struct.pack("<I", len(text)) + text)
        path = f.name
    try:
        out = subprocess.run([exe, path], stdout=subprocess.PIPE, check=True).stdout
    finally:
        os.unlink(path)
    lines = out.decode("ascii").splitlines()
    if len(lines) != len(items):
        raise RuntimeError("header_batch printed %d lines for %d headers" % (len(lines), len(items)))
    return [json.loads(line) for line in lines]


# ================================================================== NumPy ==
def numpy_reading(text, version):
    """header_cases' reading: header reader, then np.load (skipped when the header reader refuses)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        hdr = hc.numpy_header(text, version)
        load = hc.numpy_load(text, version, hdr) if hdr["ok"] else {"ok": False, "error": ""}
    return hdr, load, hc.numpy_verdict(hdr, load)


def numpy_load_with_max_header(text, version, hdr, max_header_size):
    """hc.numpy_load with np.load's max_header_size raised (row b2)."""
    shape, dtype = hdr["shape"], hdr["dtype"]
    try:
        count = int(np.multiply.reduce(shape, dtype=np.int64)) if len(shape) else 1
    except Exception:  # noqa: BLE001
        count = 0
    nbytes = 0 if dtype.hasobject else max(count, 0) * dtype.itemsize
    if nbytes > hc.LOAD_CAP:
        return hc.dry_run(shape, dtype, count, nbytes)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.load(io.BytesIO(hc.npy_file(text, version, nbytes)), allow_pickle=False, max_header_size=max_header_size)
    except Exception as e:  # noqa: BLE001
        return {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}
    return {"ok": True}


def decode(text, version):
    return text.decode("utf-8" if version == (3, 0) else "latin-1")


def python_literal(s, version):
    """NumPy's literal_eval of a decoded header (with its Python 2 `L` filter for 1.0/2.0)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.literal_eval(s), s
        except SyntaxError:
            if version > (2, 0):
                raise
            f = hc._fmt_impl._filter_header(s)
            return ast.literal_eval(f), f


# ====================================================== table (b) checks ==
PAD_BYTES = b" \t\r\n\x0c"


def whitespace_layout_feature(text, version):
    """Row b6: padding whose last line is indented, which NumPy refuses. Python's tokenizer
    raises IndentationError ("unexpected indent") when the text after the last line break
    ends in a space or tab. In 3.0 that is the rule. In 1.0/2.0 NumPy retries through its
    Python 2 filter (tokenize + untokenize; every header with an `L` suffix goes through
    it), which repairs a last LF line but not a last lone-CR line, and turns form feeds
    into spaces. (Checked exhaustively against NumPy for paddings of up to 5 whitespace
    bytes; the explanation is also verified per header, see explain_b.)"""
    padding = text[len(text.rstrip(PAD_BYTES)):]
    last = max(padding.rfind(b"\n"), padding.rfind(b"\r"))
    if last < 0:
        return False
    if version == (3, 0):
        return padding[-1:] in (b" ", b"\t")
    if padding[last:last + 1] != b"\r":
        return False
    if any(kind == "num" and tok.endswith(b"L") for kind, tok in tokens(text)):
        return last + 1 < len(padding)
    return padding[-1:] in (b" ", b"\t")


def normalise_whitespace(text):
    """The same header with every whitespace run outside strings a single space, no `L`
    suffixes, and a single LF as padding: what NumPy reads without its Python 2 filter."""
    out = []
    for kind, tok in tokens(text):
        if kind == "ws":
            out.append(b" ")
        elif kind == "num" and re.fullmatch(rb"[0-9]+L", tok):
            out.append(tok[:-1])
        else:
            out.append(tok)
    return b"".join(out).rstrip(PAD_BYTES) + b"\n"


def explain_b(text, version, ng, hdr, load, depth=0):
    """The table (b) row that explains npyguard accepting a header NumPy refuses, verified; or None.

    Rows b1 and b6 are verified by removing the feature (the extra keys; whitespace and `L`) and
    reading the rest with NumPy again: it must load it and read it as npyguard does, or
    refuse it for another table (b) reason (reported as e.g. "b6+b1")."""
    if depth > 2:
        return None
    if whitespace_layout_feature(text, version):
        text2 = normalise_whitespace(text)
        hdr2, load2, verdict2 = numpy_reading(text2, version)
        if verdict2 == "loads":
            return "b6" if not hc.compare(ng, hdr2) else None
        inner = explain_b(text2, version, ng, hdr2, load2, depth + 1)
        return "b6+" + inner if inner else None
    if ng["extra"]:
        # b1: NumPy must read the header without its extra keys as npyguard reads it.
        # Python limits int() to 4300 digits: an extra key may hold a longer integer (that
        # alone makes NumPy refuse the header); the three keys are read without the limit.
        digits = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(0)
        try:
            d, _ = python_literal(decode(text, version), version)
        except Exception:  # noqa: BLE001
            return None
        finally:
            sys.set_int_max_str_digits(digits)
        if not isinstance(d, dict) or not EXPECTED_KEYS <= set(d):
            return None
        sub = ascii({k: d[k] for k in sorted(EXPECTED_KEYS)}).encode("ascii")
        hdr2, load2, verdict2 = numpy_reading(sub, version)
        if verdict2 == "loads":
            return "b1" if not hc.compare(ng, hdr2) else None
        inner = explain_b(sub, version, dict(ng, extra=0), hdr2, load2, depth + 1)
        return "b1+" + inner if inner else None
    if hdr["ok"] and load["ok"] is False and "Header info length" in load.get("error", ""):
        # b2: np.load with a raised max_header_size must load it, read the same way.
        if len(decode(text, version)) <= 10_000:
            return None
        load2 = numpy_load_with_max_header(text, version, hdr, 10**6)
        if load2["ok"] is not False and not hc.compare(ng, hdr):
            return "b2"
    return None


# ====================================================== table (a) classes ==
WHITESPACE = " \t\n\r\x0c"
PLAIN_INT = re.compile(r"0|[1-9][0-9]*")
STR_PREFIX = re.compile(r"^([A-Za-z]*)('''|\"\"\"|'|\")")


def byte_to_char(text, version, off):
    if version != (3, 0):
        return off
    return len(text[:off].decode("utf-8", errors="replace"))


def syntax_spans(s):
    """[(class, start, end)] for Python features outside the grammar, in char offsets (end inclusive)."""
    spans = []
    if s and s[0] in WHITESPACE:
        end = len(s) - len(s.lstrip(WHITESPACE))
        spans.append(("a1", 0, end))
    # CPython's tokenizer reads a lone CR as a line break (universal newlines); the pure
    # Python tokenize module does not. Same-length replacement keeps the offsets.
    s_tok = s.replace("\r\n", " \n").replace("\r", "\n")
    line_starts = [0]
    for i, c in enumerate(s_tok):
        if c == "\n":
            line_starts.append(i + 1)

    def off(pos):
        row, col = pos
        return line_starts[row - 1] + col if row - 1 < len(line_starts) else len(s)

    try:
        toks = list(tokenize.generate_tokens(io.StringIO(s_tok).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        toks = []
    str_spans = []
    prev = None  # previous significant token
    number_chain = False  # after a number, or an `L` name following one
    stack = []
    for t in toks:
        start, end = off(t.start), off(t.end)
        if t.type == tokenize.COMMENT:
            spans.append(("a2", start, end))
            continue
        if t.type in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
            continue
        if t.type == tokenize.STRING:
            str_spans.append((start, end))
            m = STR_PREFIX.match(t.string)
            prefix, quote = (m.group(1), m.group(2)) if m else ("", "'")
            # A lone lowercase `b` is a bytes literal, which the grammar reads (np.save writes
            # a bytes title so); every other prefix is row a4.
            if prefix and prefix != "b":
                spans.append(("a4", start, end))
            if len(quote) == 3:
                spans.append(("a5", start, end))
            if prev is not None and prev.type == tokenize.STRING:
                spans.append(("a6", off(prev.end), start))
            body_start = start + len(prefix) + len(quote)
            body = t.string[len(prefix) + len(quote):len(t.string) - len(quote)]
            for j, c in enumerate(body):
                if ord(c) < 0x20 and c not in "\n\r" or c == "\x7f":
                    spans.append(("a11", body_start + j, body_start + j))
            if "r" not in prefix.lower():
                j = 0
                while j < len(body):
                    if body[j] != "\\":
                        j += 1
                        continue
                    nxt = body[j + 1:j + 2]
                    cls, width = None, 2
                    if nxt in ("\n", "\r"):
                        cls = "a12"
                    elif nxt == "u" or nxt == "U":
                        width = 6 if nxt == "u" else 10
                        hexd = body[j + 2:j + width]
                        if re.fullmatch(r"[0-9A-Fa-f]+", hexd or "-") and 0xD800 <= int(hexd, 16) <= 0xDFFF:
                            cls = "a14"
                    elif nxt == "x":
                        width = 4
                    elif nxt == "N":
                        cls = "a13"
                        width = body.find("}", j) - j + 1 if "}" in body[j:] else 2
                    elif nxt not in ("\\", "'", '"', "n", "r", "t"):
                        cls = "a13"
                    if cls:
                        spans.append((cls, body_start + j, body_start + j + width))
                    j += width
        elif t.type == tokenize.NUMBER:
            if not PLAIN_INT.fullmatch(t.string):
                spans.append(("a8", start, end))
            if prev is not None and prev.type == tokenize.OP and prev.string in "+-":
                spans.append(("a8", off(prev.start), end))
        elif t.type == tokenize.NAME and t.string == "L" and number_chain:
            # NumPy's Python 2 filter drops every `L` name after a number (and after such an
            # `L`); npyguard takes only the one touching the digits.
            if prev.type != tokenize.NUMBER or off(prev.end) != start:
                spans.append(("a9", off(prev.end), end))
            prev = t
            continue
        elif t.type == tokenize.OP:
            if t.string in "([{":
                stack.append([t.string, start, False])
            elif t.string in ")]}" and stack:
                kind, open_at, comma = stack.pop()
                if kind == "(" and not comma and prev is not None and not (prev.type == tokenize.OP and prev.string == "("):
                    spans.append(("a7", open_at, end))
                if kind == "{" and open_at > 0 and s[:open_at].strip(WHITESPACE + "(") != "":
                    spans.append(("a22", open_at, end))
            elif t.string == "," and stack:
                stack[-1][2] = True
            elif t.string in ("+", "-"):
                spans.append(("a8", start, end))  # a sign: unary +/- (also before parentheses)
        number_chain = t.type == tokenize.NUMBER
        prev = t
    # Backslash line continuations outside strings.
    for m in re.finditer(r"\\(\r\n|\n|\r)", s):
        if not any(a <= m.start() < b for a, b in str_spans):
            spans.append(("a3", m.start(), m.end()))
    return spans


def max_bracket_depth(s):
    depth = best = 0
    for c in s:  # strings may hold brackets: an overestimate is fine for an explanation of depth
        if c in "([{":
            depth += 1
            best = max(best, depth)
        elif c in ")]}":
            depth -= 1
    return best


def typestr_classes(s, top):
    """The table (a) rows a descr string NumPy accepts but the grammar does not falls under (a set;
    several can apply, e.g. 'G' is both a character code and a long double)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dt = np.dtype(s)
    except Exception:  # noqa: BLE001
        return set()
    found = set()
    if dt.subdtype is not None:
        found.add("a32" if top else "a24")
    if dt.names is not None or "," in s:
        found.add("a18")
    if dt.hasobject:
        found.add("a30")
    if dt.char in "gG":
        found.add("a29")
    if dt.itemsize == 0:
        found.add("a19")
    if not s or s[0] not in "<>|=":
        found.add("a16")
        return found
    code = s[1:]
    if s[0] == "|" and dt.itemsize > 1 and dt.kind not in "SV":
        found.add("a15")
    if dt.kind in "Mm" and re.fullmatch(r"[Mm]8.*", code):
        m = re.fullmatch(r"[Mm]8(?:\[([0-9]*)([A-Za-z]+)\])?", code)
        if m is None or (m.group(1) or "1").startswith("0") or m.group(2) not in (
                None, "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "generic") \
                or (m.group(2) == "generic" and m.group(1)):
            found.add("a21")
        return found
    if re.fullmatch(r"(b1|i1|i2|i4|i8|u1|u2|u4|u8|f2|f4|f8|c8|c16|[SUV][1-9][0-9]*)", code):
        return found
    if re.search(r"\s", code) or re.search(r"(^|[^0-9])0[0-9]", code):
        found.add("a17")
    else:
        found.add("a16")
    return found


def descr_classes(descr, top=True, depth=0):
    """The table (a) rows a descr value (as NumPy evaluated it) falls under."""
    found = set()
    if isinstance(descr, str):
        return typestr_classes(descr, top)
    if isinstance(descr, tuple):
        found.add("a32" if top else "a24")
        return found
    if isinstance(descr, dict):
        found.add("a22")
        return found
    if not isinstance(descr, list):
        return found
    if depth >= 15:
        found.add("a27")
    named = 0
    for field in descr:
        if not isinstance(field, tuple):
            found.add("a22")
            named += 1
            continue
        if len(field) not in (2, 3):
            continue
        name, typ = field[0], field[1]
        shape = field[2] if len(field) == 3 else None
        is_pad = name == ""
        if len(field) == 3:
            if not isinstance(shape, tuple):
                found.add("a23")
            else:
                if len(shape) > 32:
                    found.add("a28")
                if any(isinstance(x, bool) for x in shape):
                    found.add("a23")
        if isinstance(typ, tuple):
            found.add("a24")
        elif isinstance(typ, (str, list, dict)):
            found |= descr_classes(typ, False, depth + 1)
        if is_pad:
            if not (isinstance(typ, str) and re.fullmatch(r"[<>|=]V[1-9][0-9]*", typ) and len(field) == 2):
                found.add("a25")
        elif isinstance(name, tuple) and len(name) == 2 and name[1] == "":
            found.add("a25")
        else:
            named += 1
    if named == 0:
        found.add("a20")
    return found


def classify_a(text, version, ng, kinds_of):
    """The DEVIATIONS.md (a) row explaining why npyguard refuses a header NumPy accepts, or None.

    `kinds_of`: {row: npyguard column}. A row applies when its feature is present and
    its npyguard column names npyguard's error kind; a syntax feature must also
    contain npyguard's error offset."""
    kind = ng["kind"]
    s = decode(text, version)
    e = byte_to_char(text, version, ng["offset"] - PREAMBLE_LEN[version])
    spans = syntax_spans(s)
    candidates = [cls for cls, a, b in spans if a <= e <= b]
    if kind == "nesting-too-deep" and max_bracket_depth(s) > 32 and any(cls == "a7" for cls, _, _ in spans):
        candidates.append("a7")  # parentheses around a value count towards the depth limit
    try:
        d, src = python_literal(s, version)
    except Exception:  # noqa: BLE001
        d, src = None, s
    if isinstance(d, dict):
        try:
            node = ast.parse(src.lstrip(" \t"), mode="eval").body
            keys = [ast.literal_eval(k) for k in node.keys]
            if len(keys) != len(set(keys)):
                candidates.append("a10")
        except Exception:  # noqa: BLE001
            pass
        if "descr" in d:
            candidates.extend(sorted(descr_classes(d["descr"])))
        if isinstance(d.get("shape"), tuple) and any(isinstance(x, bool) for x in d["shape"]):
            candidates.append("a31")
    for cls in candidates:
        if kind in kinds_of.get(cls, ""):
            return cls
    return None


def deviation_rows():
    """({table (a) row: its npyguard column}, {table (b) rows}) from grammar/DEVIATIONS.md."""
    rows, problems = hc.parse_deviations(hc.DEVIATIONS)
    kinds, b_rows = {}, set()
    for (table, _), (label, _claim, _line, ng_cell) in rows.items():
        if table == "a":
            kinds[label] = ng_cell
        else:
            b_rows.add(label)
    if problems:
        raise SystemExit("grammar/DEVIATIONS.md: " + "; ".join(problems))
    return kinds, b_rows


# =================================================================== main ==
def show(text, version, n=300):
    s = repr(text)
    return "v%d.%d %s" % (version[0], version[1], s if len(s) <= n else s[: n - 1] + "…")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=20_000, help="generated+mutated headers (full run: 1000000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=20_000, help="headers per header_batch run")
    ap.add_argument("--no-build", action="store_true", help="use target/debug/examples/header_batch as built")
    ap.add_argument("--no-corpus", action="store_true", help="skip tests/headers and fuzz/corpus/header")
    ap.add_argument("--examples", type=int, default=5, help="examples printed per failure class")
    ap.add_argument("--dump", help="write every failing header as a JSON line to this file")
    ap.add_argument("--replay", help="check only the headers of a --dump file (no generation, no corpus)")
    args = ap.parse_args()

    t0 = time.time()
    rng = random.Random(args.seed)
    abnf = Abnf(GRAMMAR.read_text(encoding="utf-8"))
    gen = Generator(abnf, rng)
    kinds_of, b_rows = deviation_rows()
    exe = build_batch(args.no_build)

    corpus = [] if args.no_corpus else corpus_headers()
    seeds = [t for _, _, t, _ in corpus if len(t) <= 4096] or [b"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }"]

    if args.replay:
        replay = [json.loads(line) for line in open(args.replay, encoding="utf-8")]
        corpus = [("replay", tuple(int(x) for x in r["version"].split(".")), r["text"].encode("latin-1"), None)
                  for r in replay]
        args.count = 0

    def items():
        for src, version, text, name in corpus:
            yield src, version, text, name
        recent = []
        for i in range(args.count):
            r = rng.random()
            if r < 0.45:
                version, text = generate_header(gen, rng)
                src = "generated"
            else:
                if r < 0.8 or not recent:
                    version, base = generate_header(gen, rng, long_ok=False)
                else:
                    version, base = rng.choice(recent) if rng.random() < 0.5 else (
                        rng.choice([(1, 0), (2, 0), (3, 0)]), rng.choice(seeds))
                text = mutate(rng, base, seeds)
                src = "mutated"
                if len(text) > 0xFFFF and version == (1, 0):
                    version = (2, 0)
            if len(text) > 4096:
                pass  # not mutated further (see generate_header)
            elif len(recent) < 2000:
                recent.append((version, text))
            else:
                recent[rng.randrange(2000)] = (version, text)
            yield src, version, text, None

    stats = Counter()
    by_source = defaultdict(Counter)
    a_classes = Counter()
    a_header_only = Counter()
    b_classes = Counter()
    failures = defaultdict(list)
    dump = open(args.dump, "w", encoding="utf-8") if args.dump else None

    def fail(kind, version, text, detail):
        failures[kind].append((version, text, detail))
        if dump:
            dump.write(json.dumps({"failure": kind, "version": "%d.%d" % version,
                                   "text": text.decode("latin-1"), "detail": detail}) + "\n")

    def check(src, version, text, ng):
        hdr, load, verdict = numpy_reading(text, version)
        stats["headers"] += 1
        by_source[src]["headers"] += 1
        np_err = hdr.get("error") or load.get("error") or ""
        if ng["ok"]:
            if verdict == "loads":
                stats["both accept"] += 1
                if ng["extra"]:
                    fail("npyguard sees extra keys in a header NumPy loads", version, text, ng)
                diffs = hc.compare(ng, hdr)
                if diffs:
                    fail("read differently", version, text, "; ".join(diffs))
                else:
                    stats["both accept, same reading"] += 1
            else:
                row = explain_b(text, version, ng, hdr, load)
                if row is not None and not set(re.split(r"[/+]", row)) <= b_rows:
                    fail("explained by a row DEVIATIONS.md table (b) does not have", version, text, row)
                    row = None
                elif row is None:
                    fail("npyguard accepts, NumPy %s, no table (b) row" % verdict, version, text,
                         "npyguard %s; NumPy: %s" % (ng, np_err))
                else:
                    b_classes[row] += 1
                    stats["npyguard accepts, NumPy refuses (table b)"] += 1
                if ng["strict_ok"] and (row is None or not set(re.split(r"[/+]", row)) <= STRICT_ROWS):
                    fail("numpy-strict accepts, NumPy %s, outside rows %s" % (verdict, sorted(STRICT_ROWS)), version, text,
                         "npyguard %s; NumPy: %s" % (ng, np_err))
        else:
            if verdict == "loads":
                stats["npyguard refuses, NumPy loads (table a)"] += 1
                cls = classify_a(text, version, ng, kinds_of)
                if cls is None:
                    fail("npyguard refuses (%s), NumPy loads, no table (a) row" % ng["kind"], version, text,
                         "npyguard %s at %d" % (ng["kind"], ng["offset"]))
                else:
                    a_classes[cls] += 1
            elif verdict == "header only":
                stats["npyguard refuses, NumPy's header reader accepts, np.load refuses"] += 1
                cls = classify_a(text, version, ng, kinds_of)
                a_header_only[cls or "(not a table (a) form: np.load refuses it too)"] += 1
            else:
                stats["both refuse"] += 1
        by_source[src]["npyguard accepts" if ng["ok"] else "npyguard refuses"] += 1
        by_source[src]["NumPy " + verdict] += 1

    batch = []
    done = 0
    for item in items():
        batch.append(item)
        if len(batch) >= args.batch:
            for (src, version, text, _), ng in zip(batch, run_batch(exe, [(v, t) for _, v, t, _ in batch])):
                check(src, version, text, ng)
            done += len(batch)
            batch = []
            if args.count >= 100_000:
                print("  %d headers, %.0f s" % (done, time.time() - t0), file=sys.stderr, flush=True)
    if batch:
        for (src, version, text, _), ng in zip(batch, run_batch(exe, [(v, t) for _, v, t, _ in batch])):
            check(src, version, text, ng)
    if dump:
        dump.close()

    elapsed = time.time() - t0
    print("Differential run: seed %d, %d generated/mutated + %d corpus headers, NumPy %s, %.0f s"
          % (args.seed, args.count, len(corpus), np.__version__, elapsed))
    for k in ["headers", "both accept", "both accept, same reading", "both refuse",
              "npyguard accepts, NumPy refuses (table b)", "npyguard refuses, NumPy loads (table a)",
              "npyguard refuses, NumPy's header reader accepts, np.load refuses"]:
        print("  %-70s %9d" % (k, stats[k]))
    print("\nBy source:")
    for src, c in sorted(by_source.items()):
        print("  %-12s %s" % (src, ", ".join("%s %d" % kv for kv in sorted(c.items()))))
    print("\nTable (b) rows (npyguard accepts, NumPy refuses), verified:")
    for k, v in sorted(b_classes.items()):
        print("  %-10s %9d" % (k, v))
    print("\nTable (a) rows (npyguard refuses, NumPy loads):")
    for k, v in sorted(a_classes.items(), key=lambda kv: int(re.sub(r"\D", "", kv[0]) or 0)):
        print("  %-10s %9d" % (k, v))
    print("\nnpyguard refuses, NumPy's header reader accepts but np.load refuses (not judged):")
    for k, v in sorted(a_header_only.items()):
        print("  %-50s %9d" % (k, v))

    nfail = sum(len(v) for v in failures.values())
    if nfail:
        print("\nFAILED: %d headers" % nfail)
        for kind, cases in sorted(failures.items()):
            print("\n-- %s: %d" % (kind, len(cases)))
            for version, text, detail in sorted(cases, key=lambda c: len(c[1]))[: args.examples]:
                print("   " + show(text, version))
                print("      " + hc.short(detail, 300))
        return 1
    print("\nOK: no header npyguard reads differently from NumPy or accepts outside table (b); "
          "every header NumPy loads and npyguard refuses is a table (a) row.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
