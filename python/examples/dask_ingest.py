"""Ingest a directory of untrusted .npy files on a Dask cluster, with npyguard's limits.

Recipe (README: "Python: scale-out with Dask"):

1. Check every file on the workers (`check_file`): npyguard reads it completely under the
   limits and reports either its shape and dtype or its error as plain data. A hostile
   file raises a typed ``npyguard.Error`` inside the task, which is caught and returned:
   it never fails the task, never kills a worker (memory stays within ``max_file_bytes``:
   a file claiming terabytes is refused from its header), and every bad file is reported
   with its kind, byte offset and message.
2. Build one dask array from the good files: one ``npyguard.load`` task per file,
   concatenated along the first axis (files whose dtype or trailing shape differ from the
   majority are reported as mismatched, not loaded).

Run:  python python/examples/dask_ingest.py DIR [N_WORKERS]
"""

from __future__ import annotations

import collections
import os
import sys
from typing import Any, Dict, List, Tuple

import dask
import dask.array as da

import npyguard

#: The limits every worker applies (per file).
LIMITS: Dict[str, Any] = {"max_file_bytes": 64 << 20}


def check_file(path: str, limits: Dict[str, Any] = LIMITS) -> Dict[str, Any]:
    """Runs on a worker: reads `path` completely under `limits`; never raises for a bad file."""
    err = npyguard.validate(path, **limits)
    if err is not None:
        return {"path": path, "ok": False, "kind": err.kind, "category": err.category,
                "offset": err.offset, "message": str(err)}
    header = npyguard.inspect(path, **limits)
    return {"path": path, "ok": True, "shape": header["shape"], "dtype": header["dtype"].str}


def ingest(paths: List[str], client, limits: Dict[str, Any] = LIMITS) -> Tuple[da.Array, List[Dict[str, Any]]]:
    """Checks `paths` on `client`'s workers; returns (the good files as one dask array
    concatenated along axis 0, in `paths` order, the reports of the files left out)."""
    reports = client.gather(client.map(check_file, paths, limits=limits, pure=False))
    good = [r for r in reports if r["ok"] and len(r["shape"]) >= 1]
    bad = [r for r in reports if not r["ok"]]
    # The majority's dtype and trailing shape; the others are reported, not loaded.
    common = collections.Counter((r["dtype"], tuple(r["shape"][1:])) for r in good).most_common(1)
    keep = []
    for r in good:
        if (r["dtype"], tuple(r["shape"][1:])) == common[0][0]:
            keep.append(r)
        else:
            bad.append({**r, "ok": False, "kind": "mismatch",
                        "message": f"dtype/shape {r['dtype']} {r['shape']} differs from {common[0][0]}"})
    for r in reports:
        if r["ok"] and len(r["shape"]) == 0:
            bad.append({**r, "ok": False, "kind": "mismatch", "message": "a 0-d array"})
    load = dask.delayed(npyguard.load, pure=True)
    parts = [da.from_delayed(load(r["path"], **limits), shape=tuple(r["shape"]), dtype=r["dtype"])
             for r in keep]
    array = da.concatenate(parts, axis=0) if parts else da.empty((0,))
    return array, bad


def main(directory: str, n_workers: int = 2) -> None:
    from dask.distributed import Client, LocalCluster

    paths = sorted(os.path.join(directory, f) for f in os.listdir(directory) if f.endswith(".npy"))
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address=None) as cluster, Client(cluster) as client:
        array, bad = ingest(paths, client)
        for r in bad:
            print(f"{r['path']}: {r['message']}")
        print(f"{len(paths) - len(bad)} good files: {array.shape} {array.dtype}")
        print("sum:", float(array.sum().compute()))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 2)
