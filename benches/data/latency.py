#!/usr/bin/env python3
"""Fail latency of the live monitor: from the arrival of the event that makes a Fail certain
(written and flushed to a followed file) to its record on the monitor's standard output, under
each arrival model. Runs never end (no end event, no timeout): only the Fail is written.

    python3 benches/data/latency.py BINARY MQTT_MTM CHECKOUT_README DIR [RUNS]

- in order: each run's correct first event, then a wrong one (order 0, 1): the Fail is
  certain at the second;
- positions, out of order: the wrong event (position 1) first, then position 0: the Fail is
  certain when position 0 comes;
- OpenTelemetry spans' parents (the checkout example's spans, one span per line as the SDK's
  batch processor exports them with a batch of one): the spans of one broken run, one line at
  a time; latency from the line after which the Fail is certain;
- time windows (`--reorder-window 200ms --idleness 200ms`, timestamps), then nothing: a second
  `clt1!begin`, which no later event can make readable, is a Fail at once although its window
  holds it; a `clt1!pub` first (a `clt1!begin` may still come before it) waits for the
  watermark, which moves with the wall clock after the idleness: the Fail comes after the
  window and the idleness (400 ms by design), not after more traffic.

Prints one line per scenario: the count, median, p99 and max in ms. Run it with nothing else
running (2 cores).
"""
import json, random, statistics, subprocess, sys, time
from pathlib import Path

binary, mqtt, checkout, out = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
runs = int(sys.argv[5]) if len(sys.argv) > 5 else 200
out.mkdir(parents=True, exist_ok=True)


def follow(model, path, *args):
    path.write_text("")
    p = subprocess.Popen([binary, "monitor", model, str(path), "--format", "jsonl", *args],
                         stdout=subprocess.PIPE, text=True, bufsize=1)
    time.sleep(0.5)
    return p


def report(name, lat):
    lat.sort()
    p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
    print(f"{name}: {len(lat)} runs, median {statistics.median(lat):.1f} ms, p99 {p99:.1f} ms, "
          f"max {lat[-1]:.1f} ms", flush=True)


def events(name, order_of, args=()):
    path = out / f"{name}.jsonl"
    p = follow(mqtt, path, *args)
    lat = []
    with open(path, "a") as f:
        for i in range(runs):
            first, deciding = order_of(i)
            f.write(json.dumps(first) + "\n"); f.flush()
            # A random pause: the write falls anywhere in the monitor's polling cycle.
            time.sleep(random.uniform(0.005, 0.03))
            t0 = time.perf_counter()
            f.write(json.dumps(deciding) + "\n"); f.flush()
            r = json.loads(p.stdout.readline())
            lat.append((time.perf_counter() - t0) * 1e3)
            assert r["id"] == f"s{i}" and r["verdict"] == "Fail", r
            time.sleep(0.02)
    p.terminate(); p.wait()
    report(name, lat)


ev = lambda i, k: {"run": f"s{i}", "action": "clt1!begin", "order": k}
events("in order", lambda i: (ev(i, 0), ev(i, 1)))
events("positions, out of order", lambda i: (ev(i, 1), ev(i, 0)))

# OpenTelemetry: the checkout example's spans, one span per line.
spans = out / "otel-src"
subprocess.run([sys.executable, str(Path(checkout).parent / "app.py"), str(spans), "--batch", "1",
                "--runs", str(4 * min(runs, 50))], check=True)
scenario = json.loads((spans / "runs.json").read_text())
by_trace = {}
for line in (spans / "spans.jsonl").read_text().splitlines():
    tid = json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
    by_trace.setdefault(tid, []).append(line)
path = out / "otel.jsonl"
p = follow(checkout, path, "--otel")
lat = []
import select
with open(path, "a") as f:
    for tid, s in scenario.items():
        if s != "late-publish":
            continue
        got = None
        for line in by_trace[tid]:
            t0 = time.perf_counter()
            f.write(line + "\n"); f.flush()
            ready, _, _ = select.select([p.stdout], [], [], 0.3)
            if ready:
                got = json.loads(p.stdout.readline())
                lat.append((time.perf_counter() - t0) * 1e3)
                break
        assert got and got["id"] == tid and got["verdict"] == "Fail", got
        time.sleep(0.02)
p.terminate(); p.wait()
report("otel parents, batches of one span", lat)

# Time windows (`--reorder-window 200ms --idleness 200ms`, timestamps), then nothing.
base = 1_700_000_000
def window(name, events_of):
    path = out / f"{name}.jsonl"
    p = follow(mqtt, path, "--reorder-window", "200ms", "--idleness", "200ms")
    lat = []
    with open(path, "a") as f:
        for i in range(min(runs, 20)):
            t = lambda s: time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(base + 10 * i + s)) + "Z"
            *before, deciding = events_of(i, t)
            for e in before:
                f.write(json.dumps(e) + "\n")
            t0 = time.perf_counter()
            f.write(json.dumps(deciding) + "\n"); f.flush()
            r = json.loads(p.stdout.readline())
            lat.append((time.perf_counter() - t0) * 1e3)
            assert r["id"] == f"s{i}" and r["verdict"] == "Fail", r
    p.terminate(); p.wait()
    return lat
# A second `clt1!begin`: no event that may still come can make it readable, so it is fed at
# once (a held event never stops a certain Fail).
report("window, a Fail certain at once (held event never readable)",
       window("certain", lambda i, t: [{"run": f"s{i}", "action": "clt1!begin", "order": t(0)},
                                       {"run": f"s{i}", "action": "clt1!begin", "order": t(1)}]))
# `clt1!pub` first: a `clt1!begin` may still come before it, so it waits for the watermark,
# which moves with the wall clock after the idleness: the Fail comes after the window and the
# idleness (400 ms by design), without more traffic.
report("watermark, quiet after the run (window 200 ms, idleness 200 ms)",
       window("quiet", lambda i, t: [{"run": f"s{i}", "action": "clt1!pub", "order": t(0)}]))
