//! The rules for several checkpoints given to one verification ([`Checkpoints`]).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use super::*;
use crate::fault_kind::FaultKind;
use crate::stream::ChainState;
use crate::verify::{verify_bytes, Options, Report};

/// A transcript of `n` records; record `changed` (if any) carries another payload.
fn transcript(n: usize, changed: Option<usize>) -> Vec<u8> {
    let mut chain = ChainState::new();
    let mut line = [0u8; 256];
    let mut out = Vec::new();
    for i in 0..n {
        let v = if Some(i) == changed { 1000 + i } else { i };
        let payload = format!("{{\"i\":{v}}}");
        let len = chain.append(&mut line, "note", payload.as_bytes()).unwrap();
        out.extend_from_slice(&line[..len]);
    }
    out
}

/// The unsigned checkpoint text of the first `n` records of `bytes`.
fn checkpoint(bytes: &[u8], n: usize) -> CheckpointText {
    let prefix: Vec<u8> = bytes
        .split_inclusive(|b| *b == b'\n')
        .take(n)
        .flatten()
        .copied()
        .collect();
    let report = verify_bytes(&prefix, &Options::default());
    let body = report_checkpoint(&report, None).unwrap().body();
    read_checkpoint(body.as_bytes()).unwrap()
}

/// Verifies `bytes` as `agentloop verify` does with these checkpoints.
fn judged(bytes: &[u8], given: &[(&str, CheckpointText)], origin: Option<&str>) -> Report {
    let given = given
        .iter()
        .map(|(name, text)| (name.to_string(), text.clone()))
        .collect();
    let checkpoints = Checkpoints::admit(given, &[], origin);
    let options = Options {
        checkpoint: checkpoints.newest(),
        ..Options::default()
    };
    let mut report = verify_bytes(bytes, &options);
    let (leaves, hashes) = leaves_of(bytes).unwrap();
    checkpoints.judge(
        &mut report,
        Some(Leaves {
            leaves: &leaves,
            hashes: &hashes,
        }),
    );
    report
}

fn faults(report: &Report) -> Vec<(Option<u64>, FaultKind, String)> {
    report
        .faults
        .iter()
        .map(|f| (f.index, f.kind, f.detail.to_string()))
        .collect()
}

#[test]
fn an_older_checkpoint_of_a_prefix_is_consistent() {
    let t = transcript(5, None);
    for m in 0..=5 {
        let report = judged(
            &t,
            &[("old", checkpoint(&t, m)), ("new", checkpoint(&t, 5))],
            None,
        );
        assert!(report.ok(), "{m}: {:?}", faults(&report));
    }
    // The order given does not matter: the newest is the one with more records.
    let report = judged(
        &t,
        &[("new", checkpoint(&t, 5)), ("old", checkpoint(&t, 2))],
        None,
    );
    assert!(report.ok(), "{:?}", faults(&report));
}

#[test]
fn an_older_checkpoint_of_a_rewritten_history_is_inconsistent() {
    let original = transcript(5, None);
    let rewritten = transcript(5, Some(2));
    let old = checkpoint(&original, 3);
    let new = checkpoint(&rewritten, 5);
    // The new checkpoint holds for the rewrite; the old one is not its prefix.
    let report = judged(
        &rewritten,
        &[("old", old.clone()), ("new", new.clone())],
        None,
    );
    let found = faults(&report);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, None);
    assert_eq!(found[0].1, FaultKind::CheckpointInconsistent);
    let (_, hashes) = leaves_of(&original).unwrap();
    assert_eq!(
        found[0].2,
        format!(
            "checkpoint old: its head {} is not record 2's hash in the newest checkpoint's history",
            hashes[2]
        )
    );
    // Without a head, the consistency proof between the two roots tells it.
    let CheckpointText::Tlog {
        checkpoint: mut headless,
        ..
    } = old.clone()
    else {
        unreachable!()
    };
    headless.head = None;
    let headless = read_checkpoint(headless.body().as_bytes()).unwrap();
    let report = judged(&rewritten, &[("old", headless), ("new", new.clone())], None);
    let found = faults(&report);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].1, FaultKind::CheckpointInconsistent);
    assert!(
        found[0]
            .2
            .starts_with("checkpoint old: it is not a prefix of the newest checkpoint: the consistency proof from 3 to 5 records fails"),
        "{found:?}"
    );
    // On the original file the newest does not hold (head_mismatch at 4), so the old
    // one is judged against the file alone, and holds.
    let report = judged(&original, &[("old", old), ("new", new)], None);
    let found = faults(&report);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].0, found[0].1), (Some(4), FaultKind::HeadMismatch));
}

