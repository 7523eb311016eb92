//! Appending: growing a C-order `.npy` along its first axis, in place.
//!
//! An [`Appender`] opens an existing file, validates it exactly as a read does (the header
//! under the [`ReadOptions`] limits, the length against the header's claim), then appends row blocks whose dtype equals the file's up
//! to byte order (values are re-encoded in the file's byte order) and whose trailing shape
//! (`shape[1..]`) equals the file's. Each append:
//!
//! 1. writes the new rows after the payload (the file still reads as the old array: NumPy
//!    ignores bytes after the payload), then, with [`AppendOptions::with_fsync`], syncs;
//! 2. writes the new header, byte-identical to what `np.save` writes for the new shape and
//!    exactly as long as the old one (NumPy ≥ 1.24 leaves growth space for this), then syncs.
//!
//! Step 2 writes only the header bytes that change (the first dimension and what follows
//! it) in one write call, which must lie inside one 512-byte sector: a crash then leaves the
//! old or the new header, on storage that does not tear a write inside a sector (the
//! assumption PostgreSQL makes for `pg_control`). No single-byte order of a header update
//! can keep every intermediate header valid, so this is the one assumption made. When the
//! new header is longer than the old one (a file written before NumPy 1.24 or by another
//! writer, without growth space) or its changed bytes straddle a sector boundary, the append
//! is refused with [`ErrorKind::HeaderFull`], unless
//! [`AppendOptions::with_rewrite_when_full`] is set: then a file opened by path is rewritten
//! as a complete new file next to it, which is renamed over it (crash safe: the old file
//! until the rename). Through a symlink, the file it points to is rewritten and the link
//! kept; the new file keeps the old one's permission bits and, where permitted, its owner
//! and group (not its extended attributes, ACLs or timestamps). A storage opened with [`Appender::new`] cannot be rewritten and still
//! gets the error.
//!
//! Bytes after the payload (what an interrupted append leaves) are refused when the file
//! is opened ([`ErrorKind::TrailingBytes`]) unless [`AppendOptions::with_discard_trailing_bytes`]
//! is set: then they are cut off before anything is appended. Nothing is dropped silently.
//!
//! ```
//! use npyguard::write::{to_vec, AppendOptions, Appender};
//! use npyguard::{read_bytes, ArrayData, NpyArray, ReadOptions};
//! use std::io::Cursor;
//!
//! let start = NpyArray::from_vec(vec![1i32, 2, 3, 4], vec![2, 2]).unwrap().to_array();
//! let mut appender = Appender::new(Cursor::new(to_vec(&start).unwrap()), &AppendOptions::default()).unwrap();
//! appender.append(&NpyArray::from_vec(vec![5i32, 6], vec![1, 2]).unwrap().to_array()).unwrap();
//! assert_eq!(appender.header().shape(), &[3, 2]);
//!
//! let bytes = appender.into_inner().into_inner();
//! let grown = read_bytes(&bytes, &ReadOptions::default()).unwrap();
//! assert_eq!(grown.data(), &ArrayData::I32(vec![1, 2, 3, 4, 5, 6].into()));
//! assert_eq!(bytes, to_vec(&grown).unwrap()); // byte-identical to np.save
//! ```

