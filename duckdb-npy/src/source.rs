//! Where rows come from: the files of a glob (each a [`RowReader`]: bounded row chunks),
//! or one `.npz` member, every byte read through DuckDB's file system ([`DuckFile`]).
//! Everything here is safe Rust over npyguard's API.

use std::io::{BufReader, Read, Seek};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

use npyguard::npz::NpzArchive;
use npyguard::{Array, Header, Opened, ReadOptions, RowReader, Table};

use crate::dfs::{DuckFile, DuckFs};
use crate::types::Kind;

/// Bytes of payload read per chunk (at least one row): the extension's memory is about
/// this much plus DuckDB's output vectors.
pub const CHUNK_BYTES: usize = 1 << 20;

/// An error for DuckDB: the file it concerns and npyguard's message (which carries the
/// byte offset: `kind at byte N: expected …, found …`).
pub fn file_error(path: &Path, err: impl std::fmt::Display) -> String {
    format!("{}: {err}", path.display())
}

/// Whether `pattern` has glob characters.
fn has_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// The files of `pattern`: the path itself when DuckDB's file system opens it (no glob
/// expansion, so a name with `[` works, and `https://`/`s3://` paths of DuckDB's other
/// file systems), else the glob's matches in sorted order; an error when none match.
///
/// DuckDB's C API has no glob, so the sandbox is kept this way: the pattern itself is
/// first opened through DuckDB's file system, which checks it with the same call DuckDB's
/// own glob makes (`CanAccessFile` on the pattern): a refusal (`enable_external_access =
/// false` and the pattern outside `allowed_directories`) is the error, and no directory is
/// listed. Only a pattern DuckDB would glob itself is expanded here (local paths, by DuckDB's
/// rules: [`crate::globbing`], directory listings and file types, no file content, no
/// symbolic link entered by `**`); every match is then
/// opened, and read, through DuckDB's file system, which checks each path again. A
/// pattern with a URL scheme (`s3://…*`) is not expanded (DuckDB's error for the literal
/// path is returned).
pub fn expand(fs: &DuckFs, pattern: &str) -> Result<Vec<PathBuf>, String> {
    let refused = match fs.open(pattern) {
        Ok(_) => return Ok(vec![PathBuf::from(pattern)]),
        Err(e) => e,
    };
    if refused.permission || !has_glob(pattern) || pattern.contains("://") {
        return Err(file_error(Path::new(pattern), refused));
    }
    let mut files = crate::globbing::local_matches(pattern)?;
    files.retain(|p| p.is_file());
    if files.is_empty() {
        return Err(format!("no file matches {pattern:?}"));
    }
    Ok(files)
}

/// Opens `path` through DuckDB's file system (an error names the file).
pub fn open_file(fs: &DuckFs, path: &Path) -> Result<DuckFile, String> {
    let s = path
        .to_str()
        .ok_or_else(|| file_error(path, "a path in UTF-8 (DuckDB's paths are UTF-8)"))?;
    fs.open(s).map_err(|e| file_error(path, e))
}

/// Opens the `.npz` archive at `path` through DuckDB's file system and checks its
/// structure (npyguard's [`NpzArchive::new`]: limits of `opts` apply).
pub fn open_npz(
    fs: &DuckFs,
    path: &Path,
    opts: &ReadOptions,
) -> Result<NpzArchive<BufReader<DuckFile>>, String> {
    let file = open_file(fs, path)?;
    NpzArchive::new(BufReader::with_capacity(64 << 10, file), opts).map_err(|e| file_error(path, e))
}

/// The table a header describes, as DuckDB reads it: npyguard's [`Table`] (rows along the
/// first axis, columns the trailing axes flattened in C order, both bounded by
/// `Header::check_backed`; a 0-d array is one row of one column) and the element kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// The element kind.
    pub kind: Kind,
    /// The geometry.
    pub table: Table,
}

impl Shape {
    /// The table shape of `header`, or why it has none; `counts`: datetimes as BIGINT
    /// counts ([`Kind::as_counts`]).
    pub fn of(header: &Header, counts: bool) -> Result<Shape, String> {
        let mut kind = Kind::of(header.dtype())?;
        if counts {
            kind = kind.as_counts();
        }
        let table = Table::of(header).map_err(|e| e.to_string())?;
        Ok(Shape { kind, table })
    }

    /// Elements per row.
    pub fn cols(&self) -> usize {
        self.table.cols()
    }

    /// The axes after the first (empty for 0-d and 1-D arrays).
    pub fn trailing(&self) -> &[usize] {
        self.table.trailing()
    }

    /// Whether another file's table can follow this one in the same scan.
    pub fn same_table(&self, other: &Shape) -> bool {
        self.kind == other.kind && self.trailing() == other.trailing()
    }
}

/// Opens `path` through DuckDB's file system as a row reader: the header, limits and
/// length are checked by npyguard's one checked opening ([`Opened::seekable`]).
pub fn open(fs: &DuckFs, path: &Path, opts: &ReadOptions) -> Result<RowReader<DuckFile>, String> {
    Opened::seekable(open_file(fs, path)?, opts)
        .and_then(Opened::into_rows)
        .map_err(|e| file_error(path, e))
}

