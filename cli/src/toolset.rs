//! The tools `run` offers and `tools` prints: the demo tools, then each `--mcp`
//! server's (`agentloop_mcp`), named as docs/mcp.md says (`tools_map` records how).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use agentloop_core::demo;
use agentloop_core::jcs;
use agentloop_core::json::Value;
use agentloop_core::tools::{ToolOptions, Toolbox};
use agentloop_mcp::{register_tools, McpOptions, McpServer, Registration, Stderr};

use crate::args::ToolsArgs;
use crate::diag;
use crate::failure::{Failure, SetupFailure};

/// The tools offered, the MCP servers they came from and how they were named.
pub struct Offered {
    /// The toolbox (the MCP tools hold their servers: dropping it reaps them).
    pub toolbox: Toolbox,
    /// How the MCP tools were named, and which were skipped.
    pub registration: Registration,
}

/// The options every server is started with. `default_log` is where their stderr goes
/// when `--mcp-log` is not given (`None`: discarded).
pub fn options(args: &ToolsArgs, default_log: Option<PathBuf>) -> Result<McpOptions, Failure> {
    let mut env = Vec::new();
    for name in &args.mcp_env {
        match std::env::var_os(name) {
            Some(value) => env.push((OsString::from(name), value)),
            None => return Err(Failure::Setup(SetupFailure::McpEnvNotSet(name.clone()))),
        }
    }
    let stderr = match args.mcp_log.clone().or(default_log) {
        Some(path) => Stderr::Append(path),
        None => Stderr::Discard,
    };
    Ok(McpOptions {
        call_timeout: Duration::from_secs(args.mcp_timeout),
        init_timeout: Duration::from_secs(args.mcp_init_timeout),
        inline_media: args.mcp_inline_media,
        trust_hints: args.mcp_trust_hints,
        stderr,
        env,
        ..McpOptions::default()
    })
}

/// Starts every `--mcp` server, in order (each handshake done), then connects to every
/// `--mcp-url` server, in order, with its `--mcp-header`s; the first that fails is the
/// error (those already started are reaped as they are dropped). The headers are
/// checked first: a bad one starts nothing.
pub fn spawn(args: &ToolsArgs, options: &McpOptions) -> Result<Vec<McpServer>, Failure> {
    let headers = headers(&args.mcp_header, args.mcp_url.len())?;
    let mut servers = Vec::with_capacity(args.mcp.len() + args.mcp_url.len());
    for (index, command) in args.mcp.iter().enumerate() {
        let failed = |error: String| {
            Failure::Setup(SetupFailure::Mcp {
                index,
                flag: "--mcp",
                command: command.text.clone(),
                error,
            })
        };
        let Some((program, rest)) = command.words.split_first() else {
            return Err(failed(String::from("the command is empty")));
        };
        let server = McpServer::spawn(program, rest, options).map_err(|e| failed(e.to_string()))?;
        servers.push(server);
    }
    for (at, url) in args.mcp_url.iter().enumerate() {
        let server = McpServer::connect(url, &headers[at], options).map_err(|error| {
            Failure::Setup(SetupFailure::Mcp {
                index: args.mcp.len() + at,
                flag: "--mcp-url",
                command: agentloop_http::without_userinfo(url).into_owned(),
                error: error.to_string(),
            })
        })?;
        servers.push(server);
    }
    Ok(servers)
}

/// The `--mcp-header`s of each of `urls` `--mcp-url` servers: `[N:]NAME=VALUE`, `N`
/// needed when there is more than one. A refusal names the header, never its value.
fn headers(given: &[String], urls: usize) -> Result<Vec<Vec<(String, String)>>, Failure> {
    let mut headers = vec![Vec::new(); urls];
    for text in given {
        let refuse = |why: String| Err(Failure::Setup(SetupFailure::McpHeader(why)));
        let Some((target, value)) = text.split_once('=') else {
            return refuse(String::from(
                "takes 'NAME=VALUE' (or 'N:NAME=VALUE'), and this one has no '='",
            ));
        };
        let (server, name) = match target.split_once(':') {
            Some((index, name)) => match index.parse::<usize>() {
                Ok(index) if index < urls => (index, name),
                _ => {
                    return refuse(format!(
                        "{target}: there is no --mcp-url {index} (N counts the --mcp-url \
                         from 0, and there {})",
                        match urls {
                            1 => String::from("is 1"),
                            n => format!("are {n}"),
                        }
                    ))
                }
            },
            None if urls == 1 => (0, target),
            None if urls == 0 => return refuse(format!("{target}: there is no --mcp-url")),
            None => {
                return refuse(format!(
                    "{target}: there are {urls} --mcp-url servers; say which: \
                     'N:{target}=…' (N counts the --mcp-url from 0)"
                ))
            }
        };
        headers[server].push((String::from(name), String::from(value)));
    }
    Ok(headers)
}

