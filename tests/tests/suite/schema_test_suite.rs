//! The official JSON Schema Test Suite (draft 2020-12, in `../shared/vectors`) through
//! `Schema`: every case of every file, and the `optional/` files that apply. Per file it
//! prints how many cases agree with the suite, disagree, or were refused (the schema
//! was refused at compile time, or the schema or instance has no I-JSON reading by the
//! strict parser). There must be no disagreement; refusals are counted and bounded.

use std::fs;

use agentloop_core::json;
use agentloop_core::schema::Schema;
use agentloop_tests::{skip_or_fail, vectors_dir};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The `optional/` files whose subject the validator has (the rest test `format`
/// assertion, `dependencies` compatibility in 2020-12, and remote documents).
const OPTIONAL: [&str; 8] = [
    "bignum.json",
    "ecmascript-regex.json",
    "non-bmp-regex.json",
    "float-overflow.json",
    "no-schema.json",
    "refOfUnknownKeyword.json",
    "unknownKeyword.json",
    "cross-draft.json",
];

#[derive(Deserialize)]
struct Group<'a> {
    description: String,
    #[serde(borrow)]
    schema: &'a RawValue,
    tests: Vec<Case<'a>>,
}

#[derive(Deserialize)]
struct Case<'a> {
    description: String,
    #[serde(borrow)]
    data: &'a RawValue,
    valid: bool,
}

/// What happened to one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Agree,
    Disagree,
    Refused,
}

#[derive(Default, Debug, Clone, Copy)]
struct Tally {
    agree: usize,
    disagree: usize,
    refused: usize,
}

impl Tally {
    fn add(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Agree => self.agree += 1,
            Outcome::Disagree => self.disagree += 1,
            Outcome::Refused => self.refused += 1,
        }
    }

    fn total(&self) -> usize {
        self.agree + self.disagree + self.refused
    }
}

/// Runs one file: its tally, with a line for each disagreement and refusal.
fn run_file(name: &str, text: &str, notes: &mut Vec<String>) -> Tally {
    let groups: Vec<Group> =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{name}: not the suite's shape: {e}"));
    let mut tally = Tally::default();
    for group in groups {
        let schema = json::parse(group.schema.get().as_bytes())
            .map_err(|e| format!("the schema has no I-JSON reading: {e}"))
            .and_then(|v| Schema::compile(&v).map_err(|e| e.to_string()));
        for case in group.tests {
            let outcome = match &schema {
                Err(why) => {
                    notes.push(format!(
                        "REFUSED {name} | {} | {}: {why}",
                        group.description, case.description
                    ));
                    Outcome::Refused
                }
                Ok(schema) => match json::parse(case.data.get().as_bytes()) {
                    Err(e) => {
                        notes.push(format!(
                            "REFUSED {name} | {} | {}: the instance has no I-JSON reading: {e}",
                            group.description, case.description
                        ));
                        Outcome::Refused
                    }
                    Ok(data) => {
                        let valid = schema.is_valid(&data);
                        let violations = schema.validate(&data, "$");
                        assert_eq!(
                            valid,
                            violations.is_empty(),
                            "{name} | {} | {}: the passes disagree: {violations:?}",
                            group.description,
                            case.description
                        );
                        if valid == case.valid {
                            Outcome::Agree
                        } else {
                            notes.push(format!(
                                "DISAGREE {name} | {} | {}: expected {}, got {} {violations:?}",
                                group.description, case.description, case.valid, valid
                            ));
                            Outcome::Disagree
                        }
                    }
                },
            };
            tally.add(outcome);
        }
    }
    tally
}

#[test]
fn the_json_schema_test_suite_agrees_or_is_refused_never_disagrees() {
    let root = vectors_dir()
        .join("json-schema-test-suite")
        .join("draft2020-12");
    if !root.is_dir() {
        skip_or_fail(&format!(
            "skipped: JSON Schema Test Suite not found at {} (set AGENTLOOP_VECTORS)",
            root.display()
        ));
        return;
    }
    let mut files: Vec<String> = fs::read_dir(&root)
        .unwrap()
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            name.ends_with(".json").then_some(name)
        })
        .collect();
    files.sort();
    files.extend(OPTIONAL.iter().map(|f| format!("optional/{f}")));
    let mut notes = Vec::new();
    let (mut all, mut outside_remote) = (Tally::default(), Tally::default());
    println!(
        "{:<42} {:>6} {:>9} {:>8}",
        "file", "agree", "disagree", "refused"
    );
    for name in &files {
        let text = fs::read_to_string(root.join(name)).unwrap();
        let tally = run_file(name, &text, &mut notes);
        println!(
            "{name:<42} {:>6} {:>9} {:>8}",
            tally.agree, tally.disagree, tally.refused
        );
        for (sum, include) in [
            (&mut all, true),
            (&mut outside_remote, name != "refRemote.json"),
        ] {
            if include {
                sum.agree += tally.agree;
                sum.disagree += tally.disagree;
                sum.refused += tally.refused;
            }
        }
    }
    for note in &notes {
        println!("{note}");
    }
    let share = outside_remote.agree as f64 / outside_remote.total() as f64;
    println!(
        "all: {} cases, {} agree, {} disagree, {} refused; outside refRemote.json {:.2} % agree",
        all.total(),
        all.agree,
        all.disagree,
        all.refused,
        share * 100.0
    );
    assert_eq!(all.disagree, 0, "disagreements: see the DISAGREE lines");
    assert!(files.len() >= 50, "{} files read", files.len());
    // Every refusal is one the validator makes by design: another document (the
    // suite's other files, the meta-schemas, a custom meta-schema as `$schema`) is
    // never fetched, and a number with no double (bignum.json) has no I-JSON reading.
    const BY_DESIGN: [&str; 3] = [
        "refers to another document",
        "which is not a supported draft",
        "cannot be represented exactly as a double",
    ];
    for note in notes.iter().filter(|n| n.starts_with("REFUSED")) {
        assert!(
            BY_DESIGN.iter().any(|reason| note.contains(reason)),
            "a refusal that is not by design: {note}"
        );
    }
    // 1,351 of the 1,381 cases outside refRemote.json on 2026-12-04 (18 remote, 5
    // custom meta-schemas, 7 big numbers): the floor catches a regression.
    assert!(share >= 0.978, "only {:.2} % agree", share * 100.0);
}
