//! The setup a run states in its transcript (format 2, docs/format.md; SPEC section 4,
//! "What a run records"): what a new run records in its `task` record, and how
//! `--resume` reads the recorded one back — the model, the system prompt and the request
//! options from the setup (a flag given must agree, unless `--new-setup`), the tools and
//! the servers given again, to be compared with it. No key, header, URL userinfo or MCP
//! command word goes into it: a command line is kept as its SHA-256 only.

use agentloop_core::json::{Object, Value};
use agentloop_core::provider::{Provider, RequestOptions};
use agentloop_core::redact;
use agentloop_core::vocabulary::{ModelName, Setup};
use agentloop_http::default_base_url;
use agentloop_mcp::McpServer;

use super::setup::ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS;
use crate::args::{ModelSpec, RunArgs};
use crate::failure::{Failure, RunFailure};
use crate::record_line::quoted;
use crate::toolset::Offered;

/// `setup.options`' member for `--max-output-tokens`.
const MAX_OUTPUT_TOKENS: &str = "max_output_tokens";

/// What the requests of a run say besides the conversation and the tools, and where
/// they go.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The model asked.
    pub model: ModelSpec,
    /// The base URL (as given: it may hold userinfo, which is never recorded).
    pub base_url: String,
    /// The system prompt.
    pub system: Option<String>,
    /// The other request options sent (`max_output_tokens`, and what else a recorded
    /// setup holds), as `setup.options` records them.
    pub options: Object,
}

impl Request {
    /// The request options the HTTP model sends.
    pub fn request_options(&self) -> RequestOptions {
        let mut options = RequestOptions::new(self.model.name.clone());
        options.system = self.system.clone();
        for (key, value) in self.options.iter() {
            match (key, value.as_f64()) {
                (MAX_OUTPUT_TOKENS, Some(n)) if n >= 1.0 && n.fract() == 0.0 => {
                    options.max_output_tokens = Some(n as u64)
                }
                _ => {
                    options.extra.insert(key, value.clone());
                }
            }
        }
        options
    }

    /// The model as a setup records it.
    fn model_name(&self) -> ModelName {
        ModelName {
            provider: String::from(self.model.provider.name()),
            name: self.model.name.clone(),
        }
    }
}

/// The request the flags make; `out` names the transcript, `why` what needs `--model`
/// when it is not given (a new run, a format-1 transcript).
pub fn from_flags(args: &RunArgs, out: &str, why: &'static str) -> Result<Request, Failure> {
    let Some(model) = args.model.clone() else {
        return Err(Failure::Run(RunFailure::ModelNeeded {
            name: out.to_owned(),
            why,
        }));
    };
    let max_output_tokens = args.max_output_tokens.or(match model.provider {
        Provider::Anthropic => Some(ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS),
        Provider::OpenAi => None,
    });
    let mut options = Object::new();
    if let Some(n) = max_output_tokens {
        options.insert(MAX_OUTPUT_TOKENS, Value::Number(n as f64));
    }
    Ok(Request {
        base_url: base_url(args, &model, None),
        model,
        system: args.system.clone(),
        options,
    })
}

/// The request of a run resumed with a recorded setup: the recorded model, system
/// prompt and options. Without `--new-setup` a flag given must say what the setup
/// says, else it is refused naming it; with it, each flag given replaces the recorded
/// value. The base URL is `--base-url` if given, else the recorded endpoint.
pub fn from_recorded(args: &RunArgs, recorded: &Setup, out: &str) -> Result<Request, Failure> {
    let differs = |flag: String, has: String| {
        Failure::Run(RunFailure::SetupFlagDiffers {
            name: out.to_owned(),
            flag,
            recorded: has,
        })
    };
    let model = match (&recorded.model, &args.model) {
        (Some(m), given) => {
            let provider = Provider::from_name(&m.provider).ok_or_else(|| {
                Failure::Run(RunFailure::ResumeTask {
                    name: out.to_owned(),
                    what: format!("its setup's provider {} is not known", quoted(&m.provider)),
                })
            })?;
            let model = ModelSpec {
                provider,
                name: m.name.clone(),
            };
            match given {
                Some(given) if *given != model && !args.new_setup => {
                    return Err(differs(
                        format!("--model {}:{}", given.provider.name(), given.name),
                        format!("the model {}:{}", m.provider, m.name),
                    ))
                }
                Some(given) => given.clone(),
                None => model,
            }
        }
        (None, Some(given)) => given.clone(),
        (None, None) => {
            return Err(Failure::Run(RunFailure::ModelNeeded {
                name: out.to_owned(),
                why: "a transcript whose setup records no model",
            }))
        }
    };
    let system = match &args.system {
        Some(given) if Some(given) != recorded.system.as_ref() && !args.new_setup => {
            let has = recorded
                .system
                .as_deref()
                .map_or(String::from("none"), quoted);
            return Err(differs(
                format!("--system {}", quoted(given)),
                format!("the system prompt {has}"),
            ));
        }
        Some(given) => Some(given.clone()),
        None => recorded.system.clone(),
    };
    let mut options = recorded.options.clone();
    if let Some(given) = args.max_output_tokens {
        let has = options.get(MAX_OUTPUT_TOKENS).and_then(Value::as_f64);
        if has != Some(given as f64) && !args.new_setup {
            let has = has.map_or(String::from("none"), |n| format!("{n}"));
            return Err(differs(
                format!("--max-output-tokens {given}"),
                format!("max_output_tokens {has}"),
            ));
        }
        options.insert(MAX_OUTPUT_TOKENS, Value::Number(given as f64));
    }
    Ok(Request {
        base_url: base_url(args, &model, recorded.endpoint.as_deref()),
        model,
        system,
        options,
    })
}

/// `--base-url`, else the recorded endpoint, else the provider's own API.
fn base_url(args: &RunArgs, model: &ModelSpec, recorded: Option<&str>) -> String {
    let url = args.base_url.as_deref().or(recorded);
    String::from(url.unwrap_or(default_base_url(model.provider)))
}

/// The setup of a run that asks `request` and offers `offered` from `servers` (in the
/// order their tools were registered: `--mcp`'s command lines, then `--mcp-url`'s URLs).
pub fn setup(request: &Request, servers: &[McpServer], offered: &Offered) -> Setup {
    Setup {
        model: Some(request.model_name()),
        endpoint: Some(redact::endpoint(&request.base_url)),
        system: request.system.clone(),
        options: request.options.clone(),
        tools: offered
            .registration
            .offered_tools(offered.toolbox.manifest()),
        servers: servers.iter().map(McpServer::identity).collect(),
    }
}
