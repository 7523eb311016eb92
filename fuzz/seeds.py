#!/usr/bin/env python3
"""Writes the seed inputs of the fuzz corpora (standard library only, deterministic).

    python3 fuzz/seeds.py

* fuzz/corpus/file/      the small NumPy fixtures (tests/fixtures/npy/*.npy under 64 KiB)
                         and hand-made hostile files (hostile-*);
* fuzz/corpus/preamble/  preamble + header of each fixture, and hostile preambles;
* fuzz/corpus/header/    the header text of each fixture, tests/headers/*.txt
                         (the y_/n_/i_ cases, when present) and hostile header texts;
* fuzz/corpus/payload/, fuzz/corpus/roundtrip/
                         a few pseudo-random inputs (these targets are structure-aware:
                         any bytes are an input; the fuzzer grows the real corpus).

A seed whose exact content is already in the directory (e.g. under the hash
name `cargo fuzz cmin` gives it) is not written again. After a `cmin`, run

    python3 fuzz/seeds.py --hostile

to add back only the hand-made hostile seeds and the tests/headers cases the
minimisation dropped (they are tiny and document what the corpus must cover),
not the fixtures or random seeds (their coverage is kept by cmin).
"""

import hashlib
import os
import random
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUZZ = os.path.join(ROOT, "fuzz")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "npy")
HEADERS = os.path.join(ROOT, "tests", "headers")
MAX_SEED = 64 * 1024
MAGIC = b"\x93NUMPY"


def existing(d):
    out = set()
    for n in os.listdir(d):
        p = os.path.join(d, n)
        if os.path.isfile(p):
            with open(p, "rb") as f:
                out.add(hashlib.sha1(f.read()).hexdigest())
    return out


class Dir:
    def __init__(self, target):
        self.path = os.path.join(FUZZ, "corpus", target)
        os.makedirs(self.path, exist_ok=True)
        self.have = existing(self.path)
        self.written = 0

    def put(self, name, data):
        if len(data) > MAX_SEED:
            return
        h = hashlib.sha1(data).hexdigest()
        if h in self.have:
            return
        self.have.add(h)
        with open(os.path.join(self.path, name), "wb") as f:
            f.write(data)
        self.written += 1


def npy(header_text, payload=b"", version=(1, 0), pad=True):
    """A file with `header_text` (str, or bytes already encoded), padded as np.save pads."""
    enc = "utf-8" if version == (3, 0) else "latin-1"
    text = header_text.encode(enc) if isinstance(header_text, str) else header_text
    lenfield = 2 if version == (1, 0) else 4
    if pad:
        used = len(MAGIC) + 2 + lenfield + len(text) + 1
        text = text + b" " * ((64 - used % 64) % 64) + b"\n"
    fmt = "<H" if lenfield == 2 else "<I"
    return MAGIC + bytes(version) + struct.pack(fmt, len(text)) + text + payload


def hdr(descr="'<f8'", fortran="False", shape="(2,)", extra=""):
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, %s}" % (descr, fortran, shape, extra)


