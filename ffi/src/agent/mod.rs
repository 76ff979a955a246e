//! `agentloop_agent`: the loop (SPEC section 4) as a sans-I/O state machine for C event
//! loops and firmware: ask it what it needs, feed the model reply or the tool result,
//! collect the records into a chain.
//!
//! This file holds the handle and its state machine, creating it, registering tools and
//! freeing it; the other C functions of the handle are in the files beside it, one
//! seam each: the budgets (`budgets`), polling (`poll`), the model's side (`model`),
//! the tools' side (`tools`), taking records (`records`), the outcome (`outcome`),
//! provider requests and answers (`provider`) and resuming (`resume`).

mod budgets;
mod model;
mod outcome;
mod poll;
mod provider;
mod records;
mod resume;
mod setup;
mod tools;

pub use budgets::*;
pub use model::*;
pub use outcome::*;
pub use poll::*;
pub use provider::*;
pub use records::*;
pub use resume::*;
pub use setup::*;
pub use tools::*;

use std::collections::VecDeque;

use agentloop_core::agent::{Agent, Budgets, Need, Record};
use agentloop_core::driver::Resumable;
use agentloop_core::jcs;
use agentloop_core::json::Value;
use agentloop_core::model::{Message, ModelError, Reply, ToolCall};
use agentloop_core::tools::{Manifest, ToolError, ToolSpec};

use crate::boundary::boundary;
use crate::bytes::{give, handle_mut, need, take};
use crate::result::{agentloop_result, Outcome};
use crate::tool::{read_spec, register_error};

/// Before the first poll: what the agent will be made of.
#[derive(Debug)]
struct Setup {
    first_seq: u64,
    task: String,
    budgets: Budgets,
    manifest: Manifest,
    /// The run's setup the host gave (`agentloop_agent_set_setup`), recorded in the
    /// `task` record (format 2), or in the `resume` record of a run resumed after its
    /// `stop`.
    stated: Option<agentloop_core::vocabulary::Setup>,
}

/// What the last poll asked for (`None` after a feed, until the next poll).
#[derive(Debug, Clone, PartialEq)]
enum Asked {
    Nothing,
    ModelReply,
    ToolResult(ToolCall),
    /// Calls were handed out together (parallelism other than 1, or the call asked for
    /// one at a time was fed while others still wait); results are fed by call id.
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
    /// How many calls of a turn may wait at once (`agentloop_agent_set_parallel`; at
    /// least 1), given to the agent at each poll.
    parallel: usize,
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

