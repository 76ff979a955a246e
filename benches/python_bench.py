"""The Python package's benchmark (docs/performance.md, "The Python package"):

1. `agentloop.verify` against `agentloop verify` (the release CLI) on one transcript of
   SIZE_MB (default 200) megabytes, interleaved, the median of RUNS (default 5) each;
2. a loop step from Python: `agentloop.run` of N turns, each a scripted Python model
   asking for one call of a Python tool (`noop`: `{}` -> None), stopped by max_steps = N
   — the shape of the Rust bench `loop/steps/N` (benches/benches/loop_overhead.rs).

    python benches/python_bench.py path/to/release/agentloop [transcript.jsonl]

Without a transcript one is generated with agentloop.Chain into a temporary folder.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, List

import agentloop


def generate(path: str, size_mb: int) -> None:
    """Typical records: a task, then assistant turns and tool results with text."""
    chain = agentloop.Chain()
    target = size_mb * 1_000_000
    written = 0
    with open(path, "wb") as f:
        written += f.write(chain.append("task", {"task": "summarise the files in the folder"}))
        i = 0
        while written < target:
            text = f"Reading part {i} of the folder: " + "lorem ipsum dolor sit amet " * 6
            written += f.write(
                chain.append("assistant", {"text": text, "tool_calls": [{"name": "read", "arguments": {"path": f"f{i}.txt"}}]})
            )
            written += f.write(
                chain.append("tool", {"id": f"call_{2 * i + 1}_0", "name": "read", "ok": True, "value": {"content": "x = 1\n" * 40, "bytes": 240}})
            )
            i += 1


def timed(run: Callable[[], Any]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def bench_verify(cli: str, path: str, runs: int) -> None:
    size = os.path.getsize(path)
    python: List[float] = []
    native: List[float] = []
    for _ in range(runs):
        native.append(timed(lambda: subprocess.run([cli, "verify", path], check=True, capture_output=True)))
        python.append(timed(lambda: agentloop.verify(path)))
    p, n = statistics.median(python), statistics.median(native)
    print(f"verify {size / 1e6:.0f} MB: agentloop verify {n:.3f} s ({size / n / 1e6:.0f} MB/s), "
          f"agentloop.verify {p:.3f} s ({size / p / 1e6:.0f} MB/s), ratio {p / n:.3f}")


def bench_loop(runs: int) -> None:
    noop_reply = agentloop.Reply("", [("noop", {})])

    def model(messages: Any, manifest: Any) -> agentloop.Reply:
        return noop_reply

    def noop() -> None:
        return None

    tools = [agentloop.tool(noop)]
    for n in (10, 100, 1000):
        wall = []
        cpu = []
        for _ in range(runs):
            start = time.process_time()
            wall.append(timed(lambda: agentloop.run("t", model=model, tools=tools, budgets={"max_steps": n})))
            cpu.append(time.process_time() - start)
        t, c = statistics.median(wall), statistics.median(cpu)
        print(f"loop/steps/{n} from Python: {t * 1e3:.3f} ms, {t / n * 1e6:.2f} µs per step "
              f"(CPU {c / n * 1e6:.2f} µs per step)")


def main(argv: List[str]) -> int:
    cli = argv[1]
    runs = int(os.environ.get("RUNS", "5"))
    bench_loop(max(runs, 20))
    with tempfile.TemporaryDirectory() as folder:
        path = argv[2] if len(argv) > 2 else os.path.join(folder, "t.jsonl")
        if len(argv) <= 2:
            generate(path, int(os.environ.get("SIZE_MB", "200")))
        assert agentloop.verify(path), "the benchmark transcript does not verify"
        bench_verify(cli, path, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
