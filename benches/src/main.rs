//! Side-by-side benchmarks: npyguard vs std::fs, ndarray-npy and npyz on the same files.
//!
//! Usage: `npyguard-bench prepare DIR [MiB]` writes the input files into DIR (read by both
//! sides); `npyguard-bench serve DIR` then runs one named operation per line of stdin and
//! answers with its seconds, so that `benches/interleaved.py` can alternate every Rust run
//! with NumPy's (ABAB…) and no side profits from page-cache or writeback state.

use std::fs::File;
use std::hint::black_box;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use npyguard::{Endian, Header, NpyArray, ReadOptions};




fn payload_offset(path: &Path) -> u64 {
    let mut f = File::open(path).unwrap();
    npyguard::read_header(&mut f, &ReadOptions::default())
        .unwrap()
        .payload_offset()
}

fn main() {
    if let Ok(path) = std::env::var("NPYGUARD_BENCH_CHILD") {
        // Child: peak resident memory of one read of an N-byte payload.
        let base = vm_hwm_kib();
        let a = NpyArray::<f64>::read_path(&path, &ReadOptions::default()).unwrap();
        let payload = a.data().len() * 8;
        let peak = vm_hwm_kib();
        println!(
            "{{\"group\": \"memory\", \"name\": \"npyguard read_path peak RSS\", \"payload_bytes\": {payload}, \"peak_bytes\": {}, \"baseline_bytes\": {}}}",
            peak * 1024,
            base * 1024
        );
        return;
    }
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map(String::as_str).unwrap_or("serve");
    let dir = PathBuf::from(
        args.get(2)
            .cloned()
            .unwrap_or_else(|| "/tmp/npyguard-bench".into()),
    );
    let mib: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(256);
    match mode {
        "prepare" => prepare(&dir, mib),
        "serve" => serve(&dir),
        other => panic!("unknown mode {other}: use prepare DIR MIB | serve DIR"),
    }
}

/// Side of a square matrix of `mib` MiB of `size`-byte elements, rounded to a multiple of 64.
fn side(mib: usize, size: usize) -> usize {
    ((((mib << 20) / size) as f64).sqrt() as usize) / 64 * 64
}

/// Writes the inputs both sides read: LE and BE f8 vectors, Fortran-order f4 and f8
/// matrices (8192 × 8192 at 256 MiB), a Fortran-order 3-D f4 array.
fn prepare(dir: &Path, mib: usize) {
    std::fs::create_dir_all(dir).unwrap();
    let n = mib * (1 << 20) / 8;
    let values: Vec<f64> = (0..n).map(|i| (i as f64) * 0.5 - 3.0).collect();
    for (name, e) in [("f8_le.npy", Endian::Little), ("f8_be.npy", Endian::Big)] {
        NpyArray::from_vec_with(values.clone(), vec![n], false, e)
            .unwrap()
            .write_path(dir.join(name))
            .unwrap();
    }
    let s = side(mib, 4);
    let f4: Vec<f32> = (0..s * s).map(|i| i as f32).collect();
    NpyArray::from_vec_with(f4, vec![s, s], true, Endian::Little)
        .unwrap()
        .write_path(dir.join("f4_fortran.npy"))
        .unwrap();
    let f8: Vec<f64> = (0..s * s).map(|i| i as f64).collect();
    NpyArray::from_vec_with(f8, vec![s, s], true, Endian::Little)
        .unwrap()
        .write_path(dir.join("f8_fortran.npy"))
        .unwrap();
    let (a, b) = (s / 16, s / 4);
    let c = (mib << 20) / 4 / (a * b);
    let f3: Vec<f32> = (0..a * b * c).map(|i| i as f32).collect();
    NpyArray::from_vec_with(f3, vec![a, b, c], true, Endian::Little)
        .unwrap()
        .write_path(dir.join("f4_fortran_3d.npy"))
        .unwrap();
}