use std::fs::{File, OpenOptions};
use std::io::{Cursor, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::data::array::{Array, NpyArray};
use crate::data::element::Element;
use crate::data::storage::units_per_element;
use crate::error::{Error, ErrorKind, Result};
use crate::format::dtype::{Dtype, Endian};
use crate::format::header::Header;
use crate::io::opened::{elements_in, file_length, Opened, CHUNK};
use crate::io::write::header_bytes;
use crate::options::ReadOptions;

/// The span inside which a header update is one write that storage does not tear.
const SECTOR: u64 = 512;

/// Where an [`Appender`] writes: a stream it can read, write and seek, that it can also
/// sync and cut short. Implemented for [`File`] (sync is `sync_all`, cut is `set_len`),
/// for in-memory `Cursor<Vec<u8>>` (sync does nothing) and for `&mut` of any storage.
///
/// ```
/// use npyguard::write::Storage;
/// use std::io::Cursor;
/// let mut c = Cursor::new(vec![1u8, 2, 3]);
/// c.truncate(1).unwrap();
/// c.sync().unwrap();
/// assert_eq!(c.get_ref(), &[1]);
/// ```
pub trait Storage: Read + Write + Seek {
    /// Makes what was written durable (for a file: `fsync`).
    fn sync(&mut self) -> std::io::Result<()>;

    /// Cuts the storage to `len` bytes.
    fn truncate(&mut self, len: u64) -> std::io::Result<()>;

    /// Takes `file` as the new storage, when this storage is a file (`false` otherwise):
    /// how a file rewritten next to its path replaces the one that was open.
    fn replace_with(&mut self, _file: File) -> bool {
        false
    }
}

impl Storage for File {
    fn sync(&mut self) -> std::io::Result<()> {
        self.sync_all()
    }
    fn truncate(&mut self, len: u64) -> std::io::Result<()> {
        self.set_len(len)
    }
    fn replace_with(&mut self, file: File) -> bool {
        *self = file;
        true
    }
}

impl Storage for Cursor<Vec<u8>> {
    fn sync(&mut self) -> std::io::Result<()> {
        Ok(())
    }
    fn truncate(&mut self, len: u64) -> std::io::Result<()> {
        let len = usize::try_from(len).map_err(std::io::Error::other)?;
        self.get_mut().truncate(len);
        Ok(())
    }
}

impl<S: Storage + ?Sized> Storage for &mut S {
    fn sync(&mut self) -> std::io::Result<()> {
        (**self).sync()
    }
    fn truncate(&mut self, len: u64) -> std::io::Result<()> {
        (**self).truncate(len)
    }
    fn replace_with(&mut self, file: File) -> bool {
        (**self).replace_with(file)
    }
}

/// How an [`Appender`] opens and writes: the read limits the existing file is validated
/// under, and the policies for durability, full headers and leftover bytes.
///
/// ```
/// use npyguard::write::AppendOptions;
/// use npyguard::ReadOptions;
/// let opts = AppendOptions::default()
///     .with_read_options(ReadOptions::default().with_max_file_bytes(Some(1 << 30)))
///     .with_fsync(true);
/// assert!(opts.fsync() && !opts.rewrite_when_full() && !opts.discard_trailing_bytes());
/// assert_eq!(opts.read_options().max_file_bytes(), Some(1 << 30));
/// ```
#[derive(Debug, Clone, Default)]
pub struct AppendOptions {
    read: ReadOptions,
    fsync: bool,
    rewrite_when_full: bool,
    discard_trailing_bytes: bool,
}

impl AppendOptions {
    /// The limits the existing file is read under (its `max_file_bytes` also bounds the
    /// grown file, so that it stays readable under the same options). Its
    /// `allow_trailing_bytes` is not consulted: see [`with_discard_trailing_bytes`](Self::with_discard_trailing_bytes).
    #[must_use]
    pub fn with_read_options(mut self, read: ReadOptions) -> AppendOptions {
        self.read = read;
        self
    }

    /// Sync the storage after the data and again after the header (crash safety against
    /// power loss, not only against a failing process).
    #[must_use]
    pub fn with_fsync(mut self, fsync: bool) -> AppendOptions {
        self.fsync = fsync;
        self
    }

    /// When the new header does not fit in place ([`ErrorKind::HeaderFull`]), rewrite a file
    /// opened by path as a new file renamed over it (not possible for [`Appender::new`]).
    #[must_use]
    pub fn with_rewrite_when_full(mut self, rewrite: bool) -> AppendOptions {
        self.rewrite_when_full = rewrite;
        self
    }

    /// Accept a file with bytes after the payload (what an interrupted append leaves)
    /// instead of refusing it with [`ErrorKind::TrailingBytes`]; they are cut off by the
    /// first accepted [`Appender::append`] (opening the file, or an append refused by its
    /// checks, leaves the file as it was).
    #[must_use]
    pub fn with_discard_trailing_bytes(mut self, discard: bool) -> AppendOptions {
        self.discard_trailing_bytes = discard;
        self
    }

    /// The read limits.
    pub fn read_options(&self) -> &ReadOptions {
        &self.read
    }

    /// Whether each step is synced.
    pub fn fsync(&self) -> bool {
        self.fsync
    }

    /// Whether a full header makes a path rewrite the file.
    pub fn rewrite_when_full(&self) -> bool {
        self.rewrite_when_full
    }

    /// Whether bytes after the payload are cut off when the file is opened.
    pub fn discard_trailing_bytes(&self) -> bool {
        self.discard_trailing_bytes
    }
}

/// What the appender knows about its storage after the last operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The storage ends right after the payload.
    Clean,
    /// A data write failed: bytes may follow the payload (cut before the next append).
    Leftover,
    /// A header write failed: which header the storage holds is unknown.
    Broken,
}

