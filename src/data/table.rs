//! The table geometry of an array: rows along the first axis, columns the elements of a row
//! (the trailing axes flattened in C order), the memory order that matters, and where a
//! range of rows, or one column of it, lies in the payload. Every table reader (Arrow, the
//! front ends, [`RowReader`](crate::RowReader)) takes its geometry from here, bounded once by
//! [`Header::check_backed`].
//!
//! ```
//! use npyguard::{Dtype, Endian, Header, Table};
//! // A (4, 2, 3) int32 array in Fortran order: 4 rows of 6 columns.
//! let h = Header::new(Dtype::I32(Endian::Little), vec![4, 2, 3], true).unwrap();
//! let t = Table::of(&h).unwrap();
//! assert_eq!((t.rows(), t.cols(), t.trailing()), (4, 6, &[2, 3][..]));
//! assert!(t.is_fortran());
//! assert_eq!(t.row_bytes(), 24);
//! // Column 1 is element [r, 0, 1]: Fortran position 0 + 2 * 1 = 2 of the trailing axes.
//! assert_eq!(t.index(3, 1), 2 * 4 + 3);
//! // Rows 1..3 of column 1 are one run of the payload; rows 1..3 of all columns six.
//! assert_eq!(t.column_runs(1, 1..3).collect::<Vec<_>>(), [36..44]);
//! assert_eq!(t.row_runs(1..3).count(), 6);
//! ```

use core::ops::Range;

use crate::error::{Error, ErrorKind, Result};
use crate::format::header::Header;

/// Most columns a table may have for its column numbers to be 16-bit (32-bit beyond, up to
/// 2³¹ − 1 columns; 64-bit after that): see [`Table::col_no_bits`].
///
/// ```
/// use npyguard::{Dtype, Header, Table};
/// let n = npyguard::INT16_MAX_COLUMNS;
/// let t = |cols| Table::of(&Header::new(Dtype::U8, vec![1, cols], false).unwrap()).unwrap();
/// assert_eq!(t(n).col_no_bits(), 16);
/// assert_eq!(t(n + 1).col_no_bits(), 32);
/// ```
pub const INT16_MAX_COLUMNS: usize = 32_767;

/// An array seen as a table: `rows` along the first axis (1 for a 0-d array), each of
/// `cols` elements (the product of the trailing axes, flattened in C order, as NumPy's
/// `reshape(rows, -1)` does), in the memory order that matters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    rows: usize,
    trailing: alloc::vec::Vec<usize>,
    cols: usize,
    fortran: bool,
    item: usize,
}

