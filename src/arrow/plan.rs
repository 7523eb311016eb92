//! [`Plan`]: the table an array makes in a layout, decided from its header alone (schema,
//! geometry, batch sizing), so that a whole array and its row chunks share one plan.

use crate::arrow::geom;
use crate::arrow::geom::ColWidth;
use crate::arrow::types::value_field;
use crate::arrow::types::Kind;
use crate::data::table::Table;
use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, FieldRef, Schema, SchemaRef};

use crate::error::{Error, ErrorKind, Result};
use crate::format::dtype::Dtype;
use crate::format::header::Header;
use crate::limits::MAX_UNBACKED_COLUMNS;

/// Most input rows in one batch of [`Dataset::default_batch_rows`](crate::arrow::Dataset::default_batch_rows) (64 Ki).
///
/// ```
/// assert_eq!(npyguard::arrow::DEFAULT_BATCH_ROWS, 64 * 1024);
/// ```
pub const DEFAULT_BATCH_ROWS: usize = 65_536;

/// The approximate size [`Dataset::default_batch_rows`](crate::arrow::Dataset::default_batch_rows) keeps one batch under (64 MiB).
///
/// ```
/// assert_eq!(npyguard::arrow::TARGET_BATCH_BYTES, 64 << 20);
/// ```
pub const TARGET_BATCH_BYTES: usize = 64 << 20;

/// How an array becomes a table (see the [module docs](crate::arrow)).
///
/// ```
/// use npyguard::arrow::Layout;
/// assert_eq!(Layout::NonZeros.name(), "nonzeros");
/// assert_eq!("rowlists".parse::<Layout>().unwrap(), Layout::RowLists);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layout {
    /// One column per NumPy column, `c1..cN` (1-D: one column `c1`).
    Columns,
    /// One column `c1` of `FixedSizeList` rows (2-D only).
    RowLists,
    /// Long form `row_no`, `col_no`, `val` of the non-zero elements, row-major.
    NonZeros,
}

impl Layout {
    /// The layout's name as the CLI spells it: `columns`, `rowlists`, `nonzeros`.
    ///
    /// ```
    /// assert_eq!(npyguard::arrow::Layout::Columns.name(), "columns");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Layout::Columns => "columns",
            Layout::RowLists => "rowlists",
            Layout::NonZeros => "nonzeros",
        }
    }
}

impl std::str::FromStr for Layout {
    type Err = Error;

    /// Parses `columns`, `rowlists` or `nonzeros`.
    ///
    /// ```
    /// use npyguard::arrow::Layout;
    /// assert_eq!("nonzeros".parse::<Layout>().unwrap(), Layout::NonZeros);
    /// assert!("sparse".parse::<Layout>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Layout> {
        match s {
            "columns" => Ok(Layout::Columns),
            "rowlists" => Ok(Layout::RowLists),
            "nonzeros" => Ok(Layout::NonZeros),
            other => Err(Error::unplaced(
                ErrorKind::InvalidInput,
                "a layout: columns, rowlists or nonzeros",
            )
            .found(format!("{other:?}"))),
        }
    }
}

/// The table an array of some header makes in a layout.
#[derive(Debug, Clone)]
pub(super) struct Plan {
    /// The whole array's geometry (bounded by `geom::table`).
    pub(super) geom: Table,
    pub(super) layout: Layout,
    pub(super) schema: SchemaRef,
    pub(super) kind: Kind,
    pub(super) col_width: ColWidth,
    /// Bytes one input row takes in an output batch, at most (for batch sizing).
    pub(super) row_bytes: usize,
    /// Bytes of one output row's values (for Parquet row-group sizing).
    #[cfg_attr(not(feature = "parquet"), allow(dead_code))]
    pub(super) out_row_bytes: usize,
    dtype: Dtype,
    /// The shape after the first axis, which every chunk shares.
    trailing: Vec<usize>,
}

impl Plan {
    /// The plan of an array with `header` in `layout`, or the refusals of
    /// [`Dataset::new`](crate::arrow::Dataset::new).
    pub(super) fn new(header: &Header, layout: Layout) -> Result<Plan> {
        let geom = geom::table(header)?;
        let dtype = header.dtype().clone();
        let item = value_field("item", &dtype)?;
        let kind = Kind::of(&dtype)?;
        let col_width = ColWidth::of(&geom);
        let fields = fields(&item, &geom, layout, col_width, header)?;
        let schema = Arc::new(Schema::new_with_metadata(
            fields,
            schema_metadata(header, layout),
        ));
        let per = dtype.itemsize().max(1);
        let per = if layout == Layout::NonZeros {
            per.saturating_add(16)
        } else {
            per
        };
        let row_bytes = geom.cols().saturating_mul(per).max(1);
        let out_row_bytes = match layout {
            Layout::NonZeros => dtype.itemsize().saturating_add(16),
            Layout::Columns | Layout::RowLists => row_bytes,
        };
        Ok(Plan {
            geom,
            layout,
            schema,
            kind,
            col_width,
            row_bytes,
            out_row_bytes,
            trailing: header.shape().get(1..).unwrap_or_default().to_vec(),
            dtype,
        })
    }