/// Grows a C-order `.npy` along its first axis, in place (see the module documentation for
/// the order of writes and what a crash leaves).
///
/// ```
/// use npyguard::write::{AppendOptions, Appender};
/// use npyguard::{read_path, ArrayData, NpyArray, ReadOptions};
///
/// let dir = std::env::temp_dir().join(format!("npyguard-doc-append-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("log.npy");
/// NpyArray::from_vec(vec![1.5f64], vec![1]).unwrap().write_path(&path).unwrap();
///
/// let mut appender = Appender::open(&path, &AppendOptions::default().with_fsync(true)).unwrap();
/// for i in 0..3 {
///     appender.append_typed(&NpyArray::from_vec(vec![f64::from(i)], vec![1]).unwrap()).unwrap();
/// }
/// drop(appender);
/// let a = read_path(&path, &ReadOptions::default()).unwrap();
/// assert_eq!(a.data(), &ArrayData::F64(vec![1.5, 0.0, 1.0, 2.0].into()));
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug)]
pub struct Appender<F: Storage> {
    inner: F,
    path: Option<PathBuf>,
    opts: AppendOptions,
    header: Header,
    head: Vec<u8>,
    state: State,
}

impl Appender<File> {
    /// Opens the file at `path` for reading and writing and validates it (see [`Appender::new`]).
    /// Only a regular file can be appended to.
    pub fn open(path: impl AsRef<Path>, opts: &AppendOptions) -> Result<Appender<File>> {
        let path = path.as_ref();
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| Error::os(format!("cannot open {}", path.display()), e))?;
        let Some(len) = file_length(&file, &opts.read)? else {
            return Err(Error::unplaced(
                ErrorKind::InvalidInput,
                format!("a regular file to append to ({})", path.display()),
            ));
        };
        // A rewrite replaces the file a symlink points to, not the link.
        let real = std::fs::canonicalize(path)
            .map_err(|e| Error::os(format!("cannot resolve {}", path.display()), e))?;
        Appender::init(file, Some(real), opts, len)
    }
}

impl<F: Storage> Appender<F> {
    /// Validates the `.npy` in `inner` as a read does (under `opts`' read limits) and returns
    /// an appender for it. Refused: a 0-d array, a Fortran-order array of more than one
    /// dimension, a header with keys other than the three NumPy writes (the new header
    /// would drop them), and bytes after the payload unless they are to be discarded.
    ///
    /// ```
    /// use npyguard::write::{to_vec, AppendOptions, Appender};
    /// use npyguard::{ErrorKind, NpyArray};
    /// use std::io::Cursor;
    /// let f = NpyArray::from_vec(vec![0u8; 6], vec![2, 3]).unwrap().to_array().to_fortran_order();
    /// let err = Appender::new(Cursor::new(to_vec(&f).unwrap()), &AppendOptions::default()).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::InvalidInput);
    /// ```
    pub fn new(mut inner: F, opts: &AppendOptions) -> Result<Appender<F>> {
        let len = inner
            .seek(SeekFrom::End(0))
            .map_err(|e| Error::os("cannot seek the storage", e))?;
        Appender::init(inner, None, opts, len)
    }

