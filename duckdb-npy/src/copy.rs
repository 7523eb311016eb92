//! `COPY (query) TO 'out.npy' (FORMAT npy)`: a query result as one `.npy`, byte-identical to
//! `np.save` of the same values, written in bounded memory through DuckDB's file system.
//!
//! | result columns | array |
//! | --- | --- |
//! | one column of type `T` | shape `(N,)` |
//! | `k` columns, all of type `T` | shape `(N, k)`, C order (row `i` is the `i`-th result row) |
//! | one column `T[D]` (a fixed-size ARRAY) | shape `(N, D)` |
//!
//! `T` ↦ dtype: BOOLEAN `|b1`, TINYINT…BIGINT `|i1` `<i2` `<i4` `<i8`, UTINYINT…UBIGINT `|u1`
//! `<u2` `<u4` `<u8`, FLOAT `<f4`, DOUBLE `<f8`, DATE `<M8[D]`, TIMESTAMP_S/_MS/TIMESTAMP/_NS
//! `<M8[s]` `<M8[ms]` `<M8[us]` `<M8[ns]` (the byte order is the host's, `<` on every
//! platform DuckDB ships for, as `np.save` writes it there). Every other type (VARCHAR,
//! BLOB, DECIMAL, HUGEINT, INTERVAL, LIST, STRUCT, TIMESTAMPTZ, …), columns of different
//! types, several ARRAY columns and nested ARRAYs are refused at bind with an error naming
//! the column; cast them first (`c::DOUBLE`). A NULL (in a column or inside an ARRAY) and
//! DuckDB's `infinity`/`-infinity` dates and timestamps (NumPy has no such values; it would
//! read them as ordinary instants) are refused with an error naming the row (0-based, in
//! the result) and the column (1-based).
//!
//! **Bounded memory.** The number of rows is known only at the end: the header is written
//! first for 0 rows, the rows are written as DuckDB hands them over (one chunk of at most
//! 2048 rows, converted into a buffer of about [`BUF_BYTES`]), and at the end the header
//! is rewritten for the real row count. The header is npyguard's
//! ([`npyguard::write::header_bytes`], `np.save`'s bytes), whose growth space (NumPy ≥ 1.24
//! pads the first dimension to 21 digits) keeps its length the same for every row count,
//! so the rewrite replaces exactly the header bytes. DuckDB calls the sink from one thread
//! in result order (this copy function does not declare parallel writing).
//!
//! The file is created through the file system of the client context ([`crate::dfs`]):
//! DuckDB's access rules apply as to `COPY … TO 'x.csv'`. When the target exists, DuckDB
//! has the copy function write a new temporary file beside it and moves it into place at
//! the end (its `USE_TMP_FILE` default); DuckDB's C API cannot truncate a file, so an
//! existing non-empty file handed to the copy function (`USE_TMP_FILE false`, or a leftover
//! `tmp_` file) is refused rather than left with old bytes after the new payload. No
//! options are accepted besides `FORMAT` (and DuckDB's own, such as `USE_TMP_FILE`). A
//! COPY that fails part-way (a NULL in a later chunk) leaves no partial file: DuckDB removes
//! the file the copy function was writing, and a target that existed is untouched (DuckDB
//! 2.0.0; `tests/numpy/duckdb_copy.py` checks both). DuckDB's own write options apply:
//! `PARTITION_BY (k)` writes one array per partition (DuckDB names those files `data_0.`:
//! the C API has no way to declare the copy function's file extension); `FILE_SIZE_BYTES`
//! is refused by DuckDB for C API copy functions.
//!
//! This module holds the copy function's `unsafe` calls into DuckDB's C API (registration,
//! the callbacks' info objects, the data chunk's vectors); each block says why it is sound.

#![allow(unsafe_code)]

use std::ffi::{c_void, CStr, CString};
use std::io::{Seek, SeekFrom, Write};
use std::sync::Mutex;

use duckdb::ffi;
use npyguard::write::header_bytes;
use npyguard::{DateUnit, Dtype, Endian, Header, TimeUnit};

use crate::dfs::{DuckFile, DuckFs};
use crate::types::Kind;

/// Bytes converted before one write to the file.
pub const BUF_BYTES: usize = 1 << 20;

