"""`run`: the budgeted loop with a Python model and Python tools, driven by the Rust core."""

from __future__ import annotations

import os
import shlex
from typing import Any, Callable, Iterable, List, Mapping, Optional, Sequence, Union

from agentloop._native import Agent as _NativeAgent
from agentloop._native import Outcome, Provided, Reply, resume_native, run_native
from agentloop._tools import Tool, as_tool

Message = Mapping[str, Any]
ToolSpec = Mapping[str, Any]
Model = Callable[[List[Message], List[ToolSpec]], Reply]


def run(
    task: str,
    *,
    model: Union[Model, Provided],
    tools: Iterable[Union[Tool, Callable[..., Any]]] = (),
    budgets: Optional[Mapping[str, Any]] = None,
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    mcp: Iterable[Union[str, Sequence[str]]] = (),
    setup: bool = True,
) -> Outcome:
    """Runs `task` to its end: the model is asked for a turn, the tools it calls are
    checked against their schemas and run, every step is a record of the hash-chained
    transcript — written to `out` (a new file, durably) or kept in
    `Outcome.transcript`. `mcp` names MCP servers by command line (a list of
    arguments, or a string split as a shell would, without running one); their tools
    join `tools`. Ctrl-C stops the run as `cancelled`.

    The `task` record states the run's setup, as `agentloop run` does: a built-in
    model's provider, name, endpoint (without credentials), system prompt and options
    (so `agentloop verify --requests` proves each request), and every tool with its
    source (the host, or an MCP server, whose command line is kept as its SHA-256).
    A Python callable model is recorded as no model. `setup=False` states none (format
    1), as the scripted runs of `agentloop demo` do."""
    given = [as_tool(t) for t in tools]
    native = [(t.name, t.description, dict(t.schema), t.function, t.idempotent) for t in given]
    return run_native(
        task,
        model=model,
        tools=native,
        budgets=dict(budgets) if budgets is not None else None,
        out=os.fspath(out) if out is not None else None,
        mcp=[shlex.split(c) if isinstance(c, str) else list(c) for c in mcp],
        setup=setup,
    )


def resume(
    path: Union[str, "os.PathLike[str]"],
    *,
    model: Union[Model, Provided],
    tools: Iterable[Union[Tool, Callable[..., Any]]] = (),
    mcp: Iterable[Union[str, Sequence[str]]] = (),
    new_setup: bool = False,
) -> Outcome:
    """Continues the run in the transcript at `path` that stopped early (Ctrl-C, a crash),
    as `agentloop run --resume`: the task, budgets and call limits are the ones its
    `task` record states; `model`, `tools` and `mcp` are given again, and the setup
    they make must be the one the transcript has in force (else `LoopError` names the
    first difference and nothing is run) — unless `new_setup=True` after a `stop`, as
    `--new-setup`: the `resume` record then states the new one. A call that may have
    run before the stop is recorded as lost unless its tool is idempotent."""
    given = [as_tool(t) for t in tools]
    native = [(t.name, t.description, dict(t.schema), t.function, t.idempotent) for t in given]
    return resume_native(
        os.fspath(path),
        model=model,
        tools=native,
        mcp=[shlex.split(c) if isinstance(c, str) else list(c) for c in mcp],
        new_setup=new_setup,
    )


class Scripted:
    """A model that replays a fixed script of replies, whatever it is shown; past the
    end it raises (a `model_error`)."""

    def __init__(self, replies: Sequence[Reply]) -> None:
        self._replies = list(replies)
        self.served = 0

    def __call__(self, messages: List[Message], manifest: List[ToolSpec]) -> Reply:
        if self.served >= len(self._replies):
            raise RuntimeError(f"the script has no reply left ({self.served} served)")
        reply = self._replies[self.served]
        self.served += 1
        return reply


class Agent(_NativeAgent):
    """The loop as a sans-I/O state machine, for a host with its own event loop: `poll()`
    says what the loop needs — `("model", messages, manifest)`, `("tools", calls)`,
    `("records",)` or `("done", outcome)` — the host answers with `feed_reply` and
    `feed_result` when it has the answers, and writes the lines `take_records()` gives.
    The host runs the tools itself; `tools` only declares them (a `Tool` or a callable,
    whose schema is taken as `run` takes it). `setup` is what the `task` record states
    of the run's setup: a built-in model (`OpenAI(…)`, `Anthropic(…)`) the host asks
    the way it would (its tools the host's), or the `setup` member of docs/format.md."""

    def __new__(
        cls,
        task: str,
        *,
        tools: Iterable[Union[Tool, Callable[..., Any]]] = (),
        budgets: Optional[Mapping[str, Any]] = None,
        setup: Union[Provided, Mapping[str, Any], None] = None,
    ) -> "Agent":
        given = [as_tool(t) for t in tools]
        declared = [(t.name, t.description, dict(t.schema)) for t in given]
        agent: Agent = super().__new__(
            cls,
            task,
            tools=declared,
            budgets=dict(budgets) if budgets is not None else None,
            setup=dict(setup) if isinstance(setup, Mapping) else setup,
        )
        return agent

    def __init__(
        self,
        task: str,
        *,
        tools: Iterable[Union[Tool, Callable[..., Any]]] = (),
        budgets: Optional[Mapping[str, Any]] = None,
        setup: Union[Provided, Mapping[str, Any], None] = None,
    ) -> None:
        pass
