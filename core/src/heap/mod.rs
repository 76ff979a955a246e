//! The alloc layer: values, the parser and encoder of values, the chain, the
//! verifier, checkpoints and notes (the crate agentloop-tlog), schemas, the loop, the provider codecs and exports.
//! Uses `alloc`'s `Vec`, `String` and `BTreeMap`, and the fixed-size layer; no I/O.

pub mod agent;
pub mod audit;
pub mod chain;
#[cfg(feature = "demo")]
pub mod demo;
pub mod driver;
pub mod export;
pub use agentloop_json as json;
pub mod model;
pub use agentloop_tlog::note;
pub(crate) mod opaque;
pub mod provider;
#[doc(hidden)]
pub use agentloop_json::quote;
pub(crate) mod record_log;
pub(crate) mod record_sink;
pub(crate) mod record_value;
#[doc(hidden)]
pub mod redact;
pub use agentloop_schema as schema;
#[cfg(test)]
pub(crate) mod test_cells;
pub use agentloop_tlog as tlog;
pub mod tools;
pub mod verify;
pub mod vocabulary;
