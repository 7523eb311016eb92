//! # duckdb-npy: `read_npy`, `read_npz` and `COPY … TO 'x.npy'` for DuckDB
//!
//! A DuckDB loadable extension (built on the `duckdb` crate's C-API `loadable-extension`
//! and `vtab` features; no DuckDB C++ is compiled) that reads NumPy `.npy` files, and one
//! member of an `.npz` archive, through npyguard: every file is validated as npyguard
//! validates it, and every npyguard error becomes a DuckDB error naming the file and the
//! byte offset. It also writes query results as `.npy` ([`copy`]).
//!
//! ```sql
//! SET allow_unsigned_extensions = true;   -- or duckdb.connect(config={...})
//! LOAD '/path/to/npy.duckdb_extension';    -- the path `bash duckdb-npy/build.sh` prints
//! SELECT * FROM read_npy('emb.npy', layout := 'rowlists');   -- c1 FLOAT[8]
//! SELECT * FROM 'emb.npy';                                    -- c1 … c8 (a replacement scan)
//! COPY (SELECT * FROM t) TO 'out.npy' (FORMAT npy);          -- np.save's bytes
//! SELECT * FROM npy_limits();                                 -- the default limits
//! ```
//!
//! Registered on `LOAD` (the entry point `npy_init_c_api`, written out as the duckdb crate's
//! `#[duckdb_entrypoint_c_api]` generates it, plus a raw connection and the database for what
//! the crate does not wrap): the table functions `read_npy`, `read_npz`, `npy_limits`; the
//! copy function `npy` ([`copy`]); a replacement scan that reads a table name ending in
//! `.npy` (a path or glob) with `read_npy` and one ending in `.npz` with `read_npz`.
//!
//! `read_npy(path_or_glob | [paths or globs], layout := 'columns' | 'rowlists' | 'nonzeros',
//! max_file_bytes := BIGINT, numpy_strict := false, filename := false,
//! file_row_number := false, union_by_name := false, datetime_counts := false)`:
//!
//! - `columns` (default): `c1 … cN`, one per element of a row (the axes after the first,
//!   flattened in C order; a 0-d or 1-D array is one column `c1`), one row per index of
//!   the first axis;
//! - `rowlists`: one column `c1 T[N]` (a fixed-size DuckDB ARRAY) per row, for arrays of
//!   two or more dimensions;
//! - `nonzeros`: `row_no BIGINT, col_no SMALLINT|INTEGER|BIGINT, val T`, one row per
//!   non-zero element in row-major order (npyguard's rule of zero).
//!
//! The types are in [`types`]; `datetime_counts := true` reads every `M8`/`m8` column as
//! its BIGINT counts of the dtype's unit (NaT is NULL) instead of TIMESTAMP/INTERVAL. A
//! glob reads every matching file in sorted order (a list of paths: in the list's order,
//! each glob sorted); all must give the same DuckDB type and trailing shape (byte order and
//! memory order may differ), else an error names the first file that differs; with
//! `union_by_name := true` (layout `columns`) files of one type and different widths give
//! `c1 … cN` of the widest, NULL where a file has fewer columns (those are not read).
//! `filename := true` adds a `filename VARCHAR` column, `file_row_number := true` a
//! `file_row_number BIGINT` column (the row's index along its file's first axis).
//!
//! **Streaming.** A scan hands rows out in units of about [`UNIT_BYTES`] to DuckDB's threads
//! (a thread takes a unit, or one another thread left between two vectors); a unit is read
//! in chunks of about [`source::CHUNK_BYTES`] through npyguard's [`npyguard::RowReader`]
//! (Fortran-order chunks reindexed one chunk at a time), and each call fills one DuckDB
//! vector. Memory is one chunk per thread plus DuckDB's vectors, whatever the file size.
//! Where a query needs the rows in order (a plain `SELECT`), DuckDB runs the scan on one
//! thread, so rows come in file order; aggregates use all threads.
//!
//! **Projection pushdown.** Only the columns a query names are converted; a Fortran-order
//! file reads only their bytes (one run per column and chunk), and `count(*)` reads no
//! payload at all (the header and the file's length are always checked; bytes not read are
//! not validated, which matters only for `U` text).
//!
//! `read_npz(path, member := 'name', max_members := 65536, max_total_bytes := NULL,
//! max_ratio := 1000, …)` reads one member of an archive (the only member when `member` is
//! omitted and there is one array), with the same layouts and options, streamed in row
//! chunks through npyguard's `NpzArchive::row_chunks` (size and CRC are checked at the end;
//! a Fortran-order member of more than one dimension is one chunk, as npyguard streams it).
//! Memory is therefore not one chunk for every member: a Fortran-order member is held whole
//! and reindexed to C order (about twice its decompressed size at the peak: 2.1 GiB for a
//! (2, 2²⁹) `u1` member of a 2 MB archive), and a chunk is at least one row (a C-order
//! member of two 512 MiB rows peaks at 1.1 GiB). Both are bounded by `max_ratio` × the
//! member's compressed size and by `max_total_bytes`, which a service reading untrusted
//! archives should set to what it can hold.
//! The archive limits are npyguard's `ReadOptions` (`with_max_npz_members`,
//! `with_max_npz_total_bytes`, `with_max_npz_ratio`), checked as bytes arrive, under the
//! names of `npyguard.load_npz` and the CLI's flags, with the defaults of every door
//! (npyguard's one table, [`ReadOptions::default`]: 65 536 members, ratio 1000, no total;
//! `SELECT * FROM npy_limits()` lists them, see [`limit_rows`]): `max_members` (the member count, checked from the zip's end record
//! before the directory is read), `max_total_bytes` (decompressed bytes read from the
//! archive), `max_ratio` (a member's decompressed size over its compressed size: a deflate
//! bomb stops after 1000 × its compressed bytes), `max_file_bytes` (each member's `.npy`
//! bytes). NULL means no limit; a negative value is an error.
//!
//! **DuckDB's file system and sandbox.** Every byte is read through the file system of the
//! client context that binds the query ([`dfs`]: DuckDB's stable C API, v1.5.6), so DuckDB's
//! rules apply as to `read_csv`: with `SET enable_external_access = false`, a path outside
//! `allowed_directories`/`allowed_paths` is refused with DuckDB's own message (`… file system
//! operations are disabled by configuration`), at bind and again whenever a scan opens a file;
//! DuckDB's other file systems (`httpfs`'s `https://`, `s3://`) serve plain paths. DuckDB's C
//! API has no glob: a pattern is first checked by DuckDB as its own glob checks it (see
//! [`source::expand`]), then expanded locally by DuckDB's rules ([`globbing`]: one `**`,
//! which enters no symbolic link), and every match is opened through DuckDB. A file or
//! archive member is checked again when a scan opens it: one replaced since the query was
//! bound by another dtype or shape is an error, never values of another type.
//!
//! **Only values DuckDB can hold.** A timestamp count outside DuckDB's range for its type
//! (290309-12-22 BC to 294247-01-10 in s/ms/µs; DuckDB's ±infinity counts ±(2⁶³ − 1) in every
//! unit), or an `M8[D]` day count outside DuckDB's DATE range (±(2³¹ − 2); ±(2³¹ − 1) are its
//! ±infinity), is an error naming the file, the row and the column ([`write::invalid`]): passed
//! through, such a value made DuckDB's own casts raise an INTERNAL error that invalidated the
//! database. Every other mapping takes every value of its dtype (see [`types`]).
//!
//! `unsafe`: the entry point (registration, the replacement scan callback), the typed copies
//! into a DuckDB vector ([`write::put`], [`write::put_with`]), the calls into DuckDB's file
//! system ([`dfs`]) and the copy function's callbacks ([`copy`]); each block says why it is
//! sound.

