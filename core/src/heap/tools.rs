//! Tools: what a model may call, their argument schemas, and the registry.
//!
//! A [`Tool`] describes itself with a [`ToolSpec`] (name, description, JSON Schema for
//! its arguments) and runs on arguments the loop has already checked. Registering a
//! tool compiles its schema once — a schema the validator cannot honour is refused
//! there, never skipped at call time — and may give it a call limit. Registration also
//! enforces what model providers require ([`ToolSpec::check`]): a name matching
//! `^[a-zA-Z0-9_-]{1,64}$` ([`check_name`]) and a root schema with `"type": "object"`
//! ([`check_root`]), so every exported manifest is one their APIs accept. Every
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

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;

use crate::anchor::MAX_SEQ;
use crate::json::Value;
use crate::schema::{Schema, SchemaError};

mod provider;
#[cfg(feature = "schemars")]
mod typed;

use provider::ShownName;
pub use provider::{
    check_name, check_root, provider_safe_name, NameError, RootError, RootType, MAX_NAME_CHARS,
    NAME_PATTERN,
};
#[cfg(feature = "schemars")]
pub use typed::{schema_of, TypedTool, TypedToolError};

/// How a tool presents itself to a model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The name calls use: matches `^[a-zA-Z0-9_-]{1,64}$`, unique in a registry.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// The JSON Schema its arguments must satisfy (docs/schemas.md); its root
    /// has `"type": "object"`.
    pub schema: Value,
}

impl ToolSpec {
    /// A spec from its three parts.
    pub fn new(name: impl Into<String>, description: impl Into<String>, schema: Value) -> Self {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            schema,
        }
    }

    /// Everything registration checks of the spec alone, in this order: the name
    /// ([`check_name`]), the root ([`check_root`]: a cheap rule that does not depend on
    /// what the validator supports), then the schema (compiled: one the
    /// validator cannot honour, or an invalid one, is refused). Gives the compiled schema.
    ///
    /// ```
    /// use agentloop_core::json::parse;
    /// use agentloop_core::tools::ToolSpec;
    /// let spec = ToolSpec::new("my tool", "d", parse(br#"{"type":"object"}"#).unwrap());
    /// assert_eq!(
    ///     spec.check().unwrap_err().to_string(),
    ///     "tool name 'my tool' is not provider-safe: ' ' at position 2 is not an ASCII \
    ///      letter, digit, '_' or '-' (providers accept ^[a-zA-Z0-9_-]{1,64}$)"
    /// );
    /// ```
    pub fn check(&self) -> Result<Schema, RegisterError> {
        check_name(&self.name).map_err(|error| RegisterError::Name {
            name: self.name.clone(),
            error,
        })?;
        check_root(&self.schema).map_err(|error| RegisterError::Root {
            tool: self.name.clone(),
            error,
        })?;
        Schema::compile(&self.schema).map_err(|error| RegisterError::Schema {
            tool: self.name.clone(),
            error,
        })
    }
}

/// Why a tool failed: a sentence. The loop records `tool '<name>' failed: <sentence>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// An error saying `message`.
    pub fn new(message: impl Into<String>) -> ToolError {
        ToolError {
            message: message.into(),
        }
    }

    /// The sentence.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl core::error::Error for ToolError {}

/// A tool a model may call.
pub trait Tool {
    /// Its name, description and argument schema; read once, at registration.
    fn spec(&self) -> ToolSpec;

    /// Runs the tool. The loop calls it only with arguments that satisfy the schema.
    fn call(&mut self, arguments: &Value) -> Result<Value, ToolError>;

    /// Whether running it twice with the same arguments has the same effect as running
    /// it once (a lookup, a pure computation). Read once, at registration. When a run
    /// is resumed after it was interrupted while a call was running, an idempotent tool
    /// is run again; any other tool is not (its effect may already have happened) and
    /// the call is recorded as `ok:false`, result lost ([`crate::agent::Agent::resume`]).
    /// The default is `false`: at most once.
    fn idempotent(&self) -> bool {
        false
    }
}

/// A tool that can run several calls at once, from several threads: its `call` takes
/// `&self`, and it is `Send + Sync`. Register it with [`Toolbox::register_shared`];
/// the driver's parallel path ([`crate::driver::RunOptions::parallel`]) runs the calls
/// of a turn to shared tools together, and the calls to other tools ([`Tool`]) one at
/// a time on the driver's thread. Otherwise it is a [`Tool`] like any other.
pub trait SharedTool: Send + Sync {
    /// Its name, description and argument schema; read once, at registration.
    fn spec(&self) -> ToolSpec;

