//! [`Dataset`]: an array as a table (columns, row lists or non-zeros), its batches, and the one-call conversions.

use crate::arrow::buffers::arc;
use crate::arrow::geom;
use crate::arrow::geom::ColWidth;
use crate::arrow::plan::bad_layout;
use crate::arrow::plan::schema_metadata;
use crate::arrow::plan::Layout;
use crate::arrow::plan::Plan;
use crate::arrow::support::arrow_err;
use crate::arrow::support::mul;
use crate::arrow::support::out_of_range;
use crate::arrow::types::value_field;
use crate::arrow::types::Kind;
use crate::arrow::views::apply_to;
use crate::arrow::views::CBlockColumns;
use crate::arrow::views::Csr as CsrParts;
use crate::arrow::views::FBlockRows;
use crate::arrow::views::NonZeros;
use crate::arrow::views::Units;
use crate::data::table::Table;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::{
    Array as _, ArrayRef, FixedSizeListArray, Int32Array, Int64Array, RecordBatch,
    RecordBatchOptions,
};
use arrow_buffer::ScalarBuffer;
use arrow_schema::{DataType, Field, FieldRef, Schema, SchemaRef};

use crate::data::array::Array;
use crate::error::{Error, ErrorKind, Result};

/// A NumPy array held for conversion to Arrow record batches in one [`Layout`].
///
/// Built once from an owned [`Array`] (values moved into Arrow buffers without a copy),
/// then cut into batches of input rows by [`batch`](Dataset::batch) or
/// [`batches`](Dataset::batches); the batches of a [`RowLists`](Layout::RowLists) or
/// [`Columns`](Layout::Columns) dataset have one row per input row, those of a
/// [`NonZeros`](Layout::NonZeros) dataset one row per non-zero element of those input rows.
///
/// ```
/// use arrow_array::{cast::AsArray, types::Float32Type};
/// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
/// let a = NpyArray::from_vec(vec![0.0f32, 1.5, 0.0, -0.0, f32::NAN, 2.0], vec![3, 2]).unwrap();
/// let ds = Dataset::new(a.to_array(), Layout::NonZeros).unwrap();
/// assert_eq!(ds.num_input_rows(), 3);
/// let batches: Vec<_> = ds.batches(2).collect::<Result<_, _>>().unwrap();
/// assert_eq!(batches.len(), 2);
/// assert_eq!(batches[0].num_rows(), 1); // 1.5 (-0.0 is zero)
/// assert_eq!(batches[1].num_rows(), 2); // NaN and 2.0
/// let vals = batches[1].column(2).as_primitive::<Float32Type>();
/// assert!(vals.value(0).is_nan());
/// ```
#[derive(Debug)]
pub struct Dataset {
    /// The table the whole array makes (schema, sizes).
    pub(super) plan: Plan,
    /// The geometry of the rows held here (the whole array, or a chunk of it).
    pub(super) geom: Table,
    pub(super) units: Units,
    /// The whole array's row number of this dataset's first row (non-zeros' `row_no`).
    pub(super) first_row: usize,
}

impl Dataset {
    /// Takes `array` for conversion in `layout`. Refuses arrays of more than 2
    /// dimensions, record dtypes, `V0`; row lists need a 2-D array with at least one
    /// column; non-zeros refuse string and void dtypes. Rows and columns that no payload
    /// byte backs (a zero-size array of shape `(2**40, 0)` or `(0, 2**60)`) are refused
    /// beyond [`MAX_UNBACKED_ITEMS`](crate::limits::MAX_UNBACKED_ITEMS)
    /// ([`ErrorKind::Unbacked`]).
    ///
    /// ```
    /// use npyguard::{arrow::{Dataset, Layout}, ErrorKind, NpyArray};
    /// let a = NpyArray::from_vec(vec![1u8, 2, 3, 4], vec![4]).unwrap().to_array();
    /// assert_eq!(Dataset::new(a.clone(), Layout::Columns).unwrap().schema().fields().len(), 1);
    /// let err = Dataset::new(a, Layout::RowLists).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::InvalidInput);
    /// ```
    pub fn new(array: Array, layout: Layout) -> Result<Dataset> {
        let plan = Plan::new(array.header(), layout)?;
        let geom = plan.geom.clone();
        let (_, data) = array.into_parts();
        Ok(Dataset {
            plan,
            geom,
            units: Units::own(data),
            first_row: 0,
        })
    }

    /// Rows `first_row..` of the array `plan` was made for, held by `part` (a chunk read
    /// on its own): its batches are those rows of the whole array's table.
    pub(super) fn part(part: Array, plan: &Plan, first_row: usize) -> Result<Dataset> {
        let geom = plan.part_geom(part.header())?;
        let (_, data) = part.into_parts();
        Ok(Dataset {
            plan: plan.clone(),
            geom,
            units: Units::own(data),
            first_row,
        })
    }

