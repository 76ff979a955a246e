//! `agentloop_agent`: the loop (SPEC section 4) as a sans-I/O state machine for C event
//! loops and firmware: ask it what it needs, feed the model reply or the tool result,
//! collect the records into a chain.

use std::collections::VecDeque;

use agentloop_core::agent::{Agent, BatchNeed, Budgets, FeedError, Need, Record, StopReason};
use agentloop_core::export::{native_call, native_calls, native_messages, native_tools};
use agentloop_core::jcs;
use agentloop_core::json::{self, Value};
use agentloop_core::model::{Message, ModelError, Reply, ToolCall};
use agentloop_core::tools::{Manifest, ToolError, ToolSpec};
use core::ffi::c_char;

use crate::boundary::boundary;
use crate::bytes::{give, handle, handle_mut, input, need, put, put_opt, take, text, write_out};
use crate::canon::parse_error;
use crate::chain::agentloop_chain;
use crate::result::{agentloop_result, Outcome};
use crate::tool::register_error;

/// The limits of a run, as C passes them. Fill it with `agentloop_budgets_init` (no
/// limits), then set what you need. A limit is read only when its `has_` flag is set;
/// every limit must be at most 2^53 − 1.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct agentloop_budgets {
    /// Whether `max_steps` applies.
    pub has_max_steps: bool,
    /// Most assistant turns (checked before each turn).
    pub max_steps: u64,
    /// Whether `max_tokens` applies.
    pub has_max_tokens: bool,
    /// Most tokens summed over turns (the turn that exceeds it is recorded, its calls
    /// are not run).
    pub max_tokens: u64,
    /// Whether `max_tool_calls` applies.
    pub has_max_tool_calls: bool,
    /// Most `tool` records, refusals included (checked before each call).
    pub max_tool_calls: u64,
    /// The stop sentinel, UTF-8 `(stop_sentinel, stop_sentinel_len)`: the run stops
    /// when an assistant's text contains it. NULL / 0 means none. The bytes are copied
    /// by `agentloop_agent_new`; they need not outlive the call.
    pub stop_sentinel: *const u8,
    /// The sentinel's length in bytes.
    pub stop_sentinel_len: usize,
    /// Whether `max_total_tokens` applies.
    pub has_max_total_tokens: bool,
    /// Most tokens in and out summed over turns: each turn's tokens (as for
    /// `max_tokens`) plus the input tokens its provider reported, if any. The turn that
    /// exceeds it is recorded, its calls are not run; the stop reason is
    /// `token_budget`.
    pub max_total_tokens: u64,
}

impl Default for agentloop_budgets {
    fn default() -> agentloop_budgets {
        agentloop_budgets {
            has_max_steps: false,
            max_steps: 0,
            has_max_tokens: false,
            max_tokens: 0,
            has_max_tool_calls: false,
            max_tool_calls: 0,
            stop_sentinel: core::ptr::null(),
            stop_sentinel_len: 0,
            has_max_total_tokens: false,
            max_total_tokens: 0,
        }
    }
}

/// Reads C budgets (NULL: no limits) into the core's, checked.
///
/// # Safety
/// `budgets` must be NULL or an initialised struct (its bools 0 or 1) whose sentinel
/// points to `stop_sentinel_len` readable bytes.
pub(crate) unsafe fn read_budgets(budgets: *const agentloop_budgets) -> Outcome<Budgets> {
    // SAFETY: the caller promises NULL or a valid, initialised struct.
    let Some(b) = (unsafe { budgets.as_ref() }) else {
        return Ok(Budgets::default());
    };
    let stop_sentinel = if b.stop_sentinel_len == 0 {
        None
    } else {
        // SAFETY: the caller promises stop_sentinel_len readable bytes.
        Some(String::from(unsafe {
            text(b.stop_sentinel, b.stop_sentinel_len)
        }?))
    };
    let budgets = Budgets {
        max_steps: b.has_max_steps.then_some(b.max_steps),
        max_tokens: b.has_max_tokens.then_some(b.max_tokens),
        max_tool_calls: b.has_max_tool_calls.then_some(b.max_tool_calls),
        max_total_tokens: b.has_max_total_tokens.then_some(b.max_total_tokens),
        stop_sentinel,
    };
    budgets
        .check()
        .map_err(|_| agentloop_result::InvalidArgument)?;
    Ok(budgets)
}

/// What `agentloop_agent_poll` says the agent needs, as a `uint32_t`. The numbers are
/// stable and append-only.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum agentloop_need {
    /// A model reply: read `agentloop_agent_messages_json` and
    /// `agentloop_agent_manifest_json`, then call `agentloop_agent_feed_reply` or
    /// `agentloop_agent_feed_model_error`.
    ModelReply = 1,
    /// A tool result: read the call (`agentloop_agent_call_name`,
    /// `agentloop_agent_call_arguments`, …), run it, then call
    /// `agentloop_agent_feed_tool_result` or `agentloop_agent_feed_tool_error`.
    ToolResult = 2,
    /// Nothing: the run is over (`agentloop_agent_outcome`).
    Done = 3,
    /// Tool results for a batch (`agentloop_agent_poll_batch` only): read the calls
    /// with `agentloop_agent_take_calls`, run them in any order or together, and feed
    /// each result by its id (`agentloop_agent_feed_tool_result_for`,
    /// `agentloop_agent_feed_tool_error_for`).
    ToolResults = 4,
}

