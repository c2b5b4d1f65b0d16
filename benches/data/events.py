#!/usr/bin/env python3
"""Event logs for the monitor benchmarks: multitraces from `multitrace gen`, cut into events
(run, action, order) and interleaved across runs as they would arrive (each run's locations
interleaved at random, a reception after a matching emission when there is one; `--active`
runs open at once, merged at random).

    python3 benches/data/events.py MODEL OUT.jsonl --runs 6000 --length 20..250 [--active 1000]
"""
import argparse, json, os, random, subprocess, sys, tempfile

p = argparse.ArgumentParser()
p.add_argument("model")
p.add_argument("out")
p.add_argument("--runs", type=int, default=6000)
p.add_argument("--length", default="20..250")
p.add_argument("--active", type=int, default=1000)
p.add_argument("--kinds", default="pass,local-error,inter-error,prefix")
p.add_argument("--seed", type=int, default=1)
p.add_argument("--bin", default="target/release/multitrace")
a = p.parse_args()
rng = random.Random(a.seed)
kinds = a.kinds.split(",")
runs = []
with tempfile.TemporaryDirectory() as d:
    for k in kinds:
        n = a.runs // len(kinds)
        subprocess.run([a.bin, "gen", a.model, "--kind", k, "--count", str(n), "--length", a.length,
                        "--seed", str(a.seed), "--format", "jsonl", "-o", d, "--allow-fewer"],
                       check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(d, f"{k}.jsonl")) as f:
            for line in f:
                runs.append(json.loads(line)["traces"])
queues = []
for i, traces in enumerate(runs):
    locs = [(k, t) for k, t in traces.items() if t]
    pos = {k: 0 for k, _ in locs}
    q = []
    sent = {}
    while True:
        left = [(k, t) for k, t in locs if pos[k] < len(t)]
        if not left:
            break
        # As they would arrive: a reception after a matching emission when there is one.
        causal = [(k, t) for k, t in left if "?" not in t[pos[k]] or sent.get(t[pos[k]].split("?")[1], 0) > 0]
        k, t = rng.choice(causal or left)
        act = t[pos[k]]
        if "!" in act:
            m = act.split("!")[1]; sent[m] = sent.get(m, 0) + 1
        elif "?" in act and sent.get(act.split("?")[1], 0) > 0:
            sent[act.split("?")[1]] -= 1
        q.append(json.dumps({"run": f"r{i}", "action": t[pos[k]], "order": pos[k]}, separators=(",", ":")))
        pos[k] += 1
    q.reverse()
    if q:
        queues.append(q)
out = open(a.out, "w")
active, nxt, count = [], 0, 0
while nxt < len(queues) or active:
    while len(active) < a.active and nxt < len(queues):
        active.append(queues[nxt]); nxt += 1
    i = rng.randrange(len(active))
    out.write(active[i].pop() + "\n"); count += 1
    if not active[i]:
        active[i] = active[-1]; active.pop()
print(f"{len(queues)} runs, {count} events -> {a.out}", file=sys.stderr)
