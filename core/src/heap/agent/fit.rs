//! Keeping every record the loop writes within the line limit a verifier enforces
//! ([`MAX_LINE_BYTES`]), so a run always ends with its `stop` record: a reply whose
//! `assistant` record would be longer is a `model_error`, a result whose `tool` record
//! would be is recorded as `ok:false` saying so, and a `stop` record's `error` sentence
//! is cut to fit, saying so.
//!
//! A record's length is counted by encoding it into a byte counter, the way the chain
//! writes it ([`write_body`]), so nothing is copied to measure it.

use alloc::format;
use alloc::string::String;

use super::records;
use crate::anchor::MAX_SEQ;
use crate::hash::Hash;
use crate::jcs::write_str;
use crate::json::Value;
use crate::model::ToolCall;
use crate::quote::{cut_note, cut_to_fit};
use crate::record::{write_body, LINE_PREFIX};
use crate::sink::CountingSink;
use crate::tools::ShownName;
use crate::verify::MAX_LINE_BYTES;
use crate::vocabulary::{RecordKind, ToolPayload};

/// The length of the line of record `(kind, payload)` at `seq`, without its newline:
/// `{"hash":"<64 hex>",` then the hashed body, as `Chain::append` writes it. A payload
/// with no canonical encoding (the loop checks for one before) counts as endless.
pub(crate) fn line_len(kind: RecordKind, seq: u64, payload: &Value) -> usize {
    let mut body = CountingSink::default();
    match write_body(kind.as_str(), payload, &Hash::ZERO, seq, &mut body) {
        Ok(()) => (LINE_PREFIX.len() + 64 + 2).saturating_add(body.count),
        Err(_) => usize::MAX,
    }
}

/// Why the `assistant` record of a turn cannot be written (a `model_error` sentence),
/// if it cannot: its line would pass the limit, or a call's name is so long that the
/// `tool` record answering it could pass the limit even holding only a short `ok:false`
/// sentence ([`too_large_result`]).
pub(crate) fn turn(seq: u64, payload: &Value, calls: &[ToolCall]) -> Result<(), String> {
    let len = line_len(RecordKind::Assistant, seq, payload);
    if len > MAX_LINE_BYTES {
        return Err(format!(
            "the model's reply is too large for one record ({len} bytes, the limit is \
             {MAX_LINE_BYTES})"
        ));
    }
    for (index, call) in calls.iter().enumerate() {
        // The longest record the result of this call may need: the sentence with the
        // most digits, at the last seq.
        let sentence = too_large_result(&call.name, usize::MAX);
        let payload = records::tool(call, &Err(sentence));
        if line_len(RecordKind::Tool, MAX_SEQ, &payload) > MAX_LINE_BYTES {
            return Err(format!(
                "the model's reply cannot be recorded: the name of call {index} ('{}') is {} \
                 bytes, too long for the record of its result (the limit is {MAX_LINE_BYTES})",
                ShownName(&call.name),
                call.name.len()
            ));
        }
    }
    Ok(())
}

/// The `tool` record's payload for `call` and the result it holds: `result` as given,
/// or, when that record would pass the limit, `ok:false` with [`too_large_result`].
pub(crate) fn tool(
    seq: u64,
    call: &ToolCall,
    result: Result<Value, String>,
) -> (Value, Result<Value, String>) {
    // The record owns the result while it is encoded, then gives it back (no copy).
    let record = ToolPayload {
        id: call.id.clone(),
        name: call.name.clone(),
        result,
    };
    let payload = record.encode();
    let len = line_len(RecordKind::Tool, seq, &payload);
    if len <= MAX_LINE_BYTES {
        return (payload, record.result);
    }
    let result = Err(too_large_result(&call.name, len));
    (records::tool(call, &result), result)
}

/// `the result of tool 'x' is too large for one record (N bytes, the limit is L)`, `N`
/// the length of the record's line; a name longer than 64 characters is cut (with `…`).
pub(crate) fn too_large_result(name: &str, len: usize) -> String {
    format!(
        "the result of tool '{}' is too large for one record ({len} bytes, the limit is \
         {MAX_LINE_BYTES})",
        ShownName(name)
    )
}

/// The `stop` record's `error` sentence as it is recorded, when `error` is too long for
/// the record `payload` (holding it) at `seq` to keep to the limit: its first
/// characters and `… (cut: N bytes in all)` ([`cut_to_fit`]), so the record fits
/// exactly or within a character. `None` when it fits; so a cut sentence is not cut
/// again.
pub(crate) fn stop_error(seq: u64, payload: &Value, error: &str) -> Option<String> {
    let len = line_len(RecordKind::Stop, seq, payload);
    let excess = len.checked_sub(MAX_LINE_BYTES).filter(|&e| e > 0)?;
    let room = encoded_len(error)
        .saturating_sub(excess)
        .saturating_sub(cut_note(error.len()).len());
    Some(cut_to_fit(error, room))
}

/// The bytes `text` takes in a canonical JSON string, quotes left out.
fn encoded_len(text: &str) -> usize {
    let mut counter = CountingSink::default();
    let _ = write_str(text, &mut counter);
    counter.count.saturating_sub(2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::Chain;
    use crate::vocabulary::call_id;

    #[test]
    fn the_length_counted_is_the_line_the_chain_writes() {
        let call = ToolCall {
            id: call_id(7, 0),
            name: "add".into(),
            arguments: crate::json::parse(r#"{"a":"\u0001é"}"#.as_bytes()).unwrap(),
        };
        let payload = records::tool(&call, &Ok(Value::from("x\"y")));
        let mut chain = Chain::from_anchor(crate::Anchor {
            seq0: 12345,
            prev0: Hash([9; 32]),
        });
        let line = chain.append("tool", &payload).unwrap();
        assert_eq!(line_len(RecordKind::Tool, 12345, &payload), line.len() - 1);
        assert_eq!(encoded_len("a\"\u{1}é"), 1 + 2 + 6 + 2);
    }

    #[test]
    fn a_cut_error_fits_exactly_and_is_not_cut_again() {
        // Escaped characters among plain ones, so the cut must count encoded bytes.
        let error: String = "ab\u{1}é\"".repeat(MAX_LINE_BYTES / 8);
        let outcome = |error: &str| super::super::Outcome {
            reason: crate::vocabulary::StopReason::ModelError,
            steps: 1,
            tokens: 2,
            unrun_calls: 0,
            tool_calls: 0,
            error: Some(error.into()),
        };
        let payload = records::stop(&outcome(&error));
        let cut = stop_error(5, &payload, &error).unwrap();
        assert!(cut.ends_with(&format!("… (cut: {} bytes in all)", error.len())));
        assert!(error.starts_with(cut.split('…').next().unwrap()));
        let payload = records::stop(&outcome(&cut));
        let len = line_len(RecordKind::Stop, 5, &payload);
        // Kept to the limit, with less than one encoded character (6 bytes) to spare.
        assert!(len <= MAX_LINE_BYTES && len + 6 > MAX_LINE_BYTES, "{len}");
        assert_eq!(stop_error(5, &payload, &cut), None);
    }
}
