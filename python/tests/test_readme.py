"""The README's Python example runs as written."""

from conftest import ROOT


def test_readme_example(capsys):
    text = (ROOT / "README.md").read_text()
    section = text.split("## Python: a hardened")[1]
    code = section.split("```python")[1].split("```")[0]
    exec(compile(code, "README.md", "exec"), {})
    assert "trailing-bytes 160 trailing-bytes at byte 160" in capsys.readouterr().out


def test_python_readme_examples(tmp_path, monkeypatch, capsys):
    """python/README.md (the PyPI page): every ```python block runs as written."""
    text = (ROOT / "python" / "README.md").read_text()
    blocks = [b.split("```")[0] for b in text.split("```python")[1:]]
    assert blocks
    monkeypatch.chdir(tmp_path)  # the examples write example.npy / example.npz
    for code in blocks:
        exec(compile(code, "python/README.md", "exec"), {})
    assert "FileNotFoundIoError io cannot open missing.npy" in capsys.readouterr().out
