//! End-to-end tests of `agentloop validate`: each exit status (0 valid, 1 invalid,
//! 2 refused schema, unreadable or non-I-JSON input, both files on stdin), the output
//! on stdout and stderr, and `-` for standard input.

use crate::common;

use common::{assert_fails, Run, Scratch};

const ADD_SCHEMA: &str = r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}"#;

/// `agentloop validate SCHEMA INSTANCE` in `dir`.
fn validate(dir: &Scratch, schema: &str, instance: &str) -> Run {
    dir.run(&["validate", schema, instance])
}

#[test]
fn valid_instance_exits_0() {
    let dir = Scratch::new("valid");
    dir.write("schema.json", ADD_SCHEMA);
    dir.write("args.json", r#"{"a":2,"b":40}"#);
    let run = validate(&dir, "schema.json", "args.json");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "args.json: valid\n");
    assert_eq!(run.stderr, "");
}

#[test]
fn invalid_instance_exits_1_with_one_violation_per_line() {
    let dir = Scratch::new("invalid");
    dir.write("schema.json", ADD_SCHEMA);
    // The SPEC section 4 example, with the root `$`.
    dir.write("args.json", r#"{"a":"2","b":40}"#);
    let run = validate(&dir, "schema.json", "args.json");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, "$.a: expected type integer, got string\n");
    assert_eq!(
        run.stderr,
        "agentloop: args.json is not valid against the schema schema.json: 1 violation\n"
    );

    // Several violations, in document order, each with its path.
    dir.write(
        "schema2.json",
        r#"{"type":"object","required":["name"],"additionalProperties":false,
            "properties":{"tags":{"type":"array","items":{"type":"string","maxLength":3}},
            "n":{"type":"integer","minimum":0}}}"#,
    );
    dir.write(
        "args2.json",
        r#"{"tags":["ok","toolong",7],"n":-1.5,"x y":true}"#,
    );
    let run = validate(&dir, "schema2.json", "args2.json");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "$: missing required property 'name'\n\
         $.n: expected type integer, got number\n\
         $.n: expected a value >= 0, got -1.5\n\
         $.tags[1]: expected at most 3 characters, got 7\n\
         $.tags[2]: expected type string, got integer\n\
         $['x y']: not allowed: additional property 'x y'\n"
    );
    assert!(run.stderr.contains("args2.json") && run.stderr.contains("6 violations"));
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
}

