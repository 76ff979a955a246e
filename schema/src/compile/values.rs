//! Reading keyword values: numbers, counts, names, type lists, patterns, and the
//! sentences of refusals.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::{refuse, DRAFT_2020_12, MAX_REQUIRED_NAMES};
use crate::draft::Draft;
use crate::message::show;
use crate::reference::push_token;
use crate::tree::{Count, Type};
use crate::{work, SchemaError};
use agentloop_json::__private::path::quoted;
use agentloop_json::Value;
use agentloop_transcript::__private::number::is_integral;

/// The pointer to the value at `address` inside `value`, if it is there.
pub(super) fn pointer_to(value: &Value, address: usize) -> Option<String> {
    if core::ptr::from_ref(value) as usize == address {
        return Some(String::new());
    }
    let (token, found) = match value {
        Value::Object(members) => members
            .iter()
            .find_map(|(key, member)| Some((String::from(key), pointer_to(member, address)?)))?,
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| Some((format!("{i}"), pointer_to(item, address)?)))?,
        _ => return None,
    };
    let mut out = String::new();
    push_token(&mut out, &token);
    out.push_str(&found);
    Some(out)
}

/// `keyword 'X' must be WHAT, got VALUE`.
pub(super) fn must_be(pointer: &str, keyword: &str, what: &str, got: &Value) -> SchemaError {
    refuse(
        pointer,
        format!(
            "keyword {} must be {what}, got {}",
            quoted(keyword),
            show(got)
        ),
    )
}

/// The refusal of a `$schema` that names no supported draft.
pub(super) fn unknown_draft(uri: &str) -> String {
    format!(
        "keyword '$schema' names {}, which is not a supported draft (draft 2020-12, draft \
         2019-09 or draft-07, e.g. {}): reading a schema by another draft's rules could \
         change what it means",
        quoted(uri),
        DRAFT_2020_12[0]
    )
}

/// The refusal of a keyword another draft has and this one does not.
pub(super) fn other_draft(keyword: &str, draft: Draft) -> String {
    let hint = match keyword {
        "dependencies" => {
            " (draft 2019-09 split it into 'dependentRequired' and 'dependentSchemas')"
        }
        "additionalItems" => " (draft 2020-12 names it 'items', beside 'prefixItems')",
        "$recursiveRef" | "$recursiveAnchor" => {
            " (draft 2020-12 has '$dynamicRef' and '$dynamicAnchor' instead)"
        }
        _ => "",
    };
    format!(
        "keyword {} is not a {} keyword{hint}; it is refused rather than ignored, since \
         its author meant a constraint (name the draft it belongs to with '$schema')",
        quoted(keyword),
        draft.name()
    )
}

/// A finite number.
pub(super) fn number(pointer: &str, keyword: &str, value: &Value) -> Result<f64, SchemaError> {
    match value {
        Value::Number(n) if n.is_finite() => Ok(*n),
        other => Err(must_be(pointer, keyword, "a number", other)),
    }
}

/// A boolean.
pub(super) fn boolean(pointer: &str, keyword: &str, value: &Value) -> Result<bool, SchemaError> {
    match value {
        Value::Bool(b) => Ok(*b),
        other => Err(must_be(pointer, keyword, "a boolean", other)),
    }
}

/// A non-negative integer (`1.0` is one): compared saturated to `u64`, quoted as
/// written.
pub(super) fn count(pointer: &str, keyword: &str, value: &Value) -> Result<Count, SchemaError> {
    match value {
        // `as` saturates: a limit beyond u64::MAX is as good as u64::MAX.
        Value::Number(n) if is_integral(*n) && *n >= 0.0 => Ok(Count {
            limit: *n as u64,
            written: *n,
        }),
        other => Err(must_be(pointer, keyword, "a non-negative integer", other)),
    }
}

/// `type`: a type name, or a non-empty array of unique type names.
pub(super) fn types(value: &Value, pointer: &str) -> Result<Vec<Type>, SchemaError> {
    let name = |value: &Value, at: &str| match value {
        Value::String(s) => Type::from_name(s).ok_or_else(|| {
            refuse(
                at,
                format!(
                    "keyword 'type': {} is not a JSON Schema type name (the names are {})",
                    quoted(s),
                    Type::NAMES
                ),
            )
        }),
        other => Err(must_be(at, "type", "a type name", other)),
    };
    match value {
        Value::String(_) => Ok(vec![name(value, pointer)?]),
        Value::Array(items) if !items.is_empty() => {
            let mut out: Vec<Type> = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let at = format!("{pointer}/{i}");
                let t = name(item, &at)?;
                if out.contains(&t) {
                    return Err(refuse(
                        &at,
                        format!(
                            "keyword 'type' must list each type once, but lists {} twice",
                            quoted(t.name())
                        ),
                    ));
                }
                out.push(t);
            }
            Ok(out)
        }
        other => Err(must_be(
            pointer,
            "type",
            "a type name or a non-empty array of type names",
            other,
        )),
    }
}

/// `required` (and the lists of `dependentRequired`): an array of unique strings, at
/// most [`MAX_REQUIRED_NAMES`] of them. Refused at its first entry (in the order
/// written) that is not a string or repeats an earlier one; repeats are found by
/// sorting the names, so n names cost n log n comparisons.
pub(super) fn names(
    value: &Value,
    pointer: &str,
    keyword: &str,
) -> Result<Vec<String>, SchemaError> {
    let Value::Array(items) = value else {
        return Err(must_be(pointer, keyword, "an array of strings", value));
    };
    if items.len() > MAX_REQUIRED_NAMES {
        return Err(refuse(
            pointer,
            format!(
                "keyword {} lists {} names, more than the {MAX_REQUIRED_NAMES} a schema may \
                 list",
                quoted(keyword),
                items.len()
            ),
        ));
    }
    // The strings before the first entry that is not one.
    let names: Vec<&str> = items.iter().map_while(Value::as_str).collect();
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &b| {
        work::comparison();
        names[a].cmp(names[b])
    });
    // The sort is stable: of equal names, the first written comes first, and the
    // earliest repeat is the least second of a pair of equal neighbours.
    let repeat = order
        .windows(2)
        .filter(|pair| {
            work::comparison();
            names[pair[0]] == names[pair[1]]
        })
        .map(|pair| pair[1])
        .min();
    if let Some(i) = repeat {
        return Err(refuse(
            &format!("{pointer}/{i}"),
            format!(
                "keyword {} must list each name once, but lists {} twice",
                quoted(keyword),
                quoted(names[i])
            ),
        ));
    }
    if let Some(item) = items.get(names.len()) {
        return Err(refuse(
            &format!("{pointer}/{}", names.len()),
            format!(
                "keyword {} must list strings, got {}",
                quoted(keyword),
                show(item)
            ),
        ));
    }
    Ok(names.into_iter().map(String::from).collect())
}