#![deny(unsafe_code)]
#![deny(missing_docs)]

pub mod copy;
pub mod dfs;
pub mod globbing;
pub mod source;
pub mod types;
pub mod write;

use std::error::Error;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use duckdb::core::{DataChunkHandle, Inserter, LogicalTypeHandle, LogicalTypeId};
use duckdb::vtab::{BindInfo, InitInfo, TableFunctionInfo, VTab};
use npyguard::{Array, ArrayData, ReadOptions, Table};

use crate::dfs::DuckFs;
use crate::source::{file_error, Chunk, Rows, Shape};
use crate::types::{col_no_type, Kind, SqlType};
use crate::write::{fill, nonzero, Dst, Sel};

/// DuckDB's rows per vector (STANDARD_VECTOR_SIZE).
const VECTOR: usize = 2048;

type Res<T> = Result<T, Box<dyn Error>>;

/// The table layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `c1 … cN`.
    Columns,
    /// `c1 T[N]`.
    RowLists,
    /// `row_no, col_no, val`.
    NonZeros,
}

impl Layout {
    fn parse(s: &str) -> Result<Layout, String> {
        match s {
            "columns" => Ok(Layout::Columns),
            "rowlists" => Ok(Layout::RowLists),
            "nonzeros" => Ok(Layout::NonZeros),
            other => Err(format!(
                "layout must be 'columns', 'rowlists' or 'nonzeros', found {other:?}"
            )),
        }
    }
}

/// What a scan reads.
#[derive(Debug, Clone)]
enum Inputs {
    Files(Vec<PathBuf>),
    Npz { path: PathBuf, member: String },
}

/// The result of binding: inputs, options and the result columns.
pub struct Bind {
    /// DuckDB's file system of the binding client context: every file is opened there.
    fs: DuckFs,
    inputs: Inputs,
    opts: ReadOptions,
    /// `datetime_counts := true`: datetimes as BIGINT counts.
    counts: bool,
    layout: Layout,
    shape: Shape,
    /// Each input's own shape (with `union_by_name`, narrower than `shape`).
    shapes: Vec<Shape>,
    columns: Vec<(String, SqlType)>,
    /// Rows of each input (checked again when it is opened to be read).
    rows: Vec<usize>,
    /// Rows per unit of work.
    unit_rows: usize,
}

/// Payload bytes per unit of work: a scan hands rows out in units of about this size,
/// each read by one DuckDB thread at a time in chunks of [`source::CHUNK_BYTES`].
pub const UNIT_BYTES: usize = 8 << 20;

/// The state of one scan, shared by DuckDB's threads: units not handed out yet, and
/// workers between two vectors. Memory: one chunk per worker (DuckDB's threads).
pub struct Scan {
    /// Bind column of each output column (projection pushdown).
    projection: Vec<u64>,
    /// The value columns to read (`None`: whole rows), from the projection and the bind
    /// data (which `init` cannot see without `unsafe`): set by the first call.
    want: OnceLock<Option<Vec<usize>>>,
    /// The next unit: an input and its next row.
    units: Mutex<(usize, usize)>,
    /// Workers with rows left in their unit.
    idle: Mutex<Vec<Worker>>,
}

/// One unit of rows being read: its input's path, the rows, and the decoded chunk (its
/// first row in the file, the rows, the next row to emit (columns, rowlists) or the
/// next element to test (nonzeros)).
struct Worker {
    path: PathBuf,
    /// Elements per row of this input (with `union_by_name`, up to the scan's).
    cols: usize,
    rows: Rows,
    chunk: Option<(usize, Chunk, usize)>,
}

/// The extension's defaults: npyguard's one table ([`ReadOptions::default`], from
/// [`npyguard::limits`]), the same as the CLI's and the Python package's. `npy_limits()`
/// reports them from SQL.
pub fn defaults() -> ReadOptions {
    ReadOptions::default()
}

/// The rows of `npy_limits()`: each limit's name (the named parameter of `read_npy` /
/// `read_npz`, except `max_header_bytes`, which has none), its default (`None`: no limit)
/// and which functions take it.
pub fn limit_rows() -> Vec<(&'static str, Option<u64>, &'static str)> {
    let d = defaults();
    vec![
        ("max_file_bytes", d.max_file_bytes(), "read_npy, read_npz"),
        (
            "max_header_bytes",
            Some(d.max_header_bytes() as u64),
            "read_npy, read_npz (fixed)",
        ),
        (
            "max_members",
            d.max_npz_members().map(|n| n as u64),
            "read_npz",
        ),
        ("max_total_bytes", d.max_npz_total_bytes(), "read_npz"),
        ("max_ratio", d.max_npz_ratio(), "read_npz"),
    ]
}

