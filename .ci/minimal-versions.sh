#!/usr/bin/env bash
# The lower bounds Cargo.toml declares are true (issue 18), on a copy of the tree:
#  1. every dependency, transitive ones too, at the lowest version allowed
#     (`cargo +nightly update -Z minimal-versions`): the library builds with its default
#     features. (Dev-dependencies are resolved but not built here: third-party crates under
#     them declare bounds of their own that are not true, e.g. pest_derive 1.0.2 no longer
#     builds against the quote its bounds allow.)
#  2. npyguard's own dependencies, dev-dependencies included, at the lowest versions it
#     declares (`-Z direct-minimal-versions`, the rest as the resolver picks): the default
#     features build and their tests pass (the unit tests and tests/core.rs, tests/hostile.rs
#     and tests/adversarial.rs in CI; `--full` runs every test binary, which passed on
#     2026-12-02 after the floors of pest and proptest were raised).
# Needs nightly (for -Z); .ci/run installs it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${MINVER_DIR:-$root/target/minimal-versions}"
rm -rf "$work/src-copy"
mkdir -p "$work/src-copy"
# The committed tree (no target/, no build output).
git -C "$root" archive --format=tar HEAD | tar xf - -C "$work/src-copy"
cd "$work/src-copy"
# The bounds checked are npyguard's: the copy's workspace is the root package alone (a front
# end such as duckdb-npy/ pins crates of its own, e.g. the duckdb crate's arrow needs
# num-complex >= 0.4.6, which would make -Z direct-minimal-versions unsatisfiable).
sed -i 's/^members = \[.*\]$/members = ["."]/' Cargo.toml
export CARGO_TARGET_DIR="$work/target"
echo "-- every dependency at its minimal version: cargo build --lib (default features)"
cargo +nightly update -Z minimal-versions --quiet
cargo build --lib --quiet
echo "-- npyguard's dependencies at their declared minimums: cargo test (default features)"
git -C "$root" show HEAD:Cargo.lock > Cargo.lock 2>/dev/null || cp "$root/Cargo.lock" Cargo.lock
cargo +nightly update -Z direct-minimal-versions --quiet
log="$work/test.log"
if [ "${1:-}" = "--full" ]; then
  tests=(--tests)
else
  tests=(--lib --test core --test hostile --test adversarial)
fi
if ! cargo test "${tests[@]}" >"$log" 2>&1; then
  tail -n 60 "$log"
  echo "minimal versions: FAILED"
  exit 1
fi
grep -E '^test result' "$log"
echo "minimal versions: OK"
