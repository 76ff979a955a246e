//! The demo tools: `add`, `echo`, `fail`, `greet`.

use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::json::{Object, Value};
use crate::tools::{RegisterError, Tool, ToolError, ToolOptions, ToolSpec, Toolbox};

/// The four demo tools, registered without limits. They have no state, so they are
/// registered as concurrent ([`ToolOptions::concurrent`]): a parallel run runs their
/// calls together.
pub fn toolbox() -> Result<Toolbox, RegisterError> {
    let mut toolbox = Toolbox::new();
    for tool in all_tools() {
        toolbox.register(tool, ToolOptions::new().concurrent())?;
    }
    Ok(toolbox)
}

/// The four demo tools, in name order: for a host that registers them with options of
/// its own ([`Toolbox::register`]).
pub fn all_tools() -> [Arc<dyn Tool>; 4] {
    [
        Arc::new(Add),
        Arc::new(Echo),
        Arc::new(Fail),
        Arc::new(Greet),
    ]
}

/// An object from members (built directly, so nothing here can fail to parse).
pub(crate) fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut object = Object::new();
    for (key, value) in members {
        object.insert(key, value);
    }
    Value::Object(object)
}

fn type_schema(name: &str) -> Value {
    object([("type", Value::from(name))])
}

/// `{"type":"object","properties":{…},"required":[…]}`.
fn object_schema(properties: &[(&str, &str)]) -> Value {
    let mut props = Object::new();
    for (name, type_name) in properties {
        props.insert(*name, type_schema(type_name));
    }
    let required: Vec<Value> = properties.iter().map(|(n, _)| Value::from(*n)).collect();
    object([
        ("type", Value::from("object")),
        ("properties", Value::Object(props)),
        ("required", Value::Array(required)),
    ])
}

/// `add {a: integer, b: integer}` → `{"sum": a + b}`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Add;

impl Tool for Add {
    fn spec(&self) -> ToolSpec {
        ToolSpec::new(
            "add",
            "Adds two integers a and b; returns {\"sum\": a + b}.",
            object_schema(&[("a", "integer"), ("b", "integer")]),
        )
    }

    fn call(&self, arguments: &Value) -> Result<Value, ToolError> {
        // The schema has been checked; this guards a host that calls the tool directly.
        let number = |key: &str| {
            arguments
                .as_object()
                .and_then(|o| o.get(key))
                .and_then(Value::as_f64)
                .ok_or_else(|| ToolError::new(format!("{key} must be an integer")))
        };
        let sum = number("a")? + number("b")?;
        Ok(object([("sum", Value::Number(sum))]))
    }

    /// It has no effect outside its result: a resumed run may run it again.
    fn idempotent(&self) -> bool {
        true
    }
}

/// `echo {…}` → its arguments, unchanged.
#[derive(Debug, Clone, Copy, Default)]
pub struct Echo;

impl Tool for Echo {
    fn spec(&self) -> ToolSpec {
        ToolSpec::new(
            "echo",
            "Returns its arguments unchanged.",
            type_schema("object"),
        )
    }

    fn call(&self, arguments: &Value) -> Result<Value, ToolError> {
        Ok(arguments.clone())
    }

    /// It has no effect outside its result: a resumed run may run it again.
    fn idempotent(&self) -> bool {
        true
    }
}

/// `fail {…}` → always the error "the tool is broken on purpose".
#[derive(Debug, Clone, Copy, Default)]
pub struct Fail;

impl Tool for Fail {
    fn spec(&self) -> ToolSpec {
        ToolSpec::new(
            "fail",
            "Always fails: shows that a failing tool is recorded, not fatal.",
            type_schema("object"),
        )
    }

    fn call(&self, _: &Value) -> Result<Value, ToolError> {
        Err(ToolError::new("the tool is broken on purpose"))
    }

    /// It has no effect outside its result: a resumed run may run it again.
    fn idempotent(&self) -> bool {
        true
    }
}

/// `greet {name: string}` → `{"greeting": "hello, <name>"}`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Greet;

impl Tool for Greet {
    fn spec(&self) -> ToolSpec {
        ToolSpec::new(
            "greet",
            "Greets someone by name; returns {\"greeting\": \"hello, <name>\"}.",
            object_schema(&[("name", "string")]),
        )
    }

    fn call(&self, arguments: &Value) -> Result<Value, ToolError> {
        let name = arguments
            .as_object()
            .and_then(|o| o.get("name"))
            .and_then(Value::as_str)
            .ok_or_else(|| ToolError::new("name must be a string"))?;
        let greeting: String = format!("hello, {name}");
        Ok(object([("greeting", Value::from(greeting))]))
    }

    /// It has no effect outside its result: a resumed run may run it again.
    fn idempotent(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jcs::to_vec;

    fn text(v: &Value) -> String {
        String::from_utf8(to_vec(v).unwrap()).unwrap()
    }

    #[test]
    fn tools_do_what_they_say() {
        let tb = toolbox().unwrap();
        let args = object([("a", Value::Number(2.0)), ("b", Value::Number(40.0))]);
        assert_eq!(text(&tb.call("add", &args).unwrap()), r#"{"sum":42}"#);
        let bad = object([("a", Value::from("2")), ("b", Value::Number(40.0))]);
        assert_eq!(
            tb.call("add", &bad).unwrap_err().message(),
            "a must be an integer"
        );
        assert_eq!(tb.call("echo", &args).unwrap(), args);
        assert_eq!(
            tb.call("fail", &args).unwrap_err().message(),
            "the tool is broken on purpose"
        );
        let who = object([("name", Value::from("ada"))]);
        assert_eq!(
            text(&tb.call("greet", &who).unwrap()),
            r#"{"greeting":"hello, ada"}"#
        );
        for name in ["add", "echo", "fail", "greet"] {
            assert!(tb.manifest().idempotent(name), "{name}");
        }
        assert_eq!(
            text(&tb.manifest().specs()[0].schema),
            r#"{"properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"type":"object"}"#
        );
    }
}
