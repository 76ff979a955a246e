//! Differential test of the schema validator against an independent implementation:
//! Python's `jsonschema` (Draft202012Validator, Draft201909Validator, Draft7Validator,
//! by the schema's `$schema`), run once over a seeded random corpus by
//! `tests/oracle/schema_oracle.py`.
//!
//! The corpus: random schema documents of depth at most 3 for draft 2020-12, 2019-09 and
//! draft-07, mixing every keyword of each draft: assertions (`type` lists, `enum`,
//! `const`, bounds, `multipleOf`, `pattern`, `uniqueItems`, `minContains`/`maxContains`,
//! `min/maxProperties`, `required`, `dependentRequired`), applicators (`allOf`, `anyOf`,
//! `oneOf`, `not`, `if`/`then`/`else`, `dependentSchemas`, `prefixItems`, `items`,
//! `contains`, `properties`, `patternProperties`, `additionalProperties`,
//! `propertyNames`, `unevaluatedProperties`, `unevaluatedItems`), boolean schemas,
//! references (`$defs` or `definitions` with escaped and percent-encoded names, `$anchor`,
//! `$id`-relative references between embedded resources, recursion through members and
//! items), draft-07 forms (`items` arrays with `additionalItems`, `dependencies`, a `$ref`
//! that hides its siblings, `"$id": "#name"` anchors), 2019-09 `items` arrays, annotations
//! and keywords no draft knows; besides, documents shaped around `$dynamicRef` /
//! `$dynamicAnchor` (2020-12) and `$recursiveRef` / `$recursiveAnchor` (2019-09). Each
//! document has nine instances: random values, values built to match it, and near misses
//! (such a value with one small change). Every pair must get the same verdict (valid iff
//! no violations).
//!
//! Besides, schemas their draft's meta-schema refuses must be refused by both, ours at
//! the bad keyword; and schemas ours refuses by design (a keyword of another draft, a
//! reference to another document, a pattern with look-around or a back-reference, an
//! unknown `$schema`, an endless reference cycle) must be refused by ours for that
//! reason, while Python's meta-schema check accepts them (so the refusal is not a
//! meta-schema one).
//!
//! Where `jsonschema` is not what the drafts say, the oracle or the comparison says so:
//! see `schema_oracle.py` (`pattern` as ECMA-262, exact `multipleOf`) and
//! [`python_bug`].
//!
//! Skipped when python3 or its `jsonschema` module is missing, except under `CI`, where
//! that is a failure (`.ci/run` installs it).

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use agentloop_core::jcs;
use agentloop_core::json::{self, Object, Value};
use agentloop_core::schema::{Draft, Schema};
use agentloop_tests::{skip_or_fail, workspace_root, TempDir, XorShift};

/// Schema documents for which both must agree, each with [`INSTANCES`] instances.
/// (Python's meta-schema check takes milliseconds per schema, so the corpus has more
/// instances than schemas.)
const SCHEMAS: usize = 640;
const INSTANCES: usize = 12;
const BAD_SCHEMAS: usize = 240;
const SEED: u64 = 0x5c4e_3a20_2012_0002;

/// The seed: [`SEED`], or `SCHEMA_DIFFERENTIAL_SEED` (decimal) to explore other corpora.
fn seed() -> u64 {
    std::env::var("SCHEMA_DIFFERENTIAL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(SEED)
}

/// Property names and definition names: identifiers, and names that need brackets in a
/// path, escapes in a JSON pointer (`/`, `~`) or percent-encoding in a `$ref`.
const NAMES: &[&str] = &["a", "b", "c", "a b", "x/y", "t~1", "é", "😀", "", "%"];

const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// Patterns that ECMA-262 and Python's `re` (as the oracle calls it: see
/// `schema_oracle.py`) read alike on the corpus's strings, each with strings it matches.
/// ASCII syntax; no `\r`, U+2028 or non-ASCII digit or space in any string.
const PATTERNS: &[(&str, &[&str])] = &[
    ("^a", &["a", "ab", "a😀"]),
    ("b$", &["b", "ab", "😀b"]),
    ("^[ab]*$", &["", "ab", "bba"]),
    ("é", &["é", "aé"]),
    ("^😀+$", &["😀", "😀😀"]),
    ("^.{2}$", &["ab", "é😀", "\"'"]),
    ("\\d", &["1", "a1"]),
    ("^\\w+$", &["a", "a_1"]),
    ("\\s", &[" ", "a b", "\n"]),
    ("^(a|bc)+$", &["a", "bca"]),
    ("a{2,}", &["aa", "baaa"]),
    ("^[^a]", &["b", "😀a"]),
    ("[😀é]", &["😀", "xé"]),
    ("^$", &[""]),
    ("\\\\", &["\\", "a\\"]),
    ("^[a-c]{1,3}$", &["a", "cab"]),
    ("\\bab\\b", &["ab", "x ab"]),
    ("^\\S*$", &["", "aé"]),
    ("(?:ab)+", &["ab", "xabab"]),
    ("^[\\u0061-\\u0062]+$", &["a", "ba"]),
];

/// `multipleOf` values (the oracle decides divisibility exactly, on the decimals).
const DIVISORS: &[f64] = &[1.0, 2.0, 3.0, 0.5, 0.25, 1.5, 0.1, 0.01];

fn obj(members: Vec<(String, Value)>) -> Value {
    let mut o = Object::new();
    for (k, v) in members {
        o.insert(k, v);
    }
    Value::Object(o)
}

fn num(n: f64) -> Value {
    Value::Number(n)
}

fn parse(text: &str) -> Value {
    json::parse(text.as_bytes()).expect("a template of the corpus")
}

/// What the corpus expects of a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Expect {
    /// Valid for its draft: both must accept it and agree on every instance.
    Accept,
    /// Refused by its draft's meta-schema: both must refuse it, ours at `pointer` (the
    /// bad keyword or below it).
    MetaInvalid { pointer: String },
    /// Refused by ours by design: at `pointer` (or below it), with a sentence saying
    /// `reason`. With `python_checks`, Python's meta-schema check must accept it.
    ByDesign {
        pointer: String,
        reason: &'static str,
        python_checks: bool,
    },
}

struct Case {
    /// Cases of one schema share its number (the oracle checks each schema once).
    group: u64,
    schema: Value,
    instance: Value,
    expect: Expect,
    origin: &'static str,
}

/// What a reference in the corpus names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Root,
    Def(usize),
}

/// A definition of the document being built: its name, `$id` (a relative URI such as
/// `d1.json`, making it a resource of its own) or anchor, and body.
#[derive(Debug, Clone)]
struct Def {
    name: String,
    id: Option<String>,
    anchor: Option<String>,
    body: Value,
}

/// The root's `$id`, when it has one; relative references such as `root.json#/$defs/a`
/// and `d1.json` resolve against it.
const ROOT_ID: &str = "https://example.com/root.json";

struct Gen {
    rng: XorShift,
    draft: Draft,
    /// `$defs` or `definitions`.
    defs_key: &'static str,
    defs: Vec<Def>,
    /// Reference string → what it names. Spellings are chosen so that each string
    /// means one thing wherever it appears (`#` only outside embedded resources).
    refs: BTreeMap<String, Target>,
    root_id: bool,
    /// The definition whose resource (`$id`) the schema being built is inside.
    resource: Option<usize>,
    root: Value,
    /// Whether the document being built leans on the in-place applicators and
    /// `unevaluated*` (one in four), where evaluation order and annotations matter most.
    focus: bool,
}

