//! `agentloop run`: the agent loop against a model over HTTP, each record written
//! durably before the loop goes on, shown as it is written; at the end the file is
//! verified from disk (chain and loop audit), the stop reason and head printed, and the
//! checkpoint written if asked.

mod format1;
mod otlp;
mod outputs;
mod progress;
mod relist;
mod resumed;
mod settle;
mod setup;
mod stated;

use std::fs;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use agentloop_core::agent::{Outcome, Record, StopReason};
use agentloop_core::anchor::Anchor;
use agentloop_core::audit;
use agentloop_core::chain::{Log, LogError, Logged};
use agentloop_core::driver::{self, Counts, Io, OnRecord, Resumable, RunError, RunOptions};
use agentloop_core::durable::{Appended, WriteError, Writer, WriterOptions};
use agentloop_core::json::Value;
use agentloop_core::model::{Model, ThreadedModel};
use agentloop_core::note::SignerKey;
use agentloop_core::sink::SinkError;
use agentloop_core::tlog::make_checkpoint;
use agentloop_core::verify::{Options, Report};
use agentloop_core::vocabulary::Setup;
use agentloop_http::HttpModel;
use agentloop_mcp::{end_process_groups, McpServer, ProcessGroup};
use agentloop_otel::{Entry, Sender};

use crate::args::RunArgs;
use crate::atomic::write_atomically;
use crate::diag::plural;
use crate::exit::Exit;
use crate::failure::{AnchorFailure, Failure, RunFailure, SetupFailure};
use crate::{keys, lock_wait, signals, toolset};
use progress::{End, Progress, Start};

/// What a run needs once its file is open: the model, the tools, the plan (task and
/// budgets), the records of a run being resumed, and the signer for its checkpoint.
struct Opened {
    name: String,
    model: HttpModel,
    signer: Option<SignerKey>,
    writer: Writer,
    plan: setup::Plan,
    /// The records already in the file (a resumed run), or `None` for a new run.
    records: Option<Resumable>,
    /// What the requests say besides the conversation and the tools.
    request: stated::Request,
    /// The setup to state: a new run's (in its `task` record), or the one a run resumed
    /// with `--new-setup` goes on with (in its `resume` record).
    setup: Option<Setup>,
    offered: toolset::Offered,
    servers: Servers,
    /// The MCP servers, to list again when one says its tools changed.
    mcp: Vec<McpServer>,
}

/// The MCP servers' process groups, which a second Ctrl-C ends before the process
/// exits, and how long they get between SIGTERM and SIGKILL.
struct Servers {
    groups: Vec<ProcessGroup>,
    grace: Duration,
}

