//! Tests of the provider codecs: responses ([`responses`]: real bodies → the exact reply
//! or error sentence), requests ([`requests`]: exact bodies, the pairing rules on the
//! conversations the loop shows its model, refusals) and an API key echoed in an error
//! ([`secrets`]).

mod requests;
mod responses;
mod secrets;

use alloc::string::String;
use alloc::vec::Vec;

use crate::json::{parse, Value};
use crate::model::ProviderReport;

/// A JSON value from its text.
fn json(text: &str) -> Value {
    parse(text.as_bytes()).unwrap()
}

/// A report from its five members.
fn report(
    model: Option<&str>,
    response_id: Option<&str>,
    finish_reason: Option<&str>,
    input_tokens: Option<u64>,
    cached_input_tokens: Option<u64>,
) -> ProviderReport {
    ProviderReport {
        model: model.map(String::from),
        response_id: response_id.map(String::from),
        finish_reason: finish_reason.map(String::from),
        input_tokens,
        cached_input_tokens,
        ..ProviderReport::default()
    }
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap()
}
