//! NumPy dtypes → DuckDB types: the one table of the extension.
//!
//! | NumPy | DuckDB | value |
//! | --- | --- | --- |
//! | `b1` | `BOOLEAN` | any non-zero byte is true (NumPy's value) |
//! | `i1` `i2` `i4` `i8` | `TINYINT` `SMALLINT` `INTEGER` `BIGINT` | exact |
//! | `u1` `u2` `u4` `u8` | `UTINYINT` `USMALLINT` `UINTEGER` `UBIGINT` | exact |
//! | `f2` | `FLOAT` | widened exactly (DuckDB has no half type; every `f2` is a `f4`) |
//! | `f4` `f8` | `FLOAT` `DOUBLE` | bit-exact (NaN payloads, −0.0) |
//! | `c8` `c16` | `STRUCT(re FLOAT, im FLOAT)`, `STRUCT(re DOUBLE, im DOUBLE)` | exact |
//! | `S<n>` | `BLOB` | trailing NULs stripped (NumPy's value) |
//! | `U<n>` | `VARCHAR` | trailing NULs stripped (NumPy's value) |
//! | `V<n>` | `BLOB` | the raw bytes |
//! | `M8[s]` `M8[ms]` `M8[us]` `M8[ns]` | `TIMESTAMP_S` `TIMESTAMP_MS` `TIMESTAMP` `TIMESTAMP_NS` | the same count of the same unit; NaT is NULL; a count DuckDB cannot hold is an error (see below) |
//! | `M8[D]` | `DATE` | the same count of days; NaT is NULL; a count outside DuckDB's DATE range (±(2³¹ − 2) days: 5877642-06-25 (BC) to 5881580-07-10) is an error, as for timestamps |
//! | `m8[us]` | `INTERVAL` | the microseconds (`epoch_us(c1)` gives the count back); NaT is NULL |
//! | other `M8`/`m8` units and multiples (`M8[W]`, `M8[2D]`, `M8[25s]`, `m8[s]`, `m8[ns]`, …) | `BIGINT` | the count of the dtype's unit, as stored (the unit is the file's dtype); NaT is NULL |
//! | any `M8`/`m8` with `datetime_counts := true` | `BIGINT` | the count, as stored; NaT is NULL |
//! | records | refused | |
//!
//! Every value the extension hands DuckDB is valid for the type it declares; the only
//! mappings where NumPy has values DuckDB's type does not are the timestamps. DuckDB's
//! finite instants run from 290309-12-22 (BC) 00:00:00 to 294247-01-10 04:00:54.775806 (in
//! microseconds −9 223 372 022 400 000 000 to 2⁶³ − 2; TIMESTAMP_S and TIMESTAMP_MS: the
//! counts whose microseconds are in that range, TIMESTAMP_MS up to 04:00:54.000 only, as a
//! later one's cast to TIMESTAMP_S invalidates the database; TIMESTAMP_NS: its whole `i64`
//! range), and
//! it reads the counts 2⁶³ − 1 and −(2⁶³ − 1) of every unit as `infinity` and `-infinity`
//! (NumPy reads them as instants, e.g. `2262-04-11T23:47:16.854775807` in `M8[ns]`). A count
//! outside that range, or one of those two, is an error naming the file, the row and the
//! column ([`crate::write::invalid`], [`crate::write::stamp_range`]): passed through, DuckDB's
//! own cast of TIMESTAMP_S 10¹⁵ to VARCHAR raised an INTERNAL error that invalidated the
//! database (DuckDB 2.0.0), and ±(2⁶³ − 1) would silently change meaning. `datetime_counts
//! := true` reads such files. The other mappings take every value: booleans are written as
//! 0/1 (any non-zero byte is true), `U` is decoded by npyguard into Unicode scalar values
//! (no surrogates, at most U+10FFFF), so VARCHAR is always valid UTF-8 (embedded NULs
//! included), `S`/`V` are BLOBs (any bytes), floats keep NaN payloads and infinities,
//! `m8[us]` is any `i64` of microseconds in an INTERVAL (its months and days 0), and the
//! integer types are exact. `m8[s]` and `m8[ms]` stay BIGINT because an INTERVAL's 64-bit
//! microseconds cannot hold every count of them (NumPy's `m8[s]` maximum is 2⁶³ − 1
//! seconds). `tests/numpy/duckdb_safety.py` runs DuckDB's own functions over the extreme
//! values of every mapping and checks that the database still answers.
//!
//! The `nonzeros` layout adds `row_no BIGINT` and `col_no` (`SMALLINT` up to 32 767
//! columns, `INTEGER` up to 2³¹ − 1, `BIGINT` beyond), as npyguard's Arrow `nonzeros`.