/// Runs the loop; see the module docs and `agentloop run --help`.
pub fn run(args: &RunArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let mut sender = otlp::start(args)?;
    let Opened {
        name,
        model,
        signer,
        mut writer,
        plan,
        records,
        request,
        setup,
        offered,
        servers,
        mcp,
    } = open(args)?;
    if let Some(sender) = &mut sender {
        otlp::prime(sender, records.as_ref());
    }
    let mut toolbox = offered.toolbox;
    let manifest = toolbox.manifest().clone();
    let in_force = relist::in_force(setup.as_ref(), records.as_ref());
    let mut agent = settle::agent(&name, &plan, records.as_ref(), manifest, setup)?;
    let url = model.url().to_owned();
    let tools: Vec<String> = toolbox.manifest().names().map(str::to_owned).collect();
    let renamed: Vec<(String, usize, String)> = offered
        .registration
        .renamed()
        .map(|t| (t.name.clone(), t.server, t.mcp_name.clone()))
        .collect();
    let mut remote =
        ThreadedModel::start(model).map_err(|e| Failure::Run(RunFailure::ModelThread(e)))?;
    let mut format1 = format1::WithoutDigests(&mut remote);
    let model: &mut dyn Model = match format1::continues_format1(records.as_ref()) {
        true => &mut format1,
        false => format1.0,
    };
    let signals::Interrupts { cancel, ending } = signals::cancel_on_sigint(Box::new(move || {
        end_process_groups(&servers.groups, servers.grace)
    }));
    let _notice = Notice::start(Arc::clone(&cancel));

    let mut progress = Progress::new(out, args.json, plan.budgets.clone());
    progress.start(&Start {
        file: &name,
        model: format!("{}:{}", request.model.provider, request.model.name),
        url: &url,
        tools,
        renamed,
        records: writer.count(),
        budgets: &plan.budgets,
    })?;
    let mut log = RunLog {
        writer: &mut writer,
        seq: 0,
        ending,
    };
    let mut shown = Shown {
        progress: &mut progress,
        failure: None,
        otlp: sender.as_mut(),
    };
    let mut relist = relist::Relist {
        servers: mcp,
        in_force,
        tools: &args.tools,
        request: &request,
        limits: &plan.limits,
    };
    let io = Io {
        log: &mut log,
        model,
        toolbox: &mut toolbox,
        cancel: &mut || cancel.load(Ordering::SeqCst),
        records: &mut shown,
        changes: Some(&mut |current| relist.change(current)),
    };
    let options = RunOptions {
        parallel: args.parallel,
    };
    let outcome = driver::drive(&mut agent, io, options);
    let not_shown = shown.failure;
    otlp::finish(sender);
    let outcome = outcome.map_err(|error| {
        let failed = log.writer.take_last_error();
        run_failure(&name, error, log.seq, failed, not_shown)
    })?;
    writer.close().map_err(|error| {
        Failure::Run(RunFailure::RunClose {
            name: name.clone(),
            error,
        })
    })?;
    finish(args, &name, &outcome, signer.as_ref(), &mut progress)
}

/// Everything before the loop: refuses what can be refused without the file (so a
/// refusal never creates it), starts the MCP servers, settles a new run's tools, opens
/// the file and reads back a run being resumed.
fn open(args: &RunArgs) -> Result<Opened, Failure> {
    let path = args.out.as_path();
    let name = path.display().to_string();
    if path.as_os_str() == "-" {
        return Err(Failure::Setup(SetupFailure::RunToStdin));
    }
    outputs::refuse_one_file_twice(args)?;
    let task = setup::given_task(args)?;
    let signer = args.sign_key.as_deref().map(keys::signer).transpose()?;
    let held = fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if held > 0 && !args.resume {
        return Err(Failure::Setup(SetupFailure::OutNotEmpty {
            name,
            len: held,
        }));
    }
    // A new run's model and key are settled before anything starts.
    let asked = (held == 0)
        .then(|| settle::new_request(args, &name))
        .transpose()?;
    let mcp_options = toolset::options(&args.tools, Some(outputs::mcp_log_path(path)))?;
    let servers = toolset::spawn(&args.tools, &mcp_options)?;
    let groups = servers.iter().map(McpServer::process_group).collect();
    // A new run's tools are settled before the file is opened, so that a refused
    // limit creates nothing; a resumed run's limits are its task record's.
    let new = match asked {
        Some(asked) => Some(settle::new_run(args, task.clone(), &name, &servers, asked)?),
        None => None,
    };

    let options = WriterOptions {
        sync: args.sync,
        lock: lock_wait::watched(&name, path),
        verify: Options::default(),
    };
    let (writer, recorded) = Writer::open_resumable(path, options)
        .map_err(|e| Failure::writer(&name, e, "nothing was run"))?;
    let (model, plan, records, offered, request, setup) = match new {
        // Written to between the look and the open: not a new run after all.
        Some(_) if !writer.is_empty() && !args.resume => {
            return Err(Failure::Setup(SetupFailure::OutNotEmpty {
                name,
                len: writer.len(),
            }))
        }
        Some((plan, offered, request, model, setup)) if writer.is_empty() => {
            (model, plan, None, offered, request, Some(setup))
        }
        _ if writer.is_empty() => {
            let asked = settle::new_request(args, &name)?;
            let (plan, offered, request, model, setup) =
                settle::new_run(args, task, &name, &servers, asked)?;
            (model, plan, None, offered, request, Some(setup))
        }
        _ => {
            let resumed = resumed::resumed(args, task, &name, &recorded, &servers)?;
            let model = setup::http_model(args, &resumed.request)?;
            let (plan, offered, request) = (resumed.plan, resumed.offered, resumed.request);
            (model, plan, Some(recorded), offered, request, resumed.setup)
        }
    };
    Ok(Opened {
        name,
        model,
        signer,
        writer,
        plan,
        records,
        request,
        setup,
        offered,
        servers: Servers {
            groups,
            grace: mcp_options.shutdown_grace,
        },
        mcp: servers,
    })
}

