//! `agentloop view`'s page: one self-contained HTML file (its style and script inline,
//! nothing fetched) showing a transcript's records as a timeline, verified when the
//! page is made. The page is the templates of this folder (`page.html`, `page.css`,
//! `page.js`) and the run's data as one JSON block, which the script renders with
//! `textContent` only: nothing from the transcript becomes markup.

use agentloop_core::jcs::{self, EncodeError};
use agentloop_core::json::{Object, Value};
use agentloop_core::verify::Report;

use crate::diag::fault_sentence;
use crate::report_json::report_value;
use crate::report_text::{faults_line, ok_line};

mod rows;

pub use rows::Rows;

/// The page's frame; `{{STYLE}}`, `{{DATA}}` and `{{SCRIPT}}` are filled in, in this
/// order (the text filled in is never searched for the next mark).
const PAGE: &str = include_str!("page.html");
/// The page's style.
const STYLE: &str = include_str!("page.css");
/// The page's script: renders the data block.
const SCRIPT: &str = include_str!("page.js");

/// The page for the transcript `name` (as named on the command line; `json_name` as
/// `verify --json` names it), its `rows` and its verification `report`.
pub fn page(
    name: &str,
    json_name: &str,
    rows: Rows,
    report: &Report,
) -> Result<Vec<u8>, EncodeError> {
    let (mut rows, plot) = rows.finish();
    let first = mark_faults(name, &mut rows, report);
    let mut data = Object::new();
    data.insert("file", Value::from(name));
    data.insert("verdict", verdict(name, json_name, report, first));
    data.insert("rows", Value::Array(rows));
    data.insert("plot", plot);
    let json = jcs::to_vec(&Value::Object(data))?;
    let mut out = String::with_capacity(PAGE.len() + STYLE.len() + SCRIPT.len() + json.len());
    let mut rest = PAGE;
    for (mark, fill) in [
        ("{{STYLE}}", STYLE),
        ("{{DATA}}", &script_safe(&json)),
        ("{{SCRIPT}}", SCRIPT),
    ] {
        let (before, after) = rest.split_once(mark).unwrap_or((rest, ""));
        out.push_str(before);
        out.push_str(fill);
        rest = after;
    }
    out.push_str(rest);
    Ok(out.into_bytes())
}

/// JSON text made safe inside a `<script>` element: `<`, `>` and `&` (which JSON has
/// only inside strings) become `\u003c`, `\u003e` and `\u0026`, the same string to a
/// JSON parser; so no `</script`, `<!--` or `<script` can end or change the element.
pub fn script_safe(json: &[u8]) -> String {
    let text = String::from_utf8_lossy(json);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            c => out.push(c),
        }
    }
    out
}

/// Marks each fault on the row of its line (`"faults"`: its sentences) and every row
/// after the first faulty line (`"unverified": true`: not vouched for); returns the first
/// faulty line.
fn mark_faults(name: &str, rows: &mut [Value], report: &Report) -> Option<u64> {
    let first = report.faults.iter().filter_map(|f| f.line).min();
    for fault in &report.faults {
        let Some(line) = fault.line else { continue };
        let Some(Value::Object(row)) = rows.get_mut(line.saturating_sub(1) as usize) else {
            continue;
        };
        let sentence = Value::from(fault_sentence(name, fault));
        let mut list = match row.remove("faults") {
            Some(Value::Array(list)) => list,
            _ => Vec::new(),
        };
        list.push(sentence);
        row.insert("faults", Value::Array(list));
    }
    if let Some(first) = first {
        for row in rows.iter_mut().skip(first as usize) {
            if let Value::Object(row) = row {
                row.insert("unverified", Value::Bool(true));
            }
        }
    }
    first
}

/// The verdict: what `verify --json` prints for the file, with the sentence `verify`
/// prints (`sentence`), its first fault's (`first`) and the first faulty line (`line`).
fn verdict(name: &str, json_name: &str, report: &Report, line: Option<u64>) -> Value {
    let mut value = report_value(json_name, report, false);
    if let Value::Object(object) = &mut value {
        let sentence = match report.ok() {
            true => ok_line(name, report),
            false => faults_line(name, report),
        };
        object.insert("sentence", Value::from(sentence));
        if let Some(fault) = report.faults.first() {
            object.insert("first", Value::from(fault_sentence(name, fault)));
        }
        if let Some(line) = line {
            object.insert("line", Value::Number(line as f64));
        }
    }
    value
}

#[cfg(test)]
mod tests;