    /// The layout.
    ///
    /// ```
    /// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
    /// let a = NpyArray::from_vec(vec![1i8], vec![1]).unwrap().to_array();
    /// assert_eq!(Dataset::new(a, Layout::NonZeros).unwrap().layout(), Layout::NonZeros);
    /// ```
    pub fn layout(&self) -> Layout {
        self.plan.layout
    }

    /// The schema every batch has.
    ///
    /// ```
    /// use arrow_schema::DataType;
    /// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
    /// let a = NpyArray::from_vec(vec![1u16; 6], vec![2, 3]).unwrap().to_array();
    /// let s = Dataset::new(a, Layout::RowLists).unwrap().schema();
    /// assert!(matches!(s.field(0).data_type(), DataType::FixedSizeList(f, 3) if f.data_type() == &DataType::UInt16));
    /// assert_eq!(s.metadata()["numpy.shape"], "(2, 3)");
    /// ```
    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.plan.schema)
    }

    /// Rows of the NumPy array (elements of a 1-D array; 1 for a 0-d array): the unit of
    /// [`batch`](Dataset::batch) ranges.
    ///
    /// ```
    /// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
    /// let a = NpyArray::from_vec(vec![0i32; 12], vec![4, 3]).unwrap().to_array();
    /// assert_eq!(Dataset::new(a, Layout::Columns).unwrap().num_input_rows(), 4);
    /// ```
    pub fn num_input_rows(&self) -> usize {
        self.geom.rows()
    }

    /// Input rows per batch that keep one batch near [`TARGET_BATCH_BYTES`](crate::arrow::TARGET_BATCH_BYTES), at most
    /// [`DEFAULT_BATCH_ROWS`](crate::arrow::DEFAULT_BATCH_ROWS) and at least 1.
    ///
    /// ```
    /// use npyguard::{arrow::{Dataset, Layout, DEFAULT_BATCH_ROWS}, NpyArray};
    /// let narrow = NpyArray::from_vec(vec![0f64; 10], vec![10]).unwrap().to_array();
    /// assert_eq!(Dataset::new(narrow, Layout::Columns).unwrap().default_batch_rows(), DEFAULT_BATCH_ROWS);
    /// let wide = NpyArray::from_vec(vec![0f64; 2 << 20], vec![2, 1 << 20]).unwrap().to_array();
    /// assert_eq!(Dataset::new(wide, Layout::Columns).unwrap().default_batch_rows(), 8);
    /// ```
    pub fn default_batch_rows(&self) -> usize {
        self.plan.default_batch_rows()
    }

    /// The batch for input rows `rows` (clamped to the array).
    ///
    /// ```
    /// use arrow_array::{cast::AsArray, types::Int32Type};
    /// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
    /// let a = NpyArray::from_vec((0..12).collect::<Vec<i32>>(), vec![4, 3]).unwrap().to_array();
    /// let ds = Dataset::new(a, Layout::Columns).unwrap();
    /// let b = ds.batch(1..3).unwrap();
    /// assert_eq!(b.num_rows(), 2);
    /// assert_eq!(b.column(1).as_primitive::<Int32Type>().values(), &[4, 7]);
    /// ```
    pub fn batch(&self, rows: Range<usize>) -> Result<RecordBatch> {
        let (g, kind) = (&self.geom, self.plan.kind);
        let end = rows.end.min(g.rows());
        let start = rows.start.min(end);
        let len = end.saturating_sub(start);
        let columns = match self.plan.layout {
            Layout::Columns => {
                if g.is_fortran() || g.cols() == 1 {
                    (0..g.cols())
                        .map(|c| self.units.slice(g.index(start, c), len, kind))
                        .collect::<Result<Vec<_>>>()?
                } else {
                    let r0 = start;
                    self.units.apply(CBlockColumns { kind, g, r0, len })?
                }
            }
            Layout::RowLists => {
                let values = if g.is_fortran() {
                    let r0 = start;
                    self.units.apply(FBlockRows { kind, g, r0, len })?
                } else {
                    let n = mul(len, g.cols())?;
                    self.units.slice(g.index(start, 0), n, kind)?
                };
                let Some(DataType::FixedSizeList(item, size)) =
                    self.plan.schema.fields().first().map(|f| f.data_type())
                else {
                    return Err(out_of_range());
                };
                let list = FixedSizeListArray::try_new(FieldRef::clone(item), *size, values, None)
                    .map_err(arrow_err)?;
                vec![arc(list)]
            }
            Layout::NonZeros => {
                let (rows, w, first_row) = (start..end, self.plan.col_width, self.first_row);
                Vec::from(self.units.apply(NonZeros {
                    kind,
                    g,
                    rows,
                    w,
                    first_row,
                })?)
            }
        };
        let n = match (self.plan.layout, columns.first()) {
            (Layout::NonZeros, Some(c)) => c.len(),
            _ => len,
        };
        let opts = RecordBatchOptions::new().with_row_count(Some(n));
        RecordBatch::try_new_with_options(self.schema(), columns, &opts).map_err(arrow_err)
    }

    /// Batches of `rows_per_batch` input rows (0 means [`default_batch_rows`](Dataset::default_batch_rows)),
    /// in order, covering the array. An array with no rows gives one empty batch.
    ///
    /// ```
    /// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
    /// let a = NpyArray::from_vec(vec![1u8; 10], vec![10]).unwrap().to_array();
    /// let ds = Dataset::new(a, Layout::Columns).unwrap();
    /// let sizes: Vec<usize> = ds.batches(4).map(|b| b.unwrap().num_rows()).collect();
    /// assert_eq!(sizes, [4, 4, 2]);
    /// ```
    pub fn batches(&self, rows_per_batch: usize) -> Batches<'_> {
        let step = if rows_per_batch == 0 {
            self.default_batch_rows()
        } else {
            rows_per_batch
        };
        Batches {
            dataset: self,
            next: 0,
            step,
            first: true,
        }
    }

    /// All input rows as one batch.
    ///
    /// ```
    /// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
    /// let a = NpyArray::from_vec(vec![0u64, 5, 0, 7], vec![2, 2]).unwrap().to_array();
    /// assert_eq!(Dataset::new(a, Layout::NonZeros).unwrap().to_record_batch().unwrap().num_rows(), 2);
    /// ```
    pub fn to_record_batch(&self) -> Result<RecordBatch> {
        self.batch(0..self.geom.rows())
    }
}

