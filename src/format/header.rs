//! The validated header: dtype, memory order, shape, and any extra keys.
//!
//! Validation turns the literal [`Dict`] into a [`Header`] whose sizes are
//! known to fit: a `Header` that exists has an element count and a payload
//! length that fit in `isize`.
//!
//! ```
//! use npyguard::{Header, ReadOptions};
//! let file = b"\x93NUMPY\x01\x00\x46\x00{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }          \n";
//! let header = Header::from_bytes(file, &ReadOptions::default()).unwrap();
//! assert_eq!(header.shape(), &[2, 3]);
//! assert_eq!(header.payload_len(), 24);
//! assert_eq!(header.payload_offset(), 80);
//! ```

use crate::error::{Error, ErrorKind, Result};
use crate::format::dtype::Dtype;
use crate::format::grammar::parse_dict;
use crate::format::literal::{Dict, Entry, Literal, Value};
use crate::format::preamble::{Preamble, Version};
use crate::limits::{MAX_DIMS, MAX_UNBACKED_ITEMS, NUMPY_MAX_HEADER_CHARS};
use crate::options::ReadOptions;
use crate::prelude::*;

/// A validated `.npy` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    version: Version,
    dtype: Dtype,
    fortran_order: bool,
    shape: Vec<usize>,
    extra: Vec<(String, Literal)>,
    element_count: usize,
    payload_len: usize,
    payload_offset: u64,
}

impl Header {
    /// A header for an array of `dtype` and `shape`, checking that its size fits
    /// and that the dtype reads back as itself from its descr (so the writer never
    /// writes a header that the reader refuses or reads as another dtype: `S0`,
    /// multiples over 2^31-1, hand-built records whose fields overlap, are unnamed
    /// or overrun the item size are refused here).
    ///
    /// The version and payload offset are those `np.save` would choose; the writer sets them.
    pub fn new(dtype: Dtype, shape: Vec<usize>, fortran_order: bool) -> Result<Header> {
        // Errors here are in what the caller built: they have no position in an input.
        check_descr_round_trip(&dtype).map_err(Error::without_offset)?;
        let (element_count, payload_len) =
            sizes(&dtype, &shape, 0).map_err(Error::without_offset)?;
        Ok(Header {
            version: Version::V1_0,
            dtype,
            fortran_order,
            shape,
            extra: Vec::new(),
            element_count,
            payload_len,
            payload_offset: 0,
        })
    }

    /// Reads the preamble and header from the start of `bytes` (which may hold more: the payload).
    pub fn from_bytes(bytes: &[u8], opts: &ReadOptions) -> Result<Header> {
        let preamble = match Preamble::parse(bytes)? {
            Some(p) => p,
            None => {
                return Err(Error::new(
                    ErrorKind::Truncated,
                    bytes.len() as u64,
                    "a complete preamble",
                ));
            }
        };
        preamble.check_header_cap(opts.max_header_bytes)?;
        let start = preamble.len();
        let end = start.saturating_add(preamble.header_len as usize);
        let Some(text) = bytes.get(start..end) else {
            return Err(Error::new(
                ErrorKind::Truncated,
                bytes.len() as u64,
                format!(
                    "{} header bytes (the declared header length)",
                    preamble.header_len
                ),
            ));
        };
        Header::parse(preamble, text, opts)
    }

    /// Parses and validates the header text that follows `preamble`.
    pub fn parse(preamble: Preamble, text: &[u8], opts: &ReadOptions) -> Result<Header> {
        let base = preamble.header_offset();
        let dict = parse_dict(text, preamble.version).map_err(|e| e.shifted(base))?;
        let char_limit = opts
            .max_header_chars
            .or(opts.numpy_strict.then_some(NUMPY_MAX_HEADER_CHARS));
        if let Some(limit) = char_limit {
            let chars = match preamble.version.encoding() {
                crate::format::preamble::Encoding::Latin1 => text.len(),
                crate::format::preamble::Encoding::Utf8 => {
                    text.iter().filter(|&&b| (b & 0xc0) != 0x80).count()
                }
            };
            if chars > limit {
                return Err(Error::new(
                    ErrorKind::HeaderTooLong,
                    8,
                    format!("a header of at most {limit} characters (NumPy's max_header_size)"),
                )
                .found(format!("{chars} characters")));
            }
        }
        let mut header = validate(dict, preamble.version, opts).map_err(|e| e.shifted(base))?;
        header.payload_offset = preamble.payload_offset();
        Ok(header)
    }