impl Gen {
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.rng.below(items.len() as u64) as usize]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.rng.below(100) < percent
    }

    /// `chance`, three times as likely in a focused document.
    fn applicator(&mut self, percent: u64) -> bool {
        self.chance(if self.focus { percent * 3 } else { percent })
    }

    fn since_2019(&self) -> bool {
        self.draft != Draft::Draft7
    }

    fn number(&mut self) -> f64 {
        *self.pick(&[
            0.0, -0.0, 1.0, 2.0, 3.0, -1.0, 1.5, -2.5, 0.1, 0.3, 0.25, 10.0, 1e21, 1e300, 2.5,
            100.0, 6.0, -4.0,
        ])
    }

    fn string(&mut self) -> String {
        let len = self.rng.below(5);
        (0..len)
            .map(|_| {
                *self.pick(&[
                    'a', 'b', 'c', 'é', '😀', ' ', '\'', '"', '\\', '\n', '1', '_',
                ])
            })
            .collect()
    }

    fn random_value(&mut self, depth: u32) -> Value {
        let kind = if depth >= 2 {
            self.rng.below(4)
        } else {
            self.rng.below(7)
        };
        match kind {
            0 => Value::Null,
            1 => Value::Bool(self.rng.one_in(2)),
            2 => num(self.number()),
            3 => {
                if self.rng.one_in(3) {
                    let (_, samples) = *self.pick(PATTERNS);
                    Value::from(*self.pick(samples))
                } else {
                    Value::String(self.string())
                }
            }
            4 | 5 if self.rng.one_in(2) => {
                let len = self.rng.below(4);
                Value::Array((0..len).map(|_| self.random_value(depth + 1)).collect())
            }
            _ => {
                let len = self.rng.below(4);
                let mut members = Vec::new();
                for _ in 0..len {
                    let key = self.pick(NAMES).to_string();
                    members.push((key, self.random_value(depth + 1)));
                }
                obj(members)
            }
        }
    }

    /// `#/$defs/<name>`, the name escaped (RFC 6901) and percent-encoded.
    fn pointer_to(&mut self, j: usize) -> String {
        let mut r = format!("#/{}/", self.defs_key);
        let encode_all = self.rng.one_in(3);
        for c in self.defs[j].name.clone().chars() {
            match c {
                '~' => r.push_str("~0"),
                '/' => r.push_str(if self.rng.one_in(2) { "~1" } else { "%7E1" }),
                c if c.is_ascii_alphanumeric() && !encode_all => r.push(c),
                c => {
                    let mut buf = [0u8; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        r.push_str(&format!("%{b:02X}"));
                    }
                }
            }
        }
        r
    }

    /// A reference to `target`, spelt one of the ways that name it from where the
    /// schema being built is; `None` if there is none (a definition without `$id`
    /// seen from inside another resource, when the root has no `$id`).
    fn reference(&mut self, target: Target) -> Option<String> {
        let inside = self.resource.is_some();
        let mut spellings: Vec<String> = Vec::new();
        match target {
            Target::Root => {
                if !inside {
                    spellings.push("#".into());
                }
                if self.root_id {
                    spellings.push(ROOT_ID.into());
                    spellings.push("root.json".into());
                }
            }
            Target::Def(j) => {
                let pointer = self.pointer_to(j);
                let def = self.defs[j].clone();
                if !inside {
                    spellings.push(pointer.clone());
                    if let Some(a) = &def.anchor {
                        spellings.push(format!("#{a}"));
                    }
                }
                if self.root_id {
                    spellings.push(format!("root.json{pointer}"));
                    if let Some(a) = &def.anchor {
                        spellings.push(format!("{ROOT_ID}#{a}"));
                    }
                }
                if let Some(id) = &def.id {
                    spellings.push(id.clone());
                    if self.root_id {
                        spellings.push(format!("https://example.com/{id}"));
                    }
                }
            }
        }
        if spellings.is_empty() {
            return None;
        }
        let r = self.pick(&spellings).clone();
        self.refs.insert(r.clone(), target);
        Some(r)
    }

    /// A random schema. `depth` counts schema levels (the root is 0, at most 3);
    /// `descended` says whether a member or item keyword lies between the root of the
    /// current definition and here, which is what makes a reference back safe;
    /// `def` is the definition being built (references go only to earlier ones unless
    /// `descended`), `None` for the root schema.
    fn schema(&mut self, depth: u32, descended: bool, def: Option<usize>) -> Value {
        if self.chance(10) {
            return Value::Bool(!self.rng.one_in(4));
        }
        let leaf = depth >= 3;
        let d2019 = self.since_2019();
        let mut m: Vec<(String, Value)> = Vec::new();
        let put = |m: &mut Vec<(String, Value)>, k: &str, v: Value| {
            if !m.iter().any(|(key, _)| key == k) {
                m.push((k.to_string(), v))
            }
        };
        if self.chance(40) {
            if self.rng.one_in(2) {
                put(&mut m, "type", Value::from(*self.pick(TYPES)));
            } else {
                let mut list: Vec<Value> = Vec::new();
                for _ in 0..=self.rng.below(3) {
                    let t = Value::from(*self.pick(TYPES));
                    if !list.contains(&t) {
                        list.push(t);
                    }
                }
                put(&mut m, "type", Value::Array(list));
            }
        }
        if self.chance(8) {
            let len = self.rng.below(4);
            let values = (0..len).map(|_| self.random_value(2)).collect();
            put(&mut m, "enum", Value::Array(values));
        }
        if self.chance(5) {
            let v = self.random_value(1);
            put(&mut m, "const", v);
        }
        for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
            if self.chance(6) {
                let n = self.number();
                put(&mut m, key, num(n));
            }
        }
        if self.chance(8) {
            let d = *self.pick(DIVISORS);
            put(&mut m, "multipleOf", num(d));
        }
        for key in [
            "minLength",
            "maxLength",
            "minItems",
            "maxItems",
            "minProperties",
            "maxProperties",
        ] {
            if self.chance(6) {
                let n = self.rng.below(4) as f64;
                put(&mut m, key, num(n));
            }
        }
        if self.chance(10) {
            let (p, _) = *self.pick(PATTERNS);
            put(&mut m, "pattern", Value::from(p));
        }
        if self.chance(7) {
            let b = !self.rng.one_in(4);
            put(&mut m, "uniqueItems", Value::Bool(b));
        }
        if self.chance(20) {
            let names = self.names(3);
            put(&mut m, "required", names);
        }
        if self.chance(7) {
            // dependentRequired, or draft-07's dependencies with names (and, below, with
            // schemas).
            let mut deps = Vec::new();
            for _ in 0..=self.rng.below(2) {
                let names = self.names(2);
                deps.push((self.pick(NAMES).to_string(), names));
            }
            let key = if d2019 {
                "dependentRequired"
            } else {
                "dependencies"
            };
            put(&mut m, key, obj(deps));
        }
        if !leaf && self.chance(30) {
            let mut props = Vec::new();
            for _ in 0..=self.rng.below(3) {
                let name = self.pick(NAMES).to_string();
                props.push((name, self.schema(depth + 1, true, def)));
            }
            put(&mut m, "properties", obj(props));
        }
        if !leaf && self.chance(10) {
            let mut props = Vec::new();
            for _ in 0..=self.rng.below(2) {
                let (p, _) = *self.pick(PATTERNS);
                props.push((p.to_string(), self.schema(depth + 1, true, def)));
            }
            put(&mut m, "patternProperties", obj(props));
        }
        if self.chance(15) {
            let v = if leaf || self.rng.one_in(2) {
                Value::Bool(self.rng.one_in(2))
            } else {
                self.schema(depth + 1, true, def)
            };
            put(&mut m, "additionalProperties", v);
        }
        if !leaf && self.chance(6) {
            let v = self.schema(depth + 1, true, def);
            put(&mut m, "propertyNames", v);
        }
        if !leaf && self.chance(12) {
            // Positional items: prefixItems (2020-12), or items as an array.
            let n = 1 + self.rng.below(3);
            let list: Vec<Value> = (0..n).map(|_| self.schema(depth + 1, true, def)).collect();
            if self.draft == Draft::Draft2020_12 {
                put(&mut m, "prefixItems", Value::Array(list));
            } else {
                put(&mut m, "items", Value::Array(list));
                if self.chance(50) {
                    let v = if self.rng.one_in(2) {
                        Value::Bool(self.rng.one_in(2))
                    } else {
                        self.schema(depth + 1, true, def)
                    };
                    put(&mut m, "additionalItems", v);
                }
            }
        }
        if !leaf && self.chance(20) {
            let v = self.schema(depth + 1, true, def);
            put(&mut m, "items", v);
        }
        if !leaf && self.chance(10) {
            let v = self.schema(depth + 1, true, def);
            put(&mut m, "contains", v);
        }
        if d2019 {
            for key in ["minContains", "maxContains"] {
                if self.chance(if m.iter().any(|(k, _)| k == "contains") {
                    30
                } else {
                    3
                }) {
                    let n = self.rng.below(3) as f64;
                    put(&mut m, key, num(n));
                }
            }
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            if !leaf && self.applicator(9) {
                let n = 1 + self.rng.below(3);
                let list = (0..n)
                    .map(|_| self.schema(depth + 1, descended, def))
                    .collect();
                put(&mut m, key, Value::Array(list));
            }
        }
        if !leaf && self.applicator(7) {
            let v = self.schema(depth + 1, descended, def);
            put(&mut m, "not", v);
        }
        if !leaf && self.applicator(10) {
            let v = self.schema(depth + 1, descended, def);
            put(&mut m, "if", v);
        }
        for key in ["then", "else"] {
            let p = if m.iter().any(|(k, _)| k == "if") {
                70
            } else {
                2
            };
            if !leaf && self.chance(p) {
                let v = self.schema(depth + 1, descended, def);
                put(&mut m, key, v);
            }
        }
        if !leaf && self.applicator(6) {
            let mut deps = Vec::new();
            for _ in 0..=self.rng.below(1) {
                let name = self.pick(NAMES).to_string();
                deps.push((name, self.schema(depth + 1, descended, def)));
            }
            let key = if d2019 {
                "dependentSchemas"
            } else {
                "dependencies"
            };
            match m.iter_mut().find(|(k, _)| k == key) {
                Some((_, Value::Object(o))) => {
                    for (k, v) in deps {
                        o.insert(k, v);
                    }
                }
                _ => put(&mut m, key, obj(deps)),
            }
        }
        if d2019 {
            for key in ["unevaluatedProperties", "unevaluatedItems"] {
                if self.applicator(7) {
                    let v = if leaf || self.rng.one_in(2) {
                        Value::Bool(self.rng.one_in(3))
                    } else {
                        self.schema(depth + 1, true, def)
                    };
                    put(&mut m, key, v);
                }
            }
        }
        if self.chance(22) {
            // Targets that cannot close a cycle without going into a member or item.
            let limit = match (descended, def) {
                (true, _) | (false, None) => self.defs.len(),
                (false, Some(i)) => i,
            };
            let target = if descended && self.rng.one_in(5) {
                Some(Target::Root)
            } else if limit > 0 {
                Some(Target::Def(self.rng.below(limit as u64) as usize))
            } else {
                None
            };
            if let Some(r) = target.and_then(|t| self.reference(t)) {
                put(&mut m, "$ref", Value::String(r));
            }
        }
        if self.chance(20) {
            let (key, value) = match self.rng.below(12) {
                0 => ("title", Value::from("T")),
                1 => ("description", Value::from("d")),
                2 => ("default", self.random_value(1)),
                3 => ("examples", Value::Array(vec![self.random_value(1)])),
                4 => ("$comment", Value::from("c")),
                5 => ("readOnly", Value::Bool(false)),
                6 => ("writeOnly", Value::Bool(true)),
                7 => ("contentMediaType", Value::from("application/json")),
                8 => ("contentEncoding", Value::from("base64")),
                9 if d2019 => ("deprecated", Value::Bool(true)),
                10 if d2019 => ("contentSchema", obj(vec![("type".into(), "object".into())])),
                _ => (
                    "format",
                    Value::from(*self.pick(&["email", "date-time", "uri", "x"])),
                ),
            };
            put(&mut m, key, value);
        }
        if self.chance(6) {
            // Members no draft knows: annotations for both.
            let (key, value) = match self.rng.below(4) {
                0 => ("x-vendor", self.random_value(1)),
                1 => ("requried", self.names(2)),
                2 => (
                    "discriminator",
                    obj(vec![("propertyName".into(), "a".into())]),
                ),
                _ => ("nullable", Value::Bool(true)),
            };
            put(&mut m, key, value);
        }
        obj(m)
    }

    /// Up to `most` distinct names, as a JSON array.
    fn names(&mut self, most: u64) -> Value {
        let mut names: Vec<Value> = Vec::new();
        for _ in 0..=self.rng.below(most) {
            let n = Value::from(*self.pick(NAMES));
            if !names.contains(&n) {
                names.push(n);
            }
        }
        Value::Array(names)
    }

    fn start(&mut self, draft: Draft) {
        self.draft = draft;
        self.defs_key = match draft {
            Draft::Draft7 => "definitions",
            _ if self.rng.one_in(6) => "definitions",
            _ => "$defs",
        };
        self.defs.clear();
        self.refs.clear();
        self.resource = None;
        self.root_id = false;
        self.focus = self.rng.one_in(4);
    }

    fn random_draft(&mut self) -> Draft {
        match self.rng.below(20) {
            0..=11 => Draft::Draft2020_12,
            12..=14 => Draft::Draft2019_09,
            _ => Draft::Draft7,
        }
    }

    /// The `$schema` URI of the draft (forms Python's `jsonschema` knows).
    fn schema_uri(&mut self) -> &'static str {
        let uris: [&'static str; 2] = match self.draft {
            Draft::Draft7 => [
                "http://json-schema.org/draft-07/schema#",
                "http://json-schema.org/draft-07/schema",
            ],
            Draft::Draft2019_09 => [
                "https://json-schema.org/draft/2019-09/schema",
                "https://json-schema.org/draft/2019-09/schema#",
            ],
            _ => [
                "https://json-schema.org/draft/2020-12/schema",
                "https://json-schema.org/draft/2020-12/schema#",
            ],
        };
        uris[self.rng.below(2) as usize]
    }

    /// A whole schema document: maybe definitions (each may refer to earlier ones, and
    /// to any one below a member or item keyword; some are resources of their own, or
    /// carry an anchor), then the root.
    fn document(&mut self) -> Value {
        let draft = self.random_draft();
        self.start(draft);
        if self.rng.one_in(12) && draft != Draft::Draft7 {
            return self.dynamic_document();
        }
        self.root_id = self.rng.one_in(3);
        let count = if self.rng.one_in(2) {
            0
        } else {
            1 + self.rng.below(3) as usize
        };
        while self.defs.len() < count {
            let name = self.pick(NAMES).to_string();
            if self.defs.iter().any(|d| d.name == name) {
                continue;
            }
            let i = self.defs.len();
            let (id, anchor) = match self.rng.below(4) {
                0 => (Some(format!("d{i}.json")), None),
                1 => (None, Some(format!("anchor{i}"))),
                _ => (None, None),
            };
            self.defs.push(Def {
                name,
                id,
                anchor,
                body: Value::Null,
            });
        }
        for i in 0..count {
            self.resource = self.defs[i].id.as_ref().map(|_| i);
            let body = self.schema(1, false, Some(i));
            self.resource = None;
            let def = self.defs[i].clone();
            let body = self.identify(body, def.id.as_deref(), def.anchor.as_deref());
            self.defs[i].body = body;
        }
        let mut root = self.schema(0, false, None);
        let has_schema = draft != Draft::Draft2020_12 || self.rng.one_in(3);
        if count > 0 || self.root_id || has_schema {
            let mut o = match root {
                Value::Object(o) => o,
                // A boolean root cannot hold definitions: wrapped.
                other => {
                    let mut o = Object::new();
                    o.insert("allOf", Value::Array(vec![other]));
                    o
                }
            };
            if draft == Draft::Draft7 && o.contains_key("$ref") && (count > 0 || self.root_id) {
                // A draft-07 `$ref` would hide the definitions' `$id`s and the root's.
                let inner = std::mem::take(&mut o);
                o.insert("allOf", Value::Array(vec![Value::Object(inner)]));
            }
            if count > 0 {
                let defs = self
                    .defs
                    .iter()
                    .map(|d| (d.name.clone(), d.body.clone()))
                    .collect();
                o.insert(self.defs_key, obj(defs));
            }
            if self.root_id {
                o.insert("$id", Value::from(ROOT_ID));
            }
            if has_schema {
                o.insert("$schema", Value::from(self.schema_uri()));
            }
            root = Value::Object(o);
        }
        self.root = root.clone();
        root
    }

    /// `body` with its `$id` or anchor (draft-07: `"$id": "#name"`), wrapped in an
    /// `allOf` where it is a boolean or (draft-07) has a `$ref`, which would hide them.
    fn identify(&mut self, body: Value, id: Option<&str>, anchor: Option<&str>) -> Value {
        if id.is_none() && anchor.is_none() {
            return body;
        }
        let mut o = match body {
            Value::Object(o) if !(self.draft == Draft::Draft7 && o.contains_key("$ref")) => o,
            other => {
                let mut o = Object::new();
                o.insert("allOf", Value::Array(vec![other]));
                o
            }
        };
        if let Some(id) = id {
            o.insert("$id", Value::from(id));
        }
        if let Some(a) = anchor {
            if self.draft == Draft::Draft7 {
                o.insert("$id", Value::from(format!("#{a}")));
            } else {
                o.insert("$anchor", Value::from(a));
            }
        }
        Value::Object(o)
    }

    /// A small schema for the leaves of the dynamic-reference documents.
    fn leaf(&mut self) -> Value {
        let d = self.draft;
        self.defs_key = "$defs";
        let saved = std::mem::take(&mut self.defs);
        let s = self.schema(3, true, None);
        self.defs = saved;
        self.draft = d;
        s
    }

    /// A document built around dynamic references: 2020-12's `$dynamicRef` (an extensible
    /// tree, or a generic list whose items the root fills in) or 2019-09's
    /// `$recursiveRef` (an extensible tree), each with random parts.
    fn dynamic_document(&mut self) -> Value {
        let leaf = jcs_text(&self.leaf());
        let extra = jcs_text(&self.leaf());
        let strict = if self.rng.one_in(2) {
            r#","unevaluatedProperties":false"#
        } else {
            ""
        };
        let root = if self.draft == Draft::Draft2019_09 {
            let anchor = if self.rng.one_in(4) { "false" } else { "true" };
            format!(
                r##"{{"$schema":"https://json-schema.org/draft/2019-09/schema",
                "$id":"https://example.com/strict-tree","$recursiveAnchor":{anchor},
                "$ref":"tree"{strict},"properties":{{"extra":{extra}}},
                "$defs":{{"tree":{{"$id":"tree","$recursiveAnchor":true,"type":"object",
                "properties":{{"data":{leaf},
                "children":{{"type":"array","items":{{"$recursiveRef":"#"}}}}}}}}}}}}"##
            )
        } else if self.rng.one_in(2) {
            let anchor = if self.rng.one_in(4) {
                ""
            } else {
                r#""$dynamicAnchor":"node","#
            };
            format!(
                r##"{{"$id":"https://example.com/strict-tree",{anchor}
                "$ref":"tree"{strict},"properties":{{"extra":{extra}}},
                "$defs":{{"tree":{{"$id":"tree","$dynamicAnchor":"node","type":"object",
                "properties":{{"data":{leaf},
                "children":{{"type":"array","items":{{"$dynamicRef":"#node"}}}}}}}}}}}}"##
            )
        } else {
            let outer = if self.rng.one_in(4) {
                String::new()
            } else {
                format!(r##""items":{{"$dynamicAnchor":"items","allOf":[{extra}]}},"##)
            };
            format!(
                r##"{{"$id":"https://example.com/root","$ref":"list",
                "$defs":{{{outer}"list":{{"$id":"list","type":"array",
                "items":{{"$dynamicRef":"#items"}},
                "$defs":{{"items":{{"$dynamicAnchor":"items","allOf":[{leaf}]}}}}}}}}}}"##
            )
        };
        let root = parse(&root);
        self.root = root.clone();
        root
    }

    fn resolve(&self, reference: &str) -> Option<Value> {
        match self.refs.get(reference)? {
            Target::Root => Some(self.root.clone()),
            Target::Def(i) => self.defs.get(*i).map(|d| d.body.clone()),
        }
    }

    /// A value built to match the dynamic-reference documents (a tree of objects with
    /// `data`, `children` and `extra`, or a list).
    fn tree(&mut self, depth: u32) -> Value {
        if self
            .root
            .as_object()
            .is_some_and(|o| o.contains_key("$ref"))
            && self.root.as_object().and_then(|o| o.get("$ref")) == Some(&Value::from("list"))
        {
            let len = self.rng.below(4);
            return Value::Array((0..len).map(|_| self.random_value(2)).collect());
        }
        let mut o = Object::new();
        if self.rng.below(4) != 0 {
            let v = self.random_value(2);
            o.insert("data", v);
        }
        if depth < 3 && self.rng.below(3) != 0 {
            let len = self.rng.below(3);
            let children = (0..len).map(|_| self.tree(depth + 1)).collect();
            o.insert("children", Value::Array(children));
        }
        if self.rng.one_in(4) {
            let v = self.random_value(2);
            o.insert(*self.pick(&["extra", "a"]), v);
        }
        Value::Object(o)
    }

    /// Merges the keywords of `more` into `base` (for building values: `allOf`, the
    /// chosen alternative of `anyOf`/`oneOf`, `then`); `base` wins except for
    /// `required` and `properties`, which are joined.
    fn merge(base: &Object, more: &Value) -> Object {
        let mut out = base.clone();
        let Value::Object(more) = more else {
            return out;
        };
        for (k, v) in more.iter() {
            match (k, out.get(k), v) {
                ("required", Some(Value::Array(a)), Value::Array(b)) => {
                    let mut joined = a.clone();
                    joined.extend(b.iter().filter(|n| !a.contains(n)).cloned());
                    out.insert(k, Value::Array(joined));
                }
                ("properties", Some(Value::Object(a)), Value::Object(b)) => {
                    let mut joined = a.clone();
                    for (name, s) in b.iter() {
                        if !joined.contains_key(name) {
                            joined.insert(name, s.clone());
                        }
                    }
                    out.insert(k, Value::Object(joined));
                }
                (_, None, _) => {
                    out.insert(k, v.clone());
                }
                _ => {}
            }
        }
        out
    }

    /// A value built to match `schema` (it often does; any keyword it ignores makes a
    /// near miss of its own).
    fn conform(&mut self, schema: &Value, depth: u32) -> Value {
        let Value::Object(s) = schema else {
            return self.random_value(depth);
        };
        if depth > 5 {
            return self.random_value(3);
        }
        if let Some(Value::String(r)) = s.get("$ref") {
            // In draft-07 a `$ref` is all there is.
            if self.draft == Draft::Draft7 || self.rng.one_in(3) {
                if let Some(target) = self.resolve(r) {
                    return self.conform(&target, depth + 1);
                }
            }
        }
        if let Some(c) = s.get("const") {
            if !self.rng.one_in(5) {
                return c.clone();
            }
        }
        if let Some(Value::Array(values)) = s.get("enum") {
            if !values.is_empty() && !self.rng.one_in(5) {
                return self.pick(values).clone();
            }
        }
        // Fold the in-place applicators into one set of keywords.
        let mut s = s.clone();
        for key in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(list)) = s.remove(key) {
                if list.is_empty() || self.rng.one_in(4) {
                    continue;
                }
                if key == "allOf" {
                    for sub in &list {
                        s = Self::merge(&s, sub);
                    }
                } else {
                    let sub = self.pick(&list).clone();
                    s = Self::merge(&s, &sub);
                }
            }
        }
        if let Some(condition) = s.remove("if") {
            let (then, otherwise) = (s.remove("then"), s.remove("else"));
            if self.rng.one_in(2) {
                s = Self::merge(&s, &condition);
                if let Some(t) = then {
                    s = Self::merge(&s, &t);
                }
            } else if let Some(e) = otherwise {
                s = Self::merge(&s, &e);
            }
        }
        if let Some(c) = s.get("const") {
            if self.rng.one_in(2) {
                return c.clone();
            }
        }
        let has = |k: &str| s.contains_key(k);
        let ty = match s.get("type") {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Array(ts)) if !ts.is_empty() => {
                self.pick(ts).as_str().unwrap_or("null").to_string()
            }
            _ if has("properties")
                || has("required")
                || has("patternProperties")
                || has("dependentRequired")
                || has("minProperties") =>
            {
                "object".into()
            }
            _ if has("items") || has("prefixItems") || has("contains") || has("minItems") => {
                "array".into()
            }
            _ if has("pattern") || has("minLength") || has("maxLength") => "string".into(),
            _ if has("minimum") || has("maximum") || has("multipleOf") => "number".into(),
            _ => return self.random_value(depth.min(2)),
        };
        let bound = |k: &str| s.get(k).and_then(Value::as_f64);
        match ty.as_str() {
            "null" => Value::Null,
            "boolean" => Value::Bool(self.rng.one_in(2)),
            "number" | "integer" => {
                if let Some(d) = bound("multipleOf") {
                    // k × d, spelt exactly (every divisor is a multiple of 0.01).
                    let k = self.rng.below(7) as f64 - 2.0;
                    return num(k * (d * 100.0).round() / 100.0);
                }
                // Sometimes exactly on a bound, where inclusive and exclusive differ.
                let bounds: Vec<f64> =
                    ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
                        .iter()
                        .filter_map(|k| bound(k))
                        .collect();
                if !bounds.is_empty() && self.rng.one_in(3) {
                    return num(*self.pick(&bounds));
                }
                let lo = bound("minimum")
                    .or(bound("exclusiveMinimum").map(|m| m + 1.0))
                    .unwrap_or(-3.0);
                let hi = bound("maximum")
                    .or(bound("exclusiveMaximum").map(|m| m - 1.0))
                    .unwrap_or(lo + 5.0);
                let span = if hi > lo && hi - lo < 1e6 {
                    hi - lo
                } else {
                    3.0
                };
                let mut n = lo + span * (self.rng.below(5) as f64) / 4.0;
                if ty == "integer" || self.rng.one_in(2) {
                    n = (n as i64) as f64;
                }
                num(n)
            }
            "string" => {
                if let Some(Value::String(p)) = s.get("pattern") {
                    if let Some((_, samples)) = PATTERNS.iter().find(|(q, _)| q == p) {
                        return Value::from(*self.pick(samples));
                    }
                }
                let lo = bound("minLength").unwrap_or(0.0) as u64;
                let hi = bound("maxLength").unwrap_or(lo as f64 + 3.0) as u64;
                let len = lo + self.rng.below(hi.saturating_sub(lo) + 1);
                let s: String = (0..len.min(6))
                    .map(|_| *self.pick(&['x', 'é', '😀']))
                    .collect();
                Value::String(s)
            }
            "array" => {
                let lo = bound("minItems").unwrap_or(0.0) as u64;
                let hi = bound("maxItems").unwrap_or(lo as f64 + 2.0) as u64;
                let len = (lo + self.rng.below(hi.saturating_sub(lo) + 1)).min(4) as usize;
                let positional = match (s.get("prefixItems"), s.get("items")) {
                    (Some(Value::Array(p)), _) | (_, Some(Value::Array(p))) => p.clone(),
                    _ => Vec::new(),
                };
                let rest = match (s.get("items"), s.get("additionalItems")) {
                    (Some(Value::Array(_)), extra) => extra.cloned(),
                    (items, _) => items.cloned(),
                };
                let mut items: Vec<Value> = (0..len)
                    .map(|i| match positional.get(i).or(rest.as_ref()) {
                        Some(schema) => self.conform(schema, depth + 1),
                        None => self.random_value(depth + 1),
                    })
                    .collect();
                if let Some(c) = s.get("contains") {
                    let want = bound("minContains").unwrap_or(1.0) as usize;
                    for _ in 0..want.min(3) {
                        let item = self.conform(c, depth + 1);
                        let at = self.rng.below(items.len() as u64 + 1) as usize;
                        items.insert(at, item);
                    }
                }
                if s.get("uniqueItems") == Some(&Value::Bool(true)) {
                    let mut unique: Vec<Value> = Vec::new();
                    for item in items {
                        if !unique.contains(&item) {
                            unique.push(item);
                        }
                    }
                    items = unique;
                }
                Value::Array(items)
            }
            _ => {
                let mut o = Object::new();
                if let Some(Value::Object(props)) = s.get("properties") {
                    for (k, v) in props.iter() {
                        if !self.rng.one_in(4) {
                            let member = self.conform(v, depth + 1);
                            o.insert(k, member);
                        }
                    }
                }
                if let Some(Value::Object(props)) = s.get("patternProperties") {
                    for (p, v) in props.iter() {
                        if self.rng.one_in(2) {
                            if let Some((_, samples)) = PATTERNS.iter().find(|(q, _)| q == &p) {
                                let key = *self.pick(samples);
                                let member = self.conform(v, depth + 1);
                                o.insert(key, member);
                            }
                        }
                    }
                }
                if let Some(Value::Array(names)) = s.get("required") {
                    for n in names {
                        let n = n.as_str().unwrap_or_default();
                        if !o.contains_key(n) {
                            let member = self.random_value(2);
                            o.insert(n, member);
                        }
                    }
                }
                if self.rng.one_in(4) {
                    let extra = s.get("additionalProperties").cloned();
                    let member = match extra {
                        Some(e) => self.conform(&e, depth + 1),
                        None => self.random_value(2),
                    };
                    o.insert(*self.pick(NAMES), member);
                }
                for key in ["dependentRequired", "dependencies"] {
                    if let Some(Value::Object(deps)) = s.get(key) {
                        for (name, needs) in deps.iter() {
                            if let (true, Value::Array(needs)) = (o.contains_key(name), needs) {
                                for n in needs {
                                    let n = n.as_str().unwrap_or_default();
                                    if !o.contains_key(n) {
                                        let member = self.random_value(2);
                                        o.insert(n, member);
                                    }
                                }
                            }
                        }
                    }
                }
                Value::Object(o)
            }
        }
    }

    /// `value` with one small change somewhere.
    fn near_miss(&mut self, value: &Value) -> Value {
        let descend = self.rng.below(3) != 0;
        match value {
            Value::Array(items) if descend && !items.is_empty() => {
                let mut items = items.clone();
                let i = self.rng.below(items.len() as u64) as usize;
                items[i] = self.near_miss(&items[i]);
                Value::Array(items)
            }
            Value::Object(o) if descend && !o.is_empty() => {
                let mut o = o.clone();
                let keys: Vec<String> = o.iter().map(|(k, _)| k.to_string()).collect();
                let k = self.pick(&keys).clone();
                let changed = self.near_miss(o.get(&k).unwrap_or(&Value::Null));
                o.insert(k, changed);
                Value::Object(o)
            }
            Value::Number(n) => num(match self.rng.below(6) {
                0 => n + 1.0,
                1 => n - 1.0,
                2 => n + 0.5,
                3 => -n,
                4 => n * 2.0,
                _ => return Value::String(jcs_text(value)),
            }),
            Value::String(s) => match self.rng.below(4) {
                0 => Value::String(format!("{s}😀")),
                1 => Value::String(s.chars().skip(1).collect()),
                2 => Value::String(format!("{s}\n")),
                _ => Value::Null,
            },
            Value::Array(items) => {
                let mut items = items.clone();
                if items.is_empty() || self.rng.one_in(2) {
                    let item = if !items.is_empty() && self.rng.one_in(2) {
                        items[0].clone()
                    } else {
                        self.random_value(2)
                    };
                    items.push(item);
                } else {
                    items.pop();
                }
                Value::Array(items)
            }
            Value::Object(o) => {
                let mut o = o.clone();
                let first = o.iter().next().map(|(k, _)| k.to_string());
                match first {
                    Some(k) if self.rng.one_in(2) => {
                        o.remove(&k);
                    }
                    _ => {
                        let member = self.random_value(2);
                        o.insert(*self.pick(NAMES), member);
                    }
                }
                Value::Object(o)
            }
            Value::Bool(b) => {
                if self.rng.one_in(2) {
                    Value::Bool(!b)
                } else {
                    num(f64::from(u8::from(*b)))
                }
            }
            Value::Null => self.random_value(1),
        }
    }

    /// A schema its draft's meta-schema refuses: one bad keyword placed in a valid
    /// schema; with the pointer of the bad keyword.
    fn meta_invalid(&mut self) -> (Value, String) {
        let draft = self.random_draft();
        let mut bad: Vec<(&str, Value)> = vec![
            ("minItems", num(-1.0)),
            ("minLength", num(1.5)),
            ("maxItems", Value::from("2")),
            ("minProperties", num(-1.0)),
            ("type", Value::from("dict")),
            ("type", Value::from("float")),
            ("type", Value::Array(vec![])),
            ("type", Value::Array(vec!["string".into(), "string".into()])),
            ("required", Value::Array(vec!["a".into(), "a".into()])),
            ("required", Value::Array(vec![num(1.0)])),
            ("anyOf", Value::Array(vec![])),
            ("anyOf", Value::Array(vec![num(1.0)])),
            ("oneOf", Value::Array(vec![])),
            ("allOf", obj(vec![])),
            ("not", num(1.0)),
            ("if", Value::from("x")),
            ("contains", num(1.0)),
            ("propertyNames", Value::Array(vec![])),
            ("minimum", Value::from("0")),
            ("exclusiveMaximum", Value::Bool(true)),
            ("multipleOf", num(0.0)),
            ("multipleOf", num(-2.0)),
            ("uniqueItems", Value::from("yes")),
            ("pattern", Value::from("(a")),
            ("pattern", Value::from("[b")),
            ("pattern", num(1.0)),
            ("patternProperties", obj(vec![("a)".into(), obj(vec![]))])),
            ("properties", obj(vec![("a".into(), num(1.0))])),
            ("additionalProperties", Value::Array(vec![])),
            ("enum", obj(vec![])),
            ("title", num(1.0)),
            ("examples", obj(vec![])),
            ("$ref", num(1.0)),
            ("format", Value::Null),
        ];
        match draft {
            Draft::Draft7 => bad.extend([
                ("definitions", Value::Array(vec![])),
                ("dependencies", obj(vec![("a".into(), num(1.0))])),
                ("items", num(1.0)),
                ("additionalItems", Value::from("no")),
            ]),
            _ => bad.extend([
                ("$defs", Value::Array(vec![])),
                ("deprecated", Value::from("yes")),
                (
                    "dependentRequired",
                    obj(vec![("a".into(), Value::from("b"))]),
                ),
                (
                    "dependentRequired",
                    obj(vec![(
                        "a".into(),
                        Value::Array(vec!["b".into(), "b".into()]),
                    )]),
                ),
                ("dependentSchemas", obj(vec![("a".into(), num(1.0))])),
                ("minContains", num(-1.0)),
                ("unevaluatedProperties", Value::Array(vec![])),
                ("unevaluatedItems", num(1.0)),
                ("$anchor", Value::from("1a")),
                ("$anchor", Value::from("a b")),
                ("$id", Value::from("x.json#frag")),
            ]),
        }
        match draft {
            Draft::Draft2020_12 => bad.extend([
                ("prefixItems", Value::Array(vec![])),
                ("items", Value::Array(vec![obj(vec![])])),
                ("$dynamicAnchor", Value::from("#x")),
            ]),
            Draft::Draft2019_09 => bad.extend([
                ("$recursiveAnchor", Value::from("yes")),
                ("items", num(1.0)),
            ]),
            Draft::Draft7 => {}
        }
        let (key, value) = self.pick(&bad).clone();
        self.inject(draft, key, value)
    }

    /// A schema valid for its draft's meta-schema that ours refuses by design, with the
    /// place and the reason (a phrase of the refusal), and whether Python's meta-schema
    /// check must accept it.
    fn by_design(&mut self) -> (Value, String, &'static str, bool) {
        let draft = self.random_draft();
        let other_draft: Vec<(&str, Value)> = match draft {
            Draft::Draft2020_12 => vec![
                (
                    "dependencies",
                    obj(vec![("a".into(), Value::Array(vec!["b".into()]))]),
                ),
                ("additionalItems", Value::Bool(false)),
                ("$recursiveRef", Value::from("#")),
                // A string: the 2020-12 meta-schema keeps `$recursiveAnchor` as an
                // anchor name.
                ("$recursiveAnchor", Value::from("a")),
            ],
            Draft::Draft2019_09 => vec![
                ("prefixItems", Value::Array(vec![obj(vec![])])),
                ("$dynamicRef", Value::from("#a")),
                ("$dynamicAnchor", Value::from("a")),
                ("dependencies", obj(vec![("a".into(), obj(vec![]))])),
            ],
            Draft::Draft7 => vec![
                ("unevaluatedProperties", Value::Bool(false)),
                ("unevaluatedItems", obj(vec![])),
                ("prefixItems", Value::Array(vec![obj(vec![])])),
                (
                    "dependentRequired",
                    obj(vec![("a".into(), Value::Array(vec![]))]),
                ),
                ("dependentSchemas", obj(vec![("a".into(), obj(vec![]))])),
                ("minContains", num(1.0)),
                ("$anchor", Value::from("a")),
            ],
        };
        match self.rng.below(6) {
            0 | 1 => {
                let (key, value) = self.pick(&other_draft).clone();
                let (schema, at) = self.inject(draft, key, value);
                (schema, at, "draft", true)
            }
            2 => {
                let r = *self.pick(&[
                    "other.json",
                    "https://example.com/other.json#/$defs/a",
                    "https://json-schema.org/draft/2020-12/schema",
                    "http://json-schema.org/draft-07/schema#",
                    "#/$defs/missing",
                ]);
                let reason = if r.starts_with('#') {
                    "missing"
                } else {
                    "another document"
                };
                let (schema, at) = self.inject(draft, "$ref", Value::from(r));
                (schema, at, reason, true)
            }
            3 => {
                let (p, reason) = *self.pick(&[
                    ("(?=a)", "look-around"),
                    ("a(?!b)", "look-around"),
                    ("(?<=a)b", "look-around"),
                    ("(?<!a)b", "look-around"),
                    ("(a)\\1", "back-reference"),
                ]);
                let (schema, at) = if self.rng.one_in(2) {
                    self.inject(draft, "pattern", Value::from(p))
                } else {
                    self.inject(
                        draft,
                        "patternProperties",
                        obj(vec![(p.into(), obj(vec![]))]),
                    )
                };
                (schema, at, reason, true)
            }
            4 => {
                let uri = *self.pick(&[
                    "http://json-schema.org/draft-04/schema#",
                    "http://json-schema.org/draft-06/schema#",
                    "https://example.com/custom-meta",
                    "https://json-schema.org/draft/2020-12/schema##",
                ]);
                let (schema, _) = self.inject(draft, "title", Value::from("t"));
                let mut schema = match schema {
                    Value::Object(o) => o,
                    _ => Object::new(),
                };
                schema.insert("$schema", Value::from(uri));
                (
                    Value::Object(schema),
                    "/$schema".into(),
                    "not a supported draft",
                    false,
                )
            }
            _ => {
                let cycle = match self.rng.below(3) {
                    0 => r##"{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}"##,
                    1 => {
                        r##"{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}},"properties":{"p":{"$ref":"#/$defs/a"}}}"##
                    }
                    _ => r##"{"not":{"if":{"$ref":"#"}}}"##,
                };
                (parse(cycle), String::new(), "cycle", true)
            }
        }
    }

    /// A fresh valid schema of `draft` with `key: value` put at its root or in a
    /// property; with the pointer of `key`.
    fn inject(&mut self, draft: Draft, key: &str, value: Value) -> (Value, String) {
        // No definitions: only `#` references can appear in the base.
        self.start(draft);
        let mut base = match self.schema(1, false, None) {
            Value::Object(o) => o,
            _ => Object::new(),
        };
        base.remove("$ref");
        base.remove(key);
        let (mut schema, at) = if self.rng.one_in(2) {
            base.insert(key, value);
            (base, format!("/{key}"))
        } else {
            let inner = obj(vec![(key.to_string(), value)]);
            let mut o = Object::new();
            o.insert("properties", obj(vec![("p".into(), inner)]));
            (o, format!("/properties/p/{key}"))
        };
        if draft != Draft::Draft2020_12 || self.rng.one_in(3) {
            schema.insert("$schema", Value::from(self.schema_uri()));
        }
        (Value::Object(schema), at)
    }
}

