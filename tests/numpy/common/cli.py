"""The npyguard CLI for the differential scripts in tests/numpy (imported, not run by CI)."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def binary():
    """$NPYGUARD_BIN, else target/debug/npyguard (built by `cargo test --all-features`),
    built with `cargo build --features cli` first when missing."""
    path = os.environ.get("NPYGUARD_BIN") or os.path.join(ROOT, "target", "debug", "npyguard")
    if not os.path.exists(path):
        subprocess.run(["cargo", "build", "--features", "cli"], cwd=ROOT, check=True)
    return path
