//! `npyguard._native`: the Rust half of the `npyguard` Python package.
//!
//! The package's public functions live in `pysrc/npyguard/__init__.py`; this module does
//! everything that touches untrusted bytes, with npyguard's limits and checks, and hands
//! Python back only validated results:
//!
//! - [`read_path`], [`read_buffer`], [`read_stream`]: a whole `.npy` under
//!   [`ReadOptions`], checked exactly as `npyguard::read_path` / `read_bytes` /
//!   `read_from` check it (same errors: `read_raw_path`, `View::new`, `read_raw_from`; see
//!   [`raw`]), returned as a [`Payload`] (the payload's bytes as the file holds them,
//!   handed to NumPy through the array interface, writable) plus the header's fields; NumPy
//!   then builds the array over those bytes (`np.frombuffer(np.asarray(payload), dtype)`),
//!   so there is no second copy and the dtype is the file's own (big-endian, records,
//!   `S`/`U`/`V`, datetimes).
//! - [`header_path`], [`header_buffer`], [`header_stream`]: the header alone (`inspect`).
//! - [`save_header`]: `np.save`'s header for a header dict, via npyguard's writer.
//! - [`NpzFile`]: a lazy `.npz` archive (one member read per request, archive limits): a
//!   member's payload inflated straight into the buffer NumPy's array is built over
//!   (`NpzArchive::read_raw`), or rows of it (a stored member by byte range, a deflated one
//!   streamed by `row_chunks`).
//! - [`RowFile`]: a `.npy` read by rows (`npyguard::RowReader`), for `npyguard.open`.
//! - [`ArrowDataset`]: an Arrow C stream (`__arrow_c_stream__`) over a dataset layout.
//!
//! Errors are raised as the `npyguard.Error` subclasses of `npyguard._errors`, built from
//! `npyguard::Error`'s kind, category, offset, expected text, `Display` (the CLI's
//! message) and, for an operating-system error, its `errno` (an `OSError` subclass).
//! What a Python file object's own `read`/`seek` raised is chained or re-raised
//! ([`stream_err`]).
//!
//! The package has no `unsafe` (the crate forbids `unsafe_code`): NumPy gets a payload's
//! memory through the array interface of [`Payload`], which hands over its address as a
//! number (see there why that is sound).

use std::fs::File;
use std::io::{Cursor, Read};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::ffi::FFI_ArrowSchema;
use arrow_schema::{ArrowError, SchemaRef};
use npyguard::arrow::{Dataset, Layout};
use npyguard::{Error, Header, Opened, ReadOptions};
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyCapsule, PyDict, PyTuple};

mod raw;

// ------------------------------------------------------------------------------ errors

/// Converts an npyguard error into the matching `npyguard.Error` subclass (by category),
/// carrying `kind`, `category`, `offset`, `expected`, `found` and the CLI's message.
fn to_py_err(py: Python<'_>, err: Error) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let errors = py.import("npyguard._errors")?;
        let value = errors.getattr("_from_native")?.call1((
            err.to_string(),
            err.kind().name(),
            format!("{:?}", err.category()).to_lowercase(),
            err.offset(),
            err.expected(),
            err.found_text(),
            os_errno(&err),
        ))?;
        Ok(PyErr::from_value(value))
    };
    build().unwrap_or_else(|e| e)
}

/// The operating system's error number behind an I/O error (`ENOENT`, `EACCES`, ...), when
/// there is one: Python raises the matching `OSError` subclass (`FileNotFoundError`, ...).
fn os_errno(err: &Error) -> Option<i32> {
    std::error::Error::source(err)?
        .downcast_ref::<std::io::Error>()?
        .raw_os_error()
}

/// The exception for an error of a read from a Python file object: an exception that is
/// not an `Exception` (`KeyboardInterrupt`, `SystemExit`, ...) raised by the object's own
/// `read()`/`seek()` propagates unchanged; any other exception it raised becomes the
/// `__cause__` of the `npyguard.IoError` (an `OSError`) that npyguard's error gives.
fn stream_err(py: Python<'_>, err: Error, raised: Option<PyErr>) -> PyErr {
    match raised {
        Some(orig) if !orig.is_instance_of::<PyException>(py) => orig,
        Some(orig) => {
            let new = to_py_err(py, err);
            new.set_cause(py, Some(orig));
            new
        }
        None => to_py_err(py, err),
    }
}

/// `Result<T, npyguard::Error>` → `PyResult<T>`.
trait IntoPy<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPy<T> for npyguard::Result<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py_err(py, e))
    }
}

// ----------------------------------------------------------------------------- options