/// Iterator over a [`Dataset`]'s batches (see [`Dataset::batches`]).
///
/// ```
/// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
/// let a = NpyArray::from_vec(vec![1i64; 5], vec![5]).unwrap().to_array();
/// let ds = Dataset::new(a, Layout::Columns).unwrap();
/// let mut it = ds.batches(3);
/// assert_eq!(it.next_rows(), Some(0..3));
/// assert_eq!(it.next().unwrap().unwrap().num_rows(), 3);
/// ```
#[derive(Debug)]
pub struct Batches<'a> {
    pub(super) dataset: &'a Dataset,
    pub(super) next: usize,
    pub(super) step: usize,
    pub(super) first: bool,
}

impl Batches<'_> {
    /// The input rows of the batch [`next`](Iterator::next) returns, if any.
    ///
    /// ```
    /// use npyguard::{arrow::{Dataset, Layout}, NpyArray};
    /// let a = NpyArray::from_vec(vec![1i64; 5], vec![5]).unwrap().to_array();
    /// let ds = Dataset::new(a, Layout::Columns).unwrap();
    /// let mut it = ds.batches(3);
    /// it.next();
    /// assert_eq!(it.next_rows(), Some(3..5));
    /// it.next();
    /// assert_eq!(it.next_rows(), None);
    /// ```
    pub fn next_rows(&self) -> Option<Range<usize>> {
        let rows = self.dataset.geom.rows();
        if self.next >= rows && !(self.first && rows == 0) {
            return None;
        }
        Some(self.next..self.next.saturating_add(self.step).min(rows))
    }
}

impl Iterator for Batches<'_> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Result<RecordBatch>> {
        let rows = self.next_rows()?;
        self.first = false;
        self.next = rows.end;
        Some(self.dataset.batch(rows))
    }
}

/// A 0-, 1- or 2-D array as one batch of columns `c1..cN` (see [`Layout::Columns`]).
///
/// ```
/// use arrow_array::cast::AsArray;
/// use npyguard::{arrow, NpyArray};
/// let a = NpyArray::from_vec(vec![true, false, true], vec![3]).unwrap().to_array();
/// let b = arrow::columns(a).unwrap();
/// assert_eq!(b.schema().field(0).name(), "c1");
/// assert!(b.column(0).as_boolean().value(2));
/// ```
pub fn columns(array: Array) -> Result<RecordBatch> {
    Dataset::new(array, Layout::Columns)?.to_record_batch()
}

/// A 2-D array as one batch with a `FixedSizeList` column `c1` (see [`Layout::RowLists`]).
/// For C-order input the list values are the array's buffer, not a copy.
///
/// ```
/// use arrow_array::{cast::AsArray, types::Int32Type};
/// use npyguard::{arrow, NpyArray};
/// let a = NpyArray::from_vec(vec![-5i32, 12, 29, 46, 63, 80], vec![2, 3]).unwrap().to_array();
/// let b = arrow::row_lists(a).unwrap();
/// let rows = b.column(0).as_fixed_size_list();
/// assert_eq!(rows.value(1).as_primitive::<Int32Type>().values(), &[46, 63, 80]);
/// ```
pub fn row_lists(array: Array) -> Result<RecordBatch> {
    Dataset::new(array, Layout::RowLists)?.to_record_batch()
}

