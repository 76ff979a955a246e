//! The agentloop verifier on a microcontroller (issue 34): a bare-metal image that
//! appends records with the no-allocation appender (`ChainState::append`) into a buffer
//! standing in for flash, verifies them with the streaming verifier in 16-byte chunks,
//! checks that a copy with one byte changed is refused, and reports the verdict and the
//! stack's high-water mark over semihosting. `.ci/run` builds it for
//! thumbv7em-none-eabihf and thumbv6m-none-eabi, prints its flash and RAM, and runs it
//! under QEMU (docs/embedded.md).
#![no_std]
#![no_main]

mod out;
mod rt;
mod semihosting;

use agentloop_transcript::stream::{ChainState, StreamOptions, StreamReport, StreamVerifier};
use out::Line;

/// The records appended: numbers of every kind the checker treats apart (small
/// integers, decimals, exponents, an integer past 2^53, the smallest subnormal, the
/// largest double).
const RECORDS: [(&str, &[u8]); 4] = [
    ("task", br#"{"task":"log the sensors"}"#),
    (
        "assistant",
        br#"{"text":"","tool_calls":[{"arguments":{"ids":[1,2,40]},"name":"read"}]}"#,
    ),
    (
        "tool",
        br#"{"name":"read","ok":true,"value":{"celsius":[21.5,-0.25,0.000001,1e-7],"counts":[9007199254740992,123456789012345680000,1e+21]}}"#,
    ),
    (
        "note",
        br#"{"edges":[5e-324,1.7976931348623157e+308,-2.2250738585072014e-308,0.1,100]}"#,
    ),
];

/// The transcript's bytes: what a device would keep in flash.
const FLASH_BYTES: usize = 2048;

/// The entry point, called by the reset handler (`rt`).
#[no_mangle]
extern "C" fn firmware_main() -> ! {
    let mut flash = [0u8; FLASH_BYTES];
    let (used, head) = match append_all(&mut flash) {
        Some(appended) => appended,
        None => semihosting::fail(b"agentloop firmware: a record was not appended\n\0"),
    };
    let report = verify(&flash[..used]);
    if !report.ok() || report.count != RECORDS.len() as u64 || report.head != Some(head) {
        semihosting::fail(b"agentloop firmware: the transcript did not verify\n\0");
    }
    let mut line = Line::new();
    line.text("agentloop firmware: ");
    line.number(report.count as u32);
    line.text(" records (");
    line.number(used as u32);
    line.text(" bytes) appended and verified, head ");
    line.bytes(&head.to_hex()[..16]);
    line.end();
    tampered(&mut flash[..used]);
    let mut line = Line::new();
    line.text("stack high-water mark: ");
    line.number(rt::stack_high_water());
    line.text(" of ");
    line.number(rt::stack_room());
    line.text(" bytes");
    line.end();
    semihosting::exit_ok()
}

/// Appends [`RECORDS`] into `flash`, line by line through a stack buffer, and checks that
/// a payload not in canonical form is refused. Returns the bytes used and the head.
/// Not inlined, like [`verify`].
#[inline(never)]
fn append_all(flash: &mut [u8]) -> Option<(usize, agentloop_transcript::hash::Hash)> {
    let mut chain = ChainState::new();
    let mut used = 0;
    for (kind, payload) in RECORDS {
        let mut line = [0u8; 384];
        let len = chain.append(&mut line, kind, payload).ok()?;
        flash
            .get_mut(used..used + len)?
            .copy_from_slice(line.get(..len)?);
        used += len;
    }
    let refused = chain.append(&mut [0u8; 128], "note", br#"{"celsius":1.50}"#);
    refused.is_err().then_some((used, chain.head()))
}

/// Verifies `transcript` in 16-byte chunks, as read from a UART or a flash page. Not
/// inlined, so that its frame (the verifier's state) is not added to its callers'.
#[inline(never)]
fn verify(transcript: &[u8]) -> StreamReport {
    let mut verifier = StreamVerifier::new(StreamOptions::default());
    for chunk in transcript.chunks(16) {
        verifier.push(chunk);
    }
    verifier.finish()
}

/// Changes one digit of the third record's payload and checks that the verifier names
/// that line: the first fault's line is reported. Not inlined, like [`verify`].
#[inline(never)]
fn tampered(transcript: &mut [u8]) {
    let Some(at) = transcript.windows(4).position(|w| w == b"21.5") else {
        semihosting::fail(b"agentloop firmware: no digit to change\n\0");
    };
    transcript[at] = b'3';
    let report = verify(transcript);
    let Some(fault) = report.faults.first().filter(|_| !report.ok()) else {
        semihosting::fail(b"agentloop firmware: a changed transcript verified\n\0");
    };
    let mut line = Line::new();
    line.text("one digit changed: refused, line ");
    line.number(fault.line.unwrap_or(0) as u32);
    line.text(": ");
    line.text(fault.kind.as_str());
    line.end();
    if fault.line != Some(3) {
        semihosting::fail(b"agentloop firmware: the fault is not on line 3\n\0");
    }
}

#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    semihosting::fail(b"agentloop firmware: panic\n\0")
}
