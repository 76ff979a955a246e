//! What `run` shows as it goes: one line per record on stderr, or with `--json` one
//! JSON event per record on stdout; a start and an end (docs/cli.md has the shapes).
//!
//! This file holds [`Progress`] and the end; the start (`start`) and each record
//! (`record`) are shown by the files beside it.

mod record;
mod start;
#[cfg(test)]
mod tests;

use std::io::{self, Write};

use agentloop_core::agent::{Budgets, Record};
use agentloop_core::driver::Counts;
use agentloop_core::durable::Appended;
use agentloop_core::json::{Object, Value};

use crate::failure::Failure;
use crate::report_json::to_line;
use crate::terminal;
use record::{record_event, record_line};
use start::{start_event, start_line};

/// How the run began, for the first line or event.
pub struct Start<'a> {
    /// `--out`, as given.
    pub file: &'a str,
    /// `openai:NAME` or `anthropic:NAME`.
    pub model: String,
    /// The URL requests go to.
    pub url: &'a str,
    /// The tools offered, by name.
    pub tools: Vec<String>,
    /// The MCP tools offered under another name than their own: (name, server,
    /// name on the server).
    pub renamed: Vec<(String, usize, String)>,
    /// Records already in the file (a resumed run), 0 for a new one.
    pub records: u64,
    /// The budgets in force.
    pub budgets: &'a Budgets,
}

/// How the run ended, for the last event.
pub struct End<'a> {
    /// The stop reason.
    pub reason: &'a str,
    /// The exit status the command ends with.
    pub exit: u8,
    /// Records in the file.
    pub count: u64,
    /// The file's head.
    pub head: String,
    /// The checkpoint written, if any.
    pub checkpoint: Option<String>,
}

/// Where the progress goes: lines on stderr and the summary on `out`, or every event
/// on `out` as JSON.
pub struct Progress<'o> {
    out: &'o mut dyn Write,
    json: bool,
    budgets: Budgets,
}

impl<'o> Progress<'o> {
    /// Progress lines on stderr, the summary on `out`; JSON events on `out` instead
    /// when `json`.
    pub fn new(out: &'o mut dyn Write, json: bool, budgets: Budgets) -> Progress<'o> {
        Progress { out, json, budgets }
    }

    /// The first line or event.
    pub fn start(&mut self, start: &Start<'_>) -> Result<(), Failure> {
        if self.json {
            emit(self.out, &start_event(start))
        } else {
            say(&start_line(start));
            Ok(())
        }
    }

    /// One record, just appended.
    pub fn record(
        &mut self,
        record: &Record,
        appended: &Appended,
        counts: Counts,
    ) -> Result<(), Failure> {
        if self.json {
            emit(self.out, &record_event(record, appended, counts))
        } else {
            say(&record_line(record, counts, &self.budgets));
            Ok(())
        }
    }

    /// The end: the end event, or the summary lines (`text`, each ending in a newline).
    pub fn end(&mut self, end: &End<'_>, text: &str) -> Result<(), Failure> {
        if self.json {
            emit(self.out, &end_event(end))
        } else {
            self.out
                .write_all(terminal::escape_lines(text).as_bytes())
                .and_then(|()| self.out.flush())
                .map_err(Failure::Stdout)
        }
    }
}

/// Writes one event line and pushes it out, so a reader sees it as the run goes.
fn emit(out: &mut dyn Write, event: &Value) -> Result<(), Failure> {
    let line = to_line(event).map_err(|error| Failure::Encode {
        name: String::from("a progress event"),
        error,
    })?;
    out.write_all(&line)
        .and_then(|()| out.flush())
        .map_err(Failure::Stdout)
}

/// Writes a progress line to stderr, escaped by the one rule of [`terminal`] (it shows
/// model text and tool names); a failure to write there is ignored (there is nowhere
/// to report it).
fn say(line: &str) {
    let _ = writeln!(io::stderr().lock(), "{}", terminal::escape(line));
}

/// A count as a JSON number.
pub(super) fn count(n: u64) -> Value {
    Value::Number(n as f64)
}

/// An object of `members`, in their order.
pub(super) fn object(members: Vec<(&str, Value)>) -> Value {
    let mut object = Object::new();
    for (key, value) in members {
        object.insert(key, value);
    }
    Value::Object(object)
}

fn end_event(end: &End<'_>) -> Value {
    object(vec![
        ("event", Value::from("end")),
        ("reason", Value::from(end.reason)),
        ("exit", count(u64::from(end.exit))),
        ("count", count(end.count)),
        ("head", Value::from(end.head.as_str())),
        ("verified", Value::Bool(true)),
        (
            "checkpoint",
            end.checkpoint.as_deref().map_or(Value::Null, Value::from),
        ),
    ])
}
