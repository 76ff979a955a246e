//! A tool's `outputSchema`: compiled when the tool is registered, and each successful
//! call's `structuredContent` checked against it (docs/mcp.md, "Output schemas").
//!
//! The specification (server/tools, "Output Schema"): when a tool gives an output
//! schema, servers MUST give structured results that conform to it and clients SHOULD
//! check them. So a result that is not an error (`isError` absent or `false`) and has
//! no `structuredContent`, or one that the schema refuses, fails the call as data. An
//! error result is not checked: it reports a failure, not the tool's output.

use agentloop_core::json::Value;
use agentloop_core::schema::{Schema, Violation};

use crate::content::ToolOutput;

/// The JSON path the violations of a `structuredContent` start from.
const ROOT: &str = "$.structuredContent";

/// Compiles a listed `outputSchema` with core's engine: JSON Schema 2020-12 without
/// `$schema`, 2019-09 or draft-07 when `$schema` names them; anything it cannot honour
/// is refused, as the sentence the tool is skipped with.
pub(crate) fn compile(schema: &Value) -> Result<Schema, String> {
    Schema::compile(schema).map_err(|error| format!("its outputSchema is refused: {error}"))
}

/// Checks `output` against the tool's output `schema`: `Err` is the sentence the call
/// fails with.
pub(crate) fn check(schema: &Schema, output: &ToolOutput) -> Result<(), String> {
    if output.is_error {
        return Ok(());
    }
    let Some(structured) = output
        .value
        .as_object()
        .and_then(|value| value.get("structuredContent"))
    else {
        return Err(String::from(
            "the tool has an outputSchema but its result has no structuredContent",
        ));
    };
    let violations = schema.validate(structured, ROOT);
    if violations.is_empty() {
        return Ok(());
    }
    Err(format!(
        "its structuredContent does not match its outputSchema: {}",
        Violation::list(&violations)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentloop_core::json::parse;

    fn schema(text: &str) -> Schema {
        compile(&parse(text.as_bytes()).unwrap()).unwrap()
    }

    fn output(value: &str, is_error: bool) -> ToolOutput {
        ToolOutput {
            is_error,
            value: parse(value.as_bytes()).unwrap(),
        }
    }

    const N: &str = r#"{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}"#;

    #[test]
    fn a_conforming_result_passes_and_an_error_result_is_not_checked() {
        let n = schema(N);
        assert_eq!(
            check(
                &n,
                &output(r#"{"content":[],"structuredContent":{"n":1}}"#, false)
            ),
            Ok(())
        );
        assert_eq!(check(&n, &output(r#"{"content":[]}"#, true)), Ok(()));
        assert_eq!(
            check(
                &n,
                &output(r#"{"content":[],"structuredContent":{"n":"x"}}"#, true)
            ),
            Ok(())
        );
        // 2026-07-28: structured content may be any JSON value.
        let array = schema(r#"{"type":"array","items":{"type":"string"}}"#);
        assert_eq!(
            check(
                &array,
                &output(r#"{"content":[],"structuredContent":["a"]}"#, false)
            ),
            Ok(())
        );
    }

    #[test]
    fn a_mismatch_or_a_missing_structured_content_is_a_sentence_naming_the_paths() {
        let n = schema(N);
        assert_eq!(
            check(
                &n,
                &output(r#"{"content":[],"structuredContent":{"n":"x"}}"#, false)
            ),
            Err(String::from(
                "its structuredContent does not match its outputSchema: \
                 $.structuredContent.n: expected type integer, got string"
            ))
        );
        assert_eq!(
            check(&n, &output(r#"{"content":[]}"#, false)),
            Err(String::from(
                "the tool has an outputSchema but its result has no structuredContent"
            ))
        );
    }

    #[test]
    fn at_most_ten_violations_are_spelled_out() {
        let strings = schema(r#"{"type":"array","items":{"type":"string"}}"#);
        let items = vec!["1"; 13].join(",");
        let sentence = check(
            &strings,
            &output(
                &format!(r#"{{"content":[],"structuredContent":[{items}]}}"#),
                false,
            ),
        )
        .unwrap_err();
        assert_eq!(
            sentence.matches("expected type string").count(),
            10,
            "{sentence}"
        );
        assert!(
            sentence
                .ends_with("$.structuredContent[9]: expected type string, got integer; and 3 more"),
            "{sentence}"
        );
    }

    #[test]
    fn the_dialect_is_the_schemas_and_one_the_engine_cannot_honour_is_refused() {
        let draft07 = schema(
            r#"{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"]}}"#,
        );
        assert!(check(
            &draft07,
            &output(r#"{"content":[],"structuredContent":{"a":1}}"#, false)
        )
        .is_err());
        let refused =
            compile(&parse(br#"{"$schema":"http://json-schema.org/draft-04/schema#"}"#).unwrap());
        assert!(refused
            .unwrap_err()
            .starts_with("its outputSchema is refused: "));
    }
}
