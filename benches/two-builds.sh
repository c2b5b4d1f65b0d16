#!/usr/bin/env bash
# Two builds of `multitrace`, the same work: the median CPU time (user + system, from
# /usr/bin/time) of ROUNDS alternated runs of each, on three paths: `check` of 20,000 MQTT
# multitraces (one JSON Lines file), `check --events` and `monitor --no-follow` of their
# 599,796 events (each location's events in order, locations interleaved at random). Used to
# show that a change that only moves code (issue 49) costs nothing.
#
#   bash benches/two-builds.sh BEFORE_BINARY AFTER_BINARY [ROUNDS]      # ROUNDS default 5
#
# Prints one line per path: the two medians in ms and their ratio after/before. Run it with
# nothing else running (2 cores: a helper's build makes every figure a floor).
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BEFORE="$1"; AFTER="$2"; ROUNDS="${3:-5}"
W="$(mktemp -d /tmp/two-builds.XXXXXX)"
trap 'rm -rf "$W"' EXIT
MODEL="$ROOT/fixtures/seed004-mqtt/model.hif"
"$BEFORE" compile "$MODEL" -o "$W/mqtt.mtm" 2>/dev/null
"$BEFORE" gen "$W/mqtt.mtm" --kind pass --count 20000 --length 20..40 --format jsonl \
    --output "$W/set" --seed 7 2>/dev/null
python3 - "$W/set/pass.jsonl" "$W/events.jsonl" <<'PY'
import json, random, sys
from collections import defaultdict
random.seed(5)
queues = defaultdict(list)
for i, line in enumerate(open(sys.argv[1])):
    d = json.loads(line)
    for loc, acts in d["traces"].items():
        for k, a in enumerate(acts):
            queues[(d["id"], loc)].append({"run": d["id"], "action": a, "order": k})
keys = list(queues)
with open(sys.argv[2], "w") as f:
    while keys:
        j = random.randrange(len(keys))
        q = queues[keys[j]]
        f.write(json.dumps(q.pop(0), separators=(",", ":")) + "\n")
        if not q:
            keys[j] = keys[-1]
            keys.pop()
PY
cpu() { # prints user+sys in ms of one run
    /usr/bin/time -f '%U %S' -o "$W/t" "$@" >/dev/null 2>&1 || true
    awk '{printf "%d\n", ($1 + $2) * 1000}' "$W/t"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
run_path() { # name, then the arguments after the binary
    local name="$1"; shift
    : > "$W/b"; : > "$W/a"
    for _ in $(seq "$ROUNDS"); do
        cpu "$BEFORE" "$@" >> "$W/b"
        cpu "$AFTER" "$@" >> "$W/a"
    done
    local b a
    b=$(median < "$W/b"); a=$(median < "$W/a")
    awk -v n="$name" -v b="$b" -v a="$a" 'BEGIN {printf "%-28s before %6d ms  after %6d ms  ratio %.3f\n", n, b, a, a / b}'
}
run_path "check (JSON Lines)" check "$W/mqtt.mtm" "$W/set/pass.jsonl" --jobs 1 -f json
run_path "check --events" check "$W/mqtt.mtm" --events "$W/events.jsonl" --jobs 1 -f json
run_path "monitor --no-follow" monitor "$W/mqtt.mtm" "$W/events.jsonl" --no-follow -f json
