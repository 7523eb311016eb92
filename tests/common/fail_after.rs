//! A test storage for `write::Appender`: accepts `budget` more bytes and then fails. Used by
//! tests/library/append.rs and the `append` fuzz harness (fuzz/harness/append.rs).

use std::io::{Cursor, Read, Seek, SeekFrom, Write};

use npyguard::write::Storage;

/// An in-memory storage that accepts `budget` more bytes and then fails. A write inside one
/// 512-byte sector is all or nothing (the storage model the appender documents); any other
/// write is torn at byte granularity. Shared with `tests/library/append.rs`.
pub struct FailAfter {
    /// The bytes written so far.
    pub inner: Cursor<Vec<u8>>,
    /// Bytes still accepted.
    pub budget: usize,
}

impl Read for FailAfter {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf)
    }
}

impl Seek for FailAfter {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}

impl Write for FailAfter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let at = self.inner.position();
        let last = at + buf.len() as u64 - 1;
        if self.budget == 0 || (at / 512 == last / 512 && buf.len() > self.budget) {
            return Err(std::io::Error::other("injected failure"));
        }
        let n = buf.len().min(self.budget);
        self.budget -= n;
        self.inner.write(&buf[..n])
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Storage for FailAfter {
    fn sync(&mut self) -> std::io::Result<()> {
        Ok(())
    }
    fn truncate(&mut self, len: u64) -> std::io::Result<()> {
        self.inner.get_mut().truncate(len as usize);
        Ok(())
    }
}