    fn init(mut inner: F, path: Option<PathBuf>, opts: &AppendOptions, len: u64) -> Result<Self> {
        seek(&mut inner, 0)?;
        // Trailing bytes are this door's own question (discard_trailing_bytes), below.
        let read = opts.read.clone().with_allow_trailing_bytes(true);
        let header = Opened::new(&mut inner, Some(len), &read)?.into_parts().0;
        check_appendable(&header)?;
        let end = header.payload_range().end;
        if len > end && !opts.discard_trailing_bytes {
            return Err(Error::new(
                ErrorKind::TrailingBytes,
                end,
                "end of file after the payload (an interrupted append leaves bytes there: \
                 discard_trailing_bytes cuts them off)",
            )
            .found(format!("{} more bytes", len.saturating_sub(end))));
        }
        let mut head = vec![0u8; usize_of(header.payload_offset())?];
        seek(&mut inner, 0)?;
        inner.read_exact(&mut head).map_err(|e| Error::io(0, e))?;
        // Trailing bytes to discard are cut by the first accepted append, not here: a caller
        // that checks its sources after opening and refuses one leaves the file as it was.
        Ok(Appender {
            inner,
            path,
            opts: opts.clone(),
            header,
            head,
            state: if len > end {
                State::Leftover
            } else {
                State::Clean
            },
        })
    }

    /// The current header (the shape grows with every append).
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The storage, positioned anywhere.
    pub fn into_inner(self) -> F {
        self.inner
    }

    /// The storage, to read it (every append seeks first, so moving its position is harmless;
    /// writing through it makes the appender's view of the file wrong).
    ///
    /// ```
    /// use npyguard::write::{to_vec, AppendOptions, Appender};
    /// use npyguard::NpyArray;
    /// use std::io::Cursor;
    /// let start = to_vec(&NpyArray::from_vec(vec![7u8], vec![1]).unwrap().to_array()).unwrap();
    /// let mut ap = Appender::new(Cursor::new(start), &AppendOptions::default()).unwrap();
    /// assert_eq!(ap.get_mut().get_ref().len(), 129);
    /// ```
    pub fn get_mut(&mut self) -> &mut F {
        &mut self.inner
    }

    /// Appends the rows of `array` (any memory order): its dtype must be the file's up to
    /// byte order ([`ErrorKind::TypeMismatch`]; records must be identical), its shape after
    /// the first dimension the file's ([`ErrorKind::InvalidInput`]). Zero rows: checked,
    /// nothing written (but bytes after the payload to discard are cut). A failure leaves the storage reading as the old array (a failed data write is cut off at once, so no bytes follow the payload); after a
    /// failed header write the appender refuses further appends (reopen the file).
    ///
    /// ```
    /// use npyguard::write::{to_vec, AppendOptions, Appender};
    /// use npyguard::{Endian, ErrorKind, NpyArray};
    /// use std::io::Cursor;
    /// let start = NpyArray::from_vec(vec![1u16, 2], vec![2]).unwrap().to_array();
    /// let mut ap = Appender::new(Cursor::new(to_vec(&start).unwrap()), &AppendOptions::default()).unwrap();
    /// let big = NpyArray::from_vec_with(vec![3u16], vec![1], false, Endian::Big).unwrap();
    /// ap.append(&big.to_array()).unwrap(); // re-encoded little-endian
    /// let wrong = NpyArray::from_vec(vec![3u32], vec![1]).unwrap();
    /// assert_eq!(ap.append(&wrong.to_array()).unwrap_err().kind(), ErrorKind::TypeMismatch);
    /// assert_eq!(ap.header().shape(), &[3]);
    /// ```
    pub fn append(&mut self, array: &Array) -> Result<()> {
        self.check(array)?;
        let rows = array.shape().first().copied().unwrap_or(0);
        if self.state == State::Broken {
            if rows == 0 {
                return Ok(());
            }
            return Err(Error::unplaced(
                ErrorKind::InvalidInput,
                "an appender whose last header write succeeded (reopen the file)",
            ));
        }
        // Bytes after the payload (discard_trailing_bytes, or a failed data write) go with the
        // first accepted append, zero rows included.
        self.cut_leftover()?;
        if rows == 0 {
            return Ok(());
        }
        let (new_header, new_head) = self.grown(rows)?;
        let commit = changed_span(&self.head, &new_head);
        let fits = new_head.len() == self.head.len() && commit.is_some_and(within_sector);
        if !fits {
            return self.rewrite(array, new_header, new_head);
        }
        let (from, to) = commit.unwrap_or((0, 0));
        let end = self.header.payload_range().end;
        if let Err(e) = self.write_rows(end, array) {
            // Cut what did get written at once (a full disk has room for a cut): the file
            // is the old one again, also to a reader or a later run; if the cut fails too,
            // the next append cuts.
            self.state = State::Leftover;
            let _ = self.cut_leftover();
            return Err(e);
        }
        let span = new_head.get(from..=to).unwrap_or_default();
        if let Err(e) = self.write_head(from, span) {
            self.state = State::Broken;
            return Err(e);
        }
        self.header = new_header;
        self.head = new_head;
        Ok(())
    }

