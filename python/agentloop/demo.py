"""The seed's demo, written with the package: the three runs of `agentloop demo`
(demo-answer, demo-recover, demo-budget), byte for byte. `python -m agentloop.demo [DIR]`."""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, List, Tuple

from agentloop._loop import Scripted, run
from agentloop._native import Reply, verify
from agentloop._tools import Tool, tool


def add(a: int, b: int) -> Dict[str, int]:
    """Adds two integers a and b; returns {"sum": a + b}."""
    return {"sum": a + b}


def echo(**arguments: Any) -> Dict[str, Any]:
    """Returns its arguments unchanged."""
    return arguments


def fail(**arguments: Any) -> Any:
    """Always fails: shows that a failing tool is recorded, not fatal."""
    raise RuntimeError("the tool is broken on purpose")


def greet(name: str) -> Dict[str, str]:
    """Greets someone by name; returns {"greeting": "hello, <name>"}."""
    return {"greeting": f"hello, {name}"}


def tools() -> List[Tool]:
    """The demo's four tools."""
    return [tool(f, idempotent=True) for f in (add, echo, fail, greet)]


def _sum(a: Any, b: Any) -> Tuple[str, Dict[str, Any]]:
    return ("add", {"a": a, "b": b})


def scenarios() -> List[Tuple[str, str, Dict[str, Any], List[Reply]]]:
    """(file name, task, budgets, the scripted model's replies) of each run."""
    ada = ("greet", {"name": "ada"})
    return [
        (
            "demo-answer.jsonl",
            "add 2 and 40",
            {"max_steps": 4},
            [Reply("", [_sum(2, 40)]), Reply("2 + 40 = 42.")],
        ),
        (
            "demo-recover.jsonl",
            "add 2 and 40, whatever goes wrong on the way",
            {"max_steps": 8},
            [
                Reply("Multiplying is a kind of adding, right?", [("multiply", {"a": 2, "b": 40})]),
                Reply("No multiply. Adding, with the numbers as I was given them.", [_sum("2", 40)]),
                Reply("The schema wants integers. Does the fail tool know more?", [("fail", {})]),
                Reply("That tool is broken. Adding two integers now.", [_sum(2, 40)]),
                Reply("2 + 40 = 42."),
            ],
        ),
        (
            "demo-budget.jsonl",
            "add 2 and 40, greeting the user first",
            {"max_steps": 10, "max_tokens": 40},
            [
                Reply("First I greet the user, as every run should start.", [ada]),
                Reply("Then I echo the plan back so it is on the record.", [("echo", {"plan": "add 2 and 40"})]),
                Reply("Now the arithmetic itself: two plus forty.", [_sum(2, 40)]),
                Reply(
                    "Let me double-check the sum and greet again before answering.",
                    [_sum(40, 2), ada],
                ),
            ],
        ),
    ]


def write(directory: str = ".") -> List[str]:
    """Runs the three demo runs and writes their transcripts into `directory`
    (each replaced whole); returns the paths written."""
    os.makedirs(directory, exist_ok=True)
    written = []
    for name, task, budgets, replies in scenarios():
        outcome = run(task, model=Scripted(replies), tools=tools(), budgets=budgets, setup=False)
        path = os.path.join(directory, name)
        temporary = path + ".tmp"
        with open(temporary, "wb") as f:
            f.write(outcome.transcript or b"")
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
        written.append(path)
    return written


def main(argv: List[str]) -> int:
    directory = argv[1] if len(argv) > 1 else "."
    failed = 0
    for path in write(directory):
        report = verify(path, loop=True)
        print(f"{'ok    ' if report else 'FAILED'}  {path}: {report.count} records, head {(report.head or 'none')[:12]}...")
        failed += not report
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