use npyguard::{DateUnit, Dtype, Table, TimeUnit};

/// How one NumPy element becomes one DuckDB value (see the module table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `b1` → BOOLEAN.
    Bool,
    /// `i1` → TINYINT.
    I8,
    /// `i2` → SMALLINT.
    I16,
    /// `i4` → INTEGER.
    I32,
    /// `i8` → BIGINT.
    I64,
    /// `u1` → UTINYINT.
    U8,
    /// `u2` → USMALLINT.
    U16,
    /// `u4` → UINTEGER.
    U32,
    /// `u8` → UBIGINT.
    U64,
    /// `f2` → FLOAT (exact widening).
    F16,
    /// `f4` → FLOAT.
    F32,
    /// `f8` → DOUBLE.
    F64,
    /// `c8` → STRUCT(re FLOAT, im FLOAT).
    C64,
    /// `c16` → STRUCT(re DOUBLE, im DOUBLE).
    C128,
    /// `S<n>` → BLOB without trailing NULs.
    Bytes,
    /// `U<n>` → VARCHAR without trailing NULs.
    Text,
    /// `V<n>` → BLOB.
    Void,
    /// `M8` in seconds, milli-, micro- or nanoseconds → the TIMESTAMP of that unit.
    Timestamp(Stamp),
    /// `M8[D]` → DATE (days; a count outside DuckDB's range is an error).
    Date,
    /// `m8[us]` → INTERVAL (microseconds).
    Interval,
    /// Any other `M8`/`m8` → BIGINT counts of the dtype's unit.
    Counts,
}

/// The four DuckDB timestamp types (each an `i64` count of its unit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stamp {
    /// TIMESTAMP_S.
    Seconds,
    /// TIMESTAMP_MS.
    Millis,
    /// TIMESTAMP (microseconds).
    Micros,
    /// TIMESTAMP_NS.
    Nanos,
}

/// A DuckDB type the extension produces, independent of DuckDB's runtime (so it is
/// testable without a database); `lib.rs` turns it into a logical type handle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SqlType {
    /// A scalar of this kind.
    Scalar(Kind),
    /// `T[n]`: a fixed-size ARRAY.
    Array(Kind, usize),
    /// SMALLINT (`col_no`).
    Smallint,
    /// INTEGER (`col_no`).
    Integer,
    /// BIGINT (`row_no`, `col_no`).
    Bigint,
    /// VARCHAR (`filename`).
    Varchar,
    /// BIGINT `file_row_number`: the row's index along the file's first axis.
    FileRowNumber,
}

impl Kind {
    /// The kind for `dtype`, or what is refused.
    pub fn of(dtype: &Dtype) -> Result<Kind, String> {
        Ok(match dtype {
            Dtype::Bool => Kind::Bool,
            Dtype::I8 => Kind::I8,
            Dtype::I16(_) => Kind::I16,
            Dtype::I32(_) => Kind::I32,
            Dtype::I64(_) => Kind::I64,
            Dtype::U8 => Kind::U8,
            Dtype::U16(_) => Kind::U16,
            Dtype::U32(_) => Kind::U32,
            Dtype::U64(_) => Kind::U64,
            Dtype::F16(_) => Kind::F16,
            Dtype::F32(_) => Kind::F32,
            Dtype::F64(_) => Kind::F64,
            Dtype::C64(_) => Kind::C64,
            Dtype::C128(_) => Kind::C128,
            Dtype::Bytes(_) => Kind::Bytes,
            Dtype::Unicode(..) => Kind::Text,
            Dtype::Void(_) => Kind::Void,
            Dtype::DateTime(u, _) if u.multiple == 1 && u.unit == TimeUnit::Day => Kind::Date,
            Dtype::DateTime(u, _) => match stamp(*u) {
                Some(s) => Kind::Timestamp(s),
                None => Kind::Counts,
            },
            Dtype::TimeDelta(u, _) if u.multiple == 1 && u.unit == TimeUnit::Micro => {
                Kind::Interval
            }
            Dtype::TimeDelta(..) => Kind::Counts,
            Dtype::LongDouble(_) | Dtype::CLongDouble(_) => {
                return Err(format!(
                    "a dtype with a DuckDB type (DuckDB has no long double: convert with \
                     numpy's astype(np.float64) and save it), found {}",
                    dtype.typestr()
                ))
            }
            other => {
                return Err(format!(
                    "a dtype with a DuckDB type (records are not supported: read one field with \
                     numpy and save it), found {}",
                    other.typestr()
                ))
            }
        })
    }

