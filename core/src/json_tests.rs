//! Tests of agentloop-json that need this crate's chain and verifier to compare against.

use alloc::vec;

use alloc::string::ToString;

use crate::json::{Value, MAX_DEPTH};

/// `depth` arrays, one inside the other, around `null`.
fn nested(depth: usize) -> Value {
    let mut value = Value::Null;
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    value
}

#[test]
fn a_payload_as_deep_as_serde_data_may_be_makes_a_record_the_verifier_reads() {
    let mut chain = crate::chain::Chain::new();
    let line = chain.append_serialize("deep", &nested(MAX_DEPTH)).unwrap();
    assert!(crate::verify::verify_bytes(line, &crate::verify::Options::default()).ok());
    let error = chain
        .append_serialize("deeper", &nested(MAX_DEPTH + 1))
        .unwrap_err();
    assert!(
        error.to_string().starts_with(
            "the payload cannot be written as JSON: arrays and objects nest deeper than 128 levels"
        ),
        "{error}"
    );
}
