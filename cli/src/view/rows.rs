//! The page's reading of a transcript: one row per line of the file, each record read
//! through the typed vocabulary (`agentloop_core::vocabulary`, the types the OTLP
//! mapping reads too) and its envelope through `agentloop_otel::entry`; and the plot's
//! points, the budgets' running totals per turn.
//!
//! The page's own member names are short and none is a payload member's (the
//! vocabulary spells those): a row is `{"n": line, "seq", "kind", "hash", "body"}`
//! with `body` the decoded payload, or `{"n", "raw", "why"}` for a line that is not a
//! record the page can read.

use agentloop_core::jcs;
use agentloop_core::json::{self, Object, Value};
use agentloop_core::verify::LineEvent;
use agentloop_core::vocabulary::{
    AssistantPayload, Budgets, RecordKind, ResumePayload, Setup, SetupPayload, StopPayload,
    TaskPayload, ToolPayload,
};
use agentloop_otel::{entry, Entry};

use crate::failure::parse_verdict;

/// Why a JSON line is not a record.
const NOT_A_RECORD: &str =
    "not a record: expected an object with a 64-hex hash, an integer seq, a string kind and a payload";

/// An object of the page's model from its members.
fn obj<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut object = Object::new();
    for (key, value) in members {
        if value != Value::Null {
            object.insert(key, value);
        }
    }
    Value::Object(object)
}

/// A count as a JSON number (exact: counts in a record are at most 2^53 − 1).
fn num(n: u64) -> Value {
    Value::Number(n as f64)
}

/// An optional string.
fn opt(text: Option<&str>) -> Value {
    text.map_or(Value::Null, Value::from)
}

/// A value's canonical JSON text, shown as text on the page (never as markup).
fn json_text(value: &Value) -> String {
    match jcs::to_vec(value) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => format!("<{e}>"),
    }
}

/// The plot's running totals: one point per turn (`assistant` record).
#[derive(Debug, Default)]
struct Totals {
    tokens: u64,
    total: u64,
    calls: u64,
    points: Vec<Value>,
}

impl Totals {
    /// A turn: its tokens and input tokens counted, a point added.
    fn turn(&mut self, seq: u64, turn: &AssistantPayload) {
        self.tokens = self.tokens.saturating_add(turn.tokens);
        let input = turn.provider.input_tokens.unwrap_or(0);
        self.total = self.total.saturating_add(turn.tokens).saturating_add(input);
        self.points.push(self.point(seq));
    }

    /// A `tool` record: a call counted, in the last turn's point.
    fn call(&mut self, seq: u64) {
        self.calls = self.calls.saturating_add(1);
        let point = self.point(seq);
        match self.points.last_mut() {
            Some(last) => *last = point,
            None => self.points.push(point),
        }
    }

    fn point(&self, seq: u64) -> Value {
        Value::Array(vec![
            num(seq),
            num(self.tokens),
            num(self.total),
            num(self.calls),
        ])
    }
}

/// The rows of a transcript, pushed one line at a time.
#[derive(Debug, Default)]
pub struct Rows {
    rows: Vec<Value>,
    records: u64,
    budgets: Option<Budgets>,
    totals: Totals,
}

impl Rows {
    /// Reads one line of the file (its 1-based number is the row count after it).
    pub fn push(&mut self, event: LineEvent<'_>) {
        let n = num(self.rows.len() as u64 + 1);
        let row = match event {
            LineEvent::Line(content) => self.line(n, content, false),
            LineEvent::TornTail(tail) => self.line(n, tail, true),
            LineEvent::TooLong(len) | LineEvent::LongTornTail(len) => obj([
                ("n", n),
                ("raw", Value::from("")),
                (
                    "why",
                    Value::from(format!(
                        "the line is {len} bytes long, more than the line limit: not shown"
                    )),
                ),
            ]),
        };
        self.rows.push(row);
    }