/// One element type of the result (the DuckDB type and its NumPy dtype).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    /// BOOLEAN → `|b1`.
    Bool,
    /// TINYINT → `|i1`.
    I8,
    /// SMALLINT → `<i2`.
    I16,
    /// INTEGER → `<i4`.
    I32,
    /// BIGINT → `<i8`.
    I64,
    /// UTINYINT → `|u1`.
    U8,
    /// USMALLINT → `<u2`.
    U16,
    /// UINTEGER → `<u4`.
    U32,
    /// UBIGINT → `<u8`.
    U64,
    /// FLOAT → `<f4`.
    F32,
    /// DOUBLE → `<f8`.
    F64,
    /// DATE (i32 days) → `<M8[D]` (i64 days).
    Date,
    /// TIMESTAMP_S/_MS/TIMESTAMP/_NS → `<M8[unit]`.
    Stamp(TimeUnit),
}

impl Elem {
    /// The element type of DuckDB type id `id`, if NumPy can hold it.
    pub fn of(id: ffi::DUCKDB_TYPE) -> Option<Elem> {
        Some(match id {
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_BOOLEAN => Elem::Bool,
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_TINYINT => Elem::I8,
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_SMALLINT => Elem::I16,
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_INTEGER => Elem::I32,
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_BIGINT => Elem::I64,
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_UTINYINT => Elem::U8,
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_USMALLINT => Elem::U16,
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_UINTEGER => Elem::U32,
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_UBIGINT => Elem::U64,
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_FLOAT => Elem::F32,
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_DOUBLE => Elem::F64,
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_DATE => Elem::Date,
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_TIMESTAMP_S => Elem::Stamp(TimeUnit::Second),
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_TIMESTAMP_MS => Elem::Stamp(TimeUnit::Milli),
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_TIMESTAMP => Elem::Stamp(TimeUnit::Micro),
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_TIMESTAMP_NS => Elem::Stamp(TimeUnit::Nano),
            _ => return None,
        })
    }

    /// DuckDB's name of the type: the read side's name for this dtype ([`Kind::sql`]), so
    /// COPY and `read_npy` name every type alike.
    pub fn sql(self) -> &'static str {
        Kind::of(&self.dtype()).map_or("a type NumPy cannot hold", Kind::sql)
    }

    /// Bytes of one value in a DuckDB vector.
    pub fn size_in(self) -> usize {
        match self {
            Elem::Bool | Elem::I8 | Elem::U8 => 1,
            Elem::I16 | Elem::U16 => 2,
            Elem::I32 | Elem::U32 | Elem::F32 | Elem::Date => 4,
            Elem::I64 | Elem::U64 | Elem::F64 | Elem::Stamp(_) => 8,
        }
    }

    /// The NumPy dtype (the host's byte order, as `np.save` writes it).
    pub fn dtype(self) -> Dtype {
        let e = Endian::HOST;
        let unit = |unit| DateUnit { unit, multiple: 1 };
        match self {
            Elem::Bool => Dtype::Bool,
            Elem::I8 => Dtype::I8,
            Elem::I16 => Dtype::I16(e),
            Elem::I32 => Dtype::I32(e),
            Elem::I64 => Dtype::I64(e),
            Elem::U8 => Dtype::U8,
            Elem::U16 => Dtype::U16(e),
            Elem::U32 => Dtype::U32(e),
            Elem::U64 => Dtype::U64(e),
            Elem::F32 => Dtype::F32(e),
            Elem::F64 => Dtype::F64(e),
            Elem::Date => Dtype::DateTime(unit(TimeUnit::Day), e),
            Elem::Stamp(u) => Dtype::DateTime(unit(u), e),
        }
    }
}

/// The array a result becomes (decided at bind from the column types).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The element type.
    pub elem: Elem,
    /// Number of result columns (all scalar), or 1 for one ARRAY column.
    pub cols: usize,
    /// `Some(D)`: one column of type `T[D]`.
    pub array: Option<usize>,
}

