#!/usr/bin/env bash
# Runs every benchmark in one go and writes BENCHMARKS.md at the repository root.
# Usage: benches/run.sh [MiB=256]   (needs: cargo, python3 with numpy and duckdb)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
mib="${1:-256}"
dir="${BENCH_DIR:-/tmp/npyguard-bench}"
mkdir -p "$dir"
out="$dir/results.jsonl"
: > "$out"
(cd "$here" && cargo build --release --quiet)
(cd "$root" && cargo build --release --quiet --features cli-datasets)
"$here/target/release/npyguard-bench" prepare "$dir" "$mib"
# Every Rust/NumPy pair interleaved (ABAB...), five rounds, defaults only.
python3 "$here/interleaved.py" "$dir" --bin "$here/target/release/npyguard-bench" | tee -a "$out"
python3 "$here/numpy_bench.py" "$dir" | tee -a "$out"
# nonzeros (arrow feature) on the sparse matrix numpy_bench.py just wrote.
"$here/target/release/nonzeros-bench" "$dir" | tee -a "$out"
python3 "$here/report.py" "$out" "$mib" "$root/BENCHMARKS.md" > "$dir/BENCHMARKS.md"
cp "$dir/BENCHMARKS.md" "$root/BENCHMARKS.md"
# Hostile inputs (issue 14): validate/inspect/diff of many-member archives and zero-size files.
python3 "$here/hostile_bench.py" "$dir/hostile" --splice "$root/BENCHMARKS.md"
# Streaming conversion (issue 16): peak RSS of convert --to parquet on a 2 GiB file, DuckDB-checked.
python3 "$here/stream_bench.py" "$dir/stream" --bin "$root/target/release/npyguard" --splice "$root/BENCHMARKS.md"
# The Python package (issue 20): npyguard.load vs np.load, interleaved, same run.
python3 -m pip install --quiet "$root/python"   # the working tree's package (rebuilt incrementally)
python3 "$here/python_bench.py" "$dir/python" --mib "$mib" --splice "$root/BENCHMARKS.md"
# DuckDB extension (issue 19): read_npy vs the converted Parquet file, 2 GiB, SELECT sum(c1)
# (builds the extension with duckdb-npy/build.sh; needs pip duckdb at duckdb-npy/duckdb-version.txt).
python3 "$here/duckdb_bench.py" "$dir/duckdb" --bin "$root/target/release/npyguard" --splice "$root/BENCHMARKS.md"
echo "wrote $root/BENCHMARKS.md"
