#!/usr/bin/env python3
"""Writes tests/adversarial/*.npy: a handful of representative whole files (deterministic).

Names follow tests/headers/: y_<desc>.npy must read, n_<kind>__<desc>.npy must be refused
with the error kind <kind> (ErrorKind::name()), i_<desc>.npy may go either way. The y_ files
are written by NumPy itself; the n_ files are built byte by byte. tests/adversarial.rs reads
every file with read_bytes, read_from and read_path under a counting allocator, and derives
thousands more cases from the y_ files (truncation at every byte, header-length lies, NUL at
every header byte, non-ASCII whitespace, invalid UTF-8, ...), so only representatives are
committed here.

Run: python3 tests/numpy/gen_adversarial.py   (needs NumPy; rewrites the directory)
"""
import io
import os
import struct

import numpy as np
import numpy.lib.format as npformat

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "adversarial")
files = {}


def add(name, data):
    assert name[:2] in ("y_", "n_", "i_") and name not in files, name
    files[name + ".npy"] = data


def saved(arr, version=None):
    b = io.BytesIO()
    if version is None:
        np.save(b, arr)
    else:
        npformat.write_array(b, arr, version=version)
    return b.getvalue()


def npy(version, header, payload=b""):
    """Preamble for `version` (1, 2 or 3) with the real length of `header`, then header and payload."""
    if isinstance(header, str):
        header = header.encode("latin-1" if version < 3 else "utf-8")
    n = struct.pack("<H" if version == 1 else "<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + n + header + payload


def d(descr="'<f8'", shape="(2,)", fo="False"):
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, }\n" % (descr, fo, shape)


# ------------------------------------------------------------------- y_ --
add("y_f8_2x3", saved(np.arange(6, dtype="<f8").reshape(2, 3) / 4))
add("y_i2_big_endian_fortran", saved(np.asfortranarray(np.arange(12, dtype=">i2").reshape(3, 4) - 6)))
add("y_u1_1d", saved(np.arange(17, dtype="u1")))
add("y_c16_0d", saved(np.array(1.5 - 2.25j, dtype="<c16")))
add("y_f4_empty_0x3", saved(np.zeros((0, 3), dtype="<f4")))
add("y_M8_ns", saved(np.array(["2024-02-29T12:00", "NaT"], dtype="<M8[ns]")))
add("y_U5_big_endian", saved(np.array(["héllo", "", "日本"], dtype=">U5")))
rec = np.dtype({"names": ["id", "pos", "tag"], "formats": ["<u4", ("<f4", (2,)), "S3"],
                "titles": [None, "position", None], "offsets": [0, 8, 16], "itemsize": 24})
r = np.zeros(2, dtype=rec)
r["id"] = [7, 4294967295]
r["pos"] = [[1.5, -2.0], [0.0, 3.25]]
r["tag"] = [b"ab", b"xyz"]
add("y_record_title_padding_subarray", saved(r))
add("y_latin1_field_name", saved(np.zeros(2, dtype=[("\xe9t\xe9", "<i4")])))  # 1.0: byte 0xE9
utf = saved(np.zeros(2, dtype=[("\u65e5\u672c", "<i4")]))
assert utf[6] == 3
add("y_utf8_field_name__v3", utf)
add("y_version_2_0__v2", saved(np.arange(3, dtype="<i8"), version=(2, 0)))
add("y_python2_long_dims", npy(1, d(shape="(2L, 1L)"), b"\0" * 16))

# ------------------------------------------------------------------- i_ --
add("i_extra_key", npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'meta': 'x', }\n", b"\0" * 8))

# ------------------------------------------------------------------- n_ --
good = saved(np.arange(4, dtype="<f8"))
add("n_truncated__payload_one_byte_short", good[:-1])
add("n_truncated__inside_header", good[:40])
add("n_truncated__inside_magic", good[:4])
add("n_truncated__claims_8TiB", npy(1, d(shape="(1099511627776,)"), b"\0" * 64))
add("n_truncated__claims_2GiB_strings", npy(1, d(descr="'|S2147483647'", shape="(1,)"), b"x" * 16))
add("n_truncated__header_len_past_eof", b"\x93NUMPY\x01\x00\xe8\x03{'descr': '<f8'")
add("n_header-too-long__len_4GiB__v2", b"\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr'")
add("n_shape-overflow__2p32_by_2p32", npy(1, d(shape="(4294967296, 4294967296)")))
add("n_shape-overflow__zero_and_2p62", npy(1, d(shape="(0, 4611686018427387904)")))
add("n_shape-overflow__65_dims", npy(1, d(shape="(" + "1, " * 65 + ")")))
add("n_nesting-too-deep__list_bomb", npy(1, "{'descr': " + "[" * 5000))
add("n_nesting-too-deep__record_16_deep", npy(1, d(descr="[('a', " * 16 + "'<f8'" + ")]" * 16), b"\0" * 16))
add("n_header-encoding__invalid_utf8__v3", npy(3, d(descr="[('a\xffb', '<f8')]").encode("latin-1"), b"\0" * 16))
add("n_header-encoding__utf8_surrogate__v3", npy(3, d(descr="[('\xed\xa0\x80', '<f8')]").encode("latin-1"), b"\0" * 16))
add("n_header-encoding__nul_in_padding", npy(1, d().replace("\n", " \0\n"), b"\0" * 16))
add("n_header-syntax__bom__v3", npy(3, "\ufeff" + d(), b"\0" * 16))
add("n_header-syntax__nbsp_between_tokens__v3", npy(3, d().replace(": ", ":\u00a0", 1), b"\0" * 16))
add("n_header-syntax__latin1_nbsp_between_tokens", npy(1, d().replace(": ", ":\xa0", 1), b"\0" * 16))
add("n_header-syntax__line_separator__v3", npy(3, d().replace(", ", ",\u2028", 1), b"\0" * 16))
add("n_header-syntax__vertical_tab", npy(1, d().replace(", ", ",\x0b", 1), b"\0" * 16))
add("n_trailing-bytes__zip_polyglot", good + b"PK\x05\x06" + b"\0" * 18)
add("n_bad-magic__png", b"\x89PNG\r\n\x1a\n" + good[8:])
add("n_unsupported-version__4_0", b"\x93NUMPY\x04\x00" + good[8:])
add("n_unsupported-dtype__object_pickle", npy(1, d(descr="'|O'", shape="(1,)"), b"\0" * 8))
add("n_duplicate-key__descr_twice", npy(1, "{'descr': '<f8', 'descr': '<i8', 'fortran_order': False, 'shape': (2,), }\n",
                                         b"\0" * 16))

os.makedirs(OUT, exist_ok=True)
for f in os.listdir(OUT):
    if f.endswith(".npy"):
        os.remove(os.path.join(OUT, f))
for name, data in sorted(files.items()):
    with open(os.path.join(OUT, name), "wb") as fh:
        fh.write(data)
print("%d files in tests/adversarial/" % len(files))
