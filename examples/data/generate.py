#!/usr/bin/env python3
"""Writes the example files used by README.md (deterministic). Run: python3 examples/data/generate.py"""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
t = np.array([[21.5, 22.25, 19.0, float("nan")], [18.75, -3.5, 0.0, 25.125], [30.0, 29.5, 28.75, 27.0]], dtype="<f8")
np.save(os.path.join(here, "temperatures.npy"), t)
r = np.zeros(3, dtype=[("station", "S8"), ("id", "<u4"), ("pos", "<f4", (2,))])
r["station"] = [b"oslo", b"lima", b"perth"]
r["id"] = [7, 4294967295, 12]
r["pos"] = [[59.9, 10.7], [-12.0, -77.0], [-31.9, 115.8]]
np.save(os.path.join(here, "stations.npy"), r)
# Fortran order, big-endian, values above 2^53 that f64 cannot hold exactly.
np.save(os.path.join(here, "counts_fortran.npy"), np.asfortranarray(np.arange(12, dtype=">i8").reshape(3, 4) * (2**53 + 1 - 11)))