#[test]
fn when_the_newest_does_not_hold_older_ones_are_judged_against_the_file() {
    let t = transcript(5, None);
    let other = transcript(5, Some(1));
    let cut: Vec<u8> = t
        .split_inclusive(|b| *b == b'\n')
        .take(2)
        .flatten()
        .copied()
        .collect();
    // A cut file: the newest (5) is truncated, and so is an older one of 3.
    let report = judged(
        &cut,
        &[("old", checkpoint(&t, 3)), ("new", checkpoint(&t, 5))],
        None,
    );
    let found = faults(&report);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].1, FaultKind::Truncated);
    assert_eq!(
        found[1],
        (
            Some(2),
            FaultKind::Truncated,
            String::from(
                "checkpoint old: the checkpoint covers 3 records but the transcript has 2: 1 missing from the end"
            )
        )
    );
    // An older checkpoint of another history of the same length: head_mismatch, named.
    let report = judged(
        &t,
        &[
            ("old", checkpoint(&other, 3)),
            ("new", checkpoint(&other, 5)),
        ],
        None,
    );
    let found = faults(&report);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(
        found[1],
        (
            Some(2),
            FaultKind::HeadMismatch,
            String::from(
                "checkpoint old: record 2 and the records before it are not what the checkpoint recorded"
            )
        )
    );
}

#[test]
fn each_checkpoints_own_faults_are_named_and_the_newest_comes_first() {
    let t = transcript(5, None);
    // Both fail the expected origin: file-level faults, named, the newest's first;
    // a checkpoint not admitted is not judged further.
    let report = judged(
        &t,
        &[("old", checkpoint(&t, 3)), ("new", checkpoint(&t, 5))],
        Some("example.com/log"),
    );
    let found = faults(&report);
    assert_eq!(found.len(), 2, "{found:?}");
    for (fault, name) in found.iter().zip(["old", "new"]) {
        assert_eq!(fault.0, None);
        assert_eq!(fault.1, FaultKind::CheckpointOriginMismatch);
        assert!(fault
            .2
            .starts_with(&format!("checkpoint {name}: the checkpoint's origin is")));
    }
    // Without the file's leaves, older checkpoints are only admitted.
    let given = vec![
        (String::from("old"), checkpoint(&transcript(5, Some(0)), 3)),
        (String::from("new"), checkpoint(&t, 5)),
    ];
    let checkpoints = Checkpoints::admit(given, &[], None);
    assert!(checkpoints.wants_leaves());
    let mut report = verify_bytes(
        &t,
        &Options {
            checkpoint: checkpoints.newest(),
            ..Options::default()
        },
    );
    checkpoints.judge(&mut report, None);
    assert!(report.ok(), "{:?}", faults(&report));
}

#[test]
fn on_a_tie_the_last_given_is_the_newest() {
    let t = transcript(5, None);
    let other = transcript(5, Some(3));
    let report = judged(
        &t,
        &[("b", checkpoint(&other, 5)), ("a", checkpoint(&t, 5))],
        None,
    );
    let found = faults(&report);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].1, FaultKind::CheckpointInconsistent);
    assert!(found[0].2.starts_with("checkpoint b: "), "{found:?}");
    let report = judged(
        &t,
        &[("a", checkpoint(&t, 5)), ("b", checkpoint(&other, 5))],
        None,
    );
    let found = faults(&report);
    assert_eq!(found[0].1, FaultKind::HeadMismatch, "{found:?}");
    assert!(Checkpoints::admit(Vec::new(), &[], None).is_empty());
}

fn owned(given: &[(&str, CheckpointText)]) -> Vec<(String, CheckpointText)> {
    given
        .iter()
        .map(|(name, text)| (name.to_string(), text.clone()))
        .collect()
}