# Hostile header texts (also embedded in hostile files below).
HOSTILE_HEADERS = {
    "numpy": hdr(),
    "deep-33": "{'a': " + "[" * 32 + "]" * 32 + "}",
    "deep-32": "{'a': " + "[" * 31 + "]" * 31 + "}",
    "deep-tuples": "{'a': " + "(1, " * 20 + "1" + ")" * 20 + "}",
    "unclosed": "{'descr': '<f8', 'shape': (2,",
    "dup-key": "{'descr': '<f8', 'descr': '<i4', 'fortran_order': False, 'shape': ()}",
    "missing-shape": "{'descr': '<f8', 'fortran_order': False}",
    "extra-key": hdr(extra="'x': [None, True, (1,)], "),
    "long-suffix": hdr(shape="(3L, 4L)"),
    "big-int": hdr(shape="(18446744073709551616,)"),
    "leading-zero": hdr(shape="(02,)"),
    "space-comma": "{'shape': (8 ,), 'descr': '<i4', 'fortran_order': False}",
    "paren-not-tuple": hdr(shape="(3)"),
    "escapes": "{'k\\'\\\"\\\\\\n\\r\\t\\x41\\u00e9\\U0001F600': 'x', 'descr': '=m8', 'fortran_order': False, 'shape': ()}",
    "surrogate-escape": "{'a': '\\ud800'}",
    "bad-escape": "{'a': '\\q'}",
    "raw-tab-in-string": "{'a': 'x\ty'}",
    "dq-strings": '{"descr": ">M8[25s]", "fortran_order": True, "shape": [1, 2]}',
    "ws-all-kinds": "{\t'descr'\n:\r'<c16'\x0c, 'fortran_order': False, 'shape': (), }\r\n\x0c\t",
    "record": hdr(descr="[('x', '<i4'), ('y', '<f8', (2, 2)), (('title', 'z'), '|S3'), ('', '|V4')]"),
    "record-nested": hdr(descr="[('p', [('x', '<f4'), ('y', [('q', '>u2')])]), ('id', '<u2')]"),
    "record-dup-field": hdr(descr="[('a', '<i4'), ('a', '<f8')]"),
    "record-empty": hdr(descr="[]"),
    "object": hdr(descr="'|O'"),
    "long-double": hdr(descr="'<f16'"),
    "pipe-f8": hdr(descr="'|f8'"),
    "unicode-huge": hdr(descr="'<U4611686018427387904'"),
    "bytes-zero": hdr(descr="'|S0'"),
    "datetime-units": hdr(descr="'<M8[4294967295as]'"),
    "datetime-generic-mult": hdr(descr="'<m8[2generic]'"),
    "shape-overflow": hdr(shape="(4611686018427387904, 4)"),
    "zero-and-huge": hdr(shape="(0, 9223372036854775807)"),
    "dims-65": hdr(shape="(" + "1, " * 65 + ")"),
    "empty-dict": "{}",
    "empty": "",
    "nul": "{'descr': '<f8'\x00}",
    "true-shape": hdr(shape="True"),
    "list-shape": hdr(shape="[2, 3]"),
    "bool-order": hdr(fortran="1"),
}


def hostile_files():
    f8 = struct.pack("<2d", 1.5, float("nan"))
    yield "ok-f8", npy(hdr(), f8)
    yield "ok-v2", npy(hdr(), f8, version=(2, 0))
    yield "ok-v3-utf8-name", npy(hdr(descr="[('ñame€', '<f8')]"), f8, version=(3, 0))
    yield "latin1-name-v1", npy(hdr(descr="[('ñame', '<f8')]"), f8)
    yield "invalid-utf8-v3", npy(hdr(descr="[('\xff', '<f8')]").encode("latin-1"), f8, version=(3, 0))
    yield "long-suffix-v3", npy(hdr(shape="(2L,)"), f8, version=(3, 0))
    yield "bad-magic", b"\x93NUMPZ\x01\x00" + b"\x10\x00" + b"{}" + b" " * 13 + b"\n"
    yield "version-4", MAGIC + b"\x04\x00\x10\x00"
    yield "version-1-1", MAGIC + b"\x01\x01\x10\x00"
    yield "short-preamble", MAGIC + b"\x02\x00\x10"
    yield "magic-only", MAGIC
    yield "empty", b""
    yield "hlen-ffff", MAGIC + b"\x01\x00\xff\xff" + b"{"
    yield "hlen-ffffffff", MAGIC + b"\x02\x00\xff\xff\xff\xff" + b"{"
    yield "hlen-0", MAGIC + b"\x01\x00\x00\x00" + f8
    yield "hlen-1", MAGIC + b"\x01\x00\x01\x00" + b"{"
    yield "header-truncated", npy(hdr(), f8)[:40]
    yield "payload-truncated", npy(hdr(), f8)[:-3]
    yield "trailing", npy(hdr(), f8) + b"PK\x03\x04"
    yield "claim-1e9", npy(hdr(shape="(1000000000,)"), f8)
    yield "claim-overflow", npy(hdr(shape="(4611686018427387904, 4)"), f8)
    yield "zero-and-huge", npy(hdr(shape="(0, 9223372036854775807)"))
    yield "unicode-bad-unit", npy(hdr(descr="'<U2'", shape="(1,)"), struct.pack("<2I", 0x41, 0xD800))
    yield "unicode-ok", npy(hdr(descr="'>U2'", shape="(2,)"), "héllo€!!".encode("utf-32-be"))
    yield "fortran-3d", npy(hdr(descr="'<i2'", fortran="True", shape="(2, 3, 2)"), bytes(range(24)))
    yield "bool-bytes", npy(hdr(descr="'|b1'", shape="(4,)"), b"\x00\x01\x02\xff")
    yield "record-padded", npy(
        hdr(descr="[('a', '|u1'), ('', '|V3'), ('b', '<i4')]", shape="(2,)"), bytes(range(16)))
    yield "record-titled-be", npy(
        hdr(descr="[(('Title', 't'), '>i2'), ('u', '>f4', (2,))]", shape="(2,)"), bytes(range(20)))
    yield "record-nested", npy(hdr(descr="[('p', [('x', '<f4'), ('y', '<f4')]), ('id', '<u2')]", shape="(1,)"),
                               bytes(10))
    yield "record-zero-size", npy(hdr(descr="[('a', '<i4', (0,))]", shape="(1000000,)"))
    yield "datetime-nat", npy(hdr(descr="'<M8[ns]'", shape="()"), struct.pack("<q", -2**63))
    yield "complex", npy(hdr(descr="'>c8'", shape="(1,)"), struct.pack(">2f", float("inf"), -0.0))
    yield "half", npy(hdr(descr="'<f2'", shape="(3,)"), b"\x00\x7c\x01\x7e\x00\x80")
    yield "extra-key", npy(hdr(extra="'meta': {'a': 1}, "), f8)
    yield "no-padding", npy(hdr(), f8, pad=False)
    for name, text in HOSTILE_HEADERS.items():
        yield "hdr-" + name, npy(text, f8)


