"""to_arrow's Arrow C stream against the Parquet path (`npyguard convert --to parquet`):
pyarrow, polars and DuckDB read the capsule with the types and values they read from the
Parquet file, for every fixture of at most 2 dimensions and every layout."""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

import npyguard
from conftest import NPY_FIXTURES

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")

LAYOUTS = ["columns", "rowlists", "nonzeros"]


def small(path):
    try:
        h = npyguard.inspect(path)
    except npyguard.LimitError:  # headers over the default cap (the CLI's default too)
        return False
    return len(h["shape"]) <= 2 and h["payload_bytes"] <= 1 << 20


CASES = [(p, layout) for p in NPY_FIXTURES if small(p) for layout in LAYOUTS]


def parquet(cli, path, layout, tmp_path):
    """The CLI's Parquet file, or the CLI's error text."""
    out = tmp_path / f"{path.stem}.{layout}.parquet"
    r = subprocess.run(
        [str(cli), "convert", str(path), "-o", str(out), "--to", "parquet", "--layout", layout],
        capture_output=True, text=True,
    )
    return (out, None) if r.returncode == 0 else (None, r.stderr)


def canon(array):
    """A column's values, bit-exact for floats (NaN payloads, -0.0), nulls kept."""
    t = array.type
    if pa.types.is_struct(t):
        return [canon(array.field(i)) for i in range(t.num_fields)], array.null_count
    if pa.types.is_fixed_size_list(t) or pa.types.is_list(t):
        return canon(array.flatten()), array.null_count, len(array)
    if pa.types.is_temporal(t):  # as integers: durations in seconds overflow timedelta
        return array.view(pa.int64()).to_pylist()
    if pa.types.is_floating(t):
        values = np.asarray(array.fill_null(0).to_numpy(zero_copy_only=False))
        return values.view(f"u{values.itemsize}").tolist(), array.is_null().to_pylist()
    return array.to_pylist()


def table_canon(table):
    return [canon(c.combine_chunks()) for c in table.columns]


def prepared(cli, tmp_path, path, layout):
    """(the stream, the CLI's Parquet file), or None when the CLI refuses the layout for
    this file (then to_arrow refuses it too, with the same message)."""
    out, cli_error = parquet(cli, path, layout, tmp_path)
    if cli_error is not None and "columns for Parquet to hold rows" in cli_error:
        # Parquet cannot hold rows without columns (an (n, 0) array, `columns` layout): the
        # CLI refuses to write it; the Arrow stream has no such limit and keeps the n rows.
        t = pa.table(npyguard.to_arrow(path, layout, max_header_bytes=1 << 24))
        assert len(t.schema) == 0 and t.num_rows == np.load(path).shape[0]
        return None
    if cli_error is not None:
        with pytest.raises(npyguard.Error) as e:
            pa.table(npyguard.to_arrow(path, layout, max_header_bytes=1 << 24))
        assert str(e.value) in cli_error
        return None
    return npyguard.to_arrow(path, layout, max_header_bytes=1 << 24, batch_rows=2), out


@pytest.mark.parametrize("path,layout", CASES, ids=lambda x: getattr(x, "name", x))
def test_pyarrow_reads_the_parquet_path_values(cli, tmp_path, path, layout):
    case = prepared(cli, tmp_path, path, layout)
    if case is None:
        return
    stream, out = case
    expected = pq.read_table(out)
    got = pa.table(stream)
    # The same schema (names, types, nullability, npyguard's metadata) and the same bits.
    assert got.schema.equals(expected.schema, check_metadata=True), (got.schema, expected.schema)
    assert table_canon(got) == table_canon(expected)


@pytest.mark.parametrize("path,layout", CASES, ids=lambda x: getattr(x, "name", x))
def test_polars_reads_the_parquet_path_values(cli, tmp_path, path, layout):
    case = prepared(cli, tmp_path, path, layout)
    if case is None:
        return
    stream, out = case
    want = pl.read_parquet(out)
    # from_arrow on a stream gives a struct Series (polars' convention); DataFrame(t) a frame.
    for got in (pl.from_arrow(stream).struct.unnest(), pl.DataFrame(stream)):
        assert got.schema == want.schema
        assert table_canon(got.to_arrow()) == table_canon(want.to_arrow())


def duck_parquet_type(arrow_side: str) -> str:
    """The type DuckDB gives a column read from Parquet, from the type it gives the same
    column read from Arrow: Parquet has no fixed-size list (ARRAY T[n] -> LIST T[]) and
    stores durations as their integer count (INTERVAL -> BIGINT)."""
    return re.sub(r"\[\d+\]$", "[]", arrow_side).replace("INTERVAL", "BIGINT")


@pytest.mark.parametrize("path,layout", CASES, ids=lambda x: getattr(x, "name", x))
def test_duckdb_reads_the_parquet_path_values(cli, tmp_path, path, layout):
    case = prepared(cli, tmp_path, path, layout)
    if case is None:
        return
    stream, out = case
    schema = pa.table(stream).schema
    con = duckdb.connect()
    t = stream  # noqa: F841 (DuckDB finds the object by its name)
    if len(schema) == 0:
        # DuckDB scans no zero-column table (from Arrow: "must have at least one column").
        return
    if any("halffloat" in str(f.type) for f in schema):
        # DuckDB has no Arrow half-float import (its Parquet reader widens f2 to FLOAT).
        with pytest.raises(duckdb.NotImplementedException):
            con.sql("SELECT * FROM t").fetchall()
        return
    got = con.sql("SELECT * FROM t")
    want = con.sql(f"SELECT * FROM '{out}'")
    assert got.columns == want.columns
    got_types = [str(x) for x in got.types]
    assert [duck_parquet_type(x) for x in got_types] == [str(x) for x in want.types]
    # Values: every column but durations (DuckDB's INTERVAL keeps microseconds only; their
    # values are checked bit for bit by the pyarrow and polars tests), arrays as lists.
    cols = [
        (f'CAST("{c}" AS {duck_parquet_type(ty)})' if ty.endswith("]") else f'"{c}"', f'"{c}"')
        for c, ty in zip(got.columns, got_types)
        if "INTERVAL" not in ty
    ]
    if not cols:
        return
    a = ", ".join(x for x, _ in cols)
    b = ", ".join(y for _, y in cols)
    for q in (
        f"SELECT {a} FROM t EXCEPT ALL SELECT {b} FROM '{out}'",
        f"SELECT {b} FROM '{out}' EXCEPT ALL SELECT {a} FROM t",
    ):
        assert con.sql(f"SELECT count(*) FROM ({q})").fetchall() == [(0,)], q
    assert len(con.sql(f"SELECT {a} FROM t").fetchall()) == pq.read_metadata(out).num_rows


def test_stream_can_be_read_twice():
    buf = __import__("io").BytesIO()
    np.save(buf, np.arange(12, dtype="<u4").reshape(4, 3))
    t = npyguard.to_arrow(buf.getvalue(), "rowlists")
    assert pa.table(t).equals(pa.table(t))
    assert t.num_input_rows == 4 and t.layout == "rowlists"


def test_bad_layout_and_hostile_input():
    buf = __import__("io").BytesIO()
    np.save(buf, np.arange(3))
    with pytest.raises(npyguard.Error):
        npyguard.to_arrow(buf.getvalue(), "diagonal")
    with pytest.raises(npyguard.FormatError):
        npyguard.to_arrow(buf.getvalue()[:-1])
