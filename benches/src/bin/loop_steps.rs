//! `loop-steps N`: one run of N loop steps (the shape of the criterion bench
//! `loop/steps/N`: a scripted model asking for one `noop` call per turn), for counting
//! its instructions with callgrind. `benches/step_instructions.sh` runs it for two N and
//! takes the difference, the instructions of one step, against the same count for a
//! loop step from Python (docs/performance.md, "The Python package").

use agentloop_benches::{run_steps, toolbox};

fn main() {
    let steps: u64 = match std::env::args().nth(1).map(|n| n.parse()) {
        Some(Ok(steps)) => steps,
        _ => {
            eprintln!("usage: loop-steps N (a whole number of steps)");
            std::process::exit(2);
        }
    };
    let mut tools = toolbox();
    let mut out = Vec::with_capacity(512 * steps as usize);
    let outcome = run_steps(steps, &mut tools, &mut out);
    println!("{} steps, {} bytes of transcript", outcome.steps, out.len());
}
