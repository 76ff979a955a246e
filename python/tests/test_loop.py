"""The loop from Python: a Python model and Python tools, driven by the Rust core. The
records of a failing tool are the Rust loop's, and the demo is `agentloop demo`'s bytes."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

import agentloop
import agentloop.demo


def records(transcript: Optional[bytes]) -> List[Dict[str, Any]]:
    assert transcript is not None
    return [json.loads(line) for line in transcript.splitlines()]


def test_the_python_demo_is_the_cli_demo_byte_for_byte(cli_demo: Path, tmp_path: Path) -> None:
    written = agentloop.demo.write(str(tmp_path))
    assert [Path(p).name for p in written] == [
        "demo-answer.jsonl",
        "demo-recover.jsonl",
        "demo-budget.jsonl",
    ]
    for path in written:
        name = Path(path).name
        assert Path(path).read_bytes() == (cli_demo / name).read_bytes(), name
        assert agentloop.verify(path, loop=True)


def one_call(name: str, arguments: Dict[str, Any]) -> agentloop.Scripted:
    return agentloop.Scripted([agentloop.Reply("", [(name, arguments)]), agentloop.Reply("done")])


def tool_record(tool: Any, arguments: Dict[str, Any], name: str = "t") -> Dict[str, Any]:
    outcome = agentloop.run("task", model=one_call(name, arguments), tools=[tool])
    assert outcome.reason == "no_tool_calls"
    payload: Dict[str, Any] = records(outcome.transcript)[2]["payload"]
    return payload


def test_a_tool_that_raises_is_an_ok_false_record() -> None:
    def t(x: int) -> int:
        raise ValueError(f"no good: {x}")

    assert tool_record(t, {"x": 1}) == {
        "id": "call_1_0",
        "name": "t",
        "ok": False,
        "error": "tool 't' failed: no good: 1",
    }

    def quiet() -> None:
        raise KeyError()

    assert tool_record(quiet, {}, "quiet")["error"] == "tool 'quiet' failed: KeyError"


def test_a_result_with_no_json_form_fails_as_a_rust_typed_tool_s_does() -> None:
    def t() -> Dict[str, Any]:
        return {"v": [float("nan")]}

    # core's tools::output_value: "its result cannot be written as JSON: <error>".
    assert tool_record(t, {})["error"] == (
        "tool 't' failed: its result cannot be written as JSON: "
        "NaN and infinite numbers have no JSON encoding at $.v[0]"
    )

    def b() -> bytes:
        return b"raw"

    assert tool_record(b, {}, "b")["error"].startswith(
        "tool 'b' failed: its result cannot be written as JSON: a bytes has no JSON form"
    )


def test_schema_breaking_arguments_never_reach_the_tool() -> None:
    called = []

    def add(a: int, b: int) -> Dict[str, int]:
        called.append((a, b))
        return {"sum": a + b}

    payload = tool_record(add, {"a": "2", "b": 40}, "add")
    assert payload["error"] == "invalid arguments: $.add.a: expected type integer, got string"
    payload = tool_record(add, {"a": 2, "b": 40, "c": 1}, "add")
    assert payload["ok"] is False and "c" in payload["error"]
    assert called == []


def test_schemas_from_type_hints_explicit_and_optional() -> None:
    def f(a: int, b: float, s: str, flag: bool, tags: List[str], extra: Optional[int] = None) -> None:
        """Does f.

        More text."""

    t = agentloop.tool(f)
    assert t.name == "f" and t.description.startswith("Does f.")
    assert t.schema == {
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "b": {"type": "number"},
            "s": {"type": "string"},
            "flag": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "extra": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        },
        "required": ["a", "b", "s", "flag", "tags"],
        "additionalProperties": False,
    }
    given = agentloop.tool(f, name="g", schema={"type": "object"})
    assert given.name == "g" and given.schema == {"type": "object"}

    class Opaque:
        pass

    def h(o: Opaque) -> None: ...

    with pytest.raises(agentloop.LoopError, match="give the tool's schema explicitly"):
        agentloop.tool(h)


def test_a_model_that_raises_or_returns_no_reply_is_a_model_error() -> None:
    def broken(messages: Any, manifest: Any) -> agentloop.Reply:
        raise RuntimeError("the provider is down")

    outcome = agentloop.run("task", model=broken)
    assert (outcome.reason, outcome.error) == ("model_error", "the provider is down")

    def wrong(messages: Any, manifest: Any) -> Any:
        return "text"

    outcome = agentloop.run("task", model=wrong)
    assert outcome.error == "the model returned a str, not an agentloop.Reply"


def test_the_model_sees_the_conversation_and_the_manifest() -> None:
    seen: List[Any] = []

    def model(messages: List[Any], manifest: List[Any]) -> agentloop.Reply:
        seen.append((messages, manifest))
        if len(messages) == 1:
            return agentloop.Reply("", [("greet", {"name": "ada"})])
        return agentloop.Reply("bye")

    outcome = agentloop.run("say hi", model=model, tools=[agentloop.demo.greet], budgets={"max_steps": 3})
    assert outcome.steps == 2 and outcome.tool_calls == 1
    messages, manifest = seen[1]
    assert messages[0] == {"role": "user", "text": "say hi"}
    assert messages[1]["tool_calls"][0]["id"] == "call_1_0"
    assert messages[2] == {"role": "tool", "call_id": "call_1_0", "name": "greet", "ok": True, "value": {"greeting": "hello, ada"}}
    assert [t["name"] for t in manifest] == ["greet"]


def test_budgets_are_checked(tmp_path: Path) -> None:
    with pytest.raises(agentloop.LoopError, match="max_stepz"):
        agentloop.run("t", model=agentloop.Scripted([]), budgets={"max_stepz": 1})
    with pytest.raises(agentloop.LoopError, match="max_steps"):
        agentloop.run("t", model=agentloop.Scripted([]), budgets={"max_steps": -1})


def test_a_run_writes_its_transcript_durably(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    outcome = agentloop.run("t", model=one_call("greet", {"name": "x"}), tools=[agentloop.demo.greet], out=path)
    assert outcome.transcript is None and outcome.reason == "no_tool_calls"
    assert agentloop.verify(path, loop=True).count == 5
    with pytest.raises(agentloop.LoopError, match="already holds 5 records"):
        agentloop.run("t", model=agentloop.Scripted([]), out=path)



@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Ctrl-C as Python sets it up at start: a `KeyboardInterrupt`. A process started
    with SIGINT ignored (a background job of a shell without job control, as some CI
    runners start steps) keeps it ignored, and a raised SIGINT would then do nothing."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_in_a_tool_or_the_model_stops_the_run_as_cancelled(ctrl_c: None) -> None:
    def slow() -> None:
        signal.raise_signal(signal.SIGINT)

    outcome = agentloop.run("t", model=one_call("slow", {}), tools=[slow])
    assert outcome.reason == "cancelled"
    kinds = [r["kind"] for r in records(outcome.transcript)]
    assert kinds == ["task", "assistant", "tool", "stop"]

    def model(messages: Any, manifest: Any) -> agentloop.Reply:
        raise KeyboardInterrupt

    outcome = agentloop.run("t", model=model)
    assert outcome.reason == "cancelled"
    assert [r["kind"] for r in records(outcome.transcript)] == ["task", "stop"]


def test_a_pydantic_model_gives_the_schema_and_receives_the_arguments() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Point(pydantic.BaseModel):  # type: ignore[name-defined,misc]
        x: int
        y: int = 0

    got: List[Any] = []

    def place(point: Point) -> Dict[str, int]:
        got.append(point)
        return {"sum": point.x + point.y}

    # This file's annotations are strings, and Point is local to the test.
    place.__annotations__["point"] = Point
    t = agentloop.tool(place)
    assert t.schema["properties"]["x"] == {"title": "X", "type": "integer"}
    assert t.schema["required"] == ["x"]
    assert tool_record(t, {"x": 2, "y": 40}, "place")["value"] == {"sum": 42}
    assert isinstance(got[0], Point)
    assert tool_record(t, {"x": "a"}, "place")["error"].startswith("invalid arguments: $.place.x")


def test_a_model_that_changes_the_conversation_list_gets_it_whole_again() -> None:
    lengths: List[int] = []

    def model(messages: List[Any], manifest: Any) -> agentloop.Reply:
        lengths.append(len(messages))
        assert messages[0] == {"role": "user", "text": "t"}
        messages.clear()
        return agentloop.Reply("", [("noop", {})]) if len(lengths) < 3 else agentloop.Reply("end")

    def noop() -> None:
        return None

    agentloop.run("t", model=model, tools=[noop])
    assert lengths == [1, 3, 5]


def test_a_run_stopped_by_ctrl_c_resumes_to_its_end(tmp_path: Path, ctrl_c: None) -> None:
    path = tmp_path / "run.jsonl"
    stop_once = [True]

    def add(a: int, b: int) -> Dict[str, int]:
        if stop_once and a == 40:
            stop_once.clear()
            signal.raise_signal(signal.SIGINT)
        return {"sum": a + b}

    def model(messages: List[Any], manifest: Any) -> agentloop.Reply:
        turns = sum(1 for m in messages if m["role"] == "assistant")
        if turns < 3:
            return agentloop.Reply("", [("add", {"a": 2 if turns == 0 else 40, "b": 2})])
        return agentloop.Reply("done")

    tools = [agentloop.tool(add, idempotent=True)]
    first = agentloop.run("t", model=model, tools=tools, budgets={"max_steps": 6}, out=path)
    assert first.reason == "cancelled"
    resumed = agentloop.resume(path, model=model, tools=tools)
    assert resumed.reason == "no_tool_calls", resumed.error
    assert agentloop.verify(path, loop=True)
    kinds = [json.loads(line)["kind"] for line in path.read_bytes().splitlines()]
    assert kinds[:5] == ["task", "assistant", "tool", "assistant", "tool"]
    assert "resume" in kinds and kinds[-1] == "stop"
    with pytest.raises(agentloop.LoopError, match="no run to resume"):
        agentloop.resume(tmp_path / "new.jsonl", model=model, tools=tools)
