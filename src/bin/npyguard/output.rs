//! Where a command writes: nothing is lost whatever fails.
//!
//! - A regular file (new, or existing: also through a symlink, whose target is the file
//!   replaced, the link kept) is written to a new temporary file beside it, created by this
//!   command (`create_new`), and renamed into place only when everything was written: on
//!   any failure the destination is untouched and only the temporary file is removed. The
//!   replaced file's permission bits are kept.
//! - `-` (standard output), a FIFO, a character or block device or a socket is written as
//!   a stream: opened without creating or truncating, never removed.
//! - An output that is the input (the same file, also through links) is refused before
//!   anything is written; so is a directory.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::input::Failure;

/// An opened output: write to [`writer`](Output::writer), then [`commit`](Output::commit).
pub enum Output {
    /// A temporary file beside `dest`, renamed onto `dest` by `commit`.
    Replace {
        dest: PathBuf,
        /// `None` once renamed onto `dest` (nothing left to remove).
        temp: Option<PathBuf>,
        file: File,
    },
    /// A stream (standard output, a FIFO, a device), written in place.
    Stream(Box<dyn Write + Send>),
}

/// A failed write of `output` as the failure it means: the reader of standard output or of
/// a FIFO went away (`| head`): the command stops quietly, exit 0 (as
/// [`crate::out::write_failure`]); otherwise an OS error naming the output, exit 2.
pub fn write_error(output: &Path, e: &npyguard::Error) -> Failure {
    let io = std::error::Error::source(e).and_then(|s| s.downcast_ref::<io::Error>());
    if io.is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe) {
        Failure::Closed
    } else {
        Failure::Os(format!("{}: {e}", output.display()))
    }
}

fn os(path: &Path, what: &str, e: io::Error) -> Failure {
    Failure::Os(format!("cannot {what} {}: {e}", path.display()))
}

impl Output {
    /// Opens `output` for a command reading `input` (see the module documentation).
    pub fn open(output: &Path, input: &Path) -> Result<Output, Failure> {
        if output == Path::new("-") {
            return Ok(Output::Stream(Box::new(io::stdout())));
        }
        let existing = match std::fs::metadata(output) {
            Ok(m) => Some(m),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(os(output, "write", e)),
        };
        if let (Some(out), Ok(inp)) = (&existing, std::fs::metadata(crate::input::os_path(input))) {
            if out.dev() == inp.dev() && out.ino() == inp.ino() {
                return Err(Failure::Os(format!(
                    "{}: the output is the input {} (the same file): write to another path",
                    output.display(),
                    input.display()
                )));
            }
        }
        match existing {
            Some(m) if m.is_dir() => Err(Failure::Os(format!(
                "cannot write {}: is a directory",
                output.display()
            ))),
            Some(m) if !m.is_file() => {
                // A FIFO, device or socket: written as it is, never created, truncated or removed.
                let f = OpenOptions::new()
                    .write(true)
                    .open(output)
                    .map_err(|e| os(output, "open", e))?;
                Ok(Output::Stream(Box::new(f)))
            }
            Some(m) => {
                // Replace the file a symlink points to, not the link.
                let dest = std::fs::canonicalize(output).map_err(|e| os(output, "resolve", e))?;
                Output::temp_beside(dest, Some(m.permissions()))
            }
            None if std::fs::symlink_metadata(output).is_ok() => Err(Failure::Os(format!(
                "cannot write {}: a symbolic link to a missing file",
                output.display()
            ))),
            None => Output::temp_beside(output.to_path_buf(), None),
        }
    }

    fn temp_beside(dest: PathBuf, perms: Option<std::fs::Permissions>) -> Result<Output, Failure> {
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for n in 0..100u32 {
            let temp = dir.join(format!(".{name}.npyguard-{}-{n}.tmp", std::process::id()));
            match OpenOptions::new().write(true).create_new(true).open(&temp) {
                Ok(file) => {
                    if let Some(p) = perms {
                        file.set_permissions(p)
                            .map_err(|e| os(&temp, "set permissions of", e))?;
                    }
                    return Ok(Output::Replace {
                        dest,
                        temp: Some(temp),
                        file,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(os(&dest, "create a temporary file beside", e)),
            }
        }
        Err(Failure::Os(format!(
            "cannot create a temporary file beside {}",
            dest.display()
        )))
    }

    /// Where the bytes go.
    pub fn writer(&mut self) -> &mut (dyn Write + Send) {
        match self {
            Output::Replace { file, .. } => file,
            Output::Stream(w) => w,
        }
    }

    /// Everything was written: the temporary file replaces the destination (a stream is flushed).
    pub fn commit(mut self) -> Result<(), Failure> {
        match &mut self {
            Output::Replace { dest, temp, file } => {
                file.sync_all().map_err(|e| os(dest, "write", e))?;
                if let Some(t) = temp.take() {
                    if let Err(e) = std::fs::rename(&t, &*dest) {
                        *temp = Some(t);
                        return Err(os(dest, "replace", e));
                    }
                }
                Ok(())
            }
            Output::Stream(w) => w.flush().map_err(crate::out::write_failure),
        }
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Output::Replace {
            temp: Some(temp), ..
        } = self
        {
            // The command created this file; the destination was never touched.
            let _ = std::fs::remove_file(&*temp);
        }
    }
}
