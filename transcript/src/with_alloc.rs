//! What the transcript's types do with an allocator (feature `alloc`): a growing `Vec`
//! as a byte sink, as the buffer a record line is assembled in and as the verifier
//! engine's fault list, and a checkpoint's text form. agentloop-core's chain, writers and
//! allocating verifier use them.

use alloc::string::String;
use alloc::vec::Vec;

use crate::checkpoint::Checkpoint;
use crate::jcs::write_u64;

use crate::sink::{BufferFull, ByteSink};
use crate::stream::engine::Faults;
use crate::stream::internals::LineBuf;
use crate::stream::report::FromStreamDetail;
use crate::stream::{Place, StreamFault};

/// A growing buffer: never full.
impl ByteSink for Vec<u8> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), BufferFull> {
        self.extend_from_slice(bytes);
        Ok(())
    }
}

/// A line assembled in a growing buffer: it always has room.
impl LineBuf for Vec<u8> {
    fn start(&mut self, needed: Option<usize>) -> bool {
        self.clear();
        if let Some(needed) = needed {
            self.reserve(needed);
        }
        true
    }

    fn line_mut(&mut self) -> &mut [u8] {
        self
    }
}

/// Every fault kept, each widened to the list's detail type.
impl<D: FromStreamDetail> Faults for Vec<StreamFault<D>> {
    fn kept(&self) -> usize {
        self.len()
    }

    fn keep(&mut self, fault: StreamFault) {
        self.push(fault.into());
    }

    fn place(&mut self, place: Place, fault: StreamFault) {
        let at = place.index(self, &fault);
        self.insert(at, fault.into());
    }
}

impl Checkpoint {
    /// The text form, ending in a newline: `{"count":3,"head":"8428b0…"}` (format
    /// version 1; `head` omitted when there is none). agentloop-core's
    /// `verify::ParseCheckpoint::parse` reads it back.
    pub fn to_text(&self) -> String {
        let mut out = Vec::new();
        out.extend_from_slice(b"{\"count\":");
        // Writing into a Vec cannot fail.
        let _ = write_u64(self.count, &mut out);
        if let Some(head) = self.head {
            out.extend_from_slice(b",\"head\":\"");
            out.extend_from_slice(&head.to_hex());
            out.push(b'"');
        }
        out.extend_from_slice(b"}\n");
        String::from_utf8(out).unwrap_or_default()
    }
}