/// Why a run stopped, as a `uint32_t` (`agentloop_stop_reason_str` gives the name the
/// `stop` record carries). The numbers are stable and append-only; treat an unknown
/// value as a reason this version does not know.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum agentloop_stop {
    /// Never returned: a reason this library version cannot name.
    Unknown = 0,
    /// `no_tool_calls`: the assistant asked for no tools (the ordinary end).
    NoToolCalls = 1,
    /// `sentinel`: the assistant's text contains the stop sentinel.
    Sentinel = 2,
    /// `step_budget`: `max_steps` turns were taken.
    StepBudget = 3,
    /// `token_budget`: the token sum exceeded `max_tokens`, or the sum of tokens in
    /// and out exceeded `max_total_tokens`.
    TokenBudget = 4,
    /// `model_error`: the model failed or gave a reply that cannot be recorded.
    ModelError = 5,
    /// `tool_budget`: `max_tool_calls` calls have records.
    ToolBudget = 6,
    /// `cancelled`: the host cancelled the run.
    Cancelled = 7,
}

impl agentloop_stop {
    /// Every value, in number order.
    pub const ALL: [agentloop_stop; 8] = [
        agentloop_stop::Unknown,
        agentloop_stop::NoToolCalls,
        agentloop_stop::Sentinel,
        agentloop_stop::StepBudget,
        agentloop_stop::TokenBudget,
        agentloop_stop::ModelError,
        agentloop_stop::ToolBudget,
        agentloop_stop::Cancelled,
    ];

    /// The C value for a core reason.
    pub fn from_core(reason: StopReason) -> agentloop_stop {
        match reason {
            StopReason::NoToolCalls => agentloop_stop::NoToolCalls,
            StopReason::Sentinel => agentloop_stop::Sentinel,
            StopReason::StepBudget => agentloop_stop::StepBudget,
            StopReason::TokenBudget => agentloop_stop::TokenBudget,
            StopReason::ModelError => agentloop_stop::ModelError,
            StopReason::ToolBudget => agentloop_stop::ToolBudget,
            StopReason::Cancelled => agentloop_stop::Cancelled,
        }
    }

    fn name(self) -> &'static [u8] {
        match self {
            agentloop_stop::Unknown => b"unknown\0",
            agentloop_stop::NoToolCalls => b"no_tool_calls\0",
            agentloop_stop::Sentinel => b"sentinel\0",
            agentloop_stop::StepBudget => b"step_budget\0",
            agentloop_stop::TokenBudget => b"token_budget\0",
            agentloop_stop::ModelError => b"model_error\0",
            agentloop_stop::ToolBudget => b"tool_budget\0",
            agentloop_stop::Cancelled => b"cancelled\0",
        }
    }
}

/// The name the `stop` record gives `reason` (an `agentloop_stop` value), e.g.
/// `"no_tool_calls"`. Any value is accepted: one this version does not know gives
/// `"unknown"`.
///
/// Never NULL. The string is static: do not free it. Thread-safe.
#[no_mangle]
pub extern "C" fn agentloop_stop_reason_str(reason: u32) -> *const c_char {
    boundary(|| {
        let known = usize::try_from(reason)
            .ok()
            .and_then(|i| agentloop_stop::ALL.get(i))
            .copied()
            .unwrap_or(agentloop_stop::Unknown);
        known.name().as_ptr().cast::<c_char>()
    })
}

/// Before the first poll: what the agent will be made of.
#[derive(Debug)]
struct Setup {
    first_seq: u64,
    task: String,
    budgets: Budgets,
    manifest: Manifest,
}

/// What the last poll asked for (`None` after a feed, until the next poll).
#[derive(Debug, Clone, PartialEq)]
enum Asked {
    Nothing,
    ModelReply,
    ToolResult(ToolCall),
    /// A batch was handed out; results are fed by call id.
    ToolResults,
    Done,
}

/// The loop as a state machine. Create it with `agentloop_agent_new`, register tools
/// with `agentloop_agent_add_tool`, then poll / feed / take records until
/// `agentloop_agent_poll` says `AGENTLOOP_NEED_DONE`; free it with
/// `agentloop_agent_free`. It never calls out and does no I/O.
///
/// Not thread-safe: one thread at a time may call functions on an agent (it may move
/// between threads).
pub struct agentloop_agent {
    setup: Option<Setup>,
    agent: Option<Agent>,
    /// The tools on offer, sorted by name.
    specs: Vec<ToolSpec>,
    /// Records produced and not yet taken, in order.
    pending: VecDeque<Record>,
    asked: Asked,
    /// Why the last `agentloop_agent_resume` refused the transcript.
    refusal: Option<String>,
    /// Why the last `agentloop_agent_request` was refused.
    pub(crate) request_refusal: Option<String>,
}

impl agentloop_agent {
    /// Before the first poll: declares the registered tool `name` idempotent.
    pub(crate) fn set_idempotent(&mut self, name: &str) -> Outcome {
        let setup = self.setup.as_mut().ok_or(agentloop_result::InvalidState)?;
        if setup.manifest.set_idempotent(name, true) {
            Ok(())
        } else {
            Err(agentloop_result::InvalidArgument)
        }
    }

    /// Before the first poll: where the agent's chain starts and its task.
    pub(crate) fn setup(&self) -> Outcome<(u64, &str)> {
        let setup = self.setup.as_ref().ok_or(agentloop_result::InvalidState)?;
        Ok((setup.first_seq, &setup.task))
    }

