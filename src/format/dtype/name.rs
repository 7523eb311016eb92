//! Field names: any Python `str`, lone surrogates included.

use core::cmp::Ordering;
use core::fmt;
use core::fmt::Write as _;

use crate::error::{Error, ErrorKind, Result};
use crate::format::repr::write_py_code_points;
use crate::prelude::*;

/// The name of a record field: any Python `str`, lone surrogates included.
///
/// np.save writes a field named `'\ud805'` (`np.dtype([('\ud805', '<f8')])`) as that
/// escape, and np.load reads it back; such a name has no UTF-8 form, so it is kept as its
/// code points. Most names are text: [`as_str`](FieldName::as_str) gives them as `&str`,
/// and [`text`](FieldName::text) gives them or an error naming the field, for the
/// conversions that need text (Arrow, Parquet and CSV column names).
///
/// Names compare, order and hash by code points. `Display` writes the name with each lone
/// surrogate as Python's `repr` escapes it (`\ud805`); `Debug` writes Python's `repr`.
///
/// ```
/// use npyguard::FieldName;
/// let a = FieldName::from("a");
/// assert_eq!(a.as_str(), Some("a"));
/// let s = FieldName::from_code_points(&[0x61, 0xd805]).unwrap();
/// assert_eq!(s.as_str(), None);
/// assert_eq!(s.to_string(), "a\\ud805");
/// assert_eq!(format!("{s:?}"), "'a\\ud805'");
/// assert!(s.text().is_err());
/// assert!(a < s);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct FieldName(Repr);

/// Text when the name is text; its code points only when it holds a lone surrogate (so
/// the derived equality and hash are those of the code points).
#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    Text(String),
    CodePoints(Vec<u32>),
}

impl FieldName {
    /// A name from its code points (lone surrogates allowed), or `None` when one is above
    /// U+10FFFF (no Python string holds it).
    pub fn from_code_points(points: &[u32]) -> Option<FieldName> {
        if points.iter().any(|&u| u > 0x10_ffff) {
            return None;
        }
        let text: Option<String> = points.iter().map(|&u| char::from_u32(u)).collect();
        Some(match text {
            Some(t) => FieldName(Repr::Text(t)),
            None => FieldName(Repr::CodePoints(points.to_vec())),
        })
    }

    /// The name as text, or `None` when it holds a lone surrogate.
    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Repr::Text(t) => Some(t),
            Repr::CodePoints(_) => None,
        }
    }

    /// The name as text, or an [`ErrorKind::InvalidInput`] error naming the field when it
    /// holds a lone surrogate (it has no UTF-8 form, so it cannot be an Arrow, Parquet,
    /// CSV or DuckDB column name).
    pub fn text(&self) -> Result<&str> {
        self.as_str().ok_or_else(|| {
            Error::unplaced(
                ErrorKind::InvalidInput,
                "a field name that is UTF-8 text (a column name must be)",
            )
            .found(format!("the field {self:?}, which holds a lone surrogate"))
        })
    }

    /// The name's code points, lone surrogates included.
    pub fn code_points(&self) -> impl Iterator<Item = u32> + Clone + '_ {
        let (text, points) = match &self.0 {
            Repr::Text(t) => (Some(t.chars().map(u32::from)), None),
            Repr::CodePoints(p) => (None, Some(p.iter().copied())),
        };
        text.into_iter()
            .flatten()
            .chain(points.into_iter().flatten())
    }

    /// Whether the name is `''`.
    pub fn is_empty(&self) -> bool {
        match &self.0 {
            Repr::Text(t) => t.is_empty(),
            Repr::CodePoints(p) => p.is_empty(),
        }
    }

    /// Writes Python's `repr` of the name (what np.save writes in a header).
    pub(crate) fn write_repr<W: fmt::Write + ?Sized>(&self, out: &mut W) -> fmt::Result {
        write_py_code_points(out, self.code_points())
    }
}

impl From<String> for FieldName {
    fn from(s: String) -> FieldName {
        FieldName(Repr::Text(s))
    }
}

impl From<&str> for FieldName {
    fn from(s: &str) -> FieldName {
        FieldName(Repr::Text(s.to_string()))
    }
}

impl PartialEq<str> for FieldName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for FieldName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<FieldName> for &str {
    fn eq(&self, other: &FieldName) -> bool {
        other.as_str() == Some(*self)
    }
}

impl PartialEq<FieldName> for str {
    fn eq(&self, other: &FieldName) -> bool {
        other.as_str() == Some(self)
    }
}

impl Ord for FieldName {
    fn cmp(&self, other: &FieldName) -> Ordering {
        self.code_points().cmp(other.code_points())
    }
}

impl PartialOrd for FieldName {
    fn partial_cmp(&self, other: &FieldName) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The name, each lone surrogate written as Python's `repr` escapes it (`\ud805`).
impl fmt::Display for FieldName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Text(t) => f.write_str(t),
            Repr::CodePoints(p) => {
                for &u in p {
                    match char::from_u32(u) {
                        Some(c) => f.write_char(c)?,
                        None => write!(f, "\\u{u:04x}")?,
                    }
                }
                Ok(())
            }
        }
    }
}

/// Python's `repr` of the name (`'a'`, `'\ud805'`).
impl fmt::Debug for FieldName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_repr(f)
    }
}
