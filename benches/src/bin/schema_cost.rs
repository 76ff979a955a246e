//! `schema-cost [CASE…]`: what compiling a schema and validating an instance cost, on
//! the red team's shapes of issue 28 (items 2 and 3) and on the other costly shapes
//! found beside them. Each case builds its schema and instance here (nothing large is
//! checked in), then runs in a child process of its own (`schema-cost --run CASE`), so
//! that its peak memory is its own: the child resets its peak resident set
//! (`/proc/self/clear_refs`) before each step and reads it (`VmHWM`) after.
//!
//! Prints one Markdown table row per case: the sizes of the schema and instance
//! documents (canonical JSON), the wall-clock time and the peak resident memory
//! added by compiling and by validating (`validate`: the check pass, then the detailed
//! pass if the instance is invalid), and what came out (compiled or refused; valid or
//! how many violations). Best of 3 runs of each step for the time; the memory of the
//! first. Linux only (it reads `/proc`).
//!
//! `cargo run --release -p agentloop-benches --bin schema-cost` (all cases), or name
//! some: `… --bin schema-cost -- patterns-50 const-any-of`. `docs/performance.md` and
//! `docs/assurance.md` have the figures.

// Measuring time is the point of this program; nothing it times reaches a transcript.
#![allow(clippy::disallowed_methods)]

use std::process::Command;
use std::time::Instant;

use agentloop_core::jcs;
use agentloop_core::json::{self, Value};
use agentloop_core::schema::Schema;

/// A case: its name, what it shows, and its schema and instance documents.
struct Case {
    name: &'static str,
    what: &'static str,
    build: fn() -> (String, String),
}

/// `n` members `"<key(i)>":<value(i)>` of an object, comma-separated.
fn members(n: usize, member: impl Fn(usize) -> String) -> String {
    (0..n).map(member).collect::<Vec<_>>().join(",")
}

