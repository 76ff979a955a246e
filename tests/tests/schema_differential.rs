//! Differential test of the schema validator against an independent draft 2020-12
//! implementation: Python's `jsonschema` (Draft202012Validator), run once over a seeded
//! random corpus by `tests/oracle/schema_oracle.py`.
//!
//! The corpus: random schemas of depth at most 3 mixing every keyword of the subset
//! (type lists, boolean schemas, `anyOf`, `$defs` with escaped and percent-encoded
//! names, `$ref` including recursion through members and items, annotations), each with
//! nine instances: random values, values built to match the schema, and near misses
//! (such a value with one small change). Every accepted pair must get the same verdict
//! (valid iff no violations). Besides, schemas the meta-schema refuses must be refused
//! by both, and schemas outside the subset must be refused by ours.
//!
//! Skipped when python3 or its `jsonschema` module is missing, except under `CI`, where
//! that is a failure (`.ci/run` installs it).

use std::collections::BTreeMap;
use std::process::Command;

use agentloop_core::jcs;
use agentloop_core::json::{Object, Value};
use agentloop_core::schema::Schema;
use agentloop_tests::{skip_or_fail, workspace_root, TempDir, XorShift};

/// Schemas within the subset, each with [`INSTANCES`] instances. (Python's meta-schema
/// check takes milliseconds per schema, so the corpus has more instances than schemas.)
const SCHEMAS: usize = 700;
const INSTANCES: usize = 9;
const BAD_SCHEMAS: usize = 240;
const SEED: u64 = 0x5c4e_3a20_2012_0001;

/// Property names and `$defs` names: identifiers, and names that need brackets in a
/// path, escapes in a JSON pointer (`/`, `~`) or percent-encoding in a `$ref`.
const NAMES: &[&str] = &["a", "b", "c", "a b", "x/y", "t~1", "é", "😀", "", "%"];

const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "string", "integer",
];

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

/// What the corpus expects of a schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Within the subset and valid: both must accept it and agree on every instance.
    Accept,
    /// Refused by the draft 2020-12 meta-schema: both must refuse it.
    MetaInvalid,
    /// Valid draft 2020-12 outside the subset (or endlessly recursive): ours refuses it.
    Unsupported,
}

struct Case {
    /// Cases of one schema share its number (the oracle checks each schema once).
    group: u64,
    schema: Value,
    instance: Value,
    expect: Expect,
    origin: &'static str,
}

struct Gen {
    rng: XorShift,
    /// `$defs` names of the schema being built.
    defs: Vec<String>,
    /// Their bodies, for building matching instances.
    def_bodies: Vec<Value>,
    /// `$ref` string → index in `defs` (`usize::MAX` for `#`).
    refs: BTreeMap<String, usize>,
    root: Value,
}

