#!/usr/bin/env bash
# Builds every npyguard fuzz target for ClusterFuzzLite or OSS-Fuzz and installs it in $OUT,
# with what those runners pick up beside each binary:
#
#   $OUT/<target>                    the libFuzzer binary (`cargo fuzz build -O --debug-assertions`)
#   $OUT/<target>_seed_corpus.zip    the committed corpus and the named regressions
#   $OUT/<target>.options            libFuzzer flags: -malloc_limit_mb for every target (one
#                                    allocation larger than the limit is a finding), -dict
#                                    for `header`
#   $OUT/<target>.dict               the header-token dictionary (`header` only)
#
# The runners set $SRC (the sources; this repository is $SRC/npyguard) and $OUT; locally:
#
#   SRC=/tmp/src OUT=/tmp/out RUSTUP_TOOLCHAIN=nightly bash .clusterfuzzlite/build.sh
#
# with /tmp/src/npyguard a checkout (or a link to one). `fuzz/oss_fuzz_check.sh` does exactly
# that and runs each installed target over its seed corpus.
set -euo pipefail

: "${SRC:?set SRC (the folder holding npyguard/)}"
: "${OUT:?set OUT (where the fuzzers go)}"
cd "$SRC/npyguard"

# Every allocation a target makes is bounded by what its input pays for (SECURITY.md): with
# inputs of at most MAX_LEN bytes, one allocation above 4 x MAX_LEN + 1 MiB (2 MiB, in
# libFuzzer's whole MiB) is a finding, as in fuzz/smoke.sh.
MAX_LEN="${NPYGUARD_FUZZ_MAX_LEN:-65536}"
MALLOC_LIMIT_MB="${NPYGUARD_MALLOC_LIMIT_MB:-$(( (4 * MAX_LEN + (1 << 20) + (1 << 20) - 1) >> 20 ))}"

# As regex does for OSS-Fuzz: optimised, with debug assertions and overflow checks on.
cargo fuzz build -O --debug-assertions
release="fuzz/target/x86_64-unknown-linux-gnu/release"
mkdir -p "$OUT"
for src in fuzz/fuzz_targets/*.rs; do
    t="$(basename "$src" .rs)"
    cp "$release/$t" "$OUT/$t"
    # The seed corpus: corpus files and named regressions, flat (zip -j), no directories.
    seeds=()
    for d in "fuzz/corpus/$t" "fuzz/regressions/$t"; do
        [ -d "$d" ] && seeds+=("$d")
    done
    rm -f "$OUT/${t}_seed_corpus.zip"
    if [ "${#seeds[@]}" -gt 0 ]; then
        find "${seeds[@]}" -type f -print0 | xargs -0 zip -q -j "$OUT/${t}_seed_corpus.zip"
    fi
    {
        echo "[libfuzzer]"
        echo "malloc_limit_mb = $MALLOC_LIMIT_MB"
        echo "timeout = 10"
        if [ "$t" = header ]; then
            echo "dict = header.dict"
            echo "max_len = 4096"
        else
            echo "max_len = $MAX_LEN"
        fi
    } > "$OUT/$t.options"
    if [ "$t" = header ]; then
        cp fuzz/header.dict "$OUT/header.dict"
    fi
done
echo "installed $(ls fuzz/fuzz_targets/*.rs | wc -l) fuzz targets in $OUT"
