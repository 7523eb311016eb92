//! Writes two `.npz` archives with npyguard, for `tests/numpy/npz_roundtrip.py`
//! to load with NumPy.
//!
//! ```text
//! cargo run -q --features npz --example npz_write -- DIR
//! ```
//!
//! Writes `DIR/rust_savez.npz` (stored, as `np.savez`) and
//! `DIR/rust_savez_compressed.npz` (deflated, as `np.savez_compressed`), each
//! holding the same arrays; the Python script rebuilds them independently and
//! compares values, dtypes, memory order and each member's bytes with `np.save`.

use std::path::PathBuf;
use std::process::ExitCode;

use npyguard::{npz, Array, ArrayData, Dtype, Endian, Header, NpyArray};

/// Named arrays (name, array) and unnamed ones.
type Arrays = (Vec<(String, Array)>, Vec<Array>);

fn arrays() -> npyguard::Result<Arrays> {
    let c_f8 = NpyArray::from_vec(
        vec![0.5f64, -1.25, f64::NAN, f64::INFINITY, -0.0, 1e300],
        vec![2, 3],
    )?;
    // Logical value at (i, j) is -5 + 4i + j; Fortran memory order walks i fastest.
    let f_data: Vec<i32> = (0..4)
        .flat_map(|j| (0..3).map(move |i| -5 + 4 * i + j))
        .collect();
    let fortran_i4 = NpyArray::from_vec_with(f_data, vec![3, 4], true, Endian::Little)?;
    let scalar = NpyArray::from_vec(vec![7u8], vec![])?;
    let empty = NpyArray::<f32>::from_vec(vec![], vec![0, 3])?;
    let flags = NpyArray::from_vec(vec![true, false, true], vec![3])?;
    let be_i8 = NpyArray::from_vec_with(vec![i64::MIN, i64::MAX, 0], vec![3], false, Endian::Big)?;
    let mut chars = Vec::new();
    for s in ["a", "bc", "\u{1F600}"] {
        // A `U` element is UTF-32 code units, NUL padded.
        let mut c: Vec<u32> = s.chars().map(u32::from).collect();
        c.resize(3, 0);
        chars.extend(c);
    }
    let text = Array::new(
        Header::new(Dtype::Unicode(3, Endian::Little), vec![3], false)?,
        ArrayData::Unicode(chars.into()),
    )?;
    let named = vec![
        ("c_f8".to_string(), c_f8.to_array()),
        ("fortran_i4".to_string(), fortran_i4.to_array()),
        ("scalar".to_string(), scalar.to_array()),
        ("empty".to_string(), empty.to_array()),
        ("flags".to_string(), flags.to_array()),
        ("be_i8".to_string(), be_i8.to_array()),
        ("text".to_string(), text),
    ];
    let positional = vec![
        NpyArray::from_vec(vec![1u16, 2, 3], vec![3])?.to_array(),
        NpyArray::from_vec(vec![1.5f32, -2.5], vec![2])?.to_array(),
    ];
    Ok((named, positional))
}

fn run(dir: PathBuf) -> npyguard::Result<()> {
    let (named, positional) = arrays()?;
    let named_refs: Vec<(&str, &Array)> = named.iter().map(|(n, a)| (n.as_str(), a)).collect();
    let positional_refs: Vec<&Array> = positional.iter().collect();
    // As np.savez(file, *positional, **named): keywords first, then arr_0, arr_1.
    let all = npz::name_arrays(&positional_refs, &named_refs)?;
    npz::savez_path(dir.join("rust_savez.npz"), &all)?;
    npz::savez_compressed_path(dir.join("rust_savez_compressed.npz"), &all)?;
    Ok(())
}

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: npz_write DIR");
        return ExitCode::from(2);
    };
    match run(dir) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("npz_write: {e}");
            ExitCode::from(1)
        }
    }
}
