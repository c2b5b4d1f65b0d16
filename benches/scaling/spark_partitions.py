"""Spark: the time of `check_events` on 80 runs against its number of partitions.

    PYSPARK_PYTHON=target/py-venv/bin/python target/py-venv/bin/python benches/scaling/spark_partitions.py [CORES] [PARTITIONS,...]

PARTITIONS: the partition counts to time (default 200,16,4,2,1; the default count is timed first).
The Python workers' CPU time per job is printed too (the processes under this one that are not
Java): what each partition costs the workers whatever the load.

Needs the package with its spark extra in that Python (python/test.sh installs it) and Java 17.
Each job is timed three times (least wall time counts) after a warm-up job, on one cached
DataFrame of the events of 80 MQTT runs (benches/data/events.py, pass and local-error).
"""
import json, os, subprocess, sys, tempfile, time
from pyspark.sql import SparkSession
import multitrace, multitrace.spark as mts

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
B = f"{ROOT}/target/release/multitrace"
M = f"{ROOT}/fixtures/seed004-mqtt/model.hif"
cores = int(sys.argv[1]) if len(sys.argv) > 1 else 2
counts = [int(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else [200, 16, 4, 2, 1]


def workers_cpu():
    """CPU seconds of the Python processes started under this one (Spark's Python workers)."""
    tick, kids = os.sysconf("SC_CLK_TCK"), {}
    for p in filter(str.isdigit, os.listdir("/proc")):
        try:
            st = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
            comm = open(f"/proc/{p}/comm").read().strip()
        except (OSError, ValueError):
            continue
        kids.setdefault(int(st[1]), []).append((int(p), (int(st[11]) + int(st[12])) / tick, comm))
    total, stack = 0.0, [os.getpid()]
    while stack:
        for pid, t, comm in kids.get(stack.pop(), []):
            total += t if comm.startswith("python") else 0.0
            stack.append(pid)
    return total
d = tempfile.mkdtemp()
subprocess.run([sys.executable, f"{ROOT}/benches/data/events.py", M, f"{d}/ev.jsonl", "--runs", "80",
                "--kinds", "pass,local-error", "--bin", B], check=True, stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL)
rows = [json.loads(l) for l in open(f"{d}/ev.jsonl")]
spark = (SparkSession.builder.master(f"local[{cores}]").config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .config("spark.sql.execution.arrow.pyspark.enabled", "true").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
df = spark.createDataFrame([(r["run"], r["action"], int(r["order"])) for r in rows], "run string, action string, order long").cache()
df.count()
model = multitrace.compile(M)
def job(parts):
    c, t = workers_cpu(), time.perf_counter()
    n = mts.check_events(df, model, mode="complete", partitions=parts).count()
    return time.perf_counter() - t, n, workers_cpu() - c
job(None)  # warm-up
print(f"local[{cores}], {len(rows)} events, 80 runs, load {os.getloadavg()[0]:.1f}")
for parts in [None, *counts]:
    ts = [job(parts) for _ in range(3)]
    print(f"partitions={parts or 'default ' + str(mts._partitions(df, None))}: "
          f"min {min(t for t, _, _ in ts):.3f} s, workers' CPU median "
          f"{sorted(c for _, _, c in ts)[1]:.2f} s, runs {ts[0][1]}, load {os.getloadavg()[0]:.1f}")
spark.stop()