impl Plan {
    /// The plan for columns of these types (`(type id, Some((child id, size)))` for an
    /// ARRAY column): an error naming the first column NumPy cannot hold.
    pub fn of(
        types: &[(ffi::DUCKDB_TYPE, Option<(ffi::DUCKDB_TYPE, usize)>)],
    ) -> Result<Plan, String> {
        let refuse = |i: usize, why: &str| {
            format!(
                "COPY TO (FORMAT npy): column {} {why}; a .npy holds one array of one numeric, \
                 boolean, DATE or TIMESTAMP type: cast the columns to one such type \
                 (e.g. c::DOUBLE), or select one fixed-size ARRAY column (FLOAT[D])",
                i + 1
            )
        };
        let mut plan: Option<Plan> = None;
        for (i, &(id, child)) in types.iter().enumerate() {
            let (elem, array) = match child {
                Some((cid, d)) => {
                    if types.len() != 1 {
                        return Err(refuse(i, "is an ARRAY among other columns"));
                    }
                    let e = Elem::of(cid)
                        .ok_or_else(|| refuse(i, "is an ARRAY of a type NumPy cannot hold here"))?;
                    (e, Some(d))
                }
                None if id == ffi::DUCKDB_TYPE_DUCKDB_TYPE_ARRAY => {
                    return Err(refuse(i, "is a nested ARRAY"))
                }
                None => {
                    let e = Elem::of(id).ok_or_else(|| {
                        refuse(
                            i,
                            &format!("has a type NumPy cannot hold ({})", type_name(id)),
                        )
                    })?;
                    (e, None)
                }
            };
            match &plan {
                None => {
                    plan = Some(Plan {
                        elem,
                        cols: types.len(),
                        array,
                    })
                }
                Some(p) if p.elem != elem => {
                    return Err(refuse(
                        i,
                        &format!(
                            "has another type ({}) than column 1 ({})",
                            elem.sql(),
                            p.elem.sql()
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
        plan.ok_or_else(|| "COPY TO (FORMAT npy): a result with no column".to_string())
    }

    /// Elements per row.
    pub fn row_len(&self) -> usize {
        self.array.unwrap_or(self.cols)
    }

    /// The header for `rows` rows.
    pub fn header(&self, rows: usize) -> Result<Header, String> {
        let shape = match self.array {
            Some(d) => vec![rows, d],
            None if self.cols == 1 => vec![rows],
            None => vec![rows, self.cols],
        };
        Header::new(self.elem.dtype(), shape, false).map_err(|e| e.to_string())
    }
}

/// A DuckDB type id by name, for errors.
fn type_name(id: ffi::DUCKDB_TYPE) -> &'static str {
    match id {
        ffi::DUCKDB_TYPE_DUCKDB_TYPE_VARCHAR => "VARCHAR",
        ffi::DUCKDB_TYPE_DUCKDB_TYPE_BLOB => "BLOB",
        ffi::DUCKDB_TYPE_DUCKDB_TYPE_DECIMAL => "DECIMAL",
        ffi::DUCKDB_TYPE_DUCKDB_TYPE_HUGEINT => "HUGEINT",
        ffi::DUCKDB_TYPE_DUCKDB_TYPE_UHUGEINT => "UHUGEINT",
        ffi::DUCKDB_TYPE_DUCKDB_TYPE_INTERVAL => "INTERVAL",
        ffi::DUCKDB_TYPE_DUCKDB_TYPE_LIST => "LIST",
        ffi::DUCKDB_TYPE_DUCKDB_TYPE_STRUCT => "STRUCT",
        ffi::DUCKDB_TYPE_DUCKDB_TYPE_MAP => "MAP",
        ffi::DUCKDB_TYPE_DUCKDB_TYPE_UNION => "UNION",
        ffi::DUCKDB_TYPE_DUCKDB_TYPE_UUID => "UUID",
        ffi::DUCKDB_TYPE_DUCKDB_TYPE_TIME => "TIME",
        ffi::DUCKDB_TYPE_DUCKDB_TYPE_TIME_TZ => "TIME WITH TIME ZONE",
        ffi::DUCKDB_TYPE_DUCKDB_TYPE_TIMESTAMP_TZ => "TIMESTAMP WITH TIME ZONE",
        ffi::DUCKDB_TYPE_DUCKDB_TYPE_ENUM => "ENUM",
        ffi::DUCKDB_TYPE_DUCKDB_TYPE_BIT => "BIT",
        ffi::DUCKDB_TYPE_DUCKDB_TYPE_SQLNULL => "NULL",
        _ => "another type",
    }
}

/// One column of a chunk, as slices DuckDB lent for the sink call.
pub struct Column<'a> {
    /// The values, `Elem::size_in` bytes each (for an ARRAY column: the child's `n * D`).
    pub data: &'a [u8],
    /// The validity words of the rows (`None`: all valid).
    pub validity: Option<&'a [u64]>,
    /// For an ARRAY column: the validity words of the child elements.
    pub child_validity: Option<&'a [u64]>,
}

fn valid(mask: Option<&[u64]>, i: usize) -> bool {
    mask.is_none_or(|m| m.get(i / 64).is_none_or(|w| (w >> (i % 64)) & 1 == 1))
}

/// The writing side of one COPY: the file, rows so far, the conversion buffer.
pub struct Out {
    file: DuckFile,
    path: String,
    rows: usize,
    head_len: usize,
    buf: Vec<u8>,
}

impl Out {
    /// Creates `path` through `fs` and writes the header for 0 rows.
    pub fn create(fs: &DuckFs, path: &str, plan: &Plan) -> Result<Out, String> {
        let mut file = fs.create(path).map_err(|e| e.message)?;
        if file.size().map_err(|e| format!("{path}: {e}"))? != 0 {
            return Err(format!(
                "COPY TO {path} (FORMAT npy): the file exists and is not empty, and DuckDB's C \
                 API cannot truncate it (DuckDB writes to a new temporary file when the target \
                 exists, unless USE_TMP_FILE false is given; remove the file first)"
            ));
        }
        let head = header_bytes(&plan.header(0)?);
        file.write_all(&head).map_err(|e| format!("{path}: {e}"))?;
        Ok(Out {
            file,
            path: path.to_string(),
            rows: 0,
            head_len: head.len(),
            buf: Vec::with_capacity(BUF_BYTES),
        })
    }

    fn flush_buf(&mut self) -> Result<(), String> {
        if !self.buf.is_empty() {
            self.file
                .write_all(&self.buf)
                .map_err(|e| format!("{}: {e}", self.path))?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Converts and writes `n` rows given as `columns` (one per result column).
    pub fn sink(&mut self, plan: &Plan, n: usize, columns: &[Column<'_>]) -> Result<(), String> {
        let size = plan.elem.size_in();
        let d = plan.row_len();
        // Refuse before writing anything of the chunk: NULLs and values NumPy has not.
        for (c, col) in columns.iter().enumerate() {
            let elems = if plan.array.is_some() { n * d } else { n };
            if col.data.len() < elems * size {
                return Err("internal: a vector shorter than its chunk".into());
            }
            for r in 0..n {
                if !valid(col.validity, r) {
                    return Err(self.refuse(
                        r,
                        c,
                        "is NULL (a .npy has no NULL: filter or coalesce it)",
                    ));
                }
            }
            if plan.array.is_some() {
                for i in 0..n * d {
                    if !valid(col.child_validity, i) {
                        return Err(self.refuse(
                            i / d,
                            c,
                            &format!("has a NULL element (index {}; a .npy has no NULL)", i % d),
                        ));
                    }
                }
            }
            if let Some(i) = infinite(plan.elem, col.data.get(..elems * size).unwrap_or_default()) {
                let r = if plan.array.is_some() { i / d } else { i };
                return Err(self.refuse(
                    r,
                    c,
                    "is infinity or -infinity (NumPy's datetime64 has no such value)",
                ));
            }
        }
        // Convert row-major, at most about BUF_BYTES at a time: one column (or one ARRAY
        // column) is a contiguous copy; k columns are scattered into rows of k elements.
        let out_size = if plan.elem == Elem::Date { 8 } else { size };
        let row_out = d * out_size;
        let step = (BUF_BYTES / row_out.max(1)).max(1);
        let mut r0 = 0;
        while r0 < n {
            let m = step.min(n - r0);
            self.flush_buf()?;
            match (plan.array, columns) {
                (Some(_), [col]) => put(&mut self.buf, plan.elem, col.data, r0 * d, m * d),
                (None, [col]) => put(&mut self.buf, plan.elem, col.data, r0, m),
                _ if plan.elem == Elem::Date => {
                    for r in r0..r0 + m {
                        for col in columns {
                            put(&mut self.buf, plan.elem, col.data, r, 1);
                        }
                    }
                }
                _ => {
                    let start = self.buf.len();
                    self.buf.resize(start + m * row_out, 0);
                    let dst = self.buf.get_mut(start..).unwrap_or_default();
                    for (c, col) in columns.iter().enumerate() {
                        let src = col.data.get(r0 * size..(r0 + m) * size).unwrap_or_default();
                        match size {
                            1 => scatter::<1>(dst, src, d, c),
                            2 => scatter::<2>(dst, src, d, c),
                            4 => scatter::<4>(dst, src, d, c),
                            _ => scatter::<8>(dst, src, d, c),
                        }
                    }
                }
            }
            r0 += m;
        }
        self.rows += n;
        Ok(())
    }

    fn refuse(&self, r: usize, c: usize, why: &str) -> String {
        format!(
            "COPY TO {} (FORMAT npy): row {} (0-based), column {} {why}",
            self.path,
            self.rows + r,
            c + 1
        )
    }

    /// Writes what is buffered and the header for the rows written.
    pub fn finish(&mut self, plan: &Plan) -> Result<(), String> {
        self.flush_buf()?;
        let head = header_bytes(&plan.header(self.rows)?);
        if head.len() != self.head_len {
            return Err(format!(
                "COPY TO {}: internal: the header for {} rows is not as long as the first one",
                self.path, self.rows
            ));
        }
        let e = |e: std::io::Error| format!("{}: {e}", self.path);
        self.file.seek(SeekFrom::Start(0)).map_err(e)?;
        self.file.write_all(&head).map_err(e)?;
        self.file.sync().map_err(e)?;
        Ok(())
    }
}

/// Writes the `S`-byte elements of `src` to element `c` of each row of `k` elements of `dst`.
fn scatter<const S: usize>(dst: &mut [u8], src: &[u8], k: usize, c: usize) {
    for (row, v) in dst.chunks_exact_mut(S * k).zip(src.chunks_exact(S)) {
        if let Some(slot) = row.get_mut(c * S..(c + 1) * S) {
            slot.copy_from_slice(v);
        }
    }
}

/// Index of the first DuckDB `infinity`/`-infinity` among dates or timestamps in `data`.
fn infinite(elem: Elem, data: &[u8]) -> Option<usize> {
    match elem {
        Elem::Date => data.chunks_exact(4).position(|b| {
            let v = i32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
            v == i32::MAX || v == -i32::MAX
        }),
        Elem::Stamp(_) => data.chunks_exact(8).position(|b| {
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            let v = i64::from_ne_bytes(a);
            v == i64::MAX || v == -i64::MAX
        }),
        _ => None,
    }
}

/// Appends elements `i .. i + k` of `data` to `buf` in the file's encoding (the host's byte
/// order; DATE widened to i64 days).
fn put(buf: &mut Vec<u8>, elem: Elem, data: &[u8], i: usize, k: usize) {
    let size = elem.size_in();
    let src = data.get(i * size..(i + k) * size).unwrap_or_default();
    match elem {
        Elem::Date => {
            for b in src.chunks_exact(4) {
                let days = i32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
                buf.extend_from_slice(&i64::from(days).to_ne_bytes());
            }
        }
        // BOOLEAN is stored as one byte 0 or 1, as NumPy's b1.
        _ => buf.extend_from_slice(src),
    }
}

// ---------------------------------------------------------------------------------------
// The C callbacks.

/// The state of one COPY (DuckDB's global state).
struct Global {
    plan: Plan,
    out: Mutex<Out>,
}

unsafe extern "C" fn drop_box<T>(p: *mut c_void) {
    if !p.is_null() {
        // SAFETY: `p` was made by `Box::into_raw` of a `Box<T>` below and DuckDB calls this
        // destructor once.
        drop(unsafe { Box::from_raw(p.cast::<T>()) });
    }
}

fn c_error(msg: &str) -> CString {
    CString::new(msg.replace('\0', " ")).unwrap_or_default()
}

/// The types of the bound columns.
///
/// # Safety
///
/// `info` must be the live bind info of the current bind callback.
unsafe fn bind_types(
    info: ffi::duckdb_copy_function_bind_info,
) -> Vec<(ffi::DUCKDB_TYPE, Option<(ffi::DUCKDB_TYPE, usize)>)> {
    // SAFETY: `info` is live (the caller's promise).
    let n = unsafe { ffi::duckdb_copy_function_bind_get_column_count(info) };
    let mut types = Vec::new();
    for c in 0..n {
        // SAFETY: `c` < the column count; the logical type returned is new, owned here and
        // destroyed once below; the array child type likewise.
        unsafe {
            let mut t = ffi::duckdb_copy_function_bind_get_column_type(info, c);
            if t.is_null() {
                types.push((ffi::DUCKDB_TYPE_DUCKDB_TYPE_INVALID, None));
                continue;
            }
            let id = ffi::duckdb_get_type_id(t);
            let mut child = None;
            if id == ffi::DUCKDB_TYPE_DUCKDB_TYPE_ARRAY {
                let mut ct = ffi::duckdb_array_type_child_type(t);
                let size = ffi::duckdb_array_type_array_size(t);
                if !ct.is_null() {
                    let cid = ffi::duckdb_get_type_id(ct);
                    ffi::duckdb_destroy_logical_type(&mut ct);
                    child = Some((cid, usize::try_from(size).unwrap_or(usize::MAX)));
                }
            }
            ffi::duckdb_destroy_logical_type(&mut t);
            types.push((id, child));
        }
    }
    types
}

/// The option names given besides FORMAT (none is accepted).
///
/// # Safety
///
/// `info` must be the live bind info of the current bind callback.
unsafe fn option_names(info: ffi::duckdb_copy_function_bind_info) -> Vec<String> {
    let mut names = Vec::new();
    // SAFETY: `info` is live; the value (a STRUCT of the options, or null) is new and
    // destroyed once below, as is its logical type; child names are new C strings freed
    // with `duckdb_free`.
    unsafe {
        let mut v = ffi::duckdb_copy_function_bind_get_options(info);
        if v.is_null() {
            return names;
        }
        if !ffi::duckdb_is_null_value(v) {
            // The value's own type (owned by the value: not destroyed here).
            let t = ffi::duckdb_get_value_type(v);
            let k = ffi::duckdb_struct_type_child_count(t);
            for i in 0..k {
                let name = ffi::duckdb_struct_type_child_name(t, i);
                if !name.is_null() {
                    names.push(CStr::from_ptr(name).to_string_lossy().into_owned());
                    ffi::duckdb_free(name.cast());
                }
            }
        }
        ffi::duckdb_destroy_value(&mut v);
    }
    names.retain(|n| !n.eq_ignore_ascii_case("format"));
    names
}

unsafe extern "C" fn bind(info: ffi::duckdb_copy_function_bind_info) {
    // SAFETY: DuckDB calls this with a live bind info.
    let types = unsafe { bind_types(info) };
    // SAFETY: as above.
    let options = unsafe { option_names(info) };
    let plan = if options.is_empty() {
        Plan::of(&types)
    } else {
        Err(format!(
            "COPY TO (FORMAT npy) takes no options, found {}",
            options.join(", ")
        ))
    };
    match plan {
        Ok(plan) => {
            let p = Box::into_raw(Box::new(plan));
            // SAFETY: `info` is live; DuckDB owns `p` from now and frees it with `drop_box`.
            unsafe {
                ffi::duckdb_copy_function_bind_set_bind_data(info, p.cast(), Some(drop_box::<Plan>))
            };
        }
        Err(e) => {
            let c = c_error(&e);
            // SAFETY: `info` is live; DuckDB copies the message.
            unsafe { ffi::duckdb_copy_function_bind_set_error(info, c.as_ptr()) };
        }
    }
}

unsafe extern "C" fn global_init(info: ffi::duckdb_copy_function_global_init_info) {
    let result = (|| -> Result<Global, String> {
        // SAFETY: DuckDB calls this with a live info; the bind data is the `Plan` our bind
        // set (DuckDB keeps it alive for the whole COPY); the path is a C string owned by
        // DuckDB for the call, copied at once; the client context wrapper is new and handed
        // to `of_context`, which destroys it.
        let (plan, path, fs) = unsafe {
            let plan = ffi::duckdb_copy_function_global_init_get_bind_data(info).cast::<Plan>();
            let plan = plan.as_ref().ok_or("internal: no bind data")?.clone();
            let path = ffi::duckdb_copy_function_global_init_get_file_path(info);
            if path.is_null() {
                return Err("internal: no file path".into());
            }
            let path = CStr::from_ptr(path).to_string_lossy().into_owned();
            let ctx = ffi::duckdb_copy_function_global_init_get_client_context(info);
            (plan, path, DuckFs::of_context(ctx)?)
        };
        let out = Out::create(&fs, &path, &plan)?;
        Ok(Global {
            plan,
            out: Mutex::new(out),
        })
    })();
    match result {
        Ok(g) => {
            let p = Box::into_raw(Box::new(g));
            // SAFETY: `info` is live; DuckDB owns `p` from now and frees it with `drop_box`.
            unsafe {
                ffi::duckdb_copy_function_global_init_set_global_state(
                    info,
                    p.cast(),
                    Some(drop_box::<Global>),
                )
            };
        }
        Err(e) => {
            let c = c_error(&e);
            // SAFETY: `info` is live; DuckDB copies the message.
            unsafe { ffi::duckdb_copy_function_global_init_set_error(info, c.as_ptr()) };
        }
    }
}

/// Words of a validity mask for `n` entries (null pointer: all valid).
///
/// # Safety
///
/// `p` must be null or a validity mask of at least `n` entries DuckDB lent for the call.
unsafe fn mask<'a>(p: *mut u64, n: usize) -> Option<&'a [u64]> {
    if p.is_null() {
        None
    } else {
        // SAFETY: the caller's promise: `n.div_ceil(64)` words are readable.
        Some(unsafe { std::slice::from_raw_parts(p, n.div_ceil(64)) })
    }
}

unsafe extern "C" fn sink(
    info: ffi::duckdb_copy_function_sink_info,
    input: ffi::duckdb_data_chunk,
) {
    // SAFETY: DuckDB calls this with a live info whose global state is our `Global` (set in
    // `global_init`, alive until the COPY ends).
    let global = unsafe {
        ffi::duckdb_copy_function_sink_get_global_state(info)
            .cast::<Global>()
            .as_ref()
    };
    let result = (|| -> Result<(), String> {
        let g = global.ok_or("internal: no global state")?;
        let plan = &g.plan;
        // SAFETY: `input` is the live, flattened chunk DuckDB passes to this call (the C
        // API's sink flattens every vector first, so each vector's data is a plain array of
        // the chunk's size); its vectors, their data, validity masks and ARRAY children stay
        // valid and unmodified for the call, which only reads them. The slice lengths are
        // the chunk's rows (times D for an ARRAY's child) times the element size of the
        // column's type, which the bind checked.
        let (n, columns) = unsafe {
            let n = usize::try_from(ffi::duckdb_data_chunk_get_size(input)).unwrap_or(0);
            let k = usize::try_from(ffi::duckdb_data_chunk_get_column_count(input)).unwrap_or(0);
            if k != plan.cols {
                return Err("internal: the chunk has another column count than bound".into());
            }
            let size = plan.elem.size_in();
            let mut columns = Vec::with_capacity(k);
            for c in 0..k {
                let v = ffi::duckdb_data_chunk_get_vector(input, c as u64);
                let validity = mask(ffi::duckdb_vector_get_validity(v), n);
                let (data_vec, elems, child_validity) = match plan.array {
                    Some(d) => {
                        let child = ffi::duckdb_array_vector_get_child(v);
                        (
                            child,
                            n * d,
                            mask(ffi::duckdb_vector_get_validity(child), n * d),
                        )
                    }
                    None => (v, n, None),
                };
                let data = ffi::duckdb_vector_get_data(data_vec).cast::<u8>();
                let data = if data.is_null() || elems == 0 {
                    &[][..]
                } else {
                    std::slice::from_raw_parts(data, elems * size)
                };
                columns.push(Column {
                    data,
                    validity,
                    child_validity,
                });
            }
            (n, columns)
        };
        let mut out = g.out.lock().map_err(|_| "a thread of this COPY failed")?;
        out.sink(plan, n, &columns)
    })();
    if let Err(e) = result {
        let c = c_error(&e);
        // SAFETY: `info` is live; DuckDB copies the message.
        unsafe { ffi::duckdb_copy_function_sink_set_error(info, c.as_ptr()) };
    }
}

unsafe extern "C" fn finalize(info: ffi::duckdb_copy_function_finalize_info) {
    // SAFETY: DuckDB calls this with a live info whose global state is our `Global`.
    let global = unsafe {
        ffi::duckdb_copy_function_finalize_get_global_state(info)
            .cast::<Global>()
            .as_ref()
    };
    let result = (|| -> Result<(), String> {
        let g = global.ok_or("internal: no global state")?;
        let mut out = g.out.lock().map_err(|_| "a thread of this COPY failed")?;
        out.finish(&g.plan)
    })();
    if let Err(e) = result {
        let c = c_error(&e);
        // SAFETY: `info` is live; DuckDB copies the message.
        unsafe { ffi::duckdb_copy_function_finalize_set_error(info, c.as_ptr()) };
    }
}

/// Registers the copy function `npy` on `con`.
///
/// # Safety
///
/// `con` must be a live connection, and DuckDB's C API must have been initialized for this
/// extension (the entry point does both).
pub unsafe fn register(con: ffi::duckdb_connection) -> Result<(), String> {
    // SAFETY: the caller's promise; the copy function is new, configured, registered (DuckDB
    // copies it into its catalog) and destroyed once.
    unsafe {
        let mut f = ffi::duckdb_create_copy_function();
        ffi::duckdb_copy_function_set_name(f, c"npy".as_ptr());
        ffi::duckdb_copy_function_set_bind(f, Some(bind));
        ffi::duckdb_copy_function_set_global_init(f, Some(global_init));
        ffi::duckdb_copy_function_set_sink(f, Some(sink));
        ffi::duckdb_copy_function_set_finalize(f, Some(finalize));
        let state = ffi::duckdb_register_copy_function(con, f);
        ffi::duckdb_destroy_copy_function(&mut f);
        if state != ffi::DuckDBSuccess {
            return Err("cannot register the copy function npy".into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans() {
        let d = ffi::DUCKDB_TYPE_DUCKDB_TYPE_DOUBLE;
        let p = Plan::of(&[(d, None), (d, None)]).unwrap();
        assert_eq!(p.header(3).unwrap().shape(), &[3, 2]);
        let p = Plan::of(&[(d, None)]).unwrap();
        assert_eq!(p.header(3).unwrap().shape(), &[3]);
        let a = ffi::DUCKDB_TYPE_DUCKDB_TYPE_ARRAY;
        let p = Plan::of(&[(a, Some((ffi::DUCKDB_TYPE_DUCKDB_TYPE_FLOAT, 4)))]).unwrap();
        assert_eq!(p.header(5).unwrap().shape(), &[5, 4]);
        let v = ffi::DUCKDB_TYPE_DUCKDB_TYPE_VARCHAR;
        assert!(Plan::of(&[(v, None)]).unwrap_err().contains("VARCHAR"));
        let i = ffi::DUCKDB_TYPE_DUCKDB_TYPE_INTEGER;
        assert!(Plan::of(&[(d, None), (i, None)])
            .unwrap_err()
            .contains("column 2"));
    }

    /// COPY names each type as DuckDB does (through the read side's table).
    #[test]
    fn every_copyable_type_has_duckdbs_name() {
        use ffi::*;
        for (id, name) in [
            (DUCKDB_TYPE_DUCKDB_TYPE_BOOLEAN, "BOOLEAN"),
            (DUCKDB_TYPE_DUCKDB_TYPE_TINYINT, "TINYINT"),
            (DUCKDB_TYPE_DUCKDB_TYPE_SMALLINT, "SMALLINT"),
            (DUCKDB_TYPE_DUCKDB_TYPE_INTEGER, "INTEGER"),
            (DUCKDB_TYPE_DUCKDB_TYPE_BIGINT, "BIGINT"),
            (DUCKDB_TYPE_DUCKDB_TYPE_UTINYINT, "UTINYINT"),
            (DUCKDB_TYPE_DUCKDB_TYPE_USMALLINT, "USMALLINT"),
            (DUCKDB_TYPE_DUCKDB_TYPE_UINTEGER, "UINTEGER"),
            (DUCKDB_TYPE_DUCKDB_TYPE_UBIGINT, "UBIGINT"),
            (DUCKDB_TYPE_DUCKDB_TYPE_FLOAT, "FLOAT"),
            (DUCKDB_TYPE_DUCKDB_TYPE_DOUBLE, "DOUBLE"),
            (DUCKDB_TYPE_DUCKDB_TYPE_DATE, "DATE"),
            (DUCKDB_TYPE_DUCKDB_TYPE_TIMESTAMP_S, "TIMESTAMP_S"),
            (DUCKDB_TYPE_DUCKDB_TYPE_TIMESTAMP_MS, "TIMESTAMP_MS"),
            (DUCKDB_TYPE_DUCKDB_TYPE_TIMESTAMP, "TIMESTAMP"),
            (DUCKDB_TYPE_DUCKDB_TYPE_TIMESTAMP_NS, "TIMESTAMP_NS"),
        ] {
            assert_eq!(Elem::of(id).map(Elem::sql), Some(name));
        }
    }

    #[test]
    fn header_length_does_not_depend_on_rows() {
        let p = Plan::of(&[(ffi::DUCKDB_TYPE_DUCKDB_TYPE_BIGINT, None)]).unwrap();
        let n0 = header_bytes(&p.header(0).unwrap()).len();
        for rows in [1, 9, 10, 1 << 20, usize::MAX / 16] {
            assert_eq!(header_bytes(&p.header(rows).unwrap()).len(), n0);
        }
    }

    #[test]
    fn infinities() {
        let data: Vec<u8> = [1i64, i64::MAX]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        assert_eq!(infinite(Elem::Stamp(TimeUnit::Micro), &data), Some(1));
        let data: Vec<u8> = [-i32::MAX].iter().flat_map(|v| v.to_ne_bytes()).collect();
        assert_eq!(infinite(Elem::Date, &data), Some(0));
    }
}