    /// Before the first poll: continues `records` ([`Agent::resume`]) instead of
    /// starting; a refusal is kept for `agentloop_agent_resume_error`.
    pub(crate) fn resume(&mut self, records: &[Value]) -> Outcome {
        let setup = self.setup.as_ref().ok_or(agentloop_result::InvalidState)?;
        match Agent::resume(setup.budgets.clone(), setup.manifest.clone(), records) {
            Ok(agent) => {
                self.setup = None;
                self.agent = Some(agent);
                self.refusal = None;
                self.collect();
                Ok(())
            }
            Err(error) => self.refuse(format!("{error}")),
        }
    }

    /// Keeps why a resume was refused, and says it was.
    pub(crate) fn refuse(&mut self, sentence: String) -> Outcome {
        self.refusal = Some(sentence);
        Err(agentloop_result::ResumeRefused)
    }

    /// Why the last resume was refused ("" if it was not).
    pub(crate) fn refusal(&self) -> &str {
        self.refusal.as_deref().unwrap_or("")
    }

    /// The running agent, made at the first poll (which freezes the manifest).
    fn start(&mut self) -> Outcome<&mut Agent> {
        if self.agent.is_none() {
            let setup = self.setup.take().ok_or(agentloop_result::InvalidState)?;
            let made = Agent::with_first_seq(
                setup.first_seq,
                &setup.task,
                setup.budgets.clone(),
                setup.manifest.clone(),
            );
            match made {
                Ok(agent) => self.agent = Some(agent),
                Err(_) => {
                    self.setup = Some(setup);
                    return Err(agentloop_result::InvalidArgument);
                }
            }
        }
        self.agent.as_mut().ok_or(agentloop_result::InvalidState)
    }

    fn running(&mut self) -> Outcome<&mut Agent> {
        self.agent.as_mut().ok_or(agentloop_result::InvalidState)
    }

    /// Moves the agent's new records to the queue.
    fn collect(&mut self) {
        if let Some(agent) = self.agent.as_mut() {
            self.pending.extend(agent.take_records());
        }
    }

    fn poll(&mut self) -> Outcome<agentloop_need> {
        let agent = self.start()?;
        // No cancellation hook is asked here, so the records a check point writes
        // may queue up; the host takes them all before it acts on the need.
        let (asked, need) = loop {
            match agent.poll() {
                Need::ModelReply { .. } => break (Asked::ModelReply, agentloop_need::ModelReply),
                Need::ToolResult { call } => {
                    break (Asked::ToolResult(call), agentloop_need::ToolResult)
                }
                Need::TakeRecords => {}
                Need::Done(_) => break (Asked::Done, agentloop_need::Done),
            }
        };
        self.asked = asked;
        self.collect();
        Ok(need)
    }

    /// Like `poll`, the calls of a turn all at once.
    fn poll_batch(&mut self) -> Outcome<agentloop_need> {
        let agent = self.start()?;
        let (asked, need) = loop {
            match agent.poll_batch() {
                BatchNeed::ModelReply { .. } => {
                    break (Asked::ModelReply, agentloop_need::ModelReply)
                }
                BatchNeed::ToolResults { .. } => {
                    break (Asked::ToolResults, agentloop_need::ToolResults)
                }
                BatchNeed::TakeRecords => {}
                BatchNeed::Done(_) => break (Asked::Done, agentloop_need::Done),
            }
        };
        self.asked = asked;
        self.collect();
        Ok(need)
    }

    /// The calls of the batch still waiting for a result.
    fn waiting(&self) -> Outcome<&[ToolCall]> {
        match (&self.asked, &self.agent) {
            (Asked::ToolResults, Some(agent)) => Ok(agent.waiting_calls()),
            _ => Err(agentloop_result::InvalidState),
        }
    }

    /// Feeds the result of the waiting call `id` of a batch.
    fn feed_tool_for(&mut self, id: &str, result: Result<Value, ToolError>) -> Outcome {
        self.waiting()?;
        let agent = self.running()?;
        agent
            .feed_tool_result_for(id, result)
            .map_err(|e| match e {
                FeedError::NoSuchCall => agentloop_result::InvalidArgument,
                _ => agentloop_result::InvalidState,
            })?;
        if agent.waiting_calls().is_empty() {
            self.asked = Asked::Nothing;
        }
        self.collect();
        Ok(())
    }

    /// What a model is shown, while the last poll asked for a reply (and nothing was
    /// fed since): the conversation and the tools on offer, sorted by name.
    pub(crate) fn conversation(&self) -> Outcome<(&[Message], &[ToolSpec])> {
        match (&self.asked, &self.agent) {
            (Asked::ModelReply, Some(agent)) => Ok((agent.messages(), &self.specs)),
            _ => Err(agentloop_result::InvalidState),
        }
    }

    pub(crate) fn feed_reply(&mut self, reply: Result<Reply, ModelError>) -> Outcome {
        if self.asked != Asked::ModelReply {
            return Err(agentloop_result::InvalidState);
        }
        self.running()?
            .feed_reply(reply)
            .map_err(|_| agentloop_result::InvalidState)?;
        self.asked = Asked::Nothing;
        self.collect();
        Ok(())
    }

    fn feed_tool(&mut self, result: Result<Value, ToolError>) -> Outcome {
        if !matches!(self.asked, Asked::ToolResult(_)) {
            return Err(agentloop_result::InvalidState);
        }
        self.running()?
            .feed_tool_result(result)
            .map_err(|_| agentloop_result::InvalidState)?;
        self.asked = Asked::Nothing;
        self.collect();
        Ok(())
    }

