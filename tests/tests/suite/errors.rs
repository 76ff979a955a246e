//! Every public error type of agentloop-core is a `core::error::Error` (so `?` turns
//! it into a `Box<dyn Error>`, and error reporters can name it): this file does not
//! compile otherwise. A new public error type belongs in the list.

use std::error::Error;

use agentloop_core::{
    agent, anchor, chain, demo, driver, durable, export, jcs, json, merkle, model, note, provider,
    schema, sink, stream, tlog, tools, verify,
};

/// Compiles only for error types that are `core::error::Error`, `Send`, `Sync` and
/// `'static` (what `Box<dyn Error + Send + Sync>` needs).
fn is_error<E: core::error::Error + Send + Sync + 'static>() -> &'static str {
    core::any::type_name::<E>()
}

#[test]
fn every_public_error_type_is_an_error() {
    let names = [
        is_error::<agent::BudgetError>(),
        is_error::<agent::FeedError>(),
        is_error::<agent::ResumeError>(),
        is_error::<agent::TaskError>(),
        is_error::<anchor::AnchorError>(),
        is_error::<chain::AppendError>(),
        is_error::<chain::AppendSerializeError>(),
        is_error::<demo::DemoError>(),
        is_error::<driver::OpenError>(),
        is_error::<driver::RunError>(),
        is_error::<durable::RepairError>(),
        is_error::<durable::WriteError>(),
        is_error::<export::HistoryError>(),
        is_error::<export::ParseRecordsError>(),
        is_error::<jcs::EncodeError>(),
        is_error::<json::DeserializeError>(),
        is_error::<json::ParseError>(),
        is_error::<json::SerializeError>(),
        is_error::<merkle::ProofError>(),
        is_error::<merkle::RangeFull>(),
        is_error::<model::ModelError>(),
        is_error::<note::KeyError>(),
        is_error::<note::NoteError>(),
        is_error::<provider::RequestError>(),
        is_error::<schema::SchemaError>(),
        is_error::<schema::pattern::PatternError>(),
        is_error::<schema::pattern::SyntaxError>(),
        is_error::<sink::BufferFull>(),
        is_error::<sink::SinkError>(),
        is_error::<stream::AppendError>(),
        is_error::<stream::CheckError>(),
        is_error::<tlog::LeafError>(),
        is_error::<tlog::Malformed>(),
        is_error::<tlog::OriginError>(),
        is_error::<tlog::ProofTextError>(),
        is_error::<tools::RegisterError>(),
        is_error::<tools::ToolError>(),
        is_error::<tools::TypedToolError>(),
        is_error::<verify::CheckpointError>(),
    ];
    assert_eq!(names.len(), 39);
}

/// `parse_records` used to give `(usize, ParseError)`, which `?` could not box.
fn first_kind(transcript: &[u8]) -> Result<String, Box<dyn Error + Send + Sync>> {
    let records = export::parse_records(transcript)?;
    let first = records.first().ok_or("no records")?;
    #[derive(serde::Deserialize)]
    struct Line {
        kind: String,
    }
    Ok(json::from_value::<Line>(first)?.kind)
}

#[test]
fn errors_box_with_question_mark_and_name_the_line() {
    let (transcript, _) = demo::answer().run().unwrap();
    assert_eq!(first_kind(&transcript).unwrap(), "task");
    let error = first_kind(b"{\"kind\":\"task\"}\n{\"kind\":\n").unwrap_err();
    assert_eq!(
        error.to_string(),
        "transcript line 2: unexpected end of input at byte 8"
    );
    let error = first_kind(b"{\"kind\":1}\n").unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid type: integer `1`, expected a string at $.kind"
    );
}
