//! Arrow record batches from NumPy arrays (feature `arrow`; Parquet with feature `parquet`).
//!
//! Three table shapes for 0-, 1- and 2-D arrays, as in sturdy.numpy's datasets:
//!
//! | [`Layout`] | columns | rows |
//! | --- | --- | --- |
//! | [`Columns`](Layout::Columns) | `c1`, `c2`, … `cN`, one per NumPy column in file order (1-D: `c1`) | one per NumPy row |
//! | [`RowLists`](Layout::RowLists) | `c1`: a `FixedSizeList` of the row's N values (2-D only) | one per NumPy row |
//! | [`NonZeros`](Layout::NonZeros) | `row_no` (Int64), `col_no` (Int16/Int32/Int64), `val` | one per non-zero element |
//!
//! plus [`csr`] for 2-D arrays (`indptr`, `indices`, `data`). A 0-d array is one row
//! and one column; a 1-D array of length n is n rows of one column (so its non-zeros
//! have `row_no` = the index and `col_no` = 0).
//!
//! **Element types are preserved**:
//!
//! | NumPy | Arrow |
//! | --- | --- |
//! | `b1` | Boolean |
//! | `i1` `i2` `i4` `i8` | Int8 Int16 Int32 Int64 |
//! | `u1` `u2` `u4` `u8` | UInt8 UInt16 UInt32 UInt64 |
//! | `f2` `f4` `f8` | Float16 Float32 Float64 (bit-exact: NaN payloads and −0.0 kept) |
//! | `c8` `c16` | Struct `{re, im}` of Float32 / Float64 |
//! | `M8[s]` `M8[ms]` `M8[us]` `M8[ns]` | Timestamp(unit, no time zone) |
//! | `m8[s]` `m8[ms]` `m8[us]` `m8[ns]` | Duration(unit) |
//! | other `M8`/`m8` units or multiples (`M8[D]`, `M8[25s]`) | Int64, field metadata `numpy.dtype` = the NumPy type string |
//! | `S<n>` | Binary, trailing NULs stripped (NumPy's value) |
//! | `U<n>` | Utf8, trailing NULs stripped (NumPy's value) |
//! | `V<n>` (n ≥ 1) | FixedSizeBinary(n) |
//! | records | refused ([`ErrorKind::UnsupportedDtype`](crate::ErrorKind::UnsupportedDtype); use [`Array::field`](crate::Array::field)) |
//!
//! `NaT` becomes null (datetime and timedelta fields are nullable; nothing else is).
//! Every schema carries metadata `numpy.dtype`, `numpy.shape`, `numpy.fortran_order`
//! and `npyguard.layout`.
//!
//! **Memory.** [`Dataset::new`] takes the array by value and keeps its values in one
//! Arrow buffer without copying (every numeric type, `f2`, datetimes, `V`). A batch is
//! then a zero-copy slice wherever memory order allows: a 1-D array; each column of a
//! Fortran-order 2-D array (columns are contiguous there); the `FixedSizeList` values of
//! a C-order 2-D array. The other cases — columns of a C-order matrix, row lists of a
//! Fortran-order one — copy one batch at a time through a cache-tiled transpose
//! (into a single buffer that the batch's columns share). Booleans
//! (bit-packed in Arrow), complex numbers (split into `re`/`im`) and strings are always
//! copied per batch. [`Dataset::batches`] walks the array in bounded row batches, so a
//! writer needs memory for the input array plus about one batch.
//!
//! **Non-zeros.** Zero is `0` for integers, `false` for booleans, `0` for datetimes and
//! timedeltas (NaT is not zero), exactly `+0.0` or `−0.0` for floats (`f2` too), and
//! `0 + 0j` (either sign) for complex numbers; NaN is not zero. Strings are refused.
//! Each row range is scanned twice — a count (per row, for Fortran data), then a fill
//! into exactly-sized buffers — with no boxing, in the array's memory order (column
//! segments for Fortran data; a Fortran range of more than 65 536 rows is counted once
//! more up front, as it is filled in blocks of 65 536 rows). The
//! output is in **row-major order**: `row_no` ascending, then `col_no` ascending, the
//! order of NumPy's `np.nonzero` for any memory order. `col_no` is Int16 while the array
//! has at most 32 767 columns, Int32 up to 2³¹ − 1 columns, Int64 beyond.
//!
//! ```
//! use arrow_array::{cast::AsArray, types::{Int64Type, UInt32Type}};
//! use npyguard::{arrow, Endian, NpyArray};
//! // The 2 x 3 matrix [[4294967291, 12, 29], [46, 63, 80]], stored in Fortran order.
//! let a = NpyArray::from_vec_with(vec![4294967291u32, 46, 12, 63, 29, 80], vec![2, 3], true, Endian::Big)
//!     .unwrap()
//!     .to_array();
//! let batch = arrow::columns(a.clone()).unwrap();
//! assert_eq!(batch.num_columns(), 3);
//! assert_eq!(batch.schema().field(0).name(), "c1");
//! assert_eq!(batch.column(0).as_primitive::<UInt32Type>().values(), &[4294967291, 46]);
//! assert_eq!(batch.column(2).as_primitive::<UInt32Type>().values(), &[29, 80]);
//!
//! let nz = arrow::nonzeros(&a).unwrap();
//! assert_eq!(nz.num_rows(), 6);
//! assert_eq!(nz.column(0).as_primitive::<Int64Type>().values(), &[0, 0, 0, 1, 1, 1]);
//! ```

