#!/usr/bin/env bash
# Builds the DuckDB extension `npy` (read_npy, read_npz) and prints, as its LAST line, the
# absolute path of the loadable file `npy.duckdb_extension`.
#
#   bash duckdb-npy/build.sh            # then, in DuckDB 2.0.0 (allow_unsigned_extensions):
#                                       #   LOAD '<printed path>'; SELECT * FROM read_npy('a.npy');
#
# Needs cargo and python3 (for the metadata footer). The DuckDB version the extension is
# built for is pinned in ONE place, duckdb-npy/duckdb-version.txt: the duckdb crate in
# duckdb-npy/Cargo.toml (=1.20000.1) is that release's C API, and .ci/run installs exactly
# that Python duckdb. The extension declares the stable V1 C API (v1.5.6, the last band
# of the V1 struct in DuckDB 2.0's headers; ABI type C_STRUCT), which DuckDB 2.0.x loads
# through the `npy_init_c_api` entry point; DuckDB 2.0 loads unstable-API extensions only
# through its V2 entry point, which the duckdb crate's macro does not generate.
#
# Environment: CARGO_TARGET_DIR (default: <repo>/target), DUCKDB_PLATFORM (default: from
# the OS and CPU, as DuckDB names them: linux_amd64, linux_arm64, osx_amd64, osx_arm64).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
version="$(tr -d ' \n\r' < "$here/duckdb-version.txt")"
# The C API version of the duckdb crate's bindings (also `min_duckdb_version` in src/lib.rs).
c_api=v1.5.6
# The duckdb crate's version encodes its DuckDB release (1.MAJOR MINOR PATCH: 2.0.0 -> 1.20000.x):
# the pin and the crate must agree.
IFS=. read -r major minor patch <<< "$version"
crate="1.$(printf '%d%02d%02d' "$major" "$minor" "$patch")."
grep -q "^duckdb = { version = \"=$crate" "$here/Cargo.toml" || {
  echo "build.sh: duckdb-npy/Cargo.toml's duckdb crate is not $crate* (DuckDB $version, duckdb-version.txt)" >&2
  exit 1
}

if [ -z "${DUCKDB_PLATFORM:-}" ]; then
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) DUCKDB_PLATFORM=linux_amd64 ;;
    Linux-aarch64 | Linux-arm64) DUCKDB_PLATFORM=linux_arm64 ;;
    Darwin-x86_64) DUCKDB_PLATFORM=osx_amd64 ;;
    Darwin-arm64) DUCKDB_PLATFORM=osx_arm64 ;;
    *) echo "build.sh: unknown platform $(uname -s)-$(uname -m); set DUCKDB_PLATFORM" >&2; exit 1 ;;
  esac
fi
case "$(uname -s)" in
  Darwin) lib=libnpy.dylib ;;
  *) lib=libnpy.so ;;
esac

target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
# The `extension` profile (root Cargo.toml): release code, no debug info, 16 codegen units.
(cd "$root" && CARGO_TARGET_DIR="$target" cargo build -p duckdb-npy --profile extension >&2)

out="$target/extension/npy.duckdb_extension"
python3 "$here/append_metadata.py" "$target/extension/$lib" "$out" \
  --abi-type C_STRUCT --duckdb-version "$c_api" --platform "$DUCKDB_PLATFORM" \
  --extension-version "$(sed -n 's/^version = "\(.*\)"/\1/p' "$here/Cargo.toml" | head -1)"
echo "$out"
