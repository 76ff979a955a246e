//! OpenTelemetry traces of agentloop runs, following the GenAI semantic conventions
//! ([`SEMCONV`]): a transcript's records as spans in OTLP/JSON — one `invoke_agent`
//! span per run, one `chat` span per turn (`assistant` record), one `execute_tool`
//! span per call (`tool` record) — with trace and span ids derived from the records'
//! hashes, so the same transcript always gives the same trace, and the trace names
//! the transcript it came from. docs/otel.md has the mapping.
//!
//! One mapping ([`Mapping`]) serves two exports: [`file_trace`], a verified
//! transcript's whole trace with each record placed in time by its `seq`, and
//! [`Sender`], a run's spans sent to an OTLP/HTTP collector as its records are written,
//! with the clock's times, never holding the run up.
//!
//! ```
//! use agentloop_core::{demo, export, jcs};
//! use agentloop_otel::{file_trace, Content};
//!
//! let (bytes, _) = demo::answer().run().unwrap();
//! let records = export::parse_records(&bytes).unwrap();
//! let trace = file_trace(&records, Content::Omitted).unwrap();
//! let text = String::from_utf8(jcs::to_vec(&trace).unwrap()).unwrap();
//! assert!(text.contains(r#""name":"invoke_agent agentloop""#));
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod content;
mod error;
mod file;
mod mapping;
mod names;
mod otlp;
mod sender;

pub use error::MapError;
pub use file::{entry, file_trace, ORIGIN_NANOS, STEP_NANOS};
pub use mapping::{Content, Entry, Mapping};
pub use sender::{Sender, SenderConfig, SenderError, Summary};

/// The semantic conventions followed: the GenAI conventions of
/// `open-telemetry/semantic-conventions-genai` (development status) as the Python
/// package `opentelemetry-semantic-conventions` 0.66b2 lists their attributes, on the
/// general conventions v1.41.1 (`error.type`, `server.*`).
pub const SEMCONV: &str = "opentelemetry-semantic-conventions 0.66b2 (GenAI, development)";
