//! Non-zero entries: counted first, then written into exactly-sized buffers, block by block; CSR parts.

use crate::arrow::buffers::prim_vec;
use crate::arrow::support::add;
use crate::arrow::support::mul;
use crate::arrow::support::out_of_range;
use crate::arrow::support::row_no;
use crate::arrow::support::sub;
use crate::data::table::Table;
use std::ops::Range;

use arrow_array::types::{ArrowPrimitiveType, Int64Type};
use arrow_array::ArrayRef;

use crate::error::Result;

/// Rows the non-zero scan handles at once (bounds its per-row counters).
pub(super) const NZ_BLOCK_ROWS: usize = 65_536;

/// Number of non-zero elements in rows `rows`.
pub(super) fn nz_count<T>(
    s: &[T],
    g: &Table,
    rows: &Range<usize>,
    zero: impl Fn(&T) -> bool,
) -> Result<usize> {
    let len = rows.end.saturating_sub(rows.start);
    if g.is_fortran() {
        let mut n = 0usize;
        for c in 0..g.cols() {
            let seg = sub(s, g.index(rows.start, c), len)?;
            n = n.saturating_add(seg.iter().filter(|v| !zero(v)).count());
        }
        Ok(n)
    } else {
        let block = sub(s, mul(rows.start, g.cols())?, mul(len, g.cols())?)?;
        Ok(block.iter().filter(|v| !zero(v)).count())
    }
}

/// Appends the non-zeros of rows `rows` to `cols`/`vals` in row-major order and
/// sets `counts` to the number found in each row.
#[allow(clippy::too_many_arguments)]
pub(super) fn nz_fill<T: Copy + Default, C: Copy + Default + TryFrom<usize>>(
    s: &[T],
    g: &Table,
    rows: &Range<usize>,
    zero: impl Fn(&T) -> bool,
    counts: &mut Vec<usize>,
    cols: &mut Vec<C>,
    vals: &mut Vec<T>,
) -> Result<()> {
    let col = |c: usize| C::try_from(c).map_err(|_| out_of_range());
    let len = rows.end.saturating_sub(rows.start);
    counts.clear();
    if g.is_fortran() {
        // Pass 1 over the block's column segments: per-row counts.
        counts.resize(len, 0);
        for c in 0..g.cols() {
            let seg = sub(s, g.index(rows.start, c), len)?;
            for (n, v) in counts.iter_mut().zip(seg) {
                *n = n.wrapping_add(usize::from(!zero(v)));
            }
        }
        // Each row's first output slot.
        let base = vals.len();
        let mut next = Vec::with_capacity(len);
        let mut at = base;
        for &n in counts.iter() {
            next.push(at);
            at = add(at, n)?;
        }
        vals.resize(at, T::default());
        cols.resize(at, C::default());
        // Pass 2: columns in ascending order, so each row's entries come out sorted.
        for c in 0..g.cols() {
            let id = col(c)?;
            let seg = sub(s, g.index(rows.start, c), len)?;
            for (p, v) in next.iter_mut().zip(seg) {
                if !zero(v) {
                    if let (Some(o), Some(k)) = (vals.get_mut(*p), cols.get_mut(*p)) {
                        *o = *v;
                        *k = id;
                    }
                    *p = p.saturating_add(1);
                }
            }
        }
    } else if g.cols() == 1 {
        let id = col(0)?;
        for v in sub(s, rows.start, len)? {
            let nz = !zero(v);
            if nz {
                cols.push(id);
                vals.push(*v);
            }
            counts.push(usize::from(nz));
        }
    } else if g.cols() == 0 {
        counts.resize(len, 0);
    } else {
        let block = sub(s, mul(rows.start, g.cols())?, mul(len, g.cols())?)?;
        for row in block.chunks_exact(g.cols()) {
            let before = vals.len();
            for (c, v) in row.iter().enumerate() {
                if !zero(v) {
                    cols.push(col(c)?);
                    vals.push(*v);
                }
            }
            counts.push(vals.len().saturating_sub(before));
        }
    }
    Ok(())
}

