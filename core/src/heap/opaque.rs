//! Errors that callers show but do not take apart: a public struct around a private
//! kind enum, so the sentences stay the kind's and its variants stay out of the public
//! surface (issue 29 item 5). The macro that declares them is agentloop-transcript's, the
//! workspace's one way to write them (its anchor error and agentloop-tlog's checkpoint,
//! proof and key errors are such errors too), used here by the same path.

pub(crate) use agentloop_transcript::__private::opaque_error;