/// A decoded chunk of consecutive rows.
pub enum Chunk {
    /// Whole rows in C order: an array of shape `(k, ...)` (a 0-d array as is).
    Rows(Array),
    /// Some columns of `rows` rows, each a 1-D array (`None`: a column not asked for).
    Columns {
        /// Rows in the chunk.
        rows: usize,
        /// Column `j`'s values, when asked for.
        cols: Vec<Option<Array>>,
    },
}

impl Chunk {
    /// Rows in the chunk.
    pub fn rows(&self) -> usize {
        match self {
            Chunk::Rows(a) => a.shape().first().copied().unwrap_or(1),
            Chunk::Columns { rows, .. } => *rows,
        }
    }
}

/// A source of row chunks.
pub enum Rows {
    /// A `.npy` file read by whole rows (C order; Fortran order gathered by npyguard's
    /// [`RowReader`] and reindexed one chunk at a time).
    File {
        /// The reader.
        reader: RowReader<DuckFile>,
        /// The next row to read.
        next: usize,
        /// The row after the last one to read.
        end: usize,
        /// Rows per chunk.
        step: usize,
    },
    /// A Fortran-order `.npy` file of which only some columns are asked for: each chunk
    /// reads, for each of those columns, its one contiguous run of rows
    /// ([`RowReader::read_column`]: projection pushdown, the other columns' bytes are not
    /// read).
    FortranColumns {
        /// The reader.
        reader: RowReader<DuckFile>,
        /// The columns asked for (C-order index over the trailing axes).
        want: Vec<usize>,
        /// Columns per row.
        cols: usize,
        /// The next row to read.
        next: usize,
        /// The row after the last one to read.
        end: usize,
        /// Rows per chunk.
        step: usize,
    },
    /// A file of which no column is asked for (`count(*)`): rows without reading.
    Count {
        /// The header (validated, length checked).
        header: Header,
        /// The next row.
        next: usize,
        /// The row after the last one.
        end: usize,
    },
    /// An `.npz` member streamed in row chunks by a thread that owns the archive (npyguard's
    /// `NpzArchive::row_chunks` borrows it): a channel of one chunk keeps memory at about
    /// three chunks; the thread stops when the scan drops the receiver.
    Member(Member),
}

/// An `.npz` member being streamed by its thread.
pub struct Member {
    /// Chunks from the thread (`None` once dropped).
    rx: Option<Receiver<Msg>>,
    /// The thread, joined when the scan drops the member: so the DuckDB file handle it
    /// reads is closed before the scan (and its query) ends.
    thread: Option<JoinHandle<()>>,
    /// The first row of the next chunk.
    next: usize,
}

