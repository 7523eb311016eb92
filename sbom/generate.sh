#!/usr/bin/env bash
# Writes the CycloneDX 1.5 SBOMs of npyguard (the library as a dependency brings it):
#   sbom/npyguard-default.cdx.json        default features
#   sbom/npyguard-all-features.cdx.json   every feature
# Needs cargo-cyclonedx (`cargo install --locked cargo-cyclonedx`, 0.5.9 made these).
# Reproducible: the timestamp is the last commit's (SOURCE_DATE_EPOCH).
set -euo pipefail
cd "$(dirname "$0")/.."
export SOURCE_DATE_EPOCH="$(git log -1 --format=%ct)"
gen() {
    local name="$1"; shift
    cargo cyclonedx -q -f json --spec-version 1.5 --override-filename "$name" "$@"
    mv "$name.json" "sbom/$name.json"
    # In the workspace, the front-end crates (their own SBOMs are not these) get one too.
    find . -path ./target -prune -o -name "$name.json" -not -path "./sbom/*" -print0 | xargs -0 rm -f
    echo "sbom/$name.json: $(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['components']))" "sbom/$name.json") components"
}
gen npyguard-default.cdx
gen npyguard-all-features.cdx --all-features
