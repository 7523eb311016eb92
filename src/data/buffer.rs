//! [`Buffer`]: the memory an array's values live in.
//!
//! Small payloads live in a `Vec`. A large payload read straight from a file (one of at
//! least [`ReadOptions::huge_page_threshold`](crate::ReadOptions::huge_page_threshold)
//! bytes, 4 MiB by default, NumPy's own threshold) lives in an anonymous memory mapping
//! advised to use transparent huge pages, as NumPy's allocator does for its arrays (feature
//! `hugepages`, on by default; Linux honours the advice, other systems map ordinary pages).
//! Filling 256 MiB of 4 KiB pages costs 65 536 page faults; 2 MiB pages need 128, which is
//! most of the difference between `std::fs::read` and `np.load` (see BENCHMARKS.md).
//!
//! The mapping comes from `memmap2`'s safe API and is read as values through `bytemuck`'s
//! checked casts, so the library stays free of `unsafe`. Either way a `Buffer<T>`
//! dereferences to `[T]`; [`Buffer::into_vec`] moves a `Vec` out and copies a mapping.
//!
//! ```
//! use npyguard::Buffer;
//! let b: Buffer<u16> = vec![1, 2, 3].into();
//! assert_eq!(&b[..], &[1, 2, 3]);
//! assert_eq!(b.iter().sum::<u16>(), 6);
//! assert!(!b.is_mapped());
//! assert_eq!(b.into_vec(), vec![1, 2, 3]);
//! ```

use crate::prelude::*;
use core::fmt;
use core::ops::{Deref, DerefMut};

/// Values in memory: a `Vec<T>`, or (for large payloads read from files, feature
/// `hugepages`) an anonymous huge-page mapping. Dereferences to `[T]` either way.
pub struct Buffer<T> {
    heap: Vec<T>,
    /// When present, the values (and `heap` is empty).
    #[cfg(all(feature = "hugepages", not(miri)))]
    mapped: Option<mapped::Mapped<T>>,
}

impl<T> Buffer<T> {
    /// An empty buffer (no allocation).
    pub const fn new() -> Buffer<T> {
        Buffer::heap(Vec::new())
    }

    const fn heap(heap: Vec<T>) -> Buffer<T> {
        Buffer {
            heap,
            #[cfg(all(feature = "hugepages", not(miri)))]
            mapped: None,
        }
    }

    /// The values.
    pub fn as_slice(&self) -> &[T] {
        #[cfg(all(feature = "hugepages", not(miri)))]
        if let Some(m) = &self.mapped {
            return m.as_slice();
        }
        &self.heap
    }

    /// The values, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        #[cfg(all(feature = "hugepages", not(miri)))]
        if let Some(m) = &mut self.mapped {
            return m.as_mut_slice();
        }
        &mut self.heap
    }

    /// Whether the values live in an anonymous (huge-page) mapping rather than a `Vec`.
    pub fn is_mapped(&self) -> bool {
        #[cfg(all(feature = "hugepages", not(miri)))]
        return self.mapped.is_some();
        #[cfg(not(all(feature = "hugepages", not(miri))))]
        false
    }

    /// Shortens the buffer to `len` values (no effect when it is not longer).
    #[cfg_attr(not(feature = "std"), allow(dead_code))] // used by the std readers and writers
    pub(crate) fn truncate(&mut self, len: usize) {
        #[cfg(all(feature = "hugepages", not(miri)))]
        if let Some(m) = &mut self.mapped {
            m.truncate(len);
        }
        self.heap.truncate(len);
    }

    /// The mapping's memory, shared as `bytes::Bytes` without a copy (for Arrow), or the
    /// buffer back when it is a `Vec`.
    #[cfg(feature = "arrow")]
    #[cfg_attr(not(all(feature = "hugepages", not(miri))), allow(unused_mut))]
    pub(crate) fn into_mapped_bytes(mut self) -> Result<bytes::Bytes, Buffer<T>> {
        #[cfg(all(feature = "hugepages", not(miri)))]
        if let Some(m) = self.mapped.take() {
            return Ok(m.into_bytes());
        }
        Err(self)
    }
}

impl<T: Clone> Buffer<T> {
    /// The values as a `Vec`: moved out of a `Vec`, copied out of a mapping.
    pub fn into_vec(self) -> Vec<T> {
        #[cfg(all(feature = "hugepages", not(miri)))]
        if let Some(m) = &self.mapped {
            return m.as_slice().to_vec();
        }
        self.heap
    }

    /// The `Vec` behind the buffer, for growing it (a mapping is copied into one first;
    /// readers only map payloads they fill completely, so growth never meets one).
    pub(crate) fn vec_mut(&mut self) -> &mut Vec<T> {
        #[cfg(all(feature = "hugepages", not(miri)))]
        if let Some(m) = self.mapped.take() {
            self.heap = m.as_slice().to_vec();
        }
        &mut self.heap
    }
}

