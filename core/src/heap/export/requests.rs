//! Every request provable (SPEC section 4, "What a run records"): each turn's request
//! body rebuilt from the transcript alone, to compare with the `request_sha256` its
//! `assistant` record holds.
//!
//! The loop is driven through the recorded records as a resumed run is (the recorded
//! replies and tool results fed back), so each turn's conversation and tools are the
//! ones the model was shown then; the body is built from them by the same codec an
//! HTTP model sends ([`Provider::request`]), with the provider, model, system prompt,
//! request options and tools the run's setup states ([`Requester::from_setup`]) or a
//! caller gives ([`rebuild_requests`]).
//!
//! ```
//! use agentloop_core::agent::{Agent, Budgets, Need};
//! use agentloop_core::export::{check_requests, parse_records, rebuild_requests};
//! use agentloop_core::model::{ProviderReport, Reply};
//! use agentloop_core::provider::{Provider, RequestOptions};
//! use agentloop_core::tools::Manifest;
//! use agentloop_core::vocabulary::{ModelName, Setup};
//!
//! let setup = Setup {
//!     model: Some(ModelName { provider: "openai".into(), name: "gpt-4.1-mini".into() }),
//!     ..Setup::default()
//! };
//! let mut agent = Agent::new("say hi", Budgets::default(), Manifest::new()).unwrap()
//!     .with_setup(setup).unwrap();
//! let Need::ModelReply { messages, manifest } = agent.poll(&mut || false) else { panic!() };
//! // What an HTTP model sends, and reports having sent:
//! let body = Provider::OpenAi.request(messages, manifest, &RequestOptions::new("gpt-4.1-mini")).unwrap();
//! let report = ProviderReport::default().with_request_body(&body);
//! agent.feed_reply(Ok(Reply::new("hi").with_provider(report))).unwrap();
//! agent.poll(&mut || false);
//!
//! let mut transcript = Vec::new();
//! let mut chain = agentloop_core::chain::Chain::new();
//! for record in agent.take_records() {
//!     transcript.extend_from_slice(chain.append(record.kind.as_str(), &record.payload).unwrap());
//! }
//! let records = parse_records(&transcript).unwrap();
//! let rebuilt = rebuild_requests(&records, None).unwrap();
//! assert_eq!(rebuilt[0].body, body);
//! assert_eq!(check_requests(&rebuilt), Ok(1));
//! ```

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::agent::follow::{follow_turns, Tools};
use crate::agent::resume::audited;
use crate::agent::{Agent, Difference, ResumeError, ResumeErrorKind, SetupError};
use crate::hash::Hash;
use crate::heap::opaque::opaque_error;
use crate::json::Value;
use crate::provider::{Provider, RequestError, RequestOptions};
use crate::tools::{Manifest, RegisterError, ToolSpec};
use crate::vocabulary::{as_count, AssistantPayload, PayloadError, RecordKind, Setup, TaskPayload};

/// What a request is built with besides the conversation: the wire format, the request
/// options (model, system prompt, the rest) and the tools (with their call limits, as
/// the run had them: a refused call is a record the loop writes itself).
#[derive(Debug, Clone)]
pub struct Requester {
    /// The wire format.
    pub provider: Provider,
    /// The model, system prompt and other options sent.
    pub options: RequestOptions,
    /// The tools offered.
    pub manifest: Manifest,
}

impl Requester {
    /// The requester a setup states: its model's provider and name, its system prompt,
    /// its options, and its tools with the call limits `tool_limits` gives them (the
    /// `task` record's `budgets.tool_limits`).
    pub fn from_setup(
        setup: &Setup,
        tool_limits: &BTreeMap<String, u64>,
    ) -> Result<Requester, RequestsError> {
        let model = setup.model.as_ref().ok_or(RequestsErrorKind::NoModel)?;
        let provider = Provider::from_name(&model.provider)
            .ok_or_else(|| RequestsErrorKind::UnknownProvider(model.provider.clone()))?;
        let mut options = RequestOptions::from_json(&Value::Object(setup.options.clone()))
            .map_err(RequestsErrorKind::Options)?;
        options.model = model.name.clone();
        options.system = setup.system.clone();
        let mut manifest = Manifest::new();
        for tool in &setup.tools {
            let spec = ToolSpec::new(&tool.name, &tool.description, tool.schema.clone());
            let limit = tool_limits.get(&tool.name).copied();
            manifest
                .register_with(spec, limit, tool.idempotent)
                .map_err(RequestsErrorKind::Tool)?;
        }
        Ok(Requester {
            provider,
            options,
            manifest,
        })
    }
}