    /// Parses and validates a header dict on its own, as a file of `version` would hold it
    /// (`version` sets the text's encoding: Latin-1 for 1.0 and 2.0, UTF-8 for 3.0), without
    /// a preamble: offsets in errors count from the dict's first byte, and the payload offset
    /// is 0, as for a header built in code (the writer sets it). The checks are the
    /// reader's, under [`ReadOptions::default`].
    ///
    /// ```
    /// use npyguard::{Dtype, ErrorKind, Header, Version};
    /// let h = Header::from_dict(b"{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3), }", Version::V3_0).unwrap();
    /// assert_eq!((h.dtype(), h.shape(), h.fortran_order()), (&Dtype::U8, &[2, 3][..], true));
    /// let err = Header::from_dict(b"{'descr': '|O', 'fortran_order': False, 'shape': (), }", Version::V3_0).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::UnsupportedDtype);
    /// assert_eq!(err.offset(), Some(10));
    /// ```
    pub fn from_dict(text: &[u8], version: Version) -> Result<Header> {
        validate(parse_dict(text, version)?, version, &ReadOptions::default())
    }

    /// Format version of the file the header came from (or will be written as).
    pub fn version(&self) -> Version {
        self.version
    }

    /// Element type.
    pub fn dtype(&self) -> &Dtype {
        &self.dtype
    }

    /// Whether the payload is in Fortran (column-major) order.
    pub fn fortran_order(&self) -> bool {
        self.fortran_order
    }