fn jcs_text(value: &Value) -> String {
    String::from_utf8(jcs::to_vec(value).expect("finite")).expect("utf-8")
}

fn corpus() -> Vec<Case> {
    let mut g = Gen {
        rng: XorShift::new(seed()),
        draft: Draft::Draft2020_12,
        defs_key: "$defs",
        defs: Vec::new(),
        refs: BTreeMap::new(),
        root_id: false,
        resource: None,
        root: Value::Null,
        focus: false,
    };
    let mut cases = Vec::new();
    for group in 0..SCHEMAS {
        let schema = g.document();
        let dynamic = schema
            .as_object()
            .and_then(|o| o.get("$id"))
            .is_some_and(|id| id != &Value::from(ROOT_ID));
        for _ in 0..INSTANCES / 3 {
            let random = g.random_value(0);
            let matching = if dynamic {
                g.tree(0)
            } else {
                g.conform(&schema, 0)
            };
            let near = g.near_miss(&matching);
            for (instance, origin) in [
                (random, "random"),
                (matching, "built to match"),
                (near, "near miss"),
            ] {
                cases.push(Case {
                    group: group as u64,
                    schema: schema.clone(),
                    instance,
                    expect: Expect::Accept,
                    origin,
                });
            }
        }
    }
    for i in 0..BAD_SCHEMAS {
        let (schema, expect) = if i % 2 == 1 {
            let (schema, pointer, reason, python_checks) = g.by_design();
            (
                schema,
                Expect::ByDesign {
                    pointer,
                    reason,
                    python_checks,
                },
            )
        } else {
            let (schema, pointer) = g.meta_invalid();
            (schema, Expect::MetaInvalid { pointer })
        };
        let instance = g.random_value(0);
        cases.push(Case {
            group: (SCHEMAS + i) as u64,
            schema,
            instance,
            expect,
            origin: "bad schema",
        });
    }
    cases
}

