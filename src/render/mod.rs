//! Array values as text: JSON like NumPy's `tolist()`, NumPy-like text, or NumPy's exact
//! `repr` ([`numpy_repr`], what `npyguard dump` prints).
//!
//! [`values`] is what `npyguard dump --json` prints. Both its styles render the array in
//! logical (row-major) order whatever its memory order, as nested lists, records as lists
//! (JSON) or tuples (text) of their field values.
//!
//! Every rendering is bounded by the input: an array with no payload bytes can still
//! claim a huge shape (`(2**40, 0)` is 2^40 empty rows; a dtype of item size 0 any number of
//! elements), so before anything is rendered the lists and elements to print are counted
//! and checked against [`Header::check_backed`](crate::Header::check_backed)
//! ([`ErrorKind::Unbacked`](crate::ErrorKind::Unbacked)). The text style prints a zero-size
//! array as NumPy does, `[]` whatever its shape, and with `summarise` visits only the
//! three first and last items of each long axis (NumPy's `...` summary), so its work is
//! bounded by what it prints.
//!
//! ```
//! use npyguard::{render::{values, Style}, NpyArray};
//! let a = NpyArray::from_vec(vec![1.5f64, f64::NAN, 3.0, 4.0], vec![2, 2]).unwrap().to_array();
//! assert_eq!(values(&a, Style::Json).unwrap(), r#"[[1.5, "nan"], [3.0, 4.0]]"#);
//! assert_eq!(values(&a, Style::Text { summarise: false }).unwrap(), "[[1.5, nan], [3.0, 4.0]]");
//!
//! let empty = npyguard::Array::new(
//!     npyguard::Header::new(npyguard::Dtype::U8, vec![1 << 40, 0], false).unwrap(),
//!     npyguard::ArrayData::U8(npyguard::Buffer::new()),
//! ).unwrap();
//! assert_eq!(values(&empty, Style::Text { summarise: true }).unwrap(), "[]");
//! let err = values(&empty, Style::Json).unwrap_err();
//! assert_eq!(err.kind(), npyguard::ErrorKind::Unbacked);
//! ```

mod bounds;
mod numpy;
mod values;

pub use numpy::numpy_repr;
pub use values::{values, Style};
