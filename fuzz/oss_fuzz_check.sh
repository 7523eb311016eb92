#!/usr/bin/env bash
# Runs .clusterfuzzlite/build.sh as ClusterFuzzLite and OSS-Fuzz run it (SRC holding
# npyguard/, OUT empty), then checks what it installed: every target of fuzz/fuzz_targets as
# a binary with its .options and seed corpus, and each binary run over its seed corpus with
# the flags of its .options (a crash, a timeout or an allocation over the limit fails).
#
#   bash fuzz/oss_fuzz_check.sh           (needs nightly Rust, cargo-fuzz and zip)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/out"
ln -s "$ROOT" "$work/src/npyguard"
if ! command -v zip >/dev/null || ! command -v unzip >/dev/null; then
    echo "oss-fuzz check: installing zip and unzip"
    apt-get update -qq && apt-get install -y -qq zip unzip >/dev/null
fi
SRC="$work/src" OUT="$work/out" RUSTUP_TOOLCHAIN="${FUZZ_TOOLCHAIN:-nightly}" \
    bash "$ROOT/.clusterfuzzlite/build.sh"
failed=0
for src in "$ROOT"/fuzz/fuzz_targets/*.rs; do
    t="$(basename "$src" .rs)"
    for f in "$t" "$t.options"; do
        [ -f "$work/out/$f" ] || { echo "oss-fuzz check: $f missing"; failed=1; }
    done
    [ -s "$work/out/${t}_seed_corpus.zip" ] || { echo "oss-fuzz check: ${t}_seed_corpus.zip missing"; failed=1; }
    seeds="$work/seeds/$t"
    mkdir -p "$seeds"
    unzip -q -o "$work/out/${t}_seed_corpus.zip" -d "$seeds"
    limit="$(sed -n 's/^malloc_limit_mb = //p' "$work/out/$t.options")"
    max_len="$(sed -n 's/^max_len = //p' "$work/out/$t.options")"
    # The runners pass every option of the .options file; the input cap is one of them.
    flags=(-runs=0 -artifact_prefix="$work/artifacts-" -malloc_limit_mb="$limit" -rss_limit_mb=2048 -timeout=10 -max_len="$max_len")
    [ "$t" = header ] && flags+=(-dict="$work/out/header.dict")
    # A sample of the seeds shows the installed binary runs with its options; the smoke run
    # (fuzz/smoke.sh) already ran every corpus input under the same limit.
    sample="$work/sample/$t"
    mkdir -p "$sample"
    # (The list goes through a file: `head` closing a pipe early would fail it under pipefail.)
    find "$seeds" -type f | sort >"$work/$t.seeds"
    head -n "${OSS_FUZZ_CHECK_SEEDS:-64}" "$work/$t.seeds" | xargs -r cp -t "$sample"
    if (cd "$work/out" && "./$t" "${flags[@]}" "$sample" >"$work/$t.log" 2>&1); then
        echo "oss-fuzz check: $t ran $(ls "$sample" | wc -l) of its $(ls "$seeds" | wc -l) seeds (malloc limit $limit MiB, max_len $max_len)"
    else
        echo "oss-fuzz check: $t FAILED on its seeds:"; tail -20 "$work/$t.log"; failed=1
    fi
done
exit "$failed"