    /// Input rows per batch that keep one batch near [`TARGET_BATCH_BYTES`], at most
    /// [`DEFAULT_BATCH_ROWS`] and at least 1.
    pub(super) fn default_batch_rows(&self) -> usize {
        TARGET_BATCH_BYTES
            .checked_div(self.row_bytes)
            .unwrap_or(1)
            .clamp(1, DEFAULT_BATCH_ROWS)
    }

    /// The geometry of a chunk of rows of the planned array: same dtype and trailing shape
    /// ([`ErrorKind::InvalidInput`] otherwise).
    pub(super) fn part_geom(&self, part: &Header) -> Result<Table> {
        let trailing = part.shape().get(1..).unwrap_or_default();
        if part.dtype() != &self.dtype || trailing != self.trailing.as_slice() {
            return Err(Error::unplaced(
                ErrorKind::InvalidInput,
                format!(
                    "rows of dtype {} and trailing shape {:?}",
                    self.dtype.typestr(),
                    self.trailing
                ),
            )
            .found(format!(
                "{} of shape {:?}",
                part.dtype().typestr(),
                part.shape()
            )));
        }
        geom::table(part)
    }
}

/// The schema's fields for `layout`. Each field is its own allocation and the list holds
/// pointers to them (8 bytes a column): no single allocation grows with the column count by
/// more than that, so a 65 536-column schema is not one 4 MB block.
fn fields(
    item: &Field,
    geom: &Table,
    layout: Layout,
    col_width: ColWidth,
    header: &Header,
) -> Result<Vec<FieldRef>> {
    Ok(match layout {
        Layout::Columns => {
            header.check_backed_within(
                geom.cols() as u64,
                MAX_UNBACKED_COLUMNS,
                "table columns",
            )?;
            (1..=geom.cols())
                .map(|i| Arc::new(item.clone().with_name(format!("c{i}"))))
                .collect()
        }
        Layout::RowLists => {
            let size = i32::try_from(geom.cols()).ok().filter(|&n| n > 0);
            let (true, Some(size)) = (header.shape().len() == 2, size) else {
                return Err(bad_layout(
                    "a 2-D array with 1 to 2^31 - 1 columns for row lists",
                    header.shape(),
                ));
            };
            vec![Arc::new(Field::new(
                "c1",
                DataType::FixedSizeList(Arc::new(item.clone()), size),
                false,
            ))]
        }
        Layout::NonZeros => {
            if matches!(
                header.dtype(),
                Dtype::Bytes(_) | Dtype::Unicode(..) | Dtype::Void(_)
            ) {
                return Err(Error::unplaced(
                    ErrorKind::UnsupportedDtype,
                    "a numeric, bool, complex or datetime dtype for non-zeros",
                )
                .found(header.dtype().typestr()));
            }
            vec![
                Arc::new(Field::new("row_no", DataType::Int64, false)),
                Arc::new(Field::new("col_no", col_width.data_type(), false)),
                Arc::new(item.clone().with_name("val")),
            ]
        }
    })
}

/// The schema metadata of every layout: `numpy.dtype`, `numpy.shape`,
/// `numpy.fortran_order`, `npyguard.layout`.
pub(super) fn schema_metadata(header: &Header, layout: Layout) -> HashMap<String, String> {
    let shape: Vec<u64> = header.shape().iter().map(|&d| d as u64).collect();
    HashMap::from([
        ("numpy.dtype".to_string(), header.dtype().typestr()),
        (
            "numpy.shape".to_string(),
            crate::format::repr::py_shape(&shape),
        ),
        (
            "numpy.fortran_order".to_string(),
            header.fortran_order().to_string(),
        ),
        ("npyguard.layout".to_string(), layout.name().to_string()),
    ])
}

pub(super) fn bad_layout(expected: &str, shape: &[usize]) -> Error {
    Error::unplaced(ErrorKind::InvalidInput, expected.to_string()).found(format!("shape {shape:?}"))
}
