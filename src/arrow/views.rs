//! The array's storage as Arrow sees it: [`Units`], generated from the dtype table, and the
//! operations that cut it into Arrow arrays, each written once for every unit type
//! ([`UnitOp`] over a [`Cell`]).

use crate::arrow::cells::Cell;
use crate::arrow::geom::ColWidth;
use crate::arrow::nonzeros::csr_parts;
use crate::arrow::nonzeros::nz_arrays;
use crate::arrow::support::mul;
use crate::arrow::support::out_of_range;
use crate::arrow::types::Kind;
use crate::data::table::Table;
use std::ops::Range;

use arrow_array::types::{Int16Type, Int32Type, Int64Type};
use arrow_array::{Array as _, ArrayRef};

use crate::data::layout::{self, Strided};
use crate::data::storage::for_each_family;
use crate::data::storage::ArrayData;
use crate::error::Result;

/// An operation on an array's units, written once for every unit type (the table's rows
/// dispatch to [`apply`](UnitOp::apply) with their own unit type).
pub(super) trait UnitOp {
    /// What the operation returns.
    type Out;
    /// Runs the operation on `units`, the array's units in memory order.
    fn apply<T: Cell>(self, units: &[T]) -> Result<Self::Out>;
}

/// Generates [`Units`] from the dtype table's `Variant(unit)` rows.
macro_rules! units_of_families {
    ($($variant:ident($unit:ty)),* $(,)?) => {
        /// An array's units in memory order, owned as their [`Cell::Owned`] storage (Arrow's
        /// shared buffer where Arrow's layout is NumPy's): one variant per dtype family.
        #[derive(Debug)]
        pub(super) enum Units {
            $( $variant(<$unit as Cell>::Owned), )*
        }

        impl Units {
            /// Moves `data`'s vector into its Arrow storage (no copy).
            pub(super) fn own(data: ArrayData) -> Units {
                match data {
                    $( ArrayData::$variant(v) => Units::$variant(<$unit as Cell>::own(v)), )*
                }
            }

            /// Elements `start..start + n` as an Arrow array (no copy where Arrow shares
            /// the buffer).
            pub(super) fn slice(&self, start: usize, n: usize, kind: Kind) -> Result<ArrayRef> {
                match self {
                    $( Units::$variant(o) => <$unit as Cell>::slice(o, start, n, kind), )*
                }
            }

            /// Runs `op` on the units.
            pub(super) fn apply<O: UnitOp>(&self, op: O) -> Result<O::Out> {
                match self {
                    $( Units::$variant(o) => op.apply(<$unit as Cell>::borrow(o)), )*
                }
            }
        }
    };
}

for_each_family!(units_of_families);

/// Runs `op` on the units of borrowed storage.
pub(super) fn apply_to<O: UnitOp>(data: &ArrayData, op: O) -> Result<O::Out> {
    crate::data::storage::with_units!(data, v => op.apply(v.as_slice()))
}

/// The columns of C-order rows `r0..r0 + len` (tiled transpose into one shared buffer).
pub(super) struct CBlockColumns<'a> {
    pub(super) kind: Kind,
    pub(super) g: &'a Table,
    pub(super) r0: usize,
    pub(super) len: usize,
}

impl UnitOp for CBlockColumns<'_> {
    type Out = Vec<ArrayRef>;

    fn apply<T: Cell>(self, s: &[T]) -> Result<Vec<ArrayRef>> {
        let (g, len) = (self.g, self.len);
        // Column c of the block is out[c * len..][..len] = s[(r0 + r) * cols + c].
        let units = transpose(
            s,
            mul(self.r0, g.cols())?,
            g.cols(),
            g.cols(),
            len,
            self.kind.width(),
        )?;
        let whole = T::array(units, mul(g.cols(), len)?, self.kind)?;
        (0..g.cols())
            .map(|c| Ok(whole.slice(mul(c, len)?, len)))
            .collect()
    }
}

/// The values of Fortran-order rows `r0..r0 + len` in row-major order.
pub(super) struct FBlockRows<'a> {
    pub(super) kind: Kind,
    pub(super) g: &'a Table,
    pub(super) r0: usize,
    pub(super) len: usize,
}

impl UnitOp for FBlockRows<'_> {
    type Out = ArrayRef;

    fn apply<T: Cell>(self, s: &[T]) -> Result<ArrayRef> {
        let g = self.g;
        // Row r of the block is out[r * cols..][..cols] = s[c * rows + r0 + r].
        let units = transpose(s, self.r0, g.rows(), self.len, g.cols(), self.kind.width())?;
        T::array(units, mul(self.len, g.cols())?, self.kind)
    }
}

/// `row_no`, `col_no`, `val` of the non-zero elements of `rows`, row-major.
pub(super) struct NonZeros<'a> {
    pub(super) kind: Kind,
    pub(super) g: &'a Table,
    pub(super) rows: Range<usize>,
    pub(super) w: ColWidth,
    /// Added to every `row_no` (the whole array's number of the units' first row).
    pub(super) first_row: usize,
}

impl UnitOp for NonZeros<'_> {
    type Out = [ArrayRef; 3];

    fn apply<T: Cell>(self, s: &[T]) -> Result<[ArrayRef; 3]> {
        let kind = self.kind.numeric("non-zeros")?;
        let zero = |v: &T| v.is_zero(kind);
        let mk = |v: Vec<T>| {
            let n = v.len();
            T::array(v, n, kind)
        };
        let (g, rows, first) = (self.g, self.rows, self.first_row);
        match self.w {
            ColWidth::I16 => nz_arrays::<_, Int16Type>(s, g, rows, first, zero, mk),
            ColWidth::I32 => nz_arrays::<_, Int32Type>(s, g, rows, first, zero, mk),
            ColWidth::I64 => nz_arrays::<_, Int64Type>(s, g, rows, first, zero, mk),
        }
    }
}

/// The CSR parts (`indptr`, `indices`, values) of a 2-D array.
pub(super) struct Csr<'a> {
    pub(super) kind: Kind,
    pub(super) g: &'a Table,
}

impl UnitOp for Csr<'_> {
    type Out = (Vec<i64>, Vec<i32>, ArrayRef);

    fn apply<T: Cell>(self, s: &[T]) -> Result<Self::Out> {
        let kind = self.kind.numeric("CSR")?;
        let (indptr, indices, vals) = csr_parts(s, self.g, |v: &T| v.is_zero(kind))?;
        let n = vals.len();
        Ok((indptr, indices, T::array(vals, n, kind)?))
    }
}

/// The `n` x `m` matrix `out[i * m + j] = src[off + j * ld + i]` of `per`-unit elements:
/// the strided sub-matrix of `src` whose `m` columns of `n` contiguous elements start `ld`
/// apart at `off`, transposed by the crate's one tiled transpose.
pub(super) fn transpose<T: Copy + Default>(
    src: &[T],
    off: usize,
    ld: usize,
    n: usize,
    m: usize,
    per: usize,
) -> Result<Vec<T>> {
    let mut out = vec![T::default(); mul(mul(n, m)?, per)?];
    let from = Strided { off, ld };
    let to = Strided { off: 0, ld: m };
    if !layout::transpose_into(src, from, &mut out, to, (n, m), per) {
        return Err(out_of_range());
    }
    Ok(out)
}