#[cfg(feature = "bytemuck")]
impl<T: bytemuck::Pod> Buffer<T> {
    /// `n` zero values; in a huge-page mapping when they take at least `threshold` bytes
    /// (and the mapping can be made), else in a `Vec` from the allocator's zeroed memory.
    pub(crate) fn zeroed(n: usize, threshold: usize) -> Buffer<T> {
        #[cfg(all(feature = "hugepages", not(miri)))]
        if n.saturating_mul(core::mem::size_of::<T>()) >= threshold.max(1) {
            if let Some(m) = mapped::Mapped::zeroed(n) {
                return Buffer {
                    heap: Vec::new(),
                    mapped: Some(m),
                };
            }
        }
        let _ = threshold;
        Buffer::heap(vec![T::zeroed(); n])
    }
}

impl<T> Default for Buffer<T> {
    fn default() -> Buffer<T> {
        Buffer::new()
    }
}

impl<T> Deref for Buffer<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> DerefMut for Buffer<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T> From<Vec<T>> for Buffer<T> {
    fn from(v: Vec<T>) -> Buffer<T> {
        Buffer::heap(v)
    }
}

impl<T: Clone> From<Buffer<T>> for Vec<T> {
    fn from(b: Buffer<T>) -> Vec<T> {
        b.into_vec()
    }
}

impl<T> FromIterator<T> for Buffer<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Buffer<T> {
        Buffer::heap(iter.into_iter().collect())
    }
}

impl<'a, T> IntoIterator for &'a Buffer<T> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// A clone is a `Vec` (a mapping's values are copied into one).
impl<T: Clone> Clone for Buffer<T> {
    fn clone(&self) -> Buffer<T> {
        Buffer::heap(self.as_slice().to_vec())
    }
}

impl<T: fmt::Debug> fmt::Debug for Buffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(f)
    }
}