/// The five `.npy` limits of every reader, as the Python package passes them: one tuple
/// (`npyguard._limits`: file bytes, header bytes, header characters, NumPy-strict, trailing
/// bytes allowed), so each native function takes them as one argument.
#[derive(Clone, Copy, FromPyObject)]
struct Limits(Option<u64>, usize, Option<usize>, bool, bool);

impl Limits {
    /// `ReadOptions` with these limits (archive limits at their defaults).
    fn options(&self) -> ReadOptions {
        let Limits(file, header, chars, strict, trailing) = *self;
        ReadOptions::default()
            .with_max_file_bytes(file)
            .with_max_header_bytes(header)
            .with_max_header_chars(chars)
            .with_numpy_strict(strict)
            .with_allow_trailing_bytes(trailing)
    }
}

// ----------------------------------------------------------------------------- payload

/// The payload bytes of a validated `.npy` file, owned by Rust (npyguard's `Buffer`,
/// huge-page memory for large payloads) and handed to NumPy through the array interface
/// (`__array_interface__`: the bytes' address and length, writable), so that
/// `np.asarray(payload)` is a writable `uint8` array over them without a copy, whose `base`
/// is this object. The bytes are never resized or moved after creation; they are freed when
/// the last array over them is gone.
///
/// The array interface (not the buffer protocol, whose slot is in CPython's limited API
/// only from 3.11) keeps the extension within the stable ABI of CPython 3.9 (one `abi3`
/// wheel), and needs no `unsafe` here: the address is handed over as a number. What makes
/// NumPy's use of it sound: `data` (a `Vec`'s heap block or npyguard's huge-page mapping)
/// lives as long as this object, which every array over the bytes keeps alive as its
/// `base`; the class is frozen and nothing resizes or moves `data`; after
/// `Payload::new` took the address, Rust makes no reference to the bytes again and only
/// frees them (with the object), so NumPy's writes alias nothing Rust uses.
#[pyclass(module = "npyguard._native", frozen)]
pub struct Payload {
    /// The memory (owned here, freed with the object; never accessed through `data` again
    /// after `addr` and `len` were taken from it).
    #[allow(dead_code)]
    data: raw::Bytes,
    /// The address of the first byte (provenance exposed when it was taken).
    addr: usize,
    /// The number of bytes.
    len: usize,
    /// Whether the bytes live in a huge-page mapping.
    mapped: bool,
}

impl Payload {
    fn new(mut data: raw::Bytes) -> Payload {
        let mapped = data.is_mapped();
        let bytes = data.as_mut_slice();
        let (addr, len) = (bytes.as_mut_ptr().expose_provenance(), bytes.len());
        Payload {
            data,
            addr,
            len,
            mapped,
        }
    }
}

#[pymethods]
impl Payload {
    /// NumPy's array interface (version 3) of the bytes: a one-dimensional, writable
    /// `uint8` array of `len` elements at `addr`.
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("version", 3)?;
        d.set_item("shape", (self.len,))?;
        d.set_item("typestr", "|u1")?;
        // (address, read-only flag): writable.
        d.set_item("data", (self.addr, false))?;
        Ok(d)
    }

    /// The number of bytes held.
    fn __len__(&self) -> usize {
        self.len
    }

    /// Whether the bytes live in a huge-page mapping (large payloads read from a path).
    #[getter]
    fn mapped(&self) -> bool {
        self.mapped
    }
}

/// A validated file, as Python gets it: the bytes and the header's fields.
fn loaded<'py>(py: Python<'py>, raw: raw::Raw) -> PyResult<Bound<'py, PyTuple>> {
    let raw::Raw { bytes, header } = raw;
    let payload = Bound::new(py, Payload::new(bytes))?;
    header_tuple(py, &header, Some(payload.into_any()))
}

/// `(payload or None, the payload's offset in the file, descr text, shape, fortran_order,
/// version text, payload byte count)`; the payload object holds the payload alone.
fn header_tuple<'py>(
    py: Python<'py>,
    header: &Header,
    payload: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let shape = PyTuple::new(py, header.shape().iter().copied())?;
    (
        payload,
        header.payload_offset(),
        header.dtype().descr().to_string(),
        shape,
        header.fortran_order(),
        header.version().to_string(),
        header.payload_len(),
    )
        .into_pyobject(py)
}

// ----------------------------------------------------------------------------- readers

