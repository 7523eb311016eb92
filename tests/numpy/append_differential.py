"""`npyguard append` against NumPy: the grown file is what np.save writes, after every step.

Builds the CLI once (`cargo build --features cli`), writes start files with np.save (NumPy's
own growth-space headers; several dtypes, both byte orders, 1-D to 3-D, strings, records),
then runs `npyguard append DST SRC` 1 000 times in all with random row blocks (sources in
either byte order, multi-dimensional ones sometimes in Fortran order). After every step:
`np.load(DST)` equals the expected concatenation bit for bit (dtype, shape, `.tobytes()`),
and DST's bytes equal `np.save` of it.

Interrupted appends, as the Rust test `tests/library/append.rs` drives them at every byte:
the states an append passes through (the old file plus the first j bytes of the new rows,
for every j; then the new header) are composed from the old and new np.save bytes, and
np.load must read each as exactly the old or exactly the new array; the header update lies
inside one 512-byte sector; `append --discard-trailing-bytes` recovers a sample of them.

A header without growth space (NumPy < 1.24) that the new shape does not fit: refused with
exit 1 and DST untouched, rewritten to np.save's bytes under `--rewrite-when-full`.

    python3 tests/numpy/append_differential.py [--steps 1000] [--seed 1]
"""

import argparse
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def build_cli():
    out = subprocess.run(
        ["cargo", "build", "-q", "--features", "cli", "--bin", "npyguard", "--message-format=json"],
        cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True,
    ).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable"):
            if msg["target"]["name"] == "npyguard":
                return msg["executable"]
    raise SystemExit("cargo build did not report the npyguard executable")


def saved(a):
    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()


def loaded(data):
    return np.load(io.BytesIO(data))


def cat(a, b):
    """np.concatenate in `a`'s dtype (NumPy's result is in native byte order)."""
    return np.concatenate([a, b]).astype(a.dtype)


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


CASES = [
    ("<f8", (3,)),
    (">i4", ()),
    ("<U3", (2, 2)),
    (">u2", (2, 3)),
    ("|S4", ()),
    ("<c8", (2,)),
    ("|b1", ()),
    ([("a", "<i4"), ("b", ">f8"), ("c", "S2")], ()),
]


