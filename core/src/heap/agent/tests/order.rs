//! At most once: every record the loop writes reaches the sink before the driver calls
//! out again — model, tool or cancellation hook — so a crash while a tool runs leaves
//! on disk every record before that call, and a resume does not run the tool again.

use crate::heap::test_cells::{Cell, RefCell};
use crate::tools::ToolOptions;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;

use super::*;
use crate::agent::StopReason;
use crate::model::{Message, Model};
use crate::sink::{RecordSink, SinkError};
use crate::tools::ToolError;

/// What the driver did, in order.
type Log = Arc<RefCell<Vec<String>>>;

/// A model that logs each call and answers from a script.
struct LoggingModel {
    log: Log,
    replies: Vec<Reply>,
}

impl Model for LoggingModel {
    fn reply(&mut self, _: &[Message], _: &[ToolSpec]) -> Result<Reply, ModelError> {
        self.log.borrow_mut().push(String::from("model"));
        if self.replies.is_empty() {
            return Err(ModelError::new("the script ran out"));
        }
        Ok(self.replies.remove(0))
    }
}

/// A sink that logs each record's kind (and keeps its line).
struct LoggingSink {
    log: Log,
    lines: Vec<u8>,
}

impl RecordSink for LoggingSink {
    fn record(&mut self, line: &[u8]) -> Result<(), SinkError> {
        let record = parse(line.strip_suffix(b"\n").unwrap()).unwrap();
        let kind = record
            .as_object()
            .unwrap()
            .get("kind")
            .and_then(Value::as_str)
            .unwrap();
        self.log.borrow_mut().push(format!("record {kind}"));
        self.lines.extend_from_slice(line);
        Ok(())
    }
}

/// A tool `name` that logs its runs.
fn logging_tool(name: &str, log: &Log) -> Box<dyn Tool> {
    let log = log.clone();
    let entry = format!("tool {name}");
    let spec = ToolSpec::new(name, "logs its runs", j(r#"{"type":"object"}"#));
    Box::new(FnTool::new(spec, move |_: &Value| {
        log.borrow_mut().push(entry.clone());
        Ok(Value::Null)
    }))
}

#[test]
fn every_record_reaches_the_sink_before_the_next_callback() {
    let log: Log = Arc::default();
    let mut tools = Toolbox::new();
    tools
        .register(logging_tool("t", &log), ToolOptions::new())
        .unwrap();
    let mut model = LoggingModel {
        log: log.clone(),
        replies: vec![
            // A refused call, then a call that runs.
            Reply::new("")
                .with_call("nosuch", j("{}"))
                .with_call("t", j("{}")),
            // A call that runs, then a refused last call.
            Reply::new("")
                .with_call("t", j("{}"))
                .with_call("t", j("[]")),
            Reply::new("done"),
        ],
    };
    let mut sink = LoggingSink {
        log: log.clone(),
        lines: Vec::new(),
    };
    let cancel_log = log.clone();
    let mut cancel = move || {
        cancel_log.borrow_mut().push(String::from("cancel"));
        false
    };
    let outcome = driver::run(
        "order",
        Budgets::default(),
        &mut model,
        &mut tools,
        &mut cancel,
        &mut sink,
        driver::RunOptions::default(),
    )
    .unwrap();
    assert_eq!(outcome.reason, StopReason::NoToolCalls);
    let expected = [
        "record task",
        "cancel",
        "model",
        "record assistant",
        "cancel",
        "record tool", // nosuch refused: on disk before anything else is asked
        "cancel",
        "tool t",
        "record tool",
        "cancel",
        "model",
        "record assistant",
        "cancel",
        "tool t",
        "record tool",
        "cancel",
        "record tool", // the refused last call: on disk before the model is asked
        "cancel",
        "model",
        "record assistant",
        "record stop",
    ];
    assert_eq!(*log.borrow(), expected);
    assert!(verify::verify_bytes(&sink.lines, &Options::default()).ok());
}

/// Where the process "dies": once set, nothing more reaches the file.
#[derive(Default)]
struct Crash {
    crashed: Cell<bool>,
}

/// A sink into a file that is cut off at the crash.
struct CrashingSink {
    crash: Arc<Crash>,
    file: Vec<u8>,
}

impl RecordSink for CrashingSink {
    fn record(&mut self, line: &[u8]) -> Result<(), SinkError> {
        if self.crash.crashed.get() {
            return Err(SinkError::Refused);
        }
        self.file.extend_from_slice(line);
        Ok(())
    }
}

/// A tool with an effect outside the transcript: it counts its runs (not idempotent).
fn effectful(runs: &Arc<Cell<u32>>, crash: Option<&Arc<Crash>>) -> Box<dyn Tool> {
    let runs = runs.clone();
    let crash = crash.cloned();
    let spec = ToolSpec::new("t", "has an effect", j(r#"{"type":"object"}"#));
    Box::new(FnTool::new(spec, move |_: &Value| {
        runs.set(runs.get() + 1);
        if let Some(crash) = &crash {
            // The effect happened; the process dies before the result is recorded.
            crash.crashed.set(true);
            return Err(ToolError::new("the process died"));
        }
        Ok(Value::Null)
    }))
}

#[test]
fn a_crash_while_a_tool_runs_then_resume_runs_it_at_most_once() {
    let script = || {
        vec![
            Reply::new("")
                .with_call("nosuch", j("{}"))
                .with_call("t", j("{}")),
            Reply::new("done"),
        ]
    };
    let runs = Arc::new(Cell::new(0u32));
    let crash = Arc::new(Crash::default());
    let mut tools = Toolbox::new();
    tools
        .register(effectful(&runs, Some(&crash)), ToolOptions::new())
        .unwrap();
    let mut sink = CrashingSink {
        crash: crash.clone(),
        file: Vec::new(),
    };
    let died = driver::run(
        "crash",
        Budgets::default(),
        &mut Scripted::new(script()),
        &mut tools,
        &mut || false,
        &mut sink,
        driver::RunOptions::default(),
    );
    assert!(died.is_err(), "the sink refused after the crash: {died:?}");
    assert_eq!(runs.get(), 1);
    // On disk: the task, the turn and the refusal of the call before `t`.
    let kinds: Vec<String> = crate::export::parse_records(&sink.file)
        .unwrap()
        .iter()
        .map(|r| {
            r.as_object()
                .unwrap()
                .get("kind")
                .and_then(Value::as_str)
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(kinds, ["task", "assistant", "tool"]);

    // A new process resumes the file with the same (non-idempotent) tool.
    let mut tools = Toolbox::new();
    tools
        .register(effectful(&runs, None), ToolOptions::new())
        .unwrap();
    let mut file = sink.file.clone();
    let outcome = driver::testing::resume(
        &sink.file,
        Budgets::default(),
        &mut Scripted::new(script().split_off(1)),
        &mut tools,
        &mut || false,
        &mut file,
    )
    .unwrap();
    assert_eq!(outcome.reason, StopReason::NoToolCalls);
    assert_eq!(runs.get(), 1, "the tool ran again after the crash");
    assert!(verify::verify_bytes(&file, &Options::default()).ok());
    let records = crate::export::parse_records(&file).unwrap();
    let lost = records[3]
        .as_object()
        .unwrap()
        .get("payload")
        .unwrap()
        .as_object()
        .unwrap();
    assert_eq!(lost.get("id").and_then(Value::as_str), Some("call_1_1"));
    assert_eq!(
        lost.get("error").and_then(Value::as_str),
        Some(crate::agent::result_lost_sentence("t").as_str())
    );
}
