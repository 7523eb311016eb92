#!/usr/bin/env python3
"""Differential test of npyguard's .npz reader against NumPy's, on generated and mutated archives.

NumPy's answer is the meaning of an archive: for archive bytes `b`,

    with np.load(io.BytesIO(b), allow_pickle=False) as z:
        keys = list(z.files); values = [z[k] for k in keys]

(NumPy's NpzFile over CPython's zipfile). Any exception, in np.load or in any z[k]
(MemoryError and OverflowError included; a process address-space limit turns huge
allocations into MemoryError, and an interval timer bounds every archive's reading),
is a NumPy refusal. A value that is `bytes` (a member that is not .npy data) means
NumPy "opens" the archive but returns raw bytes: npyguard must refuse those.

npyguard reads every archive through `examples/npz_batch.rs` (records of u32-LE length
+ archive bytes in one file per batch, one JSON line per record). For every archive
npyguard must either

  (a) return exactly what NumPy returns: the same keys in the same order and, for
      each key, the same `repr(np.lib.format.dtype_to_descr(dtype))` (compared as
      strings, with no normalisation: both sides render the same on every plain and
      structured case checked), the same shape and the same C-order bytes
      (`arr.tobytes()`), padding bytes excepted: the bytes of a structured item no
      field covers (aligned records, explicit itemsize/offsets) are set to 0 on both
      sides before comparing, because NumPy's read_array assigns records field by
      field into an uninitialised np.ndarray, so it returns whatever memory held
      there (different from run to run), not the file's bytes; or
  (b) refuse it. A refusal where NumPy opens the archive is a "deliberate refusal"
      (npyguard's policy, src/npz/mod.rs: bytes before the first local header, gaps,
      overlaps, trailing bytes, end records and zip64 records read differently by
      other readers, colliding keys, non-.npy members, CRC/size mismatches, bytes
      after a member's .npy payload, multi-disk fields, methods other than stored and
      deflated, encryption, flag bit 5, versions above 6.3, header forms in
      grammar/DEVIATIONS.md table (a), local/central disagreements); they are counted
      by npyguard's error kind and by edit kind.

DISAGREEMENTS (exit status 1, examples printed as edit history + hex):

  * both open, different keys, descr, shape or bytes;
  * npyguard opens an archive NumPy refuses;
  * npyguard opens an archive for which NumPy returns raw bytes.

Sources of archives (all deterministic from --seed):

  savez, savez_compressed
              np.savez / np.savez_compressed of 0-4 small arrays: dtypes b1, i1-i8,
              u1-u8, f2, f4, f8, c8, c16, S, U, V, M8, m8, records (nested, subarrays,
              padding, titles, unicode field names -> .npy 3.0), both byte orders;
              shapes 0-d, empty, 1-D, 2-D/3-D in C and Fortran order; names
              positional and keyword (already ending in .npy, unicode, '/', empty);
  zipfile     archives written with zipfile directly (fixed timestamps): mixed
              stored/deflated/bzip2/lzma members, non-.npy members (text, directory
              entries, empty), pickled-object .npy, .npy 2.0/3.0 members, colliding
              names (a / a.npy, a.npy / a.npy.npy, in both orders) and duplicates,
              data descriptors (written to a non-seekable stream), forced zip64
              local headers, archive comments, empty archives.

Every base archive is parsed into a model (local headers, data, data descriptors,
central entries, zip64 end record and locator, end record; serialising an unedited
model reproduces zipfile's bytes exactly, checked) and edited: prefixes (a shell
script or PK-signature prefix, offsets shifted or not), gaps between members and
before the directory, trailing garbage, comments of the wrong length or holding a
fake end record, zip64 end records and locators (valid, classic fields saturated,
extensible data, a second record hidden in it, a decoy record the locator points at
while Python reads the one right before the locator, locator pointing elsewhere, disagreeing
fields, multi-disk), zip64 extra fields (central, local, short, unused, duplicated),
local/central mismatches (name, name encoding, method, flags, CRC, sizes, extra,
version), versions needed around 6.3, flag bits 0/5/6, other methods, entry counts
and disk fields, directory order/drops/duplicates, nested (overlapping) members,
data-descriptor variants, names (cp437, UTF-8 with and without the flag, NUL,
invalid UTF-8, collisions, .npy added or removed), member contents re-stored with
their CRC and sizes fixed (.npy header byte mutations, valid respellings (key
order, quotes, spacing, trailing commas), descr/fortran_order/shape
changes, version 2.0/3.0 rewrites, payload mutations, trailing bytes, truncation,
non-.npy data, recompression with zlib's levels, strategies and window sizes,
deflate streams with flush points, junk after the end or no final block, mutated
deflate data (CRC and size set to what zlib decodes), declared sizes off); then, for part of the archives, byte-level mutations of
the serialised archive (bit flips, overwrites, inserts, deletes, duplicated spans,
biased to the zip structures) and truncations.

Usage: python3 tests/numpy/npz_differential.py [--count N] [--seed S] [--batch B]
                                               [--no-build | --bin PATH]
                                               [--examples K] [--dump DIR]

--count is the number of archives (default 3 000, the CI run; the recorded full run
is --count 100000). Without --bin or --no-build the script builds
`cargo build --release --features npz --example npz_batch`; --no-build uses
target/release/examples/npz_batch as it is. --dump DIR writes every disagreement as
DIR/<n>.npz with a DIR/<n>.txt describing it.
"""

import argparse
import ast
import bz2
import copy
import io
import json
import lzma
import os
import random
import re
import resource
import signal
import struct
import subprocess
import sys
import tempfile
import time
import warnings
import zipfile
import zlib
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DEFAULT_BIN = ROOT / "target" / "release" / "examples" / "npz_batch"

NUMPY_TIMEOUT = 10.0        # seconds for one archive's np.load and reads
ADDRESS_SPACE = 6 << 30     # RLIMIT_AS while NumPy reads (huge allocations -> MemoryError)
FIXED_TIME = (1980, 1, 1, 0, 0, 0)

SIG_LOCAL = b"PK\x03\x04"
SIG_CENTRAL = b"PK\x01\x02"
SIG_END = b"PK\x05\x06"
SIG_END64 = b"PK\x06\x06"
SIG_LOC64 = b"PK\x06\x07"
SIG_DD = b"PK\x07\x08"
LOCAL_FMT = "<4sHHHHHIIIHH"          # 30 bytes
CENTRAL_FMT = "<4sBBBBHHHHIIIHHHHHII"  # 46 bytes
END_FMT = "<4sHHHHIIH"               # 22 bytes
END64_FMT = "<4sQHHIIQQQQ"           # 56 bytes
LOC64_FMT = "<4sIQI"                 # 20 bytes
SAT16, SAT32, U64 = 0xFFFF, 0xFFFFFFFF, 2**64 - 1


