#!/usr/bin/env bash
# The Spark figures of docs/spark.md, in one command:
#
#   bash benches/spark/run.sh            # streaming (monitor_events) and the batch job
#   BATCH=0 bash benches/spark/run.sh    # streaming only
#   BUILD=0 ...                          # keep the package already installed in the venv
#   RUNS=2000 LENGTH=20..100 FILES=4     # the streamed events (defaults of docs/spark.md)
#
# 1. Events of the MQTT fixture from benches/data/events.py (RUNS runs of LENGTH actions,
#    interleaved across runs as they would arrive), streamed through
#    multitrace.spark.monitor_events on local[1] and local[2] (benches/spark/monitor.py):
#    events/s, the micro-batch-to-records latency, and `multitrace monitor` on the same events
#    (the Spark-to-CLI ratio, and whether every verdict agrees).
# 2. With BATCH=1 (the default), the 100,000-run batch benchmark (python/bench_spark.py):
#    `check --events` and check_events on local[1] and local[2].
#
# Uses (and makes, like python/test.sh) the virtual environment target/py-venv with pyspark,
# pyarrow, pandas and the package built from python/; Java 17. The machine's load is printed:
# ratios between local[1] and local[2] mean something only when two cores are free.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
venv="${MULTITRACE_VENV:-$root/target/py-venv}"
runs="${RUNS:-2000}"
length="${LENGTH:-20..100}"
files="${FILES:-4}"
batch="${BATCH:-1}"

if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
export PATH="$venv/bin:$PATH" VIRTUAL_ENV="$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check --quiet)
if ! "$venv/bin/python" -c 'import maturin, pyspark, pyarrow, pandas' 2>/dev/null; then
    "${pip[@]}" install 'maturin>=1.5,<2' 'pyspark>=3.5,<4.1' 'pyarrow>=12' 'pandas>=1.5'
fi
cargo build --release --locked --bin multitrace
if [ "${BUILD:-1}" = 1 ] || ! "$venv/bin/python" -c 'import multitrace._native' 2>/dev/null; then
    "${pip[@]}" install --no-build-isolation --force-reinstall --no-deps ./python
fi
export PYSPARK_PYTHON="$venv/bin/python" PYSPARK_DRIVER_PYTHON="$venv/bin/python"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$venv/bin/python" benches/data/events.py fixtures/seed004-mqtt/model.hif "$tmp/events.jsonl" \
    --runs "$runs" --length "$length" --active 500 --bin target/release/multitrace
for master in 'local[1]' 'local[2]'; do
    "$venv/bin/python" benches/spark/monitor.py "$tmp/events.jsonl" --master "$master" --files "$files"
done
if [ "$batch" = 1 ]; then
    echo "load before the batch benchmark: $(cut -d' ' -f1-3 /proc/loadavg)"
    "$venv/bin/python" python/bench_spark.py --count "${BATCH_RUNS:-100000}" --length 10..40
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
