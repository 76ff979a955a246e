//! The setup of a run (SPEC section 4, "What a run records"): what determined the
//! requests, but secrets — the model, the endpoint without credentials, the system
//! prompt, the request options, the tools offered and where each came from, and the MCP
//! servers they came from as each reported itself. Format 2 records it as the `setup`
//! member of the `task` payload (docs/format.md):
//!
//! ```text
//! "setup": {"model": {"provider", "name"}, "endpoint", "system", "options": {…},
//!           "tools": [{"name", "description", "schema", "idempotent", "source": "host"},
//!                     {…, "source": "mcp", "server": i, "mcp_name"}],
//!           "servers": [{"command_sha256", "protocol_version", "server_info": {…}}]}
//! ```
//!
//! Only `tools` is always there; the others when known. A server's command line may hold
//! a secret (a database URL), so only its digest is kept.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::member::{
    DESCRIPTION, ENDPOINT, IDEMPOTENT, MCP_NAME, MODEL, NAME, OPTIONS, PROVIDER, SCHEMA, SERVER,
    SERVERS, SOURCE, SOURCE_HOST, SOURCE_MCP, SYSTEM, TOOLS,
};
use super::read::{number, object, Members};
use super::server::{servers_difference, ServerIdentity};
use super::{PayloadError, PayloadErrorKind, RecordKind};
use crate::hash::Hash;
use crate::jcs::to_vec;
use crate::json::{Object, Value};
use crate::tools::Manifest;

/// The setup of a run, as its `task` record (format 2) states it.
///
/// ```
/// use agentloop_core::json::{parse, Object};
/// use agentloop_core::vocabulary::{ModelName, Setup};
///
/// let setup = Setup {
///     model: Some(ModelName { provider: "openai".into(), name: "gpt-4.1-mini".into() }),
///     system: Some("You are terse.".into()),
///     ..Setup::default()
/// };
/// let value = setup.encode();
/// assert_eq!(
///     value,
///     parse(br#"{"model":{"name":"gpt-4.1-mini","provider":"openai"},
///                "system":"You are terse.","tools":[]}"#).unwrap()
/// );
/// assert_eq!(Setup::decode(&value).unwrap(), setup);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Setup {
    /// The model asked.
    pub model: Option<ModelName>,
    /// The base URL the requests went to, without userinfo.
    pub endpoint: Option<String>,
    /// The system prompt.
    pub system: Option<String>,
    /// The other request options sent, as the body has them (`max_output_tokens`,
    /// `temperature`, `tool_choice`, …); empty when none.
    pub options: Object,
    /// The tools offered, in the order the model was shown them.
    pub tools: Vec<OfferedTool>,
    /// The MCP servers, in the order they were given; an MCP tool's `server` indexes it.
    pub servers: Vec<ServerIdentity>,
}

/// The model a run asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelName {
    /// The provider's wire format: `openai` or `anthropic`.
    pub provider: String,
    /// The model's name, as sent.
    pub name: String,
}

/// A tool as it was offered to the model, and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct OfferedTool {
    /// The name the model was shown.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Its argument schema.
    pub schema: Value,
    /// Whether it runs again when a run died while it ran ([`crate::tools::Tool::idempotent`]).
    pub idempotent: bool,
    /// Where it came from.
    pub source: ToolSource,
}

/// Where an offered tool came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolSource {
    /// The host's own tool.
    Host,
    /// An MCP server's tool.
    Mcp {
        /// The server: an index into [`Setup::servers`].
        server: u64,
        /// The tool's name on that server.
        name: String,
    },
}

/// The first thing two setups do not agree on: `what`, and what each has there
/// (canonical JSON, or `none`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupDifference {
    /// What differs: `the system prompt`, `tool 2 ("echo")'s schema`, ….
    pub what: String,
    /// What the first setup (the recorded one) has there.
    pub recorded: String,
    /// What the other setup has there.
    pub given: String,
}

impl fmt::Display for SetupDifference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} against {}", self.what, self.recorded, self.given)
    }
}

impl core::error::Error for SetupDifference {}

const KIND: RecordKind = RecordKind::Task;

