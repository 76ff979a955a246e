//! Whole transcript lines read outside the verifier, as `agentloop show`, `canon
//! --jsonl`, `prove` and `verify-proof` read them: the bounded line splitter
//! (`verify::for_each_line` over a reader, `for_each_line_in` over bytes) and the
//! record-line parser (`json::parse_record_line`, one level deeper than a payload).
//!
//! Input: one configuration byte, then the transcript. Bits 0–4 choose the reader's
//! buffer size (1 to 32 bytes), bit 5 an event after which the reader's consumer stops,
//! bit 6 a 64-byte line limit (instead of 16 MiB).
//!
//! Asserts: never a panic; the reader gives the same lines, overlong lines and torn
//! tail as the bytes, and stops where its consumer says; a line the parser takes is
//! never `bad_json` to the verifier, a line it refuses for syntax or depth always is,
//! one it refuses for a number is `unserialisable_payload` (or `not_an_object` for a
//! lone number, or `bad_json` for bad syntax after it); a taken line reads back the same from its canonical bytes, which equal
//! the line exactly when the verifier finds no `not_canonical`; the payload limit only
//! refuses more, with `TooDeep`; and a transcript that verifies gives its leaves and
//! an inclusion proof of some record that `check_inclusion` accepts.
#![no_main]

use std::io::{BufReader, Cursor};

use agentloop_core::jcs;
use agentloop_core::json;
use agentloop_core::merkle::root_of;
use agentloop_core::tlog::{
    check_inclusion, inclusion_text, leaves_of, read_checkpoint, report_checkpoint, ProofText,
};
use agentloop_core::verify::{
    self, for_each_line, for_each_line_in, FaultKind, LineEvent, Options,
};
use libfuzzer_sys::fuzz_target;

/// An owned [`LineEvent`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Event {
    Line(Vec<u8>),
    TooLong(usize),
    TornTail(Vec<u8>),
    LongTornTail(usize),
}

impl From<LineEvent<'_>> for Event {
    fn from(event: LineEvent<'_>) -> Self {
        match event {
            LineEvent::Line(line) => Event::Line(line.to_vec()),
            LineEvent::TooLong(len) => Event::TooLong(len),
            LineEvent::TornTail(tail) => Event::TornTail(tail.to_vec()),
            LineEvent::LongTornTail(len) => Event::LongTornTail(len),
        }
    }
}

/// The consumer's own reason to stop.
#[derive(Debug)]
enum Stop {
    Asked,
    Read,
}

impl From<std::io::Error> for Stop {
    fn from(_: std::io::Error) -> Self {
        Stop::Read
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&config, bytes)) = data.split_first() else {
        return;
    };
    let capacity = 1 + usize::from(config & 31);
    let max_line_bytes = if config & 0x40 != 0 {
        64
    } else {
        verify::MAX_LINE_BYTES
    };

    // The line splitting: the reader as the bytes, and it stops where it is told.
    let mut in_memory = Vec::new();
    for_each_line_in(bytes, max_line_bytes, |e| in_memory.push(Event::from(e)));
    let mut read = Vec::new();
    let reader = BufReader::with_capacity(capacity, Cursor::new(bytes));
    let done = for_each_line(reader, max_line_bytes, |e| {
        read.push(Event::from(e));
        Ok::<(), Stop>(())
    });
    assert!(done.is_ok());
    assert_eq!(read, in_memory, "reader vs bytes");
    if config & 0x20 != 0 && !in_memory.is_empty() {
        let stop_after = usize::from(config & 31) % in_memory.len();
        let mut seen = 0;
        let reader = BufReader::with_capacity(capacity, Cursor::new(bytes));
        let done = for_each_line(reader, max_line_bytes, |_| {
            seen += 1;
            if seen > stop_after {
                Err(Stop::Asked)
            } else {
                Ok(())
            }
        });
        assert!(matches!(done, Err(Stop::Asked)));
        assert_eq!(seen, stop_after + 1);
    }

    // Each line as the record-line parser reads it, against the verifier's faults.
    let options = Options {
        max_line_bytes,
        ..Options::default()
    };
    let report = verify::verify_bytes(bytes, &options);
    let kinds_at = |index: usize| -> Vec<FaultKind> {
        report
            .faults
            .iter()
            .filter(|f| f.index == Some(index as u64))
            .map(|f| f.kind)
            .collect()
    };
    let all_kept = report.faults_omitted == 0;
    for (index, event) in in_memory.iter().enumerate() {
        let kinds = kinds_at(index);
        let line = match event {
            Event::Line(line) => line,
            Event::TooLong(len) => {
                assert!(*len > max_line_bytes);
                assert!(!all_kept || kinds == [FaultKind::BadJson], "{kinds:?}");
                continue;
            }
            Event::TornTail(_) | Event::LongTornTail(_) => continue,
        };
        match json::parse_record_line(line) {
            Err(e) if e.is_unserialisable() => {
                // The strict parser stops at the number; the verifier reads on, and may
                // find bad syntax after it.
                assert!(e.offset() <= line.len());
                assert!(
                    !all_kept
                        || kinds.contains(&FaultKind::UnserialisablePayload)
                        || kinds.contains(&FaultKind::NotAnObject)
                        || kinds == [FaultKind::BadJson],
                    "{e}: {kinds:?}"
                );
            }
            Err(e) => {
                assert!(e.offset() <= line.len());
                assert!(!all_kept || kinds == [FaultKind::BadJson], "{e}: {kinds:?}");
            }
            Ok(value) => {
                assert!(!kinds.contains(&FaultKind::BadJson), "{kinds:?}");
                assert!(
                    !kinds.contains(&FaultKind::UnserialisablePayload),
                    "{kinds:?}"
                );
                // What `canon --jsonl` prints for the line reads back as the same value.
                let canonical = jcs::to_vec(&value).expect("a parsed value is finite");
                assert_eq!(json::parse_record_line(&canonical).as_ref(), Ok(&value));
                if all_kept {
                    assert_eq!(
                        canonical == *line,
                        !kinds.contains(&FaultKind::NotCanonical),
                        "{kinds:?}"
                    );
                }
                // A document (the payload limit) is refused only for its depth.
                match json::parse(line) {
                    Ok(doc) => assert_eq!(doc, value),
                    Err(e) => assert!(e.is_too_deep(), "{e}"),
                }
            }
        }
    }

    // A transcript that verifies: `prove`'s leaves, and a proof `verify-proof` accepts.
    if report.ok() && report.count > 0 {
        let (leaves, _) = leaves_of(bytes).expect("a verified transcript has its leaves");
        assert_eq!(leaves.len() as u64, report.count);
        assert_eq!(Some(root_of(&leaves)), report.root);
        let checkpoint = report_checkpoint(&report, None).expect("default origin");
        let index = u64::from(config) % report.count;
        let text = inclusion_text(bytes, &leaves, index, report.count, checkpoint.body())
            .expect("an index within the checkpoint");
        let Ok(ProofText::Inclusion(proof)) = ProofText::parse(text.as_bytes()) else {
            panic!("the proof text does not read back: {text}");
        };
        let checkpoint = read_checkpoint(proof.checkpoint.as_bytes()).expect("checkpoint");
        if let Err(problems) = check_inclusion(&proof, &checkpoint, &[], None) {
            panic!("the proof of record {index} does not hold: {problems:?}");
        }
    }
});
