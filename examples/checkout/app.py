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
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind


def service(name):
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": name}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer(name), exporter


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


def main(out):
    out.mkdir(parents=True, exist_ok=True)
    scenarios = ["ok", "ok", "late-publish", "ok", "refund", "ok"]
    runs = {run(s): s for s in scenarios}
    with open(out / "spans.jsonl", "w") as f:
        for exporter in (checkout_spans, payment_spans, queue_spans):
            f.write(otlp_json_line(exporter.get_finished_spans()) + "\n")
    (out / "runs.json").write_text(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
