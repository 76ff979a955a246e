//! Tests of the exports. The pairing-rule checkers below are written from the
//! providers' documented rules, not from the converter: a history passes only if the
//! provider would accept its tool-call structure.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::conversation::HistoryErrorKind;
use super::*;
use crate::agent::Budgets;
use crate::chain::Chain;
use crate::demo;
use crate::driver;
use crate::jcs::to_vec;
use crate::json::{parse, Object};
use crate::model::{Reply, Scripted};
use crate::provider::Provider;

// ---------------------------------------------------------------------------------
// The checkers.

fn get<'a>(o: &'a Object, key: &str) -> Result<&'a Value, String> {
    o.get(key).ok_or_else(|| format!("missing \"{key}\""))
}

fn get_str<'a>(o: &'a Object, key: &str) -> Result<&'a str, String> {
    get(o, key)?
        .as_str()
        .ok_or_else(|| format!("\"{key}\" is not a string"))
}

/// OpenAI Chat Completions: roles are system/developer/user/assistant/tool; an
/// assistant message has string content, or null content only with `tool_calls`;
/// each tool call is `{id, type:"function", function:{name, arguments: JSON string}}`
/// with a name matching `^[a-zA-Z0-9_-]{1,64}$`;
/// the messages right after an assistant message with `tool_calls` are one `tool`
/// message per call id (here also in call order), and a `tool` message must answer a
/// call of that assistant message; ids are unique.
pub(crate) fn check_openai(history: &Value) -> Result<(), String> {
    let Value::Array(messages) = history else {
        return Err("not an array".into());
    };
    if messages.is_empty() {
        return Err("no messages".into());
    }
    let mut seen_ids = BTreeSet::new();
    let mut answered = BTreeSet::new();
    // Ids of the last assistant message still owed a result, in order.
    let mut owed: Vec<String> = Vec::new();
    let mut first_role = None;
    for (i, message) in messages.iter().enumerate() {
        let m = message
            .as_object()
            .ok_or(format!("message {i}: not an object"))?;
        let role = get_str(m, "role").map_err(|e| format!("message {i}: {e}"))?;
        first_role.get_or_insert(role);
        if role != "tool" && !owed.is_empty() {
            return Err(format!(
                "message {i}: {role} message while calls {owed:?} have no result"
            ));
        }
        match role {
            "system" | "developer" | "user" => {
                get_str(m, "content").map_err(|e| format!("message {i}: {e}"))?;
            }
            "assistant" => {
                let calls = match m.get("tool_calls") {
                    None => &[][..],
                    Some(Value::Array(calls)) if !calls.is_empty() => calls,
                    Some(_) => {
                        return Err(format!("message {i}: tool_calls not a non-empty array"))
                    }
                };
                match m.get("content") {
                    Some(Value::String(_)) => {}
                    Some(Value::Null) | None if !calls.is_empty() => {}
                    _ => return Err(format!("message {i}: assistant content missing")),
                }
                for call in calls {
                    let c = call
                        .as_object()
                        .ok_or(format!("message {i}: call not an object"))?;
                    let id = get_str(c, "id").map_err(|e| format!("message {i}: {e}"))?;
                    if id.is_empty() || !seen_ids.insert(String::from(id)) {
                        return Err(format!("message {i}: empty or duplicate call id {id}"));
                    }
                    if get_str(c, "type") != Ok("function") {
                        return Err(format!("message {i}: call type is not \"function\""));
                    }
                    let f = get(c, "function")?
                        .as_object()
                        .ok_or(format!("message {i}: function not an object"))?;
                    let name = get_str(f, "name").map_err(|e| format!("message {i}: {e}"))?;
                    if !name_pattern(name) {
                        return Err(format!(
                            "message {i}: call name {name:?} breaks the pattern"
                        ));
                    }
                    let arguments =
                        get_str(f, "arguments").map_err(|e| format!("message {i}: {e}"))?;
                    match parse(arguments.as_bytes()) {
                        Ok(Value::Object(_)) => {}
                        _ => {
                            return Err(format!(
                                "message {i}: arguments are not a JSON object string"
                            ))
                        }
                    }
                    owed.push(String::from(id));
                }
            }
            "tool" => {
                let id = get_str(m, "tool_call_id").map_err(|e| format!("message {i}: {e}"))?;
                get_str(m, "content").map_err(|e| format!("message {i}: {e}"))?;
                if owed.first().map(String::as_str) != Some(id) {
                    return Err(format!(
                        "message {i}: result for {id}, but the next call owed a result is {:?}",
                        owed.first()
                    ));
                }
                if !answered.insert(String::from(id)) {
                    return Err(format!("message {i}: second result for {id}"));
                }
                owed.remove(0);
            }
            other => return Err(format!("message {i}: unknown role {other}")),
        }
    }
    if !owed.is_empty() {
        return Err(format!("calls {owed:?} have no result"));
    }
    if !matches!(first_role, Some("user" | "system" | "developer")) {
        return Err("the first message is not the user's".into());
    }
    if answered != seen_ids {
        return Err("calls and results differ".into());
    }
    Ok(())
}