    fn call(&self) -> Outcome<&ToolCall> {
        match &self.asked {
            Asked::ToolResult(call) => Ok(call),
            _ => Err(agentloop_result::InvalidState),
        }
    }
}

/// The canonical encoding of `value` (values the agent holds always have one).
pub(crate) fn canonical(value: &Value) -> Outcome<Vec<u8>> {
    jcs::to_vec(value).map_err(|_| agentloop_result::NoCanonicalForm)
}

/// Parses `calls_json`: a JSON array of `{"name": string, "arguments": any}`.
pub(crate) fn parse_calls(bytes: &[u8]) -> Outcome<Vec<(String, Value)>> {
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    let Value::Array(items) = json::parse(bytes).map_err(parse_error)? else {
        return Err(agentloop_result::InvalidArgument);
    };
    let mut calls = Vec::with_capacity(items.len());
    for item in items {
        let Value::Object(members) = item else {
            return Err(agentloop_result::InvalidArgument);
        };
        let name = members.get("name").and_then(Value::as_str);
        let arguments = members.get("arguments");
        match (name, arguments) {
            (Some(name), Some(arguments)) if members.len() == 2 => {
                calls.push((String::from(name), arguments.clone()));
            }
            _ => return Err(agentloop_result::InvalidArgument),
        }
    }
    Ok(calls)
}

/// The result a tool gave as JSON text: its value, or — for a number with no canonical
/// encoding — the value the Rust loop records as `ok:false` ("returned a value with no
/// canonical encoding"). Text that is not JSON is `INVALID_JSON`.
pub(crate) fn tool_value(bytes: &[u8]) -> Outcome<Value> {
    match json::parse(bytes) {
        Ok(value) => Ok(value),
        // The core turns a value it cannot encode into the SPEC's ok:false record;
        // a NaN stands for "the number the tool gave has no canonical encoding".
        Err(error) if error.kind.is_unserialisable() => Ok(Value::Number(f64::NAN)),
        Err(error) => Err(parse_error(error)),
    }
}

/// Fills `*budgets` with "no limits": every `has_` flag false, no sentinel.
///
/// NULL `budgets` is `AGENTLOOP_RESULT_NULL_PARAMETER`. Thread-safe.
///
/// # Safety
/// `budgets` must be valid for a write of one `agentloop_budgets`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_budgets_init(
    budgets: *mut agentloop_budgets,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: put checks NULL; the caller promises the struct is writable.
        unsafe { put(budgets, agentloop_budgets::default()) }
    })
}

/// Creates an agent for the task `(task_ptr, task_len)` (UTF-8, may be empty) with
/// `budgets` (NULL: no limits) whose first record — the `task` — will have
/// `seq = first_seq` (0 for a new chain; the chain's next seq when continuing one,
/// since call ids derive from seqs), and writes it to `*out`.
///
/// Register tools with `agentloop_agent_add_tool` before the first
/// `agentloop_agent_poll`, which writes the `task` record (the task and the budgets) and
/// freezes the manifest.
///
/// `INVALID_UTF8` for a task or sentinel that is not UTF-8; `INVALID_ARGUMENT` for a
/// limit or `first_seq` above 2^53 − 1. On success the caller owns `*out` (free it with
/// `agentloop_agent_free`); on failure `*out` is not written. The task and sentinel are
/// copied. Thread-safe.
///
/// # Safety
/// `task_ptr` must point to `task_len` readable bytes; `budgets` must be NULL or an
/// initialised struct; `out` must be valid for a write of one pointer.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_new(
    task_ptr: *const u8,
    task_len: usize,
    budgets: *const agentloop_budgets,
    first_seq: u64,
    out: *mut *mut agentloop_agent,
) -> agentloop_result {
    boundary(|| {
        need(out)?;
        // SAFETY: the caller's contract for the byte input.
        let task = unsafe { text(task_ptr, task_len) }?;
        // SAFETY: the caller promises NULL or an initialised struct.
        let budgets = unsafe { read_budgets(budgets) }?;
        if first_seq > agentloop_core::anchor::MAX_SEQ {
            return Err(agentloop_result::InvalidArgument);
        }
        let agent = agentloop_agent {
            setup: Some(Setup {
                first_seq,
                task: String::from(task),
                budgets,
                manifest: Manifest::new(),
            }),
            agent: None,
            specs: Vec::new(),
            pending: VecDeque::new(),
            asked: Asked::Nothing,
            refusal: None,
            request_refusal: None,
        };
        // SAFETY: out was checked non-NULL; the caller promises it is writable.
        unsafe { give(out, agent) }
    })
}

