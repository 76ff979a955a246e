//! `agentloop_driver_run`: a blocking driver with a model callback, tool callbacks, a cancel
//! callback, and the transcript going to a record callback or a writer.

use core::ffi::c_void;

use agentloop_core::agent::{Agent, Outcome as RunOutcome};
use agentloop_core::chain::{AppendError, Chain, Log};
use agentloop_core::driver::{self, RunError};
use agentloop_core::export::{native_messages, native_tools};
use agentloop_core::json::Value;
use agentloop_core::model::{Message, Model, ModelError, Reply};
use agentloop_core::sink::{RecordSink, SinkError};
use agentloop_core::tools::{Tool, ToolError, ToolOptions, ToolSpec, Toolbox};

use crate::agent::{agentloop_budgets, agentloop_stop, canonical, read_task};
use crate::boundary::boundary;
use crate::bytes::{handle_mut, need, put};
use crate::reply::agentloop_reply;
use crate::result::{agentloop_result, Outcome};
use crate::tool::{read_spec, register_error};
use crate::tool_result::agentloop_tool_result;
use crate::writer::{agentloop_writer, write_error};

/// The model: called once per turn with the conversation so far as JSON `(messages,
/// messages_len)` (the shape of `agentloop_agent_messages_json`) and the tools on
/// offer `(manifest, manifest_len)` (the shape of `agentloop_agent_manifest_json`); it
/// writes its answer into `reply` with the `agentloop_reply_*` functions. The inputs
/// and `reply` are valid only during the call. Called on the thread that called
/// `agentloop_driver_run`.
pub type agentloop_model_callback = Option<
    unsafe extern "C" fn(
        userdata: *mut c_void,
        messages: *const u8,
        messages_len: usize,
        manifest: *const u8,
        manifest_len: usize,
        reply: *mut agentloop_reply,
    ),
>;

/// A tool: called with the call's arguments as canonical JSON `(arguments,
/// arguments_len)` — they have passed the tool's schema — it writes its value or
/// failure into `result` with the `agentloop_tool_result_*` functions. The inputs and
/// `result` are valid only during the call.
pub type agentloop_tool_callback = Option<
    unsafe extern "C" fn(
        userdata: *mut c_void,
        arguments: *const u8,
        arguments_len: usize,
        result: *mut agentloop_tool_result,
    ),
>;

/// Asked at every check point (before each turn, before each call): `true` stops the
/// run with `cancelled`.
pub type agentloop_cancel_callback = Option<unsafe extern "C" fn(userdata: *mut c_void) -> bool>;

/// Takes one record line `(line, len)` — canonical, ending in `\n`, no NUL, valid only
/// during the call — in transcript order. Return 0 when it was taken; any other value
/// stops the run (`AGENTLOOP_RESULT_CALLBACK_REFUSED`) and the transcript ends before
/// this record.
pub type agentloop_record_callback =
    Option<unsafe extern "C" fn(userdata: *mut c_void, line: *const u8, len: usize) -> u32>;

/// A tool for `agentloop_driver_run`: its name (UTF-8, matching `^[a-zA-Z0-9_-]{1,64}$`,
/// unique), description (UTF-8) and argument schema (a JSON Schema document:
/// docs/schemas.md; its root with `"type": "object"`), each as
/// `(pointer, length)`; its call limit (0: none); its callback (not NULL) and the
/// `userdata` passed to it. The strings are copied when the run starts.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct agentloop_tool {
    /// The tool's name.
    pub name: *const u8,
    /// Its length in bytes.
    pub name_len: usize,
    /// What the tool does, for the model.
    pub description: *const u8,
    /// Its length in bytes.
    pub description_len: usize,
    /// The argument schema, a JSON document.
    pub schema: *const u8,
    /// Its length in bytes.
    pub schema_len: usize,
    /// Most calls it runs in one run; 0 means no limit.
    pub limit: u64,
    /// Runs a call (must not be NULL).
    pub callback: agentloop_tool_callback,
    /// Passed to `callback` as its first argument.
    pub userdata: *mut c_void,
}

