#!/usr/bin/env python3
"""Writes the seeds of fuzz/corpus/npz/ (standard library only, deterministic).

    python3 fuzz/npz_seeds.py

* the .npz fixtures (tests/fixtures/npz/*.npz under 64 KiB), as they are;
* hand-made hostile archives (hostile-*): duplicate member names, a local header
  and a central directory that disagree, sizes that lie, a CRC that lies, two
  central entries sharing one member (overlap), more members than the fuzz
  limit (64), a non-.npy member, a data descriptor, truncation, trailing bytes,
  small deflate bombs (a member over the 1 MiB member limit, members over the
  4 MiB total, a non-.npy member of 8 MiB zeros), a deflated member whose
  declared size is smaller than what it decodes to;
* a few inputs for the structure-aware mode (first byte odd, then random bytes).

Like seeds.py, a seed whose content is already in the directory is not written
again, so it can be rerun after `cargo fuzz cmin npz` to add back the hostile seeds.
"""

import glob
import hashlib
import io
import os
import random
import struct
import zipfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fuzz", "corpus", "npz")
MAX_SEED = 64 * 1024


def npy(descr="'|u1'", shape="(4,)", payload=b"\x01\x02\x03\x04"):
    text = "{'descr': %s, 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    total = 10 + len(text) + 1
    pad = (-total) % 64
    text = text + " " * pad + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode("latin-1") + payload


def archive(members, method=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as z:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = method
            z.writestr(info, data)
    return bytearray(buf.getvalue())


def central_offset(b):
    end = b.rfind(b"PK\x05\x06")
    return struct.unpack_from("<I", b, end + 16)[0], end


def local_headers(b):
    out, i = [], 0
    while True:
        i = b.find(b"PK\x03\x04", i)
        if i < 0:
            return out
        out.append(i)
        i += 4


def central_headers(b):
    cd, _ = central_offset(b)
    out, i = [], cd
    while b[i:i + 4] == b"PK\x01\x02":
        out.append(i)
        n, e, c = struct.unpack_from("<HHH", b, i + 28)
        i += 46 + n + e + c
    return out


def hostile():
    a = npy()
    b = npy("'<f8'", "(2,)", struct.pack("<2d", 1.5, -0.0))
    seeds = {}
    seeds["hostile-stored-two"] = archive([("a.npy", a), ("b.npy", b)])
    seeds["hostile-deflated-two"] = archive([("a.npy", a), ("b.npy", b)], zipfile.ZIP_DEFLATED)
    seeds["hostile-empty"] = archive([])
    seeds["hostile-non-npy-member"] = archive([("a.npy", a), ("readme.txt", b"hello"), ("dir/", b"")])
    # Duplicate names (zipfile warns but writes both).
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seeds["hostile-duplicate-names"] = archive([("a.npy", a), ("a.npy", b)])
    # Local header name differs from the central directory's (same length).
    x = archive([("a.npy", a)])
    lh = local_headers(x)[0]
    x[lh + 30] = ord("b")
    seeds["hostile-local-name-mismatch"] = x
    # Central directory says the member is smaller / larger than it is (stored).
    for label, delta in (("smaller", -1), ("larger", 1)):
        x = archive([("a.npy", a)])
        for h, off in ((local_headers(x)[0], 18), (central_headers(x)[0], 20)):
            c, u = struct.unpack_from("<II", x, h + off)
            struct.pack_into("<II", x, h + off, c + delta, u + delta)
        seeds["hostile-size-" + label] = x
    # Deflated member whose declared uncompressed size is smaller than what it decodes to.
    x = archive([("a.npy", npy("'|u1'", "(256,)", bytes(256)))], zipfile.ZIP_DEFLATED)
    for h, off in ((local_headers(x)[0], 22), (central_headers(x)[0], 24)):
        struct.pack_into("<I", x, h + off, 100)
    seeds["hostile-deflate-size-lies"] = x
    # CRC that lies (both headers agree).
    x = archive([("a.npy", a)])
    for h, off in ((local_headers(x)[0], 14), (central_headers(x)[0], 16)):
        struct.pack_into("<I", x, h + off, 0xDEADBEEF)
    seeds["hostile-crc-lies"] = x
    # Two central entries for one member (overlapping members).
    x = archive([("a.npy", a), ("b.npy", a)])
    c0, c1 = central_headers(x)
    struct.pack_into("<I", x, c1 + 42, struct.unpack_from("<I", x, c0 + 42)[0])
    seeds["hostile-overlap"] = x
    # More members than the fuzz limit (64).
    seeds["hostile-65-members"] = archive([("m%d.npy" % i, a) for i in range(65)])
    # Data descriptor (flag bit 3) written by a streaming writer.
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        with z.open("a.npy", "w", force_zip64=False) as f:
            f.write(a)
    seeds["hostile-data-descriptor"] = bytearray(buf.getvalue())
    # Truncated, and trailing bytes.
    x = archive([("a.npy", a), ("b.npy", b)])
    seeds["hostile-truncated"] = x[: len(x) - 10]
    seeds["hostile-trailing"] = x + b"junk"
    # Deflate bombs, kept small: one member over the 1 MiB member limit, ...
    seeds["hostile-bomb-member"] = archive(
        [("a.npy", npy("'|u1'", "(2000000,)", bytes(2000000)))], zipfile.ZIP_DEFLATED)
    # ... five 1 MiB members (each within the member limit, 5 MiB over the 4 MiB total), ...
    one = npy("'|u1'", "(1048000,)", bytes(1048000))
    seeds["hostile-bomb-total"] = archive([("m%d.npy" % i, one) for i in range(5)], zipfile.ZIP_DEFLATED)
    # ... and a non-.npy member of 8 MiB zeros (only verify_member decodes it).
    seeds["hostile-bomb-non-npy"] = archive([("zeros.bin", bytes(8 << 20))], zipfile.ZIP_DEFLATED)
    # A header claiming 10^9 elements in a tiny member.
    seeds["hostile-claims-huge"] = archive([("a.npy", npy("'<f8'", "(1000000000,)", b""))])
    return seeds


def put(have, name, data):
    data = bytes(data)
    if len(data) > MAX_SEED:
        print("skipped (too large): %s, %d bytes" % (name, len(data)))
        return 0
    h = hashlib.sha1(data).hexdigest()
    if h in have:
        return 0
    have.add(h)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    return 1


def main():
    os.makedirs(OUT, exist_ok=True)
    have = set()
    for n in os.listdir(OUT):
        with open(os.path.join(OUT, n), "rb") as f:
            have.add(hashlib.sha1(f.read()).hexdigest())
    written = 0
    for p in sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "npz", "*.npz"))):
        with open(p, "rb") as f:
            written += put(have, "fixture-" + os.path.basename(p), f.read())
    for name, data in sorted(hostile().items()):
        written += put(have, name, data)
    rng = random.Random(20261130)
    for i in range(8):
        data = bytes([2 * rng.randrange(128) + 1]) + bytes(rng.randrange(256) for _ in range(rng.randrange(64, 512)))
        written += put(have, "structured-%d" % i, data)
    print("fuzz/corpus/npz: %d seeds written" % written)


if __name__ == "__main__":
    main()
