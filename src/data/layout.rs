//! Memory order: reindexing between Fortran (column-major) and C (row-major) order.
//!
//! A Fortran-order payload of shape `(d0, …, dn-1)` is a C-order array of the
//! reversed shape; converting it to C order reverses the axes. The work is done
//! in 32 × 32 tiles over the first and last axes (the two with the largest
//! stride difference) by the crate's one transpose, which keeps both the reads and the
//! writes in cache.
//!
//! ```
//! use npyguard::layout::{fortran_to_c, c_to_fortran};
//! // The 2 x 3 matrix [[1, 2, 3], [4, 5, 6]] in Fortran order is 1 4 2 5 3 6.
//! let f = [1, 4, 2, 5, 3, 6];
//! let c = fortran_to_c(&f, &[2, 3]);
//! assert_eq!(c, [1, 2, 3, 4, 5, 6]);
//! assert_eq!(c_to_fortran(&c, &[2, 3]), f);
//! ```

use crate::data::buffer::{Buffer, Direct};
use crate::limits::DEFAULT_HUGE_PAGE_THRESHOLD;
use crate::prelude::*;

/// Side of the square tiles [`transpose_into`] works in (a tile of `f64` is 8 KiB).
const TILE: usize = 32;

/// Product of `shape`, or `None` on overflow.
pub fn element_count(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// Where a matrix starts in a buffer and how far apart (in elements) its lines start.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Strided {
    /// Index of element (0, 0).
    pub off: usize,
    /// Distance between consecutive lines.
    pub ld: usize,
}

/// The one transpose of the crate: for `i < n`, `j < m`, element `src.off + j * src.ld + i`
/// of `from` goes to element `dst.off + i * dst.ld + j` of `to`, each element being `per`
/// units. Works in `TILE` × `TILE` tiles: reads are contiguous runs along `i`, writes
/// stay inside one tile, so both sides stay in cache.
///
/// Returns `false` (after moving what is in range) when an element lies outside either buffer.
pub(crate) fn transpose_into<T: Copy>(
    from: &[T],
    src: Strided,
    to: &mut [T],
    dst: Strided,
    (n, m): (usize, usize),
    per: usize,
) -> bool {
    if per == 0 {
        return true;
    }
    let mut whole = true;
    for i0 in (0..n).step_by(TILE) {
        let i1 = i0.saturating_add(TILE).min(n);
        for j0 in (0..m).step_by(TILE) {
            let j1 = j0.saturating_add(TILE).min(m);
            let full = i1.saturating_sub(i0) == TILE && j1.saturating_sub(j0) == TILE;
            if per == 1 && full && full_tile(from, src, to, dst, i0, j0) {
                continue;
            }
            for j in j0..j1 {
                let first = src
                    .off
                    .saturating_add(j.saturating_mul(src.ld))
                    .saturating_add(i0);
                let units = first.saturating_mul(per)
                    ..first
                        .saturating_add(i1.saturating_sub(i0))
                        .saturating_mul(per);
                let Some(run) = from.get(units) else {
                    whole = false;
                    continue;
                };
                let at = dst
                    .off
                    .saturating_add(i0.saturating_mul(dst.ld))
                    .saturating_add(j);
                whole &= scatter(run, to, at, dst.ld, per);
            }
        }
    }
    whole
}

/// Side of the blocks a full tile of one-unit elements moves in: eight runs of eight
/// values read, then written as eight runs of eight (a block stays in registers, and bounds
/// are checked once per run instead of once per value).
const BLOCK: usize = 8;

/// Moves the full `TILE` × `TILE` tile at (`i0`, `j0`) of one-unit elements block by block;
/// `false` (the caller then moves it value by value) when a block lies outside a buffer.
fn full_tile<T: Copy>(
    from: &[T],
    src: Strided,
    to: &mut [T],
    dst: Strided,
    i0: usize,
    j0: usize,
) -> bool {
    for bi in (i0..i0.saturating_add(TILE)).step_by(BLOCK) {
        for bj in (j0..j0.saturating_add(TILE)).step_by(BLOCK) {
            if !block(from, src, to, dst, bi, bj) {
                return false;
            }
        }
    }
    true
}

