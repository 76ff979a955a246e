//! The sentences of violations (and the value spellings refusals share with them).
//!
//! Values are shown as canonical JSON (RFC 8785), cut at [`shown::SHOWN_BYTES`] bytes with
//! `...`; numbers as ECMAScript prints them; member names in single quotes.

use alloc::format;
use alloc::string::String;

use super::tree::{type_of, Count, Type};
use agentloop_json::__private::path::{push_decimal, push_quoted};
use agentloop_json::Value;

mod shown;

pub(crate) use shown::{push_number, show, show_list, shown_part};

/// The concatenation of `parts`, allocated once.
fn concat(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum::<usize>() + 8);
    for part in parts {
        out.push_str(part);
    }
    out
}

/// `expected type integer, got string`; `expected type one of integer, null, got string`.
pub(crate) fn wrong_type(expected: &[Type], got: &Value) -> String {
    let mut out = String::with_capacity(48);
    out.push_str(if expected.len() == 1 {
        "expected type "
    } else {
        "expected type one of "
    });
    for (i, t) in expected.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(t.name());
    }
    out.push_str(", got ");
    out.push_str(type_of(got));
    out
}

/// `expected one of [1,2,3], got 4`.
pub(crate) fn not_in_enum(values: &[Value], got: &Value) -> String {
    concat(&["expected one of ", &show_list(values), ", got ", &show(got)])
}

/// `expected const "x", got "y"`.
pub(crate) fn not_const(expected: &Value, got: &Value) -> String {
    concat(&["expected const ", &show(expected), ", got ", &show(got)])
}

/// `expected a value >= 0, got -1` (and `>`, `<=`, `<`).
pub(crate) fn out_of_range(relation: &str, limit: f64, got: f64) -> String {
    let mut out = String::with_capacity(40);
    out.push_str("expected a value ");
    out.push_str(relation);
    out.push(' ');
    push_number(&mut out, limit);
    out.push_str(", got ");
    push_number(&mut out, got);
    out
}

/// `expected at least 2 items, got 1`; `expected at most 3 characters, got 5`. The
/// limit is quoted as the schema wrote it (`1e308`, not a saturated count).
pub(crate) fn wrong_count(bound: &str, limit: Count, unit: &str, got: usize) -> String {
    let mut out = String::with_capacity(48);
    out.push_str("expected ");
    out.push_str(bound);
    out.push(' ');
    push_number(&mut out, limit.written);
    out.push(' ');
    match (unit, limit.written == 1.0) {
        ("property", false) => out.push_str("properties"),
        (unit, one) => {
            out.push_str(unit);
            if !one {
                out.push('s');
            }
        }
    }
    out.push_str(", got ");
    push_decimal(&mut out, got as u64);
    out
}

/// `expected a multiple of 0.01, got 0.015`.
pub(crate) fn not_multiple(divisor: f64, got: f64) -> String {
    let mut out = String::with_capacity(40);
    out.push_str("expected a multiple of ");
    push_number(&mut out, divisor);
    out.push_str(", got ");
    push_number(&mut out, got);
    out
}

/// `expected a string matching the pattern "^a+$", got "b"`.
pub(crate) fn no_match(pattern: &str, got: &Value) -> String {
    concat(&[
        "expected a string matching the pattern ",
        &show(&Value::from(shown_part(pattern))),
        ", got ",
        &show(got),
    ])
}

/// `validation stopped: …`, the one violation of an instance whose validation took
/// more than `steps` steps.
pub(crate) fn stopped(steps: u64) -> String {
    format!(
        "validation stopped: checking this instance against the schema takes more than \
         {steps} steps (schema::MAX_VALIDATION_STEPS), so it is not accepted"
    )
}

/// `expected unique items, but items 0 and 2 are equal`.
pub(crate) fn not_unique(first: usize, second: usize) -> String {
    let mut out = String::from("expected unique items, but items ");
    push_decimal(&mut out, first as u64);
    out.push_str(" and ");
    push_decimal(&mut out, second as u64);
    out.push_str(" are equal");
    out
}

/// `expected at least 1 item matching 'contains', got 0`.
pub(crate) fn contains_count(bound: &str, limit: Count, got: usize) -> String {
    let mut out = wrong_count(bound, limit, "item", got);
    let at = out.find(", got").unwrap_or(out.len());
    out.insert_str(at, " matching 'contains'");
    out
}

/// `missing property 'b', required when 'a' is present`.
pub(crate) fn missing_dependent(name: &str, because: &str) -> String {
    let mut out = String::from("missing property ");
    push_quoted(&mut out, name);
    out.push_str(", required when ");
    push_quoted(&mut out, because);
    out.push_str(" is present");
    out
}

/// `expected to match exactly one of 2 alternatives, matched none` (or `matched 2:
/// alternatives 0 and 1`).
pub(crate) fn not_one(count: usize, matched: &[usize]) -> String {
    let mut out = String::from("expected to match exactly one of ");
    push_decimal(&mut out, count as u64);
    out.push_str(if count == 1 {
        " alternative"
    } else {
        " alternatives"
    });
    match matched {
        [] => out.push_str(", matched none"),
        [first, second, ..] => {
            out.push_str(", matched more: alternatives ");
            push_decimal(&mut out, *first as u64);
            out.push_str(" and ");
            push_decimal(&mut out, *second as u64);
        }
        [_] => {}
    }
    out
}

