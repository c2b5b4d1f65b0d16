"""Spans of the real OpenTelemetry Python SDK, exported as an application exports them (each
service through a BatchSpanProcessor, one span per export, each export a line of OTLP JSON
appended to a file), followed live by `multitrace monitor --otel` with its default options:
every record equals `check --otel`'s on the finished file. A SERVER span is exported after the
spans it encloses, so its reception comes after its service's later actions: followed in the
order the lines come (`--arrival in-order`), the normal runs get false Fails."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the OpenTelemetry SDK is installed by python/test.sh")
pytest.importorskip("opentelemetry.exporter.otlp.proto.common")


def records(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def by_run(recs):
    out = {}
    for r in recs:
        out.setdefault(r["id"], []).append(r)
    return out


def test_batched_spans_followed_live_give_check_otels_records(cli, root, tmp_path):
    example = root / "examples" / "checkout"
    model = example / "README.md"
    spans = tmp_path / "spans.jsonl"
    spans.write_text("")
    out = tmp_path / "records.jsonl"
    monitor = subprocess.Popen(
        [str(cli), "monitor", str(model), "--otel", str(spans), "--format", "jsonl", "-o", str(out)],
        stderr=subprocess.PIPE, text=True)
    try:
        subprocess.run([sys.executable, str(example / "app.py"), str(tmp_path), "--batch", "1",
                        "--runs", "24"], check=True)
        runs = json.loads((tmp_path / "runs.json").read_text())
        lines = spans.read_text().splitlines()
        assert len(lines) == 4 * 24, "one span per export"
        # Every broken run's Fail comes while the monitor follows (no stop, no idle timeout).
        broken = {t for t, s in runs.items() if s == "late-publish"}
        deadline = time.monotonic() + 20
        while True:
            seen = by_run(records(out.read_text()))
            if all(t in seen for t in broken):
                break
            assert time.monotonic() < deadline, f"no Fail for {broken - set(seen)}"
            time.sleep(0.05)
    finally:
        monitor.send_signal(signal.SIGTERM)
        _, err = monitor.communicate(timeout=20)
    live = by_run(records(out.read_text()))
    checked = subprocess.run(
        [str(cli), "check", str(model), "--otel", str(spans), "--format", "jsonl", "--no-progress"],
        capture_output=True, text=True)
    want = by_run(records(checked.stdout))
    assert set(live) == set(want) == set(runs), err
    for trace, scenario in runs.items():
        assert len(live[trace]) == 1, live[trace]
        assert live[trace][0]["verdict"] == want[trace][0]["verdict"], (scenario, live[trace])
        assert live[trace][0]["verdict"] == ("Fail" if scenario == "late-publish" else "Pass")
    # The same lines taken in the order they came: payment's PRODUCER span, exported before the
    # SERVER span that encloses it, is taken as payment's first action.
    naive = subprocess.run(
        [str(cli), "monitor", str(model), "--otel", str(spans), "--no-follow", "--format", "jsonl",
         "--arrival", "in-order"], capture_output=True, text=True)
    wrong = [t for t, r in by_run(records(naive.stdout)).items()
             if runs[t] == "ok" and r[0]["verdict"] == "Fail"]
    assert wrong, "in arrival order, a normal run gets a false Fail"
