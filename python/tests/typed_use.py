"""A user file exercising the public API, checked with `mypy --strict` (the stubs are
right); also run by test_typed_use.py."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict, List, Optional

import agentloop


def add(a: int, b: int) -> Dict[str, int]:
    """Adds two integers."""
    return {"sum": a + b}


def model(messages: List[agentloop.Message], manifest: List[Any]) -> agentloop.Reply:
    if len(messages) == 1:
        return agentloop.Reply("", [("add", {"a": 2, "b": 40})])
    return agentloop.Reply("42", output_tokens=3)


def use(folder: Path) -> List[str]:
    out = folder / "run.jsonl"
    outcome: agentloop.Outcome = agentloop.run(
        "add 2 and 40", model=model, tools=[add, agentloop.tool(add, name="plus")],
        budgets={"max_steps": 4}, out=out,
    )
    reason: str = outcome.reason
    report: agentloop.Report = agentloop.verify(out, loop=True, checkpoints=[], keys=())
    faults: List[agentloop.Fault] = report.faults
    record: Optional[int] = faults[0].record if faults else None
    line: bytes = agentloop.Chain().append("note", {"n": [1, 2.5, None, True, "x"]})
    with agentloop.Writer(os.fspath(folder / "w.jsonl"), sync="close") as writer:
        appended: agentloop.Appended = writer.append("note", {"k": ["v"]})
    key = agentloop.keygen("me", bytes(32)).splitlines()
    text: str = agentloop.checkpoint(out, key=key[0])
    proof = agentloop.prove_inclusion(out, 0, checkpoint=text)
    holds: str = agentloop.check_proof(proof, keys=[key[1]])
    violations: List[agentloop.Violation] = agentloop.validate({"type": "string"}, 3)
    canonical: bytes = agentloop.canonical({"b": 1, "a": [True]})
    value: Any = agentloop.parse(canonical)
    try:
        agentloop.canonical(float("nan"))
    except agentloop.EncodeError as error:
        said: str = str(error)
    # Fewer tools than the run had: another setup, stated after the run's stop.
    again: agentloop.Outcome = agentloop.resume(out, model=model, tools=[add], new_setup=True)
    assert again.reason
    stated = agentloop.OpenAI("gpt-4.1-mini", key_env=None)
    agent = agentloop.Agent("add", tools=[add], budgets={"max_steps": 2}, setup=stated)
    need = agent.poll()
    if need[0] == "model":
        agent.feed_reply(model([{"role": "user", "text": "add"}], []))
    lines: List[bytes] = agent.take_records()
    agent.cancel()
    ended: Optional[agentloop.Outcome] = agent.outcome
    assert ended is not None and lines
    return [reason, str(record), line.decode(), appended.head, holds, violations[0].path, str(value), said]
