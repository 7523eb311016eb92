//! Memory-maps a `.npy` file and reads it through npyguard's view API: the file is validated
//! exactly as a read would validate it, and the values are then used in place.
//!
//! ```text
//! cargo run -q --example mmap_view -- FILE [ROW_START ROW_END]
//! ```
//!
//! Prints the header, how the payload was reached (borrowed as `&[f64]` when the file is
//! little-endian `f8` on a little-endian machine, else decoded element by element from the
//! map, never copied as a whole), the sum of the (selected rows') values for numeric dtypes,
//! and the first elements' bytes.
//!
//! The one `unsafe` line is the caller's, not the library's: a memory map is only sound while
//! no other process truncates or rewrites the file. npyguard itself never maps files
//! (`#![forbid(unsafe_code)]`); it borrows whatever bytes it is given.

use std::process::ExitCode;

use npyguard::{ArrayView, Dtype, ReadOptions, View};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: mmap_view FILE [ROW_START ROW_END]");
        return ExitCode::from(2);
    };
    match run(path, args.get(1..3)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mmap_view: {path}: {e}");
            ExitCode::from(1)
        }
    }
}

fn run(path: &str, rows: Option<&[String]>) -> Result<(), Box<dyn std::error::Error>> {
    let file = std::fs::File::open(path)?;
    // SAFETY: the caller promises that nobody truncates or rewrites the file while it is
    // mapped (a truncated map would fault on access). This is the only unsafe line.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(&file)? };
    let mut view = View::new(&map, &ReadOptions::default())?;
    let h = view.header();
    println!(
        "descr {} shape {:?} fortran_order {} payload bytes {:?}",
        h.dtype().typestr(),
        h.shape(),
        h.fortran_order(),
        h.payload_range()
    );
    if let Some([a, b]) = rows {
        view = view.rows(a.parse()?..b.parse()?)?;
        println!("rows {a}..{b}: shape {:?}", view.header().shape());
    }
    if let Dtype::F64(_) = view.header().dtype() {
        let values: ArrayView<'_, f64> = view.typed()?;
        match values.as_slice() {
            Some(s) => println!(
                "borrowed {} f64 values from the map: sum {}",
                s.len(),
                s.iter().sum::<f64>()
            ),
            None => println!(
                "decoded {} f64 values in place: sum {}",
                values.len(),
                values.iter().sum::<f64>()
            ),
        }
    } else if let Some(f) = view.to_array()?.to_f64_lossy() {
        println!(
            "sum of {} values (as f64) {}",
            f.len(),
            f.iter().sum::<f64>()
        );
    }
    for i in 0..view.header().element_count().min(3) {
        println!(
            "element {i}: bytes {:02x?}",
            view.element(i).unwrap_or_default()
        );
    }
    Ok(())
}
