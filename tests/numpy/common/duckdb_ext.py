"""The DuckDB extension for the duckdb_*.py suites in tests/numpy (imported, not run by CI)."""
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def extension_path():
    """$NPY_DUCKDB_EXTENSION, else the file `bash duckdb-npy/build.sh` builds (its last line)."""
    if os.environ.get("NPY_DUCKDB_EXTENSION"):
        return os.environ["NPY_DUCKDB_EXTENSION"]
    out = subprocess.run(["bash", str(ROOT / "duckdb-npy" / "build.sh")], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return out.strip().splitlines()[-1]


def lit(s):
    """`s` as a SQL string literal."""
    return "'" + str(s).replace("'", "''") + "'"


def connect(ext):
    """A new in-memory database with the extension loaded (before any sandbox setting)."""
    import duckdb

    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    con.execute(f"LOAD {lit(ext)}")
    return con