/// A non-negative BIGINT named parameter: absent → `Ok(None)` and `default` applies;
/// NULL → no limit; a value → that limit.
fn limit_param(bind: &BindInfo, name: &str, default: Option<u64>) -> Result<Option<u64>, String> {
    match bind.get_named_parameter(name) {
        None => Ok(default),
        Some(v) if v.is_null() => Ok(None),
        Some(v) => {
            let n = v.to_int64();
            u64::try_from(n)
                .map(Some)
                .map_err(|_| format!("{name} must be >= 0 (or NULL: no limit), found {n}"))
        }
    }
}

fn opts_of(bind: &BindInfo, npz: bool) -> Result<ReadOptions, String> {
    let d = defaults();
    let mut opts =
        d.clone()
            .with_max_file_bytes(limit_param(bind, "max_file_bytes", d.max_file_bytes())?);
    if npz {
        let members = limit_param(bind, "max_members", d.max_npz_members().map(|n| n as u64))?
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        opts = opts
            .with_max_npz_members(members)
            .with_max_npz_total_bytes(limit_param(
                bind,
                "max_total_bytes",
                d.max_npz_total_bytes(),
            )?)
            .with_max_npz_ratio(limit_param(bind, "max_ratio", d.max_npz_ratio())?);
    }
    if let Some(v) = bind
        .get_named_parameter("numpy_strict")
        .filter(|v| !v.is_null())
    {
        opts = opts.with_numpy_strict(v.to_bool());
    }
    Ok(opts)
}

fn string_param(bind: &BindInfo, name: &str) -> Option<String> {
    bind.get_named_parameter(name)
        .filter(|v| !v.is_null())
        .map(|v| v.to_string())
}

fn bool_param(bind: &BindInfo, name: &str) -> bool {
    bind.get_named_parameter(name)
        .filter(|v| !v.is_null())
        .is_some_and(|v| v.to_bool())
}

/// The first parameter as paths: a string, or a list of strings (`['a.npy', 'b/*.npy']`).
fn path_params(bind: &BindInfo, what: &str) -> Result<Vec<String>, String> {
    let v = bind.get_parameter(0);
    if v.is_null() {
        return Err(format!("{what} must not be NULL"));
    }
    match v.to_list() {
        Some(items) => {
            if items.is_empty() {
                return Err(format!("{what}: an empty list of paths"));
            }
            items
                .iter()
                .map(|x| {
                    if x.is_null() {
                        Err(format!("{what}: a NULL in the list of paths"))
                    } else {
                        Ok(x.to_string())
                    }
                })
                .collect()
        }
        None => Ok(vec![v.to_string()]),
    }
}

fn first_param(bind: &BindInfo, what: &str) -> Result<String, String> {
    let v = bind.get_parameter(0);
    if v.is_null() {
        return Err(format!("{what} must not be NULL"));
    }
    Ok(v.to_string())
}

/// Most result columns of the `columns` layout: DuckDB allocates every column's vector in
/// full for each chunk (a 1 MiB file of shape (1, 2**20) would cost DuckDB gigabytes), so
/// wider arrays are refused with a pointer to `rowlists` and `nonzeros`.
pub const MAX_COLUMNS: usize = 16_384;

/// DuckDB's largest ARRAY size.
pub const MAX_ARRAY_SIZE: usize = 100_000;

/// The result columns of `shape` in `layout`.
fn columns(
    shape: &Shape,
    layout: Layout,
    filename: bool,
    row_number: bool,
) -> Result<Vec<(String, SqlType)>, String> {
    let kind = shape.kind;
    let mut cols = match layout {
        Layout::Columns => {
            if shape.cols() == 0 {
                return Err(format!(
                    "rows of at least one element for the columns layout, found rows of shape {:?}",
                    shape.trailing()
                ));
            }
            if shape.cols() > MAX_COLUMNS {
                return Err(format!(
                    "at most {MAX_COLUMNS} columns for the columns layout (use layout := 'rowlists' \
                     or 'nonzeros'), found rows of {} elements",
                    shape.cols()
                ));
            }
            (1..=shape.cols())
                .map(|i| (format!("c{i}"), SqlType::Scalar(kind)))
                .collect()
        }
        Layout::RowLists => {
            if shape.trailing().is_empty() || shape.cols() == 0 || shape.cols() > MAX_ARRAY_SIZE {
                return Err(format!(
                    "an array of 2 or more dimensions with 1 to {MAX_ARRAY_SIZE} elements per row \
                     (DuckDB's largest ARRAY) for the rowlists layout, found rows of shape {:?}",
                    shape.trailing()
                ));
            }
            if matches!(kind, Kind::C64 | Kind::C128) {
                return Err(
                    "rowlists of complex numbers are not supported: use layout := 'columns'".into(),
                );
            }
            vec![("c1".to_string(), SqlType::Array(kind, shape.cols()))]
        }
        Layout::NonZeros => {
            if !kind.has_zero() {
                return Err(format!(
                    "a numeric, bool, complex or datetime dtype for the nonzeros layout, found {}",
                    kind.sql()
                ));
            }
            vec![
                ("row_no".to_string(), SqlType::Bigint),
                ("col_no".to_string(), col_no_type(&shape.table)),
                ("val".to_string(), SqlType::Scalar(kind)),
            ]
        }
    };
    if filename {
        cols.push(("filename".to_string(), SqlType::Varchar));
    }
    if row_number {
        cols.push(("file_row_number".to_string(), SqlType::FileRowNumber));
    }
    Ok(cols)
}