impl Setup {
    /// The `setup` member.
    pub fn encode(&self) -> Value {
        let mut members = Vec::new();
        if let Some(model) = &self.model {
            let model = [
                (PROVIDER, Value::from(model.provider.as_str())),
                (NAME, Value::from(model.name.as_str())),
            ];
            members.push((MODEL, object(model)));
        }
        if let Some(endpoint) = &self.endpoint {
            members.push((ENDPOINT, Value::from(endpoint.as_str())));
        }
        if let Some(system) = &self.system {
            members.push((SYSTEM, Value::from(system.as_str())));
        }
        if !self.options.is_empty() {
            members.push((OPTIONS, Value::Object(self.options.clone())));
        }
        let tools = self.tools.iter().map(OfferedTool::encode).collect();
        members.push((TOOLS, Value::Array(tools)));
        if !self.servers.is_empty() {
            let servers = self.servers.iter().map(ServerIdentity::encode).collect();
            members.push((SERVERS, Value::Array(servers)));
        }
        object(members)
    }

    /// Reads a `setup` member. Members the format does not have are not errors (the loop
    /// audit reports them).
    pub fn decode(value: &Value) -> Result<Setup, PayloadError> {
        let setup = Members::of(KIND, value).map_err(|_| malformed("setup", "an object"))?;
        let model = match setup.optional(MODEL) {
            None => None,
            Some(model) => {
                let model = setup.inner(model, "setup.model")?;
                Some(ModelName {
                    provider: String::from(model.string(PROVIDER, "setup.model.provider")?),
                    name: String::from(model.string(NAME, "setup.model.name")?),
                })
            }
        };
        let servers = match setup.optional(SERVERS) {
            None => Vec::new(),
            Some(Value::Array(servers)) => servers
                .iter()
                .map(|s| ServerIdentity::decode(setup.inner(s, "setup.servers[]")?))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(malformed("setup.servers", "an array")),
        };
        let tools: Vec<OfferedTool> = setup
            .array(TOOLS, "setup.tools")?
            .iter()
            .map(|t| OfferedTool::decode(setup.inner(t, "setup.tools[]")?))
            .collect::<Result<_, _>>()?;
        let listed = |tool: &OfferedTool| match tool.source {
            ToolSource::Mcp { server, .. } => server < servers.len() as u64,
            ToolSource::Host => true,
        };
        if !tools.iter().all(listed) {
            return Err(malformed(
                "setup.tools[].server",
                "a server setup.servers lists",
            ));
        }
        Ok(Setup {
            model,
            endpoint: setup.opt_string(ENDPOINT, "setup.endpoint")?,
            system: setup.opt_string(SYSTEM, "setup.system")?,
            options: match setup.optional(OPTIONS) {
                None => Object::new(),
                Some(Value::Object(options)) => options.clone(),
                Some(_) => return Err(malformed("setup.options", "an object")),
            },
            tools,
            servers,
        })
    }

    /// The first thing `given` does not agree with in this (recorded) setup, in this
    /// order: the model, the system prompt, the options, the servers (their number,
    /// their order, then each one's command, revision and `serverInfo`), the tools
    /// (their number, then each one's name, description, schema, source and
    /// idempotence). The endpoint is not compared: where the requests go does not
    /// change what they say.
    pub fn difference(&self, given: &Setup) -> Option<SetupDifference> {
        let model = |m: &Option<ModelName>| {
            m.as_ref().map_or(String::from("none"), |m| {
                format!("{}:{}", m.provider, m.name)
            })
        };
        let text = |s: &Option<String>| {
            s.as_ref().map_or(String::from("none"), |s| {
                canonical(&Value::from(s.as_str()))
            })
        };
        let options = |o: &Object| canonical(&Value::Object(o.clone()));
        if self.model != given.model {
            Some(differ("the model", model(&self.model), model(&given.model)))
        } else if self.system != given.system {
            let (recorded, other) = (text(&self.system), text(&given.system));
            Some(differ("the system prompt", recorded, other))
        } else if self.options != given.options {
            let (recorded, other) = (options(&self.options), options(&given.options));
            Some(differ("the request options", recorded, other))
        } else {
            servers_difference(&self.servers, &given.servers)
                .or_else(|| tools_difference(&self.tools, &given.tools))
        }
    }

    /// Whether these tools are the manifest's, in order (name, description, schema,
    /// idempotence): the first that is not, as a difference between this setup (the
    /// recorded side) and the manifest.
    pub fn offers(&self, manifest: &Manifest) -> Option<SetupDifference> {
        let mut shown = OfferedTool::from_manifest(manifest);
        for (tool, mine) in shown.iter_mut().zip(&self.tools) {
            tool.source = mine.source.clone();
        }
        tools_difference(&self.tools, &shown)
    }
}

