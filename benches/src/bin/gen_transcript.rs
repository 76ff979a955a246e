//! `gen-transcript [--profile typical|rich] OUT_FILE SIZE_MB [SEED]`: writes a
//! deterministic, realistic canonical transcript of at least SIZE_MB × 10^6 bytes (see
//! `agentloop_benches::realistic`; `rich`: `agentloop_benches::rich`). The same
//! arguments give the same bytes.

use std::fs::File;
use std::io::BufWriter;
use std::process::ExitCode;

use agentloop_benches::realistic::{write_transcript_with, Profile, DEFAULT_SEED};

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: gen-transcript [--profile typical|rich] OUT_FILE SIZE_MB [SEED]";
    let mut profile = Profile::Typical;
    if args.first().map(String::as_str) == Some("--profile") {
        let name = args.get(1).cloned().unwrap_or_default();
        let Some(p) = Profile::from_name(&name) else {
            eprintln!("--profile must be typical or rich, not {name:?}\n{usage}");
            return ExitCode::from(2);
        };
        profile = p;
        args.drain(..2);
    }
    let (Some(path), Some(size)) = (args.first(), args.get(1)) else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let Some(megabytes) = size
        .parse::<f64>()
        .ok()
        .filter(|m| *m > 0.0 && m.is_finite())
    else {
        eprintln!("SIZE_MB must be a positive number\n{usage}");
        return ExitCode::from(2);
    };
    let seed = match args.get(2).map(|s| s.parse::<u64>()) {
        None => DEFAULT_SEED,
        Some(Ok(seed)) => seed,
        Some(Err(_)) => {
            eprintln!("SEED must be an unsigned integer\n{usage}");
            return ExitCode::from(2);
        }
    };
    let target = (megabytes * 1e6) as u64;
    let result = File::create(path).and_then(|file| {
        let mut out = BufWriter::with_capacity(1 << 20, file);
        write_transcript_with(&mut out, target, seed, profile)
    });
    match result {
        Ok((bytes, records)) => {
            eprintln!("{path}: {bytes} bytes, {records} records");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            ExitCode::FAILURE
        }
    }
}