/// The non-zero elements of a 0-, 1- or 2-D array as one batch `row_no`, `col_no`, `val`,
/// row-major (see [`Layout::NonZeros`] and the [module docs](crate::arrow) for what is zero).
/// Reads the array in place: only the output is allocated, at its exact size.
///
/// ```
/// use arrow_array::{cast::AsArray, types::{Int16Type, Int64Type}};
/// use npyguard::{arrow, NpyArray};
/// let a = NpyArray::from_vec(vec![0i8, 3, 0, 0, 0, -1], vec![2, 3]).unwrap().to_array();
/// let b = arrow::nonzeros(&a).unwrap();
/// assert_eq!(b.column(0).as_primitive::<Int64Type>().values(), &[0, 1]);
/// assert_eq!(b.column(1).as_primitive::<Int16Type>().values(), &[1, 2]);
/// ```
pub fn nonzeros(array: &Array) -> Result<RecordBatch> {
    let geom = geom::table(array.header())?;
    let w = ColWidth::of(&geom);
    let val = value_field("val", array.dtype())?;
    let (kind, rows) = (Kind::of(array.dtype())?, 0..geom.rows());
    let first_row = 0;
    let op = NonZeros {
        kind,
        g: &geom,
        rows,
        w,
        first_row,
    };
    let columns = Vec::from(apply_to(array.data(), op)?);
    let fields = vec![
        Field::new("row_no", DataType::Int64, false),
        Field::new("col_no", w.data_type(), false),
        val,
    ];
    let schema =
        Schema::new_with_metadata(fields, schema_metadata(array.header(), Layout::NonZeros));
    RecordBatch::try_new(Arc::new(schema), columns).map_err(arrow_err)
}

/// A 2-D array in compressed sparse row form: row `r`'s non-zeros are
/// `indices[indptr[r]..indptr[r + 1]]` (column numbers, ascending) and the same range of `data`.
///
/// ```
/// use arrow_array::{cast::AsArray, types::Float64Type};
/// use npyguard::{arrow, NpyArray};
/// let a = NpyArray::from_vec(vec![0.0, 2.0, 0.0, 0.0, 3.0, 4.0], vec![3, 2]).unwrap().to_array();
/// let m = arrow::csr(&a).unwrap();
/// assert_eq!(m.shape, [3, 2]);
/// assert_eq!(m.indptr.values(), &[0, 1, 1, 3]);
/// assert_eq!(m.indices.values(), &[1, 0, 1]);
/// assert_eq!(m.data.as_primitive::<Float64Type>().values(), &[2.0, 3.0, 4.0]);
/// ```
#[derive(Debug, Clone)]
pub struct Csr {
    /// `[rows, columns]` of the dense array.
    pub shape: [usize; 2],
    /// Row start offsets into `indices` and `data`; `rows + 1` entries, the last is the count.
    pub indptr: Int64Array,
    /// Column number of each non-zero.
    pub indices: Int32Array,
    /// Value of each non-zero, with the dtype's Arrow type.
    pub data: ArrayRef,
}

/// The non-zeros of a 2-D array as [`Csr`] (same zero rule and order as [`nonzeros`]).
/// Arrays with more than 2³¹ − 1 columns are refused ([`ErrorKind::ShapeOverflow`]).
///
/// ```
/// use npyguard::{arrow, NpyArray};
/// let a = NpyArray::from_vec(vec![1u8, 0, 0, 1], vec![2, 2]).unwrap().to_array();
/// assert_eq!(arrow::csr(&a).unwrap().indices.values(), &[0, 1]);
/// ```
pub fn csr(array: &Array) -> Result<Csr> {
    let g = geom::table(array.header())?;
    if array.shape().len() != 2 {
        return Err(bad_layout("a 2-D array for CSR", array.shape()));
    }
    if i32::try_from(g.cols()).is_err() {
        return Err(Error::unplaced(
            ErrorKind::ShapeOverflow,
            "at most 2^31 - 1 columns for Int32 CSR indices",
        )
        .found(format!("{} columns", g.cols())));
    }
    let kind = Kind::of(array.dtype())?;
    let (indptr, indices, data) = apply_to(array.data(), CsrParts { kind, g: &g })?;
    Ok(Csr {
        shape: [g.rows(), g.cols()],
        indptr: Int64Array::new(ScalarBuffer::from(indptr), None),
        indices: Int32Array::new(ScalarBuffer::from(indices), None),
        data,
    })
}
