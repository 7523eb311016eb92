//! Standard output, written fallibly.
//!
//! Every line a command prints goes through [`line`] (or the [`outln!`] macro): a write that
//! fails is a [`Failure`], never a panic. A closed pipe (`npyguard inspect --json big.npz |
//! head -1`) is [`Failure::Closed`]: the command stops and exits 0 without a message, as
//! Unix tools do; any other write error is an OS error (exit 2).

use std::fmt;
use std::io::{ErrorKind, Write};

use crate::input::Failure;

/// A name from a file (an archive member's) as text output shows it: control characters
/// (an escape sequence, a newline: a terminal would obey them, a reader would see a forged
/// line) escaped as Rust escapes them (`\u{1b}`, `\n`), everything else as it is. JSON
/// output escapes them itself.
pub fn shown(name: &str) -> std::borrow::Cow<'_, str> {
    if name.chars().any(char::is_control) {
        let escaped = name.chars().map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        });
        std::borrow::Cow::Owned(escaped.collect())
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

/// Writes one line to standard output.
pub fn line(args: fmt::Arguments) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_fmt(args)
        .and_then(|()| out.write_all(b"\n"))
        .map_err(write_failure)
}

/// Flushes standard output (a closed pipe is [`Failure::Closed`]).
pub fn flush() -> Result<(), Failure> {
    std::io::stdout().flush().map_err(write_failure)
}

/// A failed write to standard output as the failure it means.
pub fn write_failure(e: std::io::Error) -> Failure {
    if e.kind() == ErrorKind::BrokenPipe {
        Failure::Closed
    } else {
        Failure::Os(format!("cannot write to standard output: {e}"))
    }
}

/// `println!` that returns a [`Failure`] from the enclosing function instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::out::line(format_args!($($arg)*))?
    };
}
