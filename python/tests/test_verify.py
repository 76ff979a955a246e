"""`verify`: the same faults, kinds and sentences as the CLI's `verify --json`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest

import agentloop
from conftest import REPO, run_cli

SAMPLE = REPO / "docs" / "sample.jsonl"


def cli_json(cli: str, path: Path, *extra: str) -> Dict[str, Any]:
    done = run_cli(cli, ["verify", "--json", *extra, str(path)])
    assert done.returncode in (0, 1), done.stderr.decode()
    report: Dict[str, Any] = json.loads(done.stdout)
    return report


def as_cli(report: agentloop.Report) -> Dict[str, Any]:
    """A report in the shape of `verify --json`, without `file`."""
    return {
        "ok": report.ok,
        "count": report.count,
        "head": report.head,
        "faults": [
            {"index": f.record, "line": f.line, "kind": f.kind, "detail": f.detail}
            for f in report.faults
        ],
    }


def test_a_transcript_the_cli_wrote_verifies(cli_demo: Path) -> None:
    for name in ("demo-answer.jsonl", "demo-recover.jsonl", "demo-budget.jsonl"):
        report = agentloop.verify(cli_demo / name)
        assert report and report.ok and not report.faults
        assert agentloop.verify(str(cli_demo / name), loop=True)
    report = agentloop.verify(SAMPLE)
    assert report.count == len(_lines(SAMPLE)) and report.head is not None and len(report.head) == 64


def _lines(path: Path) -> List[bytes]:
    return path.read_bytes().splitlines(keepends=True)


TAMPERS: Dict[str, Callable[[List[bytes]], bytes]] = {
    "edit": lambda ls: b"".join(ls[:2] + [ls[2].replace(b'"sum":42', b'"sum":43')] + ls[3:]),
    "drop": lambda ls: b"".join(ls[:1] + ls[2:]),
    "swap": lambda ls: b"".join([ls[1], ls[0]] + ls[2:]),
    "torn": lambda ls: b"".join(ls)[:-1],
    "garbage": lambda ls: b"".join(ls[:3] + [b"{not json\n"] + ls[3:]),
    "spaces": lambda ls: b"".join(ls[:1] + [ls[1].replace(b":", b": ", 1)] + ls[2:]),
    "empty": lambda ls: b"",
}


@pytest.mark.parametrize("tamper", sorted(TAMPERS))
def test_tampered_copies_give_the_cli_s_faults(cli: str, tmp_path: Path, tamper: str) -> None:
    path = tmp_path / f"{tamper}.jsonl"
    path.write_bytes(TAMPERS[tamper](_lines(SAMPLE)))
    expected = cli_json(cli, path)
    expected.pop("file")
    assert as_cli(agentloop.verify(path)) == expected


def test_a_missing_file_is_an_unreadable_fault(tmp_path: Path) -> None:
    report = agentloop.verify(tmp_path / "nope.jsonl")
    assert not report
    [fault] = report.faults
    assert fault.kind == "unreadable" and fault.record is None and fault.line is None
    assert "nope.jsonl" in fault.detail


def test_the_loop_audit_and_lenient_mode(cli: str, tmp_path: Path) -> None:
    lines = _lines(SAMPLE)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:2]))
    assert agentloop.verify(cut)
    looped = agentloop.verify(cut, loop=True)
    expected = cli_json(cli, cut, "--loop")
    expected.pop("file")
    assert as_cli(looped) == expected
    assert looped.faults and {f.kind for f in looped.faults} == {"loop_malformed"}


def test_checkpoints_judge_the_file(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    shutil.copy(SAMPLE, path)
    text = agentloop.checkpoint(path)
    assert agentloop.verify(path, checkpoints=[text])
    path.write_bytes(b"".join(_lines(SAMPLE)[:2]))
    report = agentloop.verify(path, checkpoints=[text.encode()])
    assert [f.kind for f in report.faults] == ["truncated"]
    with pytest.raises(agentloop.CheckpointError, match=r"checkpoints\[0\]"):
        agentloop.verify(path, checkpoints=["not a checkpoint\n"])
