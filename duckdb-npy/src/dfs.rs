//! Every byte the extension reads comes through DuckDB's own file system: the one of the
//! client context that runs the query (`duckdb_client_context_get_file_system`, stable C
//! API since v1.5.6). So DuckDB's access rules apply to `read_npy` and `read_npz` as to its
//! own readers (`SET enable_external_access = false`, `allowed_directories`,
//! `allowed_paths`), and so do its other file systems (with `httpfs` loaded, `https://` and
//! `s3://` paths).
//!
//! [`DuckFs`] opens files; [`DuckFile`] is a DuckDB file handle as `Read + Seek`, which
//! npyguard's readers ([`npyguard::RowReader::new`], [`npyguard::npz::NpzArchive::new`])
//! take as they take a `File`: npyguard's checks are not copied here.
//!
//! This module holds the extension's `unsafe` calls into DuckDB's file system C API; each
//! block says why it is sound.

#![allow(unsafe_code)]

use std::ffi::{CStr, CString};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::ptr::null_mut;
use std::sync::Mutex;

use duckdb::ffi;
use duckdb::vtab::BindInfo;

/// Why DuckDB's file system did not open a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenError {
    /// DuckDB refused by configuration (`enable_external_access`, `allowed_directories`):
    /// a `PermissionException`.
    pub permission: bool,
    /// DuckDB's message.
    pub message: String,
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The raw file system pointer (sent between DuckDB's threads inside the mutex).
struct RawFs(ffi::duckdb_file_system);

// SAFETY: the pointer is DuckDB's `CFileSystem` wrapper around the client context's
// `FileSystem&` (the `ClientFileSystem`, which DuckDB's own readers call from all of its
// threads); the wrapper's only mutable state is the last error, and every use of the
// pointer here holds the mutex around it, so no two threads touch it at once.
unsafe impl Send for RawFs {}

/// The file system of the client context that bound a query: opens files for reading, with
/// DuckDB's access checks. Shared by the scan's threads (each open is serialized by a
/// mutex; reads are not: each [`DuckFile`] is its own handle).
pub struct DuckFs {
    raw: Mutex<RawFs>,
}

// The bind data keeps a `DuckFs` (scans open files later, from DuckDB's threads): it must
// hold nothing but the raw pointer the `SAFETY` notes describe.
const _: () =
    assert!(std::mem::size_of::<BindInfo>() == std::mem::size_of::<ffi::duckdb_bind_info>());
const _: () =
    assert!(std::mem::align_of::<BindInfo>() == std::mem::align_of::<ffi::duckdb_bind_info>());

/// The raw `duckdb_bind_info` inside the duckdb crate's `BindInfo`.
fn raw_bind_info(bind: &BindInfo) -> ffi::duckdb_bind_info {
    // SAFETY: `BindInfo` (duckdb crate, pinned exactly at =1.20000.1 in Cargo.toml) is a
    // struct with one field, `ptr: duckdb_bind_info`, and no other; the assertions above
    // check that it has exactly that field's size and alignment, so the field is at offset
    // 0 and the struct's bytes are the pointer. The read copies a plain pointer out of a
    // live reference.
    unsafe { *(bind as *const BindInfo).cast::<ffi::duckdb_bind_info>() }
}

/// DuckDB's error data as a Rust error (and destroys it).
///
/// # Safety
///
/// `data` must be null or an error data object DuckDB just returned to us, not yet destroyed.
unsafe fn take_error(mut data: ffi::duckdb_error_data, fallback: &str) -> OpenError {
    if data.is_null() {
        return OpenError {
            permission: false,
            message: fallback.to_string(),
        };
    }
    // SAFETY (the caller's promise): `data` is live; the message is a NUL-terminated string
    // owned by `data`, copied before `data` is destroyed.
    let message = unsafe {
        let m = ffi::duckdb_error_data_message(data);
        if m.is_null() {
            String::new()
        } else {
            CStr::from_ptr(m).to_string_lossy().into_owned()
        }
    };
    // SAFETY: as above; `data` is destroyed exactly once, here.
    let kind = unsafe { ffi::duckdb_error_data_error_type(data) };
    // SAFETY: as above.
    unsafe { ffi::duckdb_destroy_error_data(&mut data) };
    OpenError {
        permission: kind == ffi::duckdb_error_type_DUCKDB_ERROR_PERMISSION,
        message: if message.is_empty() {
            fallback.to_string()
        } else {
            message
        },
    }
}

impl DuckFs {
    /// The file system of the client context binding `bind`.
    pub fn of_bind(bind: &BindInfo) -> Result<DuckFs, String> {
        let info = raw_bind_info(bind);
        let mut ctx: ffi::duckdb_client_context = null_mut();
        // SAFETY: `info` is the live bind info DuckDB passed to this bind call;
        // `duckdb_table_function_get_client_context` (stable since v1.5.6) writes a new
        // client context wrapper to `ctx`, or leaves it null.
        unsafe { ffi::duckdb_table_function_get_client_context(info, &mut ctx) };
        // SAFETY: `ctx` is null or the new wrapper just created, used nowhere else.
        unsafe { DuckFs::of_context(ctx) }
    }

    /// The file system of a client context, whose wrapper `ctx` this destroys.
    ///
    /// # Safety
    ///
    /// `ctx` must be null or a client context wrapper DuckDB just created for the caller
    /// (`duckdb_*_get_client_context`), not used afterwards.
    pub unsafe fn of_context(mut ctx: ffi::duckdb_client_context) -> Result<DuckFs, String> {
        if ctx.is_null() {
            return Err("internal: DuckDB gave no client context".into());
        }
        // SAFETY: `ctx` is the live wrapper (the caller's promise); the file system wrapper
        // DuckDB returns refers to the context's `FileSystem` (owned by the ClientContext,
        // which outlives every query bound on it), not to the wrapper, which is destroyed
        // next, exactly once.
        let fs = unsafe {
            let fs = ffi::duckdb_client_context_get_file_system(ctx);
            ffi::duckdb_destroy_client_context(&mut ctx);
            fs
        };
        if fs.is_null() {
            return Err("internal: DuckDB gave no file system".into());
        }
        Ok(DuckFs {
            raw: Mutex::new(RawFs(fs)),
        })
    }

    /// Opens `path` for writing through DuckDB (its access rules apply), creating it when
    /// it does not exist. DuckDB's C API cannot truncate a file: the caller checks its size.
    pub fn create(&self, path: &str) -> Result<DuckFile, OpenError> {
        self.open_with(
            path,
            &[
                ffi::duckdb_file_flag_DUCKDB_FILE_FLAG_WRITE,
                ffi::duckdb_file_flag_DUCKDB_FILE_FLAG_CREATE,
            ],
        )
    }

    /// Opens `path` for reading through DuckDB (its access rules apply).
    pub fn open(&self, path: &str) -> Result<DuckFile, OpenError> {
        self.open_with(path, &[ffi::duckdb_file_flag_DUCKDB_FILE_FLAG_READ])
    }

    fn open_with(
        &self,
        path: &str,
        flags: &[ffi::duckdb_file_flag],
    ) -> Result<DuckFile, OpenError> {
        let internal = |m: &str| OpenError {
            permission: false,
            message: m.to_string(),
        };
        let c = CString::new(path).map_err(|_| internal("a path without NUL bytes"))?;
        let fs = self
            .raw
            .lock()
            .map_err(|_| internal("a thread of this scan failed"))?;
        // SAFETY: creates a new options object, destroyed below on every path.
        let mut opts = unsafe { ffi::duckdb_create_file_open_options() };
        if opts.is_null() {
            return Err(internal("internal: DuckDB created no file open options"));
        }
        let mut handle: ffi::duckdb_file_handle = null_mut();
        // SAFETY: `opts` is live; `fs.0` is the live file system wrapper (we hold its
        // mutex); `c` is a NUL-terminated string alive for the call; `handle` receives a
        // new file handle (owned by the `DuckFile` below) or null. `opts` is destroyed
        // once, after the open.
        let state = unsafe {
            for &flag in flags {
                ffi::duckdb_file_open_options_set_flag(opts, flag, true);
            }
            let state = ffi::duckdb_file_system_open(fs.0, c.as_ptr(), opts, &mut handle);
            ffi::duckdb_destroy_file_open_options(&mut opts);
            state
        };
        if state != ffi::DuckDBSuccess || handle.is_null() {
            // SAFETY: the error data is new (returned by DuckDB now, under the mutex) and
            // `take_error` destroys it.
            return Err(unsafe {
                take_error(
                    ffi::duckdb_file_system_error_data(fs.0),
                    "cannot open the file",
                )
            });
        }
        Ok(DuckFile {
            raw: handle,
            pos: 0,
            at: 0,
        })
    }
}

impl Drop for DuckFs {
    fn drop(&mut self) {
        if let Ok(fs) = self.raw.get_mut() {
            // SAFETY: the wrapper was created by `duckdb_client_context_get_file_system` and
            // is destroyed once, here (no `DuckFile` refers to it: handles are independent).
            unsafe { ffi::duckdb_destroy_file_system(&mut fs.0) };
        }
    }
}

/// A file opened through DuckDB's file system, as `Read + Seek`: reads go to the handle
/// at the position last sought (a seek is passed on to DuckDB only when a read follows).
pub struct DuckFile {
    raw: ffi::duckdb_file_handle,
    /// The stream position.
    pos: u64,
    /// The handle's own position.
    at: u64,
}

// SAFETY: the handle is owned by this value alone (created by `DuckFs::open`, destroyed
// in `Drop`); DuckDB's file handles are used by whichever thread holds them (DuckDB's own
// scans move them between threads), and `&mut self` on every call keeps uses apart.
unsafe impl Send for DuckFile {}

impl DuckFile {
    /// The handle's last error (`what` when DuckDB has none).
    fn error(&self, what: &str) -> io::Error {
        // SAFETY: `self.raw` is live; the error data is new and `take_error` destroys it.
        let e = unsafe { take_error(ffi::duckdb_file_handle_error_data(self.raw), what) };
        io::Error::other(e.message)
    }

    /// The file's size, as DuckDB reports it now.
    pub fn size(&mut self) -> io::Result<u64> {
        // SAFETY: `self.raw` is a live handle.
        let n = unsafe { ffi::duckdb_file_handle_size(self.raw) };
        u64::try_from(n).map_err(|_| self.error("cannot read the file's size"))
    }
}

impl Read for DuckFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.sync_position()?;
        let want = i64::try_from(buf.len()).unwrap_or(i64::MAX);
        // SAFETY: `self.raw` is a live handle; DuckDB writes at most `want <= buf.len()`
        // bytes to `buf`, which we borrow mutably for the call.
        let got = unsafe { ffi::duckdb_file_handle_read(self.raw, buf.as_mut_ptr().cast(), want) };
        let got = match usize::try_from(got) {
            Ok(n) if n <= buf.len() => n,
            Ok(_) => return Err(io::Error::other("DuckDB read more bytes than asked")),
            Err(_) => return Err(self.error("cannot read")),
        };
        self.pos = self.pos.saturating_add(got as u64);
        self.at = self.pos;
        Ok(got)
    }
}