# ================================================================ arrays ==
def rand_dtype(rng):
    """A small random dtype, as NumPy would write it."""
    bo = rng.choice("<>")
    r = rng.random()
    if r < 0.55:
        code = rng.choice(["b1", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8",
                           "f2", "f4", "f8", "c8", "c16", "f8", "i4"])
        return np.dtype(code if code in ("b1", "i1", "u1") else bo + code)
    if r < 0.7:
        kind = rng.choice("SUV")
        n = rng.choice([1, 2, 3, 5, 8])
        return np.dtype((bo if kind == "U" else "|") + kind + str(n))
    if r < 0.8:
        unit = rng.choice(["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "as", "generic"])
        kind = rng.choice(["M8", "m8"])
        return np.dtype(bo + kind + ("" if unit == "generic" else "[%s]" % unit))
    return rand_record(rng, 0)


def rand_record(rng, depth):
    names = ["a", "b", "x", "y", "val", "é", "f0", "z z"]
    rng.shuffle(names)
    fields = []
    for name in names[: rng.randint(1, 3)]:
        r = rng.random()
        if r < 0.15 and depth < 1:
            sub = rand_record(rng, depth + 1)
        else:
            sub = np.dtype(rng.choice(["<i4", ">i2", "u1", "<f8", "|S3", "<U2", "|b1", ">c8", "<M8[s]"]))
        if rng.random() < 0.15:
            fields.append((name, sub, rng.choice([(2,), (2, 3), (1,)])))
        else:
            fields.append((name, sub))
    r = rng.random()
    if r < 0.15:
        dt = np.dtype(fields, align=True)
    elif r < 0.25:
        dt = np.dtype(fields)
        dt = np.dtype({"names": list(dt.names), "formats": [dt.fields[n][0] for n in dt.names],
                       "offsets": [dt.fields[n][1] for n in dt.names], "itemsize": dt.itemsize + rng.randint(1, 4)})
    elif r < 0.3 and len(fields) == 1:
        dt = np.dtype([(("a title", fields[0][0]),) + tuple(fields[0][1:])])
    else:
        dt = np.dtype(fields)
    return dt


def rand_shape(rng, itemsize, big=False):
    budget = max(1, (6000 if big else 600) // max(itemsize, 1))
    r = rng.random()
    if r < 0.12:
        return ()
    if r < 0.22:
        return rng.choice([(0,), (0, 3), (3, 0), (2, 0, 2)])
    if r < 0.6:
        return (rng.randint(1, min(budget, 40 if not big else budget)),)
    if r < 0.9:
        a = rng.randint(1, 6)
        return (a, rng.randint(1, max(1, min(8, budget // a))))
    return (rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 4))


def rand_array(rng, big=False):
    dt = rand_dtype(rng)
    shape = rand_shape(rng, dt.itemsize, big)
    n = int(np.prod(shape, dtype=np.int64))
    if dt.kind == "U" and rng.random() < 0.9:
        pool = "abcxyz é€\U0001F600\u0000"
        chars = dt.itemsize // 4
        vals = ["".join(rng.choice(pool) for _ in range(rng.randint(0, chars))).rstrip("\x00") for _ in range(n)]
        a = np.array(vals, dtype=dt).reshape(shape)
    elif dt.kind == "b" and rng.random() < 0.8:
        a = np.frombuffer(bytes(rng.randint(0, 1) for _ in range(n)), dtype=dt).reshape(shape)
    else:
        raw = bytearray(rng.randbytes(n * dt.itemsize))
        units = list(u_units(dt)) if dt.names is not None else []
        if units and rng.random() < 0.9:
            # Records: valid code points in their U fields (random ones now and then).
            for i in range(n):
                for off, order in units:
                    cp = rng.choice([0, 0, rng.randint(0x20, 0x7E), rng.randint(0xA0, 0xD7FF), 0x1F600])
                    struct.pack_into(order + "I", raw, i * dt.itemsize + off, cp)
        a = np.frombuffer(bytes(raw), dtype=dt).reshape(shape).copy()
    if a.ndim >= 2 and rng.random() < 0.4:
        a = np.asfortranarray(a)
    elif a.ndim >= 1 and a.shape[0] > 2 and rng.random() < 0.1:
        a = a[::2]  # not contiguous: written in C order
    return a


def u_units(dt, base=0):
    """(offset, struct byte order) of every UTF-32 code unit in an item of dtype dt."""
    if dt.subdtype is not None:
        sub, shape = dt.subdtype
        for k in range(int(np.prod(shape, dtype=np.int64))):
            yield from u_units(sub, base + k * sub.itemsize)
    elif dt.names is not None:
        for name in dt.names:
            sub, off = dt.fields[name][:2]
            yield from u_units(sub, base + off)
    elif dt.kind == "U":
        order = ">" if dt.byteorder == ">" else "<"
        for k in range(dt.itemsize // 4):
            yield base + 4 * k, order


def npy_bytes(a, version=None, allow_pickle=False):
    buf = io.BytesIO()
    if version is None:
        np.save(buf, a, allow_pickle=allow_pickle)
    else:
        np.lib.format.write_array(buf, a, version=version, allow_pickle=allow_pickle)
    return buf.getvalue()


KEY_NAMES = ["a", "b", "x", "data", "arr_x", "x.npy", "é", "日本", "dir/sub", "a b", "", ".npy",
             "X.NPY", "data.npz", "a/../b", "/abs", "tab\tname", "e\u0301"]


def rand_names(rng, k):
    names = []
    while len(names) < k:
        n = rng.choice(KEY_NAMES) if rng.random() < 0.6 else "".join(
            rng.choice("abcdefgh_.-") for _ in range(rng.randint(1, 8)))
        if n not in names and not re.fullmatch(r"arr_\d+", n):
            names.append(n)
    return names


# ================================================================ bases ==
class NoSeek:
    """A write-only stream: zipfile then writes data descriptors."""

    def __init__(self):
        self.b = bytearray()

    def write(self, d):
        self.b += d
        return len(d)

    def flush(self):
        pass


def base_savez(rng, compressed):
    k = rng.choices([0, 1, 2, 3, 4], [0.04, 0.36, 0.3, 0.18, 0.12])[0]
    arrays = [rand_array(rng, big=rng.random() < 0.08) for _ in range(k)]
    npos = rng.randint(0, k)
    kw = dict(zip(rand_names(rng, k - npos), arrays[npos:]))
    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buf, *arrays[:npos], **kw)
    return buf.getvalue(), ["savez_compressed" if compressed else "savez"]


def base_zipfile(rng):
    tags = ["zipfile"]
    entries = []  # (name, content, method)
    methods = [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]
    default = rng.choice(methods)
    for name in rand_names(rng, rng.choices([0, 1, 2, 3], [0.05, 0.4, 0.35, 0.2])[0]):
        a = rand_array(rng, big=rng.random() < 0.08)
        version = None
        if rng.random() < 0.1:
            version = rng.choice([(1, 0), (2, 0), (3, 0)])
            tags.append("zf:npy-v%d" % version[0])
        try:
            content = npy_bytes(a, version)
        except ValueError:  # 1.0 cannot hold a 3.0-only header
            content = npy_bytes(a)
        entries.append([name + ".npy" if rng.random() < 0.85 else name, content, default])
    r = rng.random()
    if r < 0.06:
        entries.append(["readme.txt", b"hello\n", default])
        tags.append("zf:text-member")
    elif r < 0.1:
        entries.append([rng.choice(["d/", "d.npy/"]), b"", zipfile.ZIP_STORED])
        tags.append("zf:dir-entry")
    elif r < 0.13:
        entries.append(["obj.npy", npy_bytes(np.array([{"k": 1}, None], dtype=object), allow_pickle=True), default])
        tags.append("zf:pickle")
    elif r < 0.15:
        entries.append(["empty.npy", b"", default])
        tags.append("zf:empty-member")
    elif r < 0.22:
        pair = rng.choice([("a", "a.npy"), ("a.npy", "a"), ("a.npy", "a.npy.npy"), ("a.npy.npy", "a.npy"),
                           ("a.npy", "a.npy"), ("a", "a")])
        for n in pair:
            entries.append([n, npy_bytes(rand_array(rng)), default])
        tags.append("zf:dup" if pair[0] == pair[1] else "zf:collide")
    if entries and rng.random() < 0.12:
        e = rng.choice(entries)
        e[2] = rng.choice([zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
        tags.append("zf:bzip2" if e[2] == zipfile.ZIP_BZIP2 else "zf:lzma")
    elif entries and rng.random() < 0.3:
        for e in entries:
            e[2] = rng.choice(methods)
        tags.append("zf:mixed-methods")
    rng.shuffle(entries)
    unseekable = rng.random() < 0.25
    force64 = rng.random() < 0.3
    if unseekable:
        tags.append("zf:descriptors")
    if force64:
        tags.append("zf:zip64-local")
    if not entries:
        tags.append("zf:empty")
    out = NoSeek() if unseekable else io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with zipfile.ZipFile(out, "w") as zf:
            if rng.random() < 0.1:
                zf.comment = rng.choice([b"a comment", rng.randbytes(rng.randint(1, 40))])
                tags.append("zf:comment")
            for name, content, method in entries:
                zi = zipfile.ZipInfo(name, date_time=FIXED_TIME)
                zi.compress_type = method
                if method == zipfile.ZIP_DEFLATED and rng.random() < 0.3:
                    zi._compresslevel = rng.randint(0, 9)
                with zf.open(zi, "w", force_zip64=force64 and rng.random() < 0.8) as f:
                    f.write(content)
    data = bytes(out.b) if unseekable else out.getvalue()
    return data, tags


def make_base(rng):
    r = rng.random()
    if r < 0.3:
        return base_savez(rng, False)
    if r < 0.55:
        return base_savez(rng, True)
    return base_zipfile(rng)


# ================================================================ model ==
class Member:
    """A local header, the member's data, its data descriptor and any bytes after it."""

    def __init__(self, lh, name, extra, data, dd=b"", gap=b""):
        self.lh, self.name, self.extra, self.data, self.dd, self.gap = lh, name, extra, data, dd, gap
        self.content = None  # the uncompressed bytes, when known


class Central:
    """A central-directory entry; its offset field is computed from `target`
    (member index, delta) unless `offset` is set."""

    def __init__(self, f, name, extra, comment, target):
        self.f, self.name, self.extra, self.comment, self.target = f, name, extra, comment, target
        self.offset = None
        self.z64 = None  # None, or the fields ("usize", "csize", "offset") put in a zip64 extra field


class Archive:
    def __init__(self):
        self.prefix, self.shift = b"", True
        self.members, self.central = [], []
        self.cd_gap = b""
        self.z64 = None   # zip64 end record overrides: {} for an automatic one
        self.loc = None   # zip64 locator overrides
        self.end = {}     # end record overrides
        self.comment = b""
        self.trailer = b""


LH_KEYS = ("sig", "version", "flags", "method", "time", "date", "crc", "csize", "usize", "nlen", "xlen")
CD_KEYS = ("sig", "made_by", "system", "version", "reserved", "flags", "method", "time", "date", "crc",
           "csize", "usize", "nlen", "xlen", "clen", "disk", "iattr", "eattr", "offset")
LH_MASK = dict(zip(LH_KEYS, [None] + [SAT16] * 5 + [SAT32] * 3 + [SAT16] * 2))
CD_MASK = dict(zip(CD_KEYS, [None] + [0xFF] * 4 + [SAT16] * 4 + [SAT32] * 3 + [SAT16] * 5 + [SAT32] * 2))


def parse_zip(b):
    """The model of an archive zipfile wrote (well-formed, no zip64 end record)."""
    at = len(b) - 22
    while b[at:at + 4] != SIG_END:
        at -= 1
    e = dict(zip(("sig", "disk", "cd_disk", "n_disk", "n", "cd_size", "cd_offset", "clen"),
                 struct.unpack(END_FMT, b[at:at + 22])))
    A = Archive()
    A.comment = b[at + 22: at + 22 + e["clen"]]
    pos = e["cd_offset"]
    centrals = []
    for _ in range(e["n"]):
        f = dict(zip(CD_KEYS, struct.unpack(CENTRAL_FMT, b[pos:pos + 46])))
        p = pos + 46
        name = b[p:p + f["nlen"]]
        extra = b[p + f["nlen"]: p + f["nlen"] + f["xlen"]]
        comment = b[p + f["nlen"] + f["xlen"]: p + f["nlen"] + f["xlen"] + f["clen"]]
        centrals.append((f, name, extra, comment))
        pos = p + f["nlen"] + f["xlen"] + f["clen"]
    order = sorted(range(len(centrals)), key=lambda i: centrals[i][0]["offset"])
    index_of = {}
    for rank, i in enumerate(order):
        f = centrals[i][0]
        off = f["offset"]
        lh = dict(zip(LH_KEYS, struct.unpack(LOCAL_FMT, b[off:off + 30])))
        name = b[off + 30: off + 30 + lh["nlen"]]
        extra = b[off + 30 + lh["nlen"]: off + 30 + lh["nlen"] + lh["xlen"]]
        ds = off + 30 + lh["nlen"] + lh["xlen"]
        data = b[ds: ds + f["csize"]]
        nxt = centrals[order[rank + 1]][0]["offset"] if rank + 1 < len(order) else e["cd_offset"]
        m = Member(lh, name, extra, data, dd=b[ds + f["csize"]: nxt])
        index_of[i] = len(A.members)
        A.members.append(m)
    for i, (f, name, extra, comment) in enumerate(centrals):
        A.central.append(Central(f, name, extra, comment, (index_of[i], 0)))
    return A


def pack_local(m):
    lh = dict(m.lh)
    lh["nlen"] = len(m.name) if m.lh.get("nlen_fix", True) else lh["nlen"]
    lh["xlen"] = len(m.extra)
    return struct.pack(LOCAL_FMT, *(lh[k] & LH_MASK[k] if k != "sig" else lh[k] for k in LH_KEYS)) + m.name + m.extra


def serialise(A):
    """The archive's bytes and the spans of its structures [(start, end)]."""
    out = bytearray(A.prefix)
    spans = []
    plen = len(A.prefix)

    def rec(p):
        return p if A.shift else p - plen

    pos_of = []
    for m in A.members:
        pos_of.append(len(out))
        h = pack_local(m)
        spans.append((len(out), len(out) + len(h)))
        out += h
        out += m.data
        if m.dd:
            spans.append((len(out), len(out) + len(m.dd)))
        out += m.dd + m.gap
    gap_start = len(out)
    out += A.cd_gap
    cd_start = len(out)
    for c in A.central:
        f = dict(c.f)
        if c.offset is not None:
            off = c.offset
        else:
            mi, delta = c.target
            off = rec(pos_of[mi] + delta) if mi < len(pos_of) else 0
        f["offset"] = off & SAT32
        extra = c.extra
        if c.z64 is not None:
            vals = b""
            for k in ("usize", "csize", "offset"):
                if k in c.z64:
                    vals += struct.pack("<Q", (off if k == "offset" else f[k]) & U64)
                    f[k] = SAT32
            extra = struct.pack("<HH", 1, len(vals)) + vals + extra
        f["nlen"], f["xlen"], f["clen"] = len(c.name), len(extra), len(c.comment)
        h = struct.pack(CENTRAL_FMT, *(f[k] & CD_MASK[k] if k != "sig" else f[k] for k in CD_KEYS)) + c.name + extra + c.comment
        spans.append((len(out), len(out) + 46))
        out += h
    cd_size = len(out) - cd_start
    n = len(A.central)
    if A.z64 is not None:
        z = dict(sig=SIG_END64, size=None, made_by=45, version=45, disk=0, cd_disk=0,
                 n_disk=n, n=n, cd_size=cd_size, cd_offset=rec(cd_start), ext=b"", pre=b"")
        z.update(A.z64)
        if z.get("hidden") is not None:
            k = n + z["hidden"]
            z["ext"] = b"hidden" + struct.pack(END64_FMT, SIG_END64, 44, 45, 45, 0, 0, k, k, cd_size, rec(cd_start))
        out += z["pre"]
        z64_at = len(out)
        if z["size"] is None:
            z["size"] = 44 + len(z["ext"])
        rec64 = struct.pack(END64_FMT, z["sig"], z["size"] & U64, z["made_by"] & SAT16, z["version"] & SAT16,
                            z["disk"] & SAT32, z["cd_disk"] & SAT32, z["n_disk"] & U64, z["n"] & U64,
                            z["cd_size"] & U64, z["cd_offset"] & U64)
        spans.append((len(out), len(out) + 56))
        out += rec64 + z["ext"]
        if A.loc is not None:
            loc = dict(sig=SIG_LOC64, disk=0, offset=rec(z64_at), disks=1)
            loc.update(A.loc)
            if loc.pop("decoy", False):
                loc["offset"] = rec(gap_start)
            spans.append((len(out), len(out) + 20))
            out += struct.pack(LOC64_FMT, loc["sig"], loc["disk"] & SAT32, loc["offset"] & U64, loc["disks"] & SAT32)
    elif A.loc is not None:
        loc = dict(sig=SIG_LOC64, disk=0, offset=0, disks=1)
        loc.update(A.loc)
        spans.append((len(out), len(out) + 20))
        out += struct.pack(LOC64_FMT, loc["sig"], loc["disk"] & SAT32, loc["offset"] & U64, loc["disks"] & SAT32)
    e = dict(sig=SIG_END, disk=0, cd_disk=0, n_disk=n & SAT16, n=n & SAT16, cd_size=cd_size & SAT32,
             cd_offset=rec(cd_start) & SAT32, clen=len(A.comment))
    e.update(A.end)
    spans.append((len(out), len(out) + 22))
    out += struct.pack(END_FMT, e["sig"], *(e[k] & SAT16 for k in ("disk", "cd_disk", "n_disk", "n")),
                       e["cd_size"] & SAT32, e["cd_offset"] & SAT32, e["clen"] & SAT16)
    out += A.comment + A.trailer
    return bytes(out), spans


# ======================================================== content helpers ==
def extra_fields(extra):
    out, rest = [], extra
    while len(rest) >= 4:
        tp, ln = struct.unpack("<HH", rest[:4])
        out.append((tp, rest[4:4 + ln]))
        rest = rest[4 + ln:]
    return out, rest


def decompress(method, data):
    if method == 0:
        return data
    if method == 8:
        return zlib.decompressobj(-15).decompress(data)
    if method == 12:
        return bz2.decompress(data)
    if method == 14:
        return zipfile.LZMADecompressor().decompress(data)
    raise ValueError(method)


def compress(rng, method, content, level=None):
    if method == 0:
        return content
    level = rng.choice([-1, -1, 0, 1, 6, 9]) if level is None else level
    if rng.random() < 0.3:
        strategy = rng.choice([zlib.Z_FILTERED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE, zlib.Z_FIXED])
        c = zlib.compressobj(level, zlib.DEFLATED, -rng.randint(9, 15), rng.randint(1, 9), strategy)
    else:
        c = zlib.compressobj(level, zlib.DEFLATED, -15)
    return c.compress(content) + c.flush()


def members_of(A, mi):
    return [c for c in A.central if c.target[0] == mi and c.target[1] == 0]


def content_of(A, mi):
    m = A.members[mi]
    if m.content is None:
        m.content = decompress(m.lh["method"], m.data)
    return m.content


def set_content(A, mi, content, data=None, method=None, usize=None):
    """Stores `content` as member mi (compressed as `data` if given), with CRC and sizes
    fixed in the local header (or its zip64 field), the data descriptor and the central
    entries pointing at it."""
    m = A.members[mi]
    method = m.lh["method"] if method is None else method
    if data is None:
        data = compress(random.Random(len(content)), method, content)
    crc = zlib.crc32(content)
    usize = len(content) if usize is None else usize
    m.data, m.content = data, content
    m.lh["method"] = method
    for c in members_of(A, mi):
        c.f.update(crc=crc, csize=len(data), usize=usize, method=method)
    if m.lh["flags"] & 8:
        if m.dd:
            signed = m.dd[:4] == SIG_DD
            body = m.dd[4:] if signed else m.dd
            if len(body) == 20:
                m.dd = (SIG_DD if signed else b"") + struct.pack("<IQQ", crc, len(data), usize)
            elif len(body) == 12:
                m.dd = (SIG_DD if signed else b"") + struct.pack("<III", crc, len(data), usize)
        return
    m.lh["crc"] = crc
    fields, rest = extra_fields(m.extra)
    z = [d for tp, d in fields if tp == 1]
    if z and (m.lh["usize"] == SAT32 or m.lh["csize"] == SAT32):
        vals = b""
        if m.lh["usize"] == SAT32:
            vals += struct.pack("<Q", usize)
        if m.lh["csize"] == SAT32:
            vals += struct.pack("<Q", len(data))
        new = b""
        for tp, d in fields:
            new += struct.pack("<HH", tp, len(vals) if tp == 1 else len(d)) + (vals if tp == 1 else d)
        m.extra = new + rest
    else:
        m.lh["csize"], m.lh["usize"] = len(data), usize


def npy_header_end(content):
    """Where the .npy header ends (its declared length), or None."""
    if content[:6] != b"\x93NUMPY" or len(content) < 10:
        return None
    if content[6] == 1:
        return 10 + struct.unpack("<H", content[8:10])[0]
    if len(content) < 12:
        return None
    return 12 + struct.unpack("<I", content[8:12])[0]


def npy_members(A):
    out = []
    for i, m in enumerate(A.members):
        if m.lh["method"] in (0, 8) and members_of(A, i):
            try:
                c = content_of(A, i)
            except Exception:  # noqa: BLE001
                continue
            if npy_header_end(c):
                out.append(i)
    return out


def rewrite_header(content, fn):
    """The .npy bytes with header text replaced by fn(text), re-padded to keep alignment."""
    end = npy_header_end(content)
    major = content[6]
    enc = "utf-8" if major == 3 else "latin-1"
    text = content[10 if major == 1 else 12: end].decode(enc, errors="replace").rstrip(" \n")
    new = fn(text)
    if new is None:
        return None
    hlen = 10 if major == 1 else 12
    raw = new.encode(enc, errors="replace")
    pad = (-(hlen + len(raw) + 1)) % 64
    raw = raw + b" " * pad + b"\n"
    if major == 1 and len(raw) > 0xFFFF:
        return None
    field = struct.pack("<H", len(raw)) if major == 1 else struct.pack("<I", len(raw))
    return content[:8] + field + raw + content[end:]


# ================================================================ edits ==
# Each edit takes (rng, A) and returns its label, or None when it does not apply.
def pick_member(rng, A):
    return rng.randrange(len(A.members)) if A.members else None


def pick_central(rng, A):
    return rng.choice(A.central) if A.central else None


def e_prefix(rng, A):
    A.prefix = rng.choice([b"#!/bin/sh\nexec unzip \"$0\"\n", SIG_LOCAL + rng.randbytes(rng.randint(0, 40)),
                           SIG_END + rng.randbytes(rng.randint(0, 30)), rng.randbytes(rng.randint(1, 64)),
                           SIG_LOCAL + b"\x00" * 26])
    A.shift = rng.random() < 0.5
    return "prefix-shifted" if A.shift else "prefix-unshifted"


def e_gap(rng, A):
    i = pick_member(rng, A)
    junk = rng.choice([rng.randbytes(rng.randint(1, 40)), b"\x00" * rng.randint(1, 8), SIG_DD + rng.randbytes(12)])
    if i is None or rng.random() < 0.3:
        A.cd_gap = junk
        return "gap-before-cd"
    A.members[i].gap = junk
    return "gap"


def e_trailing(rng, A):
    A.trailer = rng.choice([rng.randbytes(rng.randint(1, 64)), b"\x00", b"\n", SIG_END])
    return "trailing"


def e_comment(rng, A):
    r = rng.random()
    if r < 0.4:
        A.comment = rng.choice([b"comment", rng.randbytes(rng.randint(1, 200)), b""])
        return "comment"
    if r < 0.75:
        if not A.comment:
            A.comment = rng.randbytes(rng.randint(1, 30))
        A.end["clen"] = max(0, len(A.comment) + rng.choice([-3, -1, 1, 2, 50, 0xFFFF - len(A.comment)]))
        return "comment-len"
    body, _ = serialise(A)
    A.comment = rng.choice([body[-22 - len(A.comment):][:22], SIG_END + rng.randbytes(18),
                            rng.randbytes(5) + SIG_END + b"\x00" * 18])
    return "comment-fake-end"


def e_zip64_end(rng, A):
    r = rng.random()
    A.z64, A.loc = {}, {}
    if r < 0.3:
        return "zip64-end"
    if r < 0.5:
        for k, v in (("n", SAT16), ("n_disk", SAT16), ("cd_size", SAT32), ("cd_offset", SAT32)):
            if rng.random() < 0.6:
                A.end[k] = v
        return "zip64-end-saturated"
    if r < 0.6:
        A.z64["ext"] = rng.randbytes(rng.randint(1, 40))
        return "zip64-ext"
    if r < 0.68:
        # A second record in the first one's extensible data, right before the locator,
        # pointing at the same directory (or counting one entry more).
        A.z64["hidden"] = rng.choice([0, 0, 1])
        return "zip64-hidden"
    if r < 0.72:
        # The locator points at a decoy record before the directory; Python reads the
        # 56 bytes right before the locator (the real record) whatever it points at.
        n = len(A.central) + rng.choice([0, 0, 1])
        A.cd_gap = struct.pack(END64_FMT, SIG_END64, 44, 45, 45, 0, 0, n, n, rng.choice([0, 46]), 0)
        A.loc["decoy"] = True
        return "zip64-decoy"
    if r < 0.78:
        A.loc["offset"] = rng.choice([0, 1, 0xFFFFFFFF, rng.randint(2, 200)])
        return "zip64-locator-off"
    if r < 0.84:
        k = rng.choice(["n", "n_disk", "cd_size", "cd_offset"])
        A.z64[k] = rng.choice([0, 1, 2, 7, 0xFFFFFFFF])
        return "zip64-disagree"
    if r < 0.9:
        A.z64["size"] = rng.choice([0, 43, 45, 56, 100])
        return "zip64-sizefield"
    if r < 0.94:
        A.z64 = None
        A.loc = {"offset": rng.randint(0, 100)}
        return "zip64-locator-only"
    if rng.random() < 0.5:
        A.loc[rng.choice(["disk", "disks"])] = rng.choice([1, 2])
    else:
        A.z64[rng.choice(["disk", "cd_disk"])] = rng.choice([1, 2])
    return "zip64-disks"


def e_central_zip64(rng, A):
    c = pick_central(rng, A)
    if c is None:
        return None
    r = rng.random()
    if r < 0.6:
        keys = [k for k in ("usize", "csize", "offset") if rng.random() < 0.6] or ["offset"]
        c.z64 = keys
        return "central-zip64"
    if r < 0.75:
        c.extra = struct.pack("<HHQ", 1, 8, rng.getrandbits(64)) + c.extra
        return "central-zip64-unused"
    if r < 0.88:
        c.z64 = ["usize"]
        c.f["csize"] = SAT32  # saturated too, but the field holds only the size
        return "central-zip64-short"
    c.z64 = ["offset"]
    c.extra = struct.pack("<HHQ", 1, 8, rng.getrandbits(64)) + c.extra
    return "central-zip64-dup"


def e_local_zip64(rng, A):
    i = pick_member(rng, A)
    if i is None:
        return None
    m = A.members[i]
    fields, rest = extra_fields(m.extra)
    if rng.random() < 0.6:
        if any(tp == 1 for tp, _ in fields) or m.lh["flags"] & 8:
            return None
        m.extra = struct.pack("<HHQQ", 1, 16, m.lh["usize"], m.lh["csize"]) + m.extra
        m.lh["usize"] = m.lh["csize"] = SAT32
        return "local-zip64"
    if m.lh["flags"] & 8:
        return None
    m.extra = b"".join(struct.pack("<HH", tp, len(d)) + d for tp, d in fields if tp != 1) + rest
    m.lh["usize"] = SAT32
    return "local-zip64-missing"


def e_mismatch(rng, A):
    i = pick_member(rng, A)
    if i is None:
        return None
    m = A.members[i]
    r = rng.random()
    if r < 0.15:
        m.name = rng.choice([m.name + b"x", m.name[:-1], m.name.upper(), b"other.npy"])
        return "mismatch-name"
    if r < 0.25:
        cs = members_of(A, i)
        try:
            text = m.name.decode("utf-8")
        except UnicodeDecodeError:
            return None
        if rng.random() < 0.5 or not cs:
            m.lh["flags"] ^= 0x800  # same ASCII name, flag only in one header
        else:
            # central: cp437 bytes of a name; local: the same text in UTF-8, flagged
            name = "Ä" + text if text.isascii() else text
            try:
                raw437 = name.encode("cp437")
            except UnicodeEncodeError:
                return None
            for c in cs:
                c.name, c.f["flags"] = raw437, c.f["flags"] & ~0x800
            m.name, m.lh["flags"] = name.encode("utf-8"), m.lh["flags"] | 0x800
        return "mismatch-name-encoding"
    if r < 0.35:
        m.lh["method"] = rng.choice([x for x in (0, 8, 12, 14, 99) if x != m.lh["method"]])
        return "mismatch-method"
    if r < 0.55:
        bit = rng.choice([1, 2, 3, 11, 5, 0, 6, 12, 13, 15, 4])
        m.lh["flags"] ^= 1 << bit
        return "mismatch-flag-bit%d" % bit
    if r < 0.65:
        m.lh["crc"] ^= 1 << rng.randrange(32)
        return "mismatch-crc"
    if r < 0.75:
        k = rng.choice(["csize", "usize"])
        m.lh[k] = max(0, m.lh[k] + rng.choice([-1, 1, 100])) & SAT32
        return "mismatch-sizes"
    if r < 0.9:
        kind = rng.random()
        if kind < 0.5:
            m.extra = m.extra + struct.pack("<HH", 0x5455, 5) + b"\x01" + rng.randbytes(4)
            return "local-extra"
        if kind < 0.75:
            m.extra = m.extra + rng.randbytes(rng.randint(1, 3))
            return "local-extra-trailing"
        m.extra = m.extra + struct.pack("<HH", 0xCAFE, 40) + b"\x00" * 4
        return "local-extra-overrun"
    m.lh["version"] = rng.choice([0, 10, 20, 45, 63, 64, 99, 0xFFFF])
    return "local-version"


def e_central_fields(rng, A):
    c = pick_central(rng, A)
    r = rng.random()
    if c is None:
        r = 0.99
    if r < 0.15:
        c.f["version"] = rng.choice([64, 65, 99, 255, 63, 63, 45, 20, 0])
        return "version-needed>63" if c.f["version"] > 63 else "version-needed<=63"
    if r < 0.22:
        c.f["made_by"], c.f["system"] = rng.randrange(256), rng.choice([0, 3, 11, 19, 255])
        return "made-by"
    if r < 0.32:
        bit = rng.choice([0, 5, 6])
        c.f["flags"] |= 1 << bit
        m = A.members[c.target[0]] if c.target[0] < len(A.members) else None
        if m is not None:
            m.lh["flags"] |= 1 << bit
        return {0: "encrypted", 5: "flag-bit5", 6: "strong-encryption"}[bit]
    if r < 0.4:
        meth = rng.choice([1, 6, 9, 12, 14, 93, 95, 98, 99])
        c.f["method"] = meth
        m = A.members[c.target[0]] if c.target[0] < len(A.members) else None
        if m is not None:
            m.lh["method"] = meth
        return "method-other"
    if r < 0.48:
        k = rng.choice(["n", "n_disk", "n", "cd_size", "cd_offset"])
        n = len(A.central)
        if k in ("n", "n_disk"):
            A.end[k] = max(0, n + rng.choice([-1, 1, 2, 100]))
            return "entry-count"
        body, spans = serialise(A)
        cur = struct.unpack(END_FMT, body[spans[-1][0]: spans[-1][0] + 22])
        A.end[k] = max(0, (cur[5] if k == "cd_size" else cur[6]) + rng.choice([-46, -1, 1, 4, 30]))
        return "cd-size-off" if k == "cd_size" else "cd-offset-off"
    if r < 0.55:
        if rng.random() < 0.5:
            A.end[rng.choice(["disk", "cd_disk"])] = rng.choice([1, 2, SAT16])
        else:
            c.f["disk"] = rng.choice([1, SAT16])
        return "disk-fields"
    if r < 0.62:
        c.comment = rng.choice([b"entry comment", rng.randbytes(rng.randint(1, 50))])
        return "central-comment"
    if r < 0.72:
        kind = rng.random()
        if kind < 0.5:
            c.extra = c.extra + struct.pack("<HH", 0x7875, 11) + b"\x01\x04" + rng.randbytes(4) + b"\x04" + rng.randbytes(4)
            return "central-extra"
        if kind < 0.75:
            c.extra = c.extra + rng.randbytes(rng.randint(1, 3))
            return "central-extra-trailing"
        c.extra = c.extra + struct.pack("<HH", 0xCAFE, 20) + b"\x00" * 3
        return "central-extra-overrun"
    if r < 0.8:
        c.f["iattr"], c.f["eattr"] = rng.randrange(1 << 16), rng.getrandbits(32)
        c.f["time"], c.f["date"] = rng.randrange(1 << 16), rng.randrange(1 << 16)
        return "attributes"
    if r < 0.88:
        c.offset = None
        c.target = (c.target[0], c.target[1] + rng.choice([-1, 1, 2, 30, -30]))
        return "offset-off"
    if A.central and rng.random() < 0.5:
        A.end["n_disk"] = rng.choice([0, 1, 2])
        return "disk-entries"
    return None


def e_directory(rng, A):
    if not A.central:
        return None
    r = rng.random()
    if r < 0.45:
        if len(A.central) < 2:
            return None
        rng.shuffle(A.central)
        return "central-order"
    if r < 0.65:
        A.central.pop(rng.randrange(len(A.central)))
        return "central-drop"
    if r < 0.85:
        c = copy.deepcopy(rng.choice(A.central))
        A.central.insert(rng.randrange(len(A.central) + 1), c)
        return "central-dup"
    # Nested member: one stored member's data holds another's local header and data.
    if len(A.members) < 2:
        return None
    i, j = rng.sample(range(len(A.members)), 2)
    mi, mj = A.members[i], A.members[j]
    if mi.lh["method"] != 0 or mi.lh["flags"] & 8 or not members_of(A, i) or not members_of(A, j):
        return None
    inner = pack_local(mj) + mj.data
    delta = 30 + len(mi.name) + len(mi.extra) + len(content_of(A, i))
    set_content(A, i, content_of(A, i) + inner)
    for c in members_of(A, j):
        c.target = (i, delta)
    # Member j's own bytes go; entries aimed at later members move down by one.
    A.members.pop(j)
    for c in A.central:
        if c.target[0] > j:
            c.target = (c.target[0] - 1, c.target[1])
    return "overlap-nested"


def e_descriptor(rng, A):
    i = pick_member(rng, A)
    if i is None:
        return None
    m = A.members[i]
    cs = members_of(A, i)
    if not cs:
        return None
    c0 = cs[0]
    r = rng.random()
    if not m.lh["flags"] & 8:
        if r < 0.7:
            for c in cs:
                c.f["flags"] |= 8
            m.lh["flags"] |= 8
            if rng.random() < 0.7:
                m.lh["crc"] = m.lh["csize"] = m.lh["usize"] = 0
            signed, wide = rng.random() < 0.7, rng.random() < 0.3
            body = struct.pack("<IQQ" if wide else "<III", c0.f["crc"], c0.f["csize"], c0.f["usize"])
            m.dd = (SIG_DD if signed else b"") + body
            return "dd-add"
        if not m.dd:
            return None
    r = rng.random()
    if r < 0.25:
        m.dd = b""
        return "dd-remove"
    if r < 0.5:
        if len(m.dd) < 12:
            return None
        k = rng.randrange(4 if m.dd[:4] == SIG_DD else 0, len(m.dd))
        m.dd = m.dd[:k] + bytes([m.dd[k] ^ (1 << rng.randrange(8))]) + m.dd[k + 1:]
        return "dd-corrupt"
    if r < 0.7:
        m.dd = m.dd[4:] if m.dd[:4] == SIG_DD else SIG_DD + m.dd
        return "dd-signature"
    if r < 0.85:
        signed = m.dd[:4] == SIG_DD
        body = m.dd[4:] if signed else m.dd
        if len(body) == 12:
            body = struct.pack("<IQQ", *struct.unpack("<III", body))
        elif len(body) == 20:
            crc, a, b = struct.unpack("<IQQ", body)
            body = struct.pack("<III", crc, a, b)
        m.dd = (SIG_DD if signed else b"") + body
        return "dd-width"
    for c in cs:
        c.f["flags"] &= ~8
    m.lh["flags"] &= ~8
    return "dd-flag-cleared"


CP437_CHARS = [bytes([b]) for b in range(0x80, 0x100)]


def e_name(rng, A):
    i = pick_member(rng, A)
    if i is None:
        return None
    m = A.members[i]
    cs = members_of(A, i)
    if not cs:
        return None
    flags_set = None
    r = rng.random()
    stem = m.name[:-4] if m.name.endswith(b".npy") else m.name
    suffix = b".npy" if m.name.endswith(b".npy") else b""
    if r < 0.1:
        name = b"".join(rng.choice(CP437_CHARS + [b"a", b"_"]) for _ in range(rng.randint(1, 6))) + suffix
        flags_set, label = False, "name-cp437"
    elif r < 0.15:
        name = bytes(rng.randint(1, 255) for _ in range(rng.randint(1, 8))) + suffix
        flags_set, label = False, "name-bytes"
    elif r < 0.28:
        name = rng.choice(["ñandú", "Ωμέγα", "日本語", "\U0001F600", "a\u0301"]).encode("utf-8") + suffix
        flags_set, label = True, "name-utf8"
    elif r < 0.36:
        name = rng.choice(["ñ", "日本"]).encode("utf-8") + suffix
        flags_set, label = False, "name-utf8-unflagged"
    elif r < 0.44:
        name = stem + b"\x00" + rng.choice([b"", b"x", b".npy"]) + suffix
        label = "name-nul"
    elif r < 0.5:
        name = stem + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf"]) + suffix
        flags_set, label = True, "name-bad-utf8"
    elif r < 0.68:
        others = [o for j, o in enumerate(A.members) if j != i]
        if not others:
            return None
        o = rng.choice(others).name
        ostem = o[:-4] if o.endswith(b".npy") else o
        name = rng.choice([o, ostem, o + b".npy", ostem + b".npy"])
        label = "name-collide"
    elif r < 0.82:
        name = stem if suffix else m.name + b".npy"
        label = "name-npy-removed" if suffix else "name-npy-added"
    elif r < 0.9:
        name = stem + rng.choice([b".NPY", b".npy.npy", b".npz", b"/", b".np"])
        label = "name-suffix"
    else:
        name = rng.choice([b"", b"/", b"../x.npy", b"a//b.npy", b" .npy", b"\\x.npy"])
        label = "name-odd"
    m.name = name
    for c in cs:
        c.name = name
    if flags_set is not None:
        for f in [m.lh] + [c.f for c in cs]:
            f["flags"] = (f["flags"] | 0x800) if flags_set else (f["flags"] & ~0x800)
    return label


DESCRS = ["'<f8'", "'>f8'", "'<i8'", "'<u8'", "'<c8'", "'|u1'", "'|b1'", "'|S8'", "'<U2'", "'|V8'",
          "'<M8[ns]'", "'<m8[D]'", "'<i4'", "'<f4'", "'>i2'", "'<f2'", "'|i1'", "'<c16'",
          "[('a', '<i4'), ('b', '<f4')]", "'|S1'", "'u1'", "'f8'", "'<i16'", "'|O'", "'<U0'"]


def e_content(rng, A):
    cands = npy_members(A)
    if not cands:
        return None
    i = rng.choice(cands)
    content = content_of(A, i)
    end = npy_header_end(content)
    r = rng.random()
    new = None
    label = None
    if r < 0.18:
        b = bytearray(content)
        lo_dict, hi_dict = content.find(b"{"), content.rfind(b"}", 0, end)
        for _ in range(rng.choice([1, 1, 2])):
            if lo_dict > 0 and hi_dict > lo_dict and rng.random() < 0.75:
                lo = rng.randrange(lo_dict, min(hi_dict + 1, len(b)))
            else:
                lo = rng.randrange(6, min(end, len(b))) if min(end, len(b)) > 6 else 6
            lo = min(lo, len(b) - 1)
            op = rng.random()
            if op < 0.4:
                b[lo] = ord(rng.choice("0123456789 ,()[]'\"<>|:TrueFalse{}\n\r\t\\xLjb#"))
            elif op < 0.6:
                b[lo] ^= 1 << rng.randrange(8)
            elif op < 0.8:
                b.insert(lo, ord(rng.choice(" ,0'9L)")))
            else:
                del b[lo]
        new, label = bytes(b), "npy-header-mutate"
    elif r < 0.24:
        def respell(t):
            try:
                d = ast.literal_eval(t)
            except Exception:  # noqa: BLE001
                return None
            if not isinstance(d, dict):
                return None
            items = list(d.items())
            rng.shuffle(items)
            q = rng.choice(["'", '"'])
            sp = rng.choice(["", " ", "  "])
            parts = []
            for k, v in items:
                if k == "shape" and isinstance(v, tuple) and v:
                    v = "(" + ("," + sp).join(str(x) for x in v) + ("," if len(v) == 1 or rng.random() < 0.3 else "") + ")"
                elif isinstance(v, str):
                    v = q + v + q
                else:
                    v = repr(v)
                parts.append(q + k + q + ":" + sp + v)
            return "{" + sp + ("," + sp).join(parts) + rng.choice(["", ",", ", "]) + sp + "}"
        new = rewrite_header(content, respell)
        label = "npy-header-respell"
    elif r < 0.3:
        d = rng.choice(DESCRS)
        new = rewrite_header(content, lambda t: re.sub(r"'descr': ('[^']*'|\[.*\])(?=, 'fortran)", lambda _: "'descr': " + d, t, count=1))
        label = "npy-descr-swap"
    elif r < 0.38:
        new = rewrite_header(content, lambda t: t.replace("False", "@").replace("True", "False").replace("@", "True"))
        label = "npy-fortran-toggle"
    elif r < 0.48:
        def reshape(t):
            m = re.search(r"'shape': \(([^)]*)\)", t)
            if not m:
                return None
            try:
                dims = [int(x) for x in m.group(1).split(",") if x.strip()]
            except ValueError:  # an earlier edit left it unreadable
                return None
            n = int(np.prod(dims, dtype=np.int64)) if dims else 1
            opts = [tuple(reversed(dims)), (n,), (1, n), (n, 1), (), (n + 1,), (max(n - 1, 0),), (2 * n,), (0,)]
            s = rng.choice(opts)
            return t[:m.start()] + "'shape': " + repr(tuple(s)) + t[m.end():]
        new = rewrite_header(content, reshape)
        label = "npy-shape-change"
    elif r < 0.56:
        new, label = content + rng.choice([b"\x00", rng.randbytes(rng.randint(1, 100)), b"\x00" * 5000]), "npy-trailing"
    elif r < 0.62:
        new, label = content[: rng.randrange(len(content))], "npy-truncate"
    elif r < 0.7:
        major = rng.choice([1, 2, 3])
        text = content[10 if content[6] == 1 else 12: end]
        if major == 1 and len(text) > 0xFFFF:
            return None
        hlen = 10 if major == 1 else 12
        body = text.rstrip(b" \n")
        pad = (-(hlen + len(body) + 1)) % 64
        body = body + b" " * pad + b"\n"
        field = struct.pack("<H", len(body)) if major == 1 else struct.pack("<I", len(body))
        new, label = b"\x93NUMPY" + bytes([major, 0]) + field + body + content[end:], "npy-version"
    elif r < 0.74:
        new, label = rng.choice([b"plain text\n", b"", b"\x93NUMP", rng.randbytes(20), b"PK\x03\x04"]), "npy-not-npy"
    elif r < 0.84:
        b = bytearray(content)
        if len(b) > end:
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(end, len(b))] = rng.randrange(256)
        new, label = bytes(b), "npy-payload-mutate"
    else:
        # Re-store with a different method or deflate stream form.
        m = A.members[i]
        kind = rng.random()
        if kind < 0.35:
            meth = 8 if m.lh["method"] == 0 else 0
            set_content(A, i, content, data=compress(rng, meth, content), method=meth)
            return "recompress"
        if kind < 0.55:
            c = zlib.compressobj(rng.choice([0, 1, 9]), zlib.DEFLATED, -15)
            parts, k = [], 0
            while k < len(content):
                step = rng.randint(1, 300)
                parts.append(c.compress(content[k:k + step]) + c.flush(rng.choice([zlib.Z_SYNC_FLUSH, zlib.Z_FULL_FLUSH, zlib.Z_NO_FLUSH])))
                k += step
            data = b"".join(parts) + c.flush()
            set_content(A, i, content, data=data, method=8)
            return "deflate-blocks"
        if kind < 0.7:
            data = compress(rng, 8, content) + rng.choice([b"\x00", rng.randbytes(rng.randint(1, 20))])
            set_content(A, i, content, data=data, method=8)
            return "deflate-junk"
        if kind < 0.8:
            c = zlib.compressobj(6, zlib.DEFLATED, -15)
            data = c.compress(content) + c.flush(zlib.Z_SYNC_FLUSH)
            set_content(A, i, content, data=data, method=8)
            return "deflate-unterminated"
        delta = rng.choice([-1, 1, 10, -10, 5000])
        set_content(A, i, content, data=m.data, usize=max(0, len(content) + delta))
        return "usize-off"
    if new is None:
        return None
    set_content(A, i, new)
    return label


def e_deflate_mutate(rng, A):
    """Mutated deflate data; CRC and size are what zlib decodes from it (when it does)."""
    cands = [i for i in npy_members(A) if A.members[i].lh["method"] == 8 and A.members[i].data]
    if not cands:
        return None
    i = rng.choice(cands)
    m = A.members[i]
    d = bytearray(m.data)
    for _ in range(rng.randint(1, 3)):
        k = rng.randrange(len(d))
        if rng.random() < 0.7:
            d[k] ^= 1 << rng.randrange(8)
        else:
            d[k] = rng.randrange(256)
    try:
        out = zlib.decompressobj(-15).decompress(bytes(d))
    except zlib.error:
        set_content(A, i, content_of(A, i), data=bytes(d))
        return "deflate-mutate-invalid"
    set_content(A, i, out, data=bytes(d))
    return "deflate-mutate"


EDITS = [
    (e_prefix, 5), (e_gap, 5), (e_trailing, 4), (e_comment, 5), (e_zip64_end, 10), (e_central_zip64, 6),
    (e_local_zip64, 4), (e_mismatch, 10), (e_central_fields, 12), (e_directory, 7), (e_descriptor, 7),
    (e_name, 9), (e_content, 20), (e_deflate_mutate, 4),
]


# ======================================================== byte mutations ==
def mutate_bytes(rng, b, spans):
    b = bytearray(b)
    labels = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        if not b:
            break
        if spans and rng.random() < 0.6:
            s, e = rng.choice(spans)
            at = rng.randrange(s, max(s + 1, min(e, len(b)))) if s < len(b) else rng.randrange(len(b))
        else:
            at = rng.randrange(len(b))
        at = min(at, len(b) - 1)
        op = rng.random()
        if op < 0.35:
            b[at] ^= 1 << rng.randrange(8)
            labels.append("mut-bitflip")
        elif op < 0.6:
            b[at] = rng.choice([0, 0xFF, 0x7F, 0x80, 1, rng.randrange(256)])
            labels.append("mut-byte")
        elif op < 0.75:
            b[at:at] = rng.randbytes(rng.choice([1, 1, 2, 4]))
            labels.append("mut-insert")
        elif op < 0.9:
            del b[at:at + rng.choice([1, 1, 2, 4])]
            labels.append("mut-delete")
        else:
            k = rng.randint(1, 16)
            src = rng.randrange(len(b))
            b[at:at] = b[src:src + k]
            labels.append("mut-duplicate")
    return bytes(b), labels


def truncate(rng, b):
    if not b:
        return b, "truncate"
    if rng.random() < 0.5:
        return b[: rng.randrange(len(b))], "truncate"
    return b[: max(0, len(b) - rng.randint(1, 30))], "truncate-tail"


def generate(rng, checked):
    data, tags = make_base(rng)
    history = list(tags)
    A = parse_zip(data)
    if not checked[0] or rng.random() < 0.02:
        # The model reproduces zipfile's bytes exactly (checked now and then).
        again, _ = serialise(A)
        if again != data:
            raise SystemExit("internal error: the zip model does not reproduce a base archive (%s)" % tags)
        checked[0] = True
    k = rng.choices([0, 1, 2, 3], [0.2, 0.45, 0.25, 0.1])[0]
    fns = [f for f, _ in EDITS]
    weights = [w for _, w in EDITS]
    tries = 0
    while k > 0 and tries < 20:
        tries += 1
        f = rng.choices(fns, weights)[0]
        label = f(rng, A)
        if label:
            history.append(label)
            k -= 1
    b, spans = serialise(A)
    if rng.random() < 0.28:
        b, labels = mutate_bytes(rng, b, spans)
        history.extend(labels)
    if rng.random() < 0.05:
        b, label = truncate(rng, b)
        history.append(label)
    return b, history


# ================================================================ NumPy ==
class NumpyTimeout(BaseException):
    pass


def _alarm(signum, frame):
    raise NumpyTimeout()


def numpy_reading(b):
    """("opens", keys, [(descr, shape, hex)]) | ("raw", keys) | ("refuses", reason)."""
    signal.setitimer(signal.ITIMER_REAL, NUMPY_TIMEOUT)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            z = np.load(io.BytesIO(b), allow_pickle=False)
            if not isinstance(z, np.lib.npyio.NpzFile):
                return ("refuses", "np.load does not read it as an archive (%s)" % type(z).__name__)
            with z:
                keys = list(z.files)
                vals = [z[k] for k in keys]
                if any(isinstance(v, bytes) for v in vals):
                    return ("raw", keys)
                arrays = [(repr(np.lib.format.dtype_to_descr(v.dtype)), list(v.shape), v.tobytes().hex(),
                           field_mask(v.dtype)) for v in vals]
        return ("opens", keys, arrays)
    except NumpyTimeout:
        return ("refuses", "timeout (%.0f s)" % NUMPY_TIMEOUT)
    except Exception as e:  # noqa: BLE001
        return ("refuses", "%s: %s" % (type(e).__name__, str(e)[:200]))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


# ============================================================= npyguard ==
def build_batch(args):
    if args.bin:
        return args.bin
    if args.no_build:
        if not DEFAULT_BIN.exists():
            sys.exit("--no-build: %s does not exist" % DEFAULT_BIN)
        return str(DEFAULT_BIN)
    out = subprocess.run(["cargo", "build", "-q", "--release", "--features", "npz", "--example", "npz_batch",
                          "--message-format=json"], cwd=ROOT, stdout=subprocess.PIPE, check=True).stdout
    for line in out.decode().splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("target", {}).get("name") == "npz_batch":
            if msg.get("executable"):
                return msg["executable"]
    sys.exit("cargo build did not report the npz_batch executable")


def run_batch(exe, archives):
    with tempfile.NamedTemporaryFile(prefix="npyguard-npz-diff-", suffix=".bin", delete=False) as f:
        for b in archives:
            f.write(struct.pack("<I", len(b)) + b)
        path = f.name
    try:
        out = subprocess.run([exe, path], stdout=subprocess.PIPE, check=True).stdout
    finally:
        os.unlink(path)
    lines = out.decode("ascii").splitlines()
    if len(lines) != len(archives):
        raise RuntimeError("npz_batch printed %d lines for %d archives" % (len(lines), len(archives)))
    return [json.loads(line) for line in lines]


# ================================================================= main ==
def field_mask(dt):
    """For each byte of an item of dtype dt: 1 if some field covers it, 0 for padding."""
    if dt.subdtype is not None:
        base, shape = dt.subdtype
        return field_mask(base) * int(np.prod(shape, dtype=np.int64))
    if dt.names is None:
        return bytearray(b"\x01" * dt.itemsize)
    mask = bytearray(dt.itemsize)
    for name in dt.names:
        sub, off = dt.fields[name][:2]
        for k, bit in enumerate(field_mask(sub)):
            if bit and off + k < len(mask):
                mask[off + k] = 1
    return mask


def mask_padding(hexd, mask):
    """The payload with its padding bytes set to 0 (NumPy leaves them uninitialised)."""
    if all(mask) or not mask:
        return hexd
    b = bytearray.fromhex(hexd)
    n = len(mask)
    for i in range(len(b)):
        if not mask[i % n]:
            b[i] = 0
    return b.hex()


def compare(ng, npr):
    """Differences between npyguard's and NumPy's readings of an archive both open."""
    _, keys, arrays = npr
    if ng["keys"] != keys:
        return "keys: npyguard %r, NumPy %r" % (ng["keys"], keys)
    diffs = []
    if len(ng["arrays"]) != len(arrays):
        return "npyguard returns %d arrays for %d keys" % (len(ng["arrays"]), len(keys))
    for k, a, (descr, shape, hexd, mask) in zip(keys, ng["arrays"], arrays):
        if a["descr"] != descr:
            diffs.append("%r descr: npyguard %s, NumPy %s" % (k, a["descr"], descr))
        if a["shape"] != shape:
            diffs.append("%r shape: npyguard %s, NumPy %s" % (k, a["shape"], shape))
        ours, theirs = mask_padding(a["c_hex"], mask), mask_padding(hexd, mask)
        if ours != theirs:
            diffs.append("%r bytes: npyguard %s, NumPy %s" % (k, short(ours, 80), short(theirs, 80)))
    return "; ".join(diffs)


def short(s, n):
    return s if len(s) <= n else s[: n - 1] + "…"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=3000, help="archives (full run: 100000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=5000, help="archives per npz_batch run")
    ap.add_argument("--no-build", action="store_true", help="use target/release/examples/npz_batch as built")
    ap.add_argument("--bin", help="the npz_batch executable to use (no build)")
    ap.add_argument("--examples", type=int, default=5, help="examples printed per disagreement class")
    ap.add_argument("--dump", help="write every disagreement as DIR/<n>.npz and DIR/<n>.txt")
    args = ap.parse_args()

    t0 = time.time()
    exe = build_batch(args)
    t_build = time.time() - t0
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard == resource.RLIM_INFINITY or hard > ADDRESS_SPACE:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, hard))
    signal.signal(signal.SIGALRM, _alarm)
    rng = random.Random(args.seed)
    if args.dump:
        os.makedirs(args.dump, exist_ok=True)

    stats = Counter()
    sources = Counter()
    edit_counts = Counter()
    outcome_by_edit = defaultdict(Counter)
    deliberate_kind = Counter()
    deliberate_edit = Counter()
    raw_kind = Counter()
    np_refusals = Counter()
    failures = defaultdict(list)
    checked = [False]

    def check(b, history, ng):
        npr = numpy_reading(b)
        stats["archives"] += 1
        sources[history[0]] += 1
        edits = sorted(set(history[1:])) or ["(none)"]
        for e in edits:
            edit_counts[e] += 1
        if ng["ok"]:
            if npr[0] == "opens":
                diff = compare(ng, npr)
                outcome = "disagree" if diff else "agree"
                if diff:
                    failures["both open, different readings"].append((b, history, diff))
                else:
                    stats["both open and agree"] += 1
            elif npr[0] == "raw":
                outcome = "disagree"
                failures["npyguard opens, NumPy returns raw bytes"].append(
                    (b, history, "NumPy keys %r" % npr[1]))
            else:
                outcome = "disagree"
                failures["npyguard opens, NumPy refuses"].append(
                    (b, history, "NumPy: %s; npyguard keys %r" % (npr[1], ng["keys"])))
        else:
            if npr[0] == "opens":
                outcome = "deliberate"
                stats["NumPy opens, npyguard refuses (deliberate)"] += 1
                deliberate_kind[ng["kind"]] += 1
                for e in edits:
                    deliberate_edit[e] += 1
            elif npr[0] == "raw":
                outcome = "raw"
                stats["NumPy returns raw bytes, npyguard refuses"] += 1
                raw_kind[ng["kind"]] += 1
            else:
                outcome = "both refuse"
                stats["both refuse"] += 1
                np_refusals[npr[1].split(":")[0]] += 1
        for e in edits:
            outcome_by_edit[e][outcome] += 1

    done = 0
    while done < args.count:
        n = min(args.batch, args.count - done)
        batch = [generate(rng, checked) for _ in range(n)]
        results = run_batch(exe, [b for b, _ in batch])
        for (b, history), ng in zip(batch, results):
            check(b, history, ng)
        done += n
        if args.count >= 20_000:
            print("  %d archives, %.0f s" % (done, time.time() - t0), file=sys.stderr, flush=True)

    elapsed = time.time() - t0
    print("npz differential run: seed %d, %d archives, NumPy %s, Python %s, %.1f s (build %.1f s)"
          % (args.seed, stats["archives"], np.__version__, sys.version.split()[0], elapsed, t_build))
    nfail = sum(len(v) for v in failures.values())
    for k in ["archives", "both open and agree", "both refuse", "NumPy opens, npyguard refuses (deliberate)",
              "NumPy returns raw bytes, npyguard refuses"]:
        print("  %-55s %8d" % (k, stats[k]))
    print("  %-55s %8d" % ("DISAGREEMENTS", nfail))
    print("\nBy source:")
    for k, v in sorted(sources.items()):
        print("  %-30s %8d" % (k, v))
    print("\nBy edit kind (archives holding it: total = agree / both refuse / deliberate / raw / disagree):")
    for k, v in sorted(edit_counts.items()):
        o = outcome_by_edit[k]
        print("  %-30s %8d = %6d / %6d / %6d / %6d / %d" % (k, v, o["agree"], o["both refuse"], o["deliberate"],
                                                          o["raw"], o["disagree"]))
    print("\nDeliberate refusals by npyguard error kind:")
    for k, v in deliberate_kind.most_common():
        print("  %-30s %8d" % (k, v))
    print("\nDeliberate refusals by edit kind:")
    for k, v in deliberate_edit.most_common():
        print("  %-30s %8d" % (k, v))
    print("\nRaw-bytes archives (NumPy returns bytes) by npyguard error kind:")
    for k, v in raw_kind.most_common():
        print("  %-30s %8d" % (k, v))
    print("\nBoth refuse, by NumPy's exception:")
    for k, v in np_refusals.most_common(12):
        print("  %-50s %8d" % (short(k, 50), v))

    if nfail:
        print("\nFAILED: %d disagreements" % nfail)
        n_dump = 0
        for kind, cases in sorted(failures.items()):
            print("\n-- %s: %d" % (kind, len(cases)))
            for b, history, detail in sorted(cases, key=lambda c: len(c[0]))[: args.examples]:
                print("   edits: %s" % " + ".join(history))
                print("   %s" % short(detail, 400))
                print("   hex (%d bytes): %s" % (len(b), short(b.hex(), 4000)))
            if args.dump:
                for b, history, detail in cases:
                    n_dump += 1
                    Path(args.dump, "%d.npz" % n_dump).write_bytes(b)
                    Path(args.dump, "%d.txt" % n_dump).write_text(
                        "%s\nedits: %s\n%s\n" % (kind, " + ".join(history), detail), encoding="utf-8")
        return 1
    print("\nOK: 0 disagreements (every archive npyguard opens, NumPy opens and reads the same way).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