def random_rows(rng, dtype, n, trailing):
    shape = (n,) + trailing
    dt = np.dtype(dtype)
    if dt.kind == "U":
        chars = np.array(list("aZ0 éÿ€中😀"))
        text = rng.choice(chars, size=shape + (dt.itemsize // 4,))
        return np.array(["".join(t) for t in text.reshape(-1, text.shape[-1])], dtype=dt).reshape(shape)
    raw = rng.integers(0, 256, size=int(np.prod(shape, dtype=np.int64)) * dt.itemsize, dtype=np.uint8)
    a = np.frombuffer(raw.tobytes(), dtype=dt).reshape(shape).copy()
    if dt.kind == "b":
        a = a.view(np.uint8) % 2 == 1
    return a


def run(exe, *args):
    return subprocess.run([exe, "append", *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def check_steps(exe, tmp, rng, steps):
    per_case = steps // len(CASES)
    done = 0
    for ci, (dtype, trailing) in enumerate(CASES):
        dst, src = tmp / f"dst{ci}.npy", tmp / f"src{ci}.npy"
        expected = random_rows(rng, dtype, int(rng.integers(0, 4)), trailing)
        np.save(dst, expected)
        count = per_case if ci < len(CASES) - 1 else steps - done
        for _ in range(count):
            block = random_rows(rng, dtype, int(rng.choice([0, 1, 1, 2, 3, 5])), trailing)
            source = block
            if block.dtype.names is None and block.dtype.byteorder in "<>" and rng.integers(2):
                source = block.astype(block.dtype.newbyteorder())
            if block.ndim > 1 and rng.integers(3) == 0:
                source = np.asfortranarray(source)
            np.save(src, source)
            r = run(exe, dst, src)
            if r.returncode != 0:
                raise SystemExit(f"append failed ({dtype}, step {done}): {r.stderr}")
            expected = cat(expected, block)
            got = np.load(dst)
            if not same(got, expected):
                raise SystemExit(f"{dtype}: np.load differs after step {done}: {got!r} {expected!r}")
            if dst.read_bytes() != saved(expected):
                raise SystemExit(f"{dtype}: not np.save's bytes after step {done}")
            done += 1
    return done


def check_interrupted(exe, tmp, rng):
    states = recovered = 0
    for ci, (dtype, trailing) in enumerate(CASES):
        for n0, n1 in [(9, 1), (0, 3), (99, 2), (5, 5)]:
            old = random_rows(rng, dtype, n0, trailing)
            new = cat(old, random_rows(rng, dtype, n1, trailing))
            o, n = saved(old), saved(new)
            hlen = len(saved(old[:0]))
            assert len(saved(new[:0])) == hlen, "np.save's header length changed"
            assert n[hlen:len(o)] == o[hlen:], "the old payload moved"
            diff = [i for i in range(hlen) if o[i] != n[i]]
            assert diff and diff[0] // 512 == diff[-1] // 512, "header update across a sector"
            for j in range(len(n) - len(o) + 1):
                state = o + n[len(o):len(o) + j]
                if not same(loaded(state), old):
                    raise SystemExit(f"{dtype} {n0}+{n1}: state after {j} data bytes is not the old array")
                states += 1
                if j in (1, (len(n) - len(o)) // 2) and 0 < j < len(n) - len(o):
                    dst = tmp / "torn.npy"
                    dst.write_bytes(state)
                    np.save(tmp / "rows.npy", new[n0:])
                    r = run(exe, dst, tmp / "rows.npy")
                    if r.returncode != 1:
                        raise SystemExit(f"{dtype} {n0}+{n1} j={j}: leftover bytes were not refused: {r}")
                    r = run(exe, dst, tmp / "rows.npy", "--discard-trailing-bytes")
                    if r.returncode != 0 or dst.read_bytes() != n:
                        raise SystemExit(f"recovery failed: {r.stderr}")
                    recovered += 1
            if not same(loaded(n), new):
                raise SystemExit("the committed state is not the new array")
            states += 1
    return states, recovered


def check_full_header(exe, tmp, rng):
    # A header as NumPy < 1.24 wrote it (no growth space) whose grown shape needs 64 more bytes.
    for ones in range(1, 40):
        shape = (9,) + (1,) * ones
        d = {"descr": "|S1", "fortran_order": False, "shape": shape}
        text = "{" + "".join(f"'{k}': {v!r}, " for k, v in sorted(d.items())) + "}"
        total = -(-(10 + len(text) + 1) // 64) * 64
        grown = np.zeros((10,) + (1,) * ones, dtype="S1")
        if len(saved(grown[:0])) > total:
            break
    else:
        raise SystemExit("no full-header case found")
    old = random_rows(rng, "|S1", 9, (1,) * ones)
    head = b"\x93NUMPY\x01\x00" + (total - 10).to_bytes(2, "little") + text.encode("latin1")
    head = head.ljust(total - 1, b" ") + b"\n"
    dst, src = tmp / "old.npy", tmp / "one.npy"
    dst.write_bytes(head + old.tobytes())
    assert same(np.load(dst), old)
    block = random_rows(rng, "|S1", 1, (1,) * ones)
    np.save(src, block)
    r = run(exe, dst, src)
    if r.returncode != 1 or "header-full" not in r.stderr or dst.read_bytes() != head + old.tobytes():
        raise SystemExit(f"a full header was not refused: {r.returncode} {r.stderr}")
    r = run(exe, dst, src, "--rewrite-when-full")
    want = cat(old, block)
    if r.returncode != 0 or dst.read_bytes() != saved(want):
        raise SystemExit(f"--rewrite-when-full did not write np.save's bytes: {r.stderr}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    exe = build_cli()
    rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        steps = check_steps(exe, tmp, rng, args.steps)
        states, recovered = check_interrupted(exe, tmp, rng)
        check_full_header(exe, tmp, rng)
    print(f"append_differential: {steps} CLI appends identical to np.save ({len(CASES)} dtypes), "
          f"{states} interrupted states read as old or new, {recovered} recovered, full header refused and rewritten")


if __name__ == "__main__":
    sys.exit(main())
