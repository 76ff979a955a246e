//! Provider-safe registration: every bad tool name and every root schema that does not
//! describe an object is refused with the rule it broke; the good boundary cases pass.

use alloc::format;
use alloc::string::String;

use super::*;
use crate::json::{parse, Value};

fn spec_with(name: &str, schema: &str) -> ToolSpec {
    ToolSpec::new(name, "d", parse(schema.as_bytes()).unwrap())
}

/// The sentence `Manifest::register` refuses `(name, schema)` with, and that the
/// manifest stayed empty.
fn refused(name: &str, schema: &str) -> String {
    let mut m = Manifest::new();
    let error = m.register(spec_with(name, schema), None).unwrap_err();
    assert!(m.is_empty());
    let mut tb = Toolbox::new();
    let same = tb
        .register(
            FnTool::new(spec_with(name, schema), |a: &Value| Ok(a.clone())),
            ToolOptions::new(),
        )
        .unwrap_err();
    assert_eq!(same, error, "Toolbox and Manifest refuse alike");
    assert!(tb.manifest().is_empty());
    format!("{error}")
}

const OBJECT: &str = r#"{"type":"object"}"#;
const RULE: &str = "(providers accept ^[a-zA-Z0-9_-]{1,64}$)";

#[test]
fn an_empty_name_is_refused_by_the_provider_rule() {
    assert_eq!(
        refused("", OBJECT),
        format!("tool name '' is not provider-safe: it is empty {RULE}")
    );
}

#[test]
fn a_name_with_a_space_is_refused_naming_the_character_and_its_position() {
    assert_eq!(
        refused("my tool", OBJECT),
        format!(
            "tool name 'my tool' is not provider-safe: ' ' at position 2 is not an ASCII \
             letter, digit, '_' or '-' {RULE}"
        )
    );
}

#[test]
fn a_name_with_a_dot_is_refused() {
    assert_eq!(
        refused("multi_tool_use.parallel", OBJECT),
        format!(
            "tool name 'multi_tool_use.parallel' is not provider-safe: '.' at position 14 \
             is not an ASCII letter, digit, '_' or '-' {RULE}"
        )
    );
}

#[test]
fn a_name_with_a_non_ascii_letter_is_refused() {
    assert_eq!(
        refused("café", OBJECT),
        format!(
            "tool name 'café' is not provider-safe: 'é' at position 3 is not an ASCII \
             letter, digit, '_' or '-' {RULE}"
        )
    );
    assert!(refused("a😀", OBJECT).contains("'😀' at position 1 is not"));
    assert!(refused("Ä", OBJECT).contains("'Ä' at position 0 is not"));
}

#[test]
fn a_name_with_a_control_character_is_refused_and_shown_escaped() {
    assert_eq!(
        refused("a\nb", OBJECT),
        format!(
            "tool name 'a\\nb' is not provider-safe: '\\n' at position 1 is not an ASCII \
             letter, digit, '_' or '-' {RULE}"
        )
    );
}

#[test]
fn a_name_longer_than_64_characters_is_refused_with_its_length() {
    let long = "a".repeat(65);
    assert_eq!(
        refused(&long, OBJECT),
        format!(
            "tool name '{}…' is not provider-safe: it is 65 characters long, more than 64 {RULE}",
            &long[..64]
        )
    );
    // A very long name is shown cut, never whole.
    let huge = "b".repeat(10_000);
    let sentence = refused(&huge, OBJECT);
    assert!(
        sentence.contains("it is 10000 characters long"),
        "{sentence}"
    );
    assert!(sentence.len() < 300, "{sentence}");
    assert!(
        sentence.contains(&format!("'{}…'", "b".repeat(64))),
        "{sentence}"
    );
}

