//! Builds agentloop-core, and agentloop-transcript, agentloop-json, agentloop-schema and
//! agentloop-tlog on their own,
//! without std: `cargo build`
//! (no allocator),
//! `cargo build --features alloc` (with a global allocator of our own), and
//! `--features serde` / `--features schemars` (serde, schemars and serde_json
//! without std).
#![no_std]

use agentloop_core::hash::Hash;
use agentloop_core::jcs;
use agentloop_core::sink::SliceSink;
use agentloop_core::stream::{ChainState, StreamOptions, StreamVerifier};

/// Encodes a string canonically into a fixed buffer: the no-alloc layer in use.
pub fn canonical_string(s: &str, out: &mut [u8]) -> Option<usize> {
    let mut sink = SliceSink::new(out);
    jcs::write_str(s, &mut sink).ok()?;
    Some(sink.len())
}

/// Parses a hash: the no-alloc layer in use.
pub fn parse_hash(hex: &[u8]) -> Option<Hash> {
    Hash::from_hex(hex)
}

/// Appends one record into a stack buffer without an allocator, then verifies the
/// line with the streaming verifier fed one byte at a time: the no-alloc layer in use.
/// Returns the record count, or `None` if anything failed.
pub fn append_and_verify(payload: &[u8]) -> Option<u64> {
    let mut chain = ChainState::new();
    let mut line = [0u8; 512];
    let len = chain.append(&mut line, "task", payload).ok()?;
    let mut verifier = StreamVerifier::new(StreamOptions::default());
    for byte in line.get(..len)?.chunks(1) {
        verifier.push(byte);
    }
    let report = verifier.finish();
    (report.ok() && report.head == Some(chain.head())).then_some(report.count)
}

/// The transcript crate alone, as a user who wants only the chain and the verifier
/// depends on it: a record appended into a stack buffer and verified. Returns the record
/// count, or `None` if anything failed.
pub fn transcript_alone(payload: &[u8]) -> Option<u64> {
    use agentloop_transcript::stream;
    let mut chain = stream::ChainState::new();
    let mut line = [0u8; 512];
    let len = chain.append(&mut line, "note", payload).ok()?;
    let mut verifier = stream::StreamVerifier::new(stream::StreamOptions::default());
    verifier.push(line.get(..len)?);
    let report = verifier.finish();
    (report.ok() && report.head == Some(chain.head())).then_some(report.count)
}

#[cfg(feature = "alloc")]
mod with_alloc {
    extern crate alloc;

    use core::alloc::{GlobalAlloc, Layout};

    /// Appends one record with the allocating layer, returning the line length.
    pub fn append_one() -> Option<usize> {
        let mut chain = agentloop_core::chain::Chain::new();
        chain
            .append_json("task", b"{\"task\":\"x\"}")
            .ok()
            .map(<[u8]>::len)
    }

    /// The JSON crate alone, as a user who wants values but not the loop depends on it:
    /// a value parsed and encoded canonically, returning the encoding's length.
    pub fn json_alone(text: &[u8]) -> Option<usize> {
        let value = agentloop_json::parse(text).ok()?;
        agentloop_json::jcs::to_vec(&value)
            .ok()
            .map(|bytes| bytes.len())
    }

    /// The schema crate alone: a schema with a pattern compiled and applied, returning
    /// the number of violations.
    pub fn schema_alone(schema: &[u8], instance: &[u8]) -> Option<usize> {
        let schema =
            agentloop_schema::Schema::compile(&agentloop_json::parse(schema).ok()?).ok()?;
        let instance = agentloop_json::parse(instance).ok()?;
        Some(schema.validate(&instance, "$").len())
    }

    /// The tlog crate alone: a transcript verified and its checkpoint made and read
    /// back, returning the checkpoint's record count.
    pub fn tlog_alone(transcript: &[u8]) -> Option<u64> {
        let report =
            agentloop_tlog::verify::verify_bytes(transcript, &agentloop_tlog::verify::Options::default());
        let text = agentloop_tlog::make_checkpoint(&report, None, None).ok()?;
        let read = agentloop_tlog::read_checkpoint(text.as_bytes()).ok()?;
        Some(read.checkpoint().count)
    }

    /// Runs the demo's first scenario — the agent loop, its scripted model and tools,
    /// the schema validator and the chain — returning the transcript's length.
    pub fn run_demo() -> Option<usize> {
        let (transcript, _) = agentloop_core::demo::answer().run().ok()?;
        Some(transcript.len())
    }

    /// An allocator that never allocates: enough to link, never meant to run.
    struct NoHeap;

    // SAFETY: `alloc` returns null (allowed: allocation failure) and `dealloc` is only
    // ever given pointers this allocator returned, of which there are none.
    unsafe impl GlobalAlloc for NoHeap {
        unsafe fn alloc(&self, _layout: Layout) -> *mut u8 {
            core::ptr::null_mut()
        }
        unsafe fn dealloc(&self, _ptr: *mut u8, _layout: Layout) {}
    }

    #[global_allocator]
    static ALLOCATOR: NoHeap = NoHeap;
}

#[cfg(feature = "alloc")]
pub use with_alloc::{append_one, json_alone, run_demo, schema_alone, tlog_alone};

/// The `serde` feature without std: serde data appended and read back.
#[cfg(feature = "serde")]
pub fn append_serialized() -> Option<usize> {
    extern crate alloc;
    use alloc::collections::BTreeMap;
    let payload = BTreeMap::from([("task", "x")]);
    let mut chain = agentloop_core::chain::Chain::new();
    let len = chain.append_serialize("task", &payload).ok()?.len();
    let value = agentloop_core::json::to_value(&payload).ok()?;
    let back: BTreeMap<&str, &str> = agentloop_core::json::from_value(&value).ok()?;
    (back == payload).then_some(len)
}

/// The `schemars` feature without std: a typed tool registered.
#[cfg(feature = "schemars")]
pub fn register_typed_tool() -> Option<usize> {
    extern crate alloc;
    use agentloop_core::tools::{ToolOptions, Toolbox, TypedTool};
    use alloc::collections::BTreeMap;
    use alloc::string::String;
    let tool = TypedTool::new("count", "Counts the members", |m: BTreeMap<String, f64>| {
        Ok(m.len())
    })
    .ok()?;
    let mut toolbox = Toolbox::new();
    toolbox.register(tool, ToolOptions::new()).ok()?;
    Some(toolbox.manifest().len())
}

#[cfg(not(test))]
#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}
