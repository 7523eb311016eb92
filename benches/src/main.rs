//! Side-by-side benchmarks: npyguard vs std::fs, ndarray-npy and npyz on the same files.
//!
//! Usage: `npyguard-bench DIR [MiB]` — writes its input files into DIR (reused by the
//! NumPy half, bench/numpy_bench.py), prints one JSON object per measurement on stdout.
//! Each figure is the best of N runs with fresh allocations (page cache warm).

use std::fs::File;
use std::hint::black_box;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use npyguard::{write, Endian, Header, NpyArray, ReadOptions};

fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        black_box(f());
        best = best.min(t.elapsed());
    }
    best
}

fn emit(group: &str, name: &str, bytes: usize, d: Duration) {
    let gbps = bytes as f64 / d.as_secs_f64() / 1e9;
    println!(
        "{{\"group\": \"{group}\", \"name\": \"{name}\", \"bytes\": {bytes}, \"seconds\": {:.6}, \"gbps\": {gbps:.4}}}",
        d.as_secs_f64()
    );
}

fn emit_us(group: &str, name: &str, us: f64) {
    println!("{{\"group\": \"{group}\", \"name\": \"{name}\", \"micros\": {us:.4}}}");
}

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
    let dir = PathBuf::from(
        args.get(1)
            .cloned()
            .unwrap_or_else(|| "/tmp/npyguard-bench".into()),
    );
    let mib: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(256);
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    std::fs::create_dir_all(&dir).unwrap();
    let n = mib * (1 << 20) / 8;
    let opts = ReadOptions::default();

    // ---- inputs
    let values: Vec<f64> = (0..n).map(|i| (i as f64) * 0.5 - 3.0).collect();
    let le = dir.join("f8_le.npy");
    let be = dir.join("f8_be.npy");
    NpyArray::from_vec_with(values.clone(), vec![n], false, Endian::Little)
        .unwrap()
        .write_path(&le)
        .unwrap();
    NpyArray::from_vec_with(values.clone(), vec![n], false, Endian::Big)
        .unwrap()
        .write_path(&be)
        .unwrap();
    let side = ((mib * (1 << 20) / 4) as f64).sqrt() as usize;
    let fpath = dir.join("f4_fortran.npy");
    let fvals: Vec<f32> = (0..side * side).map(|i| i as f32).collect();
    NpyArray::from_vec_with(fvals, vec![side, side], true, Endian::Little)
        .unwrap()
        .write_path(&fpath)
        .unwrap();
    let bytes = n * 8;

    // ---- read, little-endian, fresh buffer
    emit(
        "read_le",
        "std::fs::read",
        bytes,
        best(runs, || std::fs::read(&le).unwrap()),
    );
    emit(
        "read_le",
        "npyguard",
        bytes,
        best(runs, || NpyArray::<f64>::read_path(&le, &opts).unwrap()),
    );
    emit(
        "read_le",
        "ndarray-npy",
        bytes,
        best(runs, || {
            ndarray_npy::read_npy::<_, ndarray::Array1<f64>>(&le).unwrap()
        }),
    );
    emit(
        "read_le",
        "npyz",
        bytes,
        best(runs, || {
            let npy = npyz::NpyFile::new(BufReader::new(File::open(&le).unwrap())).unwrap();
            npy.into_vec::<f64>().unwrap()
        }),
    );

    // ---- read, big-endian
    emit(
        "read_be",
        "npyguard",
        bytes,
        best(runs, || NpyArray::<f64>::read_path(&be, &opts).unwrap()),
    );
    emit(
        "read_be",
        "ndarray-npy",
        bytes,
        best(runs, || {
            ndarray_npy::read_npy::<_, ndarray::Array1<f64>>(&be).unwrap()
        }),
    );
    emit(
        "read_be",
        "npyz",
        bytes,
        best(runs, || {
            let npy = npyz::NpyFile::new(BufReader::new(File::open(&be).unwrap())).unwrap();
            npy.into_vec::<f64>().unwrap()
        }),
    );

    if std::env::var("BENCH_ONLY").as_deref() == Ok("read") {
        return;
    }

    // ---- read into a reused buffer
    let off = payload_offset(&le);
    let mut raw = vec![0u8; bytes];
    emit(
        "read_reuse",
        "read_exact (reused Vec<u8>)",
        bytes,
        best(runs, || {
            let mut f = File::open(&le).unwrap();
            f.seek(SeekFrom::Start(off)).unwrap();
            f.read_exact(&mut raw).unwrap();
        }),
    );
    let mut buf: Vec<f64> = Vec::new();
    NpyArray::<f64>::read_path_into(&le, &opts, &mut buf).unwrap();
    emit(
        "read_reuse",
        "npyguard read_path_into",
        bytes,
        best(runs, || {
            NpyArray::<f64>::read_path_into(&le, &opts, &mut buf).unwrap();
        }),
    );
    emit(
        "read_reuse",
        "npyguard read_path_into (big-endian)",
        bytes,
        best(runs, || {
            NpyArray::<f64>::read_path_into(&be, &opts, &mut buf).unwrap();
        }),
    );

    // ---- Fortran -> row-major
    let fa = NpyArray::<f32>::read_path(&fpath, &opts).unwrap();
    let fbytes = side * side * 4;
    emit(
        "fortran_to_c",
        "npyguard to_c_order",
        fbytes,
        best(runs, || fa.to_c_order()),
    );
    emit(
        "fortran_to_c",
        "npyguard read_path + to_c_order",
        fbytes,
        best(runs, || {
            NpyArray::<f32>::read_path(&fpath, &opts)
                .unwrap()
                .to_c_order()
        }),
    );
    let nd = ndarray_npy::read_npy::<_, ndarray::Array2<f32>>(&fpath).unwrap();
    emit(
        "fortran_to_c",
        "ndarray as_standard_layout",
        fbytes,
        best(runs, || nd.as_standard_layout().into_owned()),
    );

    // ---- header parse
    let header_bytes = std::fs::read(&le).unwrap()[..128].to_vec();
    let iters = 200_000;
    let mut samples = Vec::with_capacity(20);
    for _ in 0..20 {
        let t = Instant::now();
        for _ in 0..iters {
            black_box(Header::from_bytes(black_box(&header_bytes), &opts).unwrap());
        }
        samples.push(t.elapsed().as_secs_f64() * 1e6 / iters as f64);
    }
    samples.sort_by(f64::total_cmp);
    emit_us(
        "header",
        "npyguard Header::from_bytes (median)",
        samples[samples.len() / 2],
    );
    let mut samples = Vec::with_capacity(20);
    for _ in 0..20 {
        let t = Instant::now();
        for _ in 0..iters / 20 {
            black_box(npyz::NpyFile::new(black_box(&header_bytes[..])).unwrap());
        }
        samples.push(t.elapsed().as_secs_f64() * 1e6 / (iters / 20) as f64);
    }
    samples.sort_by(f64::total_cmp);
    emit_us(
        "header",
        "npyz NpyFile::new (median)",
        samples[samples.len() / 2],
    );

    // ---- 1 MiB headers: parsed or rejected in linear time (issue 2's bound: well under 10 ms)
    let big_opts = ReadOptions::default().with_max_header_bytes(2 << 20);
    let mk = |text: String| {
        let mut v = b"\x93NUMPY\x02\x00".to_vec();
        v.extend_from_slice(&(text.len() as u32).to_le_bytes());
        v.extend_from_slice(text.as_bytes());
        v
    };
    let wide = mk(format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': (0,), 'x': [{}0]}}",
        "[[[0, 'ab\\x41'], (1, 2,)], None], ".repeat((1 << 20) / 36)
    ));
    let deep = mk(format!("{{'descr': {}", "[(".repeat(1 << 19)));
    let junk = mk(format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': (0,), 'x': '{}' }}",
        "a".repeat(1 << 20)
    ));
    for (name, bytes) in [
        ("1 MiB header, wide nested values (accepted)", &wide),
        ("1 MiB nesting bomb (rejected)", &deep),
        ("1 MiB string value (accepted)", &junk),
    ] {
        let ok = Header::from_bytes(bytes, &big_opts).is_ok();
        let d = best(runs, || Header::from_bytes(bytes, &big_opts).is_ok());
        println!(
            "{{\"group\": \"header_1mib\", \"name\": \"{name}\", \"bytes\": {}, \"ok\": {ok}, \"millis\": {:.3}}}",
            bytes.len(),
            d.as_secs_f64() * 1e3
        );
    }

    // ---- write 256 MiB f8
    let out = dir.join("write_out.npy");
    let file_bytes = std::fs::read(&le).unwrap();
    emit(
        "write",
        "std::fs::write",
        bytes,
        best(runs, || std::fs::write(&out, &file_bytes).unwrap()),
    );
    let arr = NpyArray::from_vec(values.clone(), vec![n]).unwrap();
    emit(
        "write",
        "npyguard write_path",
        bytes,
        best(runs, || arr.write_path(&out).unwrap()),
    );
    emit(
        "write",
        "npyz",
        bytes,
        best(runs, || {
            use npyz::WriterBuilder;
            let f = std::io::BufWriter::new(File::create(&out).unwrap());
            let mut w = npyz::WriteOptions::new()
                .default_dtype()
                .shape(&[n as u64])
                .writer(f)
                .begin_nd()
                .unwrap();
            w.extend(values.iter().copied()).unwrap();
            w.finish().unwrap();
        }),
    );
    let nd1 = ndarray::Array1::from(values.clone());
    emit(
        "write",
        "ndarray-npy",
        bytes,
        best(runs, || ndarray_npy::write_npy(&out, &nd1).unwrap()),
    );
    assert_eq!(std::fs::read(&out).unwrap().len(), file_bytes.len());
    let _ = write::choose_version;

    // ---- peak memory of a read (VmHWM of a fresh child process)
    if let Ok(exe) = std::env::current_exe() {
        if std::env::var("NPYGUARD_BENCH_CHILD").is_err() {
            let outp = std::process::Command::new(exe)
                .env("NPYGUARD_BENCH_CHILD", le.to_str().unwrap())
                .arg("--peak")
                .output()
                .unwrap();
            print!("{}", String::from_utf8_lossy(&outp.stdout));
        }
    }
}

fn vm_hwm_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}
