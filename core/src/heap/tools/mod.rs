//! Tools: what a model may call, their argument schemas, and the registry.
//!
//! A [`Tool`] describes itself with a [`ToolSpec`] (name, description, JSON Schema for
//! its arguments) and runs on arguments the loop has already checked. Registering a
//! tool compiles its schema once — a schema the validator cannot honour is refused
//! there, never skipped at call time — and may give it a call limit. Registration also
//! enforces what model providers require ([`ToolSpec::check`]): a name matching
//! `^[a-zA-Z0-9_-]{1,64}$` and a root schema with `"type": "object"`, so every exported manifest is one their APIs accept. Every
//! registration path — [`Manifest::register`], [`Toolbox::register`], the C ABI, and
//! any tool source added later — goes through [`ToolSpec::check`].
//!
//! [`Manifest`] is the part the loop's state machine needs (specs, compiled schemas,
//! limits; no code to run), [`Toolbox`] adds the tools themselves for the drivers.
//! Both are ordered by name (byte order), so nothing depends on insertion or hash order.
//!
//! With the `schemars` feature, `TypedTool` makes a tool of a closure over typed
//! arguments (`#[derive(Deserialize, JsonSchema)]`) and a typed result
//! (`#[derive(Serialize)]`), its schema generated from the argument type.

mod call_check;
pub(crate) mod failure;
mod kinds;
mod manifest;
mod spec;
mod toolbox;

pub use kinds::{FnTool, Tool, ToolOptions};
pub(crate) use manifest::RegisterErrorKind;
pub use manifest::{Manifest, RegisterError, MAX_TOOLBOX_COMPILED_BYTES};
pub use spec::{ToolError, ToolSpec};
pub use toolbox::Toolbox;

mod provider;
#[cfg(feature = "schemars")]
mod typed;

pub(crate) use call_check::check_call;
pub(crate) use provider::ShownName;
pub(crate) use provider::{check_name, check_root, NameError, RootError, NAME_PATTERN};
// How a name a model made up is written for a provider (docs/format.md): the codecs'
// and the MCP client's, not API.
#[doc(hidden)]
pub use provider::{provider_safe_name, MAX_NAME_CHARS};
#[cfg(feature = "schemars")]
pub use typed::{schema_of, TypedTool, TypedToolError};

/// A typed tool result as a value; one that cannot be a value is the tool's failure.
#[cfg(feature = "serde")]
pub(crate) fn output_value<O: serde::Serialize>(
    result: Result<O, ToolError>,
) -> Result<crate::json::Value, ToolError> {
    let output = result?;
    crate::json::to_value(&output).map_err(|error| {
        ToolError::new(alloc::format!(
            "its result cannot be written as JSON: {error}"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anchor::MAX_SEQ;
    use crate::json::{parse, Value};
    use alloc::string::String;
    use alloc::vec::Vec;

    fn spec(name: &str) -> ToolSpec {
        ToolSpec::new(name, "d", parse(br#"{"type":"object"}"#).unwrap())
    }

    #[test]
    fn registry_is_sorted_and_refuses_duplicates_and_empty_names() {
        let mut m = Manifest::new();
        for name in ["greet", "add", "fail", "echo"] {
            m.register(spec(name), None).unwrap();
        }
        assert_eq!(
            m.names().collect::<Vec<_>>(),
            ["add", "echo", "fail", "greet"]
        );
        assert_eq!(
            m.register(spec("add"), None),
            Err(RegisterErrorKind::Duplicate("add".into()).into())
        );
        assert_eq!(
            m.register(spec(""), None),
            Err(RegisterErrorKind::Name {
                name: String::new(),
                error: NameError::Empty
            }
            .into())
        );
        assert_eq!(
            m.register(spec("big"), Some(MAX_SEQ + 1)),
            Err(RegisterErrorKind::LimitTooLarge("big".into()).into())
        );
        m.register(spec("lim"), Some(3)).unwrap();
        assert_eq!(m.limit("lim"), Some(3));
        assert_eq!(m.limit("add"), None);
        assert_eq!(m.limits().collect::<Vec<_>>(), [("lim", 3)]);
        assert_eq!(m.len(), 5);
        assert!(!m.idempotent("lim"));
        m.register_with(spec("look"), None, true).unwrap();
        assert!(m.idempotent("look"));
        assert!(!m.idempotent("nope"));
        assert!(m.set_idempotent("lim", true));
        assert!(m.idempotent("lim"));
        assert!(m.set_idempotent("lim", false));
        assert!(!m.idempotent("lim"));
        assert!(!m.set_idempotent("nope", true));
    }

    #[test]
    fn toolbox_runs_registered_tools() {
        let mut tb = Toolbox::new();
        tb.register(
            FnTool::new(spec("echo"), |a: &Value| Ok(a.clone())),
            ToolOptions::new(),
        )
        .unwrap();
        assert_eq!(tb.call("echo", &Value::Bool(true)), Ok(Value::Bool(true)));
        let err = tb.call("nope", &Value::Null).unwrap_err();
        assert_eq!(err.message(), "no tool named 'nope' in this toolbox");
        tb.register(
            FnTool::new(spec("pure"), |a: &Value| Ok(a.clone())).idempotent(),
            ToolOptions::new(),
        )
        .unwrap();
        assert!(tb.manifest().idempotent("pure"));
        assert!(!tb.manifest().idempotent("echo"));
        let shown = alloc::format!("{tb:?}");
        assert!(shown.starts_with("Toolbox { manifest: "), "{shown}");
        assert!(shown.contains("\"pure\""), "{shown}");
        let dup = tb.register(
            FnTool::new(spec("echo"), |a: &Value| Ok(a.clone())),
            ToolOptions::new(),
        );
        assert_eq!(
            alloc::format!("{}", dup.unwrap_err()),
            "a tool named 'echo' is already registered"
        );
    }

    /// A tool that says nothing about idempotence.
    struct Plain;

    impl Tool for Plain {
        fn spec(&self) -> ToolSpec {
            spec("plain")
        }

        fn call(&self, _: &Value) -> Result<Value, ToolError> {
            Ok(Value::Null)
        }
    }

    #[test]
    fn a_tool_is_run_at_most_once_unless_it_says_otherwise() {
        let mut tb = Toolbox::new();
        tb.register(Plain, ToolOptions::new()).unwrap();
        assert!(!tb.manifest().idempotent("plain"));
        let shown = alloc::format!(
            "{:?}",
            FnTool::new(spec("echo"), |a: &Value| Ok(a.clone())).idempotent()
        );
        assert!(shown.starts_with("FnTool { spec: "), "{shown}");
        assert!(shown.contains("\"echo\""), "{shown}");
        assert!(shown.ends_with("idempotent: true }"), "{shown}");
    }

    #[test]
    fn a_call_limit_may_be_as_large_as_a_transcript_can_record() {
        let mut m = Manifest::new();
        m.register(spec("most"), Some(MAX_SEQ)).unwrap();
        assert_eq!(m.limit("most"), Some(MAX_SEQ));
    }
}

#[cfg(test)]
mod tests_budget;
#[cfg(test)]
mod tests_provider;
