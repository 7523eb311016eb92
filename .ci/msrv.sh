#!/usr/bin/env bash
# rust-version (Cargo.toml: 1.82) is honoured: the library builds with that toolchain.
#   .ci/msrv.sh          default features (run by .ci/run)
#   .ci/msrv.sh --all    also every feature (a few minutes more; passed on 2026-12-02)
# On a copy of the committed tree holding the npyguard package alone (the front-end crates
# of the workspace declare newer rust-versions of their own), its lock resolved by Cargo's
# MSRV-aware resolver, as a dependent on 1.82 resolves it (the committed lock has newer
# crates for the workspace: e.g. hashbrown 0.17 needs edition 2024).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
msrv="$(sed -n 's/^rust-version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n 1)"
rustup toolchain list | grep -q "^$msrv" || rustup toolchain install "$msrv" --profile minimal
export CARGO_TARGET_DIR="$root/target/msrv"
copy="$CARGO_TARGET_DIR/src-copy"
rm -rf "$copy" && mkdir -p "$copy"
git -C "$root" archive --format=tar HEAD | tar xf - -C "$copy"
cd "$copy"
sed -i 's/^members = \[.*\]$/members = ["."]/' Cargo.toml
CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=fallback cargo update --quiet
echo "-- cargo +$msrv check --lib (default features)"
cargo +"$msrv" check --lib --quiet
if [ "${1:-}" = "--all" ]; then
  echo "-- cargo +$msrv check --lib --all-features"
  cargo +"$msrv" check --lib --all-features --quiet
fi
echo "msrv $msrv: OK"