    /// Dimensions, outermost first (as NumPy reports `shape`).
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Keys other than descr, fortran_order and shape, in file order (an npyguard extension;
    /// refused in numpy-strict mode).
    pub fn extra(&self) -> &[(String, Literal)] {
        &self.extra
    }

    /// Number of elements (product of the shape; 1 for a 0-d array).
    pub fn element_count(&self) -> usize {
        self.element_count
    }

    /// Payload size in bytes: element count × item size.
    pub fn payload_len(&self) -> usize {
        self.payload_len
    }

    /// Elements whose values take payload bytes: the element count, or 0 for a dtype of
    /// item size 0 (whose elements hold nothing).
    pub fn backed_elements(&self) -> u64 {
        if self.dtype.itemsize() == 0 {
            0
        } else {
            self.element_count as u64
        }
    }

    /// Checks that producing `items` things per this header (rows, columns, nested lists,
    /// elements) is paid for by payload bytes: `items` must be at most
    /// [`backed_elements`](Header::backed_elements) plus
    /// [`MAX_UNBACKED_ITEMS`](MAX_UNBACKED_ITEMS).
    /// [`ErrorKind::Unbacked`] otherwise, at the payload offset, naming `what`.
    ///
    /// ```
    /// use npyguard::{Dtype, ErrorKind, Header};
    /// let h = Header::new(Dtype::U8, vec![1 << 40, 0], false).unwrap();
    /// assert_eq!(h.element_count(), 0);
    /// assert!(h.check_backed(1000, "rows").is_ok());
    /// let err = h.check_backed(1 << 40, "rows").unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Unbacked);
    /// ```
    pub fn check_backed(&self, items: u64, what: &str) -> Result<()> {
        self.check_backed_within(items, MAX_UNBACKED_ITEMS, what)
    }

    /// [`check_backed`](Header::check_backed) with another allowance, for items that cost
    /// more than a few bytes each (table columns: [`MAX_UNBACKED_COLUMNS`](crate::limits::MAX_UNBACKED_COLUMNS)).
    pub(crate) fn check_backed_within(&self, items: u64, allowance: u64, what: &str) -> Result<()> {
        let allowed = self.backed_elements().saturating_add(allowance);
        if items <= allowed {
            return Ok(());
        }
        Err(Error::new(
            ErrorKind::Unbacked,
            self.payload_offset,
            format!(
                "at most {allowed} {what} ({} backed by payload bytes + {allowance} allowed without)",
                self.backed_elements(),
            ),
        )
        .found(format!("{items} {what} for shape {:?}", self.shape)))
    }

    /// File offset of the first payload byte (0 for a header built in code and not yet written).
    pub fn payload_offset(&self) -> u64 {
        self.payload_offset
    }

    /// The header of `rows` rows of this array along its first axis (same dtype, order and
    /// trailing shape; a 0-d array's header is returned as it is): for a part of the array
    /// read on its own. The dtype is this validated header's, so only the sizes are
    /// computed again. Crate-private: the parts' readers build one per chunk.
    pub(crate) fn with_rows(&self, rows: usize) -> Result<Header> {
        let mut shape = self.shape.clone();
        let Some(first) = shape.first_mut() else {
            return Ok(self.clone());
        };
        *first = rows;
        let (element_count, payload_len) =
            sizes(&self.dtype, &shape, 0).map_err(Error::without_offset)?;
        Ok(Header {
            version: self.version,
            dtype: self.dtype.clone(),
            fortran_order: self.fortran_order,
            shape,
            extra: Vec::new(),
            element_count,
            payload_len,
            payload_offset: 0,
        })
    }

    /// The header of `n` elements of this array's dtype in one axis (C order): a column of
    /// its table read on its own. Crate-private, like [`with_rows`](Header::with_rows).
    #[cfg(feature = "std")] // used by `io::rows`
    pub(crate) fn column(&self, n: usize) -> Result<Header> {
        let (element_count, payload_len) =
            sizes(&self.dtype, &[n], 0).map_err(Error::without_offset)?;
        Ok(Header {
            version: self.version,
            dtype: self.dtype.clone(),
            fortran_order: false,
            shape: vec![n],
            extra: Vec::new(),
            element_count,
            payload_len,
            payload_offset: 0,
        })
    }

    /// The same payload read as a flat 1-D array of its elements in file order (C order,
    /// one axis of [`element_count`](Header::element_count), the same payload offset): an
    /// element's validity does not depend on where it sits in the array, so a payload can be
    /// checked element run by element run, whatever its shape or memory order.
    #[cfg(feature = "std")] // used by `io::rows`
    pub(crate) fn flattened(&self) -> Header {
        Header {
            version: self.version,
            dtype: self.dtype.clone(),
            fortran_order: false,
            shape: vec![self.element_count],
            extra: Vec::new(),
            element_count: self.element_count,
            payload_len: self.payload_len,
            payload_offset: self.payload_offset,
        }
    }

    /// The payload's byte range in the file: from [`payload_offset`](Header::payload_offset),
    /// [`payload_len`](Header::payload_len) bytes. A file of exactly `range.end` bytes holds
    /// the array and nothing else; the bytes of the range are what a view borrows.
    ///
    /// ```
    /// use npyguard::{write::to_vec, Header, NpyArray, ReadOptions};
    /// let file = to_vec(&NpyArray::from_vec(vec![1u32, 2, 3], vec![3]).unwrap().to_array()).unwrap();
    /// let h = Header::from_bytes(&file, &ReadOptions::default()).unwrap();
    /// assert_eq!(h.payload_range(), 128..140);
    /// assert_eq!(h.payload_range().end, file.len() as u64);
    /// ```
    pub fn payload_range(&self) -> core::ops::Range<u64> {
        let end = self.payload_offset.saturating_add(self.payload_len as u64);
        self.payload_offset..end
    }

    /// The header's dict as `np.save` writes it (sorted keys, no padding), e.g.
    /// `{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }`.
    pub fn to_dict_text(&self) -> String {
        let mut s = String::from("{'descr': ");
        s.push_str(&self.dtype.descr().to_string());
        s.push_str(", 'fortran_order': ");
        s.push_str(if self.fortran_order { "True" } else { "False" });
        s.push_str(", 'shape': ");
        let dims: Vec<u64> = self.shape.iter().map(|&d| d as u64).collect();
        s.push_str(&crate::format::repr::py_shape(&dims));
        s.push_str(", }");
        s
    }

    pub(crate) fn set_fortran_order(&mut self, fortran_order: bool) {
        self.fortran_order = fortran_order;
    }
}

/// Refuses a dtype whose descr (what the writer writes) does not read back as the same dtype.
fn check_descr_round_trip(dtype: &Dtype) -> Result<()> {
    let back = Dtype::from_descr(&dtype.descr())?;
    if &back != dtype {
        return Err(Error::unplaced(
            ErrorKind::InvalidInput,
            "a dtype whose descr reads back as the same dtype",
        )
        .found(format!(
            "{:.200} reads back as another dtype",
            dtype.descr().to_string()
        )));
    }
    Ok(())
}

/// Element count and payload length, with NumPy's rule: the product of the
/// non-zero dimensions times the item size must fit in `isize`, even when
/// another dimension is zero. With an item size of 0 (`|V0`, `|S0`, a record without
/// bytes) that byte size is 0 whatever the dimensions: NumPy then makes, writes and loads
/// any shape with a zero dimension (`np.zeros((5, 0, 2**62, 10), 'V0')`), and otherwise
/// needs the element count to fit its `int64` count (np.load computes it so; beyond, it
/// refuses the file).
fn sizes(dtype: &Dtype, shape: &[usize], offset: u64) -> Result<(usize, usize)> {
    if shape.len() > MAX_DIMS {
        return Err(
            Error::new(ErrorKind::ShapeOverflow, offset, "at most 64 dimensions")
                .found(format!("{} dimensions", shape.len())),
        );
    }
    let overflow = || {
        Error::new(
            ErrorKind::ShapeOverflow,
            offset,
            "a shape whose byte size fits in isize",
        )
    };
    if dtype.itemsize() == 0 && shape.contains(&0) {
        return Ok((0, 0));
    }
    let nonzero = shape
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(overflow)?;
    let bytes = nonzero
        .checked_mul(dtype.itemsize())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(overflow)?;
    if shape.contains(&0) {
        Ok((0, 0))
    } else {
        Ok((nonzero, bytes))
    }
}

/// The three NumPy keys of a header dict, and which entries are extra.
struct Keys<'a> {
    descr: &'a Literal,
    fortran: &'a Literal,
    shape: &'a Literal,
}