/// Registers a tool: `name` (UTF-8, not registered before), `description` (UTF-8) and
/// its argument `schema` (a JSON Schema document, compiled now: what it may say is in
/// docs/schemas.md), with a call limit `limit` (0 means none; at most 2^53 − 1). What model
/// providers require is checked too, so the manifest is one their APIs accept: the
/// name matches `^[a-zA-Z0-9_-]{1,64}$` (ASCII letters, digits, `_`, `-`; 1 to 64),
/// and the root schema is an object whose `type` is the string `"object"` (not `true`,
/// `{}`, another type, a type list, or a bare `anyOf` / `$ref`).
///
/// `INVALID_UTF8`; `INVALID_JSON` / `NO_CANONICAL_FORM` for the schema text;
/// `NOT_PROVIDER_SAFE` for a name or root schema providers refuse, `SCHEMA_REFUSED` for
/// a schema that is refused (`agentloop_tool_explain` gives the sentence for both);
/// `INVALID_ARGUMENT` for a duplicate name or a limit too large; `INVALID_STATE` after
/// the first `agentloop_agent_poll`. Every failure leaves the agent unchanged. The
/// inputs are copied. NULL `agent` is `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; the byte inputs must point to their
/// lengths in readable bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_add_tool(
    agent: *mut agentloop_agent,
    name_ptr: *const u8,
    name_len: usize,
    description_ptr: *const u8,
    description_len: usize,
    schema_ptr: *const u8,
    schema_len: usize,
    limit: u64,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        // SAFETY: the caller's contract for the byte inputs.
        let name = unsafe { text(name_ptr, name_len) }?;
        // SAFETY: as above.
        let description = unsafe { text(description_ptr, description_len) }?;
        // SAFETY: as above.
        let schema = json::parse(unsafe { input(schema_ptr, schema_len) }?).map_err(parse_error)?;
        let setup = agent.setup.as_mut().ok_or(agentloop_result::InvalidState)?;
        let spec = ToolSpec::new(name, description, schema);
        let limit = (limit != 0).then_some(limit);
        setup
            .manifest
            .register(spec, limit)
            .map_err(register_error)?;
        agent.specs = setup.manifest.specs().to_vec();
        Ok(())
    })
}

/// Runs the loop to its next need and writes it to `*out_need` (an `agentloop_need`):
/// `AGENTLOOP_NEED_MODEL_REPLY`, `AGENTLOOP_NEED_TOOL_RESULT` or `AGENTLOOP_NEED_DONE`.
/// Polling again without feeding gives the same need. The first poll writes the `task`
/// record and freezes the manifest; every poll may leave records to take
/// (`agentloop_agent_take_record`): take them all before acting on the need, so that
/// every record is stored before the next tool runs (a poll writes the record of a
/// call it refused, then goes on to the next call).
///
/// NULL `agent` or `out_need` is `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `out_need` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_poll(
    agent: *mut agentloop_agent,
    out_need: *mut u32,
) -> agentloop_result {
    boundary(|| {
        need(out_need)?;
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        let asked = agent.poll()?;
        // SAFETY: out_need was checked non-NULL; the caller promises it is writable.
        unsafe { put(out_need, asked as u32) }
    })
}

/// Like `agentloop_agent_poll`, but the calls of a turn come all at once: the need is
/// `AGENTLOOP_NEED_MODEL_REPLY`, `AGENTLOOP_NEED_TOOL_RESULTS` or `AGENTLOOP_NEED_DONE`
/// (never `AGENTLOOP_NEED_TOOL_RESULT`). With `AGENTLOOP_NEED_TOOL_RESULTS`, read the
/// calls with `agentloop_agent_take_calls`, run them — in any order, on any threads
/// of yours — and feed each result by call id with
/// `agentloop_agent_feed_tool_result_for` or `agentloop_agent_feed_tool_error_for`.
///
/// Every call of the turn is decided before the calls are handed out, as the
/// one-at-a-time poll decides them in call order (tool-call budget, unknown tool, the
/// tool's limit counting the earlier calls of the batch, schema); a refused call gets
/// its `tool` record as usual and is not handed out. Records are written in call
/// order: the records of the calls before the first that runs are pending when this
/// returns (take them before running anything); a result fed for call 3 is recorded
/// once calls 0–2 are. So the transcript is the same bytes as with
/// `agentloop_agent_poll`. If the process dies with results unrecorded, a resume
/// treats every call of the turn with no `tool` record as possibly run (docs/resume.md).
///
/// Polling again before every result is fed gives `AGENTLOOP_NEED_TOOL_RESULTS` again
/// (the calls still waiting). Mixing: after this poll, `agentloop_agent_poll` asks for
/// the first waiting call one at a time. NULL `agent` or `out_need` is
/// `NULL_PARAMETER`. Not thread-safe for one agent: run the tools on other threads,
/// but make the agent calls (feeds, takes) from one thread at a time.
///
/// # Safety
/// `agent` must be a live agent from this library; `out_need` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_poll_batch(
    agent: *mut agentloop_agent,
    out_need: *mut u32,
) -> agentloop_result {
    boundary(|| {
        need(out_need)?;
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        let asked = agent.poll_batch()?;
        // SAFETY: out_need was checked non-NULL; the caller promises it is writable.
        unsafe { put(out_need, asked as u32) }
    })
}

/// Writes the calls of the batch still waiting for a result — after
/// `agentloop_agent_poll_batch` gave `AGENTLOOP_NEED_TOOL_RESULTS` — as a canonical
/// JSON array `[{"arguments":…,"id":…,"name":…}, …]` in call order to
/// `(out_buf, out_cap)` and its length to `*out_len` (no NUL). Each call's arguments
/// have passed its tool's schema. It takes nothing away: calling it again gives the
/// calls still waiting (fewer, as results are fed).
///
/// Size query as `agentloop_canonicalize`: with a NULL or short buffer, the needed
/// length is written and the result is `INSUFFICIENT_SIZE`, nothing changed.
/// `INVALID_STATE` when the last poll was not `agentloop_agent_poll_batch` giving
/// `AGENTLOOP_NEED_TOOL_RESULTS`, or every result was fed since. NULL `agent` or
/// `out_len` is `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `out_buf`, if not NULL, must point
/// to `out_cap` writable bytes; `out_len` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_take_calls(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: the caller promises a live agent.
        let agent = unsafe { handle(agent) }?;
        let calls = native_calls(agent.waiting()?);
        let bytes = canonical(&calls)?;
        // SAFETY: the caller's contract for the output buffer and out_len.
        unsafe { write_out(&bytes, out_buf, out_cap, out_len) }
    })
}

