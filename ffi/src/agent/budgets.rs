//! `agentloop_budgets`: the limits of a run, as C passes them, and the task and
//! budgets read once for `agentloop_agent_new` and `agentloop_driver_run(_to_writer)`.

use agentloop_core::agent::{check_task, Budgets};

use crate::boundary::boundary;
use crate::bytes::{put, text};
use crate::result::{agentloop_result, Outcome};

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

/// Reads a run's task `(task_ptr, task_len)` and its budgets from C, checked: the one
/// reading of `agentloop_agent_new` and `agentloop_driver_run(_to_writer)`.
/// `INVALID_UTF8` for a task that is not UTF-8, `INVALID_ARGUMENT` for one that is
/// empty or only white space; then the budgets as [`read_budgets`].
///
/// # Safety
/// `task_ptr` must point to `task_len` readable bytes; `budgets` as [`read_budgets`].
pub(crate) unsafe fn read_task<'a>(
    task_ptr: *const u8,
    task_len: usize,
    budgets: *const agentloop_budgets,
) -> Outcome<(&'a str, Budgets)> {
    // SAFETY: the caller's contract for the byte input.
    let task = unsafe { text(task_ptr, task_len) }?;
    check_task(task).map_err(|_| agentloop_result::InvalidArgument)?;
    // SAFETY: the caller promises NULL or an initialised struct.
    let budgets = unsafe { read_budgets(budgets) }?;
    Ok((task, budgets))
}

/// Reads C budgets (NULL: no limits) into the core's, checked.
///
/// # Safety
/// `budgets` must be NULL or an initialised struct (its bools 0 or 1) whose sentinel
/// points to `stop_sentinel_len` readable bytes.
unsafe fn read_budgets(budgets: *const agentloop_budgets) -> Outcome<Budgets> {
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
