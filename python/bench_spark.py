"""Runs per second of event-log checking: the CLI (`check --events`), `check_many`, and
multitrace.spark on local[1] and local[2]; shuffle bytes of the semi-centralized job against the
centralized one (from Spark's REST API: shuffle write of every stage of the job).

    target/py-venv/bin/python python/bench_spark.py --count 100000 --length 10..40

The events are written once: JSON Lines for the CLI, and Parquet files for Spark, one file per
(location, run bucket), as hosts would hold their logs: every (run, location)'s events are in one
file, so `check_events_semi(placed=True)` shuffles only the summaries.
"""

import argparse
import json
import os
import random
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=str(ROOT / "fixtures/seed004-mqtt/model.hif"))
    ap.add_argument("--count", type=int, default=100_000)
    ap.add_argument("--length", default="10..40")
    ap.add_argument("--cores", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--buckets", type=int, default=4)
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
    for jobs in args.cores:
        t = time.perf_counter()
        subprocess.run([str(cli), "check", args.model, "--events", str(ej), "--format", "jsonl",
                        "--jobs", str(jobs), "--no-progress"], stdout=subprocess.DEVNULL, check=False)
        rows.append((f"CLI `check --events` --jobs {jobs}", n / (time.perf_counter() - t), ""))
        print(rows[-1], flush=True)
    items = [t for _, t in runs]
    for jobs in args.cores:
        t = time.perf_counter()
        for _ in model.check_many(items, jobs=jobs):
            pass
        rows.append((f"check_many jobs={jobs} (multitraces in memory)", n / (time.perf_counter() - t), ""))
        print(rows[-1], flush=True)

    from pyspark.sql import SparkSession
    from multitrace import spark as mts

    for cores in args.cores:
        spark = (SparkSession.builder.master(f"local[{cores}]").appName("multitrace-bench")
                 .config("spark.sql.shuffle.partitions", str(4 * cores))
                 .config("spark.ui.showConsoleProgress", "false")
                 .config("spark.driver.memory", "3g").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        df = spark.read.parquet(str(pdir))
        # Warm-up: Python workers started, the model loaded.
        mts.check_events(df.limit(1000), model).write.format("noop").mode("overwrite").save()
        for name, fn in (("check_events", lambda: mts.check_events(df, model)),
                         ("check_events_semi (placed)", lambda: mts.check_events_semi(df, model, placed=True))):
            before = shuffle_bytes(spark)
            t = time.perf_counter()
            fn().write.format("noop").mode("overwrite").save()
            dt = time.perf_counter() - t
            sb = shuffle_bytes(spark) - before
            rows.append((f"Spark local[{cores}] {name}", n / dt, f"{sb / 1e6:.1f} MB"))
            print(rows[-1], flush=True)
        spark.stop()
    print()
    print("| job | runs/s | shuffle written |")
    print("|---|---|---|")
    for name, rate, sb in rows:
        print(f"| {name} | {rate:,.0f} | {sb} |")


if __name__ == "__main__":
    main()