    /// Checks, writing nothing, that [`append`](Appender::append) accepts `array`'s dtype
    /// and shape (what a caller appending several arrays checks for all of them first).
    ///
    /// ```
    /// use npyguard::write::{to_vec, AppendOptions, Appender};
    /// use npyguard::{ErrorKind, NpyArray};
    /// use std::io::Cursor;
    /// let start = NpyArray::from_vec(vec![1i8, 2], vec![1, 2]).unwrap().to_array();
    /// let ap = Appender::new(Cursor::new(to_vec(&start).unwrap()), &AppendOptions::default()).unwrap();
    /// assert!(ap.check(&start).is_ok());
    /// let column = NpyArray::from_vec(vec![1i8, 2], vec![2, 1]).unwrap().to_array();
    /// assert_eq!(ap.check(&column).unwrap_err().kind(), ErrorKind::InvalidInput);
    /// ```
    pub fn check(&self, array: &Array) -> Result<()> {
        check_source(&self.header, array)
    }

    /// [`append`](Appender::append) for a typed array.
    ///
    /// ```
    /// use npyguard::write::{to_vec, AppendOptions, Appender};
    /// use npyguard::NpyArray;
    /// use std::io::Cursor;
    /// let start = NpyArray::from_vec(vec![0.5f32; 3], vec![1, 3]).unwrap().to_array();
    /// let mut ap = Appender::new(Cursor::new(to_vec(&start).unwrap()), &AppendOptions::default()).unwrap();
    /// ap.append_typed(&NpyArray::from_vec(vec![1.0f32; 6], vec![2, 3]).unwrap()).unwrap();
    /// assert_eq!(ap.header().shape(), &[3, 3]);
    /// ```
    pub fn append_typed<T: Element>(&mut self, array: &NpyArray<T>) -> Result<()> {
        self.append(&array.to_array())
    }

    /// The header after `rows` more rows, its `np.save` bytes, checked to read back as itself.
    fn grown(&self, rows: usize) -> Result<(Header, Vec<u8>)> {
        let h = &self.header;
        let mut shape = h.shape().to_vec();
        let first = shape
            .first_mut()
            .ok_or_else(|| internal("a first dimension"))?;
        *first = first.checked_add(rows).ok_or_else(|| {
            Error::unplaced(
                ErrorKind::ShapeOverflow,
                "a first dimension that fits usize",
            )
        })?;
        // np.save flags a 1-D array C order whatever the file said (it is both).
        let fortran = h.fortran_order() && shape.len() > 1;
        let built = Header::new(h.dtype().clone(), shape, fortran)?;
        let head = header_bytes(&built);
        let parsed = Header::from_bytes(&head, &self.opts.read)?;
        if parsed.shape() != built.shape() || parsed.dtype() != built.dtype() {
            return Err(internal("the new header to read back as itself"));
        }
        let end = parsed.payload_range().end;
        if let Some(limit) = self.opts.read.max_file_bytes.filter(|&l| end > l) {
            return Err(Error::unplaced(
                ErrorKind::FileTooLarge,
                format!("a grown file of at most {limit} bytes (max_file_bytes)"),
            )
            .found(format!("{end} bytes")));
        }
        Ok((parsed, head))
    }

    /// Cuts bytes after the payload that a failed data write (or the opened file) left.
    fn cut_leftover(&mut self) -> Result<()> {
        if self.state != State::Leftover {
            return Ok(());
        }
        let end = self.header.payload_range().end;
        self.inner.truncate(end).map_err(|e| Error::io(end, e))?;
        if self.opts.fsync {
            self.inner.sync().map_err(|e| Error::io(end, e))?;
        }
        self.state = State::Clean;
        Ok(())
    }

