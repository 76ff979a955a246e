//! The OTLP/JSON shapes (the OTLP specification's JSON encoding of
//! `opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest`): lowerCamelCase
//! field names, trace and span ids as lowercase hex, 64-bit integers as decimal
//! strings, span kinds and status codes as their enum numbers.

use agentloop_core::json::{Object, Value};
use agentloop_core::Hash;

use crate::names::AGENTLOOP;

/// An object of these members.
pub(crate) fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut object = Object::new();
    for (key, value) in members {
        object.insert(key, value);
    }
    Value::Object(object)
}

/// A string as a JSON value.
pub(crate) fn text(s: impl Into<String>) -> Value {
    Value::String(s.into())
}

/// The attributes of a span or a resource, in the order they are added: OTLP
/// `KeyValue`s.
#[derive(Debug, Default)]
pub(crate) struct Attributes(Vec<Value>);

impl Attributes {
    fn any(&mut self, key: &str, value: Value) {
        self.0.push(object([("key", text(key)), ("value", value)]));
    }

    /// A string attribute.
    pub(crate) fn string(&mut self, key: &str, value: impl Into<String>) {
        self.any(key, object([("stringValue", text(value))]));
    }

    /// An integer attribute (int64: a decimal string in OTLP/JSON).
    pub(crate) fn int(&mut self, key: &str, value: u64) {
        self.any(key, object([("intValue", text(value.to_string()))]));
    }

    /// A string array attribute.
    pub(crate) fn strings(&mut self, key: &str, values: &[&str]) {
        let values = values
            .iter()
            .map(|v| object([("stringValue", text(*v))]))
            .collect();
        let array = object([("values", Value::Array(values))]);
        self.any(key, object([("arrayValue", array)]));
    }

    /// The attributes, as a JSON array.
    pub(crate) fn into_value(self) -> Value {
        Value::Array(self.0)
    }
}

/// A span's kind (`Span.SpanKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `SPAN_KIND_INTERNAL`.
    Internal = 1,
    /// `SPAN_KIND_CLIENT`.
    Client = 3,
}

/// `STATUS_CODE_ERROR`.
const STATUS_ERROR: f64 = 2.0;

/// What a span is made of.
#[derive(Debug)]
pub(crate) struct Span {
    /// The trace: the first 16 bytes of the transcript's first record's hash.
    pub trace: Hash,
    /// The span: the first 8 bytes of its record's hash.
    pub id: Hash,
    /// The parent span's record, if any.
    pub parent: Option<Hash>,
    pub name: String,
    pub kind: Kind,
    /// Unix nanoseconds.
    pub start: u64,
    /// Unix nanoseconds.
    pub end: u64,
    pub attributes: Attributes,
    /// An error status, with its message when content is asked for.
    pub error: Option<Option<String>>,
}

/// The first `n` bytes of a hash, as lowercase hex.
fn hex_prefix(hash: &Hash, n: usize) -> String {
    String::from_utf8_lossy(&hash.to_hex()[..2 * n]).into_owned()
}

/// A trace id: the first 16 bytes of `hash`, as 32 hex digits.
pub(crate) fn trace_id(hash: &Hash) -> String {
    hex_prefix(hash, 16)
}

/// A span id: the first 8 bytes of `hash`, as 16 hex digits.
pub(crate) fn span_id(hash: &Hash) -> String {
    hex_prefix(hash, 8)
}

impl Span {
    /// The OTLP/JSON `Span`.
    pub(crate) fn into_value(self) -> Value {
        let mut span = Object::new();
        span.insert("traceId", text(trace_id(&self.trace)));
        span.insert("spanId", text(span_id(&self.id)));
        if let Some(parent) = &self.parent {
            span.insert("parentSpanId", text(span_id(parent)));
        }
        span.insert("name", text(self.name));
        span.insert("kind", Value::Number(f64::from(self.kind as u8)));
        span.insert("startTimeUnixNano", text(self.start.to_string()));
        span.insert("endTimeUnixNano", text(self.end.to_string()));
        span.insert("attributes", self.attributes.into_value());
        if let Some(message) = self.error {
            let mut status = Object::new();
            status.insert("code", Value::Number(STATUS_ERROR));
            if let Some(message) = message {
                status.insert("message", text(message));
            }
            span.insert("status", Value::Object(status));
        }
        Value::Object(span)
    }
}

/// An `ExportTraceServiceRequest` of one resource (with `resource` attributes) and one
/// instrumentation scope (`agentloop`, this crate's version) holding `spans`.
pub(crate) fn trace_request(resource: Attributes, spans: Vec<Value>) -> Value {
    let scope = object([
        ("name", text(AGENTLOOP)),
        ("version", text(env!("CARGO_PKG_VERSION"))),
    ]);
    let scope_spans = object([("scope", scope), ("spans", Value::Array(spans))]);
    let resource_spans = object([
        ("resource", object([("attributes", resource.into_value())])),
        ("scopeSpans", Value::Array(vec![scope_spans])),
    ]);
    object([("resourceSpans", Value::Array(vec![resource_spans]))])
}
