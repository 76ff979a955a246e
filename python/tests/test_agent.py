"""The sans-I/O `Agent`: a host that drives the loop itself writes the same bytes as
`run` (and so as `agentloop demo`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import pytest

import agentloop
import agentloop.demo


def drive(agent: agentloop.Agent, model: Any, tools: Dict[str, Any]) -> bytes:
    """A host's loop: answer each need, write every line."""
    out: List[bytes] = []
    while True:
        need = agent.poll()
        out.extend(agent.take_records())
        if need[0] == "model":
            try:
                agent.feed_reply(model(need[1], need[2]))
            except Exception as error:
                agent.feed_reply(error)
        elif need[0] == "tools":
            for call in need[1]:
                try:
                    agent.feed_result(call["id"], tools[call["name"]](**call["arguments"]))
                except Exception as error:
                    agent.feed_result(call["id"], error=str(error))
        elif need[0] == "done":
            out.extend(agent.take_records())
            return b"".join(out)


@pytest.mark.parametrize("scenario", range(3))
def test_a_host_driven_agent_writes_the_demo_s_bytes(cli_demo: Path, scenario: int) -> None:
    name, task, budgets, replies = agentloop.demo.scenarios()[scenario]
    tools = agentloop.demo.tools()
    agent = agentloop.Agent(task, tools=tools, budgets=budgets)
    written = drive(agent, agentloop.Scripted(replies), {t.name: t.function for t in tools})
    assert written == (cli_demo / name).read_bytes()
    outcome = agent.outcome
    assert outcome is not None and outcome.reason in ("no_tool_calls", "token_budget")


def test_feeding_out_of_turn_and_cancelling() -> None:
    agent = agentloop.Agent("t", tools=[agentloop.demo.greet])
    with pytest.raises(agentloop.LoopError, match="no|not"):
        agent.feed_result("call_1_0", {})
    assert agent.poll()[0] in ("records", "model")
    agent.cancel()
    need = agent.poll()
    assert need[0] == "done" and need[1].reason == "cancelled"
    assert [line.split(b'"kind":"')[1].split(b'"')[0] for line in agent.take_records()] == [b"task", b"stop"]
    agent2 = agentloop.Agent("t")
    assert agent2.poll(cancelled=True)[0] in ("done", "records")
