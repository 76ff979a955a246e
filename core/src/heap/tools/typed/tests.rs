//! Tests of typed tools: generated schemas pass registration (the schema compiler and
//! the provider rules), the loop checks calls against them, and arguments and results
//! cross the type boundary without a silent change.

use crate::tools::ToolOptions;
use alloc::borrow::Cow;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use schemars::{JsonSchema, Schema, SchemaGenerator};

use super::*;
use crate::driver;
use crate::jcs;
use crate::json::parse;
use crate::model::{Reply, Scripted};
use crate::tools::{RegisterErrorKind, RootError, Toolbox};
use crate::verify::{verify_bytes, Options};

fn j(text: &str) -> Value {
    parse(text.as_bytes()).unwrap()
}

#[derive(serde::Deserialize, JsonSchema, Debug, PartialEq)]
#[serde(rename_all = "snake_case")]
enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(serde::Deserialize, JsonSchema, Debug, PartialEq)]
struct Place {
    city: String,
    country: Option<String>,
}

/// Arguments using what schemars turns into `$defs`/`$ref`, `enum`, type lists with
/// `null`, integer formats with bounds, arrays, and `additionalProperties: false`.
#[derive(serde::Deserialize, JsonSchema, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Forecast {
    /// Where.
    place: Place,
    unit: Unit,
    days: u8,
    hours: Option<Vec<u32>>,
}

#[derive(serde::Serialize)]
struct Report {
    place: String,
    days: u8,
}

fn forecast_tool(
) -> TypedTool<Forecast, Report, impl Fn(Forecast) -> Result<Report, ToolError> + Send + Sync> {
    TypedTool::new("forecast", "The weather ahead", |f: Forecast| {
        Ok(Report {
            place: f.place.city,
            days: f.days,
        })
    })
    .unwrap()
}

#[test]
fn a_generated_schema_passes_registration_as_generated() {
    let schema = schema_of::<Forecast>().unwrap();
    let object = schema.as_object().unwrap();
    // schemars' members are kept: the validator reads `$schema` as draft 2020-12 and
    // `title` and `description` as annotations.
    assert_eq!(
        object.get("$schema").and_then(Value::as_str),
        Some("https://json-schema.org/draft/2020-12/schema")
    );
    assert_eq!(
        object.get("title").and_then(Value::as_str),
        Some("Forecast")
    );
    assert!(object.contains_key("$defs"), "{schema:?}");
    let tool = forecast_tool();
    let spec = Tool::spec(&tool);
    assert_eq!(spec.schema, schema);
    let compiled = spec.check().unwrap();
    assert!(
        compiled.ignored_keywords().is_empty(),
        "{:?}",
        compiled.ignored_keywords()
    );
    let mut tools = Toolbox::new();
    tools.register(tool, ToolOptions::new()).unwrap();
    assert_eq!(tools.manifest().names().collect::<Vec<_>>(), ["forecast"]);
}

