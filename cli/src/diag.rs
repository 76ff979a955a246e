//! Sentences on standard error: `agentloop: <file> line <n>: <what was wrong>`.

use std::fmt::Display;
use std::io::{self, Write};

use agentloop_core::verify::Fault;

use crate::terminal;

/// Writes `agentloop: <sentence>` and a newline to standard error, escaped by the one
/// rule of [`terminal`] (a sentence may quote a record, a file name or a server's
/// words: none may start a line of its own, send a terminal escape or reorder the
/// line). A failure to write to standard error is ignored: there is nowhere left to
/// report it.
pub fn say(sentence: impl Display) {
    let sentence = sentence.to_string();
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "agentloop: {}", terminal::escape(&sentence));
}

/// One fault as a sentence about `name`: `FILE line L: KIND: DETAIL`, `FILE record I:
/// KIND: DETAIL` when no line applies, `FILE: KIND: DETAIL` when neither does.
pub fn fault_sentence(name: &str, fault: &Fault) -> String {
    match (fault.line, fault.index) {
        (Some(line), _) => format!("{name} line {line}: {}: {}", fault.kind, fault.detail),
        (None, Some(index)) => format!("{name} record {index}: {}: {}", fault.kind, fault.detail),
        (None, None) => format!("{name}: {}: {}", fault.kind, fault.detail),
    }
}

/// `n` followed by `word`, with an `s` unless `n` is 1.
pub fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentloop_core::verify::FaultKind;

    fn fault(index: Option<u64>, line: Option<u64>) -> Fault {
        Fault {
            index,
            line,
            kind: FaultKind::Truncated,
            detail: "d".into(),
        }
    }

    #[test]
    fn locations() {
        assert_eq!(
            fault_sentence("t", &fault(Some(2), Some(3))),
            "t line 3: truncated: d"
        );
        assert_eq!(
            fault_sentence("t", &fault(Some(2), None)),
            "t record 2: truncated: d"
        );
        assert_eq!(fault_sentence("t", &fault(None, None)), "t: truncated: d");
        assert_eq!(plural(1, "record"), "1 record");
        assert_eq!(plural(0, "record"), "0 records");
    }
}