/// Feeds the value `(ptr, len)` — any JSON document — as the result of the waiting
/// call whose id is `(id_ptr, id_len)` (UTF-8, as `agentloop_agent_take_calls` gave
/// it), in any order. Recorded as `agentloop_agent_feed_tool_result` records it, once
/// the calls before it are recorded: take the records after every feed.
///
/// Refusals, each leaving the agent unchanged: `INVALID_STATE` when no batch is
/// waiting (the last poll was not `agentloop_agent_poll_batch` giving
/// `AGENTLOOP_NEED_TOOL_RESULTS`, or every result was fed); `INVALID_ARGUMENT` when
/// no waiting call has that id (unknown, refused, or fed already); `INVALID_UTF8`;
/// `INVALID_JSON` for text the strict parser refuses. NULL `agent` is
/// `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `id_ptr` must point to `id_len`
/// readable bytes and `ptr` to `len`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_feed_tool_result_for(
    agent: *mut agentloop_agent,
    id_ptr: *const u8,
    id_len: usize,
    ptr: *const u8,
    len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        agent.waiting()?;
        // SAFETY: the caller's contract for the byte inputs.
        let id = unsafe { text(id_ptr, id_len) }?;
        // SAFETY: the caller's contract for the byte inputs.
        let value = tool_value(unsafe { input(ptr, len) }?)?;
        agent.feed_tool_for(id, Ok(value))
    })
}

/// Feeds the tool's failure, the sentence `(ptr, len)` (UTF-8), as the result of the
/// waiting call `(id_ptr, id_len)`: recorded as `agentloop_agent_feed_tool_error`
/// records it. Refusals as `agentloop_agent_feed_tool_result_for`. Not thread-safe
/// for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `id_ptr` must point to `id_len`
/// readable bytes and `ptr` to `len`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_feed_tool_error_for(
    agent: *mut agentloop_agent,
    id_ptr: *const u8,
    id_len: usize,
    ptr: *const u8,
    len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        agent.waiting()?;
        // SAFETY: the caller's contract for the byte inputs.
        let id = unsafe { text(id_ptr, id_len) }?;
        // SAFETY: the caller's contract for the byte inputs.
        let message = unsafe { text(ptr, len) }?;
        agent.feed_tool_for(id, Err(ToolError::new(message)))
    })
}

/// Writes the conversation so far — what a model is shown — as canonical JSON to
/// `(out_buf, out_cap)` and its length to `*out_len` (no NUL). The shape is an array,
/// the task first:
///
/// - `{"role":"user","text":…}`
/// - `{"role":"assistant","text":…,"tool_calls":[{"arguments":…,"id":…,"name":…}]}`
/// - `{"role":"tool","id":…,"name":…,"ok":true,"value":…}` or
///   `{"role":"tool","error":…,"id":…,"name":…,"ok":false}` (members in canonical
///   order).
///
/// Size query as `agentloop_canonicalize`. `INVALID_STATE` before the first poll.
/// NULL `agent` or `out_len` is `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `out_buf`, if not NULL, must point
/// to `out_cap` writable bytes; `out_len` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_messages_json(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: the caller promises a live agent.
        let agent = unsafe { handle(agent) }?;
        let running = agent.agent.as_ref().ok_or(agentloop_result::InvalidState)?;
        let messages = native_messages(running.messages());
        let bytes = canonical(&messages)?;
        // SAFETY: the caller's contract for the output buffer and out_len.
        unsafe { write_out(&bytes, out_buf, out_cap, out_len) }
    })
}

/// Writes the tools on offer, sorted by name, as canonical JSON
/// `[{"description":…,"name":…,"schema":…}]` to `(out_buf, out_cap)` and its length to
/// `*out_len` (no NUL). Any time. Size query as `agentloop_canonicalize`. NULL `agent`
/// or `out_len` is `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// As `agentloop_agent_messages_json`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_manifest_json(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: the caller promises a live agent.
        let agent = unsafe { handle(agent) }?;
        let bytes = canonical(&native_tools(&agent.specs))?;
        // SAFETY: the caller's contract for the output buffer and out_len.
        unsafe { write_out(&bytes, out_buf, out_cap, out_len) }
    })
}

/// Feeds the model's reply to the reply asked for: the text `(text_ptr, text_len)`
/// (UTF-8, may be empty), the calls `(calls_ptr, calls_len)` — a JSON array of
/// `{"name": string, "arguments": any JSON}` in order, or empty (length 0) for none —
/// and, when `has_output_tokens`, the turn's real output tokens (else the loop
/// estimates them from the text).
///
/// Refusals, each leaving the agent unchanged and still waiting for a reply:
/// `INVALID_STATE` when the last poll did not ask for a reply; `INVALID_UTF8`;
/// `INVALID_JSON` / `NO_CANONICAL_FORM` for the calls text; `INVALID_ARGUMENT` when it
/// is not an array of objects with exactly `name` (a string) and `arguments`.
/// A reply the loop cannot record (tokens above 2^53 − 1) is accepted and stops the
/// run with `model_error`, as in the Rust loop. Poll again afterwards. The inputs are
/// copied. NULL `agent` is `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; the byte inputs must point to their
/// lengths in readable bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_feed_reply(
    agent: *mut agentloop_agent,
    text_ptr: *const u8,
    text_len: usize,
    calls_ptr: *const u8,
    calls_len: usize,
    has_output_tokens: bool,
    output_tokens: u64,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        // SAFETY: the caller's contract for the byte inputs.
        let reply_text = unsafe { text(text_ptr, text_len) }?;
        // SAFETY: as above.
        let calls = parse_calls(unsafe { input(calls_ptr, calls_len) }?)?;
        let mut reply = Reply::new(reply_text);
        reply.tool_calls = calls;
        reply.output_tokens = has_output_tokens.then_some(output_tokens);
        agent.feed_reply(Ok(reply))
    })
}

