//! Following the MCP servers' tool lists during a run (docs/mcp.md): before each request
//! to the model, a server that sent `notifications/tools/list_changed` is listed again,
//! the tools are offered again by the rules of the start (`toolset::build`), and when
//! the tools offered differ from the setup in force, the new setup is the driver's to
//! record (a `setup` record before the request that offers them).

use std::collections::BTreeMap;

use agentloop_core::driver::Resumable;
use agentloop_core::tools::Toolbox;
use agentloop_core::vocabulary::Setup;
use agentloop_mcp::McpServer;

use super::stated;
use crate::args::ToolsArgs;
use crate::{diag, toolset};

/// The setup in force at the start: the one this run states, or the one the records
/// of a resumed run leave in force.
pub fn in_force(stated: Option<&Setup>, records: Option<&Resumable>) -> Option<Setup> {
    match (stated, records) {
        (Some(setup), _) => Some(setup.clone()),
        (None, Some(records)) => records.setup().ok().flatten(),
        (None, None) => None,
    }
}

/// What a run needs to offer the tools again.
pub struct Relist<'a> {
    /// The servers, in their order at the start.
    pub servers: Vec<McpServer>,
    /// The setup in force (`None`: a format-1 run, whose tools are not followed).
    pub in_force: Option<Setup>,
    /// The tools' flags.
    pub tools: &'a ToolsArgs,
    /// The request the setup states.
    pub request: &'a stated::Request,
    /// The tools' call limits.
    pub limits: &'a BTreeMap<String, u64>,
}

impl Relist<'_> {
    /// The toolbox and setup from here on, when a server said its list changed and the
    /// tools offered differ from the setup in force; `None` otherwise (a list that
    /// cannot be read again keeps the tools in force, said on stderr).
    pub fn change(&mut self, _current: &Toolbox) -> Option<(Toolbox, Setup)> {
        // Every server's note is looked at (and cleared), not only the first one's.
        let changed = self
            .servers
            .iter()
            .fold(false, |any, server| server.tools_changed() | any);
        let in_force = self.in_force.as_ref()?;
        if !changed {
            return None;
        }
        let offered = match toolset::build(self.tools, &self.servers, self.limits) {
            Ok(offered) => offered,
            Err(failure) => {
                diag::say(format!(
                    "warning: a server said its tools changed, but {failure}; the tools in \
                     force stay offered"
                ));
                return None;
            }
        };
        let setup = stated::setup(self.request, &self.servers, &offered);
        if setup == *in_force {
            return None;
        }
        self.in_force = Some(setup.clone());
        Some((offered.toolbox, setup))
    }
}