/// One turn's request, rebuilt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RebuiltRequest {
    /// The `seq` of the turn's `assistant` record.
    pub seq: u64,
    /// The request body, as the codec builds it.
    pub body: Vec<u8>,
    /// The `request_sha256` the `assistant` record holds, if any.
    pub recorded: Option<Hash>,
}

impl RebuiltRequest {
    /// The SHA-256 of the rebuilt body.
    pub fn sha256(&self) -> Hash {
        Hash::of(&self.body)
    }
}

/// The first turn whose request is not proven by its record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestMismatch {
    /// The `assistant` record at `seq` holds no `request_sha256`: what was sent for the
    /// turn is not recorded, so it cannot be proven.
    NotRecorded {
        /// The `assistant` record's `seq`.
        seq: u64,
    },
    /// The rebuilt body's SHA-256 is not the recorded one.
    Differs {
        /// The `assistant` record's `seq`.
        seq: u64,
        /// The recorded `request_sha256`.
        recorded: Hash,
        /// The rebuilt body's.
        rebuilt: Hash,
    },
}

impl RequestMismatch {
    /// The `seq` of the turn's `assistant` record.
    pub fn seq(&self) -> u64 {
        match self {
            RequestMismatch::NotRecorded { seq } | RequestMismatch::Differs { seq, .. } => *seq,
        }
    }
}

impl fmt::Display for RequestMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestMismatch::NotRecorded { seq } => write!(
                f,
                "the turn at seq {seq} is not provable: its assistant record holds no \
                 request_sha256"
            ),
            RequestMismatch::Differs {
                seq,
                recorded,
                rebuilt,
            } => write!(
                f,
                "the request of the turn at seq {seq} does not match its record: the \
                 assistant record holds request_sha256 {recorded}, the request rebuilt from \
                 the transcript has {rebuilt}"
            ),
        }
    }
}

impl core::error::Error for RequestMismatch {}

opaque_error! {
    /// Why a transcript's requests could not be rebuilt: one sentence (`Display`).
    #[derive(Clone, PartialEq, Eq)]
    pub struct RequestsError(RequestsErrorKind);
}

/// What [`RequestsError`] says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RequestsErrorKind {
    /// The records are not a run of the loop that can be followed (empty, malformed,
    /// budgets refused).
    Run(ResumeError),
    /// The `task` payload does not decode.
    Task(PayloadError),
    /// The `task` record states no setup (format 1): what the requests were built with
    /// is not in the transcript.
    NoSetup,
    /// The setup names no model.
    NoModel,
    /// The setup's provider is not a wire format this build speaks.
    UnknownProvider(String),
    /// The setup's options are not request options.
    Options(RequestError),
    /// A tool of the setup cannot be offered.
    Tool(RegisterError),
    /// The setup cannot be given to the loop.
    Setup(SetupError),
    /// A record is not what the loop writes there with these tools.
    Diverged(Difference),
    /// A turn's request body cannot be built: the `assistant` record's `seq` and why.
    Body(u64, RequestError),
}

impl fmt::Display for RequestsErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestsErrorKind::Run(e) => write!(f, "{e}"),
            RequestsErrorKind::Task(e) => write!(f, "the task record cannot be read: {e}"),
            RequestsErrorKind::NoSetup => f.write_str(
                "the task record states no setup (a format-1 transcript), so no request can \
                 be rebuilt from the transcript alone",
            ),
            RequestsErrorKind::NoModel => f.write_str("the setup names no model"),
            RequestsErrorKind::UnknownProvider(name) => write!(
                f,
                "the setup's provider {} is not openai or anthropic",
                crate::quote::escape_controls(name)
            ),
            RequestsErrorKind::Options(e) => write!(f, "the setup's options are refused: {e}"),
            RequestsErrorKind::Tool(e) => write!(f, "a tool of the setup is refused: {e}"),
            RequestsErrorKind::Setup(e) => write!(f, "{e}"),
            RequestsErrorKind::Diverged(d) => write!(
                f,
                "the transcript is not what this loop writes with the setup's tools: {d}"
            ),
            RequestsErrorKind::Body(seq, e) => write!(
                f,
                "the request of the turn at seq {seq} cannot be built: {e}"
            ),
        }
    }
}

