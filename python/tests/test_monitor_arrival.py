"""Model.monitor's arrival models beyond the order of events: an event-time window whose
watermark moves with the wall clock after ``idleness`` (``Monitor.advance``, as ``multitrace
monitor --idleness``), and OpenTelemetry spans (``Monitor.push_otel``, as ``monitor --otel``),
whose default arrival follows spans' parents: spans exported children first, as the SDK's
BatchSpanProcessor exports them, give the records ``check --otel`` gives on the whole file,
where taking them in the order they came gives normal runs false Fails."""

import json
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

import pytest

import multitrace
from conftest import cli_records


@pytest.fixture(scope="module")
def mqtt(fixtures):
    return multitrace.compile(str(fixtures / "seed004-mqtt" / "model.hif"))


def broken_run(model):
    """A generated run whose prefix check fails, as events ``(action, time in ms)``: each
    location's events in order, 10 ms apart, all within 200 ms."""
    for kind in ("local-error", "inter-error", "central-error-mixed"):
        for it in model.generate(kind, count=20, length=(2, 12), seed=4):
            if model.check(it["traces"]).verdict != "Fail":
                continue
            events, t = [], 1_700_000_000_000
            queues = [list(acts) for acts in it["traces"].values() if acts]
            while queues:
                for q in list(queues):
                    events.append((q.pop(0), t))
                    t += 10
                    if not q:
                        queues.remove(q)
            if len(events) <= 20:
                return it["traces"], events
    raise AssertionError("no broken run generated")


def push_run(mon, events):
    return mon.push_many(["b"] * len(events), [a for a, _ in events], [t for _, t in events],
                         time_unit="ms")


def test_a_fail_held_in_the_window_comes_from_advance_after_the_idleness(mqtt):
    traces, events = broken_run(mqtt)
    # In order, the Fail comes at an event.
    plain = mqtt.monitor(arrival="in-order")
    (want,) = push_run(plain, events)
    assert want.verdict == "Fail" and want.monitor["closed"] == "decided"

    mon = mqtt.monitor(reorder_window=timedelta(seconds=2), idleness=1)
    t0 = time.time()
    assert push_run(mon, events) == []  # every event within the window: held
    t1 = time.time()
    # The event clock has not moved for less than the idleness: nothing is let go.
    assert mon.advance(t0 + 0.9) == []
    assert mon.advance() == []  # now: well within the idleness
    # Past the idleness and the window, on the wall clock, without another event.
    (fail,) = mon.advance(t1 + 1 + 2 + 0.5)
    assert fail.id == "b" and fail.verdict == "Fail" and fail.monitor["closed"] == "decided"
    # (The held events are fed location by location: the deciding event, and so the
    # prefix's reason, may differ from the in-order monitor's.)
    assert fail.monitor["at"].startswith("<python>:")
    assert mon.advance(t1 + 100) == [] and mon.close_all() == []  # one record per run

    # The default idleness is the window's length; `now` may be a datetime.
    dflt = mqtt.monitor(reorder_window=2.0)  # seconds (an int counts events)
    t0 = time.time()
    assert push_run(dflt, events) == []
    t1 = time.time()
    assert dflt.advance(datetime.fromtimestamp(t0 + 1.9, timezone.utc)) == []
    (fail,) = dflt.advance(datetime.fromtimestamp(t1 + 2 + 2 + 0.5, timezone.utc))
    assert fail.verdict == "Fail"
    # close_idle does not move the watermark; without a duration window advance does nothing.
    idle = mqtt.monitor(reorder_window=2.0, idleness=0)
    assert push_run(idle, events) == [] and idle.close_idle(time.time() + 60) == []
    assert [r.verdict for r in idle.advance(time.time() + 60)] == ["Fail"]
    counted = mqtt.monitor(reorder_window=3)  # events: no watermark
    assert counted.push("c", "clt1!begin", 0) == [] and counted.advance(time.time() + 60) == []
    with pytest.raises(ValueError, match="idleness"):
        mqtt.monitor(reorder_window=2.0, idleness=-1)
    with pytest.raises(TypeError, match="now"):
        mon.advance("soon")


@pytest.fixture(scope="module")
def batched(root, tmp_path_factory):
    """Spans of examples/checkout exported by the SDK's BatchSpanProcessor, one span per
    export (a line each): a SERVER span after the spans it encloses."""
    pytest.importorskip("opentelemetry.sdk", reason="the OpenTelemetry SDK is installed by python/test.sh")
    pytest.importorskip("opentelemetry.exporter.otlp.proto.common")
    out = tmp_path_factory.mktemp("batched")
    example = root / "examples" / "checkout"
    subprocess.run([sys.executable, str(example / "app.py"), str(out), "--batch", "1",
                    "--runs", "24"], check=True)
    return example / "README.md", out / "spans.jsonl", json.loads((out / "runs.json").read_text())


def summary(rec):
    """What a record says of its run: verdict, reason, explanation or Error message."""
    d = rec if isinstance(rec, dict) else rec.to_dict()
    err = d.get("error")
    return (d["verdict"], d["reason"], err["message"] if err else d["explanation"])


def monitored(model, lines, **options):
    mon = model.monitor(otel=True, **options)
    recs = [r for line in lines for r in mon.push_otel(line)]
    return recs + mon.close_all()


