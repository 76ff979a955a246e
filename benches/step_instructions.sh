#!/usr/bin/env bash
# Issue 32: the instructions of one loop step from Python against one from Rust, counted
# by callgrind — a figure that does not depend on the machine's load, as the timings of
# benches/python_bench.py and `cargo bench --bench loop_overhead` do on a shared machine.
# Each side runs N1 and N2 steps of the same loop (a scripted model asking for one `noop`
# call per turn, max_steps = N); the difference over N2 - N1 is one step's instructions,
# start-up (the interpreter's, the module's import) cancelled out. Not part of `cargo
# test` or .ci/run: run it by hand.
#
#   PYTHON=v/bin/python bash benches/step_instructions.sh
#
# Environment: PYTHON (a Python with the agentloop package installed; default python3),
# N1 and N2 (default 1000 and 2000), CARGO_TARGET_DIR.
# Needs: cargo, valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
N1=${N1:-1000}
N2=${N2:-2000}
TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
command -v valgrind >/dev/null || { echo "step_instructions.sh: missing valgrind" >&2; exit 2; }
"$PYTHON" -c 'import agentloop' || { echo "step_instructions.sh: $PYTHON has no agentloop package (pip install ./python)" >&2; exit 2; }

cargo build --release --locked -q -p agentloop-benches --bin loop-steps
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/steps.py" <<'PY'
import sys
import agentloop

noop_reply = agentloop.Reply("", [("noop", {})])

def model(messages, manifest):
    return noop_reply

def noop() -> None:
    return None

result = agentloop.run("loop", model=model, tools=[agentloop.tool(noop)], budgets={"max_steps": int(sys.argv[1])})
PY

# The total instructions callgrind counted for one command.
count() {
  valgrind --tool=callgrind --callgrind-out-file="$work/out" "$@" >/dev/null 2>"$work/log"
  sed -n 's/^summary: //p' "$work/out"
}

per_step() {
  local a b
  a=$(count "$@" "$N1")
  b=$(count "$@" "$N2")
  echo $(((b - a) / (N2 - N1)))
}

rust=$(per_step "$TARGET_DIR/release/loop-steps")
python=$(per_step "$PYTHON" "$work/steps.py")
echo "instructions per loop step: Rust $rust, Python $python ($((python - rust)) more, $(awk -v p="$python" -v r="$rust" 'BEGIN { printf "%.2f", p / r }')x)"
