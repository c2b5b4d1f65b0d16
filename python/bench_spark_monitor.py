"""Throughput and latency of multitrace.spark.monitor_events (Spark Structured Streaming).

Generates runs of the MQTT fixture, writes their events (event-time timestamps) into FILES
JSON files, streams them with one file per micro-batch into monitor_events, and reports:

- events per second: input rows over the micro-batches' trigger times (Spark's own progress
  reports, ``durationMs.triggerExecution``), and over the wall time of the whole stream;
- micro-batch-to-record latency: the median (and largest) trigger time of the data batches, the
  time from a micro-batch's start to its records being committed to the sink; and, for the
  last file, the time from the file's arrival in the source directory to the first record it
  causes being readable in the sink (the trigger interval included).

    target/py-venv/bin/python python/bench_spark_monitor.py --runs 20000 --files 8
"""

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

# The installed package, not the source tree beside this script (it has no built extension).
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)

import multitrace  # noqa: E402
from multitrace import spark as mts  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=20000)
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--master", default="local[2]")
    a = ap.parse_args()

    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    model = multitrace.compile(str(ROOT / "fixtures" / "seed004-mqtt" / "model.hif"))
    per = a.runs // 4
    runs = []
    for k in ("pass", "local-error", "inter-error", "prefix"):
        for it in model.generate(k, count=per, length=(10, 40), seed=1):
            runs.append((f"r{len(runs)}", it["traces"]))
    rng = random.Random(1)
    ev = []
    base = 1_700_000_000
    span = 600  # seconds of event time over which the runs start
    for rid, traces in runs:
        t0 = base + rng.random() * span
        for acts in traces.values():
            t = t0
            for act in acts:
                t += 0.5 + rng.random()
                ev.append((rid, act, round(t, 3)))
    ev.sort(key=lambda e: e[2])
    tmp = Path(tempfile.mkdtemp(prefix="mt-spark-monitor-"))
    src, out, ckpt = tmp / "in", tmp / "out", tmp / "ckpt"
    src.mkdir()
    size = -(-len(ev) // a.files)
    chunks = [ev[i:i + size] for i in range(0, len(ev), size)]
    chunks[-1].append(("sentinel", model.alphabet[0], float(base + 10 * span)))

    def write(i):
        p = src / f".{i}.tmp"
        with p.open("w") as f:
            for r, act, t in chunks[i]:
                f.write(json.dumps({"run": r, "action": act, "ts": t}) + "\n")
        # Modification times order the files for the source (one per micro-batch).
        os.utime(p, (1_600_000_000 + i, 1_600_000_000 + i))
        p.rename(src / f"{i:04d}.json")  # atomically visible to the source

    spark = (SparkSession.builder.master(a.master).appName("bench-monitor")
             .config("spark.sql.shuffle.partitions", "4").config("spark.ui.enabled", "false")
             .config("spark.driver.memory", "2g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    for i in range(len(chunks) - 1):
        write(i)
    stream = (spark.readStream.schema("run string, action string, ts double")
              .option("maxFilesPerTrigger", 1).json(str(src))
              .withColumn("ts", F.timestamp_micros((F.col("ts") * 1e6).cast("long"))))
    recs = mts.monitor_events(stream, model, order="ts", idle_timeout="30 seconds",
                              watermark="60 seconds")
    started = time.time()
    q = (recs.writeStream.format("json").option("path", str(out))
         .option("checkpointLocation", str(ckpt)).trigger(processingTime="200 milliseconds").start())
    q.processAllAvailable()
    # The last file: from its arrival to its first record readable in the sink.
    before = spark.read.schema(mts.MONITOR_SCHEMA).json(str(out)).count()
    arrived = time.time()
    write(len(chunks) - 1)
    latency = None
    while time.time() - arrived < 300:
        n = spark.read.schema(mts.MONITOR_SCHEMA).json(str(out)).count()
        if n > before:
            latency = time.time() - arrived
            break
        time.sleep(0.05)
    deadline = time.time() + 600
    while time.time() < deadline:
        q.processAllAvailable()
        n = spark.read.schema(mts.MONITOR_SCHEMA).json(str(out)).count()
        if n >= len(runs):
            break
        time.sleep(0.5)
    wall = time.time() - started
    progress = [p for p in q.recentProgress if p["numInputRows"] > 0]
    q.stop()
    rows = sum(p["numInputRows"] for p in progress)
    trig = [p["durationMs"]["triggerExecution"] for p in progress]
    print(f"runs {len(runs)}, events {len(ev) + 1}, files (micro-batches with data) {len(progress)}, "
          f"records {n}, master {a.master}, load {open('/proc/loadavg').read().split()[:3]}")
    print(f"events/s over trigger time: {rows / (sum(trig) / 1000):,.0f}")
    print(f"events/s over the stream's wall time (incl. the timeout batches): {(len(ev) + 1) / wall:,.0f}")
    print(f"micro-batch trigger time: median {statistics.median(trig):.0f} ms, max {max(trig):.0f} ms "
          f"({statistics.median(r / 1 for r in [p['numInputRows'] for p in progress]):.0f} events per batch)")
    print(f"file arrival to first record: {latency:.2f} s" if latency else "no record from the last file")
    spark.stop()


if __name__ == "__main__":
    main()