/// Reads and validates a `.npy` file at `path` (see `raw::path`); returns
/// `(Payload, offset, descr, shape, fortran_order, version, payload_len)`.
#[pyfunction]
#[pyo3(signature = (path, limits))]
fn read_path(py: Python<'_>, path: PathBuf, limits: Limits) -> PyResult<Bound<'_, PyTuple>> {
    let opts = limits.options();
    let raw = py.detach(|| raw::path(&path, &opts)).py_err(py)?;
    loaded(py, raw)
}

/// Reads and validates a `.npy` file held in a `bytes` object (as `npyguard::read_bytes`).
#[pyfunction]
#[pyo3(signature = (data, limits))]
fn read_buffer<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyBytes>,
    limits: Limits,
) -> PyResult<Bound<'py, PyTuple>> {
    let opts = limits.options();
    // A `bytes` object is immutable and `data` keeps it alive for this call: its contents
    // are read without the GIL, as a path's are.
    let bytes = data.as_bytes();
    let raw = py.detach(|| raw::buffer(bytes, &opts)).py_err(py)?;
    loaded(py, raw)
}

/// Reads and validates a `.npy` file from a binary file object (anything with
/// `read(n) -> bytes`), as `npyguard::read_from` reads a stream: it stops right after
/// the payload (then reads one more byte unless trailing bytes are allowed).
#[pyfunction]
#[pyo3(signature = (file, limits))]
fn read_stream<'py>(
    py: Python<'py>,
    file: Bound<'py, PyAny>,
    limits: Limits,
) -> PyResult<Bound<'py, PyTuple>> {
    let opts = limits.options();
    let mut reader = PyReader::new(file);
    let raw = raw::stream(&mut reader, &opts).map_err(|e| stream_err(py, e, reader.raised))?;
    loaded(py, raw)
}

/// The header of the file at `path`, checked against the file's length as a full read
/// would check it (`npyguard inspect`); the payload is not read.
#[pyfunction]
#[pyo3(signature = (path, limits))]
fn header_path(py: Python<'_>, path: PathBuf, limits: Limits) -> PyResult<Bound<'_, PyTuple>> {
    let opts = limits.options();
    let header = raw::header_path(&path, &opts).py_err(py)?;
    header_tuple(py, &header, None)
}

/// The header of a `.npy` file held in `bytes`, checked against its length.
#[pyfunction]
#[pyo3(signature = (data, limits))]
fn header_buffer<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyBytes>,
    limits: Limits,
) -> PyResult<Bound<'py, PyTuple>> {
    let opts = limits.options();
    let bytes = data.as_bytes();
    let header = Opened::from_slice(bytes, &opts).py_err(py)?.into_parts().0;
    header_tuple(py, &header, None)
}

/// The header read from a binary file object (only the header's bytes are consumed); with
/// `length` (the file's size, for a memory map), checked against it as a full read would
/// check it (`max_file_bytes`, truncation, trailing bytes).
#[pyfunction]
#[pyo3(signature = (file, limits, length=None))]
fn header_stream<'py>(
    py: Python<'py>,
    file: Bound<'py, PyAny>,
    limits: Limits,
    length: Option<u64>,
) -> PyResult<Bound<'py, PyTuple>> {
    let opts = limits.options();
    let mut reader = PyReader::new(file);
    let header = match Opened::new(&mut reader, length, &opts) {
        Ok(opened) => opened.into_parts().0,
        Err(e) => return Err(stream_err(py, e, reader.raised)),
    };
    header_tuple(py, &header, None)
}

/// `np.save`'s header bytes (preamble, dict, padding, newline; version 1.0, 2.0 or 3.0 as
/// `np.save` chooses) for the header dict `text` (`{'descr': ..., 'fortran_order': ...,
/// 'shape': ..., }`), which npyguard parses and validates first: a dtype npyguard does not
/// write (objects) raises `npyguard.Error`.
#[pyfunction]
fn save_header<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyBytes>> {
    let header = raw::parse_dict_text(text).py_err(py)?;
    Ok(PyBytes::new(py, &npyguard::write::header_bytes(&header)))
}

// ------------------------------------------------------------------------- file objects

/// A Python binary file object as a `std::io::Read` (calls `read(n)`). The first exception
/// `read` raises is kept in `raised` (npyguard sees an I/O error), for [`stream_err`].
struct PyReader<'py> {
    file: Bound<'py, PyAny>,
    raised: Option<PyErr>,
}

