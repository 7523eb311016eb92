"""The exceptions npyguard raises: one base class, one subclass per error category.

Every error of the Rust library arrives as an instance of the subclass for its category,
with the library's fields as attributes and its message (the CLI's, word for word) as
``str(err)``.
"""

from __future__ import annotations

from typing import Optional

__all__ = ["Error", "FormatError", "LimitError", "IoError", "UsageError", "InternalError"]


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
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.category = category
        self.offset = offset
        self.expected = expected
        self.found = found

    def __reduce__(self):  # picklable across processes (Dask, multiprocessing)
        return (
            _rebuild,
            (type(self), str(self), self.kind, self.category, self.offset, self.expected, self.found),
        )


class FormatError(Error):
    """The input is not a valid or supported ``.npy``/``.npz`` file (bad magic, header
    syntax, duplicate keys, truncated payload, trailing bytes, object dtype, ...)."""


class LimitError(Error):
    """The input exceeds a limit (``max_file_bytes``, ``max_header_bytes``, an archive
    limit, a fixed limit of npyguard such as the nesting depth)."""


class IoError(Error):
    """The operating system or the file object failed (missing file, permission, a
    ``read()`` that raised)."""


class UsageError(Error):
    """The call asked for something inconsistent (a member that does not exist, an
    unknown layout, data that does not fit a layout)."""


class InternalError(Error):
    """npyguard failed an invariant: a bug worth reporting."""


for _cls in (Error, FormatError, LimitError, IoError, UsageError, InternalError):
    _cls.__module__ = "npyguard"

_BY_CATEGORY = {
    "format": FormatError,
    "limit": LimitError,
    "io": IoError,
    "usage": UsageError,
    "internal": InternalError,
}


def _rebuild(cls, message, kind, category, offset, expected, found):
    return cls(message, kind=kind, category=category, offset=offset, expected=expected, found=found)


def _from_native(
    message: str,
    kind: str,
    category: str,
    offset: Optional[int],
    expected: str,
    found: Optional[str],
) -> Error:
    """Builds the exception for an error of the Rust library (called by ``_native``)."""
    cls = _BY_CATEGORY.get(category, Error)
    return cls(message, kind=kind, category=category, offset=offset, expected=expected, found=found)
