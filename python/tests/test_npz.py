"""load_npz against np.load on every .npz fixture; laziness, archive limits, context manager."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest

import npyguard
from conftest import NPZ_FIXTURES
from test_load import assert_same


@pytest.mark.parametrize("path", NPZ_FIXTURES, ids=lambda p: p.name)
def test_npz_equals_np_load(path):
    with np.load(path, allow_pickle=False) as expected:
        for source in (path, str(path), path.read_bytes()):
            with npyguard.load_npz(source) as got:
                assert got.files == expected.files
                assert list(got) == list(expected.keys())
                assert len(got) == len(expected.files)
                for name in expected.files:
                    assert name in got and f"{name}.npy" in got
                    assert_same(got[name], expected[name])
                    assert_same(got[f"{name}.npy"], expected[name])
                    assert got.header(name)["shape"] == expected[name].shape


def _archive(members, compressed=False):
    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buf, **members)
    return buf.getvalue()


def _corrupt_member(data: bytes, name: str) -> bytes:
    """Flips the last payload byte of member `name` (its CRC then mismatches)."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        info = z.getinfo(name)
    # Local header: 30 bytes + name + extra; the stored data follows.
    start = info.header_offset
    n = int.from_bytes(data[start + 26 : start + 28], "little")
    m = int.from_bytes(data[start + 28 : start + 30], "little")
    end = start + 30 + n + m + info.compress_size - 1
    return data[:end] + bytes([data[end] ^ 0xFF]) + data[end + 1 :]


def test_only_the_requested_member_is_read():
    data = _archive({"good": np.arange(5), "bad": np.arange(7.0)})
    data = _corrupt_member(data, "bad.npy")
    with npyguard.load_npz(data) as z:
        assert z.files == ["good", "bad"]
        assert z["good"].tolist() == [0, 1, 2, 3, 4]
        with pytest.raises(npyguard.FormatError) as e:
            z["bad"]
        assert e.value.kind == "crc-mismatch"
        assert z["good"].tolist() == [0, 1, 2, 3, 4]


def test_archive_limits():
    data = _archive({"a": np.zeros(1000), "b": np.ones(3)}, compressed=True)
    with pytest.raises(npyguard.LimitError) as e:
        npyguard.load_npz(data, max_members=1)
    assert e.value.kind == "too-many-members"
    with npyguard.load_npz(data, max_ratio=2) as z, pytest.raises(npyguard.LimitError) as e:
        z["a"]
    assert e.value.kind == "compression-ratio"
    with npyguard.load_npz(data, max_file_bytes=1000) as z:
        with pytest.raises(npyguard.LimitError) as e:
            z["a"]
        assert e.value.kind == "file-too-large"
        assert z["b"].tolist() == [1.0, 1.0, 1.0]


def test_missing_member_and_closed_archive():
    z = npyguard.load_npz(_archive({"x": np.arange(2)}))
    with pytest.raises(KeyError):
        z["y"]
    with z:
        pass
    with pytest.raises(ValueError):
        z["x"]


def test_not_an_archive():
    buf = io.BytesIO()
    np.save(buf, np.arange(3))
    with pytest.raises(npyguard.FormatError):
        npyguard.load_npz(buf.getvalue())