fn scalar_handle(kind: Kind) -> LogicalTypeHandle {
    use LogicalTypeId as L;
    let id = match kind {
        Kind::Bool => L::Boolean,
        Kind::I8 => L::Tinyint,
        Kind::I16 => L::Smallint,
        Kind::I32 => L::Integer,
        Kind::I64 | Kind::Counts => L::Bigint,
        Kind::U8 => L::UTinyint,
        Kind::U16 => L::USmallint,
        Kind::U32 => L::UInteger,
        Kind::U64 => L::UBigint,
        Kind::F16 | Kind::F32 => L::Float,
        Kind::F64 => L::Double,
        Kind::C64 | Kind::C128 => {
            let part = if kind == Kind::C64 {
                L::Float
            } else {
                L::Double
            };
            return LogicalTypeHandle::struct_type(&[
                ("re", LogicalTypeHandle::from(part)),
                ("im", LogicalTypeHandle::from(part)),
            ]);
        }
        Kind::Bytes | Kind::Void => L::Blob,
        Kind::Text => L::Varchar,
        Kind::Timestamp(types::Stamp::Seconds) => L::TimestampS,
        Kind::Timestamp(types::Stamp::Millis) => L::TimestampMs,
        Kind::Timestamp(types::Stamp::Micros) => L::Timestamp,
        Kind::Timestamp(types::Stamp::Nanos) => L::TimestampNs,
        Kind::Interval => L::Interval,
        Kind::Date => L::Date,
    };
    LogicalTypeHandle::from(id)
}

fn handle(t: &SqlType) -> LogicalTypeHandle {
    match t {
        SqlType::Scalar(k) => scalar_handle(*k),
        SqlType::Array(k, n) => LogicalTypeHandle::array(&scalar_handle(*k), *n as u64),
        SqlType::Smallint => LogicalTypeId::Smallint.into(),
        SqlType::Integer => LogicalTypeId::Integer.into(),
        SqlType::Bigint => LogicalTypeId::Bigint.into(),
        SqlType::Varchar => LogicalTypeId::Varchar.into(),
        SqlType::FileRowNumber => LogicalTypeId::Bigint.into(),
    }
}

/// Binds either function: reads the first input's header, checks the others (read_npy),
/// declares the columns.
fn bind_inputs(bind: &BindInfo, fs: DuckFs, inputs: Inputs) -> Result<Bind, String> {
    let opts = opts_of(bind, matches!(inputs, Inputs::Npz { .. }))?;
    let counts = bool_param(bind, "datetime_counts");
    let layout = Layout::parse(string_param(bind, "layout").as_deref().unwrap_or("columns"))?;
    let filename = bool_param(bind, "filename");
    let row_number = bool_param(bind, "file_row_number");
    let union = bool_param(bind, "union_by_name");
    if union && layout != Layout::Columns {
        return Err("union_by_name := true needs layout := 'columns'".into());
    }
    let mut shapes = Vec::new();
    let mut rows_total: u64 = 0;
    let mut rows = Vec::new();
    let mut first_table: Option<Table> = None;
    let first_path = match &inputs {
        Inputs::Files(files) => files.first().cloned().unwrap_or_default(),
        Inputs::Npz { path, .. } => path.clone(),
    };
    let shape = match &inputs {
        Inputs::Files(files) => {
            let mut first: Option<(PathBuf, Shape)> = None;
            for path in files {
                let reader = source::open(&fs, path, &opts)?;
                let shape = Shape::of(reader.header(), counts).map_err(|e| file_error(path, e))?;
                shapes.push(shape.clone());
                rows_total = rows_total.saturating_add(reader.num_rows() as u64);
                rows.push(reader.num_rows());
                if first_table.is_none() {
                    first_table = Some(shape.table.clone());
                }
                match &mut first {
                    None => first = Some((path.clone(), shape)),
                    Some((p0, s0)) if union && s0.kind == shape.kind => {
                        // c1 … cN by name: the widest file's columns; narrower files' rows
                        // have NULL in the columns they lack.
                        let _ = p0;
                        if shape.cols() > s0.cols() {
                            *s0 = shape;
                        }
                    }
                    Some((p0, s0)) if union => {
                        return Err(file_error(
                            path,
                            format!(
                                "union_by_name: every file must have the first file's type ({}, \
                                 from {}), found {}",
                                s0.kind.sql(),
                                p0.display(),
                                shape.kind.sql()
                            ),
                        ))
                    }
                    Some((p0, s0)) if !s0.same_table(&shape) => {
                        return Err(file_error(
                            path,
                            format!(
                            "every file of the glob must have the first file's type and trailing \
                                 shape ({} {:?}, from {}), found {} {:?} (union_by_name := true \
                                 reads files of different widths)",
                            s0.kind.sql(),
                            s0.trailing(),
                            p0.display(),
                            shape.kind.sql(),
                            shape.trailing()
                        ),
                        ))
                    }
                    Some(_) => {}
                }
            }
            first.ok_or("no input file")?.1
        }
        Inputs::Npz { path, member } => {
            let mut archive = source::open_npz(&fs, path, &opts)?;
            let header = archive
                .header(member)
                .map_err(|e| file_error(path, format!("member {member:?}: {e}")))?;
            let shape = Shape::of(&header, counts)
                .map_err(|e| file_error(path, format!("member {member:?}: {e}")))?;
            rows.push(shape.table.rows());
            rows_total = rows.iter().sum::<usize>() as u64;
            shapes.push(shape.clone());
            shape
        }
    };
    let columns =
        columns(&shape, layout, filename, row_number).map_err(|e| file_error(&first_path, e))?;
    for (name, t) in &columns {
        bind.add_result_column(name, handle(t));
    }
    if layout != Layout::NonZeros {
        bind.set_cardinality(rows_total, true);
    }
    let unit_rows = match inputs {
        // An npz member is one stream: one unit.
        Inputs::Npz { .. } => rows.iter().copied().max().unwrap_or(1).max(1),
        Inputs::Files(_) => first_table.map_or(1, |t| t.rows_within(UNIT_BYTES)),
    };
    Ok(Bind {
        fs,
        inputs,
        opts,
        counts,
        layout,
        shape,
        shapes,
        columns,
        rows,
        unit_rows,
    })
}

/// Threads a scan may use: DuckDB takes the smaller of this and its own thread count; a
/// thread that finds no unit left ends at once.
const MAX_THREADS: u64 = 64;

fn init_scan(init: &InitInfo) -> Scan {
    init.set_max_threads(MAX_THREADS);
    Scan {
        projection: init.get_column_indices(),
        want: OnceLock::new(),
        units: Mutex::new((0, 0)),
        idle: Mutex::new(Vec::new()),
    }
}