def test_spans_exported_children_first_give_check_otels_records(batched, cli):
    model_path, spans, scenarios = batched
    model = multitrace.compile(str(model_path))
    lines = spans.read_text().splitlines()
    assert len(lines) == 4 * len(scenarios), "one span per export"
    recs = monitored(model, lines, source=str(spans))
    assert len(recs) == len({r.id for r in recs}) == len(scenarios)  # one record per run
    got = {r.id: summary(r) for r in recs}
    # check --otel on the whole file.
    want = {r["id"]: summary(r) for r in cli_records(cli, model_path, ["--otel", spans])}
    assert got == want
    # multitrace.read_otel and Model.check_many on the whole file: the same verdicts.
    runs = multitrace.read_otel(spans, model)
    checked = {r.id: r.verdict for r in model.check_many([r for r in runs if "traces" in r])}
    checked.update({r["id"]: "Error" for r in runs if "error" in r})
    assert {k: v[0] for k, v in got.items()} == checked
    expected = {"ok": "Pass", "late-publish": "Fail", "refund": "Error"}
    assert {t: got[t][0] for t in scenarios} == {t: expected[s] for t, s in scenarios.items()}
    # Every broken run's Fail comes while spans come (before close_all), as `monitor` gives it.
    mon = model.monitor(otel=True, source=str(spans))
    early = {r.id for line in lines for r in mon.push_otel(line)}
    assert {t for t, s in scenarios.items() if s == "late-publish"} <= early
    # The records of `multitrace monitor --otel` on the file, every field.
    out = subprocess.run([str(cli), "monitor", str(model_path), "--otel", str(spans),
                          "--no-follow", "--format", "jsonl"], capture_output=True, text=True)
    assert out.returncode in (0, 1, 2), out.stderr
    lines_of_cli = {r["id"]: r for r in map(json.loads, out.stdout.splitlines())}
    assert {r.id: json.loads(r.to_json()) for r in recs} == lines_of_cli
    # The whole file in one call, as bytes: the same records.
    whole = model.monitor(otel=True, source=str(spans))
    again = whole.push_otel(spans.read_bytes()) + whole.close_all()
    assert {r.id: r.to_json() for r in again} == {r.id: r.to_json() for r in recs}
    assert whole.events == mon.events > 0

    # In the order the lines came: a SERVER span's reception after its service's later
    # actions, and normal runs get false Fails.
    naive = monitored(model, lines, arrival="in-order", source=str(spans))
    wrong = [r.id for r in naive if scenarios[r.id] == "ok" and r.verdict == "Fail"]
    assert wrong, "in arrival order, a normal run gets a false Fail"
    assert {r.id: summary(r) for r in monitored(model, lines, arrival="parents",
                                                source=str(spans))} == got


def test_a_line_that_is_not_a_request_gives_the_commands_records(root, fixtures, cli, mqtt):
    bad = root / "tests" / "bad_inputs" / "cases" / "otel-bad-request.jsonl"
    model_path = fixtures / "seed004-mqtt" / "model.hif"
    out = subprocess.run([str(cli), "monitor", str(model_path), "--otel", str(bad),
                          "--no-follow", "--format", "jsonl"], capture_output=True, text=True)
    assert out.returncode == 2, out.stderr
    want = [json.loads(x) for x in out.stdout.splitlines()]
    got = monitored(mqtt, bad.read_text().splitlines(), source=str(bad))
    assert [json.loads(r.to_json()) for r in got] == want
    assert any(r.id is None and r.verdict == "Error" for r in got)
    # Bytes that are not JSON may hold spans of any trace: a run whose span comes later gets
    # an Error naming the line, not a verdict.
    first, _ = bad.read_text().splitlines()
    mon = mqtt.monitor(otel=True)
    (line,) = mon.push_otel(b"\xff not json", at="spans.jsonl:7")
    assert line.id is None and line.verdict == "Error"
    assert line.error["message"].startswith("spans.jsonl:7:")
    (later,) = mon.push_otel(first)
    assert later.verdict == "Error" and "spans.jsonl:7" in later.error["message"]
    assert mon.close_all() == []
    # A monitor of events does not take spans; parents are spans'.
    with pytest.raises(ValueError, match="otel=True"):
        mqtt.monitor().push_otel(first)
    with pytest.raises(ValueError, match="otel=True"):
        mqtt.monitor(arrival="parents")
    with pytest.raises(ValueError, match="otel=True"):
        mqtt.monitor(otel_map={"run": "session.id"})
    with pytest.raises(ValueError, match="unknown key"):
        mqtt.monitor(otel=True, otel_map={"lifelines": "x"})
    with pytest.raises(TypeError, match="str or bytes"):
        mqtt.monitor(otel=True).push_otel(3)


def test_a_pickled_monitor_of_spans_goes_on_numbering_its_lines(batched):
    import pickle

    model_path, spans, _ = batched
    model = multitrace.compile(str(model_path))
    lines = spans.read_text().splitlines()
    whole = monitored(model, lines, source="s")
    mon = model.monitor(otel=True, source="s")
    cut = len(lines) // 2
    got = [r for line in lines[:cut] for r in mon.push_otel(line)]
    mon = pickle.loads(pickle.dumps(mon))
    got += [r for line in lines[cut:] for r in mon.push_otel(line)] + mon.close_all()
    assert [r.to_json() for r in got] == [r.to_json() for r in whole]
