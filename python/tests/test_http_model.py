"""The built-in HTTP models against the loopback stand-in provider (no key, no network)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Iterator, Tuple

import pytest

import agentloop
import agentloop.demo
from conftest import REPO


@pytest.fixture()
def served(standin: str, tmp_path: Path) -> Iterator[Tuple[str, Path]]:
    """The stand-in serving docs/examples/standin-add.json: its URL and requests folder."""
    requests = tmp_path / "requests"
    script = REPO / "docs" / "examples" / "standin-add.json"
    process = subprocess.Popen(
        [standin, "--exit-when-done", "--lifetime", "60", str(script), str(requests)],
        stdout=subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().decode().strip()
        assert url.startswith("http://127.0.0.1:"), url
        yield url, requests
    finally:
        process.kill()
        process.wait()


def test_an_openai_compatible_server_drives_python_tools(served: Tuple[str, Path], tmp_path: Path) -> None:
    url, requests = served
    model = agentloop.OpenAI("gpt-4.1-mini", base_url=f"{url}/v1", key_env=None)
    path = tmp_path / "run.jsonl"
    outcome = agentloop.run("add 2 and 40", model=model, tools=agentloop.demo.tools(), budgets={"max_steps": 4}, out=path)
    assert (outcome.reason, outcome.steps, outcome.tool_calls) == ("no_tool_calls", 2, 1)
    assert agentloop.verify(path, loop=True)
    records = [json.loads(line) for line in path.read_bytes().splitlines()]
    assert records[2]["payload"]["value"] == {"sum": 42}
    assert records[3]["payload"]["text"] == "2 + 40 = 42."


def test_a_provider_that_cannot_be_reached_is_a_model_error(tmp_path: Path) -> None:
    model = agentloop.Anthropic("claude", base_url="http://127.0.0.1:9/v1", key_env=None)
    outcome = agentloop.run("t", model=model, budgets={"max_steps": 1})
    assert outcome.reason == "model_error" and outcome.error
    with pytest.raises(agentloop.LoopError, match="KEY=X"):
        agentloop.run("t", model=agentloop.OpenAI("m", key_env="KEY=X"))
