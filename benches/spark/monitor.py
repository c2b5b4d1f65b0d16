"""Throughput and latency of multitrace.spark.monitor_events (Spark Structured Streaming),
against `multitrace monitor` on the same events.

Reads an events file of benches/data/events.py (JSON Lines: run, action, order = position in
the location), gives each event an event time (`--step-ms` apart, in arrival order, so that
each location's events stay in order), cuts it into FILES JSON files, streams them with one file
per micro-batch into monitor_events (a JSON file sink with a checkpoint), and prints one JSON
line:

- ``events_per_s``: input rows over the data micro-batches' trigger times (Spark's progress
  reports, ``durationMs.triggerExecution``); ``events_per_s_wall``: all events over the wall
  time of the stream until every run has its record (the data-less timeout batches included);
- ``batch_ms_median``: the median trigger time of the data micro-batches, i.e. from a
  micro-batch's start to its records committed to the sink (the latency from a micro-batch to
  its records); ``arrival_to_record_s``: the last file's arrival in the source directory to its
  first record readable in the sink (the trigger interval included);
- ``cli_s``: wall time of `multitrace monitor MODEL EVENTS --no-follow` on the same events, and
  ``agree``: whether every run's verdict is the command's.

    target/py-venv/bin/python benches/spark/monitor.py EVENTS.jsonl --master 'local[2]'
"""

import argparse
import inspect
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)

import multitrace  # noqa: E402
from multitrace import spark as mts  # noqa: E402

BASE = 1_700_000_000.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("events")
    ap.add_argument("--model", default=str(ROOT / "fixtures" / "seed004-mqtt" / "model.hif"))
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--buckets", type=int, default=64)
    ap.add_argument("--partitions", type=int, default=None,
                    help="spark.sql.shuffle.partitions (default: the master's cores)")
    ap.add_argument("--step-ms", type=float, default=1.0)
    ap.add_argument("--bin", default=str(ROOT / "target" / "release" / "multitrace"))
    a = ap.parse_args()

    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    model = multitrace.compile(a.model)
    with open(a.events) as f:
        ev = [json.loads(line) for line in f]
    runs = {e["run"] for e in ev}
    tmp = Path(tempfile.mkdtemp(prefix="mt-spark-monitor-"))
    src, out, ckpt = tmp / "in", tmp / "out", tmp / "ckpt"
    src.mkdir()
    size = -(-len(ev) // a.files)
    chunks = [ev[i:i + size] for i in range(0, len(ev), size)]
    # A last event far later than every run: the watermark passes them all.
    last_t = BASE + len(ev) * a.step_ms / 1000
    chunks[-1].append({"run": "sentinel", "action": model.alphabet[0], "order": 0})

    def write(i):
        p = src / f".{i}.tmp"
        first = sum(len(c) for c in chunks[:i])
        with p.open("w") as f:
            for j, e in enumerate(chunks[i], first):
                t = BASE + j * a.step_ms / 1000 if e["run"] != "sentinel" else last_t + 3600
                f.write(json.dumps({"run": e["run"], "action": e["action"], "ts": round(t, 6)}) + "\n")
        os.utime(p, (1_600_000_000 + i, 1_600_000_000 + i))
        p.rename(src / f"{i:04d}.json")  # atomically visible to the source

    cores = a.master.split("[")[1].rstrip("]") if "[" in a.master else "2"
    partitions = a.partitions or (os.cpu_count() if cores == "*" else int(cores))
    spark = (SparkSession.builder.master(a.master).appName("bench-monitor")
             .config("spark.sql.shuffle.partitions", str(partitions)).config("spark.ui.enabled", "false")
             .config("spark.driver.memory", "2g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    for i in range(len(chunks) - 1):
        write(i)
    stream = (spark.readStream.schema("run string, action string, ts double")
              .option("maxFilesPerTrigger", 1).json(str(src))
              .withColumn("ts", F.timestamp_micros((F.col("ts") * 1e6).cast("long"))))
    # (An earlier monitor_events, one group per run, has no buckets: to measure it too.)
    kw = {"buckets": a.buckets} if "buckets" in inspect.signature(mts.monitor_events).parameters else {}
    recs = mts.monitor_events(stream, model, order="ts", idle_timeout="30 seconds",
                              watermark="60 seconds", **kw)
    started = time.time()
    q = (recs.writeStream.format("json").option("path", str(out))
         .option("checkpointLocation", str(ckpt)).trigger(processingTime="200 milliseconds").start())
    q.processAllAvailable()

    def count():
        try:
            return spark.read.schema(mts.MONITOR_SCHEMA).json(str(out)).count()
        except Exception:  # noqa: BLE001 (no output yet)
            return 0

    before = count()
    arrived = time.time()
    write(len(chunks) - 1)
    latency = None
    while time.time() - arrived < 300:
        if count() > before:
            latency = time.time() - arrived
            break
        time.sleep(0.05)
    deadline = time.time() + 900
    n = 0
    while time.time() < deadline:
        q.processAllAvailable()
        n = count()
        if n >= len(runs):
            break
        time.sleep(0.5)
    wall = time.time() - started
    progress = [p for p in q.recentProgress if p["numInputRows"] > 0]
    q.stop()
    got = {r.run: r.verdict for r in spark.read.schema(mts.MONITOR_SCHEMA).json(str(out)).collect()}
    spark.stop()
    rows = sum(p["numInputRows"] for p in progress)
    trig = [p["durationMs"]["triggerExecution"] for p in progress]

    t0 = time.time()
    cli = subprocess.run([a.bin, "monitor", a.model, a.events, "--no-follow", "--format", "jsonl"],
                         capture_output=True, text=True)
    cli_s = time.time() - t0
    want = {}
    for line in cli.stdout.splitlines():
        r = json.loads(line)
        want[r["id"]] = r["verdict"]
    print(json.dumps({
        "master": a.master, "partitions": partitions, "buckets": kw.get("buckets", "one per run"),
        "runs": len(runs), "events": len(ev) + 1, "records": n, "data_batches": len(progress),
        "events_per_s": round(rows / (sum(trig) / 1000)),
        "events_per_s_wall": round((len(ev) + 1) / wall),
        "batch_ms_median": statistics.median(trig), "batch_ms_max": max(trig),
        "arrival_to_record_s": None if latency is None else round(latency, 2),
        # Where a data micro-batch's time goes (Spark's progress reports, medians in ms):
        # addBatch is the job (read, shuffle, the stateful operator, the sink).
        "batch_parts_ms": {k: statistics.median(p["durationMs"].get(k, 0) for p in progress)
                           for k in sorted(progress[0]["durationMs"]) if k != "triggerExecution"},
        "spark_s": round(sum(trig) / 1000, 2), "cli_s": round(cli_s, 3),
        "spark_to_cli": round(sum(trig) / 1000 / cli_s, 1),
        "agree": all(got.get(k) == v for k, v in want.items()) and len(want) == len(runs),
        "load": open("/proc/loadavg").read().split()[:3],
    }))


if __name__ == "__main__":
    main()
