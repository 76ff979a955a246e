//! `agentloop tools`: the tools a run with the same flags would offer, as a provider's
//! or MCP's tool list (`agentloop_core::export`).

use std::collections::BTreeMap;
use std::io::Write;

use agentloop_core::export;

use super::emit;
use crate::args::{ManifestFormat, ToolsListArgs};
use crate::exit::Exit;
use crate::failure::Failure;
use crate::toolset;

/// Starts the servers, registers their tools as `run` does, prints the manifest.
pub fn run(args: &ToolsListArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let options = toolset::options(&args.tools, None)?;
    let servers = toolset::spawn(&args.tools, &options)?;
    let offered = toolset::offer(&args.tools, &servers, &BTreeMap::new())?;
    let specs = offered.toolbox.manifest().specs();
    let manifest = match args.format {
        ManifestFormat::OpenAi => agentloop_core::provider::Provider::OpenAi.tools(specs),
        ManifestFormat::Anthropic => agentloop_core::provider::Provider::Anthropic.tools(specs),
        ManifestFormat::Mcp => export::mcp_tools(specs),
    };
    emit(out, &toolset::line(&manifest))?;
    Ok(Exit::Held)
}