impl<'py> PyReader<'py> {
    fn new(file: Bound<'py, PyAny>) -> PyReader<'py> {
        PyReader { file, raised: None }
    }
}

/// Most bytes asked of a Python file object in one `read` call.
const PY_READ_MAX: usize = 1 << 24;

impl Read for PyReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = buf.len().min(PY_READ_MAX);
        if want == 0 {
            return Ok(0);
        }
        let chunk = match self.file.call_method1("read", (want,)) {
            Ok(chunk) => chunk,
            Err(e) => {
                let text = e.to_string();
                self.raised.get_or_insert(e);
                return Err(std::io::Error::other(text));
            }
        };
        copy_chunk(&chunk, buf)
    }
}

/// Copies the `bytes` (or `bytearray`, which `np.load` also takes) a `read(n)` call
/// returned into `buf` (of `n` bytes or more).
fn copy_chunk(chunk: &Bound<'_, PyAny>, buf: &mut [u8]) -> std::io::Result<usize> {
    if let Ok(array) = chunk.cast::<PyByteArray>() {
        // The length first: an oversized result is refused before it is copied out.
        if array.len() > buf.len() {
            return Err(too_long());
        }
        return copy_into(&array.to_vec(), buf);
    }
    let chunk = chunk.cast::<PyBytes>().map_err(|_| {
        std::io::Error::other(format!(
            "read() returned {} (a binary file object returns bytes)",
            chunk
                .get_type()
                .name()
                .map_or_else(|_| "?".into(), |n| n.to_string())
        ))
    })?;
    copy_into(chunk.as_bytes(), buf)
}

fn too_long() -> std::io::Error {
    std::io::Error::other("read(n) returned more than n bytes")
}

fn copy_into(bytes: &[u8], buf: &mut [u8]) -> std::io::Result<usize> {
    let Some(slot) = buf.get_mut(..bytes.len()) else {
        return Err(too_long());
    };
    slot.copy_from_slice(bytes);
    Ok(bytes.len())
}

/// A Python binary file object that an `.npz` archive is read from: `std::io::Read` and
/// `Seek` over its `read(n)`, `seek(offset, whence)` (each call takes the GIL, which the
/// archive's callers hold anyway). The first exception the object raises is kept in
/// `raised`, shared with the [`NpzFile`], for [`stream_err`].
struct PyFile {
    file: Py<PyAny>,
    raised: Arc<Mutex<Option<PyErr>>>,
}

impl PyFile {
    /// Keeps `err` (if no earlier one is kept) and returns an I/O error saying what it was.
    fn fail(&self, err: PyErr) -> std::io::Error {
        let text = err.to_string();
        if let Ok(mut slot) = self.raised.lock() {
            slot.get_or_insert(err);
        }
        std::io::Error::other(text)
    }
}

impl Read for PyFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = buf.len().min(PY_READ_MAX);
        if want == 0 {
            return Ok(0);
        }
        Python::attach(|py| {
            let chunk = self
                .file
                .bind(py)
                .call_method1("read", (want,))
                .map_err(|e| self.fail(e))?;
            copy_chunk(&chunk, buf)
        })
    }
}

impl std::io::Seek for PyFile {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        let (offset, whence) = match pos {
            std::io::SeekFrom::Start(n) => (i128::from(n), 0),
            std::io::SeekFrom::Current(n) => (i128::from(n), 1),
            std::io::SeekFrom::End(n) => (i128::from(n), 2),
        };
        Python::attach(|py| {
            let at = self
                .file
                .bind(py)
                .call_method1("seek", (offset, whence))
                .map_err(|e| self.fail(e))?;
            // Some file objects' seek() returns None: their tell() says where they are.
            let at = if at.is_none() {
                self.file
                    .bind(py)
                    .call_method0("tell")
                    .map_err(|e| self.fail(e))?
            } else {
                at
            };
            at.extract::<u64>()
                .map_err(|_| std::io::Error::other("seek() did not return a position"))
        })
    }
}

// --------------------------------------------------------------------------------- npz

/// The bytes `start..end` of a file as a file of their own (`Read` + `Seek`), for a
/// `RowReader` over a stored archive member.
struct Window {
    file: File,
    start: u64,
    len: u64,
    pos: u64,
}

impl Window {
    fn new(mut file: File, start: u64, end: u64) -> std::io::Result<Window> {
        use std::io::Seek;
        file.seek(std::io::SeekFrom::Start(start))?;
        Ok(Window {
            file,
            start,
            len: end.saturating_sub(start),
            pos: 0,
        })
    }
}

impl Read for Window {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = usize::try_from(self.len.saturating_sub(self.pos)).unwrap_or(usize::MAX);
        let want = buf.len().min(left);
        let Some(slot) = buf.get_mut(..want) else {
            return Ok(0);
        };
        if slot.is_empty() {
            return Ok(0);
        }
        let n = self.file.read(slot)?;
        self.pos = self.pos.saturating_add(n as u64);
        Ok(n)
    }
}

