//! Empty outputs: the seven outputs that can be empty fit any buffer — a size query with
//! a NULL buffer is `OK` with length 0 — and the same call with something to say is
//! `INSUFFICIENT_SIZE`; the header documents exactly these seven as able to be empty,
//! and docs/c-api.md lists exactly these seven.

use core::ptr::{null, null_mut};

use agentloop::*;

use crate::common;
use common::{query, root, waiting_agent, Agent};

/// The functions whose byte output can be empty, as the header and the guide name them.
const EMPTY_OUTPUTS: [&str; 7] = [
    "agentloop_schema_explain",
    "agentloop_schema_violations",
    "agentloop_tool_explain",
    "agentloop_proof_explain",
    "agentloop_agent_stop_error",
    "agentloop_agent_resume_error",
    "agentloop_agent_request_error",
];

/// The phrase every one of them says in its header comment.
const PHRASE: &str = "even with a NULL buffer";

/// Asserts the empty case answers `OK` with 0 and the other `INSUFFICIENT_SIZE` with a
/// length.
fn empty_then_not(name: &str, empty: (agentloop_result, usize), full: (agentloop_result, usize)) {
    assert_eq!(empty, (agentloop_result::Ok, 0), "{name}: the empty output");
    assert_eq!(
        full.0,
        agentloop_result::InsufficientSize,
        "{name}: a sentence"
    );
    assert!(full.1 > 0 && full.1 != usize::MAX, "{name}: its length");
}

