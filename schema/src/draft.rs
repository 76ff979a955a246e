//! The drafts a schema may be written for, named by its `$schema`, and which keywords
//! each one knows.
//!
//! A schema without `$schema` is read as draft 2020-12. Draft 2019-09 and draft-07 are
//! read with their own meaning: in both, `items` may be an array (positional, with
//! `additionalItems` for the rest); draft-07 also has `dependencies` and `definitions`,
//! and a `$ref` there hides its sibling keywords; 2019-09 has `$recursiveRef` and
//! `$recursiveAnchor`. Any other `$schema` is refused, naming it: reading a schema by
//! another draft's rules could change what it means.

use agentloop_json::Value;

/// A JSON Schema draft.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Draft {
    /// Draft-07 (`http://json-schema.org/draft-07/schema#`).
    Draft7,
    /// Draft 2019-09 (`https://json-schema.org/draft/2019-09/schema`).
    Draft2019_09,
    /// Draft 2020-12 (`https://json-schema.org/draft/2020-12/schema`), the default.
    Draft2020_12,
}

/// Draft 2020-12's meta-schema URI, with or without an empty fragment.
pub const DRAFT_2020_12: [&str; 2] = [
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2020-12/schema#",
];

impl Draft {
    /// The draft a `$schema` URI names: `http` or `https`, with or without the
    /// trailing `#`.
    pub fn from_uri(uri: &str) -> Option<Draft> {
        let rest = uri
            .strip_prefix("https://")
            .or_else(|| uri.strip_prefix("http://"))?;
        let rest = rest.strip_suffix('#').unwrap_or(rest);
        match rest {
            "json-schema.org/draft/2020-12/schema" => Some(Draft::Draft2020_12),
            "json-schema.org/draft/2019-09/schema" => Some(Draft::Draft2019_09),
            "json-schema.org/draft-07/schema" => Some(Draft::Draft7),
            _ => None,
        }
    }

    /// The draft's canonical meta-schema URI.
    pub fn uri(self) -> &'static str {
        match self {
            Draft::Draft7 => "http://json-schema.org/draft-07/schema#",
            Draft::Draft2019_09 => "https://json-schema.org/draft/2019-09/schema",
            Draft::Draft2020_12 => DRAFT_2020_12[0],
        }
    }

    /// The draft's name in sentences: `draft 2020-12`, `draft-07`.
    pub fn name(self) -> &'static str {
        match self {
            Draft::Draft7 => "draft-07",
            Draft::Draft2019_09 => "draft 2019-09",
            Draft::Draft2020_12 => "draft 2020-12",
        }
    }

    /// What `key` is in a schema object of this draft.
    pub(crate) fn keyword(self, key: &str) -> Keyword {
        use Keyword::*;
        if in_every_draft(key) {
            return Known;
        }
        let kind = match key {
            "definitions" => Known,
            "additionalItems" | "dependencies" => {
                return match self {
                    Draft::Draft7 => Known,
                    // 2019-09 still has additionalItems; dependencies was split in two.
                    Draft::Draft2019_09 if key == "additionalItems" => Known,
                    _ => OtherDraft,
                };
            }
            "$defs"
            | "$anchor"
            | "dependentRequired"
            | "dependentSchemas"
            | "maxContains"
            | "minContains"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "deprecated"
            | "contentSchema"
            | "$vocabulary" => match self {
                Draft::Draft7 => OtherDraft,
                _ => Known,
            },
            "$recursiveRef" | "$recursiveAnchor" => match self {
                Draft::Draft2019_09 => Known,
                _ => OtherDraft,
            },
            "prefixItems" | "$dynamicRef" | "$dynamicAnchor" => match self {
                Draft::Draft2020_12 => Known,
                _ => OtherDraft,
            },
            _ => Unknown,
        };
        // `$defs` in draft-07 is an ordinary container for `$ref` pointers; ignoring it
        // changes nothing a pointer can reach.
        if kind == OtherDraft && key == "$defs" {
            return Known;
        }
        kind
    }
}

