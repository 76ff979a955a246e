//! The language beyond the first subset: each applicator and assertion with its
//! sentence and path, references by anchor, `$id` and dynamic scope, and the older
//! drafts' forms.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{compile, one, refused, valid, violations};
use crate::{Draft, MAX_DYNAMIC_SCOPES};

#[test]
fn multiple_of_is_exact_on_the_decimals_written() {
    assert!(valid(r#"{"multipleOf":0.0001}"#, "0.0075"));
    assert!(valid(r#"{"multipleOf":0.01}"#, "19.99"));
    assert!(valid(r#"{"multipleOf":0.5}"#, "1e308"));
    one(
        r#"{"multipleOf":0.01}"#,
        "0.015",
        "$: expected a multiple of 0.01, got 0.015",
    );
    assert!(
        valid(r#"{"multipleOf":2}"#, r#""3""#),
        "not a number: ignored"
    );
}

#[test]
fn patterns_search_and_say_what_they_wanted() {
    assert!(valid(r#"{"pattern":"b+"}"#, r#""abbc""#));
    one(
        r#"{"pattern":"^[a-z]+$"}"#,
        r#""Ab""#,
        r#"$: expected a string matching the pattern "^[a-z]+$", got "Ab""#,
    );
    // ECMA-262's \d is ASCII: a Bengali digit is no digit.
    assert!(!valid(r#"{"pattern":"^\\d$"}"#, "\"\u{09EA}\""));
    // The classic catastrophic pattern is linear here.
    let input = format!("\"{}!\"", "a".repeat(50));
    assert!(!valid(r#"{"pattern":"^(a+)+$"}"#, &input));
}

#[test]
fn one_of_not_and_if_say_which_rule_broke() {
    let schema = r#"{"oneOf":[{"type":"integer"},{"minimum":2}]}"#;
    assert!(valid(schema, "1"));
    assert!(valid(schema, "2.5"));
    one(
        schema,
        "3",
        "$: expected to match exactly one of 2 alternatives, matched more: alternatives 0 and 1",
    );
    one(
        schema,
        "1.5",
        "$: expected to match exactly one of 2 alternatives, matched none",
    );
    one(
        r#"{"not":{"type":"string"}}"#,
        r#""x""#,
        "$: expected not to match the schema under 'not'",
    );
    let schema = r#"{"if":{"properties":{"kind":{"const":"a"}}},"then":{"required":["a"]},"else":{"required":["b"]}}"#;
    one(
        schema,
        r#"{"kind":"a"}"#,
        "$: missing required property 'a'",
    );
    one(
        schema,
        r#"{"kind":"z"}"#,
        "$: missing required property 'b'",
    );
    assert!(valid(schema, r#"{"kind":"a","a":1}"#));
    // `then` without `if` means nothing.
    assert!(valid(r#"{"then":false}"#, "1"));
    // allOf reports its subschemas' own violations.
    assert_eq!(
        violations(r#"{"allOf":[{"minimum":5},{"multipleOf":2}]}"#, "3"),
        [
            "$: expected a value >= 5, got 3",
            "$: expected a multiple of 2, got 3"
        ]
    );
}

#[test]
fn object_keywords() {
    one(
        r#"{"minProperties":2}"#,
        r#"{"a":1}"#,
        "$: expected at least 2 properties, got 1",
    );
    one(
        r#"{"maxProperties":1}"#,
        r#"{"a":1,"b":2}"#,
        "$: expected at most 1 property, got 2",
    );
    one(
        r#"{"dependentRequired":{"card":["cvv"]}}"#,
        r#"{"card":"x"}"#,
        "$: missing property 'cvv', required when 'card' is present",
    );
    let schema = r#"{"dependentSchemas":{"card":{"required":["cvv"]}}}"#;
    one(
        schema,
        r#"{"card":"x"}"#,
        "$: missing required property 'cvv'",
    );
    assert!(valid(schema, r#"{"cvv":1}"#));
    one(
        r#"{"propertyNames":{"maxLength":3}}"#,
        r#"{"abcd":1,"ab":2}"#,
        "$.abcd: property name 'abcd' does not match the schema under 'propertyNames'",
    );
    let schema = r#"{"properties":{"a":{"type":"integer"}},"patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}"#;
    assert_eq!(
        violations(schema, r#"{"a":"1","x-b":2,"c":3}"#),
        [
            "$.a: expected type integer, got string",
            "$.c: not allowed: additional property 'c'",
            "$['x-b']: expected type string, got integer"
        ]
    );
    // A property both named and matched gets both schemas.
    assert!(!valid(
        r#"{"properties":{"xa":{"type":"string"}},"patternProperties":{"^x":{"maxLength":1}}}"#,
        r#"{"xa":"ab"}"#
    ));
}

#[test]
fn array_keywords() {
    let schema = r#"{"prefixItems":[{"type":"integer"},{"type":"string"}],"items":false}"#;
    assert!(valid(schema, r#"[1,"a"]"#));
    assert!(valid(schema, "[1]"));
    one(
        schema,
        r#"[1,"a",null]"#,
        "$[2]: not allowed: array items (the items schema is false)",
    );
    one(
        r#"{"contains":{"type":"integer"}}"#,
        r#"["a"]"#,
        "$: expected at least 1 item matching 'contains', got 0",
    );
    let schema = r#"{"contains":{"type":"integer"},"minContains":2,"maxContains":3}"#;
    one(
        schema,
        r#"[1,"a"]"#,
        "$: expected at least 2 items matching 'contains', got 1",
    );
    one(
        schema,
        "[1,2,3,4]",
        "$: expected at most 3 items matching 'contains', got 4",
    );
    assert!(valid(r#"{"contains":false,"minContains":0}"#, "[1]"));
    one(
        r#"{"uniqueItems":true}"#,
        r#"[1,{"a":[2]},1.0]"#,
        "$: expected unique items, but items 0 and 2 are equal",
    );
    // A long array takes the sorted path: the same first pair, by the second item.
    let mut items: Vec<String> = (0..40).map(|i| format!("{i}")).collect();
    items[30] = String::from("{\"b\":1,\"a\":0}");
    items[35] = String::from("{\"a\":0,\"b\":1}");
    items[39] = String::from("3");
    let long = format!("[{}]", items.join(","));
    one(
        r#"{"uniqueItems":true}"#,
        &long,
        "$: expected unique items, but items 30 and 35 are equal",
    );
    assert!(valid(
        r#"{"uniqueItems":true}"#,
        "[0,false,null,\"0\",[0],{}]"
    ));
}

#[test]
fn unevaluated_keywords_see_through_what_held() {
    let schema = r#"{"allOf":[{"properties":{"a":true}}],"anyOf":[{"properties":{"b":true},"required":["b"]},{"properties":{"c":true},"required":["zz"]}],"unevaluatedProperties":false}"#;
    assert!(valid(schema, r#"{"a":1,"b":2}"#));
    // `c` is named only by an alternative that failed: unevaluated.
    assert_eq!(
        violations(schema, r#"{"a":1,"b":2,"c":3}"#),
        ["$.c: not allowed: unevaluated property 'c'"]
    );
    let schema = r#"{"allOf":[{"prefixItems":[true]}],"unevaluatedItems":{"type":"string"}}"#;
    assert!(valid(schema, r#"[1,"a"]"#));
    one(schema, "[1,2]", "$[1]: expected type string, got integer");
    // Through a reference, and through an if that held.
    let schema = r##"{"$defs":{"n":{"properties":{"name":true}}},"$ref":"#/$defs/n","if":{"properties":{"k":true}},"unevaluatedProperties":false}"##;
    assert!(valid(schema, r#"{"name":1,"k":2}"#));
    one(
        schema,
        r#"{"name":1,"z":2}"#,
        "$.z: not allowed: unevaluated property 'z'",
    );
    let e = refused(
        r#"{"$schema":"https://json-schema.org/draft/2019-09/schema","unevaluatedProperties":1}"#,
    );
    assert_eq!(e.pointer, "/unevaluatedProperties");
}

#[test]
fn references_by_anchor_id_and_dynamic_scope() {
    let schema = r##"{"$defs":{"pos":{"$anchor":"positive","minimum":0}},"$ref":"#positive"}"##;
    one(schema, "-1", "$: expected a value >= 0, got -1");
    // An embedded resource, named relative to the document's base URI.
    let schema = r#"{"$id":"https://example.com/root.json","$defs":{"a":{"$id":"item.json","type":"integer"}},"items":{"$ref":"item.json"}}"#;
    one(
        schema,
        r#"[1,"x"]"#,
        "$[1]: expected type integer, got string",
    );
    // The spec's generic list: the outermost resource's dynamic anchor wins.
    let schema = r##"{
        "$id": "https://example.com/strings",
        "$ref": "list",
        "$defs": {
            "item": {"$dynamicAnchor": "item", "type": "string"},
            "list": {
                "$id": "list",
                "type": "array",
                "items": {"$dynamicRef": "#item"},
                "$defs": {"item": {"$dynamicAnchor": "item"}}
            }
        }
    }"##;
    assert!(valid(schema, r#"["a","b"]"#));
    one(
        schema,
        r#"["a",1]"#,
        "$[1]: expected type string, got integer",
    );
    // The list alone accepts anything as an item.
    let list = r##"{"$id":"https://example.com/list","type":"array","items":{"$dynamicRef":"#item"},"$defs":{"item":{"$dynamicAnchor":"item"}}}"##;
    assert!(valid(list, r#"["a",1]"#));
}

/// A document of `resources` resources each declaring dynamic anchors `a`, `b`, `c`,
/// with a dynamic reference to each name.
fn dynamic_document(resources: usize) -> String {
    let defs: Vec<String> = (0..resources)
        .map(|i| {
            format!(
                r#""r{i}":{{"$id":"r{i}","$defs":{{"a":{{"$dynamicAnchor":"a"}},"b":{{"$dynamicAnchor":"b"}},"c":{{"$dynamicAnchor":"c"}}}}}}"#
            )
        })
        .collect();
    let refs = r##"{"$dynamicRef":"r0#a"},{"$dynamicRef":"r0#b"},{"$dynamicRef":"r0#c"}"##;
    format!(
        r##"{{"$id":"https://example.com/","$defs":{{{}}},"allOf":[{refs}]}}"##,
        defs.join(",")
    )
}

#[test]
fn dynamic_scopes_are_bounded() {
    // Each name is bound by none of the resources or by one: (n + 1)^3 scopes.
    // 16^3 = 4096 is the bound itself; 17^3 = 4913 is past it.
    compile(&dynamic_document(15));
    let e = refused(&dynamic_document(16));
    assert!(e.message.contains(&format!("{MAX_DYNAMIC_SCOPES}")), "{e}");
}

#[test]
fn draft_07_forms_keep_their_meaning() {
    let d7 = r#""$schema":"http://json-schema.org/draft-07/schema#""#;
    let schema = compile(&format!(r#"{{{d7}}}"#));
    assert_eq!(schema.draft(), Draft::Draft7);
    // `$ref` hides its siblings.
    let schema = format!(
        r##"{{{d7},"definitions":{{"s":{{"type":"string"}}}},"properties":{{"a":{{"$ref":"#/definitions/s","maxLength":1}}}}}}"##
    );
    assert!(valid(&schema, r#"{"a":"long"}"#));
    one(
        &schema,
        r#"{"a":1}"#,
        "$.a: expected type string, got integer",
    );
    // `items` as an array is positional; `additionalItems` covers the rest.
    let schema =
        format!(r#"{{{d7},"items":[{{"type":"integer"}}],"additionalItems":{{"type":"string"}}}}"#);
    assert!(valid(&schema, r#"[1,"a","b"]"#));
    one(&schema, "[1,2]", "$[1]: expected type string, got integer");
    // `dependencies`, both forms.
    let schema = format!(r#"{{{d7},"dependencies":{{"a":["b"],"c":{{"required":["d"]}}}}}}"#);
    one(
        &schema,
        r#"{"a":1}"#,
        "$: missing property 'b', required when 'a' is present",
    );
    one(&schema, r#"{"c":1}"#, "$: missing required property 'd'");
    // A draft-07 `$id: "#name"` is an anchor.
    let schema = format!(
        r##"{{{d7},"definitions":{{"n":{{"$id":"#num","type":"number"}}}},"$ref":"#num"}}"##
    );
    assert!(!valid(&schema, r#""x""#));
}

#[test]
fn draft_2019_09_recursive_references() {
    let schema = r##"{
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "$id": "https://example.com/tree",
        "$recursiveAnchor": true,
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$recursiveRef": "#"}}}
    }"##;
    assert!(valid(schema, r#"{"children":[{"children":[]}]}"#));
    one(
        schema,
        r#"{"children":[{"children":[1]}]}"#,
        "$.children[0].children[0]: expected type object, got integer",
    );
}

#[test]
fn format_and_content_are_annotations() {
    assert!(valid(r#"{"format":"email"}"#, r#""not an email""#));
    assert!(valid(
        r#"{"contentMediaType":"application/json","contentSchema":{"type":"integer"}}"#,
        r#""{}""#
    ));
}
