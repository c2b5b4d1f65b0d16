"""Runs per second of event-log checking: the CLI (`check --events`), `check_many`, and
multitrace.spark on local[1] and local[2]; shuffle bytes of the semi-centralized job against the
centralized one (from Spark's REST API: shuffle write of every stage of the job).

    target/py-venv/bin/python python/bench_spark.py --count 100000 --length 10..40

The events are written once: JSON Lines for the CLI, and Parquet files for Spark, one file per
(location, run bucket), as hosts would hold their logs: every (run, location)'s events are in one
file, so `check_events_semi(placed=True)` shuffles only the summaries.

Each job is timed `--repeat` times (median reported) after a warm-up job, and the ratio of the
two core counts is printed beside the same ratio for `check_many` (two threads sharing nothing:
what two threads get from the machine at that moment). For every Spark job, where its wall time
went (from Spark's REST API): the driver before the first stage (planning), each stage (tasks,
the shortest and longest task) and the rest (the last stage's end to the job's return).

The input is read with `spark.sql.files.minPartitionNum` = 4 x cores (`--splits-per-core`): Spark packs small files
into about `minPartitionNum` splits, largest first, and with its default (the cores) the twelve
files of unequal size (the broker's logs hold half the events) became two splits of 73 % and
27 % of the events on `local[2]`, so one core read alone for a third of the first stage.
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
# The installed package, not the source tree beside this script (it has no built extension).
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import multitrace  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def shuffle_bytes(spark) -> int:
    """Shuffle bytes written by every stage so far."""
    sc = spark.sparkContext
    url = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}/stages"
    with urllib.request.urlopen(url) as r:
        stages = json.load(r)
    return sum(s.get("shuffleWriteBytes", 0) for s in stages)


def _api(spark, path: str):
    sc = spark.sparkContext
    with urllib.request.urlopen(f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}/{path}") as r:
        return json.load(r)


def _instant(s: str) -> float:
    from datetime import datetime, timezone

    return datetime.strptime(s[:23], "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=timezone.utc).timestamp()


def stage_times(spark, seen: set, t0: float, t1: float) -> str:
    """Where a job's wall time (t0 to t1, epoch seconds) went: the stages not in `seen`."""
    parts = []
    stages = sorted((s for s in _api(spark, "stages") if s["stageId"] not in seen and s.get("status") == "COMPLETE"),
                    key=lambda s: s["stageId"])
    end = t0
    for s in stages:
        sub, done = _instant(s["submissionTime"]), _instant(s["completionTime"])
        if not parts:
            parts.append(f"driver {sub - t0:.2f} s")
        tasks = _api(spark, f"stages/{s['stageId']}/{s['attemptId']}/taskList?length=10000")
        d = sorted(t["duration"] / 1000 for t in tasks)
        parts.append(f"stage {s['stageId']} ({s['numTasks']} tasks) {done - sub:.2f} s, tasks {d[0]:.2f}-{d[-1]:.2f} s")
        end = done
    parts.append(f"after {t1 - end:.2f} s")
    return "; ".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=str(ROOT / "fixtures/seed004-mqtt/model.hif"))
    ap.add_argument("--count", type=int, default=100_000)
    ap.add_argument("--length", default="10..40")
    ap.add_argument("--cores", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--buckets", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of each job (median reported)")
    ap.add_argument("--splits-per-core", type=int, default=4,
                    help="spark.sql.files.minPartitionNum = this x cores (0: Spark's default, the cores)")
    args = ap.parse_args()
    lo, hi = map(int, args.length.split(".."))
    model = multitrace.compile(args.model)
    kinds = ["pass", "local-error", "inter-error", "prefix"]
    per = args.count // len(kinds) + 1
    runs = []
    for k in kinds:
        for it in model.generate(k, count=per, length=(lo, hi), seed=3):
            if any(it["traces"].values()):
                runs.append((f"r{len(runs)}", it["traces"]))
    runs = runs[: args.count]
    n = len(runs)
    names = list(model.alphabet)
    locs = dict(zip(names, multitrace._native._action_locations(model, names)))
    tmp = Path(tempfile.mkdtemp(prefix="mt-bench-spark-"))
    events = []
    rng = random.Random(1)
    for rid, traces in runs:
        for acts in traces.values():
            for i, a in enumerate(acts):
                events.append((rid, a, i))
    rng.shuffle(events)
    print(f"{n} runs, {len(events)} events, model {args.model}", flush=True)
    ej = tmp / "events.jsonl"
    with ej.open("w") as f:
        for r, a, o in events:
            f.write(json.dumps({"run": r, "action": a, "order": o}) + "\n")
    import pyarrow as pa
    import pyarrow.parquet as pq

    pdir = tmp / "parquet"
    pdir.mkdir()
    files = {}
    for r, a, o in events:
        key = (locs[a], hash(r) % args.buckets)
        files.setdefault(key, ([], [], []))
        c = files[key]
        c[0].append(r)
        c[1].append(a)
        c[2].append(o)
    for (k, b), (r, a, o) in files.items():
        t = pa.table({"run": r, "action": a, "order": pa.array(o, pa.int64())})
        pq.write_table(t, pdir / f"loc{k}-b{b}.parquet")
    rows = []

    cli = ROOT / "target/release/multitrace"
    rate = {}

    def timed(fn) -> float:
        """Runs per second: the median of `--repeat` runs of fn."""
        ts = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t)
        return n / statistics.median(ts)

    for jobs in args.cores:
        r = timed(lambda: subprocess.run([str(cli), "check", args.model, "--events", str(ej), "--format", "jsonl",
                                          "--jobs", str(jobs), "--no-progress"], stdout=subprocess.DEVNULL,
                                         check=False))
        rate[("CLI", jobs)] = r
        rows.append((f"CLI `check --events` --jobs {jobs}", r, ""))
        print(rows[-1], flush=True)
    items = [t for _, t in runs]
    for jobs in args.cores:
        r = timed(lambda: [None for _ in model.check_many(items, jobs=jobs)])
        rate[("check_many", jobs)] = r
        rows.append((f"check_many jobs={jobs} (multitraces in memory)", r, ""))
        print(rows[-1], flush=True)

    from pyspark.sql import SparkSession
    from multitrace import spark as mts

    for cores in args.cores:
        spark = (SparkSession.builder.master(f"local[{cores}]").appName("multitrace-bench")
                 .config("spark.sql.shuffle.partitions", str(4 * cores))
                 .config("spark.sql.files.minPartitionNum", str(max(1, args.splits_per_core) * cores)
                         if args.splits_per_core else str(cores))
                 .config("spark.ui.showConsoleProgress", "false")
                 .config("spark.driver.memory", "3g").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        df = spark.read.parquet(str(pdir))
        print(f"local[{cores}]: input partitions {df.rdd.getNumPartitions()}, load "
              f"{' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
        # Warm-up: Python workers started, the model loaded.
        mts.check_events(df.limit(1000), model).write.format("noop").mode("overwrite").save()
        for name, fn in (("check_events", lambda: mts.check_events(df, model)),
                         ("check_events_semi (placed)", lambda: mts.check_events_semi(df, model, placed=True))):
            runs_s, shuffled = [], 0
            for _ in range(args.repeat):
                seen = {s["stageId"] for s in _api(spark, "stages")}
                before = shuffle_bytes(spark)
                t0, t = time.time(), time.perf_counter()
                fn().write.format("noop").mode("overwrite").save()
                dt = time.perf_counter() - t
                shuffled = shuffle_bytes(spark) - before
                runs_s.append(dt)
                print(f"  local[{cores}] {name}: {dt:.2f} s: {stage_times(spark, seen, t0, t0 + dt)}", flush=True)
            r = n / statistics.median(runs_s)
            rate[(name, cores)] = r
            rows.append((f"Spark local[{cores}] {name}", r, f"{shuffled / 1e6:.1f} MB"))
            print(rows[-1], flush=True)
        spark.stop()
    print()
    print("| job | runs/s | shuffle written |")
    print("|---|---|---|")
    for name, r, sb in rows:
        print(f"| {name} | {r:,.0f} | {sb} |")
    if len(args.cores) == 2:
        a, b = args.cores
        print()
        print(f"| job | {b} / {a} cores |")
        print("|---|---:|")
        for name in ("CLI", "check_many", "check_events", "check_events_semi (placed)"):
            if (name, a) in rate and (name, b) in rate:
                print(f"| {name} | {rate[(name, b)] / rate[(name, a)]:.2f}x |")
    print(f"load after: {' '.join(open('/proc/loadavg').read().split()[:3])}")


if __name__ == "__main__":
    main()