impl std::io::Seek for Window {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        let target = match pos {
            std::io::SeekFrom::Start(n) => Some(n),
            std::io::SeekFrom::Current(n) => self.pos.checked_add_signed(n),
            std::io::SeekFrom::End(n) => self.len.checked_add_signed(n),
        }
        .ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek before the start")
        })?;
        self.file
            .seek(std::io::SeekFrom::Start(self.start.saturating_add(target)))?;
        self.pos = target;
        Ok(target)
    }
}

/// What an archive is read from.
enum Source {
    File(npyguard::npz::NpzArchive<std::io::BufReader<File>>),
    Memory(npyguard::npz::NpzArchive<Cursor<Vec<u8>>>),
    Stream(npyguard::npz::NpzArchive<std::io::BufReader<PyFile>>),
}

/// Calls `$body` with the archive of any [`Source`] bound to `$a`.
macro_rules! with_archive {
    ($source:expr, $a:ident => $body:expr) => {
        match $source {
            Source::File($a) => $body,
            Source::Memory($a) => $body,
            Source::Stream($a) => $body,
        }
    };
}

/// A `.npz` archive opened lazily: the zip structure is checked when it is opened, each
/// member is read (and inflated, under the archive limits) only when it is asked for.
#[pyclass(module = "npyguard._native")]
pub struct NpzFile {
    archive: Option<Source>,
    /// The archive's path, when it was opened from one (a stored member's rows are then
    /// read by their byte range through a second handle).
    path: Option<PathBuf>,
    opts: ReadOptions,
    /// The first exception a file object's `read`/`seek` raised (for [`stream_err`]).
    raised: Arc<Mutex<Option<PyErr>>>,
}

impl NpzFile {
    /// Rows `start..stop` of a stored (not deflated) member of an archive opened from a
    /// path, read by their byte range: `RowReader` over the member's bytes in the file
    /// (header and length checked against the member's size; only the rows' bytes read; the
    /// member's CRC is not checked, as no whole-member read happens). `None` for a deflated
    /// member or an archive not opened from a path.
    fn stored_rows<'py>(
        &mut self,
        py: Python<'py>,
        name: &str,
        start: usize,
        stop: usize,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let Some(path) = self.path.clone() else {
            return Ok(None);
        };
        let range = match self.open_archive()? {
            Source::File(a) => match a.member(name) {
                Some(m) if m.compression() == npyguard::npz::Compression::Stored => m.data_range(),
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        let opts = self.opts.clone();
        let read = py.detach(|| -> npyguard::Result<npyguard::Array> {
            let file = File::open(&path)
                .map_err(|e| Error::os(format!("cannot open {}", path.display()), e))?;
            let window = Window::new(file, range.start, range.end)
                .map_err(|e| Error::os("cannot seek to the member", e))?;
            let mut rows = Opened::seekable(window, &opts)?.into_rows()?;
            rows.read_rows(start..stop)
        });
        let array = read.py_err(py)?;
        let bytes = npyguard::write::to_vec(&array).py_err(py)?;
        let opts = self.opts.clone().with_max_file_bytes(None);
        Ok(Some(loaded(py, raw::buffer(&bytes, &opts).py_err(py)?)?))
    }

    fn open_archive(&mut self) -> PyResult<&mut Source> {
        self.archive
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("I/O operation on a closed npz file"))
    }

    /// Forgets what a file object raised before (called before each read of the archive,
    /// so that an error is chained only to what its own read raised).
    fn clear_raised(&self) {
        if let Ok(mut slot) = self.raised.lock() {
            *slot = None;
        }
    }

    /// The Python exception for `err`, given what a file object raised meanwhile.
    fn error(&self, py: Python<'_>, err: Error) -> PyErr {
        let raised = self.raised.lock().ok().and_then(|mut slot| slot.take());
        stream_err(py, err, raised)
    }
}