/// Runs one operation per line of stdin (once each) and answers with its seconds, so that a
/// driver can interleave these runs with NumPy's (`benches/interleaved.py`).
fn serve(dir: &Path) {
    let opts = ReadOptions::default();
    let le = dir.join("f8_le.npy");
    let be = dir.join("f8_be.npy");
    let f4 = dir.join("f4_fortran.npy");
    let f8 = dir.join("f8_fortran.npy");
    let f3 = dir.join("f4_fortran_3d.npy");
    let out = dir.join("rust_write_out.npy");
    let mut reuse: Vec<f64> = Vec::new();
    let mut raw: Vec<u8> = Vec::new();
    let mut source: Option<(NpyArray<f64>, Vec<u8>, ndarray::Array1<f64>)> = None;
    let header = std::fs::read(&le).unwrap()[..128].to_vec();
    let stdin = std::io::stdin();
    let mut line = String::new();
    loop {
        line.clear();
        if stdin.read_line(&mut line).unwrap() == 0 {
            return;
        }
        let op = line.trim();
        let t = Instant::now();
        let mut value: Option<f64> = None;
        match op {
            "read_le/std::fs::read" => drop(black_box(std::fs::read(&le).unwrap())),
            "read_le/npyguard" => drop(black_box(NpyArray::<f64>::read_path(&le, &opts).unwrap())),
            "read_le/npyguard read_path (dynamic)" => drop(black_box(npyguard::read_path(&le, &opts).unwrap())),
            "read_le/ndarray-npy" => drop(black_box(
                ndarray_npy::read_npy::<_, ndarray::Array1<f64>>(&le).unwrap(),
            )),
            "read_le/npyz" => {
                let npy = npyz::NpyFile::new(BufReader::new(File::open(&le).unwrap())).unwrap();
                drop(black_box(npy.into_vec::<f64>().unwrap()));
            }
            "read_be/npyguard" => drop(black_box(NpyArray::<f64>::read_path(&be, &opts).unwrap())),
            "read_be/ndarray-npy" => drop(black_box(
                ndarray_npy::read_npy::<_, ndarray::Array1<f64>>(&be).unwrap(),
            )),
            "read_be/npyz" => {
                let npy = npyz::NpyFile::new(BufReader::new(File::open(&be).unwrap())).unwrap();
                drop(black_box(npy.into_vec::<f64>().unwrap()));
            }
            "read_reuse/read_exact (reused Vec<u8>)" => {
                let off = payload_offset(&le);
                let mut f = File::open(&le).unwrap();
                let len = f.metadata().unwrap().len() - off;
                raw.resize(len as usize, 0);
                f.seek(SeekFrom::Start(off)).unwrap();
                f.read_exact(&mut raw).unwrap();
            }
            "read_reuse/npyguard read_path_into" => {
                NpyArray::<f64>::read_path_into(&le, &opts, &mut reuse).unwrap();
            }
            "read_reuse/npyguard read_path_into (big-endian)" => {
                NpyArray::<f64>::read_path_into(&be, &opts, &mut reuse).unwrap();
            }
            "f2c_f4/npyguard read_path + into_c_order" => drop(black_box(
                NpyArray::<f32>::read_path(&f4, &opts).unwrap().into_c_order(),
            )),
            "f2c_f8/npyguard read_path + into_c_order" => drop(black_box(
                NpyArray::<f64>::read_path(&f8, &opts).unwrap().into_c_order(),
            )),
            "f2c_3d/npyguard read_path + into_c_order" => drop(black_box(
                NpyArray::<f32>::read_path(&f3, &opts).unwrap().into_c_order(),
            )),
            "f2c_f4/npyguard read_path + to_c_order" => drop(black_box(
                NpyArray::<f32>::read_path(&f4, &opts).unwrap().to_c_order(),
            )),
            "f2c_f8/npyguard read_path + to_c_order" => drop(black_box(
                NpyArray::<f64>::read_path(&f8, &opts).unwrap().to_c_order(),
            )),
            "f2c_f4/ndarray-npy read_npy + as_standard_layout" => drop(black_box(
                ndarray_npy::read_npy::<_, ndarray::Array2<f32>>(&f4)
                    .unwrap()
                    .as_standard_layout()
                    .into_owned(),
            )),
            "write/std::fs::write" | "write/npyguard write_path" | "write/npyz" | "write/ndarray-npy" => {
                // Each side writes an array it loaded, as np.save writes np.load's array: here
                // npyguard's read (huge-page memory, as NumPy's), std::fs::read's bytes, and
                // ndarray-npy's own array.
                let (arr, bytes, nd) = source.get_or_insert_with(|| {
                    (
                        NpyArray::<f64>::read_path(&le, &opts).unwrap(),
                        std::fs::read(&le).unwrap(),
                        ndarray_npy::read_npy::<_, ndarray::Array1<f64>>(&le).unwrap(),
                    )
                });
                let t = Instant::now();
                match op {
                    "write/std::fs::write" => std::fs::write(&out, &bytes).unwrap(),
                    "write/npyguard write_path" => arr.write_path(&out).unwrap(),
                    "write/ndarray-npy" => ndarray_npy::write_npy(&out, &*nd).unwrap(),
                    _ => {
                        use npyz::WriterBuilder;
                        let f = std::io::BufWriter::new(File::create(&out).unwrap());
                        let mut w = npyz::WriteOptions::new()
                            .default_dtype()
                            .shape(&[arr.data().len() as u64])
                            .writer(f)
                            .begin_nd()
                            .unwrap();
                        w.extend(arr.data().iter().copied()).unwrap();
                        w.finish().unwrap();
                    }
                }
                value = Some(t.elapsed().as_secs_f64());
            }
            "header/npyguard Header::from_bytes" => {
                let iters = 100_000;
                let t = Instant::now();
                for _ in 0..iters {
                    black_box(Header::from_bytes(black_box(&header), &opts).unwrap());
                }
                value = Some(t.elapsed().as_secs_f64() / iters as f64);
            }
            "header/npyz NpyFile::new" => {
                let iters = 10_000;
                let t = Instant::now();
                for _ in 0..iters {
                    black_box(npyz::NpyFile::new(black_box(&header[..])).unwrap());
                }
                value = Some(t.elapsed().as_secs_f64() / iters as f64);
            }
            "header_1mib/wide nested values (accepted)"
            | "header_1mib/nesting bomb (rejected)"
            | "header_1mib/string value (accepted)" => {
                let bytes = big_header(op);
                let big = ReadOptions::default().with_max_header_bytes(2 << 20);
                let t = Instant::now();
                let ok = Header::from_bytes(&bytes, &big).is_ok();
                value = Some(t.elapsed().as_secs_f64());
                assert_eq!(ok, !op.contains("rejected"), "{op}");
            }
            // Diagnostics (not in the report): the parts of a read + reindex.
            "diag/f4 read" => drop(black_box(NpyArray::<f32>::read_path(&f4, &opts).unwrap())),
            "diag/f4 reindex only" | "diag/f8 reindex only" => {
                let f = if op.contains("f4") { &f4 } else { &f8 };
                let a = npyguard::read_path(f, &opts).unwrap();
                let t = Instant::now();
                black_box(a.to_c_order());
                value = Some(t.elapsed().as_secs_f64());
            }
            other => panic!("unknown op {other}"),
        }
        let secs = value.unwrap_or_else(|| t.elapsed().as_secs_f64());
        println!("{secs:.9}");
        std::io::stdout().flush().unwrap();
    }
}

/// The 1 MiB headers that must be parsed or rejected in linear time (well under 10 ms).
fn big_header(op: &str) -> Vec<u8> {
    let text = if op.contains("wide") {
        format!(
            "{{'descr': '<f8', 'fortran_order': False, 'shape': (0,), 'x': [{}0]}}",
            "[[[0, 'ab\\x41'], (1, 2,)], None], ".repeat((1 << 20) / 36)
        )
    } else if op.contains("bomb") {
        format!("{{'descr': {}", "[(".repeat(1 << 19))
    } else {
        format!(
            "{{'descr': '<f8', 'fortran_order': False, 'shape': (0,), 'x': '{}' }}",
            "a".repeat(1 << 20)
        )
    };
    let mut v = b"\x93NUMPY\x02\x00".to_vec();
    v.extend_from_slice(&(text.len() as u32).to_le_bytes());
    v.extend_from_slice(text.as_bytes());
    v
}

fn vm_hwm_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}
