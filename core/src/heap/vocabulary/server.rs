//! The `setup.servers[]` member: where each MCP server ran (its command line's digest,
//! or its URL), the revision agreed and its `serverInfo`, and how two lists of them
//! differ.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::member::{COMMAND_SHA256, NAME, PROTOCOL_VERSION, SERVER_INFO, URL};
use super::read::{object, Members};
use super::setup::{canonical, differ, hex, malformed, SetupDifference};
use super::PayloadError;
use crate::hash::Hash;
use crate::json::{Object, Value};

/// An MCP server as it reported itself.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerIdentity {
    /// Where it ran: its command line's digest, or its URL.
    pub origin: ServerOrigin,
    /// The protocol revision agreed.
    pub protocol_version: String,
    /// The server's `serverInfo` (`name`, `version`, `title`, …), if it sent one.
    pub server_info: Option<Object>,
}

/// Where an MCP server ran: recorded without any secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerOrigin {
    /// A process: SHA-256 of the canonical JSON array of its command line's words
    /// ([`ServerIdentity::command_digest`]), member `command_sha256` (a word may hold
    /// a secret).
    Command(Hash),
    /// A server over HTTP: its URL without userinfo, member `url` (the headers sent to
    /// it are not recorded).
    Url(String),
}

impl ServerIdentity {
    /// The digest of a command line: SHA-256 of the canonical JSON array of its words.
    pub fn command_digest<S: AsRef<str>>(words: &[S]) -> Hash {
        use sha2::{Digest, Sha256};
        let words = words.iter().map(|w| Value::from(w.as_ref())).collect();
        Hash(Sha256::digest(canonical(&Value::Array(words))).into())
    }

    pub(super) fn encode(&self) -> Value {
        let origin = match &self.origin {
            ServerOrigin::Command(digest) => (COMMAND_SHA256, Value::from(hex(digest).as_str())),
            ServerOrigin::Url(url) => (URL, Value::from(url.as_str())),
        };
        let mut members = alloc::vec![
            origin,
            (
                PROTOCOL_VERSION,
                Value::from(self.protocol_version.as_str())
            ),
        ];
        if let Some(info) = &self.server_info {
            members.push((SERVER_INFO, Value::Object(info.clone())));
        }
        object(members)
    }

    pub(super) fn decode(server: Members<'_>) -> Result<ServerIdentity, PayloadError> {
        let origin = match (server.optional(COMMAND_SHA256), server.optional(URL)) {
            (Some(_), None) => {
                let digest = server.string(COMMAND_SHA256, "setup.servers[].command_sha256")?;
                let lowercase = !digest.bytes().any(|b| b.is_ascii_uppercase());
                let digest = Hash::from_hex(digest.as_bytes())
                    .filter(|_| lowercase)
                    .ok_or(malformed(
                        "setup.servers[].command_sha256",
                        "64 lowercase hex digits",
                    ))?;
                ServerOrigin::Command(digest)
            }
            (None, Some(_)) => {
                ServerOrigin::Url(String::from(server.string(URL, "setup.servers[].url")?))
            }
            _ => {
                return Err(malformed(
                    "setup.servers[]",
                    "an object with one of command_sha256 and url",
                ))
            }
        };
        let server_info = match server.optional(SERVER_INFO) {
            None => None,
            Some(Value::Object(info)) => Some(info.clone()),
            Some(_) => return Err(malformed("setup.servers[].server_info", "an object")),
        };
        Ok(ServerIdentity {
            origin,
            protocol_version: String::from(
                server.string(PROTOCOL_VERSION, "setup.servers[].protocol_version")?,
            ),
            server_info,
        })
    }

    /// `name version` from its `serverInfo`, else its origin.
    fn label(&self) -> String {
        let info = self.server_info.as_ref();
        let get = |key: &str| info.and_then(|i| i.get(key)).and_then(Value::as_str);
        match (get(NAME), get("version")) {
            (Some(name), Some(version)) => format!("{name} {version}"),
            (Some(name), None) => String::from(name),
            _ => self.origin.label(),
        }
    }
}

impl ServerOrigin {
    /// `command <its digest, shortened>`, or `url <the URL>`.
    fn label(&self) -> String {
        match self {
            ServerOrigin::Command(digest) => format!("command {}", &hex(digest)[..12]),
            ServerOrigin::Url(url) => format!("url {url}"),
        }
    }

    /// Its digest in hex, or its URL as JSON, for a difference.
    fn shown(&self) -> String {
        match self {
            ServerOrigin::Command(digest) => hex(digest),
            ServerOrigin::Url(url) => canonical(&Value::from(url.as_str())),
        }
    }
}

/// The first difference between two lists of servers, if any.
pub(super) fn servers_difference(
    recorded: &[ServerIdentity],
    given: &[ServerIdentity],
) -> Option<SetupDifference> {
    let count = |s: &[ServerIdentity]| format!("{}", s.len());
    if recorded.len() != given.len() {
        let (r, g) = (count(recorded), count(given));
        return Some(differ("the number of MCP servers", r, g));
    }
    // Servers that report the same identity are told apart by their origin.
    let order = |servers: &[ServerIdentity]| {
        let mut labels: Vec<String> = servers.iter().map(ServerIdentity::label).collect();
        if (1..labels.len()).any(|i| labels[..i].contains(&labels[i])) {
            for (label, server) in labels.iter_mut().zip(servers) {
                label.push_str(&format!(" ({})", server.origin.label()));
            }
        }
        labels.join(", ")
    };
    let same_set =
        recorded.iter().all(|s| given.contains(s)) && given.iter().all(|s| recorded.contains(s));
    if same_set && recorded != given {
        return Some(differ(
            "the order of the MCP servers",
            order(recorded),
            order(given),
        ));
    }
    let (i, (r, g)) = recorded
        .iter()
        .zip(given)
        .enumerate()
        .find(|(_, (r, g))| r != g)?;
    let info = |o: &Option<Object>| {
        o.as_ref().map_or(String::from("none"), |o| {
            canonical(&Value::Object(o.clone()))
        })
    };
    let version = |v: &str| canonical(&Value::from(v));
    let (part, recorded, other) = if r.origin != g.origin {
        let part = match (&r.origin, &g.origin) {
            (ServerOrigin::Command(_), ServerOrigin::Command(_)) => "command line (its SHA-256)",
            (ServerOrigin::Url(_), ServerOrigin::Url(_)) => "URL",
            _ => "command line (its SHA-256) or URL",
        };
        (part, r.origin.shown(), g.origin.shown())
    } else if r.protocol_version != g.protocol_version {
        let (a, b) = (version(&r.protocol_version), version(&g.protocol_version));
        ("protocol revision", a, b)
    } else {
        ("serverInfo", info(&r.server_info), info(&g.server_info))
    };
    Some(differ(&format!("MCP server {i}'s {part}"), recorded, other))
}
