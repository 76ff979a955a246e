//! The declaration of the crate's errors that callers show but do not take apart
//! (checkpoint, proof, note and key errors): agentloop-transcript's `opaque_error`, the
//! workspace's one way to write them.

pub(crate) use agentloop_transcript::__private::opaque_error;