/// How a run ended, written by `agentloop_driver_run` on success.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct agentloop_outcome {
    /// Why it stopped: an `agentloop_stop` value (`agentloop_stop_str`).
    pub reason: u32,
    /// Assistant turns recorded.
    pub steps: u64,
    /// Tokens counted, summed over turns.
    pub tokens: u64,
    /// Calls asked for and not run.
    pub unrun_calls: u64,
    /// `tool` records written.
    pub tool_calls: u64,
}

impl agentloop_outcome {
    fn from_core(outcome: &RunOutcome) -> agentloop_outcome {
        agentloop_outcome {
            reason: agentloop_stop::from_core(outcome.reason) as u32,
            steps: outcome.steps,
            tokens: outcome.tokens,
            unrun_calls: outcome.unrun_calls,
            tool_calls: outcome.tool_calls,
        }
    }
}

/// The model callback as a [`Model`].
struct CModel {
    callback:
        unsafe extern "C" fn(*mut c_void, *const u8, usize, *const u8, usize, *mut agentloop_reply),
    userdata: *mut c_void,
}

impl Model for CModel {
    fn reply(&mut self, messages: &[Message], manifest: &[ToolSpec]) -> Result<Reply, ModelError> {
        let shown = native_messages(messages);
        let (Ok(shown), Ok(tools)) = (canonical(&shown), canonical(&native_tools(manifest))) else {
            return Err(ModelError::new(
                "the conversation has no canonical encoding",
            ));
        };
        let mut reply = agentloop_reply::new(messages, manifest);
        // SAFETY: the caller of agentloop_driver_run promises the callback may be called with
        // its userdata; the buffers and the reply live until it returns.
        unsafe {
            (self.callback)(
                self.userdata,
                shown.as_ptr(),
                shown.len(),
                tools.as_ptr(),
                tools.len(),
                &mut reply,
            )
        };
        reply.into_result()
    }
}

/// A tool callback as a [`Tool`]. It is registered without
/// [`ToolOptions::concurrent`], so the driver calls it only on the thread that called
/// `agentloop_driver_run`, one call at a time, as the C contract says.
struct CTool {
    spec: ToolSpec,
    callback: unsafe extern "C" fn(*mut c_void, *const u8, usize, *mut agentloop_tool_result),
    userdata: *mut c_void,
}

// SAFETY: a CTool lives only in the toolbox `read_run` builds for one call of
// `agentloop_driver_run(_to_writer)`, registered without `concurrent`: the driver calls
// it (and reads its spec) on the calling thread only, and the toolbox is dropped before
// that call returns; no CTool or its userdata is moved to or shared with another thread.
// The trait asks `Send + Sync` because concurrent tools exist, not because this one is
// ever used as one.
unsafe impl Send for CTool {}
// SAFETY: as for `Send` above: never used from a thread but the caller's.
unsafe impl Sync for CTool {}

impl Tool for CTool {
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn call(&self, arguments: &Value) -> Result<Value, ToolError> {
        let arguments = canonical(arguments)
            .map_err(|_| ToolError::new("the arguments have no canonical encoding"))?;
        let mut result = agentloop_tool_result::new();
        // SAFETY: the caller of agentloop_driver_run promises the callback may be called with
        // its userdata; the buffer and the result live until it returns.
        unsafe {
            (self.callback)(
                self.userdata,
                arguments.as_ptr(),
                arguments.len(),
                &mut result,
            )
        };
        result.into_result()
    }
}

/// The record callback as a [`RecordSink`].
struct CSink {
    callback: unsafe extern "C" fn(*mut c_void, *const u8, usize) -> u32,
    userdata: *mut c_void,
}

impl RecordSink for CSink {
    fn record(&mut self, line: &[u8]) -> Result<(), SinkError> {
        // SAFETY: the caller of agentloop_driver_run promises the callback may be called with
        // its userdata; the line lives until it returns.
        match unsafe { (self.callback)(self.userdata, line.as_ptr(), line.len()) } {
            0 => Ok(()),
            _ => Err(SinkError::Refused),
        }
    }
}

