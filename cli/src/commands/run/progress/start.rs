//! How `run` shows its start: the file, the model, the tools and the budgets, as a
//! line on stderr or a `start` event.

use agentloop_core::agent::Budgets;
use agentloop_core::json::Value;
use agentloop_core::vocabulary::member::{BUDGETS, STOP_SENTINEL};

use super::{count, object, Start};
use crate::diag::plural;
use crate::record_line::{bare, quoted};

/// `budgets: max_steps 4, max_tokens 1000` or `no budgets`.
fn budgets_text(budgets: &Budgets) -> String {
    let mut set: Vec<String> = budgets
        .limits()
        .map(|(name, limit)| format!("{name} {limit}"))
        .collect();
    if let Some(sentinel) = &budgets.stop_sentinel {
        set.push(format!("{STOP_SENTINEL} {}", quoted(sentinel)));
    }
    if set.is_empty() {
        String::from("no budgets")
    } else {
        format!("budgets: {}", set.join(", "))
    }
}

pub(super) fn start_event(start: &Start<'_>) -> Value {
    object(vec![
        ("event", Value::from("start")),
        ("file", Value::from(start.file)),
        ("model", Value::from(start.model.as_str())),
        ("url", Value::from(start.url)),
        (
            "tools",
            Value::Array(
                start
                    .tools
                    .iter()
                    .map(|t| Value::from(t.as_str()))
                    .collect(),
            ),
        ),
        ("records", count(start.records)),
        (BUDGETS, start.budgets.encode()),
        (
            "renamed",
            Value::Array(
                start
                    .renamed
                    .iter()
                    .map(|(name, server, mcp_name)| {
                        object(vec![
                            ("name", Value::from(name.as_str())),
                            ("server", count(*server as u64)),
                            ("mcp_name", Value::from(mcp_name.as_str())),
                        ])
                    })
                    .collect(),
            ),
        ),
    ])
}

/// `run: openai:gpt-4.1-mini at URL; tools add, echo; t.jsonl (new); no budgets`.
pub(super) fn start_line(start: &Start<'_>) -> String {
    let tools = if start.tools.is_empty() {
        String::from("no tools")
    } else {
        let names: Vec<String> = start
            .tools
            .iter()
            .map(
                |name| match start.renamed.iter().find(|(n, _, _)| n == name) {
                    Some((_, server, mcp_name)) => format!(
                        "{} (MCP server {server}'s {})",
                        bare(name),
                        quoted(mcp_name)
                    ),
                    None => bare(name),
                },
            )
            .collect();
        format!("tools {}", names.join(", "))
    };
    let file = if start.records == 0 {
        format!("{} (new)", start.file)
    } else {
        format!(
            "{} (resumed after {})",
            start.file,
            plural(start.records, "record")
        )
    };
    format!(
        "run: {} at {}; {tools}; {file}; {}",
        bare(&start.model),
        start.url,
        budgets_text(start.budgets)
    )
}
