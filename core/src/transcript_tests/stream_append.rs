//! Writing a record without an allocator (`stream::write_record`) against the
//! allocating chain (`chain::Chain`): the same lines, the same refusals, and every line
//! written read back by both verifiers.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::stream::{same_as_alloc, SPEC_CHAIN};
use crate::anchor::Anchor;
use crate::chain::Chain;
use crate::fixed::finding::*;
use crate::hash::Hash;
use crate::stream::*;

#[test]
fn write_record_matches_chain_append() {
    let mut chain = Chain::new();
    let mut state = ChainState::new();
    let mut buf = [0u8; 512];
    let mut out = Vec::new();
    for (kind, payload) in [
        ("task", r#"{"task":"add 2 and 40"}"#),
        (
            "assistant",
            r#"{"text":"","tool_calls":[{"arguments":{"a":2,"b":40},"name":"add"}]}"#,
        ),
        ("tool", r#"{"name":"add","ok":true,"value":{"sum":42}}"#),
        ("k\u{1}\"é😀", r#"[1e+21,"\u0000",null,-5e-324]"#),
    ] {
        let len = state.append(&mut buf, kind, payload.as_bytes()).unwrap();
        let expected = chain.append_json(kind, payload.as_bytes()).unwrap();
        assert_eq!(&buf[..len], expected);
        out.extend_from_slice(&buf[..len]);
        assert_eq!(state.head(), chain.head());
    }
    assert!(out.starts_with(SPEC_CHAIN.as_bytes()));
    assert_eq!((state.count(), state.next_seq()), (4, 4));
    assert_eq!(state.anchor(), Anchor::GENESIS);
    assert!(same_as_alloc(&out, StreamOptions::default()).ok());
}

#[test]
fn write_record_refuses_a_line_past_the_limit_before_the_buffer_size() {
    let prev = Hash::ZERO;
    let overhead = write_record(&mut [0u8; 400], "k", b"\"\"", &prev, 0)
        .unwrap()
        .0
        - 1;
    let limit = MAX_LINE_BYTES as usize;
    let fits = limit - overhead;
    let payload = |n: usize| {
        let mut p = vec![b'a'; n + 2];
        p[0] = b'"';
        p[n + 1] = b'"';
        p
    };
    let mut buf = vec![0u8; limit + 1];
    let (len, _) = write_record(&mut buf, "k", &payload(fits), &prev, 0).unwrap();
    assert_eq!(len, limit + 1);
    assert!(same_as_alloc(&buf, StreamOptions::default()).ok());
    // Too long is said whatever the buffer: no buffer would do.
    for cap in [0, 400, limit + 2] {
        let mut buf = vec![0u8; cap];
        assert_eq!(
            write_record(&mut buf, "k", &payload(fits + 1), &prev, 0),
            Err(AppendError::LineTooLong {
                len: limit + 1,
                max: limit
            })
        );
    }
    let mut state = ChainState::new();
    assert_eq!(
        state.append(&mut buf, "k", &payload(fits + 1)),
        Err(AppendError::LineTooLong {
            len: limit + 1,
            max: limit
        })
    );
    assert_eq!(state, ChainState::new());
    assert_eq!(
        format!(
            "{}",
            AppendError::LineTooLong {
                len: limit + 1,
                max: limit
            }
        ),
        "the record's line would be 16777217 bytes, past the line limit of 16777216 \
         bytes: a verifier would refuse it"
    );
}

#[test]
fn write_record_refusals() {
    let mut buf = [0u8; 400];
    let prev = Hash::ZERO;
    assert_eq!(
        write_record(&mut buf, "", b"{}", &prev, 0),
        Err(AppendError::EmptyKind)
    );
    assert_eq!(
        write_record(&mut buf, "k", b"{}", &prev, crate::anchor::MAX_SEQ + 1),
        Err(AppendError::SeqExhausted)
    );
    for payload in [&b"{ }"[..], b"1.0", b"{\"b\":1,\"a\":2}", b"\"\\/\""] {
        match write_record(&mut buf, "k", payload, &prev, 0) {
            Err(AppendError::NotCanonical(e))
                if matches!(e.reason(), CheckReason::Stop(Stop::NotCanonical(_))) => {}
            other => panic!("{}: {other:?}", String::from_utf8_lossy(payload)),
        }
    }
    let e = write_record(&mut buf, "k", b"9007199254740993", &prev, 0).unwrap_err();
    match &e {
        AppendError::NotCanonical(check) => assert_eq!(
            (check.offset(), check.reason()),
            (
                16,
                CheckReason::Unserialisable(NumberProblem::InexactInteger)
            )
        ),
        other => panic!("{other:?}"),
    }
    assert!(format!("{e}").contains("integer literal"));
    let needed = write_record(&mut buf, "k", b"{}", &prev, 7).unwrap().0;
    for small in [0, 1, needed - 1] {
        assert_eq!(
            write_record(&mut buf[..small], "k", b"{}", &prev, 7),
            Err(AppendError::BufferFull { needed })
        );
    }
    assert_eq!(
        write_record(&mut buf[..needed], "k", b"{}", &prev, 7)
            .unwrap()
            .0,
        needed
    );
    let mut state = ChainState::from_anchor(Anchor {
        seq0: crate::anchor::MAX_SEQ,
        prev0: Hash([3; 32]),
    });
    state.append(&mut buf, "k", b"null").unwrap();
    let before = state;
    assert_eq!(
        state.append(&mut buf, "k", b"null"),
        Err(AppendError::SeqExhausted)
    );
    assert_eq!(state, before);
    for e in [
        AppendError::EmptyKind,
        AppendError::SeqExhausted,
        AppendError::BufferFull { needed: 3 },
        AppendError::LineTooLong { len: 3, max: 2 },
    ] {
        assert!(!format!("{e}").is_empty());
    }
}
