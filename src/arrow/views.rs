//! The array's storage as Arrow sees it (`Flat`: owned buffers; `View`: borrowed slices), and the `typed!` dispatch over them.

use crate::arrow::buffers::arc;
use crate::arrow::buffers::bool_vec;
use crate::arrow::buffers::complex_vec;
use crate::arrow::buffers::element;
use crate::arrow::buffers::f16_buf;
use crate::arrow::buffers::f16_vec;
use crate::arrow::buffers::offset_i32;
use crate::arrow::buffers::prim_buf;
use crate::arrow::buffers::prim_vec;
use crate::arrow::buffers::time_buf;
use crate::arrow::buffers::void_buf;
use crate::arrow::geom::ColWidth;
use crate::arrow::geom::Geom;
use crate::arrow::nonzeros::csr_parts;
use crate::arrow::nonzeros::nz_arrays;
use crate::arrow::support::add;
use crate::arrow::support::arrow_err;
use crate::arrow::support::mul;
use crate::arrow::support::out_of_range;
use crate::arrow::support::sub;
use crate::arrow::types::time_kind;
use crate::arrow::types::value_type;
use crate::arrow::types::TimeKind;
use std::ops::Range;

use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array as _, ArrayRef, BinaryArray, StringArray};
use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};

use crate::data::layout::{self, Strided};
use crate::data::storage::ArrayData;
use crate::error::{Error, ErrorKind, Result};
use crate::format::dtype::Dtype;

/// An array's values in memory order, owned, in Arrow buffers where Arrow's layout is NumPy's.
#[derive(Debug)]
pub(super) enum Flat {
    Bool(Vec<u8>),
    I8(ScalarBuffer<i8>),
    U8(ScalarBuffer<u8>),
    I16(ScalarBuffer<i16>),
    I32(ScalarBuffer<i32>),
    I64(ScalarBuffer<i64>),
    U16(ScalarBuffer<u16>),
    U32(ScalarBuffer<u32>),
    U64(ScalarBuffer<u64>),
    F16(ScalarBuffer<u16>),
    F32(ScalarBuffer<f32>),
    F64(ScalarBuffer<f64>),
    C64(Vec<[f32; 2]>),
    C128(Vec<[f64; 2]>),
    Time(ScalarBuffer<i64>, TimeKind),
    Bytes(Vec<u8>, usize),
    Unicode(Vec<char>, usize),
    Void(Buffer, usize),
}

