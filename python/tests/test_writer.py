"""`Chain` and the durable `Writer`: the same lines as core, verified back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import agentloop
from conftest import REPO


def test_a_chain_reproduces_a_cli_transcript_line_for_line() -> None:
    lines = (REPO / "docs" / "sample.jsonl").read_bytes().splitlines(keepends=True)
    chain = agentloop.Chain()
    for line in lines:
        record = json.loads(line)
        assert chain.append(record["kind"], record["payload"]) == line
    assert chain.count == len(chain) == len(lines)
    assert chain.head == json.loads(lines[-1])["hash"]


def test_the_writer_round_trips_and_is_a_context_manager(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    payloads = [{"task": "x"}, {"n": 2**53, "f": 0.1, "s": "é\u2028", "l": [None, True]}, [], "text"]
    with agentloop.Writer(path) as writer:
        for i, payload in enumerate(payloads):
            appended = writer.append("note", payload)
            assert appended.seq == i and appended.head == writer.head
        assert writer.count == len(payloads)
    report = agentloop.verify(path)
    assert report and report.count == len(payloads)
    chain = agentloop.Chain()
    assert b"".join(chain.append("note", p) for p in payloads) == path.read_bytes()
    # Reopened, it continues the chain.
    with agentloop.Writer(str(path), sync="every:2") as writer:
        assert writer.append("more", {}).seq == len(payloads)
    assert agentloop.verify(path).count == len(payloads) + 1


def test_a_refused_payload_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    with agentloop.Writer(path) as writer:
        writer.append("a", {})
        before = path.read_bytes()
        with pytest.raises(agentloop.EncodeError, match=r"at \$\.x"):
            writer.append("b", {"x": float("nan")})
        with pytest.raises(agentloop.WriteError, match="kind"):
            writer.append("", {})
        assert path.read_bytes() == before
    with pytest.raises(agentloop.WriteError, match="closed"):
        writer.append("c", {})
    writer.close()


def test_a_file_that_does_not_verify_is_not_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"a":1}\n')
    with pytest.raises(agentloop.WriteError, match="bad.jsonl"):
        agentloop.Writer(path)
    with pytest.raises(ValueError, match="every:N"):
        agentloop.Writer(tmp_path / "x.jsonl", sync="sometimes")
