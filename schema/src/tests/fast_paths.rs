//! The check pass's shortcuts held to its general path: the stateless walk of plain
//! documents (`validate/fast.rs`), chosen at compile time, must give the verdict the
//! general path (forced by [`work::general_path`]) gives, and that the detailed pass's.

use alloc::string::String;
use alloc::vec::Vec;

use super::{compile, json};
use crate::{work, MAX_NESTING};
use agentloop_json::Value;

/// Schemas of every shape the stateless walk takes (`true`: the document is plain) and
/// of shapes it leaves to the general path (`false`).
const SCHEMAS: &[(&str, bool)] = &[
    (r#"{"type":"integer","minimum":1}"#, true),
    (
        r#"{"type":["string","null"],"maxLength":3,"pattern":"^a"}"#,
        true,
    ),
    (r#"{"enum":["a",1,null,{"a":1}]}"#, true),
    (r#"true"#, true),
    (r#"false"#, true),
    (r#"{"anyOf":[{"type":"string"},{"type":"null"}]}"#, true),
    (
        r#"{"anyOf":[{"minLength":2},{"type":"integer"},false]}"#,
        true,
    ),
    (
        r##"{"$defs":{"d":{"anyOf":[{"type":"string"},{"type":"null"}]}},"$ref":"#/$defs/d"}"##,
        true,
    ),
    // A member's own schema that is also a `$ref` target: reached twice, remembered.
    (
        r##"{"properties":{"a":{"minimum":1},"b":{"$ref":"#/properties/a"}}}"##,
        false,
    ),
    (
        r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a","b"],"additionalProperties":false}"#,
        true,
    ),
    (
        r#"{"properties":{"a":{"type":"integer"}},"required":["a","q"],"additionalProperties":false}"#,
        true,
    ),
    (
        r#"{"properties":{"a":{"type":"integer"},"b":{"type":"array"}},"required":["b"],"additionalProperties":{"type":"boolean"},"minProperties":2,"maxProperties":3}"#,
        true,
    ),
    (
        r#"{"type":["object","string","number"],"properties":{"a":{"const":1}},"minLength":2,"maximum":1,"enum":[{"a":1},{"b":2},"a","abc",1,2]}"#,
        true,
    ),
    (
        r#"{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":{"type":"boolean"},"minItems":1,"maxItems":3}"#,
        true,
    ),
    (
        r#"{"type":"array","uniqueItems":true,"items":{"type":["integer","array"]}}"#,
        true,
    ),
    (
        r#"{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"integer"}],"additionalItems":{"type":"string"}}"#,
        true,
    ),
    (
        r##"{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string","enum":["a","b"]}},"properties":{"a":{"$ref":"#/definitions/s"},"b":{"type":["string","null"]}},"additionalProperties":false}"##,
        true,
    ),
    (
        r##"{"$defs":{"o":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}},"type":"array","items":{"anyOf":[{"$ref":"#/$defs/o"},{"type":"string"}]}}"##,
        true,
    ),
    // Recursion through a member or an item: each node is still met once per value.
    (
        r##"{"properties":{"next":{"$ref":"#"},"v":{"type":"integer"}},"minProperties":1}"##,
        true,
    ),
    (
        r##"{"type":"array","items":{"anyOf":[{"$ref":"#"},{"type":"null"}]}}"##,
        true,
    ),
    // Left to the general path.
    (
        r#"{"properties":{"a":{"const":1}},"patternProperties":{"^z":{"type":"string"}}}"#,
        false,
    ),
    (r#"{"propertyNames":{"maxLength":1}}"#, false),
    (r#"{"contains":{"type":"integer"}}"#, false),
    (r#"{"dependentRequired":{"a":["b"]}}"#, false),
    (
        r#"{"anyOf":[{"type":"string"}],"unevaluatedProperties":false}"#,
        false,
    ),
    (r#"{"allOf":[{"type":"string"}]}"#, false),
    (r#"{"properties":{"a":{"not":{"type":"string"}}}}"#, false),
    (
        r##"{"$dynamicAnchor":"n","properties":{"next":{"$dynamicRef":"#n"}}}"##,
        false,
    ),
];

const INSTANCES: &[&str] = &[
    "null",
    "true",
    "0",
    "1",
    "2",
    "2.5",
    r#""""#,
    r#""a""#,
    r#""abc""#,
    r#""abcd""#,
    "[]",
    "[1]",
    r#"[1,"a"]"#,
    r#"[1,"a",true]"#,
    r#"[1,"a",true,false]"#,
    r#"[1,2]"#,
    r#"[[1],[1]]"#,
    r#"[{"x":"y"},"z",{"x":1}]"#,
    r#"[{"x":"y"},null,[[null]]]"#,
    "{}",
    r#"{"a":1}"#,
    r#"{"b":2}"#,
    r#"{"a":1,"b":"x"}"#,
    r#"{"a":1,"b":[]}"#,
    r#"{"a":1,"b":[],"c":true}"#,
    r#"{"a":1,"b":[],"c":true,"d":false}"#,
    r#"{"a":1,"b":[],"c":1}"#,
    r#"{"a":"a","b":null}"#,
    r#"{"a":1,"q":1}"#,
    r#"{"a":1,"z":true}"#,
    r#"{"next":{"next":{"v":1}}}"#,
    r#"{"next":{"next":{"v":1.5}}}"#,
    r#"{"next":{}}"#,
];

/// The verdict of the shortcuts and of the general path, which must also be the
/// detailed pass's.
fn both(s: &crate::Schema, value: &Value, what: &str) -> (bool, bool) {
    let shortcut = s.is_valid(value);
    let general = work::general_path(|| s.is_valid(value));
    assert_eq!(
        general,
        s.validate_detailed(value, "$").is_empty(),
        "{what}: the general path and the detailed pass differ"
    );
    (shortcut, general)
}

#[test]
fn the_stateless_walk_is_taken_for_plain_documents_only() {
    let wrong: Vec<&str> = SCHEMAS
        .iter()
        .filter(|(schema, plain)| compile(schema).tree.plain != *plain)
        .map(|(schema, _)| *schema)
        .collect();
    assert!(wrong.is_empty(), "plain or not, wrongly: {wrong:?}");
}

#[test]
fn the_stateless_walk_agrees_with_the_general_path() {
    let mut differ: Vec<String> = Vec::new();
    for (schema, _) in SCHEMAS {
        let s = compile(schema);
        for instance in INSTANCES {
            let (shortcut, general) = both(&s, &json(instance), instance);
            if shortcut != general {
                differ.push(alloc::format!(
                    "{schema} on {instance}: shortcut {shortcut}, general {general}"
                ));
            }
        }
    }
    assert!(differ.is_empty(), "{differ:#?}");
}

#[test]
fn the_stateless_walk_stops_where_the_general_path_stops() {
    // Two recursive plain documents: a `$ref` alone every level (two schemas a level),
    // and a leaf reached inside an `anyOf` (three a level), around MAX_NESTING.
    let by_ref = compile(r##"{"items":{"$ref":"#"}}"##);
    let by_any = compile(r##"{"type":"array","items":{"anyOf":[{"$ref":"#"},{"type":"null"}]}}"##);
    assert!(by_ref.tree.plain && by_any.tree.plain);
    let nested = |levels: usize| {
        let mut v = Value::Null;
        for _ in 0..levels {
            v = Value::Array(alloc::vec![v]);
        }
        v
    };
    let mut verdicts = Vec::new();
    for (s, per_level) in [(&by_ref, 2), (&by_any, 3)] {
        let around = MAX_NESTING / per_level;
        for levels in around - 3..=around + 3 {
            let value = nested(levels);
            let (shortcut, general) = both(s, &value, "nested");
            assert_eq!(shortcut, general, "{levels} levels, {per_level} a level");
            verdicts.push(shortcut);
            let mut v = value;
            while let Value::Array(mut items) = v {
                v = items.pop().unwrap_or(Value::Null);
            }
        }
    }
    // Both sides of the limit were reached.
    assert!(verdicts.contains(&true) && verdicts.contains(&false));
}