#[test]
fn refused_schema_exits_2_naming_file_pointer_and_keyword() {
    let dir = Scratch::new("refused");
    dir.write("args.json", "{}");
    for (schema, pointer, keyword) in [
        (
            r#"{"properties":{"a":{"dependencies":{}}}}"#,
            "/properties/a/dependencies",
            "'dependencies'",
        ),
        (r#"{"pattern":"(?=a)"}"#, "/pattern", "look-around"),
        (r#"{"$ref":"other.json"}"#, "/$ref", "another document"),
        (r#"{"type":"dict"}"#, "/type", "'dict'"),
        (r#"{"required":["a","a"]}"#, "/required/1", "'required'"),
        (r#"{"anyOf":[]}"#, "/anyOf", "'anyOf'"),
        (r#"{"minItems":1.5}"#, "/minItems", "'minItems'"),
        (r##"{"$ref":"#/$defs/nowhere"}"##, "/$ref", "'$ref'"),
    ] {
        dir.write("schema.json", schema);
        let run = validate(&dir, "schema.json", "args.json");
        assert_eq!(run.code, 2, "{schema}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{schema}");
        assert!(
            run.stderr.starts_with(&format!(
                "agentloop: schema.json: schema refused at {pointer}: "
            )),
            "{schema}: {}",
            run.stderr
        );
        assert!(run.stderr.contains(keyword), "{schema}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    }
}

#[test]
fn unreadable_or_non_json_input_exits_2() {
    let dir = Scratch::new("unreadable");
    dir.write("schema.json", ADD_SCHEMA);
    dir.write("args.json", r#"{"a":1,"b":2}"#);

    let cannot_read = "agentloop: missing.json: cannot read it";
    assert_fails(&validate(&dir, "missing.json", "args.json"), 2, cannot_read);
    let run = validate(&dir, "schema.json", "missing.json");
    assert_fails(&run, 2, cannot_read);
    assert_eq!(run.stdout, "");

    // Not I-JSON: a duplicate key on line 2, and a schema with a syntax error.
    dir.write("dup.json", "{\"a\":1,\n \"a\":2}");
    let run = validate(&dir, "schema.json", "dup.json");
    assert_fails(&run, 2, "agentloop: dup.json line 2 column ");
    assert!(
        run.stderr.contains("duplicate object key"),
        "{}",
        run.stderr
    );
    dir.write("broken.json", r#"{"type":}"#);
    assert_fails(
        &validate(&dir, "broken.json", "args.json"),
        2,
        "agentloop: broken.json line 1 column 9: the input is not I-JSON",
    );
    // A number with no exact double is refused, not rounded into a verdict.
    dir.write("big.json", r#"{"a":9007199254740993,"b":1}"#);
    let run = validate(&dir, "schema.json", "big.json");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("big.json line 1 column 6"),
        "{}",
        run.stderr
    );
}

#[test]
fn either_file_may_be_stdin_but_not_both() {
    let dir = Scratch::new("stdin");
    dir.write("schema.json", ADD_SCHEMA);
    dir.write("args.json", r#"{"a":"2","b":40}"#);
    let run = dir.run_stdin(&["validate", "schema.json", "-"], br#"{"a":2,"b":40}"#);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "<stdin>: valid\n");
    let run = dir.run_stdin(&["validate", "-", "args.json"], ADD_SCHEMA.as_bytes());
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, "$.a: expected type integer, got string\n");
    assert!(
        run.stderr.contains("against the schema <stdin>"),
        "{}",
        run.stderr
    );
    let run = dir.run_stdin(&["validate", "-", "-"], b"{}");
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("can be read only once, but both SCHEMA_FILE and INSTANCE_FILE name it"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
}

/// The providers' rules (a root with `"type": "object"`) are for registering a tool;
/// `validate` registers none and takes any schema the validator accepts.
#[test]
fn any_accepted_schema_validates_whatever_its_root() {
    let dir = Scratch::new("any-root");
    for (schema, instance, code) in [
        ("true", "7", 0),
        ("false", "7", 1),
        ("{}", r#""anything""#, 0),
        (r#"{"type":"integer"}"#, "7", 0),
        (r#"{"type":"integer"}"#, r#""7""#, 1),
        (r#"{"type":["object","null"]}"#, "null", 0),
        (r#"{"type":["object"]}"#, "{}", 0),
        (
            r#"{"anyOf":[{"type":"string"},{"type":"null"}]}"#,
            "null",
            0,
        ),
        (r#"{"type":"array","items":{"type":"string"}}"#, "[1]", 1),
    ] {
        dir.write("schema.json", schema);
        dir.write("instance.json", instance);
        let run = validate(&dir, "schema.json", "instance.json");
        assert_eq!(run.code, code, "{schema} {instance}: {}", run.stderr);
    }
}

#[test]
fn usage() {
    let dir = Scratch::new("usage");
    let run = dir.run(&["validate", "only-one.json"]);
    assert_eq!(run.code, 2);
    let run = dir.run(&["validate", "--help"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("SCHEMA_FILE") && run.stdout.contains("INSTANCE_FILE"));
}

#[test]
fn keywords_no_draft_knows_get_a_note_and_change_nothing() {
    let dir = Scratch::new("ignored");
    dir.write(
        "schema.json",
        r#"{"type":"object","properties":{"a":{"requried":["b"]}},"x-ui":{}}"#,
    );
    dir.write("args.json", r#"{"a":{}}"#);
    let run = validate(&dir, "schema.json", "args.json");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "args.json: valid\n");
    assert_eq!(
        run.stderr,
        "agentloop: schema.json: note: '/properties/a/requried' is not a keyword of draft \
         2020-12 and is ignored (an annotation)\n\
         agentloop: schema.json: note: '/x-ui' is not a keyword of draft 2020-12 and is \
         ignored (an annotation)\n"
    );
}

#[test]
fn a_schema_past_its_budget_exits_2_and_an_instance_past_the_steps_exits_1() {
    let dir = Scratch::new("budget");
    // The red team's schema of issue 28, each pattern its own: 9 MB of automaton each.
    let properties: Vec<String> = (0..80)
        .map(|i| format!(r#""p{i}":{{"pattern":"^\\p{{L}}{{195}}{i}$"}}"#))
        .collect();
    dir.write(
        "schema.json",
        format!(r#"{{"properties":{{{}}}}}"#, properties.join(",")),
    );
    dir.write("args.json", "{}");
    let run = validate(&dir, "schema.json", "args.json");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.starts_with(
            "agentloop: schema.json: schema refused at /properties/p1/pattern: keyword \
             'pattern': "
        ) && run
            .stderr
            .contains("more than its budget of 16777216 bytes"),
        "{}",
        run.stderr
    );
    // Schema size × instance size past what one validation may take: not accepted.
    let all_of: Vec<String> = (0..10_000)
        .map(|i| format!(r#"{{"minimum":-{i}}}"#))
        .collect();
    dir.write(
        "many.json",
        format!(r#"{{"items":{{"allOf":[{}]}}}}"#, all_of.join(",")),
    );
    dir.write("ones.json", format!("[{}]", vec!["1"; 2_000].join(",")));
    let run = validate(&dir, "many.json", "ones.json");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("$: validation stopped: checking this instance against the schema takes more than 16777216 steps"),
        "{}",
        run.stdout
    );
}
