#!/usr/bin/env bash
# Checks the public API (all features) against the committed snapshot api/npyguard.txt:
# an accidental change fails; an intended one is recorded with `api/check.sh --update`
# (the diff then shows it, and CHANGELOG.md says why). Needs the nightly toolchain
# (rustdoc's JSON output is unstable); .ci/run installs it when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${API_TARGET_DIR:-target/api}"
cargo +nightly rustdoc --quiet --lib --all-features -- -Z unstable-options --output-format json
json="$CARGO_TARGET_DIR/doc/npyguard.json"
if [ "${1:-}" = "--update" ]; then
  python3 api/snapshot.py "$json" > api/npyguard.txt
  echo "wrote api/npyguard.txt ($(wc -l < api/npyguard.txt) items)"
else
  python3 api/snapshot.py "$json" --check api/npyguard.txt
fi
