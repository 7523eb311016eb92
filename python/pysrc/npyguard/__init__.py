"""npyguard: a hardened ``np.load`` / ``np.save`` for untrusted ``.npy`` and ``.npz`` files.

The bytes are parsed and checked by the npyguard Rust library (a formal header grammar,
every size checked before anything is allocated, limits on the file and header size,
duplicate keys, trailing bytes and truncation refused, no pickles); NumPy then builds a
normal ``ndarray`` over the validated bytes without copying them, with the file's own
dtype, shape and memory order, exactly as ``np.load`` would return it.

    >>> import numpy as np, npyguard, io
    >>> buf = io.BytesIO(); np.save(buf, np.arange(6.0).reshape(2, 3))
    >>> a = npyguard.load(buf.getvalue(), max_file_bytes=1 << 20)
    >>> a.dtype, a.shape
    (dtype('float64'), (2, 3))

Errors are :class:`Error` (a ``ValueError``) subclasses: :class:`FormatError`,
:class:`LimitError`, :class:`IoError`, :class:`UsageError`, :class:`InternalError`; each
has ``kind``, ``category``, ``offset``, ``expected`` and ``found`` attributes and the
message the ``npyguard`` command-line tool prints.
"""

from __future__ import annotations

import ast
import functools
import io
import os
from collections.abc import Mapping
from typing import Any, BinaryIO, Dict, Iterator, List, Optional, Tuple, Union

import numpy as np

from . import _native
from ._errors import Error, FormatError, InternalError, IoError, LimitError, UsageError

__all__ = [
    "load",
    "save",
    "inspect",
    "validate",
    "load_npz",
    "NpzFile",
    "to_arrow",
    "ArrowDataset",
    "Error",
    "FormatError",
    "LimitError",
    "IoError",
    "UsageError",
    "InternalError",
    "DEFAULT_MAX_HEADER_BYTES",
]

__version__: str = _native.__version__

#: The default cap on the header's length (npyguard's ``ReadOptions`` default, 64 KiB).
DEFAULT_MAX_HEADER_BYTES = 65536

#: The classes of the dataset-to-Arrow stream (see :func:`to_arrow`).
ArrowDataset = _native.ArrowDataset

Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, BinaryIO]


# ----------------------------------------------------------------------------- helpers


@functools.lru_cache(maxsize=1024)
def _dtype(descr: str) -> np.dtype:
    """NumPy's dtype for a header's descr, built as ``np.load`` builds it."""
    return np.lib.format.descr_to_dtype(ast.literal_eval(descr))


def _limits(
    max_file_bytes: Optional[int],
    max_header_bytes: int,
    numpy_strict: bool,
    allow_trailing_bytes: bool,
) -> Tuple[Optional[int], int, bool, bool]:
    if max_file_bytes is not None:
        max_file_bytes = int(max_file_bytes)
        if max_file_bytes < 0:
            raise ValueError("max_file_bytes must be >= 0 or None")
    max_header_bytes = int(max_header_bytes)
    if max_header_bytes < 0:
        raise ValueError("max_header_bytes must be >= 0")
    return (max_file_bytes, max_header_bytes, bool(numpy_strict), bool(allow_trailing_bytes))


def _classify(source: Any) -> Tuple[str, Any]:
    """``("path", str)``, ``("bytes", bytes)`` or ``("stream", file object)``."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        return "path", path
    if isinstance(source, bytes):
        return "bytes", source
    if isinstance(source, (bytearray, memoryview)):
        return "bytes", memoryview(source).tobytes()
    if hasattr(source, "read"):
        return "stream", source
    raise TypeError(
        "source must be a path (str or os.PathLike), bytes, bytearray, memoryview or a "
        f"binary file object, not {type(source).__name__}"
    )


def _array(loaded: tuple) -> np.ndarray:
    """The ndarray over a validated file's bytes (no copy), as ``np.load`` shapes it."""
    payload, _offset, descr, shape, fortran_order, _version, _nbytes = loaded
    dtype = _dtype(descr)
    count = 1
    for n in shape:
        count *= n
    if count == 0 or dtype.itemsize == 0:
        array = np.ndarray(count, dtype=dtype)
    else:
        array = np.frombuffer(payload, dtype=dtype, count=count)
    if fortran_order:
        array = array.reshape(shape[::-1]).transpose()
    else:
        array = array.reshape(shape)
    return array


def _header_dict(loaded: tuple) -> Dict[str, Any]:
    _payload, offset, descr, shape, fortran_order, version, nbytes = loaded
    return {
        "version": tuple(int(p) for p in version.split(".")),
        "descr": ast.literal_eval(descr),
        "dtype": _dtype(descr),
        "shape": tuple(shape),
        "fortran_order": bool(fortran_order),
        "payload_offset": int(offset),
        "payload_bytes": int(nbytes),
    }


