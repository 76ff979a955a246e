//! The loop audit's reading of the setup (format 2, SPEC section 4 "What a run
//! records"): a `task` or `resume` payload's `setup` decodes; with a setup in force,
//! `tool_limits` name offered tools, a call names an offered tool or its `tool` record
//! is the unknown-tool refusal, and a schema refusal is what the recorded schema says
//! (and only that schema's refusals are recorded as such).

use alloc::format;
use alloc::string::String;

use super::describe::{describe_member, truncate};
use super::LoopAudit;
use crate::json::{Object, Value};
use crate::tools::{check_call, Manifest, ToolSpec};
use crate::vocabulary::member::{BUDGETS, ERROR, OK, SETUP, TOOL_LIMITS};
use crate::vocabulary::{CallFailure, RecordKind, Setup, INVALID_ARGUMENTS};

impl LoopAudit {
    /// The `setup` member of a `task` or `resume` payload (of `kind`), if there is one:
    /// decoded, it is the setup in force from here on; a `task` record's `tool_limits`
    /// then name offered tools.
    pub(super) fn setup(&mut self, index: u64, kind: RecordKind, payload: &Object) {
        let what = format!("{kind} payload");
        let Some(value) = payload.get(SETUP) else {
            return;
        };
        let setup = match Setup::decode(value) {
            Ok(setup) => setup,
            Err(error) => {
                self.offered = None;
                let error = error.of_kind(kind);
                return self.find(index, format!("{what}: setup: {error}"));
            }
        };
        let mut manifest = Manifest::new();
        for tool in &setup.tools {
            let spec = ToolSpec::new(&tool.name, &tool.description, tool.schema.clone());
            if let Err(error) = manifest.register(spec, None) {
                self.offered = None;
                return self.find(
                    index,
                    format!("{what}: setup: a tool the loop cannot offer: {error}"),
                );
            }
        }
        let limits = payload.get(BUDGETS).and_then(Value::as_object);
        let limits = limits
            .and_then(|b| b.get(TOOL_LIMITS))
            .and_then(Value::as_object);
        for (name, _) in limits.map(Object::iter).into_iter().flatten() {
            if manifest.names().all(|offered| offered != name) {
                self.find(
                    index,
                    format!(
                        "{what}: budgets.tool_limits names '{}', which the setup does not offer",
                        truncate(name)
                    ),
                );
            }
        }
        self.offered = Some(manifest);
    }

    /// What the setup in force says of a call: `None` with no setup, else the loop's
    /// verdict on it (the unknown-tool or schema sentence, or none).
    pub(super) fn expect(
        &self,
        name: &str,
        arguments: Option<&Value>,
    ) -> Option<Result<(), String>> {
        let manifest = self.offered.as_ref()?;
        let arguments = arguments.unwrap_or(&Value::Null);
        Some(check_call(manifest, &[], name, arguments).map(drop))
    }

    /// Checks a `tool` record against what the setup said of its call (`expected`).
    pub(super) fn as_expected(
        &mut self,
        index: u64,
        name: &str,
        expected: &Result<(), String>,
        payload: &Object,
    ) {
        let refused = matches!(payload.get(OK), Some(Value::Bool(false)));
        let error = payload.get(ERROR).and_then(Value::as_str);
        let class = error.map(|e| CallFailure::of(name, e));
        let invalid = refused && class == Some(CallFailure::InvalidArguments);
        let limited = class == Some(CallFailure::ToolLimit);
        let name = truncate(name);
        match expected {
            Ok(()) if invalid => self.find(
                index,
                format!(
                    "tool payload: the call to '{name}' is recorded as refused by its schema, \
                     but the schema the setup records accepts its arguments"
                ),
            ),
            Ok(()) => {}
            Err(sentence) if refused && error == Some(sentence.as_str()) => {}
            Err(sentence) if schema_refusal(sentence) && refused && limited => {}
            Err(sentence) => {
                let why = match schema_refusal(sentence) {
                    true => "the schema the setup records refuses its arguments",
                    false => "the setup offers no tool of that name",
                };
                let found = describe_member(payload, ERROR);
                self.find(
                    index,
                    format!(
                        "tool payload: the call to '{name}' must be recorded as refused \
                         ({why}: \"{}\"), found ok {} and error {found}",
                        truncate(sentence),
                        describe_member(payload, OK)
                    ),
                );
            }
        }
    }
}

/// Whether `sentence` is a schema refusal.
fn schema_refusal(sentence: &str) -> bool {
    sentence.starts_with(INVALID_ARGUMENTS)
}
