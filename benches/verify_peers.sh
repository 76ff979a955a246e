#!/usr/bin/env bash
# Issues 7 and 19: `agentloop verify` side by side with its peers on deterministic,
# realistic canonical transcripts: the typical one of issue 7, and (issue 19) one rich in
# escapes, non-ASCII text and numbers (`gen-transcript --profile rich`). Not part of
# `cargo test` or .ci/run: run it by hand.
#
#   bash benches/verify_peers.sh                 # 200 MB (10^6 bytes), best of 3 runs
#   SIZE_MB=50 RUNS=5 bash benches/verify_peers.sh
#
# Environment: SIZE_MB (default 200; the rich file is as large), SMALL_MB (default 20:
# a third file, for peak RSS against size), RUNS (default 3), KEEP=1 to keep the temp
# dir, CARGO_TARGET_DIR, QUIET_WAIT (default 120: seconds to wait for the load to drop
# before measuring). The last lines give each goal with its ratio and PASS or MISS, and
# the load average before and after: on a shared machine the ratios move with the load
# (benches/verify_instructions.sh counts instructions instead, which do not).
# On the rich file the Python baseline is not run: it spells floats as Python does
# (`1e-07`), not as RFC 8785 does (`1e-7`), so it would report faults that are not there.
# Needs: cargo, openssl, sha256sum (coreutils), python3, GNU time at /usr/bin/time.
# It installs nothing: a missing tool is named, with the Debian package to install.
#
# Each tool is run RUNS times on the same file (page cache warm) under
# /usr/bin/time -f '%M' (peak RSS), timed by bash's $EPOCHREALTIME (microseconds); the
# table shows the best wall-clock time and the largest peak RSS seen. Every run must
# exit 0 (the file verifies). MB = 10^6 bytes. Below ~50 MB, start-up time dominates
# and the ratios mean little.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE_MB=${SIZE_MB:-200}
SMALL_MB=${SMALL_MB:-20}
RUNS=${RUNS:-3}
TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}

