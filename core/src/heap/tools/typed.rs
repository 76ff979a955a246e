//! Typed tools (feature `schemars`): [`TypedTool`] and [`schema_of`].

use alloc::format;
use alloc::string::String;
use core::fmt;
use core::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{Tool, ToolError, ToolSpec};
use crate::json::{from_value, to_value, SerializeError, Value};

/// The JSON Schema `schemars` generates for `A` (draft 2020-12), as a [`Value`]:
/// what [`TypedTool`] registers as its argument schema. An error only if the schema
/// holds a number a JSON value cannot (an integer bound above 2^53 with no exact double,
/// from a `#[schemars(range(…))]`).
///
/// ```
/// use agentloop_core::{jcs, tools::schema_of};
/// #[derive(schemars::JsonSchema)]
/// struct Add { a: f64, b: f64 }
///
/// let schema = jcs::to_vec(&schema_of::<Add>().unwrap()).unwrap();
/// assert_eq!(
///     String::from_utf8(schema).unwrap(),
///     r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"a":{"format":"double","type":"number"},"b":{"format":"double","type":"number"}},"required":["a","b"],"title":"Add","type":"object"}"#
/// );
/// ```
pub fn schema_of<A: JsonSchema + ?Sized>() -> Result<Value, SerializeError> {
    to_value(&schemars::SchemaGenerator::default().into_root_schema_for::<A>())
}

/// Why a [`TypedTool`] could not be made: the schema generated from its argument type
/// cannot be a JSON value ([`schema_of`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedToolError {
    /// The tool's name.
    pub tool: String,
    /// What in the generated schema cannot be a JSON value, and where.
    pub error: SerializeError,
}

impl fmt::Display for TypedToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tool '{}': the schema generated from its argument type cannot be a JSON \
             value: {}",
            self.tool, self.error
        )
    }
}

impl core::error::Error for TypedToolError {}

/// A tool made of a closure from typed arguments `A: DeserializeOwned + JsonSchema`
/// to a typed result `O: Serialize` (feature `schemars`).
///
/// The argument schema is generated from `A` by `schemars` (JSON Schema draft 2020-12,
/// with its `$schema` and `title` members) and is registered like any other: checked by
/// [`ToolSpec::check`](super::ToolSpec::check) — a provider-safe name, a root with
/// `"type": "object"` (so `A` is a struct or a map; an enum's schema is a `oneOf` or a
/// string schema and is refused at registration, naming the tool), a schema the
/// validator accepts.
/// The loop validates a call's arguments against it before the tool runs; the tool then
/// reads them as an `A` ([`crate::json::from_value`]) and its `O` becomes the recorded
/// value ([`crate::json::to_value`]). If the arguments passed the schema but do not fit
/// `A` (a hand-written `JsonSchema` looser than the type), or the result cannot be a
/// JSON value, the call fails with a sentence saying so; nothing is dropped or changed.
///
/// schemars builds with `default-features = false` under `no_std` + `alloc` (it brings
/// serde_json, also without `std`), so typed tools need no more than the rest of the
/// loop. Your own crate derives `JsonSchema` with `schemars = "1"` (its `derive`
/// feature).
///
/// It is a [`Tool`] (register it with [`Toolbox::register`](super::Toolbox::register));
/// its closure is `Fn + Send + Sync`, so a tool registered as concurrent
/// ([`ToolOptions::concurrent`](super::ToolOptions::concurrent)) may run its calls
/// together. A closure with state keeps it behind a lock or in atomics.
///
/// ```
/// use agentloop_core::tools::{ToolOptions, Toolbox, TypedTool};
/// use agentloop_core::json;
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Add { a: f64, b: f64 }
/// #[derive(serde::Serialize)]
/// struct Sum { sum: f64 }
///
/// let mut tools = Toolbox::new();
/// let add = TypedTool::new("add", "Adds a and b", |x: Add| Ok(Sum { sum: x.a + x.b }))?;
/// tools.register(add, ToolOptions::new())?;
/// let args = json::parse(br#"{"a":2,"b":40}"#)?;
/// assert_eq!(tools.call("add", &args)?, json::parse(br#"{"sum":42}"#)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct TypedTool<A, O, F> {
    spec: ToolSpec,
    run: F,
    idempotent: bool,
    types: PhantomData<fn(A) -> O>,
}

impl<A, O, F> TypedTool<A, O, F>
where
    A: DeserializeOwned + JsonSchema,
    O: Serialize,
    F: Fn(A) -> Result<O, ToolError> + Send + Sync,
{
    /// A tool named `name` that runs `run`, its argument schema generated from `A`; not
    /// idempotent. The spec is checked when the tool is registered.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        run: F,
    ) -> Result<Self, TypedToolError> {
        Self::build(name, description, run)
    }
}

impl<A: JsonSchema, O, F> TypedTool<A, O, F> {
    /// The tool with its spec, whatever kind of closure `run` is.
    fn build(
        name: impl Into<String>,
        description: impl Into<String>,
        run: F,
    ) -> Result<Self, TypedToolError> {
        let name = name.into();
        let schema = match schema_of::<A>() {
            Ok(schema) => schema,
            Err(error) => return Err(TypedToolError { tool: name, error }),
        };
        Ok(TypedTool {
            spec: ToolSpec::new(name, description, schema),
            run,
            idempotent: false,
            types: PhantomData,
        })
    }
}

impl<A, O, F> TypedTool<A, O, F> {
    /// Declares the tool idempotent ([`Tool::idempotent`]).
    pub fn idempotent(mut self) -> Self {
        self.idempotent = true;
        self
    }
}

impl<A, O, F> fmt::Debug for TypedTool<A, O, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypedTool")
            .field("spec", &self.spec)
            .field("idempotent", &self.idempotent)
            .finish()
    }
}

/// The arguments as an `A`; arguments that passed the schema but do not fit `A` are
/// the call's failure.
fn arguments<A: DeserializeOwned>(arguments: &Value) -> Result<A, ToolError> {
    from_value(arguments).map_err(|error| {
        ToolError::new(format!(
            "its arguments do not fit its argument type: {error}"
        ))
    })
}

impl<A, O, F> Tool for TypedTool<A, O, F>
where
    A: DeserializeOwned,
    O: Serialize,
    F: Fn(A) -> Result<O, ToolError> + Send + Sync,
{
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn call(&self, args: &Value) -> Result<Value, ToolError> {
        let args = arguments(args)?;
        super::output_value((self.run)(args))
    }

    fn idempotent(&self) -> bool {
        self.idempotent
    }
}

#[cfg(test)]
mod tests;
