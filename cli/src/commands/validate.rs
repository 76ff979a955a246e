//! `agentloop validate`: checks a JSON instance against a tool-argument schema.

use std::io::Write;

use agentloop_core::json::{self, Value};
use agentloop_core::schema::Schema;

use super::say_line;
use crate::args::ValidateArgs;
use crate::exit::Exit;
use crate::failure::Failure;
use crate::input::Source;

/// Compiles the schema, then validates the instance: `FILE: valid`, or one violation
/// per line (paths from `$`) and the summary as the failure.
pub fn run(args: &ValidateArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let schema_source = Source::from_arg(&args.schema);
    // Both '-' is refused before this runs (commands::run): stdin is read once.
    let instance_source = Source::from_arg(&args.instance);
    let document = read_json(schema_source)?;
    let schema = Schema::compile(&document).map_err(|error| Failure::SchemaRefused {
        name: schema_source.name(),
        error,
    })?;
    // Annotations JSON Schema says to ignore; a misspelt keyword lands here too.
    for pointer in schema.ignored_keywords() {
        crate::diag::say(format!(
            "{}: note: {} is not a keyword of {} and is ignored (an annotation)",
            schema_source.name(),
            quote(pointer),
            schema.draft().name()
        ));
    }
    let instance = read_json(instance_source)?;
    let violations = schema.validate(&instance, "$");
    if violations.is_empty() {
        say_line(out, &format!("{}: valid", instance_source.name()))?;
        return Ok(Exit::Held);
    }
    // Paths and messages never hold a raw newline: one violation is one line. They
    // quote the instance's keys and values, so they are escaped as any outside text.
    for violation in &violations {
        say_line(out, &violation.to_string())?;
    }
    Err(Failure::Invalid {
        instance: instance_source.name(),
        schema: schema_source.name(),
        violations: violations.len(),
    })
}

/// `'text'`, as sentences quote a pointer.
fn quote(text: &str) -> String {
    format!("'{text}'")
}

/// Reads and strictly parses one JSON document.
fn read_json(source: Source<'_>) -> Result<Value, Failure> {
    let input = source
        .read_document()
        .map_err(|error| Failure::reading(source.name(), error))?;
    json::parse(&input).map_err(|e| {
        let (line, column) = e.line_column(&input);
        Failure::ValidateJson {
            name: source.name(),
            line,
            column,
            kind: e.kind(),
        }
    })
}