# -------------------------------------------------------------------------------- .npy


def load(
    source: Source,
    *,
    max_file_bytes: Optional[int] = None,
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES,
    numpy_strict: bool = False,
    allow_trailing_bytes: bool = False,
) -> np.ndarray:
    """Reads a ``.npy`` file with npyguard's checks and returns it as ``np.load`` would.

    Args:
        source: a path (``str`` or ``os.PathLike``), the file's bytes (``bytes``,
            ``bytearray``, ``memoryview``), or a binary file object (anything with
            ``read(n) -> bytes``; it is read exactly up to the end of the payload, plus
            one byte to check that the stream ends there unless ``allow_trailing_bytes``).
        max_file_bytes: refuse files larger than this many bytes (preamble included; a
            file exactly at the limit is accepted). ``None``: no limit.
        max_header_bytes: refuse headers longer than this (checked before the header is
            read; 64 KiB by default).
        numpy_strict: refuse extra header keys and headers over 10 000 characters, as
            NumPy does.
        allow_trailing_bytes: accept bytes after the payload (refused by default:
            polyglot files).

    Returns:
        An ``ndarray`` with the file's dtype (byte order included), shape and memory
        order (a Fortran-order file gives an F-contiguous array), writable. Its memory
        is the buffer npyguard read the file into (no second copy).

    Raises:
        FormatError: the bytes are not a valid ``.npy`` file npyguard reads.
        LimitError: a limit was exceeded.
        IoError: the file could not be opened or read.
    """
    limits = _limits(max_file_bytes, max_header_bytes, numpy_strict, allow_trailing_bytes)
    kind, src = _classify(source)
    if kind == "path":
        loaded = _native.read_path(src, *limits)
    elif kind == "bytes":
        loaded = _native.read_buffer(src, *limits)
    else:
        loaded = _native.read_stream(src, *limits)
    return _array(loaded)


def inspect(
    source: Source,
    *,
    max_file_bytes: Optional[int] = None,
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES,
    numpy_strict: bool = False,
    allow_trailing_bytes: bool = False,
) -> Dict[str, Any]:
    """Reads only the header and returns it as a dict.

    The keys: ``version`` (e.g. ``(1, 0)``), ``descr`` (as in the file's header dict),
    ``dtype`` (NumPy's), ``shape``, ``fortran_order``, ``payload_offset`` and
    ``payload_bytes``. For a path or bytes, the length is checked as a full read would
    check it (``max_file_bytes``, truncation, trailing bytes), as ``npyguard inspect``
    does; a file object is read only up to the end of the header.
    """
    limits = _limits(max_file_bytes, max_header_bytes, numpy_strict, allow_trailing_bytes)
    kind, src = _classify(source)
    if kind == "path":
        loaded = _native.header_path(src, *limits)
    elif kind == "bytes":
        loaded = _native.header_buffer(src, *limits)
    else:
        loaded = _native.header_stream(src, *limits)
    return _header_dict(loaded)


def validate(
    source: Source,
    *,
    max_file_bytes: Optional[int] = None,
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES,
    numpy_strict: bool = False,
    allow_trailing_bytes: bool = False,
) -> Optional[Error]:
    """Checks a whole ``.npy`` file as :func:`load` would, without building an array.

    Returns ``None`` when the file is valid, else the :class:`Error` that :func:`load`
    would raise (returned, not raised: convenient for reporting many files).
    """
    try:
        limits = _limits(max_file_bytes, max_header_bytes, numpy_strict, allow_trailing_bytes)
        kind, src = _classify(source)
        if kind == "path":
            _native.read_path(src, *limits)
        elif kind == "bytes":
            _native.read_buffer(src, *limits)
        else:
            _native.read_stream(src, *limits)
    except Error as err:
        return err
    return None


def _dict_text(d: Dict[str, Any]) -> str:
    # np.lib.format._wrap_header's dict text: sorted keys, repr values.
    return "{" + "".join(f"'{k}': {v!r}, " for k, v in sorted(d.items())) + "}"


def save(file: Union[str, "os.PathLike[str]", BinaryIO], array: Any) -> None:
    """Writes ``array`` as a ``.npy`` file, byte-identical to ``np.save(file, array)``.

    The header is npyguard's writer's (which validates the dtype: object arrays and
    other dtypes npyguard does not read raise :class:`Error`), with ``np.save``'s version
    choice (1.0, 2.0 for long headers, 3.0 for non-Latin-1 field names), padding and
    growth space; the payload is the array's bytes in its memory order (Fortran order
    for an F-contiguous, non-C-contiguous array, as ``np.save`` decides).

    Unlike ``np.save``, a path is used as given (no ``.npy`` suffix is appended).
    """
    array = np.asanyarray(array)
    fortran_order = bool(array.flags.f_contiguous and not array.flags.c_contiguous)
    header = {
        "descr": np.lib.format.dtype_to_descr(array.dtype),
        "fortran_order": fortran_order,
        "shape": array.shape,
    }
    head = _native.save_header(_dict_text(header))
    data = array.T if fortran_order else array
    if isinstance(file, (str, os.PathLike)):
        with open(file, "wb") as f:
            f.write(head)
            data.tofile(f)
        return
    file.write(head)
    if _is_real_file(file):
        file.flush()
        data.tofile(file)
    else:
        file.write(np.ascontiguousarray(data).tobytes())