def fixtures():
    for name in sorted(os.listdir(FIXTURES)):
        if name.endswith(".npy"):
            with open(os.path.join(FIXTURES, name), "rb") as f:
                yield name[:-4], f.read()


def split(data):
    """(preamble+header, header text) of a well-formed file, or None."""
    if data[:6] != MAGIC or len(data) < 12:
        return None
    if data[6] == 1:
        start, hlen = 10, struct.unpack("<H", data[8:10])[0]
    else:
        start, hlen = 12, struct.unpack("<I", data[8:12])[0]
    return data[: start + hlen], data[start : start + hlen]


def main():
    hostile_only = "--hostile" in sys.argv[1:]
    file_dir, pre_dir, hdr_dir = Dir("file"), Dir("preamble"), Dir("header")
    for name, data in ([] if hostile_only else fixtures()):
        file_dir.put("fixture-" + name, data)
        parts = split(data)
        if parts:
            pre_dir.put("fixture-" + name, parts[0])
            hdr_dir.put("fixture-" + name, parts[1])
    for name, data in hostile_files():
        file_dir.put("hostile-" + name, data)
        parts = split(data)
        pre_dir.put("hostile-" + name, parts[0] if parts and len(data) > 12 else data[:64])
    for name, text in HOSTILE_HEADERS.items():
        hdr_dir.put("hostile-" + name, text.encode("utf-8"))
        hdr_dir.put("hostile-" + name + "-latin1", text.encode("latin-1", "replace"))
    if os.path.isdir(HEADERS):
        for name in sorted(os.listdir(HEADERS)):
            if name.endswith(".txt"):
                with open(os.path.join(HEADERS, name), "rb") as f:
                    hdr_dir.put("headers-" + name[:-4], f.read())
    rng = random.Random(0x5EED)
    for target in () if hostile_only else ("payload", "roundtrip"):
        d = Dir(target)
        for i in range(16):
            n = rng.choice([4, 8, 16, 32, 64, 128, 512])
            d.put("random-%02d" % i, bytes(rng.randrange(256) for _ in range(n)))
        dirs_written = d.written
        print("corpus/%s: %d seeds written" % (target, dirs_written))
    for d in (file_dir, pre_dir, hdr_dir):
        print("%s: %d seeds written" % (os.path.relpath(d.path, ROOT), d.written))


if __name__ == "__main__":
    main()
