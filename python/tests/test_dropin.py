"""npyguard.load as a drop-in for np.load: its keywords and exceptions, run through both.

Each case of the tables below is run through ``np.load`` and ``npyguard.load`` with the same
arguments: where NumPy raises, npyguard raises an instance of NumPy's exception class (it may
be a subclass: every npyguard error is also an ``npyguard.Error``); where NumPy returns,
npyguard returns the same thing (the same class: ndarray, memmap or an archive, and an equal
array: dtype, shape, memory order, bytes). The deliberate differences have tests of their own
(``test_deviation_*``).
"""

from __future__ import annotations

import errno
import io
import os
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

import npyguard
from conftest import NPY_FIXTURES
from test_load import assert_same

BIG = 1 << 24


# ------------------------------------------------------------------------------ helpers


def _npy(array, **save_kw) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, **save_kw)
    return buf.getvalue()


RECORD = np.array([(1, 2.5), (3, 4.5)], dtype=[("id", "<i4"), ("v", ">f8")])
PLAIN = np.arange(10.0)
PLAIN_BYTES = _npy(PLAIN)
WIDE = np.zeros(3, dtype=[(f"f{'x' * 20}{i}", "<f8") for i in range(600)])  # a 22 198-char header


def _same_result(got, expected) -> None:
    """``got`` (npyguard) is what ``expected`` (NumPy) is."""
    if isinstance(expected, np.lib.npyio.NpzFile):
        assert isinstance(got, npyguard.NpzFile)
        assert got.files == expected.files
        for name in expected.files:
            assert_same(got[name], expected[name])
        return
    assert type(got) is type(expected)
    if isinstance(expected, np.memmap):
        assert got.dtype == expected.dtype and got.dtype.str == expected.dtype.str
        assert got.shape == expected.shape and got.strides == expected.strides
        assert got.flags.writeable == expected.flags.writeable
        assert got.flags.c_contiguous == expected.flags.c_contiguous
        assert got.flags.f_contiguous == expected.flags.f_contiguous
        assert got.mode == expected.mode and got.offset == expected.offset
        assert got.tobytes(order="A") == expected.tobytes(order="A")
        return
    assert_same(got, expected)


def _outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return None, e


def _compare(make_args, kwargs) -> None:
    """Runs np.load and npyguard.load on fresh arguments from ``make_args()``."""
    n_args = make_args()
    expected, n_err = _outcome(lambda: np.load(*n_args, **kwargs))
    g_args = make_args()
    got, g_err = _outcome(lambda: npyguard.load(*g_args, **kwargs))
    try:
        if n_err is not None:
            assert g_err is not None, f"np.load raised {n_err!r}; npyguard.load returned {got!r}"
            assert isinstance(g_err, type(n_err)), (n_err, g_err)
            if isinstance(g_err, npyguard.Error):
                assert isinstance(g_err, ValueError)
        else:
            assert g_err is None, f"np.load returned; npyguard.load raised {g_err!r}"
            _same_result(got, expected)
    finally:
        for obj in (*n_args, *g_args, expected, got):
            if hasattr(obj, "close"):
                obj.close()


# ------------------------------------------------------------------------ the case table


