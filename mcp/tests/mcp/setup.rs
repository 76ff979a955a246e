//! What a run's setup records of a server and its tools (`McpServer::identity`,
//! `Registration::offered_tools`): the command line only as its digest, and each tool's
//! source.

use crate::common;

use std::collections::BTreeMap;

use agentloop_core::json::Value;
use agentloop_core::tools::{FnTool, ToolOptions, ToolSpec, Toolbox};
use agentloop_core::vocabulary::{ServerIdentity, ServerOrigin, ToolSource};
use agentloop_mcp::{register_tools, McpServer};
use common::{fake, fake_script, json, options, python};

#[test]
fn a_server_is_its_command_digest_and_its_tools_are_marked_with_their_source() {
    let Some(python) = python() else { return };
    let server = fake(python, &["--stderr", "secret-word"], &options()).unwrap();
    let identity = server.identity();
    let script = fake_script().to_string_lossy().into_owned();
    let words = [python, script.as_str(), "--stderr", "secret-word"];
    assert_eq!(
        identity.origin,
        ServerOrigin::Command(ServerIdentity::command_digest(&words))
    );
    assert_eq!(identity.protocol_version, server.protocol_version());
    assert_eq!(identity.server_info.as_ref(), server.server_info());
    assert!(!format!("{identity:?}").contains("secret"));
    let mut toolbox = Toolbox::new();
    let host = ToolSpec::new("host", "the host's", json(r#"{"type":"object"}"#));
    let tool = FnTool::new(host, |_: &Value| Ok(Value::Null));
    toolbox.register(tool, ToolOptions::new()).unwrap();
    let servers = [server];
    let registration = register_tools(&servers, &mut toolbox, &BTreeMap::new()).unwrap();
    let offered = registration.offered_tools(toolbox.manifest());
    assert_eq!(offered.len(), toolbox.manifest().specs().len());
    let mut from_server = 0;
    for tool in &offered {
        match registration.tools.iter().find(|t| t.name == tool.name) {
            Some(registered) => {
                let source = ToolSource::Mcp {
                    server: 0,
                    name: registered.mcp_name.clone(),
                };
                assert_eq!(tool.source, source);
                from_server += 1;
            }
            None => assert_eq!(
                (tool.name.as_str(), &tool.source),
                ("host", &ToolSource::Host)
            ),
        }
    }
    assert_eq!(from_server, registration.tools.len());
    assert!(from_server > 0);
}

#[test]
fn a_server_over_http_is_its_url_without_userinfo() {
    let Some(python) = python() else { return };
    let script = fake_script().with_file_name("fake_http_server.py");
    let listening = common::Listening::start(python, &[script.as_os_str()], &[]);
    let url = listening.url("/sessions");
    let with_password = url.replace("://", "://agent:pw-in-url-3c@");
    let server = McpServer::connect::<&str, &str>(&with_password, &[], &options()).unwrap();
    let identity = server.identity();
    assert_eq!(identity.origin, ServerOrigin::Url(url));
    assert_eq!(identity.protocol_version, server.protocol_version());
    assert!(!format!("{identity:?}").contains("pw-in-url"));
}