impl Write for DuckFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.sync_position()?;
        let want = i64::try_from(buf.len()).unwrap_or(i64::MAX);
        // SAFETY: `self.raw` is a live handle; DuckDB reads at most `want <= buf.len()`
        // bytes from `buf`, which we borrow for the call.
        let put = unsafe { ffi::duckdb_file_handle_write(self.raw, buf.as_ptr().cast(), want) };
        let put = match usize::try_from(put) {
            Ok(n) if n <= buf.len() && n > 0 => n,
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::WriteZero,
                    "DuckDB wrote nothing",
                ))
            }
            Ok(_) => return Err(io::Error::other("DuckDB wrote more bytes than given")),
            Err(_) => return Err(self.error("cannot write")),
        };
        self.pos = self.pos.saturating_add(put as u64);
        self.at = self.pos;
        Ok(put)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl DuckFile {
    /// Moves the handle to the stream position (before a read or a write).
    fn sync_position(&mut self) -> io::Result<()> {
        if self.at != self.pos {
            let to = i64::try_from(self.pos)
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "seek past 2**63"))?;
            // SAFETY: `self.raw` is a live handle; DuckDB checks the position.
            if unsafe { ffi::duckdb_file_handle_seek(self.raw, to) } != ffi::DuckDBSuccess {
                return Err(self.error("cannot seek"));
            }
            self.at = self.pos;
        }
        Ok(())
    }

    /// Makes what was written durable (DuckDB's `Sync`: fsync for local files).
    pub fn sync(&mut self) -> io::Result<()> {
        // SAFETY: `self.raw` is a live handle.
        if unsafe { ffi::duckdb_file_handle_sync(self.raw) } != ffi::DuckDBSuccess {
            return Err(self.error("cannot sync"));
        }
        Ok(())
    }
}

impl Seek for DuckFile {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let (base, delta) = match to {
            SeekFrom::Start(p) => (p, 0),
            SeekFrom::End(d) => (self.size()?, d),
            SeekFrom::Current(d) => (self.pos, d),
        };
        self.pos = base.checked_add_signed(delta).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the start of the file",
            )
        })?;
        Ok(self.pos)
    }

    fn stream_position(&mut self) -> io::Result<u64> {
        Ok(self.pos)
    }
}

impl Drop for DuckFile {
    fn drop(&mut self) {
        // SAFETY: the handle was created by `duckdb_file_system_open` and is destroyed
        // (closed) once, here.
        unsafe { ffi::duckdb_destroy_file_handle(&mut self.raw) };
    }
}
