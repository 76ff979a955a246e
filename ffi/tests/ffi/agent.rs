//! The loop from C (`agentloop_agent_*`), called through the rlib: it reproduces the
//! Rust demo byte for byte, and a careless caller — NULLs, calls in the wrong state,
//! garbage text and JSON, small buffers, unknown enum values — gets result codes, with
//! the agent and chain unchanged.

use core::ffi::CStr;
use core::ptr::{null, null_mut};

use agentloop::*;
use agentloop_core::agent::StopReason;
use agentloop_core::demo;

type Getter =
    unsafe extern "C" fn(*const agentloop_agent, *mut u8, usize, *mut usize) -> agentloop_result;

struct Agent(*mut agentloop_agent);

impl Drop for Agent {
    fn drop(&mut self) {
        // SAFETY: a live agent, freed once.
        unsafe { agentloop_agent_free(self.0) };
    }
}

struct Chain(*mut agentloop_chain);

impl Drop for Chain {
    fn drop(&mut self) {
        // SAFETY: a live chain, freed once.
        unsafe { agentloop_chain_free(self.0) };
    }
}

fn chain() -> Chain {
    let mut out = null_mut();
    // SAFETY: a valid out pointer.
    assert_eq!(
        unsafe { agentloop_chain_new(&mut out) },
        agentloop_result::Ok
    );
    Chain(out)
}

fn agent(task: &str, budgets: Option<&agentloop_budgets>) -> Agent {
    let mut out = null_mut();
    let budgets = budgets.map_or(null(), |b| b as *const _);
    // SAFETY: valid inputs and out pointer.
    let r = unsafe { agentloop_agent_new(task.as_ptr(), task.len(), budgets, 0, &mut out) };
    assert_eq!(r, agentloop_result::Ok);
    Agent(out)
}

fn add_tool(
    a: &Agent,
    name: &str,
    description: &str,
    schema: &str,
    limit: u64,
) -> agentloop_result {
    // SAFETY: a live agent and valid byte inputs.
    unsafe {
        agentloop_agent_add_tool(
            a.0,
            name.as_ptr(),
            name.len(),
            description.as_ptr(),
            description.len(),
            schema.as_ptr(),
            schema.len(),
            limit,
        )
    }
}

/// The demo tools, as loop.c registers them.
fn demo_tools(a: &Agent) {
    let object = r#"{"type":"object"}"#;
    for (name, description, schema) in [
        (
            "add",
            r#"Adds two integers a and b; returns {"sum": a + b}."#,
            r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}"#,
        ),
        ("echo", "Returns its arguments unchanged.", object),
        (
            "fail",
            "Always fails: shows that a failing tool is recorded, not fatal.",
            object,
        ),
        (
            "greet",
            r#"Greets someone by name; returns {"greeting": "hello, <name>"}."#,
            r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#,
        ),
    ] {
        assert_eq!(
            add_tool(a, name, description, schema, 0),
            agentloop_result::Ok
        );
    }
}

fn poll(a: &Agent) -> u32 {
    let mut need = 0;
    // SAFETY: a live agent and a valid out pointer.
    assert_eq!(
        unsafe { agentloop_agent_poll(a.0, &mut need) },
        agentloop_result::Ok
    );
    need
}

fn get(g: Getter, a: &Agent) -> Result<String, agentloop_result> {
    let mut len = 0;
    // SAFETY: a size query: NULL buffer, valid out_len.
    let r = unsafe { g(a.0, null_mut(), 0, &mut len) };
    if r != agentloop_result::InsufficientSize && r != agentloop_result::Ok {
        return Err(r);
    }
    let mut buf = vec![0u8; len];
    let mut written = 0;
    // SAFETY: a buffer of len bytes.
    let r = unsafe { g(a.0, buf.as_mut_ptr(), buf.len(), &mut written) };
    assert_eq!(r, agentloop_result::Ok);
    assert_eq!(written, len);
    Ok(String::from_utf8(buf).unwrap())
}

fn feed_reply(a: &Agent, text: &[u8], calls: &[u8]) -> agentloop_result {
    // SAFETY: a live agent and valid byte inputs.
    unsafe {
        agentloop_agent_feed_reply(
            a.0,
            text.as_ptr(),
            text.len(),
            calls.as_ptr(),
            calls.len(),
            false,
            0,
        )
    }
}

fn feed_value(a: &Agent, value: &[u8]) -> agentloop_result {
    // SAFETY: a live agent and a valid byte input.
    unsafe { agentloop_agent_feed_tool_result(a.0, value.as_ptr(), value.len()) }
}

fn feed_error(a: &Agent, message: &[u8]) -> agentloop_result {
    // SAFETY: a live agent and a valid byte input.
    unsafe { agentloop_agent_feed_tool_error(a.0, message.as_ptr(), message.len()) }
}

/// Takes every pending record into `c`, returning the lines.
fn drain(a: &Agent, c: &Chain) -> String {
    let mut text = String::new();
    loop {
        let (mut len, mut has) = (0, true);
        // SAFETY: live objects; a size query.
        let r = unsafe { agentloop_agent_take_record(a.0, c.0, null_mut(), 0, &mut len, &mut has) };
        if r == agentloop_result::Ok {
            assert!(!has);
            assert_eq!(len, 0);
            return text;
        }
        assert_eq!(r, agentloop_result::InsufficientSize);
        let mut buf = vec![0u8; len];
        let mut written = 0;
        has = false;
        // SAFETY: live objects; a buffer of len bytes.
        let r = unsafe {
            agentloop_agent_take_record(
                a.0,
                c.0,
                buf.as_mut_ptr(),
                buf.len(),
                &mut written,
                &mut has,
            )
        };
        assert_eq!(r, agentloop_result::Ok);
        assert!(has);
        assert_eq!(written, len);
        text.push_str(std::str::from_utf8(&buf).unwrap());
    }
}

/// As [`drain`], with the lines lent by `agentloop_agent_take_record_borrowed`.
fn drain_borrowed(a: &Agent, c: &Chain) -> String {
    let mut text = String::new();
    loop {
        let (mut line, mut len, mut has) = (null(), usize::MAX, true);
        // SAFETY: live objects and writable outputs.
        let r = unsafe {
            agentloop_agent_take_record_borrowed(a.0, c.0, &mut line, &mut len, &mut has)
        };
        assert_eq!(r, agentloop_result::Ok);
        if !has {
            assert!(line.is_null());
            assert_eq!(len, 0);
            return text;
        }
        // SAFETY: the library lends `len` bytes at `line` until the chain's next call.
        let bytes = unsafe { std::slice::from_raw_parts(line, len) };
        text.push_str(std::str::from_utf8(bytes).unwrap());
    }
}

fn outcome(a: &Agent) -> Result<(u32, u64, u64, u64, u64), agentloop_result> {
    let (mut reason, mut steps, mut tokens, mut unrun, mut calls) = (99, 0, 0, 0, 0);
    // SAFETY: a live agent and valid out pointers.
    let r = unsafe {
        agentloop_agent_outcome(
            a.0,
            &mut reason,
            &mut steps,
            &mut tokens,
            &mut unrun,
            &mut calls,
        )
    };
    if r == agentloop_result::Ok {
        Ok((reason, steps, tokens, unrun, calls))
    } else {
        assert_eq!(reason, 99, "nothing written on failure");
        Err(r)
    }
}

fn recover_budgets() -> agentloop_budgets {
    let mut b = agentloop_budgets {
        has_max_steps: true,
        max_steps: 1,
        has_max_tokens: true,
        max_tokens: 1,
        has_max_tool_calls: true,
        max_tool_calls: 1,
        stop_sentinel: b"x".as_ptr(),
        stop_sentinel_len: 1,
        has_max_total_tokens: true,
        max_total_tokens: 1,
    };
    // SAFETY: a valid struct to write.
    assert_eq!(
        unsafe { agentloop_budgets_init(&mut b) },
        agentloop_result::Ok
    );
    assert!(!b.has_max_steps && !b.has_max_tokens && !b.has_max_tool_calls);
    assert!(!b.has_max_total_tokens);
    assert!(b.stop_sentinel.is_null() && b.stop_sentinel_len == 0);
    b.has_max_steps = true;
    b.max_steps = 8;
    b
}