#[test]
fn the_loop_checks_calls_against_the_generated_schema_before_the_tool_reads_them() {
    let mut tools = Toolbox::new();
    tools.register(forecast_tool(), ToolOptions::new()).unwrap();
    let replies = vec![
        Reply::new("")
            .with_call(
                "forecast",
                j(r#"{"place":{"city":"Oslo"},"unit":"celsius","days":3,"hours":[6,18]}"#),
            )
            // Each of these breaks the generated schema: the loop refuses it, the tool
            // never sees it.
            .with_call(
                "forecast",
                j(r#"{"place":{"city":"Oslo"},"unit":"kelvin","days":3}"#),
            )
            .with_call(
                "forecast",
                j(r#"{"place":{"city":"Oslo"},"unit":"celsius","days":300}"#),
            )
            .with_call(
                "forecast",
                j(r#"{"place":{"city":"Oslo"},"unit":"celsius","days":1,"extra":1}"#),
            )
            .with_call("forecast", j(r#"{"unit":"celsius","days":1}"#)),
        Reply::new("done"),
    ];
    let mut transcript = Vec::new();
    driver::run(
        "weather",
        crate::agent::Budgets::default(),
        &mut Scripted::new(replies),
        &mut tools,
        &mut || false,
        &mut transcript,
        driver::RunOptions::default(),
    )
    .unwrap();
    assert!(verify_bytes(&transcript, &Options::default()).ok());
    let records = crate::export::parse_records(&transcript).unwrap();
    let tool_payloads: Vec<String> = records
        .iter()
        .filter(|r| r.as_object().unwrap().get("kind") == Some(&Value::from("tool")))
        .map(|r| {
            let payload = r.as_object().unwrap().get("payload").unwrap();
            String::from_utf8(jcs::to_vec(payload).unwrap()).unwrap()
        })
        .collect();
    assert_eq!(tool_payloads.len(), 5);
    assert_eq!(
        tool_payloads[0],
        r#"{"id":"call_1_0","name":"forecast","ok":true,"value":{"days":3,"place":"Oslo"}}"#
    );
    // Each refusal names the value and the generated schema's rule it breaks.
    let errors: Vec<&str> = records
        .iter()
        .filter_map(|r| {
            r.as_object()?
                .get("payload")?
                .as_object()?
                .get("error")?
                .as_str()
        })
        .collect();
    assert_eq!(
        errors,
        [
            r#"invalid arguments: $.forecast.unit: expected one of ["celsius","fahrenheit"], got "kelvin""#,
            "invalid arguments: $.forecast.days: expected a value <= 255, got 300",
            "invalid arguments: $.forecast.extra: not allowed: additional property 'extra'",
            "invalid arguments: $.forecast: missing required property 'place'",
        ]
    );
}

/// Arguments whose hand-written schema is looser than the type.
#[derive(serde::Deserialize, Debug)]
#[allow(dead_code)]
struct Loose {
    n: u8,
}

impl JsonSchema for Loose {
    fn schema_name() -> Cow<'static, str> {
        "Loose".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({"type": "object"})
    }
}

#[derive(serde::Serialize)]
struct Big {
    id: u64,
}

#[test]
fn arguments_that_do_not_fit_and_results_that_cannot_be_json_are_failures() {
    let mut tools = Toolbox::new();
    tools
        .register(
            TypedTool::new("loose", "d", |l: Loose| Ok(l.n)).unwrap(),
            ToolOptions::new(),
        )
        .unwrap();
    tools
        .register(
            TypedTool::new("big", "d", |l: Loose| {
                Ok(Big {
                    id: u64::MAX - u64::from(l.n),
                })
            })
            .unwrap(),
            ToolOptions::new(),
        )
        .unwrap();
    assert_eq!(
        tools.call("loose", &j(r#"{"n":7}"#)),
        Ok(Value::Number(7.0))
    );
    assert_eq!(
        tools
            .call("loose", &j(r#"{"n":700}"#))
            .unwrap_err()
            .message(),
        "its arguments do not fit its argument type: invalid value: integer `700`, \
         expected u8 at $.n"
    );
    assert_eq!(
        tools.call("big", &j(r#"{"n":0}"#)).unwrap_err().message(),
        "its result cannot be written as JSON: the integer 18446744073709551615 would \
         become 18446744073709552000 as a JSON number (a double: integers are exact up to \
         2^53 in magnitude); send it as a string at $.id"
    );
}

#[test]
fn an_enum_argument_type_is_refused_at_registration_naming_the_tool() {
    // A unit-only enum is a string schema; one with data a bare `oneOf`.
    let tool = TypedTool::new("pick", "d", |u: Unit| Ok(u == Unit::Celsius)).unwrap();
    let error = Toolbox::new()
        .register(tool, ToolOptions::new())
        .unwrap_err();
    assert!(
        matches!(&error.0, RegisterErrorKind::Root { tool, error: RootError::Type(_) } if tool == "pick"),
        "{error:?}"
    );
    #[derive(serde::Deserialize, JsonSchema)]
    enum Choice {
        One(u8),
        Two { n: u8 },
    }
    let tool = TypedTool::new("choose", "d", |c: Choice| {
        Ok(match c {
            Choice::One(n) | Choice::Two { n } => n,
        })
    })
    .unwrap();
    let error = Toolbox::new()
        .register(tool, ToolOptions::new())
        .unwrap_err();
    assert!(
        matches!(&error.0, RegisterErrorKind::Root { tool, error: RootError::NoType } if tool == "choose"),
        "{error:?}"
    );
}

#[derive(serde::Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Bounded {
    #[schemars(range(max = 18446744073709551615u64))]
    n: u64,
}

#[test]
fn a_schema_with_a_bound_json_cannot_hold_is_refused_when_the_tool_is_made() {
    let error = TypedTool::new("bounded", "d", |b: Bounded| Ok(b.n)).unwrap_err();
    assert_eq!(error.tool, "bounded");
    assert_eq!(error.error.path(), "$.properties.n.maximum");
    assert!(
        error
            .to_string()
            .starts_with("tool 'bounded': the schema generated from its argument type cannot be a JSON value: the integer 18446744073709551615"),
        "{error}"
    );
}

#[test]
fn a_concurrent_typed_tool_runs_in_a_parallel_run_and_declares_idempotence() {
    let tool = TypedTool::new("forecast", "d", |f: Forecast| {
        Ok(Report {
            place: f.place.city,
            days: f.days,
        })
    })
    .unwrap()
    .idempotent();
    let shown = alloc::format!("{tool:?}");
    assert!(shown.starts_with("TypedTool { spec: "), "{shown}");
    assert!(shown.ends_with("idempotent: true }"), "{shown}");
    let mut tools = Toolbox::new();
    tools
        .register(tool, ToolOptions::new().concurrent())
        .unwrap();
    assert!(tools.manifest().idempotent("forecast"));
    assert!(tools.concurrent("forecast").is_some());
    let args = j(r#"{"place":{"city":"Rome","country":"IT"},"unit":"fahrenheit","days":2}"#);
    assert_eq!(
        tools.call("forecast", &args),
        Ok(j(r#"{"days":2,"place":"Rome"}"#))
    );
    let call = |n: u32| {
        j(&alloc::format!(
            r#"{{"place":{{"city":"c{n}"}},"unit":"celsius","days":{n}}}"#
        ))
    };
    let replies = vec![
        Reply::new("")
            .with_call("forecast", call(1))
            .with_call("forecast", call(2)),
        Reply::new("done"),
    ];
    let mut transcript = Vec::new();
    driver::run(
        "weather",
        crate::agent::Budgets::default(),
        &mut Scripted::new(replies),
        &mut tools,
        &mut || false,
        &mut transcript,
        driver::RunOptions { parallel: 2 },
    )
    .unwrap();
    let text = String::from_utf8(transcript).unwrap();
    assert!(
        text.contains(r#""value":{"days":1,"place":"c1"}"#),
        "{text}"
    );
    assert!(
        text.contains(r#""value":{"days":2,"place":"c2"}"#),
        "{text}"
    );
    assert_eq!(
        TypedToolError {
            tool: "t".into(),
            error: crate::json::to_value(&f64::NAN).unwrap_err()
        }
        .to_string(),
        "tool 't': the schema generated from its argument type cannot be a JSON value: NaN \
         and infinite numbers have no JSON encoding at $"
    );
}
