//! `run --otlp-endpoint`: the live export's sender, started before the run (a bad URL
//! or header is refused before anything is written), and the records of a resumed
//! transcript mapped into it, so the run's spans join its trace.

use std::time::Duration;

use agentloop_core::driver::Resumable;
use agentloop_otel::{entry, Content, Sender, SenderConfig, Summary};

use crate::args::RunArgs;
use crate::failure::{Failure, SetupFailure};

/// The most spans waiting for the collector; one more is dropped and counted.
const QUEUE: usize = 4096;

/// The sender `--otlp-endpoint` asks for, or `None`.
pub fn start(args: &RunArgs) -> Result<Option<Sender>, Failure> {
    let Some(endpoint) = &args.otlp_endpoint else {
        return Ok(None);
    };
    let headers = args
        .otlp_headers
        .iter()
        .map(|given| header(given))
        .collect::<Result<_, _>>()?;
    let config = SenderConfig {
        endpoint: endpoint.clone(),
        headers,
        timeout: Duration::from_secs(args.otlp_timeout),
        queue: QUEUE,
        content: match args.otlp_content {
            true => Content::Recorded,
            false => Content::Omitted,
        },
    };
    Sender::start(config)
        .map(Some)
        .map_err(|e| Failure::Setup(SetupFailure::Otlp(e)))
}

/// `NAME=VAR`: the header NAME with the value of the variable VAR.
fn header(given: &str) -> Result<(String, String), Failure> {
    let refuse = |why| {
        Failure::Setup(SetupFailure::OtlpHeader {
            given: given.to_owned(),
            why,
        })
    };
    let Some((name, variable)) = given.split_once('=') else {
        return Err(refuse(
            "give the header's name and the variable holding its value, NAME=VAR",
        ));
    };
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(token) {
        return Err(refuse("the header's name is not a valid HTTP header name"));
    }
    let value =
        std::env::var(variable).map_err(|_| refuse("the variable is not set, or not UTF-8"))?;
    if !value
        .bytes()
        .all(|b| b == b'\t' || (0x20..0x7f).contains(&b))
    {
        return Err(refuse(
            "the variable's value has a character a header cannot carry",
        ));
    }
    Ok((name.to_owned(), value))
}

/// The records already in a resumed transcript, mapped (not sent).
pub fn prime(sender: &mut Sender, records: Option<&Resumable>) {
    let Some(records) = records else { return };
    for (index, value) in records.records().iter().enumerate() {
        // The writer verified them: each is a record.
        if let Ok(entry) = entry(index, value) {
            sender.prime(&entry);
        }
    }
}

/// Ends the export and says what it did on stderr.
pub fn finish(sender: Option<Sender>) {
    if let Some(sender) = sender {
        let summary: Summary = sender.finish();
        crate::diag::say(summary);
    }
}