/// After the run: verifies the file from disk (chain and loop audit), writes the
/// checkpoint if asked, says how the run ended; the exit status by the stop reason.
fn finish(
    args: &RunArgs,
    name: &str,
    outcome: &Outcome,
    signer: Option<&SignerKey>,
    progress: &mut Progress<'_>,
) -> Result<Exit, Failure> {
    let report = audit::verify_loop_file(&args.out, &Options::default());
    let (true, Some(head), Some(_)) = (report.ok(), report.head, report.root) else {
        return Err(Failure::does_not_verify(
            name,
            &report,
            "the run's transcript is not sound (and no checkpoint was written)",
        ));
    };
    let checkpoint = match &args.checkpoint {
        Some(path) => {
            write_checkpoint(path, &report, signer)?;
            Some(path.display().to_string())
        }
        None => None,
    };
    let exit = exit_of(outcome.reason);
    let mut text = format!(
        "{}: {}, {}, {}",
        outcome.reason,
        plural(outcome.steps, "turn"),
        plural(outcome.tokens, "token"),
        plural(outcome.tool_calls, "tool call")
    );
    if outcome.unrun_calls > 0 {
        text.push_str(&format!(
            ", {} left unrun",
            plural(outcome.unrun_calls, "call")
        ));
    }
    if let Some(error) = &outcome.error {
        text.push_str(&format!("; error: {error}"));
    }
    text.push_str(&format!(
        "\n{name}: {} verified (chain and loop), head {head}\n",
        plural(report.count, "record")
    ));
    if let Some(path) = &checkpoint {
        text.push_str(&format!("{name}: checkpoint written to {path}\n"));
    }
    let end = End {
        reason: outcome.reason.as_str(),
        exit: exit.code(),
        count: report.count,
        head: head.to_string(),
        checkpoint,
    };
    progress.end(&end, &text)?;
    Ok(exit)
}

/// The exit status a stop reason ends `run` with (docs/cli.md).
pub fn exit_of(reason: StopReason) -> Exit {
    match reason {
        StopReason::NoToolCalls | StopReason::Sentinel => Exit::Held,
        StopReason::StepBudget | StopReason::TokenBudget | StopReason::ToolBudget => Exit::Budget,
        StopReason::ModelError => Exit::ModelFailed,
        StopReason::Cancelled => Exit::Cancelled,
    }
}

/// Writes the checkpoint of the whole file (C2SP, default origin), signed if a key was
/// given, atomically.
fn write_checkpoint(
    path: &Path,
    report: &Report,
    signer: Option<&SignerKey>,
) -> Result<(), Failure> {
    let text = make_checkpoint(report, None, signer)
        .map_err(|e| Failure::Anchor(AnchorFailure::not_made(path.display().to_string(), e)))?;
    write_atomically(path, text.as_bytes()).map_err(|reason| {
        Failure::Anchor(AnchorFailure::CheckpointWrite {
            name: path.display().to_string(),
            reason,
        })
    })
}

/// Says on stderr, once, that Ctrl-C was seen and what happens next: the run may be
/// waiting for tools, which are let finish. Ends with the run (when dropped).
struct Notice {
    done: Arc<AtomicBool>,
}

/// How often the notice looks at the flag: only how soon the sentence appears depends
/// on it.
const NOTICE_POLL: Duration = Duration::from_millis(20);