/// Everything of a run but where its records go, read from C.
struct Run {
    task: String,
    budgets: agentloop_core::agent::Budgets,
    model: CModel,
    toolbox: Toolbox,
    cancel: agentloop_cancel_callback,
    cancel_userdata: *mut c_void,
}

/// Reads one tool from C.
///
/// # Safety
/// `tool`'s byte inputs must point to their lengths in readable bytes.
unsafe fn read_tool(tool: &agentloop_tool) -> Outcome<(CTool, Option<u64>)> {
    let callback = tool.callback.ok_or(agentloop_result::NullParameter)?;
    let name = (tool.name, tool.name_len);
    let description = (tool.description, tool.description_len);
    // SAFETY: the caller's contract for the tool's byte inputs.
    let (spec, limit) = unsafe {
        read_spec(
            name,
            description,
            (tool.schema, tool.schema_len),
            tool.limit,
        )
    }?;
    let c_tool = CTool {
        spec,
        callback,
        userdata: tool.userdata,
    };
    Ok((c_tool, limit))
}

/// Reads a run's inputs from C, checking every one before anything runs.
///
/// # Safety
/// The contract of `agentloop_driver_run` for these parameters.
// The C parameters of the two exports, passed through unchanged.
#[allow(clippy::too_many_arguments)]
unsafe fn read_run(
    task_ptr: *const u8,
    task_len: usize,
    budgets: *const agentloop_budgets,
    model: agentloop_model_callback,
    model_userdata: *mut c_void,
    tools: *const agentloop_tool,
    tools_len: usize,
    cancel: agentloop_cancel_callback,
    cancel_userdata: *mut c_void,
) -> Outcome<Run> {
    let model = model.ok_or(agentloop_result::NullParameter)?;
    // SAFETY: the caller's contract for the task bytes and the budgets.
    let (task, budgets) = unsafe { read_task(task_ptr, task_len, budgets) }?;
    let tools: &[agentloop_tool] = if tools_len == 0 {
        &[]
    } else if tools.is_null() {
        return Err(agentloop_result::NullParameter);
    } else if tools_len > isize::MAX as usize / core::mem::size_of::<agentloop_tool>() {
        return Err(agentloop_result::InvalidArgument);
    } else {
        // SAFETY: non-NULL, a size that fits isize, and the caller promises tools_len
        // initialised structs (their bools and function pointers valid, as C's are).
        unsafe { core::slice::from_raw_parts(tools, tools_len) }
    };
    let mut toolbox = Toolbox::new();
    for tool in tools {
        // SAFETY: the caller's contract for each tool's byte inputs.
        let (c_tool, limit) = unsafe { read_tool(tool) }?;
        toolbox
            .register(c_tool, ToolOptions::new().limit(limit))
            .map_err(register_error)?;
    }
    Ok(Run {
        task: String::from(task),
        budgets,
        model: CModel {
            callback: model,
            userdata: model_userdata,
        },
        toolbox,
        cancel,
        cancel_userdata,
    })
}

/// Takes no line: the log (a file's writer) keeps them.
struct Discard;

impl RecordSink for Discard {
    fn record(&mut self, _: &[u8]) -> Result<(), SinkError> {
        Ok(())
    }
}

