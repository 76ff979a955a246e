//! End-to-end tests of `agentloop validate`: each exit status (0 valid, 1 invalid,
//! 2 refused schema, unreadable or non-I-JSON input, both files on stdin), the output
//! on stdout and stderr, and `-` for standard input.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const ADD_SCHEMA: &str = r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}"#;

/// A scratch directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(test: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "agentloop-cli-validate-{test}-{}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(name);
        fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// What a run of the binary produced.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_in(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentloop"))
        .args(args)
        .current_dir(dir)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        // A child that exits without reading everything closes the pipe: not an error here.
        let _ = pipe.write_all(bytes);
    }
    let Output {
        status,
        stdout,
        stderr,
    } = child.wait_with_output().unwrap();
    let run = Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    };
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run
}

fn validate(dir: &Scratch, schema: &str, instance: &str) -> Run {
    run_in(dir.path(), &["validate", schema, instance], None)
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
            r#"{"properties":{"a":{"patternProperties":{}}}}"#,
            "/properties/a/patternProperties",
            "'patternProperties'",
        ),
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

    let run = validate(&dir, "missing.json", "args.json");
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("agentloop: missing.json: cannot read it"),
        "{}",
        run.stderr
    );
    let run = validate(&dir, "schema.json", "missing.json");
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("agentloop: missing.json: cannot read it"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");

    // Not I-JSON: a duplicate key on line 2, and a schema with a syntax error.
    dir.write("dup.json", "{\"a\":1,\n \"a\":2}");
    let run = validate(&dir, "schema.json", "dup.json");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("agentloop: dup.json line 2 column "),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("duplicate object key"),
        "{}",
        run.stderr
    );
    dir.write("broken.json", r#"{"type":}"#);
    let run = validate(&dir, "broken.json", "args.json");
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("agentloop: broken.json line 1 column 9: the input is not I-JSON"),
        "{}",
        run.stderr
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
    let run = run_in(
        dir.path(),
        &["validate", "schema.json", "-"],
        Some(br#"{"a":2,"b":40}"#),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "<stdin>: valid\n");
    let run = run_in(
        dir.path(),
        &["validate", "-", "args.json"],
        Some(ADD_SCHEMA.as_bytes()),
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, "$.a: expected type integer, got string\n");
    assert!(
        run.stderr.contains("against the schema <stdin>"),
        "{}",
        run.stderr
    );
    let run = run_in(dir.path(), &["validate", "-", "-"], Some(b"{}"));
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("not both"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
}

#[test]
fn usage() {
    let dir = Scratch::new("usage");
    let run = run_in(dir.path(), &["validate", "only-one.json"], None);
    assert_eq!(run.code, 2);
    let run = run_in(dir.path(), &["validate", "--help"], None);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("SCHEMA_FILE") && run.stdout.contains("INSTANCE_FILE"));
}
