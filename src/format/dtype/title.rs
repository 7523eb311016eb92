//! Field titles: any Python literal NumPy keeps with a field, `None` aside.

use core::fmt;

use crate::format::dtype::name::FieldName;
use crate::format::literal::{Literal, Value};
use crate::prelude::*;

/// The title of a record field: the `t` of `((t, 'name'), type)` in a descr.
///
/// NumPy keeps any Python object as a title and np.save writes its `repr`; np.load reads
/// back whatever that `repr` spells as a literal. The writer survey
/// (`tests/numpy/title_survey.py`) finds strings, bytes, integers of any size and sign,
/// booleans, floats, complex numbers, tuples and lists written and read back, so a title
/// is a literal [`Value`] (kept as written: `Display` gives np.save's bytes). A `None`
/// title is no title: NumPy writes the field without one.
///
/// A title that is a string is also a key of its field (it shares the field-name
/// namespace: [`as_name`](Title::as_name)); other titles are not.
///
/// ```
/// use npyguard::literal::parse_dict;
/// use npyguard::{Dtype, Title, Version};
/// let d = parse_dict(b"{'descr': [((-1, 'a'), '<i4')]}", Version::V1_0).unwrap();
/// let Dtype::Record(r) = Dtype::from_descr(&d.entries[0].value).unwrap() else { panic!() };
/// let t = r.fields[0].title.as_ref().unwrap();
/// assert_eq!(t.to_string(), "-1");
/// assert_eq!(t.as_str(), None);
/// assert_eq!(Title::from("t").as_str(), Some("t"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Title(Value);

impl Title {
    /// The title a literal value spells, or `None` for `None` (no title, as NumPy reads it).
    pub fn from_value(value: Value) -> Option<Title> {
        match value {
            Value::None => None,
            v => Some(Title(v)),
        }
    }

    /// The title's literal value.
    pub fn value(&self) -> &Value {
        &self.0
    }

    /// The title as text, when it is a string without lone surrogates.
    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The title as a key of its field, when it is a string (lone surrogates included):
    /// NumPy makes a string title a second name of its field, and no other title.
    pub fn as_name(&self) -> Option<FieldName> {
        match &self.0 {
            Value::Str(s) => Some(FieldName::from(s.as_str())),
            Value::NonText(n) => Some(n.clone()),
            _ => None,
        }
    }

    /// The title as a literal, for the descr.
    pub(crate) fn to_literal(&self) -> Literal {
        Literal::new(self.0.clone())
    }
}

impl From<&str> for Title {
    fn from(s: &str) -> Title {
        Title(Value::Str(s.to_string()))
    }
}

impl From<String> for Title {
    fn from(s: String) -> Title {
        Title(Value::Str(s))
    }
}

impl From<FieldName> for Title {
    fn from(n: FieldName) -> Title {
        match n.as_str() {
            Some(s) => Title(Value::Str(s.to_string())),
            None => Title(Value::NonText(n)),
        }
    }
}

/// Python's `repr` of the title: what np.save writes in the descr.
impl fmt::Display for Title {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.to_literal(), f)
    }
}
