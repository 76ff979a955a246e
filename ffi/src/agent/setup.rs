//! `agentloop_agent_set_setup`: the run's setup a C host records (format 2, SPEC
//! section 4 "What a run records", docs/format.md): what determined the requests, which
//! the host knows and the agent does not.

use agentloop_core::json::parse;
use agentloop_core::vocabulary::Setup;

use crate::agent::agentloop_agent;
use crate::boundary::boundary;
use crate::bytes::{handle_mut, input};
use crate::json::parse_error;
use crate::result::{agentloop_result, Outcome};

impl agentloop_agent {
    /// Before the first poll: the setup to record, checked against the tools
    /// registered.
    pub(crate) fn set_setup(&mut self, setup: Setup) -> Outcome {
        let pending = self.setup.as_mut().ok_or(agentloop_result::InvalidState)?;
        if setup.offers(&pending.manifest).is_some() {
            return Err(agentloop_result::InvalidArgument);
        }
        pending.stated = Some(setup);
        Ok(())
    }
}

/// Gives the run's setup, the JSON object `(json_ptr, json_len)` as docs/format.md
/// ("Format 2: the setup") describes it: the model, the endpoint without credentials,
/// the system prompt, the request options, the tools offered (in name order, as
/// registered: each one's name, description, schema, idempotence and `source`) and the
/// MCP servers. The agent records it in its `task` record; an agent then resumed
/// (`agentloop_agent_resume`) after a transcript's `stop` records it instead in the
/// `resume` record, as the setup the run goes on with (and refuses to resume a
/// transcript that ends inside a run). Never put a key, a header or a URL's password in it.
/// Call it after registering the tools (and declaring the idempotent ones) and before
/// the first poll; a tool registered after it makes the first poll `INVALID_ARGUMENT`.
///
/// `INVALID_JSON` / `NO_CANONICAL_FORM` for text the strict parser refuses;
/// `INVALID_ARGUMENT` for a setup that does not decode, or whose tools are not the
/// registered ones; `INVALID_STATE` after the first poll or a resume. Every failure
/// leaves the agent unchanged. The input is copied. NULL `agent` is `NULL_PARAMETER`.
/// Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `json_ptr` must point to `json_len`
/// readable bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_set_setup(
    agent: *mut agentloop_agent,
    json_ptr: *const u8,
    json_len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        // SAFETY: the caller's contract for the byte input.
        let bytes = unsafe { input(json_ptr, json_len) }?;
        let value = parse(bytes).map_err(parse_error)?;
        let setup = Setup::decode(&value).map_err(|_| agentloop_result::InvalidArgument)?;
        agent.set_setup(setup)
    })
}