/// A tool name both providers accept: `^[a-zA-Z0-9_-]{1,64}$`.
fn name_pattern(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn id_pattern(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Anthropic Messages: roles are user and assistant only, strictly alternating, the
/// first a user message; content is a non-empty array of blocks; text blocks hold a
/// character other than white space (the API refuses "text content blocks must contain
/// non-whitespace text"); `tool_use` (assistant only) has an id matching `^[a-zA-Z0-9_-]+$`, a
/// name matching `^[a-zA-Z0-9_-]{1,64}$` and an object `input`; an assistant message with `tool_use` blocks must be
/// followed by one user message whose content starts with exactly one `tool_result`
/// per `tool_use` id (here also in call order), before any other block; a
/// `tool_result` answers a `tool_use` of the assistant message right before; ids are
/// unique.
pub(crate) fn check_anthropic(history: &Value) -> Result<(), String> {
    let Value::Array(messages) = history else {
        return Err("not an array".into());
    };
    if messages.is_empty() {
        return Err("no messages".into());
    }
    let mut seen_ids = BTreeSet::new();
    let mut answered = BTreeSet::new();
    let mut owed: Vec<String> = Vec::new();
    let mut previous_role = None;
    for (i, message) in messages.iter().enumerate() {
        let m = message
            .as_object()
            .ok_or(format!("message {i}: not an object"))?;
        let role = get_str(m, "role").map_err(|e| format!("message {i}: {e}"))?;
        let expected = match previous_role {
            None | Some("assistant") => "user",
            _ => "assistant",
        };
        if role != expected {
            return Err(format!("message {i}: role {role}, expected {expected}"));
        }
        previous_role = Some(role);
        let Some(Value::Array(blocks)) = m.get("content") else {
            return Err(format!("message {i}: content is not an array"));
        };
        if blocks.is_empty() {
            return Err(format!("message {i}: empty content"));
        }
        let mut results_done = false;
        let owed_here = core::mem::take(&mut owed);
        let mut results = Vec::new();
        for block in blocks {
            let b = block
                .as_object()
                .ok_or(format!("message {i}: block not an object"))?;
            match get_str(b, "type").map_err(|e| format!("message {i}: {e}"))? {
                "text" => {
                    if get_str(b, "text")
                        .map_err(|e| format!("message {i}: {e}"))?
                        .trim()
                        .is_empty()
                    {
                        return Err(format!("message {i}: empty or white-space text block"));
                    }
                    results_done = true;
                }
                "tool_use" => {
                    if role != "assistant" {
                        return Err(format!("message {i}: tool_use in a {role} message"));
                    }
                    let id = get_str(b, "id").map_err(|e| format!("message {i}: {e}"))?;
                    if !id_pattern(id) || !seen_ids.insert(String::from(id)) {
                        return Err(format!("message {i}: bad or duplicate tool_use id {id}"));
                    }
                    let name = get_str(b, "name").map_err(|e| format!("message {i}: {e}"))?;
                    if !name_pattern(name) {
                        return Err(format!(
                            "message {i}: tool_use name {name:?} breaks the pattern"
                        ));
                    }
                    if !matches!(b.get("input"), Some(Value::Object(_))) {
                        return Err(format!("message {i}: tool_use input is not an object"));
                    }
                    owed.push(String::from(id));
                }
                "tool_result" => {
                    if role != "user" || results_done {
                        return Err(format!(
                            "message {i}: tool_result not at the start of a user message"
                        ));
                    }
                    let id = get_str(b, "tool_use_id").map_err(|e| format!("message {i}: {e}"))?;
                    match b.get("content") {
                        Some(Value::String(_) | Value::Array(_)) | None => {}
                        _ => return Err(format!("message {i}: tool_result content malformed")),
                    }
                    match b.get("is_error") {
                        None | Some(Value::Bool(_)) => {}
                        _ => return Err(format!("message {i}: is_error is not a boolean")),
                    }
                    if !answered.insert(String::from(id)) {
                        return Err(format!("message {i}: second result for {id}"));
                    }
                    results.push(String::from(id));
                }
                other => return Err(format!("message {i}: unknown block type {other}")),
            }
        }
        if results != owed_here {
            return Err(format!(
                "message {i}: results {results:?}, but the calls before were {owed_here:?}"
            ));
        }
    }
    if !owed.is_empty() {
        return Err(format!("calls {owed:?} have no result"));
    }
    if answered != seen_ids {
        return Err("calls and results differ".into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------
// Helpers.

fn text(value: &Value) -> String {
    String::from_utf8(to_vec(value).unwrap()).unwrap()
}

fn records_of(bytes: &[u8]) -> Vec<Value> {
    parse_records(bytes).unwrap()
}

/// A task record, for [`chained`].
const TASK: (&str, &str) = ("task", r#"{"budgets":{},"task":"t"}"#);

/// A turn with one call, `call_1_0` to `echo`, for [`chained`].
const ONE_CALL: (&str, &str) = (
    "assistant",
    r#"{"text":"","tokens":1,"tool_calls":[{"arguments":{},"id":"call_1_0","name":"echo"}]}"#,
);

/// Records from `(kind, payload JSON)` pairs, chained and parsed back.
fn chained(records: &[(&str, &str)]) -> Vec<Value> {
    let mut chain = Chain::new();
    let mut bytes = Vec::new();
    for (kind, payload) in records {
        bytes.extend_from_slice(chain.append_json(kind, payload.as_bytes()).unwrap());
    }
    records_of(&bytes)
}

fn array(value: &Value) -> &[Value] {
    match value {
        Value::Array(items) => items,
        _ => panic!("not an array: {}", text(value)),
    }
}

fn member<'a>(value: &'a Value, key: &str) -> &'a Value {
    value.as_object().and_then(|o| o.get(key)).unwrap()
}

/// Runs a scripted model over the demo tools, cancelling at check point `cancel_at`
/// (1-based; 0 never).
fn run(replies: Vec<Reply>, budgets: Budgets, cancel_at: usize) -> Vec<Value> {
    let mut tools = demo::toolbox().unwrap();
    let mut model = Scripted::new(replies);
    let mut bytes = Vec::new();
    let mut points = 0;
    let mut cancel = || {
        points += 1;
        points == cancel_at
    };
    driver::run(
        "t",
        budgets,
        &mut model,
        &mut tools,
        &mut cancel,
        &mut bytes,
        driver::RunOptions::default(),
    )
    .unwrap();
    records_of(&bytes)
}

fn add(a: f64, b: f64) -> Value {
    parse(format!(r#"{{"a":{a},"b":{b}}}"#).as_bytes()).unwrap()
}

fn greet() -> Value {
    parse(br#"{"name":"ada"}"#).unwrap()
}

// ---------------------------------------------------------------------------------
// Histories.

#[test]
fn demo_transcripts_pass_both_pairing_checkers() {
    for scenario in demo::scenarios() {
        let (bytes, outcome) = scenario.run().unwrap();
        let records = records_of(&bytes);
        let openai = history(Provider::OpenAi, &records).unwrap();
        let anthropic = history(Provider::Anthropic, &records).unwrap();
        check_openai(&openai).unwrap_or_else(|e| panic!("{}: {e}", scenario.file_name));
        check_anthropic(&anthropic).unwrap_or_else(|e| panic!("{}: {e}", scenario.file_name));
        // One OpenAI message per task, turn and call; Anthropic alternates.
        let turns = records
            .iter()
            .filter(|r| member(r, "kind") == &Value::from("assistant"));
        let calls: usize = turns
            .clone()
            .map(|r| array(member(member(r, "payload"), "tool_calls")).len())
            .sum();
        assert_eq!(array(&openai).len(), 1 + turns.count() + calls);
        assert_eq!(
            outcome.steps as usize,
            records
                .iter()
                .filter(|r| member(r, "kind") == &Value::from("assistant"))
                .count()
        );
    }
}

#[test]
fn demo_answer_exact_shapes() {
    let (bytes, _) = demo::answer().run().unwrap();
    let records = records_of(&bytes);
    assert_eq!(
        text(&history(Provider::OpenAi, &records).unwrap()),
        concat!(
            r#"[{"content":"add 2 and 40","role":"user"},"#,
            r#"{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{\"a\":2,\"b\":40}","name":"add"},"id":"call_1_0","type":"function"}]},"#,
            r#"{"content":"{\"sum\":42}","role":"tool","tool_call_id":"call_1_0"},"#,
            r#"{"content":"2 + 40 = 42.","role":"assistant"}]"#
        )
    );
    assert_eq!(
        text(&history(Provider::Anthropic, &records).unwrap()),
        concat!(
            r#"[{"content":[{"text":"add 2 and 40","type":"text"}],"role":"user"},"#,
            r#"{"content":[{"id":"call_1_0","input":{"a":2,"b":40},"name":"add","type":"tool_use"}],"role":"assistant"},"#,
            r#"{"content":[{"content":"{\"sum\":42}","tool_use_id":"call_1_0","type":"tool_result"}],"role":"user"},"#,
            r#"{"content":[{"text":"2 + 40 = 42.","type":"text"}],"role":"assistant"}]"#
        )
    );
}

#[test]
fn recover_errors_are_error_results() {
    let (bytes, _) = demo::recover().run().unwrap();
    let records = records_of(&bytes);
    let anthropic = history(Provider::Anthropic, &records).unwrap();
    let results: Vec<(String, bool)> = array(&anthropic)
        .iter()
        .flat_map(|m| array(member(m, "content")).iter())
        .filter(|b| member(b, "type") == &Value::from("tool_result"))
        .map(|b| {
            let content = member(b, "content").as_str().unwrap().to_string();
            let is_error = b.as_object().unwrap().get("is_error") == Some(&Value::Bool(true));
            (content, is_error)
        })
        .collect();
    let mut want: Vec<(String, bool)> = demo::RECOVER_ERRORS
        .iter()
        .map(|e| (String::from(*e), true))
        .collect();
    want.push((String::from(r#"{"sum":42}"#), false));
    assert_eq!(results, want);
    let openai = history(Provider::OpenAi, &records).unwrap();
    let tool_contents: Vec<&str> = array(&openai)
        .iter()
        .filter(|m| member(m, "role") == &Value::from("tool"))
        .map(|m| member(m, "content").as_str().unwrap())
        .collect();
    assert_eq!(&tool_contents[..3], &demo::RECOVER_ERRORS[..]);
}

/// The results of the last turn's calls, as `(id, content)` from the OpenAI history
/// and `(id, content, is_error)` from the Anthropic one.
/// `(id, content)` per OpenAI tool message and `(id, content, is_error)` per Anthropic
/// tool result.
type Results = (Vec<(String, String)>, Vec<(String, String, bool)>);

fn last_results(records: &[Value]) -> Results {
    let openai = history(Provider::OpenAi, records).unwrap();
    check_openai(&openai).unwrap();
    let anthropic = history(Provider::Anthropic, records).unwrap();
    check_anthropic(&anthropic).unwrap();
    let messages = array(&openai);
    let last_assistant = messages
        .iter()
        .rposition(|m| member(m, "role") == &Value::from("assistant"))
        .unwrap();
    let o = messages[last_assistant + 1..]
        .iter()
        .map(|m| {
            let id = member(m, "tool_call_id").as_str().unwrap().to_string();
            (id, member(m, "content").as_str().unwrap().to_string())
        })
        .collect();
    let last = array(&anthropic).last().unwrap();
    let a = array(member(last, "content"))
        .iter()
        .map(|b| {
            let o = b.as_object().unwrap();
            (
                member(b, "tool_use_id").as_str().unwrap().to_string(),
                member(b, "content").as_str().unwrap().to_string(),
                o.get("is_error") == Some(&Value::Bool(true)),
            )
        })
        .collect();
    (o, a)
}

#[test]
fn token_budget_unrun_calls_get_not_run_results() {
    let (bytes, outcome) = demo::budget().run().unwrap();
    assert_eq!(outcome.unrun_calls, 2);
    let (openai, anthropic) = last_results(&records_of(&bytes));
    let not_run = "not run: the loop stopped (token_budget)";
    assert_eq!(
        openai,
        [
            (String::from("call_7_0"), String::from(not_run)),
            (String::from("call_7_1"), String::from(not_run))
        ]
    );
    assert_eq!(
        anthropic,
        [
            (String::from("call_7_0"), String::from(not_run), true),
            (String::from("call_7_1"), String::from(not_run), true)
        ]
    );
}

#[test]
fn cancelled_and_tool_budget_runs_pair_the_unrun_call() {
    let reply = || {
        Reply::new("two calls")
            .with_call("add", add(2.0, 40.0))
            .with_call("greet", greet())
    };
    // Check points: 1 before the turn, 2 before call 0, 3 before call 1.
    let records = run(alloc::vec![reply()], Budgets::default(), 3);
    let (openai, anthropic) = last_results(&records);
    assert_eq!(
        openai,
        [
            (String::from("call_1_0"), String::from(r#"{"sum":42}"#)),
            (
                String::from("call_1_1"),
                String::from("not run: the loop stopped (cancelled)")
            )
        ]
    );
    assert!(!anthropic[0].2);
    assert!(anthropic[1].2);

    // Cancelled before the first call: both unrun.
    let records = run(alloc::vec![reply()], Budgets::default(), 2);
    let (openai, _) = last_results(&records);
    assert!(openai
        .iter()
        .all(|(_, c)| c == "not run: the loop stopped (cancelled)"));
    assert_eq!(openai.len(), 2);

    let budgets = Budgets {
        max_tool_calls: Some(1),
        ..Budgets::default()
    };
    let records = run(alloc::vec![reply()], budgets, 0);
    let (openai, _) = last_results(&records);
    assert_eq!(openai[1].1, "not run: the loop stopped (tool_budget)");

    // Sentinel with a call: recorded, never run.
    let budgets = Budgets {
        stop_sentinel: Some(String::from("DONE")),
        ..Budgets::default()
    };
    let records = run(
        alloc::vec![Reply::new("DONE").with_call("greet", greet())],
        budgets,
        0,
    );
    let (openai, _) = last_results(&records);
    assert_eq!(
        openai,
        [(
            String::from("call_1_0"),
            String::from("not run: the loop stopped (sentinel)")
        )]
    );
}

#[test]
fn model_error_and_empty_turns() {
    // The model fails at once: only the task.
    let records = run(Vec::new(), Budgets::default(), 0);
    let openai = history(Provider::OpenAi, &records).unwrap();
    assert_eq!(text(&openai), r#"[{"content":"t","role":"user"}]"#);
    check_openai(&openai).unwrap();
    check_anthropic(&history(Provider::Anthropic, &records).unwrap()).unwrap();

    // An empty final turn: "" for OpenAI, left out for Anthropic (empty content is refused).
    let records = run(alloc::vec![Reply::new("")], Budgets::default(), 0);
    let openai = history(Provider::OpenAi, &records).unwrap();
    assert_eq!(
        text(&openai),
        r#"[{"content":"t","role":"user"},{"content":"","role":"assistant"}]"#
    );
    let anthropic = history(Provider::Anthropic, &records).unwrap();
    assert_eq!(array(&anthropic).len(), 1);
    check_anthropic(&anthropic).unwrap();
}

#[test]
fn resumed_transcript_keeps_anthropic_roles_alternating() {
    let records = chained(&[
        ("task", r#"{"budgets":{},"task":"t"}"#),
        (
            "assistant",
            r#"{"text":"first","tokens":1,"tool_calls":[{"arguments":[1],"id":"call_1_0","name":"echo"}]}"#,
        ),
        (
            "stop",
            r#"{"reason":"cancelled","steps":1,"tokens":1,"unrun_calls":1}"#,
        ),
        ("resume", r#"{"after":"cancelled"}"#),
        (
            "assistant",
            r#"{"text":"again","tokens":1,"tool_calls":[]}"#,
        ),
        (
            "stop",
            r#"{"reason":"no_tool_calls","steps":2,"tokens":2,"unrun_calls":0}"#,
        ),
        ("resume", r#"{"after":"no_tool_calls"}"#),
        (
            "assistant",
            r#"{"text":"and again","tokens":2,"tool_calls":[]}"#,
        ),
        (
            "stop",
            r#"{"reason":"no_tool_calls","steps":3,"tokens":4,"unrun_calls":0}"#,
        ),
    ]);
    let anthropic = history(Provider::Anthropic, &records).unwrap();
    check_anthropic(&anthropic).unwrap();
    // user, assistant, user (not run), assistant (two turns merged).
    assert_eq!(array(&anthropic).len(), 4);
    assert_eq!(
        text(array(&anthropic).last().unwrap()),
        r#"{"content":[{"text":"again","type":"text"},{"text":"and again","type":"text"}],"role":"assistant"}"#
    );
    // A non-object argument is wrapped for Anthropic, kept as is for OpenAI.
    assert_eq!(
        text(member(
            &array(member(&array(&anthropic)[1], "content"))[1],
            "input"
        )),
        r#"{"arguments":[1]}"#
    );
    let openai = history(Provider::OpenAi, &records).unwrap();
    assert_eq!(array(&openai).len(), 5);
    assert_eq!(
        member(&array(&openai)[2], "content"),
        &Value::from("not run: the loop stopped (cancelled)")
    );
}

#[test]
fn made_up_call_names_are_exported_as_safe_names() {
    let long = "x".repeat(100);
    let names = [
        "my tool",
        "multi_tool_use.parallel",
        "",
        "café",
        long.as_str(),
    ];
    let mut reply = Reply::new("calls");
    for name in names {
        reply = reply.with_call(name, Value::Object(Object::new()));
    }
    let records = run(
        alloc::vec![reply, Reply::new("done")],
        Budgets::default(),
        0,
    );
    // The transcript keeps what the model asked for, answered ok:false.
    let recorded: Vec<&str> = array(member(member(&records[1], "payload"), "tool_calls"))
        .iter()
        .map(|c| member(c, "name").as_str().unwrap())
        .collect();
    assert_eq!(recorded, names);
    let openai = history(Provider::OpenAi, &records).unwrap();
    check_openai(&openai).unwrap();
    let anthropic = history(Provider::Anthropic, &records).unwrap();
    check_anthropic(&anthropic).unwrap();
    let openai_names: Vec<&str> = array(member(&array(&openai)[1], "tool_calls"))
        .iter()
        .map(|c| member(member(c, "function"), "name").as_str().unwrap())
        .collect();
    let anthropic_names: Vec<&str> = array(member(&array(&anthropic)[1], "content"))
        .iter()
        .filter(|b| member(b, "type") == &Value::from("tool_use"))
        .map(|b| member(b, "name").as_str().unwrap())
        .collect();
    // The documented mapping: up to 40 characters, each outside [A-Za-z0-9_-] as `_`,
    // then `-` and the first 16 hex digits of the name's SHA-256.
    let expected = [
        "my_tool-ba077b4202dcd661".to_string(),
        "multi_tool_use_parallel-41c06c9ed9d3579b".to_string(),
        "-e3b0c44298fc1c14".to_string(),
        "caf_-850f7dc43910ff89".to_string(),
        format!("{}-{}", "x".repeat(40), "09ecb6ebc8bcefc7"),
    ];
    assert_eq!(openai_names, expected);
    assert_eq!(anthropic_names, expected);
    // The results still say what was asked for.
    assert_eq!(
        member(&array(&openai)[2], "content"),
        &Value::from("no tool named 'my tool' (have: add, echo, fail, greet)")
    );
}

#[test]
fn transcript_without_stop_pairs_pending_calls() {
    let records = chained(&[TASK, ONE_CALL]);
    let openai = history(Provider::OpenAi, &records).unwrap();
    check_openai(&openai).unwrap();
    assert_eq!(
        member(&array(&openai)[2], "content"),
        &Value::from("not run: the transcript ends before its result")
    );
}

#[test]
fn records_that_are_not_a_loop_transcript_are_refused() {
    let (task, turn) = (TASK, ONE_CALL);
    let answer = (
        "tool",
        r#"{"id":"call_1_0","name":"echo","ok":true,"value":{}}"#,
    );
    let stop = (
        "stop",
        r#"{"reason":"no_tool_calls","steps":1,"tokens":1,"unrun_calls":0}"#,
    );
    type Case<'a> = (&'a [(&'a str, &'a str)], usize, HistoryErrorKind);
    let cases: &[Case] = &[
        (&[], 0, HistoryErrorKind::NoTask),
        (&[turn], 0, HistoryErrorKind::NoTask),
        (&[task, task], 1, HistoryErrorKind::SecondTask),
        (&[task, answer], 1, HistoryErrorKind::ToolWithoutCall),
        (
            &[task, turn, answer, answer],
            3,
            HistoryErrorKind::ToolWithoutCall,
        ),
        (
            &[
                task,
                turn,
                (
                    "tool",
                    r#"{"id":"call_1_0","name":"add","ok":true,"value":{}}"#,
                ),
            ],
            2,
            HistoryErrorKind::ToolWithoutCall,
        ),
        (&[task, turn, turn], 2, HistoryErrorKind::CallUnanswered),
        (&[task, turn, answer, turn], 3, HistoryErrorKind::BadCallId),
        (&[task, stop, turn], 2, HistoryErrorKind::AfterStop),
        (
            &[task, ("resume", r#"{"after":"x"}"#)],
            1,
            HistoryErrorKind::ResumeWithoutStop,
        ),
        (&[task, ("note", "{}")], 1, HistoryErrorKind::UnknownKind),
        (
            &[task, ("assistant", r#"{"text":1,"tool_calls":[]}"#)],
            1,
            HistoryErrorKind::BadPayload("text"),
        ),
        (
            &[
                task,
                (
                    "assistant",
                    r#"{"text":"","tool_calls":[{"arguments":{},"id":"a b","name":"x"}]}"#,
                ),
            ],
            1,
            HistoryErrorKind::BadCallId,
        ),
        (
            &[
                task,
                turn,
                ("tool", r#"{"id":"call_1_0","name":"echo","ok":true}"#),
            ],
            2,
            HistoryErrorKind::BadPayload("value"),
        ),
        (
            &[task, ("stop", r#"{"reason":"done"}"#)],
            1,
            HistoryErrorKind::BadPayload("reason"),
        ),
    ];
    for (records, index, kind) in cases {
        let records = chained(records);
        let want = HistoryError {
            index: *index,
            kind: *kind,
        };
        assert_eq!(
            history(Provider::OpenAi, &records),
            Err(want),
            "{records:?}"
        );
        assert_eq!(history(Provider::Anthropic, &records), Err(want));
    }
    assert_eq!(
        history(Provider::OpenAi, &[Value::Null]),
        Err(HistoryError {
            index: 0,
            kind: HistoryErrorKind::NotARecord
        })
    );
    assert_eq!(
        format!("{}", HistoryError { index: 3, kind: HistoryErrorKind::ToolWithoutCall }),
        "record 3: a tool record that does not answer the next unanswered call of the assistant record before it"
    );
}

#[test]
fn parse_records_reads_lines_and_names_a_bad_one() {
    let (bytes, _) = demo::answer().run().unwrap();
    assert_eq!(parse_records(&bytes).unwrap().len(), 5);
    assert_eq!(parse_records(b"").unwrap().len(), 0);
    let error = parse_records(b"{}\n{\n").unwrap_err();
    assert_eq!(error.index, 1);
    assert_eq!(
        error.error.kind(),
        crate::json::ParseErrorKind::UnexpectedEnd
    );
    assert_eq!(
        error.to_string(),
        "transcript line 2: unexpected end of input at byte 1"
    );
}

#[test]
fn parse_records_reads_a_record_around_a_payload_of_the_deepest_nesting() {
    // A record one level deeper than a payload may be is read; one more level is not.
    let nested = |depth: usize| format!("{}{}\n", "[".repeat(depth), "]".repeat(depth));
    let deepest = nested(crate::json::MAX_DEPTH + 1);
    assert_eq!(parse_records(deepest.as_bytes()).unwrap().len(), 1);
    let error = parse_records(nested(crate::json::MAX_DEPTH + 2).as_bytes()).unwrap_err();
    assert_eq!(error.index, 0);
    assert_eq!(error.error.kind(), crate::json::ParseErrorKind::TooDeep);
}

/// `records` with the payload member `key` of record `at` (of a tool call, if `call`)
/// replaced by a NaN: a value built by hand, with no canonical encoding.
fn with_nan(mut records: Vec<Value>, at: usize, call: bool, key: &str) -> Vec<Value> {
    let Value::Object(record) = &mut records[at] else {
        panic!("not a record")
    };
    let Some(Value::Object(mut payload)) = record.remove("payload") else {
        panic!("no payload")
    };
    if call {
        let Some(Value::Array(mut calls)) = payload.remove("tool_calls") else {
            panic!()
        };
        let Value::Object(call) = &mut calls[0] else {
            panic!()
        };
        call.insert(key, Value::Number(f64::NAN));
        payload.insert("tool_calls", Value::Array(calls));
    } else {
        payload.insert(key, Value::Number(f64::NAN));
    }
    record.insert("payload", Value::Object(payload));
    records
}

#[test]
fn arguments_and_results_without_a_canonical_encoding_are_refused() {
    let records = chained(&[
        TASK,
        ONE_CALL,
        (
            "tool",
            r#"{"id":"call_1_0","name":"echo","ok":true,"value":1}"#,
        ),
    ]);
    assert!(history(Provider::OpenAi, &records).is_ok());
    let cases = [
        (
            with_nan(records.clone(), 1, true, "arguments"),
            1,
            "call arguments",
        ),
        (with_nan(records, 2, false, "value"), 2, "value"),
    ];
    for (records, index, member) in cases {
        let want = Err(HistoryError {
            index,
            kind: HistoryErrorKind::BadPayload(member),
        });
        assert_eq!(history(Provider::OpenAi, &records), want);
        assert_eq!(history(Provider::Anthropic, &records), want);
    }
}

#[test]
fn every_turn_read_back_has_exactly_one_answer_per_call() {
    let ends_early = chained(&[
        ("task", r#"{"budgets":{},"task":"t"}"#),
        (
            "assistant",
            r#"{"text":"","tokens":1,"tool_calls":[{"arguments":{},"id":"a","name":"x"},{"arguments":{},"id":"b","name":"x"}]}"#,
        ),
        ("tool", r#"{"id":"a","name":"x","ok":true,"value":1}"#),
    ]);
    let (recover, _) = demo::recover().run().unwrap();
    for records in [ends_early, records_of(&recover)] {
        let conversation = super::conversation::read(&records).unwrap();
        assert!(!conversation.turns.is_empty());
        for turn in &conversation.turns {
            assert_eq!(turn.answers.len(), turn.calls.len(), "{turn:?}");
        }
    }
}

// ---------------------------------------------------------------------------------
// The checkers catch broken histories (the negative control).

fn remove(history: &Value, at: usize) -> Value {
    let mut items = array(history).to_vec();
    items.remove(at);
    Value::Array(items)
}

fn swap(history: &Value, a: usize, b: usize) -> Value {
    let mut items = array(history).to_vec();
    items.swap(a, b);
    Value::Array(items)
}

fn duplicate(history: &Value, at: usize) -> Value {
    let mut items = array(history).to_vec();
    items.insert(at, items[at].clone());
    Value::Array(items)
}

#[test]
fn checkers_catch_broken_copies() {
    let (bytes, _) = demo::budget().run().unwrap();
    let records = records_of(&bytes);
    let openai = history(Provider::OpenAi, &records).unwrap();
    let anthropic = history(Provider::Anthropic, &records).unwrap();
    // openai: 0 user, 1 assistant, 2 tool, 3 assistant, 4 tool, ..., 7 assistant(2 calls), 8 tool, 9 tool
    let broken_openai = [
        (
            remove(&openai, 2),
            "message 2: assistant message while calls [\"call_1_0\"] have no result",
        ),
        (remove(&openai, 9), "calls [\"call_7_1\"] have no result"),
        (
            duplicate(&openai, 2),
            "message 3: result for call_1_0, but the next call owed a result is None",
        ),
        (
            swap(&openai, 8, 9),
            "message 8: result for call_7_1, but the next call owed a result is Some(\"call_7_0\")",
        ),
        (
            swap(&openai, 2, 3),
            "message 2: assistant message while calls [\"call_1_0\"] have no result",
        ),
        (
            swap(&openai, 1, 2),
            "message 1: result for call_1_0, but the next call owed a result is None",
        ),
    ];
    for (history, error) in &broken_openai {
        assert_eq!(check_openai(history), Err(String::from(*error)));
    }
    // anthropic: 0 user, 1 assistant, 2 user(result), ..., 7 assistant(2 calls), 8 user(2 results)
    let mut split = array(&anthropic).to_vec();
    let last = split.pop().unwrap();
    for block in array(member(&last, "content")) {
        let mut message = last.as_object().unwrap().clone();
        message.insert("content", Value::Array(alloc::vec![block.clone()]));
        split.push(Value::Object(message));
    }
    let broken_anthropic = [
        (remove(&anthropic, 2), "message 2: role assistant, expected user"),
        (duplicate(&anthropic, 2), "message 3: role user, expected assistant"),
        // Two user messages in a row: each must hold all the results of the turn.
        (Value::Array(split), "message 8: results [\"call_7_0\"], but the calls before were [\"call_7_0\", \"call_7_1\"]"),
        ({
            let mut items = array(&anthropic).to_vec();
            let mut message = items[8].as_object().unwrap().clone();
            let mut blocks = array(member(&items[8], "content")).to_vec();
            blocks.swap(0, 1);
            message.insert("content", Value::Array(blocks));
            items[8] = Value::Object(message);
            Value::Array(items)
        }, "message 8: results [\"call_7_1\", \"call_7_0\"], but the calls before were [\"call_7_0\", \"call_7_1\"]"),
        (swap(&anthropic, 1, 2), "message 1: role user, expected assistant"),
    ];
    for (history, error) in &broken_anthropic {
        assert_eq!(check_anthropic(history), Err(String::from(*error)));
    }
    // A result whose id answers no call.
    let renamed =
        text(&anthropic).replace(r#""tool_use_id":"call_1_0""#, r#""tool_use_id":"call_9_9""#);
    assert!(check_anthropic(&parse(renamed.as_bytes()).unwrap()).is_err());
    let renamed = text(&openai).replace(
        r#""tool_call_id":"call_1_0""#,
        r#""tool_call_id":"call_9_9""#,
    );
    assert!(check_openai(&parse(renamed.as_bytes()).unwrap()).is_err());
}

// ---------------------------------------------------------------------------------
// Manifests.

#[test]
fn manifest_shapes_with_the_demo_toolbox() {
    let toolbox = demo::toolbox().unwrap();
    let specs = toolbox.manifest().specs();
    let openai = Provider::OpenAi.tools(specs);
    let anthropic = Provider::Anthropic.tools(specs);
    let mcp = mcp_tools(specs);
    let names = |tools: &Value, wrap: Option<&str>| -> Vec<String> {
        array(tools)
            .iter()
            .map(|t| {
                let t = wrap.map_or(t, |w| member(t, w));
                member(t, "name").as_str().unwrap().to_string()
            })
            .collect()
    };
    let sorted = ["add", "echo", "fail", "greet"];
    assert_eq!(names(&openai, Some("function")), sorted);
    assert_eq!(names(&anthropic, None), sorted);
    assert_eq!(names(&mcp, None), sorted);
    let add_schema = r#"{"properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"type":"object"}"#;
    let add_description = r#""Adds two integers a and b; returns {\"sum\": a + b}.""#;
    assert_eq!(
        text(&array(&openai)[0]),
        format!(
            r#"{{"function":{{"description":{add_description},"name":"add","parameters":{add_schema}}},"type":"function"}}"#
        )
    );
    assert_eq!(
        text(&array(&anthropic)[0]),
        format!(r#"{{"description":{add_description},"input_schema":{add_schema},"name":"add"}}"#)
    );
    assert_eq!(
        text(&array(&mcp)[0]),
        format!(r#"{{"description":{add_description},"inputSchema":{add_schema},"name":"add"}}"#)
    );
    for (i, spec) in specs.iter().enumerate() {
        assert_eq!(
            member(member(&array(&openai)[i], "function"), "parameters"),
            &spec.schema
        );
        assert_eq!(member(&array(&anthropic)[i], "input_schema"), &spec.schema);
        assert_eq!(member(&array(&mcp)[i], "inputSchema"), &spec.schema);
        assert_eq!(
            member(&array(&mcp)[i], "description"),
            &Value::from(spec.description.as_str())
        );
    }
    assert_eq!(text(&Provider::OpenAi.tools(&[])), "[]");
}