/// The toolbox: the demo tools when asked (under their own names), then the servers'
/// tools; each with its limit from `limits` (by the name offered). A limit for a name
/// not offered is refused; a tool that cannot be offered is said on stderr as a
/// warning and left out.
pub fn offer(
    args: &ToolsArgs,
    servers: &[McpServer],
    limits: &BTreeMap<String, u64>,
) -> Result<Offered, Failure> {
    let offered = build(args, servers, limits)?;
    let names: Vec<String> = offered
        .toolbox
        .manifest()
        .names()
        .map(str::to_owned)
        .collect();
    if let Some(name) = limits.keys().find(|name| !names.contains(name)) {
        return Err(Failure::Setup(SetupFailure::UnknownToolLimit {
            name: name.clone(),
            tools: names,
        }));
    }
    Ok(offered)
}

/// [`offer`] without its check of the limits: the toolbox of servers listed again
/// during a run (a limit may name a tool a server no longer lists).
pub fn build(
    args: &ToolsArgs,
    servers: &[McpServer],
    limits: &BTreeMap<String, u64>,
) -> Result<Offered, Failure> {
    let mut toolbox = Toolbox::new();
    if args.demo_tools {
        // Concurrent, as the MCP tools are: a turn's calls to them run together.
        for tool in demo::all_tools() {
            let limit = limits.get(&tool.spec().name).copied();
            toolbox
                .register(tool, ToolOptions::new().limit(limit).concurrent())
                .map_err(Failure::DemoTools)?;
        }
    }
    let registration = register_tools(servers, &mut toolbox, limits).map_err(|error| {
        let agentloop_mcp::RegisterToolsError::List { server, error } = error;
        let (flag, command) = match (args.mcp.get(server), servers.get(server)) {
            (Some(command), _) => ("--mcp", command.text.clone()),
            (None, Some(remote)) => ("--mcp-url", String::from(remote.url().unwrap_or(""))),
            (None, None) => ("--mcp", String::new()),
        };
        Failure::Setup(SetupFailure::Mcp {
            index: server,
            flag,
            command,
            error: format!("could not list its tools: {error}"),
        })
    })?;
    for skipped in &registration.skipped {
        diag::say(format!("warning: {skipped}; the other tools are offered"));
    }
    Ok(Offered {
        toolbox,
        registration,
    })
}

/// The canonical text of a value and a newline.
pub fn line(value: &Value) -> Vec<u8> {
    // The values here hold strings, integers and booleans: always encodable.
    let mut bytes = jcs::to_vec(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_goes_to_the_url_it_names_and_a_refusal_never_shows_its_value() {
        let given = |texts: &[&str]| texts.iter().map(|t| String::from(*t)).collect::<Vec<_>>();
        let one = headers(&given(&["Authorization=Bearer $T", "X-A=b=c"]), 1).unwrap();
        assert_eq!(
            one,
            [[
                (String::from("Authorization"), String::from("Bearer $T")),
                (String::from("X-A"), String::from("b=c")),
            ]]
        );
        let two = headers(&given(&["1:X-A=v:w", "0:X-B=u"]), 2).unwrap();
        assert_eq!(two[0], [(String::from("X-B"), String::from("u"))]);
        assert_eq!(two[1], [(String::from("X-A"), String::from("v:w"))]);
        for (texts, urls, said) in [
            (
                &["X-A=literal-secret"][..],
                2,
                "X-A: there are 2 --mcp-url servers; say which",
            ),
            (
                &["2:X-A=literal-secret"][..],
                2,
                "2:X-A: there is no --mcp-url 2",
            ),
            (&["X-A=literal-secret"][..], 0, "X-A: there is no --mcp-url"),
            (&["literal-secret"][..], 1, "takes 'NAME=VALUE'"),
        ] {
            let refused = headers(&given(texts), urls).err().unwrap().to_string();
            assert!(refused.contains(said), "{refused}");
            assert!(!refused.contains("literal-secret"), "{refused}");
        }
    }

    #[test]
    fn demo_tools_are_offered_first_with_their_limits_and_a_stray_limit_is_refused() {
        let args = ToolsArgs {
            demo_tools: true,
            mcp: Vec::new(),
            mcp_url: Vec::new(),
            mcp_header: Vec::new(),
            mcp_timeout: 60,
            mcp_init_timeout: 60,
            mcp_log: None,
            mcp_env: Vec::new(),
            mcp_trust_hints: false,
            mcp_inline_media: false,
        };
        let limits = BTreeMap::from([(String::from("add"), 2)]);
        let offered = offer(&args, &[], &limits).unwrap();
        assert_eq!(offered.toolbox.manifest().limit("add"), Some(2));
        assert_eq!(offered.toolbox.manifest().limit("echo"), None);
        let stray = BTreeMap::from([(String::from("read_file"), 1)]);
        let refused = offer(&args, &[], &stray).err().unwrap();
        assert!(
            refused
                .to_string()
                .contains("the tools are add, echo, fail, greet"),
            "{refused}"
        );
    }
}