/// Where Python's `jsonschema` (4.x) is not what the drafts say, for a case shape the
/// corpus makes: the bug, or `None`. Such cases are left out of the comparison (and
/// counted).
fn python_bug(schema: &Value, instance: &Value) -> Option<&'static str> {
    // `uniqueItems`: `_utils.uniq` sorts the items first when they sort, and then only
    // compares neighbours with its bool-aware equality; sorting uses Python's `==`, for
    // which `[1] == [True]`, so in `[[1], [true], [1]]` the two `[1]` never meet and the
    // array passes as unique.
    if mentions(schema, "uniqueItems", &Value::Bool(true)) && nested_bool_in_array(instance) {
        return Some("jsonschema's uniq: [1] and [true] sort as equal");
    }
    // Draft-07 `dependencies`: `referencing` (the library `jsonschema` resolves `$ref`
    // with) looks for subschemas in a `dependencies` by its first value only: when that
    // is a schema, it takes every value for one, and a later array of names makes its
    // search for an `$id` or anchor fail (`AttributeError: 'list' object has no
    // attribute 'get'`).
    let draft7 = draft_of(schema).starts_with("http://json-schema.org/draft-07/");
    if draft7
        && any_object(schema, &|o| o.contains_key("$id"))
        && any_object(schema, &|o| {
            matches!(o.get("dependencies"), Some(Value::Object(deps))
            if deps.iter().any(|(_, v)| matches!(v, Value::Array(_))) && deps.iter().any(|(_, v)| !matches!(v, Value::Array(_))))
        })
    {
        return Some("referencing: draft-07 dependencies mixing schemas and names");
    }
    // Draft 2019-09 `unevaluatedItems`: `_legacy_keywords.find_evaluated_item_indexes_by_schema`
    // takes an `items` that is not an object for an array and asks its length, which
    // fails for a boolean `items` (`TypeError: object of type 'bool' has no len()`).
    if draft_of(schema).starts_with("https://json-schema.org/draft/2019-09/")
        && any_object(schema, &|o| o.contains_key("unevaluatedItems"))
        && any_object(schema, &|o| matches!(o.get("items"), Some(Value::Bool(_))))
    {
        return Some("jsonschema: 2019-09 unevaluatedItems beside a boolean items");
    }
    None
}

