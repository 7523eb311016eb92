"""npz members without copies, bombs refused before inflation, lazy row access
(npyguard.open), and the GIL released while bytes are decoded."""

import io
import os
import subprocess
import sys
import textwrap
import threading
import time
import zipfile

import numpy as np
import pytest

import npyguard


def _child(code: str) -> str:
    """Runs ``code`` in a fresh interpreter; returns its stdout (fails on its errors)."""
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


_HWM = """
def hwm():
    for line in open('/proc/self/status'):
        if line.startswith('VmHWM:'):
            return int(line.split()[1]) * 1024
def rss():
    for line in open('/proc/self/status'):
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) * 1024
"""

ARRAYS = [
    np.arange(24, dtype="<f8").reshape(4, 6),
    np.arange(24, dtype=">i4").reshape(4, 6),
    np.asfortranarray(np.arange(60, dtype="<u2").reshape(5, 4, 3)),
    np.array([(1, 2.5), (3, 4.5)], dtype=[("a", "<i2"), ("b", ">f8")]),
    np.array(["ab", "cde"], dtype="<U3"),
    np.array(7.5),
    np.zeros((0, 3), dtype="<f4"),
]


# -------------------------------------------------------------------- npz members


@pytest.mark.parametrize("compress", [False, True])
def test_npz_members_equal_np_load(tmp_path, compress):
    path = tmp_path / "a.npz"
    save = np.savez_compressed if compress else np.savez
    save(path, *ARRAYS)
    with np.load(path) as ref, npyguard.load_npz(path) as got:
        for key in ref.files:
            a, b = ref[key], got[key]
            assert a.dtype == b.dtype and a.shape == b.shape
            assert a.flags.f_contiguous == b.flags.f_contiguous
            assert a.tobytes("A") == b.tobytes("A")
            assert b.flags.writeable
            b[...] = b  # writable, owns its memory through its base