impl OfferedTool {
    /// The manifest's tools, in order, as the host's own.
    pub fn from_manifest(manifest: &Manifest) -> Vec<OfferedTool> {
        manifest
            .specs()
            .iter()
            .map(|spec| OfferedTool {
                name: spec.name.clone(),
                description: spec.description.clone(),
                schema: spec.schema.clone(),
                idempotent: manifest.idempotent(&spec.name),
                source: ToolSource::Host,
            })
            .collect()
    }

    fn encode(&self) -> Value {
        let mut members = alloc::vec![
            (NAME, Value::from(self.name.as_str())),
            (DESCRIPTION, Value::from(self.description.as_str())),
            (SCHEMA, self.schema.clone()),
            (IDEMPOTENT, Value::Bool(self.idempotent)),
        ];
        match &self.source {
            ToolSource::Host => members.push((SOURCE, Value::from(SOURCE_HOST))),
            ToolSource::Mcp { server, name } => members.extend([
                (SOURCE, Value::from(SOURCE_MCP)),
                (SERVER, number(*server)),
                (MCP_NAME, Value::from(name.as_str())),
            ]),
        }
        object(members)
    }

    fn decode(tool: Members<'_>) -> Result<OfferedTool, PayloadError> {
        let source = match tool.string(SOURCE, "setup.tools[].source")? {
            SOURCE_HOST => ToolSource::Host,
            SOURCE_MCP => ToolSource::Mcp {
                server: tool.count(SERVER, "setup.tools[].server")?,
                name: String::from(tool.string(MCP_NAME, "setup.tools[].mcp_name")?),
            },
            _ => return Err(malformed("setup.tools[].source", "\"host\" or \"mcp\"")),
        };
        Ok(OfferedTool {
            name: String::from(tool.string(NAME, "setup.tools[].name")?),
            description: String::from(tool.string(DESCRIPTION, "setup.tools[].description")?),
            schema: tool.value(SCHEMA, "setup.tools[].schema")?.clone(),
            idempotent: tool.boolean(IDEMPOTENT, "setup.tools[].idempotent")?,
            source,
        })
    }

    /// Its source as one value, for a difference.
    fn source_value(&self) -> Value {
        match &self.source {
            ToolSource::Host => Value::from(SOURCE_HOST),
            ToolSource::Mcp { server, name } => object([
                (SERVER, number(*server)),
                (MCP_NAME, Value::from(name.as_str())),
            ]),
        }
    }
}

fn tools_difference(recorded: &[OfferedTool], given: &[OfferedTool]) -> Option<SetupDifference> {
    let names = |tools: &[OfferedTool]| {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        format!("{} ({})", tools.len(), names.join(", "))
    };
    if recorded.len() != given.len() {
        return Some(differ("the tools offered", names(recorded), names(given)));
    }
    let (i, (r, g)) = recorded
        .iter()
        .zip(given)
        .enumerate()
        .find(|(_, (r, g))| r != g)?;
    let text = |s: &str| Value::from(s);
    let (part, a, b) = [
        ("name", text(&r.name), text(&g.name)),
        ("description", text(&r.description), text(&g.description)),
        ("schema", r.schema.clone(), g.schema.clone()),
        ("source", r.source_value(), g.source_value()),
        (
            "idempotence",
            Value::Bool(r.idempotent),
            Value::Bool(g.idempotent),
        ),
    ]
    .into_iter()
    .find(|(_, a, b)| a != b)?;
    let what = format!("tool {i} ({})'s {part}", canonical(&text(&r.name)));
    Some(differ(&what, canonical(&a), canonical(&b)))
}

pub(super) fn malformed(member: &'static str, expected: &'static str) -> PayloadError {
    PayloadErrorKind::Malformed {
        kind: KIND,
        member,
        expected,
    }
    .into()
}

pub(super) fn differ(what: &str, recorded: String, given: String) -> SetupDifference {
    SetupDifference {
        what: String::from(what),
        recorded,
        given,
    }
}

/// The canonical JSON of `value` (of a value read from JSON or made of strings:
/// always encodable).
pub(super) fn canonical(value: &Value) -> String {
    to_vec(value)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_default()
}

pub(super) fn hex(hash: &Hash) -> String {
    String::from(core::str::from_utf8(&hash.to_hex()).unwrap_or_default())
}
