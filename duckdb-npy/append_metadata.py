#!/usr/bin/env python3
"""Append DuckDB's extension metadata footer to a shared library.

DuckDB refuses to LOAD a file that does not end with this footer (534 bytes):

    22 bytes   a WebAssembly custom-section prefix (section id 0, LEB128 length 531,
               name length 16, name "duckdb_signature", LEB128 payload length 512)
    8 x 32     metadata fields, each ASCII padded with NULs to 32 bytes, written in
               this order: three unused fields, the ABI type, the extension version,
               the DuckDB version, the platform, and the magic "4"
    256        zero bytes where a signature would go (the extension is unsigned: load
               it with allow_unsigned_extensions)

With ABI type C_STRUCT the version field is the C API version the extension needs
(DuckDB loads it when its own C API is that version or newer, through the entry point
`<name>_init_c_api`, where <name> is the file name before `.duckdb_extension`); with
C_STRUCT_UNSTABLE it must equal the version of the DuckDB that loads the file.

Written for npyguard from the description of the format above (an independent
implementation of the step `append_extension_metadata.py` performs in DuckDB's
extension-ci-tools).

Usage: append_metadata.py LIBRARY OUT --duckdb-version v1.5.6 --platform linux_amd64
       [--extension-version 0.1.0] [--abi-type C_STRUCT]
"""
import argparse
import os
import sys

FIELD = 32


def field(text: str) -> bytes:
    raw = text.encode("ascii")
    if len(raw) > FIELD:
        sys.exit(f"metadata field too long (max {FIELD} bytes): {text!r}")
    return raw + b"\0" * (FIELD - len(raw))


def footer(abi: str, ext_version: str, duckdb_version: str, platform: str) -> bytes:
    name = b"duckdb_signature"
    payload = 8 * FIELD + 256  # 512
    # custom section: id 0, size = 1 (name length) + 16 (name) + 2 (payload LEB128) + payload
    size = 1 + len(name) + 2 + payload  # 531
    out = bytes([0]) + leb128(size) + bytes([len(name)]) + name + leb128(payload)
    for text in ("", "", "", abi, ext_version, duckdb_version, platform, "4"):
        out += field(text)
    out += b"\0" * 256
    return out


def leb128(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("library")
    ap.add_argument("out")
    ap.add_argument("--duckdb-version", required=True)
    ap.add_argument("--platform", required=True)
    ap.add_argument("--extension-version", default="0.1.0")
    ap.add_argument("--abi-type", default="C_STRUCT")
    a = ap.parse_args()
    with open(a.library, "rb") as f:
        lib = f.read()
    tmp = a.out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(lib)
        f.write(footer(a.abi_type, a.extension_version, a.duckdb_version, a.platform))
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
