//! A driver for instruction counts of the schema bench's entries under callgrind, which
//! are repeatable on a loaded machine where wall times are not:
//!
//! ```text
//! cargo build --release -p agentloop-benches --example schema_profile --features bench
//! valgrind --tool=callgrind target/release/examples/schema_profile CASE VERDICT ENTRY N
//! ```
//!
//! runs entry `ENTRY` (`agentloop_is_valid`, `agentloop_validate`,
//! `jsonschema_is_valid`, `jsonschema_errors`, `jsonschema_count`, as in
//! `benches/schema.rs`) `N` times on
//! case `CASE` (`add`, `read_file`, `run_shell`, `search`, `pydantic_event`, `zod_issues`,
//! or `all`) with its `valid` or
//! `invalid` instance. Setup (parsing, compiling) is the same whatever `N`, so the
//! difference between the totals for two `N`s, divided by the difference of the `N`s,
//! is the cost of one call; the set-up's own count varies by a few thousand instructions
//! from run to run, so take `N` = 1 and 4001 (over 4000 calls that is about one
//! instruction a call). With `N` = `0`, prints each case's violations.

use std::hint::black_box;

use agentloop_benches::schema_cases::CASES;

#[path = "../benches/support/their_errors.rs"]
mod support;
use agentloop_core::json;
use agentloop_core::schema::Schema;
use support::their_errors;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [case, verdict, entry, n] = args.as_slice() else {
        eprintln!("usage: schema_profile CASE VERDICT ENTRY N");
        std::process::exit(2);
    };
    let n: u64 = n.parse().expect("N is a number");
    let mut total = 0usize;
    for &(name, schema, valid, invalid) in CASES {
        if case != "all" && case != name {
            continue;
        }
        let instance = if verdict == "valid" { valid } else { invalid };
        let ours = Schema::compile(&json::parse(schema.as_bytes()).expect("schema parses"))
            .expect("schema compiles");
        let our_value = json::parse(instance.as_bytes()).expect("instance parses");
        let theirs_schema: serde_json::Value = serde_json::from_str(schema).expect("json");
        // Their draft by the schema's `$schema` (2020-12 without one), as ours.
        let theirs = jsonschema::validator_for(&theirs_schema).expect("jsonschema compiles");
        let their_value: serde_json::Value = serde_json::from_str(instance).expect("json");
        if n == 0 {
            for v in ours.validate(&our_value, "$") {
                println!("{name} ours   {v}");
            }
            for e in theirs.iter_errors(&their_value) {
                println!("{name} theirs {}: {e}", e.instance_path());
            }
        }
        for _ in 0..n {
            total += match entry.as_str() {
                "agentloop_is_valid" => usize::from(ours.is_valid(black_box(&our_value))),
                "agentloop_validate" => black_box(ours.validate(black_box(&our_value), "$")).len(),
                "jsonschema_is_valid" => usize::from(theirs.is_valid(black_box(&their_value))),
                "jsonschema_errors" => their_errors(&theirs, black_box(&their_value)),
                "jsonschema_count" => theirs.iter_errors(black_box(&their_value)).count(),
                other => panic!("unknown entry {other}"),
            };
        }
    }
    println!("{total}");
}