def _cases(tmp: Path, write: bool = True):
    """(case id, function giving fresh positional args, keyword args); the files are
    written in ``tmp`` unless ``write`` is false (for the ids alone)."""

    def path(name, data):
        p = tmp / name
        if write:
            p.write_bytes(data)
        return lambda: (str(p),)

    def stream(data):
        return lambda: (io.BytesIO(data),)

    def real_file(name, data):
        p = tmp / name
        if write:
            p.write_bytes(data)
        return lambda: (open(p, "rb"),)

    def bytearray_stream(data):
        # A file object whose read() returns bytearray (np.load takes it).
        class _Reader(io.BytesIO):
            def read(self, n=-1):
                return bytearray(super().read(n))

        return lambda: (_Reader(data),)

    plain = path("plain.npy", PLAIN_BYTES)
    record = path("record.npy", _npy(RECORD))
    fortran = path("fortran.npy", _npy(np.asfortranarray(np.arange(12.0).reshape(3, 4))))
    wide = path("wide.npy", _npy(WIDE))
    obj = path("object.npy", _npy(np.array([1, None], dtype=object), allow_pickle=True))
    pickled = path("pickled.npy", pickle.dumps([1, 2, 3]))
    bad_magic = path("bad_magic.npy", b"\x93NUMPX" + PLAIN_BYTES[6:])
    empty = path("empty.npy", b"")
    npz_buf = io.BytesIO()
    np.savez(npz_buf, a=np.arange(3), b=RECORD)
    npz = path("arch.npz", npz_buf.getvalue())
    cases = [
        # np.load's keywords, on a valid file.
        ("path", plain, {}),
        ("pathlib", lambda: (tmp / "plain.npy",), {}),
        ("record", record, {}),
        ("fortran", fortran, {}),
        ("stream", stream(PLAIN_BYTES), {}),
        ("real-file", real_file("plain2.npy", PLAIN_BYTES), {}),
        ("mmap_mode=r", plain, {"mmap_mode": "r"}),
        ("mmap_mode=r+", plain, {"mmap_mode": "r+"}),
        ("mmap_mode=c", plain, {"mmap_mode": "c"}),
        ("mmap_mode=readonly", plain, {"mmap_mode": "readonly"}),
        ("mmap positional r", lambda: (*plain(), "r"), {}),
        ("mmap fortran", fortran, {"mmap_mode": "r"}),
        ("mmap record", record, {"mmap_mode": "r"}),
        ("mmap bad mode", plain, {"mmap_mode": "x"}),
        ("mmap real file object", real_file("plain3.npy", PLAIN_BYTES), {"mmap_mode": "r"}),
        ("mmap BytesIO", stream(PLAIN_BYTES), {"mmap_mode": "r"}),
        ("allow_pickle=False", plain, {"allow_pickle": False}),
        ("allow_pickle=True", plain, {"allow_pickle": True}),
        ("fix_imports=False", plain, {"fix_imports": False}),
        ("encoding=latin1", plain, {"encoding": "latin1"}),
        ("encoding=bytes", plain, {"encoding": "bytes"}),
        ("encoding=utf8 refused", plain, {"encoding": "utf8"}),
        ("max_header_size default, wide header", wide, {}),
        ("max_header_size=100000", wide, {"max_header_size": 100_000}),
        ("max_header_size=117", plain, {"max_header_size": 117}),
        ("max_header_size=118", plain, {"max_header_size": 118}),
        ("max_header_size mmap", wide, {"mmap_mode": "r"}),
        ("npz", npz, {}),
        ("npz stream", stream(npz_buf.getvalue()), {}),
        ("npz mmap ignored", npz, {"mmap_mode": "r"}),
        ("mmap_mode='' reads", plain, {"mmap_mode": ""}),
        ("mmap_mode=False reads", plain, {"mmap_mode": False}),
        ("read() returns bytearray", bytearray_stream(PLAIN_BYTES), {}),
        ("read() returns bytearray npz", bytearray_stream(npz_buf.getvalue()), {}),
        # Error cases.
        ("missing file", lambda: (str(tmp / "missing.npy"),), {}),
        ("missing file mmap", lambda: (str(tmp / "missing.npy"),), {"mmap_mode": "r"}),
        ("directory", lambda: (str(tmp),), {}),
        ("empty file", empty, {}),
        ("empty file mmap", empty, {"mmap_mode": "r"}),
        ("empty stream", stream(b""), {}),
        ("bad magic", bad_magic, {}),
        ("bad magic stream", stream(b"\x93NUMPX" + PLAIN_BYTES[6:]), {}),
        ("bad magic allow_pickle", bad_magic, {"allow_pickle": True}),
        ("pickle", pickled, {}),
        ("pickle stream", stream(pickle.dumps([1, 2])), {}),
        ("object array", obj, {}),
        ("object array mmap", obj, {"mmap_mode": "r"}),
        ("object array mmap allow_pickle", obj, {"mmap_mode": "r", "allow_pickle": True}),
        ("too-large header", wide, {"max_header_size": 10_000}),
        ("too-large header stream", stream(_npy(WIDE)), {}),
        # np.load opens the file and reads its magic before it looks at mmap_mode.
        ("mmap bad mode, missing file", lambda: (str(tmp / "missing.npy"),), {"mmap_mode": "x"}),
        ("mmap bad mode, empty file", empty, {"mmap_mode": "x"}),
        ("mmap bad mode, bad magic", bad_magic, {"mmap_mode": "x"}),
        ("mmap allow_pickle, not a pickle", path("garbage.bin", b"neither npy nor pickle"),
         {"mmap_mode": "r", "allow_pickle": True}),
        # Broken archives: zipfile.BadZipFile.
        ("npz truncated", stream(npz_buf.getvalue()[: len(npz_buf.getvalue()) // 2]), {}),
        ("npz local header alone", stream(b"PK\x03\x04" + bytes(100)), {}),
        ("npz end record alone", stream(b"PK\x05\x06" + bytes(18)), {}),
    ]
    # Truncated files: inside the magic, the version, the header length, the header, the
    # payload; as a path, a stream and a memory map.
    for n in (1, 5, 6, 7, 8, 9, 10, 40, 127, 128, 129, len(PLAIN_BYTES) - 1):
        cut = path(f"cut{n}.npy", PLAIN_BYTES[:n])
        cases.append((f"truncated at {n}", cut, {}))
        cases.append((f"truncated at {n} stream", stream(PLAIN_BYTES[:n]), {}))
        cases.append((f"truncated at {n} mmap", cut, {"mmap_mode": "r"}))
    return cases


_CASE_IDS = [c[0] for c in _cases(Path("/nonexistent"), write=False)]


@pytest.fixture(scope="module")
def case_table(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dropin")
    return {name: (make, kw) for name, make, kw in _cases(tmp)}


@pytest.mark.parametrize("case", _CASE_IDS)
def test_same_as_np_load(case_table, case):
    make, kwargs = case_table[case]
    _compare(make, kwargs)


def test_case_table_covers_the_signature():
    import inspect

    np_params = inspect.signature(np.load).parameters
    ours = inspect.signature(npyguard.load).parameters
    for name, p in np_params.items():
        assert name in ours, name
        assert ours[name].kind == p.kind, name
        assert ours[name].default == p.default, name
    assert list(ours)[: len(np_params)] == list(np_params)
    keywords = {k for _, _, kw in _cases(Path("/nonexistent"), write=False) for k in kw}
    assert keywords == set(np_params) - {"file"}


# ------------------------------------------------------------------ exception classes


def test_io_errors_are_oserrors_and_npyguard_errors(tmp_path):
    missing = tmp_path / "missing.npy"
    with pytest.raises(FileNotFoundError) as e:
        npyguard.load(missing)
    err = e.value
    assert isinstance(err, npyguard.IoError) and isinstance(err, npyguard.Error)
    assert isinstance(err, OSError) and isinstance(err, ValueError)
    assert err.errno == errno.ENOENT and err.strerror and err.filename == str(missing)
    assert err.kind == "io" and "missing.npy" in str(err)
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is type(err) and again.errno == err.errno and str(again) == str(err)
    with pytest.raises(IsADirectoryError) as e:
        npyguard.load(tmp_path)
    assert isinstance(e.value, npyguard.IoError) and e.value.errno == errno.EISDIR
    for fn in (npyguard.inspect, npyguard.validate, npyguard.load_npz):
        with pytest.raises(FileNotFoundError):
            r = fn(missing)
            if isinstance(r, Exception):
                raise r
    with pytest.raises(FileNotFoundError) as e:
        npyguard.load(missing, mmap_mode="r")
    assert isinstance(e.value, npyguard.IoError)


def test_format_errors_stay_value_errors(tmp_path):
    for data in (b"\x93NUMPX" + PLAIN_BYTES[6:], PLAIN_BYTES[:-1], PLAIN_BYTES + b"x"):
        with pytest.raises(npyguard.FormatError) as e:
            npyguard.load(data)
        assert isinstance(e.value, ValueError) and not isinstance(e.value, OSError)


def test_wide_header_is_a_limit_error():
    with pytest.raises(npyguard.LimitError) as e:
        npyguard.load(_npy(WIDE))
    assert e.value.kind == "header-too-long" and "22198 characters" in str(e.value)
    assert_same(npyguard.load(_npy(WIDE), max_header_size=22198), np.load(io.BytesIO(_npy(WIDE)), max_header_size=22198))
    with pytest.raises(npyguard.LimitError):
        npyguard.load(_npy(WIDE), max_header_size=22197)
    # Checked before the payload is read: a claimed 8 TiB payload is never reached.
    head = _npy(WIDE)[: -WIDE.nbytes]
    with pytest.raises(npyguard.LimitError):
        npyguard.load(io.BytesIO(head))


class _Raising(io.RawIOBase):
    """A file object whose read() raises ``exc`` after ``ok`` bytes."""

    def __init__(self, data: bytes, exc: BaseException, ok: int = 0, seekable: bool = False):
        self._data, self._exc, self._ok, self._pos, self._seekable = data, exc, ok, 0, seekable

    def readable(self):
        return True

    def seekable(self):
        return self._seekable

    def seek(self, offset, whence=0):
        self._pos = {0: 0, 1: self._pos, 2: len(self._data)}[whence] + offset
        return self._pos

    def read(self, n=-1):
        if self._pos >= self._ok:
            raise self._exc
        n = len(self._data) if n is None or n < 0 else n
        chunk = self._data[self._pos : min(self._pos + n, self._ok)]
        self._pos += len(chunk)
        return chunk


@pytest.mark.parametrize("ok", [0, 3, 20, 150])
@pytest.mark.parametrize("seekable", [False, True])
@pytest.mark.parametrize("exc_type", [KeyboardInterrupt, SystemExit, GeneratorExit])
def test_base_exceptions_from_read_propagate_unchanged(ok, seekable, exc_type):
    exc = exc_type()
    with pytest.raises(exc_type) as e:
        npyguard.load(_Raising(PLAIN_BYTES, exc, ok, seekable))
    assert e.value is exc
    if ok < 128:  # inspect reads the header alone (128 bytes)
        with pytest.raises(exc_type) as e:
            npyguard.inspect(_Raising(PLAIN_BYTES, exc, ok, seekable))
        assert e.value is exc


@pytest.mark.parametrize("ok", [0, 3, 20, 150])
@pytest.mark.parametrize("seekable", [False, True])
def test_errors_from_read_are_chained(ok, seekable):
    for exc in (OSError(errno.EIO, "disk on fire"), ValueError("closed file"), TimeoutError("slow")):
        with pytest.raises(npyguard.IoError) as e:
            npyguard.load(_Raising(PLAIN_BYTES, exc, ok, seekable))
        assert isinstance(e.value, OSError) and isinstance(e.value, npyguard.Error)
        assert e.value.__cause__ is exc
        assert (getattr(exc, "strerror", None) or str(exc)) in str(e.value)


def test_npz_file_object_errors():
    buf = io.BytesIO()
    np.savez(buf, a=np.arange(3))
    data = buf.getvalue()
    exc = KeyboardInterrupt()
    with pytest.raises(KeyboardInterrupt) as e:
        npyguard.load_npz(_Raising(data, exc, 10, seekable=True))
    assert e.value is exc
    exc = OSError(errno.EIO, "gone")
    with pytest.raises(npyguard.IoError) as e:
        npyguard.load_npz(_Raising(data, exc, 10, seekable=True))
    assert e.value.__cause__ is exc


# --------------------------------------------------------------- consecutive arrays, EOF


def test_consecutive_arrays_from_one_stream_end_with_eof_error():
    """np.load reads one array per call from a stream of several, then raises EOFError."""
    data = _npy(np.arange(3)) + _npy(RECORD) + _npy(np.ones((2, 2), order="F"))
    expected, got = [], []
    f = io.BytesIO(data)
    with pytest.raises(EOFError) as n_end:
        while True:
            expected.append(np.load(f))
    g = io.BytesIO(data)
    with pytest.raises(EOFError) as g_end:
        while True:
            got.append(npyguard.load(g, allow_trailing_bytes=True))
    assert len(got) == len(expected) == 3
    for a, b in zip(got, expected):
        assert_same(a, b)
    assert "No data left" in str(n_end.value)
    assert isinstance(g_end.value, npyguard.EndOfFileError)
    assert isinstance(g_end.value, npyguard.FormatError) and g_end.value.kind == "truncated"
    # Again at the end: still EOFError, from both.
    with pytest.raises(EOFError):
        np.load(f)
    with pytest.raises(EOFError):
        npyguard.load(g)
    # A stream that ends inside an array is a ValueError (not EOF) in both.
    with pytest.raises(ValueError) as e:
        npyguard.load(io.BytesIO(data[:5]))
    assert not isinstance(e.value, EOFError)


# --------------------------------------------------------------------- Mapping contract


def test_npz_member_with_a_bad_crc_is_a_bad_zip_file():
    buf = io.BytesIO()
    np.savez(buf, a=np.arange(5))
    data = bytearray(buf.getvalue())
    data[data.index(b"\x93NUMPY") + 131] ^= 1  # a payload byte of member a.npy
    for lib in (np, npyguard):
        archive = lib.load(io.BytesIO(bytes(data)))
        with pytest.raises(zipfile.BadZipFile):
            archive["a"]
    with pytest.raises(npyguard.ZipFormatError) as err:
        npyguard.load(io.BytesIO(bytes(data)))["a"]
    assert err.value.kind == "crc-mismatch" and isinstance(err.value, npyguard.FormatError)


def test_npz_mapping_contract():
    buf = io.BytesIO()
    np.savez(buf, a=np.arange(3), b=RECORD)
    data = buf.getvalue()
    with np.load(io.BytesIO(data)) as n, npyguard.load_npz(io.BytesIO(data)) as g:
        for key in (1, 1.5, None, b"a", ("a",), "c", "c.npy"):
            assert g.get(key) is None and n.get(key) is None
            assert g.get(key, 7) == 7 == n.get(key, 7)
            assert (key in g) is (key in n) is False
            with pytest.raises(KeyError):
                g[key]
            with pytest.raises(KeyError):
                n[key]
        # An unhashable key: TypeError, as a dict lookup and NumPy >= 2.1's NpzFile (NumPy
        # 2.0's gives KeyError).
        with pytest.raises((TypeError, KeyError)):
            n[["a"]]
        with pytest.raises(TypeError):
            g[["a"]]
        assert ["a"] not in g
        assert list(g.keys()) == list(n.keys()) == ["a", "b"]
        assert_same(g.get("a"), n.get("a"))
        assert_same(g["b.npy"], n["b.npy"])
        assert [k for k, _ in g.items()] == ["a", "b"] == [k for k, _ in n.items()]


@pytest.mark.parametrize("how", ["path", "bytes", "BytesIO", "file"])
def test_load_npz_sources(tmp_path, how):
    p = tmp_path / "x.npz"
    np.savez_compressed(p, a=np.arange(5), rec=RECORD)
    source = {
        "path": p,
        "bytes": p.read_bytes(),
        "BytesIO": io.BytesIO(p.read_bytes()),
        "file": open(p, "rb"),
    }[how]
    try:
        with npyguard.load_npz(source) as z, np.load(p) as n:
            assert z.files == n.files
            for k in n.files:
                assert_same(z[k], n[k])
                assert_same(z[k], n[k])  # a member read twice through the same object
    finally:
        if hasattr(source, "close"):
            source.close()


# ------------------------------------------------------------------------- no shared dtype


def test_loaded_arrays_never_share_a_dtype(tmp_path):
    data = _npy(RECORD)
    p = tmp_path / "r.npy"
    p.write_bytes(data)
    z = tmp_path / "r.npz"
    np.savez(z, r=RECORD)
    with npyguard.load_npz(z) as arch:
        arrays = [
            npyguard.load(data),
            npyguard.load(p),
            npyguard.load(io.BytesIO(data)),
            npyguard.load(p, mmap_mode="r"),
            arch["r"],
            arch["r"],
        ]
        dtypes = [a.dtype for a in arrays] + [npyguard.inspect(p)["dtype"], arch.header("r")["dtype"]]
    assert len({id(d) for d in dtypes}) == len(dtypes)
    # Nor memory (the memory map excepted: two maps of one file share its pages, as NumPy's).
    owned = [a for a in arrays if not isinstance(a, np.memmap)]
    for i, a in enumerate(owned):
        for b in owned[i + 1 :]:
            assert not np.shares_memory(a, b)
    # Renaming the fields of one renames no other's, loaded before or after.
    arrays[0].dtype.names = ("x", "y")
    later = npyguard.load(data)
    for a in arrays[1:] + [later]:
        assert a.dtype.names == ("id", "v")
        assert a["id"].tolist() == [1, 3]
    assert arrays[0]["x"].tolist() == [1, 3]
    # inspect's descr is the caller's to change.
    h = npyguard.inspect(data)
    h["descr"].append(("z", "<i1"))
    assert npyguard.inspect(data)["descr"] == [("id", "<i4"), ("v", ">f8")]
    assert npyguard.load(data).dtype.names == ("id", "v")


@pytest.mark.parametrize("path", NPY_FIXTURES, ids=lambda p: p.name)
def test_dtype_identity_as_np_load(path):
    """Two loads give the same dtype object exactly when two np.loads do (NumPy's builtin
    singletons such as float64), never for records, subarrays, strings, datetimes."""
    n1, n2 = (np.load(path, max_header_size=BIG) for _ in range(2))
    g1, g2 = (npyguard.load(path, max_header_size=BIG) for _ in range(2))
    assert (g1.dtype is g2.dtype) == (n1.dtype is n2.dtype)
    assert (g1.dtype is n1.dtype) == (n1.dtype is n2.dtype)
    if g1.dtype.names is not None:
        assert g1.dtype is not g2.dtype


# -------------------------------------------------------------------------------- mmap


@pytest.mark.parametrize("path", NPY_FIXTURES, ids=lambda p: p.name)
def test_mmap_every_fixture_as_np_load(path):
    _compare(lambda: (path,), {"mmap_mode": "r", "max_header_size": BIG})


def test_mmap_modes_write_through_as_numpy(tmp_path):
    for mode, persists in (("r+", True), ("c", False)):
        p = tmp_path / f"{mode}.npy"
        np.save(p, np.arange(6.0).reshape(2, 3))
        m = npyguard.load(p, mmap_mode=mode)
        assert isinstance(m, np.memmap) and m.flags.writeable
        m[1, 2] = -1.0
        m.flush()
        del m
        assert np.load(p)[1, 2] == (-1.0 if persists else 5.0)
    m = npyguard.load(p, mmap_mode="r")
    assert not m.flags.writeable


def test_mmap_refuses_what_load_refuses(tmp_path):
    """Trailing bytes, truncation, max_file_bytes: checked on the open file before mapping."""
    p = tmp_path / "t.npy"
    p.write_bytes(PLAIN_BYTES + b"PK\x03\x04")
    with pytest.raises(npyguard.FormatError) as e:
        npyguard.load(p, mmap_mode="r")
    assert e.value.kind == "trailing-bytes"
    assert isinstance(npyguard.load(p, mmap_mode="r", allow_trailing_bytes=True), np.memmap)
    with pytest.raises(npyguard.LimitError):
        npyguard.load(p, mmap_mode="r", max_file_bytes=100)
    p.write_bytes(PLAIN_BYTES[:-1])
    with pytest.raises(npyguard.FormatError) as e:
        npyguard.load(p, mmap_mode="r")
    assert e.value.kind == "truncated"


# ------------------------------------------------------------------ deliberate deviations


def test_deviation_mmap_w_plus(tmp_path):
    """np.load(path, mmap_mode='w+') truncates the file, then raises TypeError; npyguard
    refuses 'w+' (ValueError) and leaves the file alone."""
    p = tmp_path / "w.npy"
    p.write_bytes(PLAIN_BYTES)
    with pytest.raises(ValueError, match="w\\+"):
        npyguard.load(p, mmap_mode="w+")
    assert p.read_bytes() == PLAIN_BYTES
    with pytest.raises(TypeError):
        np.load(p, mmap_mode="w+")
    assert p.read_bytes() == b""


def test_deviation_allow_pickle_true_never_loads_objects(tmp_path):
    obj = tmp_path / "o.npy"
    np.save(obj, np.array([1, None], dtype=object), allow_pickle=True)
    assert np.load(obj, allow_pickle=True).tolist() == [1, None]
    with pytest.raises(npyguard.FormatError, match="never loads object arrays"):
        npyguard.load(obj, allow_pickle=True)
    pk = tmp_path / "p.pkl"
    pk.write_bytes(pickle.dumps([1, 2]))
    assert np.load(pk, allow_pickle=True) == [1, 2]
    with pytest.raises(pickle.UnpicklingError, match="never loads pickles") as e:
        npyguard.load(pk, allow_pickle=True)
    assert isinstance(e.value, npyguard.PickleRefusedError) and isinstance(e.value, ValueError)


def test_deviation_trailing_bytes_and_header_limit_with_allow_pickle(tmp_path):
    p = tmp_path / "t.npy"
    p.write_bytes(PLAIN_BYTES + b"\0")
    assert_same(np.load(p), PLAIN)
    with pytest.raises(npyguard.FormatError):
        npyguard.load(p)
    assert_same(npyguard.load(p, allow_trailing_bytes=True), PLAIN)
    # allow_pickle=True lifts max_header_size in np.load ("fully trusted"), not here.
    w = tmp_path / "w.npy"
    np.save(w, WIDE)
    assert np.load(w, allow_pickle=True).shape == (3,)
    with pytest.raises(npyguard.LimitError):
        npyguard.load(w, allow_pickle=True)


def test_bytes_source_is_an_extension():
    """np.load takes no bytes (it would open them as a path); npyguard reads them."""
    assert_same(npyguard.load(PLAIN_BYTES), PLAIN)
    with pytest.raises(TypeError):
        npyguard.load(PLAIN_BYTES, mmap_mode="r")


# ------------------------------------------------------------------------------ writers


@pytest.mark.parametrize("name", ["out", "out.npy", "out.NPY", "dir.npy/inner"])
@pytest.mark.parametrize("as_path", [False, True])
def test_save_appends_npy_as_np_save(tmp_path, name, as_path):
    n_dir, g_dir = tmp_path / "n", tmp_path / "g"
    for d in (n_dir, g_dir):
        (d / "dir.npy").mkdir(parents=True)
    target = (lambda d: d / name) if as_path else (lambda d: str(d / name))
    np.save(target(n_dir), RECORD)
    npyguard.save(target(g_dir), RECORD)
    n_files = sorted(str(p.relative_to(n_dir)) for p in n_dir.rglob("*") if p.is_file())
    g_files = sorted(str(p.relative_to(g_dir)) for p in g_dir.rglob("*") if p.is_file())
    assert g_files == n_files and len(n_files) == 1
    assert (g_dir / n_files[0]).read_bytes() == (n_dir / n_files[0]).read_bytes()


ARRAYS = {
    "rec": RECORD,
    "f": np.asfortranarray(np.arange(12, dtype=">i2").reshape(3, 4)),
    "strided": np.arange(20.0)[::3],
    "dt": np.array(["2024-01-01", "NaT"], dtype="M8[D]"),
    "u": np.array(["a", "\u00e9\u4e2d"]),
    "empty": np.zeros((0, 3)),
    "scalar": np.float16(1.5),
}


@pytest.mark.parametrize("fn", ["savez", "savez_compressed"])
@pytest.mark.parametrize("as_path", [False, True, "file"])
def test_savez_read_back_by_numpy(tmp_path, fn, as_path):
    arrays = dict(ARRAYS)
    positional = (np.arange(4), np.ones(2, dtype="<c8"))
    if as_path == "file":
        buf = io.BytesIO()
        getattr(npyguard, fn)(buf, *positional, **arrays)
        ref = io.BytesIO()
        getattr(np, fn)(ref, *positional, **arrays)
        got_src, ref_src = io.BytesIO(buf.getvalue()), io.BytesIO(ref.getvalue())
    else:
        out = tmp_path / "g" / "arch"
        ref_out = tmp_path / "n" / "arch"
        out.parent.mkdir()
        ref_out.parent.mkdir()
        getattr(npyguard, fn)(out if as_path else str(out), *positional, **arrays)
        getattr(np, fn)(ref_out if as_path else str(ref_out), *positional, **arrays)
        assert sorted(os.listdir(out.parent)) == sorted(os.listdir(ref_out.parent)) == ["arch.npz"]
        got_src, ref_src = out.parent / "arch.npz", ref_out.parent / "arch.npz"
    with np.load(got_src) as got, np.load(ref_src) as ref:
        assert got.files == ref.files
        for k in ref.files:
            assert_same(got[k], ref[k])
    if hasattr(got_src, "seek"):
        got_src.seek(0)
        ref_src.seek(0)
    # The members: the same names, compression and bytes as np.savez's.
    with zipfile.ZipFile(got_src) as zg, zipfile.ZipFile(ref_src) as zn:
        assert [i.filename for i in zg.infolist()] == [i.filename for i in zn.infolist()]
        for ig, i_n in zip(zg.infolist(), zn.infolist()):
            assert ig.compress_type == i_n.compress_type
            assert zg.read(ig) == zn.read(i_n)


def test_savez_refuses_before_writing(tmp_path):
    out = tmp_path / "bad.npz"
    with pytest.raises(npyguard.Error):
        npyguard.savez(out, ok=np.arange(3), bad=np.array([None], dtype=object))
    assert not out.exists()
    with pytest.raises(ValueError, match="arr_0"):
        npyguard.savez(tmp_path / "x.npz", np.arange(2), arr_0=np.arange(3))


class _Armed(io.BytesIO):
    """A BytesIO whose read() raises ``exc`` while armed."""

    exc = None

    def read(self, n=-1):
        if self.exc is not None:
            raise self.exc
        return super().read(n)


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), SystemExit(2), OSError(errno.EIO, "gone"), RuntimeError("x")])
def test_npz_member_read_errors_from_a_file_object(exc):
    buf = io.BytesIO()
    np.savez(buf, a=np.arange(3), b=RECORD)
    f = _Armed(buf.getvalue())
    with npyguard.load_npz(f) as z:
        f.exc = exc
        if isinstance(exc, Exception):
            with pytest.raises(npyguard.IoError) as e:
                z["a"]
            assert e.value.__cause__ is exc and isinstance(e.value, OSError)
        else:
            with pytest.raises(type(exc)) as e:
                z["a"]
            assert e.value is exc
        f.exc = None
        # The archive is still usable; a later error is not chained to the earlier one.
        assert z["a"].tolist() == [0, 1, 2]
        assert_same(z["b"], RECORD)
