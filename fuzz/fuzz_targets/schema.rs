//! The schema compiler and validator on arbitrary JSON, and on schemas built from the
//! input by a grammar of every keyword of draft 2020-12, 2019-09 and draft-07.
//!
//! Input: either a schema document, optionally a 0x00 byte and an instance document
//! (without one, the schema document is also the instance); or, when the first byte is
//! 0x01, bytes that steer the grammar below to a schema document and an instance (so the
//! fuzzer reaches combinations of keywords, references, anchors, `$dynamicRef`,
//! `unevaluated*`, `pattern`s and drafts that random JSON text rarely spells). Asserts:
//! never a panic (nor a stack overflow); compiling is deterministic; validation is
//! deterministic, agrees with `is_valid` and with the detailed pass alone, and every
//! violation's path starts at the root it was given. Validation terminating quickly is
//! what libFuzzer's `-timeout` checks (each input's time, beside the engine's own
//! bounds).
#![no_main]

use agentloop_core::json::{self, Object, Value};
use agentloop_core::schema::Schema;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (document, instance) = match data.split_first() {
        Some((1, rest)) => {
            let mut g = Grammar { data: rest, at: 0 };
            let document = g.document();
            let instance = g.value(0);
            (document, Some(instance))
        }
        _ => {
            let (schema_bytes, instance_bytes) = match data.iter().position(|&b| b == 0) {
                Some(at) => (&data[..at], &data[at + 1..]),
                None => (data, data),
            };
            let Ok(document) = json::parse(schema_bytes) else {
                return;
            };
            (document, json::parse(instance_bytes).ok())
        }
    };
    check(&document, instance.as_ref());
});

fn check(document: &Value, instance: Option<&Value>) {
    let compiled = Schema::compile(document);
    assert_eq!(
        Schema::compile(document),
        compiled,
        "compile is deterministic"
    );
    let schema = match compiled {
        Ok(schema) => schema,
        Err(refusal) => {
            assert!(!refusal.message.is_empty());
            assert!(refusal.pointer.is_empty() || refusal.pointer.starts_with('/'));
            let _ = refusal.to_string();
            return;
        }
    };
    assert_eq!(schema.source(), document);
    for pointer in schema.ignored_keywords() {
        assert!(pointer.starts_with('/'), "{pointer}");
    }
    let Some(instance) = instance else {
        return;
    };
    let violations = schema.validate(instance, "$");
    assert_eq!(
        schema.validate(instance, "$"),
        violations,
        "validate is deterministic"
    );
    assert_eq!(
        schema.is_valid(instance),
        violations.is_empty(),
        "is_valid vs validate"
    );
    assert_eq!(
        schema.validate_detailed(instance, "$"),
        violations,
        "validate vs its detailed pass alone"
    );
    for v in &violations {
        assert!(v.path.starts_with('$'), "{v}");
        assert!(!v.message.is_empty(), "{v}");
    }
    let under_tool = schema.validate(instance, "$.tool");
    assert_eq!(under_tool.len(), violations.len());
    for (a, b) in under_tool.iter().zip(&violations) {
        assert_eq!(a.path, format!("$.tool{}", &b.path[1..]));
        assert_eq!(a.message, b.message);
    }
}

/// Names of members, definitions and anchors: short, and a few that need escaping in a
/// JSON pointer or a URI.
const NAMES: &[&str] = &["a", "b", "c", "a b", "x/y", "t~1", "é", "", "%25", "node"];

const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "string", "integer",
];

const PATTERNS: &[&str] = &[
    "^a",
    "b$",
    "^[ab]*$",
    "\\d+",
    "^\\w+$",
    "\\s",
    "^(a|bc)+$",
    "a{2,}",
    "^\\p{L}+$",
    "[😀é]",
    "^(a+)+$",
    "(?=a)",
    "(a)\\1",
    "(",
];

const SCHEMA_URIS: &[&str] = &[
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema#",
    "http://json-schema.org/draft-07/schema#",
    "https://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-04/schema#",
];

/// Every keyword of the three drafts, and a few no draft knows.
const KEYWORDS: &[&str] = &[
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "prefixItems",
    "items",
    "contains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
    "dependencies",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "$id",
    "$defs",
    "definitions",
    "title",
    "default",
    "format",
    "contentMediaType",
    "x-vendor",
];

/// Reads the input as choices; past its end every choice is 0 (so every input ends).
struct Grammar<'a> {
    data: &'a [u8],
    at: usize,
}

