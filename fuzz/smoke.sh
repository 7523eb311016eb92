#!/usr/bin/env bash
# Fuzz smoke test: every target for N seconds (default 30), failing on a crash.
#
#   bash fuzz/smoke.sh [SECONDS]          (or FUZZ_SECONDS=N bash fuzz/smoke.sh)
#
# Needs a nightly toolchain (`cargo +nightly`, or the one named by FUZZ_TOOLCHAIN);
# installs cargo-fuzz when missing.
# Without nightly it prints that fuzzing was skipped and exits 0: the corpora and
# reproducers are still replayed on stable by `cargo test --test library fuzz_replay::`.
#
# Runs the targets one after another, one process each (the machine has 2 cores).
# The corpora in fuzz/corpus/ are copied to a scratch directory first, so a smoke
# run never changes the committed corpus. A crash leaves its input under
# fuzz/artifacts/<target>/ and the run exits 1 (see fuzz/README.md for turning it
# into a regression test).
set -euo pipefail

SECONDS_PER_TARGET="${1:-${FUZZ_SECONDS:-30}}"
TOOLCHAIN="${FUZZ_TOOLCHAIN:-nightly}"
TARGETS=(header preamble file payload roundtrip npz datasets render compare views append)
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if ! cargo +"$TOOLCHAIN" --version >/dev/null 2>&1; then
    echo "fuzz smoke: skipped (no $TOOLCHAIN toolchain: 'cargo +$TOOLCHAIN --version' failed)"
    [ -n "${FUZZ_REQUIRED:-}" ] && { echo "fuzz smoke: required here (FUZZ_REQUIRED): failing"; exit 1; }
    exit 0
fi
if ! cargo +"$TOOLCHAIN" fuzz --version >/dev/null 2>&1; then
    echo "fuzz smoke: installing cargo-fuzz"
    cargo install --locked cargo-fuzz
fi

echo "fuzz smoke: building ${#TARGETS[@]} targets ($(cargo +"$TOOLCHAIN" --version))"
# The same build as .clusterfuzzlite/build.sh (so fuzz/oss_fuzz_check.sh reuses it).
cargo +"$TOOLCHAIN" fuzz build -O --debug-assertions

# The triple cargo-fuzz builds for (its default --target is the host).
HOST="$(rustc +"$TOOLCHAIN" -vV | sed -n 's/^host: //p')"
BIN_DIR="$ROOT/fuzz/target/$HOST/release"

SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT

# Every target runs under a tight allocation bound (issue 18): inputs are capped at MAX_LEN
# bytes, and one allocation above 4 x MAX_LEN + 1 MiB (rounded up to libFuzzer's whole MiB:
# 2 MiB for 64 KiB inputs) is a finding, whatever the target. NumPy's own OSS-Fuzz loader
# needs rss_limit_mb=6000.
MAX_LEN="${FUZZ_MAX_LEN:-65536}"
MALLOC_MB="${FUZZ_MALLOC_MB:-$(( (4 * MAX_LEN + (1 << 20) + (1 << 20) - 1) >> 20 ))}"

# The largest single allocation of a target over its whole corpus, to the MiB: the smallest
# -malloc_limit_mb under which every corpus input runs (libFuzzer's limit is in whole MiB).
peak_mib() {
    local bin="$1" max_len="$2"; shift 2
    local mb
    for mb in 1 2 4 8 16 32 64; do
        if "$bin" -runs=0 -artifact_prefix="$SCRATCH/peak-" -malloc_limit_mb="$mb" -rss_limit_mb=2048 -max_len="$max_len" "$@" >/dev/null 2>&1; then
            echo "$mb"
            return
        fi
    done
    echo ">64"
}

failed=()
report=()
for t in "${TARGETS[@]}"; do
    max_len="$MAX_LEN"
    [ "$t" = header ] && max_len=4096
    flags=(-max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
           -malloc_limit_mb="$MALLOC_MB" -max_len="$max_len")
    if [ "$t" = header ]; then
        flags+=(-dict="$ROOT/fuzz/header.dict")
    fi
    mkdir -p "$SCRATCH/$t" "$ROOT/fuzz/artifacts/$t"
    if [ -d "fuzz/corpus/$t" ]; then
        cp -R "fuzz/corpus/$t/." "$SCRATCH/$t/"
    fi
    log="$SCRATCH/$t.log"
    echo "fuzz smoke: $t for ${SECONDS_PER_TARGET}s (single allocations <= ${MALLOC_MB} MiB)"
    # The binary is run directly (what `cargo fuzz run` does after building), with the
    # committed reproducers as extra seeds so they are re-checked under the sanitizer.
    seeds=("$SCRATCH/$t")
    if [ -d "fuzz/regressions/$t" ]; then
        seeds+=("$ROOT/fuzz/regressions/$t")
    fi
    if "$BIN_DIR/$t" -artifact_prefix="$ROOT/fuzz/artifacts/$t/" "${flags[@]}" "${seeds[@]}" >"$log" 2>&1; then
        done_line="$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 || true)"
        execs="$(echo "$done_line" | sed -n 's/^#\([0-9]*\).*/\1/p')"
        # The corpus peak (a binary search over -malloc_limit_mb, one corpus pass each) is
        # for the report only: the run above already held every input under MALLOC_MB.
        if [ -n "${FUZZ_REPORT:-}" ]; then
            peak="$(peak_mib "$BIN_DIR/$t" "$max_len" "${seeds[@]}")"
            echo "fuzz smoke: $t: ${execs:-?} executions, largest single allocation over the corpus <= ${peak} MiB"
            report+=("| \`$t\` | ${execs:-?} | ≤ ${peak} MiB |")
        else
            echo "fuzz smoke: $t: ${execs:-?} executions, every input under ${MALLOC_MB} MiB per allocation"
        fi
    else
        echo "fuzz smoke: $t FAILED; the end of its log:"
        tail -n 60 "$log"
        failed+=("$t")
    fi
done
if [ -n "${FUZZ_REPORT:-}" ]; then
    { echo "| target | executions | largest single allocation (corpus) |"; echo "|---|---:|---|"; printf '%s\n' "${report[@]}"; } > "$FUZZ_REPORT"
fi

if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz smoke: crashes in: ${failed[*]} (inputs under fuzz/artifacts/)"
    exit 1
fi
echo "fuzz smoke: ${#TARGETS[@]} targets ran ${SECONDS_PER_TARGET}s each without a crash"
