//! A run's setup in its `task` record (format 2, SPEC section 4 "What a run records"):
//! [`Agent::with_setup`].

use alloc::string::String;
use core::fmt;

use super::fit::line_len;
use super::{Agent, RecordKind, State};
use crate::heap::opaque::opaque_error;
use crate::json::Value;
use crate::tools::{Manifest, ToolSpec};
use crate::verify::MAX_LINE_BYTES;
use crate::vocabulary::{
    ResumePayload, Setup, SetupDifference, SetupPayload, SetupReason, TaskPayload,
};

opaque_error! {
    /// Why a setup was not put in the `task` record. The agent is unchanged.
    #[derive(Clone, PartialEq, Eq)]
    pub struct SetupError(SetupErrorKind);
}

/// What [`SetupError`] says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SetupErrorKind {
    /// Neither a `task` record nor the `resume` record of a run resumed after its `stop`
    /// is pending: the setup goes in one of those, so it is given before the records
    /// are taken (a run resumed inside a turn keeps the setup it had).
    TaskTaken,
    /// The setup's tools are not the agent's manifest's, in order (the first
    /// difference: the setup's side, then the manifest's).
    Tools(SetupDifference),
    /// The `task` record would be a line of this many bytes, longer than a verifier
    /// reads ([`MAX_LINE_BYTES`]).
    TooLong(usize),
    /// [`Agent::change_setup`] was called when the agent was not about to ask the model
    /// (inside a turn, or after the run stopped): the setup changes between turns only.
    NotBetweenTurns,
    /// [`Agent::change_setup`]'s manifest gives this tool another call limit than the
    /// `task` record states (or one it does not state): the limits stay those recorded.
    Limit(String),
}

impl fmt::Display for SetupErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupErrorKind::TaskTaken => f.write_str(
                "no task record, and no resume record after a stop, is pending: a setup is \
                 given before the records are taken, and a run resumed inside a turn keeps its \
                 setup",
            ),
            SetupErrorKind::Tools(d) => write!(
                f,
                "the setup's tools are not the ones offered: {}: the setup has {}, the manifest {}",
                d.what, d.recorded, d.given
            ),
            SetupErrorKind::TooLong(len) => write!(
                f,
                "with its setup the task record would be a line of {len} bytes, longer than a \
                 verifier reads ({MAX_LINE_BYTES})"
            ),
            SetupErrorKind::NotBetweenTurns => f.write_str(
                "the setup changes only between turns, when the agent is about to ask the \
                 model (its poll needs a model reply); it is inside a turn or has stopped",
            ),
            SetupErrorKind::Limit(name) => write!(
                f,
                "the new tools give '{}' another call limit than the task record states; \
                 the limits stay those recorded",
                crate::quote::escape_controls(name)
            ),
        }
    }
}

impl Agent {
    /// The same agent, with `setup` recorded in its `task` record (format 2): what
    /// determined the requests, which the host knows and the agent does not (the model,
    /// the endpoint, the system prompt, the request options, where each tool came from).
    /// The setup's tools must be the manifest's, in order ([`Setup::offers`];
    /// [`crate::vocabulary::OfferedTool::from_manifest`] makes them). Given before the
    /// records are taken.
    ///
    /// An agent resumed after a `stop` ([`Agent::resume`]) takes it too: the run then
    /// goes on with another setup, which its pending `resume` record states (the
    /// setup in force from there on).
    pub fn with_setup(mut self, setup: Setup) -> Result<Agent, SetupError> {
        if let Some(difference) = setup.offers(&self.manifest) {
            return Err(SetupErrorKind::Tools(difference).into());
        }
        self.state_setup(setup)?;
        Ok(self)
    }

