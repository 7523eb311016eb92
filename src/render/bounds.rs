//! What a rendering may print: the summary's edge count and the count of printed items
//! that no payload byte backs (checked against `Header::check_backed` by both renderers).

use crate::format::dtype::Dtype;

/// `edgeitems`: items printed at each end of a summarised axis.
pub(super) const EDGE: usize = 3;

/// Lists and elements a rendering of `shape` elements of `dtype` prints that no payload
/// byte backs: the lists around a zero-size block (1 + d0 + d0·d1 + … up to the first 0),
/// the elements of a dtype of item size 0, and per element the unbacked items of its record
/// fields' subarrays (a subarray of more than `summarised_over` elements counted as its
/// summary shows it: at most `2 * EDGE` items per axis). Saturates at `u64::MAX`.
pub(super) fn unbacked_items(dtype: &Dtype, shape: &[usize], summarised_over: usize) -> u64 {
    let mut lists = 0u64;
    let mut level = 1u64;
    for &d in shape {
        lists = lists.saturating_add(level);
        level = level.saturating_mul(d as u64);
        if level == 0 {
            return lists;
        }
    }
    let per_element = match dtype {
        Dtype::Record(r) => r.fields.iter().fold(0u64, |acc, f| {
            let shown: Vec<usize> = if f.count() > summarised_over {
                f.shape
                    .iter()
                    .map(|&d| d.min(EDGE.saturating_mul(2)))
                    .collect()
            } else {
                f.shape.clone()
            };
            acc.saturating_add(unbacked_items(&f.dtype, &shown, summarised_over))
        }),
        _ => 0,
    };
    let own = u64::from(dtype.itemsize() == 0);
    level.saturating_mul(per_element.saturating_add(own))
}
