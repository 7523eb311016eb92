//! The literal AST: what the header grammar produces before any meaning is given to it.
//!
//! A header is a [`Dict`] of string keys to [`Literal`] values. Each node keeps
//! the byte offset (in the header text) where it starts, so validation errors
//! can point at the exact byte in the file.
//!
//! ```
//! use npyguard::literal::{parse_dict, Value};
//! use npyguard::Version;
//! let dict = parse_dict(b"{'shape': (2, 3), 'x': [True, None]}", Version::V1_0).unwrap();
//! assert_eq!(dict.entries[0].key, "shape");
//! assert!(matches!(dict.entries[1].value.value, Value::List(_)));
//! assert_eq!(dict.to_string(), "{'shape': (2, 3), 'x': [True, None]}");
//! ```

use core::fmt;

use crate::format::dtype::name::FieldName;
use crate::format::repr::{py_bytes, py_complex, py_float, py_float_r, write_py_str};
use crate::prelude::*;

/// A Python integer literal: exact when it fits in `u64`, otherwise its decimal digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Int {
    /// The value fits in a `u64`.
    Small(u64),
    /// The decimal digits of a value of at least 2^64.
    Big(String),
}

impl Int {
    /// The value as `u64`, or `None` when it does not fit.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Int::Small(v) => Some(*v),
            Int::Big(_) => None,
        }
    }
}

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Int::Small(v) => write!(f, "{v}"),
            Int::Big(s) => f.write_str(s),
        }
    }
}

/// A Python `float` in the literal language. Floats compare and hash by their bits (so
/// `-0.0 != 0.0` and a NaN equals itself): a literal is a spelling, and two literals are
/// the same when they write back the same.
#[derive(Debug, Clone, Copy)]
pub struct Float(pub f64);

impl PartialEq for Float {
    fn eq(&self, other: &Float) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}
impl Eq for Float {}

impl core::hash::Hash for Float {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

/// A value of the literal language (see `value` in `grammar/npy-header.abnf`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    /// A string, escapes decoded.
    Str(String),
    /// A string holding a lone surrogate (`'\\ud805'`), which no Rust `String` holds: its
    /// code points. np.save writes a field so named; validation accepts it only as a field
    /// name.
    NonText(FieldName),
    /// A non-negative decimal integer.
    Int(Int),
    /// A negative decimal integer: its magnitude (at least 1). np.save writes one as a
    /// field title (`((-1, 'a'), '<i4')`); validation accepts it only inside a title.
    NegInt(Int),
    /// A float as Python's `repr` writes one (`1.5`, `-0.0`, `1e+300`); only inside a title.
    Float(Float),
    /// A complex number as Python's `repr` writes one (`1j`, `(1+2j)`, `(-0-1j)`), with the
    /// value Python's `ast.literal_eval` gives it: `(real, imag)`. Only inside a title.
    Complex(Float, Float),
    /// A bytes literal (`b'\\x00t'`), escapes decoded; only inside a title.
    Bytes(Vec<u8>),
    /// `True` or `False`.
    Bool(bool),
    /// `None`.
    None,
    /// A tuple `( ... )`.
    Tuple(Vec<Literal>),
    /// A list `[ ... ]`.
    List(Vec<Literal>),
    /// A set display `{a, b}`, items as written (Python's set drops repeats and iterates in
    /// hash order; the literal keeps the spelling). Only inside a title.
    Set(Vec<Literal>),
    /// A dict display `{k: v}` (`{}` is the empty dict), pairs as written. Only inside a
    /// title (the header dict itself is [`Dict`]).
    Map(Vec<(Literal, Literal)>),
}

/// A value with the offset (in the header text) of its first byte.
#[derive(Debug, Clone)]
pub struct Literal {
    /// Offset of the first byte of this value in the header text.
    pub offset: usize,
    /// The value.
    pub value: Value,
}

/// Literals compare by value only; offsets are where they were found, not what they are.
impl PartialEq for Literal {
    fn eq(&self, other: &Literal) -> bool {
        self.value == other.value
    }
}
impl Eq for Literal {}