/// Moves the `BLOCK` × `BLOCK` block at (`i0`, `j0`): reads `BLOCK` runs along `i`, writes
/// `BLOCK` runs along `j`.
fn block<T: Copy>(
    from: &[T],
    src: Strided,
    to: &mut [T],
    dst: Strided,
    i0: usize,
    j0: usize,
) -> bool {
    let mut runs: [Option<&[T; BLOCK]>; BLOCK] = [None; BLOCK];
    for (jj, run) in runs.iter_mut().enumerate() {
        let s = src
            .off
            .saturating_add(j0.saturating_add(jj).saturating_mul(src.ld))
            .saturating_add(i0);
        *run = from
            .get(s..s.saturating_add(BLOCK))
            .and_then(|r| r.try_into().ok());
        if run.is_none() {
            return false;
        }
    }
    for ii in 0..BLOCK {
        let d = dst
            .off
            .saturating_add(i0.saturating_add(ii).saturating_mul(dst.ld))
            .saturating_add(j0);
        let Some(out) = to.get_mut(d..d.saturating_add(BLOCK)) else {
            return false;
        };
        for (o, run) in out.iter_mut().zip(runs.iter().flatten()) {
            if let Some(&v) = run.get(ii) {
                *o = v;
            }
        }
    }
    true
}

/// Writes the `per`-unit elements of `run` to elements `at`, `at + step`, … of `to`.
fn scatter<T: Copy>(run: &[T], to: &mut [T], mut at: usize, step: usize, per: usize) -> bool {
    let mut whole = true;
    if per == 1 {
        for &v in run {
            match to.get_mut(at) {
                Some(o) => *o = v,
                None => whole = false,
            }
            at = at.saturating_add(step);
        }
        return whole;
    }
    for unit in run.chunks_exact(per) {
        let start = at.saturating_mul(per);
        match to.get_mut(start..start.saturating_add(per)) {
            Some(o) => o.copy_from_slice(unit),
            None => whole = false,
        }
        at = at.saturating_add(step);
    }
    whole
}

/// Element strides of `shape` in C order and in Fortran order (saturating: callers checked
/// the element count).
pub(crate) fn strides(shape: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let n = shape.len();
    let mut c = vec![1usize; n];
    let mut f = vec![1usize; n];
    let mut acc = 1usize;
    for (k, &d) in shape.iter().enumerate().rev() {
        if let Some(s) = c.get_mut(k) {
            *s = acc;
        }
        acc = acc.saturating_mul(d);
    }
    acc = 1;
    for (k, &d) in shape.iter().enumerate() {
        if let Some(s) = f.get_mut(k) {
            *s = acc;
        }
        acc = acc.saturating_mul(d);
    }
    (c, f)
}

/// Reorders Fortran-order `data` of `shape`, whose elements are `per` units each, into C
/// order: for every index of the middle axes, the (first axis × last axis) matrix is
/// [`transpose_into`] its place.
///
/// `data.len()` must equal the product of `shape` times `per`; otherwise the input is
/// returned unchanged.
pub(crate) fn fortran_to_c_units<T: Copy + Send + Sync>(
    data: &[T],
    shape: &[usize],
    per: usize,
) -> Vec<T> {
    // Pre-filled by one sequential copy: faulting 4 KiB pages in sequentially is much
    // cheaper than faulting them in the scattered order of the tile writes (measured).
    let mut out = data.to_vec();
    if reindexes(data.len(), shape, per) {
        fortran_to_c_into(data, shape, per, &mut out);
    }
    out
}

/// Whether `len` units of `shape` (`per` units an element) need reindexing: two axes or
/// more, and exactly that shape's units. Otherwise the values stay as they are.
fn reindexes(len: usize, shape: &[usize], per: usize) -> bool {
    let units = element_count(shape).and_then(|c| c.checked_mul(per));
    shape.len() >= 2 && per > 0 && units == Some(len) && len > 0
}

/// [`fortran_to_c_units`] into a fresh [`Buffer`]: huge-page memory for large arrays of a
/// type with a [`Direct`] reading (no pre-filling pass: the pages fault in 2 MiB at a
/// time), else a pre-filled `Vec`.
pub(crate) fn fortran_to_c_buffer<T: Copy + Send + Sync>(
    direct: Option<Direct<T>>,
    data: &[T],
    shape: &[usize],
    per: usize,
) -> Buffer<T> {
    match direct {
        Some(d) => {
            let mut out = (d.fresh)(data.len(), DEFAULT_HUGE_PAGE_THRESHOLD);
            fortran_to_c_into(data, shape, per, &mut out);
            out
        }
        None => fortran_to_c_units(data, shape, per).into(),
    }
}

