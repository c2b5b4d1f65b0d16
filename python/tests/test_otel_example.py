"""The worked example of examples/checkout: real spans of the OpenTelemetry Python SDK, checked
against the Mermaid diagram of the example's README, give the expected verdicts; the broken runs'
explanations name the service and the span."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the OpenTelemetry SDK is installed by python/test.sh")
pytest.importorskip("opentelemetry.exporter.otlp.proto.common")


def test_checkout_example(cli, root, tmp_path):
    example = root / "examples" / "checkout"
    subprocess.run([sys.executable, str(example / "app.py"), str(tmp_path)], check=True)
    runs = json.loads((tmp_path / "runs.json").read_text())
    report = tmp_path / "report.html"
    out = subprocess.run(
        [str(cli), "check", str(example / "README.md"), "--otel", str(tmp_path / "spans.jsonl"),
         "--format", "jsonl", "--report", str(report)],
        capture_output=True, text=True,
    )
    assert out.returncode == 2, out.stderr  # an Error record: the run calling `refund`
    records = {r["id"]: r for r in map(json.loads, out.stdout.splitlines())}
    assert set(records) == set(runs)
    expected = {"ok": "Pass", "late-publish": "Fail", "refund": "Error"}
    assert {t: records[t]["verdict"] for t in runs} == {t: expected[s] for t, s in runs.items()}
    for trace, scenario in runs.items():
        r = records[trace]
        if scenario == "late-publish":
            # payment replied before publishing the order.
            assert "payment!pay_reply" in r["explanation"] and "payment!orders" in r["explanation"]
        if scenario == "refund":
            msg = r["error"]["message"]
            for part in (f"of trace {trace}", 'service "checkout"', 'span name "refund"',
                         "rule: CLIENT span", 'unknown action "checkout!refund"'):
                assert part in msg, msg
    html = report.read_text()
    assert "Fail" in html and "payment" in html