/// Whether every draft knows `key` (as the same keyword).
fn in_every_draft(key: &str) -> bool {
    matches!(
        key,
        "type"
            | "enum"
            | "const"
            | "multipleOf"
            | "maximum"
            | "exclusiveMaximum"
            | "minimum"
            | "exclusiveMinimum"
            | "maxLength"
            | "minLength"
            | "pattern"
            | "maxItems"
            | "minItems"
            | "uniqueItems"
            | "maxProperties"
            | "minProperties"
            | "required"
            | "allOf"
            | "anyOf"
            | "oneOf"
            | "not"
            | "if"
            | "then"
            | "else"
            | "items"
            | "contains"
            | "properties"
            | "patternProperties"
            | "additionalProperties"
            | "propertyNames"
            | "$ref"
            | "$schema"
            | "$id"
            | "title"
            | "description"
            | "default"
            | "examples"
            | "readOnly"
            | "writeOnly"
            | "$comment"
            | "format"
            | "contentEncoding"
            | "contentMediaType"
    )
}

/// How a draft reads a member of a schema object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keyword {
    /// A keyword of this draft.
    Known,
    /// A keyword of another supported draft that this draft does not have: ignoring it
    /// would drop a constraint its author meant, so it is refused.
    OtherDraft,
    /// No draft's keyword: an annotation (JSON Schema says to ignore it), listed by
    /// [`super::Schema::ignored_keywords`].
    Unknown,
}

/// The draft of a document: its root's `$schema`, or 2020-12 without one.
pub(crate) fn of_document(document: &Value) -> Result<Draft, Option<&str>> {
    match document.as_object().and_then(|o| o.get("$schema")) {
        None => Ok(Draft::Draft2020_12),
        Some(Value::String(uri)) => Draft::from_uri(uri).ok_or(Some(uri.as_str())),
        Some(_) => Err(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_uris_name_their_draft_with_or_without_the_fragment_and_tls() {
        for (uri, draft) in [
            (
                "https://json-schema.org/draft/2020-12/schema",
                Draft::Draft2020_12,
            ),
            (
                "http://json-schema.org/draft/2020-12/schema#",
                Draft::Draft2020_12,
            ),
            (
                "https://json-schema.org/draft/2019-09/schema#",
                Draft::Draft2019_09,
            ),
            ("http://json-schema.org/draft-07/schema#", Draft::Draft7),
            ("https://json-schema.org/draft-07/schema", Draft::Draft7),
        ] {
            assert_eq!(Draft::from_uri(uri), Some(draft), "{uri}");
            assert_eq!(Draft::from_uri(draft.uri()), Some(draft));
        }
        for uri in [
            "http://json-schema.org/draft-04/schema#",
            "https://json-schema.org/draft/2020-12/schema##",
            "json-schema.org/draft/2020-12/schema",
            "https://example.com/my-meta",
            "",
        ] {
            assert_eq!(Draft::from_uri(uri), None, "{uri}");
        }
    }

    #[test]
    fn each_draft_knows_its_own_keywords_and_refuses_the_others() {
        use Keyword::*;
        assert_eq!(Draft::Draft2020_12.keyword("prefixItems"), Known);
        assert_eq!(Draft::Draft2019_09.keyword("prefixItems"), OtherDraft);
        assert_eq!(Draft::Draft2020_12.keyword("dependencies"), OtherDraft);
        assert_eq!(Draft::Draft7.keyword("dependencies"), Known);
        assert_eq!(Draft::Draft2019_09.keyword("additionalItems"), Known);
        assert_eq!(Draft::Draft2020_12.keyword("additionalItems"), OtherDraft);
        assert_eq!(Draft::Draft7.keyword("unevaluatedProperties"), OtherDraft);
        assert_eq!(Draft::Draft2019_09.keyword("$recursiveRef"), Known);
        assert_eq!(Draft::Draft2020_12.keyword("$recursiveRef"), OtherDraft);
        assert_eq!(Draft::Draft7.keyword("$defs"), Known);
        assert_eq!(Draft::Draft2020_12.keyword("definitions"), Known);
        assert_eq!(Draft::Draft2020_12.keyword("requried"), Unknown);
        assert_eq!(Draft::Draft2020_12.keyword("x-vendor"), Unknown);
    }
}