/// [`fortran_to_c_units`] into `out`, which must be as long as `data` (else it is left as it
/// is); `data` that does not hold `shape` is copied unchanged. Arrays of [`PARALLEL_UNITS`] or more are
/// reindexed on two threads.
pub(crate) fn fortran_to_c_into<T: Copy + Send + Sync>(
    data: &[T],
    shape: &[usize],
    per: usize,
    out: &mut [T],
) {
    if out.len() != data.len() {
        return;
    }
    if !reindexes(data.len(), shape, per) {
        // Nothing to reindex (one axis, or not this shape's data): the values as they are.
        out.copy_from_slice(data);
        return;
    }
    let units = element_count(shape).and_then(|c| c.checked_mul(per));
    let rows = shape.first().copied().unwrap_or(0);
    // In C order the first axis is the slowest, so rows `0..h` of the output are its first
    // `h * row_units` units: the two halves are disjoint slices, reindexed on two threads.
    let row_units = units.unwrap_or(0).checked_div(rows).unwrap_or(0);
    let threads = if units.unwrap_or(0) >= PARALLEL_UNITS {
        parallelism()
    } else {
        1
    };
    let h = rows.checked_div(threads).unwrap_or(rows);
    if threads < 2 || h == 0 {
        reindex_rows(data, shape, per, 0..rows, out);
        return;
    }
    let (top, bottom) = out.split_at_mut(h.saturating_mul(row_units).min(units.unwrap_or(0)));
    in_parallel(
        || reindex_rows(data, shape, per, 0..h, top),
        || reindex_rows(data, shape, per, h..rows, bottom),
    );
}

/// Threads the reindex may use: two where the system has them (std), else one.
fn parallelism() -> usize {
    #[cfg(feature = "std")]
    return std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
    #[cfg(not(feature = "std"))]
    1
}

/// Runs `a` on a scoped thread and `b` on this one (both here, in turn, without std).
fn in_parallel(a: impl FnOnce() + Send, b: impl FnOnce()) {
    #[cfg(feature = "std")]
    std::thread::scope(|s| {
        s.spawn(a);
        b();
    });
    #[cfg(not(feature = "std"))]
    {
        a();
        b();
    }
}

/// Arrays of at least this many units are reindexed on two threads (below, a thread's start
/// costs more than it saves).
const PARALLEL_UNITS: usize = 1 << 20;

/// Writes C-order rows `rows` (of the first axis) of Fortran-order `data` of `shape` into
/// `out`, which holds exactly those rows: for every index of the middle axes, the
/// (rows × last axis) block is [`transpose_into`] its place.
fn reindex_rows<T: Copy>(
    data: &[T],
    shape: &[usize],
    per: usize,
    rows: core::ops::Range<usize>,
    out: &mut [T],
) {
    let Some(&cols) = shape.last() else { return };
    let (c_strides, f_strides) = strides(shape);
    let middle = shape
        .get(1..shape.len().saturating_sub(1))
        .unwrap_or_default();
    let row_dst = c_strides.first().copied().unwrap_or(0);
    let col_src = f_strides.last().copied().unwrap_or(0);
    let n = rows.end.saturating_sub(rows.start);
    if n == 0 {
        return;
    }
    let mut idx = vec![0usize; middle.len()];
    loop {
        let offset = |strides: &[usize]| {
            idx.iter()
                .zip(strides.get(1..).unwrap_or_default())
                .fold(0usize, |acc, (&i, &s)| {
                    acc.saturating_add(i.saturating_mul(s))
                })
        };
        let src = Strided {
            off: offset(&f_strides).saturating_add(rows.start),
            ld: col_src,
        };
        let dst = Strided {
            off: offset(&c_strides),
            ld: row_dst,
        };
        transpose_into(data, src, out, dst, (n, cols), per);
        if !advance(&mut idx, middle) {
            return;
        }
    }
}

