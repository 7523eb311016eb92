//! nonzeros of the NumPy-written 20 000 × 2 000 f4 array at 1 % density (issue 8's target),
//! compared in BENCHMARKS.md with NumPy's `np.nonzero` + fancy indexing on the same file.
//! Usage: nonzeros-bench DIR (after benches/numpy_bench.py wrote DIR/sparse_20000x2000_f4.npy).

use std::hint::black_box;
use std::time::{Duration, Instant};

use npyguard::{read_path, ReadOptions};

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "/tmp/npyguard-bench".into());
    let path = format!("{dir}/sparse_20000x2000_f4.npy");
    let a = read_path(&path, &ReadOptions::default()).unwrap();
    let bytes = a.header().payload_len();
    let mut best = Duration::MAX;
    let mut rows = 0;
    for _ in 0..5 {
        let t = Instant::now();
        let batch = npyguard::arrow::nonzeros(black_box(&a)).unwrap();
        best = best.min(t.elapsed());
        rows = batch.num_rows();
    }
    println!(
        "{{\"group\": \"nonzeros\", \"name\": \"npyguard nonzeros (arrow)\", \"bytes\": {bytes}, \"seconds\": {:.6}, \"gbps\": {:.4}, \"nonzeros\": {rows}}}",
        best.as_secs_f64(),
        bytes as f64 / best.as_secs_f64() / 1e9
    );
}