/// The red team's schema: `n` properties, each a string matching `^\p{L}{195}$`.
fn letters(n: usize) -> (String, String) {
    let props = members(n, |i| {
        format!(r#""p{i}":{{"type":"string","pattern":"^\\p{{L}}{{195}}$"}}"#)
    });
    let schema = format!(r#"{{"type":"object","properties":{{{props}}}}}"#);
    (schema, String::from(r#"{"p0":"abc"}"#))
}

/// Like [`letters`], each pattern different (`^\p{L}{195}` and a literal of its own),
/// so that no two compile to the same automaton.
fn distinct_letters(n: usize) -> (String, String) {
    let props = members(n, |i| {
        format!(r#""p{i}":{{"type":"string","pattern":"^\\p{{L}}{{195}}{i}$"}}"#)
    });
    let schema = format!(r#"{{"type":"object","properties":{{{props}}}}}"#);
    (schema, String::from(r#"{"p0":"abc"}"#))
}

/// `anyOf` of `n` `const`s as the items' schema, 60,000 items that each match one of
/// the last alternatives (valid: every item is checked).
fn const_any_of(n: usize) -> (String, String) {
    let alternatives = members(n, |i| format!(r#"{{"const":{i}}}"#));
    let schema = format!(r#"{{"type":"array","items":{{"anyOf":[{alternatives}]}}}}"#);
    let items = members(60_000, |i| format!("{}", n - 1000 + i % 1000));
    (schema, format!("[{items}]"))
}

/// The same, with every item matching none of the alternatives (invalid: the detailed
/// pass reports each item).
fn const_any_of_invalid() -> (String, String) {
    let (schema, _) = const_any_of(10_000);
    let items = members(60_000, |i| format!("{}", 10_000 + i));
    (schema, format!("[{items}]"))
}

/// `oneOf` of 10,000 `const`s (a labelled enum as generators write it), 60,000 items.
fn const_one_of() -> (String, String) {
    let alternatives = members(10_000, |i| format!(r#"{{"const":"v{i}","title":"V"}}"#));
    let schema = format!(r#"{{"type":"array","items":{{"oneOf":[{alternatives}]}}}}"#);
    let items = members(60_000, |i| format!(r#""v{}""#, 9_000 + i % 1000));
    (schema, format!("[{items}]"))
}

/// 5,000 `patternProperties` (`^p<i>_`), an object of 45,000 members matching none
/// of them (each name is tried against every pattern).
fn pattern_properties() -> (String, String) {
    let patterns = members(5_000, |i| format!(r#""^p{i}_":{{"type":"integer"}}"#));
    let schema = format!(r#"{{"type":"object","patternProperties":{{{patterns}}}}}"#);
    let names = members(45_000, |i| format!(r#""q{}_{i}":{i}"#, i % 5_000));
    (schema, format!("{{{names}}}"))
}

/// 5,000 `patternProperties` (`^p<i>_`), 45,000 member names, each matching one.
fn pattern_properties_matching() -> (String, String) {
    let patterns = members(5_000, |i| format!(r#""^p{i}_":{{"type":"integer"}}"#));
    let schema = format!(r#"{{"type":"object","patternProperties":{{{patterns}}}}}"#);
    let names = members(45_000, |i| format!(r#""p{}_{i}":{i}"#, i % 5_000));
    (schema, format!("{{{names}}}"))
}

/// `allOf` of 10,000 `minimum`s on every one of 60,000 numbers: work the schema asks
/// for, schema size × instance size, which only the validation budget bounds.
fn all_of_minimum() -> (String, String) {
    let alternatives = members(10_000, |i| format!(r#"{{"minimum":-{i}}}"#));
    let schema = format!(r#"{{"type":"array","items":{{"allOf":[{alternatives}]}}}}"#);
    let items = members(60_000, |_| String::from("1"));
    (schema, format!("[{items}]"))
}

/// `anyOf` of 10,000 `minimum`s (no index: not fixed values) on 60,000 numbers that
/// only the last matches.
fn any_of_minimum() -> (String, String) {
    let alternatives = members(10_000, |i| format!(r#"{{"minimum":{}}}"#, 10_000 - i));
    let schema = format!(r#"{{"type":"array","items":{{"anyOf":[{alternatives}]}}}}"#);
    (
        schema,
        format!("[{}]", members(60_000, |_| String::from("1"))),
    )
}

/// `allOf` of 5,000 references to as many definitions, on 60,000 numbers: remembered
/// verdicts.
fn all_of_refs() -> (String, String) {
    let defs = members(5_000, |i| format!(r#""d{i}":{{"minimum":-{i}}}"#));
    let refs = members(5_000, |i| format!(r##"{{"$ref":"#/$defs/d{i}"}}"##));
    let schema = format!(r#"{{"$defs":{{{defs}}},"items":{{"allOf":[{refs}]}}}}"#);
    (
        schema,
        format!("[{}]", members(60_000, |_| String::from("1"))),
    )
}

/// `allOf` of 5,000 `{"type":"string"}` on 100,000 numbers: a violation each, every
/// time.
fn many_violations() -> (String, String) {
    let alternatives = members(5_000, |_| String::from(r#"{"type":"string"}"#));
    let schema = format!(r#"{{"items":{{"allOf":[{alternatives}]}}}}"#);
    (
        schema,
        format!("[{}]", members(100_000, |_| String::from("1"))),
    )
}

/// `allOf` of 5,000 `maxLength`s on ten strings of 100,000 two-byte characters: each
/// counted in characters.
fn long_strings() -> (String, String) {
    let alternatives = members(5_000, |i| format!(r#"{{"maxLength":{}}}"#, 100_000 + i));
    let schema = format!(r#"{{"items":{{"allOf":[{alternatives}]}}}}"#);
    let long = format!(r#""{}""#, "é".repeat(50_000));
    (schema, format!("[{}]", members(10, |_| long.clone())))
}

/// `allOf` of 5,000 `uniqueItems` on an array of 1,000 arrays of 100 numbers, equal
/// but for the last.
fn unique_items() -> (String, String) {
    let alternatives = members(5_000, |_| String::from(r#"{"uniqueItems":true}"#));
    let schema = format!(r#"{{"allOf":[{alternatives}]}}"#);
    let items = members(1_000, |i| {
        format!("[{},{i}]", members(99, |_| String::from("7")))
    });
    (schema, format!("[{items}]"))
}

/// `allOf` of 5,000 `propertyNames` on an object of 50,000 members.
fn property_names() -> (String, String) {
    let alternatives = members(5_000, |i| {
        format!(r#"{{"propertyNames":{{"maxLength":{}}}}}"#, 10 + i)
    });
    let schema = format!(r#"{{"allOf":[{alternatives}]}}"#);
    (
        schema,
        format!("{{{}}}", members(50_000, |i| format!(r#""k{i}":1"#))),
    )
}

/// `anyOf` of 5,000 `properties` and `unevaluatedProperties: false`, on an object of
/// 50,000 members: what each alternative evaluated is collected.
fn unevaluated() -> (String, String) {
    let alternatives = members(5_000, |i| format!(r#"{{"properties":{{"k{i}":true}}}}"#));
    let schema = format!(r#"{{"anyOf":[{alternatives}],"unevaluatedProperties":false}}"#);
    (
        schema,
        format!("{{{}}}", members(50_000, |i| format!(r#""k{i}":1"#))),
    )
}

/// `allOf` of 500 `const`s of 200 numbers on 500 arrays equal to them but for the last.
fn big_consts() -> (String, String) {
    let numbers = members(199, |_| String::from("7"));
    let alternatives = members(500, |i| format!(r#"{{"const":[{numbers},{i}]}}"#));
    let schema = format!(r#"{{"items":{{"allOf":[{alternatives}]}}}}"#);
    let items = members(500, |_| format!("[{numbers},-1]"));
    (schema, format!("[{items}]"))
}

/// 10,000 `dependentSchemas` on each of 60,000 empty objects.
fn dependent_schemas() -> (String, String) {
    let entries = members(10_000, |i| format!(r#""d{i}":{{"required":["x"]}}"#));
    let schema = format!(r#"{{"items":{{"dependentSchemas":{{{entries}}}}}}}"#);
    let items = members(60_000, |_| String::from("{}"));
    (schema, format!("[{items}]"))
}

/// A `const` of 500,000 characters, 250,000 items that differ from it: each
/// violation quotes the constant.
fn big_const() -> (String, String) {
    let schema = format!(r#"{{"items":{{"const":"{}"}}}}"#, "x".repeat(500_000));
    let items = members(250_000, |_| String::from("1"));
    (schema, format!("[{items}]"))
}

/// A schema of about 1 MB made of distinct small patterns (`"a<i>"`).
fn tiny_patterns() -> (String, String) {
    let props = members(38_000, |i| format!(r#""a{i}":{{"pattern":"a{i}"}}"#));
    (
        format!(r#"{{"properties":{{{props}}}}}"#),
        String::from("{}"),
    )
}

/// A schema of about 1 MB of small patterns that are searched at each code-point index
/// (`\B` that can match the empty string: `(?:\Ba<i>)?`).
fn tiny_empty_patterns() -> (String, String) {
    let props = members(30_000, |i| {
        format!(r#""a{i}":{{"pattern":"(?:\\Ba{i})?"}}"#)
    });
    (
        format!(r#"{{"properties":{{{props}}}}}"#),
        String::from("{}"),
    )
}

/// A schema of about 1 MB of small patterns whose fully compiled DFA is too large
/// (given up at its bound): `(a|b)*a(a|b){12}<i>`.
fn exploding_patterns() -> (String, String) {
    let props = members(30_000, |i| {
        format!(r#""a{i}":{{"pattern":"(a|b)*a(a|b){{12}}{i}"}}"#)
    });
    (
        format!(r#"{{"properties":{{{props}}}}}"#),
        String::from("{}"),
    )
}

/// A schema of about 1 MB: 120 nested `not`s around an `anyOf` of 300,000 `{"title":""}`
/// (each read with its place deep in the document).
fn deep_and_wide() -> (String, String) {
    let alternatives = members(70_000, |_| String::from(r#"{"title":""}"#));
    let open = r#"{"not":"#.repeat(120);
    let close = "}".repeat(120);
    (
        format!(r#"{open}{{"anyOf":[{alternatives}]}}{close}"#),
        String::from("1"),
    )
}

/// A schema of about 1 MB: `anyOf` of empty schemas (the densest compiled form).
fn empty_any_of() -> (String, String) {
    let alternatives = members(330_000, |_| String::from("{}"));
    (
        format!(r#"{{"anyOf":[{alternatives}]}}"#),
        String::from("1"),
    )
}

const CASES: &[Case] = &[
    Case {
        name: "patterns-50",
        what: "50 × `^\\p{L}{195}$`",
        build: || letters(50),
    },
    Case {
        name: "patterns-80",
        what: "80 × `^\\p{L}{195}$`",
        build: || letters(80),
    },
    Case {
        name: "patterns-300",
        what: "300 × `^\\p{L}{195}$`",
        build: || letters(300),
    },
    Case {
        name: "distinct-patterns-300",
        what: "300 distinct `^\\p{L}{195}<i>$`",
        build: || distinct_letters(300),
    },
    Case {
        name: "tiny-patterns",
        what: "38,000 distinct patterns `a<i>`",
        build: tiny_patterns,
    },
    Case {
        name: "tiny-empty-patterns",
        what: "30,000 distinct patterns `(?:\\Ba<i>)?`",
        build: tiny_empty_patterns,
    },
    Case {
        name: "exploding-patterns",
        what: "30,000 distinct patterns `(a|b)*a(a|b){12}<i>`",
        build: exploding_patterns,
    },
    Case {
        name: "deep-and-wide",
        what: "120 `not`s around `anyOf` of 70,000 `{\"title\":\"\"}`",
        build: deep_and_wide,
    },
    Case {
        name: "empty-any-of",
        what: "`anyOf` of 330,000 `{}`",
        build: empty_any_of,
    },
    Case {
        name: "const-any-of-30k",
        what: "`anyOf` of 30k `const`s × 60k items (the red team's)",
        build: || const_any_of(30_000),
    },
    Case {
        name: "const-any-of",
        what: "`anyOf` of 10k `const`s × 60k items (valid)",
        build: || const_any_of(10_000),
    },
    Case {
        name: "const-any-of-invalid",
        what: "`anyOf` of 10k `const`s × 60k items (none matches)",
        build: const_any_of_invalid,
    },
    Case {
        name: "const-one-of",
        what: "`oneOf` of 10k string `const`s × 60k items",
        build: const_one_of,
    },
    Case {
        name: "pattern-properties",
        what: "5k `patternProperties` × 45k names (none matches)",
        build: pattern_properties,
    },
    Case {
        name: "pattern-properties-matching",
        what: "5k `patternProperties` × 45k names (one each)",
        build: pattern_properties_matching,
    },
    Case {
        name: "all-of-minimum",
        what: "`allOf` of 10k `minimum`s × 60k items",
        build: all_of_minimum,
    },
    Case {
        name: "any-of-minimum",
        what: "`anyOf` of 10k `minimum`s × 60k items",
        build: any_of_minimum,
    },
    Case {
        name: "all-of-refs",
        what: "`allOf` of 5k `$ref`s × 60k items",
        build: all_of_refs,
    },
    Case {
        name: "many-violations",
        what: "`allOf` of 5k `type`s × 100k items, all failing",
        build: many_violations,
    },
    Case {
        name: "long-strings",
        what: "`allOf` of 5k `maxLength`s × 10 strings of 100 KB",
        build: long_strings,
    },
    Case {
        name: "unique-items",
        what: "`allOf` of 5k `uniqueItems` × 1,000 arrays of 100",
        build: unique_items,
    },
    Case {
        name: "property-names",
        what: "`allOf` of 5k `propertyNames` × 50k members",
        build: property_names,
    },
    Case {
        name: "unevaluated",
        what: "`anyOf` of 5k `properties` + `unevaluatedProperties` × 50k members",
        build: unevaluated,
    },
    Case {
        name: "big-consts",
        what: "`allOf` of 500 `const`s of 200 items × 500 arrays",
        build: big_consts,
    },
    Case {
        name: "dependent-schemas",
        what: "10k `dependentSchemas` × 60k objects",
        build: dependent_schemas,
    },
    Case {
        name: "big-const",
        what: "a 500 KB `const` × 250k items that differ",
        build: big_const,
    },
];

/// A line of `/proc/self/status` in KiB (`VmHWM`, `VmRSS`).
fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| {
            let rest = line.strip_prefix(field)?.strip_prefix(':')?;
            rest.trim().trim_end_matches("kB").trim().parse().ok()
        })
        .unwrap_or(0)
}

/// Runs `step` and returns its result, the seconds it took and the resident memory it
/// added at its peak, in MiB (the peak is reset first, then compared with the resident
/// set before).
fn measure<T>(step: impl FnOnce() -> T) -> (T, f64, f64) {
    // Writing 5 resets the peak resident set size (Linux ≥ 4.0).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let before = status_kib("VmRSS");
    let start = Instant::now();
    let value = step();
    let seconds = start.elapsed().as_secs_f64();
    let peak = status_kib("VmHWM").saturating_sub(before);
    (value, seconds, peak as f64 / 1024.0)
}

/// Seconds `step` takes, best of `first` and two more runs (only one when `first` is
/// over a second: the figure is then clear enough).
fn best_of_3<T>(first: f64, mut step: impl FnMut() -> T) -> f64 {
    if first > 1.0 {
        return first;
    }
    (0..2)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(step());
            start.elapsed().as_secs_f64()
        })
        .fold(first, f64::min)
}

fn parse(text: &str) -> Value {
    json::parse(text.as_bytes()).expect("the generated document parses")
}

fn canonical_len(value: &Value) -> usize {
    jcs::to_vec(value).map_or(0, |bytes| bytes.len())
}

/// Runs one case in this process and prints its row.
fn run(case: &Case) {
    let (schema_text, instance_text) = (case.build)();
    let (schema, instance) = (parse(&schema_text), parse(&instance_text));
    let sizes = format!(
        "{:.0} KB / {:.0} KB",
        canonical_len(&schema) as f64 / 1e3,
        canonical_len(&instance) as f64 / 1e3
    );
    let (compiled, first, compile_mib) = measure(|| Schema::compile(&schema));
    let compile_s = best_of_3(first, || Schema::compile(&schema));
    let compiled = match compiled {
        Ok(compiled) => compiled,
        Err(refusal) => {
            let mut why = refusal.to_string();
            why.truncate(100);
            println!(
                "| {} | {sizes} | {:.3} s, {compile_mib:.0} MiB | refused: {why}… | — |",
                case.what, compile_s
            );
            return;
        }
    };
    let (_, steps) = compiled.check_steps(&instance);
    let (found, first, validate_mib) = measure(|| compiled.validate(&instance, "$"));
    let validate_s = best_of_3(first, || compiled.validate(&instance, "$"));
    let verdict = match found.len() {
        0 => String::from("valid"),
        n => format!("{n} violations ({})", found[0]),
    };
    let mut verdict = verdict;
    verdict.truncate(120);
    println!(
        "| {} | {sizes} | {compile_s:.3} s, {compile_mib:.0} MiB | {validate_s:.3} s, \
         {validate_mib:.0} MiB, {steps} steps | {verdict} |",
        case.what
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, name] = args.as_slice() {
        if flag == "--run" {
            let case = CASES.iter().find(|c| c.name == name).expect("a known case");
            run(case);
            return;
        }
    }
    let chosen: Vec<&Case> = if args.is_empty() {
        CASES.iter().collect()
    } else {
        args.iter()
            .map(|name| {
                CASES
                    .iter()
                    .find(|c| c.name == name)
                    .unwrap_or_else(|| panic!("no case {name}"))
            })
            .collect()
    };
    println!("| case | schema / instance | compile: time, peak memory | validate: time, peak memory | result |");
    println!("| --- | --- | --- | --- | --- |");
    let me = std::env::current_exe().expect("this program's path");
    for case in chosen {
        let status = Command::new(&me)
            .args(["--run", case.name])
            .status()
            .expect("runs a case");
        if !status.success() {
            println!("| {} | — | the case failed: {status} | — | — |", case.what);
        }
    }
}
