//! A [`Value`] as a record's payload: `agentloop_transcript`'s chain state hashes and
//! writes it in its canonical encoding (the impl lives here, with the type).

use agentloop_transcript::jcs::EncodeError;
use agentloop_transcript::sink::ByteSink;
use agentloop_transcript::stream::{AppendError, CanonicalPayload};

use crate::jcs::write_value;
use crate::{Value, MAX_DEPTH};

/// A value is written in its canonical encoding as it is hashed; a value nested past
/// [`MAX_DEPTH`] (only one built by hand can be) is refused as
/// [`AppendError::TooDeep`], a NaN or infinity as [`AppendError::Payload`].
impl CanonicalPayload for Value {
    fn check(&self) -> Result<Option<usize>, AppendError> {
        if self.deeper_than(MAX_DEPTH) {
            return Err(AppendError::TooDeep { max: MAX_DEPTH });
        }
        Ok(None)
    }

    fn write_canonical<S: ByteSink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        write_value(self, out)
    }
}
