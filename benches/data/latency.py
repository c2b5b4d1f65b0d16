#!/usr/bin/env python3
"""Latency from an event's arrival (written and flushed to a followed file) to the Fail record
it causes on the monitor's standard output: runs that never end (no end event, no timeout),
each with a correct first event, then a wrong one; 200 runs, the input idle between them.

    python3 benches/data/latency.py target/release/multitrace mqtt.mtm /tmp/live.jsonl
"""
import json, os, random, subprocess, sys, time, statistics
binary, model, path = sys.argv[1], sys.argv[2], sys.argv[3]
open(path, "w").close()
p = subprocess.Popen([binary, "monitor", model, path, "--format", "jsonl"], stdout=subprocess.PIPE, text=True, bufsize=1)
time.sleep(0.5)
lat = []
with open(path, "a") as f:
    for i in range(200):
        f.write(json.dumps({"run": f"s{i}", "action": "clt1!begin", "order": 1}) + "\n"); f.flush()
        # A random pause: the write falls anywhere in the monitor's polling cycle.
        time.sleep(random.uniform(0.005, 0.03))
        t0 = time.perf_counter()
        f.write(json.dumps({"run": f"s{i}", "action": "clt1!begin", "order": 2}) + "\n"); f.flush()
        line = p.stdout.readline()
        t1 = time.perf_counter()
        r = json.loads(line)
        assert r["id"] == f"s{i}" and r["verdict"] == "Fail", line
        lat.append((t1 - t0) * 1e3)
        time.sleep(0.02)
p.terminate(); p.wait()
lat.sort()
print(f"fail latency over {len(lat)} runs: median {statistics.median(lat):.3f} ms, p90 {lat[int(0.9*len(lat))]:.3f} ms, max {lat[-1]:.3f} ms")
