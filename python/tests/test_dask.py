"""The Dask recipe (python/examples/dask_ingest.py) on a LocalCluster of worker processes on
loopback: 200 files of which 20 hostile; bad files reported per file with the kind their
name gives, no worker crash, good files equal to NumPy's values."""

from __future__ import annotations

import importlib.util
import shutil

import numpy as np
import pytest

from conftest import HOSTILE, ROOT

distributed = pytest.importorskip("distributed")

spec = importlib.util.spec_from_file_location("dask_ingest", ROOT / "python" / "examples" / "dask_ingest.py")
dask_ingest = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dask_ingest)


def make_directory(tmp_path):
    rng = np.random.default_rng(20)
    expected, kinds = [], {}
    hostile = [p for p in HOSTILE if p.name.startswith("n_")]
    # 20 hostile files: the suite's own, then made-up ones (over the size limit, truncated).
    for i in range(20):
        path = tmp_path / f"f{i * 10 + 3:03d}.npy"
        if i < min(len(hostile), 17):
            shutil.copy(hostile[i], path)
            kinds[str(path)] = hostile[i].name[2:].split("__")[0]
    # 180 good files of 7..60 rows x 5 f8 columns, NaN and -0.0 included.
    for i in range(200):
        path = tmp_path / f"f{i:03d}.npy"
        if path.exists():
            continue
        if i % 10 == 3:  # a hostile slot not filled from the suite
            if i % 20 == 3:
                np.save(path, np.zeros((1 << 20) // 8 * 65))  # 65 MiB > max_file_bytes
                kinds[str(path)] = "file-too-large"
            else:
                np.save(path, np.ones((10, 5)))
                path.write_bytes(path.read_bytes()[:-3])
                kinds[str(path)] = "truncated"
            continue
        a = rng.standard_normal((int(rng.integers(7, 60)), 5))
        a[0, i % 5] = np.nan
        a[-1, 0] = -0.0
        np.save(path, a if i % 3 else np.asfortranarray(a))
        expected.append(a)
    return sorted(str(p) for p in tmp_path.glob("*.npy")), expected, kinds


def test_dask_ingest(tmp_path):
    from dask.distributed import Client, LocalCluster

    paths, expected, kinds = make_directory(tmp_path)
    assert len(paths) == 200 and len(kinds) == 20 and len(expected) == 180
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        pids = client.run(lambda: __import__("os").getpid())
        assert len(pids) == 2
        array, bad = dask_ingest.ingest(paths, client)
        got = array.compute()
        # The same rows as a dask dataframe (one column per NumPy column).
        import dask.dataframe as dd

        frame = dd.from_dask_array(array, columns=[f"c{i + 1}" for i in range(5)]).compute()
        # No worker died or was restarted.
        assert client.run(lambda: __import__("os").getpid()) == pids
    assert {r["path"]: r["kind"] for r in bad} == kinds
    for r in bad:
        assert r["message"] and r["category"] in ("format", "limit")
    want = np.concatenate(expected, axis=0)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()  # bit for bit: NaN payloads, -0.0
    assert np.ascontiguousarray(frame.to_numpy()).tobytes() == want.tobytes()
