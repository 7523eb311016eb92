"""The exceptions npyguard raises: one base class, one subclass per error category.

Every error of the Rust library arrives as an instance of the subclass for its category,
with the library's fields as attributes and its message (the CLI's, word for word) as
``str(err)``.
"""

from __future__ import annotations

import errno as _errno
import os as _os
import pickle as _pickle
import zipfile as _zipfile
from typing import Optional

__all__ = [
    "Error",
    "FormatError",
    "LimitError",
    "IoError",
    "UsageError",
    "InternalError",
    "EndOfFileError",
    "PickleRefusedError",
    "ZipFormatError",
]


class Error(ValueError):
    """Base class of every npyguard error (a ``ValueError``, as NumPy's load errors are).

    Attributes:
        kind: the error's kind, a short stable name such as ``"bad-magic"``,
            ``"file-too-large"`` or ``"trailing-bytes"`` (npyguard's ``ErrorKind::name``).
        category: ``"format"``, ``"limit"``, ``"io"``, ``"usage"`` or ``"internal"``.
        offset: the byte offset in the input where the error was detected, or ``None``
            when it concerns no position of an input.
        expected: what the reader expected there.
        found: what it found instead, when known.

    ``str(err)`` is the message of the ``npyguard`` command-line tool, for every class
    (also for the :class:`IoError` classes, which are ``OSError`` subclasses too).
    """

    kind: str
    category: str
    offset: Optional[int]
    expected: str
    found: Optional[str]

    def __init__(
        self,
        message: str,
        *,
        kind: str = "internal",
        category: str = "internal",
        offset: Optional[int] = None,
        expected: str = "",
        found: Optional[str] = None,
        errno: Optional[int] = None,
        filename: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.category = category
        self.offset = offset
        self.expected = expected
        self.found = found
        if isinstance(self, OSError):
            # OSError's own attributes, as open() sets them (errno None when the failure
            # has no operating-system error number: a read() that raised, say).
            self.errno = errno
            self.strerror = _os.strerror(errno) if errno is not None else None
            self.filename = filename

    def __str__(self) -> str:
        # The message (OSError.__str__ would print "[Errno n] strerror: filename").
        return str(self.args[0]) if self.args else ""

    def __reduce__(self):  # picklable across processes (Dask, multiprocessing)
        return (
            _rebuild,
            (
                type(self),
                str(self),
                self.kind,
                self.category,
                self.offset,
                self.expected,
                self.found,
                getattr(self, "errno", None) if isinstance(self, OSError) else None,
                getattr(self, "filename", None) if isinstance(self, OSError) else None,
            ),
        )


class FormatError(Error):
    """The input is not a valid or supported ``.npy``/``.npz`` file (bad magic, header
    syntax, duplicate keys, truncated payload, trailing bytes, object dtype, ...)."""


class LimitError(Error):
    """The input exceeds a limit (``max_file_bytes``, ``max_header_bytes``,
    ``max_header_size``, an archive limit, a fixed limit of npyguard such as the nesting
    depth)."""


class IoError(Error, OSError):
    """The operating system or the file object failed (missing file, permission, a
    ``read()`` that raised). Also an ``OSError``, as ``np.load``'s I/O errors are: a
    failure with an operating-system error number raises the subclass of both this class
    and the ``OSError`` subclass Python itself raises for that number
    (``FileNotFoundError``, ``IsADirectoryError``, ``PermissionError``, ...), with
    ``errno``, ``strerror`` and ``filename`` set; an exception a file object's ``read()``
    raised is the ``__cause__``."""


class UsageError(Error):
    """The call asked for something inconsistent (a member that does not exist, an
    unknown layout, data that does not fit a layout)."""


class InternalError(Error):
    """npyguard failed an invariant: a bug worth reporting."""


class EndOfFileError(FormatError, EOFError):
    """The input has no byte at all: an empty file, or a stream already read to its end
    (reading consecutive arrays from one stream). ``np.load`` raises ``EOFError`` ("No
    data left in file") there; this is both that and a :class:`FormatError` (kind
    ``truncated``, offset 0)."""


class PickleRefusedError(FormatError, _pickle.UnpicklingError):
    """``allow_pickle=True`` was given and the input is neither a ``.npy`` nor a ``.npz``
    file: ``np.load`` would unpickle it (raising ``pickle.UnpicklingError`` when that
    fails); npyguard never loads pickles or object arrays. Both a :class:`FormatError` and a
    ``pickle.UnpicklingError``."""


class ZipFormatError(FormatError, _zipfile.BadZipFile):
    """The archive itself is broken: its zip structure (kind ``zip-format``), a local
    header that disagrees with the central directory (``zip-header-mismatch``), a member
    whose CRC or size is not the one declared (``crc-mismatch``, ``size-mismatch``).
    ``np.load`` raises ``zipfile.BadZipFile`` there; this is both that and a
    :class:`FormatError`."""


#: The kinds of :class:`ZipFormatError` (``zipfile`` raises ``BadZipFile`` for each).
_ZIP_KINDS = frozenset({"zip-format", "zip-header-mismatch", "crc-mismatch", "size-mismatch"})


for _cls in (
    Error,
    FormatError,
    LimitError,
    IoError,
    UsageError,
    InternalError,
    EndOfFileError,
    PickleRefusedError,
    ZipFormatError,
):
    _cls.__module__ = "npyguard"

_BY_CATEGORY = {
    "format": FormatError,
    "limit": LimitError,
    "io": IoError,
    "usage": UsageError,
    "internal": InternalError,
}

# IoError subclasses for the OSError subclasses Python raises for an error number (its
# own mapping: type(OSError(n, "")) is FileNotFoundError for ENOENT, ...). Module-level
# names, so that they pickle.
_IO_BY_OS_CLASS = {}
for _os_cls in (
    FileNotFoundError,
    FileExistsError,
    IsADirectoryError,
    NotADirectoryError,
    PermissionError,
    InterruptedError,
    BlockingIOError,
    TimeoutError,
    BrokenPipeError,
    ConnectionAbortedError,
    ConnectionRefusedError,
    ConnectionResetError,
    ChildProcessError,
    ProcessLookupError,
):
    _name = f"{_os_cls.__name__[: -len('Error')]}IoError"
    _new = type(
        _name,
        (IoError, _os_cls),
        {"__doc__": f"An :class:`IoError` that is a ``{_os_cls.__name__}``.", "__module__": __name__},
    )
    globals()[_name] = _new
    _IO_BY_OS_CLASS[_os_cls] = _new
del _os_cls, _name, _new


def _io_class(errno: Optional[int]) -> type:
    if errno is None:
        return IoError
    return _IO_BY_OS_CLASS.get(type(OSError(errno, "")), IoError)


def _rebuild(cls, message, kind, category, offset, expected, found, errno=None, filename=None):
    return cls(
        message,
        kind=kind,
        category=category,
        offset=offset,
        expected=expected,
        found=found,
        errno=errno,
        filename=filename,
    )


def _from_native(
    message: str,
    kind: str,
    category: str,
    offset: Optional[int],
    expected: str,
    found: Optional[str],
    errno: Optional[int] = None,
) -> Error:
    """Builds the exception for an error of the Rust library (called by ``_native``)."""
    cls = _BY_CATEGORY.get(category, Error)
    if category == "io":
        cls = _io_class(errno)
    elif kind == "truncated" and offset == 0:
        cls = EndOfFileError
    elif category == "format" and kind in _ZIP_KINDS:
        cls = ZipFormatError
    return cls(
        message, kind=kind, category=category, offset=offset, expected=expected, found=found,
        errno=errno,
    )


def _for_path(err: Error, path: str) -> Error:
    """``err`` (from reading the file at ``path``) with ``filename`` set; an I/O error
    without an error number on a directory becomes ``IsADirectoryError``'s class, as
    ``open()`` on a directory raises (npyguard opens it, then refuses to read it)."""
    if not isinstance(err, IoError):
        return err
    errno = err.errno
    if errno is None and _os.path.isdir(path):
        errno = _errno.EISDIR
    new = _rebuild(
        _io_class(errno), str(err), err.kind, err.category, err.offset, err.expected,
        err.found, errno, path,
    )
    new.__cause__ = err.__cause__
    return new


def _from_os_error(action: str, exc: BaseException) -> Error:
    """The :class:`IoError` for an exception raised while ``action`` (a Python ``open``,
    a file object's ``read`` or ``seek``), with ``exc`` to be its ``__cause__``."""
    errno = getattr(exc, "errno", None) if isinstance(exc, OSError) else None
    reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    message = f"{action}: {reason}" + (f" (os error {errno})" if errno is not None else "")
    return _io_class(errno)(
        message, kind="io", category="io", offset=None, expected=action, found=reason,
        errno=errno, filename=getattr(exc, "filename", None) if isinstance(exc, OSError) else None,
    )
