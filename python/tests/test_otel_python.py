"""OpenTelemetry spans in Python: multitrace.read_otel gives the runs `multitrace check --otel`
checks (the same verdicts, the same Error records), and multitrace.spark.events_from_otel the
events that give them on Spark; on the real spans of the examples/checkout application (the
OpenTelemetry SDK) and on the bad-input cases."""

import json
import os
import subprocess
import sys

import pytest

import multitrace
from conftest import cli_records


@pytest.fixture(scope="module")
def checkout(root, tmp_path_factory):
    pytest.importorskip("opentelemetry.sdk", reason="the OpenTelemetry SDK is installed by python/test.sh")
    pytest.importorskip("opentelemetry.exporter.otlp.proto.common")
    out = tmp_path_factory.mktemp("checkout")
    example = root / "examples" / "checkout"
    subprocess.run([sys.executable, str(example / "app.py"), str(out)], check=True)
    return example / "README.md", out / "spans.jsonl", json.loads((out / "runs.json").read_text())


def verdicts_of(model, runs):
    """Records by id: the checked runs' and the Error items' (as the CLI writes them)."""
    ok = [r for r in runs if "error" not in r]
    got = {r.id: (r.verdict, r.reason, r.explanation) for r in model.check_many(ok)}
    for r in runs:
        if "error" in r:
            got[r["id"]] = ("Error", None, r["error"]["message"])
    return got


def test_read_otel_gives_the_runs_check_otel_checks(checkout, cli):
    model_path, spans, scenarios = checkout
    model = multitrace.compile(str(model_path))
    runs = multitrace.read_otel(spans, model)
    assert {r["id"] for r in runs} == set(scenarios)
    cli_recs = cli_records(cli, model_path, ["--otel", spans])
    want = {r["id"]: (r["verdict"], r["reason"],
                      r["error"]["message"] if r["error"] else r["explanation"]) for r in cli_recs}
    assert verdicts_of(model, runs) == want
    assert [r["id"] for r in runs] == [r["id"] for r in cli_recs]  # the CLI's order
    # The Error item names the span and the rule.
    (bad,) = [r for r in runs if "error" in r]
    assert "rule: CLIENT span" in bad["error"]["message"]
    # The mapping: no reply actions (then replies are not actions of the runs).
    plain = multitrace.read_otel([spans], model, map={"reply_suffix": ""})
    actions = {a for r in plain if "traces" in r for t in r["traces"].values() for a in t}
    assert actions and not any(a.endswith("_reply") for a in actions)


def test_read_otel_bad_inputs(root, fixtures, tmp_path):
    model = multitrace.compile(str(fixtures / "seed004-mqtt" / "model.hif"))
    cases = root / "tests" / "bad_inputs" / "cases"
    (r,) = multitrace.read_otel(cases / "otel-unknown-action.jsonl", model)
    assert "unknown action" in r["error"]["message"] and "POST_publish" in r["error"]["message"]
    bad = multitrace.read_otel(cases / "otel-bad-request.jsonl", model)
    assert bad and "error" in bad[-1] and "OTLP" in bad[-1]["error"]["message"]
    with pytest.raises(multitrace.ReadError):
        multitrace.read_otel(tmp_path / "missing.jsonl", model)
    with pytest.raises(multitrace.ParseError) as e:
        multitrace.read_otel(cases / "otel-unknown-action.jsonl", model,
                             map=cases / "otel-map-unknown-key.map")
    assert e.value.line is not None
    with pytest.raises(ValueError, match="unknown keys"):
        multitrace.read_otel(cases / "otel-unknown-action.jsonl", model, map={"lifelines": "x"})


def test_monitor_on_read_otel_events_gives_the_same_records(checkout):
    """The runs through the live monitor (one event per action, in location order) give the
    batch verdicts too."""
    model_path, spans, _ = checkout
    model = multitrace.compile(str(model_path))
    runs = [r for r in multitrace.read_otel(spans, model) if "traces" in r]
    mon = model.monitor()
    recs = []
    for r in runs:
        for acts in r["traces"].values():
            recs += mon.push_many([r["id"]] * len(acts), acts, list(range(len(acts))))
    recs += mon.close_all()
    batch = {r.id: (r.verdict, r.reason) for r in model.check_many(runs)}
    assert {r.id: (r.verdict, r.reason) for r in recs} == batch


def test_spark_events_from_otel_give_the_cli_verdicts(checkout, cli):
    pytest.importorskip("pyspark")
    pytest.importorskip("pyarrow")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from multitrace import spark as mts
    from pyspark.sql import SparkSession

    model_path, spans, _ = checkout
    model = multitrace.compile(str(model_path))
    spark = (SparkSession.builder.master("local[2]").appName("multitrace-otel")
             .config("spark.sql.shuffle.partitions", "2").config("spark.ui.enabled", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    # Lines split over partitions: a trace's spans are in several of them.
    df = spark.read.text(str(spans)).repartition(3)
    events = mts.events_from_otel(df)
    rows = events.collect()
    assert rows and all(r.error is None for r in rows if r.action is not None)
    got = {r.run: (r.verdict, r.reason) for r in mts.check_events(events, model).collect()}
    want = {r["id"]: (r["verdict"], r["reason"]) for r in cli_records(cli, model_path, ["--otel", spans])}
    assert got == want
    bad = spark.createDataFrame([("not json",)], "value string")
    (row,) = mts.events_from_otel(bad).collect()
    assert row.run is None and "OTLP" in row.error
