//! Payload decoding, independent of how the bytes arrive.
//!
//! A [`PayloadDecoder`] is fed the payload in chunks of any size (one byte at
//! a time, or all at once) and produces the same result either way: partial
//! elements are carried between chunks. Storage grows only as bytes arrive, so
//! a header that claims more data than exists cannot force an allocation.
//!
//! ```
//! use npyguard::{PayloadDecoder, Header, Dtype, Endian, ArrayData};
//! let header = Header::new(Dtype::I16(Endian::Big), vec![2], false).unwrap();
//! let mut dec = PayloadDecoder::new(header);
//! for b in [0x01u8, 0x02, 0xff, 0xfe] {
//!     dec.feed(&[b]).unwrap();
//! }
//! let array = dec.finish().unwrap();
//! assert_eq!(array.data(), &ArrayData::I16(vec![0x0102, -2].into()));
//! ```

#[cfg(feature = "std")]
use std::io::{self, Read};

use crate::data::array::Array;
#[cfg(feature = "std")]
use crate::data::buffer::{Buffer, Direct};
#[cfg(feature = "std")]
use crate::data::codec::Unit;
#[cfg(feature = "std")]
use crate::data::element::Element;
#[cfg(feature = "std")]
use crate::data::storage::with_units;
use crate::data::storage::ArrayData;
use crate::error::{Error, ErrorKind, Result};
#[cfg(feature = "std")]
use crate::format::dtype::Endian;
use crate::format::header::Header;
use crate::limits::SPECULATIVE_BYTES;
use crate::prelude::*;
use alloc::collections::TryReserveError;

/// Where decoded elements go: the dynamic [`ArrayData`] or a typed [`Buffer<T>`].
pub(crate) trait Sink {
    /// Reserves room for `elements` more elements.
    fn reserve(&mut self, header: &Header, elements: usize);
    /// Makes room for `elements` more elements, or says the allocator refused: storage
    /// that grows as bytes arrive grows through this, so running out of memory is an
    /// [`ErrorKind::OutOfMemory`], never an abort.
    fn try_grow(
        &mut self,
        header: &Header,
        elements: usize,
    ) -> core::result::Result<(), TryReserveError>;
    /// Decodes whole elements from `bytes`; `offset` is the file offset of `bytes[0]`.
    fn push(&mut self, header: &Header, bytes: &[u8], offset: u64) -> Result<()>;

    #[cfg(feature = "std")]
    /// Reads `len` payload bytes from `r` straight into the sink's memory, when the
    /// sink's type allows it (a huge-page mapping when `len >= huge`); returns how many
    /// bytes arrived, or `None` when unsupported. Callers use it only after checking that
    /// the input holds the whole payload, and before anything was pushed.
    fn read_direct(
        &mut self,
        _header: &Header,
        _r: &mut dyn Read,
        _len: usize,
        _huge: usize,
    ) -> Option<io::Result<usize>> {
        None
    }
}

impl Sink for ArrayData {
    fn reserve(&mut self, header: &Header, elements: usize) {
        let per = crate::data::storage::units_per_element(header.dtype());
        self.reserve_units(elements.saturating_mul(per));
    }
    fn try_grow(
        &mut self,
        header: &Header,
        elements: usize,
    ) -> core::result::Result<(), TryReserveError> {
        let per = crate::data::storage::units_per_element(header.dtype());
        self.try_reserve_units(elements.saturating_mul(per))
    }
    fn push(&mut self, header: &Header, bytes: &[u8], offset: u64) -> Result<()> {
        self.push_bytes(header.dtype(), bytes, offset)
    }
    #[cfg(feature = "std")]
    fn read_direct(
        &mut self,
        header: &Header,
        r: &mut dyn Read,
        len: usize,
        huge: usize,
    ) -> Option<io::Result<usize>> {
        // Every family's bytes are its values (`U` code units too: NumPy does not check them).
        if self.units() > 0 {
            return None;
        }
        let foreign = header.dtype().endian().is_some_and(|e| e != Endian::HOST);
        with_units!(self, v => fill_fresh(v, Unit::direct(), foreign, r, len, huge))
    }
}