#[test]
fn the_good_boundary_names_are_accepted() {
    let mut m = Manifest::new();
    for name in [
        "a".repeat(64).as_str(),
        "-",
        "_",
        "0",
        "9lives",
        "get-weather",
        "Get_Weather-2",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
    ] {
        m.register(spec_with(name, OBJECT), None)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    assert_eq!(m.len(), 8);
}

const ROOT: &str = "providers require a root schema with \"type\": \"object\"";

#[test]
fn a_boolean_root_schema_is_refused() {
    assert_eq!(
        refused("t", "true"),
        format!("tool 't': the root schema is true, which does not describe an object; {ROOT}")
    );
    assert_eq!(
        refused("t", "false"),
        format!("tool 't': the root schema is false, which does not describe an object; {ROOT}")
    );
}

#[test]
fn an_empty_root_schema_is_refused() {
    assert_eq!(
        refused("t", "{}"),
        format!("tool 't': the root schema has no \"type\"; {ROOT}")
    );
}

#[test]
fn a_root_schema_of_another_type_is_refused_naming_it() {
    for (schema, found) in [
        (r#"{"type":"integer"}"#, "\"integer\""),
        (r#"{"type":"array","items":{"type":"string"}}"#, "\"array\""),
        (r#"{"type":"string"}"#, "\"string\""),
        (r#"{"type":"null"}"#, "\"null\""),
    ] {
        assert_eq!(
            refused("t", schema),
            format!("tool 't': the root schema's \"type\" is {found}; {ROOT}"),
        );
    }
}

#[test]
fn a_root_type_list_is_refused_even_when_it_is_only_object() {
    for schema in [r#"{"type":["object"]}"#, r#"{"type":["object","null"]}"#] {
        assert_eq!(
            refused("t", schema),
            format!(
                "tool 't': the root schema's \"type\" is a list, not the string \"object\"; {ROOT}"
            ),
        );
    }
}

#[test]
fn a_root_combinator_without_type_object_is_refused() {
    for schema in [
        r#"{"anyOf":[{"type":"object"},{"type":"null"}]}"#,
        r#"{"oneOf":[{"type":"object"}]}"#,
        r#"{"allOf":[{"type":"object"}]}"#,
        r##"{"$ref":"#/$defs/a","$defs":{"a":{"type":"object"}}}"##,
        r#"{"properties":{"a":{"type":"string"}}}"#,
    ] {
        assert_eq!(
            refused("t", schema),
            format!("tool 't': the root schema has no \"type\"; {ROOT}"),
            "{schema}"
        );
    }
}

#[test]
fn a_root_with_type_object_and_combinators_is_accepted() {
    let mut m = Manifest::new();
    for (name, schema) in [
        ("plain", OBJECT),
        (
            "props",
            r#"{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}"#,
        ),
        (
            "any",
            r#"{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}]}"#,
        ),
        (
            "ref",
            r##"{"type":"object","$ref":"#/$defs/a","$defs":{"a":{"required":["a"]}}}"##,
        ),
        (
            "closed",
            r#"{"type":"object","additionalProperties":false}"#,
        ),
    ] {
        m.register(spec_with(name, schema), None)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    assert_eq!(m.len(), 5);
}

#[test]
fn the_root_rule_comes_before_the_validator() {
    // The root rule does not depend on what the validator supports.
    assert_eq!(
        refused("t", r#"{"type":"dict"}"#),
        format!("tool 't': the root schema's \"type\" is not \"object\"; {ROOT}")
    );
    assert_eq!(
        refused("t", r#"{"type":7}"#),
        format!("tool 't': the root schema's \"type\" is not \"object\"; {ROOT}")
    );
    assert_eq!(
        refused("t", "[]"),
        format!("tool 't': the root schema is not a JSON object; {ROOT}")
    );
    // A valid object root with a bad subschema is the validator's to refuse.
    let mut m = Manifest::new();
    let bad = r#"{"type":"object","properties":{"a":{"type":"dict"}}}"#;
    let error = m.register(spec_with("t", bad), None).unwrap_err();
    assert!(
        matches!(error.0, RegisterErrorKind::Schema { ref tool, .. } if tool == "t"),
        "{error}"
    );
    // And the name comes first of all.
    let error = m.register(spec_with("a b", "true"), None).unwrap_err();
    assert!(matches!(error.0, RegisterErrorKind::Name { .. }), "{error}");
}

#[test]
fn the_rules_are_exposed_as_values() {
    use crate::tools::provider::RootType;
    use crate::tools::{check_name, check_root, NameError, RootError};
    assert_eq!(check_name(""), Err(NameError::Empty));
    assert_eq!(
        check_name("a.b"),
        Err(NameError::Character {
            character: '.',
            position: 1
        })
    );
    assert_eq!(
        check_name(&"x".repeat(65)),
        Err(NameError::TooLong { length: 65 })
    );
    assert_eq!(check_name(&"x".repeat(64)), Ok(()));
    let root = |text: &str| check_root(&parse(text.as_bytes()).unwrap());
    assert_eq!(root("false"), Err(RootError::Boolean(false)));
    assert_eq!(root("1"), Err(RootError::NotAnObject));
    assert_eq!(root("{}"), Err(RootError::NoType));
    assert_eq!(
        root(r#"{"type":"number"}"#),
        Err(RootError::Type(RootType::Number))
    );
    assert_eq!(
        root(r#"{"type":"boolean"}"#),
        Err(RootError::Type(RootType::Boolean))
    );
    assert_eq!(
        root(r#"{"type":["object"]}"#),
        Err(RootError::Type(RootType::List))
    );
    assert_eq!(root(r#"{"type":"object"}"#), Ok(()));
}
