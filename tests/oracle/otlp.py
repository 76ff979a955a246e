"""The OTLP oracle of agentloop's OpenTelemetry export (otel/, docs/otel.md), with the
official packages, pinned: opentelemetry-proto (the generated protobuf classes) and
opentelemetry-semantic-conventions (the GenAI attribute names).

  python3 otlp.py check FILE...   each FILE one OTLP/JSON ExportTraceServiceRequest;
                                  prints one JSON line per file: the span counts by
                                  operation, the spans' (name, id, parent), problems
  python3 otlp.py serve DIR       an OTLP/HTTP receiver on 127.0.0.1: writes its port to
                                  DIR/port, and each request it accepts (parsed by the
                                  protobuf classes) to DIR/request-N.json; answers 200

OTLP/JSON writes trace and span ids as hex, where the protobuf JSON mapping has base64:
the ids are turned into base64 before json_format.Parse reads the request (which
refuses any field the protobuf does not have).
"""
import base64
import importlib.metadata as metadata
import json
import os
import sys

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes
from opentelemetry.semconv.attributes import error_attributes, server_attributes, service_attributes

PINNED = {"opentelemetry-proto": "1.45.2", "opentelemetry-semantic-conventions": "0.66b2"}

KNOWN = {
    value
    for module in (gen_ai_attributes, error_attributes, server_attributes, service_attributes)
    for name, value in vars(module).items()
    if name.isupper() and isinstance(value, str)
}
OPERATIONS = {v.value for v in gen_ai_attributes.GenAiOperationNameValues}
INTERNAL, CLIENT = 1, 3
STATUS_ERROR = 2
# Per operation: the span kind, the span name's prefix, the attributes required.
SPANS = {
    "invoke_agent": (INTERNAL, "invoke_agent", ["gen_ai.operation.name", "gen_ai.provider.name"]),
    "chat": (CLIENT, "chat", ["gen_ai.operation.name", "gen_ai.provider.name"]),
    "execute_tool": (INTERNAL, "execute_tool", ["gen_ai.operation.name", "gen_ai.tool.name"]),
}


def b64(hex_id):
    return base64.b64encode(bytes.fromhex(hex_id)).decode()


def parse(text):
    """The request, read by the protobuf classes (ids turned to base64 first)."""
    body = json.loads(text)
    for resource in body.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = b64(span[key])
    return json_format.Parse(json.dumps(body), ExportTraceServiceRequest())


def value_of(any_value):
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value_of(v) for v in any_value.array_value.values]
    return getattr(any_value, kind)


def check_span(span, problems):
    attributes = {a.key: value_of(a.value) for a in span.attributes}
    operation = attributes.get("gen_ai.operation.name")
    where = f"span {span.name!r}"
    if operation not in OPERATIONS or operation not in SPANS:
        problems.append(f"{where}: operation {operation!r}")
        return operation
    kind, prefix, required = SPANS[operation]
    if span.kind != kind:
        problems.append(f"{where}: kind {span.kind}, the conventions say {kind}")
    if span.name.split(" ")[0] != prefix:
        problems.append(f"{where}: the name does not start with {prefix}")
    for key in required:
        if key not in attributes:
            problems.append(f"{where}: no {key}")
    if operation == "chat" and "gen_ai.request.model" in attributes:
        if span.name != f"chat {attributes['gen_ai.request.model']}":
            problems.append(f"{where}: not named chat {{gen_ai.request.model}}")
    if operation == "execute_tool" and span.name != f"execute_tool {attributes.get('gen_ai.tool.name')}":
        problems.append(f"{where}: not named execute_tool {{gen_ai.tool.name}}")
    if span.status.code == STATUS_ERROR and "error.type" not in attributes:
        problems.append(f"{where}: an error status without error.type")
    for key in attributes:
        if (key.startswith("gen_ai.") or not key.startswith("agentloop.")) and key not in KNOWN:
            problems.append(f"{where}: {key} is not in the pinned semantic conventions")
    if len(span.trace_id) != 16 or len(span.span_id) != 8:
        problems.append(f"{where}: ids of {len(span.trace_id)} and {len(span.span_id)} bytes")
    if span.start_time_unix_nano > span.end_time_unix_nano:
        problems.append(f"{where}: ends before it starts")
    return operation


def check(text):
    request = parse(text)
    problems, counts, spans = [], {}, []
    for resource in request.resource_spans:
        for key in (a.key for a in resource.resource.attributes):
            if not key.startswith("agentloop.") and key not in KNOWN:
                problems.append(f"resource: {key} is not in the pinned semantic conventions")
        for scope in resource.scope_spans:
            for span in scope.spans:
                operation = check_span(span, problems)
                counts[operation] = counts.get(operation, 0) + 1
                spans.append([span.name, span.span_id.hex(), span.parent_span_id.hex(), span.trace_id.hex()])
    return {"counts": counts, "spans": spans, "problems": problems}


def serve(folder):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    count = [0]

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0))).decode()
            try:
                parse(body)
            except Exception as error:  # the protobuf classes refused it
                self.send_response(400)
                self.end_headers()
                self.wfile.write(str(error).encode())
                return
            count[0] += 1
            with open(os.path.join(folder, f"request-{count[0]}.json"), "w") as out:
                out.write(body)
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    with open(os.path.join(folder, "port.tmp"), "w") as out:
        out.write(str(server.server_address[1]))
    os.rename(os.path.join(folder, "port.tmp"), os.path.join(folder, "port"))
    server.serve_forever()


def main():
    versions = {name: metadata.version(name) for name in PINNED}
    if versions != PINNED:
        sys.exit(f"the pinned packages are {PINNED}, these are {versions}")
    if sys.argv[1] == "check":
        for name in sys.argv[2:]:
            with open(name) as f:
                print(json.dumps(check(f.read())))
    elif sys.argv[1] == "serve":
        serve(sys.argv[2])


if __name__ == "__main__":
    main()
