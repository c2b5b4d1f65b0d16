"""multitrace.spark.monitor_events on Spark Structured Streaming in local mode (local[2]): a
file source fed in a few micro-batches (runs spanning batches, events arriving late and out of
order across batches, a restart from the checkpoint location) gives one record per run, the batch
verdict of the run (Model.check_many of its multitrace). MQTT fixture, and AutomatArk Bakery
when ../shared/data is present; the default 64 buckets of runs, and 3 (dozens of runs per
bucket state); a restart with another bucket count is refused.

Skipped when pyspark or pyarrow is missing (``python/test.sh`` installs them); slow (a
streaming query per test), so kept to a few hundred runs and four micro-batches.
"""

import json
import os
import random
import sys
import time

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)

import multitrace  # noqa: E402
from multitrace import spark as mts  # noqa: E402

from test_spark import LOC, runs_of, spark  # noqa: E402,F401 (the module's Spark session)

BASE = 1_700_000_000  # seconds: the runs' event times start here


def timed_events(runs, rng):
    """(run, action, event time in seconds): each run starts at a random second of the first
    minute; a location's events are a second or two apart (their order); rows shuffled."""
    ev = []
    for rid, traces in runs:
        start = BASE + rng.randrange(60)
        for acts in traces.values():
            t = start
            for a in acts:
                t += 1 + rng.random()
                ev.append((rid, a, round(t, 3)))
    rng.shuffle(ev)
    return ev