#[test]
fn schema_explanations_and_violations_are_empty_when_nothing_is_wrong() {
    let explain = |schema: &[u8]| {
        // SAFETY: a valid input; a size query.
        query(|b, c, l| unsafe { agentloop_schema_explain(schema.as_ptr(), schema.len(), b, c, l) })
    };
    empty_then_not(
        "agentloop_schema_explain",
        explain(br#"{"type":"object"}"#),
        explain(br#"{"type":5}"#),
    );

    let mut schema = null_mut();
    let text = br#"{"type":"integer"}"#;
    // SAFETY: a valid input and out pointer.
    let r = unsafe { agentloop_schema_new(text.as_ptr(), text.len(), &mut schema) };
    assert_eq!(r, agentloop_result::Ok);
    let violations = |instance: &[u8]| {
        // SAFETY: a live schema and a valid input; a size query.
        query(|b, c, l| unsafe {
            agentloop_schema_violations(schema, instance.as_ptr(), instance.len(), b, c, l)
        })
    };
    empty_then_not(
        "agentloop_schema_violations",
        violations(b"1"),
        violations(b"\"x\""),
    );
    // SAFETY: freed once.
    unsafe { agentloop_schema_free(schema) };
}

#[test]
fn a_tool_that_registers_has_nothing_to_explain() {
    let explain = |name: &str| {
        let schema = br#"{"type":"object"}"#;
        // SAFETY: valid inputs; a size query.
        query(|b, c, l| unsafe {
            agentloop_tool_explain(
                name.as_ptr(),
                name.len(),
                schema.as_ptr(),
                schema.len(),
                b,
                c,
                l,
            )
        })
    };
    empty_then_not("agentloop_tool_explain", explain("ok"), explain("not ok"));
}

#[test]
fn a_proof_that_holds_has_nothing_to_explain() {
    let mut chain = null_mut();
    // SAFETY: a valid out pointer.
    assert_eq!(
        unsafe { agentloop_chain_new(&mut chain) },
        agentloop_result::Ok
    );
    let mut transcript = Vec::new();
    for _ in 0..3 {
        let (mut line, mut len) = (null(), 0);
        // SAFETY: a live chain, valid inputs and outputs; the lent line is copied at once.
        unsafe {
            let r = agentloop_chain_append_borrowed(
                chain,
                b"k".as_ptr(),
                1,
                b"1".as_ptr(),
                1,
                &mut line,
                &mut len,
            );
            assert_eq!(r, agentloop_result::Ok);
            transcript.extend_from_slice(core::slice::from_raw_parts(line, len));
        }
    }
    // SAFETY: freed once.
    unsafe { agentloop_chain_free(chain) };
    let (mut len, mut proof) = (0, vec![0u8; 4096]);
    // SAFETY: valid inputs; a buffer of its length.
    let r = unsafe {
        agentloop_transcript_prove_inclusion(
            transcript.as_ptr(),
            transcript.len(),
            null(),
            0,
            1,
            proof.as_mut_ptr(),
            proof.len(),
            &mut len,
        )
    };
    assert_eq!(r, agentloop_result::Ok);
    proof.truncate(len);
    let explain = |proof: &[u8]| {
        // SAFETY: valid inputs; a size query.
        query(|b, c, l| unsafe {
            agentloop_proof_explain(
                proof.as_ptr(),
                proof.len(),
                null(),
                0,
                null(),
                0,
                null(),
                0,
                b,
                c,
                l,
            )
        })
    };
    empty_then_not(
        "agentloop_proof_explain",
        explain(&proof),
        explain(b"not a proof"),
    );
}

#[test]
fn an_agents_error_sentences_are_empty_until_there_is_an_error() {
    let stop_error = |agent: &Agent| {
        // SAFETY: a live agent; a size query.
        query(|b, c, l| unsafe { agentloop_agent_stop_error(agent.0, b, c, l) })
    };
    let ended = waiting_agent();
    // SAFETY: a live agent and valid inputs.
    let r =
        unsafe { agentloop_agent_feed_reply(ended.0, b"done".as_ptr(), 4, null(), 0, false, 0) };
    assert_eq!(r, agentloop_result::Ok);
    let failed = waiting_agent();
    // SAFETY: a live agent and valid inputs.
    let r = unsafe { agentloop_agent_feed_model_error(failed.0, b"down".as_ptr(), 4) };
    assert_eq!(r, agentloop_result::Ok);
    let mut need = 0;
    for agent in [&ended, &failed] {
        // SAFETY: a live agent and a valid out pointer.
        assert_eq!(
            unsafe { agentloop_agent_poll(agent.0, &mut need) },
            agentloop_result::Ok
        );
        assert_eq!(need, agentloop_need::Done as u32);
    }
    empty_then_not(
        "agentloop_agent_stop_error",
        stop_error(&ended),
        stop_error(&failed),
    );

    let resume_error = |agent: &Agent| {
        // SAFETY: a live agent; a size query.
        query(|b, c, l| unsafe { agentloop_agent_resume_error(agent.0, b, c, l) })
    };
    let mut fresh = null_mut();
    // SAFETY: valid inputs and out pointer.
    let r = unsafe { agentloop_agent_new(b"t".as_ptr(), 1, null(), 0, &mut fresh) };
    assert_eq!(r, agentloop_result::Ok);
    let fresh = Agent(fresh);
    let before = resume_error(&fresh);
    // SAFETY: a live agent and a valid (torn) transcript.
    let r = unsafe {
        agentloop_agent_resume(fresh.0, null(), b"{".as_ptr(), 1, null_mut(), null_mut())
    };
    assert_eq!(r, agentloop_result::DoesNotVerify);
    empty_then_not("agentloop_agent_resume_error", before, resume_error(&fresh));

    let request_error = |agent: &Agent| {
        // SAFETY: a live agent; a size query.
        query(|b, c, l| unsafe { agentloop_agent_request_error(agent.0, b, c, l) })
    };
    let waiting = waiting_agent();
    let before = request_error(&waiting);
    let options = br#"{"max_output_tokens":5}"#;
    let mut len = 0;
    // SAFETY: a live agent, valid inputs; a size query.
    let r = unsafe {
        agentloop_agent_request(
            waiting.0,
            1,
            options.as_ptr(),
            options.len(),
            null_mut(),
            0,
            &mut len,
        )
    };
    assert_eq!(r, agentloop_result::RequestRefused);
    empty_then_not(
        "agentloop_agent_request_error",
        before,
        request_error(&waiting),
    );
}

/// Every function of the header with a caller buffer, and its doc comment.
fn buffer_functions() -> Vec<(String, String)> {
    let header = std::fs::read_to_string(root().join("include/agentloop.h")).unwrap();
    common::declared_functions(&header)
        .into_iter()
        .filter(|f| f.params.contains("out_buf"))
        .map(|f| (f.name, f.comment))
        .collect()
}

#[test]
fn the_header_says_which_outputs_can_be_empty() {
    let functions = buffer_functions();
    assert!(functions.len() > 20, "found only {}", functions.len());
    let mut empty = Vec::new();
    for (name, comment) in &functions {
        // Comments are joined from lines; the phrase may be split across two.
        let words: Vec<&str> = comment.split_whitespace().collect();
        if words.join(" ").contains(PHRASE) {
            empty.push(name.as_str());
        }
    }
    empty.sort_unstable();
    let mut expected = EMPTY_OUTPUTS.to_vec();
    expected.sort_unstable();
    assert_eq!(
        empty, expected,
        "the functions whose header comment says `{PHRASE}`"
    );
}

#[test]
fn the_guide_lists_the_outputs_that_can_be_empty() {
    let guide = std::fs::read_to_string(root().join("docs/c-api.md")).unwrap();
    let at = guide
        .find("the outputs that can be empty:")
        .expect("docs/c-api.md lists the outputs that can be empty");
    let list = &guide[at..at + guide[at..].find(')').unwrap()];
    let mut named: Vec<&str> = list
        .match_indices("`agentloop_")
        .map(|(i, _)| {
            let rest = &list[i + 1..];
            &rest[..rest.find('`').unwrap()]
        })
        .collect();
    named.sort_unstable();
    let mut expected = EMPTY_OUTPUTS.to_vec();
    expected.sort_unstable();
    assert_eq!(named, expected);
}