    /// Puts `setup` in the pending `task` record, or in the pending `resume` record
    /// that is the only record pending; the manifest is not compared (following a
    /// transcript states the setup it recorded).
    pub(crate) fn state_setup(&mut self, setup: Setup) -> Result<(), SetupError> {
        let pending = self.records.len();
        let Some(record) = self.records.first_mut() else {
            return Err(SetupErrorKind::TaskTaken.into());
        };
        // The pending payloads are the agent's own encodes: they decode.
        let payload = match record.kind {
            RecordKind::Task => {
                let mut task =
                    TaskPayload::decode(&record.payload).map_err(|_| SetupErrorKind::TaskTaken)?;
                task.setup = Some(setup);
                task.encode()
            }
            RecordKind::Resume if pending == 1 => {
                let mut resume = ResumePayload::decode(&record.payload)
                    .map_err(|_| SetupErrorKind::TaskTaken)?;
                resume.setup = Some(setup);
                resume.encode()
            }
            _ => return Err(SetupErrorKind::TaskTaken.into()),
        };
        let len = line_len(record.kind, record.seq, &payload);
        if len > MAX_LINE_BYTES {
            return Err(SetupErrorKind::TooLong(len).into());
        }
        record.payload = payload;
        Ok(())
    }
}

impl Agent {
    /// Changes the setup between turns: from the next request on, `manifest`'s tools
    /// are offered, and a `setup` record stating `setup` (its reason `tools_changed`)
    /// is pending, to be taken before the model is asked. Valid only when the agent is
    /// about to ask the model (its poll needs a model reply, none fed yet); poll again
    /// for the request's tools. The setup's tools must be `manifest`'s, in order, as for
    /// [`Agent::with_setup`], and its call limits those the `task` record states (a tool
    /// it names none of has none). Each tool's runs are kept by name (a tool new to the run
    /// has run none); a call to a tool no longer offered is refused as unknown. Budgets,
    /// steps and counts are unchanged. On an error the agent is unchanged.
    pub fn change_setup(&mut self, manifest: Manifest, setup: Setup) -> Result<(), SetupError> {
        if self.state != State::AwaitingReply {
            return Err(SetupErrorKind::NotBetweenTurns.into());
        }
        if let Some(difference) = setup.offers(&manifest) {
            return Err(SetupErrorKind::Tools(difference).into());
        }
        let differs = |name: &&str| manifest.limit(name) != self.tool_limits.get(*name).copied();
        if let Some(name) = manifest.names().find(differs) {
            return Err(SetupErrorKind::Limit(String::from(name)).into());
        }
        self.record_setup(setup)?;
        self.swap_manifest(manifest);
        Ok(())
    }

    /// Writes the `setup` record of `setup` (following a transcript: the manifest is
    /// the caller's to swap), if its line fits.
    pub(crate) fn record_setup(&mut self, setup: Setup) -> Result<(), SetupError> {
        let payload = SetupPayload {
            setup,
            reason: SetupReason::ToolsChanged,
        }
        .encode();
        let len = line_len(RecordKind::Setup, self.next_seq, &payload);
        if len > MAX_LINE_BYTES {
            return Err(SetupErrorKind::TooLong(len).into());
        }
        self.push_record(RecordKind::Setup, payload);
        Ok(())
    }

    /// Offers `manifest` from here on, each tool's runs kept by name (a tool new to it
    /// has run none): following a transcript, the tools of the setup in force.
    pub(crate) fn swap_manifest(&mut self, manifest: Manifest) {
        let runs = manifest
            .names()
            .map(|name| {
                let old = self.manifest.names().position(|n| n == name);
                old.and_then(|i| self.runs.get(i)).copied().unwrap_or(0)
            })
            .collect();
        self.runs = runs;
        self.manifest = manifest;
    }

    /// The manifest `setup`'s tools make, each with the call limit the `task` record
    /// states for its name (`tool_limits`); `None` when one cannot be
    /// registered (then following keeps the host's tools, and differs where they do).
    pub(crate) fn manifest_of(&self, setup: &Setup) -> Option<Manifest> {
        let mut manifest = Manifest::new();
        for tool in &setup.tools {
            let spec = ToolSpec::new(&tool.name, &tool.description, tool.schema.clone());
            let limit = self.tool_limits.get(&tool.name).copied();
            manifest.register_with(spec, limit, tool.idempotent).ok()?;
        }
        Some(manifest)
    }
}

/// The setup a `task`, `resume` or `setup` payload states, if it states one that
/// decodes.
pub(crate) fn stated_setup(kind: RecordKind, payload: &Value) -> Option<Setup> {
    match kind {
        RecordKind::Task => TaskPayload::decode(payload).ok()?.setup,
        RecordKind::Resume => ResumePayload::decode(payload).ok()?.setup,
        RecordKind::Setup => Some(SetupPayload::decode(payload).ok()?.setup),
        _ => None,
    }
}
