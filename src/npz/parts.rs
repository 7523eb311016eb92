//! Parts of members without reading them whole: a stored member viewed in place over the
//! archive's bytes ([`NpzArchive::view`]), any member streamed as row chunks through the
//! archive's limits, its sizes and its CRC ([`NpzArchive::row_chunks`]).

use std::io::{Read, Seek};

use crate::data::array::Array;
use crate::error::{Error, ErrorKind, Result};
use crate::format::header::Header;
use crate::io::opened::Opened;
use crate::io::rows::RowChunks;
use crate::io::view::View;
use crate::npz::archive::NpzArchive;
use crate::npz::member::Compression;
use crate::npz::stream::{declared_size_error, Guard};

impl<R: Read + Seek> NpzArchive<R> {
    /// Member `name` (its key or full name) viewed in place in `bytes`, which must be the
    /// archive this was opened on (e.g. `NpzArchive::new(Cursor::new(bytes), ..)`, or a
    /// memory map of its file). The member must be [`Stored`](Compression::Stored)
    /// (`np.savez`); its declared size is checked against the archive's limits, its CRC
    /// against the bytes, and the `.npy` inside as [`View::new`] checks it. Nothing is
    /// copied or decompressed; the archive's running total is not charged (a view holds
    /// no decompressed bytes).
    ///
    /// ```
    /// use npyguard::{npz, ArrayView, NpyArray, ReadOptions};
    /// use std::io::Cursor;
    /// let a = NpyArray::from_vec(vec![1.5f64, 2.5], vec![2]).unwrap().to_array();
    /// let zip = npz::savez(Cursor::new(Vec::new()), &[("x", &a)]).unwrap().into_inner();
    /// let archive = npz::NpzArchive::new(Cursor::new(&zip), &ReadOptions::default()).unwrap();
    /// let view = archive.view(&zip, "x").unwrap();
    /// assert_eq!(view.typed::<f64>().unwrap().to_vec(), [1.5, 2.5]);
    /// ```
    pub fn view<'a>(&self, bytes: &'a [u8], name: &str) -> Result<View<'a>> {
        let member = self.member_at(self.index_of(name)?)?;
        if member.compression() != Compression::Stored {
            return Err(Error::unplaced(
                ErrorKind::InvalidInput,
                "a stored member for a view (a compressed member streams: NpzArchive::row_chunks)",
            )
            .found(format!("{} is deflated", member.name())));
        }
        if let Some(e) = declared_size_error(member, &self.limits(), self.decoded) {
            return Err(e.in_member(member.name()));
        }
        let range = member.data_range();
        let data = usize::try_from(range.start)
            .ok()
            .zip(usize::try_from(range.end).ok())
            .and_then(|(s, e)| bytes.get(s..e))
            .ok_or_else(|| {
                Error::unplaced(
                    ErrorKind::InvalidInput,
                    format!("the bytes of the archive this was opened on (a member at {range:?})"),
                )
                .found(format!("{} bytes", bytes.len()))
            })?;
        check_stored(member.size(), member.crc32(), data)
            .map_err(|e| e.in_member(member.name()))?;
        View::new(data, &self.opts).map_err(|e| e.in_member(member.name()))
    }

    /// Member `name` as consecutive chunks of `rows_per_chunk` rows
    /// ([`RowChunks`](crate::RowChunks) over the member's decompressed bytes): memory is one
    /// chunk, whatever the member's size. The archive's limits apply as the bytes arrive;
    /// after the last chunk the member's size and CRC are checked (an error then is the
    /// iterator's last item).
    ///
    /// ```
    /// use npyguard::{npz, ArrayData, NpyArray, ReadOptions};
    /// use std::io::Cursor;
    /// let a = NpyArray::from_vec((0..10i16).collect(), vec![5, 2]).unwrap().to_array();
    /// let zip = npz::savez_compressed(Cursor::new(Vec::new()), &[("m", &a)]).unwrap().into_inner();
    /// let mut archive = npz::NpzArchive::new(Cursor::new(zip), &ReadOptions::default()).unwrap();
    /// let chunks = archive.row_chunks("m", 2).unwrap();
    /// assert_eq!(chunks.header().shape(), &[5, 2]);
    /// let parts: Vec<_> = chunks.collect::<Result<_, _>>().unwrap();
    /// assert_eq!(parts.len(), 3);
    /// assert_eq!(parts[2].data(), &ArrayData::I16(vec![8, 9].into()));
    /// ```
    pub fn row_chunks(&mut self, name: &str, rows_per_chunk: usize) -> Result<MemberChunks<'_, R>> {
        let index = self.index_of(name)?;
        let member = self.member_at(index)?.clone();
        let limits = self.limits();
        let name = member.name().to_string();
        let mut guard = Guard::open(&mut self.reader, member, limits)?;
        // The header is read through the borrowed guard, so that a refusal keeps the
        // guard's typed error (a limit, a bad deflate stream) instead of the I/O error the
        // reader saw.
        let header = match Opened::stream(&mut guard, &self.opts) {
            Ok(opened) => opened.into_parts().0,
            Err(e) => {
                self.decoded = self.decoded.saturating_add(guard.decoded);
                return Err(guard.failure.take().unwrap_or(e).in_member(&name));
            }
        };
        Ok(MemberChunks {
            chunks: Opened::reunited(guard, header, &self.opts).into_chunks(rows_per_chunk),
            total: &mut self.decoded,
            name,
            done: false,
        })
    }
}

