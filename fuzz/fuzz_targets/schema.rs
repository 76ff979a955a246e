//! The schema compiler and validator on arbitrary JSON.
//!
//! Input: a schema document, optionally a 0x00 byte and an instance document (without
//! one, the schema document is also the instance). Asserts: never a panic (nor a
//! stack overflow); compiling is deterministic; validation is deterministic, agrees
//! with `is_valid`, and every violation's path starts at the root it was given.
#![no_main]

use agentloop_core::json;
use agentloop_core::schema::Schema;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (schema_bytes, instance_bytes) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, data),
    };
    let Ok(document) = json::parse(schema_bytes) else {
        return;
    };
    let compiled = Schema::compile(&document);
    assert_eq!(
        Schema::compile(&document),
        compiled,
        "compile is deterministic"
    );
    let schema = match compiled {
        Ok(schema) => schema,
        Err(refusal) => {
            assert!(!refusal.message.is_empty());
            assert!(refusal.pointer.is_empty() || refusal.pointer.starts_with('/'));
            let _ = refusal.to_string();
            return;
        }
    };
    assert_eq!(schema.source(), &document);
    let Ok(instance) = json::parse(instance_bytes) else {
        return;
    };
    let violations = schema.validate(&instance, "$");
    assert_eq!(
        schema.validate(&instance, "$"),
        violations,
        "validate is deterministic"
    );
    assert_eq!(
        schema.is_valid(&instance),
        violations.is_empty(),
        "is_valid vs validate"
    );
    for v in &violations {
        assert!(v.path.starts_with('$'), "{v}");
        assert!(!v.message.is_empty(), "{v}");
    }
    let under_tool = schema.validate(&instance, "$.tool");
    assert_eq!(under_tool.len(), violations.len());
    for (a, b) in under_tool.iter().zip(&violations) {
        assert_eq!(a.path, format!("$.tool{}", &b.path[1..]));
        assert_eq!(a.message, b.message);
    }
});
