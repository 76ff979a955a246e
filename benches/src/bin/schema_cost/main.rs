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

mod cases;

use cases::{Case, CASES};

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
