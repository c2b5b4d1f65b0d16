"""Spark: the time of `check_events` on 80 runs against its number of partitions.

    PYSPARK_PYTHON=target/py-venv/bin/python target/py-venv/bin/python benches/scaling/spark_partitions.py [CORES]

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
    t = time.perf_counter()
    n = mts.check_events(df, model, mode="complete", partitions=parts).count()
    return time.perf_counter() - t, n
job(None)  # warm-up
print(f"local[{cores}], {len(rows)} events, 80 runs, load {os.getloadavg()[0]:.1f}")
for parts in (None, 200, 16, 4, 2, 1):
    ts = [job(parts) for _ in range(3)]
    print(f"partitions={parts or 'default ' + spark.conf.get('spark.sql.shuffle.partitions')}: "
          f"min {min(t for t, _ in ts):.3f} s, runs {ts[0][1]}, load {os.getloadavg()[0]:.1f}")
spark.stop()