def split_batches(ev, n, rng):
    """Events cut into ``n`` files by event time, then a tenth of them moved to the next file
    (late, out of order: the location's newer events came first)."""
    ev = sorted(ev, key=lambda e: e[2])
    size = -(-len(ev) // n)
    files = [ev[i:i + size] for i in range(0, len(ev), size)]
    for i in range(len(files) - 1):
        late = [e for e in files[i] if rng.random() < 0.1]
        files[i] = [e for e in files[i] if e not in late]
        files[i + 1] = late + files[i + 1]
    return files


def write(path, rows, i):
    """File ``i`` of the source: its modification time orders it (the file source takes files
    by modification time, one per micro-batch here)."""
    with open(path, "w") as f:
        for r, a, t in rows:
            f.write(json.dumps({"run": r, "action": a, "ts": t}) + "\n")
    os.utime(path, (1_600_000_000 + i, 1_600_000_000 + i))


def start(spark, model, src, out, ckpt, **kw):
    from pyspark.sql import functions as F

    stream = (spark.readStream.schema("run string, action string, ts double")
              .option("maxFilesPerTrigger", 1).json(str(src))
              .withColumn("ts", F.timestamp_micros((F.col("ts") * 1e6).cast("long"))))
    records = mts.monitor_events(stream, model, order="ts", idle_timeout="20 seconds",
                                 watermark="60 seconds", **kw)
    return (records.writeStream.format("json").option("path", str(out))
            .option("checkpointLocation", str(ckpt)).start())


def read_records(spark, out):
    try:
        return spark.read.schema(mts.MONITOR_SCHEMA).json(str(out)).collect()
    except Exception:  # noqa: BLE001 (no output yet)
        return []


def wait_for(spark, query, out, count, timeout=120):
    """The records once ``count`` of them are out (timeouts fire in a later, data-less batch)."""
    deadline = time.time() + timeout
    while True:
        query.processAllAvailable()
        rows = read_records(spark, out)
        if len(rows) >= count or time.time() > deadline:
            return rows
        time.sleep(1)


def batch_verdicts(model, runs, mode="prefix"):
    items = [{"id": rid, "traces": t} for rid, t in runs]
    return {r.id: (r.verdict, r.reason) for r in model.check_many(items, mode=mode)}


def check_stream(spark, model, runs, tmp, seed, **kw):
    rng = random.Random(seed)
    files = split_batches(timed_events(runs, rng), 4, rng)
    # A last file with an event far later than every run: the watermark passes them all, so
    # every run times out (the sentinel run stays live).
    files.append([("sentinel", model.alphabet[0], float(BASE + 100_000))])
    src, out, ckpt = tmp / "in", tmp / "out", tmp / "ckpt"
    src.mkdir()
    for i, rows in enumerate(files[:2]):
        write(src / f"{i}.json", rows, i)
    q = start(spark, model, src, out, ckpt, **kw)
    try:
        q.processAllAvailable()
    finally:
        q.stop()
    first = read_records(spark, out)
    # Restart from the checkpoint with the rest of the input.
    for i, rows in enumerate(files[2:], 2):
        write(src / f"{i}.json", rows, i)
    q = start(spark, model, src, out, ckpt, **kw)
    try:
        rows = wait_for(spark, q, out, len(runs))
    finally:
        q.stop()
    ids = [r.run for r in rows]
    assert len(ids) == len(set(ids)), "one record per run, none duplicated by the restart"
    assert set(r.run for r in first) <= set(ids)
    want = batch_verdicts(model, runs, kw.get("mode", "prefix"))
    assert {r.run: r.verdict for r in rows} == {k: v[0] for k, v in want.items()}
    # A run closed by its timeout has the batch record of the whole run (a Fail decided at an
    # event has the record of the run's prefix there, whose reason may differ).
    idle = {r.run: (r.verdict, r.reason) for r in rows if r.closed == "idle"}
    assert idle == {k: want[k] for k in idle}
    closed = {r.closed for r in rows}
    assert "idle" in closed
    return rows, [e for f in files for e in f]


def micros(t):
    """An event time in seconds as the stream reads it (`start`: seconds times 1e6, cast)."""
    return int(t * 1e6)


def assert_blames_its_event(model, runs, events, rec):
    """A Fail decided at an event names it by its time (`time:...Z`, UTC, microseconds): an
    event of the run at that time. The monitor releases each location's events in event-time
    order (others' as their windows allow), so the events it had seen when the Fail became
    certain were its location's events up to it and some per-location prefix of the others':
    hence, as multi-prefixes are closed downward and a Fail upward, the events of its location
    up to it with every event of the other locations are a Fail, and the events of its location
    before it alone are not."""
    from datetime import datetime, timezone

    at = rec["monitor"]["at"]
    assert at.startswith("time:") and at.endswith("Z"), at
    when = datetime.strptime(at[5:-1], "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=timezone.utc)
    t = int(when.timestamp()) * 1_000_000 + when.microsecond
    run = rec["id"]
    mine = sorted((micros(ts), a) for r, a, ts in events if r == run)
    here = [a for us, a in mine if us == t]
    assert len(here) == 1, f"{run}: {len(here)} events at {at}"
    where = {a: loc for _, traces in runs for loc, acts in traces.items() for a in acts}
    loc = where[here[0]]
    locs = next(traces for rid, traces in runs if rid == run).keys()
    mine_at = [(us, a) for us, a in mine if where[a] == loc]
    upto = {o: [a for us, a in mine if where[a] == o] for o in locs}
    upto[loc] = [a for us, a in mine_at if us <= t]
    before = {o: [] for o in locs}
    before[loc] = [a for us, a in mine_at if us < t]
    with_it, alone = model.check_many([{"id": run, "traces": upto},
                                       {"id": run, "traces": before}], mode="prefix")
    assert with_it.verdict == "Fail", f"{run}: not a Fail with its event at {at}"
    assert alone.verdict != "Fail", f"{run}: a Fail before its event at {at}"


def test_mqtt_stream_gives_the_batch_verdicts(spark, fixtures, tmp_path):
    model = multitrace.compile(str(fixtures / "seed004-mqtt" / "model.hif"))
    runs = runs_of(model, ["pass", "local-error", "inter-error", "central-error-mixed",
                           "prefix", "swap-actions"], 40, (1, 14), 3, "mqtt")
    rows, events = check_stream(spark, model, runs, tmp_path, 1)
    fails = [r for r in rows if r.verdict == "Fail"]
    # Prefix mode: a Fail at the event that makes it certain; or, when the events that decide
    # it were still held when the run ended (by Spark's watermark), at its end, as the record
    # of the whole run that `check` gives (the held events are added and the run checked
    # whole: one diagnosis whatever the arrival order).
    assert fails and any(r.closed == "decided" for r in fails)
    whole = {rid: traces for rid, traces in runs}
    for r in fails:
        rec = json.loads(r.record)
        if rec["monitor"]["closed"] == "decided":
            assert_blames_its_event(model, runs, events, rec)
            continue
        assert rec["monitor"]["closed"] in ("idle", "end-of-input"), rec["monitor"]
        (want,) = model.check_many([{"id": rec["id"], "traces": whole[rec["id"]]}], mode="prefix")
        exp = json.loads(want.to_json())
        keys = ("verdict", "reason", "explanation", "local_error", "diagnosis")
        assert {k: rec[k] for k in keys} == {k: exp[k] for k in keys}, (rec, exp)


def test_automatark_bakery_stream_gives_the_batch_verdicts(spark, data, tmp_path):
    path = data / "automatark" / "NFA" / "Bakery-4P-BinEnc-BwBad" / "armcNFA_inclTest_6.timbuk"
    if not path.exists():
        pytest.skip(f"{path} not found")
    model = multitrace.compile(str(path), locations=LOC)
    runs = runs_of(model, ["pass", "local-error", "inter-error", "swap-components"], 40,
                   (1, 30), 4, "bakery")
    check_stream(spark, model, runs, tmp_path, 2, mode="complete")


def test_few_buckets_hold_many_runs_each_and_give_the_batch_verdicts(spark, fixtures, tmp_path):
    # Three buckets for 160 runs: a bucket's call closes its idle runs while it takes the
    # events of others, and its state holds dozens of runs across the restart.
    model = multitrace.compile(str(fixtures / "seed004-mqtt" / "model.hif"))
    runs = runs_of(model, ["pass", "local-error", "inter-error", "prefix"], 40, (1, 14), 3,
                   "few")
    # The session has 4 shuffle partitions: one can never hold a bucket, and the call says so.
    with pytest.warns(UserWarning, match="spark.sql.shuffle.partitions is 4, more than the 3 buckets"):
        check_stream(spark, model, runs, tmp_path, 3, buckets=3)


def test_a_restart_with_another_bucket_count_is_refused(spark, fixtures, tmp_path):
    model = multitrace.compile(str(fixtures / "seed004-mqtt" / "model.hif"))
    runs = runs_of(model, ["pass"], 20, (4, 14), 3, "rb")
    rng = random.Random(4)
    files = split_batches(timed_events(runs, rng), 2, rng)
    src, out, ckpt = tmp_path / "in", tmp_path / "out", tmp_path / "ckpt"
    src.mkdir()
    write(src / "0.json", files[0], 0)
    q = start(spark, model, src, out, ckpt, buckets=4)
    try:
        q.processAllAvailable()
    finally:
        q.stop()
    write(src / "1.json", files[1], 1)
    q = start(spark, model, src, out, ckpt, buckets=5)
    try:
        with pytest.raises(Exception, match="buckets=4"):
            q.processAllAvailable()
    finally:
        q.stop()


def test_an_event_without_a_time_gives_its_run_one_error_record(spark, fixtures, tmp_path):
    model = multitrace.compile(str(fixtures / "seed004-mqtt" / "model.hif"))
    runs = runs_of(model, ["pass"], 10, (4, 14), 5, "nt")
    rng = random.Random(5)
    ev = timed_events(runs, rng) + [("untimed", model.alphabet[0], None)]
    src, out, ckpt = tmp_path / "in", tmp_path / "out", tmp_path / "ckpt"
    src.mkdir()
    write(src / "0.json", ev, 0)
    write(src / "1.json", [("sentinel", model.alphabet[0], float(BASE + 100_000))], 1)
    q = start(spark, model, src, out, ckpt, buckets=4)
    try:
        rows = wait_for(spark, q, out, len(runs) + 1)
    finally:
        q.stop()
    ids = [r.run for r in rows]
    assert sorted(ids) == sorted([rid for rid, _ in runs] + ["untimed"])
    (bad,) = [r for r in rows if r.run == "untimed"]
    assert bad.verdict == "Error"
    want = batch_verdicts(model, runs)
    assert {r.run: r.verdict for r in rows if r.run != "untimed"} == {k: v[0] for k, v in want.items()}


def test_buckets_must_be_a_positive_whole_number(spark, fixtures):
    model = multitrace.compile(str(fixtures / "seed004-mqtt" / "model.hif"))
    df = spark.readStream.format("rate").load().selectExpr(
        "cast(value as string) as run", "'clt1!begin' as action", "timestamp as order")
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="buckets"):
            mts.monitor_events(df, model, buckets=bad)


def test_the_order_column_must_be_event_time(spark, fixtures):
    model = multitrace.compile(str(fixtures / "seed004-mqtt" / "model.hif"))
    df = spark.readStream.format("rate").load().selectExpr(
        "cast(value as string) as run", "'clt1!begin' as action", "value as order")
    with pytest.raises(ValueError, match="event-time timestamp"):
        mts.monitor_events(df, model)


def test_positions_put_any_arrival_order_back_across_micro_batches(spark, fixtures, tmp_path):
    """With a position column (the event's position in its local trace), the events of a run
    may come in any order and in any micro-batch (not only a late tenth): every run gets the
    batch verdict of its whole multitrace."""
    from pyspark.sql import functions as F

    model = multitrace.compile(str(fixtures / "seed004-mqtt" / "model.hif"))
    runs = runs_of(model, ["pass", "local-error", "inter-error", "prefix"], 20, (1, 14), 4, "pos")
    rng = random.Random(12)
    rows = []
    for rid, traces in runs:
        start = BASE + rng.randrange(60)
        for acts in traces.values():
            for i, a in enumerate(acts):
                rows.append((rid, a, i, start + i))
    rng.shuffle(rows)
    files = [rows[k::4] for k in range(4)]
    files.append([("sentinel", model.alphabet[0], 0, BASE + 100_000)])
    src, out, ckpt = tmp_path / "in", tmp_path / "out", tmp_path / "ckpt"
    src.mkdir()
    for i, part in enumerate(files):
        with open(src / f"{i}.json", "w") as f:
            for r, a, p, t in part:
                f.write(json.dumps({"run": r, "action": a, "pos": p, "ts": t}) + "\n")
        os.utime(src / f"{i}.json", (1_600_000_000 + i, 1_600_000_000 + i))
    stream = (spark.readStream.schema("run string, action string, pos long, ts double")
              .option("maxFilesPerTrigger", 1).json(str(src))
              .withColumn("ts", F.timestamp_micros((F.col("ts") * 1e6).cast("long"))))
    # The watermark covers the whole spread of the event times (starts within 60 s, up to 14
    # events each): Spark drops a row older than the watermark before the monitor sees it.
    records = mts.monitor_events(stream, model, order="ts", idle_timeout="20 seconds",
                                 watermark="120 seconds", position="pos")
    q = (records.writeStream.format("json").option("path", str(out))
         .option("checkpointLocation", str(ckpt)).start())
    try:
        got = wait_for(spark, q, out, len(runs))
    finally:
        q.stop()
    want = batch_verdicts(model, runs)
    assert {r.run: r.verdict for r in got} == {k: v[0] for k, v in want.items()}
    with pytest.raises(ValueError, match="reorder_window"):
        mts.monitor_events(stream, model, order="ts", position="pos", reorder_window=3)


@pytest.fixture(scope="module")
def checkout_spans(root, tmp_path_factory):
    """Spans of examples/checkout (the OpenTelemetry Python SDK), one span per export line, in
    the order each service exported them: payment's SERVER span after the PRODUCER span it
    encloses; every fourth run broken (late-publish)."""
    pytest.importorskip("opentelemetry.sdk", reason="the OpenTelemetry SDK is installed by python/test.sh")
    pytest.importorskip("opentelemetry.exporter.otlp.proto.common")
    import subprocess

    out = tmp_path_factory.mktemp("checkout")
    example = root / "examples" / "checkout"
    subprocess.run([sys.executable, str(example / "app.py"), str(out), "--batch", "1",
                    "--runs", "24"], check=True)
    return example / "README.md", out / "spans.jsonl", json.loads((out / "runs.json").read_text())


def service_of(line):
    (rs,) = json.loads(line)["resourceSpans"]
    attrs = {a["key"]: a["value"].get("stringValue") for a in rs["resource"]["attributes"]}
    return attrs["service.name"]


def deliveries(lines, n, rng):
    """The export lines cut into ``n`` micro-batches in an arbitrary order that keeps each
    service's own export order (a span is exported when it ends, by its own process): the
    services' lines merged at random, cut at random places, each file's lines shuffled. A
    SERVER span may come micro-batches after the spans it encloses, a caller's span before or
    after its callee's."""
    queues = {}
    for line in lines:
        queues.setdefault(service_of(line), []).append(line)
    merged = []
    while queues:
        s = rng.choice(sorted(queues))
        merged.append(queues[s].pop(0))
        if not queues[s]:
            del queues[s]
    cuts = sorted(rng.sample(range(1, len(merged)), n - 1))
    files = [merged[a:b] for a, b in zip([0] + cuts, cuts + [len(merged)])]
    for f in files:
        rng.shuffle(f)
    return files


def sentinel_line(line, trace="ff" * 16, later_s=100_000):
    """A span line moved ``later_s`` seconds later, in a trace of its own: its time moves the
    watermark past every run."""
    req = json.loads(line)
    for rs in req["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for sp in ss["spans"]:
                sp["traceId"] = trace
                sp.pop("parentSpanId", None)
                for k in ("startTimeUnixNano", "endTimeUnixNano"):
                    sp[k] = str(int(sp[k]) + later_s * 1_000_000_000)
    return json.dumps(req)


def stream_spans(spark, model, files, tmp, spans, count, **kw):
    """The records of ``monitor_events`` on OTLP JSON lines read by the file source (one file
    per micro-batch), through :func:`events_from_otel`; with ``spans``, its span rows and the
    parents model."""
    src, out, ckpt = tmp / "in", tmp / "out", tmp / "ckpt"
    src.mkdir(parents=True)
    for i, part in enumerate(files):
        (src / f"{i}.jsonl").write_text("".join(line + "\n" for line in part))
        os.utime(src / f"{i}.jsonl", (1_600_000_000 + i, 1_600_000_000 + i))
    lines = spark.readStream.option("maxFilesPerTrigger", 1).text(str(src))
    events = mts.events_from_otel(lines, spans=spans)
    cols = dict(span="span", error="error") if spans else {}
    records = mts.monitor_events(events, model, idle_timeout="20 seconds", watermark="60 seconds",
                                 at="at", **cols, **kw)
    q = (records.writeStream.format("json").option("path", str(out))
         .option("checkpointLocation", str(ckpt)).start())
    try:
        return wait_for(spark, q, out, count)
    finally:
        q.stop()


def record_fields(rec):
    """What a record says of its run: verdict and reason, with the explanation and diagnosis
    of a checked run (an Error names its span by the reader's place: `spans:N` here)."""
    keys = ("verdict", "reason") if rec["verdict"] == "Error" else (
        "verdict", "reason", "explanation", "local_error", "diagnosis")
    return {k: rec.get(k) for k in keys}


def test_span_rows_follow_parents_across_micro_batches_as_check_otel(spark, checkout_spans, cli,
                                                                     tmp_path):
    """Nested spans (payment's SERVER span encloses its PRODUCER span, exported after it)
    delivered over five micro-batches in an arbitrary order that keeps only each service's own
    export order: with span rows (``events_from_otel(spans=True)``, the ``parents`` model in
    the operator), every record equals ``check --otel``'s on the whole file, and the broken
    runs Fail; the same micro-batches without the spans' parents (each service's events
    taken as they come) give a normal run a false Fail."""
    from conftest import cli_records

    model_path, spans, scenarios = checkout_spans
    model = multitrace.compile(str(model_path))
    lines = spans.read_text().splitlines()
    want = {r["id"]: record_fields(r) for r in cli_records(cli, model_path, ["--otel", spans])}
    assert set(want) == set(scenarios)
    expected = {"ok": "Pass", "late-publish": "Fail", "refund": "Error"}
    assert {t: want[t]["verdict"] for t in scenarios} == {t: expected[s] for t, s in scenarios.items()}
    files = deliveries(lines, 5, random.Random(21))
    files.append([sentinel_line(lines[0])])
    # Parents come after their children across micro-batches (what the model is for).
    index = {line: i for i, f in enumerate(files) for line in f}
    payment = [line for line in lines if service_of(line) == "payment"]
    assert any(index[a] < index[b] for a, b in zip(payment, payment[1:])
               if '"kind": 4' in a and '"kind": 2' in b), "a PRODUCER span a batch before its SERVER span"

    rows = stream_spans(spark, model, files, tmp_path / "spans", True, len(scenarios))
    got = {r.run: json.loads(r.record) for r in rows if r.run in scenarios}
    assert len([r for r in rows if r.run in scenarios]) == len(got), "one record per run"
    closed = {t: r["monitor"]["closed"] for t, r in got.items()}
    # A Fail written as soon as it is certain carries the diagnosis of the spans seen then;
    # its verdict, reason and local error are the whole run's. Every other record is the
    # whole run's.
    early = ("verdict", "reason", "local_error")
    assert {t: ({k: f[k] for k in early} if closed[t] == "decided" else f)
            for t, f in ((t, record_fields(r)) for t, r in got.items())} == \
        {t: ({k: f[k] for k in early} if closed[t] == "decided" else f) for t, f in want.items()}
    # Every broken run's Fail is written at the micro-batch that makes it certain.
    assert all(closed[t] == "decided" for t, s in scenarios.items() if s == "late-publish"), closed

    # Without the parents: the same micro-batches, each service's events in the order they come.
    naive = stream_spans(spark, model, files, tmp_path / "naive", False, len(scenarios),
                         reorder_window=0)
    wrong = [r.run for r in naive if scenarios.get(r.run) == "ok" and r.verdict == "Fail"]
    assert wrong, "without the parents model, a normal run gets a false Fail"


def test_push_spans_takes_rows_as_push_otel_takes_lines(spark, checkout_spans):
    """``Monitor.push_spans`` on the rows of each line (``events_from_otel(spans=True)``) gives
    the records ``push_otel`` gives on the lines, in any row order within a line."""
    model_path, spans, scenarios = checkout_spans
    model = multitrace.compile(str(model_path))
    lines = spans.read_text().splitlines()
    from datetime import datetime, timedelta

    # One partition: rows named `spans:N` by their line.
    df = spark.createDataFrame([(line,) for line in lines], "value string").coalesce(1)
    rows = mts.events_from_otel(df, spans=True).collect()
    us = timedelta(microseconds=1)
    assert {r.kind for r in rows} >= {"SERVER", "CLIENT", "PRODUCER", "CONSUMER"}
    by_line = {}
    for r in rows:
        by_line.setdefault(int(r.at.split(":")[1]), []).append(r)
    rng = random.Random(5)
    mon = model.monitor(otel=True)
    got = []
    for n in sorted(by_line):
        part = by_line[n]
        rng.shuffle(part)
        cols = list(zip(*[(r.run, r.action, None if r.order is None else (r.order - datetime(1970, 1, 1)) // us,
                           r.span, r.parent, r.kind, r.service, r.error, r.at) for r in part]))
        got += mon.push_spans(*cols[:7], errors=cols[7], time_unit="us", ats=cols[8])
    got += mon.close_all()
    ref = model.monitor(otel=True, source="spans")
    want = [r for line in lines for r in ref.push_otel(line)] + ref.close_all()
    assert {r.id: (r.verdict, r.reason, r.explanation) for r in got} == {
        r.id: (r.verdict, r.reason, r.explanation) for r in want}
    assert {r.id for r in got} == set(scenarios)
    with pytest.raises(ValueError, match="otel=True"):
        model.monitor().push_spans([], [], [], [], [], [], [])
    with pytest.raises(ValueError, match="different lengths"):
        model.monitor(otel=True).push_spans(["a"], [], [], [], [], [], [])
