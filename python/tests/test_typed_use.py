"""The typed user file runs (mypy --strict checks it in .ci/run)."""

from __future__ import annotations

from pathlib import Path

from typed_use import use


def test_the_typed_user_file_runs(tmp_path: Path) -> None:
    said = use(tmp_path)
    assert said[0] == "no_tool_calls"
    assert said[5] == "$"
