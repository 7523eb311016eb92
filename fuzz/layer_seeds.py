#!/usr/bin/env python3
"""Seeds for the layer targets (`datasets`, `render`, `compare`): fuzz/corpus/<target>/.

Each seed is one byte selecting the mode (even: raw .npy; odd: structure-aware) and the
rest. Raw seeds: a sample of the NumPy fixtures (every dtype family, C and F order) and
the hostile files the layers once failed on, built here: zero-size arrays with huge
dimensions ((2**40, 0), (0, 2**60), (0, 4_000_000), (2**31 - 1, 0)), records of item
size 0 with 2**40 elements, bool bytes other than 0/1. For `compare`, each raw seed is
also followed by a marker 0xff 0xff and a second file. Structure-aware seeds: a few
byte strings with an odd first byte.

    python3 fuzz/layer_seeds.py
"""

import random
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "npy"


def npy(header: str, payload: bytes = b"") -> bytes:
    pad = 64 - ((10 + len(header) + 1) % 64)
    text = header + " " * (pad % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode() + payload


HOSTILE = {
    "zero_rows_2p40": npy("{'descr': '|u1', 'fortran_order': False, 'shape': (1099511627776, 0), }"),
    "zero_cols_2p60": npy("{'descr': '|u1', 'fortran_order': False, 'shape': (0, 1152921504606846976), }"),
    "zero_cols_4e6": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4000000), }"),
    "zero_rows_f_order": npy("{'descr': '<f8', 'fortran_order': True, 'shape': (2147483647, 0), }"),
    "zero_3d": npy("{'descr': '<i4', 'fortran_order': False, 'shape': (4096, 0, 4096), }"),
    "itemsize0_records_2p40": npy("{'descr': [('a', '<f8', (0,))], 'fortran_order': False, 'shape': (1099511627776,), }"),
    "itemsize0_field_lists": npy("{'descr': [('a', '<f8', (65536, 0))], 'fortran_order': False, 'shape': (4,), }"),
    "bool_bytes": npy("{'descr': '|b1', 'fortran_order': False, 'shape': (2, 2), }", b"\x02\xff\x00\x01"),
}


def main():
    rng = random.Random(14)
    fixtures = sorted(FIXTURES.glob("*.npy"))
    sample = [p for p in fixtures if p.stat().st_size <= 4096]
    rng.shuffle(sample)
    sample = sample[:60]
    for target in ("datasets", "render", "compare"):
        out = ROOT / "fuzz" / "corpus" / target
        out.mkdir(parents=True, exist_ok=True)
        seeds = {name: data for name, data in HOSTILE.items()}
        for p in sample:
            seeds[p.stem] = p.read_bytes()
        for name, data in seeds.items():
            body = b"\x00" + data
            if target == "compare":
                other = seeds[rng.choice(sorted(seeds))]
                body += b"\xff\xff" + other
            (out / f"raw_{name}").write_bytes(body)
        for i in range(8):
            (out / f"structured_{i}").write_bytes(bytes([1]) + rng.randbytes(64 + 32 * i))


if __name__ == "__main__":
    main()