impl Bind {
    /// The value columns a scan must read (`None`: whole rows): projection pushdown for
    /// the columns layout (a Fortran-order file reads only those columns' bytes) and for
    /// `count(*)` (no column: no payload byte is read).
    fn wanted(&self, projection: &[u64]) -> Option<Vec<usize>> {
        let value = |&c: &u64| (c as usize) < self.shape.cols().max(1);
        match self.layout {
            Layout::Columns => Some(
                projection
                    .iter()
                    .filter(|c| value(c))
                    .map(|&c| c as usize)
                    .collect(),
            ),
            Layout::RowLists if !projection.contains(&0) => Some(Vec::new()),
            _ => None,
        }
    }

    /// The next unit of work (input, rows), `None` when every row was handed out.
    fn next_unit(&self, at: &mut (usize, usize)) -> Option<(usize, std::ops::Range<usize>)> {
        loop {
            let (input, next) = *at;
            let total = *self.rows.get(input)?;
            if next < total {
                let end = next.saturating_add(self.unit_rows).min(total);
                *at = (input, end);
                return Some((input, next..end));
            }
            *at = (input + 1, 0);
        }
    }

    /// Opens input `i` for rows `range`, checking that it still has the bound table.
    fn open(
        &self,
        i: usize,
        want: Option<Vec<usize>>,
        range: std::ops::Range<usize>,
    ) -> Result<Worker, String> {
        // What the query was bound to for input `i`: checked again on what is opened now.
        let expected = source::Expected {
            shape: self.shapes.get(i).ok_or("internal: no such input")?.clone(),
            rows: *self.rows.get(i).ok_or("internal: no such input")?,
            counts: self.counts,
        };
        let (path, rows) = match &self.inputs {
            Inputs::Files(files) => {
                let path = files.get(i).ok_or("internal: no such input")?;
                let reader = source::open(&self.fs, path, &self.opts)?;
                let shape = expected
                    .check(reader.header())
                    .map_err(|e| file_error(path, e))?;
                // Columns this file lacks (union_by_name) are NULL, not read.
                let want = want.map(|w| w.into_iter().filter(|&c| c < shape.cols()).collect());
                (path.clone(), Rows::file(reader, &shape.table, want, range))
            }
            Inputs::Npz { path, member } => {
                let rows = source::npz_member(&self.fs, path, member, &self.opts, expected)?;
                (path.clone(), rows)
            }
        };
        let cols = self.shapes.get(i).map_or(self.shape.cols(), |s| s.cols());
        Ok(Worker {
            path,
            cols,
            rows,
            chunk: None,
        })
    }
}

/// The values of column `col` (C-order index over the trailing axes) for chunk rows
/// `r0..r0 + n`: the storage, its units per element, and which elements.
fn column_of(
    chunk: &Chunk,
    cols: usize,
    col: usize,
    r0: usize,
    n: usize,
) -> Result<(&ArrayData, usize, Sel<'static>), String> {
    match chunk {
        Chunk::Rows(a) => {
            let sel = if cols == 1 {
                Sel::Range { start: r0, len: n }
            } else {
                Sel::Strided {
                    start: r0 * cols + col,
                    step: cols,
                    n,
                }
            };
            Ok((a.data(), a.units_per_element(), sel))
        }
        Chunk::Columns { cols: c, .. } => {
            let a = c
                .get(col)
                .and_then(Option::as_ref)
                .ok_or("internal: a column that was not read")?;
            Ok((
                a.data(),
                a.units_per_element(),
                Sel::Range { start: r0, len: n },
            ))
        }
    }
}

fn whole_rows(chunk: &Chunk) -> Result<&Array, String> {
    match chunk {
        Chunk::Rows(a) => Ok(a),
        Chunk::Columns { .. } => Err("internal: whole rows needed".into()),
    }
}

fn dst_for<'a>(output: &'a DataChunkHandle, k: usize, kind: Kind) -> Dst<'a> {
    if matches!(kind, Kind::C64 | Kind::C128) {
        Dst::Complex(output.struct_vector(k))
    } else {
        Dst::Flat(output.flat_vector(k))
    }
}

fn write_filename(output: &DataChunkHandle, k: usize, path: &std::path::Path, n: usize) {
    let v = output.flat_vector(k);
    let name = path.display().to_string();
    for row in 0..n {
        v.insert(row, name.as_str());
    }
}

/// The error for a value DuckDB cannot hold ([`write::invalid`]): the file, the row (index
/// along the first axis) and the column.
fn value_error(path: &std::path::Path, row: usize, column: &str, why: &str) -> String {
    file_error(path, format!("row {row}, column {column}: {why}"))
}

/// Writes up to one vector of rows of the chunk (columns and rowlists), whose row `r0` is
/// the file's row `first_row + r0`; the rows written.
#[allow(clippy::too_many_arguments)]
fn emit_rows(
    bind: &Bind,
    projection: &[u64],
    file_cols: usize,
    path: &std::path::Path,
    chunk: &Chunk,
    first_row: usize,
    r0: usize,
    output: &DataChunkHandle,
) -> Result<usize, String> {
    let n = chunk.rows().saturating_sub(r0).min(VECTOR);
    if n == 0 {
        return Ok(0);
    }
    let cols = file_cols;
    for (k, &col) in projection.iter().enumerate() {
        let col = col as usize;
        let Some((_, t)) = bind.columns.get(col) else {
            continue; // a row id DuckDB asked for (count(*)): nothing to read
        };
        match t {
            SqlType::Varchar => write_filename(output, k, path, n),
            SqlType::FileRowNumber => {
                let first = first_row + r0;
                let v: Vec<i64> = (first..first + n).map(|r| r as i64).collect();
                write::put(&mut output.flat_vector(k), &v)?;
            }
            SqlType::Array(kind, d) => {
                let a = whole_rows(chunk)?;
                let sel = Sel::Range {
                    start: r0 * d,
                    len: n * d,
                };
                if let Some((at, why)) = write::invalid(*kind, a.data(), sel) {
                    let row = first_row + r0 + at / d;
                    return Err(value_error(
                        path,
                        row,
                        &format!("c1, element {}", at % d),
                        &why,
                    ));
                }
                let child = output.array_vector(k).child(n * d);
                fill(
                    &mut Dst::Flat(child),
                    *kind,
                    a.data(),
                    a.units_per_element(),
                    sel,
                )
                .map_err(|e| format!("{}: {e}", path.display()))?;
            }
            SqlType::Scalar(_) if col >= cols => {
                // union_by_name: a column this file does not have.
                let mut v = output.flat_vector(k);
                for row in 0..n {
                    v.set_null(row);
                }
            }
            SqlType::Scalar(kind) => {
                let (data, per, sel) = column_of(chunk, cols, col, r0, n)?;
                if let Some((at, why)) = write::invalid(*kind, data, sel) {
                    let row = first_row + r0 + at;
                    return Err(value_error(path, row, &format!("c{}", col + 1), &why));
                }
                fill(&mut dst_for(output, k, *kind), *kind, data, per, sel)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
            }
            _ => return Err("internal: unexpected column type".into()),
        }
    }
    Ok(n)
}