    /// Step 1: the rows after the payload, then (fsync) a sync.
    fn write_rows(&mut self, end: u64, array: &Array) -> Result<()> {
        seek(&mut self.inner, end)?;
        let written = write_data(&mut self.inner, self.header.dtype(), end, array)?;
        self.inner.flush().map_err(|e| Error::io(written, e))?;
        if self.opts.fsync {
            self.inner.sync().map_err(|e| Error::io(written, e))?;
        }
        Ok(())
    }

    /// Step 2: the changed header bytes at `from`, one write, then (fsync) a sync.
    fn write_head(&mut self, from: usize, span: &[u8]) -> Result<()> {
        let at = from as u64;
        seek(&mut self.inner, at)?;
        self.inner.write_all(span).map_err(|e| Error::io(at, e))?;
        self.inner.flush().map_err(|e| Error::io(at, e))?;
        if self.opts.fsync {
            self.inner.sync().map_err(|e| Error::io(at, e))?;
        }
        Ok(())
    }

    /// The header does not fit in place: rewrite next to the path, or refuse.
    fn rewrite(&mut self, array: &Array, header: Header, head: Vec<u8>) -> Result<()> {
        let path = match (&self.path, self.opts.rewrite_when_full) {
            (Some(p), true) => p.clone(),
            _ => return Err(self.full(head.len())),
        };
        let tmp = temp_path(&path)?;
        let mut out = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| Error::os(format!("cannot create {}", tmp.display()), e))?;
        let built =
            keep_metadata(&path, &out).and_then(|()| self.write_copy(&mut out, &head, array));
        let renamed = built.and_then(|()| {
            std::fs::rename(&tmp, &path).map_err(|e| {
                Error::os(
                    format!("cannot rename {} to {}", tmp.display(), path.display()),
                    e,
                )
            })
        });
        if let Err(e) = renamed {
            // The original file is untouched; the partial copy is ours to remove.
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        if self.opts.fsync {
            sync_dir(&path)?;
        }
        if !self.inner.replace_with(out) {
            return Err(internal("a file storage for a path"));
        }
        self.header = header;
        self.head = head;
        self.state = State::Clean;
        Ok(())
    }

    /// The complete new file: header, the old payload copied, the new rows, (fsync) a sync.
    fn write_copy(&mut self, out: &mut File, head: &[u8], array: &Array) -> Result<()> {
        out.write_all(head).map_err(|e| Error::io(0, e))?;
        let old = self.header.payload_len() as u64;
        seek(&mut self.inner, self.header.payload_offset())?;
        let copied = std::io::copy(&mut (&mut self.inner).take(old), out)
            .map_err(|e| Error::io(self.header.payload_offset(), e))?;
        if copied != old {
            return Err(internal("the whole old payload to copy"));
        }
        let at = (head.len() as u64).saturating_add(old);
        write_data(out, self.header.dtype(), at, array)?;
        out.flush().map_err(|e| Error::io(at, e))?;
        if self.opts.fsync {
            out.sync_all().map_err(|e| Error::io(at, e))?;
        }
        Ok(())
    }

    fn full(&self, new_len: usize) -> Error {
        let why = if new_len == self.head.len() {
            "its changed bytes cross a 512-byte sector boundary".to_string()
        } else {
            format!("np.save's header for the new shape is {new_len} bytes")
        };
        Error::unplaced(
            ErrorKind::HeaderFull,
            format!(
                "a header that np.save rewrites in its {} bytes in place \
                 (rewrite_when_full rewrites a file opened by path)",
                self.head.len()
            ),
        )
        .found(why)
    }
}

/// A failed invariant of the appender.
fn internal(what: &str) -> Error {
    Error::unplaced(ErrorKind::Internal, what.to_string())
}

fn seek<S: Seek>(s: &mut S, at: u64) -> Result<()> {
    s.seek(SeekFrom::Start(at))
        .map(|_| ())
        .map_err(|e| Error::io(at, e))
}

fn usize_of(v: u64) -> Result<usize> {
    usize::try_from(v).map_err(|_| internal("an offset that fits usize"))
}