#[pymethods]
impl NpzFile {
    /// Opens the archive at `path` (a `str`/`PathLike`), held in `bytes`, or read from a
    /// seekable binary file object (anything else with `read` and `seek`).
    #[new]
    #[pyo3(signature = (source, limits, max_members, max_total_bytes, max_ratio))]
    fn new(
        py: Python<'_>,
        source: Bound<'_, PyAny>,
        limits: Limits,
        max_members: Option<usize>,
        max_total_bytes: Option<u64>,
        max_ratio: Option<u64>,
    ) -> PyResult<NpzFile> {
        let opts = limits
            .options()
            .with_max_npz_members(max_members)
            .with_max_npz_total_bytes(max_total_bytes)
            .with_max_npz_ratio(max_ratio);
        let raised = Arc::new(Mutex::new(None));
        let mut opened_path = None;
        let archive = if let Ok(bytes) = source.cast::<PyBytes>() {
            let data = bytes.as_bytes().to_vec();
            Source::Memory(npyguard::npz::NpzArchive::new(Cursor::new(data), &opts).py_err(py)?)
        } else if source.hasattr("read")? {
            let file = PyFile {
                file: source.unbind(),
                raised: Arc::clone(&raised),
            };
            let reader = std::io::BufReader::new(file);
            let archive = npyguard::npz::NpzArchive::new(reader, &opts).map_err(|e| {
                let taken = raised.lock().ok().and_then(|mut slot| slot.take());
                stream_err(py, e, taken)
            })?;
            Source::Stream(archive)
        } else {
            let path: PathBuf = source.extract()?;
            let archive = Source::File(npyguard::npz::open(&path, &opts).py_err(py)?);
            opened_path = Some(path);
            archive
        };
        Ok(NpzFile {
            archive: Some(archive),
            path: opened_path,
            opts,
            raised,
        })
    }

    /// The array names (member names without `.npy`), in archive order.
    fn names(&mut self) -> PyResult<Vec<String>> {
        Ok(with_archive!(self.open_archive()?, a => a.array_names().map(str::to_owned).collect()))
    }

    /// Reads member `name` (with or without `.npy`): its payload's bytes straight into the
    /// memory NumPy's array is built over (`NpzArchive::read_raw`: one buffer of the
    /// member's size; the declared size is checked against the archive limits before
    /// anything is inflated, and the inflated bytes against them as they arrive).
    fn member_raw<'py>(&mut self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyTuple>> {
        self.clear_raised();
        let read = match self.open_archive()? {
            Source::File(a) => py.detach(|| a.read_raw(name)),
            Source::Memory(a) => py.detach(|| a.read_raw(name)),
            // A file object's reads take the GIL anyway.
            Source::Stream(a) => a.read_raw(name),
        };
        let (header, payload) = read.map_err(|e| self.error(py, e))?;
        loaded(
            py,
            raw::Raw {
                bytes: raw::Bytes::Buffer(payload),
                header,
            },
        )
    }

    /// Rows `start..stop` of member `name`, streamed from the member's start through the
    /// archive limits (`NpzArchive::row_chunks`, chunks of `rows_per_chunk` rows): a list of
    /// `(first row, loaded tuple)` for the chunks that overlap the rows; the chunks before
    /// are dropped as they are read, and reading stops after the last one needed (so the
    /// member's CRC is checked only when its last row is read).
    fn member_rows<'py>(
        &mut self,
        py: Python<'py>,
        name: &str,
        start: usize,
        stop: usize,
        rows_per_chunk: usize,
    ) -> PyResult<Vec<(usize, Bound<'py, PyTuple>)>> {
        self.clear_raised();
        let opts = self.opts.clone();
        if let Some(rows) = self.stored_rows(py, name, start, stop)? {
            return Ok(vec![(start, rows)]);
        }
        let mut parts = Vec::new();
        let mut failure = None;
        {
            let source = self
                .archive
                .as_mut()
                .ok_or_else(|| PyValueError::new_err("I/O operation on a closed npz file"))?;
            let collected: npyguard::Result<Vec<(usize, Vec<u8>)>> = with_archive!(source, a => {
                (|| {
                    let chunks = a.row_chunks(name, rows_per_chunk.max(1))?;
                    let mut out = Vec::new();
                    let mut at = 0usize;
                    for chunk in chunks {
                        let chunk = chunk?;
                        let n = chunk.shape().first().copied().unwrap_or(1);
                        let end = at.saturating_add(n);
                        if end > start && at < stop {
                            out.push((at, npyguard::write::to_vec(&chunk)?));
                        }
                        at = end;
                        if at >= stop {
                            break;
                        }
                    }
                    Ok(out)
                })()
            });
            match collected {
                Ok(v) => {
                    for (at, bytes) in v {
                        parts.push((at, bytes));
                    }
                }
                Err(e) => failure = Some(e),
            }
        }
        if let Some(e) = failure {
            return Err(self.error(py, e));
        }
        let mut out = Vec::with_capacity(parts.len());
        for (at, bytes) in parts {
            let raw = raw::buffer(&bytes, &opts.clone().with_max_file_bytes(None)).py_err(py)?;
            out.push((at, loaded(py, raw)?));
        }
        Ok(out)
    }

    /// The header of member `name`.
    fn member_header<'py>(&mut self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyTuple>> {
        self.clear_raised();
        let header = with_archive!(self.open_archive()?, a => a.header(name));
        let header = header.map_err(|e| self.error(py, e))?;
        header_tuple(py, &header, None)
    }

    /// Closes the archive (its file handle); later reads raise `ValueError`.
    fn close(&mut self) {
        self.archive = None;
    }
}

