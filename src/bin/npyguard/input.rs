//! Opening an input path: once, whatever it is.
//!
//! `-` is standard input. A path is opened exactly once: its format is sniffed from the first bytes of that one
//! open file, and the same file is then read. A FIFO fed once by another process is
//! therefore read, not waited on forever; a `.npy` from a FIFO or device is streamed (the
//! limits are enforced on the bytes that arrive); a `.npz` needs a seekable regular file
//! and is refused at once otherwise. A directory, a missing file or any other OS error is
//! exit 2 with the path and the OS message (no byte offset).
//!
//! A file is an archive when it starts with a zip signature (`PK\x03\x04`, or
//! `PK\x05\x06` for an empty archive), or, when it starts with neither that nor
//! the `.npy` magic, when its name ends in `.npz`.

use std::fs::File;
use std::io::{BufReader, Cursor, Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;

use npyguard::npz::{self, NpzArchive};
use npyguard::{Array, Category, Error, ErrorKind, Header, Opened, Preamble, ReadOptions};

/// Bytes read to tell `.npy` from `.npz`.
const SNIFF: usize = 6;

/// A `.npy` from a FIFO or device: the sniffed bytes, then the rest of the stream.
pub type Stream = std::io::Chain<Cursor<Vec<u8>>, File>;

/// An opened input, by format.
pub enum Input {
    /// A `.npy` in a regular file, positioned at its start.
    NpyFile(File),
    /// A `.npy` from a FIFO or device.
    NpyStream(Stream),
    /// A `.npz` in a regular file, positioned at its start.
    Npz(File),
}

/// A `.npy` input past the library's one checked opening.
enum OpenedNpy {
    File(Opened<File>),
    Stream(Opened<Stream>),
}

/// A `.npy` (or an archive member) read as consecutive row chunks ([`Input::row_chunks`]).
pub type Chunks<'a> = Box<dyn Iterator<Item = npyguard::Result<Array>> + 'a>;

/// What went wrong, and the exit code it means: the one error shape of every command.
pub enum Failure {
    /// Usage or OS error (exit 2): the message to print.
    Os(String),
    /// The input is invalid (exit 1): the error, already printed or to be printed by the caller.
    Invalid(Error),
    /// Standard output was closed by its reader (`| head`): the command stops quietly, exit 0.
    Closed,
    /// Already reported (an invalid input, printed with its path): exit with this code.
    Reported(std::process::ExitCode),
}

impl From<String> for Failure {
    fn from(msg: String) -> Failure {
        Failure::Os(msg)
    }
}

impl From<&str> for Failure {
    fn from(msg: &str) -> Failure {
        Failure::Os(msg.to_string())
    }
}

/// The text of an exit-2 error: `cannot read PATH: OS message` for a stream error at an
/// offset; for an operation on the whole file (no offset) the library's own text, which
/// names the operation (`cannot seek the archive: …`), after the path.
pub fn os_message(path: &Path, e: &Error) -> String {
    match e.offset() {
        Some(_) => {
            let os = e.found_text().unwrap_or(e.expected());
            format!("cannot read {}: {os}", path.display())
        }
        None => format!("{}: {e}", path.display()),
    }
}

/// An error as the exit code it means: I/O errors are the OS's (exit 2), the rest are the input's (exit 1).
pub fn classify(path: &Path, e: Error) -> Failure {
    if e.category() == Category::Io {
        Failure::Os(os_message(path, &e))
    } else {
        Failure::Invalid(e)
    }
}

/// Opens `path` once and tells its format from its first bytes.
pub fn open(path: &Path) -> Result<Input, Failure> {
    let os = |e: std::io::Error| Failure::Os(format!("cannot open {}: {e}", path.display()));
    let mut file = File::open(os_path(path)).map_err(os)?;
    let meta = file.metadata().map_err(os)?;
    if meta.is_dir() {
        return Err(Failure::Os(format!(
            "cannot read {}: is a directory",
            path.display()
        )));
    }
    let mut head = Vec::with_capacity(SNIFF);
    (&mut file)
        .take(SNIFF as u64)
        .read_to_end(&mut head)
        .map_err(os)?;
    let is_npz = looks_npz(path, &head);
    if meta.is_file() {
        file.seek(SeekFrom::Start(0)).map_err(os)?;
        return Ok(if is_npz {
            Input::Npz(file)
        } else {
            Input::NpyFile(file)
        });
    }
    if is_npz {
        return Err(Failure::Os(format!(
            "cannot read {}: a .npz archive must be a seekable regular file (this is a FIFO, socket or device)",
            path.display()
        )));
    }
    Ok(Input::NpyStream(Cursor::new(head).chain(file)))
}

/// The path to open for `path`: `-` is standard input (through `/dev/stdin`, so a redirected
/// regular file stays seekable and a pipe is streamed).
pub fn os_path(path: &Path) -> &Path {
    if path == Path::new("-") {
        Path::new("/dev/stdin")
    } else {
        path
    }
}

fn looks_npz(path: &Path, head: &[u8]) -> bool {
    if npz::looks_like_npz(head) {
        return true;
    }
    if head.starts_with(Preamble::MAGIC) {
        return false;
    }
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npz"))
}

impl Input {
    /// Whether this is an archive.
    pub fn is_npz(&self) -> bool {
        matches!(self, Input::Npz(_))
    }

    /// Opens the `.npy` through the library's one checked opening ([`npyguard::Opened`]:
    /// size, header, claim, and a regular file's length); an archive is refused (callers
    /// dispatch on [`is_npz`](Input::is_npz)).
    fn open_npy(self, opts: &ReadOptions) -> npyguard::Result<OpenedNpy> {
        match self {
            Input::NpyFile(f) => Ok(OpenedNpy::File(Opened::file(f, opts)?)),
            Input::NpyStream(s) => Ok(OpenedNpy::Stream(Opened::stream(s, opts)?)),
            Input::Npz(_) => Err(not_npy()),
        }
    }

    /// Reads the whole `.npy`.
    pub fn read_npy(self, opts: &ReadOptions) -> npyguard::Result<Array> {
        match self.open_npy(opts)? {
            OpenedNpy::File(o) => o.read(),
            OpenedNpy::Stream(o) => o.read(),
        }
    }

    /// Checks the whole `.npy` as [`read_npy`](Input::read_npy) would, keeping none of its
    /// payload ([`Opened::validate`]): constant memory on any input, a file of any size or
    /// an endless stream.
    pub fn validate_npy(self, opts: &ReadOptions) -> npyguard::Result<Header> {
        match self.open_npy(opts)? {
            OpenedNpy::File(o) => o.validate(),
            OpenedNpy::Stream(o) => o.validate(),
        }
    }

    /// The `.npy`'s header, checked as a full read checks it before the payload: a regular
    /// file against its length (limits, truncation, trailing bytes); a stream's claim
    /// against the limits (only the header has arrived). The payload is not read.
    pub fn inspect_npy(self, opts: &ReadOptions) -> npyguard::Result<Header> {
        Ok(match self.open_npy(opts)? {
            OpenedNpy::File(o) => o.into_parts().0,
            OpenedNpy::Stream(o) => o.into_parts().0,
        })
    }

    /// The rows `rows(header)` chooses of the `.npy`'s first axis: from a regular file only
    /// their bytes are read ([`npyguard::RowReader`]); a stream is read to its end and
    /// checked as a whole read checks it, chunk by chunk, keeping only the rows asked for
    /// (a Fortran-order stream of more than one dimension, whose rows are not contiguous,
    /// is one chunk).
    pub fn read_rows(
        self,
        opts: &ReadOptions,
        rows: impl FnOnce(&Header) -> npyguard::Result<Range<usize>>,
    ) -> npyguard::Result<Array> {
        match self.open_npy(opts)? {
            OpenedNpy::File(o) => {
                let mut r = o.into_rows()?;
                let range = rows(r.header())?;
                r.read_rows(range)
            }
            OpenedNpy::Stream(o) => stream_rows(o, rows),
        }
    }

    /// The `.npy` as consecutive row chunks, each of at most the rows `rows_for` chooses for
    /// the header: a regular file through [`npyguard::RowReader`] (only the chunk's bytes are
    /// read; Fortran-order rows are gathered), a stream through [`npyguard::RowChunks`].
    /// Memory is one chunk, whatever the file's size.
    pub fn row_chunks(
        self,
        opts: &ReadOptions,
        rows_for: impl FnOnce(&Header) -> usize,
    ) -> npyguard::Result<(Header, Chunks<'static>)> {
        match self.open_npy(opts)? {
            OpenedNpy::File(o) => {
                let rows = rows_for(o.header());
                let reader = o.into_rows()?;
                Ok((reader.header().clone(), Box::new(reader.into_chunks(rows))))
            }
            OpenedNpy::Stream(o) => {
                let rows = rows_for(o.header());
                let chunks = o.into_chunks(rows);
                Ok((chunks.header().clone(), Box::new(chunks)))
            }
        }
    }

    /// Opens the archive (a `.npy` is refused). A command checks what the members it reads
    /// declare before reading them (`check_declared_sizes` for all, `check_declared_size`
    /// for one), so that a member declared over a limit is refused before it is inflated
    /// (`dump` of a 1 GiB member declared at a ratio over `--max-ratio` inflated it first).
    pub fn archive(self, opts: &ReadOptions) -> npyguard::Result<NpzArchive<BufReader<File>>> {
        match self {
            Input::Npz(f) => NpzArchive::new(BufReader::new(f), opts),
            _ => Err(Error::new(ErrorKind::ZipFormat, 0, "a .npz archive").found(".npy data")),
        }
    }

    /// [`archive`](Input::archive) for a command that reads every member: what each
    /// declares is checked first.
    pub fn whole_archive(
        self,
        opts: &ReadOptions,
    ) -> npyguard::Result<NpzArchive<BufReader<File>>> {
        let archive = self.archive(opts)?;
        archive.check_declared_sizes()?;
        Ok(archive)
    }
}

/// [`Input::read_rows`] of a stream: consecutive chunks of about [`CHUNK_BYTES`], each
/// checked and dropped once the rows it shares with `rows` are kept (as `.npy` payload
/// bytes, decoded once at the end).
fn stream_rows(
    opened: Opened<Stream>,
    rows: impl FnOnce(&Header) -> npyguard::Result<Range<usize>>,
) -> npyguard::Result<Array> {
    let header = opened.header().clone();
    let relaxed = opened.options().clone().with_max_file_bytes(None);
    let want = rows(&header)?;
    let total = header.shape().first().copied().unwrap_or(1);
    let row_bytes = header.payload_len().checked_div(total).unwrap_or(0);
    let per_chunk = rows_per_chunk(&header);
    let mut payload = Vec::new();
    let mut whole = None;
    let mut at = 0usize;
    for chunk in opened.into_chunks(per_chunk) {
        let chunk = chunk?;
        let n = chunk.shape().first().copied().unwrap_or(1);
        let keep = want.start.max(at)..want.end.min(at.saturating_add(n));
        if n == total {
            whole = Some(chunk);
        } else if !keep.is_empty() {
            let bytes = npyguard::write::to_vec(&chunk)?;
            let first = bytes.len().saturating_sub(chunk.header().payload_len());
            let from = first.saturating_add((keep.start - at).saturating_mul(row_bytes));
            let to = from.saturating_add(keep.len().saturating_mul(row_bytes));
            payload.extend_from_slice(bytes.get(from..to).unwrap_or_default());
        }
        at = at.saturating_add(n);
    }
    if let Some(whole) = whole {
        // One chunk (a Fortran-order array, or all rows fit one chunk): cut it as a file.
        let bytes = npyguard::write::to_vec(&whole)?;
        return Opened::seekable(Cursor::new(bytes), &relaxed)?
            .into_rows()?
            .read_rows(want);
    }
    let mut shape = header.shape().to_vec();
    if let Some(first) = shape.first_mut() {
        *first = want.len();
    }
    let part = Header::new(header.dtype().clone(), shape, false)?;
    let mut file = npyguard::write::header_bytes(&part);
    file.extend_from_slice(&payload);
    Opened::from_slice(&file, &relaxed)?.read()
}

/// Payload bytes per chunk of a streamed read that keeps at most one chunk.
const CHUNK_BYTES: usize = 1 << 20;

/// Rows of `header`'s array per chunk of about [`CHUNK_BYTES`] (at least one).
pub fn rows_per_chunk(header: &Header) -> usize {
    let total = header.shape().first().copied().unwrap_or(1);
    let row_bytes = header.payload_len().checked_div(total).unwrap_or(0);
    CHUNK_BYTES
        .checked_div(row_bytes)
        .unwrap_or(CHUNK_BYTES)
        .max(1)
}

fn not_npy() -> Error {
    Error::new(ErrorKind::BadMagic, 0, "a .npy file").found("a zip archive")
}