/// Steps the odometer `idx` over `dims` (last axis fastest); `false` once it wrapped around.
fn advance(idx: &mut [usize], dims: &[usize]) -> bool {
    for (i, &d) in idx.iter_mut().zip(dims).rev() {
        *i = i.saturating_add(1);
        if *i < d {
            return true;
        }
        *i = 0;
    }
    false
}

/// Reorders a Fortran-order square matrix (shape `(n, n)`, one unit per element) into C order
/// where it lies, which for a square is a transpose in place: no second buffer, and half the
/// memory traffic of [`fortran_to_c_buffer`] (each value is read and written once, into lines
/// already in cache; a fresh buffer is also zeroed by the kernel and read before it is written).
/// Large matrices use two threads. `false` (and `data` untouched) for any other shape.
pub(crate) fn fortran_to_c_in_place<T: Copy + Send>(data: &mut [T], shape: &[usize]) -> bool {
    let &[n, m] = shape else { return false };
    if n != m || n < 2 || element_count(shape) != Some(data.len()) {
        return false;
    }
    let parallel = data.len() >= PARALLEL_UNITS && parallelism() >= 2;
    let mut rows: Vec<&mut [T]> = data.chunks_exact_mut(n).collect();
    if parallel {
        square_on_two_threads(&mut rows);
    } else {
        square(&mut rows, 0, &mut Tiles::default());
    }
    true
}

/// Transposes the square matrix `rows` in two parallel phases: first the two diagonal
/// quadrants (one each), then the two halves of the off-diagonal exchange. The halves use
/// disjoint rows and columns, so each thread holds only the row pieces it writes.
fn square_on_two_threads<T: Copy + Send>(rows: &mut [&mut [T]]) {
    let n = rows.len();
    let h = n / 2;
    let q = h / 2;
    let (top, bottom) = rows.split_at_mut(h);
    // Bottom rows split at column q: [0, q) pairs with the first half of the top rows.
    let (mut low, mut high): (Vec<&mut [T]>, Vec<&mut [T]>) =
        bottom.iter_mut().map(|r| r.split_at_mut(q)).unzip();
    in_parallel(
        || square(top, 0, &mut Tiles::default()),
        || square(&mut high, h.saturating_sub(q), &mut Tiles::default()),
    );
    let (first, second) = top.split_at_mut(q);
    in_parallel(
        || exchange(first, h, &mut low, 0, &mut Tiles::default()),
        || exchange(second, h, &mut high, 0, &mut Tiles::default()),
    );
}

/// Two tiles' worth of scratch space, kept across tiles.
struct Tiles<T> {
    a: Vec<T>,
    b: Vec<T>,
}

impl<T> Default for Tiles<T> {
    fn default() -> Self {
        Tiles {
            a: Vec::new(),
            b: Vec::new(),
        }
    }
}

/// Transposes in place the square whose rows are `rows` and whose columns start at `col`
/// (as many as there are rows): the two diagonal quadrants recursively, then the exchange
/// of the other two. Recursion halves the side, so it ends in cache-sized squares.
fn square<T: Copy>(rows: &mut [&mut [T]], col: usize, tiles: &mut Tiles<T>) {
    let m = rows.len();
    if m <= TILE {
        return small_square(rows, col);
    }
    let h = m / 2;
    let (top, bottom) = rows.split_at_mut(h);
    square(top, col, tiles);
    square(bottom, col.saturating_add(h), tiles);
    exchange(top, col.saturating_add(h), bottom, col, tiles);
}

/// The base case of [`square`]: swaps each value above the diagonal with its mirror.
fn small_square<T: Copy>(rows: &mut [&mut [T]], col: usize) {
    for j in 1..rows.len() {
        let (upper, lower) = rows.split_at_mut(j);
        let Some(row_j) = lower.first_mut() else {
            return;
        };
        for (i, row_i) in upper.iter_mut().enumerate() {
            if let (Some(x), Some(y)) = (
                row_i.get_mut(col.saturating_add(j)),
                row_j.get_mut(col.saturating_add(i)),
            ) {
                core::mem::swap(x, y);
            }
        }
    }
}

