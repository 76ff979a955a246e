//! The setup's bytes, its decode back and its errors, the first difference between two
//! setups in the order `difference` promises, and the agent recording one.

use alloc::string::{String, ToString};

use super::*;
use crate::agent::Agent;
use crate::agent::SetupErrorKind;
use crate::jcs::to_vec;
use crate::json::{parse, Object, Value};
use crate::tools::{Manifest, ToolSpec};

fn text(value: &Value) -> String {
    String::from_utf8(to_vec(value).unwrap()).unwrap()
}

fn info(name: &str, version: &str) -> Object {
    match parse(alloc::format!(r#"{{"name":"{name}","version":"{version}"}}"#).as_bytes()) {
        Ok(Value::Object(o)) => o,
        other => panic!("{other:?}"),
    }
}

fn server(words: &[&str], name: &str) -> ServerIdentity {
    ServerIdentity {
        origin: ServerOrigin::Command(ServerIdentity::command_digest(words)),
        protocol_version: "2025-11-25".into(),
        server_info: Some(info(name, "1")),
    }
}

fn tool(name: &str, source: ToolSource) -> OfferedTool {
    OfferedTool {
        name: name.into(),
        description: alloc::format!("the {name} tool"),
        schema: parse(br#"{"type":"object"}"#).unwrap(),
        idempotent: false,
        source,
    }
}

fn full() -> Setup {
    let mut options = Object::new();
    options.insert("max_output_tokens", Value::Number(256.0));
    Setup {
        model: Some(ModelName {
            provider: "openai".into(),
            name: "gpt-4.1-mini".into(),
        }),
        endpoint: Some("http://127.0.0.1:8080/v1".into()),
        system: Some("You are terse.".into()),
        options,
        tools: alloc::vec![
            tool("add", ToolSource::Host),
            tool(
                "echo",
                ToolSource::Mcp {
                    server: 0,
                    name: "echo".into()
                }
            ),
        ],
        servers: alloc::vec![server(
            &["python3", "fake_server.py", "--tools", "pipe"],
            "fake"
        )],
    }
}

#[test]
fn a_setup_is_these_bytes_and_reads_back() {
    let setup = full();
    assert_eq!(
        text(&setup.encode()),
        r#"{"endpoint":"http://127.0.0.1:8080/v1","model":{"name":"gpt-4.1-mini","provider":"openai"},"options":{"max_output_tokens":256},"servers":[{"command_sha256":"2ce083b99beea350b87aeb4143d5d1cddeeea463b8099f89e657f73086bfed8a","protocol_version":"2025-11-25","server_info":{"name":"fake","version":"1"}}],"system":"You are terse.","tools":[{"description":"the add tool","idempotent":false,"name":"add","schema":{"type":"object"},"source":"host"},{"description":"the echo tool","idempotent":false,"mcp_name":"echo","name":"echo","schema":{"type":"object"},"server":0,"source":"mcp"}]}"#
    );
    assert_eq!(Setup::decode(&setup.encode()).unwrap(), setup);
    // Only the tools when nothing else is known.
    assert_eq!(text(&Setup::default().encode()), r#"{"tools":[]}"#);
    assert_eq!(
        Setup::decode(&Setup::default().encode()).unwrap(),
        Setup::default()
    );
}

#[test]
fn a_task_payload_carries_its_setup_only_when_it_has_one() {
    let bare = parse(br#"{"budgets":{},"task":"t"}"#).unwrap();
    let task = TaskPayload::decode(&bare).unwrap();
    assert_eq!(task.setup, None);
    assert_eq!(task.encode(), bare);
    let with = TaskPayload {
        setup: Some(Setup::default()),
        ..task
    };
    assert_eq!(
        text(&with.encode()),
        r#"{"budgets":{},"setup":{"tools":[]},"task":"t"}"#
    );
    assert_eq!(TaskPayload::decode(&with.encode()).unwrap(), with);
}

#[test]
fn a_setup_not_as_the_format_writes_it_is_refused_naming_the_member() {
    let cases: [(&str, &str); 7] = [
        ("[]", "the task payload's setup must be an object"),
        ("{}", "the task payload has no setup.tools"),
        (
            r#"{"tools":[{"name":"a","description":"","schema":{},"idempotent":false,"source":"elsewhere"}]}"#,
            "the task payload's setup.tools[].source must be \"host\" or \"mcp\"",
        ),
        (
            r#"{"tools":[{"name":"a","description":"","schema":{},"idempotent":false,"source":"mcp","server":0,"mcp_name":"a"}]}"#,
            "the task payload's setup.tools[].server must be a server setup.servers lists",
        ),
        (
            r#"{"tools":[{"name":"a","description":"","schema":{},"idempotent":"no","source":"host"}]}"#,
            "the task payload's setup.tools[].idempotent must be a boolean",
        ),
        (
            r#"{"tools":[],"servers":[{"command_sha256":"2CE083B99BEEA350B87AEB4143D5D1CDDEEEA463B8099F89E657F73086BFED8A","protocol_version":"x"}]}"#,
            "the task payload's setup.servers[].command_sha256 must be 64 lowercase hex digits",
        ),
        (
            r#"{"tools":[],"model":{"provider":"openai"}}"#,
            "the task payload has no setup.model.name",
        ),
    ];
    for (setup, sentence) in cases {
        let error = Setup::decode(&parse(setup.as_bytes()).unwrap()).unwrap_err();
        assert_eq!(error.to_string(), sentence, "{setup}");
    }
}

/// A change made to a copy of a setup.
type Change = fn(&mut Setup);

#[test]
fn the_first_difference_is_named_in_the_promised_order() {
    let recorded = full();
    assert_eq!(recorded.difference(&full()), None);
    let mut moved = full();
    moved.endpoint = Some("http://127.0.0.1:9999/v1".into());
    assert_eq!(
        recorded.difference(&moved),
        None,
        "the endpoint is not compared"
    );

    let differs = |change: Change| {
        let mut given = full();
        change(&mut given);
        recorded.difference(&given).map(|d| d.to_string())
    };
    let cases: [(Change, &str); 8] = [
        (
            |s| s.model = None,
            "the model: openai:gpt-4.1-mini against none",
        ),
        (
            |s| s.system = Some("Be long.".into()),
            r#"the system prompt: "You are terse." against "Be long.""#,
        ),
        (
            |s| s.options = Object::new(),
            r#"the request options: {"max_output_tokens":256} against {}"#,
        ),
        (
            |s| s.servers.push(server(&["other"], "other")),
            "the number of MCP servers: 1 against 2",
        ),
        (
            |s| s.servers[0].protocol_version = "2026-07-28".into(),
            r#"MCP server 0's protocol revision: "2025-11-25" against "2026-07-28""#,
        ),
        (
            |s| drop(s.tools.pop()),
            "the tools offered: 2 (add, echo) against 1 (add)",
        ),
        (
            |s| s.tools[1].schema = Value::Object(Object::new()),
            r#"tool 1 ("echo")'s schema: {"type":"object"} against {}"#,
        ),
        (
            |s| {
                s.tools[0].source = ToolSource::Mcp {
                    server: 0,
                    name: "add".into(),
                }
            },
            r#"tool 0 ("add")'s source: "host" against {"mcp_name":"add","server":0}"#,
        ),
    ];
    for (change, sentence) in cases {
        assert_eq!(differs(change).as_deref(), Some(sentence));
    }
    // The same servers in another order is said as such, by their names.
    let two = |order: [usize; 2]| {
        let servers = [server(&["a"], "alpha"), server(&["b"], "beta")];
        Setup {
            servers: order.iter().map(|&i| servers[i].clone()).collect(),
            ..Setup::default()
        }
    };
    assert_eq!(
        two([0, 1]).difference(&two([1, 0])).unwrap().to_string(),
        "the order of the MCP servers: alpha 1, beta 1 against beta 1, alpha 1"
    );
}

#[test]
fn a_command_line_is_kept_only_as_its_digest() {
    let words = ["postgres-mcp", "postgres://user:secret@db/prod"];
    let setup = Setup {
        servers: alloc::vec![ServerIdentity {
            origin: ServerOrigin::Command(ServerIdentity::command_digest(&words)),
            protocol_version: "2025-11-25".into(),
            server_info: None,
        }],
        ..Setup::default()
    };
    let bytes = text(&setup.encode());
    assert!(
        !bytes.contains("secret") && !bytes.contains("postgres"),
        "{bytes}"
    );
    assert_ne!(
        ServerIdentity::command_digest(&words),
        ServerIdentity::command_digest(&["postgres-mcp", "postgres://user:other@db/prod"])
    );
}

#[test]
fn a_remote_server_is_kept_as_its_url_and_compared_by_it() {
    let remote = |url: &str| ServerIdentity {
        origin: ServerOrigin::Url(url.into()),
        protocol_version: "2026-07-28".into(),
        server_info: Some(info("remote", "1")),
    };
    let setup = |servers| Setup {
        servers,
        ..Setup::default()
    };
    let recorded = setup(alloc::vec![remote("https://mcp.example/mcp")]);
    let bytes = text(&recorded.encode());
    assert_eq!(
        bytes,
        r#"{"servers":[{"protocol_version":"2026-07-28","server_info":{"name":"remote","version":"1"},"url":"https://mcp.example/mcp"}],"tools":[]}"#
    );
    assert_eq!(Setup::decode(&recorded.encode()).unwrap(), recorded);
    let moved = setup(alloc::vec![remote("https://other.example/mcp")]);
    assert_eq!(
        recorded.difference(&moved).unwrap().to_string(),
        r#"MCP server 0's URL: "https://mcp.example/mcp" against "https://other.example/mcp""#
    );
    let local = setup(alloc::vec![server(&["remote"], "remote")]);
    assert!(recorded
        .difference(&local)
        .unwrap()
        .to_string()
        .starts_with("MCP server 0's command line (its SHA-256) or URL: "));
    for (servers, member) in [
        (r#"[{"protocol_version":"x"}]"#, "setup.servers[]"),
        (
            r#"[{"url":"u","command_sha256":"00","protocol_version":"x"}]"#,
            "setup.servers[]",
        ),
        (
            r#"[{"url":7,"protocol_version":"x"}]"#,
            "setup.servers[].url",
        ),
    ] {
        let value =
            parse(alloc::format!(r#"{{"tools":[],"servers":{servers}}}"#).as_bytes()).unwrap();
        let error = Setup::decode(&value).unwrap_err().to_string();
        assert!(error.contains(member), "{servers}: {error}");
    }
}

fn manifest() -> Manifest {
    let mut manifest = Manifest::new();
    let spec = |name: &str| ToolSpec {
        name: name.to_string(),
        description: alloc::format!("the {name} tool"),
        schema: parse(br#"{"type":"object"}"#).unwrap(),
    };
    manifest.register(spec("add"), None).unwrap();
    manifest.register(spec("echo"), None).unwrap();
    manifest
}

#[test]
fn the_agent_records_a_setup_of_its_own_tools_in_its_task_record() {
    let mut setup = full();
    setup.tools = OfferedTool::from_manifest(&manifest());
    let mut agent = Agent::new("t", Default::default(), manifest())
        .unwrap()
        .with_setup(setup.clone())
        .unwrap();
    let records = agent.take_records();
    let task = TaskPayload::decode(&records[0].payload).unwrap();
    assert_eq!(task.setup, Some(setup.clone()));

    // Other tools than the manifest's, or a record already taken: refused.
    let mut other = setup.clone();
    other.tools[1].description = "something else".into();
    let refused = Agent::new("t", Default::default(), manifest())
        .unwrap()
        .with_setup(other)
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        r#"the setup's tools are not the ones offered: tool 1 ("echo")'s description: the setup has "something else", the manifest "the echo tool""#
    );
    let mut taken = Agent::new("t", Default::default(), manifest()).unwrap();
    let _ = taken.take_records();
    assert_eq!(
        taken.with_setup(setup.clone()).unwrap_err(),
        SetupErrorKind::TaskTaken.into()
    );

    // A setup that makes the task record longer than a verifier reads.
    let mut huge = setup;
    huge.system = Some("x".repeat(crate::verify::MAX_LINE_BYTES));
    let too_long = Agent::new("t", Default::default(), manifest())
        .unwrap()
        .with_setup(huge)
        .unwrap_err();
    assert!(matches!(too_long.0, SetupErrorKind::TooLong(n) if n > crate::verify::MAX_LINE_BYTES));
}

#[test]
fn a_setup_in_a_resume_record_is_refused_as_the_resume_payload_s() {
    let resume = parse(br#"{"after":"no_tool_calls","setup":{}}"#).unwrap();
    assert_eq!(
        ResumePayload::decode(&resume).unwrap_err().to_string(),
        "the resume payload has no setup.tools"
    );
    let fine = parse(br#"{"after":"no_tool_calls","setup":{"tools":[]}}"#).unwrap();
    assert_eq!(
        ResumePayload::decode(&fine).unwrap().setup,
        Some(Setup::default())
    );
}
