#!/usr/bin/env bash
# Issue 19: `agentloop verify` against `openssl dgst -sha256` in instructions per byte,
# counted by callgrind (and mispredicted branches, simulated by cachegrind): a proxy for
# their speed that does not depend on the machine's load, as wall-clock time does on a
# shared machine. Not part of `cargo test` or .ci/run: run it by hand.
#
#   bash benches/verify_instructions.sh             # 20 MB typical and rich transcripts
#   SIZE_MB=5 bash benches/verify_instructions.sh
#
# Environment: SIZE_MB (default 20), CARGO_TARGET_DIR, KEEP=1 to keep the temp dir,
# AGENTLOOP=path to count another build of the CLI (an older commit's, to compare).
# Needs: cargo, openssl, valgrind (callgrind, cachegrind, callgrind_annotate).
#
# Read the figures with their caveat: valgrind runs both programs on an emulated CPU
# without the SHA extensions, so neither hashes with SHA-NI there (openssl picks its AVX2
# code, sha2 its portable code, which takes about twice the instructions). The column to
# compare across versions of the verifier is "other": the instructions per byte that
# are not SHA-256's compression function — the canonical-form check, the record
# checks, the chain, reading and threads. On real hardware the hashing is SHA-NI on
# both sides (docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE_MB=${SIZE_MB:-20}
TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}

missing=()
command -v cargo >/dev/null || missing+=("cargo (rustup)")
command -v openssl >/dev/null || missing+=("openssl (apt-get install openssl)")
command -v valgrind >/dev/null || missing+=("valgrind (apt-get install valgrind)")
command -v callgrind_annotate >/dev/null || missing+=("callgrind_annotate (apt-get install valgrind)")
if ((${#missing[@]})); then
  printf 'verify_instructions.sh: missing: %s\n' "${missing[@]}" >&2
  exit 2
fi

echo "== build (release)"
cargo build --release --locked -q -p agentloop-cli -p agentloop-benches --bins
AGENTLOOP=${AGENTLOOP:-$TARGET_DIR/release/agentloop}
GEN=$TARGET_DIR/release/gen-transcript

WORK=$(mktemp -d "${TMPDIR:-/tmp}/verify-instructions.XXXXXX")
if [[ ${KEEP:-0} != 1 ]]; then
  trap 'rm -rf "$WORK"' EXIT
fi
: >"$WORK/empty"

# instructions CMD...: total instructions callgrind counts (all threads), then the
# inclusive count of sha2's compression function ("0" if the program has none).
instructions() {
  local out=$WORK/callgrind.out
  valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>"$WORK/vg.err" || {
    cat "$WORK/vg.err" >&2
    exit 1
  }
  local total sha
  # (awk reads all its input: an early exit would fail the pipe under pipefail.)
  total=$(callgrind_annotate "$out" 2>/dev/null |
    awk '/PROGRAM TOTALS/ && !n { gsub(",", "", $1); print $1; n = 1 }')
  sha=$(callgrind_annotate --inclusive=yes "$out" 2>/dev/null |
    awk '/sha2::sha256::compress256 \[/ && !n { gsub(",", "", $1); print $1; n = 1 }')
  echo "$total ${sha:-0}"
}

# mispredicts CMD...: mispredicted branches cachegrind's simple predictor counts.
mispredicts() {
  valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes --cachegrind-out-file=/dev/null \
    "$@" 2>&1 >/dev/null | awk '/Mispredicts:/ && !n { gsub(",", "", $3); print $3; n = 1 }'
}

echo "== valgrind: $(valgrind --version); $(openssl version)"
read -r ossl_base _ < <(instructions openssl dgst -sha256 "$WORK/empty")
read -r ours_base _ < <(instructions "$AGENTLOOP" verify "$WORK/empty")
ossl_mis_base=$(mispredicts openssl dgst -sha256 "$WORK/empty")
ours_mis_base=$(mispredicts "$AGENTLOOP" verify "$WORK/empty")

echo
echo "| transcript | bytes | openssl Ir/B | agentloop Ir/B | of which SHA-256 | other | openssl / agentloop | mispredicts/kB openssl | mispredicts/kB agentloop |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for profile in typical rich; do
  file=$WORK/$profile.jsonl
  "$GEN" --profile "$profile" "$file" "$SIZE_MB" 2>/dev/null
  bytes=$(stat -c %s "$file")
  read -r ossl _ < <(instructions openssl dgst -sha256 "$file")
  read -r ours sha < <(instructions "$AGENTLOOP" verify "$file")
  ossl_mis=$(mispredicts openssl dgst -sha256 "$file")
  ours_mis=$(mispredicts "$AGENTLOOP" verify "$file")
  awk -v p="$profile" -v b="$bytes" -v o="$ossl" -v ob="$ossl_base" -v a="$ours" -v ab="$ours_base" \
    -v s="$sha" -v om="$ossl_mis" -v omb="$ossl_mis_base" -v am="$ours_mis" -v amb="$ours_mis_base" 'BEGIN {
      oi = (o - ob) / b; ai = (a - ab) / b; si = s / b
      printf "| %s | %d | %.2f | %.2f | %.2f | %.2f | %.3f | %.2f | %.2f |\n", p, b, oi, ai, si, ai - si, oi / ai, (om - omb) * 1000 / b, (am - amb) * 1000 / b
    }'
done
echo
echo "Ir/B: instructions per byte of the file, the same program on an empty file subtracted"
echo "(start-up). Under valgrind neither program uses SHA-NI: compare \"other\" across versions."
