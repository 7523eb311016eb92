#!/usr/bin/env bash
# rust-version (Cargo.toml: 1.82) is honoured: the library builds with that toolchain.
#   .ci/msrv.sh          default features, the committed Cargo.lock (run by .ci/run)
#   .ci/msrv.sh --all    also every feature, in a copy whose lock is resolved with Cargo's
#                        MSRV-aware resolver (the committed lock has newer crates: e.g.
#                        hashbrown 0.17 needs edition 2024); a few minutes more
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
msrv="$(sed -n 's/^rust-version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n 1)"
rustup toolchain list | grep -q "^$msrv" || rustup toolchain install "$msrv" --profile minimal
export CARGO_TARGET_DIR="$root/target/msrv"
echo "-- cargo +$msrv check --lib (default features)"
(cd "$root" && cargo +"$msrv" check --lib --quiet)
if [ "${1:-}" = "--all" ]; then
  copy="$CARGO_TARGET_DIR/src-copy"
  rm -rf "$copy" && mkdir -p "$copy"
  git -C "$root" archive --format=tar HEAD | tar xf - -C "$copy"
  (cd "$copy" && CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=fallback cargo update --quiet)
  echo "-- cargo +$msrv check --lib --all-features (MSRV-aware lock)"
  (cd "$copy" && cargo +"$msrv" check --lib --all-features --quiet)
fi
echo "msrv $msrv: OK"
