"""Every hostile file of the Rust suites (tests/adversarial, tests/hostile) raises the typed
exception, with the CLI's kind, offset and message, in bounded memory; plus hostile inputs
made here that claim far more than they hold."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import npyguard
from conftest import HOSTILE, ROOT

CLASSES = {
    "format": npyguard.FormatError,
    "limit": npyguard.LimitError,
    "io": npyguard.IoError,
    "usage": npyguard.UsageError,
    "internal": npyguard.InternalError,
}

#: Peak RSS a hostile case may add to the process, in bytes.
RSS_BUDGET = 64 << 20


def test_hostile_files_exist():
    assert len(HOSTILE) >= 50


def expect_refusal(path, **limits):
    """Loads `path` every way; all ways raise the same error; returns it."""
    data = path.read_bytes()
    errors = []
    for source in (path, data):
        with pytest.raises(npyguard.Error) as e:
            npyguard.load(source, **limits)
        errors.append(e.value)
    with open(path, "rb") as f, pytest.raises(npyguard.Error) as e:
        npyguard.load(f, **limits)
    err = errors[0]
    assert isinstance(err, ValueError)
    assert isinstance(err, CLASSES[err.category])
    assert {(type(x), x.kind) for x in errors} == {(type(err), err.kind)}
    assert npyguard.validate(path, **limits).kind == err.kind
    # The stream reader sees the same bytes: same kind (the message may place a
    # truncation differently: a stream has no length to compare with).
    assert e.value.kind == err.kind
    return err


@pytest.mark.parametrize("path", HOSTILE, ids=lambda p: p.name)
def test_hostile_file_raises_typed_error(path):
    if path.name.startswith("i_"):
        # "i_" files are accepted by npyguard and refused by NumPy: numpy_strict refuses them.
        npyguard.load(path)
        expect_refusal(path, numpy_strict=True)
        return
    err = expect_refusal(path)
    if path.name.startswith("n_"):
        # The name says the kind: n_<kind>__<what>.npy.
        assert err.kind == path.name[2:].split("__")[0]


def cli_verdict(cli, path, *args):
    out = subprocess.run(
        [str(cli), "validate", "--json", *args, str(path)], capture_output=True, text=True
    )
    assert out.returncode in (0, 1, 2), out.stderr
    (verdict,) = json.loads(out.stdout)
    return verdict


@pytest.mark.parametrize("path", HOSTILE, ids=lambda p: p.name)
def test_message_is_the_cli_message(cli, path):
    args = ["--numpy-strict"] if path.name.startswith("i_") else []
    verdict = cli_verdict(cli, path, *args)
    assert verdict["ok"] is False
    with pytest.raises(npyguard.Error) as e:
        # The CLI has no character limit on headers (max_header_size=None) unless
        # numpy-strict; load's default is np.load's 10 000.
        npyguard.load(path, numpy_strict=bool(args), max_header_size=None)
    assert (e.value.kind, e.value.offset, str(e.value)) == (
        verdict["kind"], verdict["offset"], verdict["message"]
    )


def _claims(tmp_path):
    """Files that claim much more than they hold, and limits they exceed."""
    cases = {}
    header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }"
    header += b" " * (117 - len(header)) + b"\n"
    cases["claims_8TiB"] = (b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + b"\0" * 64, {})
    header_len = (1 << 32) - 1
    cases["header_claims_4GiB"] = (b"\x93NUMPY\x02\x00" + header_len.to_bytes(4, "little") + b"{", {})
    buf = io.BytesIO()
    np.save(buf, np.zeros(1 << 20))
    cases["over_max_file_bytes"] = (buf.getvalue(), {"max_file_bytes": 1 << 16})
    cases["truncated_8MiB"] = (buf.getvalue()[: 1 << 20], {})
    paths = {}
    for name, (data, limits) in cases.items():
        p = tmp_path / f"{name}.npy"
        p.write_bytes(data)
        paths[name] = (p, limits)
    return paths


def test_made_up_claims_are_refused(tmp_path):
    for name, (path, limits) in _claims(tmp_path).items():
        err = expect_refusal(path, **limits)
        assert err.category in ("format", "limit"), name


PROBE = textwrap.dedent(
    """
    import json, resource, sys
    import npyguard
    path, limits = sys.argv[1], json.loads(sys.argv[2])
    def peak():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    before = peak()
    kinds = []
    for source in ("path", "bytes", "stream"):
        try:
            if source == "path":
                npyguard.load(path, **limits)
            elif source == "bytes":
                npyguard.load(open(path, "rb").read(), **limits)
            else:
                with open(path, "rb") as f:
                    npyguard.load(f, **limits)
            kinds.append(None)
        except npyguard.Error as e:
            kinds.append(e.kind)
    print(json.dumps({"before": before, "after": peak(), "kinds": kinds}))
    """
)


def rss_cases(tmp_path):
    cases = [(p, {"numpy_strict": p.name.startswith("i_")}) for p in HOSTILE]
    return cases + list(_claims(tmp_path).values())


def test_peak_rss_per_hostile_case(tmp_path):
    """Each case in a fresh interpreter: the peak RSS the three loads add stays under
    64 MiB (the interpreter with NumPy and npyguard imported is the baseline)."""
    worst, worst_name, peak = -1, "", 0
    for path, limits in rss_cases(tmp_path):
        out = subprocess.run(
            [sys.executable, "-c", PROBE, str(path), json.dumps(limits)],
            capture_output=True, text=True, check=True, cwd=ROOT,
        )
        r = json.loads(out.stdout)
        assert None not in r["kinds"], (path.name, r)
        added = r["after"] - r["before"]
        assert added < RSS_BUDGET, (path.name, added)
        peak = max(peak, r["after"])
        if added > worst:
            worst, worst_name = added, path.name
        assert r["after"] < r["before"] + RSS_BUDGET
    print(f"worst added peak RSS: {worst / 2**20:.1f} MiB ({worst_name}); highest process peak {peak / 2**20:.1f} MiB")


def test_made_up_claims_match_cli(cli, tmp_path):
    for name, (path, limits) in _claims(tmp_path).items():
        args = [f"--max-file-bytes={limits['max_file_bytes']}"] if limits else []
        verdict = cli_verdict(cli, path, *args)
        with pytest.raises(npyguard.Error) as e:
            npyguard.load(path, **limits)
        assert (e.value.kind, e.value.offset, str(e.value)) == (
            verdict["kind"], verdict["offset"], verdict["message"]
        ), name