impl Gen {
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.rng.below(items.len() as u64) as usize]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.rng.below(100) < percent
    }

    fn number(&mut self) -> f64 {
        *self.pick(&[
            0.0, -0.0, 1.0, 2.0, 3.0, -1.0, 1.5, -2.5, 0.1, 10.0, 1e21, 1e300, 2.5, 100.0,
        ])
    }

    fn string(&mut self) -> String {
        let len = self.rng.below(5);
        (0..len)
            .map(|_| *self.pick(&['a', 'b', 'é', '😀', ' ', '\'', '"', '\\', '\n']))
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
            3 => Value::String(self.string()),
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

    /// A `$ref` to definition `i`, its name escaped (RFC 6901) and percent-encoded.
    fn reference_to(&mut self, i: usize) -> String {
        let mut r = String::from("#/$defs/");
        let encode_all = self.rng.one_in(3);
        for c in self.defs[i].clone().chars() {
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
        self.refs.insert(r.clone(), i);
        r
    }

    /// A random schema. `depth` counts schema levels (the root is 0, at most 3);
    /// `descended` says whether a member or item keyword lies between the root of the
    /// current definition and here, which is what makes a reference back safe;
    /// `def` is the definition being built (references go only to earlier ones unless
    /// `descended`), `None` for the root schema.
    fn schema(&mut self, depth: u32, descended: bool, def: Option<usize>) -> Value {
        if self.chance(12) {
            return Value::Bool(!self.rng.one_in(4));
        }
        let leaf = depth >= 3;
        let mut m: Vec<(String, Value)> = Vec::new();
        let mut put = |k: &str, v: Value| m.push((k.to_string(), v));
        if self.chance(45) {
            if self.rng.one_in(2) {
                put("type", Value::from(*self.pick(TYPES)));
            } else {
                let mut list: Vec<Value> = Vec::new();
                for _ in 0..=self.rng.below(3) {
                    let t = Value::from(*self.pick(TYPES));
                    if !list.contains(&t) {
                        list.push(t);
                    }
                }
                put("type", Value::Array(list));
            }
        }
        if self.chance(12) {
            let len = self.rng.below(4);
            let mut values = Vec::new();
            for _ in 0..len {
                values.push(self.random_value(2));
            }
            put("enum", Value::Array(values));
        }
        if self.chance(7) {
            put("const", self.random_value(1));
        }
        for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
            if self.chance(10) {
                put(key, num(self.number()));
            }
        }
        for key in ["minLength", "maxLength", "minItems", "maxItems"] {
            if self.chance(10) {
                put(key, num(self.rng.below(4) as f64));
            }
        }
        if self.chance(25) {
            let mut names: Vec<Value> = Vec::new();
            for _ in 0..self.rng.below(4) {
                let n = Value::from(*self.pick(NAMES));
                if !names.contains(&n) {
                    names.push(n);
                }
            }
            put("required", Value::Array(names));
        }
        if !leaf && self.chance(35) {
            let mut props = Vec::new();
            for _ in 0..=self.rng.below(3) {
                let name = self.pick(NAMES).to_string();
                props.push((name, self.schema(depth + 1, true, def)));
            }
            put("properties", obj(props));
        }
        if self.chance(20) {
            let v = if leaf || self.rng.one_in(2) {
                Value::Bool(self.rng.one_in(2))
            } else {
                self.schema(depth + 1, true, def)
            };
            put("additionalProperties", v);
        }
        if !leaf && self.chance(25) {
            put("items", self.schema(depth + 1, true, def));
        }
        if !leaf && self.chance(15) {
            let n = 1 + self.rng.below(3);
            let alternatives = (0..n)
                .map(|_| self.schema(depth + 1, descended, def))
                .collect();
            put("anyOf", Value::Array(alternatives));
        }
        if self.chance(25) {
            // Targets that cannot close a cycle without going into a member or item.
            let limit = match (descended, def) {
                (true, _) | (false, None) => self.defs.len(),
                (false, Some(i)) => i,
            };
            if descended && self.rng.one_in(5) {
                self.refs.insert("#".into(), usize::MAX);
                put("$ref", Value::from("#"));
            } else if limit > 0 {
                let i = self.rng.below(limit as u64) as usize;
                let r = self.reference_to(i);
                put("$ref", Value::String(r));
            }
        }
        if self.chance(20) {
            let (key, value) = match self.rng.below(9) {
                0 => ("title", Value::from("T")),
                1 => ("description", Value::from("d")),
                2 => ("default", self.random_value(1)),
                3 => ("examples", Value::Array(vec![self.random_value(1)])),
                4 => ("$comment", Value::from("c")),
                5 => ("deprecated", Value::Bool(true)),
                6 => ("readOnly", Value::Bool(false)),
                7 => ("writeOnly", Value::Bool(true)),
                _ => (
                    "format",
                    Value::from(*self.pick(&["email", "date-time", "uri", "x"])),
                ),
            };
            put(key, value);
        }
        obj(m)
    }

    /// A whole schema document: maybe `$defs` (each may refer to earlier ones, and to
    /// any one below a member or item keyword), then the root.
    fn document(&mut self) -> Value {
        self.defs.clear();
        self.def_bodies.clear();
        self.refs.clear();
        let count = if self.rng.one_in(2) {
            0
        } else {
            1 + self.rng.below(3) as usize
        };
        while self.defs.len() < count {
            let name = self.pick(NAMES).to_string();
            if !self.defs.contains(&name) {
                self.defs.push(name);
            }
        }
        for i in 0..count {
            let body = self.schema(1, false, Some(i));
            self.def_bodies.push(body);
        }
        let mut root = self.schema(0, false, None);
        if count > 0 {
            let defs = self
                .defs
                .iter()
                .cloned()
                .zip(self.def_bodies.iter().cloned())
                .collect();
            root = match root {
                Value::Object(mut o) => {
                    o.insert("$defs", obj(defs));
                    if self.rng.one_in(10) {
                        o.insert(
                            "$schema",
                            Value::from("https://json-schema.org/draft/2020-12/schema"),
                        );
                    }
                    Value::Object(o)
                }
                // A boolean root cannot hold $defs; references to them are dropped.
                other => other,
            };
        }
        self.root = root.clone();
        root
    }

    fn resolve(&self, reference: &str) -> Option<Value> {
        match self.refs.get(reference) {
            Some(&usize::MAX) => Some(self.root.clone()),
            Some(&i) => self.def_bodies.get(i).cloned(),
            None => None,
        }
    }

    /// A value built to match `schema` (it often does; any keyword it ignores makes a
    /// near miss of its own).
    fn conform(&mut self, schema: &Value, depth: u32) -> Value {
        let Value::Object(s) = schema else {
            return self.random_value(depth);
        };
        if depth > 4 {
            return self.random_value(3);
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
        if let Some(Value::String(r)) = s.get("$ref") {
            if self.rng.one_in(2) {
                if let Some(target) = self.resolve(r) {
                    return self.conform(&target, depth + 1);
                }
            }
        }
        if let Some(Value::Array(alternatives)) = s.get("anyOf") {
            if self.rng.one_in(2) {
                let a = self.pick(alternatives).clone();
                return self.conform(&a, depth + 1);
            }
        }
        let ty = match s.get("type") {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Array(ts)) => self.pick(ts).as_str().unwrap_or("null").to_string(),
            _ if s.contains_key("properties") || s.contains_key("required") => "object".into(),
            _ if s.contains_key("items") || s.contains_key("minItems") => "array".into(),
            _ if s.contains_key("minLength") || s.contains_key("maxLength") => "string".into(),
            _ if s.contains_key("minimum") || s.contains_key("maximum") => "number".into(),
            _ => return self.random_value(depth.min(2)),
        };
        let bound = |k: &str| s.get(k).and_then(Value::as_f64);
        match ty.as_str() {
            "null" => Value::Null,
            "boolean" => Value::Bool(self.rng.one_in(2)),
            "number" | "integer" => {
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
                let len = (lo + self.rng.below(hi.saturating_sub(lo) + 1)).min(4);
                let items = s.get("items").cloned();
                (0..len)
                    .map(|_| match &items {
                        Some(i) => self.conform(i, depth + 1),
                        None => self.random_value(depth + 1),
                    })
                    .collect::<Vec<_>>()
                    .into()
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
            Value::Number(n) => num(match self.rng.below(5) {
                0 => n + 1.0,
                1 => n - 1.0,
                2 => n + 0.5,
                3 => -n,
                _ => return Value::String(jcs_text(value)),
            }),
            Value::String(s) => match self.rng.below(3) {
                0 => Value::String(format!("{s}😀")),
                1 => Value::String(s.chars().skip(1).collect()),
                _ => Value::Null,
            },
            Value::Array(items) => {
                let mut items = items.clone();
                if items.is_empty() || self.rng.one_in(2) {
                    items.push(self.random_value(2));
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

    /// A schema the meta-schema refuses: one bad keyword placed in a valid schema.
    fn meta_invalid(&mut self) -> Value {
        let bad: Vec<(&str, Value)> = vec![
            ("minItems", num(-1.0)),
            ("minLength", num(1.5)),
            ("maxItems", Value::from("2")),
            ("type", Value::from("dict")),
            ("type", Value::from("float")),
            ("type", Value::Array(vec![])),
            ("type", Value::Array(vec!["string".into(), "string".into()])),
            ("required", Value::Array(vec!["a".into(), "a".into()])),
            ("required", Value::Array(vec![num(1.0)])),
            ("anyOf", Value::Array(vec![])),
            ("anyOf", Value::Array(vec![num(1.0)])),
            ("items", Value::Array(vec![obj(vec![])])),
            ("minimum", Value::from("0")),
            ("exclusiveMaximum", Value::Bool(true)),
            ("properties", obj(vec![("a".into(), num(1.0))])),
            ("additionalProperties", Value::Array(vec![])),
            ("$defs", Value::Array(vec![])),
            ("enum", obj(vec![])),
            ("title", num(1.0)),
            ("examples", obj(vec![])),
            ("deprecated", Value::from("yes")),
            ("$ref", num(1.0)),
            ("format", Value::Null),
        ];
        let (key, value) = self.pick(&bad).clone();
        self.inject(key, value)
    }

    /// A valid draft 2020-12 schema outside the subset.
    fn unsupported(&mut self) -> Value {
        let cycle = obj(vec![("$ref".into(), Value::from("#/$defs/a"))]);
        let outside: Vec<(&str, Value)> = vec![
            ("pattern", Value::from("^a")),
            ("multipleOf", num(2.0)),
            ("patternProperties", obj(vec![])),
            ("oneOf", Value::Array(vec![obj(vec![])])),
            ("allOf", Value::Array(vec![obj(vec![])])),
            ("not", obj(vec![])),
            ("uniqueItems", Value::Bool(true)),
            ("minProperties", num(1.0)),
            ("definitions", obj(vec![])),
            ("requried", Value::Array(vec!["a".into()])),
            ("prefixItems", Value::Array(vec![obj(vec![])])),
            ("$defs", obj(vec![("a".into(), cycle)])),
        ];
        let (key, value) = self.pick(&outside).clone();
        let mut schema = self.inject(key, value);
        if key == "$defs" {
            if let Value::Object(o) = &mut schema {
                o.insert("$ref", Value::from("#/$defs/a"));
            }
        }
        schema
    }

    /// A fresh valid schema with `key: value` put at its root or in a property.
    fn inject(&mut self, key: &str, value: Value) -> Value {
        // No definitions: only `#` references can appear in the base.
        self.defs.clear();
        self.def_bodies.clear();
        self.refs.clear();
        let base = match self.schema(1, false, None) {
            Value::Object(o) => o,
            _ => Object::new(),
        };
        let mut base = base;
        base.remove("$ref");
        if self.rng.one_in(2) {
            base.insert(key, value);
            Value::Object(base)
        } else {
            let inner = obj(vec![(key.to_string(), value)]);
            obj(vec![("properties".into(), obj(vec![("p".into(), inner)]))])
        }
    }
}

fn jcs_text(value: &Value) -> String {
    String::from_utf8(jcs::to_vec(value).expect("finite")).expect("utf-8")
}

fn corpus() -> Vec<Case> {
    let mut g = Gen {
        rng: XorShift::new(SEED),
        defs: Vec::new(),
        def_bodies: Vec::new(),
        refs: BTreeMap::new(),
        root: Value::Null,
    };
    let mut cases = Vec::new();
    for group in 0..SCHEMAS {
        let schema = g.document();
        for _ in 0..INSTANCES / 3 {
            let random = g.random_value(0);
            let matching = g.conform(&schema, 0);
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
        let (schema, expect) = if i % 3 == 2 {
            (g.unsupported(), Expect::Unsupported)
        } else {
            (g.meta_invalid(), Expect::MetaInvalid)
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
    let mut rng = XorShift::new(SEED ^ 0xff);
    let mut jsonl = String::new();
    for case in cases {
        // The same schema is written the same way in each of its cases.
        jsonl.push_str("{\"schema\":");
        write_for_python(
            &case.schema,
            &mut XorShift::new(SEED ^ case.group),
            &mut jsonl,
        );
        jsonl.push_str(",\"instance\":");
        write_for_python(&case.instance, &mut rng, &mut jsonl);
        jsonl.push_str("}\n");
    }
    let dir = TempDir::new("schema-oracle");
    let path = dir.write("cases.jsonl", jsonl.as_bytes());
    let script = workspace_root().join("tests/oracle/schema_oracle.py");
    let output = Command::new("python3")
        .arg(&script)
        .arg(&path)
        .output()
        .expect("run python3");
    assert!(
        output.status.success(),
        "the oracle failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let verdicts: Vec<String> = String::from_utf8(output.stdout)
        .expect("utf-8")
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(verdicts.len(), cases.len(), "one verdict per case");
    Some(verdicts)
}

#[test]
fn verdicts_agree_with_python_jsonschema_draft_2020_12() {
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
    let mut refused_both = 0usize;
    let mut refused_ours = 0usize;
    for (n, (case, python)) in cases.iter().zip(&verdicts).enumerate() {
        let compiled = Schema::compile(&case.schema);
        let show = |what: String| {
            format!(
                "case {n} ({}):\n  schema   {}\n  instance {}\n  python   {python}\n  ours     {what}",
                case.origin,
                jcs_text(&case.schema),
                jcs_text(&case.instance)
            )
        };
        match (case.expect, compiled) {
            (Expect::Accept, Err(e)) => disagreements.push(show(format!("refused: {e}"))),
            (Expect::Accept, Ok(schema)) => {
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
                compared += 1;
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
            (Expect::MetaInvalid, compiled) => {
                if python != "schema_error" {
                    disagreements.push(show(
                        "(the corpus expected python to refuse the schema)".into(),
                    ));
                } else if compiled.is_ok() {
                    disagreements.push(show("accepted a schema the meta-schema refuses".into()));
                } else {
                    refused_both += 1;
                }
            }
            (Expect::Unsupported, Ok(_)) => {
                disagreements.push(show("accepted a schema outside the subset".into()))
            }
            (Expect::Unsupported, Err(_)) => refused_ours += 1,
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
         {by_origin:?}); {refused_both} meta-invalid schemas refused by both; \
         {refused_ours} schemas outside the subset refused",
        compared - valid
    );
    // The corpus must stay meaningful: large, and balanced between verdicts.
    assert!(compared >= 5000, "{compared}");
    assert_eq!(compared, SCHEMAS * INSTANCES);
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
    assert!(refused_both > BAD_SCHEMAS / 2, "{refused_both}");
}