    /// Runs the tool, maybe on several threads at once. The loop calls it only with
    /// arguments that satisfy the schema.
    fn call(&self, arguments: &Value) -> Result<Value, ToolError>;

    /// Whether it is idempotent, as [`Tool::idempotent`]. The default is `false`.
    fn idempotent(&self) -> bool {
        false
    }
}

/// A [`SharedTool`] made of a spec and a closure that may run on several threads at
/// once.
pub struct SharedFnTool<F> {
    spec: ToolSpec,
    run: F,
    idempotent: bool,
}

impl<F> SharedFnTool<F>
where
    F: Fn(&Value) -> Result<Value, ToolError> + Send + Sync,
{
    /// A tool that presents `spec` and runs `run`; not idempotent.
    pub fn new(spec: ToolSpec, run: F) -> Self {
        SharedFnTool {
            spec,
            run,
            idempotent: false,
        }
    }

    /// Declares the tool idempotent ([`Tool::idempotent`]).
    pub fn idempotent(mut self) -> Self {
        self.idempotent = true;
        self
    }
}

impl<F> fmt::Debug for SharedFnTool<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedFnTool")
            .field("spec", &self.spec)
            .field("idempotent", &self.idempotent)
            .finish()
    }
}

impl<F> SharedTool for SharedFnTool<F>
where
    F: Fn(&Value) -> Result<Value, ToolError> + Send + Sync,
{
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn call(&self, arguments: &Value) -> Result<Value, ToolError> {
        (self.run)(arguments)
    }

    fn idempotent(&self) -> bool {
        self.idempotent
    }
}

/// A tool made of a spec and a closure.
pub struct FnTool<F> {
    spec: ToolSpec,
    run: F,
    idempotent: bool,
}

impl<F> FnTool<F>
where
    F: FnMut(&Value) -> Result<Value, ToolError>,
{
    /// A tool that presents `spec` and runs `run`; not idempotent.
    pub fn new(spec: ToolSpec, run: F) -> Self {
        FnTool {
            spec,
            run,
            idempotent: false,
        }
    }

    /// Declares the tool idempotent ([`Tool::idempotent`]).
    pub fn idempotent(mut self) -> Self {
        self.idempotent = true;
        self
    }
}

impl<F> fmt::Debug for FnTool<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnTool")
            .field("spec", &self.spec)
            .field("idempotent", &self.idempotent)
            .finish()
    }
}

impl<F> Tool for FnTool<F>
where
    F: FnMut(&Value) -> Result<Value, ToolError>,
{
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn call(&mut self, arguments: &Value) -> Result<Value, ToolError> {
        (self.run)(arguments)
    }

    fn idempotent(&self) -> bool {
        self.idempotent
    }
}

/// Why a tool was refused at registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegisterError {
    /// The name breaks the providers' rule `^[a-zA-Z0-9_-]{1,64}$` (an empty name too).
    Name {
        /// The name.
        name: String,
        /// How it breaks the rule.
        error: NameError,
    },
    /// A tool of this name is already registered.
    Duplicate(String),
    /// The tool's schema was refused (the validator cannot honour it, or it is invalid).
    Schema {
        /// The tool.
        tool: String,
        /// What is wrong with its schema, and where.
        error: SchemaError,
    },
    /// The tool's root schema does not describe an object (`"type": "object"`), which
    /// providers require.
    Root {
        /// The tool.
        tool: String,
        /// What the root is instead.
        error: RootError,
    },
    /// A call limit above 2^53 − 1, which a transcript cannot record exactly.
    LimitTooLarge(String),
}

impl fmt::Display for RegisterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegisterError::Name { name, error } => write!(
                f,
                "tool name '{}' is not provider-safe: {error} (providers accept {NAME_PATTERN})",
                ShownName(name)
            ),
            RegisterError::Duplicate(name) => {
                write!(f, "a tool named '{name}' is already registered")
            }
            RegisterError::Schema { tool, error } => write!(f, "tool '{tool}': {error}"),
            RegisterError::Root { tool, error } => write!(
                f,
                "tool '{tool}': {error}; providers require a root schema with \"type\": \"object\""
            ),
            RegisterError::LimitTooLarge(name) => write!(
                f,
                "tool '{name}': a call limit must be at most 2^53-1 to be recorded exactly"
            ),
        }
    }
}

