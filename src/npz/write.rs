//! Writing archives as `np.savez` and `np.savez_compressed` do, through the `zip` crate.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Seek, Write};
use std::path::Path;

use crate::data::array::Array;
use crate::error::{Error, ErrorKind, Result};
use crate::npz::member::NPY_SUFFIX;

/// The name NumPy gives the `i`-th unnamed array: `arr_{i}`.
pub fn positional_name(i: usize) -> String {
    format!("arr_{i}")
}

/// Names arrays as `np.savez(file, *positional, **named)` does: the named
/// arrays first, in order, then the positional ones as `arr_0`, `arr_1`…
/// [`ErrorKind::InvalidInput`] if a name repeats (NumPy: "Cannot use un-named
/// variables and keyword arr_0").
pub fn name_arrays<'a>(
    positional: &[&'a Array],
    named: &[(&str, &'a Array)],
) -> Result<Vec<(String, &'a Array)>> {
    let mut out: Vec<(String, &'a Array)> =
        named.iter().map(|(n, a)| ((*n).to_string(), *a)).collect();
    for (i, a) in positional.iter().enumerate() {
        out.push((positional_name(i), *a));
    }
    let mut seen = HashSet::with_capacity(out.len());
    for (n, _) in &out {
        if !seen.insert(n.as_str()) {
            return Err(Error::unplaced(
                ErrorKind::InvalidInput,
                "array names that are all different",
            )
            .found(format!("{n:?} twice")));
        }
    }
    Ok(out)
}

/// Writes `arrays` as `np.savez` does (members stored) and returns the writer.
/// Each `(name, array)` becomes member `name.npy` (`.npy` is always appended, as NumPy does).
pub fn savez<W: Write + Seek, S: AsRef<str>>(w: W, arrays: &[(S, &Array)]) -> Result<W> {
    write_npz(w, arrays, zip::CompressionMethod::Stored)
}

/// Writes `arrays` as `np.savez_compressed` does (members deflated) and returns the writer.
pub fn savez_compressed<W: Write + Seek, S: AsRef<str>>(w: W, arrays: &[(S, &Array)]) -> Result<W> {
    write_npz(w, arrays, zip::CompressionMethod::Deflated)
}

/// [`savez`] to a new file at `path` (replacing any file there).
pub fn savez_path<S: AsRef<str>>(path: impl AsRef<Path>, arrays: &[(S, &Array)]) -> Result<()> {
    let path = path.as_ref();
    let file = File::create(path)
        .map_err(|e| Error::os(format!("cannot create {}", path.display()), e))?;
    savez(io::BufWriter::new(file), arrays)?
        .flush()
        .map_err(|e| Error::os(format!("cannot write {}", path.display()), e))
}

/// [`savez_compressed`] to a new file at `path` (replacing any file there).
pub fn savez_compressed_path<S: AsRef<str>>(
    path: impl AsRef<Path>,
    arrays: &[(S, &Array)],
) -> Result<()> {
    let path = path.as_ref();
    let file = File::create(path)
        .map_err(|e| Error::os(format!("cannot create {}", path.display()), e))?;
    savez_compressed(io::BufWriter::new(file), arrays)?
        .flush()
        .map_err(|e| Error::os(format!("cannot write {}", path.display()), e))
}

fn write_npz<W: Write + Seek, S: AsRef<str>>(
    w: W,
    arrays: &[(S, &Array)],
    method: zip::CompressionMethod,
) -> Result<W> {
    let mut seen = HashSet::with_capacity(arrays.len());
    for (name, _) in arrays {
        let name = name.as_ref();
        let member_len = name.len().saturating_add(NPY_SUFFIX.len());
        if name.contains('\0') || member_len > usize::from(u16::MAX) {
            return Err(Error::unplaced(
                ErrorKind::InvalidInput,
                "an array name without NUL, at most 65 531 bytes",
            )
            .found(format!("{:?}", name.chars().take(64).collect::<String>())));
        }
        if !seen.insert(name) {
            return Err(Error::unplaced(
                ErrorKind::InvalidInput,
                "array names that are all different",
            )
            .found(format!("{name:?} twice")));
        }
    }
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(method)
        .large_file(true)
        .unix_permissions(0o600)
        .last_modified_time(zip::DateTime::default());
    let mut zip = zip::ZipWriter::new(Halting::new(w));
    for (name, array) in arrays {
        let member = format!("{}{NPY_SUFFIX}", name.as_ref());
        zip.start_file(member.as_str(), options)
            .map_err(|e| write_error(e, &member))?;
        crate::io::write::to_writer(&mut zip, array).map_err(|e| e.in_member(&member))?;
    }
    zip.finish()
        .map(|h| h.inner)
        .map_err(|e| write_error(e, "(central directory)"))
}

/// The archive's storage, which passes nothing on after an operation has failed (other than
/// by `Interrupted`).
///
/// When a write fails, [`write_npz`] returns the error and drops the `zip` writer unfinished.
/// Its `Drop` finishes the archive anyway and, when that fails, prints "ZipWriter drop
/// failed" to stderr; its size checks (debug assertions such as `file_end >= start`) panic
/// when the positions it reads go backwards. So after the first failure this storage only
/// pretends, as an append-only sink: writes are counted, not written, and every seek lands
/// at the end, past every position the `zip` writer has seen. Whatever state the failure
/// left the `zip` writer in, its drop then finishes into nothing, without an error to print
/// or a check to trip, and the caller's writer sees no call after the one that failed.
struct Halting<W> {
    inner: W,
    /// Where the writer is, as far as the `zip` writer has learnt (0 before any seek).
    pos: u64,
    /// The furthest position reached (the end of the pretended stream after a failure).
    end: u64,
    failed: bool,
}

impl<W> Halting<W> {
    fn new(inner: W) -> Halting<W> {
        Halting {
            inner,
            pos: 0,
            end: 0,
            failed: false,
        }
    }

    /// Runs `op` on the writer and moves to the position `to` gives for its result; after a
    /// failure, `pretend` answers instead.
    fn guard<T: Copy>(
        &mut self,
        op: impl FnOnce(&mut W) -> io::Result<T>,
        to: impl FnOnce(u64, T) -> u64,
        pretend: impl FnOnce(&mut u64) -> T,
    ) -> io::Result<T> {
        if self.failed {
            return Ok(pretend(&mut self.end));
        }
        // An interrupted call is retried by `write_all` and leaves nothing torn.
        let done = op(&mut self.inner)
            .inspect_err(|e| self.failed = e.kind() != io::ErrorKind::Interrupted)?;
        self.pos = to(self.pos, done);
        self.end = self.end.max(self.pos);
        Ok(done)
    }
}

impl<W: Write> Write for Halting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let len = buf.len();
        self.guard(
            |w| w.write(buf),
            |pos, n| pos.saturating_add(n as u64),
            |end| {
                *end = end.saturating_add(len as u64);
                len
            },
        )
    }
    fn flush(&mut self) -> io::Result<()> {
        self.guard(|w| w.flush(), |pos, ()| pos, |_| ())
    }
}

impl<W: Seek> Seek for Halting<W> {
    fn seek(&mut self, pos: io::SeekFrom) -> io::Result<u64> {
        self.guard(|w| w.seek(pos), |_, to| to, |end| *end)
    }
}

fn write_error(e: zip::result::ZipError, member: &str) -> Error {
    match e {
        zip::result::ZipError::Io(io) => Error::os("cannot write the archive", io),
        other => Error::unplaced(ErrorKind::InvalidInput, "a member the zip writer accepts")
            .found(other.to_string()),
    }
    .in_member(member)
}
