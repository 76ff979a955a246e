"""The README's Python example runs as written, and its commands are the ones tested."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import REPO


def test_the_readme_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (REPO / "README.md").read_text()
    section = readme.split("## In Python", 1)[1].split("\n## ", 1)[0]
    [example] = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(example.strip().splitlines()) <= 10
    assert "python3 -m venv v && v/bin/pip install ./python" in section
    assert "v/bin/python -m agentloop.demo demo-out" in section
    monkeypatch.chdir(tmp_path)
    exec(compile(example, "README.md", "exec"), {})
    assert os.path.getsize("py-run.jsonl") > 0