impl core::error::Error for RegisterError {}

/// What the loop checks a call against: the compiled schema and the call limit; and
/// whether a resumed run may run the tool again.
#[derive(Debug, Clone, PartialEq)]
struct Check {
    schema: Schema,
    limit: Option<u64>,
    idempotent: bool,
}

/// The registered tools as the loop sees them: specs (sorted by name), compiled
/// schemas and call limits. Cheap enough to clone once per run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Manifest {
    specs: Vec<ToolSpec>,
    checks: Vec<Check>,
}

impl Manifest {
    /// An empty manifest.
    pub fn new() -> Manifest {
        Manifest::default()
    }

    /// Adds a tool: checks the spec ([`ToolSpec::check`]: a provider-safe name, a
    /// schema the validator accepts whose root has `"type": "object"`), then refuses a
    /// duplicate name or a limit too large. `limit` caps how many times the loop runs it
    /// in one run; a call over the limit gets an `ok:false` record and the loop goes on.
    pub fn register(&mut self, spec: ToolSpec, limit: Option<u64>) -> Result<(), RegisterError> {
        self.register_with(spec, limit, false)
    }

    /// Like [`Manifest::register`], saying whether the tool is idempotent
    /// ([`Tool::idempotent`]): whether a resumed run may run again a call that was
    /// running when the run was interrupted.
    pub fn register_with(
        &mut self,
        spec: ToolSpec,
        limit: Option<u64>,
        idempotent: bool,
    ) -> Result<(), RegisterError> {
        let schema = spec.check()?;
        let at = match self.position(&spec.name) {
            Ok(_) => return Err(RegisterError::Duplicate(spec.name)),
            Err(at) => at,
        };
        if limit.is_some_and(|l| l > MAX_SEQ) {
            return Err(RegisterError::LimitTooLarge(spec.name));
        }
        self.specs.insert(at, spec);
        self.checks.insert(
            at,
            Check {
                schema,
                limit,
                idempotent,
            },
        );
        Ok(())
    }

    /// The specs, sorted by name: what a model is shown.
    pub fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    /// The registered names, sorted.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.specs.iter().map(|s| s.name.as_str())
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.specs.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// The call limit of `name`, if it is registered and has one.
    pub fn limit(&self, name: &str) -> Option<u64> {
        self.index(name).and_then(|i| self.checks[i].limit)
    }

    /// Whether `name` is registered as idempotent ([`Tool::idempotent`]).
    pub fn idempotent(&self, name: &str) -> bool {
        self.index(name).is_some_and(|i| self.checks[i].idempotent)
    }

    /// Declares the registered tool `name` idempotent (or not); `false` when no tool
    /// has that name. For hosts that register tools by spec (the C ABI).
    pub fn set_idempotent(&mut self, name: &str, idempotent: bool) -> bool {
        match self.index(name) {
            Some(i) => {
                self.checks[i].idempotent = idempotent;
                true
            }
            None => false,
        }
    }

    /// Position of `name` in the sorted list, if registered.
    pub(crate) fn index(&self, name: &str) -> Option<usize> {
        self.position(name).ok()
    }

    /// The compiled schema and limit of the tool at `index`.
    pub(crate) fn check(&self, index: usize) -> Option<(&Schema, Option<u64>)> {
        self.checks.get(index).map(|c| (&c.schema, c.limit))
    }

    /// `(name, limit)` of every tool that has a limit, sorted by name.
    pub(crate) fn limits(&self) -> impl Iterator<Item = (&str, u64)> {
        self.specs
            .iter()
            .zip(&self.checks)
            .filter_map(|(s, c)| Some((s.name.as_str(), c.limit?)))
    }

    fn position(&self, name: &str) -> Result<usize, usize> {
        self.specs.binary_search_by(|s| s.name.as_str().cmp(name))
    }
}

/// A registered tool: one call at a time, or shared by threads.
enum Entry {
    Exclusive(Box<dyn Tool>),
    Shared(Arc<dyn SharedTool>),
}

/// A registry of tools, keyed by name: the [`Manifest`] plus the tools themselves.
#[derive(Default)]
pub struct Toolbox {
    manifest: Manifest,
    tools: BTreeMap<String, Entry>,
}

impl fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolbox")
            .field("manifest", &self.manifest)
            .finish_non_exhaustive()
    }
}

impl Toolbox {
    /// An empty toolbox.
    pub fn new() -> Toolbox {
        Toolbox::default()
    }

