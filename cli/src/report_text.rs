//! Human-readable verification results: a verdict line per input, a sentence per fault.

use agentloop_core::verify::{FaultKind, Report};

use crate::diag::{self, fault_sentence, plural};

/// The verdict on a transcript that verified:
/// `FILE: ok, 3 records, head <64 hex>[, N beyond the checkpoint]`.
pub fn ok_line(name: &str, report: &Report) -> String {
    let head = report
        .head
        .map_or_else(|| String::from("none"), |h| h.to_string());
    let mut line = format!(
        "{name}: ok, {}, head {head}",
        plural(report.count, "record")
    );
    if let Some(beyond) = report.beyond_checkpoint {
        line.push_str(&format!(", {beyond} beyond the checkpoint"));
    }
    line
}

/// The verdict on a transcript with faults:
/// `FILE: N faults in C records[ (M not listed)]`; for one that could not be read (to
/// its end), `FILE: not verified: <why>[ (and N faults in the C records read)]`.
pub fn faults_line(name: &str, report: &Report) -> String {
    let total = (report.faults.len() as u64).saturating_add(report.faults_omitted);
    let unreadable = report
        .faults
        .iter()
        .find(|f| f.kind == FaultKind::Unreadable);
    if let Some(fault) = unreadable {
        let mut line = format!("{name}: not verified: {}", fault.detail);
        let others = total - 1;
        if others > 0 {
            line.push_str(&format!(
                " (and {} in the {} read)",
                plural(others, "fault"),
                plural(report.count, "record")
            ));
        }
        return line;
    }
    let mut line = format!(
        "{name}: {} in {}",
        plural(total, "fault"),
        plural(report.count, "record")
    );
    if report.faults_omitted > 0 {
        line.push_str(&format!(
            " ({} not listed: the list stops at {})",
            report.faults_omitted,
            report.faults.len()
        ));
    }
    line
}

/// Writes each fault of `report` to stderr as one sentence.
pub fn say_faults(name: &str, report: &Report) {
    for fault in &report.faults {
        diag::say(fault_sentence(name, fault));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentloop_core::verify::{Detail, Fault};
    use agentloop_core::Hash;

    #[test]
    fn lines() {
        let mut report = Report {
            count: 1,
            head: Some(Hash::ZERO),
            root: None,
            first: None,
            faults: Vec::new(),
            faults_omitted: 0,
            beyond_checkpoint: Some(0),
        };
        let zeros = "0".repeat(64);
        assert_eq!(
            ok_line("t", &report),
            format!("t: ok, 1 record, head {zeros}, 0 beyond the checkpoint")
        );
        report.faults_omitted = 2;
        assert_eq!(
            faults_line("t", &report),
            "t: 2 faults in 1 record (2 not listed: the list stops at 0)"
        );
        report.faults.push(Fault {
            index: None,
            line: None,
            kind: FaultKind::Unreadable,
            detail: Detail::from("reading failed after 1 complete lines: EIO"),
        });
        assert_eq!(
            faults_line("t", &report),
            "t: not verified: reading failed after 1 complete lines: EIO (and 2 faults in the \
             1 record read)"
        );
    }
}
