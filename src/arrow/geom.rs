//! Arrow's table rule: a 0-, 1- or 2-D array, whose geometry is the library's [`Table`]
//! (bounded once by `Header::check_backed`); the Arrow type of `col_no`.

use arrow_schema::DataType;

use crate::data::table::Table;
use crate::error::{Error, ErrorKind, Result};
use crate::format::header::Header;

/// The table of a 0-, 1- or 2-D array, for every conversion (datasets, non-zeros, CSR);
/// [`ErrorKind::InvalidInput`] for more dimensions.
pub(super) fn table(header: &Header) -> Result<Table> {
    let shape = header.shape();
    if shape.len() > 2 {
        return Err(
            Error::unplaced(ErrorKind::InvalidInput, "a 0-, 1- or 2-D array for a table")
                .found(format!("{}-D shape {shape:?}", shape.len())),
        );
    }
    Table::of(header)
}

/// The Arrow type of `col_no` ([`Table::col_no_bits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ColWidth {
    I16,
    I32,
    I64,
}

impl ColWidth {
    pub(super) fn of(table: &Table) -> ColWidth {
        match table.col_no_bits() {
            16 => ColWidth::I16,
            32 => ColWidth::I32,
            _ => ColWidth::I64,
        }
    }

    pub(super) fn data_type(self) -> DataType {
        match self {
            ColWidth::I16 => DataType::Int16,
            ColWidth::I32 => DataType::Int32,
            ColWidth::I64 => DataType::Int64,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::arrow::nonzeros;
    use crate::data::array::NpyArray;
    use crate::data::table::INT16_MAX_COLUMNS;
    use arrow_schema::DataType;

    /// `col_no` is Int16 up to `INT16_MAX_COLUMNS` columns, Int32 beyond.
    #[test]
    fn col_no_widens_past_int16() {
        for (n, want) in [
            (INT16_MAX_COLUMNS, DataType::Int16),
            (INT16_MAX_COLUMNS + 1, DataType::Int32),
        ] {
            let a = NpyArray::from_vec(vec![1u8; n], vec![1, n])
                .unwrap()
                .to_array();
            let nz = nonzeros(&a).unwrap();
            assert_eq!(nz.schema().field(1).data_type(), &want, "{n} columns");
        }
    }
}