/// The keys NumPy's header has; any other key is extra.
const KEYS: [&str; 3] = ["descr", "fortran_order", "shape"];

/// Validates a parsed dict: the key set, then each value (descr, fortran_order, shape),
/// then the sizes; extra entries are kept (moved out of the dict, not copied).
fn validate(dict: Dict, version: Version, opts: &ReadOptions) -> Result<Header> {
    let keys = keys(&dict, opts)?;
    let dtype = Dtype::from_descr(keys.descr)?;
    let fortran_order = match keys.fortran.value {
        Value::Bool(b) => b,
        _ => {
            let e = Error::new(
                ErrorKind::BadValue,
                keys.fortran.offset as u64,
                "True or False for 'fortran_order'",
            );
            return Err(e.found(keys.fortran.type_name()));
        }
    };
    let shape = shape(keys.shape)?;
    let (element_count, payload_len) = sizes(&dtype, &shape, keys.shape.offset as u64)?;
    // Each key appears once (checked), so exactly three entries means no extra one.
    let extra = if dict.entries.len() == KEYS.len() {
        Vec::new()
    } else {
        dict.entries
            .into_iter()
            .filter(|e| !KEYS.contains(&e.key.as_str()))
            .map(|e| (e.key, e.value))
            .collect()
    };
    Ok(Header {
        version,
        dtype,
        fortran_order,
        shape,
        extra,
        element_count,
        payload_len,
        payload_offset: 0,
    })
}

/// Finds the three keys, each exactly once; other keys are extra (refused when numpy-strict).
fn keys<'a>(dict: &'a Dict, opts: &ReadOptions) -> Result<Keys<'a>> {
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    if let Some(e) = repeated_key(&dict.entries) {
        let again = format!("{:?} again (NumPy would silently keep the last one)", e.key);
        let err = Error::new(
            ErrorKind::DuplicateKey,
            e.key_offset as u64,
            "each key at most once",
        );
        return Err(err.found(again));
    }
    for e in &dict.entries {
        let slot = match e.key.as_str() {
            "descr" => &mut descr,
            "fortran_order" => &mut fortran,
            "shape" => &mut shape,
            other if opts.numpy_strict => {
                let expected = "only the keys 'descr', 'fortran_order' and 'shape' (numpy-strict)";
                let err = Error::new(ErrorKind::UnknownKey, e.key_offset as u64, expected);
                return Err(err.found(format!("{other:?}")));
            }
            _ => continue,
        };
        *slot = Some(&e.value);
    }
    let end = dict_end(dict);
    let missing = |k: &str| Error::new(ErrorKind::MissingKey, end, format!("the key '{k}'"));
    Ok(Keys {
        descr: descr.ok_or_else(|| missing("descr"))?,
        fortran: fortran.ok_or_else(|| missing("fortran_order"))?,
        shape: shape.ok_or_else(|| missing("shape"))?,
    })
}

/// The first entry whose key an earlier entry has. A header has a few keys, compared pair
/// by pair; past [`LINEAR_KEYS`] an ordered set keeps the check O(n log n).
fn repeated_key(entries: &[Entry]) -> Option<&Entry> {
    if entries.len() <= LINEAR_KEYS {
        return entries.iter().enumerate().find_map(|(k, e)| {
            let earlier = entries.get(..k).unwrap_or_default();
            earlier.iter().any(|p| p.key == e.key).then_some(e)
        });
    }
    let mut seen = alloc::collections::BTreeSet::new();
    entries.iter().find(|e| !seen.insert(e.key.as_str()))
}

