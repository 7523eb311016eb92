#!/usr/bin/env python3
"""Writes the small fixtures of the SQLLogicTests (duckdb-npy/test/data/), with np.save.

Deterministic; the files are committed. Run after changing this script:
    python3 tests/numpy/gen_duckdb_sqltest_data.py
"""
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[2] / "duckdb-npy" / "test" / "data"


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    np.save(OUT / "a.npy", np.arange(6, dtype="<f8").reshape(3, 2))
    np.save(OUT / "b.npy", np.arange(4, dtype="<f8").reshape(2, 2) + 100)
    np.save(OUT / "wide.npy", np.asfortranarray(np.arange(6, dtype=">f8").reshape(2, 3) + 200))
    np.save(OUT / "i4.npy", np.array([1, 2, 3, 4], dtype="<i4"))
    np.save(OUT / "days.npy", np.array(["2020-01-01", "NaT", "1970-01-02"], dtype="<M8[D]"))
    np.save(OUT / "emb.npy", np.arange(12, dtype="<f4").reshape(4, 3) / 4)
    np.save(OUT / "bad_stamp.npy", np.array([0, 10**15], dtype="<i8").view("<M8[s]"))
    np.savez(OUT / "two.npz", x=np.arange(3, dtype="<i8"), y=np.ones((2, 2), dtype="<f4"))
    np.savez_compressed(OUT / "one.npz", only=np.array([True, False, True]))
    (OUT / "not_npy.npy").write_bytes(b"\x93NUMPY\x01\x00garbage")


if __name__ == "__main__":
    main()