impl Table {
    /// The table of `header`. Rows and columns that no payload byte backs (a zero-size
    /// array of shape `(2**40, 0)` or `(0, 2**60)`) each cost a reader a field, an index
    /// entry, a loop step or a line of output: both counts are bounded here, once, by
    /// [`Header::check_backed`] ([`ErrorKind::Unbacked`]). [`ErrorKind::ShapeOverflow`] for
    /// trailing axes whose product does not fit (possible only beside a zero axis).
    ///
    /// ```
    /// use npyguard::{Dtype, ErrorKind, Header, Table};
    /// let h = Header::new(Dtype::U8, vec![0, 1 << 40], false).unwrap();
    /// assert_eq!(Table::of(&h).unwrap_err().kind(), ErrorKind::Unbacked);
    /// ```
    pub fn of(header: &Header) -> Result<Table> {
        let shape = header.shape();
        let trailing = shape.get(1..).unwrap_or_default().to_vec();
        let cols = trailing
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| {
                Error::unplaced(ErrorKind::ShapeOverflow, "rows whose element count fits")
                    .found(alloc::format!("shape {shape:?}"))
            })?;
        let rows = shape.first().copied().unwrap_or(1);
        header.check_backed(rows as u64, "table rows")?;
        header.check_backed(cols as u64, "table columns")?;
        // Both orders lay the elements out alike unless two axes are longer than 1.
        let long_axes = shape.iter().filter(|&&d| d > 1).count();
        Ok(Table {
            rows,
            trailing,
            cols,
            fortran: header.fortran_order() && long_axes >= 2,
            item: header.dtype().itemsize(),
        })
    }

    /// Rows along the first axis (1 for a 0-d array).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Elements per row: the product of the trailing axes (1 for 0-d and 1-D arrays).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The axes after the first (empty for 0-d and 1-D arrays).
    pub fn trailing(&self) -> &[usize] {
        &self.trailing
    }

    /// Whether the payload is in Fortran order *and* that places elements differently from C
    /// order (at least two axes longer than 1: a 2-D array with more than one row and more
    /// than one column). Otherwise a row is contiguous and rows follow each other.
    pub fn is_fortran(&self) -> bool {
        self.fortran
    }

    /// Bytes per element (the dtype's item size).
    pub fn item_bytes(&self) -> usize {
        self.item
    }

    /// Payload bytes per row: columns × item size (fits: a validated header's sizes do).
    pub fn row_bytes(&self) -> usize {
        self.cols.saturating_mul(self.item)
    }

    /// Rows whose bytes fit in `bytes` (at least 1): the rows of a chunk of about `bytes`.
    pub fn rows_within(&self, bytes: usize) -> usize {
        bytes
            .checked_div(self.row_bytes().max(1))
            .unwrap_or(0)
            .max(1)
    }

    /// The narrowest signed integer width (16, 32 or 64 bits) that numbers every column
    /// (see [`INT16_MAX_COLUMNS`]): the type of a column number (`col_no`).
    pub fn col_no_bits(&self) -> u32 {
        if self.cols <= INT16_MAX_COLUMNS {
            16
        } else if i32::try_from(self.cols).is_ok() {
            32
        } else {
            64
        }
    }

    /// Index in the payload (in elements) of row `r`, column `c`; callers keep `r < rows`
    /// and `c < cols`.
    pub fn index(&self, r: usize, c: usize) -> usize {
        if self.fortran {
            self.fortran_column(c)
                .saturating_mul(self.rows)
                .saturating_add(r)
        } else {
            r.saturating_mul(self.cols).saturating_add(c)
        }
    }

    /// The payload's byte ranges that hold rows `rows` (clamped to the table), in payload
    /// order: one run in C order (or for all rows), else one run per column in the order
    /// the payload stores the columns. Read one after the other, they are those rows in the
    /// file's memory order.
    pub fn row_runs(&self, rows: Range<usize>) -> impl Iterator<Item = Range<u64>> + '_ {
        let rows = self.clamp(rows);
        let n = rows.end.saturating_sub(rows.start);
        let gather = self.fortran && n < self.rows;
        let runs = if gather { self.cols } else { 1 };
        (0..runs).map(move |f| {
            if gather {
                self.bytes(f.saturating_mul(self.rows).saturating_add(rows.start), n)
            } else {
                let first = rows.start.saturating_mul(self.cols);
                self.bytes(first, n.saturating_mul(self.cols))
            }
        })
    }

    /// The payload's byte ranges that hold column `c` of rows `rows` (clamped to the
    /// table), in row order: one run when the column is contiguous (Fortran order, one
    /// column, or one row), else one element per row.
    pub fn column_runs(
        &self,
        c: usize,
        rows: Range<usize>,
    ) -> impl Iterator<Item = Range<u64>> + '_ {
        let rows = self.clamp(rows);
        let n = rows.end.saturating_sub(rows.start);
        let whole = self.fortran || self.cols == 1 || n <= 1;
        let runs = if whole { 1 } else { n };
        let per = if whole { n } else { 1 };
        (0..runs).map(move |k| self.bytes(self.index(rows.start.saturating_add(k), c), per))
    }

    /// Position of C-order column `c` among the columns as Fortran order stores them: the
    /// trailing index `(i1, …, ik)` of `c`, then `i1 + d1 * (i2 + d2 * (…))`.
    fn fortran_column(&self, c: usize) -> usize {
        let (mut rest, mut f) = (c, 0usize);
        for &d in self.trailing.iter().rev() {
            let i = rest.checked_rem(d).unwrap_or(0);
            rest = rest.checked_div(d).unwrap_or(0);
            f = f.saturating_mul(d).saturating_add(i);
        }
        f
    }

    /// `rows` inside `0..rows`.
    fn clamp(&self, rows: Range<usize>) -> Range<usize> {
        let end = rows.end.min(self.rows);
        rows.start.min(end)..end
    }

    /// Bytes of `len` elements from element `first`.
    fn bytes(&self, first: usize, len: usize) -> Range<u64> {
        let start = (first as u64).saturating_mul(self.item as u64);
        start..start.saturating_add((len as u64).saturating_mul(self.item as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::dtype::{Dtype, Endian};

    fn table(shape: &[usize], fortran: bool) -> Table {
        let h = Header::new(Dtype::I16(Endian::Little), shape.to_vec(), fortran).unwrap();
        Table::of(&h).unwrap()
    }

    /// Memory index of the C-order multi-index `idx` of `shape`, by NumPy's strides.
    fn strided(shape: &[usize], idx: &[usize], fortran: bool) -> usize {
        let mut order: Vec<usize> = (0..shape.len()).collect();
        if !fortran {
            order.reverse();
        }
        let (mut at, mut stride) = (0, 1);
        for k in order {
            at += idx[k] * stride;
            stride *= shape[k];
        }
        at
    }

    #[test]
    fn index_matches_numpy_strides() {
        for shape in [
            vec![4, 3],
            vec![3, 2, 4],
            vec![2, 3, 1, 2],
            vec![1, 3, 4],
            vec![5],
        ] {
            for fortran in [false, true] {
                let t = table(&shape, fortran);
                let trailing = &shape[1..];
                for r in 0..shape[0] {
                    for c in 0..t.cols() {
                        let mut idx = vec![r];
                        let mut rest = c;
                        let mut tail = vec![0; trailing.len()];
                        for k in (0..trailing.len()).rev() {
                            tail[k] = rest % trailing[k];
                            rest /= trailing[k];
                        }
                        idx.extend(tail);
                        let want = strided(&shape, &idx, fortran);
                        assert_eq!(t.index(r, c), want, "{shape:?} F={fortran} ({r}, {c})");
                    }
                }
            }
        }
    }

    #[test]
    fn order_matters_only_with_two_long_axes() {
        assert!(table(&[2, 3], true).is_fortran());
        assert!(!table(&[2, 3], false).is_fortran());
        assert!(!table(&[1, 3], true).is_fortran());
        assert!(!table(&[3, 1], true).is_fortran());
        assert!(table(&[1, 3, 4], true).is_fortran());
        assert!(!table(&[7], true).is_fortran());
        assert!(!table(&[], true).is_fortran());
    }

    #[test]
    fn runs_cover_exactly_the_rows() {
        for (shape, fortran) in [
            (vec![5, 3], true),
            (vec![5, 3], false),
            (vec![4, 2, 3], true),
        ] {
            let t = table(&shape, fortran);
            for rows in [0..5, 1..3, 2..2, 3..9] {
                let rows = t.clamp(rows);
                let mut want: Vec<u64> = rows
                    .clone()
                    .flat_map(|r| (0..t.cols()).map(move |c| (r, c)))
                    .map(|(r, c)| 2 * t.index(r, c) as u64)
                    .collect();
                want.sort();
                let mut got: Vec<u64> = t
                    .row_runs(rows.clone())
                    .flat_map(|b| b.step_by(2))
                    .collect();
                got.sort();
                assert_eq!(got, want, "{shape:?} F={fortran} {rows:?}");
                for c in 0..t.cols() {
                    let col: Vec<u64> = t
                        .column_runs(c, rows.clone())
                        .flat_map(|b| b.step_by(2))
                        .collect();
                    let want: Vec<u64> = rows.clone().map(|r| 2 * t.index(r, c) as u64).collect();
                    assert_eq!(col, want, "{shape:?} F={fortran} column {c} {rows:?}");
                }
            }
        }
        assert_eq!(table(&[5, 3], true).row_runs(0..5).count(), 1);
        assert_eq!(table(&[5, 3], true).row_runs(1..3).count(), 3);
        assert_eq!(table(&[5, 3], false).column_runs(1, 0..5).count(), 5);
        assert_eq!(table(&[5, 3], true).column_runs(1, 0..5).count(), 1);
    }

    #[test]
    fn sizes_and_bounds() {
        let t = table(&[6, 2, 5], false);
        assert_eq!((t.rows(), t.cols(), t.row_bytes()), (6, 10, 20));
        assert_eq!(t.rows_within(50), 2);
        assert_eq!(t.rows_within(1), 1);
        let scalar = table(&[], false);
        assert_eq!(
            (scalar.rows(), scalar.cols(), scalar.trailing()),
            (1, 1, &[][..])
        );
        let wide = Header::new(Dtype::U8, vec![2, 0, 1 << 40], false).unwrap();
        assert_eq!(Table::of(&wide).unwrap().cols(), 0);
        let unbacked = Header::new(Dtype::U8, vec![1 << 40, 0], false).unwrap();
        let err = Table::of(&unbacked).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unbacked);
        assert!(err.to_string().contains("table rows"), "{err}");
        let t = |cols| table(&[1, cols], false).col_no_bits();
        assert_eq!(
            (t(1), t(INT16_MAX_COLUMNS), t(INT16_MAX_COLUMNS + 1)),
            (16, 16, 32)
        );
    }
}
