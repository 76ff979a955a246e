//! `agentloop demo`: the three scripted runs of `agentloop_core::demo`, each written
//! atomically, verified from disk and checked against what it must show.

use std::fs;
use std::io::Write;
use std::path::Path;

use agentloop_core::demo::{self, Scenario};
use agentloop_core::verify::{self, Options};

use super::say_line;
use crate::args::DemoArgs;
use crate::atomic::write_atomically;
use crate::exit::Exit;
use crate::failure::Failure;

/// One line of the table: a claim about one file.
struct Row {
    file: &'static str,
    what: String,
    held: bool,
    found: String,
}

/// Writes, verifies and checks each run; prints one line per claim.
pub fn run(args: &DemoArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let dir = args.out.as_deref().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|reason| Failure::DemoWrite {
        name: dir.display().to_string(),
        reason,
    })?;
    let mut rows = Vec::new();
    for scenario in demo::scenarios() {
        rows.extend(one(&scenario, dir)?);
    }
    let width = rows.iter().map(|r| r.file.len()).max().unwrap_or(0);
    for row in &rows {
        let line = if row.held {
            format!("ok      {:width$}  {}", row.file, row.what)
        } else {
            format!(
                "FAILED  {:width$}  {} (found: {})",
                row.file, row.what, row.found
            )
        };
        say_line(out, &line)?;
    }
    let failed = rows.iter().filter(|r| !r.held).count();
    let summary = if failed == 0 {
        format!("all {} claims held, in {}", rows.len(), dir.display())
    } else {
        format!(
            "{failed} of {} claims FAILED, in {}",
            rows.len(),
            dir.display()
        )
    };
    say_line(out, &summary)?;
    Ok(if failed == 0 { Exit::Held } else { Exit::Fault })
}

/// Runs one scenario twice in memory, writes it, and checks it from disk.
fn one(scenario: &Scenario, dir: &Path) -> Result<Vec<Row>, Failure> {
    let file = scenario.file_name;
    let row = |what: String, held: bool, found: String| Row {
        file,
        what,
        held,
        found,
    };
    let (first, second) = match (scenario.run(), scenario.run()) {
        (Ok((first, _)), Ok((second, _))) => (first, second),
        (Err(error), _) | (_, Err(error)) => {
            let what = String::from("the run completes");
            return Ok(vec![row(what, false, error.to_string())]);
        }
    };
    let mut rows = vec![row(
        String::from("a second run gives byte-identical bytes"),
        first == second,
        String::from("the two runs differ"),
    )];
    let path = dir.join(file);
    let name = path.display().to_string();
    write_atomically(&path, &first).map_err(|reason| Failure::DemoWrite {
        name: name.clone(),
        reason,
    })?;
    let report = verify::verify_file(&path, &Options::default(), &verify::Parallel::default());
    let head = report
        .head
        .map(|h| h.to_string()[..12].to_owned())
        .unwrap_or_else(|| String::from("none"));
    let found = match report.faults.first() {
        Some(fault) => fault.to_string(),
        None => String::from("faults were left out of the report"),
    };
    rows.push(row(
        format!(
            "verifies from disk: {} records, head {head}...",
            report.count
        ),
        report.ok(),
        found,
    ));
    let on_disk = fs::read(&path).map_err(|reason| Failure::Unreadable { name, reason })?;
    rows.push(row(
        String::from("the file holds exactly the run's bytes"),
        on_disk == first,
        String::from("the file differs from what was written"),
    ));
    for claim in scenario.check(&on_disk) {
        rows.push(row(claim.what, claim.held, claim.found));
    }
    Ok(rows)
}