impl Run {
    /// Runs to the end on `log`, the lines going to `sink` too.
    fn run_on(
        mut self,
        log: &mut dyn Log,
        sink: &mut dyn RecordSink,
    ) -> Outcome<agentloop_outcome> {
        let (cancel, userdata) = (self.cancel, self.cancel_userdata);
        let mut asked = || match cancel {
            // SAFETY: the caller of agentloop_driver_run promises the callback may be called
            // with its userdata.
            Some(callback) => unsafe { callback(userdata) },
            None => false,
        };
        let manifest = self.toolbox.manifest().clone();
        let mut agent = Agent::with_first_seq(log.next().seq0, &self.task, self.budgets, manifest)
            .map_err(|_| agentloop_result::InvalidArgument)?;
        let mut sink = sink;
        let io = driver::Io {
            log,
            model: &mut self.model,
            toolbox: &mut self.toolbox,
            cancel: &mut asked,
            records: &mut sink,
            changes: None,
        };
        let outcome =
            driver::drive(&mut agent, io, driver::RunOptions::default()).map_err(|error| {
                match error {
                    RunError::Budgets(_) => agentloop_result::InvalidArgument,
                    RunError::Append(AppendError::SeqExhausted) => agentloop_result::ChainExhausted,
                    RunError::Append(AppendError::LineTooLong { .. }) => {
                        agentloop_result::RecordTooLong
                    }
                    RunError::Append(_) => agentloop_result::NoCanonicalForm,
                    RunError::Sink(SinkError::Io(_)) => agentloop_result::Io,
                    RunError::Sink(_) => agentloop_result::CallbackRefused,
                    RunError::Feed(_) | RunError::Setup(_) => agentloop_result::InvalidState,
                }
            })?;
        Ok(agentloop_outcome::from_core(&outcome))
    }
}

/// Runs the loop to its end with callbacks: the task `(task_ptr, task_len)` (UTF-8,
/// with a character other than white space), `budgets` (NULL: no limits), the model
/// callback `model` with `model_userdata`, the `tools_len` tools at `tools` (NULL only
/// when `tools_len` is 0), the cancel callback `cancel` (NULL: never cancelled) with
/// `cancel_userdata`, and each record line — a new chain from seq 0 — handed to
/// `record` with `record_userdata` before the run goes on. On success the outcome is
/// written to `*out_outcome`.
///
/// The model's and tools' failures are not errors: they are recorded (see
/// `agentloop_reply` and `agentloop_tool_result`), and the run stops or goes on as the
/// SPEC says; `OK` means the run reached its `stop` record. Refused before anything
/// runs: NULL `model`, `record`, `out_outcome`, or a tool's callback is
/// `NULL_PARAMETER`; a tool is refused as by `agentloop_agent_add_tool`
/// (`INVALID_UTF8`, `INVALID_JSON`, `NOT_PROVIDER_SAFE` for a name outside
/// `^[a-zA-Z0-9_-]{1,64}$` or a root schema without `"type": "object"`,
/// `SCHEMA_REFUSED`, `INVALID_ARGUMENT` for a duplicate name or a limit above
/// 2^53 − 1; `agentloop_tool_explain` says why a name or schema is refused); the task
/// and the budgets as by `agentloop_agent_new` (`INVALID_UTF8` for a task that is not
/// UTF-8, `INVALID_ARGUMENT` for one that is empty or only white space).
/// During the run: `CALLBACK_REFUSED` when `record` returned non-zero (the transcript
/// ends before that record); `RECORD_TOO_LONG` when the task is too long for the
/// `task` record's line (16 MiB; nothing is written). A reply or a tool result too
/// large for one record is not an error: the run stops with `model_error`, or the
/// result is recorded as `ok:false`, saying so. `*out_outcome` is written only on
/// success.
///
/// Every callback is called on this thread, before this function returns, and never
/// after. Callbacks must not unwind (C++ exceptions) through the library. Thread-safe
/// (no shared state), as long as the callbacks are.
///
/// # Safety
/// The byte inputs must point to their lengths in readable bytes; `budgets` must be
/// NULL or an initialised struct; `tools` must point to `tools_len` initialised structs
/// whose byte inputs are valid; each callback must be safe to call with its userdata
/// and the documented arguments; `out_outcome` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_driver_run(
    task_ptr: *const u8,
    task_len: usize,
    budgets: *const agentloop_budgets,
    model: agentloop_model_callback,
    model_userdata: *mut c_void,
    tools: *const agentloop_tool,
    tools_len: usize,
    cancel: agentloop_cancel_callback,
    cancel_userdata: *mut c_void,
    record: agentloop_record_callback,
    record_userdata: *mut c_void,
    out_outcome: *mut agentloop_outcome,
) -> agentloop_result {
    boundary(|| {
        need(out_outcome)?;
        let record = record.ok_or(agentloop_result::NullParameter)?;
        // SAFETY: forwarded from this function's contract.
        let run = unsafe {
            read_run(
                task_ptr,
                task_len,
                budgets,
                model,
                model_userdata,
                tools,
                tools_len,
                cancel,
                cancel_userdata,
            )
        }?;
        let mut sink = CSink {
            callback: record,
            userdata: record_userdata,
        };
        let outcome = run.run_on(&mut Chain::new(), &mut sink)?;
        // SAFETY: out_outcome was checked non-NULL; the caller promises it is writable.
        unsafe { put(out_outcome, outcome) }
    })
}

