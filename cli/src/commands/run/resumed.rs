//! What `run --resume` goes on with: the plan the task record states, the tools given
//! again, and the request the recorded setup (format 2) or the flags (format 1) make —
//! refused when the setup differs, unless `--new-setup` after a `stop`.

use agentloop_core::driver::Resumable;
use agentloop_core::json::Value;
use agentloop_core::vocabulary::{RecordKind, Setup};
use agentloop_mcp::McpServer;

use super::{setup, stated};
use crate::args::RunArgs;
use crate::failure::{Failure, RunFailure};
use crate::{tools_map, toolset};

/// What a resumed run goes on with.
pub struct Resumed {
    pub plan: setup::Plan,
    pub offered: toolset::Offered,
    pub request: stated::Request,
    /// The setup `--new-setup` states.
    pub setup: Option<Setup>,
}

/// A resumed run's plan, tools and request. With a recorded setup (format 2), the
/// setup this run makes must be the one in force, unless `--new-setup` (after a
/// `stop`) replaces it; a format-1 transcript is held to its side file
/// `FILE.tools.json` instead.
pub fn resumed(
    args: &RunArgs,
    task: Option<String>,
    name: &str,
    recorded: &Resumable,
    servers: &[McpServer],
) -> Result<Resumed, Failure> {
    let plan = setup::resumed_plan(args, task, name, recorded)?;
    let offered = toolset::offer(&args.tools, servers, &plan.limits)?;
    let cannot = |what: String| {
        Failure::Run(RunFailure::ResumeTask {
            name: name.to_owned(),
            what,
        })
    };
    let in_force = recorded.setup().map_err(|e| cannot(e.to_string()))?;
    if args.new_setup && !ends_with_stop(recorded) {
        return Err(Failure::Run(RunFailure::NewSetupMidRun {
            name: name.to_owned(),
        }));
    }
    let request = match &in_force {
        Some(in_force) => stated::from_recorded(args, in_force, name)?,
        None => stated::from_flags(args, name, "a format-1 transcript (it records no model)")?,
    };
    let given = stated::setup(&request, servers, &offered);
    let setup = match (&in_force, args.new_setup) {
        (_, true) => Some(given),
        (Some(in_force), false) => match in_force.difference(&given) {
            Some(difference) => {
                return Err(Failure::Run(RunFailure::SetupDiffers {
                    name: name.to_owned(),
                    difference,
                }))
            }
            None => None,
        },
        (None, false) => {
            let map = tools_map::map(&args.tools, servers, &offered);
            tools_map::keep(&args.out, &map, !servers.is_empty(), true)?;
            None
        }
    };
    Ok(Resumed {
        plan,
        offered,
        request,
        setup,
    })
}

/// Whether the last record is a `stop`: the run ended, and may go on with another
/// setup.
fn ends_with_stop(recorded: &Resumable) -> bool {
    let kind = recorded
        .records()
        .last()
        .and_then(Value::as_object)
        .and_then(|record| record.get("kind"))
        .and_then(Value::as_str);
    kind == Some(RecordKind::Stop.as_str())
}