/// Calls `f(block)` for consecutive blocks of at most [`NZ_BLOCK_ROWS`] rows covering `rows`.
pub(super) fn for_blocks(
    rows: Range<usize>,
    mut f: impl FnMut(Range<usize>) -> Result<()>,
) -> Result<()> {
    let mut r = rows.start;
    while r < rows.end {
        let end = r.saturating_add(NZ_BLOCK_ROWS).min(rows.end);
        f(r..end)?;
        r = end;
    }
    Ok(())
}

/// The non-zero count of `rows` when the output buffers must be sized up front; `None`
/// for Fortran data that [`nz_fill`] handles in one block, which counts each row itself
/// and sizes its buffers exactly (so the array is read twice, not three times).
pub(super) fn exact_total<T>(
    s: &[T],
    g: &Table,
    rows: &Range<usize>,
    zero: impl Fn(&T) -> bool,
) -> Result<Option<usize>> {
    if g.is_fortran() && rows.end.saturating_sub(rows.start) <= NZ_BLOCK_ROWS {
        return Ok(None);
    }
    nz_count(s, g, rows, zero).map(Some)
}

/// `row_no` (plus `first_row`), `col_no`, `val` of the non-zeros of `rows`.
pub(super) fn nz_arrays<T: Copy + Default, C: ArrowPrimitiveType>(
    s: &[T],
    g: &Table,
    rows: Range<usize>,
    first_row: usize,
    zero: impl Fn(&T) -> bool + Copy,
    mk: impl Fn(Vec<T>) -> Result<ArrayRef>,
) -> Result<[ArrayRef; 3]>
where
    C::Native: Default + TryFrom<usize>,
{
    let total = exact_total(s, g, &rows, zero)?;
    let cap = total.unwrap_or(0);
    let mut row_nos: Vec<i64> = Vec::with_capacity(cap);
    let mut cols: Vec<C::Native> = Vec::with_capacity(cap);
    let mut vals: Vec<T> = Vec::with_capacity(cap);
    let mut counts = Vec::new();
    for_blocks(rows, |block| {
        nz_fill(s, g, &block, zero, &mut counts, &mut cols, &mut vals)?;
        row_nos.reserve_exact(vals.len().saturating_sub(row_nos.len()));
        for (r, &n) in block.zip(counts.iter()) {
            let r = row_no(add(r, first_row)?)?;
            row_nos.extend(std::iter::repeat_n(r, n));
        }
        Ok(())
    })?;
    let n = vals.len();
    if row_nos.len() != n || cols.len() != n || total.is_some_and(|t| t != n) {
        return Err(out_of_range());
    }
    Ok([
        prim_vec::<Int64Type>(row_nos)?,
        prim_vec::<C>(cols)?,
        mk(vals)?,
    ])
}

pub(super) fn csr_parts<T: Copy + Default>(
    s: &[T],
    g: &Table,
    zero: impl Fn(&T) -> bool + Copy,
) -> Result<(Vec<i64>, Vec<i32>, Vec<T>)> {
    let rows = 0..g.rows();
    let total = exact_total(s, g, &rows, zero)?;
    let mut indptr: Vec<i64> = Vec::with_capacity(g.rows().saturating_add(1));
    indptr.push(0);
    let mut indices: Vec<i32> = Vec::with_capacity(total.unwrap_or(0));
    let mut vals: Vec<T> = Vec::with_capacity(total.unwrap_or(0));
    let mut counts = Vec::new();
    let mut end = 0usize;
    for_blocks(rows, |block| {
        nz_fill(s, g, &block, zero, &mut counts, &mut indices, &mut vals)?;
        for &n in counts.iter() {
            end = add(end, n)?;
            indptr.push(row_no(end)?);
        }
        Ok(())
    })?;
    if indices.len() != vals.len() || total.is_some_and(|t| t != vals.len()) {
        return Err(out_of_range());
    }
    Ok((indptr, indices, vals))
}