/// Exchanges `a` (p rows, columns from `a_col`, as many as `b` has rows) with the transpose
/// of `b` (q rows, columns from `b_col`, as many as `a` has rows): `a[i][j]` ↔ `b[j][i]`,
/// tile by tile through two scratch tiles.
fn exchange<T: Copy>(
    a: &mut [&mut [T]],
    a_col: usize,
    b: &mut [&mut [T]],
    b_col: usize,
    tiles: &mut Tiles<T>,
) {
    let (p, q) = (a.len(), b.len());
    for i0 in (0..p).step_by(TILE) {
        let i1 = i0.saturating_add(TILE).min(p);
        for j0 in (0..q).step_by(TILE) {
            let j1 = j0.saturating_add(TILE).min(q);
            let (Some(a_rows), Some(b_rows)) = (a.get_mut(i0..i1), b.get_mut(j0..j1)) else {
                return;
            };
            let a_cols = a_col.saturating_add(j0)..a_col.saturating_add(j1);
            let b_cols = b_col.saturating_add(i0)..b_col.saturating_add(i1);
            exchange_tile(a_rows, a_cols, b_rows, b_cols, tiles);
        }
    }
}

/// One tile of [`exchange`]: both tiles are copied out row by row, then each is written from
/// the other's copy, read down its columns (in cache), in whole rows.
fn exchange_tile<T: Copy>(
    a: &mut [&mut [T]],
    a_cols: core::ops::Range<usize>,
    b: &mut [&mut [T]],
    b_cols: core::ops::Range<usize>,
    tiles: &mut Tiles<T>,
) {
    copy_out(a, &a_cols, &mut tiles.a);
    copy_out(b, &b_cols, &mut tiles.b);
    copy_in_transposed(a, &a_cols, &tiles.b);
    copy_in_transposed(b, &b_cols, &tiles.a);
}

/// The tile `rows` × `cols`, row after row, into `out`.
fn copy_out<T: Copy>(rows: &[&mut [T]], cols: &core::ops::Range<usize>, out: &mut Vec<T>) {
    out.clear();
    for row in rows {
        out.extend_from_slice(row.get(cols.clone()).unwrap_or_default());
    }
}

/// Writes the tile `rows` × `cols` from `tile`, the row-by-row copy of a tile with the
/// transposed shape: row `i` of the destination is column `i` of `tile`.
fn copy_in_transposed<T: Copy>(rows: &mut [&mut [T]], cols: &core::ops::Range<usize>, tile: &[T]) {
    let width = rows.len();
    for (i, row) in rows.iter_mut().enumerate() {
        let Some(out) = row.get_mut(cols.clone()) else {
            continue;
        };
        let column = tile.iter().skip(i).step_by(width.max(1));
        for (o, &v) in out.iter_mut().zip(column) {
            *o = v;
        }
    }
}

/// Reorders Fortran-order `data` of `shape` into C order.
///
/// `data.len()` must equal the product of `shape`; otherwise the input is returned unchanged.
pub fn fortran_to_c<T: Copy + Send + Sync>(data: &[T], shape: &[usize]) -> Vec<T> {
    fortran_to_c_units(data, shape, 1)
}

/// Reorders C-order `data` of `shape` into Fortran order.
pub fn c_to_fortran<T: Copy + Send + Sync>(data: &[T], shape: &[usize]) -> Vec<T> {
    let reversed: Vec<usize> = shape.iter().rev().copied().collect();
    fortran_to_c(data, &reversed)
}

/// [`fortran_to_c`] for elements stored as `itemsize`-byte chunks of `data`.
pub fn fortran_to_c_bytes(data: &[u8], shape: &[usize], itemsize: usize) -> Vec<u8> {
    fortran_to_c_units(data, shape, itemsize)
}

