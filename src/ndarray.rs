//! `ndarray` interop (feature `ndarray`): [`NpyArray<T>`] to and from `ndarray::ArrayD<T>`.
//!
//! A `.npy` payload already is an ndarray buffer in one of ndarray's two standard
//! layouts, so nothing is copied: C-order data becomes a row-major `ArrayD`, Fortran-order
//! data a column-major one (`IxDyn(shape).f()`) — same logical array, same buffer. Going
//! back, [`NpyArray::from_ndarray_owned`] keeps a C- or F-contiguous owned array's buffer
//! and its memory order; anything else (a slice with steps, transposed axes in a
//! 3-D array, …) is copied into C order.
//!
//! ```
//! use ndarray::{array, ShapeBuilder};
//! use npyguard::{Endian, NpyArray};
//! // [[1, 2, 3], [4, 5, 6]] stored in Fortran order.
//! let f = NpyArray::from_vec_with(vec![1i32, 4, 2, 5, 3, 6], vec![2, 3], true, Endian::Little).unwrap();
//! let a = f.into_ndarray().unwrap();
//! assert_eq!(a, array![[1, 2, 3], [4, 5, 6]].into_dyn());
//! assert!(a.t().is_standard_layout()); // column-major, no copy was made
//!
//! let back = NpyArray::from_ndarray_owned(a).unwrap();
//! assert!(back.fortran_order());
//! assert_eq!(back.data(), &[1, 4, 2, 5, 3, 6]);
//! ```

use ndarray::{ArrayBase, ArrayD, ArrayViewD, Data, Dimension, IxDyn, ShapeBuilder};

use crate::data::array::NpyArray;
use crate::data::element::Element;
use crate::error::{Error, ErrorKind, Result};
use crate::format::dtype::Endian;

fn shape_err(e: ndarray::ShapeError) -> Error {
    Error::unplaced(
        ErrorKind::InvalidInput,
        "data that fits the shape (ndarray)",
    )
    .found(e.to_string())
}

impl<T: Element> NpyArray<T> {
    /// The array as an owned `ArrayD` with the same logical values, without copying:
    /// row-major for C-order files, column-major for Fortran-order files.
    ///
    /// ```
    /// use npyguard::NpyArray;
    /// let a = NpyArray::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], vec![2, 3]).unwrap();
    /// let nd = a.into_ndarray().unwrap();
    /// assert_eq!(nd.shape(), &[2, 3]);
    /// assert_eq!(nd[[1, 0]], 4.0);
    /// assert!(nd.is_standard_layout());
    /// ```
    pub fn into_ndarray(self) -> Result<ArrayD<T>> {
        let fortran = self.fortran_order();
        let shape = self.shape().to_vec();
        let data = self.into_vec();
        if fortran {
            ArrayD::from_shape_vec(IxDyn(&shape).f(), data)
        } else {
            ArrayD::from_shape_vec(IxDyn(&shape), data)
        }
        .map_err(shape_err)
    }