    /// Whether any line was a record (a file with lines and none is not a transcript).
    pub fn any_record(&self) -> bool {
        self.records > 0
    }

    /// The number of lines read.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// The rows, and the plot: `{"points": [[seq, tokens, total tokens, tool
    /// calls]…], "limits": [[budget, limit]…], "sentinel"}`.
    pub fn finish(self) -> (Vec<Value>, Value) {
        let budgets = self.budgets.unwrap_or_default();
        let limits = budgets
            .limits()
            .map(|(name, limit)| Value::Array(vec![Value::from(name), num(limit)]))
            .collect();
        let plot = obj([
            ("points", Value::Array(self.totals.points)),
            ("limits", Value::Array(limits)),
            ("sentinel", opt(budgets.stop_sentinel.as_deref())),
        ]);
        (self.rows, plot)
    }

    /// The row of one line's bytes.
    fn line(&mut self, n: Value, content: &[u8], torn: bool) -> Value {
        let torn = match torn {
            true => Value::Bool(true),
            false => Value::Null,
        };
        let raw = || Value::from(String::from_utf8_lossy(content).into_owned());
        let value = match json::parse_record_line(content) {
            Ok(value) => value,
            Err(e) => {
                let verdict = parse_verdict(e.kind());
                let why = format!(
                    "the line {verdict} (column {}): {}",
                    e.offset() + 1,
                    e.kind()
                );
                return obj([
                    ("n", n),
                    ("raw", raw()),
                    ("why", Value::from(why)),
                    ("torn", torn),
                ]);
            }
        };
        let record = match entry(self.rows.len(), &value) {
            Ok(record) => record,
            // The one error `entry` gives names the record by position: the row says it.
            Err(_) => {
                return obj([
                    ("n", n),
                    ("raw", raw()),
                    ("why", Value::from(NOT_A_RECORD)),
                    ("torn", torn),
                ])
            }
        };
        self.records += 1;
        let (body, why) = match self.body(&record) {
            Ok(body) => (body, Value::Null),
            Err(why) => (Value::Null, Value::from(why)),
        };
        let raw = match body {
            Value::Null => Value::from(json_text(record.payload)),
            _ => Value::Null,
        };
        obj([
            ("n", n),
            ("seq", num(record.seq)),
            ("kind", Value::from(record.kind)),
            ("hash", Value::from(record.hash.to_string())),
            ("body", body),
            ("raw", raw),
            ("why", why),
            ("torn", torn),
        ])
    }

    /// The decoded payload of a record of a kind the loop writes, or why it is shown
    /// raw (`Ok(Null)` for another kind, shown raw with no complaint).
    fn body(&mut self, record: &Entry<'_>) -> Result<Value, String> {
        let Some(kind) = RecordKind::from_name(record.kind) else {
            return Ok(Value::Null);
        };
        let why = |e: agentloop_core::vocabulary::PayloadError| e.to_string();
        Ok(match kind {
            RecordKind::Task => {
                let task = TaskPayload::decode(record.payload).map_err(why)?;
                let body = task_body(&task);
                self.budgets.get_or_insert(task.budgets);
                body
            }
            RecordKind::Assistant => {
                let turn = AssistantPayload::decode(record.payload).map_err(why)?;
                self.totals.turn(record.seq, &turn);
                assistant_body(&turn)
            }
            RecordKind::Tool => {
                let result = ToolPayload::decode(record.payload).map_err(why)?;
                self.totals.call(record.seq);
                tool_body(&result)
            }
            RecordKind::Stop => stop_body(&StopPayload::decode(record.payload).map_err(why)?),
            RecordKind::Resume => {
                let resume = ResumePayload::decode(record.payload).map_err(why)?;
                obj([
                    ("since", Value::from(resume.after.as_str())),
                    ("conf", setup_body(resume.setup.as_ref())),
                ])
            }
            RecordKind::Setup => {
                let changed = SetupPayload::decode(record.payload).map_err(why)?;
                obj([
                    ("why", Value::from(changed.reason.as_str())),
                    ("conf", setup_body(Some(&changed.setup))),
                ])
            }
        })
    }
}