/// Writes the next non-zeros of the chunk (from element `*pos`, at most one vector);
/// the rows written (0 once the chunk has no more).
#[allow(clippy::too_many_arguments)]
fn emit_nonzeros(
    bind: &Bind,
    projection: &[u64],
    path: &std::path::Path,
    chunk: &Chunk,
    first_row: usize,
    pos: &mut usize,
    output: &DataChunkHandle,
) -> Result<usize, String> {
    let a = whole_rows(chunk)?;
    let cols = bind.shape.cols().max(1);
    let elements = chunk.rows().saturating_mul(bind.shape.cols());
    let mut hits = Vec::with_capacity(VECTOR);
    while *pos < elements && hits.len() < VECTOR {
        if nonzero(a.data(), *pos) {
            hits.push(*pos);
        }
        *pos += 1;
    }
    let n = hits.len();
    if n == 0 {
        return Ok(0);
    }
    for (k, &col) in projection.iter().enumerate() {
        match col {
            0 => {
                let v: Vec<i64> = hits
                    .iter()
                    .map(|&i| (first_row + i / cols) as i64)
                    .collect();
                write::put(&mut output.flat_vector(k), &v)?;
            }
            1 => {
                let mut f = output.flat_vector(k);
                let c = hits.iter().map(|&i| i % cols);
                // The column count was bounded by the type (col_no_type): the casts fit.
                match bind.columns.get(1).map(|c| &c.1) {
                    Some(SqlType::Smallint) => {
                        write::put(&mut f, &c.map(|x| x as i16).collect::<Vec<_>>())?
                    }
                    Some(SqlType::Integer) => {
                        write::put(&mut f, &c.map(|x| x as i32).collect::<Vec<_>>())?
                    }
                    _ => write::put(&mut f, &c.map(|x| x as i64).collect::<Vec<_>>())?,
                }
            }
            2 => {
                let kind = bind.shape.kind;
                if let Some((at, why)) = write::invalid(kind, a.data(), Sel::List(&hits)) {
                    let i = hits.get(at).copied().unwrap_or(0);
                    let column = format!("val (col_no {})", i % cols);
                    return Err(value_error(path, first_row + i / cols, &column, &why));
                }
                fill(
                    &mut dst_for(output, k, kind),
                    kind,
                    a.data(),
                    a.units_per_element(),
                    Sel::List(&hits),
                )?;
            }
            _ => match bind.columns.get(col as usize).map(|c| &c.1) {
                Some(SqlType::Varchar) => write_filename(output, k, path, n),
                Some(SqlType::FileRowNumber) => {
                    let v: Vec<i64> = hits
                        .iter()
                        .map(|&i| (first_row + i / cols) as i64)
                        .collect();
                    write::put(&mut output.flat_vector(k), &v)?;
                }
                _ => {}
            },
        }
    }
    Ok(n)
}

impl Worker {
    /// Writes the worker's next rows (at most one vector); 0 when its unit is done.
    fn emit(
        &mut self,
        bind: &Bind,
        projection: &[u64],
        output: &DataChunkHandle,
    ) -> Result<usize, String> {
        loop {
            if let Some((start, chunk, pos)) = &mut self.chunk {
                let n = match bind.layout {
                    Layout::Columns | Layout::RowLists => {
                        let n = emit_rows(
                            bind, projection, self.cols, &self.path, chunk, *start, *pos, output,
                        )?;
                        *pos += n;
                        n
                    }
                    Layout::NonZeros => {
                        emit_nonzeros(bind, projection, &self.path, chunk, *start, pos, output)?
                    }
                };
                if n > 0 {
                    return Ok(n);
                }
                self.chunk = None;
            }
            match self
                .rows
                .next_chunk()
                .map_err(|e| file_error(&self.path, e))?
            {
                Some((start, chunk)) => self.chunk = Some((start, chunk, 0)),
                None => return Ok(0),
            }
        }
    }
}

const POISONED: &str = "a thread of this scan failed";

/// Fills `output` with the next rows (of a unit some thread left between two vectors, or
/// of a new unit); an empty chunk when this thread finds nothing left.
fn scan(bind: &Bind, scan: &Scan, output: &mut DataChunkHandle) -> Result<(), String> {
    loop {
        let idle = scan.idle.lock().map_err(|_| POISONED)?.pop();
        let mut worker = match idle {
            Some(w) => w,
            None => {
                let unit = bind.next_unit(&mut *scan.units.lock().map_err(|_| POISONED)?);
                match unit {
                    Some((input, range)) => {
                        let want = scan.want.get_or_init(|| bind.wanted(&scan.projection));
                        bind.open(input, want.clone(), range)?
                    }
                    None => {
                        output.set_len(0);
                        return Ok(());
                    }
                }
            }
        };
        let n = worker.emit(bind, &scan.projection, output)?;
        if n > 0 {
            scan.idle.lock().map_err(|_| POISONED)?.push(worker);
            output.set_len(n);
            return Ok(());
        }
    }
}

fn named() -> Vec<(String, LogicalTypeHandle)> {
    vec![
        ("layout".into(), LogicalTypeId::Varchar.into()),
        ("max_file_bytes".into(), LogicalTypeId::Bigint.into()),
        ("numpy_strict".into(), LogicalTypeId::Boolean.into()),
        ("filename".into(), LogicalTypeId::Boolean.into()),
        ("datetime_counts".into(), LogicalTypeId::Boolean.into()),
        ("file_row_number".into(), LogicalTypeId::Boolean.into()),
        ("union_by_name".into(), LogicalTypeId::Boolean.into()),
    ]
}