/// The document's `$schema` (`""` without one).
fn draft_of(schema: &Value) -> &str {
    schema
        .as_object()
        .and_then(|o| o.get("$schema"))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// Whether some object in `value` (itself included) satisfies `test`.
fn any_object(value: &Value, test: &dyn Fn(&Object) -> bool) -> bool {
    match value {
        Value::Object(o) => test(o) || o.iter().any(|(_, v)| any_object(v, test)),
        Value::Array(items) => items.iter().any(|v| any_object(v, test)),
        _ => false,
    }
}

/// Whether `key: value` appears anywhere in `schema`.
fn mentions(schema: &Value, key: &str, value: &Value) -> bool {
    match schema {
        Value::Object(o) => o
            .iter()
            .any(|(k, v)| (k == key && v == value) || mentions(v, key, value)),
        Value::Array(items) => items.iter().any(|v| mentions(v, key, value)),
        _ => false,
    }
}

/// Whether an array in `value` holds an array (or object) holding a boolean.
fn nested_bool_in_array(value: &Value) -> bool {
    fn holds_bool(v: &Value) -> bool {
        match v {
            Value::Bool(_) => true,
            Value::Array(items) => items.iter().any(holds_bool),
            Value::Object(o) => o.iter().any(|(_, v)| holds_bool(v)),
            _ => false,
        }
    }
    match value {
        Value::Array(items) => items.iter().any(|i| {
            matches!(i, Value::Array(_) | Value::Object(_)) && holds_bool(i)
                || nested_bool_in_array(i)
        }),
        Value::Object(o) => o.iter().any(|(_, v)| nested_bool_in_array(v)),
        _ => false,
    }
}

/// Writes `value` as JSON that Python reads as the very same value: members in a random
/// order, and every number as a literal Python turns into the same double. Python reads
/// an integer literal as an exact integer, so only integers below 2^53 are written as
/// integers (sometimes as `2.0`, a float Python's `integer` type must accept too);
/// anything else is written in Rust's shortest round-trip form (`1e300`), which Python
/// reads as a float. (Canonical JSON would write 2^60 as `1152921504606847000`, which
/// Python would read as an integer that is not 2^60 — a different number, while every
/// I-JSON reader, ours included, reads the double.)
fn write_for_python(value: &Value, rng: &mut XorShift, out: &mut String) {
    match value {
        Value::Number(n) => {
            const TWO_53: f64 = 9_007_199_254_740_992.0;
            if n.abs() < TWO_53 && (*n as i64) as f64 == *n {
                out.push_str(&format!("{}", *n as i64));
                if rng.one_in(3) {
                    out.push_str(".0");
                }
            } else {
                out.push_str(&format!("{n:?}"));
            }
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_for_python(item, rng, out);
            }
            out.push(']');
        }
        Value::Object(o) => {
            let mut members: Vec<(&str, &Value)> = o.iter().collect();
            for i in (1..members.len()).rev() {
                members.swap(i, rng.below(i as u64 + 1) as usize);
            }
            out.push('{');
            for (i, (k, v)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&jcs_text(&Value::from(k)));
                out.push(':');
                write_for_python(v, rng, out);
            }
            out.push('}');
        }
        other => out.push_str(&jcs_text(other)),
    }
}

