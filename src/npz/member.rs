//! [`Member`]: one entry of an archive's central directory, and how its bytes are stored.

/// The suffix NumPy adds to each array's key to name its member.
pub(crate) const NPY_SUFFIX: &str = ".npy";

/// How a member's bytes are stored in the archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Compression {
    /// Method 0: the bytes as they are (`np.savez`).
    Stored,
    /// Method 8: deflate (`np.savez_compressed`).
    Deflated,
}

/// One member of an archive, as its central directory describes it (and its local header agrees).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub(crate) name: String,
    pub(crate) compression: Compression,
    pub(crate) compressed_size: u64,
    pub(crate) size: u64,
    pub(crate) crc32: u32,
    pub(crate) header_start: u64,
    pub(crate) data_start: u64,
}

impl Member {
    /// The member's full name, e.g. `x.npy`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the name ends in `.npy`.
    pub fn is_npy(&self) -> bool {
        self.name.ends_with(NPY_SUFFIX)
    }

    /// The member's key, as NumPy's `NpzFile.files` lists it: the name without a final
    /// `.npy` (`x.npy` is `x`; `notes.txt` stays `notes.txt`).
    pub fn key(&self) -> &str {
        self.name.strip_suffix(NPY_SUFFIX).unwrap_or(&self.name)
    }

    /// How the member is stored.
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// Size of the member's stored (possibly compressed) bytes.
    pub fn compressed_size(&self) -> u64 {
        self.compressed_size
    }

    /// The uncompressed size the archive declares (checked when the member is read to its end).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The CRC-32 the archive declares (checked when the member is read to its end).
    pub fn crc32(&self) -> u32 {
        self.crc32
    }

    /// Offset of the member's local header in the archive.
    pub fn offset(&self) -> u64 {
        self.header_start
    }

    /// Where the member's stored bytes lie in the archive (after its local header; for a
    /// [`Stored`](Compression::Stored) member, the `.npy` file itself).
    ///
    /// ```
    /// use npyguard::{npz, NpyArray, ReadOptions};
    /// let a = NpyArray::from_vec(vec![1u8, 2], vec![2]).unwrap().to_array();
    /// let zip = npz::savez(std::io::Cursor::new(Vec::new()), &[("a", &a)]).unwrap().into_inner();
    /// let archive = npz::NpzArchive::new(std::io::Cursor::new(&zip), &ReadOptions::default()).unwrap();
    /// let r = archive.members()[0].data_range();
    /// assert!(zip[r.start as usize..].starts_with(b"\x93NUMPY"));
    /// assert_eq!(r.end - r.start, 130);
    /// ```
    pub fn data_range(&self) -> std::ops::Range<u64> {
        self.data_start..self.data_start.saturating_add(self.compressed_size)
    }
}