fn run(
    func: &TableFunctionInfo<impl VTab<BindData = Bind, InitData = Scan>>,
    output: &mut DataChunkHandle,
) -> Res<()> {
    scan(func.get_bind_data(), func.get_init_data(), output).map_err(|e| e.into())
}

/// `read_npy(path_or_glob, …)`.
pub struct ReadNpy;

impl VTab for ReadNpy {
    type InitData = Scan;
    type BindData = Bind;

    fn bind(bind: &BindInfo) -> Res<Bind> {
        let patterns = path_params(bind, "read_npy's path")?;
        let fs = DuckFs::of_bind(bind)?;
        let mut files = Vec::new();
        for pattern in &patterns {
            files.extend(source::expand(&fs, pattern)?);
        }
        Ok(bind_inputs(bind, fs, Inputs::Files(files))?)
    }

    fn init(init: &InitInfo) -> Res<Scan> {
        Ok(init_scan(init))
    }

    fn func(func: &TableFunctionInfo<Self>, output: &mut DataChunkHandle) -> Res<()> {
        run(func, output)
    }

    fn supports_pushdown() -> bool {
        true
    }

    fn parameters() -> Option<Vec<LogicalTypeHandle>> {
        // A path or glob (VARCHAR), or a list of them.
        Some(vec![LogicalTypeId::Any.into()])
    }

    fn named_parameters() -> Option<Vec<(String, LogicalTypeHandle)>> {
        Some(named())
    }
}

/// `read_npz(path, member := …, …)`.
pub struct ReadNpz;

impl VTab for ReadNpz {
    type InitData = Scan;
    type BindData = Bind;

    fn bind(bind: &BindInfo) -> Res<Bind> {
        let path = PathBuf::from(first_param(bind, "read_npz's path")?);
        let fs = DuckFs::of_bind(bind)?;
        let member = match string_param(bind, "member") {
            Some(m) => m,
            None => {
                let opts = opts_of(bind, true)?;
                let archive = source::open_npz(&fs, &path, &opts)?;
                let names: Vec<String> = archive.array_names().map(str::to_string).collect();
                match names.as_slice() {
                    [one] => one.clone(),
                    _ => {
                        return Err(file_error(
                            &path,
                            format!(
                                "member := one of {names:?} (the archive has {} arrays)",
                                names.len()
                            ),
                        )
                        .into())
                    }
                }
            }
        };
        Ok(bind_inputs(bind, fs, Inputs::Npz { path, member })?)
    }

    fn init(init: &InitInfo) -> Res<Scan> {
        Ok(init_scan(init))
    }

    fn func(func: &TableFunctionInfo<Self>, output: &mut DataChunkHandle) -> Res<()> {
        run(func, output)
    }

    fn supports_pushdown() -> bool {
        true
    }

    fn parameters() -> Option<Vec<LogicalTypeHandle>> {
        Some(vec![LogicalTypeId::Varchar.into()])
    }

    fn named_parameters() -> Option<Vec<(String, LogicalTypeHandle)>> {
        let mut n = named();
        n.push(("member".into(), LogicalTypeId::Varchar.into()));
        for limit in ["max_members", "max_total_bytes", "max_ratio"] {
            n.push((limit.into(), LogicalTypeId::Bigint.into()));
        }
        Some(n)
    }
}

/// `npy_limits()`: the defaults ([`limit_rows`]) as rows `name VARCHAR, value BIGINT`
/// (NULL: no limit), `applies_to VARCHAR`.
pub struct NpyLimits;

/// `npy_limits()`'s state: whether the rows were emitted.
pub struct LimitsDone(std::sync::atomic::AtomicBool);

impl VTab for NpyLimits {
    type InitData = LimitsDone;
    type BindData = ();

    fn bind(bind: &BindInfo) -> Res<()> {
        bind.add_result_column("name", LogicalTypeId::Varchar.into());
        bind.add_result_column("value", LogicalTypeId::Bigint.into());
        bind.add_result_column("applies_to", LogicalTypeId::Varchar.into());
        Ok(())
    }

    fn init(_: &InitInfo) -> Res<LimitsDone> {
        Ok(LimitsDone(std::sync::atomic::AtomicBool::new(false)))
    }

    fn func(func: &TableFunctionInfo<Self>, output: &mut DataChunkHandle) -> Res<()> {
        if func
            .get_init_data()
            .0
            .swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            output.set_len(0);
            return Ok(());
        }
        let rows = limit_rows();
        let names = output.flat_vector(0);
        let mut values = output.flat_vector(1);
        let applies = output.flat_vector(2);
        let mut v = Vec::with_capacity(rows.len());
        for (i, (name, value, to)) in rows.iter().enumerate() {
            names.insert(i, *name);
            applies.insert(i, *to);
            v.push(value.map_or(0, |x| i64::try_from(x).unwrap_or(i64::MAX)));
        }
        write::put(&mut values, &v)?;
        for (i, (_, value, _)) in rows.iter().enumerate() {
            if value.is_none() {
                values.set_null(i);
            }
        }
        output.set_len(rows.len());
        Ok(())
    }
}

/// The C entry point (`npy_init_c_api`, which DuckDB calls on `LOAD` with its function
/// table), written out as the duckdb crate's `#[duckdb_entrypoint_c_api]` generates it, plus
/// what that macro does not reach: the database (for the replacement scan) and a raw
/// connection (for the copy function).
mod entry {
    #![allow(unsafe_code)]
    use super::{NpyLimits, ReadNpy, ReadNpz, Res};
    use duckdb::{ffi, Connection};
    use std::ffi::CStr;
    use std::ptr::null_mut;

    /// The oldest DuckDB C API this extension asks for (the V1 struct's v1.5.6 band).
    const MIN_DUCKDB_VERSION: &str = "v1.5.6";