#[test]
fn by_checkpoints_verify_is_admit_verify_and_judge_in_one_call() {
    let original = transcript(5, None);
    let rewritten = transcript(5, Some(2));
    let cases = [
        (
            &original,
            vec![
                ("old", checkpoint(&original, 2)),
                ("new", checkpoint(&original, 5)),
            ],
        ),
        (
            &rewritten,
            vec![
                ("old", checkpoint(&original, 3)),
                ("new", checkpoint(&rewritten, 5)),
            ],
        ),
        (
            &original,
            vec![
                ("old", checkpoint(&original, 3)),
                ("new", checkpoint(&rewritten, 5)),
            ],
        ),
        (&original, vec![("only", checkpoint(&rewritten, 4))]),
    ];
    for (bytes, given) in cases {
        let want = judged(bytes, &given, None);
        let got = ByCheckpoints::new(Options::default(), owned(&given), &[], None)
            .map(|by| by.verify(bytes))
            .unwrap();
        assert_eq!(faults(&got), faults(&want));
        assert_eq!((got.count, got.head), (want.count, want.head));
    }
}

#[test]
fn older_checkpoints_are_judged_only_when_the_transcript_can_be_read_again() {
    let original = transcript(5, None);
    let rewritten = transcript(5, Some(2));
    let given = [
        ("old", checkpoint(&original, 3)),
        ("new", checkpoint(&rewritten, 5)),
    ];
    let by = ByCheckpoints::new(Options::default(), owned(&given), &[], None).unwrap();
    assert!(by.with_checkpoint());
    let report = || verify_bytes(&rewritten, by.options());
    // Read again: the old checkpoint is not a prefix of the new one.
    let again = by.finish(report(), || Some(rewritten.clone()));
    assert_eq!(faults(&again), faults(&by.verify(&rewritten)));
    assert_eq!(again.faults[0].kind, FaultKind::CheckpointInconsistent);
    // Not readable again (standard input): the old one is only admitted.
    assert!(by.finish(report(), || None).ok());
    // One checkpoint: the transcript is never asked for again.
    let one = ByCheckpoints::new(Options::default(), owned(&given[1..]), &[], None).unwrap();
    let report = one.finish(verify_bytes(&rewritten, one.options()), || {
        panic!("read again with one checkpoint")
    });
    assert!(report.ok(), "{:?}", faults(&report));
}

#[test]
fn a_verification_by_checkpoints_refuses_keys_without_one_and_a_second_checkpoint() {
    let t = transcript(3, None);
    let key = crate::note::SignerKey::from_seed("k", &[1; 32]).unwrap();
    let trusted = [key.verifier()];
    let err = ByCheckpoints::new(Options::default(), Vec::new(), &trusted, None).unwrap_err();
    assert_eq!(err, ByCheckpointsError::KeysWithoutCheckpoint);
    assert_eq!(
        err.to_string(),
        "keys were given but no checkpoint to check them against"
    );
    let inline = Options {
        checkpoint: Some(crate::checkpoint::Checkpoint {
            count: 3,
            ..Default::default()
        }),
        ..Options::default()
    };
    let given = owned(&[("cp", checkpoint(&t, 3))]);
    let err = ByCheckpoints::new(inline, given, &[], None)
        .map(|by| by.verify(&t))
        .unwrap_err();
    assert_eq!(err, ByCheckpointsError::CheckpointTwice);
    assert!(
        err.to_string().contains("give the checkpoint once"),
        "{err}"
    );
    // Without checkpoints the options' own checkpoint (`--expect-count`) is the one.
    let by = ByCheckpoints::new(inline, Vec::new(), &[], None).unwrap();
    assert!(by.with_checkpoint());
    assert_eq!(by.options(), &inline);
    let short = ByCheckpoints::new(inline, Vec::new(), &[], None)
        .map(|by| by.verify(&t[..0]))
        .unwrap();
    assert_eq!(short.faults[0].kind, FaultKind::Truncated);
    let none = ByCheckpoints::new(Options::default(), Vec::new(), &[], None).unwrap();
    assert!(!none.with_checkpoint());
}