impl core::hash::Hash for Literal {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.value.hash(state);
    }
}

impl Literal {
    /// A literal at offset 0 (for values built in code rather than parsed).
    pub fn new(value: Value) -> Literal {
        Literal { offset: 0, value }
    }

    /// A short name of the value's type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self.value {
            Value::Str(_) => "a string",
            Value::NonText(_) => "a string holding a lone surrogate",
            Value::Int(_) => "an integer",
            Value::NegInt(_) => "a negative integer",
            Value::Float(_) => "a float",
            Value::Complex(..) => "a complex number",
            Value::Bytes(_) => "a bytes literal",
            Value::Bool(_) => "a boolean",
            Value::None => "None",
            Value::Tuple(_) => "a tuple",
            Value::List(_) => "a list",
            Value::Set(_) => "a set",
            Value::Map(_) => "a dict",
        }
    }
}

/// One `key: value` entry of the header dict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The key, escapes decoded.
    pub key: String,
    /// Offset of the key's opening quote in the header text.
    pub key_offset: usize,
    /// The value.
    pub value: Literal,
}

/// The header dict, entries in file order (duplicates are kept here and refused by validation).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Dict {
    /// Entries in the order they appear.
    pub entries: Vec<Entry>,
}

/// Renders the value as Python's `repr` would (canonical form, parseable by the grammar).
impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.value {
            Value::Str(s) => write_py_str(f, s),
            Value::NonText(s) => s.write_repr(f),
            Value::Int(i) => write!(f, "{i}"),
            Value::NegInt(i) => write!(f, "-{i}"),
            Value::Float(v) => f.write_str(&py_float(v.0)),
            Value::Complex(re, im) => f.write_str(&complex_literal(re.0, im.0)),
            Value::Bytes(b) => f.write_str(&py_bytes(b)),
            Value::Bool(true) => f.write_str("True"),
            Value::Bool(false) => f.write_str("False"),
            Value::None => f.write_str("None"),
            Value::Tuple(items) => {
                f.write_str("(")?;
                write_items(f, items)?;
                if items.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(")")
            }
            Value::List(items) => {
                f.write_str("[")?;
                write_items(f, items)?;
                f.write_str("]")
            }
            // Python's repr of an empty set (not a literal: no writer's set reads back empty).
            Value::Set(items) if items.is_empty() => f.write_str("set()"),
            Value::Set(items) => {
                f.write_str("{")?;
                write_items(f, items)?;
                f.write_str("}")
            }
            Value::Map(pairs) => {
                f.write_str("{")?;
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

/// A complex number as a literal that reads back to the same value: Python's `repr`, except
/// for the values `repr` and `ast.literal_eval` disagree on. `repr(complex(0.0, -1.0))` is
/// `-1j`, which reads as `(-0.0, -1.0)`, whose `repr` `(-0-1j)` reads as `(0.0, -1.0)`:
/// np.save(np.load(f)) flips such a title at every trip. npyguard writes `(0-1j)` for
/// `(0.0, -1.0)`, `-1j` for `(-0.0, -1.0)` and `(-0.0-0j)` for `(-0.0, 0.0)`, each of which
/// reads back to itself (grammar/DEVIATIONS.md a26).
fn complex_literal(re: f64, im: f64) -> String {
    let zero_re = re == 0.0;
    match (zero_re, re.is_sign_negative(), im.is_sign_negative()) {
        (true, false, true) => format!("(0-{}j)", py_float_r(-im)),
        (true, true, true) => format!("-{}j", py_float_r(-im)),
        (true, true, false) if im == 0.0 => "(-0.0-0j)".to_string(),
        _ => py_complex(re, im),
    }
}

fn write_items(f: &mut fmt::Formatter<'_>, items: &[Literal]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

/// Renders the dict as Python's `repr` of a dict would, entries in their current order.
impl fmt::Display for Dict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, e) in self.entries.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write_py_str(f, &e.key)?;
            write!(f, ": {}", e.value)?;
        }
        f.write_str("}")
    }
}