/// The row chunks of one member (see [`NpzArchive::row_chunks`]).
pub struct MemberChunks<'a, R: Read> {
    chunks: RowChunks<Guard<'a, R>>,
    /// The archive's running total of decompressed bytes, charged when the member ends.
    total: &'a mut u64,
    name: String,
    done: bool,
}

impl<R: Read> std::fmt::Debug for MemberChunks<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemberChunks")
            .field("member", &self.name)
            .field("header", self.chunks.header())
            .field("done", &self.done)
            .finish()
    }
}

impl<R: Read> MemberChunks<'_, R> {
    /// The member's header.
    pub fn header(&self) -> &Header {
        self.chunks.header()
    }

    /// The same chunks with `rows_per_chunk` rows each (at least 1), for a size chosen after
    /// seeing the [`header`](MemberChunks::header).
    #[must_use]
    pub fn with_rows_per_chunk(mut self, rows_per_chunk: usize) -> Self {
        self.chunks.set_rows_per_chunk(rows_per_chunk);
        self
    }
}

impl<R: Read> Iterator for MemberChunks<'_, R> {
    type Item = Result<Array>;

    fn next(&mut self) -> Option<Result<Array>> {
        if self.done {
            return None;
        }
        let failed = match self.chunks.next() {
            Some(Ok(a)) => return Some(Ok(a)),
            Some(Err(e)) => Some(e),
            None => None,
        };
        self.done = true;
        let guard = self.chunks.reader_mut();
        let result = match failed {
            // The member ended: its size and CRC are checked (the guard reads what is left).
            None => guard.finish().err(),
            // A limit or a bad deflate stream surfaces as an I/O error of the reader: the
            // guard holds the typed error.
            Some(e) => Some(guard.failure.take().unwrap_or(e)),
        };
        *self.total = self.total.saturating_add(guard.decoded);
        result.map(|e| Err(e.in_member(&self.name)))
    }
}

impl<R: Read> Drop for MemberChunks<'_, R> {
    /// A member left before its end still charges what was decompressed of it.
    fn drop(&mut self) {
        if !self.done {
            *self.total = self.total.saturating_add(self.chunks.reader_mut().decoded);
        }
    }
}

/// A stored member's bytes against its declared size and CRC.
fn check_stored(size: u64, crc32: u32, data: &[u8]) -> Result<()> {
    if data.len() as u64 != size {
        return Err(Error::unplaced(
            ErrorKind::SizeMismatch,
            format!("{size} stored bytes (the member's declared size)"),
        )
        .found(format!("{} bytes", data.len())));
    }
    let crc = crc32fast::hash(data);
    if crc != crc32 {
        return Err(Error::new(
            ErrorKind::CrcMismatch,
            size,
            format!("stored bytes with CRC-32 {crc32:08x} (the member's declared CRC)"),
        )
        .found(format!("CRC-32 {crc:08x}")));
    }
    Ok(())
}
