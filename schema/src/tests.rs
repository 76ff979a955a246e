//! Unit tests of the schema validator: every keyword accepted and rejected, every
//! refusal, paths, order, and the bounds on work and nesting.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::tree::Node;
use super::{work, Schema, SchemaError, Violation, MAX_NESTING};
use agentloop_json::{parse, Object, Value};

mod cost;
mod fast_paths;
mod language;

fn json(text: &str) -> Value {
    parse(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn compile(schema: &str) -> Schema {
    Schema::compile(&json(schema)).unwrap_or_else(|e| panic!("{schema} refused: {e}"))
}

fn refused(schema: &str) -> SchemaError {
    match Schema::compile(&json(schema)) {
        Err(e) => e,
        Ok(_) => panic!("{schema} was accepted"),
    }
}

/// The violations of `instance` against `schema` as `path: message` lines, checking that
/// the check pass (`is_valid`) and the detailed pass alone give the same verdict, and
/// that `validate` (the check pass first) lists what the detailed pass alone lists.
fn violations(schema: &str, instance: &str) -> Vec<String> {
    let compiled = compile(schema);
    let value = json(instance);
    let found: Vec<String> = compiled
        .validate(&value, "$")
        .iter()
        .map(Violation::to_string)
        .collect();
    let detailed = compiled.validate_detailed(&value, "$");
    assert_eq!(
        compiled.is_valid(&value),
        detailed.is_empty(),
        "the check pass disagrees with the detailed pass for {schema} / {instance}: {detailed:?}"
    );
    assert_eq!(
        compiled.validate(&value, "$"),
        detailed,
        "{schema} / {instance}"
    );
    found
}

fn valid(schema: &str, instance: &str) -> bool {
    violations(schema, instance).is_empty()
}

/// Asserts exactly one violation, with this text.
fn one(schema: &str, instance: &str, expected: &str) {
    assert_eq!(
        violations(schema, instance),
        [expected],
        "{schema} / {instance}"
    );
}

#[test]
fn spec_example() {
    let schema = compile(
        r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}"#,
    );
    let found = schema.validate(&json(r#"{"a":"2","b":40}"#), "$.add");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].to_string(),
        "$.add.a: expected type integer, got string"
    );
    assert_eq!(found[0].path, "$.add.a");
    assert!(schema
        .validate(&json(r#"{"a":2,"b":40}"#), "$.add")
        .is_empty());
    let missing = schema.validate(&json(r#"{"a":2}"#), "$.add");
    assert_eq!(
        missing[0].to_string(),
        "$.add: missing required property 'b'"
    );
}

#[test]
fn type_single_and_list() {
    one(
        r#"{"type":"string"}"#,
        "1",
        "$: expected type string, got integer",
    );
    one(
        r#"{"type":"string"}"#,
        "1.5",
        "$: expected type string, got number",
    );
    assert!(valid(r#"{"type":"string"}"#, r#""x""#));
    one(
        r#"{"type":["integer","null"]}"#,
        r#""x""#,
        "$: expected type one of integer, null, got string",
    );
    assert!(valid(r#"{"type":["integer","null"]}"#, "null"));
    assert!(valid(r#"{"type":["integer","null"]}"#, "3"));
    one(
        r#"{"type":["integer"]}"#,
        "[]",
        "$: expected type integer, got array",
    );
    for (t, ok, bad) in [
        ("null", "null", "false"),
        ("boolean", "false", "0"),
        ("object", "{}", "[]"),
        ("array", "[]", "{}"),
        ("number", "1.5", "\"1\""),
        ("integer", "7", "7.5"),
        ("string", "\"\"", "null"),
    ] {
        let schema = format!(r#"{{"type":"{t}"}}"#);
        assert!(valid(&schema, ok), "{t} accepts {ok}");
        assert!(!valid(&schema, bad), "{t} refuses {bad}");
    }
}

#[test]
fn integers_and_booleans_the_2020_12_way() {
    assert!(valid(r#"{"type":"integer"}"#, "1.0"));
    assert!(valid(r#"{"type":"integer"}"#, "-0"));
    assert!(valid(r#"{"type":"integer"}"#, "1e300"));
    assert!(!valid(r#"{"type":"integer"}"#, "1.000001"));
    one(
        r#"{"type":"integer"}"#,
        "true",
        "$: expected type integer, got boolean",
    );
    one(
        r#"{"type":"number"}"#,
        "true",
        "$: expected type number, got boolean",
    );
    assert!(!valid(r#"{"type":"boolean"}"#, "1"));
    // Booleans are not numbers for enum/const either.
    assert!(!valid(r#"{"const":1}"#, "true"));
    assert!(!valid(r#"{"enum":[0]}"#, "false"));
}

#[test]
fn enum_and_const_use_json_equality() {
    assert!(valid(r#"{"enum":[1,2,3]}"#, "1.0"));
    one(
        r#"{"enum":[1,2,3]}"#,
        "4",
        "$: expected one of [1,2,3], got 4",
    );
    assert!(valid(
        r#"{"enum":[{"a":1,"b":[1,2]}]}"#,
        r#"{"b":[1.0,2],"a":1}"#
    ));
    assert!(!valid(
        r#"{"enum":[{"a":1,"b":[1,2]}]}"#,
        r#"{"b":[2,1],"a":1}"#
    ));
    assert!(!valid(r#"{"enum":[{"a":1}]}"#, r#"{"a":1,"b":2}"#));
    assert!(valid(r#"{"enum":[null,"x"]}"#, "null"));
    // An empty enum is valid per the meta-schema; nothing matches it.
    one(r#"{"enum":[]}"#, "1", "$: expected one of [], got 1");
    assert!(valid(r#"{"const":"x"}"#, r#""x""#));
    one(
        r#"{"const":"x"}"#,
        r#""y""#,
        r#"$: expected const "x", got "y""#,
    );
    assert!(valid(
        r#"{"const":{"a":[0,{"b":null}]}}"#,
        r#"{"a":[-0,{"b":null}]}"#
    ));
    assert!(!valid(r#"{"const":[1,2]}"#, "[2,1]"));
    assert!(valid(r#"{"const":null}"#, "null"));
    assert!(!valid(r#"{"const":null}"#, "0"));
}

#[test]
fn a_long_enum_uses_json_equality_too() {
    // More members than are scanned (12): the index finds them by the same equality.
    let filler: Vec<String> = (0..20).map(|i| format!(r#""f{i}""#)).collect();
    let s = format!(
        r#"{{"enum":[{},1,-0,{{"a":1,"b":[1,2]}},[1,[2]],"x",null,false,1e300]}}"#,
        filler.join(",")
    );
    for instance in [
        "1.0",
        "0",
        "-0.0",
        r#"{"b":[1.0,2],"a":1}"#,
        "[1,[2.0]]",
        r#""x""#,
        "null",
        "false",
        "1e300",
        r#""f0""#,
        r#""f19""#,
    ] {
        assert!(valid(&s, instance), "{instance}");
    }
    for instance in [
        "2",
        r#"{"b":[2,1],"a":1}"#,
        r#"{"a":1}"#,
        "[1,[2],3]",
        "[[2],1]",
        r#""X""#,
        "true",
        r#""f20""#,
        "[]",
        "{}",
    ] {
        assert!(!valid(&s, instance), "{instance}");
    }
    // The message lists the members as written.
    one(
        &s,
        "2",
        r#"$: expected one of ["f0","f1","f2","f3","f4","f5","f6","f7","f8","f9","f10","f11","f12","f13","f14","f15","f16","f17","..., got 2"#,
    );
}

#[test]
fn numeric_bounds() {
    let s = r#"{"minimum":0,"maximum":10}"#;
    assert!(valid(s, "0") && valid(s, "10") && valid(s, "5.5"));
    one(s, "-1", "$: expected a value >= 0, got -1");
    one(s, "10.5", "$: expected a value <= 10, got 10.5");
    let s = r#"{"exclusiveMinimum":0,"exclusiveMaximum":10}"#;
    assert!(valid(s, "0.1") && valid(s, "9.9"));
    one(s, "0", "$: expected a value > 0, got 0");
    one(s, "10", "$: expected a value < 10, got 10");
    // Both forms together.
    let s = r#"{"minimum":1,"exclusiveMinimum":1}"#;
    one(s, "1", "$: expected a value > 1, got 1");
    // Bounds ignore other types.
    assert!(valid(r#"{"minimum":5}"#, r#""x""#));
    assert!(valid(r#"{"maximum":5}"#, "[1,2,3,4,5,6]"));
}

#[test]
fn bounds_refuse_a_hand_built_nan() {
    let schema = compile(r#"{"minimum":0}"#);
    assert!(!schema.is_valid(&Value::Number(f64::NAN)));
    let schema = compile(r#"{"exclusiveMaximum":0}"#);
    assert_eq!(schema.validate(&Value::Number(f64::NAN), "$").len(), 1);
}

#[test]
fn string_lengths_count_code_points() {
    assert!(valid(r#"{"maxLength":1}"#, r#""😀""#));
    assert!(valid(r#"{"minLength":1,"maxLength":1}"#, r#""é""#));
    one(
        r#"{"minLength":2}"#,
        r#""😀""#,
        "$: expected at least 2 characters, got 1",
    );
    one(
        r#"{"maxLength":1}"#,
        r#""ab""#,
        "$: expected at most 1 character, got 2",
    );
    assert!(valid(r#"{"minLength":0}"#, r#""""#));
    assert!(
        valid(r#"{"minLength":3}"#, "12"),
        "minLength ignores numbers"
    );
}

#[test]
fn string_lengths_at_every_bound_whatever_the_byte_widths() {
    // The check pass settles a length from the byte length when it can (at most one
    // code point per byte, at least one per four): every bound around the byte and code
    // point counts of 1- to 4-byte characters must still get the code-point verdict.
    for text in [
        "",
        "a",
        "ab",
        "é",
        "aé",
        "€",
        "😀",
        "😀😀",
        "a😀é€",
        "😀😀😀a",
    ] {
        let points = text.chars().count();
        let instance = Value::String(text.into());
        for bound in 0..=14usize {
            for (keyword, ok) in [
                ("minLength", points >= bound),
                ("maxLength", points <= bound),
            ] {
                let schema = compile(&format!(r#"{{"{keyword}":{bound}}}"#));
                assert_eq!(schema.is_valid(&instance), ok, "{keyword} {bound} {text:?}");
                assert_eq!(schema.validate(&instance, "$").is_empty(), ok);
            }
        }
    }
}

#[test]
fn item_counts_and_items() {
    one(
        r#"{"minItems":2}"#,
        "[1]",
        "$: expected at least 2 items, got 1",
    );
    one(
        r#"{"maxItems":1}"#,
        "[1,2]",
        "$: expected at most 1 item, got 2",
    );
    assert!(valid(r#"{"minItems":1.0}"#, "[1]"));
    assert!(valid(r#"{"minItems":2}"#, "{}"), "minItems ignores objects");
    let s = r#"{"items":{"type":"integer"}}"#;
    assert!(valid(s, "[1,2,3]") && valid(s, "[]") && valid(s, r#"{"a":"x"}"#));
    assert_eq!(
        violations(s, r#"[1,"a",2,null]"#),
        [
            "$[1]: expected type integer, got string",
            "$[3]: expected type integer, got null"
        ]
    );
    one(
        r#"{"items":false}"#,
        "[1]",
        "$[0]: not allowed: array items (the items schema is false)",
    );
    assert!(valid(r#"{"items":false}"#, "[]"));
    assert!(valid(r#"{"items":true}"#, "[1,{}]"));
}

#[test]
fn objects_required_properties_additional() {
    let s = r#"{"properties":{"a":{"type":"string"}},"required":["a","b"]}"#;
    assert!(valid(s, r#"{"a":"x","b":null,"c":1}"#));
    assert_eq!(
        violations(s, r#"{"a":1}"#),
        [
            "$: missing required property 'b'",
            "$.a: expected type string, got integer"
        ]
    );
    assert!(
        valid(r#"{"required":["a"]}"#, "[1]"),
        "required ignores arrays"
    );
    assert!(valid(r#"{"required":[]}"#, "{}"));
    let closed = r#"{"properties":{"a":{}},"additionalProperties":false}"#;
    assert!(valid(closed, r#"{"a":1}"#));
    one(
        closed,
        r#"{"a":1,"c":2}"#,
        "$.c: not allowed: additional property 'c'",
    );
    let typed = r#"{"properties":{"a":{}},"additionalProperties":{"type":"integer"}}"#;
    assert!(valid(typed, r#"{"a":"x","b":1}"#));
    one(
        typed,
        r#"{"a":"x","b":"y"}"#,
        "$.b: expected type integer, got string",
    );
    one(
        r#"{"properties":{"x":false}}"#,
        r#"{"x":1}"#,
        "$.x: not allowed: property 'x'",
    );
    assert!(valid(r#"{"properties":{"x":false}}"#, "{}"));
    assert!(valid(r#"{"additionalProperties":false}"#, "{}"));
    assert!(valid(r#"{"additionalProperties":false}"#, "[1]"));
}

#[test]
fn any_of() {
    let s = r#"{"anyOf":[{"type":"integer"},{"type":"string","minLength":2}]}"#;
    assert!(valid(s, "1") && valid(s, r#""ab""#));
    one(
        s,
        r#""a""#,
        "$: expected to match at least one of 2 alternatives",
    );
    one(
        s,
        "null",
        "$: expected to match at least one of 2 alternatives",
    );
    one(
        r#"{"anyOf":[false]}"#,
        "1",
        "$: expected to match at least one of 1 alternative",
    );
    // The anyOf violation is at the value's path, not the alternatives' paths.
    one(
        r#"{"properties":{"p":{"anyOf":[{"items":{"type":"null"}}]}}}"#,
        r#"{"p":[1]}"#,
        "$.p: expected to match at least one of 1 alternative",
    );
}

#[test]
fn references_into_defs() {
    let s = r##"{"$defs":{"n":{"type":"integer","minimum":0}},"properties":{"a":{"$ref":"#/$defs/n"}}}"##;
    assert!(valid(s, r#"{"a":3}"#));
    one(s, r#"{"a":-3}"#, "$.a: expected a value >= 0, got -3");
    // Escaped and percent-encoded names.
    let s = r##"{"$defs":{"a/b~c":{"type":"integer"},"x y":{"type":"string"}},
        "properties":{"p":{"$ref":"#/$defs/a~1b~0c"},"q":{"$ref":"#/$defs/x%20y"}}}"##;
    assert!(valid(s, r#"{"p":1,"q":"s"}"#));
    assert_eq!(
        violations(s, r#"{"p":"1","q":1}"#),
        [
            "$.p: expected type integer, got string",
            "$.q: expected type string, got integer"
        ]
    );
    // `$ref` beside other keywords: both apply (2020-12).
    let s = r##"{"$defs":{"i":{"type":"integer"}},"$ref":"#/$defs/i","minimum":5}"##;
    assert!(valid(s, "6"));
    assert_eq!(
        violations(s, "4.5"),
        [
            "$: expected a value >= 5, got 4.5",
            "$: expected type integer, got number"
        ]
    );
    // A reference to a `false` definition speaks for the member it is applied to.
    one(
        r##"{"$defs":{"no":false},"properties":{"x":{"$ref":"#/$defs/no"}}}"##,
        r#"{"x":1}"#,
        "$.x: not allowed: property 'x'",
    );
    // Pointers to other subschemas.
    let s = r##"{"properties":{"a":{"type":"string"},"b":{"$ref":"#/properties/a"}}}"##;
    one(s, r#"{"b":1}"#, "$.b: expected type string, got integer");
    // To an item of `anyOf` by its index, to a member named like an index, and to a
    // boolean subschema.
    let s = r##"{"$defs":{"l":{"anyOf":[{"type":"null"},{"type":"string"}]},"10":{"type":"integer"},
        "f":false},"properties":{"a":{"$ref":"#/$defs/l/anyOf/1"},"b":{"$ref":"#/$defs/10"},
        "c":{"$ref":"#/$defs/f"}}}"##;
    assert!(valid(s, r#"{"a":"s","b":1}"#));
    assert_eq!(
        violations(s, r#"{"a":null,"b":1.5,"c":0}"#),
        [
            "$.a: expected type string, got null",
            "$.b: expected type integer, got number",
            "$.c: not allowed: property 'c'"
        ]
    );
}

#[test]
fn recursive_schemas_through_members_and_items() {
    let tree = r##"{"$defs":{"node":{"type":"object","properties":{
        "value":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},
        "required":["value"]}},"$ref":"#/$defs/node"}"##;
    assert!(valid(
        tree,
        r#"{"value":1,"children":[{"value":2,"children":[]},{"value":3}]}"#
    ));
    one(
        tree,
        r#"{"value":1,"children":[{"value":2,"children":[{}]}]}"#,
        "$.children[0].children[0]: missing required property 'value'",
    );
    let root = r##"{"type":["array","integer"],"items":{"$ref":"#"}}"##;
    assert!(valid(root, "[[[1]],2,[]]"));
    one(
        root,
        r#"[[["x"]]]"#,
        "$[0][0][0]: expected type one of array, integer, got string",
    );
}

#[test]
fn boolean_schemas() {
    assert!(valid("true", r#"{"anything":[1]}"#));
    one(
        "false",
        "null",
        "$: not allowed: the schema here is false, so no value is valid",
    );
    assert!(valid(r#"{"anyOf":[false,true]}"#, "1"));
}

#[test]
fn annotations_are_accepted_and_ignored() {
    let s = r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"t",
        "description":"d","default":{"x":1},"examples":[1,"two"],"$comment":"c",
        "deprecated":true,"readOnly":false,"writeOnly":true,"format":"email",
        "properties":{"a":{"format":"date-time","title":"a","default":5}}}"#;
    assert!(valid(s, r#"{"a":"not a date"}"#));
    assert!(valid(s, "42"));
    assert!(valid(r#"{"format":"no-such-format"}"#, r#""x""#));
    compile(r#"{"$schema":"https://json-schema.org/draft/2020-12/schema#"}"#);
}

#[test]
fn paths_are_spelled_with_dots_and_brackets() {
    let s = r#"{"additionalProperties":{"type":"integer","items":{"type":"integer"}}}"#;
    one(
        s,
        r#"{"a b":"x"}"#,
        "$['a b']: expected type integer, got string",
    );
    one(
        s,
        r#"{"it's":"x"}"#,
        r"$['it\'s']: expected type integer, got string",
    );
    one(
        s,
        r#"{"a\\b":"x"}"#,
        r"$['a\\b']: expected type integer, got string",
    );
    one(
        s,
        r#"{"a\nb":"x"}"#,
        r"$['a\nb']: expected type integer, got string",
    );
    one(
        s,
        r#"{"1st":"x"}"#,
        "$['1st']: expected type integer, got string",
    );
    one(
        s,
        r#"{"_ok9":"x"}"#,
        "$._ok9: expected type integer, got string",
    );
    let nested = r#"{"properties":{"a":{"items":{"properties":{"b c":{"type":"null"}}}}}}"#;
    one(
        nested,
        r#"{"a":[{"b c":1}]}"#,
        "$.a[0]['b c']: expected type null, got integer",
    );
    let schema = compile(r#"{"items":{"type":"string"}}"#);
    let found = schema.validate(&json("[0]"), "$.my tool");
    assert_eq!(
        found[0].to_string(),
        "$.my tool[0]: expected type string, got integer"
    );
}

#[test]
fn violations_come_in_document_order_then_keyword_order() {
    let s = r##"{"$defs":{"d":{"required":["z"],"properties":{"a":{"const":0}}}},
        "type":"array","required":["y"],"additionalProperties":{"type":"string"},
        "properties":{"b":{"type":"string","minLength":3,"enum":["long"]}},
        "anyOf":[{"type":"null"}],"$ref":"#/$defs/d"}"##;
    let expected = [
        "$: expected type array, got object",
        "$: missing required property 'y'",
        "$: expected to match at least one of 1 alternative",
        "$: missing required property 'z'",
        "$.a: expected type string, got integer",
        "$.a: expected const 0, got 1",
        "$.b: expected type string, got integer",
        "$.b: expected one of [\"long\"], got 5",
        "$.c: expected type string, got boolean",
    ];
    for instance in [r#"{"c":true,"b":5,"a":1}"#, r#"{"a":1,"b":5,"c":true}"#] {
        assert_eq!(violations(s, instance), expected, "{instance}");
    }
    // Canonical key order (UTF-16 code units): "😀" before "ﬁ".
    let s = r#"{"additionalProperties":false}"#;
    assert_eq!(
        violations(s, r#"{"ﬁ":1,"😀":2,"a":3}"#),
        [
            "$.a: not allowed: additional property 'a'",
            "$['😀']: not allowed: additional property '😀'",
            "$['ﬁ']: not allowed: additional property 'ﬁ'"
        ]
    );
}

#[test]
fn a_violation_reached_twice_is_listed_once() {
    // Two paths to one definition for the same item (the root's items, and the items
    // of the root's $ref target): its violation is listed once.
    let s = r##"{"$defs":{"i":{"type":"integer"},"j":{"items":{"$ref":"#/$defs/i"}}},
        "$ref":"#/$defs/j","items":{"$ref":"#/$defs/i"}}"##;
    assert_eq!(
        violations(s, "[1,1.5]"),
        ["$[1]: expected type integer, got number"]
    );
    // Two keywords saying the same thing about one value: listed once.
    one(
        r##"{"$defs":{"i":{"type":"integer"}},"type":"integer","$ref":"#/$defs/i"}"##,
        "1.5",
        "$: expected type integer, got number",
    );
}

#[test]
fn many_violations_of_one_value_reached_twice_are_listed_once() {
    // The root and its `$ref` target each require the same 20 names (more than are
    // compared pairwise): each missing name is listed once, in the order written.
    let names: Vec<String> = (0..20).map(|i| format!(r#""n{i}""#)).collect();
    let names = names.join(",");
    let s = format!(
        r##"{{"$defs":{{"d":{{"required":[{names}],"minItems":1}}}},"required":[{names}],"$ref":"#/$defs/d"}}"##
    );
    let expected: Vec<String> = (0..20)
        .map(|i| format!("$: missing required property 'n{i}'"))
        .collect();
    assert_eq!(violations(&s, "{}"), expected);
    // The same after a violation of a member, reported before the `$ref` target's
    // repeats of the root's (so the list is sorted first).
    let s = format!(
        r##"{{"$defs":{{"d":{{"required":[{names}]}}}},"required":[{names}],
            "properties":{{"a":{{"type":"string"}}}},"$ref":"#/$defs/d"}}"##
    );
    let mut with_member = expected.clone();
    with_member.push(String::from("$.a: expected type string, got integer"));
    assert_eq!(violations(&s, r#"{"a":1}"#), with_member);
    // In order, with a repeat in each item's violations: each item's listed once.
    let s = r##"{"$defs":{"i":{"type":"integer"}},"items":{"type":"integer","$ref":"#/$defs/i"}}"##;
    assert_eq!(
        violations(s, r#"[1.5,"x",2]"#),
        [
            "$[0]: expected type integer, got number",
            "$[1]: expected type integer, got string"
        ]
    );
}

#[test]
fn lists_at_their_limit_compile_and_one_more_is_refused() {
    use super::{MAX_ENUM_VALUES, MAX_REQUIRED_NAMES};
    let listing = |keyword: &str, n: usize| {
        let values: Vec<String> = (0..n).map(|i| format!(r#""v{i}""#)).collect();
        json(&format!(r#"{{"{keyword}":[{}]}}"#, values.join(",")))
    };
    for (keyword, limit, what) in [
        ("required", MAX_REQUIRED_NAMES, "names"),
        ("enum", MAX_ENUM_VALUES, "values"),
    ] {
        assert!(
            Schema::compile(&listing(keyword, limit)).is_ok(),
            "{keyword}"
        );
        let e = Schema::compile(&listing(keyword, limit + 1)).expect_err(keyword);
        assert_eq!(e.pointer, format!("/{keyword}"));
        assert_eq!(
            e.message,
            format!(
                "keyword '{keyword}' lists {} {what}, more than the {limit} a schema may list",
                limit + 1
            )
        );
    }
}

#[test]
fn refusals_name_the_keyword_and_where_it_is() {
    let cases: &[(&str, &str, &str)] = &[
        (r#"{"dependencies":{}}"#, "/dependencies", "'dependencies'"),
        (
            r#"{"properties":{"a":{"additionalItems":{}}}}"#,
            "/properties/a/additionalItems",
            "draft 2020-12 keyword",
        ),
        (
            r#"{"$schema":"http://json-schema.org/draft-07/schema#","unevaluatedProperties":false}"#,
            "/unevaluatedProperties",
            "not a draft-07 keyword",
        ),
        (
            r#"{"$schema":"https://json-schema.org/draft/2019-09/schema","prefixItems":[{}]}"#,
            "/prefixItems",
            "draft 2019-09",
        ),
        (
            r##"{"$recursiveRef":"#"}"##,
            "/$recursiveRef",
            "'$dynamicRef'",
        ),
        (r#"{"oneOf":[]}"#, "/oneOf", "'oneOf'"),
        (r#"{"allOf":{}}"#, "/allOf", "'allOf'"),
        (r#"{"prefixItems":[]}"#, "/prefixItems", "'prefixItems'"),
        (r#"{"multipleOf":0}"#, "/multipleOf", "above 0"),
        (r#"{"multipleOf":-2}"#, "/multipleOf", "above 0"),
        (r#"{"uniqueItems":1}"#, "/uniqueItems", "'uniqueItems'"),
        (r#"{"minContains":-1}"#, "/minContains", "'minContains'"),
        (r#"{"pattern":1}"#, "/pattern", "'pattern'"),
        (r#"{"pattern":"a(?=b)"}"#, "/pattern", "look-around"),
        (r#"{"pattern":"(a)\\1"}"#, "/pattern", "back-reference"),
        (
            r#"{"patternProperties":{"(?<=a)":{}}}"#,
            "/patternProperties",
            "'(?<=a)'",
        ),
        (
            r#"{"dependentRequired":{"a":["b","b"]}}"#,
            "/dependentRequired/a/1",
            "twice",
        ),
        (
            r#"{"dependentSchemas":{"a":1}}"#,
            "/dependentSchemas/a",
            "schema",
        ),
        (r#"{"$anchor":"1a"}"#, "/$anchor", "'$anchor'"),
        (r#"{"$id":"http://x.example/y#f"}"#, "/$id", "fragment"),
        (r#"{"$id":1}"#, "/$id", "'$id'"),
        (
            r#"{"contentEncoding":1}"#,
            "/contentEncoding",
            "'contentEncoding'",
        ),
        (
            r#"{"contentSchema":1}"#,
            "/contentSchema",
            "'contentSchema'",
        ),
        (r#"{"type":"dict"}"#, "/type", "'dict'"),
        (r#"{"type":"float"}"#, "/type", "'float'"),
        (r#"{"type":["integer","int"]}"#, "/type/1", "'int'"),
        (r#"{"type":[]}"#, "/type", "'type'"),
        (r#"{"type":["null","null"]}"#, "/type/1", "twice"),
        (r#"{"type":1}"#, "/type", "'type'"),
        (r#"{"required":["a","a"]}"#, "/required/1", "'required'"),
        (r#"{"required":[1]}"#, "/required/0", "'required'"),
        (r#"{"required":"a"}"#, "/required", "'required'"),
        (r#"{"anyOf":[]}"#, "/anyOf", "'anyOf'"),
        (r#"{"anyOf":{}}"#, "/anyOf", "'anyOf'"),
        (r#"{"anyOf":[1]}"#, "/anyOf/0", "'anyOf'"),
        (r#"{"minItems":1.5}"#, "/minItems", "'minItems'"),
        (r#"{"minItems":-1}"#, "/minItems", "'minItems'"),
        (r#"{"maxLength":"3"}"#, "/maxLength", "'maxLength'"),
        (r#"{"minimum":"0"}"#, "/minimum", "'minimum'"),
        (
            r#"{"exclusiveMinimum":true}"#,
            "/exclusiveMinimum",
            "'exclusiveMinimum'",
        ),
        (r#"{"items":[{}]}"#, "/items", "'items'"),
        (r#"{"items":1}"#, "/items", "'items'"),
        (r#"{"properties":[]}"#, "/properties", "'properties'"),
        (r#"{"properties":{"a":1}}"#, "/properties/a", "'properties'"),
        (
            r#"{"additionalProperties":"no"}"#,
            "/additionalProperties",
            "'additionalProperties'",
        ),
        (r#"{"$defs":{"a":null}}"#, "/$defs/a", "'$defs'"),
        (
            r#"{"$defs":{"a":{"minLength":-2}}}"#,
            "/$defs/a/minLength",
            "'minLength'",
        ),
        (r#"{"enum":{}}"#, "/enum", "'enum'"),
        (r#"{"title":1}"#, "/title", "'title'"),
        (r#"{"description":null}"#, "/description", "'description'"),
        (r#"{"$comment":[]}"#, "/$comment", "'$comment'"),
        (r#"{"format":1}"#, "/format", "'format'"),
        (r#"{"examples":1}"#, "/examples", "'examples'"),
        (r#"{"deprecated":"yes"}"#, "/deprecated", "'deprecated'"),
        (r#"{"readOnly":1}"#, "/readOnly", "'readOnly'"),
        (r#"{"writeOnly":null}"#, "/writeOnly", "'writeOnly'"),
        (r#"{"$schema":1}"#, "/$schema", "'$schema'"),
        (
            r#"{"$schema":"http://json-schema.org/draft-04/schema#"}"#,
            "/$schema",
            "not a supported draft",
        ),
        (
            r#"{"items":{"$schema":"http://json-schema.org/draft-07/schema#"}}"#,
            "/items/$schema",
            "one document is read by one draft",
        ),
        (r#"{"$ref":1}"#, "/$ref", "'$ref'"),
        (r#""string""#, "", "object or a boolean"),
        (r#"null"#, "", "object or a boolean"),
    ];
    for (schema, pointer, words) in cases {
        let e = refused(schema);
        assert_eq!(e.pointer, *pointer, "{schema}: {e}");
        assert!(e.message.contains(words), "{schema}: {e}");
    }
    let e = refused(r#"{"properties":{"a":{"dependencies":{}}}}"#);
    assert_eq!(
        e.to_string(),
        "schema refused at /properties/a/dependencies: keyword 'dependencies' is not a \
         draft 2020-12 keyword (draft 2019-09 split it into 'dependentRequired' and \
         'dependentSchemas'); it is refused rather than ignored, since its author meant a \
         constraint (name the draft it belongs to with '$schema')"
    );
    assert_eq!(
        refused(r#"{"type":"dict"}"#).to_string(),
        "schema refused at /type: keyword 'type': 'dict' is not a JSON Schema type name \
         (the names are null, boolean, object, array, number, string, integer)"
    );
    assert!(refused("[]")
        .to_string()
        .starts_with("schema refused at the root: "));
    // Keys needing escapes in the pointer.
    assert_eq!(
        refused(r#"{"properties":{"a/b~":{"minimum":"x"}}}"#).pointer,
        "/properties/a~1b~0/minimum"
    );
}

#[test]
fn non_negative_integers_follow_the_meta_schema() {
    for ok in ["0", "1.0", "-0", "1e300", "3"] {
        compile(&format!(r#"{{"minItems":{ok},"maxLength":{ok}}}"#));
    }
    for bad in ["1.5", "-1", "true", "null", "\"1\""] {
        refused(&format!(r#"{{"minLength":{bad}}}"#));
    }
    // A huge limit saturates and still works.
    assert!(valid(r#"{"maxItems":1e300}"#, "[1,2]"));
    assert!(!valid(r#"{"minItems":1e300}"#, "[1,2]"));
}

#[test]
fn count_bounds_are_quoted_as_the_schema_writes_them() {
    // However large: 1e308 is not said as u64::MAX (18446744073709551615), nor 2^64 as
    // that minus one; a bound written with a fraction or an exponent is said as its
    // canonical number (`1.0` is 1, singular; `1e1` is 10). Each count keyword.
    let cases = [
        (
            r#"{"minLength":1e308}"#,
            r#""ab""#,
            "expected at least 1e+308 characters, got 2",
        ),
        (
            r#"{"minLength":1.8446744073709552e19}"#,
            r#""ab""#,
            "expected at least 18446744073709552000 characters, got 2",
        ),
        (
            r#"{"minLength":1e1}"#,
            r#""ab""#,
            "expected at least 10 characters, got 2",
        ),
        (
            r#"{"maxLength":1.0}"#,
            r#""ab""#,
            "expected at most 1 character, got 2",
        ),
        (
            r#"{"maxLength":0}"#,
            r#""a""#,
            "expected at most 0 characters, got 1",
        ),
        (
            r#"{"minItems":1e308}"#,
            "[1]",
            "expected at least 1e+308 items, got 1",
        ),
        (
            r#"{"minItems":3.0}"#,
            "[1]",
            "expected at least 3 items, got 1",
        ),
        (
            r#"{"maxItems":1.0}"#,
            "[1,2]",
            "expected at most 1 item, got 2",
        ),
        (
            r#"{"maxItems":1E0}"#,
            "[1,2]",
            "expected at most 1 item, got 2",
        ),
    ];
    for (schema, instance, message) in cases {
        one(schema, instance, &format!("$: {message}"));
    }
}

#[test]
fn bad_references_are_refused() {
    let cases: &[(&str, &str)] = &[
        (
            r#"{"$ref":"http://example.com/s.json"}"#,
            "refers to another document",
        ),
        (
            r#"{"$ref":"other.json#/$defs/a"}"#,
            "refers to another document",
        ),
        (
            r#"{"$ref":"https://json-schema.org/draft/2020-12/schema"}"#,
            "remote references are refused",
        ),
        (
            r##"{"$ref":"#/$defs/missing"}"##,
            "does not point to a subschema",
        ),
        (
            r##"{"$defs":{"a":{"type":"integer"}},"$ref":"#/$defs/a/type"}"##,
            "not to a schema",
        ),
        (
            r##"{"$defs":{"a":{}},"$ref":"#/$defs/a~2"}"##,
            "JSON pointer",
        ),
        (
            r##"{"$defs":{"a":{}},"$ref":"#/$defs/a%2"}"##,
            "percent-encoding",
        ),
        (r##"{"$defs":{"a":{}},"$ref":"#a"}"##, "the anchor 'a'"),
        // An item's index as RFC 6901 writes it, and only to an item that is a schema.
        (
            r##"{"anyOf":[{},{"type":"null"}],"$ref":"#/anyOf/01"}"##,
            "does not point",
        ),
        (
            r##"{"anyOf":[{},{"type":"null"}],"$ref":"#/anyOf/+1"}"##,
            "does not point",
        ),
        (
            r##"{"anyOf":[{},{"type":"null"}],"$ref":"#/anyOf/2"}"##,
            "does not point",
        ),
        (
            r##"{"anyOf":[{},{"type":"null"}],"$ref":"#/anyOf/-"}"##,
            "does not point",
        ),
        (
            r##"{"anyOf":[{}],"$ref":"#/anyOf/99999999999999999999999"}"##,
            "does not point",
        ),
        (r##"{"enum":[1],"$ref":"#/enum/0"}"##, "not to a schema"),
    ];
    for (schema, words) in cases {
        let e = refused(schema);
        assert_eq!(e.pointer, "/$ref", "{schema}: {e}");
        assert!(e.message.contains(words), "{schema}: {e}");
    }
}

#[test]
fn references_land_anywhere_a_schema_is() {
    // A pointer to a schema-shaped value anywhere in the document (JSON Schema allows
    // it: an unknown keyword holding a schema, an `enum` entry, `properties` itself).
    assert!(!valid(
        r##"{"x-defs":{"n":{"type":"integer"}},"$ref":"#/x-defs/n"}"##,
        r#""a""#
    ));
    assert!(valid(r##"{"enum":[{},1],"$ref":"#/enum/0"}"##, "1"));
    assert!(valid(
        r##"{"default":{"type":"integer"},"$ref":"#/default"}"##,
        "3"
    ));
}

#[test]
fn unknown_keywords_are_annotations_listed_for_their_author() {
    let schema = compile(
        r#"{"requried":["a"],"properties":{"a":{"x-ui":"slider","type":"integer"}},"discriminator":{}}"#,
    );
    assert!(schema.is_valid(&json("{}")), "requried is no keyword");
    assert_eq!(
        schema.ignored_keywords(),
        ["/discriminator", "/properties/a/x-ui", "/requried"]
    );
    assert!(compile(r#"{"type":"object"}"#)
        .ignored_keywords()
        .is_empty());
}

#[test]
fn reference_cycles_are_refused() {
    let e = refused(r##"{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}"##);
    assert_eq!(e.pointer, "/$defs/a/$ref", "{e}");
    assert!(e.message.contains("#/$defs/a -> #/$defs/a"), "{e}");
    let e = refused(r##"{"$ref":"#"}"##);
    assert_eq!(e.pointer, "/$ref");
    let e = refused(
        r##"{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/a"}]}}}"##,
    );
    assert!(e.message.contains("cycle"), "{e}");
    refused(r##"{"anyOf":[{"$ref":"#"}]}"##);
    // A cycle in a definition nothing uses is still a broken schema.
    refused(r##"{"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}}}"##);
    // Going into a member or an item breaks the cycle.
    compile(r##"{"properties":{"next":{"$ref":"#"}}}"##);
    compile(r##"{"additionalProperties":{"$ref":"#"}}"##);
    compile(r##"{"items":{"anyOf":[{"$ref":"#"}]}}"##);
}

/// 60 definitions d0… d59, each an `anyOf` of two references to the next (the second
/// with `beside` added next to its `$ref`), and d60 `{"type":"string"}`: 2^60 paths.
fn two_ways_down(beside: &str) -> String {
    levels_two_ways_down(60, beside)
}

/// [`two_ways_down`] with `levels` definitions before the last: 2^levels paths.
fn levels_two_ways_down(levels: usize, beside: &str) -> String {
    let defs: Vec<String> = (0..levels)
        .map(|i| {
            let n = i + 1;
            format!(
                r##""d{i}":{{"anyOf":[{{"$ref":"#/$defs/d{n}"}},{{"$ref":"#/$defs/d{n}"{beside}}}]}}"##
            )
        })
        .chain([format!(r#""d{levels}":{{"type":"string"}}"#)])
        .collect();
    format!(
        r##"{{"$defs":{{{}}},"$ref":"#/$defs/d0"}}"##,
        defs.join(",")
    )
}

#[test]
fn work_stays_bounded_with_shared_references() {
    // 60 definitions, each an anyOf of two references to the next: 2^60 paths to the
    // last one, which fails. Remembered verdicts keep it linear.
    let s = two_ways_down(r#","minimum":0"#);
    one(
        &s,
        "1",
        "$: expected to match at least one of 2 alternatives",
    );
    assert!(valid(&s, r#""ok""#));
    // Recursion through items with two references per level: 2^depth paths.
    let s = r##"{"$defs":{"t":{"anyOf":[{"items":{"$ref":"#/$defs/t"}},
        {"items":{"$ref":"#/$defs/t"},"minItems":0}]}},"$ref":"#/$defs/t",
        "items":{"$ref":"#/$defs/t"}}"##;
    let deep = format!("{}\"x\"{}", "[".repeat(100), "]".repeat(100));
    assert!(valid(s, &deep));
    let s = r##"{"$defs":{"t":{"type":"array","anyOf":[{"items":{"$ref":"#/$defs/t"}},
        {"items":{"$ref":"#/$defs/t"},"minItems":0}]}},"$ref":"#/$defs/t",
        "items":{"$ref":"#/$defs/t"}}"##;
    let found = violations(s, &deep);
    assert!(!found.is_empty());
    assert!(found[0].starts_with("$: expected to match"), "{found:?}");
}

#[test]
fn the_check_pass_remembers_exactly_the_nodes_it_may_reach_twice() {
    // 20 levels of two references each to the next: 2^20 paths to the last. Counted,
    // not timed: each definition's keywords are applied about once.
    let s = compile(&levels_two_ways_down(20, r#","minimum":0"#));
    for (instance, expected) in [("1", false), (r#""ok""#, true)] {
        let (valid, applications) = work::applications_in(|| s.is_valid(&json(instance)));
        assert_eq!(valid, expected, "{instance}");
        assert!(
            applications <= 3 * 21,
            "{applications} applications on {instance}"
        );
    }
    // Which nodes the check pass remembers: those two edges point at, all targets of a
    // document with dynamic references, and no other.
    let revisited = |schema: &str| -> usize {
        let s = compile(schema);
        s.tree
            .nodes
            .iter()
            .filter(|n| matches!(n, Node::Keywords(k) if k.flags.revisit))
            .count()
    };
    let once = r##"{"$defs":{"a":{"type":"object","properties":{"x":{"type":"string"}}}},
        "type":"array","items":{"$ref":"#/$defs/a"}}"##;
    assert_eq!(revisited(once), 0);
    let twice = r##"{"$defs":{"a":{"type":"object","properties":{"x":{"type":"string"}}}},
        "type":"array","items":{"$ref":"#/$defs/a"},"contains":{"$ref":"#/$defs/a"}}"##;
    assert_eq!(revisited(twice), 1);
    // A reference to the root from a member: one edge (the start is not one).
    let recursive = r##"{"properties":{"next":{"$ref":"#"}},"minProperties":1}"##;
    assert_eq!(revisited(recursive), 0);
    // A target also reached as a member's own schema: two edges.
    let beside = r##"{"properties":{"a":{"minimum":1},"b":{"$ref":"#/properties/a"}}}"##;
    assert_eq!(revisited(beside), 1);
    let dynamic = r##"{"$dynamicAnchor":"n","properties":{"next":{"$dynamicRef":"#n"}},
        "minProperties":1}"##;
    assert_eq!(revisited(dynamic), 1);
}

#[test]
fn the_check_pass_inline_cases_agree_with_its_general_path() {
    // Leaves, `anyOf` alone (pydantic's Optional), a `$ref` alone, types that rule a
    // value out before anything else, booleans; inside members, items and alternatives;
    // member walks with `properties` and `additionalProperties` only, and with more.
    let schemas = [
        r#"{"type":"integer","minimum":1}"#,
        r#"{"type":["string","null"],"maxLength":3}"#,
        r#"{"enum":["a",1,null]}"#,
        r#"{"const":2}"#,
        r#"{"anyOf":[{"type":"string"},{"type":"null"}]}"#,
        r#"{"anyOf":[{"items":{"type":"string"},"type":"array"},{"type":"null"}]}"#,
        r#"{"anyOf":[{"minLength":2},{"type":"integer"},false]}"#,
        r#"{"anyOf":[true]}"#,
        r#"{"anyOf":[{"type":"object","required":["a"]},{"anyOf":[{"const":1},{"type":"array","maxItems":1}]}]}"#,
        r##"{"$defs":{"d":{"anyOf":[{"type":"string"},{"type":"null"}]}},"$ref":"#/$defs/d"}"##,
        r##"{"$defs":{"d":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/d"},"b":{"$ref":"#/$defs/d"}}}"##,
        r##"{"type":"object","properties":{"a":{"anyOf":[{"type":"integer"},{"type":"null"}]},"b":{"type":"array","items":{"type":"number","maximum":2}},"c":false},"required":["a"],"additionalProperties":{"type":"boolean"}}"##,
        r#"{"type":"array","items":{"anyOf":[{"type":"object","properties":{"x":{"type":"string"}}},{"type":"string"}]}}"#,
        r#"{"anyOf":[{"type":"string"},{"type":"null"}],"unevaluatedProperties":false}"#,
        r#"{"properties":{"a":true},"anyOf":[{"properties":{"b":{"type":"integer"}}},{"required":["c"]}],"unevaluatedProperties":false}"#,
        r#"{"not":{"anyOf":[{"type":"string"},{"type":"null"}]}}"#,
        r#"{"properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a","b"]}"#,
        r#"{"properties":{"a":{"type":"integer"}},"required":["a","q"],"additionalProperties":false}"#,
        r#"{"properties":{"b":{"type":"integer"}},"additionalProperties":false}"#,
        r#"{"properties":{"a":{"const":1}},"patternProperties":{"^z":{"type":"string"}}}"#,
    ];
    let instances = [
        "null",
        "true",
        "0",
        "1",
        "2",
        "2.5",
        r#""""#,
        r#""a""#,
        r#""abcd""#,
        "[]",
        "[1]",
        r#"["a","b"]"#,
        r#"[{"x":"y"},"z",{"x":1}]"#,
        "{}",
        r#"{"a":1}"#,
        r#"{"a":null,"b":[1,2]}"#,
        r#"{"a":1,"b":[3]}"#,
        r#"{"a":1,"c":1}"#,
        r#"{"a":1,"z":true}"#,
        r#"{"a":1,"z":1}"#,
        r#"{"b":1}"#,
        r#"{"b":"x"}"#,
    ];
    let mut differ = 0;
    for schema in schemas {
        let s = compile(schema);
        for instance in instances {
            let value = json(instance);
            let inline = s.is_valid(&value);
            let general = work::general_path(|| s.is_valid(&value));
            if inline != general {
                differ += 1;
                std::eprintln!("{schema} on {instance}: inline {inline}, general {general}");
            }
            // And the general path agrees with the detailed pass.
            assert_eq!(
                general,
                s.validate_detailed(&value, "$").is_empty(),
                "{schema} on {instance}"
            );
        }
    }
    assert_eq!(differ, 0, "the inline cases and the general path differ");
}

#[test]
fn nesting_is_bounded_without_overflowing_the_stack() {
    // A hand-built instance deeper than any parser would give, against a recursive
    // schema: the validator stops at MAX_NESTING with a violation, not a crash.
    let schema = compile(r##"{"$defs":{"t":{"items":{"$ref":"#/$defs/t"}}},"$ref":"#/$defs/t"}"##);
    let mut deep = Value::Null;
    for _ in 0..MAX_NESTING {
        deep = Value::Array(alloc::vec![deep]);
    }
    let found = schema.validate(&deep, "$");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].message.contains("too deeply nested"),
        "{}",
        found[0]
    );
    assert!(!schema.is_valid(&deep));
    // The deepest a parser gives (128) is well within the bound.
    let parsed = json(&format!("{}{}", "[".repeat(128), "]".repeat(128)));
    assert!(schema.validate(&parsed, "$").is_empty());
    // Unwind iteratively: dropping a deep value recursively is not under test here.
    let mut v = deep;
    while let Value::Array(mut items) = v {
        v = items.pop().unwrap_or(Value::Null);
    }
}

#[test]
fn schemas_nested_past_the_limit_are_refused() {
    let mut deep = Value::Bool(true);
    for _ in 0..200 {
        let mut o = Object::new();
        o.insert("items", deep);
        deep = Value::Object(o);
    }
    let e = Schema::compile(&deep).unwrap_err();
    assert!(e.message.contains("deeper than"), "{e}");
}

#[test]
fn the_source_is_kept() {
    let doc = json(r#"{"type":"object","title":"t"}"#);
    assert_eq!(Schema::compile(&doc).unwrap().source(), &doc);
}

#[test]
fn long_values_in_messages_are_cut() {
    let long = "x".repeat(300);
    let found = violations(&format!(r#"{{"const":"{long}"}}"#), "1");
    assert!(found[0].ends_with("..., got 1"), "{found:?}");
    assert!(found[0].len() < 200);
}

/// `{"<keyword>": inner}`, with `inner` as the member `a` of `properties` and `$defs`
/// and as the one item of `anyOf`.
fn wrapped(keyword: &str, inner: Value) -> Value {
    let inner = match keyword {
        "properties" | "$defs" => {
            let mut members = Object::new();
            members.insert("a", inner);
            Value::Object(members)
        }
        "anyOf" => Value::Array(alloc::vec![inner]),
        _ => inner,
    };
    let mut schema = Object::new();
    schema.insert(keyword, inner);
    Value::Object(schema)
}

/// JSON nesting as the parser counts it: the outermost array or object is 1.
fn nesting(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(nesting).max().unwrap_or(0),
        Value::Object(members) => 1 + members.iter().map(|(_, v)| nesting(v)).max().unwrap_or(0),
        _ => 0,
    }
}

#[test]
fn a_schema_compiles_exactly_when_the_parser_would_read_its_nesting() {
    use agentloop_json::MAX_DEPTH;
    for keyword in [
        "items",
        "additionalProperties",
        "properties",
        "$defs",
        "anyOf",
    ] {
        for leaf in [Value::Bool(true), Value::Object(Object::new())] {
            let mut schema = leaf;
            while nesting(&wrapped(keyword, schema.clone())) <= MAX_DEPTH {
                schema = wrapped(keyword, schema);
            }
            if nesting(&schema) < MAX_DEPTH {
                schema = wrapped("items", schema);
            }
            assert_eq!(nesting(&schema), MAX_DEPTH);
            // The deepest document the parser reads: it compiles.
            let text = agentloop_json::jcs::to_vec(&schema).unwrap();
            assert_eq!(parse(&text).unwrap(), schema);
            if let Err(e) = Schema::compile(&schema) {
                panic!("{keyword}, {} levels: {e}", nesting(&schema));
            }
            // One level more (built by hand: the parser would refuse it).
            let deeper = wrapped(keyword, schema);
            let e = Schema::compile(&deeper).unwrap_err();
            assert_eq!(e.message, "the schema nests deeper than 128 levels");
            assert!(e.pointer.starts_with(&format!("/{keyword}/")), "{e}");
        }
    }
}

#[test]
fn a_bound_that_is_not_a_finite_number_is_refused() {
    for keyword in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
        for n in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut schema = Object::new();
            schema.insert(keyword, Value::Number(n));
            let e = Schema::compile(&Value::Object(schema)).unwrap_err();
            assert_eq!(e.pointer, format!("/{keyword}"));
            assert!(
                e.message
                    .starts_with(&format!("keyword '{keyword}' must be a number, got ")),
                "{e}"
            );
        }
    }
}

#[test]
fn a_cycle_blames_the_first_reference_it_follows() {
    // Through `anyOf` first: the alternative's `$ref` is blamed, not the `anyOf` node.
    let e = refused(r##"{"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}"##);
    assert_eq!(e.pointer, "/$defs/a/anyOf/0/$ref", "{e}");
    assert!(
        e.message
            .contains("cycle #/$defs/a -> #/$defs/a/anyOf/0 -> #/$defs/a,"),
        "{e}"
    );
    // A node with a `$ref` (to a harmless definition) whose first `anyOf` alternative
    // comes back: the cycle leaves that node by its `anyOf`, so its `$ref` is not blamed.
    let e = refused(
        r##"{"$defs":{"x":{},"a":{"$ref":"#/$defs/x","anyOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}"##,
    );
    assert_eq!(e.pointer, "/$defs/a/anyOf/0/$ref", "{e}");
    // Its `$ref` alone, with the alternative harmless: no cycle.
    compile(
        r##"{"$defs":{"x":{},"a":{"$ref":"#/$defs/x","anyOf":[{"type":"null"},{}]}},"$ref":"#/$defs/a"}"##,
    );
}

#[test]
fn an_assertion_beside_a_reference_is_checked_too() {
    // `{"$ref": …}` alone goes straight on to its target; beside any assertion, not.
    let cases = [
        (r#""type":"string""#, "1", r#""a""#),
        (r#""enum":[1]"#, "2", "1"),
        (r#""const":1"#, "2", "1"),
        (r#""minimum":1"#, "0", "1"),
        (r#""exclusiveMinimum":1"#, "1", "2"),
        (r#""maximum":1"#, "2", "1"),
        (r#""exclusiveMaximum":1"#, "1", "0"),
        (r#""minLength":2"#, r#""a""#, r#""ab""#),
        (r#""maxLength":1"#, r#""ab""#, r#""a""#),
        (r#""minItems":1"#, "[]", "[1]"),
        (r#""maxItems":0"#, "[1]", "[]"),
    ];
    for (assertion, bad, good) in cases {
        let alone = format!("{{{assertion}}}");
        let beside = format!(r##"{{"$defs":{{"any":{{}}}},"$ref":"#/$defs/any",{assertion}}}"##);
        // And in a definition a `$ref` points at (the memoised kind of node).
        let shared = format!(r##"{{"$defs":{{"d":{{{assertion}}}}},"$ref":"#/$defs/d"}}"##);
        for schema in [alone, beside, shared] {
            assert!(!valid(&schema, bad), "{schema} accepted {bad}");
            assert!(valid(&schema, good), "{schema} refused {good}");
        }
    }
}

fn property_name(i: usize) -> String {
    format!("p{i:02}")
}

/// `properties` p00… p(n-1), each `{"const": i}`; `required` as listed (names past n
/// are required without a property); `additionalProperties: false` when `closed`.
fn members_schema(n: usize, required: &[usize], closed: bool) -> String {
    let properties: Vec<String> = (0..n)
        .map(|i| format!(r#""{}":{{"const":{i}}}"#, property_name(i)))
        .collect();
    let required: Vec<String> = required
        .iter()
        .map(|&i| format!(r#""{}""#, property_name(i)))
        .collect();
    let mut schema = format!(r#"{{"properties":{{{}}}"#, properties.join(","));
    if !required.is_empty() {
        schema.push_str(&format!(r#","required":[{}]"#, required.join(",")));
    }
    if closed {
        schema.push_str(r#","additionalProperties":false"#);
    }
    schema.push('}');
    schema
}

proptest::proptest! {
    /// Members are matched to their properties however many there are (a scan for a
    /// few, a search for many) and whichever are left out, by both passes: checked
    /// against the rule written out here.
    #[test]
    fn members_are_matched_to_their_properties_however_many(
        n in 0usize..30,
        // For each name p00… p33: absent (0), present with its const (1) or, less
        // often (so that many members can all be right), another value (2); names from
        // p(n+4) on are left out, so most members are named.
        states in proptest::collection::vec(
            proptest::prop_oneof![3 => proptest::strategy::Just(0u8), 3 => proptest::strategy::Just(1u8), 1 => proptest::strategy::Just(2u8)],
            34,
        ),
        required in proptest::collection::btree_set(0usize..34, 0..4),
        closed in proptest::bool::ANY,
    ) {
        let required: Vec<usize> = required.into_iter().collect();
        let members: alloc::collections::BTreeMap<usize, bool> = states
            .iter()
            .enumerate()
            .take(n + 4)
            .filter(|(_, &state)| state != 0)
            .map(|(i, &state)| (i, state == 1))
            .collect();
        let schema = members_schema(n, &required, closed);
        let compiled = compile(&schema);
        let mut instance = Object::new();
        for (&i, &right) in &members {
            let value = if right { i } else { i + 100 };
            instance.insert(property_name(i), Value::Number(value as f64));
        }
        let instance = Value::Object(instance);
        let expected = required.iter().all(|i| members.contains_key(i))
            && members.iter().all(|(&i, &right)| if i < n { right } else { !closed });
        proptest::prop_assert_eq!(compiled.is_valid(&instance), expected, "{}", schema);
        proptest::prop_assert_eq!(
            compiled.validate_detailed(&instance, "$").is_empty(),
            expected,
            "{}",
            schema
        );
    }
}

#[test]
fn many_properties_are_searched_by_name() {
    // More than SCAN_AT_MOST (12) properties: each member is found by its own name.
    let all: Vec<String> = (0..20)
        .map(|i| format!(r#""{}":{i}"#, property_name(i)))
        .collect();
    let open = members_schema(20, &[], false);
    assert!(valid(&open, &format!("{{{}}}", all.join(","))));
    let mut one_wrong = all.clone();
    one_wrong[15] = format!(r#""{}":99"#, property_name(15));
    assert!(!valid(&open, &format!("{{{}}}", one_wrong.join(","))));
    // A name past the properties is no property's, however many there are.
    let closed = members_schema(20, &[], true);
    assert!(valid(&closed, &format!("{{{}}}", all.join(","))));
    assert!(!valid(&closed, r#"{"p25":25}"#));
    assert!(valid(&open, r#"{"p25":"any"}"#));
}

#[test]
fn a_member_after_skipped_names_is_still_matched() {
    // p00 and p01 in order, then p02 and p03 skipped: p04 and p05 must still be found
    // (the scan goes on from just past p04, not further).
    let open = members_schema(8, &[], false);
    assert!(!valid(&open, r#"{"p00":0,"p01":1,"p04":4,"p05":99}"#));
    assert!(valid(&open, r#"{"p00":0,"p01":1,"p04":4,"p05":5}"#));
    let closed = members_schema(8, &[], true);
    assert!(valid(&closed, r#"{"p00":0,"p01":1,"p04":4,"p05":5}"#));
}

#[test]
fn work_stays_bounded_when_alternatives_are_references_alone() {
    // As above, but both alternatives are a `$ref` alone, which the check pass follows
    // straight to the shared definition: its remembered verdict keeps this linear.
    let s = two_ways_down("");
    one(
        &s,
        "1",
        "$: expected to match at least one of 2 alternatives",
    );
    assert!(valid(&s, r#""ok""#));
}

/// The `$defs` members d0… d(n-1): each a `$ref` alone to the next, the last `last`.
fn ref_chain(n: usize, last: &str) -> String {
    let mut defs: Vec<String> = (0..n - 1)
        .map(|i| format!(r##""d{i}":{{"$ref":"#/$defs/d{}"}}"##, i + 1))
        .collect();
    defs.push(format!(r#""d{}":{last}"#, n - 1));
    defs.join(",")
}

#[test]
fn a_chain_of_references_alone_counts_toward_the_nesting_bound() {
    // d0 → d1 → … → d(n-1), each a `$ref` alone, the last `{}`: every `$ref` applies one
    // more schema, so a chain longer than MAX_NESTING is too deep for both passes.
    let chain = |n: usize| {
        format!(
            r##"{{"$defs":{{{}}},"$ref":"#/$defs/d0"}}"##,
            ref_chain(n, "{}")
        )
    };
    assert!(valid(&chain(MAX_NESTING - 10), "1"));
    let found = violations(&chain(MAX_NESTING + 10), "1");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("too deeply nested"), "{found:?}");
}

#[test]
fn each_step_into_a_value_counts_toward_the_nesting_bound_in_both_passes() {
    // Recursive schemas that apply two or three schemas per level of the instance,
    // through `items`, a member, `anyOf` and a `$ref` that is not alone; built by hand,
    // past the parser's 128 levels, so that the deeper one applies more than
    // MAX_NESTING (512) schemas one inside another and the other fewer.
    let array = |levels: usize| {
        let mut v = Value::Null;
        for _ in 0..levels {
            v = Value::Array(alloc::vec![v]);
        }
        v
    };
    let object = |levels: usize| {
        let mut v = Value::Null;
        for _ in 0..levels {
            let mut o = Object::new();
            o.insert("a", v);
            v = Value::Object(o);
        }
        v
    };
    let cases = [
        // items, then a `$ref` beside `minItems`: two per level.
        (
            r##"{"$defs":{"t":{"items":{"$ref":"#/$defs/t","minItems":0}}},"$ref":"#/$defs/t"}"##,
            array(300),
            array(200),
        ),
        // a member, then a `$ref` beside `type`: two per level.
        (
            r##"{"$defs":{"t":{"properties":{"a":{"$ref":"#/$defs/t","type":["object","null"]}}}},"$ref":"#/$defs/t"}"##,
            object(300),
            object(200),
        ),
        // anyOf, then items, then a `$ref` alone: three per level.
        (
            r##"{"$defs":{"t":{"type":["array","null"],"anyOf":[{"items":{"$ref":"#/$defs/t"}}]}},"$ref":"#/$defs/t"}"##,
            array(200),
            array(150),
        ),
    ];
    for (schema, too_deep, fine) in cases {
        let compiled = compile(schema);
        assert!(compiled.is_valid(&fine), "{schema}");
        assert!(
            compiled.validate_detailed(&fine, "$").is_empty(),
            "{schema}"
        );
        assert!(
            !compiled.is_valid(&too_deep),
            "the check pass let {schema} go too deep"
        );
        // The detailed pass agrees (under `anyOf` it names the alternative that failed,
        // not the nesting inside it).
        assert!(
            !compiled.validate_detailed(&too_deep, "$").is_empty(),
            "{schema}"
        );
    }
}

#[test]
fn the_detailed_pass_remembers_a_shared_definition_as_it_found_it() {
    // Member `0` fails first, so the check pass never reaches `a`; the detailed pass
    // then applies D to `a`'s value and remembers the verdict, which the `anyOf`
    // alternative (run by the check pass) reads back for the same value. A valid value
    // remembered as invalid would add a second, false violation.
    let definitions = [
        // D walks items; D walks members; D follows a `$ref` that is not alone.
        (r#"{"items":{"type":"string"}}"#, r#"["x"]"#),
        (r#"{"properties":{"k":{"type":"string"}}}"#, r#"{"k":"x"}"#),
        (r##"{"$ref":"#/$defs/E","type":"array"}"##, r#"["x"]"#),
    ];
    for (d, value) in definitions {
        let schema = format!(
            r##"{{"$defs":{{"D":{d},"E":{{}}}},
                "properties":{{"0":{{"type":"null"}},"a":{{"$ref":"#/$defs/D"}}}},
                "anyOf":[{{"properties":{{"a":{{"$ref":"#/$defs/D"}}}}}}]}}"##
        );
        one(
            &schema,
            &format!(r#"{{"0":1,"a":{value}}}"#),
            "$['0']: expected type null, got integer",
        );
    }
}

#[test]
fn both_passes_agree_at_the_nesting_bound_under_any_of() {
    // An `anyOf` whose one alternative leads down a chain of `$ref`s alone: around
    // MAX_NESTING the chain crosses the bound, and the detailed pass (which asks the
    // check pass about alternatives) must count the `anyOf` step as the check pass does.
    let schema = |n: usize| {
        format!(
            r##"{{"$defs":{{{}}},"anyOf":[{{"$ref":"#/$defs/d0"}}]}}"##,
            ref_chain(n, r#"{"type":"integer"}"#)
        )
    };
    let verdicts: Vec<bool> = (MAX_NESTING - 8..MAX_NESTING + 8)
        .map(|n| valid(&schema(n), "1"))
        .collect();
    assert!(
        verdicts.first() == Some(&true) && verdicts.last() == Some(&false),
        "{verdicts:?}"
    );
}

/// At most `per` comparisons for each of `n` things times log2 `n`: the work of a sort,
/// or of `n` binary searches among `n`. (Quadratic code makes about n²/2: for n = 10,000,
/// 50 million, against a bound of a few hundred thousand.)
#[cfg(feature = "std")]
fn n_log_n(n: usize, per: u64) -> u64 {
    per * n as u64 * u64::from(usize::BITS - n.leading_zeros())
}

/// Runs `f`, asserting that it made between `n` and [`n_log_n`] comparisons.
#[cfg(feature = "std")]
fn within_n_log_n<R>(what: &str, n: usize, per: u64, f: impl FnOnce() -> R) -> R {
    let (result, comparisons) = super::work::comparisons_in(f);
    let bound = n_log_n(n, per);
    assert!(
        comparisons <= bound,
        "{what}: {comparisons} comparisons for n = {n}, more than n log n allows ({bound})"
    );
    // And the counter did see the work (so the bound above says something).
    assert!(
        comparisons >= n as u64,
        "{what}: only {comparisons} comparisons counted for n = {n}"
    );
    result
}

#[cfg(feature = "std")]
#[test]
fn many_required_names_compile_and_validate_in_n_log_n_comparisons() {
    // 10,000 required names, in descending order: half named by `properties` (which
    // has 10,000 names), half not.
    let n = 10_000;
    let properties: Vec<String> = (0..n).map(|i| format!(r#""p{i}":true"#)).collect();
    let required: Vec<String> = (0..n)
        .rev()
        .map(|i| {
            if i % 2 == 0 {
                format!(r#""p{i}""#)
            } else {
                format!(r#""q{i}""#)
            }
        })
        .collect();
    let schema = json(&format!(
        r#"{{"properties":{{{}}},"required":[{}]}}"#,
        properties.join(","),
        required.join(",")
    ));
    let compiled = within_n_log_n("compiling `required`", n, 4, || Schema::compile(&schema))
        .expect("compiles");
    // Every required name present: valid (both passes).
    let all: Vec<String> = (0..n)
        .map(|i| {
            if i % 2 == 0 {
                format!(r#""p{i}":0"#)
            } else {
                format!(r#""q{i}":0"#)
            }
        })
        .collect();
    let instance = json(&format!("{{{}}}", all.join(",")));
    assert!(compiled.is_valid(&instance));
    assert!(compiled.validate_detailed(&instance, "$").is_empty());
    // None present: one violation a name, in the order written, found and checked for
    // repeats in n log n.
    let empty = json("{}");
    let found = within_n_log_n("reporting every missing name", n, 4, || {
        compiled.validate(&empty, "$")
    });
    assert_eq!(found.len(), n);
    assert_eq!(
        found[0].to_string(),
        format!("$: missing required property 'q{}'", n - 1)
    );
    assert_eq!(
        found[n - 1].to_string(),
        "$: missing required property 'p0'"
    );
    // Repeats among them are still found: the first one written is named, where it
    // repeats an earlier name.
    let mut repeated = required.clone();
    repeated[n - 1] = String::from(r#""p5000""#);
    repeated[9_000] = String::from(r#""q9999""#);
    let e = refused(&format!(r#"{{"required":[{}]}}"#, repeated.join(",")));
    assert_eq!(e.pointer, "/required/9000");
    assert!(e.message.contains("lists 'q9999' twice"), "{e}");
    // Whichever comes first of a repeat and an entry that is not a string is named.
    let e = refused(r#"{"required":["a","b","a",1]}"#);
    assert_eq!(e.pointer, "/required/2");
    assert!(e.message.contains("lists 'a' twice"), "{e}");
    let e = refused(r#"{"required":["a",1,"a"]}"#);
    assert_eq!(e.pointer, "/required/1");
    assert!(e.message.contains("must list strings, got 1"), "{e}");
}

/// The `i`-th of a mix of distinct values: strings, numbers, objects and arrays.
#[cfg(feature = "std")]
fn enum_member(i: usize) -> String {
    match i % 4 {
        0 => format!(r#""s{i}""#),
        1 => format!("{i}.5"),
        2 => format!(r#"{{"k":{i},"a":[{i},"x"]}}"#),
        _ => format!(r#"[{i},{{"b":null}}]"#),
    }
}

#[cfg(feature = "std")]
#[test]
fn a_large_enum_is_matched_in_n_log_n_comparisons() {
    let n = 10_000;
    let members: Vec<String> = (0..n).map(enum_member).collect();
    let schema = json(&format!(
        r#"{{"items":{{"enum":[{}]}}}}"#,
        members.join(",")
    ));
    let compiled =
        within_n_log_n("compiling `enum`", n, 4, || Schema::compile(&schema)).expect("compiles");
    // Every member once, in reverse order, the objects with their keys the other way
    // round: all valid, each found among the n in about log2 n comparisons.
    let items: Vec<String> = (0..n)
        .rev()
        .map(|i| match i % 4 {
            2 => format!(r#"{{"a":[{i}.0,"x"],"k":{i}}}"#),
            _ => enum_member(i),
        })
        .collect();
    let instance = json(&format!("[{}]", items.join(",")));
    assert!(within_n_log_n("checking n items", n, 2, || compiled.is_valid(&instance)));
    // The same with one item that is in no member: the detailed pass names it alone.
    let mut one_wrong = items.clone();
    one_wrong[17] = String::from(r#"{"k":1,"a":[1,"x"]}"#);
    let instance = json(&format!("[{}]", one_wrong.join(",")));
    let found = within_n_log_n("checking n items, one wrong", n, 4, || {
        compiled.validate(&instance, "$")
    });
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]
            .to_string()
            .starts_with(r#"$[17]: expected one of ["s0",1.5,{"a":[2,"x"],"k":2},"#),
        "{}",
        found[0]
    );
}

#[test]
fn a_refused_pattern_says_why_in_the_schema_error_and_the_limits_are_the_engines() {
    // The engine is hidden; its sentence reaches a user through the schema's error.
    let error = refused(r#"{"properties":{"a":{"pattern":"ab(?=c)"}}}"#);
    assert_eq!(error.pointer, "/properties/a/pattern");
    assert_eq!(error.kind, super::SchemaErrorKind::Refused);
    let engine = super::pattern::Pattern::compile("ab(?=c)").unwrap_err();
    assert!(
        error.message.contains(&engine.to_string()),
        "{} / {engine}",
        error.message
    );
    assert!(error
        .to_string()
        .contains("look-around '(?=' at position 2 has no linear-time meaning"));
    // The limits a user reads at the root are the ones the engine holds.
    let long = "a".repeat(super::MAX_PATTERN_CHARS + 1);
    let error = refused(&format!(r#"{{"pattern":"{long}"}}"#));
    let engine = super::pattern::Pattern::compile(&long).unwrap_err();
    assert_eq!(engine.kind, super::pattern::PatternErrorKind::TooLong);
    assert!(
        error.message.contains(&engine.to_string()),
        "{}",
        error.message
    );
    assert!(super::pattern::Pattern::compile(&long[1..]).is_ok());
    let deep = format!(
        "{}a{}",
        "(".repeat(super::MAX_PATTERN_GROUP_DEPTH + 1),
        ")".repeat(super::MAX_PATTERN_GROUP_DEPTH + 1)
    );
    let engine = super::pattern::Pattern::compile(&deep).unwrap_err();
    assert_eq!(engine.kind, super::pattern::PatternErrorKind::TooDeep);
    assert_eq!(
        super::MAX_PATTERN_COMPILED_BYTES,
        super::pattern::MAX_COMPILED_BYTES
    );
}
