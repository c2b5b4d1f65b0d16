#!/usr/bin/env bash
# What a monitor left following a quiet directory costs: the CPU time (user + system, from
# /proc/PID/stat) of `multitrace monitor MODEL DIR` over SECONDS of wall time once it has read
# the FILES files there (one event each) and nothing more comes. A follower that polls every
# file and rescans the directory at every turn of its loop spins; one that backs off costs
# next to nothing.
#
#   bash benches/live/idle-cpu.sh [BINARY] [FILES] [SECONDS]   # target/release/multitrace 2000 5
#
# Prints the CPU time used in ms and its share of one core. Run it with nothing else running.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${1:-$ROOT/target/release/multitrace}"; FILES="${2:-2000}"; SECONDS_="${3:-5}"
W="$(mktemp -d /tmp/idle-cpu.XXXXXX)"
PID=""
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$W"' EXIT
mkdir "$W/logs"
for i in $(seq 1 "$FILES"); do
    echo "{\"run\":\"r$i\",\"action\":\"clt1!begin\",\"order\":0}" > "$W/logs/$i.jsonl"
done
"$BIN" monitor "$ROOT/fixtures/seed004-mqtt/model.hif" "$W/logs" -o "$W/out.jsonl" 2>"$W/err" &
PID=$!
ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
# Settled: every file read (each run is live), then measured.
sleep 2
a="$(ticks)"
sleep "$SECONDS_"
b="$(ticks)"
hz="$(getconf CLK_TCK)"
ms=$(( (b - a) * 1000 / hz ))
echo "idle monitor, $FILES files followed, ${SECONDS_} s: ${ms} ms CPU ($(( ms / (10 * SECONDS_) ))% of a core)"