/// Runs the oracle over `cases`; `None` when python3 or jsonschema is missing.
fn oracle(cases: &[Case]) -> Option<Vec<String>> {
    let have = Command::new("python3")
        .args(["-c", "import jsonschema"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !have {
        return None;
    }
    let mut rng = XorShift::new(seed() ^ 0xff);
    // Two oracle processes, each on whole schema groups (Python's meta-schema check is
    // most of the time, and CI has two cores).
    let split = cases
        .iter()
        .position(|c| c.group as usize >= (SCHEMAS + BAD_SCHEMAS) / 2)
        .unwrap_or(cases.len());
    let dir = TempDir::new("schema-oracle");
    let script = workspace_root().join("tests/oracle/schema_oracle.py");
    let mut running = Vec::new();
    for (part, chunk) in [&cases[..split], &cases[split..]].into_iter().enumerate() {
        let mut jsonl = String::new();
        for case in chunk {
            // The same schema is written the same way in each of its cases.
            jsonl.push_str("{\"schema\":");
            write_for_python(
                &case.schema,
                &mut XorShift::new(seed() ^ case.group),
                &mut jsonl,
            );
            jsonl.push_str(",\"instance\":");
            write_for_python(&case.instance, &mut rng, &mut jsonl);
            if case.expect != Expect::Accept {
                jsonl.push_str(",\"mode\":\"check\"");
            }
            jsonl.push_str("}\n");
        }
        let path = dir.write(&format!("cases-{part}.jsonl"), jsonl.as_bytes());
        let child = Command::new("python3")
            .arg(&script)
            .arg(&path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run python3");
        running.push(child);
    }
    let mut verdicts: Vec<String> = Vec::new();
    for child in running {
        let output = child.wait_with_output().expect("wait for python3");
        assert!(
            output.status.success(),
            "the oracle failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        verdicts.extend(
            String::from_utf8(output.stdout)
                .expect("utf-8")
                .lines()
                .map(String::from),
        );
    }
    assert_eq!(verdicts.len(), cases.len(), "one verdict per case");
    Some(verdicts)
}

#[test]
fn verdicts_agree_with_python_jsonschema() {
    let cases = corpus();
    let Some(verdicts) = oracle(&cases) else {
        skip_or_fail(
            "skipped: python3 with the jsonschema module not found (pip install jsonschema)",
        );
        return;
    };
    let mut disagreements = Vec::new();
    let mut compared = 0usize;
    let mut valid = 0usize;
    let mut by_origin: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut by_draft: BTreeMap<&str, usize> = BTreeMap::new();
    let mut python_bugs: BTreeMap<&str, usize> = BTreeMap::new();
    let mut refused_both = 0usize;
    let mut by_design: BTreeMap<&str, usize> = BTreeMap::new();
    let mut listed_unknown = 0usize;
    // Each schema is compiled once, for the cases of its group.
    let mut last_group = u64::MAX;
    let mut compiled = Schema::compile(&Value::Bool(true));
    for (n, (case, python)) in cases.iter().zip(&verdicts).enumerate() {
        let first_of_group = case.group != last_group;
        if first_of_group {
            last_group = case.group;
            compiled = Schema::compile(&case.schema);
        }
        let compiled = compiled.as_ref().map_err(Clone::clone);
        let show = |what: String| {
            format!(
                "case {n} ({}):\n  schema   {}\n  instance {}\n  python   {python}\n  ours     {what}",
                case.origin,
                jcs_text(&case.schema),
                jcs_text(&case.instance)
            )
        };
        match (&case.expect, compiled) {
            (Expect::Accept, Err(e)) => disagreements.push(show(format!("refused: {e}"))),
            (Expect::Accept, Ok(schema)) => {
                if first_of_group {
                    listed_unknown += usize::from(!schema.ignored_keywords().is_empty());
                }
                let violations = schema.validate(&case.instance, "$");
                let ours = violations.is_empty();
                // The check pass (`is_valid`, which `validate` runs first) and the
                // detailed pass alone must agree on every case, and `validate` must list
                // exactly what the detailed pass lists.
                let detailed = schema.validate_detailed(&case.instance, "$");
                if schema.is_valid(&case.instance) != detailed.is_empty() {
                    disagreements.push(show(format!(
                        "the check pass disagrees with the detailed pass: {detailed:?}"
                    )));
                }
                if violations != detailed {
                    disagreements.push(show(format!(
                        "validate lists {violations:?}, the detailed pass {detailed:?}"
                    )));
                }
                if let Some(bug) = python_bug(&case.schema, &case.instance) {
                    *python_bugs.entry(bug).or_default() += 1;
                    continue;
                }
                compared += 1;
                *by_draft.entry(schema.draft().name()).or_default() += 1;
                let tally = by_origin.entry(case.origin).or_default();
                if ours {
                    valid += 1;
                    tally.0 += 1;
                } else {
                    tally.1 += 1;
                }
                let theirs = match python.as_str() {
                    "true" => Some(true),
                    "false" => Some(false),
                    _ => None,
                };
                if theirs != Some(ours) {
                    let lines: Vec<String> = violations.iter().map(|v| v.to_string()).collect();
                    disagreements.push(show(if ours {
                        "valid".into()
                    } else {
                        format!("invalid: {lines:?}")
                    }));
                }
            }
            (Expect::MetaInvalid { pointer }, compiled) => match compiled {
                _ if python != "schema_error" => disagreements.push(show(
                    "(the corpus expected python to refuse the schema)".into(),
                )),
                Ok(_) => {
                    disagreements.push(show("accepted a schema the meta-schema refuses".into()))
                }
                Err(e) if !e.pointer.starts_with(pointer.as_str()) => {
                    disagreements.push(show(format!("refused, but not at {pointer}: {e}")))
                }
                Err(_) => refused_both += 1,
            },
            (
                Expect::ByDesign {
                    pointer,
                    reason,
                    python_checks,
                },
                compiled,
            ) => match compiled {
                _ if *python_checks && python != "valid_schema" => disagreements.push(show(
                    "(the corpus expected python's meta-schema check to accept the schema)".into(),
                )),
                Ok(_) => disagreements.push(show(format!(
                    "accepted a schema refused by design ({reason})"
                ))),
                Err(e)
                    if !e.pointer.starts_with(pointer.as_str()) || !e.message.contains(reason) =>
                {
                    disagreements.push(show(format!(
                        "refused, but not at {pointer} for '{reason}': {e}"
                    )))
                }
                Err(_) => *by_design.entry(reason).or_default() += 1,
            },
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements with Python jsonschema; the first ones:\n{}",
        disagreements.len(),
        disagreements[..disagreements.len().min(8)].join("\n")
    );
    eprintln!(
        "schema differential: {compared} pairs agree ({valid} valid, {} invalid; by instance: \
         {by_origin:?}; by draft: {by_draft:?}); left out for Python bugs: {python_bugs:?}; \
         {refused_both} meta-invalid schemas refused by both; refused by design: \
         {by_design:?}; {listed_unknown} of {SCHEMAS} schemas have members no draft knows",
        compared - valid
    );
    // The corpus must stay meaningful: large, and balanced between verdicts.
    assert!(compared >= 7000, "{compared}");
    assert!(
        valid * 5 > compared && (compared - valid) * 5 > compared,
        "{valid} of {compared} valid"
    );
    for (origin, (ok, bad)) in &by_origin {
        assert!(
            ok * 10 > ok + bad && bad * 10 > ok + bad,
            "{origin}: {ok} valid, {bad} invalid"
        );
    }
    for draft in ["draft-07", "draft 2019-09", "draft 2020-12"] {
        assert!(
            by_draft.get(draft).copied().unwrap_or(0) >= 500,
            "{by_draft:?}"
        );
    }
    assert!(refused_both > BAD_SCHEMAS / 3, "{refused_both}");
    assert!(by_design.len() >= 6, "{by_design:?}");
    // Members no draft knows are annotations: accepted, listed, and the verdicts agree.
    assert!(listed_unknown * 10 > SCHEMAS, "{listed_unknown}");
}