// -------------------------------------------------------------------------------- rows

/// What a [`RowFile`] reads rows from.
enum RowSource {
    /// A path's file, read without a buffer (only the rows' bytes are read).
    Path(npyguard::RowReader<File>),
    /// A seekable Python binary file object.
    Stream(npyguard::RowReader<PyFile>),
}

/// A validated `.npy` file opened for reading by rows (`npyguard::RowReader`): the header
/// and the file's length are checked when it is opened; each request reads only the rows'
/// bytes (a Fortran-order file's rows gathered, one run per column).
#[pyclass(module = "npyguard._native")]
pub struct RowFile {
    rows: Option<RowSource>,
    opts: ReadOptions,
    raised: Arc<Mutex<Option<PyErr>>>,
}

#[pymethods]
impl RowFile {
    /// Opens `source`: a path (`str`/`PathLike`) or a seekable binary file object (read
    /// from its current position).
    #[new]
    #[pyo3(signature = (source, limits))]
    fn new(py: Python<'_>, source: Bound<'_, PyAny>, limits: Limits) -> PyResult<RowFile> {
        let opts = limits.options();
        let raised = Arc::new(Mutex::new(None));
        let rows = if source.hasattr("read")? {
            let file = PyFile {
                file: source.unbind(),
                raised: Arc::clone(&raised),
            };
            let reader = Opened::seekable(file, &opts)
                .and_then(Opened::into_rows)
                .map_err(|e| {
                    let taken = raised.lock().ok().and_then(|mut slot| slot.take());
                    stream_err(py, e, taken)
                })?;
            RowSource::Stream(reader)
        } else {
            let path: PathBuf = source.extract()?;
            RowSource::Path(
                py.detach(|| Opened::path(&path, &opts)?.into_rows())
                    .py_err(py)?,
            )
        };
        Ok(RowFile {
            rows: Some(rows),
            opts,
            raised,
        })
    }

    /// The header: `(None, offset, descr, shape, fortran_order, version, payload_len)`.
    fn header<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let header = match self.rows.as_ref() {
            Some(RowSource::Path(r)) => r.header(),
            Some(RowSource::Stream(r)) => r.header(),
            None => return Err(PyValueError::new_err("I/O operation on a closed file")),
        };
        header_tuple(py, header, None)
    }

    /// Rows `start..stop` of the first axis (a 0-d array is one row), read alone, as a
    /// loaded tuple (the rows re-encoded as a `.npy` in the file's byte and memory order).
    fn read_rows<'py>(
        &mut self,
        py: Python<'py>,
        start: usize,
        stop: usize,
    ) -> PyResult<Bound<'py, PyTuple>> {
        if let Ok(mut slot) = self.raised.lock() {
            *slot = None;
        }
        let read = match self.rows.as_mut() {
            Some(RowSource::Path(r)) => py.detach(|| r.read_rows(start..stop)),
            Some(RowSource::Stream(r)) => r.read_rows(start..stop),
            None => return Err(PyValueError::new_err("I/O operation on a closed file")),
        };
        let array = read.map_err(|e| {
            let taken = self.raised.lock().ok().and_then(|mut slot| slot.take());
            stream_err(py, e, taken)
        })?;
        let bytes = npyguard::write::to_vec(&array).py_err(py)?;
        let opts = self.opts.clone().with_max_file_bytes(None);
        loaded(py, raw::buffer(&bytes, &opts).py_err(py)?)
    }

    /// Closes the file (a path's handle; a file object is left open).
    fn close(&mut self) {
        self.rows = None;
    }
}

// ------------------------------------------------------------------------------- arrow

/// One Arrow table over a whole validated array, in a dataset layout (`columns`,
/// `rowlists`, `nonzeros`), readable by any consumer of the Arrow PyCapsule interface
/// (`__arrow_c_stream__`): pyarrow, polars, DuckDB. Each call to `__arrow_c_stream__`
/// starts a new stream over the same data (no copy: batches are slices where the
/// memory order allows, see `npyguard::arrow`).
#[pyclass(module = "npyguard._native", frozen)]
pub struct ArrowDataset {
    dataset: Arc<Dataset>,
    batch_rows: usize,
}