impl Grammar<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    fn number(&mut self) -> f64 {
        match self.byte() {
            0..=199 => f64::from(self.byte()) - 100.0,
            200..=239 => f64::from(self.byte()) / 8.0,
            240..=247 => self.pick(&[0.1, 0.01, 0.0075, 0.0001, 1e-300]),
            _ => self.pick(&[1e21, 1e300, -1e300, 9007199254740993.0, -0.0]),
        }
    }

    fn string(&mut self) -> String {
        if self.byte() < 64 {
            return self.pick(NAMES).to_string();
        }
        let len = self.below(6);
        (0..len)
            .map(|_| self.pick(&['a', 'b', 'c', '1', ' ', 'é', '😀', '\n', '_']))
            .collect()
    }

    fn value(&mut self, depth: u32) -> Value {
        match self.below(if depth >= 4 { 4 } else { 6 }) {
            0 => Value::Null,
            1 => Value::Bool(self.byte() & 1 == 1),
            2 => Value::Number(self.number()),
            3 => Value::String(self.string()),
            4 => {
                let n = self.below(4);
                Value::Array((0..n).map(|_| self.value(depth + 1)).collect())
            }
            _ => {
                let mut o = Object::new();
                for _ in 0..self.below(4) {
                    let k = self.string();
                    let v = self.value(depth + 1);
                    o.insert(k, v);
                }
                Value::Object(o)
            }
        }
    }

    /// A reference: to the root, a definition by pointer (either container), an
    /// anchor, an embedded resource's `$id`, or another document.
    fn reference(&mut self) -> String {
        let name = self.pick(NAMES);
        match self.below(8) {
            0 => "#".into(),
            1 => format!("#/$defs/{name}"),
            2 => format!("#/definitions/{name}"),
            3 => format!("#{name}"),
            4 => format!("{name}.json"),
            5 => format!("https://example.com/{name}.json#/$defs/a"),
            6 => "#/properties/a".into(),
            _ => format!("#/$defs/{name}/items"),
        }
    }

    fn schema(&mut self, depth: u32) -> Value {
        let b = self.byte();
        if b < 24 || depth >= 5 {
            return Value::Bool(b & 1 == 1);
        }
        let mut o = Object::new();
        for _ in 0..self.below(5) {
            let key = self.pick(KEYWORDS);
            let value = self.keyword(key, depth);
            o.insert(key, value);
        }
        Value::Object(o)
    }

    fn keyword(&mut self, key: &str, depth: u32) -> Value {
        // One time in 16, any value: the meta-schema checks.
        if self.byte() < 16 {
            return self.value(2);
        }
        match key {
            "type" => {
                if self.byte() & 1 == 0 {
                    Value::from(self.pick(TYPES))
                } else {
                    let n = self.below(3);
                    Value::Array((0..n).map(|_| Value::from(self.pick(TYPES))).collect())
                }
            }
            "enum" | "examples" => {
                let n = self.below(4);
                Value::Array((0..n).map(|_| self.value(2)).collect())
            }
            "const" | "default" | "x-vendor" => self.value(1),
            "multipleOf" | "maximum" | "exclusiveMaximum" | "minimum" | "exclusiveMinimum" => {
                Value::Number(self.number())
            }
            "maxLength" | "minLength" | "maxItems" | "minItems" | "maxContains" | "minContains"
            | "maxProperties" | "minProperties" => Value::Number(f64::from(self.byte() % 5)),
            "pattern" => Value::from(self.pick(PATTERNS)),
            "uniqueItems" | "$recursiveAnchor" => Value::Bool(self.byte() & 1 == 1),
            "required" => self.names(),
            "dependentRequired" => {
                let mut o = Object::new();
                for _ in 0..self.below(3) {
                    let k = self.pick(NAMES);
                    let v = self.names();
                    o.insert(k, v);
                }
                Value::Object(o)
            }
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                let n = 1 + self.below(3);
                Value::Array((0..n).map(|_| self.schema(depth + 1)).collect())
            }
            "items" if self.byte() < 64 => {
                let n = 1 + self.below(3);
                Value::Array((0..n).map(|_| self.schema(depth + 1)).collect())
            }
            "dependentSchemas" | "properties" | "$defs" | "definitions" | "dependencies" => {
                let mut o = Object::new();
                for _ in 0..1 + self.below(3) {
                    let k = self.pick(NAMES);
                    let v = if key == "dependencies" && self.byte() & 1 == 0 {
                        self.names()
                    } else {
                        self.schema(depth + 1)
                    };
                    o.insert(k, v);
                }
                Value::Object(o)
            }
            "patternProperties" => {
                let mut o = Object::new();
                for _ in 0..1 + self.below(2) {
                    let k = self.pick(PATTERNS);
                    let v = self.schema(depth + 1);
                    o.insert(k, v);
                }
                Value::Object(o)
            }
            "$ref" => Value::String(self.reference()),
            "$dynamicRef" => Value::String(format!("#{}", self.pick(NAMES))),
            "$recursiveRef" => Value::from("#"),
            "$anchor" | "$dynamicAnchor" => Value::from(self.pick(NAMES)),
            "$id" => Value::String(match self.below(4) {
                0 => format!("{}.json", self.pick(NAMES)),
                1 => format!("#{}", self.pick(NAMES)),
                2 => "https://example.com/root.json".into(),
                _ => "tree".into(),
            }),
            "title" | "format" | "contentMediaType" => Value::String(self.string()),
            _ => self.schema(depth + 1),
        }
    }

    fn names(&mut self) -> Value {
        let n = self.below(4);
        Value::Array((0..n).map(|_| Value::from(self.pick(NAMES))).collect())
    }

    /// A root schema, maybe with a `$schema`, an `$id` and definitions.
    fn document(&mut self) -> Value {
        let root = self.schema(0);
        let Value::Object(mut o) = root else {
            return root;
        };
        if self.byte() < 96 {
            o.insert("$schema", Value::from(self.pick(SCHEMA_URIS)));
        }
        if self.byte() < 64 {
            o.insert("$id", Value::from("https://example.com/root.json"));
        }
        if self.byte() < 128 {
            let key = if self.byte() & 1 == 0 {
                "$defs"
            } else {
                "definitions"
            };
            let defs = self.keyword("$defs", 0);
            o.insert(key, defs);
        }
        Value::Object(o)
    }
}
