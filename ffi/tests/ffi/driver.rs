//! The callback driver (`agentloop_driver_run`, `agentloop_driver_run_to_writer`) called through the
//! rlib: it reproduces the Rust demo, refuses NULL callbacks and bad tools before
//! running, and turns callbacks that return garbage or nothing into recorded failures.

use core::ffi::{c_void, CStr};
use core::ptr::{null, null_mut};

use agentloop::*;
use agentloop_core::demo;

/// What the test model does each turn.
#[derive(Clone)]
enum Turn {
    /// Text and calls (name, arguments as raw bytes).
    Reply(&'static [u8], Vec<(&'static [u8], &'static [u8])>),
    /// Sets nothing.
    Nothing,
    /// Fails with this sentence.
    Error(&'static [u8]),
}

struct Model {
    turns: Vec<Turn>,
    next: usize,
    /// The codes the reply functions returned.
    codes: Vec<agentloop_result>,
    messages: Vec<String>,
}

unsafe extern "C" fn model_cb(
    userdata: *mut c_void,
    messages: *const u8,
    messages_len: usize,
    _manifest: *const u8,
    _manifest_len: usize,
    reply: *mut agentloop_reply,
) {
    // SAFETY: the test passes a live Model as userdata.
    let model = unsafe { &mut *userdata.cast::<Model>() };
    // SAFETY: the library passes messages_len readable bytes.
    let text = unsafe { core::slice::from_raw_parts(messages, messages_len) };
    model
        .messages
        .push(String::from_utf8(text.to_vec()).unwrap());
    let turn = model
        .turns
        .get(model.next)
        .cloned()
        .unwrap_or(Turn::Nothing);
    model.next += 1;
    // SAFETY: the reply handed to this callback, valid byte inputs.
    unsafe {
        match turn {
            Turn::Reply(text, calls) => {
                model
                    .codes
                    .push(agentloop_reply_set_text(reply, text.as_ptr(), text.len()));
                for (name, args) in calls {
                    model.codes.push(agentloop_reply_add_call(
                        reply,
                        name.as_ptr(),
                        name.len(),
                        args.as_ptr(),
                        args.len(),
                    ));
                }
            }
            Turn::Nothing => {}
            Turn::Error(why) => {
                model
                    .codes
                    .push(agentloop_reply_set_error(reply, why.as_ptr(), why.len()))
            }
        }
    }
}

/// A tool whose userdata is the value bytes to set (NULL: set nothing).
unsafe extern "C" fn value_cb(
    userdata: *mut c_void,
    _arguments: *const u8,
    _len: usize,
    result: *mut agentloop_tool_result,
) {
    if userdata.is_null() {
        return;
    }
    // SAFETY: the test passes a live &'static [u8] as userdata.
    let value = unsafe { *userdata.cast::<&[u8]>() };
    // SAFETY: the result handed to this callback.
    unsafe { agentloop_tool_result_set_value(result, value.as_ptr(), value.len()) };
}

/// The demo tools' behaviour for the recover scenario: add and fail.
unsafe extern "C" fn demo_cb(
    userdata: *mut c_void,
    arguments: *const u8,
    len: usize,
    result: *mut agentloop_tool_result,
) {
    // SAFETY: the library passes len readable bytes.
    let args = unsafe { core::slice::from_raw_parts(arguments, len) };
    // SAFETY: the result handed to this callback, valid byte inputs.
    unsafe {
        if userdata.is_null() {
            let why = b"the tool is broken on purpose";
            agentloop_tool_result_set_error(result, why.as_ptr(), why.len());
        } else {
            assert_eq!(args, br#"{"a":2,"b":40}"#);
            let sum = br#"{"sum":42}"#;
            agentloop_tool_result_set_value(result, sum.as_ptr(), sum.len());
        }
    }
}

unsafe extern "C" fn collect_cb(userdata: *mut c_void, line: *const u8, len: usize) -> u32 {
    // SAFETY: the test passes a live Vec<u8>; the library passes len readable bytes.
    unsafe {
        (*userdata.cast::<Vec<u8>>()).extend_from_slice(core::slice::from_raw_parts(line, len))
    };
    0
}

unsafe extern "C" fn refuse_cb(_: *mut c_void, _: *const u8, _: usize) -> u32 {
    1
}

/// Cancels at the check point whose number (from 0) the userdata counter reaches 0.
unsafe extern "C" fn cancel_cb(userdata: *mut c_void) -> bool {
    // SAFETY: the test passes a live counter.
    let left = unsafe { &mut *userdata.cast::<u32>() };
    if *left == 0 {
        return true;
    }
    *left -= 1;
    false
}

fn tool(
    name: &'static str,
    schema: &'static str,
    cb: agentloop_tool_callback,
    userdata: *mut c_void,
) -> agentloop_tool {
    agentloop_tool {
        name: name.as_ptr(),
        name_len: name.len(),
        description: b"d".as_ptr(),
        description_len: 1,
        schema: schema.as_ptr(),
        schema_len: schema.len(),
        limit: 0,
        callback: cb,
        userdata,
    }
}

const OBJECT: &str = r#"{"type":"object"}"#;

/// Runs with a collecting sink: the result, the transcript, the outcome.
fn run(
    model: &mut Model,
    tools: &[agentloop_tool],
    cancel: Option<&mut u32>,
) -> (agentloop_result, String, agentloop_outcome) {
    let mut lines: Vec<u8> = Vec::new();
    let mut outcome = agentloop_outcome {
        reason: 99,
        ..Default::default()
    };
    let task = "t";
    let (cancel_fn, cancel_ud): (agentloop_cancel_callback, *mut c_void) = match cancel {
        Some(counter) => (Some(cancel_cb), (counter as *mut u32).cast()),
        None => (None, null_mut()),
    };
    // SAFETY: valid inputs, callbacks and userdata that outlive the call.
    let r = unsafe {
        agentloop_driver_run(
            task.as_ptr(),
            task.len(),
            null(),
            Some(model_cb),
            (model as *mut Model).cast(),
            tools.as_ptr(),
            tools.len(),
            cancel_fn,
            cancel_ud,
            Some(collect_cb),
            (&mut lines as *mut Vec<u8>).cast(),
            &mut outcome,
        )
    };
    (r, String::from_utf8(lines).unwrap(), outcome)
}

fn model(turns: Vec<Turn>) -> Model {
    Model {
        turns,
        next: 0,
        codes: Vec::new(),
        messages: Vec::new(),
    }
}

#[test]
fn the_driver_reproduces_demo_recover() {
    let scenario = demo::recover();
    let mut m = model(vec![
        Turn::Reply(
            b"Multiplying is a kind of adding, right?",
            vec![(b"multiply", br#"{"a":2,"b":40}"#)],
        ),
        Turn::Reply(
            b"No multiply. Adding, with the numbers as I was given them.",
            vec![(b"add", br#"{"b":40,"a":"2"}"#)],
        ),
        Turn::Reply(
            b"The schema wants integers. Does the fail tool know more?",
            vec![(b"fail", b"{}")],
        ),
        Turn::Reply(
            b"That tool is broken. Adding two integers now.",
            vec![(b"add", br#"{"a":2,"b":40}"#)],
        ),
        Turn::Reply(b"2 + 40 = 42.", vec![]),
    ]);
    let add = r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}"#;
    let greet = r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#;
    let mut tools = [
        tool(
            "add",
            add,
            Some(demo_cb),
            core::ptr::dangling_mut::<c_void>(),
        ),
        tool(
            "echo",
            OBJECT,
            Some(demo_cb),
            core::ptr::dangling_mut::<c_void>(),
        ),
        tool("fail", OBJECT, Some(demo_cb), null_mut()),
        tool(
            "greet",
            greet,
            Some(demo_cb),
            core::ptr::dangling_mut::<c_void>(),
        ),
    ];
    let descriptions = [
        r#"Adds two integers a and b; returns {"sum": a + b}."#,
        "Returns its arguments unchanged.",
        "Always fails: shows that a failing tool is recorded, not fatal.",
        r#"Greets someone by name; returns {"greeting": "hello, <name>"}."#,
    ];
    for (tool, d) in tools.iter_mut().zip(descriptions) {
        tool.description = d.as_ptr();
        tool.description_len = d.len();
    }
    let budgets = agentloop_budgets {
        has_max_steps: true,
        max_steps: 8,
        ..Default::default()
    };
    let mut lines: Vec<u8> = Vec::new();
    let mut outcome = agentloop_outcome::default();
    // SAFETY: valid inputs, callbacks and userdata that outlive the call.
    let r = unsafe {
        agentloop_driver_run(
            scenario.task.as_ptr(),
            scenario.task.len(),
            &budgets,
            Some(model_cb),
            (&mut m as *mut Model).cast(),
            tools.as_ptr(),
            tools.len(),
            None,
            null_mut(),
            Some(collect_cb),
            (&mut lines as *mut Vec<u8>).cast(),
            &mut outcome,
        )
    };
    assert_eq!(r, agentloop_result::Ok);
    let (expected, _) = scenario.run().unwrap();
    assert_eq!(
        String::from_utf8(lines).unwrap(),
        String::from_utf8(expected).unwrap()
    );
    assert_eq!(outcome.reason, agentloop_stop::NoToolCalls as u32);
    assert_eq!(
        (outcome.steps, outcome.unrun_calls, outcome.tool_calls),
        (5, 0, 4)
    );
    assert!(m.codes.iter().all(|&c| c == agentloop_result::Ok));
    assert_eq!(m.messages.len(), 5);
    assert!(
        m.messages[4].contains(r#""error":"tool 'fail' failed: the tool is broken on purpose""#)
    );
}

/// A task that is empty or only white space asks nothing (and Anthropic refuses it):
/// refused before anything runs, no record written, the model never called.
#[test]
fn a_blank_task_is_refused_before_running() {
    for task in ["", "  ", "\n\t", "\u{2028}"] {
        let mut m = model(vec![]);
        let mut lines: Vec<u8> = Vec::new();
        let mut outcome = agentloop_outcome {
            reason: 99,
            ..Default::default()
        };
        // SAFETY: valid inputs, callbacks and userdata that outlive the call.
        let r = unsafe {
            agentloop_driver_run(
                task.as_ptr(),
                task.len(),
                null(),
                Some(model_cb),
                (&mut m as *mut Model).cast(),
                null(),
                0,
                None,
                null_mut(),
                Some(collect_cb),
                (&mut lines as *mut Vec<u8>).cast(),
                &mut outcome,
            )
        };
        assert_eq!(r, agentloop_result::InvalidArgument, "{task:?}");
        assert!(lines.is_empty());
        assert_eq!(outcome.reason, 99, "the outcome is written only on success");
        assert_eq!(m.next, 0, "the model was asked");
    }
}

#[test]
fn null_callbacks_and_bad_tools_are_refused_before_running() {
    let task = "t";
    let mut outcome = agentloop_outcome {
        reason: 99,
        ..Default::default()
    };
    let mut m = model(vec![]);
    let ud: *mut c_void = (&mut m as *mut Model).cast();
    let call = |model: agentloop_model_callback,
                tools: *const agentloop_tool,
                n: usize,
                record: agentloop_record_callback,
                out: *mut agentloop_outcome| {
        // SAFETY: valid inputs; the NULLs are what is tested.
        unsafe {
            agentloop_driver_run(
                task.as_ptr(),
                task.len(),
                null(),
                model,
                ud,
                tools,
                n,
                None,
                null_mut(),
                record,
                null_mut(),
                out,
            )
        }
    };
    let ok_tool = [tool("x", OBJECT, Some(value_cb), null_mut())];
    assert_eq!(
        call(None, null(), 0, Some(refuse_cb), &mut outcome),
        agentloop_result::NullParameter
    );
    assert_eq!(
        call(Some(model_cb), null(), 0, None, &mut outcome),
        agentloop_result::NullParameter
    );
    assert_eq!(
        call(Some(model_cb), null(), 0, Some(refuse_cb), null_mut()),
        agentloop_result::NullParameter
    );
    assert_eq!(
        call(Some(model_cb), null(), 1, Some(refuse_cb), &mut outcome),
        agentloop_result::NullParameter
    );
    let no_callback = [tool("x", OBJECT, None, null_mut())];
    assert_eq!(
        call(
            Some(model_cb),
            no_callback.as_ptr(),
            1,
            Some(refuse_cb),
            &mut outcome
        ),
        agentloop_result::NullParameter
    );
    let refused = [tool(
        "x",
        r#"{"type":"object","required":["a","a"]}"#,
        Some(value_cb),
        null_mut(),
    )];
    assert_eq!(
        call(
            Some(model_cb),
            refused.as_ptr(),
            1,
            Some(refuse_cb),
            &mut outcome
        ),
        agentloop_result::SchemaRefused
    );
    let bad_json = [tool("x", "{", Some(value_cb), null_mut())];
    assert_eq!(
        call(
            Some(model_cb),
            bad_json.as_ptr(),
            1,
            Some(refuse_cb),
            &mut outcome
        ),
        agentloop_result::InvalidJson
    );
    let twice = [ok_tool[0], ok_tool[0]];
    assert_eq!(
        call(
            Some(model_cb),
            twice.as_ptr(),
            2,
            Some(refuse_cb),
            &mut outcome
        ),
        agentloop_result::InvalidArgument
    );
    // Names and roots providers refuse.
    for (name, schema) in [
        ("", OBJECT),
        ("my tool", OBJECT),
        ("a.b", OBJECT),
        ("café", OBJECT),
        (
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            OBJECT,
        ),
        ("t", "true"),
        ("t", "false"),
        ("t", "{}"),
        ("t", r#"{"type":"integer"}"#),
        ("t", r#"{"anyOf":[{"type":"object"}]}"#),
        ("t", r#"{"type":["object"]}"#),
        ("t", r#"{"type":["object","null"]}"#),
    ] {
        let tools = [ok_tool[0], tool(name, schema, Some(value_cb), null_mut())];
        assert_eq!(
            call(
                Some(model_cb),
                tools.as_ptr(),
                2,
                Some(refuse_cb),
                &mut outcome
            ),
            agentloop_result::NotProviderSafe,
            "{name} {schema}"
        );
    }
    // The good boundary cases pass registration: the run starts, and the sink refuses
    // its first record.
    let good = [
        tool("-", OBJECT, Some(value_cb), null_mut()),
        tool("_", OBJECT, Some(value_cb), null_mut()),
        tool("0", OBJECT, Some(value_cb), null_mut()),
        tool(
            "ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ",
            r#"{"type":"object","anyOf":[{"required":["a"]},{}]}"#,
            Some(value_cb),
            null_mut(),
        ),
    ];
    assert_eq!(
        call(
            Some(model_cb),
            good.as_ptr(),
            4,
            Some(refuse_cb),
            &mut outcome
        ),
        agentloop_result::CallbackRefused
    );
    let mut bad_name = ok_tool;
    bad_name[0].name = b"\xff".as_ptr();
    bad_name[0].name_len = 1;
    assert_eq!(
        call(
            Some(model_cb),
            bad_name.as_ptr(),
            1,
            Some(refuse_cb),
            &mut outcome
        ),
        agentloop_result::InvalidUtf8
    );
    assert_eq!(outcome.reason, 99, "nothing written on failure");
    assert_eq!(m.next, 0, "the model was never called");
    // A sink that refuses the first record.
    assert_eq!(
        call(
            Some(model_cb),
            ok_tool.as_ptr(),
            1,
            Some(refuse_cb),
            &mut outcome
        ),
        agentloop_result::CallbackRefused
    );
    assert_eq!(outcome.reason, 99);
    // The builders refuse NULL.
    // SAFETY: NULL handles are what is tested.
    unsafe {
        assert_eq!(
            agentloop_reply_set_text(null_mut(), null(), 0),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_reply_add_call(null_mut(), null(), 0, null(), 0),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_reply_set_output_tokens(null_mut(), 1),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_reply_set_error(null_mut(), null(), 0),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_tool_result_set_value(null_mut(), null(), 0),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_tool_result_set_error(null_mut(), null(), 0),
            agentloop_result::NullParameter
        );
    }
}

fn stop_error(transcript: &str) -> String {
    let stop = transcript.lines().last().unwrap();
    let value = agentloop_core::json::parse(stop.as_bytes()).unwrap();
    let payload = value
        .as_object()
        .unwrap()
        .get("payload")
        .unwrap()
        .as_object()
        .unwrap();
    payload
        .get("error")
        .and_then(|e| e.as_str())
        .unwrap_or("")
        .to_owned()
}

#[test]
fn a_model_callback_that_returns_garbage_or_nothing_is_a_model_error() {
    let cases: Vec<(Turn, &str, agentloop_result)> = vec![
        (Turn::Nothing, "the model callback set no reply", agentloop_result::Ok),
        (
            Turn::Reply(b"\xff", vec![]),
            "the model callback's text was refused: a text input is not valid UTF-8",
            agentloop_result::InvalidUtf8,
        ),
        (
            Turn::Reply(b"", vec![(b"x", b"{")]),
            "the model callback's call 0 ('x') arguments was refused: the input is not JSON the strict I-JSON parser accepts",
            agentloop_result::InvalidJson,
        ),
        (
            Turn::Reply(b"", vec![(b"x", b"")]),
            "the model callback's call 0 ('x') arguments was refused: the input is not JSON the strict I-JSON parser accepts",
            agentloop_result::InvalidJson,
        ),
        (
            Turn::Reply(b"", vec![(b"\xfe", b"{}")]),
            "the model callback's call 0 name was refused: a text input is not valid UTF-8",
            agentloop_result::InvalidUtf8,
        ),
        (
            Turn::Reply(b"", vec![(b"x", br#"{"a":1e400}"#)]),
            "the model's reply cannot be recorded: the arguments of call 0 ('x') have no canonical encoding (a NaN or infinite number)",
            agentloop_result::NoCanonicalForm,
        ),
        (Turn::Error(b"HTTP 503"), "HTTP 503", agentloop_result::Ok),
        (Turn::Error(b""), "the model failed without saying why", agentloop_result::Ok),
        (
            Turn::Error(b"\xff"),
            "the model callback's error sentence was refused: a text input is not valid UTF-8",
            agentloop_result::InvalidUtf8,
        ),
    ];
    let tools = [tool("x", OBJECT, Some(value_cb), null_mut())];
    for (turn, sentence, code) in cases {
        let mut m = model(vec![turn]);
        let (r, transcript, outcome) = run(&mut m, &tools, None);
        assert_eq!(r, agentloop_result::Ok);
        assert_eq!(
            outcome.reason,
            agentloop_stop::ModelError as u32,
            "{sentence}"
        );
        assert_eq!(stop_error(&transcript), sentence);
        assert_eq!(
            m.codes.last().copied().unwrap_or(agentloop_result::Ok),
            code,
            "{sentence}"
        );
        assert_eq!(transcript.lines().count(), 2, "task and stop: {transcript}");
    }
}

#[test]
fn a_tool_callback_that_returns_garbage_or_nothing_is_a_failed_tool() {
    static NOT_JSON: &[u8] = b"{";
    static HUGE: &[u8] = br#"{"n":1e400}"#;
    static FINE: &[u8] = br#"{"n":1}"#;
    let cases: [(*const &[u8], &str); 4] = [
        (
            null(),
            r#""error":"tool 'x' failed: the callback returned no result""#,
        ),
        (
            &NOT_JSON,
            r#""error":"tool 'x' failed: the callback's value was refused: the input is not JSON the strict I-JSON parser accepts""#,
        ),
        (
            &HUGE,
            r#""error":"tool 'x' returned a value with no canonical encoding""#,
        ),
        (&FINE, r#""ok":true,"value":{"n":1}"#),
    ];
    for (value, expected) in cases {
        let tools = [tool("x", OBJECT, Some(value_cb), value as *mut c_void)];
        let mut m = model(vec![
            Turn::Reply(b"", vec![(b"x", b"{}")]),
            Turn::Reply(b"done", vec![]),
        ]);
        let (r, transcript, outcome) = run(&mut m, &tools, None);
        assert_eq!(r, agentloop_result::Ok);
        assert_eq!(outcome.reason, agentloop_stop::NoToolCalls as u32);
        assert!(transcript.contains(expected), "{transcript}");
    }
}

#[test]
fn the_cancel_callback_is_asked_at_every_check_point() {
    let tools = [tool("x", OBJECT, Some(value_cb), null_mut())];
    // Check points: before turn 1 (0), before its call (1): cancelled there.
    let mut left = 1u32;
    let mut m = model(vec![Turn::Reply(b"", vec![(b"x", b"{}"), (b"x", b"{}")])]);
    let (r, transcript, outcome) = run(&mut m, &tools, Some(&mut left));
    assert_eq!(r, agentloop_result::Ok);
    assert_eq!(outcome.reason, agentloop_stop::Cancelled as u32);
    assert_eq!(
        (outcome.steps, outcome.unrun_calls, outcome.tool_calls),
        (1, 2, 0)
    );
    assert_eq!(transcript.lines().count(), 3);
    // SAFETY: a static string.
    let name = unsafe { CStr::from_ptr(agentloop_stop_str(outcome.reason)) };
    assert_eq!(name.to_str().unwrap(), "cancelled");
}

#[test]
fn runs_continue_a_writers_file() {
    let dir = std::env::temp_dir().join(format!("agentloop-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.jsonl");
    let c_path = path.to_str().unwrap().to_owned();
    let tools = [tool("x", OBJECT, Some(value_cb), null_mut())];
    for round in 0..2 {
        let mut writer = null_mut();
        // SAFETY: a valid path input and a valid out pointer.
        assert_eq!(
            unsafe { agentloop_writer_open(c_path.as_ptr(), c_path.len(), null(), &mut writer) },
            agentloop_result::Ok
        );
        let mut m = model(vec![Turn::Reply(b"hi", vec![])]);
        let mut outcome = agentloop_outcome::default();
        let task = "t";
        // SAFETY: a live writer, valid inputs, callbacks and userdata.
        let r = unsafe {
            agentloop_driver_run_to_writer(
                writer,
                task.as_ptr(),
                task.len(),
                null(),
                Some(model_cb),
                (&mut m as *mut Model).cast(),
                tools.as_ptr(),
                tools.len(),
                None,
                null_mut(),
                &mut outcome,
            )
        };
        assert_eq!(r, agentloop_result::Ok);
        assert_eq!(outcome.reason, agentloop_stop::NoToolCalls as u32);
        let mut count = 0;
        // SAFETY: a live writer and a valid out pointer.
        assert_eq!(
            unsafe { agentloop_writer_count(writer, &mut count) },
            agentloop_result::Ok
        );
        assert_eq!(count, 3 * (round + 1));
        // SAFETY: a live writer, freed once; NULL is accepted.
        unsafe {
            agentloop_driver_run_to_writer(
                null_mut(),
                null(),
                0,
                null(),
                Some(model_cb),
                null_mut(),
                null(),
                0,
                None,
                null_mut(),
                &mut outcome,
            );
            agentloop_writer_free(writer);
        }
    }
    let bytes = std::fs::read(&path).unwrap();
    let report =
        agentloop_core::verify::verify_bytes(&bytes, &agentloop_core::verify::Options::default());
    assert!(report.ok());
    assert_eq!(report.count, 6);
    assert!(String::from_utf8(bytes)
        .unwrap()
        .contains(r#""kind":"task","payload":{"budgets":{},"task":"t"},"prev":"#));
    std::fs::remove_dir_all(&dir).unwrap();
}
