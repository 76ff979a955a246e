//! The checkpoint text parser (format version 1, `verify --checkpoint FILE`) on arbitrary
//! bytes: never a panic; whatever it accepts writes back as text that reads back to the
//! same checkpoint.
//!
//! The signed checkpoint / note format of the anchors issue gets its own target when
//! it lands (docs/assurance.md).
#![no_main]

use agentloop_core::verify::{Checkpoint, ParseCheckpoint};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match Checkpoint::parse(data) {
        Ok(cp) => {
            let text = cp.to_text();
            assert!(text.ends_with('\n'));
            assert_eq!(Checkpoint::parse(text.as_bytes()), Ok(cp), "{text}");
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