    /// DuckDB's name of the type.
    pub fn sql(self) -> &'static str {
        match self {
            Kind::Bool => "BOOLEAN",
            Kind::I8 => "TINYINT",
            Kind::I16 => "SMALLINT",
            Kind::I32 => "INTEGER",
            Kind::I64 | Kind::Counts => "BIGINT",
            Kind::U8 => "UTINYINT",
            Kind::U16 => "USMALLINT",
            Kind::U32 => "UINTEGER",
            Kind::U64 => "UBIGINT",
            Kind::F16 | Kind::F32 => "FLOAT",
            Kind::F64 => "DOUBLE",
            Kind::C64 => "STRUCT(re FLOAT, im FLOAT)",
            Kind::C128 => "STRUCT(re DOUBLE, im DOUBLE)",
            Kind::Bytes | Kind::Void => "BLOB",
            Kind::Text => "VARCHAR",
            Kind::Timestamp(Stamp::Seconds) => "TIMESTAMP_S",
            Kind::Timestamp(Stamp::Millis) => "TIMESTAMP_MS",
            Kind::Timestamp(Stamp::Micros) => "TIMESTAMP",
            Kind::Timestamp(Stamp::Nanos) => "TIMESTAMP_NS",
            Kind::Interval => "INTERVAL",
            Kind::Date => "DATE",
        }
    }

    /// The kind with `datetime_counts := true`: every `M8`/`m8` kind is BIGINT counts of
    /// the dtype's unit (NaT is NULL); other kinds are unchanged.
    pub fn as_counts(self) -> Kind {
        match self {
            Kind::Timestamp(_) | Kind::Interval | Kind::Date => Kind::Counts,
            other => other,
        }
    }

    /// Whether the `nonzeros` layout takes this kind (strings have no zero).
    pub fn has_zero(self) -> bool {
        !matches!(self, Kind::Bytes | Kind::Text | Kind::Void)
    }
}

impl SqlType {
    /// DuckDB's name of the type (what `DESCRIBE` prints).
    pub fn sql(&self) -> String {
        match self {
            SqlType::Scalar(k) => k.sql().to_string(),
            SqlType::Array(k, n) => format!("{}[{n}]", k.sql()),
            SqlType::Smallint => "SMALLINT".into(),
            SqlType::Integer => "INTEGER".into(),
            SqlType::Bigint => "BIGINT".into(),
            SqlType::Varchar => "VARCHAR".into(),
            SqlType::FileRowNumber => "BIGINT".into(),
        }
    }
}

/// The type of `col_no` for the columns of `table` (npyguard's rule,
/// [`Table::col_no_bits`], as its Arrow conversion uses).
pub fn col_no_type(table: &Table) -> SqlType {
    match table.col_no_bits() {
        16 => SqlType::Smallint,
        32 => SqlType::Integer,
        _ => SqlType::Bigint,
    }
}

