"""MCP servers by command line: the reference time server's tools join a Python run."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from typing import Any, List

import pytest

import agentloop


@pytest.fixture(scope="module")
def time_server() -> List[str]:
    """The reference time server from PyPI (installed by .ci/run for the MCP tests)."""
    python = shutil.which("python3")
    found = python and subprocess.run([python, "-c", "import mcp_server_time"], capture_output=True).returncode == 0
    if not found:
        if os.environ.get("CI"):
            pytest.fail("CI installs mcp-server-time (.ci/run need_tools)")
        pytest.skip("mcp-server-time is not installed (pip install mcp-server-time)")
    assert python is not None
    return [python, "-m", "mcp_server_time", "--local-timezone", "UTC"]


def test_an_mcp_server_s_tools_are_offered_and_called(time_server: List[str]) -> None:
    seen: List[Any] = []

    def model(messages: List[Any], manifest: List[Any]) -> agentloop.Reply:
        seen.append([t["name"] for t in manifest])
        if len(messages) == 1:
            return agentloop.Reply("", [("get_current_time", {"timezone": "UTC"}), ("get_current_time", {})])
        return agentloop.Reply("done")

    outcome = agentloop.run("what time is it", model=model, mcp=[time_server], budgets={"max_steps": 3})
    assert outcome.reason == "no_tool_calls", outcome.error
    assert seen[0] == ["convert_time", "get_current_time"]
    records = [json.loads(line) for line in (outcome.transcript or b"").splitlines()]
    assert records[2]["payload"]["ok"] is True
    assert records[3]["payload"]["ok"] is False
    assert records[3]["payload"]["error"].startswith("invalid arguments: ")


def test_a_server_that_cannot_start_is_a_loop_error() -> None:
    with pytest.raises(agentloop.LoopError, match=r"mcp\[0\] \(/nonexistent/server\)"):
        agentloop.run("t", model=agentloop.Scripted([]), mcp=["/nonexistent/server"])
    with pytest.raises(agentloop.LoopError, match="empty command line"):
        agentloop.run("t", model=agentloop.Scripted([]), mcp=[[]])


def test_the_setup_records_the_server_and_each_tool_s_source(time_server: List[str]) -> None:
    outcome = agentloop.run(
        "what time is it", model=agentloop.Scripted([agentloop.Reply("noon")]), tools=[echo], mcp=[time_server]
    )
    assert outcome.reason == "no_tool_calls", outcome.error
    setup = json.loads((outcome.transcript or b"").splitlines()[0])["payload"]["setup"]
    assert sorted((t["name"], t["source"], t.get("server"), t.get("mcp_name")) for t in setup["tools"]) == [
        ("convert_time", "mcp", 0, "convert_time"),
        ("echo", "host", None, None),
        ("get_current_time", "mcp", 0, "get_current_time"),
    ]
    [server] = setup["servers"]
    # The command line only as the SHA-256 of its words' canonical JSON array.
    words = agentloop.canonical(time_server)
    assert server["command_sha256"] == hashlib.sha256(words).hexdigest()
    assert server["server_info"]["name"]
    assert server["protocol_version"]


def echo(text: str) -> str:
    """Says it back."""
    return text
