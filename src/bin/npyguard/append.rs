//! `npyguard append`: grow a `.npy` along its first axis in place with the rows of other
//! `.npy` files (`npyguard::write::Appender`).
//!
//! Every source is read (under the limits) and checked against DST before anything is
//! written: an invalid source, another dtype (byte order aside) or another trailing shape
//! is exit 1 with DST untouched.

use crate::input::Failure;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use npyguard::write::{AppendOptions, Appender};
use npyguard::ReadOptions;

use crate::report::{fail_code, open_or_exit, read_or_exit, shape_text};

/// The flags of `append` besides the paths and the limits.
#[derive(clap::Args, Clone)]
pub struct AppendArgs {
    /// Sync DST after the data and again after the header (durable against power loss).
    #[arg(long)]
    pub fsync: bool,
    /// When np.save's header for the new shape does not fit DST's header in place (a file
    /// written before NumPy 1.24 has no growth space), write a new DST next to it and rename
    /// it over DST instead of refusing (through a symlink, over the file it points to; the
    /// permission bits, and owner and group where permitted, are kept).
    #[arg(long)]
    pub rewrite_when_full: bool,
    /// Cut off bytes after DST's payload (what an interrupted append leaves) instead of
    /// refusing DST; only once every SRC was checked (a refusal leaves DST as it was).
    #[arg(long)]
    pub discard_trailing_bytes: bool,
}

pub fn append(
    dst: &Path,
    srcs: &[PathBuf],
    args: &AppendArgs,
    opts: &ReadOptions,
) -> Result<ExitCode, Failure> {
    let append_opts = AppendOptions::default()
        .with_read_options(opts.clone())
        .with_fsync(args.fsync)
        .with_rewrite_when_full(args.rewrite_when_full)
        .with_discard_trailing_bytes(args.discard_trailing_bytes);
    // Held until the command ends: appends to one DST run one after another.
    let _lock = lock(dst)?;
    let mut appender = match Appender::open(dst, &append_opts) {
        Ok(a) => a,
        Err(e) => return fail_code(dst, e),
    };
    // Every source read and checked before the first byte is written.
    let mut arrays = Vec::with_capacity(srcs.len());
    for src in srcs {
        let input = open_or_exit(src)?;
        if input.is_npz() {
            eprintln!("{}: a .npy source (not a .npz archive)", src.display());
            return Ok(ExitCode::from(1));
        }
        let array = read_or_exit(src, input, opts)?;
        if let Err(e) = appender.check(&array) {
            eprintln!("{}: cannot append to {}: {e}", src.display(), dst.display());
            return Ok(ExitCode::from(1));
        }
        arrays.push(array);
    }
    for (i, (src, array)) in srcs.iter().zip(&arrays).enumerate() {
        if let Err(e) = appender.append(array) {
            // Each source is one append: those before this one are in DST (say so, a rerun
            // would append them twice); this one is not (its torn rows were cut off).
            let done: Vec<String> = srcs
                .iter()
                .take(i)
                .map(|p| p.display().to_string())
                .collect();
            let kept = if done.is_empty() {
                "nothing was appended".to_string()
            } else {
                format!("already appended: {}", done.join(", "))
            };
            eprintln!(
                "{}: while appending {} ({kept}; DST reads as shape {}):",
                dst.display(),
                src.display(),
                shape_text(appender.header())
            );
            if e.category() == npyguard::Category::Io && e.offset().is_some() {
                // A failed write of DST (a full disk), not a read.
                let os = e.found_text().unwrap_or(e.expected());
                return Err(Failure::Os(format!("cannot write {}: {os}", dst.display())));
            }
            return fail_code(dst, e);
        }
    }
    outln!(
        "{}: shape {} ({} source{})",
        dst.display(),
        shape_text(appender.header()),
        srcs.len(),
        if srcs.len() == 1 { "" } else { "s" }
    );
    Ok(ExitCode::SUCCESS)
}

/// An exclusive advisory lock (`flock`) on the file at `dst`, waited for: two appends to one
/// file at once read the same old header and wrote their rows over each other (16 at once
/// kept 13 of 16 sources, every run exit 0). The lock is taken on the file the path names
/// after the wait (a `--rewrite-when-full` append renames a new file over the path: a
/// lock on the old file is taken again on the new one). A path that is not a regular file
/// or cannot be opened is left to `Appender::open` to report.
fn lock(dst: &Path) -> Result<Option<std::fs::File>, Failure> {
    use rustix::fs::{flock, FlockOperation};
    use std::os::unix::fs::MetadataExt;
    loop {
        // Only a regular file is locked (opening a FIFO would wait for a writer); anything
        // else is refused by `Appender::open`.
        let regular = std::fs::metadata(crate::input::os_path(dst)).is_ok_and(|m| m.is_file());
        let opened = regular.then(|| std::fs::File::open(crate::input::os_path(dst)));
        let Some(Ok(file)) = opened else {
            return Ok(None);
        };
        flock(&file, FlockOperation::LockExclusive)
            .map_err(|e| Failure::Os(format!("cannot lock {}: {e}", dst.display())))?;
        let held = file.metadata().map(|m| (m.dev(), m.ino()));
        let named = std::fs::metadata(crate::input::os_path(dst)).map(|m| (m.dev(), m.ino()));
        match (held, named) {
            (Ok(h), Ok(n)) if h == n => return Ok(Some(file)),
            (Ok(_), Ok(_)) => continue,
            _ => return Ok(None),
        }
    }
}