#[test]
fn the_sans_io_agent_reproduces_demo_recover() {
    let scenario = demo::recover();
    let budgets = recover_budgets();
    let a = agent(scenario.task, Some(&budgets));
    demo_tools(&a);
    let c = chain();
    let mut transcript = String::new();
    let mut replies = scenario.replies.iter();
    loop {
        let need = poll(&a);
        transcript += &drain(&a, &c);
        match need {
            n if n == agentloop_need::ModelReply as u32 => {
                let messages = get(agentloop_agent_messages_json, &a).unwrap();
                assert!(messages.starts_with(r#"[{"role":"user","text":"add 2 and 40"#));
                let manifest = get(agentloop_agent_manifest_json, &a).unwrap();
                assert!(manifest.starts_with(r#"[{"description":"Adds two integers"#));
                let reply = replies.next().unwrap();
                let calls: Vec<String> = reply
                    .tool_calls
                    .iter()
                    .map(|(name, args)| {
                        let args = agentloop_core::jcs::to_vec(args).unwrap();
                        format!(
                            r#"{{"name":"{name}","arguments":{}}}"#,
                            String::from_utf8(args).unwrap()
                        )
                    })
                    .collect();
                let calls = format!("[{}]", calls.join(","));
                assert_eq!(
                    feed_reply(&a, reply.text.as_bytes(), calls.as_bytes()),
                    agentloop_result::Ok
                );
            }
            n if n == agentloop_need::ToolResult as u32 => {
                let name = get(agentloop_agent_call_name, &a).unwrap();
                let id = get(agentloop_agent_call_id, &a).unwrap();
                let args = get(agentloop_agent_call_arguments, &a).unwrap();
                let json = get(agentloop_agent_call_json, &a).unwrap();
                assert_eq!(
                    json,
                    format!(r#"{{"arguments":{args},"id":"{id}","name":"{name}"}}"#)
                );
                match name.as_str() {
                    "add" => {
                        assert_eq!(args, r#"{"a":2,"b":40}"#);
                        assert_eq!(feed_value(&a, br#"{"sum": 42}"#), agentloop_result::Ok);
                    }
                    "fail" => assert_eq!(
                        feed_error(&a, b"the tool is broken on purpose"),
                        agentloop_result::Ok
                    ),
                    other => panic!("unexpected call to {other}"),
                }
            }
            n => {
                assert_eq!(n, agentloop_need::Done as u32);
                break;
            }
        }
        transcript += &drain(&a, &c);
    }
    let (expected, rust_outcome) = scenario.run().unwrap();
    assert_eq!(transcript.as_bytes(), expected.as_slice());
    let (reason, steps, tokens, unrun, calls) = outcome(&a).unwrap();
    assert_eq!(reason, agentloop_stop::NoToolCalls as u32);
    assert_eq!(
        (steps, tokens, unrun, calls),
        (
            rust_outcome.steps,
            rust_outcome.tokens,
            0,
            rust_outcome.tool_calls
        )
    );
    assert_eq!(get(agentloop_agent_stop_error, &a).unwrap(), "");
    // Done stays done, and nothing more can be fed.
    assert_eq!(poll(&a), agentloop_need::Done as u32);
    assert_eq!(feed_reply(&a, b"", b""), agentloop_result::InvalidState);
    // SAFETY: a live agent.
    assert_eq!(unsafe { agentloop_agent_cancel(a.0) }, agentloop_result::Ok);
    assert_eq!(drain(&a, &c), "");
}

#[test]
fn stop_reasons_have_the_record_names_and_unknown_values_are_unknown() {
    let name = |v: u32| {
        // SAFETY: static NUL-terminated strings.
        unsafe { CStr::from_ptr(agentloop_stop_str(v)) }
            .to_str()
            .unwrap()
            .to_owned()
    };
    for reason in StopReason::ALL {
        assert_eq!(
            name(agentloop_stop::from_core(reason) as u32),
            reason.as_str()
        );
    }
    for (i, v) in agentloop_stop::ALL.iter().enumerate() {
        assert_eq!(*v as u32 as usize, i);
    }
    assert_eq!(name(0), "unknown");
    assert_eq!(name(8), "unknown");
    assert_eq!(name(u32::MAX), "unknown");
}

#[test]
fn nulls_are_result_codes() {
    let mut out = null_mut();
    let mut need = 0;
    let mut len = 0;
    let mut has = false;
    // SAFETY: every call below passes NULL where the header allows it to be refused.
    unsafe {
        assert_eq!(
            agentloop_agent_new(null(), 0, null(), 0, null_mut()),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_new(null(), 3, null(), 0, &mut out),
            agentloop_result::NullParameter
        );
        assert!(out.is_null());
        assert_eq!(
            agentloop_budgets_init(null_mut()),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_poll(null_mut(), &mut need),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_add_tool(null_mut(), null(), 0, null(), 0, null(), 0, 0),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_messages_json(null(), null_mut(), 0, &mut len),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_manifest_json(null(), null_mut(), 0, &mut len),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_call_json(null(), null_mut(), 0, &mut len),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_feed_reply(null_mut(), null(), 0, null(), 0, false, 0),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_feed_model_error(null_mut(), null(), 0),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_feed_tool_result(null_mut(), null(), 0),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_feed_tool_error(null_mut(), null(), 0),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_cancel(null_mut()),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_take_record(null_mut(), null_mut(), null_mut(), 0, &mut len, &mut has),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_outcome(
                null(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut()
            ),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_stop_error(null(), null_mut(), 0, &mut len),
            agentloop_result::NullParameter
        );
        agentloop_agent_free(null_mut());
    }
    let a = agent("t", None);
    let c = chain();
    // SAFETY: live objects, NULL outputs.
    unsafe {
        assert_eq!(
            agentloop_agent_poll(a.0, null_mut()),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_messages_json(a.0, null_mut(), 0, null_mut()),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_take_record(a.0, null_mut(), null_mut(), 0, &mut len, &mut has),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_take_record(a.0, c.0, null_mut(), 0, null_mut(), &mut has),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_take_record(a.0, c.0, null_mut(), 0, &mut len, null_mut()),
            agentloop_result::NullParameter
        );
        // A NULL byte input with a length.
        assert_eq!(poll(&a), agentloop_need::ModelReply as u32);
        assert_eq!(
            agentloop_agent_feed_reply(a.0, null(), 2, null(), 0, false, 0),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_feed_reply(a.0, null(), 0, null(), 2, false, 0),
            agentloop_result::NullParameter
        );
        // NULL / 0 inputs are empty: an empty reply ends the run.
        assert_eq!(
            agentloop_agent_feed_reply(a.0, null(), 0, null(), 0, false, 0),
            agentloop_result::Ok
        );
        // Outcome outputs may be NULL.
        assert_eq!(poll(&a), agentloop_need::Done as u32);
        assert_eq!(
            agentloop_agent_outcome(
                a.0,
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut()
            ),
            agentloop_result::Ok
        );
    }
}

#[test]
fn wrong_state_calls_change_nothing() {
    let a = agent("add", None);
    demo_tools(&a);
    let c = chain();
    // Before the first poll: no conversation, no record, no call, no outcome.
    assert_eq!(
        get(agentloop_agent_messages_json, &a),
        Err(agentloop_result::InvalidState)
    );
    assert!(get(agentloop_agent_manifest_json, &a)
        .unwrap()
        .contains(r#""name":"greet""#));
    assert_eq!(drain(&a, &c), "");
    assert_eq!(feed_reply(&a, b"", b""), agentloop_result::InvalidState);
    assert_eq!(feed_value(&a, b"1"), agentloop_result::InvalidState);
    assert_eq!(
        get(agentloop_agent_call_json, &a),
        Err(agentloop_result::InvalidState)
    );
    assert_eq!(outcome(&a), Err(agentloop_result::InvalidState));
    assert_eq!(
        get(agentloop_agent_stop_error, &a),
        Err(agentloop_result::InvalidState)
    );

    assert_eq!(poll(&a), agentloop_need::ModelReply as u32);
    assert_eq!(
        poll(&a),
        agentloop_need::ModelReply as u32,
        "polling again asks again"
    );
    assert_eq!(
        add_tool(&a, "late", "", r#"{"type":"object"}"#, 0),
        agentloop_result::InvalidState
    );
    assert!(!get(agentloop_agent_manifest_json, &a)
        .unwrap()
        .contains("late"));
    assert_eq!(feed_value(&a, b"1"), agentloop_result::InvalidState);
    assert_eq!(feed_error(&a, b"x"), agentloop_result::InvalidState);
    assert_eq!(
        get(agentloop_agent_call_name, &a),
        Err(agentloop_result::InvalidState)
    );
    assert_eq!(
        feed_reply(&a, b"", br#"[{"name":"echo","arguments":{"x":1}}]"#),
        agentloop_result::Ok
    );
    // Fed: a second feed before the next poll is refused.
    assert_eq!(feed_reply(&a, b"", b""), agentloop_result::InvalidState);
    assert_eq!(feed_value(&a, b"1"), agentloop_result::InvalidState);
    assert_eq!(poll(&a), agentloop_need::ToolResult as u32);
    assert_eq!(feed_reply(&a, b"", b""), agentloop_result::InvalidState);
    assert_eq!(get(agentloop_agent_call_id, &a).unwrap(), "call_1_0");
    assert_eq!(feed_value(&a, br#"{"x":1}"#), agentloop_result::Ok);
    assert_eq!(
        feed_value(&a, br#"{"x":1}"#),
        agentloop_result::InvalidState
    );
    let lines = drain(&a, &c);
    assert_eq!(lines.lines().count(), 3);
    assert!(lines.contains(
        r#""kind":"tool","payload":{"id":"call_1_0","name":"echo","ok":true,"value":{"x":1}}"#
    ));
}

#[test]
fn garbage_from_c_is_refused_and_the_agent_keeps_waiting() {
    let a = agent("t", None);
    demo_tools(&a);
    let c = chain();
    assert_eq!(poll(&a), agentloop_need::ModelReply as u32);
    let bad = [
        (&b"\xff"[..], &b""[..], agentloop_result::InvalidUtf8),
        (b"", b"[", agentloop_result::InvalidJson),
        (b"", b"\xff", agentloop_result::InvalidJson),
        (
            b"",
            br#"[{"name":"a","name":"b","arguments":1}]"#,
            agentloop_result::InvalidJson,
        ),
        (
            b"",
            br#"[{"name":"add","arguments":{"a":1e400}}]"#,
            agentloop_result::NoCanonicalForm,
        ),
        (
            b"",
            br#"{"name":"add","arguments":{}}"#,
            agentloop_result::InvalidArgument,
        ),
        (b"", br#"[1]"#, agentloop_result::InvalidArgument),
        (
            b"",
            br#"[{"name":"add"}]"#,
            agentloop_result::InvalidArgument,
        ),
        (
            b"",
            br#"[{"arguments":{}}]"#,
            agentloop_result::InvalidArgument,
        ),
        (
            b"",
            br#"[{"name":7,"arguments":{}}]"#,
            agentloop_result::InvalidArgument,
        ),
        (
            b"",
            br#"[{"name":"add","arguments":{},"extra":1}]"#,
            agentloop_result::InvalidArgument,
        ),
    ];
    for (text, calls, code) in bad {
        assert_eq!(feed_reply(&a, text, calls), code, "{calls:?}");
        assert_eq!(poll(&a), agentloop_need::ModelReply as u32);
    }
    // SAFETY: a live agent, an invalid-UTF-8 sentence.
    assert_eq!(
        unsafe { agentloop_agent_feed_model_error(a.0, b"\xff".as_ptr(), 1) },
        agentloop_result::InvalidUtf8
    );
    // Only the task record so far.
    assert_eq!(drain(&a, &c).lines().count(), 1);
    assert_eq!(
        feed_reply(
            &a,
            b"",
            br#"[{"name":"echo","arguments":{}},{"name":"echo","arguments":{"y":1}}]"#
        ),
        agentloop_result::Ok
    );
    assert_eq!(poll(&a), agentloop_need::ToolResult as u32);
    for (value, code) in [
        (&b"{"[..], agentloop_result::InvalidJson),
        (b"", agentloop_result::InvalidJson),
        (b"\xff", agentloop_result::InvalidJson),
        (br#"{"a":1,"a":2}"#, agentloop_result::InvalidJson),
        (b"NaN", agentloop_result::InvalidJson),
    ] {
        assert_eq!(feed_value(&a, value), code, "{value:?}");
        assert_eq!(poll(&a), agentloop_need::ToolResult as u32);
    }
    assert_eq!(feed_error(&a, b"\xff"), agentloop_result::InvalidUtf8);
    assert_eq!(poll(&a), agentloop_need::ToolResult as u32);
    // A number with no canonical encoding: recorded as ok:false, like the Rust loop.
    assert_eq!(feed_value(&a, br#"{"n":1e400}"#), agentloop_result::Ok);
    assert_eq!(poll(&a), agentloop_need::ToolResult as u32);
    // An empty failure sentence.
    assert_eq!(feed_error(&a, b""), agentloop_result::Ok);
    let lines = drain(&a, &c);
    assert!(
        lines.contains(
            r#""error":"tool 'echo' returned a value with no canonical encoding","id":"call_1_0""#
        ),
        "{lines}"
    );
    assert!(
        lines.contains(r#""error":"tool 'echo' failed without saying why","id":"call_1_1""#),
        "{lines}"
    );
}

#[test]
fn tools_are_checked_when_registered() {
    let a = agent("t", None);
    let object = r#"{"type":"object"}"#;
    assert_eq!(
        add_tool(&a, "x", "", r#"{"type":"object","required":["a","a"]}"#, 0),
        agentloop_result::SchemaRefused
    );
    assert_eq!(
        add_tool(&a, "x", "", r#"{"type":"#, 0),
        agentloop_result::InvalidJson
    );
    assert_eq!(
        add_tool(&a, "x", "", r#"{"maximum":1e400}"#, 0),
        agentloop_result::NoCanonicalForm
    );
    assert_eq!(
        add_tool(&a, "", "", object, 0),
        agentloop_result::NotProviderSafe
    );
    assert_eq!(
        add_tool(&a, "x", "", object, 1 << 53),
        agentloop_result::InvalidArgument
    );
    // SAFETY: a live agent and an invalid-UTF-8 name.
    let r = unsafe {
        agentloop_agent_add_tool(
            a.0,
            b"\xff".as_ptr(),
            1,
            null(),
            0,
            object.as_ptr(),
            object.len(),
            0,
        )
    };
    assert_eq!(r, agentloop_result::InvalidUtf8);
    assert_eq!(get(agentloop_agent_manifest_json, &a).unwrap(), "[]");
    assert_eq!(add_tool(&a, "x", "d", object, 1), agentloop_result::Ok);
    assert_eq!(
        add_tool(&a, "x", "d", object, 0),
        agentloop_result::InvalidArgument
    );
    assert_eq!(
        get(agentloop_agent_manifest_json, &a).unwrap(),
        r#"[{"description":"d","name":"x","schema":{"type":"object"}}]"#
    );
    // The limit is the tool's: the second call is refused by the loop.
    let c = chain();
    assert_eq!(poll(&a), agentloop_need::ModelReply as u32);
    let calls = br#"[{"name":"x","arguments":{}},{"name":"x","arguments":{}}]"#;
    assert_eq!(feed_reply(&a, b"", calls), agentloop_result::Ok);
    assert_eq!(poll(&a), agentloop_need::ToolResult as u32);
    assert_eq!(feed_value(&a, b"null"), agentloop_result::Ok);
    assert_eq!(poll(&a), agentloop_need::ModelReply as u32);
    let lines = drain(&a, &c);
    assert!(
        lines.contains("tool 'x' reached its limit of 1 call"),
        "{lines}"
    );
    assert!(
        lines.contains(r#""payload":{"budgets":{"tool_limits":{"x":1}},"task":"t"}"#),
        "{lines}"
    );
}

#[test]
fn schemas_past_their_budget_or_the_agents_are_refused() {
    let a = agent("t", None);
    let heavy = |n: usize, tag: &str| {
        let properties: Vec<String> = (0..n)
            .map(|i| format!(r#""p{i}":{{"pattern":"a{{100000}}{tag}{i}"}}"#))
            .collect();
        format!(
            r#"{{"type":"object","properties":{{{}}}}}"#,
            properties.join(",")
        )
    };
    // Four patterns of 5 MB of automaton each: past the schema's own budget.
    assert_eq!(
        add_tool(&a, "four", "", &heavy(4, "f"), 0),
        agentloop_result::SchemaRefused
    );
    // Two each: fits a schema; the agent's tools together pass theirs at the seventh.
    let mut refused = None;
    for i in 0..12 {
        let r = add_tool(&a, &format!("t{i}"), "", &heavy(2, &format!("t{i}x")), 0);
        if r != agentloop_result::Ok {
            refused = Some((i, r));
            break;
        }
    }
    let (i, r) = refused.expect("a tool past the agent's budget");
    assert_eq!(r, agentloop_result::SchemaRefused);
    assert!(i >= 4, "{i}");
    // The tools before it stay, and a light tool still fits.
    assert_eq!(
        add_tool(&a, "light", "", r#"{"type":"object"}"#, 0),
        agentloop_result::Ok
    );
    let manifest = get(agentloop_agent_manifest_json, &a).unwrap();
    assert!(manifest.contains(r#""name":"t0""#) && manifest.contains(r#""name":"light""#));
    assert!(!manifest.contains(&format!(r#""name":"t{i}""#)));
}

#[test]
fn budgets_from_c_are_checked() {
    let mut out = null_mut();
    let task = "t";
    let new = |b: &agentloop_budgets, first_seq: u64, out: &mut *mut agentloop_agent| {
        // SAFETY: valid inputs and out pointer.
        unsafe { agentloop_agent_new(task.as_ptr(), task.len(), b, first_seq, out) }
    };
    let mut b = recover_budgets();
    b.max_steps = 1 << 53;
    assert_eq!(new(&b, 0, &mut out), agentloop_result::InvalidArgument);
    b = recover_budgets();
    b.has_max_tool_calls = true;
    b.max_tool_calls = u64::MAX;
    assert_eq!(new(&b, 0, &mut out), agentloop_result::InvalidArgument);
    b = recover_budgets();
    b.has_max_total_tokens = true;
    b.max_total_tokens = 1 << 53;
    assert_eq!(new(&b, 0, &mut out), agentloop_result::InvalidArgument);
    b.max_total_tokens = (1 << 53) - 1;
    assert_eq!(new(&b, 0, &mut out), agentloop_result::Ok);
    // SAFETY: the agent just made, freed once.
    unsafe { agentloop_agent_free(out) };
    out = null_mut();
    b = recover_budgets();
    b.stop_sentinel = b"\xff".as_ptr();
    b.stop_sentinel_len = 1;
    assert_eq!(new(&b, 0, &mut out), agentloop_result::InvalidUtf8);
    b.stop_sentinel_len = 0; // a pointer with length 0 is no sentinel
    assert_eq!(
        new(&recover_budgets(), 1 << 53, &mut out),
        agentloop_result::InvalidArgument
    );
    b.stop_sentinel = null();
    b.stop_sentinel_len = 3;
    assert_eq!(new(&b, 0, &mut out), agentloop_result::NullParameter);
    assert!(out.is_null());
    // SAFETY: invalid UTF-8 task.
    let r = unsafe { agentloop_agent_new(b"\xff".as_ptr(), 1, null(), 0, &mut out) };
    assert_eq!(r, agentloop_result::InvalidUtf8);
    assert!(out.is_null());

    // A sentinel stops the run.
    b = recover_budgets();
    b.stop_sentinel = b"DONE".as_ptr();
    b.stop_sentinel_len = 4;
    let a = agent("t", Some(&b));
    assert_eq!(poll(&a), agentloop_need::ModelReply as u32);
    assert_eq!(
        feed_reply(&a, b"all DONE", br#"[{"name":"x","arguments":{}}]"#),
        agentloop_result::Ok
    );
    assert_eq!(poll(&a), agentloop_need::Done as u32);
    let (reason, steps, _, unrun, calls) = outcome(&a).unwrap();
    assert_eq!(
        (reason, steps, unrun, calls),
        (agentloop_stop::Sentinel as u32, 1, 1, 0)
    );
}

/// A task that is empty or only white space asks nothing (and Anthropic refuses it):
/// refused when the agent is made, so no `task` record is ever written.
#[test]
fn a_blank_task_is_refused_when_the_agent_is_made() {
    for task in ["", " ", "\n\n", "\t\r\n", "\u{3000}\u{a0}"] {
        let mut out = null_mut();
        // SAFETY: valid inputs and out pointer.
        let r = unsafe { agentloop_agent_new(task.as_ptr(), task.len(), null(), 0, &mut out) };
        assert_eq!(r, agentloop_result::InvalidArgument, "{task:?}");
        assert!(out.is_null());
    }
    // NULL with length 0 is the empty task.
    let mut out = null_mut();
    // SAFETY: NULL with length 0 is allowed; a valid out pointer.
    let r = unsafe { agentloop_agent_new(null(), 0, null(), 0, &mut out) };
    assert_eq!(r, agentloop_result::InvalidArgument);
    assert!(out.is_null());
    // Text around white space is a task.
    let a = agent(" t\n", None);
    assert_eq!(poll(&a), agentloop_need::ModelReply as u32);
}

#[test]
fn records_need_a_chain_at_their_seq_and_small_buffers_take_nothing() {
    let a = agent("t", None);
    assert_eq!(poll(&a), agentloop_need::ModelReply as u32);
    // A chain resumed at seq 5 cannot take the agent's seq-0 task record.
    let mut resumed = null_mut();
    // SAFETY: a readable hash and a valid out pointer.
    assert_eq!(
        unsafe { agentloop_chain_resume(5, &agentloop_hash::default(), &mut resumed) },
        agentloop_result::Ok
    );
    let resumed = Chain(resumed);
    let (mut len, mut has) = (7, false);
    let mut buf = [0u8; 8];
    // SAFETY: live objects and a buffer of 8 bytes.
    let r = unsafe {
        agentloop_agent_take_record(
            a.0,
            resumed.0,
            buf.as_mut_ptr(),
            buf.len(),
            &mut len,
            &mut has,
        )
    };
    assert_eq!(r, agentloop_result::InvalidArgument);
    assert_eq!((len, has), (7, false));
    // Too small: only the length is written, the record stays, the chain is unchanged.
    let c = chain();
    // SAFETY: as above.
    let r = unsafe {
        agentloop_agent_take_record(a.0, c.0, buf.as_mut_ptr(), buf.len(), &mut len, &mut has)
    };
    assert_eq!(r, agentloop_result::InsufficientSize);
    assert!(len > 8);
    assert!(!has);
    assert_eq!(buf, [0u8; 8]);
    let mut count = 9;
    // SAFETY: a live chain and a valid out pointer.
    assert_eq!(
        unsafe { agentloop_chain_count(c.0, &mut count) },
        agentloop_result::Ok
    );
    assert_eq!(count, 0);
    let lines = drain(&a, &c);
    assert_eq!(lines.len(), len);
    assert!(
        lines.contains(r#""kind":"task","payload":{"budgets":{},"task":"t"}"#),
        "{lines}"
    );
    // A too-small buffer for the other outputs.
    let mut small = [0u8; 4];
    // SAFETY: a live agent and a 4-byte buffer.
    let r =
        unsafe { agentloop_agent_messages_json(a.0, small.as_mut_ptr(), small.len(), &mut len) };
    assert_eq!(r, agentloop_result::InsufficientSize);
    assert_eq!(len, r#"[{"role":"user","text":"t"}]"#.len());
    assert_eq!(small, [0u8; 4]);

    // A resumed agent writes into a resumed chain.
    let mut out = null_mut();
    // SAFETY: valid inputs and out pointer.
    assert_eq!(
        unsafe { agentloop_agent_new(b"t".as_ptr(), 1, null(), 5, &mut out) },
        agentloop_result::Ok
    );
    let b = Agent(out);
    assert_eq!(poll(&b), agentloop_need::ModelReply as u32);
    assert!(drain(&b, &resumed).contains(r#""seq":5}"#));
}

#[test]
fn cancel_and_model_errors_stop_the_run() {
    let a = agent("t", None);
    demo_tools(&a);
    let c = chain();
    assert_eq!(poll(&a), agentloop_need::ModelReply as u32);
    let calls = br#"[{"name":"echo","arguments":{}},{"name":"echo","arguments":{}}]"#;
    assert_eq!(feed_reply(&a, b"two", calls), agentloop_result::Ok);
    assert_eq!(poll(&a), agentloop_need::ToolResult as u32);
    // SAFETY: a live agent.
    assert_eq!(unsafe { agentloop_agent_cancel(a.0) }, agentloop_result::Ok);
    assert_eq!(feed_value(&a, b"1"), agentloop_result::InvalidState);
    assert_eq!(poll(&a), agentloop_need::Done as u32);
    let (reason, steps, _, unrun, calls) = outcome(&a).unwrap();
    assert_eq!(
        (reason, steps, unrun, calls),
        (agentloop_stop::Cancelled as u32, 1, 2, 0)
    );
    assert!(drain(&a, &c).contains(r#""reason":"cancelled""#));

    // Cancelled before the first poll: task, then stop.
    let b = agent("t", None);
    // SAFETY: a live agent.
    assert_eq!(unsafe { agentloop_agent_cancel(b.0) }, agentloop_result::Ok);
    assert_eq!(drain(&b, &chain()).lines().count(), 2);

    let m = agent("t", None);
    assert_eq!(poll(&m), agentloop_need::ModelReply as u32);
    let why = "the provider returned HTTP 503";
    // SAFETY: a live agent and a valid byte input.
    assert_eq!(
        unsafe { agentloop_agent_feed_model_error(m.0, why.as_ptr(), why.len()) },
        agentloop_result::Ok
    );
    assert_eq!(poll(&m), agentloop_need::Done as u32);
    assert_eq!(outcome(&m).unwrap().0, agentloop_stop::ModelError as u32);
    assert_eq!(get(agentloop_agent_stop_error, &m).unwrap(), why);

    // Reported tokens above 2^53 - 1: accepted, and a model_error, as in the Rust loop.
    let t = agent("t", None);
    assert_eq!(poll(&t), agentloop_need::ModelReply as u32);
    // SAFETY: a live agent.
    let r = unsafe { agentloop_agent_feed_reply(t.0, null(), 0, null(), 0, true, u64::MAX) };
    assert_eq!(r, agentloop_result::Ok);
    assert_eq!(poll(&t), agentloop_need::Done as u32);
    assert!(get(agentloop_agent_stop_error, &t)
        .unwrap()
        .contains("output tokens"));
}

/// Drives `a` to its end with the scenario's replies from turn `turn` on and the demo
/// tools run in Rust; returns the lines it wrote into `c`.
fn drive_demo(a: &Agent, c: &Chain, replies: &[agentloop_core::model::Reply]) -> String {
    drive_demo_with(a, c, replies, drain)
}

/// Runs the demo's replies and tools through the C agent, taking records with `drain`.
fn drive_demo_with(
    a: &Agent,
    c: &Chain,
    replies: &[agentloop_core::model::Reply],
    drain: fn(&Agent, &Chain) -> String,
) -> String {
    let tools = demo::toolbox().unwrap();
    let mut replies = replies.iter();
    let mut transcript = drain(a, c);
    loop {
        let need = poll(a);
        transcript += &drain(a, c);
        match need {
            n if n == agentloop_need::ModelReply as u32 => {
                let reply = replies.next().unwrap();
                let calls: Vec<String> = reply
                    .tool_calls
                    .iter()
                    .map(|(name, args)| {
                        let args = agentloop_core::jcs::to_vec(args).unwrap();
                        format!(
                            r#"{{"name":"{name}","arguments":{}}}"#,
                            String::from_utf8(args).unwrap()
                        )
                    })
                    .collect();
                let calls = format!("[{}]", calls.join(","));
                assert_eq!(
                    feed_reply(a, reply.text.as_bytes(), calls.as_bytes()),
                    agentloop_result::Ok
                );
            }
            n if n == agentloop_need::ToolResult as u32 => {
                let name = get(agentloop_agent_call_name, a).unwrap();
                let args = get(agentloop_agent_call_arguments, a).unwrap();
                let args = agentloop_core::json::parse(args.as_bytes()).unwrap();
                let fed = match tools.call(&name, &args) {
                    Ok(value) => feed_value(a, &agentloop_core::jcs::to_vec(&value).unwrap()),
                    Err(e) => feed_error(a, e.message().as_bytes()),
                };
                assert_eq!(fed, agentloop_result::Ok);
            }
            n => {
                assert_eq!(n, agentloop_need::Done as u32);
                return transcript;
            }
        }
        transcript += &drain(a, c);
    }
}

/// The C budgets for a demo scenario's.
fn c_budgets(b: &agentloop_core::agent::Budgets) -> agentloop_budgets {
    let mut c = agentloop_budgets::default();
    // SAFETY: a writable struct.
    assert_eq!(
        unsafe { agentloop_budgets_init(&mut c) },
        agentloop_result::Ok
    );
    (c.has_max_steps, c.max_steps) = (b.max_steps.is_some(), b.max_steps.unwrap_or(0));
    (c.has_max_tokens, c.max_tokens) = (b.max_tokens.is_some(), b.max_tokens.unwrap_or(0));
    (c.has_max_tool_calls, c.max_tool_calls) =
        (b.max_tool_calls.is_some(), b.max_tool_calls.unwrap_or(0));
    (c.has_max_total_tokens, c.max_total_tokens) = (
        b.max_total_tokens.is_some(),
        b.max_total_tokens.unwrap_or(0),
    );
    if let Some(sentinel) = &b.stop_sentinel {
        (c.stop_sentinel, c.stop_sentinel_len) = (sentinel.as_ptr(), sentinel.len());
    }
    c
}

/// Lent or copied, the records are the same bytes: every demo run through the C agent,
/// taking records with `agentloop_agent_take_record_borrowed` and with
/// `agentloop_agent_take_record`, is the Rust driver's transcript byte for byte.
#[test]
fn borrowed_records_are_the_bytes_the_copying_take_writes() {
    for scenario in demo::scenarios() {
        let (expected, _) = scenario.run().unwrap();
        let budgets = c_budgets(&scenario.budgets);
        for take in [drain as fn(&Agent, &Chain) -> String, drain_borrowed] {
            let a = agent(scenario.task, Some(&budgets));
            demo_tools(&a);
            let c = chain();
            let transcript = drive_demo_with(&a, &c, &scenario.replies, take);
            assert_eq!(transcript.as_bytes(), expected, "{}", scenario.file_name);
        }
    }
}

#[test]
fn a_borrowed_take_refuses_as_the_copying_one_and_changes_nothing() {
    let a = agent("t", None);
    assert_eq!(poll(&a), agentloop_need::ModelReply as u32);
    let mut resumed = null_mut();
    // SAFETY: a readable hash and a valid out pointer.
    assert_eq!(
        unsafe { agentloop_chain_resume(5, &agentloop_hash::default(), &mut resumed) },
        agentloop_result::Ok
    );
    let resumed = Chain(resumed);
    let (mut line, mut len, mut has) = (null(), 7usize, false);
    // SAFETY: live objects, valid outputs or the NULL under test.
    unsafe {
        // A chain at another seq: refused, the record stays pending, nothing written.
        assert_eq!(
            agentloop_agent_take_record_borrowed(a.0, resumed.0, &mut line, &mut len, &mut has),
            agentloop_result::InvalidArgument
        );
        assert_eq!((line.is_null(), len, has), (true, 7, false));
        for (agent, chain_ptr, out_line, out_len, out_has) in [
            (
                null_mut(),
                resumed.0,
                &mut line as *mut _,
                &mut len as *mut _,
                &mut has as *mut _,
            ),
            (a.0, null_mut(), &mut line, &mut len, &mut has),
            (a.0, resumed.0, null_mut(), &mut len, &mut has),
            (a.0, resumed.0, &mut line, null_mut(), &mut has),
            (a.0, resumed.0, &mut line, &mut len, null_mut()),
        ] {
            assert_eq!(
                agentloop_agent_take_record_borrowed(agent, chain_ptr, out_line, out_len, out_has),
                agentloop_result::NullParameter
            );
        }
    }
    // The task record is still there for a chain at seq 0.
    let c = chain();
    assert!(drain_borrowed(&a, &c).starts_with("{\"hash\":"));
    assert_eq!(drain_borrowed(&a, &c), "");
}

fn resume(a: &Agent, transcript: &[u8]) -> Result<(u64, agentloop_hash), agentloop_result> {
    let (mut next, mut head) = (0u64, agentloop_hash::default());
    // SAFETY: a live agent, a valid byte input and out pointers.
    let r = unsafe {
        agentloop_agent_resume(
            a.0,
            null(),
            transcript.as_ptr(),
            transcript.len(),
            &mut next,
            &mut head,
        )
    };
    match r {
        agentloop_result::Ok => Ok((next, head)),
        other => Err(other),
    }
}

fn set_idempotent(a: &Agent, name: &str) -> agentloop_result {
    // SAFETY: a live agent and a valid byte input.
    unsafe { agentloop_agent_set_idempotent(a.0, name.as_ptr(), name.len()) }
}

fn budget_budgets() -> agentloop_budgets {
    let mut b = recover_budgets();
    b.max_steps = 10;
    b.has_max_tokens = true;
    b.max_tokens = 40;
    b
}

#[test]
fn a_killed_run_resumes_through_the_c_agent() {
    let scenario = demo::budget();
    let (whole, _) = scenario.run().unwrap();
    let lines: Vec<&[u8]> = whole.split_inclusive(|&b| b == b'\n').collect();
    // Killed after the turn asking for `echo` (record 3): the call may have been running.
    let cut = lines[..4].concat();
    for idempotent in [false, true] {
        let a = agent(scenario.task, Some(&budget_budgets()));
        demo_tools(&a);
        if idempotent {
            for name in ["add", "echo", "fail", "greet"] {
                assert_eq!(set_idempotent(&a, name), agentloop_result::Ok);
            }
        }
        let (next, head) = resume(&a, &cut).unwrap();
        assert_eq!(next, 4);
        let hex: String = head.bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(&lines[3][9..73], hex.as_bytes());
        let mut out = null_mut();
        // SAFETY: a readable hash and a valid out pointer.
        assert_eq!(
            unsafe { agentloop_chain_resume(next, &head, &mut out) },
            agentloop_result::Ok
        );
        let c = Chain(out);
        let resumed = [
            cut.clone(),
            drive_demo(&a, &c, &scenario.replies[2..]).into_bytes(),
        ]
        .concat();
        let report = agentloop_core::audit::verify_loop_bytes(&resumed, &Default::default());
        assert!(report.ok(), "{:?}", report.faults);
        let text = String::from_utf8(resumed.clone()).unwrap();
        if idempotent {
            assert_eq!(resumed, whole);
        } else {
            let line = text.lines().nth(4).unwrap();
            assert!(
                line.contains(
                    r#""error":"result lost: the run was interrupted while tool 'echo' was running"#
                ),
                "{line}"
            );
            assert_eq!(text.lines().count(), lines.len());
        }
        assert_eq!(get(agentloop_agent_resume_error, &a).unwrap(), "");
    }
}

#[test]
fn the_c_agent_refuses_what_it_cannot_resume() {
    let scenario = demo::budget();
    let (whole, _) = scenario.run().unwrap();
    // Another task.
    let a = agent("another task", Some(&budget_budgets()));
    demo_tools(&a);
    assert_eq!(resume(&a, &whole), Err(agentloop_result::ResumeRefused));
    let why = get(agentloop_agent_resume_error, &a).unwrap();
    assert!(
        why.starts_with("the transcript's task is \"add 2 and 40, greeting"),
        "{why}"
    );
    // Other budgets.
    let a = agent(scenario.task, Some(&recover_budgets()));
    demo_tools(&a);
    assert_eq!(resume(&a, &whole), Err(agentloop_result::ResumeRefused));
    let why = get(agentloop_agent_resume_error, &a).unwrap();
    assert!(
        why.starts_with("the task record does not state the budgets"),
        "{why}"
    );
    // A torn last line; then no records at all.
    let a = agent(scenario.task, Some(&budget_budgets()));
    demo_tools(&a);
    assert_eq!(
        resume(&a, &whole[..whole.len() - 1]),
        Err(agentloop_result::DoesNotVerify)
    );
    let why = get(agentloop_agent_resume_error, &a).unwrap();
    assert!(why.contains("torn_tail"), "{why}");
    assert_eq!(resume(&a, b""), Err(agentloop_result::ResumeRefused));
    // The agent is unchanged by a refusal: it resumes, and it then has a resume record.
    assert_eq!(
        set_idempotent(&a, "nope"),
        agentloop_result::InvalidArgument
    );
    assert_eq!(resume(&a, &whole).map(|(next, _)| next), Ok(9));
    // A resumed (or polled) agent cannot be resumed or changed again.
    assert_eq!(resume(&a, &whole), Err(agentloop_result::InvalidState));
    assert_eq!(set_idempotent(&a, "add"), agentloop_result::InvalidState);
    let fresh = agent(scenario.task, Some(&budget_budgets()));
    poll(&fresh);
    assert_eq!(resume(&fresh, &whole), Err(agentloop_result::InvalidState));
    // NULLs.
    // SAFETY: NULL agent: refused before any dereference.
    let r =
        unsafe { agentloop_agent_resume(null_mut(), null(), null(), 0, null_mut(), null_mut()) };
    assert_eq!(r, agentloop_result::NullParameter);
    // SAFETY: as above.
    let r = unsafe { agentloop_agent_set_idempotent(null_mut(), null(), 0) };
    assert_eq!(r, agentloop_result::NullParameter);
}

/// The names and root schemas providers refuse, each with the sentence
/// `agentloop_tool_explain` gives for it.
const NOT_PROVIDER_SAFE: [(&str, &str, &str); 12] = [
    (
        "",
        r#"{"type":"object"}"#,
        "tool name '' is not provider-safe: it is empty",
    ),
    (
        "my tool",
        r#"{"type":"object"}"#,
        "tool name 'my tool' is not provider-safe: ' ' at position 2 is not",
    ),
    (
        "a.b",
        r#"{"type":"object"}"#,
        "tool name 'a.b' is not provider-safe: '.' at position 1 is not",
    ),
    (
        "café",
        r#"{"type":"object"}"#,
        "tool name 'café' is not provider-safe: 'é' at position 3 is not",
    ),
    (
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        r#"{"type":"object"}"#,
        "it is 65 characters long, more than 64",
    ),
    (
        "t",
        "true",
        "tool 't': the root schema is true, which does not describe an object",
    ),
    (
        "t",
        "false",
        "tool 't': the root schema is false, which does not describe an object",
    ),
    ("t", "{}", "tool 't': the root schema has no \"type\""),
    (
        "t",
        r#"{"type":"integer"}"#,
        "tool 't': the root schema's \"type\" is \"integer\"",
    ),
    (
        "t",
        r#"{"anyOf":[{"type":"object"}]}"#,
        "tool 't': the root schema has no \"type\"",
    ),
    (
        "t",
        r#"{"type":["object"]}"#,
        "tool 't': the root schema's \"type\" is a list",
    ),
    (
        "t",
        r#"{"type":["object","null"]}"#,
        "tool 't': the root schema's \"type\" is a list",
    ),
];

/// What `agentloop_tool_explain` says about `(name, schema)`.
fn explain(name: &str, schema: &str) -> Result<String, agentloop_result> {
    let mut len = 0;
    // SAFETY: valid byte inputs; a size query with a valid out_len.
    let r = unsafe {
        agentloop_tool_explain(
            name.as_ptr(),
            name.len(),
            schema.as_ptr(),
            schema.len(),
            null_mut(),
            0,
            &mut len,
        )
    };
    if r == agentloop_result::Ok {
        assert_eq!(len, 0);
        return Ok(String::new());
    }
    if r != agentloop_result::InsufficientSize {
        return Err(r);
    }
    let mut buf = vec![0u8; len];
    // SAFETY: a buffer of the length asked for.
    let r = unsafe {
        agentloop_tool_explain(
            name.as_ptr(),
            name.len(),
            schema.as_ptr(),
            schema.len(),
            buf.as_mut_ptr(),
            buf.len(),
            &mut len,
        )
    };
    assert_eq!(r, agentloop_result::Ok);
    Ok(String::from_utf8(buf).unwrap())
}

#[test]
fn names_and_roots_providers_refuse_are_refused_when_registered() {
    let a = agent("t", None);
    for (name, schema, why) in NOT_PROVIDER_SAFE {
        assert_eq!(
            add_tool(&a, name, "d", schema, 0),
            agentloop_result::NotProviderSafe,
            "{name} {schema}"
        );
        let sentence = explain(name, schema).unwrap();
        assert!(sentence.contains(why), "{sentence}");
        assert!(
            sentence.ends_with("(providers accept ^[a-zA-Z0-9_-]{1,64}$)")
                || sentence.ends_with("providers require a root schema with \"type\": \"object\""),
            "{sentence}"
        );
    }
    // Nothing was registered.
    assert_eq!(get(agentloop_agent_manifest_json, &a).unwrap(), "[]");
    // The good boundary cases.
    let longest = "Z".repeat(64);
    for name in ["-", "_", "0", "9lives", "get-weather", longest.as_str()] {
        assert_eq!(explain(name, r#"{"type":"object"}"#).unwrap(), "");
        assert_eq!(
            add_tool(
                &a,
                name,
                "d",
                r#"{"type":"object","anyOf":[{"required":["a"]},{}]}"#,
                0
            ),
            agentloop_result::Ok,
            "{name}"
        );
    }
    let manifest = get(agentloop_agent_manifest_json, &a).unwrap();
    assert!(
        manifest.contains(&format!(r#""name":"{longest}""#)),
        "{manifest}"
    );
    // explain says what the validator refuses too, and refuses what is not JSON or UTF-8.
    assert!(explain("t", r#"{"type":"object","required":["a","a"]}"#)
        .unwrap()
        .starts_with("tool 't': schema refused at /required"));
    assert_eq!(explain("t", "{"), Err(agentloop_result::InvalidJson));
    let object = r#"{"type":"object"}"#;
    let mut len = 7;
    // SAFETY: an invalid-UTF-8 name, a valid schema, a valid out_len.
    let r = unsafe {
        agentloop_tool_explain(
            b"\xff".as_ptr(),
            1,
            object.as_ptr(),
            object.len(),
            null_mut(),
            0,
            &mut len,
        )
    };
    assert_eq!(r, agentloop_result::InvalidUtf8);
    assert_eq!(len, 7, "nothing written on failure");
    // SAFETY: NULL out_len and NULL inputs with a length are what is tested.
    unsafe {
        assert_eq!(
            agentloop_tool_explain(
                null(),
                0,
                object.as_ptr(),
                object.len(),
                null_mut(),
                0,
                null_mut()
            ),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_tool_explain(
                null(),
                1,
                object.as_ptr(),
                object.len(),
                null_mut(),
                0,
                &mut len
            ),
            agentloop_result::NullParameter
        );
    }
}

#[test]
fn max_total_tokens_from_c_is_recorded_and_stops_as_the_rust_loop_does() {
    // demo-budget's turns count 12, 12, 10 and 15 tokens: the sum reaches exactly 34 at
    // the third turn (not over: its call runs) and exceeds it at the fourth.
    let scenario = demo::budget();
    let mut b = recover_budgets();
    b.max_steps = 10;
    b.has_max_total_tokens = true;
    b.max_total_tokens = 34;
    let a = agent(scenario.task, Some(&b));
    demo_tools(&a);
    let c = chain();
    let transcript = drive_demo(&a, &c, &scenario.replies);
    let budgets = agentloop_core::agent::Budgets {
        max_steps: Some(10),
        max_total_tokens: Some(34),
        ..Default::default()
    };
    let mut rust = Vec::new();
    agentloop_core::driver::run(
        scenario.task,
        budgets,
        &mut agentloop_core::model::Scripted::new(scenario.replies.clone()),
        &mut demo::toolbox().unwrap(),
        &mut || false,
        &mut rust,
        agentloop_core::driver::RunOptions::default(),
    )
    .unwrap();
    assert_eq!(transcript.as_bytes(), rust.as_slice());
    let task = transcript.lines().next().unwrap();
    assert!(
        task.contains(r#""budgets":{"max_steps":10,"max_total_tokens":34}"#),
        "{task}"
    );
    let (reason, steps, tokens, unrun, _) = outcome(&a).unwrap();
    assert_eq!(reason, agentloop_stop::TokenBudget as u32);
    assert_eq!((steps, tokens, unrun), (4, 49, 2));
}

fn feed_for(a: &Agent, id: &str, result: Result<Vec<u8>, String>) -> agentloop_result {
    // SAFETY: a live agent and valid byte inputs.
    unsafe {
        match result {
            Ok(value) => agentloop_agent_feed_tool_result_for(
                a.0,
                id.as_ptr(),
                id.len(),
                value.as_ptr(),
                value.len(),
            ),
            Err(message) => agentloop_agent_feed_tool_error_for(
                a.0,
                id.as_ptr(),
                id.len(),
                message.as_ptr(),
                message.len(),
            ),
        }
    }
}

/// A turn of 8 calls with refusals mixed in (unknown tool, schema), then the answer.
fn eight_calls() -> Vec<agentloop_core::model::Reply> {
    use agentloop_core::json::parse;
    use agentloop_core::model::Reply;
    let j = |t: &str| parse(t.as_bytes()).unwrap();
    vec![
        Reply::new("Eight at once.")
            .with_call("add", j(r#"{"a":1,"b":2}"#))
            .with_call("nosuch", j("{}"))
            .with_call("echo", j(r#"{"n":2}"#))
            .with_call("add", j(r#"{"a":"x","b":1}"#))
            .with_call("fail", j(r#"{"n":4}"#))
            .with_call("greet", j(r#"{"name":"ann"}"#))
            .with_call("echo", j(r#"{"n":6}"#))
            .with_call("greet", j("{}")),
        Reply::new("Done."),
    ]
}

fn set_parallel(a: &Agent, parallel: u64) {
    // SAFETY: a live agent.
    let r = unsafe { agentloop_agent_set_parallel(a.0, parallel) };
    assert_eq!(r, agentloop_result::Ok);
}

/// Drives the agent with parallelism `parallel` by the one code path every parallelism
/// shares: the calls handed out from `agentloop_agent_take_calls`, each result fed by
/// id in the order `order` gives (indices into the calls handed out).
fn drive_batched(
    a: &Agent,
    c: &Chain,
    replies: &[agentloop_core::model::Reply],
    parallel: u64,
    order: fn(usize) -> Vec<usize>,
) -> String {
    let tools = demo::toolbox().unwrap();
    let mut replies = replies.iter();
    set_parallel(a, parallel);
    let mut transcript = drain(a, c);
    // The need that hands out calls: one at a time only with parallelism 1 (or 0).
    let calls_need = match parallel {
        0 | 1 => agentloop_need::ToolResult,
        _ => agentloop_need::ToolResults,
    } as u32;
    loop {
        let need = poll(a);
        transcript += &drain(a, c);
        match need {
            n if n == agentloop_need::ModelReply as u32 => {
                let reply = replies.next().unwrap();
                let calls: Vec<String> = reply
                    .tool_calls
                    .iter()
                    .map(|(name, args)| {
                        let args = agentloop_core::jcs::to_vec(args).unwrap();
                        format!(
                            r#"{{"name":"{name}","arguments":{}}}"#,
                            String::from_utf8(args).unwrap()
                        )
                    })
                    .collect();
                let calls = format!("[{}]", calls.join(","));
                assert_eq!(
                    feed_reply(a, reply.text.as_bytes(), calls.as_bytes()),
                    agentloop_result::Ok
                );
            }
            n if n == calls_need => {
                let json = get(agentloop_agent_take_calls, a).unwrap();
                let calls = agentloop_core::json::parse(json.as_bytes()).unwrap();
                let agentloop_core::json::Value::Array(calls) = calls else {
                    panic!("not an array: {json}")
                };
                let results: Vec<(String, Result<Vec<u8>, String>)> = calls
                    .iter()
                    .map(|call| {
                        let call = call.as_object().unwrap();
                        let id = call.get("id").unwrap().as_str().unwrap().to_string();
                        let name = call.get("name").unwrap().as_str().unwrap();
                        let result = tools
                            .call(name, call.get("arguments").unwrap())
                            .map(|v| agentloop_core::jcs::to_vec(&v).unwrap())
                            .map_err(|e| e.message().to_string());
                        (id, result)
                    })
                    .collect();
                for i in order(results.len()) {
                    let (id, result) = &results[i];
                    assert_eq!(feed_for(a, id, result.clone()), agentloop_result::Ok);
                    transcript += &drain(a, c);
                }
                assert!(results.len() as u64 <= parallel.max(1), "{json}");
                // Every result fed: no call is waiting.
                assert_eq!(
                    get(agentloop_agent_take_calls, a),
                    Err(agentloop_result::InvalidState)
                );
            }
            n => {
                assert_eq!(n, agentloop_need::Done as u32);
                return transcript;
            }
        }
        transcript += &drain(a, c);
    }
}

#[test]
fn any_parallelism_through_the_c_agent_writes_the_one_at_a_time_bytes_in_any_feed_order() {
    let replies = eight_calls();
    let one = agent("eight", None);
    demo_tools(&one);
    let want = drive_demo(&one, &chain(), &replies);
    let orders: [fn(usize) -> Vec<usize>; 3] = [
        |n| (0..n).collect(),
        |n| (0..n).rev().collect(),
        |n| (1..n).step_by(2).chain((0..n).step_by(2)).collect(),
    ];
    for parallel in [u64::MAX, 64, 3, 2, 1, 0] {
        for order in orders {
            let a = agent("eight", None);
            demo_tools(&a);
            let got = drive_batched(&a, &chain(), &replies, parallel, order);
            assert_eq!(got, want, "parallel {parallel}");
        }
    }
    assert_eq!(want.lines().count(), 12, "{want}");
    // SAFETY: a NULL agent is refused before anything is read.
    let r = unsafe { agentloop_agent_set_parallel(null_mut(), 2) };
    assert_eq!(r, agentloop_result::NullParameter);
}

/// The parallelism may change between polls: calls already handed out stay handed
/// out, and lowered to 1 a poll asks for the first of them one at a time. The call a
/// one-at-a-time poll asks for may be fed by id; once it is, the call getters refuse
/// until the next poll, and the other calls waiting are still fed by id.
#[test]
fn lowered_to_one_while_calls_wait_a_poll_asks_for_the_first_of_them() {
    let a = agent("three", None);
    demo_tools(&a);
    let c = chain();
    set_parallel(&a, 2);
    assert_eq!(poll(&a), agentloop_need::ModelReply as u32);
    let calls = r#"[{"name":"echo","arguments":{"n":0}},{"name":"echo","arguments":{"n":1}},{"name":"echo","arguments":{"n":2}}]"#;
    assert_eq!(feed_reply(&a, b"", calls.as_bytes()), agentloop_result::Ok);
    drain(&a, &c);
    assert_eq!(poll(&a), agentloop_need::ToolResults as u32);
    let ids = |a: &Agent| {
        let json = get(agentloop_agent_take_calls, a).unwrap();
        json.match_indices("\"id\":\"")
            .map(|(at, _)| json[at + 6..at + 14].to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&a), ["call_1_0", "call_1_1"]);
    set_parallel(&a, 1);
    assert_eq!(poll(&a), agentloop_need::ToolResult as u32);
    assert_eq!(get(agentloop_agent_call_id, &a).unwrap(), "call_1_0");
    // Both still waiting. The call asked for, fed by id, is no longer asked for (the
    // getters would name a call fed already); the other is still fed by id.
    assert_eq!(ids(&a), ["call_1_0", "call_1_1"]);
    assert_eq!(
        feed_for(&a, "call_1_0", Ok(b"0".to_vec())),
        agentloop_result::Ok
    );
    assert_eq!(
        get(agentloop_agent_call_id, &a),
        Err(agentloop_result::InvalidState),
        "the call asked for was fed"
    );
    assert_eq!(feed_value(&a, b"0"), agentloop_result::InvalidState);
    assert_eq!(ids(&a), ["call_1_1"]);
    assert_eq!(
        feed_for(&a, "call_1_1", Ok(b"1".to_vec())),
        agentloop_result::Ok
    );
    let lines = drain(&a, &c);
    assert_eq!(lines.lines().count(), 2, "{lines}");
    // One at a time now: the third call alone, by either path.
    assert_eq!(poll(&a), agentloop_need::ToolResult as u32);
    assert_eq!(ids(&a), ["call_1_2"]);
    assert_eq!(
        feed_for(&a, "call_1_2", Ok(b"2".to_vec())),
        agentloop_result::Ok
    );
    assert_eq!(
        get(agentloop_agent_take_calls, &a),
        Err(agentloop_result::InvalidState)
    );
    assert_eq!(drain(&a, &c).lines().count(), 1);
}

/// What a turn's calls handed out at once look like from C: the calls that passed their
/// checks, in call order, fed by id in any order, each refusal leaving the agent as it
/// was.
#[test]
fn the_calls_handed_out_at_once_are_fed_by_id_in_any_order() {
    let a = agent("eight", None);
    demo_tools(&a);
    let c = chain();
    assert_eq!(
        get(agentloop_agent_take_calls, &a),
        Err(agentloop_result::InvalidState),
        "before a poll"
    );
    set_parallel(&a, u64::MAX);
    assert_eq!(poll(&a), agentloop_need::ModelReply as u32);
    let calls = r#"[{"name":"add","arguments":{"a":1,"b":2}},{"name":"nosuch","arguments":{}},{"name":"echo","arguments":{}}]"#;
    assert_eq!(feed_reply(&a, b"", calls.as_bytes()), agentloop_result::Ok);
    drain(&a, &c);
    assert_eq!(poll(&a), agentloop_need::ToolResults as u32);
    assert_eq!(
        get(agentloop_agent_take_calls, &a).unwrap(),
        r#"[{"arguments":{"a":1,"b":2},"id":"call_1_0","name":"add"},{"arguments":{},"id":"call_1_2","name":"echo"}]"#
    );
    // The one-at-a-time getters do not apply to calls handed out together.
    assert_eq!(
        get(agentloop_agent_call_id, &a),
        Err(agentloop_result::InvalidState)
    );
    // Refused and unknown ids; bad JSON; NULLs: nothing changes.
    for id in ["call_1_1", "call_9_9", ""] {
        assert_eq!(
            feed_for(&a, id, Ok(b"1".to_vec())),
            agentloop_result::InvalidArgument
        );
    }
    assert_eq!(
        feed_for(&a, "call_1_2", Ok(b"{".to_vec())),
        agentloop_result::InvalidJson
    );
    // SAFETY: a NULL agent is refused before anything is read.
    let r = unsafe {
        agentloop_agent_feed_tool_result_for(null_mut(), b"x".as_ptr(), 1, b"1".as_ptr(), 1)
    };
    assert_eq!(r, agentloop_result::NullParameter);
    let mut len = 0;
    // SAFETY: a NULL agent is refused.
    let r = unsafe { agentloop_agent_take_calls(null(), null_mut(), 0, &mut len) };
    assert_eq!(r, agentloop_result::NullParameter);
    // The second call first: it waits for the first (and the refusal between).
    assert_eq!(
        feed_for(&a, "call_1_2", Ok(b"2".to_vec())),
        agentloop_result::Ok
    );
    assert_eq!(drain(&a, &c), "");
    assert_eq!(
        get(agentloop_agent_take_calls, &a).unwrap(),
        r#"[{"arguments":{"a":1,"b":2},"id":"call_1_0","name":"add"}]"#
    );
    assert_eq!(
        feed_for(&a, "call_1_2", Ok(b"2".to_vec())),
        agentloop_result::InvalidArgument,
        "fed twice"
    );
    assert_eq!(
        feed_for(&a, "call_1_0", Err("no".into())),
        agentloop_result::Ok
    );
    let lines = drain(&a, &c);
    let ids: Vec<&str> = lines
        .lines()
        .map(|l| &l[l.find("\"id\":\"").unwrap() + 6..][..8])
        .collect();
    assert_eq!(ids, ["call_1_0", "call_1_1", "call_1_2"]);
    assert_eq!(
        feed_for(&a, "call_1_0", Ok(b"1".to_vec())),
        agentloop_result::InvalidState,
        "no call waiting"
    );
}

/// The run's setup a C host gives (`agentloop_agent_set_setup`) is recorded in its task
/// record, as `Setup::encode` writes it, and the transcript audits as a run; a setup
/// that is not JSON, does not decode, or whose tools are not the registered ones is
/// refused, and one given after the first poll too, the agent unchanged.
#[test]
fn a_setup_given_from_c_is_recorded_in_the_task_record() {
    use agentloop_core::vocabulary::{ModelName, OfferedTool, Setup};
    let set = |a: &Agent, bytes: &[u8]| {
        // SAFETY: a live agent and a valid byte input.
        unsafe { agentloop_agent_set_setup(a.0, bytes.as_ptr(), bytes.len()) }
    };
    let scenario = demo::recover();
    let a = agent(scenario.task, Some(&recover_budgets()));
    demo_tools(&a);
    let manifest = demo::toolbox().unwrap().manifest().clone();
    // As registered from C: not declared idempotent.
    let mut tools = OfferedTool::from_manifest(&manifest);
    tools.iter_mut().for_each(|t| t.idempotent = false);
    let setup = Setup {
        model: Some(ModelName {
            provider: "openai".into(),
            name: "gpt-4.1-mini".into(),
        }),
        endpoint: Some("https://api.example/v1".into()),
        system: Some("Be terse.".into()),
        tools,
        ..Setup::default()
    };
    let json = agentloop_core::jcs::to_vec(&setup.encode()).unwrap();
    assert_eq!(set(&a, b"{"), agentloop_result::InvalidJson);
    assert_eq!(
        set(&a, br#"{"tools":{}}"#),
        agentloop_result::InvalidArgument
    );
    let none_offered = agentloop_core::jcs::to_vec(&Setup::default().encode()).unwrap();
    assert_eq!(set(&a, &none_offered), agentloop_result::InvalidArgument);
    assert_eq!(set(&a, &json), agentloop_result::Ok);
    let c = chain();
    let transcript = drive_demo(&a, &c, &scenario.replies);
    assert_eq!(set(&a, &json), agentloop_result::InvalidState);
    let first = transcript.lines().next().unwrap();
    let record = agentloop_core::json::parse(first.as_bytes()).unwrap();
    let payload = record.as_object().unwrap().get("payload").unwrap();
    let recorded = payload.as_object().unwrap().get("setup").unwrap();
    assert_eq!(recorded, &setup.encode());
    let report = agentloop_core::audit::verify_loop_bytes(
        transcript.as_bytes(),
        &agentloop_core::verify::Options::default(),
    );
    assert!(report.ok(), "{:?}", report.faults);
}