/// A `task` record: its text, budgets, tool limits and setup.
fn task_body(task: &TaskPayload) -> Value {
    let limits = task
        .budgets
        .limits()
        .map(|(name, limit)| Value::Array(vec![Value::from(name), num(limit)]));
    let tool_limits = task
        .tool_limits
        .iter()
        .map(|(name, limit)| Value::Array(vec![Value::from(name.as_str()), num(*limit)]));
    obj([
        ("ask", Value::from(task.task.as_str())),
        ("limits", Value::Array(limits.chain(tool_limits).collect())),
        ("sentinel", opt(task.budgets.stop_sentinel.as_deref())),
        ("conf", setup_body(task.setup.as_ref())),
    ])
}

/// A setup: the model, endpoint, system prompt, options and the tools offered.
fn setup_body(setup: Option<&Setup>) -> Value {
    let Some(setup) = setup else {
        return Value::Null;
    };
    let model = setup
        .model
        .as_ref()
        .map(|m| Value::from(format!("{}:{}", m.provider, m.name)));
    let tools = setup
        .tools
        .iter()
        .map(|t| Value::from(t.name.as_str()))
        .collect();
    let options = match setup.options.is_empty() {
        true => Value::Null,
        false => Value::from(json_text(&Value::Object(setup.options.clone()))),
    };
    obj([
        ("llm", model.unwrap_or(Value::Null)),
        ("address", opt(setup.endpoint.as_deref())),
        ("system", opt(setup.system.as_deref())),
        ("options", options),
        ("tools", Value::Array(tools)),
    ])
}

/// An `assistant` record: its text, calls (arguments as JSON text), tokens and what the
/// provider reported.
fn assistant_body(turn: &AssistantPayload) -> Value {
    let calls = turn
        .tool_calls
        .iter()
        .map(|call| {
            obj([
                ("call", Value::from(call.id.as_str())),
                ("tool", Value::from(call.name.as_str())),
                ("args", Value::from(json_text(&call.arguments))),
            ])
        })
        .collect();
    let report = &turn.provider;
    let hex = |h: &Option<agentloop_core::Hash>| h.map_or(Value::Null, |h| h.to_string().into());
    let meta = obj([
        ("llm", opt(report.model.as_deref())),
        ("response", opt(report.response_id.as_deref())),
        ("finish", opt(report.finish_reason.as_deref())),
        ("input", report.input_tokens.map_or(Value::Null, num)),
        (
            "cached",
            report.cached_input_tokens.map_or(Value::Null, num),
        ),
        ("req_sha", hex(&report.request_sha256)),
        ("resp_sha", hex(&report.response_sha256)),
    ]);
    obj([
        ("say", Value::from(turn.text.as_str())),
        ("calls", Value::Array(calls)),
        ("spent", num(turn.tokens)),
        ("meta", meta),
    ])
}

/// A `tool` record: the call it answers, and its value (JSON text) or error sentence.
fn tool_body(result: &ToolPayload) -> Value {
    let (fine, out) = match &result.result {
        Ok(value) => (true, json_text(value)),
        Err(sentence) => (false, sentence.clone()),
    };
    obj([
        ("call", Value::from(result.id.as_str())),
        ("tool", Value::from(result.name.as_str())),
        ("fine", Value::Bool(fine)),
        ("out", Value::from(out)),
    ])
}

/// A `stop` record: why, and the counts it states.
fn stop_body(stop: &StopPayload) -> Value {
    obj([
        ("why", Value::from(stop.reason.as_str())),
        ("turns", num(stop.steps)),
        ("spent", num(stop.tokens)),
        ("unrun", num(stop.unrun_calls)),
        ("fail", opt(stop.error.as_deref())),
    ])
}