/// `expected not to match the schema under 'not'`.
pub(crate) fn matched_not() -> String {
    String::from("expected not to match the schema under 'not'")
}

/// `property name 'x' does not match the schema under 'propertyNames'`.
pub(crate) fn bad_name(name: &str) -> String {
    let mut out = String::from("property name ");
    push_quoted(&mut out, name);
    out.push_str(" does not match the schema under 'propertyNames'");
    out
}

/// `missing required property 'b'`.
pub(crate) fn missing(name: &str) -> String {
    let mut out = String::with_capacity(29 + name.len());
    out.push_str("missing required property ");
    push_quoted(&mut out, name);
    out
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
    /// A member no keyword evaluated, which `unevaluatedProperties` applies to.
    UnevaluatedProperty(&'a str),
    /// An array item no keyword evaluated, which `unevaluatedItems` applies to.
    UnevaluatedItem,
}

/// The sentence for a `false` schema in `context`: `not allowed: additional property 'c'`.
pub(crate) fn not_allowed(context: Context<'_>) -> String {
    match context {
        Context::Plain => {
            String::from("not allowed: the schema here is false, so no value is valid")
        }
        Context::Property(name) => {
            let mut out = String::with_capacity(24 + name.len());
            out.push_str("not allowed: property ");
            push_quoted(&mut out, name);
            out
        }
        Context::Additional(name) => {
            let mut out = String::with_capacity(35 + name.len());
            out.push_str("not allowed: additional property ");
            push_quoted(&mut out, name);
            out
        }
        Context::Item => String::from("not allowed: array items (the items schema is false)"),
        Context::UnevaluatedProperty(name) => {
            let mut out = String::with_capacity(36 + name.len());
            out.push_str("not allowed: unevaluated property ");
            push_quoted(&mut out, name);
            out
        }
        Context::UnevaluatedItem => String::from(
            "not allowed: unevaluated array item (no keyword evaluated it, and \
             unevaluatedItems is false)",
        ),
    }
}

/// `expected to match at least one of 2 alternatives`.
pub(crate) fn no_alternative(count: usize) -> String {
    let mut out = String::with_capacity(52);
    out.push_str("expected to match at least one of ");
    push_decimal(&mut out, count as u64);
    out.push_str(if count == 1 {
        " alternative"
    } else {
        " alternatives"
    });
    out
}

/// The instance nests deeper than validation follows.
pub(crate) fn too_deep(limit: usize) -> String {
    format!("too deeply nested to validate: more than {limit} schemas applied one inside another")
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let bound = |n: f64| Count {
            limit: n as u64,
            written: n,
        };
        assert_eq!(
            wrong_count("at least", bound(2.0), "item", 1),
            "expected at least 2 items, got 1"
        );
        assert_eq!(
            wrong_count("at most", bound(1.0), "item", 3),
            "expected at most 1 item, got 3"
        );
        assert_eq!(
            wrong_count("at least", bound(1e308), "character", 3),
            "expected at least 1e+308 characters, got 3"
        );
        assert_eq!(
            wrong_count("at most", bound(2.0), "property", 3),
            "expected at most 2 properties, got 3"
        );
        assert_eq!(
            contains_count("at least", bound(1.0), 0),
            "expected at least 1 item matching 'contains', got 0"
        );
        assert_eq!(
            not_multiple(0.01, 0.015),
            "expected a multiple of 0.01, got 0.015"
        );
        assert_eq!(
            no_match("^a+$", &Value::from("b")),
            r#"expected a string matching the pattern "^a+$", got "b""#
        );
        assert_eq!(
            not_unique(0, 2),
            "expected unique items, but items 0 and 2 are equal"
        );
        assert_eq!(
            missing_dependent("b", "a"),
            "missing property 'b', required when 'a' is present"
        );
        assert_eq!(
            not_one(2, &[]),
            "expected to match exactly one of 2 alternatives, matched none"
        );
        assert_eq!(
            not_one(3, &[0, 2]),
            "expected to match exactly one of 3 alternatives, matched more: alternatives 0 and 2"
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
    fn numbers_written_directly_match_the_canonical_writer() {
        let two_53 = 9_007_199_254_740_992.0;
        let mut numbers = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            7.0,
            10.0,
            -10.0,
            99.0,
            100.0,
            4096.0,
            1e15,
            1e16,
            123_456_789_012.0,
            two_53 - 1.0,
            -(two_53 - 1.0),
            two_53,
            -two_53,
            1e21,
            1e300,
            0.5,
            -0.5,
            1.5,
            1e-7,
            600.5,
        ];
        numbers.extend((0..64).map(|e| f64::from(2u8).powi(e) - 1.0));
        numbers.extend((0..64).map(|e| -f64::from(2u8).powi(e)));
        let show_number = |n: f64| {
            let mut out = String::new();
            push_number(&mut out, n);
            out
        };
        for n in numbers {
            let canonical = show(&Value::Number(n));
            assert_eq!(show_number(n), canonical, "{n}");
            let mut appended = String::from("x");
            push_number(&mut appended, n);
            assert_eq!(appended, format!("x{canonical}"));
        }
        assert_eq!(show_number(-0.0), "0");
        assert_eq!(
            no_alternative(1),
            "expected to match at least one of 1 alternative"
        );
        assert_eq!(
            not_allowed(Context::Property("a b")),
            "not allowed: property 'a b'"
        );
        assert_eq!(
            wrong_type(&[Type::String], &Value::Null),
            "expected type string, got null"
        );
    }
}