/// Feeds the model's failure to the reply asked for: the sentence `(ptr, len)` (UTF-8;
/// empty becomes "the model failed without saying why") goes into the `stop` record's
/// `error`, and the run stops with `model_error`. Refusals as
/// `agentloop_agent_feed_reply`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `ptr` must point to `len` readable
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_feed_model_error(
    agent: *mut agentloop_agent,
    ptr: *const u8,
    len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        // SAFETY: the caller's contract for the byte input.
        let message = unsafe { text(ptr, len) }?;
        agent.feed_reply(Err(ModelError::new(message)))
    })
}

/// Writes one part of the call the last poll asked to run, as
/// `agentloop_agent_call_json` does for the whole call.
///
/// # Safety
/// As `agentloop_agent_call_json`.
unsafe fn call_part(
    agent: *const agentloop_agent,
    part: impl FnOnce(&ToolCall) -> Outcome<Vec<u8>>,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> Outcome {
    need(out_len)?;
    // SAFETY: the caller promises a live agent.
    let agent = unsafe { handle(agent) }?;
    let bytes = part(agent.call()?)?;
    // SAFETY: the caller's contract for the output buffer and out_len.
    unsafe { write_out(&bytes, out_buf, out_cap, out_len) }
}

/// Writes the call to run — after a poll gave `AGENTLOOP_NEED_TOOL_RESULT` — as
/// canonical JSON `{"arguments":…,"id":…,"name":…}` to `(out_buf, out_cap)` and its
/// length to `*out_len` (no NUL). The arguments have passed the tool's schema.
///
/// Size query as `agentloop_canonicalize`. `INVALID_STATE` when the last poll did not
/// ask for a tool result (or it was fed since). NULL `agent` or `out_len` is
/// `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `out_buf`, if not NULL, must point
/// to `out_cap` writable bytes; `out_len` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_call_json(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        let part = |call: &ToolCall| canonical(&native_call(call));
        // SAFETY: forwarded from this function's contract.
        unsafe { call_part(agent, part, out_buf, out_cap, out_len) }
    })
}

/// Writes the name of the tool to run (UTF-8, no NUL); otherwise as
/// `agentloop_agent_call_json`.
///
/// # Safety
/// As `agentloop_agent_call_json`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_call_name(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        let part = |call: &ToolCall| Ok(call.name.clone().into_bytes());
        // SAFETY: forwarded from this function's contract.
        unsafe { call_part(agent, part, out_buf, out_cap, out_len) }
    })
}

/// Writes the id of the call to run (`call_<seq>_<index>`, no NUL); otherwise as
/// `agentloop_agent_call_json`.
///
/// # Safety
/// As `agentloop_agent_call_json`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_call_id(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        let part = |call: &ToolCall| Ok(call.id.clone().into_bytes());
        // SAFETY: forwarded from this function's contract.
        unsafe { call_part(agent, part, out_buf, out_cap, out_len) }
    })
}

/// Writes the arguments of the call to run as canonical JSON (no NUL); otherwise as
/// `agentloop_agent_call_json`.
///
/// # Safety
/// As `agentloop_agent_call_json`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_call_arguments(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        let part = |call: &ToolCall| canonical(&call.arguments);
        // SAFETY: forwarded from this function's contract.
        unsafe { call_part(agent, part, out_buf, out_cap, out_len) }
    })
}

/// Feeds the tool's value `(ptr, len)` — any JSON document — to the call asked for; it
/// is recorded with `"ok":true`. As in the Rust loop, a value the record cannot hold
/// is recorded as `"ok":false` with the loop's sentence and the call counts as run:
/// a number with no canonical encoding (`1e400`: "tool 'x' returned a value with no
/// canonical encoding") or nesting too deep; that is still `OK`.
///
/// Refusals, each leaving the agent unchanged and still waiting for this result:
/// `INVALID_STATE` when the last poll did not ask for a tool result; `INVALID_JSON`
/// for text the strict parser refuses (bad syntax, invalid UTF-8, a duplicate key, …).
/// Poll again afterwards. NULL `agent` is `NULL_PARAMETER`. Not thread-safe for one
/// agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `ptr` must point to `len` readable
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_feed_tool_result(
    agent: *mut agentloop_agent,
    ptr: *const u8,
    len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        agent.call()?;
        // SAFETY: the caller's contract for the byte input.
        let value = tool_value(unsafe { input(ptr, len) }?)?;
        agent.feed_tool(Ok(value))
    })
}

/// Feeds the tool's failure to the call asked for: the sentence `(ptr, len)` (UTF-8)
/// is recorded as `"ok":false` with `"error":"tool '<name>' failed: <sentence>"` (empty:
/// "failed without saying why"), and the run goes on. Refusals as
/// `agentloop_agent_feed_tool_result` (`INVALID_STATE`, `INVALID_UTF8`). Not
/// thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `ptr` must point to `len` readable
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_feed_tool_error(
    agent: *mut agentloop_agent,
    ptr: *const u8,
    len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        // SAFETY: the caller's contract for the byte input.
        let message = unsafe { text(ptr, len) }?;
        agent.feed_tool(Err(ToolError::new(message)))
    })
}

