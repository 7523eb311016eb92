//! Memory order: reindexing between Fortran (column-major) and C (row-major) order.
//!
//! A Fortran-order payload of shape `(d0, …, dn-1)` is a C-order array of the
//! reversed shape; converting it to C order reverses the axes. The work is done
//! in 32 × 32 blocks over the first and last axes (the two with the largest
//! stride difference), which keeps both the reads and the writes in cache.
//!
//! ```
//! use npyguard::layout::{fortran_to_c, c_to_fortran};
//! // The 2 x 3 matrix [[1, 2, 3], [4, 5, 6]] in Fortran order is 1 4 2 5 3 6.
//! let f = [1, 4, 2, 5, 3, 6];
//! let c = fortran_to_c(&f, &[2, 3]);
//! assert_eq!(c, [1, 2, 3, 4, 5, 6]);
//! assert_eq!(c_to_fortran(&c, &[2, 3]), f);
//! ```

const BLOCK: usize = 32;

/// Product of `shape`, or `None` on overflow.
pub fn element_count(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// Visits every element as runs: `f(dst, src, src_stride, len)` means that for
/// `k < len` the element at Fortran index `src + k * src_stride` goes to C index `dst + k`.
///
/// Runs are the rows of 32 × 32 blocks over the first and last axes, so writes are
/// contiguous and the strided reads stay within a block that fits in cache. Requires `shape` to
/// have at least 2 dimensions and a product that fits (callers check).
fn for_each_run(shape: &[usize], mut f: impl FnMut(usize, usize, usize, usize)) {
    let n = shape.len();
    if shape.contains(&0) || n < 2 {
        return;
    }
    let (Some(&rows), Some(&cols)) = (shape.first(), shape.last()) else {
        return;
    };
    // C strides (dst) and F strides (src); products fit because the caller checked them.
    let mut c_strides = vec![1usize; n];
    let mut f_strides = vec![1usize; n];
    for k in (0..n.saturating_sub(1)).rev() {
        let next = c_strides.get(k.saturating_add(1)).copied().unwrap_or(1);
        let dim = shape.get(k.saturating_add(1)).copied().unwrap_or(1);
        if let Some(s) = c_strides.get_mut(k) {
            *s = next.saturating_mul(dim);
        }
    }
    for k in 1..n {
        let prev = f_strides.get(k.saturating_sub(1)).copied().unwrap_or(1);
        let dim = shape.get(k.saturating_sub(1)).copied().unwrap_or(1);
        if let Some(s) = f_strides.get_mut(k) {
            *s = prev.saturating_mul(dim);
        }
    }
    let row_dst = c_strides.first().copied().unwrap_or(0);
    let col_src = f_strides.last().copied().unwrap_or(0);
    // Odometer over the middle axes 1..n-1.
    let middle = shape.get(1..n.saturating_sub(1)).unwrap_or_default();
    let mut idx = vec![0usize; middle.len()];
    loop {
        let mut base_dst = 0usize;
        let mut base_src = 0usize;
        for (m, &i) in idx.iter().enumerate() {
            let k = m.saturating_add(1);
            base_dst =
                base_dst.saturating_add(i.saturating_mul(c_strides.get(k).copied().unwrap_or(0)));
            base_src =
                base_src.saturating_add(i.saturating_mul(f_strides.get(k).copied().unwrap_or(0)));
        }
        for r0 in (0..rows).step_by(BLOCK) {
            let r1 = r0.saturating_add(BLOCK).min(rows);
            for c0 in (0..cols).step_by(BLOCK) {
                let len = BLOCK.min(cols.saturating_sub(c0));
                let s_col = base_src.saturating_add(c0.saturating_mul(col_src));
                let d_col = base_dst.saturating_add(c0);
                for r in r0..r1 {
                    f(
                        d_col.saturating_add(r.saturating_mul(row_dst)),
                        s_col.saturating_add(r),
                        col_src,
                        len,
                    );
                }
            }
        }
        // Advance the odometer (last middle axis fastest).
        let mut k = idx.len();
        loop {
            let Some(kk) = k.checked_sub(1) else {
                return;
            };
            k = kk;
            let (Some(i), Some(&d)) = (idx.get_mut(k), middle.get(k)) else {
                return;
            };
            *i = i.saturating_add(1);
            if *i < d {
                break;
            }
            *i = 0;
        }
    }
}

/// Reorders Fortran-order `data` of `shape` into C order.
///
/// `data.len()` must equal the product of `shape`; otherwise the input is returned unchanged.
pub fn fortran_to_c<T: Copy + Default>(data: &[T], shape: &[usize]) -> Vec<T> {
    if shape.len() < 2 || Some(data.len()) != element_count(shape) {
        return data.to_vec();
    }
    // Pre-filled by one sequential copy: faulting the pages in sequentially is much cheaper
    // than faulting them in the scattered order of the block writes (measured).
    let mut out = data.to_vec();
    for_each_run(shape, |dst, src, stride, len| {
        let Some(run) = out.get_mut(dst..dst.saturating_add(len)) else {
            return;
        };
        let column = data
            .get(src..)
            .unwrap_or_default()
            .iter()
            .step_by(stride.max(1));
        for (o, &v) in run.iter_mut().zip(column) {
            *o = v;
        }
    });
    out
}

/// Reorders C-order `data` of `shape` into Fortran order.
pub fn c_to_fortran<T: Copy + Default>(data: &[T], shape: &[usize]) -> Vec<T> {
    let reversed: Vec<usize> = shape.iter().rev().copied().collect();
    fortran_to_c(data, &reversed)
}

/// [`fortran_to_c`] for elements stored as `itemsize`-byte chunks of `data`.
pub fn fortran_to_c_bytes(data: &[u8], shape: &[usize], itemsize: usize) -> Vec<u8> {
    let bytes = element_count(shape).and_then(|c| c.checked_mul(itemsize));
    if shape.len() < 2 || itemsize == 0 || Some(data.len()) != bytes {
        return data.to_vec();
    }
    let mut out = vec![0u8; data.len()];
    for_each_run(shape, |dst, src, stride, len| {
        let d0 = dst.saturating_mul(itemsize);
        let step = stride.saturating_mul(itemsize);
        let Some(run) = out.get_mut(d0..d0.saturating_add(len.saturating_mul(itemsize))) else {
            return;
        };
        let mut s = src.saturating_mul(itemsize);
        for o in run.chunks_exact_mut(itemsize) {
            if let Some(v) = data.get(s..s.saturating_add(itemsize)) {
                o.copy_from_slice(v);
            }
            s = s.saturating_add(step);
        }
    });
    out
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

    #[test]
    fn empty_and_scalar() {
        assert_eq!(fortran_to_c::<u8>(&[], &[0, 3]), Vec::<u8>::new());
        assert_eq!(fortran_to_c::<u8>(&[], &[3, 0]), Vec::<u8>::new());
        assert_eq!(fortran_to_c(&[9u8], &[]), vec![9]);
    }
}
