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

:func:`load` takes ``np.load``'s arguments (``mmap_mode``, ``allow_pickle``,
``fix_imports``, ``encoding``, ``max_header_size``) with their meanings, returns the archive
for a ``.npz`` file, and raises the exception types ``np.load`` raises; :func:`save`,
:func:`savez` and :func:`savez_compressed` write what NumPy's functions of those names write.

Errors are :class:`Error` (a ``ValueError``) subclasses: :class:`FormatError`,
:class:`LimitError`, :class:`IoError` (also an ``OSError``), :class:`UsageError`,
:class:`InternalError`, :class:`EndOfFileError` (also an ``EOFError``),
:class:`PickleRefusedError` (also a ``pickle.UnpicklingError``), :class:`ZipFormatError`
(also a ``zipfile.BadZipFile``); each has ``kind``, ``category``, ``offset``, ``expected`` and
``found`` attributes and the message the ``npyguard`` command-line tool prints.
"""

from __future__ import annotations

import ast
import copy
import functools
import io
import os
import warnings
import zipfile
from collections.abc import Mapping
from typing import Any, BinaryIO, Dict, Iterator, List, Optional, Tuple, Union

import numpy as np

from . import _errors, _native
from ._errors import (
    EndOfFileError,
    Error,
    FormatError,
    InternalError,
    IoError,
    LimitError,
    PickleRefusedError,
    UsageError,
    ZipFormatError,
    _for_path,
    _from_os_error,
)

__all__ = [
    "load",
    "save",
    "savez",
    "savez_compressed",
    "inspect",
    "validate",
    "load_npz",
    "open",
    "LazyArray",
    "NpzFile",
    "to_arrow",
    "ArrowDataset",
    *_errors.__all__,
    "DEFAULT_MAX_HEADER_BYTES",
    "DEFAULT_MAX_HEADER_SIZE",
    "DEFAULT_MAX_NPZ_MEMBERS",
    "DEFAULT_MAX_NPZ_RATIO",
]

__version__: str = _native.__version__

#: The default cap on the header's declared length in bytes (npyguard's ``ReadOptions``
#: default, 64 KiB), used when ``max_header_bytes`` is not given and ``max_header_size``
#: needs no more (see :func:`load`). This and the two below come from the library's one
#: table of defaults, shared by the CLI and the DuckDB extension.
DEFAULT_MAX_HEADER_BYTES: int = _native.DEFAULT_MAX_HEADER_BYTES

#: The default cap on an archive's members (:func:`load_npz`): 65 536.
DEFAULT_MAX_NPZ_MEMBERS: int = _native.DEFAULT_MAX_NPZ_MEMBERS

#: The default cap on a member's decompressed/compressed ratio (:func:`load_npz`): 1 000.
DEFAULT_MAX_NPZ_RATIO: int = _native.DEFAULT_MAX_NPZ_RATIO

#: NumPy's default ``max_header_size``: headers of more than 10 000 characters are refused.
DEFAULT_MAX_HEADER_SIZE = 10000

#: The classes of the dataset-to-Arrow stream (see :func:`to_arrow`).
ArrowDataset = _native.ArrowDataset

Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, BinaryIO]

# ----------------------------------------------------------------------------- helpers


@functools.lru_cache(maxsize=1024)
def _descr_literal(descr: str) -> Any:
    """The header's descr as a Python literal (cached: parsed once per distinct text;
    never handed out or mutated, see :func:`_dtype` and :func:`_header_dict`)."""
    return ast.literal_eval(descr)


def _dtype(descr: str) -> np.dtype:
    """NumPy's dtype for a header's descr, built as ``np.load`` builds it: a new dtype
    object for every array (NumPy's own singletons, such as ``float64``, excepted, as with
    ``np.load``), so that no two loaded arrays share a mutable dtype (renaming the fields
    of one never renames another's)."""
    return np.lib.format.descr_to_dtype(_descr_literal(descr))


#: The memory-map modes of ``np.memmap`` that read an existing file, by their names.
_MMAP_MODES = {
    "r": "r",
    "readonly": "r",
    "c": "c",
    "copyonwrite": "c",
    "r+": "r+",
    "readwrite": "r+",
}


def _limits(
    max_file_bytes: Optional[int],
    max_header_bytes: Optional[int],
    max_header_size: Optional[int],
    numpy_strict: bool,
    allow_trailing_bytes: bool,
) -> Tuple[Optional[int], int, Optional[int], bool, bool]:
    """The native functions' five ``.npy`` limits: file bytes, header bytes, header
    characters, numpy-strict, trailing bytes."""
    if max_file_bytes is not None:
        max_file_bytes = int(max_file_bytes)
        if max_file_bytes < 0:
            raise ValueError("max_file_bytes must be >= 0 or None")
    if max_header_size is not None:
        max_header_size = int(max_header_size)
        if max_header_size < 0:
            raise ValueError("max_header_size must be >= 0 or None")
    if max_header_bytes is None:
        # Enough bytes for max_header_size characters in any encoding (UTF-8: at most 4
        # bytes each), and never less than the library's default.
        need = 4 * max_header_size if max_header_size is not None else 0
        max_header_bytes = max(DEFAULT_MAX_HEADER_BYTES, need)
    max_header_bytes = int(max_header_bytes)
    if max_header_bytes < 0:
        raise ValueError("max_header_bytes must be >= 0")
    return (
        max_file_bytes,
        max_header_bytes,
        max_header_size,
        bool(numpy_strict),
        bool(allow_trailing_bytes),
    )


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
        # The payload's memory as a writable uint8 array (its base is the payload object,
        # which owns the memory), then viewed with the file's dtype.
        array = np.frombuffer(np.asarray(payload), dtype=dtype, count=count)
    if fortran_order:
        array = array.reshape(shape[::-1]).transpose()
    else:
        array = array.reshape(shape)
    return array


def _header_dict(loaded: tuple) -> Dict[str, Any]:
    _payload, offset, descr, shape, fortran_order, version, nbytes = loaded
    return {
        "version": tuple(int(p) for p in version.split(".")),
        "descr": copy.deepcopy(_descr_literal(descr)),
        "dtype": _dtype(descr),
        "shape": tuple(shape),
        "fortran_order": bool(fortran_order),
        "payload_offset": int(offset),
        "payload_bytes": int(nbytes),
    }


_ZIP_PREFIXES = (b"PK\x03\x04", b"PK\x05\x06")  # np.load's test for an archive
_NPY_MAGIC = b"\x93NUMPY"


def _path_magic(path: str) -> Optional[bytes]:
    """The first 6 bytes of the regular file at ``path`` (``None`` when it is not one or
    cannot be read: the native reader then reports why, or reads a FIFO as a stream)."""
    try:
        if not os.path.isfile(path):
            return None
        with io.open(path, "rb") as f:
            return f.read(len(_NPY_MAGIC))
    except OSError:
        return None


def _stream_magic(f: Any) -> Optional[bytes]:
    """The first 6 bytes of a seekable file object, which is moved back to where it was
    (as ``np.load`` does); ``None`` for a file object that cannot seek (it is read as a
    ``.npy`` stream). An exception of ``read``/``seek`` becomes an :class:`IoError`'s
    cause (``KeyboardInterrupt`` and other non-``Exception`` exceptions propagate)."""
    try:
        seekable = f.seekable()
    except Exception:
        return None
    if not seekable:
        return None
    try:
        magic = f.read(len(_NPY_MAGIC))
        if isinstance(magic, (bytes, bytearray)) and magic:
            f.seek(-len(magic), 1)
    except Exception as e:
        raise _from_os_error("cannot read the file object", e) from e
    return bytes(magic) if isinstance(magic, (bytes, bytearray)) else None


def _check_encoding(encoding: str) -> None:
    if encoding not in ("ASCII", "latin1", "bytes"):
        # np.load's check and message (the value matters only for pickles, never loaded).
        raise ValueError("encoding must be 'ASCII', 'latin1', or 'bytes'")


def _not_npy(err: Error, allow_pickle: bool) -> Error:
    """With ``allow_pickle=True``, where ``np.load`` would unpickle (a file that is neither
    ``.npy`` nor ``.npz``) or load an object array: the refusal, saying that npyguard never
    loads either; otherwise ``err`` itself."""
    if not allow_pickle:
        return err
    if err.kind == "bad-magic":
        return PickleRefusedError(
            f"{err} (allow_pickle=True: npyguard never loads pickles or object arrays)",
            kind=err.kind, category=err.category, offset=err.offset, expected=err.expected,
            found=err.found,
        )
    if err.kind == "unsupported-dtype" and "non-object" in err.expected:
        return type(err)(
            f"{err} (allow_pickle=True: npyguard never loads object arrays or pickles)",
            kind=err.kind, category=err.category, offset=err.offset, expected=err.expected,
            found=err.found,
        )
    return err


def _native_call(fn: Any, src: Any, *args: Any, path: Optional[str] = None, allow_pickle: bool = False) -> Any:
    """``fn(src, *args)`` with its error completed: ``filename`` and the ``OSError``
    subclass for a path, the pickle refusal for ``allow_pickle=True``."""
    try:
        return fn(src, *args)
    except Error as err:
        new = _for_path(err, path) if path is not None else err
        new = _not_npy(new, allow_pickle)
        if new is err:
            raise
        raise new from err.__cause__


def _memmap(path: str, mode: str, limits: tuple, allow_pickle: bool) -> np.memmap:
    """A memory map of the validated ``.npy`` file at ``path``: the header, the file's
    length (truncation, trailing bytes, ``max_file_bytes``) checked by npyguard on the
    open file, which ``np.memmap`` then maps (the same file, even if ``path`` is replaced
    meanwhile). As ``np.load``, the file is opened and its header read before the mode is
    looked at: a missing, empty or invalid file raises what it raises without a map."""
    m = _MMAP_MODES.get(mode)
    try:
        f = io.open(path, "r+b" if m == "r+" else "rb")
    except OSError as e:
        raise _from_os_error(f"cannot open {path}", e) from e
    with f:
        size = os.fstat(f.fileno()).st_size
        _payload, offset, descr, shape, fortran_order, _v, _n = _native_call(
            _native.header_stream, f, limits, size, path=path, allow_pickle=allow_pickle
        )
        if m is None:
            if mode in ("w+", "write"):
                # np.load(path, mmap_mode="w+") truncates the file to 0 bytes, then raises
                # TypeError: creating a file is not loading one.
                raise ValueError(
                    "mmap_mode='w+' would create a new file over the one to load (np.load "
                    "truncates it, then fails): use 'r+' to map a file for reading and "
                    "writing"
                )
            raise ValueError(f"mode must be one of {sorted(_MMAP_MODES)} (got {mode!r})")
        return np.memmap(
            f,
            dtype=_dtype(descr),
            mode=m,
            offset=offset,
            shape=tuple(shape),
            order="F" if fortran_order else "C",
        )


# -------------------------------------------------------------------------------- .npy


def load(
    file: Source,
    mmap_mode: Optional[str] = None,
    allow_pickle: bool = False,
    fix_imports: bool = True,
    encoding: str = "ASCII",
    *,
    max_header_size: Optional[int] = DEFAULT_MAX_HEADER_SIZE,
    max_file_bytes: Optional[int] = None,
    max_header_bytes: Optional[int] = None,
    numpy_strict: bool = False,
    allow_trailing_bytes: bool = False,
) -> Union[np.ndarray, np.memmap, "NpzFile"]:
    """Reads a ``.npy`` file with npyguard's checks and returns it as ``np.load`` would; a
    ``.npz`` archive gives its :class:`NpzFile`, as ``np.load`` gives NumPy's.

    The first five parameters and ``max_header_size`` are ``np.load``'s, with its meanings
    (``npyguard.load`` can replace ``np.load``); the rest are npyguard's limits.

    Args:
        file: a path (``str`` or ``os.PathLike``), the file's bytes (``bytes``,
            ``bytearray``, ``memoryview``: an npyguard extension, ``np.load`` takes no
            bytes), or a binary file object (anything with ``read(n) -> bytes``; it is read
            exactly up to the end of the payload, plus one byte to check that the stream
            ends there unless ``allow_trailing_bytes``; a seekable one is first checked
            for an archive, as ``np.load`` does, and moved back).
        mmap_mode: ``None`` (or any false value, ``''``, ``False``, as ``np.load``),
            ``'r'``, ``'r+'`` or ``'c'`` (also ``'readonly'``,
            ``'readwrite'``, ``'copyonwrite'``): memory-map the file (a path) instead of
            reading it, after npyguard has validated its header and its length (truncation,
            trailing bytes and ``max_file_bytes`` checked on the open file that is then
            mapped): an ``np.memmap`` as ``np.load`` returns it. ``'w+'`` is refused with
            ``ValueError`` (``np.load`` truncates the file, then raises ``TypeError``),
            like any other mode, once the file has been opened and its header read (a
            missing or invalid file raises what it raises without a map).
            A file object or bytes cannot be mapped: ``ValueError`` for a real file
            object, ``TypeError`` otherwise, as ``np.load``. Ignored for a ``.npz``. If the
            file is truncated while mapped, touching the pages past its new end raises
            ``SIGBUS`` (the process dies), exactly as with ``np.load``'s map: map only files
            nobody else writes.
        allow_pickle: accepted for compatibility; npyguard never loads object arrays or
            pickles. With ``True``, an object array raises a :class:`FormatError` saying
            so and a file that is neither ``.npy`` nor ``.npz`` (``np.load`` would unpickle
            it) raises :class:`PickleRefusedError` (also a ``pickle.UnpicklingError``, as
            ``np.load`` raises for what it fails to unpickle). Unlike ``np.load``,
            ``allow_pickle=True`` does not lift ``max_header_size``.
        fix_imports, encoding: accepted for compatibility (they concern pickles only);
            ``encoding`` must be ``'ASCII'``, ``'latin1'`` or ``'bytes'`` (``ValueError``
            otherwise, as ``np.load``).
        max_header_size: refuse headers of more than this many characters, as ``np.load``
            does (:class:`LimitError`, a ``ValueError``), before any payload byte is read.
            ``None``: no character limit (``max_header_bytes`` still applies).
        max_file_bytes: refuse files larger than this many bytes (preamble included; a
            file exactly at the limit is accepted). ``None``: no limit. For a ``.npz``, the
            limit of each member.
        max_header_bytes: refuse headers whose declared length is over this many bytes
            (checked before the header is read). Default: 64 KiB, or 4 bytes per
            character of ``max_header_size`` when that is more.
        numpy_strict: refuse extra header keys, as NumPy does.
        allow_trailing_bytes: accept bytes after the payload (refused by default:
            polyglot files; NumPy ignores them).

    Returns:
        An ``ndarray`` with the file's dtype (byte order included; a dtype object of its
        own, as ``np.load`` gives), shape and memory order (a Fortran-order file gives an
        F-contiguous array), writable. Its memory is the buffer npyguard read the file into
        (no second copy). With ``mmap_mode``, an ``np.memmap``; for a ``.npz``, an
        :class:`NpzFile` (close it, or use it as a context manager).

    Raises:
        FormatError: the bytes are not a valid ``.npy`` file npyguard reads (a
            ``ValueError``, as ``np.load``'s format errors).
        EndOfFileError: the input has no byte (an empty file, a stream at its end): an
            ``EOFError``, as ``np.load`` raises.
        LimitError: a limit was exceeded.
        IoError: the file could not be opened or read: an ``OSError`` too, of the class
            ``open`` raises (``FileNotFoundError``, ``IsADirectoryError``,
            ``PermissionError``, ...); what a file object's ``read()`` raised is its
            ``__cause__``, except ``KeyboardInterrupt``, ``SystemExit`` and other
            other exceptions that are not ``Exception`` instances, which propagate unchanged.
    """
    _check_encoding(encoding)
    limits = _limits(max_file_bytes, max_header_bytes, max_header_size, numpy_strict, allow_trailing_bytes)
    kind, src = _classify(file)
    if kind == "path":
        magic = _path_magic(src)
    elif kind == "bytes":
        magic = src[: len(_NPY_MAGIC)]
    else:
        magic = _stream_magic(src)
    if magic is not None and magic.startswith(_ZIP_PREFIXES):
        return load_npz(
            src,
            max_header_size=max_header_size,
            max_file_bytes=max_file_bytes,
            max_header_bytes=max_header_bytes,
            numpy_strict=numpy_strict,
            allow_trailing_bytes=allow_trailing_bytes,
        )
    if mmap_mode:  # as np.load: '' and False read without a map
        if kind == "path":
            return _memmap(src, mmap_mode, limits, allow_pickle)
        if kind == "stream" and _is_real_file(src):
            raise ValueError(
                "Filename must be a string or a path-like object.  Memmap cannot use "
                "existing file handles."
            )
        raise TypeError(f"mmap_mode needs a path, not {type(file).__name__}")
    if kind == "path":
        loaded = _native_call(_native.read_path, src, limits, path=src, allow_pickle=allow_pickle)
    elif kind == "bytes":
        loaded = _native_call(_native.read_buffer, src, limits, allow_pickle=allow_pickle)
    else:
        loaded = _native_call(_native.read_stream, src, limits, allow_pickle=allow_pickle)
    return _array(loaded)


def inspect(
    source: Source,
    *,
    max_header_size: Optional[int] = DEFAULT_MAX_HEADER_SIZE,
    max_file_bytes: Optional[int] = None,
    max_header_bytes: Optional[int] = None,
    numpy_strict: bool = False,
    allow_trailing_bytes: bool = False,
) -> Dict[str, Any]:
    """Reads only the header and returns it as a dict.

    The keys: ``version`` (e.g. ``(1, 0)``), ``descr`` (as in the file's header dict),
    ``dtype`` (NumPy's), ``shape``, ``fortran_order``, ``payload_offset`` and
    ``payload_bytes``. For a path or bytes, the length is checked as a full read would
    check it (``max_file_bytes``, truncation, trailing bytes), as ``npyguard inspect``
    does; a file object is read only up to the end of the header. The limits are
    :func:`load`'s.
    """
    limits = _limits(max_file_bytes, max_header_bytes, max_header_size, numpy_strict, allow_trailing_bytes)
    kind, src = _classify(source)
    if kind == "path":
        loaded = _native_call(_native.header_path, src, limits, path=src)
    elif kind == "bytes":
        loaded = _native.header_buffer(src, limits)
    else:
        loaded = _native.header_stream(src, limits)
    return _header_dict(loaded)


def validate(
    source: Source,
    *,
    max_header_size: Optional[int] = DEFAULT_MAX_HEADER_SIZE,
    max_file_bytes: Optional[int] = None,
    max_header_bytes: Optional[int] = None,
    numpy_strict: bool = False,
    allow_trailing_bytes: bool = False,
) -> Optional[Error]:
    """Checks a whole ``.npy`` file as :func:`load` would, without building an array.

    Returns ``None`` when the file is valid, else the :class:`Error` that :func:`load`
    would raise (returned, not raised: convenient for reporting many files).
    """
    try:
        limits = _limits(max_file_bytes, max_header_bytes, max_header_size, numpy_strict, allow_trailing_bytes)
        kind, src = _classify(source)
        if kind == "path":
            _native_call(_native.read_path, src, limits, path=src)
        elif kind == "bytes":
            _native.read_buffer(src, limits)
        else:
            _native.read_stream(src, limits)
    except Error as err:
        return err
    return None


def _dict_text(d: Dict[str, Any]) -> str:
    # np.lib.format._wrap_header's dict text: sorted keys, repr values.
    return "{" + "".join(f"'{k}': {v!r}, " for k, v in sorted(d.items())) + "}"


def _npy_parts(array: Any) -> Tuple[bytes, np.ndarray]:
    """``np.save``'s header bytes for ``array`` (validated by npyguard's writer: object
    arrays and other dtypes npyguard does not read raise :class:`Error`) and the array in
    the memory order its payload is written in."""
    array = np.asanyarray(array)
    fortran_order = bool(array.flags.f_contiguous and not array.flags.c_contiguous)
    header = {
        "descr": np.lib.format.dtype_to_descr(array.dtype),
        "fortran_order": fortran_order,
        "shape": array.shape,
    }
    head = _native.save_header(_dict_text(header))
    # np.save's warnings for the versions older NumPys cannot read.
    if head[6:7] == b"\x02":
        warnings.warn("Stored array in format 2.0. It can only be read by NumPy >= 1.9",
                      UserWarning, stacklevel=3)
    elif head[6:7] == b"\x03":
        warnings.warn("Stored array in format 3.0. It can only be read by NumPy >= 1.17",
                      UserWarning, stacklevel=3)
    return head, (array.T if fortran_order else array)


#: Bytes handed to a file object's write() at a time by save().
_WRITE_CHUNK = 1 << 24


def _write_npy(f: Any, head: bytes, data: np.ndarray) -> None:
    f.write(head)
    if _is_real_file(f):
        f.flush()
        data.tofile(f)
        return
    # The payload in C order as bytes, handed over in slices (no copy of a C-contiguous
    # array; viewed as uint8 so that every dtype, datetimes included, has a buffer).
    flat = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    view = memoryview(flat)
    for start in range(0, len(view), _WRITE_CHUNK):
        f.write(view[start : start + _WRITE_CHUNK])


def save(
    file: Union[str, "os.PathLike[str]", BinaryIO],
    arr: Any,
    allow_pickle: bool = True,
    fix_imports: bool = True,
) -> None:
    """Writes ``arr`` as a ``.npy`` file, byte-identical to ``np.save(file, arr)``.

    The header is npyguard's writer's (which validates the dtype: object arrays and
    other dtypes npyguard does not read raise :class:`Error`, whatever ``allow_pickle``
    says: it and ``fix_imports`` are accepted for compatibility), with ``np.save``'s version
    choice (1.0, 2.0 for long headers, 3.0 for non-Latin-1 field names), padding and
    growth space; the payload is the array's bytes in its memory order (Fortran order
    for an F-contiguous, non-C-contiguous array, as ``np.save`` decides).

    As ``np.save``, a path (``str`` or ``os.PathLike``) that does not end in ``.npy`` gets
    ``.npy`` appended; a file object is written at its position.
    """
    head, data = _npy_parts(arr)
    if hasattr(file, "write"):
        _write_npy(file, head, data)
        return
    path = os.fspath(file)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not path.endswith(".npy"):
        path += ".npy"
    with io.open(path, "wb") as f:
        _write_npy(f, head, data)


def _savez(file: Any, args: Tuple[Any, ...], kwds: Dict[str, Any], compress: bool) -> None:
    # np.savez's naming, suffix and zip settings (numpy/lib/_npyio_impl.py, _savez).
    if not hasattr(file, "write"):
        file = os.fspath(file)
        if isinstance(file, bytes):
            file = os.fsdecode(file)
        if not file.endswith(".npz"):
            file = file + ".npz"
    namedict = dict(kwds)
    for i, val in enumerate(args):
        key = "arr_%d" % i
        if key in namedict:
            raise ValueError(f"Cannot use un-named variables and keyword {key}")
        namedict[key] = val
    # Every member's header is built (and its dtype validated) before the archive is
    # created: a refused array leaves no partial archive behind.
    parts = {key: _npy_parts(val) for key, val in namedict.items()}
    compression = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(file, mode="w", compression=compression, allowZip64=True) as zipf:
        for key, (head, data) in parts.items():
            # np.savez forces zip64 records for every member (numpy gh-10776).
            with zipf.open(key + ".npy", "w", force_zip64=True) as fid:
                _write_npy(fid, head, data)


def savez(file: Any, *args: Any, allow_pickle: bool = True, **kwds: Any) -> None:
    """Writes several arrays into an uncompressed ``.npz`` archive, as ``np.savez``: the
    same member names (``arr_0``, ... for positional arrays, the keywords' names),
    ``.npz`` appended to a path without it, each member the bytes :func:`save` writes
    (``np.save``'s). Object arrays are refused (``allow_pickle`` is accepted for
    compatibility), before the archive is created."""
    _savez(file, args, kwds, False)


def savez_compressed(file: Any, *args: Any, allow_pickle: bool = True, **kwds: Any) -> None:
    """:func:`savez` with deflate-compressed members, as ``np.savez_compressed``."""
    _savez(file, args, kwds, True)


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


class _Closing:
    """A context manager whose exit calls ``close()`` (:class:`NpzFile`, :class:`LazyArray`)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class NpzFile(_Closing, Mapping):
    """A ``.npz`` archive opened by :func:`load_npz` (or :func:`load`): a lazy, read-only
    mapping from array names to arrays, like NumPy's ``NpzFile``.

    The zip structure is checked when the archive is opened; a member is read and
    inflated (under the archive limits) only when it is looked up, every time it is
    looked up. Keys are the array names, with or without ``.npy``; any other key
    (including one that is not a string) raises ``KeyError``, so ``get`` returns its
    default. Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, native: Any) -> None:
        self._native = native
        self.files: List[str] = native.names()
        # Lookup table: each name, and each name with .npy (np.load's NpzFile accepts both).
        self._names: Dict[str, str] = {f"{n}.npy": n for n in self.files}
        self._names.update({n: n for n in self.files})

    def _key(self, key: Any) -> str:
        try:
            return self._names[key]
        except KeyError:
            raise KeyError(f"{key} is not a file in the archive") from None

    def __getitem__(self, key: str) -> np.ndarray:
        # The member's payload is inflated straight into the array's memory (one buffer of
        # the member's size, as np.load), under the archive limits.
        return _array(self._native.member_raw(self._key(key)))

    def open(self, key: str) -> "LazyArray":
        """Member ``key`` as a :class:`LazyArray`: shape and dtype from its header alone.
        A stored member of an archive opened from a path is read by its rows' byte range
        (its CRC is then not checked); otherwise ``[a:b]`` streams the member from its
        start through the archive limits and keeps only the rows asked for (a deflated
        member cannot be entered in the middle; reading stops after the last row asked
        for, so the member's CRC is checked only when its last row is read)."""
        return LazyArray(_MemberRows(self._native, self._key(key)))

    def header(self, key: str) -> Dict[str, Any]:
        """The header of member ``key`` as :func:`inspect` returns it."""
        return _header_dict(self._native.member_header(self._key(key)))

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def __contains__(self, key: object) -> bool:
        try:
            return key in self._names
        except TypeError:
            return False

    def close(self) -> None:
        """Closes the archive's file; later lookups raise ``ValueError``."""
        self._native.close()

    def __repr__(self) -> str:
        return f"<npyguard.NpzFile {self.files!r}>"