def test_npz_member_memory_at_most_its_size(tmp_path):
    """A 64 MiB member costs at most its size over the baseline (np.load's cost), not the
    three copies of decode, re-encode and copy."""
    path = tmp_path / "big.npz"
    n = 64 << 20
    np.savez(path, a=np.ones(n // 8, dtype="<f8"))
    out = _child(
        _HWM
        + f"""
import npyguard, numpy as np
f = npyguard.load_npz({str(path)!r})
base = rss()
a = f['a']
assert a.nbytes == {n} and float(a[-1]) == 1.0
print(hwm() - base)
"""
    )
    assert int(out) < n * 1.25, f"peak {int(out) / 2**20:.0f} MiB over the baseline for a 64 MiB member"


def _bomb(path, size, declared_ratio=None):
    """An archive whose one member (a .npy of zeros) inflates to ``size`` payload bytes."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "|u1", "fortran_order": False, "shape": (size,)}
    )
    zeros = bytes(1 << 22)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        with z.open("bomb.npy", "w", force_zip64=True) as f:
            f.write(header.getvalue())
            for _ in range(size // len(zeros)):
                f.write(zeros)


def test_bomb_refused_before_inflation(tmp_path):
    """A member whose declared size is past the ratio limit is refused before a byte is
    inflated: peak RSS stays that of the interpreter."""
    path = tmp_path / "bomb.npz"
    _bomb(path, 256 << 20)
    assert os.path.getsize(path) < (256 << 20) // 1000  # ratio > 1000
    out = _child(
        _HWM
        + f"""
import npyguard
f = npyguard.load_npz({str(path)!r})
try:
    f['bomb']
except npyguard.LimitError as e:
    print(e.kind, hwm())
else:
    raise SystemExit('not refused')
"""
    )
    kind, peak = out.split()
    assert kind == "compression-ratio"
    assert int(peak) < 64 << 20


def test_total_limit_refuses_before_inflation(tmp_path):
    path = tmp_path / "t.npz"
    np.savez_compressed(path, a=np.zeros(1 << 20, dtype="u1"))
    with npyguard.load_npz(path, max_total_bytes=1000) as f:
        with pytest.raises(npyguard.LimitError) as e:
            f["a"]
        assert e.value.kind == "total-too-large"


# ------------------------------------------------------------------- lazy rows


class Counting(io.RawIOBase):
    """A binary file object counting the bytes its read() returns."""

    def __init__(self, path):
        self.f = io.open(path, "rb")
        self.count = 0

    def readable(self):
        return True

    def seekable(self):
        return True

    def read(self, n=-1):
        b = self.f.read(n)
        self.count += len(b)
        return b

    def seek(self, off, whence=0):
        return self.f.seek(off, whence)

    def tell(self):
        return self.f.tell()

    def close(self):
        self.f.close()
        super().close()


@pytest.mark.parametrize("order", ["C", "F"])
def test_open_slices_equal_np_load(tmp_path, order):
    a = np.asarray(np.arange(20 * 3 * 2, dtype=">i4").reshape(20, 3, 2), order=order)
    path = tmp_path / "a.npy"
    np.save(path, a)
    ref = np.load(path)
    with npyguard.open(path) as h:
        assert h.shape == a.shape and h.dtype == a.dtype and len(h) == 20 and h.ndim == 3
        for key in [
            slice(2, 5), slice(None), slice(-3, None), slice(5, 2), slice(None, None, 3),
            slice(None, None, -1), slice(15, 2, -4), slice(100, 200), 0, 7, -1, -20,
            (slice(1, 4), 1), (3, 2, 1), (slice(0, 6, 2), Ellipsis, 0), Ellipsis,
        ]:
            got, want = h[key], ref[key]
            assert got.dtype == want.dtype and got.shape == want.shape, key
            assert np.array_equal(got, want), key
        for bad in (20, -21):
            with pytest.raises(IndexError):
                h[bad]
        assert np.array_equal(h.read(), ref) and np.array_equal(np.asarray(h), ref)
    with pytest.raises(ValueError):
        h[0:1]


def test_open_reads_only_the_rows(tmp_path):
    """``open(...)[a:b]`` reads the header and those rows' bytes, nothing else."""
    rows, row_bytes = 10_000, 1000 * 8
    a = np.arange(rows * 1000, dtype="<f8").reshape(rows, 1000)
    path = tmp_path / "a.npy"
    np.save(path, a)
    f = Counting(path)
    h = npyguard.open(f)
    header = f.count
    assert header < 4096
    part = h[5000:5010]
    assert np.array_equal(part, a[5000:5010])
    assert f.count - header == 10 * row_bytes
    # A Fortran file's rows are gathered: still only their bytes.
    np.save(path, np.asfortranarray(a))
    f = Counting(path)
    h = npyguard.open(f)
    header = f.count
    assert np.array_equal(h[100:103], a[100:103])
    assert f.count - header == 3 * row_bytes


def test_open_path_reads_only_the_rows(tmp_path):
    """The same through a path, counted by the kernel (/proc/self/io rchar)."""
    if not os.path.exists("/proc/self/io"):
        pytest.skip("no /proc/self/io")
    a = np.arange(4000 * 1000, dtype="<f8").reshape(4000, 1000)
    path = tmp_path / "a.npy"
    np.save(path, a)

    def rchar():
        with io.open("/proc/self/io") as f:
            for line in f:
                if line.startswith("rchar:"):
                    return int(line.split()[1])

    h = npyguard.open(path)
    before = rchar()
    part = h[1000:1002]
    read = rchar() - before
    assert np.array_equal(part, a[1000:1002])
    # Two rows (16 000 bytes), plus the reading of /proc/self/io itself.
    assert 16_000 <= read < 16_000 + 4096
    h.close()


def test_open_checks_like_load(tmp_path):
    path = tmp_path / "t.npy"
    np.save(path, np.arange(100, dtype="<i8"))
    path.write_bytes(path.read_bytes()[:-1])
    with pytest.raises(npyguard.FormatError):
        npyguard.open(path)
    with pytest.raises(FileNotFoundError):
        npyguard.open(tmp_path / "missing.npy")
    with pytest.raises(TypeError):
        npyguard.open(b"\x93NUMPY")


@pytest.mark.parametrize("compress", [False, True])
def test_open_npz_member_rows(tmp_path, compress):
    path = tmp_path / "a.npz"
    big = np.arange(3000 * 700, dtype="<i4").reshape(3000, 700)  # ~8 MiB: several chunks
    save = np.savez_compressed if compress else np.savez
    save(path, *ARRAYS, big=big)
    with npyguard.open(path) as archive, np.load(path) as ref:
        assert isinstance(archive, npyguard.NpzFile)
        for key in ref.files:
            want = ref[key]
            h = archive.open(key)
            assert h.shape == want.shape and h.dtype == want.dtype
            if want.ndim == 0:
                assert np.array_equal(h.read(), want)
                continue
            for sl in [slice(0, 2), slice(1, None), slice(None, None, -2), slice(-1, None)]:
                assert np.array_equal(h[sl], want[sl]), (key, sl)
        h = archive.open("big")
        for sl in [slice(2990, 3000), slice(100, 2500, 7), slice(1000, 1001)]:
            assert np.array_equal(h[sl], big[sl])


# --------------------------------------------------------------------------- GIL


def test_load_bytes_releases_the_gil():
    """Another thread runs while ``load(bytes)`` decodes."""
    data = io.BytesIO()
    np.save(data, np.zeros(64 << 20, dtype="u1"))
    blob = data.getvalue()
    ticks = []
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.0005)  # lets the GIL go: a load that releases it runs meanwhile

    t = threading.Thread(target=spin)
    try:
        t.start()
        time.sleep(0.05)
        inside = []
        for _ in range(3):
            start = time.perf_counter()
            npyguard.load(blob)
            end = time.perf_counter()
            inside.append(sum(1 for x in ticks if start < x < end))
    finally:
        stop.set()
        t.join()
    # Holding the GIL through the decode, the other thread gets no tick in; released, it
    # ticks every half millisecond or so.
    assert max(inside) >= 5, inside


def test_open_stored_npz_member_reads_only_the_rows(tmp_path):
    """A stored (np.savez) member of an archive opened from a path is read by range."""
    if not os.path.exists("/proc/self/io"):
        pytest.skip("no /proc/self/io")
    a = np.arange(4000 * 1000, dtype="<f8").reshape(4000, 1000)
    path = tmp_path / "a.npz"
    np.savez(path, a=a, b=np.asfortranarray(a))

    def rchar():
        with io.open("/proc/self/io") as f:
            for line in f:
                if line.startswith("rchar:"):
                    return int(line.split()[1])

    with npyguard.open(path) as z:
        for key in ("a", "b"):
            h = z.open(key)
            before = rchar()
            part = h[2000:2002]
            read = rchar() - before
            assert np.array_equal(part, a[2000:2002])
            # Two rows (16 000 bytes), the member's header read again, /proc/self/io.
            assert 16_000 <= read < 16_000 + 8192, (key, read)
