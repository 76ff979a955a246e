//! The file export: a verified transcript's records as one `ExportTraceServiceRequest`,
//! each record placed in time by its `seq` (a transcript holds no clock).

use agentloop_core::json::Value;
use agentloop_core::Hash;

use crate::error::MapError;
use crate::mapping::{Content, Entry, Mapping};
use crate::names::{
    AGENTLOOP, SERVICE_NAME, TRANSCRIPT_FIRST, TRANSCRIPT_HEAD, TRANSCRIPT_RECORDS,
};
use crate::otlp::{trace_request, Attributes};

/// Where the file export places a transcript in time: 2000-01-01T00:00:00Z, in unix
/// nanoseconds. Record `seq` is written at `ORIGIN_NANOS + seq × STEP_NANOS`.
pub const ORIGIN_NANOS: u64 = 946_684_800_000_000_000;

/// One step of the file export's time: a millisecond per record.
pub const STEP_NANOS: u64 = 1_000_000;

/// The record `value` read as an [`Entry`], or the error naming its position `index`.
pub fn entry(index: usize, value: &Value) -> Result<Entry<'_>, MapError> {
    let not = || MapError::NotARecord { index };
    let record = value.as_object().ok_or_else(not)?;
    let hash = record.get("hash").and_then(Value::as_str).ok_or_else(not)?;
    let hash = Hash::from_hex(hash.as_bytes()).ok_or_else(not)?;
    let seq = record.get("seq").and_then(Value::as_f64).ok_or_else(not)?;
    // A verified record's seq is an integer from 0 to 2^53 − 1.
    if !(0.0..=9_007_199_254_740_991.0).contains(&seq) || seq as u64 as f64 != seq {
        return Err(not());
    }
    let kind = record.get("kind").and_then(Value::as_str).ok_or_else(not)?;
    let payload = record.get("payload").ok_or_else(not)?;
    Ok(Entry {
        seq: seq as u64,
        hash,
        kind,
        payload,
    })
}

/// The trace of a transcript's records (verified by the caller: the ids are derived
/// from their hashes), as one OTLP/JSON `ExportTraceServiceRequest`: the spans in the
/// order their records end them, under a resource naming the transcript (its first
/// record's hash, its head and its record count). Record `seq` is placed at
/// [`ORIGIN_NANOS`] + `seq` × [`STEP_NANOS`]; the same records always give the same
/// value.
pub fn file_trace(records: &[Value], content: Content) -> Result<Value, MapError> {
    let mut mapping = Mapping::new(content);
    let mut spans = Vec::new();
    let mut head = None;
    for (index, value) in records.iter().enumerate() {
        let entry = entry(index, value)?;
        let at = ORIGIN_NANOS.saturating_add(entry.seq.saturating_mul(STEP_NANOS));
        spans.extend(mapping.push(&entry, at)?);
        head = Some(entry.hash);
    }
    spans.extend(mapping.finish());
    let mut resource = Attributes::default();
    resource.string(SERVICE_NAME, AGENTLOOP);
    if let (Some(first), Some(head)) = (mapping.first(), head) {
        resource.string(TRANSCRIPT_FIRST, first.to_string());
        resource.string(TRANSCRIPT_HEAD, head.to_string());
    }
    resource.int(TRANSCRIPT_RECORDS, records.len() as u64);
    Ok(trace_request(resource, spans))
}