/// The timestamp type that holds `M8[unit]` counts unchanged.
fn stamp(u: DateUnit) -> Option<Stamp> {
    if u.multiple != 1 {
        return None;
    }
    match u.unit {
        TimeUnit::Second => Some(Stamp::Seconds),
        TimeUnit::Milli => Some(Stamp::Millis),
        TimeUnit::Micro => Some(Stamp::Micros),
        TimeUnit::Nano => Some(Stamp::Nanos),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use npyguard::Header;

    fn kind(typestr: &str) -> Result<Kind, String> {
        Kind::of(&Dtype::from_typestr(typestr).map_err(|e| e.to_string())?)
    }

    #[test]
    fn every_numeric_dtype_has_its_exact_type() {
        let table = [
            ("|b1", "BOOLEAN"),
            ("|i1", "TINYINT"),
            ("<i2", "SMALLINT"),
            (">i4", "INTEGER"),
            ("<i8", "BIGINT"),
            ("|u1", "UTINYINT"),
            (">u2", "USMALLINT"),
            ("<u4", "UINTEGER"),
            (">u8", "UBIGINT"),
            ("<f2", "FLOAT"),
            (">f4", "FLOAT"),
            ("<f8", "DOUBLE"),
            ("<c8", "STRUCT(re FLOAT, im FLOAT)"),
            (">c16", "STRUCT(re DOUBLE, im DOUBLE)"),
            ("|S5", "BLOB"),
            ("<U3", "VARCHAR"),
            ("|V4", "BLOB"),
        ];
        for (t, sql) in table {
            assert_eq!(kind(t).unwrap().sql(), sql, "{t}");
        }
    }

    #[test]
    fn long_double_is_refused_naming_the_dtype() {
        for t in ["<f16", ">f16", "<c32", ">c32"] {
            let err = kind(t).unwrap_err();
            assert!(err.contains("long double") && err.contains(t), "{t}: {err}");
        }
    }

    #[test]
    fn datetimes_map_exactly_or_to_counts() {
        assert_eq!(kind("<M8[s]").unwrap().sql(), "TIMESTAMP_S");
        assert_eq!(kind("<M8[ms]").unwrap().sql(), "TIMESTAMP_MS");
        assert_eq!(kind(">M8[us]").unwrap().sql(), "TIMESTAMP");
        assert_eq!(kind("<M8[ns]").unwrap().sql(), "TIMESTAMP_NS");
        assert_eq!(kind("<M8[D]").unwrap().sql(), "DATE");
        assert_eq!(kind("<M8[2D]").unwrap(), Kind::Counts);
        assert_eq!(kind("<M8[W]").unwrap(), Kind::Counts);
        assert_eq!(kind("<M8[25s]").unwrap(), Kind::Counts);
        assert_eq!(kind("<m8[s]").unwrap(), Kind::Counts);
        assert_eq!(kind("<m8[ms]").unwrap(), Kind::Counts);
        assert_eq!(kind(">m8[us]").unwrap(), Kind::Interval);
        assert_eq!(kind("<m8[ns]").unwrap().sql(), "BIGINT");
        // datetime_counts := true: every datetime is its BIGINT counts, nothing else changes.
        for t in ["<M8[s]", ">M8[us]", "<M8[ns]", "<m8[us]", "<M8[D]"] {
            assert_eq!(kind(t).unwrap().as_counts(), Kind::Counts, "{t}");
        }
        assert_eq!(kind("<i8").unwrap().as_counts(), Kind::I64);
    }

    #[test]
    fn records_are_refused() {
        use npyguard::{Endian, Field, Record};
        let field = Field {
            name: "a".into(),
            title: None,
            dtype: Dtype::I32(Endian::Little),
            shape: vec![],
            nesting: Vec::new(),
            offset: 0,
        };
        let rec = Dtype::Record(Record {
            fields: vec![field],
            itemsize: 4,
        });
        assert!(Kind::of(&rec)
            .unwrap_err()
            .contains("records are not supported"));
    }

    #[test]
    fn arrays_and_col_no() {
        assert_eq!(SqlType::Array(Kind::F32, 8).sql(), "FLOAT[8]");
        let table = |cols: usize| {
            let h = Header::new(Dtype::U8, vec![1, cols], false).unwrap();
            Table::of(&h).unwrap()
        };
        assert_eq!(col_no_type(&table(32_767)), SqlType::Smallint);
        assert_eq!(col_no_type(&table(32_768)), SqlType::Integer);
        assert_eq!(col_no_type(&table(i32::MAX as usize + 1)), SqlType::Bigint);
        assert!(!Kind::Text.has_zero() && Kind::C64.has_zero());
    }
}