/// What in a valid file cannot be appended to.
fn check_appendable(h: &Header) -> Result<()> {
    let refuse = |what: &str| Err(Error::unplaced(ErrorKind::InvalidInput, what.to_string()));
    if h.shape().is_empty() {
        return refuse("an array of at least one dimension to append to (found a 0-d array)");
    }
    if h.fortran_order() && h.shape().len() > 1 {
        return refuse(
            "a C-order array to append rows to (found a Fortran-order array of more than one dimension)",
        );
    }
    if !h.extra().is_empty() {
        return refuse("a header with only descr, fortran_order and shape (np.save's new header would drop its other keys)");
    }
    Ok(())
}

/// Whether `src` is a block of rows of the file's array.
fn check_source(h: &Header, src: &Array) -> Result<()> {
    let same = |d: &Dtype| d.with_endian(Endian::Little);
    if same(src.dtype()) != same(h.dtype()) {
        return Err(Error::unplaced(
            ErrorKind::TypeMismatch,
            format!(
                "rows of dtype {} (the file's, in either byte order)",
                h.dtype().typestr()
            ),
        )
        .found(src.dtype().typestr()));
    }
    let (file_rest, src_rest) = (h.shape().get(1..), src.shape().get(1..));
    if src.shape().len() != h.shape().len() || file_rest != src_rest {
        let trailing: Vec<usize> = h.shape().iter().skip(1).copied().collect();
        return Err(Error::unplaced(
            ErrorKind::InvalidInput,
            format!(
                "rows of shape (n, {trailing:?}) for a file of shape {:?}",
                h.shape()
            ),
        )
        .found(format!("shape {:?}", src.shape())));
    }
    Ok(())
}

/// Encodes `array` (in C order) in the byte order of `dtype` and writes it; returns the
/// offset after it.
fn write_data<W: Write>(w: &mut W, dtype: &Dtype, at: u64, array: &Array) -> Result<u64> {
    let c = array.as_c_order();
    let e = dtype.endian().unwrap_or(Endian::Little);
    let per = units_per_element(dtype).max(1);
    let units = elements_in(CHUNK, dtype.itemsize()).saturating_mul(per);
    let mut offset = at;
    c.data()
        .encode_chunks(e, units, |chunk| {
            w.write_all(chunk)?;
            offset = offset.saturating_add(chunk.len() as u64);
            Ok(())
        })
        .map_err(|e| Error::io(offset, e))?;
    Ok(offset)
}

/// The first and last index at which `old` and `new` differ (`None`: identical).
fn changed_span(old: &[u8], new: &[u8]) -> Option<(usize, usize)> {
    let differs = |i: usize| old.get(i) != new.get(i);
    let len = old.len().max(new.len());
    let from = (0..len).find(|&i| differs(i))?;
    let to = (0..len).rev().find(|&i| differs(i))?;
    Some((from, to))
}

fn within_sector((from, to): (usize, usize)) -> bool {
    (from as u64).checked_div(SECTOR) == (to as u64).checked_div(SECTOR)
}

/// A scratch name next to `path` for the rewritten file.
fn temp_path(path: &Path) -> Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| Error::unplaced(ErrorKind::InvalidInput, "a path naming a file"))?;
    let mut tmp = std::ffi::OsString::from(".");
    tmp.push(name);
    tmp.push(format!(".npyguard-append-{}.tmp", std::process::id()));
    Ok(path.with_file_name(tmp))
}

/// Gives the rewritten file `out` the permission bits of the file at `path` and, where the
/// process may (root, or the same owner), its owner and group. Extended attributes, ACLs
/// and timestamps are not copied (std has no portable way to).
fn keep_metadata(path: &Path, out: &File) -> Result<()> {
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::os(format!("cannot read the metadata of {}", path.display()), e))?;
    out.set_permissions(meta.permissions())
        .map_err(|e| Error::os("cannot set the rewritten file's permissions", e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // EPERM when not permitted: the new file keeps this process's owner.
        let _ = std::os::unix::fs::fchown(out, Some(meta.uid()), Some(meta.gid()));
    }
    Ok(())
}

/// Makes a rename in the directory of `path` durable.
fn sync_dir(path: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| Error::os(format!("cannot sync {}", dir.display()), e))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}
