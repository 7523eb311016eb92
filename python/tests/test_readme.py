"""The README's Python example runs as written."""

from conftest import ROOT


def test_readme_example(capsys):
    text = (ROOT / "README.md").read_text()
    section = text.split("## Python: a hardened")[1]
    code = section.split("```python")[1].split("```")[0]
    exec(compile(code, "README.md", "exec"), {})
    assert "trailing-bytes 160 trailing-bytes at byte 160" in capsys.readouterr().out