def _is_real_file(f: Any) -> bool:
    # np.lib.format.isfileobj: a real OS file that tofile can write to.
    if not isinstance(f, (io.FileIO, io.BufferedReader, io.BufferedWriter)):
        return False
    try:
        f.fileno()
        return True
    except OSError:
        return False


# -------------------------------------------------------------------------------- .npz


class NpzFile(Mapping):
    """A ``.npz`` archive opened by :func:`load_npz`: a lazy, read-only mapping from
    array names to arrays, like NumPy's ``NpzFile``.

    The zip structure is checked when the archive is opened; a member is read and
    inflated (under the archive limits) only when it is looked up, every time it is
    looked up. Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, native: Any) -> None:
        self._native = native
        self.files: List[str] = native.names()

    def _key(self, key: str) -> str:
        if key in self.files:
            return key
        if key.endswith(".npy") and key[:-4] in self.files:
            return key[:-4]
        raise KeyError(f"{key} is not a file in the archive")

    def __getitem__(self, key: str) -> np.ndarray:
        return _array(self._native.member_npy(self._key(key)))

    def header(self, key: str) -> Dict[str, Any]:
        """The header of member ``key`` as :func:`inspect` returns it."""
        return _header_dict(self._native.member_header(self._key(key)))

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and (
            key in self.files or (key.endswith(".npy") and key[:-4] in self.files)
        )

    def close(self) -> None:
        """Closes the archive's file; later lookups raise ``ValueError``."""
        self._native.close()

    def __enter__(self) -> "NpzFile":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<npyguard.NpzFile {self.files!r}>"


def load_npz(
    source: Union[str, "os.PathLike[str]", bytes, bytearray, memoryview],
    *,
    max_file_bytes: Optional[int] = None,
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES,
    numpy_strict: bool = False,
    allow_trailing_bytes: bool = False,
    max_members: Optional[int] = 4096,
    max_total_bytes: Optional[int] = None,
    max_ratio: Optional[int] = 1000,
) -> NpzFile:
    """Opens a ``.npz`` archive (``np.savez`` / ``np.savez_compressed``) lazily.

    ``max_file_bytes`` (and the other ``.npy`` limits) apply to each member;
    ``max_members`` caps the number of members, ``max_total_bytes`` the sum of the
    members' decompressed sizes, ``max_ratio`` each member's decompressed/compressed
    ratio (``None``: no limit). The zip structure is checked when the archive is opened
    (duplicate names, mismatched local headers, gaps, encryption, ... are refused).
    """
    limits = _limits(max_file_bytes, max_header_bytes, numpy_strict, allow_trailing_bytes)
    kind, src = _classify(source)
    if kind == "stream":
        raise TypeError("load_npz takes a path or the archive's bytes (an archive must be seekable)")
    return NpzFile(_native.NpzFile(src, *limits, max_members, max_total_bytes, max_ratio))


# ------------------------------------------------------------------------------- arrow


def to_arrow(
    source: Union[str, "os.PathLike[str]", bytes, bytearray, memoryview],
    layout: str = "columns",
    *,
    batch_rows: Optional[int] = None,
    max_file_bytes: Optional[int] = None,
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES,
    numpy_strict: bool = False,
    allow_trailing_bytes: bool = False,
) -> "_native.ArrowDataset":
    """A ``.npy`` file as an Arrow table, without writing a file.

    The result implements the Arrow PyCapsule interface (``__arrow_c_stream__``), so
    ``pyarrow.table(t)``, ``polars.from_arrow(t)`` (or ``polars.DataFrame(t)``) and
    ``duckdb.sql("SELECT ... FROM t")`` read it directly. ``layout`` is one of
    ``"columns"`` (``c1..cN``), ``"rowlists"`` (``c1``: a fixed-size list per row) or
    ``"nonzeros"`` (``row_no``, ``col_no``, ``val``), with the types and values of
    ``npyguard convert --to parquet --layout LAYOUT``.
    """
    limits = _limits(max_file_bytes, max_header_bytes, numpy_strict, allow_trailing_bytes)
    kind, src = _classify(source)
    if kind == "stream":
        raise TypeError("to_arrow takes a path or the file's bytes")
    return _native.ArrowDataset(src, layout, batch_rows, *limits)