class _MemberRows:
    """Rows of an archive member, for :class:`LazyArray`."""

    def __init__(self, native: Any, name: str) -> None:
        self._native = native
        self._name = name
        self.loaded = native.member_header(name)
        _p, _o, descr, shape, _f, _v, _n = self.loaded
        itemsize = max(1, _dtype(descr).itemsize)
        row = itemsize
        for n in shape[1:]:
            row *= max(1, n)
        # About 8 MiB of rows per chunk read.
        self._chunk = max(1, (8 << 20) // row)

    def read_rows(self, start: int, stop: int) -> np.ndarray:
        parts = self._native.member_rows(self._name, start, stop, self._chunk)
        arrays = [(at, _array(t)) for at, t in parts]
        if len(arrays) == 1:
            at, a = arrays[0]
        else:
            at = arrays[0][0]
            a = np.concatenate([a for _, a in arrays], axis=0)
        if a.ndim == 0:
            return a
        return a[start - at : stop - at]

    def close(self) -> None:
        pass


class LazyArray(_Closing):
    """A ``.npy`` file (or an archive member) opened by :func:`open`: ``shape``,
    ``dtype``, ``ndim``, ``fortran_order`` and ``len()`` come from the header alone (checked
    with the file's length as a full read checks it); indexing along the first axis reads
    only the rows it selects: ``h[a:b]`` (Python's slice semantics, negative indices and
    steps: the rows from the first to the last selected are read), ``h[i]``, ``h[i, ...]``
    (the first index selects rows, the rest is applied by NumPy to them). ``h[:]`` or
    :meth:`read` reads the whole array. A context manager; :meth:`close` closes the file.

    A ``.npy`` file's rows are read by their byte range (``npyguard.RowReader``): a
    C-order file's rows are one read, a Fortran-order file's rows are gathered (one read
    per column). The returned arrays are ordinary, writable arrays with the file's dtype.
    """

    def __init__(self, rows: Any) -> None:
        self._rows = rows
        _p, offset, descr, shape, fortran_order, version, nbytes = rows.loaded
        self.shape: Tuple[int, ...] = tuple(shape)
        self.dtype: np.dtype = _dtype(descr)
        self.fortran_order: bool = bool(fortran_order)
        self._header = rows.loaded

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def header(self) -> Dict[str, Any]:
        """The header as :func:`inspect` returns it."""
        return _header_dict(self._header)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def _read(self, start: int, stop: int) -> np.ndarray:
        if stop <= start:
            return np.empty((0,) + self.shape[1:], dtype=self.dtype)
        return self._rows.read_rows(start, stop)

    def read(self) -> np.ndarray:
        """The whole array."""
        if not self.shape:
            return self._rows.read_rows(0, 1)
        return self._read(0, self.shape[0])

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = self.read()
        return a if dtype is None else a.astype(dtype)

    def __getitem__(self, key: Any) -> np.ndarray:
        if not self.shape:
            return self.read()[key]
        rest: Tuple[Any, ...] = ()
        if isinstance(key, tuple):
            if not key:
                return self.read()
            key, rest = key[0], key[1:]
        n = self.shape[0]
        if isinstance(key, slice):
            start, stop, step = key.indices(n)
            if step == 1:
                part = self._read(start, stop)
            else:
                idx = range(start, stop, step)
                if len(idx) == 0:
                    part = self._read(0, 0)
                else:
                    lo, hi = min(idx), max(idx) + 1
                    block = self._read(lo, hi)
                    part = block[np.arange(len(idx)) * step + (idx.start - lo)]
            if rest:
                return part[(slice(None),) + rest]
            return part
        elif isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            i = int(key)
            if i < -n or i >= n:
                raise IndexError(f"index {i} is out of bounds for axis 0 with size {n}")
            if i < 0:
                i += n
            part = self._read(i, i + 1)[0]
        elif key is Ellipsis:
            part = self.read()
            return part[(Ellipsis,) + rest] if rest else part
        else:
            raise TypeError(
                "a LazyArray is indexed by an int or a slice along its first axis "
                f"(then anything NumPy takes), not {type(key).__name__}"
            )
        return part[rest] if rest else part

    def close(self) -> None:
        """Closes the file (a file object passed to :func:`open` is left open)."""
        self._rows.close()

    def __repr__(self) -> str:
        return f"<npyguard.LazyArray shape={self.shape} dtype={self.dtype}>"


class _FileRows:
    """Rows of a ``.npy`` file, for :class:`LazyArray`."""

    def __init__(self, native: Any) -> None:
        self._native = native
        self.loaded = native.header()

    def read_rows(self, start: int, stop: int) -> np.ndarray:
        return _array(self._native.read_rows(start, stop))

    def close(self) -> None:
        self._native.close()


def open(
    file: Union[str, "os.PathLike[str]", BinaryIO],
    *,
    max_header_size: Optional[int] = DEFAULT_MAX_HEADER_SIZE,
    max_file_bytes: Optional[int] = None,
    max_header_bytes: Optional[int] = None,
    numpy_strict: bool = False,
    allow_trailing_bytes: bool = False,
    max_members: Optional[int] = DEFAULT_MAX_NPZ_MEMBERS,
    max_total_bytes: Optional[int] = None,
    max_ratio: Optional[int] = DEFAULT_MAX_NPZ_RATIO,
) -> Union[LazyArray, "NpzFile"]:
    """Opens a ``.npy`` file for lazy, partial reads (safetensors' ``safe_open`` +
    ``get_slice``): a :class:`LazyArray` whose ``shape``/``dtype`` come from the header
    and whose ``[a:b]`` reads only those rows. ``file`` is a path or a seekable binary file
    object. A ``.npz`` archive gives its :class:`NpzFile` (as :func:`load_npz`), whose
    :meth:`NpzFile.open` gives a member's :class:`LazyArray`. The limits are
    :func:`load`'s and :func:`load_npz`'s.
    """
    limits = _limits(max_file_bytes, max_header_bytes, max_header_size, numpy_strict, allow_trailing_bytes)
    kind, src = _classify(file)
    if kind == "bytes":
        raise TypeError("open takes a path or a seekable binary file object (use load for bytes)")
    magic = _path_magic(src) if kind == "path" else _stream_magic(src)
    if magic is not None and magic[:4] in _ZIP_PREFIXES:
        return load_npz(
            file, max_header_size=max_header_size, max_file_bytes=max_file_bytes,
            max_header_bytes=max_header_bytes, numpy_strict=numpy_strict,
            allow_trailing_bytes=allow_trailing_bytes, max_members=max_members,
            max_total_bytes=max_total_bytes, max_ratio=max_ratio,
        )
    native = _native_call(_native.RowFile, src, limits, path=src if kind == "path" else None)
    return LazyArray(_FileRows(native))


def load_npz(
    source: Source,
    *,
    max_header_size: Optional[int] = DEFAULT_MAX_HEADER_SIZE,
    max_file_bytes: Optional[int] = None,
    max_header_bytes: Optional[int] = None,
    numpy_strict: bool = False,
    allow_trailing_bytes: bool = False,
    max_members: Optional[int] = DEFAULT_MAX_NPZ_MEMBERS,
    max_total_bytes: Optional[int] = None,
    max_ratio: Optional[int] = DEFAULT_MAX_NPZ_RATIO,
) -> NpzFile:
    """Opens a ``.npz`` archive (``np.savez`` / ``np.savez_compressed``) lazily.

    ``source`` is a path, the archive's bytes, or a seekable binary file object (read
    through its ``read``/``seek`` as members are looked up, as ``np.load`` reads it: keep
    it open while the archive is used; :meth:`NpzFile.close` does not close it).
    ``max_header_size``, ``max_file_bytes`` and the other ``.npy`` limits of :func:`load`
    apply to each member; ``max_members`` caps the number of members, ``max_total_bytes``
    the sum of the members' decompressed sizes, ``max_ratio`` each member's
    decompressed/compressed ratio (``None``: no limit). The zip structure is checked when
    the archive is opened (duplicate names, mismatched local headers, gaps, encryption, ...
    are refused).
    """
    limits = _limits(max_file_bytes, max_header_bytes, max_header_size, numpy_strict, allow_trailing_bytes)
    kind, src = _classify(source)
    native = _native_call(
        _native.NpzFile, src, limits, max_members, max_total_bytes, max_ratio,
        path=src if kind == "path" else None,
    )
    return NpzFile(native)


# ------------------------------------------------------------------------------- arrow


def to_arrow(
    source: Union[str, "os.PathLike[str]", bytes, bytearray, memoryview],
    layout: str = "columns",
    *,
    batch_rows: Optional[int] = None,
    max_header_size: Optional[int] = DEFAULT_MAX_HEADER_SIZE,
    max_file_bytes: Optional[int] = None,
    max_header_bytes: Optional[int] = None,
    numpy_strict: bool = False,
    allow_trailing_bytes: bool = False,
) -> "_native.ArrowDataset":
    """A ``.npy`` file as an Arrow table, without writing a file.

    The result implements the Arrow PyCapsule interface (``__arrow_c_stream__``), so
    ``pyarrow.table(t)``, ``polars.from_arrow(t)`` (or ``polars.DataFrame(t)``) and
    ``duckdb.sql("SELECT ... FROM t")`` read it directly. ``layout`` is one of
    ``"columns"`` (``c1..cN``), ``"rowlists"`` (``c1``: a fixed-size list per row) or
    ``"nonzeros"`` (``row_no``, ``col_no``, ``val``), with the types and values of
    ``npyguard convert --to parquet --layout LAYOUT``. The limits are :func:`load`'s.
    """
    limits = _limits(max_file_bytes, max_header_bytes, max_header_size, numpy_strict, allow_trailing_bytes)
    kind, src = _classify(source)
    if kind == "stream":
        raise TypeError("to_arrow takes a path or the file's bytes")
    return _native_call(
        _native.ArrowDataset, src, layout, batch_rows, limits,
        path=src if kind == "path" else None,
    )