#[cfg(feature = "std")]
impl<T: Element> Sink for Buffer<T> {
    fn reserve(&mut self, _header: &Header, elements: usize) {
        self.vec_mut().reserve_exact(elements);
    }
    fn try_grow(
        &mut self,
        _header: &Header,
        elements: usize,
    ) -> core::result::Result<(), TryReserveError> {
        self.vec_mut().try_reserve(elements)
    }
    fn push(&mut self, header: &Header, bytes: &[u8], _offset: u64) -> Result<()> {
        let e = T::endian_of(header.dtype()).unwrap_or(Endian::Little);
        T::decode_into(bytes, e, self.vec_mut());
        Ok(())
    }
    fn read_direct(
        &mut self,
        header: &Header,
        r: &mut dyn Read,
        len: usize,
        huge: usize,
    ) -> Option<io::Result<usize>> {
        if !self.is_empty() {
            return None;
        }
        let foreign = T::endian_of(header.dtype()).is_some_and(|e| e != Endian::HOST);
        fill_fresh(self, T::direct(), foreign, r, len, huge)
    }
}

#[cfg(feature = "std")]
/// The payload's bytes as the file holds them (values in the file's byte order), for
/// callers that hand them to a runtime of their own (NumPy, DuckDB).
#[derive(Debug, Default)]
pub(crate) struct Raw(pub(crate) Buffer<u8>);

#[cfg(feature = "std")]
impl Sink for Raw {
    fn reserve(&mut self, header: &Header, elements: usize) {
        let bytes = elements.saturating_mul(header.dtype().itemsize());
        self.0.vec_mut().reserve_exact(bytes);
    }
    fn try_grow(
        &mut self,
        header: &Header,
        elements: usize,
    ) -> core::result::Result<(), TryReserveError> {
        let bytes = elements.saturating_mul(header.dtype().itemsize());
        self.0.vec_mut().try_reserve(bytes)
    }
    fn push(&mut self, _header: &Header, bytes: &[u8], _offset: u64) -> Result<()> {
        self.0.vec_mut().extend_from_slice(bytes);
        Ok(())
    }
    #[cfg(feature = "std")]
    fn read_direct(
        &mut self,
        _header: &Header,
        r: &mut dyn Read,
        len: usize,
        huge: usize,
    ) -> Option<io::Result<usize>> {
        if !self.0.is_empty() {
            return None;
        }
        fill_fresh(&mut self.0, <u8 as Element>::direct(), false, r, len, huge)
    }
}

#[cfg(feature = "std")]
/// Bytes read per step when the byte order is foreign, then swapped in place while they
/// are still in cache (the swap fused with the copy, without a staging buffer).
const SWAP_STEP: usize = 1 << 17;

#[cfg(feature = "std")]
/// Replaces `out` with `len / size` values read from `r` (a huge-page mapping when
/// `len >= huge`), swapping each step in place when `foreign`; `None` when the type has no
/// direct reading. Returns the bytes that arrived (`out` holds the whole values among them).
fn fill_fresh<T: Send>(
    out: &mut Buffer<T>,
    direct: Option<Direct<T>>,
    foreign: bool,
    r: &mut dyn Read,
    len: usize,
    huge: usize,
) -> Option<io::Result<usize>> {
    let d = direct?;
    let size = core::mem::size_of::<T>();
    let n = len.checked_div(size)?;
    *out = (d.fresh)(n, huge);
    let values = out.as_mut_slice();
    let step = SWAP_STEP.checked_div(size).unwrap_or(1).max(1);
    let swap = d.swap;
    let read = if !foreign {
        read_steps(values, d.bytes_mut, r, n.max(1), |_| {})
    } else if len < PARALLEL_SWAP_BYTES {
        read_steps(values, d.bytes_mut, r, step, swap)
    } else {
        // Large: this thread reads step after step while a second one swaps the steps
        // already read (each handed over whole, so the two never touch the same values).
        let step = PARALLEL_SWAP_STEP.checked_div(size).unwrap_or(1).max(1);
        std::thread::scope(|s| {
            let (tx, rx) = std::sync::mpsc::channel::<&mut [T]>();
            s.spawn(move || rx.into_iter().for_each(swap));
            read_steps(values, d.bytes_mut, r, step, |done| {
                // The swapper lives as long as the sender; it cannot have gone.
                let _ = tx.send(done);
            })
        })
    };
    Some(read.map(|(filled, whole)| {
        out.truncate(whole);
        filled
    }))
}

#[cfg(feature = "std")]
/// Foreign-order payloads of at least this many bytes are swapped on a second thread while
/// the next steps are read, in steps of [`PARALLEL_SWAP_STEP`] bytes (measured on 256 MiB
/// `>f8`: 0.84x the little-endian read's speed swapped in one thread, 0.89-0.90x so).
const PARALLEL_SWAP_BYTES: usize = 4 << 20;