/// The record batches of a dataset, `batch_rows` input rows at a time.
struct DatasetReader {
    dataset: Arc<Dataset>,
    next: usize,
    batch_rows: usize,
}

impl Iterator for DatasetReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let total = self.dataset.num_input_rows();
        // Every table has at least one batch (an empty table's schema-only batch).
        if self.next >= total && !(total == 0 && self.next == 0) {
            return None;
        }
        let end = self.next.saturating_add(self.batch_rows).min(total);
        let rows = self.next..end;
        self.next = if total == 0 { 1 } else { end };
        Some(
            self.dataset
                .batch(rows)
                .map_err(|e| ArrowError::ExternalError(Box::new(e))),
        )
    }
}

impl RecordBatchReader for DatasetReader {
    fn schema(&self) -> SchemaRef {
        self.dataset.schema()
    }
}

#[pymethods]
impl ArrowDataset {
    /// Reads and validates `source` (a path, or a `bytes` `.npy` file) under the limits,
    /// then lays it out as `layout`; `batch_rows` input rows per record batch (default:
    /// npyguard's, about 8 MiB of values per batch).
    #[new]
    #[pyo3(signature = (source, layout, batch_rows, limits))]
    fn new(
        py: Python<'_>,
        source: Bound<'_, PyAny>,
        layout: &str,
        batch_rows: Option<usize>,
        limits: Limits,
    ) -> PyResult<ArrowDataset> {
        let opts = limits.options();
        let layout: Layout = layout.parse().py_err(py)?;
        let array = if let Ok(bytes) = source.cast::<PyBytes>() {
            Opened::from_slice(bytes.as_bytes(), &opts).and_then(Opened::read)
        } else {
            let path: PathBuf = source.extract()?;
            py.detach(|| Opened::path(&path, &opts)?.read())
        }
        .py_err(py)?;
        let dataset = Dataset::new(array, layout).py_err(py)?;
        let batch_rows = batch_rows
            .unwrap_or_else(|| dataset.default_batch_rows())
            .max(1);
        Ok(ArrowDataset {
            dataset: Arc::new(dataset),
            batch_rows,
        })
    }

    /// The Arrow C stream of the table: a `PyCapsule` named `arrow_array_stream`.
    /// `requested_schema` is accepted and ignored (the table's types are fixed by the
    /// file's dtype, see `npyguard::arrow`).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = DatasetReader {
            dataset: Arc::clone(&self.dataset),
            next: 0,
            batch_rows: self.batch_rows,
        };
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        // The capsule owns the stream; dropping it (when the capsule is freed) calls the
        // stream's release callback unless a consumer moved the stream out and cleared it.
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// The table's Arrow schema: a `PyCapsule` named `arrow_schema`.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = FFI_ArrowSchema::try_from(self.dataset.schema().as_ref())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        PyCapsule::new_with_value(py, schema, c"arrow_schema")
    }

    /// The number of input rows (the array's first dimension; 1 for a 0-d array).
    #[getter]
    fn num_input_rows(&self) -> usize {
        self.dataset.num_input_rows()
    }

    /// The layout's name.
    #[getter]
    fn layout(&self) -> &'static str {
        self.dataset.layout().name()
    }
}

// ------------------------------------------------------------------------------ module

/// The module `npyguard._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Payload>()?;
    m.add_class::<NpzFile>()?;
    m.add_class::<ArrowDataset>()?;
    m.add_class::<RowFile>()?;
    m.add_function(wrap_pyfunction!(read_path, m)?)?;
    m.add_function(wrap_pyfunction!(read_buffer, m)?)?;
    m.add_function(wrap_pyfunction!(read_stream, m)?)?;
    m.add_function(wrap_pyfunction!(header_path, m)?)?;
    m.add_function(wrap_pyfunction!(header_buffer, m)?)?;
    m.add_function(wrap_pyfunction!(header_stream, m)?)?;
    m.add_function(wrap_pyfunction!(save_header, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The library's one table of defaults (npyguard::limits), which every door shares.
    m.add(
        "DEFAULT_MAX_HEADER_BYTES",
        npyguard::limits::DEFAULT_MAX_HEADER_BYTES,
    )?;
    m.add(
        "DEFAULT_MAX_NPZ_MEMBERS",
        npyguard::limits::DEFAULT_MAX_NPZ_MEMBERS,
    )?;
    m.add(
        "DEFAULT_MAX_NPZ_RATIO",
        npyguard::limits::DEFAULT_MAX_NPZ_RATIO,
    )?;
    Ok(())
}
