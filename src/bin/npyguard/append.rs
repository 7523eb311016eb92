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

use crate::report::{fail_code, open_or_exit, read_or_exit};

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
    for (src, array) in srcs.iter().zip(&arrays) {
        if let Err(e) = appender.append(array) {
            eprintln!("{}: while appending {}:", dst.display(), src.display());
            return fail_code(dst, e);
        }
    }
    let shape: Vec<u64> = appender
        .header()
        .shape()
        .iter()
        .map(|&d| d as u64)
        .collect();
    outln!(
        "{}: shape {} ({} source{})",
        dst.display(),
        npyguard::repr::py_shape(&shape),
        srcs.len(),
        if srcs.len() == 1 { "" } else { "s" }
    );
    Ok(ExitCode::SUCCESS)
}
