//! The cost bounds of issue 28: the budget of a schema's compiled patterns (item 2),
//! and validation work that does not grow as schema size × instance size (item 3),
//! counted in steps ([`Schema::check_steps`]), never timed.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{compile, json, violations};
use crate::pattern::{Pattern, PatternErrorKind};
use crate::validate::validate_within;
use crate::{
    work, OverBudget, Schema, SchemaErrorKind, KEYWORDS_BYTES, MAX_SCHEMA_COMPILED_BYTES,
    MAX_VALIDATION_STEPS, SUBSCHEMA_BYTES,
};

/// `"p0":{…},"p1":{…},…`: `n` members, the `i`-th made by `member`.
fn members(n: usize, member: impl Fn(usize) -> String) -> String {
    (0..n).map(member).collect::<Vec<_>>().join(",")
}

/// The red team's schema: `n` string properties, each with the pattern `letters(i)`.
fn with_patterns(n: usize, pattern: impl Fn(usize) -> String) -> agentloop_json::Value {
    let props = members(n, |i| {
        format!(r#""p{i}":{{"type":"string","pattern":"{}"}}"#, pattern(i))
    });
    json(&format!(r#"{{"type":"object","properties":{{{props}}}}}"#))
}

/// `^\p{L}{195}` and, for a distinct pattern, a literal `i`: 9 MB of automaton each.
fn letters(i: usize) -> String {
    format!("^\\\\p{{L}}{{195}}{i}$")
}

#[test]
fn patterns_past_the_budget_of_their_schema_are_refused_naming_it() {
    // 50, 80 and 300 large patterns: compiled one by one until the budget is spent (the
    // second), then refused there, without building the rest.
    for n in [50, 80, 300] {
        let e = refused(&with_patterns(n, letters));
        let SchemaErrorKind::OverBudget(OverBudget { budget, spent }) = e.kind else {
            panic!("{n} patterns: {e}");
        };
        assert_eq!(budget, MAX_SCHEMA_COMPILED_BYTES);
        assert!(
            spent > MAX_SCHEMA_COMPILED_BYTES / 2 && spent < budget,
            "{spent}"
        );
        // Members in canonical order: p0, p1, p10, … — the second compiled is p1.
        assert_eq!(e.pointer, "/properties/p1/pattern");
        assert_eq!(
            e.to_string(),
            format!(
                "schema refused at /properties/p1/pattern: keyword 'pattern': \
                 '^\\\\p{{L}}{{195}}1$' would bring the schema's compiled form (its \
                 subschemas and the automata of its patterns) to more than its budget of \
                 16777216 bytes ({spent} bytes taken before)"
            )
        );
        assert_eq!(
            e.kind.to_string(),
            format!(
                "its compiled form would take more than its budget of 16777216 bytes \
                 ({spent} bytes taken before)"
            )
        );
    }
}

#[test]
fn a_pattern_written_many_times_is_compiled_once() {
    // The red team's schema as written: one pattern, 300 times.
    let schema = compile_value(&with_patterns(300, |_| String::from("^\\\\p{L}{195}$")));
    let one = Pattern::compile("^\\p{L}{195}$").unwrap();
    // The pattern once, and 302 subschemas (the root and 300 properties with keywords,
    // and the `{}` none has).
    let nodes = 301 * (SUBSCHEMA_BYTES + KEYWORDS_BYTES);
    assert_eq!(schema.compiled_bytes(), one.compiled_bytes() + nodes);
    assert!(schema.is_valid(&json(&format!(r#"{{"p7":"{}"}}"#, "é".repeat(195)))));
    assert!(!schema.is_valid(&json(r#"{"p7":"short"}"#)));
}

fn compile_value(value: &agentloop_json::Value) -> Schema {
    Schema::compile(value).unwrap_or_else(|e| panic!("refused: {e}"))
}

/// Why `value` is refused (without printing the schema when it is not).
fn refused(value: &agentloop_json::Value) -> crate::SchemaError {
    match Schema::compile(value) {
        Err(e) => e,
        Ok(_) => panic!("compiled"),
    }
}

#[test]
fn a_schema_just_under_its_budget_compiles_and_one_pattern_more_is_refused() {
    let big = ["^\\\\p{L}{195}$", "^\\\\p{L}{1,100}$"];
    let near = compile_value(&with_patterns(2, |i| String::from(big[i])));
    let bytes = near.compiled_bytes();
    assert!(
        bytes > MAX_SCHEMA_COMPILED_BYTES * 3 / 4 && bytes <= MAX_SCHEMA_COMPILED_BYTES,
        "{bytes}"
    );
    let more = [
        "^\\\\p{L}{195}$",
        "^\\\\p{L}{1,100}$",
        "^[\\\\p{L}\\\\p{N}_-]{1,64}$",
    ];
    let e = refused(&with_patterns(3, |i| String::from(more[i])));
    let SchemaErrorKind::OverBudget(OverBudget { budget, spent }) = e.kind else {
        panic!("{e}");
    };
    assert_eq!(budget, MAX_SCHEMA_COMPILED_BYTES);
    // What the two patterns and the subschemas before the third took.
    assert!(
        spent > bytes - KEYWORDS_BYTES && spent < bytes + SUBSCHEMA_BYTES,
        "{spent}"
    );
    assert_eq!(e.pointer, "/properties/p2/pattern");
    // The budget can be given: what a tool set has left.
    let e = match Schema::compile_within(&with_patterns(2, |i| String::from(big[i])), bytes - 1) {
        Err(e) => e,
        Ok(_) => panic!("compiled"),
    };
    assert!(matches!(e.kind, SchemaErrorKind::OverBudget(_)), "{e}");
    assert_eq!(
        Schema::compile_within(&with_patterns(2, |i| String::from(big[i])), bytes)
            .map(|s| s.compiled_bytes()),
        Ok(bytes)
    );
}

#[test]
fn many_small_patterns_are_charged_too() {
    // Each small pattern is a fully compiled DFA of a few kilobytes: thousands of them
    // in a schema of a megabyte would take hundreds of megabytes and seconds.
    let one = Pattern::compile("a0").unwrap().compiled_bytes();
    assert!((1_000..8_000).contains(&one), "{one}");
    let fits = MAX_SCHEMA_COMPILED_BYTES / 8_000;
    let schema = compile_value(&with_patterns(fits, |i| format!("a{i}")));
    assert!(schema.compiled_bytes() <= MAX_SCHEMA_COMPILED_BYTES);
    let e = refused(&with_patterns(38_000, |i| format!("a{i}")));
    assert!(matches!(e.kind, SchemaErrorKind::OverBudget(_)), "{e}");
    // A pattern refused for itself is refused as before, whatever is left.
    let e = refused(&with_patterns(1, |_| String::from("\\\\p{L}{1000}")));
    assert_eq!(e.kind, SchemaErrorKind::Refused);
    assert!(e.message.contains("larger than 8388608 bytes"), "{e}");
}

#[test]
fn a_pattern_within_a_budget_says_what_it_takes() {
    let p = Pattern::compile("^[a-z0-9-]{1,39}$").unwrap();
    let bytes = p.compiled_bytes();
    assert_eq!(
        Pattern::compile_within("^[a-z0-9-]{1,39}$", bytes).map(|p| p.compiled_bytes()),
        Ok(bytes)
    );
    let e = Pattern::compile_within("^[a-z0-9-]{1,39}$", bytes - 1).unwrap_err();
    assert_eq!((e.kind, e.position), (PatternErrorKind::OverBudget, 0));
    assert_eq!(
        e.to_string(),
        "pattern compiles to more bytes than its budget has left"
    );
    // A large pattern is given up within its budget, not compiled whole.
    let e = Pattern::compile_within("^\\p{L}{195}$", 1 << 20).unwrap_err();
    assert_eq!(e.kind, PatternErrorKind::OverBudget);
    // One that fits the bound of one pattern (each of its automata under 8 MiB) but not
    // the budget is past the budget, not too large.
    let big = Pattern::compile("^\\p{L}{195}$").unwrap().compiled_bytes();
    assert!(big > 9 << 20, "{big}");
    let e = Pattern::compile_within("^\\p{L}{195}$", 9 << 20).unwrap_err();
    assert_eq!(e.kind, PatternErrorKind::OverBudget);
    let e = Pattern::compile("\\p{L}{1000}").unwrap_err();
    assert_eq!(e.kind, PatternErrorKind::TooLarge);
    assert_eq!(p.clone().compiled_bytes(), bytes);
}

/// `{"type":"array","items":{KEYWORD:[n alternatives]}}` and `m` items.
fn items_of(keyword: &str, n: usize, alternative: impl Fn(usize) -> String) -> Schema {
    let list = members(n, alternative);
    compile(&format!(
        r#"{{"type":"array","items":{{"{keyword}":[{list}]}}}}"#
    ))
}

#[test]
fn const_alternatives_are_found_in_an_index_not_tried_one_by_one() {
    let (n, m) = (10_000, 20_000);
    let any_of = items_of("anyOf", n, |i| format!(r#"{{"const":{i}}}"#));
    let near_the_end = json(&format!(
        "[{}]",
        members(m, |i| format!("{}", n - 1 - i % 100))
    ));
    let (valid, steps) = any_of.check_steps(&near_the_end);
    assert!(valid);
    // Two binary searches an item (15 comparisons each), not a check of each
    // alternative (10,000 × 20,000 before).
    assert!(steps < 40 * m as u64, "{steps}");
    // A labelled enum as generators write it: `oneOf` of `const` and `title`.
    let one_of = items_of("oneOf", n, |i| format!(r#"{{"const":"v{i}","title":"V"}}"#));
    let strings = json(&format!("[{}]", members(m, |i| format!(r#""v{}""#, i % n))));
    let (valid, steps) = one_of.check_steps(&strings);
    assert!(valid);
    assert!(steps < 40 * m as u64, "{steps}");
    // None matches: each item reported, in as few steps.
    let outside = json(&format!("[{}]", members(m, |i| format!("{}", n + i))));
    let found = any_of.validate(&outside, "$");
    assert_eq!(found.len(), m);
    assert_eq!(
        found[0].to_string(),
        "$[0]: expected to match at least one of 10000 alternatives"
    );
}

#[test]
fn indexed_alternatives_give_the_verdicts_and_messages_of_trying_each() {
    // Fixed values (`const`, `enum`, with bounds that drop some, `false`) among other
    // alternatives, in `anyOf` and `oneOf`, with repeats: what the index answers must
    // be what trying each in order answers.
    let fixed: Vec<String> = (0..16)
        .map(|i| match i % 4 {
            0 => format!(r#"{{"const":{}}}"#, i / 2),
            1 => format!(r#"{{"enum":[{},"s{i}",[1],{{"a":1}}]}}"#, i / 3),
            2 => format!(r#"{{"const":{},"minimum":3,"title":"t"}}"#, i / 4),
            _ => String::from("false"),
        })
        .collect();
    let others = [
        r#"{"type":"string","minLength":3}"#,
        r#"{"minimum":5}"#,
        r#"{"type":"array"}"#,
    ];
    let instances = [
        "0",
        "1",
        "1.0",
        "2",
        "3",
        "4",
        "5",
        "7",
        "\"s5\"",
        "\"abcd\"",
        "[1]",
        "[1.0]",
        "{\"a\":1}",
        "{\"a\":2}",
        "null",
        "true",
        "-1",
    ];
    for keyword in ["anyOf", "oneOf"] {
        for at in [0, 7, 16] {
            let mut list = fixed.clone();
            for (j, other) in others.iter().enumerate() {
                list.insert((at + j * 5).min(list.len()), String::from(*other));
            }
            let schema = format!(r#"{{"{keyword}":[{}]}}"#, list.join(","));
            assert!(compile(&schema).tree.nodes.iter().any(|n| matches!(
                n,
                crate::tree::Node::Keywords(k)
                    if k.any_of_choices.is_some() || k.one_of_choices.is_some()
            )));
            for instance in instances {
                let indexed = violations(&schema, instance);
                let each = work::general_path(|| violations(&schema, instance));
                assert_eq!(indexed, each, "{schema} / {instance}");
            }
        }
    }
}

#[test]
fn many_pattern_properties_read_a_name_once() {
    let (n, m) = (5_000, 20_000);
    let patterns = members(n, |i| format!(r#""^p{i}_":{{"type":"integer"}}"#));
    let schema = compile(&format!(
        r#"{{"type":"object","patternProperties":{{{patterns}}}}}"#
    ));
    let names = json(&format!(
        "{{{}}}",
        members(m, |i| format!(r#""p{}_{i}":{i}"#, i % n))
    ));
    let (valid, steps) = schema.check_steps(&names);
    assert!(valid);
    // A few steps a name (and a read of the group's answer), not one a pattern.
    assert!(steps < 50 * m as u64, "{steps}");
    let wrong = json(r#"{"p7_x":"s","p70_y":1,"q":"s"}"#);
    assert_eq!(
        schema
            .validate(&wrong, "$")
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["$.p7_x: expected type integer, got string"]
    );
}

#[test]
fn dependent_keywords_cost_the_members_not_the_entries() {
    let (n, m) = (10_000, 20_000);
    let entries = members(n, |i| format!(r#""d{i}":{{"required":["x"]}}"#));
    let schema = compile(&format!(
        r#"{{"items":{{"dependentSchemas":{{{entries}}}}}}}"#
    ));
    let objects = json(&format!(
        "[{}]",
        members(m, |i| format!(r#"{{"d{i}":1,"x":2}}"#))
    ));
    let ((valid, steps), comparisons) = work::comparisons_in(|| schema.check_steps(&objects));
    assert!(valid);
    assert!(steps < 20 * m as u64, "{steps}");
    // Each member looked up among the entries (10,000 × 20,000 lookups before).
    assert!(comparisons < 4 * m as u64, "{comparisons}");
    let missing = json(r#"[{"d3":1},{"d30":1,"x":1}]"#);
    assert_eq!(
        schema
            .validate(&missing, "$")
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["$[0]: missing required property 'x'"]
    );
    let names = members(n, |i| format!(r#""d{i}":["x"]"#));
    let schema = compile(&format!(
        r#"{{"items":{{"dependentRequired":{{{names}}}}}}}"#
    ));
    let ((valid, steps), comparisons) = work::comparisons_in(|| schema.check_steps(&objects));
    assert!(valid);
    assert!(steps < 20 * m as u64, "{steps}");
    assert!(comparisons < 4 * m as u64, "{comparisons}");
}

#[test]
fn validation_stops_at_its_steps_with_one_violation_saying_so() {
    let schema = items_of("allOf", 100, |i| format!(r#"{{"minimum":-{i}}}"#));
    let tree = &schema.tree;
    let instance = json(&format!("[{}]", members(1_000, |_| String::from("1"))));
    let (valid, steps) = schema.check_steps(&instance);
    assert!(valid);
    assert!(steps > 100_000, "{steps}");
    assert!(validate_within(tree, &instance, "$.t", steps).is_empty());
    let stopped = validate_within(tree, &instance, "$.t", steps - 1);
    assert_eq!(stopped.len(), 1);
    assert_eq!(
        stopped[0].to_string(),
        format!(
            "$.t: validation stopped: checking this instance against the schema takes more \
             than {MAX_VALIDATION_STEPS} steps (schema::MAX_VALIDATION_STEPS), so it is not \
             accepted"
        )
    );
    // And when the detailed pass runs out (an invalid instance): the same one violation.
    let invalid = json(&format!("[{}]", members(1_000, |_| String::from("-500"))));
    let found = validate_within(tree, &invalid, "$", 10_000);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].message.starts_with("validation stopped"));
    // The whole budget: schema size × instance size stops there.
    let schema = items_of("allOf", 10_000, |i| format!(r#"{{"minimum":-{i}}}"#));
    let instance = json(&format!("[{}]", members(2_000, |_| String::from("1"))));
    assert_eq!(schema.check_steps(&instance), (false, MAX_VALIDATION_STEPS));
    assert!(!schema.is_valid(&instance));
    let found = schema.validate(&instance, "$");
    assert_eq!(found.len(), 1);
    assert!(found[0].message.starts_with("validation stopped"));
}

#[test]
fn a_long_value_is_shown_without_being_written_whole() {
    use crate::message::show;
    let long = "x".repeat(500_000);
    let shown = show(&agentloop_json::Value::from(long.as_str()));
    assert_eq!(shown, format!("\"{}...", "x".repeat(99)));
    // As the canonical encoding cut at 100 bytes, for values of every shape.
    for text in [
        r#""short""#,
        r#"[1,2,3]"#,
        r#"{"b":[1,{"c":"é😀"}],"a":null}"#,
        r#""é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀é😀""#,
        r#""\u0001\u0001\u0001\u0001\u0001\u0001\u0001\u0001\u0001\u0001\u0001\u0001\u0001\u0001\u0001\u0001\u0001\u0001""#,
    ] {
        let value = json(text);
        let whole = String::from_utf8(agentloop_json::jcs::to_vec(&value).unwrap()).unwrap();
        let expected = if whole.len() <= 100 {
            whole
        } else {
            let mut end = 100;
            while !whole.is_char_boundary(end) {
                end -= 1;
            }
            format!("{}...", &whole[..end])
        };
        assert_eq!(show(&value), expected, "{text}");
    }
    let long_key = json(&format!(r#"{{"{}":1}}"#, "k".repeat(300)));
    assert_eq!(show(&long_key), format!("{{\"{}...", "k".repeat(98)));
}

#[test]
fn a_typical_large_instance_takes_a_small_part_of_the_steps() {
    // 10,000 calls' worth of objects against a pydantic-style model with references:
    // about a megabyte.
    let schema = compile(
        r##"{"$defs":{"Item":{"type":"object","properties":{"id":{"type":"integer"},
        "name":{"type":"string","maxLength":64,"pattern":"^[a-z0-9-]+$"},
        "tags":{"type":"array","items":{"type":"string"}},
        "price":{"anyOf":[{"type":"number","minimum":0},{"type":"null"}]}},
        "required":["id","name"],"additionalProperties":false}},
        "type":"object","properties":{"items":{"type":"array","items":{"$ref":"#/$defs/Item"}}}}"##,
    );
    let item = r#"{"id":1,"name":"a-widget","tags":["x","y"],"price":2.5}"#;
    let instance = json(&format!(
        r#"{{"items":[{}]}}"#,
        members(10_000, |_| String::from(item))
    ));
    let (valid, steps) = schema.check_steps(&instance);
    assert!(valid);
    assert!(steps < MAX_VALIDATION_STEPS / 100, "{steps}");
}

/// Patterns of every kind a group of `patternProperties` meets: anchored or not, that
/// can match the empty string or not, with `\b` and `\B`, non-ASCII.
const PATTERNS: &[&str] = &[
    "^a",
    "a",
    "b$",
    "\\bé",
    "\\Bé",
    "é\\B",
    "^$",
    "",
    "a*",
    "\\B",
    "(?:\\Bb)?",
    "[^a]",
    "😀",
    "\\w+",
    "^\\W",
    "c|^b",
    "a{2}",
    ".",
    "\\b",
    "x?$",
    "\\B$",
    "^\\B",
    "é",
    "b\\b",
    "[😀-😀]\\B",
    "(?:a|)$",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// The patterns of a `patternProperties` with more than a few, matched together,
    /// say of each name what each pattern alone says.
    #[test]
    fn a_group_of_patterns_matches_what_each_alone_matches(
        picks in proptest::collection::btree_set(0..PATTERNS.len(), 13..PATTERNS.len()),
        keys in proptest::collection::vec("[abcxé😀 _-]{0,5}", 1..10),
    ) {
        use crate::tree::Node;
        let sources: Vec<&str> = picks.iter().map(|&i| PATTERNS[i]).collect();
        let members = sources
            .iter()
            .enumerate()
            .map(|(i, p)| format!(r#""{}":{{"const":{i}}}"#, p.replace('\\', "\\\\")))
            .collect::<Vec<_>>()
            .join(",");
        let schema = compile(&format!(r#"{{"patternProperties":{{{members}}}}}"#));
        let Some(Node::Keywords(k)) = schema.tree.nodes.get(schema.tree.root) else {
            panic!("no keywords");
        };
        let mut seen = Vec::new();
        let mut found = Vec::new();
        for key in &keys {
            k.pattern_properties.matching(key, &mut seen, &mut found).unwrap();
            // The schemas in canonical key order of their patterns, as alone.
            let mut alone: Vec<(String, bool)> = sources
                .iter()
                .map(|p| (String::from(*p), Pattern::compile(p).unwrap().is_match(key)))
                .collect();
            alone.sort_by(|a, b| agentloop_json::cmp_keys(&a.0, &b.0));
            let expected: Vec<bool> = alone.iter().map(|(_, hit)| *hit).collect();
            let nodes: Vec<usize> = k.pattern_properties.nodes().collect();
            let got: Vec<bool> = nodes.iter().map(|n| found.contains(n)).collect();
            proptest::prop_assert_eq!(&got, &expected, "{:?} on {:?}", alone, key);
        }
    }
}