/// Borrowed typed values in memory order (from a [`Flat`] or straight from [`ArrayData`]).
#[derive(Debug, Clone, Copy)]
pub(super) enum View<'a> {
    Bool(&'a [u8]),
    I8(&'a [i8]),
    U8(&'a [u8]),
    I16(&'a [i16]),
    I32(&'a [i32]),
    I64(&'a [i64]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
    F16(&'a [u16]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    C64(&'a [[f32; 2]]),
    C128(&'a [[f64; 2]]),
    Time(&'a [i64], TimeKind),
    Bytes(&'a [u8], usize),
    Unicode(&'a [char], usize),
    Void(&'a [u8], usize),
}

pub(super) fn width(dtype: &Dtype) -> usize {
    match dtype {
        Dtype::Unicode(n, _) => *n,
        other => other.itemsize(),
    }
}

pub(super) fn record_refused(dtype: &Dtype) -> Error {
    // value_type reports records (and anything else without an Arrow type) first.
    value_type(dtype).err().unwrap_or_else(out_of_range)
}

impl Flat {
    pub(super) fn from_data(data: ArrayData, dtype: &Dtype) -> Result<Flat> {
        Ok(match data {
            ArrayData::Bool(v) => Flat::Bool(v),
            ArrayData::I8(v) => Flat::I8(v.into()),
            ArrayData::U8(v) => Flat::U8(v.into()),
            ArrayData::I16(v) => Flat::I16(v.into()),
            ArrayData::I32(v) => Flat::I32(v.into()),
            ArrayData::I64(v) => Flat::I64(v.into()),
            ArrayData::U16(v) => Flat::U16(v.into()),
            ArrayData::U32(v) => Flat::U32(v.into()),
            ArrayData::U64(v) => Flat::U64(v.into()),
            ArrayData::F16(v) => Flat::F16(v.into()),
            ArrayData::F32(v) => Flat::F32(v.into()),
            ArrayData::F64(v) => Flat::F64(v.into()),
            ArrayData::C64(v) => Flat::C64(v),
            ArrayData::C128(v) => Flat::C128(v),
            ArrayData::DateTime(v) | ArrayData::TimeDelta(v) => {
                Flat::Time(v.into(), time_kind(dtype))
            }
            ArrayData::Bytes(v) => Flat::Bytes(v, width(dtype)),
            ArrayData::Unicode(v) => Flat::Unicode(v, width(dtype)),
            ArrayData::Void(v) => Flat::Void(Buffer::from_vec(v), width(dtype)),
            ArrayData::Record(_) => return Err(record_refused(dtype)),
        })
    }

    pub(super) fn view(&self) -> View<'_> {
        match self {
            Flat::Bool(v) => View::Bool(v),
            Flat::I8(v) => View::I8(v),
            Flat::U8(v) => View::U8(v),
            Flat::I16(v) => View::I16(v),
            Flat::I32(v) => View::I32(v),
            Flat::I64(v) => View::I64(v),
            Flat::U16(v) => View::U16(v),
            Flat::U32(v) => View::U32(v),
            Flat::U64(v) => View::U64(v),
            Flat::F16(v) => View::F16(v),
            Flat::F32(v) => View::F32(v),
            Flat::F64(v) => View::F64(v),
            Flat::C64(v) => View::C64(v),
            Flat::C128(v) => View::C128(v),
            Flat::Time(v, k) => View::Time(v, *k),
            Flat::Bytes(v, w) => View::Bytes(v, *w),
            Flat::Unicode(v, w) => View::Unicode(v, *w),
            Flat::Void(v, w) => View::Void(v.as_slice(), *w),
        }
    }

    /// Elements `start..start + len` in memory order: zero-copy for Arrow-native storage.
    pub(super) fn contiguous(&self, start: usize, len: usize) -> Result<ArrayRef> {
        fn slice<T: arrow_buffer::ArrowNativeType>(
            b: &ScalarBuffer<T>,
            start: usize,
            len: usize,
        ) -> Result<ScalarBuffer<T>> {
            if add(start, len)? > b.len() {
                return Err(out_of_range());
            }
            Ok(b.slice(start, len))
        }
        match self {
            Flat::I8(b) => prim_buf::<Int8Type>(slice(b, start, len)?),
            Flat::U8(b) => prim_buf::<UInt8Type>(slice(b, start, len)?),
            Flat::I16(b) => prim_buf::<Int16Type>(slice(b, start, len)?),
            Flat::I32(b) => prim_buf::<Int32Type>(slice(b, start, len)?),
            Flat::I64(b) => prim_buf::<Int64Type>(slice(b, start, len)?),
            Flat::U16(b) => prim_buf::<UInt16Type>(slice(b, start, len)?),
            Flat::U32(b) => prim_buf::<UInt32Type>(slice(b, start, len)?),
            Flat::U64(b) => prim_buf::<UInt64Type>(slice(b, start, len)?),
            Flat::F16(b) => f16_buf(slice(b, start, len)?),
            Flat::F32(b) => prim_buf::<Float32Type>(slice(b, start, len)?),
            Flat::F64(b) => prim_buf::<Float64Type>(slice(b, start, len)?),
            Flat::Time(b, k) => time_buf(slice(b, start, len)?, *k),
            Flat::Void(b, w) => {
                let (off, n) = (mul(start, *w)?, mul(len, *w)?);
                if add(off, n)? > b.len() {
                    return Err(out_of_range());
                }
                void_buf(b.slice_with_length(off, n), *w)
            }
            Flat::Bool(_) | Flat::C64(_) | Flat::C128(_) | Flat::Bytes(..) | Flat::Unicode(..) => {
                self.view().copy_range(start, len)
            }
        }
    }
}

/// Runs `$body` with `$s: &[T]`, `$mk: Fn(Vec<T>) -> Result<ArrayRef>` and
/// `$zero: Fn(&T) -> bool` bound for a numeric, bool, complex or time view;
/// evaluates `$fixed` for S, U and V.
macro_rules! typed {
    ($view:expr, |$s:ident, $mk:ident, $zero:ident| $body:expr, fixed => $fixed:expr) => {
        match $view {
            View::Bool($s) => {
                let $mk = bool_vec;
                let $zero = |v: &u8| *v == 0;
                $body
            }
            View::I8($s) => {
                let $mk = prim_vec::<Int8Type>;
                let $zero = |v: &i8| *v == 0;
                $body
            }
            View::U8($s) => {
                let $mk = prim_vec::<UInt8Type>;
                let $zero = |v: &u8| *v == 0;
                $body
            }
            View::I16($s) => {
                let $mk = prim_vec::<Int16Type>;
                let $zero = |v: &i16| *v == 0;
                $body
            }
            View::I32($s) => {
                let $mk = prim_vec::<Int32Type>;
                let $zero = |v: &i32| *v == 0;
                $body
            }
            View::I64($s) => {
                let $mk = prim_vec::<Int64Type>;
                let $zero = |v: &i64| *v == 0;
                $body
            }
            View::U16($s) => {
                let $mk = prim_vec::<UInt16Type>;
                let $zero = |v: &u16| *v == 0;
                $body
            }
            View::U32($s) => {
                let $mk = prim_vec::<UInt32Type>;
                let $zero = |v: &u32| *v == 0;
                $body
            }
            View::U64($s) => {
                let $mk = prim_vec::<UInt64Type>;
                let $zero = |v: &u64| *v == 0;
                $body
            }
            View::F16($s) => {
                let $mk = f16_vec;
                // +0.0 and -0.0 (sign bit ignored); NaN has a non-zero exponent.
                let $zero = |v: &u16| *v & 0x7fff == 0;
                $body
            }
            View::F32($s) => {
                let $mk = prim_vec::<Float32Type>;
                let $zero = |v: &f32| *v == 0.0;
                $body
            }
            View::F64($s) => {
                let $mk = prim_vec::<Float64Type>;
                let $zero = |v: &f64| *v == 0.0;
                $body
            }
            View::C64($s) => {
                let $mk = complex_vec::<Float32Type>;
                let $zero = |&[re, im]: &[f32; 2]| re == 0.0 && im == 0.0;
                $body
            }
            View::C128($s) => {
                let $mk = complex_vec::<Float64Type>;
                let $zero = |&[re, im]: &[f64; 2]| re == 0.0 && im == 0.0;
                $body
            }
            View::Time($s, kind) => {
                let $mk = move |v: Vec<i64>| time_buf(ScalarBuffer::from(v), kind);
                let $zero = |v: &i64| *v == 0;
                $body
            }
            View::Bytes(..) | View::Unicode(..) | View::Void(..) => $fixed,
        }
    };
}

impl<'a> View<'a> {
    pub(super) fn of(data: &'a ArrayData, dtype: &Dtype) -> Result<View<'a>> {
        Ok(match data {
            ArrayData::Bool(v) => View::Bool(v),
            ArrayData::I8(v) => View::I8(v),
            ArrayData::U8(v) => View::U8(v),
            ArrayData::I16(v) => View::I16(v),
            ArrayData::I32(v) => View::I32(v),
            ArrayData::I64(v) => View::I64(v),
            ArrayData::U16(v) => View::U16(v),
            ArrayData::U32(v) => View::U32(v),
            ArrayData::U64(v) => View::U64(v),
            ArrayData::F16(v) => View::F16(v),
            ArrayData::F32(v) => View::F32(v),
            ArrayData::F64(v) => View::F64(v),
            ArrayData::C64(v) => View::C64(v),
            ArrayData::C128(v) => View::C128(v),
            ArrayData::DateTime(v) | ArrayData::TimeDelta(v) => View::Time(v, time_kind(dtype)),
            ArrayData::Bytes(v) => View::Bytes(v, width(dtype)),
            ArrayData::Unicode(v) => View::Unicode(v, width(dtype)),
            ArrayData::Void(v) => View::Void(v, width(dtype)),
            ArrayData::Record(_) => return Err(record_refused(dtype)),
        })
    }

    /// A copy of elements `start..start + len`.
    pub(super) fn copy_range(self, start: usize, len: usize) -> Result<ArrayRef> {
        typed!(self, |s, mk, _zero| mk(sub(s, start, len)?.to_vec()),
            fixed => fixed_gather(self, start..add(start, len)?, len))
    }

    /// The columns of C-order rows `r0..r0 + len` (tiled transpose into one shared buffer).
    pub(super) fn c_block_columns(self, g: Geom, r0: usize, len: usize) -> Result<Vec<ArrayRef>> {
        typed!(self, |s, mk, _zero| {
            // Column c of the block is out[c * len..][..len] = s[(r0 + r) * cols + c].
            let whole = mk(transpose(s, mul(r0, g.cols)?, g.cols, g.cols, len)?)?;
            (0..g.cols)
                .map(|c| Ok(whole.slice(mul(c, len)?, len)))
                .collect()
        }, fixed => (0..g.cols)
            .map(|c| fixed_gather(self, (r0..r0.saturating_add(len)).map(|r| g.index(r, c)), len))
            .collect())
    }

    /// The values of Fortran-order rows `r0..r0 + len` in row-major order.
    pub(super) fn f_block_rows(self, g: Geom, r0: usize, len: usize) -> Result<ArrayRef> {
        typed!(self, |s, mk, _zero| {
            // Row r of the block is out[r * cols..][..cols] = s[c * rows + r0 + r].
            mk(transpose(s, r0, g.rows, len, g.cols)?)
        }, fixed => {
            let idx = (r0..r0.saturating_add(len))
                .flat_map(|r| (0..g.cols).map(move |c| g.index(r, c)));
            fixed_gather(self, idx, mul(len, g.cols)?)
        })
    }

    /// `row_no`, `col_no`, `val` of the non-zero elements of rows `rows`, row-major.
    pub(super) fn nonzeros(
        self,
        g: Geom,
        rows: Range<usize>,
        w: ColWidth,
    ) -> Result<[ArrayRef; 3]> {
        typed!(self, |s, mk, zero| match w {
            ColWidth::I16 => nz_arrays::<_, Int16Type>(s, g, rows, zero, mk),
            ColWidth::I32 => nz_arrays::<_, Int32Type>(s, g, rows, zero, mk),
            ColWidth::I64 => nz_arrays::<_, Int64Type>(s, g, rows, zero, mk),
        }, fixed => Err(Error::unplaced(ErrorKind::UnsupportedDtype, "a numeric, bool, complex or datetime dtype for non-zeros",
        )
        .found("a string or void dtype")))
    }

    pub(super) fn csr(self, g: Geom) -> Result<(Vec<i64>, Vec<i32>, ArrayRef)> {
        typed!(self, |s, mk, zero| {
            let (indptr, indices, vals) = csr_parts(s, g, zero)?;
            Ok((indptr, indices, mk(vals)?))
        }, fixed => Err(Error::unplaced(ErrorKind::UnsupportedDtype, "a numeric, bool, complex or datetime dtype for CSR",
        )
        .found("a string or void dtype")))
    }
}

/// The `n` x `m` matrix `out[i * m + j] = src[off + j * ld + i]`: the strided sub-matrix of
/// `src` whose `m` columns of `n` contiguous elements start `ld` apart at `off`, transposed
/// by the crate's one tiled transpose.
pub(super) fn transpose<T: Copy + Default>(
    src: &[T],
    off: usize,
    ld: usize,
    n: usize,
    m: usize,
) -> Result<Vec<T>> {
    let mut out = vec![T::default(); mul(n, m)?];
    let from = Strided { off, ld };
    let to = Strided { off: 0, ld: m };
    if !layout::transpose_into(src, from, &mut out, to, (n, m), 1) {
        return Err(out_of_range());
    }
    Ok(out)
}

/// Builds S/U/V elements picked by `idx` (`count` of them) into Binary / Utf8 / FixedSizeBinary.
pub(super) fn fixed_gather(
    view: View<'_>,
    idx: impl Iterator<Item = usize>,
    count: usize,
) -> Result<ArrayRef> {
    match view {
        View::Bytes(data, w) => {
            let mut values = Vec::with_capacity(count.saturating_mul(w));
            let mut offsets = Vec::with_capacity(count.saturating_add(1));
            offsets.push(0i32);
            for i in idx {
                let e = element(data, i, w)?;
                let end = e
                    .iter()
                    .rposition(|&b| b != 0)
                    .map_or(0, |p| p.saturating_add(1));
                values.extend_from_slice(e.get(..end).unwrap_or_default());
                offsets.push(offset_i32(values.len())?);
            }
            let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
            BinaryArray::try_new(offsets, Buffer::from_vec(values), None)
                .map(arc)
                .map_err(arrow_err)
        }
        View::Unicode(chars, w) => {
            let mut values = String::with_capacity(count.saturating_mul(w));
            let mut offsets = Vec::with_capacity(count.saturating_add(1));
            offsets.push(0i32);
            for i in idx {
                let e = element(chars, i, w)?;
                let end = e
                    .iter()
                    .rposition(|&c| c != '\0')
                    .map_or(0, |p| p.saturating_add(1));
                values.extend(e.get(..end).unwrap_or_default());
                offsets.push(offset_i32(values.len())?);
            }
            let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
            StringArray::try_new(offsets, Buffer::from_vec(values.into_bytes()), None)
                .map(arc)
                .map_err(arrow_err)
        }
        View::Void(data, w) => {
            let mut values = Vec::with_capacity(count.saturating_mul(w));
            for i in idx {
                values.extend_from_slice(element(data, i, w)?);
            }
            void_buf(Buffer::from_vec(values), w)
        }
        _ => Err(out_of_range()),
    }
}