missing=()
command -v cargo >/dev/null || missing+=("cargo (rustup)")
command -v openssl >/dev/null || missing+=("openssl (apt-get install openssl)")
command -v sha256sum >/dev/null || missing+=("sha256sum (apt-get install coreutils)")
command -v python3 >/dev/null || missing+=("python3 (apt-get install python3)")
[[ -x /usr/bin/time ]] || missing+=("/usr/bin/time (apt-get install time)")
if ((${#missing[@]})); then
  printf 'verify_peers.sh: missing: %s\n' "${missing[@]}" >&2
  exit 2
fi

echo "== build (release)"
cargo build --release --locked -q -p agentloop-cli -p agentloop-benches --bins
AGENTLOOP=$TARGET_DIR/release/agentloop
GEN=$TARGET_DIR/release/gen-transcript
NAIVE=$TARGET_DIR/release/naive-verify
PY=benches/baseline_verify.py

WORK=$(mktemp -d "${TMPDIR:-/tmp}/verify-peers.XXXXXX")
if [[ ${KEEP:-0} != 1 ]]; then
  trap 'rm -rf "$WORK"' EXIT
fi
FILE=$WORK/transcript-${SIZE_MB}mb.jsonl
RICH=$WORK/rich-${SIZE_MB}mb.jsonl
SMALL=$WORK/transcript-${SMALL_MB}mb.jsonl

echo "== generate ${SIZE_MB} MB typical and rich, and ${SMALL_MB} MB typical transcripts in $WORK"
"$GEN" "$FILE" "$SIZE_MB" 2>&1
"$GEN" --profile rich "$RICH" "$SIZE_MB" 2>&1
"$GEN" "$SMALL" "$SMALL_MB" 2>&1
BYTES=$(stat -c %s "$FILE")
RICH_BYTES=$(stat -c %s "$RICH")
SMALL_BYTES=$(stat -c %s "$SMALL")
echo "sha256 of the ${SIZE_MB} MB file: $(sha256sum "$FILE" | cut -d' ' -f1)"
echo "sha256 of the ${SIZE_MB} MB rich file: $(sha256sum "$RICH" | cut -d' ' -f1)"
cat "$FILE" "$RICH" "$SMALL" >/dev/null # warm the page cache for every tool alike

echo "== machine"
echo "nproc: $(nproc); $(lscpu 2>/dev/null | grep -m1 'Model name' | sed 's/  */ /g')"
if grep -qw sha_ni /proc/cpuinfo; then echo "sha_ni: yes"; else echo "sha_ni: no"; fi
# Wait (up to QUIET_WAIT seconds, default 120) for the 1-minute load to drop below
# half the cores, so that the figures are not taken while other work runs.
for ((waited = 0; waited < ${QUIET_WAIT:-120}; waited += 10)); do
  awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }' || break
  sleep 10
done
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# measure NAME FILE CMD...: best seconds and largest peak RSS (KiB) of RUNS runs,
# appended to $WORK/results as "NAME<TAB>seconds<TAB>kib<TAB>bytes".
measure() {
  local name=$1 file=$2
  shift 2
  local best="" rss=0 run secs kib start end
  for ((run = 1; run <= RUNS; run++)); do
    start=$EPOCHREALTIME
    if ! /usr/bin/time -f '%M' -o "$WORK/time" "$@" "$file" >"$WORK/out" 2>"$WORK/err"; then
      echo "verify_peers.sh: $name failed on $file:" >&2
      cat "$WORK/out" "$WORK/err" "$WORK/time" >&2
      exit 1
    fi
    end=$EPOCHREALTIME
    # Wall time to the microsecond (GNU time's %e has 0.01 s steps, ~4 % of the
    # fastest runs here); it includes GNU time's own fork and exec, the same for all.
    secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }')
    kib=$(tail -n 1 "$WORK/time")
    if [[ -z $best ]] || awk -v a="$secs" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best=$secs
    fi
    if ((kib > rss)); then rss=$kib; fi
  done
  printf '%s\t%s\t%s\t%s\n' "$name" "$best" "$rss" "$(stat -c %s "$file")" >>"$WORK/results"
  printf '  %-34s best %6ss  peak RSS %7s KiB\n' "$name" "$best" "$rss"
}

echo "== measure (best of $RUNS, ${BYTES} bytes)"
: >"$WORK/results"
measure "openssl dgst -sha256" "$FILE" openssl dgst -sha256
measure "sha256sum" "$FILE" sha256sum
measure "agentloop verify" "$FILE" "$AGENTLOOP" verify
measure "naive Rust (serde_json+serde_jcs)" "$FILE" "$NAIVE"
measure "Python stdlib baseline" "$FILE" python3 "$PY"
measure "agentloop verify (${SMALL_MB} MB file)" "$SMALL" "$AGENTLOOP" verify
echo "== measure the rich file (best of $RUNS, ${RICH_BYTES} bytes)"
measure "openssl dgst -sha256 [rich]" "$RICH" openssl dgst -sha256
measure "agentloop verify [rich]" "$RICH" "$AGENTLOOP" verify
measure "naive Rust (serde_json+serde_jcs) [rich]" "$RICH" "$NAIVE"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "== verify against peers: ${SIZE_MB} MB transcript (${BYTES} bytes), best of ${RUNS}"
awk -F'\t' -v size_mb="$SIZE_MB" '
  { name[NR] = $1; secs[NR] = $2; kib[NR] = $3; bytes[NR] = $4 }
  $1 == "openssl dgst -sha256" { ossl = $2 }
  $1 == "agentloop verify" { ours = $2; ours_kib = $3 }
  $1 == "openssl dgst -sha256 [rich]" { ossl_rich = $2 }
  $1 == "agentloop verify [rich]" { ours_rich = $2; rich_kib = $3 }
  $1 == "Python stdlib baseline" { py = $2 }
  $1 ~ /^agentloop verify \(/ { small_kib = $3 }
  function rate(b, s) { return s > 0 ? sprintf("%.0f", b / 1e6 / s) : "inf" }
  function ratio(a, b) { return b > 0 ? sprintf("%.3f", a / b) : "inf" }
  END {
    print "| tool | seconds | MB/s | peak RSS MiB | × openssl (openssl time / tool time) |"
    print "| --- | ---: | ---: | ---: | ---: |"
    for (i = 1; i <= NR; i++) {
      if (name[i] ~ /^agentloop verify \(/ || name[i] ~ /\[rich\]$/) continue
      printf "| %s | %.3f | %s | %.1f | %s |\n", name[i], secs[i], rate(bytes[i], secs[i]), kib[i] / 1024, ratio(ossl, secs[i])
    }
    print ""
    print "Rich transcript (" size_mb " MB):"
    print ""
    print "| tool | seconds | MB/s | peak RSS MiB | × openssl (openssl time / tool time) |"
    print "| --- | ---: | ---: | ---: | ---: |"
    for (i = 1; i <= NR; i++) {
      if (name[i] !~ /\[rich\]$/) continue
      label = name[i]; sub(/ \[rich\]$/, "", label)
      printf "| %s | %.3f | %s | %.1f | %s |\n", label, secs[i], rate(bytes[i], secs[i]), kib[i] / 1024, ratio(ossl_rich, secs[i])
    }
    print ""
    r_ossl = ours > 0 ? ossl / ours : 0
    r_rich = ours_rich > 0 ? ossl_rich / ours_rich : 0
    r_py = ours > 0 ? py / ours : 0
    printf "agentloop verify vs openssl dgst -sha256:        %.3f× (goal ≥ 0.8×: %s; stretch 1.0×: %s)\n", r_ossl, (r_ossl >= 0.8 ? "PASS" : "MISS"), (r_ossl >= 1.0 ? "PASS" : "MISS")
    printf "same, rich transcript:                           %.3f× (goal ≥ 0.8×: %s; stretch 1.0×: %s)\n", r_rich, (r_rich >= 0.8 ? "PASS" : "MISS"), (r_rich >= 1.0 ? "PASS" : "MISS")
    printf "agentloop verify vs Python baseline:             %.2f× faster (goal ≥ 10×: %s)\n", r_py, (r_py >= 10 ? "PASS" : "MISS")
    rss_ok = (ours_kib <= 16384 && small_kib <= 16384 && rich_kib <= 16384)
    printf "agentloop verify peak RSS: %.1f MiB on %s MB, %.1f MiB on the rich file, %.1f MiB on the small file (goal ≤ 16 MiB whatever the size: %s)\n", ours_kib / 1024, size_mb, rich_kib / 1024, small_kib / 1024, (rss_ok ? "PASS" : "MISS")
  }' "$WORK/results"
load_after=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$load_after" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
  echo "NOTE: load average $load_after on $(nproc) cores: other work competed for the CPUs; re-run on a quiet machine for figures to publish."
fi
echo "small file: ${SMALL_BYTES} bytes"