impl Notice {
    fn start(cancel: Arc<AtomicBool>) -> Notice {
        let done = Arc::new(AtomicBool::new(false));
        let finished = Arc::clone(&done);
        // Without the thread there is no notice; the run is the same.
        let _ = thread::Builder::new()
            .name(String::from("interrupt-notice"))
            .spawn(move || {
                while !finished.load(Ordering::SeqCst) {
                    if cancel.load(Ordering::SeqCst) {
                        crate::diag::say(
                            "interrupted: the run stops with reason cancelled as soon as the \
                             model's turn is abandoned or the tools running return (no other \
                             call starts); Ctrl-C again ends it at once",
                        );
                        return;
                    }
                    thread::sleep(NOTICE_POLL);
                }
            });
        Notice { done }
    }
}

impl Drop for Notice {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
    }
}

/// The run's log: the durable writer, which builds, hashes and appends each record
/// (under its lock, at the run's next `seq`), once a second Ctrl-C is not ending the
/// process. The writer keeps why a record was not written, for [`run_failure`] (the
/// driver hears only that it was not).
struct RunLog<'a> {
    writer: &'a mut Writer,
    /// A second Ctrl-C: no record is written once it has come.
    ending: signals::Ending,
    /// The seq of the last record given to the writer (the one that failed, if one
    /// did; the writer keeps why, [`Writer::last_error`]).
    seq: u64,
}

impl Log for RunLog<'_> {
    fn append(&mut self, kind: &str, payload: &Value) -> Result<Logged<'_>, LogError> {
        self.ending.hold();
        self.seq = self.writer.next().seq0;
        Log::append(&mut *self.writer, kind, payload)
    }

    fn next(&self) -> Anchor {
        self.writer.next()
    }
}

/// Each record, once written: shown, and given to the live export if there is one. A
/// failure to show it is kept for [`run_failure`].
struct Shown<'p, 'o, 's> {
    progress: &'p mut Progress<'o>,
    failure: Option<Failure>,
    otlp: Option<&'s mut Sender>,
}

impl OnRecord for Shown<'_, '_, '_> {
    fn on_record(
        &mut self,
        record: &Record,
        logged: &Logged<'_>,
        counts: Counts,
    ) -> Result<(), SinkError> {
        if let Some(sender) = &mut self.otlp {
            sender.record(&Entry {
                seq: logged.seq,
                hash: logged.hash,
                kind: record.kind.as_str(),
                payload: &record.payload,
            });
        }
        let appended = Appended {
            seq: logged.seq,
            head: logged.hash,
        };
        self.progress
            .record(record, &appended, counts)
            .map_err(|failure| {
                self.failure = Some(failure);
                SinkError::Refused
            })
    }
}

/// The failure a driver's error stands for: a record that could not be shown or
/// written (as kept); else a record the chain refused, or a driver's bug.
fn run_failure(
    name: &str,
    error: RunError,
    seq: u64,
    failed: Option<WriteError>,
    shown: Option<Failure>,
) -> Failure {
    if let Some(failure) = shown {
        return failure;
    }
    let (seq, why) = match (error, failed) {
        (RunError::Sink(_), Some(error)) => {
            return Failure::Run(RunFailure::RunWrite {
                name: name.to_owned(),
                seq,
                error,
            })
        }
        (RunError::Append(e), _) => (Some(seq), e.to_string()),
        (other, _) => (None, other.to_string()),
    };
    Failure::Run(RunFailure::RunRefused {
        name: name.to_owned(),
        seq,
        why,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_stop_reason_has_its_exit_status() {
        let codes: Vec<(StopReason, u8)> = StopReason::ALL
            .into_iter()
            .map(|r| (r, exit_of(r).code()))
            .collect();
        assert_eq!(
            codes,
            [
                (StopReason::NoToolCalls, 0),
                (StopReason::Sentinel, 0),
                (StopReason::StepBudget, 3),
                (StopReason::TokenBudget, 3),
                (StopReason::ModelError, 4),
                (StopReason::ToolBudget, 3),
                (StopReason::Cancelled, 130),
            ]
        );
    }
}