#[cfg(feature = "std")]
/// Bytes per step when a second thread swaps (2 MiB: one huge page).
const PARALLEL_SWAP_STEP: usize = 2 << 20;

#[cfg(feature = "std")]
/// Reads `out` from `r` in steps of `step` values, handing each step's whole values to
/// `done` once read; stops at the end of the input. Returns the bytes that arrived and the
/// whole values among them.
fn read_steps<'a, T>(
    out: &'a mut [T],
    bytes_mut: fn(&mut [T]) -> &mut [u8],
    r: &mut dyn Read,
    step: usize,
    mut done: impl FnMut(&'a mut [T]),
) -> io::Result<(usize, usize)> {
    let size = core::mem::size_of::<T>();
    let mut filled = 0usize;
    let mut whole = 0usize;
    for values in out.chunks_mut(step) {
        let bytes = bytes_mut(values);
        let want = bytes.len();
        let got = read_up_to(r, bytes)?;
        filled = filled.saturating_add(got);
        let arrived = got.checked_div(size).unwrap_or(0);
        whole = whole.saturating_add(arrived);
        let (read, _) = values.split_at_mut(arrived.min(values.len()));
        done(read);
        if got < want {
            break;
        }
    }
    Ok((filled, whole))
}

#[cfg(feature = "std")]
/// Fills `bytes` from `r` as far as the input goes; returns the bytes read.
fn read_up_to(r: &mut dyn Read, bytes: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0usize;
    while let Some(rest) = bytes.get_mut(filled..) {
        if rest.is_empty() {
            break;
        }
        match r.read(rest) {
            Ok(0) => break,
            Ok(k) => filled = filled.saturating_add(k),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(feature = "std")]
/// Reads `len` payload bytes into `vec[start..]` (growing or shrinking `vec` to fit exactly).
fn read_direct_at<T: Element>(
    vec: &mut Vec<T>,
    start: usize,
    header: &Header,
    r: &mut dyn Read,
    len: usize,
) -> Option<io::Result<usize>> {
    let n = len.checked_div(T::SIZE)?;
    // Probe support before touching the buffer.
    let d = T::direct()?;
    if start == 0 && vec.len() < n {
        // A zeroed allocation comes straight from the OS (calloc): no clearing pass
        // before the read overwrites it, exactly as `std::fs::read` costs.
        *vec = vec![T::default(); n];
    } else {
        vec.truncate(start.saturating_add(n));
        vec.resize(start.saturating_add(n), T::default());
    }
    // The fresh reads' mechanism: one read when the order is the host's, otherwise cache-
    // sized steps each swapped in place while they are still in cache.
    let foreign = T::endian_of(header.dtype()).is_some_and(|e| e != Endian::HOST);
    let step = if foreign {
        SWAP_STEP.checked_div(T::SIZE).unwrap_or(1).max(1)
    } else {
        n.max(1)
    };
    let swap = if foreign { d.swap } else { |_: &mut [T]| {} };
    let region = vec.get_mut(start..)?;
    let (filled, whole) = match read_steps(region, d.bytes_mut, r, step, swap) {
        Ok(read) => read,
        Err(e) => return Some(Err(e)),
    };
    vec.truncate(start.saturating_add(whole));
    Some(Ok(filled))
}

#[cfg(feature = "std")]
/// A caller's buffer being reused: its old values are overwritten in place (no clearing
/// pass) when the payload is read straight into it, and dropped before anything else.
#[derive(Debug)]
pub(crate) struct Reused<T> {
    pub(crate) vec: Vec<T>,
    stale: bool,
}

#[cfg(feature = "std")]
impl<T> Reused<T> {
    pub(crate) fn new(vec: Vec<T>) -> Reused<T> {
        Reused { vec, stale: true }
    }

    fn fresh(&mut self) -> &mut Vec<T> {
        if self.stale {
            self.vec.clear();
            self.stale = false;
        }
        &mut self.vec
    }
}

#[cfg(feature = "std")]
impl<T: Element> Sink for Reused<T> {
    fn reserve(&mut self, _header: &Header, elements: usize) {
        let have = if self.stale { 0 } else { self.vec.len() };
        let want = have.saturating_add(elements);
        if want > self.vec.capacity() {
            let more = want.saturating_sub(self.vec.len());
            self.vec.reserve_exact(more);
        }
    }
    fn try_grow(
        &mut self,
        _header: &Header,
        elements: usize,
    ) -> core::result::Result<(), TryReserveError> {
        self.fresh().try_reserve(elements)
    }
    fn push(&mut self, header: &Header, bytes: &[u8], _offset: u64) -> Result<()> {
        let e = T::endian_of(header.dtype()).unwrap_or(Endian::Little);
        T::decode_into(bytes, e, self.fresh());
        Ok(())
    }
    fn read_direct(
        &mut self,
        header: &Header,
        r: &mut dyn Read,
        len: usize,
        _huge: usize,
    ) -> Option<io::Result<usize>> {
        T::bytes_mut(&mut [])?;
        let start = if self.stale { 0 } else { self.vec.len() };
        // `None` (e.g. a foreign byte order) leaves the buffer untouched and the caller falls
        // back to `push`, which must still clear the stale values: mark it fresh only after.
        let read = read_direct_at(&mut self.vec, start, header, r, len)?;
        self.stale = false;
        Some(read)
    }
}

/// Incremental decoder of one array's payload into the dynamic [`ArrayData`].
///
/// Whatever the chunking of the input, the result is the same; storage grows as
/// bytes arrive (nothing is reserved for bytes that have not been seen unless
/// [`reserve_all`](PayloadDecoder::reserve_all) is called).
///
/// ```
/// use npyguard::{write, NpyArray, PayloadDecoder, Header, ReadOptions};
/// let bytes = write::to_vec(&NpyArray::from_vec(vec![1u16, 2, 3], vec![3]).unwrap().to_array()).unwrap();
/// let header = Header::from_bytes(&bytes, &ReadOptions::default()).unwrap();
/// let payload = &bytes[header.payload_offset() as usize..];
/// let mut dec = PayloadDecoder::new(header);
/// for byte in payload.chunks(1) {
///     dec.feed(byte).unwrap();
/// }
/// assert!(dec.is_complete());
/// assert_eq!(dec.finish().unwrap().len(), 3);
/// ```
#[derive(Debug)]
pub struct PayloadDecoder(Decoder<ArrayData>);

impl PayloadDecoder {
    /// A decoder for the payload described by `header`.
    ///
    /// Nothing is reserved; use [`reserve_all`](PayloadDecoder::reserve_all) once
    /// the input is known to hold the whole payload.
    pub fn new(header: Header) -> PayloadDecoder {
        let sink = ArrayData::with_capacity(header.dtype(), 0);
        PayloadDecoder(Decoder::with_sink(header, sink))
    }

    /// Reserves room for the whole payload at once (call only when the input is
    /// known to hold that many bytes, e.g. after checking a file's length).
    pub fn reserve_all(&mut self) {
        self.0.reserve_all();
    }

    /// Payload bytes still expected.
    pub fn remaining(&self) -> usize {
        self.0.remaining()
    }

    /// Whether every payload byte has been fed.
    pub fn is_complete(&self) -> bool {
        self.0.is_complete()
    }

    /// Feeds the next bytes of the payload and returns how many were used
    /// (fewer than `chunk.len()` only when the payload is complete).
    pub fn feed(&mut self, chunk: &[u8]) -> Result<usize> {
        self.0.feed(chunk)
    }

    /// File offset just past the last byte fed.
    pub fn offset(&self) -> u64 {
        self.0.offset()
    }

    /// Finishes decoding: an error if any payload byte is missing.
    pub fn finish(self) -> Result<Array> {
        self.0.check_complete()?;
        let (header, data) = self.0.into_parts();
        Ok(Array::from_parts(header, data))
    }
}

/// The decoder behind [`PayloadDecoder`] and the typed readers, generic over where
/// the values go.
#[derive(Debug)]
pub(crate) struct Decoder<S> {
    header: Header,
    sink: S,
    itemsize: usize,
    /// Payload bytes still expected.
    remaining: usize,
    /// A partial element carried over from the previous chunk.
    carry: Vec<u8>,
    /// File offset of the next byte.
    offset: u64,
}

impl<S: Sink> Decoder<S> {
    pub(crate) fn with_sink(header: Header, sink: S) -> Decoder<S> {
        let itemsize = header.dtype().itemsize();
        let remaining = header.payload_len();
        let offset = header.payload_offset();
        let mut dec = Decoder {
            header,
            sink,
            itemsize,
            remaining,
            carry: Vec::new(),
            offset,
        };
        let speculative = SPECULATIVE_BYTES.checked_div(dec.itemsize).unwrap_or(0);
        let first = dec.header.element_count().min(speculative);
        if dec.remaining > 0 {
            dec.sink.reserve(&dec.header, first);
        }
        dec
    }

    /// Reserves room for the whole payload at once (call only when the input is
    /// known to hold that many bytes, e.g. after checking a file's length).
    pub(crate) fn reserve_all(&mut self) {
        let n = self.header.element_count();
        self.sink.reserve(&self.header, n);
    }

    /// Payload bytes still expected.
    pub(crate) fn remaining(&self) -> usize {
        self.remaining
    }

    /// Whether every payload byte has been fed.
    pub(crate) fn is_complete(&self) -> bool {
        self.remaining == 0
    }

    /// Feeds the next bytes of the payload and returns how many were used
    /// (fewer than `chunk.len()` only when the payload is complete).
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<usize> {
        let take = chunk.len().min(self.remaining);
        let mut data = chunk.get(..take).unwrap_or_default();
        if self.itemsize == 0 {
            return Ok(0);
        }
        // Complete a carried partial element first.
        if !self.carry.is_empty() {
            let need = self.itemsize.saturating_sub(self.carry.len());
            let (head, rest) = data.split_at(need.min(data.len()));
            self.carry.extend_from_slice(head);
            data = rest;
            if self.carry.len() == self.itemsize {
                let at = self
                    .offset
                    .saturating_sub((self.itemsize.saturating_sub(head.len())) as u64);
                let carry = core::mem::take(&mut self.carry);
                self.sink.push(&self.header, &carry, at)?;
            }
            self.offset = self.offset.saturating_add(head.len() as u64);
        }
        let whole = data
            .len()
            .saturating_sub(data.len().checked_rem(self.itemsize).unwrap_or(0));
        let (body, tail) = data.split_at(whole);
        let elements = whole.checked_div(self.itemsize).unwrap_or(0);
        if let Err(refused) = self.sink.try_grow(&self.header, elements) {
            return Err(out_of_memory(self.offset, refused));
        }
        if !body.is_empty() {
            self.sink.push(&self.header, body, self.offset)?;
            self.offset = self.offset.saturating_add(body.len() as u64);
        }
        self.carry.extend_from_slice(tail);
        self.offset = self.offset.saturating_add(tail.len() as u64);
        self.remaining = self.remaining.saturating_sub(take);
        Ok(take)
    }

    #[cfg(feature = "std")]
    /// Reads the whole remaining payload from `r` straight into the sink when it supports
    /// that (typed numeric buffers with feature `bytemuck`); returns false when unsupported.
    pub(crate) fn read_direct(&mut self, r: &mut dyn Read, huge: usize) -> Result<bool> {
        if !self.carry.is_empty() {
            return Ok(false);
        }
        let len = self.remaining;
        match self.sink.read_direct(&self.header, r, len, huge) {
            None => Ok(false),
            Some(Err(e)) => Err(Error::io(self.offset, e)),
            Some(Ok(n)) => {
                self.remaining = self.remaining.saturating_sub(n);
                self.offset = self.offset.saturating_add(n as u64);
                Ok(true)
            }
        }
    }

    pub(crate) fn check_complete(&self) -> Result<()> {
        if self.remaining > 0 {
            return Err(Error::new(
                ErrorKind::Truncated,
                self.offset,
                format!("{} more payload bytes", self.remaining),
            )
            .found("end of input"));
        }
        Ok(())
    }

    /// File offset just past the last byte fed.
    pub(crate) fn offset(&self) -> u64 {
        self.offset
    }

    /// Sets the file offset of the next byte (for a part of a payload read on its own).
    #[cfg_attr(not(feature = "std"), allow(dead_code))] // used by the std readers and writers
    pub(crate) fn set_offset(&mut self, offset: u64) {
        self.offset = offset;
    }

    pub(crate) fn into_parts(self) -> (Header, S) {
        (self.header, self.sink)
    }
}

/// [`ErrorKind::OutOfMemory`] at `offset`: the allocator refused to grow the payload's storage.
fn out_of_memory(offset: u64, refused: TryReserveError) -> Error {
    Error::new(
        ErrorKind::OutOfMemory,
        offset,
        "memory for the payload read so far and the next bytes (a limit such as max_file_bytes bounds it)",
    )
    .found(format!("the allocator refused ({refused})"))
}