/// Each turn's request body, rebuilt from `records` (parsed records, in order, the
/// `task` first; verify their chain first): one per `assistant` record, in order.
///
/// The requests are built with `requester`, or, given `None`, with the one the `task`
/// record's setup states ([`Requester::from_setup`]; a transcript with no setup fails
/// with a [`RequestsError`] saying so). A `task` record's setup is kept as recorded (the
/// loop writes it again, to compare) either way.
pub fn rebuild_requests(
    records: &[Value],
    requester: Option<&Requester>,
) -> Result<Vec<RebuiltRequest>, RequestsError> {
    let (seq0, text) = audited(records).map_err(RequestsErrorKind::Run)?;
    let task = task_payload(records)?;
    let from_setup;
    let requester = match requester {
        Some(requester) => requester,
        None => {
            let setup = task.setup.as_ref().ok_or(RequestsErrorKind::NoSetup)?;
            from_setup = Requester::from_setup(setup, &task.tool_limits)?;
            &from_setup
        }
    };
    let mut agent =
        Agent::with_first_seq(seq0, text, task.budgets.clone(), requester.manifest.clone())
            .map_err(|e| RequestsErrorKind::Run(ResumeErrorKind::Budgets(e).into()))?;
    if let Some(setup) = task.setup {
        agent = agent.with_setup(setup).map_err(RequestsErrorKind::Setup)?;
    }
    let mut rebuilt = Vec::new();
    let mut failed = None;
    let mut on_turn = |index: usize, messages: &[_], manifest: &[_]| {
        let record = &records[index];
        let seq = seq_of(record).unwrap_or(index as u64);
        match requester
            .provider
            .request(messages, manifest, &requester.options)
        {
            Ok(body) => rebuilt.push(RebuiltRequest {
                seq,
                body,
                recorded: recorded_digest(record),
            }),
            Err(e) => {
                failed.get_or_insert(RequestsErrorKind::Body(seq, e));
            }
        }
    };
    follow_turns(&mut agent, records, Tools::Recorded, &mut on_turn)
        .map_err(RequestsErrorKind::Diverged)?;
    match failed {
        Some(e) => Err(e.into()),
        None => Ok(rebuilt),
    }
}

/// How many turns' requests match their records, or the first turn that does not
/// (one with no recorded digest is not provable, and fails too).
pub fn check_requests(rebuilt: &[RebuiltRequest]) -> Result<usize, RequestMismatch> {
    for turn in rebuilt {
        let seq = turn.seq;
        match turn.recorded {
            None => return Err(RequestMismatch::NotRecorded { seq }),
            Some(recorded) if recorded != turn.sha256() => {
                return Err(RequestMismatch::Differs {
                    seq,
                    recorded,
                    rebuilt: turn.sha256(),
                })
            }
            Some(_) => {}
        }
    }
    Ok(rebuilt.len())
}

/// The `task` payload of record 0 (the audit saw a `task` record there).
fn task_payload(records: &[Value]) -> Result<TaskPayload, RequestsError> {
    let payload = records
        .first()
        .and_then(Value::as_object)
        .and_then(|r| r.get("payload"))
        .unwrap_or(&Value::Null);
    Ok(TaskPayload::decode(payload).map_err(RequestsErrorKind::Task)?)
}

fn seq_of(record: &Value) -> Option<u64> {
    record.as_object()?.get("seq")?.as_f64().and_then(as_count)
}

/// The `request_sha256` of an `assistant` record, if it holds one.
fn recorded_digest(record: &Value) -> Option<Hash> {
    let record = record.as_object()?;
    let kind = RecordKind::from_name(record.get("kind")?.as_str()?)?;
    if kind != RecordKind::Assistant {
        return None;
    }
    AssistantPayload::decode(record.get("payload")?)
        .ok()?
        .provider
        .request_sha256
}
