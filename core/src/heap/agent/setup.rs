//! A run's setup in its `task` record (format 2, SPEC section 4 "What a run records"):
//! [`Agent::with_setup`].

use core::fmt;

use super::fit::line_len;
use super::{Agent, RecordKind};
use crate::verify::MAX_LINE_BYTES;
use crate::vocabulary::{Setup, SetupDifference, TaskPayload};

/// Why a setup was not put in the `task` record. The agent is unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupError {
    /// The `task` record was taken already (or the agent continues a transcript): the
    /// setup goes in that record, so it is given before the records are taken.
    TaskTaken,
    /// The setup's tools are not the agent's manifest's, in order (the first
    /// difference: the setup's side, then the manifest's).
    Tools(SetupDifference),
    /// The `task` record would be a line of this many bytes, longer than a verifier
    /// reads ([`MAX_LINE_BYTES`]).
    TooLong(usize),
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::TaskTaken => f.write_str(
                "the task record was taken already; a setup is given before the records are taken",
            ),
            SetupError::Tools(d) => write!(
                f,
                "the setup's tools are not the ones offered: {}: the setup has {}, the manifest {}",
                d.what, d.recorded, d.given
            ),
            SetupError::TooLong(len) => write!(
                f,
                "with its setup the task record would be a line of {len} bytes, longer than a \
                 verifier reads ({MAX_LINE_BYTES})"
            ),
        }
    }
}

impl core::error::Error for SetupError {}

impl Agent {
    /// The same agent, with `setup` recorded in its `task` record (format 2): what
    /// determined the requests, which the host knows and the agent does not (the model,
    /// the endpoint, the system prompt, the request options, where each tool came from).
    /// The setup's tools must be the manifest's, in order ([`Setup::offers`];
    /// [`crate::vocabulary::OfferedTool::from_manifest`] makes them). Given before the
    /// records are taken.
    pub fn with_setup(mut self, setup: Setup) -> Result<Agent, SetupError> {
        if let Some(difference) = setup.offers(&self.manifest) {
            return Err(SetupError::Tools(difference));
        }
        let Some(record) = self
            .records
            .first_mut()
            .filter(|r| r.kind == RecordKind::Task)
        else {
            return Err(SetupError::TaskTaken);
        };
        // The pending payload is the agent's own encode: it decodes.
        let mut task = TaskPayload::decode(&record.payload).map_err(|_| SetupError::TaskTaken)?;
        task.setup = Some(setup);
        let payload = task.encode();
        let len = line_len(RecordKind::Task, record.seq, &payload);
        if len > MAX_LINE_BYTES {
            return Err(SetupError::TooLong(len));
        }
        record.payload = payload;
        Ok(self)
    }
}
