//! The sentences of violations (and the value spellings refusals share with them).
//!
//! Values are shown as canonical JSON (RFC 8785), cut at [`SHOWN_BYTES`] bytes with
//! `...`; numbers as ECMAScript prints them; member names in single quotes.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::path::quoted;
use super::tree::{type_of, Type};
use crate::jcs;
use crate::json::Value;

/// Longest spelling of a value in a message, in bytes, before it is cut with `...`.
pub(crate) const SHOWN_BYTES: usize = 100;

/// `value` as canonical JSON, cut at [`SHOWN_BYTES`].
pub(crate) fn show(value: &Value) -> String {
    let mut bytes = Vec::new();
    match jcs::write_value(value, &mut bytes) {
        Ok(()) => cut(bytes),
        // Only a hand-built value holding a NaN or an infinity gets here.
        Err(_) => String::from("(a value with a non-finite number)"),
    }
}

/// `values` as a canonical JSON array, cut at [`SHOWN_BYTES`].
pub(crate) fn show_list(values: &[Value]) -> String {
    let mut bytes = Vec::from(*b"[");
    for (i, value) in values.iter().enumerate() {
        if i > 0 {
            bytes.push(b',');
        }
        if jcs::write_value(value, &mut bytes).is_err() {
            bytes.extend_from_slice(b"(non-finite)");
        }
        if bytes.len() > SHOWN_BYTES {
            break;
        }
    }
    bytes.push(b']');
    cut(bytes)
}

/// A number as ECMAScript prints it.
pub(crate) fn show_number(n: f64) -> String {
    show(&Value::Number(n))
}

/// Cuts UTF-8 `bytes` at a character boundary at or before [`SHOWN_BYTES`], adding `...`.
fn cut(bytes: Vec<u8>) -> String {
    let text = String::from_utf8(bytes).unwrap_or_default();
    if text.len() <= SHOWN_BYTES {
        return text;
    }
    let mut end = SHOWN_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}

/// `expected type integer, got string`; `expected type one of integer, null, got string`.
pub(crate) fn wrong_type(expected: &[Type], got: &Value) -> String {
    let mut names = String::new();
    for (i, t) in expected.iter().enumerate() {
        if i > 0 {
            names.push_str(", ");
        }
        names.push_str(t.name());
    }
    if expected.len() == 1 {
        format!("expected type {names}, got {}", type_of(got))
    } else {
        format!("expected type one of {names}, got {}", type_of(got))
    }
}

/// `expected one of [1,2,3], got 4`.
pub(crate) fn not_in_enum(values: &[Value], got: &Value) -> String {
    format!("expected one of {}, got {}", show_list(values), show(got))
}

/// `expected const "x", got "y"`.
pub(crate) fn not_const(expected: &Value, got: &Value) -> String {
    format!("expected const {}, got {}", show(expected), show(got))
}

/// `expected a value >= 0, got -1` (and `>`, `<=`, `<`).
pub(crate) fn out_of_range(relation: &str, limit: f64, got: f64) -> String {
    format!(
        "expected a value {relation} {}, got {}",
        show_number(limit),
        show_number(got)
    )
}

/// `expected at least 2 items, got 1`; `expected at most 3 characters, got 5`.
pub(crate) fn wrong_count(bound: &str, limit: u64, unit: &str, got: usize) -> String {
    let s = if limit == 1 { "" } else { "s" };
    format!("expected {bound} {limit} {unit}{s}, got {got}")
}

/// `missing required property 'b'`.
pub(crate) fn missing(name: &str) -> String {
    format!("missing required property {}", quoted(name))
}

/// Why a `false` schema was applied, for its sentence.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Context<'a> {
    /// The root, a `$defs` entry reached by `$ref`, or anything else.
    Plain,
    /// A member named in `properties`.
    Property(&'a str),
    /// A member `additionalProperties` applies to.
    Additional(&'a str),
    /// An array item.
    Item,
}

/// The sentence for a `false` schema in `context`: `not allowed: additional property 'c'`.
pub(crate) fn not_allowed(context: Context<'_>) -> String {
    match context {
        Context::Plain => {
            String::from("not allowed: the schema here is false, so no value is valid")
        }
        Context::Property(name) => format!("not allowed: property {}", quoted(name)),
        Context::Additional(name) => format!("not allowed: additional property {}", quoted(name)),
        Context::Item => String::from("not allowed: array items (the items schema is false)"),
    }
}

/// `expected to match at least one of 2 alternatives`.
pub(crate) fn no_alternative(count: usize) -> String {
    let s = if count == 1 { "" } else { "s" };
    format!("expected to match at least one of {count} alternative{s}")
}

/// The instance nests deeper than validation follows.
pub(crate) fn too_deep(limit: usize) -> String {
    format!("too deeply nested to validate: more than {limit} schemas applied one inside another")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;
    use alloc::vec;

    #[test]
    fn formats() {
        let s = Value::from("x");
        assert_eq!(
            wrong_type(&[Type::Integer], &s),
            "expected type integer, got string"
        );
        assert_eq!(
            wrong_type(&[Type::Integer, Type::Null], &Value::Number(1.5)),
            "expected type one of integer, null, got number"
        );
        let list = vec![Value::Number(1.0), Value::Number(2.0), Value::Number(3.0)];
        assert_eq!(
            not_in_enum(&list, &Value::Number(4.0)),
            "expected one of [1,2,3], got 4"
        );
        assert_eq!(
            not_const(&Value::from("x"), &Value::from("y")),
            r#"expected const "x", got "y""#
        );
        assert_eq!(
            out_of_range(">=", 0.0, -1.0),
            "expected a value >= 0, got -1"
        );
        assert_eq!(
            out_of_range("<", 1e21, 1e21),
            "expected a value < 1e+21, got 1e+21"
        );
        assert_eq!(
            wrong_count("at least", 2, "item", 1),
            "expected at least 2 items, got 1"
        );
        assert_eq!(
            wrong_count("at most", 1, "item", 3),
            "expected at most 1 item, got 3"
        );
        assert_eq!(missing("b"), "missing required property 'b'");
        assert_eq!(
            not_allowed(Context::Additional("c")),
            "not allowed: additional property 'c'"
        );
        assert_eq!(
            no_alternative(2),
            "expected to match at least one of 2 alternatives"
        );
    }

    #[test]
    fn long_values_are_cut_on_a_character_boundary() {
        let long = Value::String("é".repeat(200));
        let shown = show(&long);
        assert!(shown.ends_with("..."), "{shown}");
        assert!(shown.len() <= SHOWN_BYTES + 3);
        let many: Vec<Value> = (0..100).map(|i| Value::Number(f64::from(i))).collect();
        let shown = show_list(&many);
        assert!(
            shown.starts_with("[0,1,2,") && shown.ends_with("..."),
            "{shown}"
        );
        assert!(shown.len() <= SHOWN_BYTES + 3);
        let v = parse(br#"{"b":1,"a":[true,null]}"#).unwrap();
        assert_eq!(show(&v), r#"{"a":[true,null],"b":1}"#);
    }
}
