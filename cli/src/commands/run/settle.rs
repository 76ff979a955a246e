//! What `run` settles before it writes: a new run's request and model (its flags), its
//! plan, tools and the setup they make, and the agent — a new run's, or the one the
//! records of a resumed run rebuild ([`super::resumed`] settles the rest of a resumed
//! run).

use agentloop_core::agent::Agent;
use agentloop_core::driver::Resumable;
use agentloop_core::tools::Manifest;
use agentloop_core::vocabulary::Setup;
use agentloop_http::HttpModel;
use agentloop_mcp::McpServer;

use super::{setup, stated};
use crate::args::RunArgs;
use crate::failure::{Failure, RunFailure, SetupFailure};
use crate::toolset;

/// The agent: a new run's, or the one the records of a resumed run rebuild; with the
/// setup to state, if any (in the `task` record, or in the `resume` record after a
/// `stop`).
pub fn agent(
    name: &str,
    plan: &setup::Plan,
    records: Option<&Resumable>,
    manifest: Manifest,
    setup: Option<Setup>,
) -> Result<Agent, Failure> {
    let agent = match records {
        None => Agent::with_first_seq(0, &plan.task, plan.budgets.clone(), manifest)
            .map_err(|e| Failure::Setup(SetupFailure::Budgets(e)))?,
        Some(records) => {
            let (agent, _) = records
                .resume(plan.budgets.clone(), manifest)
                .map_err(|error| {
                    Failure::Run(RunFailure::ResumeRefused {
                        name: name.to_owned(),
                        error,
                    })
                })?;
            agent
        }
    };
    match setup {
        None => Ok(agent),
        Some(setup) => agent
            .with_setup(setup)
            .map_err(|e| Failure::Setup(SetupFailure::Setup(e))),
    }
}

/// A new run's plan and tools, with its request and model, and the setup they make.
pub fn new_run(
    args: &RunArgs,
    task: Option<String>,
    name: &str,
    servers: &[McpServer],
    (request, model): (stated::Request, HttpModel),
) -> Result<NewRun, Failure> {
    let plan = setup::new_plan(args, task, name)?;
    let offered = toolset::offer(&args.tools, servers, &plan.limits)?;
    let setup = stated::setup(&request, servers, &offered);
    Ok((plan, offered, request, model, setup))
}

/// What [`new_run`] settles.
pub type NewRun = (
    setup::Plan,
    toolset::Offered,
    stated::Request,
    HttpModel,
    Setup,
);

/// A new run's request (its flags) and the model that asks it.
pub fn new_request(args: &RunArgs, name: &str) -> Result<(stated::Request, HttpModel), Failure> {
    let request = stated::from_flags(args, name, "a new run")?;
    let model = setup::http_model(args, &request)?;
    Ok((request, model))
}
