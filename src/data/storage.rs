//! Storage of every dtype family: [`ArrayData`], generated from the one table of families.
//!
//! [`dtype_families!`] is the single place that lists the dtype families: for each, the
//! [`ArrayData`] variant, the Rust type stored per unit, the [`Dtype`] pattern it holds
//! and the number of units per element. From it come the enum itself, the storage for a
//! dtype ([`ArrayData::with_capacity`], [`units_per_element`]) and the two dispatch macros
//! every storage-level operation goes through: `with_units!` (run generic code on the
//! variant's vector) and `map_units!` (the same, rebuilding the same variant), and
//! `for_each_family!`, which hands the rows to a layer above (Arrow's storage). Adding a
//! dtype family is one row here plus its value semantics where they differ
//! ([`Unit`](crate::data::codec::Unit) for its bytes, the consumers' formatting).
//!
//! ```
//! use npyguard::{ArrayData, NpyArray};
//! let a = NpyArray::from_vec(vec![1u16, 2], vec![2]).unwrap().into_array();
//! assert_eq!(a.data(), &ArrayData::U16(vec![1, 2].into()));
//! ```

use crate::format::dtype::Dtype;
use crate::prelude::*;

/// The table of dtype families: `Variant(unit type) for pattern => units per element`,
/// each row documented. `$d` is a literal `$`, so that the dispatch macros defined here can
/// have metavariables of their own.
macro_rules! dtype_families {
    ($d:tt) => {
        dtype_families! { $d
            /// `b1` as the file's bytes: 0 is False, any other byte True. The bytes are kept as
            /// stored (NumPy keeps them too, so `02 ff` reads as `[True, True]` and is written
            /// back as `02 ff`); [`NpyArray<bool>`](crate::NpyArray) gives `bool` values.
            Bool(u8) for Dtype::Bool => 1,
            /// `i1`.
            I8(i8) for Dtype::I8 => 1,
            /// `u1`.
            U8(u8) for Dtype::U8 => 1,
            /// `i2`.
            I16(i16) for Dtype::I16(_) => 1,
            /// `i4`.
            I32(i32) for Dtype::I32(_) => 1,
            /// `i8`.
            I64(i64) for Dtype::I64(_) => 1,
            /// `u2`.
            U16(u16) for Dtype::U16(_) => 1,
            /// `u4`.
            U32(u32) for Dtype::U32(_) => 1,
            /// `u8`.
            U64(u64) for Dtype::U64(_) => 1,
            /// `f2` as IEEE binary16 bit patterns (use feature `half` for `half::f16`).
            F16(u16) for Dtype::F16(_) => 1,
            /// `f4`.
            F32(f32) for Dtype::F32(_) => 1,
            /// `f8`.
            F64(f64) for Dtype::F64(_) => 1,
            /// `c8` as `[re, im]`.
            C64([f32; 2]) for Dtype::C64(_) => 1,
            /// `c16` as `[re, im]`.
            C128([f64; 2]) for Dtype::C128(_) => 1,
            /// `f16` (long double): each element's 16 bytes as the file holds them, in the
            /// dtype's byte order (x87 extended in the 10 low-order bytes, then 6 padding
            /// bytes, kept as written); [`format::f80`](crate::f80) gives their value.
            LongDouble(u8) for Dtype::LongDouble(_) => 16,
            /// `c32`: each element's 32 bytes as the file holds them: the real part's 16,
            /// then the imaginary part's, each as in [`ArrayData::LongDouble`].
            CLongDouble(u8) for Dtype::CLongDouble(_) => 32,
            /// `S<n>`: `n` bytes per element, NUL padded, concatenated.
            Bytes(u8) for Dtype::Bytes(n) => *n,
            /// `U<n>`: `n` UTF-32 code units per element, NUL padded, concatenated, as NumPy
            /// keeps them: NumPy does not check them, so lone surrogates (which np.save writes
            /// for a Python string holding one) and values above U+10FFFF are kept too; the
            /// conversions to UTF-8 text refuse those ([`Array::str_at`](crate::Array::str_at)).
            Unicode(u32) for Dtype::Unicode(n, _) => *n,
            /// `V<n>`: `n` raw bytes per element, concatenated.
            Void(u8) for Dtype::Void(n) => *n,
            /// `M8`: counts of the dtype's unit since 1970-01-01; `i64::MIN` is NaT.
            DateTime(i64) for Dtype::DateTime(..) => 1,
            /// `m8`: counts of the dtype's unit; `i64::MIN` is NaT.
            TimeDelta(i64) for Dtype::TimeDelta(..) => 1,
            /// Records: the raw record bytes in the file's byte order (see
            /// [`Array::field`](crate::Array::field)).
            Record(u8) for Dtype::Record(r) => r.itemsize,
        }
    };
    ($d:tt $( $(#[$doc:meta])* $variant:ident($unit:ty) for $pat:pat => $per:expr, )*) => {
        /// The values of an array of any dtype, in the file's memory order.
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum ArrayData {
            $( $(#[$doc])* $variant($crate::data::buffer::Buffer<$unit>), )*
        }

        /// Runs `$body` with `$v` bound to the vector inside `$data`, whatever its variant
        /// (each arm is compiled for its own unit type).
        macro_rules! with_units {
            ($d data:expr, $d v:ident => $d body:expr) => {
                match $d data {
                    $( $crate::data::storage::ArrayData::$variant($d v) => $d body, )*
                }
            };
        }

        /// [`with_units!`] that wraps `$body` (a new vector of the same unit type) in the
        /// same variant.
        macro_rules! map_units {
            ($d data:expr, $d v:ident => $d body:expr) => {
                match $d data {
                    $( $crate::data::storage::ArrayData::$variant($d v) => {
                        $crate::data::storage::ArrayData::$variant(
                            $crate::data::buffer::Buffer::from($d body),
                        )
                    } )*
                }
            };
        }

        /// Calls `$m! { Variant(unit), … }` with every row of the table, so that a layer
        /// above generates its own per-family storage from this one list (Arrow's shared
        /// buffers: `arrow::views::Units`).
        #[allow(unused_macros)] // used by the `arrow` feature only
        macro_rules! for_each_family {
            ($d m:ident) => {
                $d m! { $( $variant($unit), )* }
            };
        }

        /// Stored units per element for `dtype` in [`ArrayData`] (1, or the width of
        /// `S`/`U`/`V` and records).
        pub(crate) fn units_per_element(dtype: &Dtype) -> usize {
            match dtype {
                $( $pat => $per, )*
            }
        }

        impl ArrayData {
            /// Empty storage of the variant for `dtype`, with room for `capacity` elements.
            #[allow(unused_variables)] // the patterns bind the widths `units_per_element` reads
            pub(crate) fn with_capacity(dtype: &Dtype, capacity: usize) -> ArrayData {
                let units = capacity.saturating_mul(units_per_element(dtype));
                match dtype {
                    $( $pat => ArrayData::$variant(Vec::with_capacity(units).into()), )*
                }
            }
        }
    };
}

dtype_families!($);
#[allow(clippy::single_component_path_imports, unused_imports)]
// exports the macros by path (`data::storage::with_units`); `for_each_family` serves `arrow`
pub(crate) use {for_each_family, map_units, with_units};

impl ArrayData {
    /// Whether the values live in a huge-page mapping (see [`Buffer`](crate::Buffer)).
    pub fn is_mapped(&self) -> bool {
        with_units!(self, v => v.is_mapped())
    }

    /// Number of stored units (elements for numeric types; bytes or code units for S, U, V, records).
    pub(crate) fn units(&self) -> usize {
        with_units!(self, v => v.len())
    }

    /// Reserves room for `units` more stored units.
    pub(crate) fn reserve_units(&mut self, units: usize) {
        with_units!(self, v => v.vec_mut().reserve_exact(units))
    }

    /// [`reserve_units`](ArrayData::reserve_units), amortized and fallible.
    pub(crate) fn try_reserve_units(
        &mut self,
        units: usize,
    ) -> Result<(), alloc::collections::TryReserveError> {
        with_units!(self, v => v.vec_mut().try_reserve(units))
    }
}