impl Drop for Member {
    fn drop(&mut self) {
        // The thread's next send fails once the receiver is gone: it stops after at most
        // one chunk.
        self.rx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// What the `.npz` thread sends.
pub enum Msg {
    /// The next rows.
    Chunk(Array),
    /// The member ended and its size and CRC were checked.
    Done,
    /// Why reading stopped.
    Failed(String),
}

/// What a scan expects of a file or archive member: the table shape and row count the
/// query was bound to (the file may have been replaced since).
pub struct Expected {
    /// The bound shape.
    pub shape: Shape,
    /// The bound number of rows.
    pub rows: usize,
    /// Datetimes as counts ([`Kind::as_counts`]), as bound.
    pub counts: bool,
}

impl Expected {
    /// The shape of `header` when it has the bound table: the same element kind (the DuckDB
    /// type the query was bound to), the same trailing axes and row count.
    pub fn check(&self, header: &Header) -> Result<Shape, String> {
        let shape = Shape::of(header, self.counts)?;
        if shape.same_table(&self.shape) && shape.table.rows() == self.rows {
            Ok(shape)
        } else {
            Err("the file changed its dtype or shape since the query was bound".into())
        }
    }
}

/// Streams member `member` of the archive at `path` from a new thread (the file is opened
/// here, on DuckDB's thread, through DuckDB's file system). The header the thread decodes
/// with is checked against `expected` before any row is sent: values of another dtype never
/// reach vectors of the bound type.
pub fn npz_member(
    fs: &DuckFs,
    path: &Path,
    member: &str,
    opts: &ReadOptions,
    expected: Expected,
) -> Result<Rows, String> {
    let archive = open_npz(fs, path, opts)?;
    let (tx, rx) = sync_channel::<Msg>(1);
    let member = member.to_string();
    let thread = std::thread::Builder::new()
        .name("read_npz".into())
        .spawn(move || {
            let last = match stream_member(archive, &member, &expected, &tx) {
                Ok(true) => Msg::Done,
                Ok(false) => return, // the scan ended early (LIMIT, an error elsewhere)
                Err(e) => Msg::Failed(e),
            };
            let _ = tx.send(last);
        })
        .map_err(|e| format!("cannot start the npz reading thread: {e}"))?;
    Ok(Rows::Member(Member {
        rx: Some(rx),
        thread: Some(thread),
        next: 0,
    }))
}

/// Sends the member's chunks; `false` when the receiver is gone.
fn stream_member<R: Read + Seek>(
    mut archive: NpzArchive<R>,
    member: &str,
    expected: &Expected,
    tx: &SyncSender<Msg>,
) -> Result<bool, String> {
    let chunks = archive.row_chunks(member, 1).map_err(|e| e.to_string())?;
    expected.check(chunks.header())?;
    let table = Table::of(chunks.header()).map_err(|e| e.to_string())?;
    let step = table.rows_within(CHUNK_BYTES);
    for chunk in chunks.with_rows_per_chunk(step) {
        let chunk = chunk.map_err(|e| e.to_string())?;
        if tx.send(Msg::Chunk(chunk)).is_err() {
            return Ok(false);
        }
    }
    Ok(true)
}

impl Rows {
    /// Row chunks of rows `range` of `reader`, whose table is `table`, about
    /// [`CHUNK_BYTES`] each. `want`: the only columns a query needs (`None`: whole rows).
    pub fn file(
        reader: RowReader<DuckFile>,
        table: &Table,
        want: Option<Vec<usize>>,
        range: Range<usize>,
    ) -> Rows {
        let h = reader.header().clone();
        let (next, end) = (range.start, range.end.min(table.rows()));
        match want {
            Some(w) if w.is_empty() => Rows::Count {
                header: h,
                next,
                end,
            },
            Some(w) if table.is_fortran() && h.payload_len() > 0 => {
                let row_bytes = table.item_bytes().saturating_mul(w.len());
                Rows::FortranColumns {
                    reader,
                    want: w,
                    cols: table.cols(),
                    next,
                    end,
                    step: (CHUNK_BYTES / row_bytes.max(1)).max(1),
                }
            }
            _ => Rows::File {
                reader,
                next,
                end,
                step: table.rows_within(CHUNK_BYTES),
            },
        }
    }

    /// The header of the rows.
    pub fn header(&self) -> Option<&Header> {
        match self {
            Rows::File { reader, .. } | Rows::FortranColumns { reader, .. } => {
                Some(reader.header())
            }
            Rows::Count { header, .. } => Some(header),
            Rows::Member(_) => None,
        }
    }

    /// The next chunk and its first row, `None` at the end.
    pub fn next_chunk(&mut self) -> Result<Option<(usize, Chunk)>, String> {
        match self {
            Rows::File {
                reader,
                next,
                end: total,
                step,
            } => {
                let total = *total;
                if *next >= total {
                    return Ok(None);
                }
                // An empty payload (shape (2**40, 0)): rows without bytes, one chunk.
                let end = if reader.header().payload_len() == 0 {
                    total
                } else {
                    next.saturating_add(*step).min(total)
                };
                let start = *next;
                let chunk = reader.read_rows(start..end).map_err(|e| e.to_string())?;
                *next = end;
                Ok(Some((start, Chunk::Rows(c_order(chunk)))))
            }
            Rows::Count {
                next, end: total, ..
            } => {
                let total = *total;
                if *next >= total {
                    return Ok(None);
                }
                let start = *next;
                // Rows a DuckDB vector can take; nothing is read.
                let end = next.saturating_add(crate::VECTOR).min(total);
                *next = end;
                Ok(Some((
                    start,
                    Chunk::Columns {
                        rows: end - start,
                        cols: Vec::new(),
                    },
                )))
            }
            Rows::FortranColumns {
                reader,
                want,
                cols,
                next,
                end: total,
                step,
            } => {
                let total = *total;
                if *next >= total {
                    return Ok(None);
                }
                let start = *next;
                let end = next.saturating_add(*step).min(total);
                let mut out: Vec<Option<Array>> = (0..*cols).map(|_| None).collect();
                for &j in want.iter() {
                    let run = reader
                        .read_column(j, start..end)
                        .map_err(|e| e.to_string())?;
                    if let Some(slot) = out.get_mut(j) {
                        *slot = Some(run);
                    }
                }
                *next = end;
                Ok(Some((
                    start,
                    Chunk::Columns {
                        rows: end - start,
                        cols: out,
                    },
                )))
            }
            Rows::Member(m) => match m.rx.as_ref().map(Receiver::recv) {
                Some(Ok(Msg::Chunk(a))) => {
                    let start = m.next;
                    m.next = m
                        .next
                        .saturating_add(a.shape().first().copied().unwrap_or(1));
                    Ok(Some((start, Chunk::Rows(c_order(a)))))
                }
                Some(Ok(Msg::Done)) => Ok(None),
                Some(Ok(Msg::Failed(e))) => Err(e),
                _ => Err("internal: the npz reading thread stopped early".into()),
            },
        }
    }
}

/// The chunk in C order (a Fortran-order chunk is reindexed: one chunk's copy).
fn c_order(a: Array) -> Array {
    if a.fortran_order() && a.shape().len() > 1 {
        a.to_c_order()
    } else {
        a
    }
}
