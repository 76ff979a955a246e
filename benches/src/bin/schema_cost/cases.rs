//! The cases of `schema-cost`: each builds its schema and instance documents.

/// A case: its name, what it shows, and its schema and instance documents.
pub(crate) struct Case {
    /// The name that picks it on the command line.
    pub(crate) name: &'static str,
    /// What its table row says it is.
    pub(crate) what: &'static str,
    /// Its schema and instance documents.
    pub(crate) build: fn() -> (String, String),
}

/// `n` members `"<key(i)>":<value(i)>` of an object, comma-separated.
fn members(n: usize, member: impl Fn(usize) -> String) -> String {
    (0..n).map(member).collect::<Vec<_>>().join(",")
}

/// The red team's schema: `n` properties, each a string matching `^\p{L}{195}$`.
fn letters(n: usize) -> (String, String) {
    let props = members(n, |i| {
        format!(r#""p{i}":{{"type":"string","pattern":"^\\p{{L}}{{195}}$"}}"#)
    });
    let schema = format!(r#"{{"type":"object","properties":{{{props}}}}}"#);
    (schema, String::from(r#"{"p0":"abc"}"#))
}

/// Like [`letters`], each pattern different (`^\p{L}{195}` and a literal of its own),
/// so that no two compile to the same automaton.
fn distinct_letters(n: usize) -> (String, String) {
    let props = members(n, |i| {
        format!(r#""p{i}":{{"type":"string","pattern":"^\\p{{L}}{{195}}{i}$"}}"#)
    });
    let schema = format!(r#"{{"type":"object","properties":{{{props}}}}}"#);
    (schema, String::from(r#"{"p0":"abc"}"#))
}

/// `anyOf` of `n` `const`s as the items' schema, 60,000 items that each match one of
/// the last alternatives (valid: every item is checked).
fn const_any_of(n: usize) -> (String, String) {
    let alternatives = members(n, |i| format!(r#"{{"const":{i}}}"#));
    let schema = format!(r#"{{"type":"array","items":{{"anyOf":[{alternatives}]}}}}"#);
    let items = members(60_000, |i| format!("{}", n - 1000 + i % 1000));
    (schema, format!("[{items}]"))
}

/// The same, with every item matching none of the alternatives (invalid: the detailed
/// pass reports each item).
fn const_any_of_invalid() -> (String, String) {
    let (schema, _) = const_any_of(10_000);
    let items = members(60_000, |i| format!("{}", 10_000 + i));
    (schema, format!("[{items}]"))
}

/// `oneOf` of 10,000 `const`s (a labelled enum as generators write it), 60,000 items.
fn const_one_of() -> (String, String) {
    let alternatives = members(10_000, |i| format!(r#"{{"const":"v{i}","title":"V"}}"#));
    let schema = format!(r#"{{"type":"array","items":{{"oneOf":[{alternatives}]}}}}"#);
    let items = members(60_000, |i| format!(r#""v{}""#, 9_000 + i % 1000));
    (schema, format!("[{items}]"))
}

/// 5,000 `patternProperties` (`^p<i>_`), an object of 45,000 members matching none
/// of them (each name is tried against every pattern).
fn pattern_properties() -> (String, String) {
    let patterns = members(5_000, |i| format!(r#""^p{i}_":{{"type":"integer"}}"#));
    let schema = format!(r#"{{"type":"object","patternProperties":{{{patterns}}}}}"#);
    let names = members(45_000, |i| format!(r#""q{}_{i}":{i}"#, i % 5_000));
    (schema, format!("{{{names}}}"))
}

/// 5,000 `patternProperties` (`^p<i>_`), 45,000 member names, each matching one.
fn pattern_properties_matching() -> (String, String) {
    let patterns = members(5_000, |i| format!(r#""^p{i}_":{{"type":"integer"}}"#));
    let schema = format!(r#"{{"type":"object","patternProperties":{{{patterns}}}}}"#);
    let names = members(45_000, |i| format!(r#""p{}_{i}":{i}"#, i % 5_000));
    (schema, format!("{{{names}}}"))
}

/// `allOf` of 10,000 `minimum`s on every one of 60,000 numbers: work the schema asks
/// for, schema size × instance size, which only the validation budget bounds.
fn all_of_minimum() -> (String, String) {
    let alternatives = members(10_000, |i| format!(r#"{{"minimum":-{i}}}"#));
    let schema = format!(r#"{{"type":"array","items":{{"allOf":[{alternatives}]}}}}"#);
    let items = members(60_000, |_| String::from("1"));
    (schema, format!("[{items}]"))
}

/// `anyOf` of 10,000 `minimum`s (no index: not fixed values) on 60,000 numbers that
/// only the last matches.
fn any_of_minimum() -> (String, String) {
    let alternatives = members(10_000, |i| format!(r#"{{"minimum":{}}}"#, 10_000 - i));
    let schema = format!(r#"{{"type":"array","items":{{"anyOf":[{alternatives}]}}}}"#);
    (
        schema,
        format!("[{}]", members(60_000, |_| String::from("1"))),
    )
}

/// `allOf` of 5,000 references to as many definitions, on 60,000 numbers: remembered
/// verdicts.
fn all_of_refs() -> (String, String) {
    let defs = members(5_000, |i| format!(r#""d{i}":{{"minimum":-{i}}}"#));
    let refs = members(5_000, |i| format!(r##"{{"$ref":"#/$defs/d{i}"}}"##));
    let schema = format!(r#"{{"$defs":{{{defs}}},"items":{{"allOf":[{refs}]}}}}"#);
    (
        schema,
        format!("[{}]", members(60_000, |_| String::from("1"))),
    )
}

/// `allOf` of 5,000 `{"type":"string"}` on 100,000 numbers: a violation each, every
/// time.
fn many_violations() -> (String, String) {
    let alternatives = members(5_000, |_| String::from(r#"{"type":"string"}"#));
    let schema = format!(r#"{{"items":{{"allOf":[{alternatives}]}}}}"#);
    (
        schema,
        format!("[{}]", members(100_000, |_| String::from("1"))),
    )
}

/// `allOf` of 5,000 `maxLength`s on ten strings of 100,000 two-byte characters: each
/// counted in characters.
fn long_strings() -> (String, String) {
    let alternatives = members(5_000, |i| format!(r#"{{"maxLength":{}}}"#, 100_000 + i));
    let schema = format!(r#"{{"items":{{"allOf":[{alternatives}]}}}}"#);
    let long = format!(r#""{}""#, "é".repeat(50_000));
    (schema, format!("[{}]", members(10, |_| long.clone())))
}

/// `allOf` of 5,000 `uniqueItems` on an array of 1,000 arrays of 100 numbers, equal
/// but for the last.
fn unique_items() -> (String, String) {
    let alternatives = members(5_000, |_| String::from(r#"{"uniqueItems":true}"#));
    let schema = format!(r#"{{"allOf":[{alternatives}]}}"#);
    let items = members(1_000, |i| {
        format!("[{},{i}]", members(99, |_| String::from("7")))
    });
    (schema, format!("[{items}]"))
}

/// `allOf` of 5,000 `propertyNames` on an object of 50,000 members.
fn property_names() -> (String, String) {
    let alternatives = members(5_000, |i| {
        format!(r#"{{"propertyNames":{{"maxLength":{}}}}}"#, 10 + i)
    });
    let schema = format!(r#"{{"allOf":[{alternatives}]}}"#);
    (
        schema,
        format!("{{{}}}", members(50_000, |i| format!(r#""k{i}":1"#))),
    )
}

/// `anyOf` of 5,000 `properties` and `unevaluatedProperties: false`, on an object of
/// 50,000 members: what each alternative evaluated is collected.
fn unevaluated() -> (String, String) {
    let alternatives = members(5_000, |i| format!(r#"{{"properties":{{"k{i}":true}}}}"#));
    let schema = format!(r#"{{"anyOf":[{alternatives}],"unevaluatedProperties":false}}"#);
    (
        schema,
        format!("{{{}}}", members(50_000, |i| format!(r#""k{i}":1"#))),
    )
}

/// `allOf` of 500 `const`s of 200 numbers on 500 arrays equal to them but for the last.
fn big_consts() -> (String, String) {
    let numbers = members(199, |_| String::from("7"));
    let alternatives = members(500, |i| format!(r#"{{"const":[{numbers},{i}]}}"#));
    let schema = format!(r#"{{"items":{{"allOf":[{alternatives}]}}}}"#);
    let items = members(500, |_| format!("[{numbers},-1]"));
    (schema, format!("[{items}]"))
}

/// 10,000 `dependentSchemas` on each of 60,000 empty objects.
fn dependent_schemas() -> (String, String) {
    let entries = members(10_000, |i| format!(r#""d{i}":{{"required":["x"]}}"#));
    let schema = format!(r#"{{"items":{{"dependentSchemas":{{{entries}}}}}}}"#);
    let items = members(60_000, |_| String::from("{}"));
    (schema, format!("[{items}]"))
}

/// A `const` of 500,000 characters, 250,000 items that differ from it: each
/// violation quotes the constant.
fn big_const() -> (String, String) {
    let schema = format!(r#"{{"items":{{"const":"{}"}}}}"#, "x".repeat(500_000));
    let items = members(250_000, |_| String::from("1"));
    (schema, format!("[{items}]"))
}

/// A schema of about 1 MB made of distinct small patterns (`"a<i>"`).
fn tiny_patterns() -> (String, String) {
    let props = members(38_000, |i| format!(r#""a{i}":{{"pattern":"a{i}"}}"#));
    (
        format!(r#"{{"properties":{{{props}}}}}"#),
        String::from("{}"),
    )
}

/// A schema of about 1 MB of small patterns that are searched at each code-point index
/// (`\B` that can match the empty string: `(?:\Ba<i>)?`).
fn tiny_empty_patterns() -> (String, String) {
    let props = members(30_000, |i| {
        format!(r#""a{i}":{{"pattern":"(?:\\Ba{i})?"}}"#)
    });
    (
        format!(r#"{{"properties":{{{props}}}}}"#),
        String::from("{}"),
    )
}

/// A schema of about 1 MB of small patterns whose fully compiled DFA is too large
/// (given up at its bound): `(a|b)*a(a|b){12}<i>`.
fn exploding_patterns() -> (String, String) {
    let props = members(30_000, |i| {
        format!(r#""a{i}":{{"pattern":"(a|b)*a(a|b){{12}}{i}"}}"#)
    });
    (
        format!(r#"{{"properties":{{{props}}}}}"#),
        String::from("{}"),
    )
}

/// A schema of about 1 MB: 120 nested `not`s around an `anyOf` of 300,000 `{"title":""}`
/// (each read with its place deep in the document).
fn deep_and_wide() -> (String, String) {
    let alternatives = members(70_000, |_| String::from(r#"{"title":""}"#));
    let open = r#"{"not":"#.repeat(120);
    let close = "}".repeat(120);
    (
        format!(r#"{open}{{"anyOf":[{alternatives}]}}{close}"#),
        String::from("1"),
    )
}

/// A schema of about 1 MB: `anyOf` of empty schemas (the densest compiled form).
fn empty_any_of() -> (String, String) {
    let alternatives = members(330_000, |_| String::from("{}"));
    (
        format!(r#"{{"anyOf":[{alternatives}]}}"#),
        String::from("1"),
    )
}

pub(crate) const CASES: &[Case] = &[
    Case {
        name: "patterns-50",
        what: "50 × `^\\p{L}{195}$`",
        build: || letters(50),
    },
    Case {
        name: "patterns-80",
        what: "80 × `^\\p{L}{195}$`",
        build: || letters(80),
    },
    Case {
        name: "patterns-300",
        what: "300 × `^\\p{L}{195}$`",
        build: || letters(300),
    },
    Case {
        name: "distinct-patterns-300",
        what: "300 distinct `^\\p{L}{195}<i>$`",
        build: || distinct_letters(300),
    },
    Case {
        name: "tiny-patterns",
        what: "38,000 distinct patterns `a<i>`",
        build: tiny_patterns,
    },
    Case {
        name: "tiny-empty-patterns",
        what: "30,000 distinct patterns `(?:\\Ba<i>)?`",
        build: tiny_empty_patterns,
    },
    Case {
        name: "exploding-patterns",
        what: "30,000 distinct patterns `(a|b)*a(a|b){12}<i>`",
        build: exploding_patterns,
    },
    Case {
        name: "deep-and-wide",
        what: "120 `not`s around `anyOf` of 70,000 `{\"title\":\"\"}`",
        build: deep_and_wide,
    },
    Case {
        name: "empty-any-of",
        what: "`anyOf` of 330,000 `{}`",
        build: empty_any_of,
    },
    Case {
        name: "const-any-of-30k",
        what: "`anyOf` of 30k `const`s × 60k items (the red team's)",
        build: || const_any_of(30_000),
    },
    Case {
        name: "const-any-of",
        what: "`anyOf` of 10k `const`s × 60k items (valid)",
        build: || const_any_of(10_000),
    },
    Case {
        name: "const-any-of-invalid",
        what: "`anyOf` of 10k `const`s × 60k items (none matches)",
        build: const_any_of_invalid,
    },
    Case {
        name: "const-one-of",
        what: "`oneOf` of 10k string `const`s × 60k items",
        build: const_one_of,
    },
    Case {
        name: "pattern-properties",
        what: "5k `patternProperties` × 45k names (none matches)",
        build: pattern_properties,
    },
    Case {
        name: "pattern-properties-matching",
        what: "5k `patternProperties` × 45k names (one each)",
        build: pattern_properties_matching,
    },
    Case {
        name: "all-of-minimum",
        what: "`allOf` of 10k `minimum`s × 60k items",
        build: all_of_minimum,
    },
    Case {
        name: "any-of-minimum",
        what: "`anyOf` of 10k `minimum`s × 60k items",
        build: any_of_minimum,
    },
    Case {
        name: "all-of-refs",
        what: "`allOf` of 5k `$ref`s × 60k items",
        build: all_of_refs,
    },
    Case {
        name: "many-violations",
        what: "`allOf` of 5k `type`s × 100k items, all failing",
        build: many_violations,
    },
    Case {
        name: "long-strings",
        what: "`allOf` of 5k `maxLength`s × 10 strings of 100 KB",
        build: long_strings,
    },
    Case {
        name: "unique-items",
        what: "`allOf` of 5k `uniqueItems` × 1,000 arrays of 100",
        build: unique_items,
    },
    Case {
        name: "property-names",
        what: "`allOf` of 5k `propertyNames` × 50k members",
        build: property_names,
    },
    Case {
        name: "unevaluated",
        what: "`anyOf` of 5k `properties` + `unevaluatedProperties` × 50k members",
        build: unevaluated,
    },
    Case {
        name: "big-consts",
        what: "`allOf` of 500 `const`s of 200 items × 500 arrays",
        build: big_consts,
    },
    Case {
        name: "dependent-schemas",
        what: "10k `dependentSchemas` × 60k objects",
        build: dependent_schemas,
    },
    Case {
        name: "big-const",
        what: "a 500 KB `const` × 250k items that differ",
        build: big_const,
    },
];
