//! The streaming verifier's state size; its tests against the allocating verifier are
//! in agentloop-core (`core/src/transcript_tests/stream.rs`).

use super::*;

#[test]
fn state_size_is_fixed() {
    let size = core::mem::size_of::<StreamVerifier>();
    std::eprintln!("size_of::<StreamVerifier>() = {size} bytes");
    std::eprintln!(
        "size_of::<StreamReport>() = {} bytes, size_of::<StreamFault>() = {} bytes, size_of::<ChainState>() = {} bytes",
        core::mem::size_of::<StreamReport>(),
        core::mem::size_of::<StreamFault>(),
        core::mem::size_of::<ChainState>()
    );
    std::eprintln!(
        "of which: lexer {} bytes, record state {} bytes, fault list {} bytes",
        core::mem::size_of::<lexer::Lexer>(),
        core::mem::size_of::<record::RecordState>(),
        core::mem::size_of::<heapless::Vec<StreamFault, { MAX_FAULTS + 1 }, u8>>()
    );
    assert!(size <= 6144, "{size}");
    assert!(
        size > 2048 + 1088,
        "the tree and the fault list are inside: {size}"
    );
}
