//! Target `datasets`: the Arrow/Parquet/CSV conversions of `npyguard convert --to` and the
//! ndarray interop, on arrays from `common::layer_array` (hostile headers such as shape
//! `(2**40, 0)` or `(0, 2**60)` included).
//!
//! Properties:
//! * no panic, no unbounded loop (run with `-timeout`), no allocation the input does not
//!   pay for (run with `-malloc_limit_mb`);
//! * a dataset is refused as `ErrorKind::Unbacked` only when the array has no bytes to
//!   back its rows or columns (zero-size, or item size 0);
//! * batches cover the input rows in order (their row counts add up: input rows for
//!   columns and row lists, the non-zero count for non-zeros, which `nonzeros()` and the
//!   CSR agree on);
//! * the CSV, Arrow IPC and Parquet writers into memory stay within
//!   `common::output_bound` bytes (Parquet only for small arrays: its encoder is slow);
//! * `NpyArray<T>::into_ndarray` keeps the shape and the values in logical order.

use npyguard::arrow::{self, Dataset, Layout, ParquetOptions};
use npyguard::{Array, ErrorKind};

#[path = "common.rs"]
mod common;

/// Parquet files are written only for arrays of at most this many payload bytes.
const PARQUET_MAX_BYTES: usize = 4096;

pub fn run(data: &[u8]) {
    let Some((array, input_len)) = common::layer_array(data) else {
        return;
    };
    let rows_per_batch = usize::from(data.last().copied().unwrap_or(0) % 7);
    let unbacked_possible = array.is_empty() || array.dtype().itemsize() == 0;
    let bound = common::output_bound(input_len);
    for layout in [Layout::Columns, Layout::RowLists, Layout::NonZeros] {
        let ds = match Dataset::new(array.clone(), layout) {
            Ok(ds) => ds,
            Err(e) => {
                assert!(
                    e.kind() != ErrorKind::Unbacked || unbacked_possible,
                    "{layout:?} refused a backed array as unbacked: {e}"
                );
                continue;
            }
        };
        batches_cover(&ds, &array, layout, rows_per_batch);
        // Counted, not kept: the output's size is what is checked, and a buffer holding it
        // would be the harness's allocation, not npyguard's (the allocation limit is on those).
        let mut csv = common::Counted::default();
        if arrow::write_csv(&ds, &mut csv, rows_per_batch, |_| {}).is_ok() {
            assert!(csv.0 <= bound, "{layout:?}: {} bytes of CSV", csv.0);
        }
        let mut ipc = common::Counted::default();
        if arrow::write_ipc(&ds, &mut ipc, rows_per_batch, |_| {}).is_ok() {
            assert!(ipc.0 <= bound, "{layout:?}: {} bytes of Arrow IPC", ipc.0);
        }
        if array.header().payload_len() <= PARQUET_MAX_BYTES && ds.schema().fields().len() <= 64 {
            let mut pq = Vec::new();
            let _ = arrow::write_parquet(
                &ds,
                &mut pq,
                rows_per_batch,
                &ParquetOptions::default(),
                |_| {},
            );
        }
    }
    if let (Ok(nz), Ok(csr)) = (arrow::nonzeros(&array), arrow::csr(&array)) {
        assert_eq!(
            nz.num_rows(),
            csr.indices.len(),
            "nonzeros() and csr() count differently"
        );
    }
    ndarray_keeps_values(&array);
}

fn batches_cover(ds: &Dataset, array: &Array, layout: Layout, rows_per_batch: usize) {
    let mut rows = 0usize;
    let mut next = 0usize;
    let mut it = ds.batches(rows_per_batch);
    while let Some(r) = it.next_rows() {
        assert_eq!(r.start, next, "batches skip or repeat rows");
        next = r.end;
        let Some(Ok(b)) = it.next() else { return };
        rows += b.num_rows();
    }
    if layout != Layout::NonZeros {
        assert_eq!(
            rows,
            ds.num_input_rows(),
            "{layout:?}: batch rows do not add up"
        );
    } else if let Ok(nz) = arrow::nonzeros(array) {
        assert_eq!(
            rows,
            nz.num_rows(),
            "non-zero batches do not add up to nonzeros()"
        );
    }
}

fn ndarray_keeps_values(array: &Array) {
    let Ok(typed) = array.clone().into_typed::<u8>() else {
        return;
    };
    let logical = typed.to_c_order();
    let Ok(nd) = typed.into_ndarray() else {
        return;
    };
    assert_eq!(nd.shape(), array.shape(), "ndarray shape");
    let values: Vec<u8> = nd.iter().copied().collect();
    assert_eq!(values, logical, "ndarray values in logical order");
}