/// As `agentloop_driver_run`, with the records appended to `writer`'s file (opened with
/// `agentloop_writer_open`, so verified), continuing its chain: first the writer takes
/// in what other writers appended (as `agentloop_writer_refresh`), then the `task`
/// record gets the file's next `seq`. Each record is appended as
/// `agentloop_writer_append` does — under the lock, synced by the writer's policy — but
/// it must continue the run's own chain: if another writer appends during the run, the
/// next record is refused with `DOES_NOT_VERIFY` and the run stops there (a run's
/// records are never split). A failed write is `AGENTLOOP_RESULT_IO`: the run stops,
/// the file is cut back to its last complete record; if cutting back (or a sync)
/// failed, the writer refuses every later append with `INVALID_STATE`. A writer in
/// that state is refused with `INVALID_STATE` before anything runs. Refused before
/// anything runs, as by `agentloop_driver_run`: NULL `writer`, `model`, `out_outcome`
/// or a tool's callback is `NULL_PARAMETER`; a task or tool text that is not UTF-8
/// `INVALID_UTF8`; a tool's schema text `INVALID_JSON`, a name or root schema providers
/// refuse `NOT_PROVIDER_SAFE`, a schema refused `SCHEMA_REFUSED`, a task that is empty
/// or only white space, a duplicate name or a limit above 2^53 − 1 `INVALID_ARGUMENT`.
/// During the run: `RECORD_TOO_LONG` when the task is too long for the `task` record's
/// line (nothing is written), as for `agentloop_driver_run`. Not thread-safe for one
/// writer.
///
/// # Safety
/// `writer` must be a live writer from this library; the rest as `agentloop_driver_run`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_driver_run_to_writer(
    writer: *mut agentloop_writer,
    task_ptr: *const u8,
    task_len: usize,
    budgets: *const agentloop_budgets,
    model: agentloop_model_callback,
    model_userdata: *mut c_void,
    tools: *const agentloop_tool,
    tools_len: usize,
    cancel: agentloop_cancel_callback,
    cancel_userdata: *mut c_void,
    out_outcome: *mut agentloop_outcome,
) -> agentloop_result {
    boundary(|| {
        need(out_outcome)?;
        // SAFETY: the caller promises a live writer used by no other thread.
        let writer = &mut unsafe { handle_mut(writer) }?.writer;
        // Start from the file's head, including what other writers appended.
        writer.refresh().map_err(|e| write_error(&e))?;
        // SAFETY: forwarded from this function's contract.
        let run = unsafe {
            read_run(
                task_ptr,
                task_len,
                budgets,
                model,
                model_userdata,
                tools,
                tools_len,
                cancel,
                cancel_userdata,
            )
        }?;
        // The writer is the log: each record is built, hashed and appended once.
        let outcome = run.run_on(writer, &mut Discard).map_err(|result| {
            match (result, writer.last_error()) {
                // The writer refused a record: say why rather than "callback refused".
                (agentloop_result::CallbackRefused | agentloop_result::Io, Some(error)) => {
                    write_error(error)
                }
                _ => result,
            }
        })?;
        // SAFETY: out_outcome was checked non-NULL; the caller promises it is writable.
        unsafe { put(out_outcome, outcome) }
    })
}
