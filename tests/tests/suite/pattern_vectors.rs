//! The JSON Schema Test Suite's regex cases (draft 2020-12: `pattern.json`,
//! `patternProperties.json`, `optional/ecmascript-regex.json`,
//! `optional/non-bmp-regex.json`) through [`Pattern`] alone: every test whose schema is
//! `pattern` or `patternProperties` (with at most `type`, `additionalProperties: false`
//! and member schemas `true`, `false`, `{"type": …}`, `{"maximum": …}` around it) is
//! decided here with `Pattern::is_match` and compared with the suite's verdict.

use std::fs;

use agentloop_core::json::{self, Object, Value};
use agentloop_core::schema::pattern::Pattern;
use agentloop_tests::{skip_or_fail, vectors_dir};

const FILES: [&str; 4] = [
    "pattern.json",
    "patternProperties.json",
    "optional/ecmascript-regex.json",
    "optional/non-bmp-regex.json",
];

/// A member schema of `patternProperties`, as far as these files use them.
fn member_valid(schema: &Value, value: &Value) -> Option<bool> {
    match schema {
        Value::Bool(b) => Some(*b),
        Value::Object(o) if o.len() == 1 => {
            if let Some(t) = o.get("type").and_then(Value::as_str) {
                Some(type_is(t, value))
            } else {
                let max = o.get("maximum")?.as_f64()?;
                Some(value.as_f64().is_none_or(|n| n <= max))
            }
        }
        _ => None,
    }
}

fn type_is(name: &str, value: &Value) -> bool {
    match (name, value) {
        ("integer", Value::Number(n)) => n.fract() == 0.0,
        (name, value) => {
            name == value.type_name() || (name == "number" && value.as_f64().is_some())
        }
    }
}

/// The verdict of `schema` on `data` by `Pattern`, or `None` if the schema uses more than
/// this test understands (or a pattern is refused: then the refusal).
fn verdict(schema: &Object, data: &Value) -> Result<Option<bool>, String> {
    let mut required_type = None;
    let mut pattern = None;
    let mut pattern_properties: Vec<(Pattern, &Value)> = Vec::new();
    let mut closed = false;
    for (key, value) in schema.iter() {
        match (key, value) {
            ("$schema", _) => {}
            ("type", Value::String(t)) => required_type = Some(t.as_str()),
            ("pattern", Value::String(p)) => {
                pattern = Some(Pattern::compile(p).map_err(|e| format!("{p:?}: {e}"))?)
            }
            ("patternProperties", Value::Object(members)) => {
                for (p, member) in members.iter() {
                    let compiled = Pattern::compile(p).map_err(|e| format!("{p:?}: {e}"))?;
                    pattern_properties.push((compiled, member));
                }
            }
            ("additionalProperties", Value::Bool(false)) => closed = true,
            _ => return Ok(None),
        }
    }
    if let Some(t) = required_type {
        if !type_is(t, data) {
            return Ok(Some(false));
        }
    }
    if let (Some(p), Value::String(s)) = (&pattern, data) {
        if !p.is_match(s) {
            return Ok(Some(false));
        }
    }
    if let Value::Object(members) = data {
        for (key, value) in members.iter() {
            let mut matched = false;
            for (p, member) in &pattern_properties {
                if p.is_match(key) {
                    matched = true;
                    match member_valid(member, value) {
                        Some(true) => {}
                        Some(false) => return Ok(Some(false)),
                        None => return Ok(None),
                    }
                }
            }
            if closed && !matched {
                return Ok(Some(false));
            }
        }
    }
    Ok(Some(true))
}

#[test]
fn json_schema_test_suite_regex_cases_agree() {
    let root = vectors_dir()
        .join("json-schema-test-suite")
        .join("draft2020-12");
    if !root.is_dir() {
        skip_or_fail(&format!(
            "skipped: JSON Schema Test Suite not found at {} (set AGENTLOOP_VECTORS)",
            root.display()
        ));
        return;
    }
    let mut disagreements = Vec::new();
    let mut agreed = 0;
    for file in FILES {
        let path = root.join(file);
        let text = fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        let groups = json::parse(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let Value::Array(groups) = groups else {
            panic!("{file}: not an array of test groups")
        };
        let mut file_agreed = 0;
        for group in &groups {
            let group = group.as_object().expect("a test group is an object");
            let description = group
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("");
            let schema = group
                .get("schema")
                .and_then(Value::as_object)
                .unwrap_or_else(|| panic!("{file}: {description}: schema is not an object"));
            let Some(Value::Array(tests)) = group.get("tests") else {
                panic!("{file}: {description}: no tests")
            };
            for test in tests {
                let test = test.as_object().expect("a test is an object");
                let data = test.get("data").expect("a test has data");
                let valid = test.get("valid") == Some(&Value::Bool(true));
                let name = test
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                match verdict(schema, data) {
                    Ok(Some(v)) if v == valid => file_agreed += 1,
                    Ok(Some(v)) => disagreements.push(format!(
                        "{file}: {description} / {name}: suite says valid={valid}, Pattern says {v}"
                    )),
                    Ok(None) => disagreements.push(format!(
                        "{file}: {description} / {name}: schema shape not understood by this test"
                    )),
                    Err(refusal) => disagreements
                        .push(format!("{file}: {description} / {name}: refused {refusal}")),
                }
            }
        }
        eprintln!("{file}: {file_agreed} cases agree");
        agreed += file_agreed;
    }
    assert!(
        disagreements.is_empty(),
        "{} cases differ:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
    // 12 + 25 + 74 + 12 cases in the suite as vendored.
    assert_eq!(agreed, 123, "cases checked");
}
