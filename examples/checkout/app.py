"""A three-service checkout, instrumented with the OpenTelemetry Python SDK.

`checkout` calls `payment` (a CLIENT span `pay`, a SERVER span `pay` on the other side);
`payment` publishes the order to the `orders` queue (a PRODUCER span) before it replies, and
`queue` consumes it (a CONSUMER span). Trace context crosses the services as W3C headers, as
over HTTP. Some runs are broken on purpose:

- `late-publish`: payment replies first and publishes the order afterwards;
- `refund`: checkout calls an operation the protocol does not have.

The spans are exported with the SDK's own OTLP encoder and written as the Collector's file
exporter writes them: one ExportTraceServiceRequest per line in OTLP JSON (hex ids).

    python app.py OUT_DIR   # writes OUT_DIR/spans.jsonl and OUT_DIR/runs.json

With `--batch N --runs K` the services export as an application does: each through the SDK's
BatchSpanProcessor (at most N spans per export), appending each export to spans.jsonl as it
happens (a file a monitor can follow), K runs with every fourth broken (late-publish). A span
is exported when it ends, so a service's SERVER span comes after the spans it encloses.
"""

import base64
import json
import sys
from pathlib import Path

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.propagate import extract, inject
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
import threading

from opentelemetry.sdk.trace.export import (BatchSpanProcessor, SimpleSpanProcessor, SpanExporter,
                                            SpanExportResult)
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind


class FileLines(SpanExporter):
    """Appends each export to a file as one OTLP JSON line (shared by the services)."""

    lock = threading.Lock()

    def __init__(self, path):
        self.path = path

    def export(self, spans):
        line = otlp_json_line(spans)
        with FileLines.lock, open(self.path, "a") as f:
            f.write(line + "\n")
        return SpanExportResult.SUCCESS

    def shutdown(self):
        pass


PROVIDERS = []


def service(name, batch=None, path=None):
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": name}))
    if batch:
        provider.add_span_processor(BatchSpanProcessor(
            FileLines(path), max_export_batch_size=batch, schedule_delay_millis=50))
    else:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    PROVIDERS.append(provider)
    return provider.get_tracer(name), exporter


BATCH = "--batch" in sys.argv
if BATCH:
    _size = int(sys.argv[sys.argv.index("--batch") + 1])
    _out = Path(sys.argv[1])
    _out.mkdir(parents=True, exist_ok=True)
    _path = _out / "spans.jsonl"
    checkout, checkout_spans = service("checkout", _size, _path)
    payment, payment_spans = service("payment", _size, _path)
    queue, queue_spans = service("queue", _size, _path)
else:
    checkout, checkout_spans = service("checkout")
    payment, payment_spans = service("payment")
    queue, queue_spans = service("queue")


def consume(headers):
    with queue.start_as_current_span("orders receive", context=extract(headers), kind=SpanKind.CONSUMER,
                                     attributes={"messaging.destination.name": "orders"}):
        pass


def publish():
    headers = {}
    with payment.start_as_current_span("orders publish", kind=SpanKind.PRODUCER,
                                       attributes={"messaging.destination.name": "orders"}):
        inject(headers)
    consume(headers)


def pay_server(headers, late_publish):
    with payment.start_as_current_span("pay", context=extract(headers), kind=SpanKind.SERVER):
        if not late_publish:
            publish()
    if late_publish:
        publish()


def run(scenario):
    """One checkout; returns its trace id (hex)."""
    operation = "refund" if scenario == "refund" else "pay"
    with checkout.start_as_current_span(operation, kind=SpanKind.CLIENT) as span:
        headers = {}
        inject(headers)
        if operation == "pay":
            pay_server(headers, late_publish=scenario == "late-publish")
        return format(span.get_span_context().trace_id, "032x")


def otlp_json_line(spans):
    """The Collector's file exporter line: OTLP JSON, with hex ids and integer enums."""
    request = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    for rs in request.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return json.dumps(request)


def main_batch(out, runs):
    """K runs exported in batches as they end; runs.json once all are exported."""
    scenarios = ["late-publish" if i % 4 == 3 else "ok" for i in range(runs)]
    ids = {run(s): s for s in scenarios}
    for provider in PROVIDERS:
        provider.force_flush()
        provider.shutdown()
    (out / "runs.json").write_text(json.dumps(ids, indent=1))


def main(out):
    out.mkdir(parents=True, exist_ok=True)
    scenarios = ["ok", "ok", "late-publish", "ok", "refund", "ok"]
    runs = {run(s): s for s in scenarios}
    with open(out / "spans.jsonl", "w") as f:
        for exporter in (checkout_spans, payment_spans, queue_spans):
            f.write(otlp_json_line(exporter.get_finished_spans()) + "\n")
    (out / "runs.json").write_text(json.dumps(runs, indent=1))


if __name__ == "__main__":
    if BATCH:
        main_batch(Path(sys.argv[1]), int(sys.argv[sys.argv.index("--runs") + 1]))
    else:
        main(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
