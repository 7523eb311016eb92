//! The table geometry of an array (rows, columns, order), bounded once by `Header::check_backed`.

use arrow_schema::DataType;

use crate::error::{Error, ErrorKind, Result};
use crate::format::header::Header;

/// Most columns an array may have for `col_no` to be Int16 (Int32 beyond, up to
/// 2³¹ − 1 columns; Int64 after that).
///
/// ```
/// use arrow_schema::DataType;
/// use npyguard::{arrow, NpyArray};
/// let n = arrow::INT16_MAX_COLUMNS + 1;
/// let a = NpyArray::from_vec(vec![1u8; n], vec![1, n]).unwrap().to_array();
/// let nz = arrow::nonzeros(&a).unwrap();
/// assert_eq!(nz.schema().field(1).data_type(), &DataType::Int32);
/// ```
pub const INT16_MAX_COLUMNS: usize = 32_767;

/// A 0-, 1- or 2-D array seen as `rows` x `cols` in one memory order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Geom {
    pub(super) rows: usize,
    pub(super) cols: usize,
    /// Fortran order with more than one row and column (otherwise both orders coincide).
    pub(super) fortran: bool,
    pub(super) two_d: bool,
}

impl Geom {
    /// The table geometry of `array`, for every conversion (datasets, non-zeros, CSR). A
    /// zero-size array (shape `(2**40, 0)` or `(0, 2**60)`) has rows or columns that no
    /// byte backs, and each costs a field, an index entry, a loop step or a line of output:
    /// they are bounded here, once ([`Header::check_backed`](crate::Header::check_backed)).
    pub(super) fn of(header: &Header) -> Result<Geom> {
        let g = Geom::new(header.shape(), header.fortran_order())?;
        header.check_backed(g.rows as u64, "table rows")?;
        header.check_backed(g.cols as u64, "table columns")?;
        Ok(g)
    }

    pub(super) fn new(shape: &[usize], fortran: bool) -> Result<Geom> {
        match *shape {
            [] => Ok(Geom {
                rows: 1,
                cols: 1,
                fortran: false,
                two_d: false,
            }),
            [n] => Ok(Geom {
                rows: n,
                cols: 1,
                fortran: false,
                two_d: false,
            }),
            [r, c] => Ok(Geom {
                rows: r,
                cols: c,
                fortran: fortran && r > 1 && c > 1,
                two_d: true,
            }),
            _ => Err(
                Error::unplaced(ErrorKind::InvalidInput, "a 0-, 1- or 2-D array for a table")
                    .found(format!("{}-D shape {shape:?}", shape.len())),
            ),
        }
    }

    /// Memory index of element (r, c); callers keep r < rows and c < cols.
    pub(super) fn index(&self, r: usize, c: usize) -> usize {
        if self.fortran {
            c.saturating_mul(self.rows).saturating_add(r)
        } else {
            r.saturating_mul(self.cols).saturating_add(c)
        }
    }
}

/// The Arrow type of `col_no`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ColWidth {
    I16,
    I32,
    I64,
}

impl ColWidth {
    pub(super) fn of(cols: usize) -> ColWidth {
        if cols <= INT16_MAX_COLUMNS {
            ColWidth::I16
        } else if i32::try_from(cols).is_ok() {
            ColWidth::I32
        } else {
            ColWidth::I64
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
