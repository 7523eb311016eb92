#!/usr/bin/env bash
# Runs the library's unit tests under Miri (undefined-behaviour checker) when a
# nightly toolchain with the miri component is installed; otherwise says so and
# exits 0. npyguard itself has no `unsafe` (#![forbid(unsafe_code)]); Miri checks
# the unsafe code of the dependencies on the paths the unit tests exercise
# (nom, bytemuck's casts, std).
#
#   .ci/miri.sh            default features
#   .ci/miri.sh --all      also with --all-features (slower: npz, half, complex, ...)
#
# Install: rustup toolchain install nightly && rustup +nightly component add miri rust-src
set -euo pipefail
cd "$(dirname "$0")/.."

if ! rustup +nightly --version >/dev/null 2>&1 || ! cargo +nightly miri --version >/dev/null 2>&1; then
  echo "miri: skipped (no nightly toolchain with the miri component)"
  [ -n "${MIRI_REQUIRED:-}" ] && { echo "miri: required here (MIRI_REQUIRED): failing"; exit 1; }
  exit 0
fi

cargo +nightly miri --version
# Miri keeps its own target directory (target/miri), so it does not disturb other builds.
if ! cargo +nightly miri setup >/dev/null 2>&1; then
  # An environment problem (e.g. no rust-src component to build Miri's sysroot), not a finding.
  echo "miri: skipped (cargo +nightly miri setup failed: is the rust-src component installed?)"
  [ -n "${MIRI_REQUIRED:-}" ] && { echo "miri: required here (MIRI_REQUIRED): failing"; exit 1; }
  exit 0
fi
echo "== cargo +nightly miri test --lib"
cargo +nightly miri test --lib
if [ "${1:-}" = "--all" ]; then
  echo "== cargo +nightly miri test --lib --all-features"
  cargo +nightly miri test --lib --all-features
fi
echo "miri: OK"