    /// Registers a tool with no call limit (see [`Manifest::register`]).
    pub fn register(&mut self, tool: impl Tool + 'static) -> Result<(), RegisterError> {
        self.add(Box::new(tool), None)
    }

    /// Registers a tool the loop runs at most `limit` times per run.
    pub fn register_limited(
        &mut self,
        tool: impl Tool + 'static,
        limit: u64,
    ) -> Result<(), RegisterError> {
        self.add(Box::new(tool), Some(limit))
    }

    /// Registers a boxed tool, with an optional call limit.
    pub fn add(&mut self, tool: Box<dyn Tool>, limit: Option<u64>) -> Result<(), RegisterError> {
        let spec = tool.spec();
        let name = spec.name.clone();
        self.manifest
            .register_with(spec, limit, tool.idempotent())?;
        self.tools.insert(name, Entry::Exclusive(tool));
        Ok(())
    }

    /// Registers a tool that may run several calls at once ([`SharedTool`]), with no
    /// call limit.
    pub fn register_shared(
        &mut self,
        tool: impl SharedTool + 'static,
    ) -> Result<(), RegisterError> {
        self.add_shared(Arc::new(tool), None)
    }

    /// Registers a shared tool ([`SharedTool`]), with an optional call limit.
    pub fn add_shared(
        &mut self,
        tool: Arc<dyn SharedTool>,
        limit: Option<u64>,
    ) -> Result<(), RegisterError> {
        let spec = tool.spec();
        let name = spec.name.clone();
        self.manifest
            .register_with(spec, limit, tool.idempotent())?;
        self.tools.insert(name, Entry::Shared(tool));
        Ok(())
    }

    /// The tool `name` if it is a [`SharedTool`]: one the driver may run on another
    /// thread.
    pub fn shared(&self, name: &str) -> Option<Arc<dyn SharedTool>> {
        match self.tools.get(name) {
            Some(Entry::Shared(tool)) => Some(tool.clone()),
            _ => None,
        }
    }

    /// What the loop needs to know about the tools.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Runs the tool `name`. It does not check the arguments: the loop has (a
    /// [`crate::agent::Agent`] asks for a tool result only for a call that passed).
    pub fn call(&mut self, name: &str, arguments: &Value) -> Result<Value, ToolError> {
        match self.tools.get_mut(name) {
            Some(Entry::Exclusive(tool)) => tool.call(arguments),
            Some(Entry::Shared(tool)) => tool.call(arguments),
            None => Err(ToolError::new(alloc::format!(
                "no tool named '{name}' in this toolbox"
            ))),
        }
    }
}

/// A typed tool result as a value; one that cannot be a value is the tool's failure.
#[cfg(feature = "serde")]
pub(crate) fn output_value<O: serde::Serialize>(
    result: Result<O, ToolError>,
) -> Result<Value, ToolError> {
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
    use crate::json::parse;

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
            Err(RegisterError::Duplicate("add".into()))
        );
        assert_eq!(
            m.register(spec(""), None),
            Err(RegisterError::Name {
                name: String::new(),
                error: NameError::Empty
            })
        );
        assert_eq!(
            m.register(spec("big"), Some(MAX_SEQ + 1)),
            Err(RegisterError::LimitTooLarge("big".into()))
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
        tb.register(FnTool::new(spec("echo"), |a: &Value| Ok(a.clone())))
            .unwrap();
        assert_eq!(tb.call("echo", &Value::Bool(true)), Ok(Value::Bool(true)));
        let err = tb.call("nope", &Value::Null).unwrap_err();
        assert_eq!(err.message(), "no tool named 'nope' in this toolbox");
        tb.register(FnTool::new(spec("pure"), |a: &Value| Ok(a.clone())).idempotent())
            .unwrap();
        assert!(tb.manifest().idempotent("pure"));
        assert!(!tb.manifest().idempotent("echo"));
        let shown = alloc::format!("{tb:?}");
        assert!(shown.starts_with("Toolbox { manifest: "), "{shown}");
        assert!(shown.contains("\"pure\""), "{shown}");
        let dup = tb.register(FnTool::new(spec("echo"), |a: &Value| Ok(a.clone())));
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

        fn call(&mut self, _: &Value) -> Result<Value, ToolError> {
            Ok(Value::Null)
        }
    }

    #[test]
    fn a_tool_is_run_at_most_once_unless_it_says_otherwise() {
        let mut tb = Toolbox::new();
        tb.register(Plain).unwrap();
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
mod tests_provider;