/// Dicts of at most this many keys are checked for repeats pair by pair.
const LINEAR_KEYS: usize = 8;

/// The shape: a tuple of at most [`MAX_DIMS`] non-negative integers, each fitting `isize`.
fn shape(lit: &Literal) -> Result<Vec<usize>> {
    let Value::Tuple(dims) = &lit.value else {
        let e = Error::new(
            ErrorKind::BadValue,
            lit.offset as u64,
            "a tuple of integers for 'shape'",
        );
        return Err(e.found(lit.type_name()));
    };
    if dims.len() > MAX_DIMS {
        let e = Error::new(
            ErrorKind::ShapeOverflow,
            lit.offset as u64,
            "at most 64 dimensions",
        );
        return Err(e.found(format!("{} dimensions", dims.len())));
    }
    dims.iter().map(dimension).collect()
}

fn dimension(d: &Literal) -> Result<usize> {
    let Value::Int(n) = &d.value else {
        let e = Error::new(
            ErrorKind::BadValue,
            d.offset as u64,
            "a non-negative integer dimension",
        );
        return Err(e.found(d.type_name()));
    };
    n.as_u64()
        .and_then(|v| usize::try_from(v).ok())
        .filter(|&v| v <= isize::MAX as usize)
        .ok_or_else(|| {
            Error::new(
                ErrorKind::ShapeOverflow,
                d.offset as u64,
                "a dimension that fits in isize",
            )
        })
}

/// Offset just past the last entry (where a missing key would have to go).
fn dict_end(dict: &Dict) -> u64 {
    dict.entries.last().map_or(1, |e| e.value.offset as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::dtype::Endian;

    fn h(text: &str) -> Result<Header> {
        let p = Preamble {
            version: Version::V1_0,
            header_len: text.len() as u32,
        };
        Header::parse(p, text.as_bytes(), &ReadOptions::default())
    }

    #[test]
    fn validates_numpy_header() {
        let hd = h("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }   \n").unwrap();
        assert_eq!(hd.dtype(), &Dtype::F64(Endian::Little));
        assert_eq!(hd.shape(), &[2, 3]);
        assert_eq!(hd.element_count(), 6);
        assert_eq!(hd.payload_len(), 48);
    }

    #[test]
    fn zero_dims_still_need_the_rest_to_fit() {
        let hd = h("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 1000000)}").unwrap();
        assert_eq!(hd.element_count(), 0);
        let big = format!(
            "{{'descr': '<f8', 'fortran_order': False, 'shape': (0, {})}}",
            1u64 << 62
        );
        assert_eq!(h(&big).unwrap_err().kind(), ErrorKind::ShapeOverflow);
    }

    /// Repeats are found the same way pair by pair (few keys) and through a hash set (many):
    /// the first entry whose key came before, at its own offset.
    #[test]
    fn repeated_keys_are_found_with_few_and_many_keys() {
        for extra in [0, 3, LINEAR_KEYS, LINEAR_KEYS + 5] {
            let keys: String = (0..extra).map(|k| format!("'k{k}': 1, ")).collect();
            let text = format!(
                "{{{keys}'descr': '<f8', 'fortran_order': False, 'k0': 2, 'shape': (), 'descr': 1}}"
            );
            let e = h(&text).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::DuplicateKey, "{extra} extra keys");
            let first_repeat = if extra > 0 {
                text.find("'k0': 2").unwrap()
            } else {
                text.rfind("'descr'").unwrap()
            };
            assert_eq!(
                e.offset(),
                Some(10 + first_repeat as u64),
                "{extra} extra keys"
            );
        }
        let many: String = (0..LINEAR_KEYS + 5)
            .map(|k| format!("'k{k}': 1, "))
            .collect();
        let ok = h(&format!(
            "{{{many}'descr': '<f8', 'fortran_order': False, 'shape': ()}}"
        ))
        .unwrap();
        assert_eq!(ok.extra().len(), LINEAR_KEYS + 5);
    }

    #[test]
    fn key_offsets_point_into_the_file() {
        let e =
            h("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': ()}").unwrap_err();
        assert_eq!(
            (e.kind(), e.offset()),
            (ErrorKind::DuplicateKey, Some(10 + 17))
        );
        let e = h("{'descr': '|f8', 'fortran_order': False, 'shape': ()}").unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::BadDescr, Some(10 + 10)));
    }
}