/// Buffers are equal when their values are (wherever they live).
impl<T: PartialEq<U>, U> PartialEq<Buffer<U>> for Buffer<T> {
    fn eq(&self, other: &Buffer<U>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: PartialEq<U>, U> PartialEq<Vec<U>> for Buffer<T> {
    fn eq(&self, other: &Vec<U>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: PartialEq<U>, U> PartialEq<Buffer<U>> for Vec<T> {
    fn eq(&self, other: &Buffer<U>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: PartialEq<U>, U> PartialEq<[U]> for Buffer<T> {
    fn eq(&self, other: &[U]) -> bool {
        self.as_slice() == other
    }
}

impl<T: PartialEq<U>, U, const N: usize> PartialEq<[U; N]> for Buffer<T> {
    fn eq(&self, other: &[U; N]) -> bool {
        self.as_slice() == other
    }
}

impl<T: Eq> Eq for Buffer<T> {}

#[cfg(all(feature = "hugepages", not(miri)))]
mod mapped {
    //! The anonymous mapping behind a large [`Buffer`](super::Buffer), seen as values
    //! through `bytemuck`'s checked casts (a page-aligned mapping of exactly `n` values
    //! always casts; the check is made once, when the mapping is created).

    /// `n` values of `T` in an anonymous mapping.
    pub(super) struct Mapped<T> {
        map: memmap2::MmapMut,
        len: usize,
        view: fn(&[u8]) -> &[T],
        view_mut: fn(&mut [u8]) -> &mut [T],
    }

    fn view<T: bytemuck::Pod>(b: &[u8]) -> &[T] {
        bytemuck::try_cast_slice(b).unwrap_or_default()
    }

    fn view_mut<T: bytemuck::Pod>(b: &mut [u8]) -> &mut [T] {
        bytemuck::try_cast_slice_mut(b).unwrap_or_default()
    }

    impl<T: bytemuck::Pod> Mapped<T> {
        /// A zero-filled mapping of `n` values (`None` when `n` is 0, the size overflows, the
        /// system refuses the mapping, or it would not cast, which a page-aligned one does).
        pub(super) fn zeroed(n: usize) -> Option<Mapped<T>> {
            let bytes = n.checked_mul(core::mem::size_of::<T>())?;
            if bytes == 0 {
                return None;
            }
            let mut map = memmap2::MmapOptions::new().len(bytes).map_anon().ok()?;
            // Advice only: a system without transparent huge pages maps ordinary ones.
            #[cfg(target_os = "linux")]
            let _ = map.advise(memmap2::Advice::HugePage);
            let values: &mut [T] = bytemuck::try_cast_slice_mut(&mut map[..]).ok()?;
            if values.len() != n {
                return None;
            }
            Some(Mapped {
                map,
                len: n,
                view: view::<T>,
                view_mut: view_mut::<T>,
            })
        }
    }

    impl<T> Mapped<T> {
        fn byte_len(&self) -> usize {
            self.len.saturating_mul(core::mem::size_of::<T>())
        }

        pub(super) fn as_slice(&self) -> &[T] {
            (self.view)(self.map.get(..self.byte_len()).unwrap_or_default())
        }

        pub(super) fn as_mut_slice(&mut self) -> &mut [T] {
            let end = self.byte_len();
            (self.view_mut)(self.map.get_mut(..end).unwrap_or_default())
        }

        pub(super) fn truncate(&mut self, len: usize) {
            self.len = self.len.min(len);
        }

        #[cfg(feature = "arrow")]
        pub(super) fn into_bytes(self) -> bytes::Bytes {
            let end = self.byte_len();
            bytes::Bytes::from_owner(self.map).slice(..end)
        }
    }
}

/// How a unit type is read straight from bytes into a fresh [`Buffer`]: a zeroed buffer
/// (huge pages from a threshold on), its memory as bytes, and its byte swap. Only types
/// whose every bit pattern is a value have one (feature `bytemuck`).
#[cfg_attr(not(feature = "std"), allow(dead_code))] // used by the std readers and writers
pub(crate) struct Direct<T> {
    /// `n` zero values; a huge-page mapping when they take at least the given bytes.
    pub(crate) fresh: fn(usize, usize) -> Buffer<T>,
    /// The values' memory as bytes.
    pub(crate) bytes_mut: fn(&mut [T]) -> &mut [u8],
    /// Reverses the byte order of every value in place.
    pub(crate) swap: fn(&mut [T]),
}

#[cfg(feature = "bytemuck")]
impl<T: bytemuck::Pod> Direct<T> {
    /// The reading of a plain-old-data type whose byte swap is `swap`.
    pub(crate) fn pod(swap: fn(&mut [T])) -> Direct<T> {
        Direct {
            fresh: Buffer::zeroed,
            bytes_mut: bytemuck::cast_slice_mut,
            swap,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer of `n` values that lives in a mapping where the build has them.
    #[cfg(feature = "bytemuck")]
    fn mapped_if_possible(n: usize) -> Buffer<u32> {
        let b = Buffer::<u32>::zeroed(n, 1);
        #[cfg(all(feature = "hugepages", not(miri)))]
        assert!(b.is_mapped(), "a threshold of 1 byte maps");
        b
    }

    #[test]
    fn heap_buffer_behaves_as_its_vec() {
        let b: Buffer<i16> = (1..=4).collect();
        assert!(!b.is_mapped());
        assert_eq!(format!("{b:?}"), format!("{:?}", vec![1i16, 2, 3, 4]));
        assert_eq!((&b).into_iter().copied().sum::<i16>(), 10);
        assert!(
            b == vec![1i16, 2, 3, 4] && b == [1i16, 2, 3, 4] && b == *[1i16, 2, 3, 4].as_slice()
        );
        assert!(b != vec![1i16, 2, 3]);
        assert_eq!(b.clone(), b);
        assert_eq!(Vec::from(b), vec![1, 2, 3, 4]);
        assert!(Buffer::<u8>::default().is_empty());
    }

    #[cfg(feature = "bytemuck")]
    #[test]
    fn mapped_buffer_behaves_as_a_vec() {
        let mut b = mapped_if_possible(1000);
        assert!(b.iter().all(|&v| v == 0));
        for (i, v) in b.as_mut_slice().iter_mut().enumerate() {
            *v = u32::try_from(i).unwrap();
        }
        let expected: Vec<u32> = (0..1000).collect();
        assert_eq!(b, expected);
        let c = b.clone();
        assert!(!c.is_mapped(), "a clone is a Vec");
        assert_eq!(c, b);
        assert_eq!(format!("{b:?}"), format!("{expected:?}"));
        b.truncate(10);
        assert_eq!(b.len(), 10);
        b.truncate(20);
        assert_eq!(b, expected[..10]);
        assert_eq!(Vec::from(b), expected[..10].to_vec());
    }

    #[cfg(feature = "bytemuck")]
    #[test]
    fn vec_mut_moves_a_mapping_to_the_heap() {
        let mut b = mapped_if_possible(64);
        b.as_mut_slice().fill(7);
        b.vec_mut().push(8);
        assert!(!b.is_mapped());
        assert_eq!(b.len(), 65);
        assert_eq!(b.last(), Some(&8));
        assert!(b.iter().take(64).all(|&v| v == 7));
    }

    #[cfg(feature = "arrow")]
    #[test]
    fn mapped_bytes_are_shared_and_a_vec_is_handed_back() {
        let mut b = mapped_if_possible(256);
        b.as_mut_slice().fill(0x0102_0304);
        b.truncate(100);
        match b.into_mapped_bytes() {
            Ok(bytes) => {
                assert_eq!(bytes.len(), 400);
                assert_eq!(bytes.get(..4), Some(&0x0102_0304u32.to_ne_bytes()[..]));
            }
            Err(back) => {
                assert!(
                    !cfg!(all(feature = "hugepages", not(miri))),
                    "a mapping is shared"
                );
                assert_eq!(back.len(), 100);
            }
        }
        let heap: Buffer<u32> = vec![1, 2].into();
        assert_eq!(
            heap.into_mapped_bytes().map_err(|b| b.into_vec()),
            Err(vec![1, 2])
        );
    }
}