mod buffers;
mod cells;
mod dataset;
mod geom;
mod nonzeros;
mod plan;
mod stream;
mod support;
mod types;
mod views;
mod writers;

pub use crate::data::table::INT16_MAX_COLUMNS;
pub use dataset::{columns, csr, nonzeros, row_lists, Batches, Csr, Dataset};
pub use plan::{Layout, DEFAULT_BATCH_ROWS, TARGET_BATCH_BYTES};
pub use stream::WriteStats;
pub use stream::{BatchSource, ChunkedDataset};
pub use types::data_type;
pub use writers::{write_csv, write_ipc};
#[cfg(feature = "parquet")]
pub use writers::{write_parquet, ParquetOptions};

#[cfg(test)]
mod tests {
    use super::views::*;
    use super::*;

    use crate::{Endian, NpyArray};
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int16Type, Int32Type, Int64Type, UInt16Type, UInt8Type};
    use arrow_array::Array as _;

    #[test]
    fn fortran_columns_share_one_buffer() {
        let a =
            NpyArray::from_vec_with(vec![1i32, 4, 2, 5, 3, 6], vec![2, 3], true, Endian::Little)
                .unwrap()
                .to_array();
        let b = columns(a).unwrap();
        let c0 = b.column(0).as_primitive::<Int32Type>();
        let c2 = b.column(2).as_primitive::<Int32Type>();
        assert_eq!(c0.values(), &[1, 4]);
        assert_eq!(c2.values(), &[3, 6]);
        // Same allocation: the columns are slices of one buffer.
        let base0 = c0.values().inner().as_ptr() as usize;
        let base2 = c2.values().inner().as_ptr() as usize;
        assert_eq!(base2 - base0, 16);
    }

    #[test]
    fn transpose_matches_naive() {
        for (rows, cols) in [(1, 1), (3, 5), (33, 70), (64, 1), (1, 65), (100, 37)] {
            let s: Vec<u32> = (0..rows * cols).map(|x| x as u32).collect();
            // F-order rows r0..r0+len of a rows x cols matrix, as C order.
            for (r0, len) in [(0, rows), (rows / 3, rows - rows / 3)] {
                let got = transpose(&s, r0, rows, len, cols, 1).unwrap();
                let want: Vec<u32> = (r0..r0 + len)
                    .flat_map(|r| (0..cols).map(move |c| (c * rows + r) as u32))
                    .collect();
                assert_eq!(got, want, "{rows}x{cols} from {r0}");
            }
        }
        assert!(transpose(&[1u8, 2, 3], 1, 2, 2, 2, 1).is_err());
    }

    #[test]
    fn c_rowlists_are_the_data() {
        let a = NpyArray::from_vec(vec![1u16, 2, 3, 4, 5, 6], vec![3, 2]).unwrap();
        let ds = Dataset::new(a.to_array(), Layout::RowLists).unwrap();
        let b = ds.batch(1..3).unwrap();
        let l = b.column(0).as_fixed_size_list();
        assert_eq!(l.len(), 2);
        assert_eq!(l.value(0).as_primitive::<UInt16Type>().values(), &[3, 4]);
    }

    #[test]
    fn fortran_nonzeros_are_row_major() {
        // [[0, 1, 2], [3, 0, 5]] in F order.
        let a = NpyArray::from_vec_with(vec![0u8, 3, 1, 0, 2, 5], vec![2, 3], true, Endian::Little)
            .unwrap()
            .to_array();
        let b = nonzeros(&a).unwrap();
        assert_eq!(
            b.column(0).as_primitive::<Int64Type>().values(),
            &[0, 0, 1, 1]
        );
        assert_eq!(
            b.column(1).as_primitive::<Int16Type>().values(),
            &[1, 2, 0, 2]
        );
        assert_eq!(
            b.column(2).as_primitive::<UInt8Type>().values(),
            &[1, 2, 3, 5]
        );
    }
}
