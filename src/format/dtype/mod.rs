//! Element types: the validated meaning of a header's `descr`.
//!
//! A [`Dtype`] is either a scalar type with an explicit byte order or a
//! [`Record`] of named fields. Constructing one from a descr checks every
//! size with checked arithmetic; a `Dtype` that exists has an item size that
//! fits in `usize`.
//!
//! ```
//! use npyguard::{Dtype, Endian};
//! let d = Dtype::from_typestr("<f8").unwrap();
//! assert_eq!(d, Dtype::F64(Endian::Little));
//! assert_eq!(d.itemsize(), 8);
//! assert_eq!(d.descr().to_string(), "'<f8'");
//! ```

//!
//! `types` holds the types; `typestr` parses the type-string grammar (rules `typestr` …
//! `unit-name` of `grammar/npy-header.abnf`); `descr` validates a descr literal (a type
//! string or a list of fields) with checked sizes.

mod descr;
pub(crate) mod name;
mod title;
mod types;
mod typestr;

pub use name::FieldName;
pub use title::Title;
pub use types::{DateUnit, Dtype, Endian, Field, Record, TimeUnit};

use crate::error::Result;
use crate::format::literal::Literal;

impl Dtype {
    /// Parses a type string such as `<f8` or `|S10` (the `typestr` rule).
    pub fn from_typestr(s: &str) -> Result<Dtype> {
        typestr::typestr(s)
    }

    /// Validates a descr value from a header: a type string or a list of fields.
    pub fn from_descr(lit: &Literal) -> Result<Dtype> {
        descr::descr_value(lit, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use typestr::typestr;

    #[test]
    fn typestrs() {
        assert_eq!(typestr("|b1").unwrap(), Dtype::Bool);
        assert_eq!(typestr("<b1").unwrap(), Dtype::Bool);
        assert_eq!(typestr("<u1").unwrap(), Dtype::U8);
        assert_eq!(typestr(">i2").unwrap(), Dtype::I16(Endian::Big));
        assert_eq!(typestr("=f8").unwrap(), Dtype::F64(Endian::HOST));
        assert_eq!(typestr("|S5").unwrap(), Dtype::Bytes(5));
        assert_eq!(typestr("<S5").unwrap(), Dtype::Bytes(5));
        assert_eq!(typestr(">U3").unwrap(), Dtype::Unicode(3, Endian::Big));
        assert_eq!(
            typestr("<M8[25s]").unwrap(),
            Dtype::DateTime(
                DateUnit {
                    unit: TimeUnit::Second,
                    multiple: 25
                },
                Endian::Little
            )
        );
        assert_eq!(
            typestr("<m8").unwrap(),
            Dtype::TimeDelta(
                DateUnit {
                    unit: TimeUnit::Generic,
                    multiple: 1
                },
                Endian::Little
            )
        );
        for bad in [
            "|f8",
            "|i2",
            "|U3",
            "<f 8",
            "<f08",
            "f8",
            "<S",
            "<S00",
            "<S05",
            "<M8[ns/2]",
            "<M8[xs]",
            "<d",
            "<f3",
        ] {
            assert_eq!(
                typestr(bad).unwrap_err().kind(),
                ErrorKind::BadDescr,
                "{bad}"
            );
        }
        for unsup in ["<f12", "<c24", "|O", "|O8"] {
            assert_eq!(
                typestr(unsup).unwrap_err().kind(),
                ErrorKind::UnsupportedDtype,
                "{unsup}"
            );
        }
        assert!(typestr("|O").unwrap_err().to_string().contains("pickle"));
        assert!(typestr("<f12").unwrap_err().to_string().contains("f12"));
        assert_eq!(typestr("<f16").unwrap(), Dtype::LongDouble(Endian::Little));
        assert_eq!(typestr(">c32").unwrap(), Dtype::CLongDouble(Endian::Big));
        assert_eq!(typestr(">c32").unwrap().typestr(), ">c32");
        assert_eq!(typestr("<f16").unwrap().itemsize(), 16);
        assert_eq!(
            typestr("|f16").unwrap_err().kind(),
            ErrorKind::BadDescr,
            "'|' before a long double"
        );
        assert_eq!(
            typestr("|S99999999999999999999999").unwrap_err().kind(),
            ErrorKind::ShapeOverflow
        );
    }

    #[test]
    fn typestr_round_trips() {
        for s in [
            "|b1", "|i1", "|u1", "<i2", ">u8", "<f2", ">c16", "|S7", "<U2", "|V3", "<M8[ns]",
            ">m8[25s]", "<M8", "|S0", "<U0", "|V0",
        ] {
            assert_eq!(typestr(s).unwrap().typestr(), s);
        }
    }
}
