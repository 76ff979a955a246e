//! jsonschema's side of the "all violations" comparison, shared by the `schema` bench and
//! the `schema_profile` example (included by `#[path]`: jsonschema is a dev-dependency,
//! so it cannot live in the benches library).

use std::hint::black_box;

/// jsonschema's `iter_errors`, turning each error's instance path and message into
/// `String`s, as `validate` builds a path and a message for each violation; returns how
/// many errors there were.
pub fn their_errors(validator: &jsonschema::Validator, instance: &serde_json::Value) -> usize {
    let mut count = 0;
    for error in validator.iter_errors(instance) {
        black_box((error.instance_path().to_string(), error.to_string()));
        count += 1;
    }
    count
}
