"""Type stubs of the compiled module ``npyguard._native`` (see src/lib.rs).

Internal: use the functions of ``npyguard`` itself. The read functions return
``(payload, payload_offset, descr_text, shape, fortran_order, version_text, payload_len)``;
the header functions the same tuple with ``None`` as payload.
"""

from os import PathLike
from typing import Any, BinaryIO, Dict, List, Optional, Tuple, Union

__version__: str
DEFAULT_MAX_HEADER_BYTES: int
DEFAULT_MAX_NPZ_MEMBERS: int
DEFAULT_MAX_NPZ_RATIO: int

_Path = Union[str, PathLike[str]]
_Loaded = Tuple[Optional["Payload"], int, str, Tuple[int, ...], bool, str, int]
_Limits = Tuple[Optional[int], int, Optional[int], bool, bool]

class Payload:
    """A validated file's bytes, handed to NumPy (writable) through the array interface."""

    def __len__(self) -> int: ...
    @property
    def __array_interface__(self) -> Dict[str, Any]: ...
    @property
    def mapped(self) -> bool: ...

def read_path(
    path: _Path, max_file_bytes: Optional[int], max_header_bytes: int,
    max_header_chars: Optional[int], numpy_strict: bool, allow_trailing_bytes: bool,
) -> _Loaded: ...
def read_buffer(
    data: bytes, max_file_bytes: Optional[int], max_header_bytes: int,
    max_header_chars: Optional[int], numpy_strict: bool, allow_trailing_bytes: bool,
) -> _Loaded: ...
def read_stream(
    file: BinaryIO, max_file_bytes: Optional[int], max_header_bytes: int,
    max_header_chars: Optional[int], numpy_strict: bool, allow_trailing_bytes: bool,
) -> _Loaded: ...
def header_path(
    path: _Path, max_file_bytes: Optional[int], max_header_bytes: int,
    max_header_chars: Optional[int], numpy_strict: bool, allow_trailing_bytes: bool,
) -> _Loaded: ...
def header_buffer(
    data: bytes, max_file_bytes: Optional[int], max_header_bytes: int,
    max_header_chars: Optional[int], numpy_strict: bool, allow_trailing_bytes: bool,
) -> _Loaded: ...
def header_stream(
    file: BinaryIO, max_file_bytes: Optional[int], max_header_bytes: int,
    max_header_chars: Optional[int], numpy_strict: bool, allow_trailing_bytes: bool,
    length: Optional[int] = None,
) -> _Loaded: ...
def save_header(text: str) -> bytes: ...

class NpzFile:
    def __init__(
        self, source: Union[_Path, bytes, BinaryIO], max_file_bytes: Optional[int],
        max_header_bytes: int, max_header_chars: Optional[int], numpy_strict: bool,
        allow_trailing_bytes: bool, max_members: Optional[int],
        max_total_bytes: Optional[int], max_ratio: Optional[int],
    ) -> None: ...
    def names(self) -> List[str]: ...
    def member_raw(self, name: str) -> _Loaded: ...
    def member_rows(
        self, name: str, start: int, stop: int, rows_per_chunk: int
    ) -> List[Tuple[int, _Loaded]]: ...
    def member_header(self, name: str) -> _Loaded: ...
    def close(self) -> None: ...

class RowFile:
    """A validated .npy opened for reading by rows (npyguard::RowReader)."""

    def __init__(
        self, source: Union[_Path, BinaryIO], max_file_bytes: Optional[int],
        max_header_bytes: int, max_header_chars: Optional[int], numpy_strict: bool,
        allow_trailing_bytes: bool,
    ) -> None: ...
    def header(self) -> _Loaded: ...
    def read_rows(self, start: int, stop: int) -> _Loaded: ...
    def close(self) -> None: ...

class ArrowDataset:
    """An Arrow table over a validated array (Arrow PyCapsule interface)."""

    def __init__(
        self, source: Union[_Path, bytes], layout: str, batch_rows: Optional[int],
        max_file_bytes: Optional[int], max_header_bytes: int, max_header_chars: Optional[int],
        numpy_strict: bool, allow_trailing_bytes: bool,
    ) -> None: ...
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    def __arrow_c_schema__(self) -> object: ...
    @property
    def num_input_rows(self) -> int: ...
    @property
    def layout(self) -> str: ...