/// [`c_to_fortran`] for elements stored as `itemsize`-byte chunks of `data`.
pub fn c_to_fortran_bytes(data: &[u8], shape: &[usize], itemsize: usize) -> Vec<u8> {
    let reversed: Vec<usize> = shape.iter().rev().copied().collect();
    fortran_to_c_bytes(data, &reversed, itemsize)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference: compute each C index's Fortran index by decomposing the multi-index.
    fn naive(data: &[u32], shape: &[usize]) -> Vec<u32> {
        let n: usize = shape.iter().product();
        (0..n)
            .map(|c| {
                let mut rem = c;
                let mut idx = vec![0; shape.len()];
                for k in (0..shape.len()).rev() {
                    idx[k] = rem % shape[k];
                    rem /= shape[k];
                }
                let mut f = 0;
                let mut stride = 1;
                for k in 0..shape.len() {
                    f += idx[k] * stride;
                    stride *= shape[k];
                }
                data[f]
            })
            .collect()
    }

    fn assert_square_in_place(n: usize) {
        let data: Vec<u32> = (0..(n * n) as u32).collect();
        let mut inplace = data.clone();
        assert!(fortran_to_c_in_place(&mut inplace, &[n, n]), "{n}");
        assert_eq!(inplace, naive(&data, &[n, n]), "{n}");
    }

    /// 1025 x 1025 is past `PARALLEL_UNITS`: the two-thread phases, an odd side split unevenly.
    #[test]
    #[cfg_attr(miri, ignore)] // a million elements: hours under Miri; no unsafe to check
    fn large_squares_are_transposed_in_place_on_two_threads() {
        assert_square_in_place(1025);
    }

    #[test]
    fn square_matrices_are_transposed_in_place_as_the_reindex_does() {
        for n in [2usize, 3, 32, 33, 65] {
            assert_square_in_place(n);
        }
        for shape in [vec![2, 3], vec![4], vec![2, 2, 2], vec![1, 1]] {
            let len: usize = shape.iter().product();
            let mut data: Vec<u32> = (0..len as u32).collect();
            assert!(!fortran_to_c_in_place(&mut data, &shape), "{shape:?}");
            assert_eq!(data, (0..len as u32).collect::<Vec<_>>());
        }
        let mut short = vec![0u32; 3];
        assert!(!fortran_to_c_in_place(&mut short, &[2, 2]));
    }

    #[test]
    fn matches_naive_reindex() {
        for shape in [
            vec![2, 3],
            vec![3, 2, 4],
            vec![1, 1, 1, 1, 2],
            vec![33, 65],
            vec![5, 1, 70, 3],
            vec![7],
        ] {
            let n: usize = shape.iter().product();
            let data: Vec<u32> = (0..n as u32).collect();
            assert_eq!(
                fortran_to_c(&data, &shape),
                naive(&data, &shape),
                "{shape:?}"
            );
            assert_eq!(c_to_fortran(&fortran_to_c(&data, &shape), &shape), data);
            let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
            let want: Vec<u8> = naive(&data, &shape)
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect();
            assert_eq!(fortran_to_c_bytes(&bytes, &shape, 4), want);
        }
    }

    /// Arrays of at least `PARALLEL_UNITS` units are reindexed on two threads, split along the
    /// first axis: odd and even row counts, 2-D, 3-D, one row, multi-unit elements.
    #[test]
    #[cfg_attr(miri, ignore)] // millions of elements: hours under Miri; no unsafe to check
    fn two_thread_reindex_matches_naive() {
        for shape in [
            vec![1031, 1021],
            vec![1030, 1021],
            vec![129, 7, 1201],
            vec![1, 1 << 20],
            vec![(1 << 20) + 1, 1],
        ] {
            let n: usize = shape.iter().product();
            assert!(n >= PARALLEL_UNITS);
            let data: Vec<u32> = (0..n as u32).collect();
            assert!(
                fortran_to_c(&data, &shape) == naive(&data, &shape),
                "{shape:?}"
            );
        }
        let shape = [700, 800];
        let data: Vec<u8> = (0..700 * 800 * 2).map(|i| (i % 251) as u8).collect();
        let want: Vec<u8> = {
            let pairs: Vec<u32> = (0..700 * 800).map(|i| i as u32).collect();
            naive(&pairs, &shape)
                .iter()
                .flat_map(|&k| [data[2 * k as usize], data[2 * k as usize + 1]])
                .collect()
        };
        assert!(
            fortran_to_c_units(&data, &shape, 2) == want,
            "2 units per element"
        );
    }

    #[test]
    fn empty_and_scalar() {
        assert_eq!(fortran_to_c::<u8>(&[], &[0, 3]), Vec::<u8>::new());
        assert_eq!(fortran_to_c::<u8>(&[], &[3, 0]), Vec::<u8>::new());
        assert_eq!(fortran_to_c(&[9u8], &[]), vec![9]);
    }
}
