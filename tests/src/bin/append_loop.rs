//! `append_loop FILE COUNT TAG SYNC [BIG]`: the writer process of the fault-injection
//! tests (`tests/tests/suite/durability.rs`). Opens FILE with the durable writer and appends
//! COUNT records `{"tag":TAG,"i":i,"pad":…}`, printing `SEQ HEAD` on stdout (flushed)
//! as each append returns. SYNC is `always`, `every:N` or `close`. With BIG = `big`,
//! every tenth record carries a 1 MiB pad so a kill can land inside its write.
//!
//! Exit status: 0 all appended; 1 the writer refused or failed (the error on stderr);
//! 2 bad usage.

use std::io::Write;
use std::num::NonZeroU32;
use std::path::Path;
use std::process::ExitCode;

use agentloop_core::durable::{SyncPolicy, Writer, WriterOptions};
use agentloop_core::json::{Object, Value};

fn policy(text: &str) -> Option<SyncPolicy> {
    match text {
        "always" => Some(SyncPolicy::Always),
        "close" => Some(SyncPolicy::OnClose),
        _ => {
            let n = text.strip_prefix("every:")?.parse().ok()?;
            Some(SyncPolicy::EveryN(NonZeroU32::new(n)?))
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(file), Some(count), Some(tag), Some(sync)) = (
        args.first(),
        args.get(1).and_then(|c| c.parse::<u64>().ok()),
        args.get(2),
        args.get(3).and_then(|s| policy(s)),
    ) else {
        eprintln!("usage: append_loop FILE COUNT TAG always|every:N|close [big]");
        return ExitCode::from(2);
    };
    let big = args.get(4).is_some_and(|b| b == "big");
    let options = WriterOptions {
        sync,
        ..WriterOptions::default()
    };
    let mut writer = match Writer::open(Path::new(file), options) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("append_loop: {file}: {e}");
            return ExitCode::from(1);
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for i in 0..count {
        let pad = if big && i % 10 == 9 {
            1 << 20
        } else {
            (i % 50) as usize * 40
        };
        let mut payload = Object::new();
        payload.insert("tag", Value::String(tag.clone()));
        payload.insert("i", Value::Number(i as f64));
        payload.insert("pad", Value::String("x".repeat(pad)));
        match writer.append("note", &Value::Object(payload)) {
            Ok(a) => {
                // A closed pipe (the parent stopped reading) is not this process's fault.
                let _ = writeln!(out, "{} {}", a.seq, a.head).and_then(|()| out.flush());
            }
            Err(e) => {
                eprintln!("append_loop: {file}: record {i}: {e}");
                return ExitCode::from(1);
            }
        }
    }
    match writer.close() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("append_loop: {file}: closing: {e}");
            ExitCode::from(1)
        }
    }
}