/// The host's cancellation: stops the run now with `cancelled` (a reply or result
/// asked for and not yet fed is abandoned; an abandoned call counts as unrun). Before
/// the first poll it writes the `task` record first. Does nothing once the run has
/// stopped. NULL `agent` is `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_cancel(agent: *mut agentloop_agent) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        agent.start()?.cancel();
        agent.asked = Asked::Nothing;
        agent.collect();
        Ok(())
    })
}

/// Appends the agent's next pending record to `chain` and writes its canonical line
/// (ending in `\n`, no NUL) to `(out_buf, out_cap)`, its length to `*out_len`, and
/// `true` to `*has_record`. With no record pending it writes `false` to `*has_record`
/// and 0 to `*out_len` and changes nothing. Call it until `*has_record` is false after
/// every poll, feed and cancel.
///
/// Size query: when the line does not fit (or `out_buf` is NULL), the needed length is
/// written to `*out_len`, the result is `INSUFFICIENT_SIZE`, the record stays pending
/// and the chain is unchanged: the retry gives the same line.
///
/// The chain's next `seq` must be the record's (`first_seq` of
/// `agentloop_agent_new` for the first): otherwise `INVALID_ARGUMENT`, nothing changed.
/// Other refusals as `agentloop_chain_append` (`CHAIN_EXHAUSTED`, `RECORD_TOO_LONG`). NULL `agent`,
/// `chain`, `out_len` or `has_record` is `NULL_PARAMETER`. Not thread-safe for one agent
/// or chain.
///
/// # Safety
/// `agent` and `chain` must be live objects from this library; `out_buf`, if not NULL,
/// must point to `out_cap` writable bytes; `out_len` and `has_record` must be valid for
/// a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_take_record(
    agent: *mut agentloop_agent,
    chain: *mut agentloop_chain,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    has_record: *mut bool,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        need(has_record)?;
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        // SAFETY: the caller promises a live chain used by no other thread.
        let chain = unsafe { handle_mut(chain) }?;
        let Some(record) = agent.pending.front() else {
            // SAFETY: both were checked non-NULL; the caller promises they are writable.
            unsafe { put(out_len, 0) }?;
            // SAFETY: as above.
            return unsafe { put(has_record, false) };
        };
        if record.seq != chain.next_seq() {
            return Err(agentloop_result::InvalidArgument);
        }
        chain.append_value(
            record.kind.as_str(),
            &record.payload,
            out_buf,
            out_cap,
            out_len,
        )?;
        agent.pending.pop_front();
        // SAFETY: has_record was checked non-NULL; the caller promises it is writable.
        unsafe { put(has_record, true) }
    })
}

/// How the run ended, once `agentloop_agent_poll` gave `AGENTLOOP_NEED_DONE` (or after
/// a cancel): the stop reason (an `agentloop_stop` value) to `*out_reason`, the
/// assistant turns to `*out_steps`, the tokens counted to `*out_tokens`, the calls
/// asked for and not run to `*out_unrun_calls`, and the `tool` records to
/// `*out_tool_calls`. Each output may be NULL when not wanted.
///
/// `INVALID_STATE` while the run goes on (nothing written). NULL `agent` is
/// `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; each output NULL or valid for a
/// write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_outcome(
    agent: *const agentloop_agent,
    out_reason: *mut u32,
    out_steps: *mut u64,
    out_tokens: *mut u64,
    out_unrun_calls: *mut u64,
    out_tool_calls: *mut u64,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent.
        let agent = unsafe { handle(agent) }?;
        let outcome = agent
            .agent
            .as_ref()
            .and_then(Agent::outcome)
            .ok_or(agentloop_result::InvalidState)?;
        // SAFETY: each output is NULL or valid for a write (the caller's contract).
        unsafe {
            put_opt(out_reason, agentloop_stop::from_core(outcome.reason) as u32);
            put_opt(out_steps, outcome.steps);
            put_opt(out_tokens, outcome.tokens);
            put_opt(out_unrun_calls, outcome.unrun_calls);
            put_opt(out_tool_calls, outcome.tool_calls);
        }
        Ok(())
    })
}

/// Writes the `stop` record's `error` sentence — why the model failed, for
/// `model_error`; the empty string for every other reason — to `(out_buf, out_cap)` and
/// its length to `*out_len` (UTF-8, no NUL). Size query as `agentloop_canonicalize`;
/// `INVALID_STATE` while the run goes on. NULL `agent` or `out_len` is
/// `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// As `agentloop_agent_messages_json`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_stop_error(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: the caller promises a live agent.
        let agent = unsafe { handle(agent) }?;
        let outcome = agent
            .agent
            .as_ref()
            .and_then(Agent::outcome)
            .ok_or(agentloop_result::InvalidState)?;
        let sentence = outcome.error.as_deref().unwrap_or("");
        // SAFETY: the caller's contract for the output buffer and out_len.
        unsafe { write_out(sentence.as_bytes(), out_buf, out_cap, out_len) }
    })
}

/// Frees an agent (and any records it still holds). NULL does nothing.
///
/// # Safety
/// `agent` must be NULL or an agent from this library not freed before, and no other
/// thread may be using it.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_free(agent: *mut agentloop_agent) {
    // SAFETY: forwarded from this function's contract.
    boundary(|| unsafe { take(agent) })
}
