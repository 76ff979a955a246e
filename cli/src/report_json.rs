//! `verify --json`: one canonical JSON object per input.

use agentloop_core::jcs::{self, EncodeError};
use agentloop_core::json::{Object, Value};
use agentloop_core::verify::{Fault, Report};

/// A count as a JSON number (exact below 2^53, which every count here is).
fn number(n: u64) -> Value {
    Value::Number(n as f64)
}

/// An optional count: a number, or `null`.
fn number_or_null(n: Option<u64>) -> Value {
    n.map_or(Value::Null, number)
}

/// One fault: `{"detail","index","kind","line"}`, `index`/`line` null where None.
fn fault_value(fault: &Fault) -> Value {
    let mut object = Object::new();
    object.insert("index", number_or_null(fault.index));
    object.insert("line", number_or_null(fault.line));
    object.insert("kind", Value::from(fault.kind.as_str()));
    object.insert("detail", Value::from(fault.detail.to_string()));
    Value::Object(object)
}

/// The report of one input: `file`, `ok`, `count`, `head`, `faults`, plus
/// `faults_omitted` when some were left out and `beyond_checkpoint` (a number, or
/// null when the transcript is shorter than the checkpoint) when a checkpoint was given.
pub fn report_value(file: &str, report: &Report, with_checkpoint: bool) -> Value {
    let mut object = Object::new();
    object.insert("file", Value::from(file));
    object.insert("ok", Value::Bool(report.ok()));
    object.insert("count", number(report.count));
    let head = report
        .head
        .map_or(Value::Null, |h| Value::String(h.to_string()));
    object.insert("head", head);
    let faults = report.faults.iter().map(fault_value).collect::<Vec<_>>();
    object.insert("faults", Value::Array(faults));
    if report.faults_omitted > 0 {
        object.insert("faults_omitted", number(report.faults_omitted));
    }
    if with_checkpoint {
        object.insert(
            "beyond_checkpoint",
            number_or_null(report.beyond_checkpoint),
        );
    }
    Value::Object(object)
}

/// The canonical encoding of `value` followed by a newline.
pub fn to_line(value: &Value) -> Result<Vec<u8>, EncodeError> {
    let mut line = jcs::to_vec(value)?;
    line.push(b'\n');
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentloop_core::verify::FaultKind;
    use agentloop_core::Hash;

    #[test]
    fn shape() {
        let report = Report {
            count: 2,
            head: Some(Hash::ZERO),
            root: None,
            first: None,
            faults: vec![Fault {
                index: None,
                line: None,
                kind: FaultKind::Unreadable,
                detail: "gone".into(),
            }],
            faults_omitted: 3,
            beyond_checkpoint: None,
        };
        let line = to_line(&report_value("t", &report, true)).unwrap();
        let zeros = "0".repeat(64);
        let expected = format!(
            "{{\"beyond_checkpoint\":null,\"count\":2,\"faults\":[{{\"detail\":\"gone\",\
             \"index\":null,\"kind\":\"unreadable\",\"line\":null}}],\"faults_omitted\":3,\
             \"file\":\"t\",\"head\":\"{zeros}\",\"ok\":false}}\n"
        );
        assert_eq!(String::from_utf8(line).unwrap(), expected);
    }
}
