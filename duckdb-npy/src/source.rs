//! Where rows come from: the files of a glob (each a [`RowReader`]: bounded row chunks),
//! or one `.npz` member. Everything here is safe Rust over npyguard's API.

use std::fs::File;
use std::path::{Path, PathBuf};

use npyguard::{Array, Header, ReadOptions, RowReader};

use crate::types::Kind;

/// Bytes of payload read per chunk (at least one row): the extension's memory is about
/// this much plus DuckDB's output vectors.
pub const CHUNK_BYTES: usize = 1 << 20;

/// An error for DuckDB: the file it concerns and npyguard's message (which carries the
/// byte offset: `kind at byte N: expected …, found …`).
pub fn file_error(path: &Path, err: impl std::fmt::Display) -> String {
    format!("{}: {err}", path.display())
}

/// The files of `pattern`: the path itself when it names a file (no glob expansion, so a
/// name with `[` works), else the glob's matches in sorted order; an error when none match.
pub fn expand(pattern: &str) -> Result<Vec<PathBuf>, String> {
    let direct = Path::new(pattern);
    if direct.is_file() {
        return Ok(vec![direct.to_path_buf()]);
    }
    let has_glob = pattern.contains(['*', '?', '[']);
    if !has_glob {
        // Let the open report the operating system's reason (no such file, a directory…).
        return Ok(vec![direct.to_path_buf()]);
    }
    let paths = glob::glob(pattern).map_err(|e| format!("bad glob pattern {pattern:?}: {e}"))?;
    let mut files = Vec::new();
    for p in paths {
        let p = p.map_err(|e| format!("{}: {}", e.path().display(), e.error()))?;
        if p.is_file() {
            files.push(p);
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(format!("no file matches {pattern:?}"));
    }
    Ok(files)
}

/// The table a header describes: `rows` along the first axis, `cols` elements per row
/// (the product of the trailing axes, in C order); a 0-d array is one row of one column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// The element kind.
    pub kind: Kind,
    /// The axes after the first (empty for 0-d and 1-D arrays).
    pub trailing: Vec<usize>,
    /// Elements per row.
    pub cols: usize,
}

impl Shape {
    /// The table shape of `header`, or why it has none.
    pub fn of(header: &Header) -> Result<Shape, String> {
        let kind = Kind::of(header.dtype())?;
        let trailing: Vec<usize> = header.shape().iter().skip(1).copied().collect();
        let cols = trailing
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .ok_or_else(|| format!("a row size that fits, found shape {:?}", header.shape()))?;
        // A zero-size array can claim columns no byte backs (shape (0, 2**60)): each
        // column costs DuckDB a result column, so npyguard's bound applies.
        header
            .check_backed(cols as u64, "columns")
            .map_err(|e| e.to_string())?;
        Ok(Shape {
            kind,
            trailing,
            cols,
        })
    }

    /// Whether another file's table can follow this one in the same scan.
    pub fn same_table(&self, other: &Shape) -> bool {
        self.kind == other.kind && self.trailing == other.trailing
    }
}

/// Opens `path` as a row reader (header, limits and length checked).
pub fn open(path: &Path, opts: &ReadOptions) -> Result<RowReader<File>, String> {
    RowReader::open(path, opts).map_err(|e| file_error(path, e))
}

/// A source of row chunks in C order.
pub enum Rows {
    /// A `.npy` file read by row ranges.
    File {
        /// The reader.
        reader: RowReader<File>,
        /// The next row to read.
        next: usize,
        /// Rows per chunk.
        step: usize,
    },
    /// A whole array (an `.npz` member), handed out once.
    Whole(Option<Array>),
}

impl Rows {
    /// Row chunks of `reader`, about [`CHUNK_BYTES`] each.
    pub fn file(reader: RowReader<File>) -> Rows {
        let h = reader.header();
        let row_bytes = h
            .shape()
            .iter()
            .skip(1)
            .fold(h.dtype().itemsize(), |a, &d| a.saturating_mul(d))
            .max(1);
        let step = (CHUNK_BYTES / row_bytes).max(1);
        Rows::File {
            reader,
            next: 0,
            step,
        }
    }

    /// The header of the rows.
    pub fn header(&self) -> Option<&Header> {
        match self {
            Rows::File { reader, .. } => Some(reader.header()),
            Rows::Whole(a) => a.as_ref().map(|a| a.header()),
        }
    }

    /// The next chunk (C order, shape `(k, ...)`; a 0-d array as is), `None` at the end.
    pub fn next_chunk(&mut self) -> Result<Option<(usize, Array)>, npyguard::Error> {
        match self {
            Rows::File { reader, next, step } => {
                let total = reader.num_rows();
                let empty_payload = reader.header().payload_len() == 0;
                if *next >= total {
                    return Ok(None);
                }
                // An empty payload (shape (2**40, 0)): rows without bytes, one chunk.
                let end = if empty_payload {
                    total
                } else {
                    next.saturating_add(*step).min(total)
                };
                let start = *next;
                let chunk = reader.read_rows(start..end)?;
                *next = end;
                Ok(Some((start, c_order(chunk))))
            }
            Rows::Whole(a) => Ok(a.take().map(|a| (0, c_order(a)))),
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