    /// Registers everything on the database `db`.
    ///
    /// # Safety
    ///
    /// `db` must be the live database DuckDB hands to this extension, after DuckDB's C API
    /// was initialized for it.
    unsafe fn register(db: ffi::duckdb_database) -> Res<()> {
        // SAFETY: `db` is live (the caller's promise); the crate's connection wraps it
        // without closing it.
        let con = unsafe { Connection::open_from_raw(db.cast())? };
        con.register_table_function::<ReadNpy>("read_npy")?;
        con.register_table_function::<ReadNpz>("read_npz")?;
        con.register_table_function::<NpyLimits>("npy_limits")?;
        let mut raw: ffi::duckdb_connection = null_mut();
        // SAFETY: `db` is live; `raw` receives a new connection, disconnected once below.
        if unsafe { ffi::duckdb_connect(db, &mut raw) } != ffi::DuckDBSuccess {
            return Err("cannot connect to the database".into());
        }
        // SAFETY: `raw` is a live connection; the C API is initialized.
        let copy = unsafe { crate::copy::register(raw) };
        // SAFETY: `raw` was connected above and is disconnected once, here.
        unsafe { ffi::duckdb_disconnect(&mut raw) };
        copy?;
        // SAFETY: `db` is live; the callback is a plain function with no data to free.
        unsafe { ffi::duckdb_add_replacement_scan(db, Some(replacement), null_mut(), None) };
        Ok(())
    }

    /// The function a replacement scan of `name` calls: `read_npy` for a name ending in
    /// `.npy` (a path or a glob), `read_npz` for `.npz` (case-insensitive).
    pub(crate) fn replacement_function(name: &str) -> Option<&'static CStr> {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".npy") {
            Some(c"read_npy")
        } else if lower.ends_with(".npz") {
            Some(c"read_npz")
        } else {
            None
        }
    }

    /// The replacement scan: `FROM 'x.npy'` is `FROM read_npy('x.npy')`, `FROM 'x.npz'` is
    /// `FROM read_npz('x.npz')`.
    unsafe extern "C" fn replacement(
        info: ffi::duckdb_replacement_scan_info,
        table_name: *const std::os::raw::c_char,
        _data: *mut std::os::raw::c_void,
    ) {
        if table_name.is_null() {
            return;
        }
        // SAFETY: DuckDB passes the table name as a NUL-terminated string alive for the call.
        let name = unsafe { CStr::from_ptr(table_name) };
        let Some(function) = replacement_function(&name.to_string_lossy()) else {
            return;
        };
        // SAFETY: `info` is live for the call; the value is new, copied by DuckDB when
        // added, and destroyed once here.
        unsafe {
            ffi::duckdb_replacement_scan_set_function_name(info, function.as_ptr());
            let mut v = ffi::duckdb_create_varchar(table_name);
            ffi::duckdb_replacement_scan_add_parameter(info, v);
            ffi::duckdb_destroy_value(&mut v);
        }
    }

    /// # Safety
    ///
    /// Called by DuckDB only, with the extension info and access table of a `LOAD`.
    unsafe fn init(
        info: ffi::duckdb_extension_info,
        access: *const ffi::duckdb_extension_access,
    ) -> Res<bool> {
        // SAFETY: DuckDB's promise for the entry point: `access` is its live access table.
        unsafe {
            if !ffi::duckdb_rs_extension_api_init(info, access, MIN_DUCKDB_VERSION)? {
                // No API struct of that version: DuckDB has the reason.
                return Ok(false);
            }
            let get_database = (*access)
                .get_database
                .ok_or("get_database function pointer is null in duckdb_extension_access")?;
            let db_ptr = get_database(info);
            if db_ptr.is_null() {
                return Ok(false);
            }
            register(*db_ptr)?;
        }
        Ok(true)
    }

    /// The extension's entry point (DuckDB calls `npy_init_c_api` on `LOAD`): registers
    /// `read_npy`, `read_npz` and the copy function `npy`.
    ///
    /// # Safety
    ///
    /// Called by DuckDB only, with the extension info and access table of a `LOAD`.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn npy_init_c_api(
        info: ffi::duckdb_extension_info,
        access: *const ffi::duckdb_extension_access,
    ) -> bool {
        // SAFETY: DuckDB's promise, passed on.
        match unsafe { init(info, access) } {
            Ok(v) => v,
            Err(e) => {
                // SAFETY: `access` is DuckDB's live access table; DuckDB copies the message.
                unsafe {
                    if let Some(set_error) = (*access).set_error {
                        let msg = std::ffi::CString::new(e.to_string().replace('\0', " "))
                            .unwrap_or_default();
                        set_error(info, msg.as_ptr());
                    }
                }
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacement_scan_names() {
        use entry::replacement_function as f;
        assert_eq!(f("a.npy"), Some(c"read_npy"));
        assert_eq!(f("dir/*.NPY"), Some(c"read_npy"));
        assert_eq!(f("s3://b/x.npz"), Some(c"read_npz"));
        assert_eq!(f("x.csv"), None);
        assert_eq!(f("npy"), None);
    }

    #[test]
    fn limits_are_the_librarys_table() {
        let rows = limit_rows();
        let get = |n: &str| rows.iter().find(|r| r.0 == n).map(|r| r.1);
        assert_eq!(
            get("max_members"),
            Some(Some(npyguard::limits::DEFAULT_MAX_NPZ_MEMBERS as u64))
        );
        assert_eq!(
            get("max_ratio"),
            Some(Some(npyguard::limits::DEFAULT_MAX_NPZ_RATIO))
        );
        assert_eq!(
            get("max_header_bytes"),
            Some(Some(npyguard::limits::DEFAULT_MAX_HEADER_BYTES as u64))
        );
        assert_eq!(get("max_total_bytes"), Some(None));
        assert_eq!(get("max_file_bytes"), Some(None));
    }

    #[test]
    fn union_by_name_takes_columns_only() {
        let h = npyguard::Header::new(
            npyguard::Dtype::F64(npyguard::Endian::Little),
            vec![2, 3],
            false,
        )
        .unwrap();
        let shape = Shape::of(&h, false).unwrap();
        let cols = columns(&shape, Layout::Columns, true, true).unwrap();
        let names: Vec<&str> = cols.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(names, ["c1", "c2", "c3", "filename", "file_row_number"]);
        assert_eq!(cols[4].1.sql(), "BIGINT");
    }
}