    /// Before the first poll: continues the run `recorded` holds ([`Resumable::resume`])
    /// instead of starting; a refusal is kept for `agentloop_agent_resume_error`.
    pub(crate) fn resume(&mut self, recorded: &Resumable) -> Outcome {
        let setup = self.setup.as_ref().ok_or(agentloop_result::InvalidState)?;
        let resumed = recorded.resume(setup.budgets.clone(), setup.manifest.clone());
        let stated = setup.stated.clone();
        let resumed = resumed
            .map_err(|e| e.to_string())
            .and_then(|(agent, chain)| match stated {
                None => Ok((agent, chain)),
                Some(stated) => agent
                    .with_setup(stated)
                    .map(|agent| (agent, chain))
                    .map_err(|e| format!("the setup given cannot go on this run: {e}")),
            });
        match resumed {
            Ok((agent, _)) => {
                self.setup = None;
                self.agent = Some(agent);
                self.refusal = None;
                self.collect();
                Ok(())
            }
            Err(error) => self.refuse(error),
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
            )
            .ok()
            .and_then(|agent| match setup.stated.clone() {
                None => Some(agent),
                Some(stated) => agent.with_setup(stated).ok(),
            });
            match made {
                Some(agent) => self.agent = Some(agent),
                None => {
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

    /// Runs the loop to its next need, handing out up to `parallel` calls: one at a
    /// time (parallelism 1, `AGENTLOOP_NEED_TOOL_RESULT` with the first call waiting),
    /// or more (`AGENTLOOP_NEED_TOOL_RESULTS`).
    fn poll(&mut self) -> Outcome<agentloop_need> {
        let parallel = self.parallel;
        let all = parallel != 1;
        let agent = self.start()?;
        agent.set_parallel(parallel);
        // No cancellation hook is asked here, so the records a check point writes
        // may queue up; the host takes them all before it acts on the need.
        let (asked, need) = loop {
            match agent.poll(&mut || false) {
                Need::ModelReply { .. } => break (Asked::ModelReply, agentloop_need::ModelReply),
                Need::ToolResults { .. } if all => {
                    break (Asked::ToolResults, agentloop_need::ToolResults)
                }
                // Never empty: the agent hands out calls only with one.
                Need::ToolResults { calls } => {
                    if let Some(call) = calls.first() {
                        break (Asked::ToolResult(call.clone()), agentloop_need::ToolResult);
                    }
                }
                Need::TakeRecords => {}
                Need::Done(_) => break (Asked::Done, agentloop_need::Done),
            }
        };
        self.asked = asked;
        self.collect();
        Ok(need)
    }

    /// The calls still waiting for a result, after a poll that handed out calls (one
    /// or several) and until they are all fed.
    fn waiting(&self) -> Outcome<&[ToolCall]> {
        match (&self.asked, &self.agent) {
            (Asked::ToolResults | Asked::ToolResult(_), Some(agent)) => Ok(agent.waiting_calls()),
            _ => Err(agentloop_result::InvalidState),
        }
    }

    /// Feeds the result of the waiting call `id`. Feeding the call a one-at-a-time
    /// poll asked for ends that ask (the call getters refuse until the next poll); any
    /// other calls still waiting are still fed by id.
    fn feed_tool_for(&mut self, id: &str, result: Result<Value, ToolError>) -> Outcome {
        self.waiting()?;
        let keep = matches!(&self.asked, Asked::ToolResult(call) if call.id != id);
        let agent = self.running()?;
        agent.feed_tool_result(id, result).map_err(|e| {
            if e.no_such_call() {
                agentloop_result::InvalidArgument
            } else {
                agentloop_result::InvalidState
            }
        })?;
        if agent.waiting_calls().is_empty() {
            self.asked = Asked::Nothing;
        } else if !keep {
            self.asked = Asked::ToolResults;
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

    /// Feeds the result of the call a one-at-a-time poll asked for.
    fn feed_tool(&mut self, result: Result<Value, ToolError>) -> Outcome {
        let id = self.call()?.id.clone();
        self.feed_tool_for(&id, result)
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

/// Creates an agent for the task `(task_ptr, task_len)` (UTF-8, with a character other
/// than white space) with
/// `budgets` (NULL: no limits) whose first record — the `task` — will have
/// `seq = first_seq` (0 for a new chain; the chain's next seq when continuing one,
/// since call ids derive from seqs), and writes it to `*out`.
///
/// Register tools with `agentloop_agent_add_tool` before the first
/// `agentloop_agent_poll`, which writes the `task` record (the task and the budgets) and
/// freezes the manifest.
///
/// `INVALID_UTF8` for a task or sentinel that is not UTF-8; `INVALID_ARGUMENT` for a
/// task that is empty or only white space (Unicode's White_Space: it asks the model
/// nothing, and Anthropic refuses it), or a limit or `first_seq` above 2^53 − 1. On
/// success the caller owns `*out` (free it with `agentloop_agent_free`); on failure
/// `*out` is not written. The task and sentinel are copied. Thread-safe.
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
        // SAFETY: the caller's contract for the task bytes and the budgets.
        let (task, budgets) = unsafe { read_task(task_ptr, task_len, budgets) }?;
        if first_seq > agentloop_core::anchor::MAX_SEQ {
            return Err(agentloop_result::InvalidArgument);
        }
        let agent = agentloop_agent {
            setup: Some(Setup {
                first_seq,
                task: String::from(task),
                budgets,
                manifest: Manifest::new(),
                stated: None,
            }),
            agent: None,
            specs: Vec::new(),
            pending: VecDeque::new(),
            asked: Asked::Nothing,
            parallel: 1,
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
/// a schema that is refused, or that would bring the compiled schemas of the agent's
/// tools together past their budget of 64 MiB (`agentloop_tool_explain` gives the
/// sentence for the others);
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
        let (name, description) = ((name_ptr, name_len), (description_ptr, description_len));
        // SAFETY: the caller's contract for the byte inputs.
        let (spec, limit) =
            unsafe { read_spec(name, description, (schema_ptr, schema_len), limit) }?;
        let setup = agent.setup.as_mut().ok_or(agentloop_result::InvalidState)?;
        setup
            .manifest
            .register(spec, limit)
            .map_err(register_error)?;
        agent.specs = setup.manifest.specs().to_vec();
        Ok(())
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