    /// A borrowed `ArrayViewD` of the values in the same logical layout as
    /// [`into_ndarray`](NpyArray::into_ndarray).
    ///
    /// ```
    /// use npyguard::{Endian, NpyArray};
    /// let f = NpyArray::from_vec_with(vec![1u8, 4, 2, 5, 3, 6], vec![2, 3], true, Endian::Little).unwrap();
    /// let v = f.view_ndarray().unwrap();
    /// assert_eq!(v[[0, 2]], 3);
    /// assert_eq!(v.index_axis(ndarray::Axis(0), 1).iter().copied().collect::<Vec<_>>(), [4, 5, 6]);
    /// ```
    pub fn view_ndarray(&self) -> Result<ArrayViewD<'_, T>> {
        let shape = IxDyn(self.shape());
        if self.fortran_order() {
            ArrayViewD::from_shape(shape.f(), self.data())
        } else {
            ArrayViewD::from_shape(shape, self.data())
        }
        .map_err(shape_err)
    }

    /// A copy of any ndarray array or view, written little-endian. C-contiguous input
    /// stays C order and F-contiguous input stays Fortran order (one `memcpy`-like
    /// copy); other strides are gathered in logical (C) order.
    ///
    /// ```
    /// use ndarray::{array, s};
    /// use npyguard::NpyArray;
    /// let a = array![[1i16, 2, 3], [4, 5, 6]];
    /// let every_other = NpyArray::from_ndarray(&a.slice(s![.., ..;2])).unwrap();
    /// assert_eq!(every_other.shape(), &[2, 2]);
    /// assert_eq!(every_other.data(), &[1, 3, 4, 6]);
    /// let t = NpyArray::from_ndarray(&a.t()).unwrap();
    /// assert!(t.fortran_order());
    /// assert_eq!(t.get(&[2, 1]), Some(&6));
    /// ```
    pub fn from_ndarray<S, D>(a: &ArrayBase<S, D>) -> Result<NpyArray<T>>
    where
        S: Data<Elem = T>,
        D: Dimension,
    {
        let shape = a.shape().to_vec();
        if let Some(s) = a.as_slice() {
            return NpyArray::from_vec_with(s.to_vec(), shape, false, Endian::Little);
        }
        let t = a.t();
        if let Some(s) = t.as_slice() {
            return NpyArray::from_vec_with(s.to_vec(), shape, true, Endian::Little);
        }
        NpyArray::from_vec_with(a.iter().copied().collect(), shape, false, Endian::Little)
    }

    /// An owned ndarray array, keeping its buffer (no copy) when it is C- or
    /// F-contiguous and starts at the buffer's beginning; otherwise as
    /// [`from_ndarray`](NpyArray::from_ndarray). Written little-endian.
    ///
    /// ```
    /// use ndarray::{Array2, ShapeBuilder};
    /// use npyguard::{write::to_vec, Array, ReadOptions};
    /// let f = Array2::from_shape_vec((2, 2).f(), vec![1u32, 3, 2, 4]).unwrap();
    /// let a = npyguard::NpyArray::from_ndarray_owned(f).unwrap();
    /// assert!(a.fortran_order());
    /// let bytes = to_vec(&a.to_array()).unwrap();
    /// let back = npyguard::read_bytes(&bytes, &ReadOptions::default()).unwrap();
    /// assert!(back.fortran_order());
    /// ```
    pub fn from_ndarray_owned<D: Dimension>(a: ndarray::Array<T, D>) -> Result<NpyArray<T>> {
        let shape = a.shape().to_vec();
        let n = a.len();
        let fortran = if a.is_standard_layout() {
            false
        } else if a.t().is_standard_layout() {
            true
        } else {
            return NpyArray::from_ndarray(&a);
        };
        let (v, offset) = a.into_raw_vec_and_offset();
        if v.len() == n && offset.unwrap_or(0) == 0 {
            return NpyArray::from_vec_with(v, shape, fortran, Endian::Little);
        }
        // A contiguous window of a larger buffer: copy the window.
        let start = offset.unwrap_or(0);
        let window = start
            .checked_add(n)
            .and_then(|end| v.get(start..end))
            .ok_or_else(|| {
                Error::unplaced(
                    ErrorKind::InvalidInput,
                    "an ndarray buffer that holds the array",
                )
            })?;
        NpyArray::from_vec_with(window.to_vec(), shape, fortran, Endian::Little)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array3, Axis};

    #[test]
    fn three_d_fortran_round_trip() {
        let c: Vec<i64> = (0..24).collect();
        let nd = Array3::from_shape_vec((2, 3, 4), c).unwrap();
        let f = nd.t().as_standard_layout().to_owned().reversed_axes();
        assert!(f.t().is_standard_layout());
        let a = NpyArray::from_ndarray_owned(f.clone()).unwrap();
        assert!(a.fortran_order());
        assert_eq!(a.get(&[1, 2, 3]), Some(&23));
        assert_eq!(a.into_ndarray().unwrap(), f.into_dyn());
    }

    #[test]
    fn no_copy_either_way() {
        for fortran in [false, true] {
            let a = NpyArray::from_vec_with(
                (0..12).collect::<Vec<u32>>(),
                vec![3, 4],
                fortran,
                Endian::Big,
            )
            .unwrap();
            let p = a.data().as_ptr();
            let nd = a.into_ndarray().unwrap();
            assert_eq!(nd.as_ptr(), p, "into_ndarray keeps the buffer");
            let back = NpyArray::from_ndarray_owned(nd).unwrap();
            assert_eq!(
                back.data().as_ptr(),
                p,
                "from_ndarray_owned keeps the buffer"
            );
            assert_eq!(back.fortran_order(), fortran);
        }
    }

    #[test]
    fn sliced_owned_array_is_copied() {
        let mut nd = Array3::from_shape_vec((2, 3, 4), (0..24).collect::<Vec<u16>>()).unwrap();
        nd.collapse_axis(Axis(0), 1);
        let a = NpyArray::from_ndarray_owned(nd).unwrap();
        assert_eq!(a.shape(), &[1, 3, 4]);
        assert_eq!(a.data().first(), Some(&12));
    }

    #[test]
    fn borrowed_arrays_keep_their_order_or_are_gathered() {
        let nd = Array3::from_shape_vec((2, 3, 4), (0..24).collect::<Vec<i32>>()).unwrap();
        let c = NpyArray::from_ndarray(&nd).unwrap();
        assert!(!c.fortran_order());
        assert_eq!(c.data(), nd.as_slice().unwrap());
        let f = NpyArray::from_ndarray(&nd.t()).unwrap();
        assert!(f.fortran_order());
        assert_eq!(f.shape(), &[4, 3, 2]);
        assert_eq!(f.get(&[3, 2, 1]), Some(&23));
        // Neither C- nor F-contiguous: gathered in logical (C) order.
        let p = nd.view().permuted_axes([1, 0, 2]);
        let g = NpyArray::from_ndarray(&p).unwrap();
        assert!(!g.fortran_order());
        assert_eq!(g.shape(), &[3, 2, 4]);
        assert_eq!(g.data(), p.iter().copied().collect::<Vec<_>>().as_slice());
        assert_eq!(g.view_ndarray().unwrap(), p.into_dyn());
    }

    #[test]
    fn owned_array_in_neither_order_is_gathered() {
        let nd = Array3::from_shape_vec((2, 3, 4), (0..24).collect::<Vec<u8>>()).unwrap();
        let p = nd.permuted_axes([2, 0, 1]);
        assert!(!p.is_standard_layout() && !p.t().is_standard_layout());
        let expected: Vec<u8> = p.iter().copied().collect();
        let a = NpyArray::from_ndarray_owned(p).unwrap();
        assert!(!a.fortran_order());
        assert_eq!(a.shape(), &[4, 2, 3]);
        assert_eq!(a.data(), expected.as_slice());
    }
}
