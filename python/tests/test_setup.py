"""A Python run records its setup in its `task` record (format 2), as `agentloop run`
does: the same `setup` member for the same run, every request proven by
`agentloop verify --requests`, no credential in any byte, and a resumption held to it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

import agentloop
import agentloop.demo
from conftest import REPO, run_cli

KEY = "sk-py-setup-4f1e9c"
PASSWORD = "pw-userinfo-91ab"
SYSTEM = "Answer with the sum."


class Standin:
    """The stand-in provider serving docs/examples/standin-add.json, once per run."""

    def __init__(self, path: str, folder: Path) -> None:
        self._path = path
        self._folder = folder
        self._processes: List[subprocess.Popen[bytes]] = []

    def url(self) -> str:
        script = REPO / "docs" / "examples" / "standin-add.json"
        process = subprocess.Popen(
            [self._path, "--exit-when-done", "--lifetime", "60", str(script), str(self._folder / str(len(self._processes)))],
            stdout=subprocess.PIPE,
        )
        self._processes.append(process)
        assert process.stdout is not None
        url = process.stdout.readline().decode().strip()
        assert url.startswith("http://127.0.0.1:"), url
        return url

    def stop(self) -> None:
        for process in self._processes:
            process.kill()
            process.wait()


@pytest.fixture()
def serve(standin: str, tmp_path: Path) -> Iterator[Standin]:
    served = Standin(standin, tmp_path / "requests")
    try:
        yield served
    finally:
        served.stop()


def records(path: Path) -> List[Dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def setup_of(path: Path) -> Dict[str, Any]:
    setup: Dict[str, Any] = records(path)[0]["payload"]["setup"]
    return setup


def python_run(url: str, path: Path, **model: Any) -> agentloop.Outcome:
    given = agentloop.OpenAI("gpt-4.1-mini", base_url=f"{url}/v1", system=SYSTEM, max_output_tokens=64, **model)
    return agentloop.run(
        "add 2 and 40", model=given, tools=agentloop.demo.tools(), budgets={"max_steps": 4}, out=path
    )


def test_a_python_run_records_the_setup_the_cli_records(serve: Standin, cli: str, tmp_path: Path) -> None:
    ours, theirs = tmp_path / "python.jsonl", tmp_path / "cli.jsonl"
    first = serve.url()
    done = run_cli(
        cli,
        [
            "run", "--task", "add 2 and 40", "--model", "openai:gpt-4.1-mini", "--base-url", f"{first}/v1",
            "--api-key-env", "", "--system", SYSTEM, "--max-output-tokens", "64", "--demo-tools",
            "--max-steps", "4", "--out", str(theirs),
        ],
    )
    assert done.returncode == 0, done.stderr.decode()
    # The CLI's demo tools, as it offered them, run by the Python demo's functions.
    functions = {t.name: t.function for t in agentloop.demo.tools()}
    tools = [
        agentloop.Tool(t["name"], t["description"], t["schema"], functions[t["name"]], t["idempotent"])
        for t in setup_of(theirs)["tools"]
    ]
    second = serve.url()
    given = agentloop.OpenAI(
        "gpt-4.1-mini", base_url=f"{second}/v1", key_env=None, system=SYSTEM, max_output_tokens=64
    )
    outcome = agentloop.run("add 2 and 40", model=given, tools=tools, budgets={"max_steps": 4}, out=ours)
    assert (outcome.reason, outcome.steps, outcome.tool_calls) == ("no_tool_calls", 2, 1), outcome.error
    # The stand-in listens on another port each time: the endpoints differ only there.
    mine, cli_setup = setup_of(ours), setup_of(theirs)
    assert mine.pop("endpoint") == f"{second}/v1"
    assert cli_setup.pop("endpoint") == f"{first}/v1"
    assert mine == cli_setup
    assert mine["model"] == {"provider": "openai", "name": "gpt-4.1-mini"}
    assert mine["system"] == SYSTEM and mine["options"] == {"max_output_tokens": 64}
    assert [(t["name"], t["source"]) for t in mine["tools"]] == [
        ("add", "host"), ("echo", "host"), ("fail", "host"), ("greet", "host")
    ]
    # The rest of the run is the CLI's too, record for record.
    assert [r["payload"] for r in records(ours)[1:]] == [r["payload"] for r in records(theirs)[1:]]
    # Each turn's request and response digests are recorded, as the CLI records them.
    turns = [r["payload"] for r in records(ours) if r["kind"] == "assistant"]
    assert len(turns) == 2
    for turn in turns:
        assert len(turn["provider"]["request_sha256"]) == 64, turn
        assert len(turn["provider"]["response_sha256"]) == 64, turn


def test_every_request_of_a_python_run_is_proven_and_an_edit_is_caught(
    serve: Standin, cli: str, tmp_path: Path
) -> None:
    path = tmp_path / "run.jsonl"
    outcome = python_run(serve.url(), path, key_env=None)
    assert outcome.reason == "no_tool_calls", outcome.error
    done = run_cli(cli, ["verify", "--requests", str(path)])
    assert done.returncode == 0, done.stderr.decode() + done.stdout.decode()
    # The same records with another system prompt, chained again: the chain holds, the
    # requests do not.
    chain = agentloop.Chain()
    edited = tmp_path / "edited.jsonl"
    lines = []
    for record in records(path):
        if record["kind"] == "task":
            record["payload"]["setup"]["system"] = "Answer with the product."
        lines.append(chain.append(record["kind"], record["payload"]))
    edited.write_bytes(b"".join(lines))
    assert agentloop.verify(edited)
    done = run_cli(cli, ["verify", "--requests", str(edited)])
    assert done.returncode != 0
    assert b"request" in done.stdout + done.stderr


def test_no_key_and_no_url_password_reach_the_file(
    serve: Standin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PY_SETUP_KEY", KEY)
    # OpenAI's key and a URL's password share the Authorization header: one run sends
    # the key, the other the password.
    plain = serve.url()
    with_password = serve.url().replace("://", f"://agent:{PASSWORD}@")
    for url, key_env in [(plain, "PY_SETUP_KEY"), (with_password, None)]:
        path = tmp_path / f"run-{key_env}.jsonl"
        given = agentloop.OpenAI("gpt-4.1-mini", base_url=f"{url}/v1", key_env=key_env, system=SYSTEM)
        outcome = agentloop.run("add 2 and 40", model=given, tools=agentloop.demo.tools(), out=path)
        assert outcome.reason == "no_tool_calls", outcome.error
        data = path.read_bytes()
        assert KEY.encode() not in data and PASSWORD.encode() not in data
        assert setup_of(path)["endpoint"] == serve_endpoint(url)
    # The key was sent, in a header the stand-in kept: there was something to leak.
    heads = b"".join(p.read_bytes() for p in (tmp_path / "requests").rglob("*.head"))
    assert KEY.encode() in heads


def serve_endpoint(url: str) -> str:
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{rest.split('@', 1)[-1]}/v1"


def test_a_python_model_is_recorded_as_no_model(cli: str, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    model = agentloop.Scripted([agentloop.Reply("", [("add", {"a": 2, "b": 40})]), agentloop.Reply("42")])
    outcome = agentloop.run("add", model=model, tools=agentloop.demo.tools(), out=path)
    assert outcome.reason == "no_tool_calls", outcome.error
    setup = setup_of(path)
    assert "model" not in setup and "endpoint" not in setup
    assert [t["name"] for t in setup["tools"]] == ["add", "echo", "fail", "greet"]
    # What asked the model is not known: no request can be proven.
    done = run_cli(cli, ["verify", "--requests", str(path)])
    assert done.returncode != 0
    assert b"the setup names no model" in done.stdout + done.stderr


def stopped_run(path: Path) -> None:
    """A run stopped by its step budget after a call: resumable after its `stop`."""
    model = agentloop.Scripted([agentloop.Reply("", [("add", {"a": 2, "b": 40})])])
    outcome = agentloop.run("add", model=model, tools=agentloop.demo.tools(), budgets={"max_steps": 1}, out=path)
    assert outcome.reason == "step_budget", outcome.error


def test_a_resumption_with_another_setup_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    stopped_run(path)
    before = path.read_bytes()
    fewer = agentloop.demo.tools()[:2]
    with pytest.raises(agentloop.LoopError, match="setup differs from the transcript's: the tools"):
        agentloop.resume(path, model=agentloop.Scripted([agentloop.Reply("42")]), tools=fewer)
    openai = agentloop.OpenAI("gpt-4.1-mini", base_url="http://127.0.0.1:9/v1", key_env=None)
    with pytest.raises(agentloop.LoopError, match="the model: none against openai:gpt-4.1-mini"):
        agentloop.resume(path, model=openai, tools=agentloop.demo.tools())
    assert path.read_bytes() == before
    # The same setup goes on (and stops again at the step budget the task record states).
    outcome = agentloop.resume(path, model=agentloop.Scripted([agentloop.Reply("42")]), tools=agentloop.demo.tools())
    assert outcome.reason == "step_budget", outcome.error
    kinds = [r["kind"] for r in records(path)]
    assert kinds[-2:] == ["resume", "stop"] and len(kinds) > len(before.splitlines())
    assert "setup" not in records(path)[-2]["payload"]
    assert agentloop.verify(path, loop=True)


def test_new_setup_states_the_new_one_after_a_stop(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    stopped_run(path)
    fewer = agentloop.demo.tools()[:2]
    outcome = agentloop.resume(path, model=agentloop.Scripted([agentloop.Reply("42")]), tools=fewer, new_setup=True)
    assert outcome.reason == "step_budget", outcome.error
    resumed = [r for r in records(path) if r["kind"] == "resume"]
    assert [t["name"] for t in resumed[0]["payload"]["setup"]["tools"]] == ["add", "echo"]
    assert agentloop.verify(path, loop=True)


def test_the_sans_io_agent_states_a_setup(tmp_path: Path) -> None:
    model = agentloop.OpenAI("gpt-4.1-mini", base_url="https://user:pw@api.example/v1", system=SYSTEM)
    agent = agentloop.Agent("add", tools=agentloop.demo.tools(), setup=model)
    assert agent.poll()[0] == "model"
    task = json.loads(agent.take_records()[0])["payload"]
    assert task["setup"]["model"] == {"provider": "openai", "name": "gpt-4.1-mini"}
    assert task["setup"]["endpoint"] == "https://api.example/v1"
    assert [t["name"] for t in task["setup"]["tools"]] == ["add", "echo", "fail", "greet"]
    # Or the member itself; its tools must be the ones declared.
    stated = dict(task["setup"])
    agent = agentloop.Agent("add", tools=agentloop.demo.tools(), setup=stated)
    agent.poll()
    assert json.loads(agent.take_records()[0])["payload"]["setup"] == task["setup"]
    with pytest.raises(agentloop.LoopError, match="setup: the setup's tools are not the ones offered"):
        agentloop.Agent("add", tools=agentloop.demo.tools()[:1], setup=stated)
    with pytest.raises(agentloop.LoopError, match="setup"):
        agentloop.Agent("add", tools=[], setup={"model": 3})
    assert os.environ.get("PY_SETUP_KEY") is None
