//! The durable writer: appends, locks, growth, rollback, torn tails and repair.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::string::{String, ToString};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::vec::Vec;
use std::{format, thread, vec};

use super::*;
use crate::verify::{verify_file, FaultKind, Options, Parallel};
use repair::RepairIo;

/// A scratch directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("agentloop-durable-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// What a repair moved aside (it must have).
fn removed(repaired: Repaired) -> Removed {
    match repaired.tail {
        TailRepair::Removed(removed) => removed,
        other => panic!("{other:?}"),
    }
}

fn verified(path: &Path) -> u64 {
    let report = verify_file(path, &Options::default(), &Parallel::default());
    assert!(report.ok(), "{:?}", report.faults);
    report.count
}

fn note(i: usize) -> Value {
    json::parse(format!("{{\"i\":{i}}}").as_bytes()).unwrap()
}

const SPEC: [(&str, &str); 3] = [
    ("task", r#"{"task":"add 2 and 40"}"#),
    (
        "assistant",
        r#"{"text":"","tool_calls":[{"arguments":{"a":2,"b":40},"name":"add"}]}"#,
    ),
    ("tool", r#"{"name":"add","ok":true,"value":{"sum":42}}"#),
];

#[test]
fn appends_the_spec_chain_and_reopening_continues_it() {
    let s = Scratch::new("spec");
    let path = s.path("t.jsonl");
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    assert!(w.is_empty());
    for (i, (kind, payload)) in SPEC.into_iter().take(2).enumerate() {
        let a = w.append_json(kind, payload.as_bytes()).unwrap();
        assert_eq!(a.seq, i as u64);
        assert_eq!(a.head, w.head());
    }
    w.close().unwrap();
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    assert_eq!((w.count(), w.next().seq0), (2, 2));
    let a = w.append_json(SPEC[2].0, SPEC[2].1.as_bytes()).unwrap();
    assert_eq!(
        format!("{}", a.head),
        "8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6"
    );
    assert_eq!(w.len(), fs::metadata(&path).unwrap().len());
    drop(w);
    assert_eq!(verified(&path), 3);
}

#[test]
fn refused_records_write_nothing() {
    let s = Scratch::new("refused");
    let path = s.path("t.jsonl");
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    w.append("task", &note(0)).unwrap();
    let before = fs::read(&path).unwrap();
    assert!(matches!(
        w.append("", &note(1)),
        Err(WriteError::Record(AppendError::EmptyKind))
    ));
    assert!(matches!(
        w.append_json("x", b"9007199254740993"),
        Err(WriteError::Record(AppendError::PayloadJson(_)))
    ));
    assert_eq!(fs::read(&path).unwrap(), before);
    assert_eq!(w.append("x", &note(1)).unwrap().seq, 1);
}

#[test]
fn a_record_past_the_line_limit_is_refused_and_nothing_is_written() {
    use crate::verify::MAX_LINE_BYTES;
    let s = Scratch::new("toolong");
    let path = s.path("t.jsonl");
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    w.append("task", &note(0)).unwrap();
    let before = fs::read(&path).unwrap();
    // A string of 16 MiB: its line is longer than any verifier reads.
    let big = Value::String("a".repeat(MAX_LINE_BYTES));
    match w.append("x", &big) {
        Err(WriteError::Record(AppendError::LineTooLong { len, max })) => {
            assert!(len > MAX_LINE_BYTES, "{len}");
            assert_eq!(max, MAX_LINE_BYTES);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::read(&path).unwrap(), before);
    assert_eq!(w.append("x", &note(1)).unwrap().seq, 1);
    assert_eq!(verified(&path), 2);

    // A writer told a lower limit keeps to it: what it appends, it can open again.
    let mut options = WriterOptions::default();
    options.verify.max_line_bytes = 300;
    let mut w = Writer::open(&path, options).unwrap();
    let long = Value::String("b".repeat(300));
    let before = fs::read(&path).unwrap();
    match w.append("x", &long) {
        Err(WriteError::Record(AppendError::LineTooLong { len, max: 300 })) => {
            assert!(len > 300, "{len}");
        }
        other => panic!("{other:?}"),
    }
    // A line built elsewhere is measured the same way.
    let line = Chain::from_anchor(w.next())
        .append("x", &long)
        .unwrap()
        .to_vec();
    match w.append_line(&line) {
        Err(WriteError::Record(AppendError::LineTooLong { len, max: 300 })) => {
            assert_eq!(len, line.len() - 1);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::read(&path).unwrap(), before);
    // The chain is where it was: the next record continues the file.
    assert_eq!(w.append("x", &note(2)).unwrap().seq, 2);
    drop(w);
    assert_eq!(Writer::open(&path, options).unwrap().count(), 3);
}

#[test]
fn an_anchored_transcript_continues_its_anchor() {
    let s = Scratch::new("anchor");
    let path = s.path("t.jsonl");
    let anchor = Anchor {
        seq0: 7,
        prev0: Hash([9; 32]),
    };
    let mut options = WriterOptions::default();
    options.verify.anchor = anchor;
    let mut w = Writer::open(&path, options).unwrap();
    assert_eq!(w.next(), anchor);
    assert_eq!(w.append("x", &note(0)).unwrap().seq, 7);
    drop(w);
    // Reopened without the anchor, its first record does not verify.
    assert!(matches!(
        Writer::open(&path, WriterOptions::default()),
        Err(WriteError::DoesNotVerify(_))
    ));
    assert_eq!(Writer::open(&path, options).unwrap().count(), 1);
}

#[test]
fn two_writers_take_turns_and_follow_each_other() {
    let s = Scratch::new("turns");
    let path = s.path("t.jsonl");
    let mut a = Writer::open(&path, WriterOptions::default()).unwrap();
    let mut b = Writer::open(&path, WriterOptions::default()).unwrap();
    assert_eq!(a.append("x", &note(0)).unwrap().seq, 0);
    // b has not seen a's record: it verifies it and continues from its head.
    assert_eq!(b.append("x", &note(1)).unwrap().seq, 1);
    assert_eq!(b.count(), 2);
    assert_eq!(a.append("x", &note(2)).unwrap().seq, 2);
    b.refresh().unwrap();
    assert_eq!((b.count(), b.head()), (a.count(), a.head()));
    assert_eq!(verified(&path), 3);
}

#[test]
fn writers_on_threads_never_fork_the_chain() {
    let s = Scratch::new("threads");
    let path = s.path("t.jsonl");
    let per = 300;
    let workers: Vec<_> = (0..3)
        .map(|t| {
            let path = path.clone();
            thread::spawn(move || {
                let options = WriterOptions {
                    sync: SyncPolicy::OnClose,
                    ..WriterOptions::default()
                };
                let mut w = Writer::open(&path, options).unwrap();
                for i in 0..per {
                    w.append("x", &note(t * per + i)).unwrap();
                }
                w.close().unwrap();
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(verified(&path), 3 * per as u64);
}

#[test]
fn a_held_lock_makes_a_not_waiting_writer_fail_and_a_waiting_one_wait() {
    let s = Scratch::new("lock");
    let path = s.path("t.jsonl");
    let mut w = Writer::open(
        &path,
        WriterOptions {
            lock: LockWait::Fail,
            ..WriterOptions::default()
        },
    )
    .unwrap();
    let other = File::open(&path).unwrap();
    other.lock().unwrap();
    assert!(matches!(w.append("x", &note(0)), Err(WriteError::Locked)));
    assert!(matches!(
        Writer::open(
            &path,
            WriterOptions {
                lock: LockWait::Fail,
                ..WriterOptions::default()
            }
        ),
        Err(WriteError::Locked)
    ));
    assert_eq!(fs::metadata(&path).unwrap().len(), 0);
    // A waiting writer appends once the holder lets go.
    let waiting = {
        let path = path.clone();
        thread::spawn(move || {
            let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
            w.append("x", &note(0)).unwrap().seq
        })
    };
    other.unlock().unwrap();
    assert_eq!(waiting.join().unwrap(), 0);
    // The lock is not held between appends: the first writer takes it again.
    assert_eq!(w.append("x", &note(1)).unwrap().seq, 1);
}

#[test]
fn growth_that_does_not_verify_is_refused_and_left_alone() {
    let s = Scratch::new("growth");
    let path = s.path("t.jsonl");
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    w.append("x", &note(0)).unwrap();
    let mut raw = OpenOptions::new().append(true).open(&path).unwrap();

    raw.write_all(b"{\"not\":\"a record\"}\n").unwrap();
    let grown = fs::read(&path).unwrap();
    match w.append("x", &note(1)) {
        Err(WriteError::DoesNotVerify(report)) => {
            assert_eq!(report.faults[0].kind, FaultKind::MissingFields);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::read(&path).unwrap(), grown);

    let s2 = Scratch::new("growth-torn");
    let path = s2.path("t.jsonl");
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    w.append("x", &note(0)).unwrap();
    let len = w.len();
    let mut raw = OpenOptions::new().append(true).open(&path).unwrap();
    raw.write_all(b"{\"hash\":\"12").unwrap();
    match w.append("x", &note(1)) {
        Err(WriteError::TornTail {
            offset,
            len: torn,
            complete: false,
        }) => assert_eq!((offset, torn), (len, 11)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_file_that_shrank_is_refused() {
    let s = Scratch::new("shrank");
    let path = s.path("t.jsonl");
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    w.append("x", &note(0)).unwrap();
    w.append("x", &note(1)).unwrap();
    let len = w.len();
    let cut = fs::read(&path)
        .unwrap()
        .iter()
        .position(|&b| b == b'\n')
        .unwrap() as u64
        + 1;
    OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(cut)
        .unwrap();
    match w.append("x", &note(2)) {
        Err(e @ WriteError::Shrank { .. }) => {
            assert!(
                matches!(e, WriteError::Shrank { expected, found } if expected == len && found == cut)
            );
            assert!(format!("{e}").contains("cut by someone else"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::metadata(&path).unwrap().len(), cut);
}

/// Writes half the line, then fails as a full disk does.
fn half_then_full(mut file: &File, line: &[u8]) -> io::Result<()> {
    file.write_all(&line[..line.len() / 2])?;
    Err(io::Error::new(
        io::ErrorKind::StorageFull,
        "no space left on device",
    ))
}

fn failing_sync(_: &File) -> io::Result<()> {
    Err(io::Error::other("injected sync failure"))
}

#[test]
fn a_failed_write_is_cut_back_and_the_writer_goes_on() {
    let s = Scratch::new("rollback");
    let path = s.path("t.jsonl");
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    w.append("x", &note(0)).unwrap();
    let before = fs::read(&path).unwrap();
    let (count, head) = (w.count(), w.head());
    w.state.io.write = half_then_full;
    let e = w.append("x", &note(1)).unwrap_err();
    assert!(matches!(&e, WriteError::Write(io) if io.kind() == io::ErrorKind::StorageFull));
    assert!(format!("{e}").contains("cut back to its length before the append"));
    assert_eq!(fs::read(&path).unwrap(), before);
    assert_eq!(
        (w.count(), w.head(), w.len()),
        (count, head, before.len() as u64)
    );
    // The disk has room again: the same writer continues the chain.
    w.state.io = Io::REAL;
    assert_eq!(w.append("x", &note(1)).unwrap().seq, 1);
    assert_eq!(verified(&path), 2);
}

#[test]
fn a_failed_sync_is_cut_back_and_stops_the_writer() {
    let s = Scratch::new("syncfail");
    let path = s.path("t.jsonl");
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    w.append("x", &note(0)).unwrap();
    let before = fs::read(&path).unwrap();
    w.state.io.sync = failing_sync;
    assert!(matches!(w.append("x", &note(1)), Err(WriteError::Write(_))));
    assert_eq!(fs::read(&path).unwrap(), before);
    w.state.io = Io::REAL;
    assert!(matches!(w.append("x", &note(1)), Err(WriteError::Broken)));
    assert!(matches!(w.sync(), Err(WriteError::Broken)));
    assert_eq!(fs::read(&path).unwrap(), before);
    // Reopening verifies the file and goes on.
    let mut again = Writer::open(&path, WriterOptions::default()).unwrap();
    assert_eq!(again.append("x", &note(1)).unwrap().seq, 1);
}

static SYNCS: AtomicUsize = AtomicUsize::new(0);

fn counted_sync(file: &File) -> io::Result<()> {
    SYNCS.fetch_add(1, Ordering::SeqCst);
    file.sync_data()
}

#[test]
fn each_policy_syncs_when_it_says() {
    let s = Scratch::new("policy");
    let cases = [
        (SyncPolicy::Always, 7, 7, 0),
        (SyncPolicy::EveryN(NonZeroU32::new(3).unwrap()), 7, 2, 1),
        (SyncPolicy::OnClose, 7, 0, 7),
    ];
    for (i, (sync, appends, synced, pending)) in cases.into_iter().enumerate() {
        let path = s.path(&format!("t{i}.jsonl"));
        let io = Io {
            sync: counted_sync,
            ..Io::REAL
        };
        let options = WriterOptions {
            sync,
            ..WriterOptions::default()
        };
        let mut w = Writer::open_with(&path, options, io).unwrap();
        SYNCS.store(0, Ordering::SeqCst);
        for n in 0..appends {
            w.append("x", &note(n)).unwrap();
        }
        assert_eq!(SYNCS.load(Ordering::SeqCst), synced, "{sync:?}");
        assert_eq!(w.unsynced(), pending, "{sync:?}");
        w.close().unwrap();
        let closing = usize::from(pending > 0);
        assert_eq!(SYNCS.load(Ordering::SeqCst), synced + closing, "{sync:?}");
    }
}

#[test]
fn lines_built_elsewhere_must_continue_the_file() {
    let s = Scratch::new("lines");
    let path = s.path("t.jsonl");
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    let mut chain = Chain::from_anchor(w.next());
    let line = chain.append("task", &note(0)).unwrap().to_vec();
    assert_eq!(w.append_line(&line).unwrap().head, chain.head());
    // The same line again would fork the chain.
    assert!(matches!(w.append_line(&line), Err(WriteError::Diverged(_))));
    // Two lines at once, a line without its newline: refused.
    let l1 = chain.append("x", &note(1)).unwrap().to_vec();
    let mut two = l1.clone();
    two.extend_from_slice(&l1);
    assert!(matches!(w.append_line(&two), Err(WriteError::Diverged(_))));
    assert!(matches!(
        w.append_line(&l1[..l1.len() - 1]),
        Err(WriteError::Diverged(_))
    ));
    // Another writer appends: the caller's chain is now behind the file.
    let mut other = Writer::open(&path, WriterOptions::default()).unwrap();
    other.append("y", &note(9)).unwrap();
    let e = w.append_line(&l1).unwrap_err();
    assert!(
        format!("{e}").contains("another writer appended in between"),
        "{e}"
    );
    // As a record sink the refusal is Refused, with the full error kept.
    assert_eq!(RecordSink::record(&mut w, &l1), Err(SinkError::Refused));
    assert!(matches!(w.last_error(), Some(WriteError::Diverged(_))));
    let mut chain = Chain::from_anchor(w.next());
    let line = chain.append("x", &note(2)).unwrap().to_vec();
    assert_eq!(RecordSink::record(&mut w, &line), Ok(()));
    assert!(w.last_error().is_none());
    assert_eq!(verified(&path), 3);
}

#[test]
fn a_failed_write_reaches_a_record_sink_as_io() {
    let s = Scratch::new("sinkio");
    let path = s.path("t.jsonl");
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    w.state.io.write = half_then_full;
    let mut chain = Chain::from_anchor(w.next());
    let line = chain.append("x", &note(0)).unwrap().to_vec();
    assert_eq!(
        RecordSink::record(&mut w, &line),
        Err(SinkError::Io(io::ErrorKind::StorageFull))
    );
    assert_eq!(fs::metadata(&path).unwrap().len(), 0);
}

fn torn_file(s: &Scratch) -> (PathBuf, Vec<u8>, u64) {
    let path = s.path("t.jsonl");
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    w.append("x", &note(0)).unwrap();
    w.append("x", &note(1)).unwrap();
    let complete = w.len();
    drop(w);
    let mut raw = OpenOptions::new().append(true).open(&path).unwrap();
    raw.write_all(b"{\"hash\":\"abc").unwrap();
    (path.clone(), fs::read(&path).unwrap(), complete)
}

#[test]
fn a_torn_tail_is_refused_until_repaired() {
    let s = Scratch::new("torn");
    let (path, torn, complete) = torn_file(&s);
    match Writer::open(&path, WriterOptions::default()) {
        Err(e @ WriteError::TornTail { .. }) => {
            assert!(matches!(
                e,
                WriteError::TornTail { offset, len: 12, complete: false } if offset == complete
            ));
            assert!(format!("{e}").starts_with("torn_tail: "));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::read(&path).unwrap(), torn);

    let repaired = repair(&path, &WriterOptions::default()).unwrap();
    let removed = removed(repaired.clone());
    assert_eq!((removed.offset, removed.len), (complete, 12));
    let mut side = String::from(path.to_str().unwrap());
    side.push_str(&format!(".torn-{complete}"));
    assert_eq!(removed.side_file, PathBuf::from(&side));
    assert_eq!(fs::read(&side).unwrap(), b"{\"hash\":\"abc");
    assert_eq!(fs::read(&path).unwrap(), &torn[..complete as usize]);
    assert_eq!(repaired.count, 2);

    // Nothing more to repair; the writer opens and continues.
    let again = repair(&path, &WriterOptions::default()).unwrap();
    assert_eq!(
        (again.count, again.head, again.tail),
        (2, repaired.head, TailRepair::Untouched)
    );
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    assert_eq!(w.append("x", &note(2)).unwrap().seq, 2);
    assert_eq!(verified(&path), 3);
}

#[test]
fn repair_never_overwrites_a_side_file_nor_cuts_a_faulty_file() {
    let s = Scratch::new("repair-refuse");
    let (path, torn, complete) = torn_file(&s);
    let mut side = path.clone().into_os_string();
    side.push(format!(".torn-{complete}"));
    fs::write(&side, b"earlier evidence").unwrap();
    assert!(matches!(
        repair(&path, &WriterOptions::default()),
        Err(RepairError::SideFileExists(p)) if p == Path::new(&side)
    ));
    assert_eq!(fs::read(&side).unwrap(), b"earlier evidence");
    assert_eq!(fs::read(&path).unwrap(), torn);

    // A rewritten record before the tail: repair refuses and changes nothing.
    let tampered = String::from_utf8(torn.clone())
        .unwrap()
        .replace("\"i\":1", "\"i\":5");
    fs::write(&path, &tampered).unwrap();
    fs::remove_file(&side).unwrap();
    match repair(&path, &WriterOptions::default()) {
        Err(e @ RepairError::DoesNotVerify(_)) => {
            assert!(format!("{e}").contains("hash_mismatch"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::read(&path).unwrap(), tampered.as_bytes());
    assert!(!Path::new(&side).exists());
    // A missing file cannot be repaired (and is not created).
    let missing = s.path("absent.jsonl");
    assert!(matches!(
        repair(&missing, &WriterOptions::default()),
        Err(RepairError::Open(_))
    ));
    assert!(!missing.exists());
}

#[test]
fn a_file_with_no_complete_line_repairs_to_empty() {
    let s = Scratch::new("repair-empty");
    let path = s.path("t.jsonl");
    fs::write(&path, b"{\"ha").unwrap();
    let repaired = repair(&path, &WriterOptions::default()).unwrap();
    assert_eq!(repaired.head, Hash::ZERO);
    assert_eq!(removed(repaired).offset, 0);
    assert_eq!(fs::metadata(&path).unwrap().len(), 0);
}

#[test]
fn errors_read_as_sentences() {
    let cases: [(WriteError, &str); 4] = [
        (
            WriteError::Locked,
            "another writer holds the transcript's lock (not waiting, as asked)",
        ),
        (
            WriteError::TornTail {
                offset: 10,
                len: 3,
                complete: false,
            },
            "torn_tail: the transcript ends in an incomplete line (3 bytes at offset 10); \
             nothing is appended until it is repaired (agentloop repair)",
        ),
        (
            WriteError::Shrank {
                expected: 9,
                found: 4,
            },
            "the transcript is 4 bytes long, shorter than the 9 bytes it had after this \
             writer's last append: it was cut by someone else",
        ),
        (
            WriteError::Broken,
            "an earlier write or sync failed, so this writer appends no more; open the \
             transcript again",
        ),
    ];
    for (error, text) in cases {
        assert_eq!(format!("{error}"), text);
    }
}

#[test]
fn the_loop_writes_a_run_through_the_writer() {
    use crate::{demo, driver, model::Scripted};
    let s = Scratch::new("driver");
    let path = s.path("t.jsonl");
    let scenario = demo::recover();
    let (expected, _) = scenario.run().unwrap();
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    let mut chain = Chain::from_anchor(w.next());
    let mut model = Scripted::new(scenario.replies.iter().cloned());
    let mut toolbox = demo::toolbox().unwrap();
    driver::testing::run_on(
        &mut chain,
        scenario.task,
        scenario.budgets.clone(),
        &mut model,
        &mut toolbox,
        &mut || false,
        &mut w,
    )
    .unwrap();
    assert_eq!((w.count(), w.head()), (11, chain.head()));
    w.close().unwrap();
    assert_eq!(fs::read(&path).unwrap(), expected);
}

/// The writer as the run's log: the file holds the bytes an in-memory chain writes
/// for the same run, the lines the driver hands on are the writer's own, and no
/// line is judged again (each record is built and hashed once).
#[test]
fn the_writer_as_the_log_writes_each_record_once_and_the_bytes_a_chain_writes() {
    use crate::{demo, driver, model::Scripted};
    let s = Scratch::new("log");
    let path = s.path("t.jsonl");
    let scenario = demo::recover();
    let (expected, _) = scenario.run().unwrap();
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    let mut model = Scripted::new(scenario.replies.iter().cloned());
    let mut toolbox = demo::toolbox().unwrap();
    let mut handed = Vec::new();
    let checked = tail::LINES_CHECKED.with(|n| n.get());
    driver::testing::run_on(
        &mut w,
        scenario.task,
        scenario.budgets.clone(),
        &mut model,
        &mut toolbox,
        &mut || false,
        &mut handed,
    )
    .unwrap();
    assert_eq!(tail::LINES_CHECKED.with(|n| n.get()), checked);
    assert_eq!(w.count(), 11);
    w.close().unwrap();
    assert_eq!(fs::read(&path).unwrap(), expected);
    assert_eq!(handed, expected);
}

/// A record another writer's append moved is not written: the run stops there, its
/// records not split, and the writer says why.
#[test]
fn the_writer_as_a_log_refuses_a_record_another_writer_moved() {
    let s = Scratch::new("interleaved");
    let path = s.path("t.jsonl");
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    Log::append(&mut w, "task", &note(0)).unwrap();
    let mut other = Writer::open(&path, WriterOptions::default()).unwrap();
    other.append("note", &note(1)).unwrap();
    let len = fs::metadata(&path).unwrap().len();
    assert_eq!(
        Log::append(&mut w, "note", &note(2)).map(|l| l.seq),
        Err(LogError::Sink(SinkError::Refused))
    );
    assert_eq!(fs::metadata(&path).unwrap().len(), len);
    let error = w.take_last_error().unwrap();
    assert!(matches!(error, WriteError::Interleaved { seq: 1, next: 2 }));
    assert_eq!(
        error.to_string(),
        "another writer appended to the transcript in between: its next record is seq 2, \
         not 1, so the record was not written (a run's records are never split)"
    );
    // As an appender of its own records, it follows the other writer.
    assert_eq!(w.append("note", &note(2)).unwrap().seq, 2);
    assert_eq!(verified(&path), 3);
}

static CLOSE_SYNCS: AtomicUsize = AtomicUsize::new(0);

fn counted_close_sync(file: &File) -> io::Result<()> {
    CLOSE_SYNCS.fetch_add(1, Ordering::SeqCst);
    file.sync_data()
}

#[test]
fn close_reports_a_failed_sync_and_drop_syncs_what_is_pending() {
    let s = Scratch::new("close");
    let path = s.path("t.jsonl");
    let on_close = WriterOptions {
        sync: SyncPolicy::OnClose,
        ..WriterOptions::default()
    };
    // close: the pending records' sync fails, and close says so.
    let mut w = Writer::open(&path, on_close).unwrap();
    w.append("x", &note(0)).unwrap();
    w.state.io.sync = failing_sync;
    assert!(matches!(w.close(), Err(WriteError::Write(_))));
    // Nothing pending: close has nothing to sync, so nothing to fail.
    let mut w = Writer::open(&path, on_close).unwrap();
    w.state.io.sync = failing_sync;
    w.close().unwrap();

    // drop: syncs pending records, once; not when nothing is pending, nor when broken.
    let io = Io {
        sync: counted_close_sync,
        ..Io::REAL
    };
    CLOSE_SYNCS.store(0, Ordering::SeqCst);
    drop(Writer::open_with(&path, on_close, io).unwrap());
    assert_eq!(CLOSE_SYNCS.load(Ordering::SeqCst), 0);
    let mut w = Writer::open_with(&path, on_close, io).unwrap();
    w.append("x", &note(1)).unwrap();
    assert_eq!(CLOSE_SYNCS.load(Ordering::SeqCst), 0);
    drop(w);
    assert_eq!(CLOSE_SYNCS.load(Ordering::SeqCst), 1);
    let mut w = Writer::open_with(&path, on_close, io).unwrap();
    w.append("x", &note(2)).unwrap();
    w.state.broken = true;
    drop(w);
    assert_eq!(CLOSE_SYNCS.load(Ordering::SeqCst), 1);
    assert_eq!(verified(&path), 3);
}

#[test]
fn appends_are_not_judged_by_the_open_checkpoint() {
    // The checkpoint given to open describes the file then; the appended line and the
    // growth taken in are later records, checked against the chain alone.
    let s = Scratch::new("checkpoint");
    let path = s.path("t.jsonl");
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    w.append("x", &note(0)).unwrap();
    w.append("x", &note(1)).unwrap();
    let mut options = WriterOptions::default();
    options.verify.checkpoint = Some(crate::checkpoint::Checkpoint {
        count: 2,
        head: Some(w.head()),
        ..Default::default()
    });
    drop(w);
    let mut w = Writer::open(&path, options).unwrap();
    let mut chain = Chain::from_anchor(w.next());
    let line = chain.append("x", &note(2)).unwrap().to_vec();
    assert_eq!(w.append_line(&line).unwrap().seq, 2);
    let mut other = Writer::open(&path, WriterOptions::default()).unwrap();
    other.append("x", &note(3)).unwrap();
    w.refresh().unwrap();
    assert_eq!((w.count(), w.head()), (other.count(), other.head()));
    assert_eq!(w.append("x", &note(4)).unwrap().seq, 4);
    assert_eq!(verified(&path), 5);
}

#[test]
fn a_writer_shows_where_its_file_is() {
    let s = Scratch::new("debug");
    let path = s.path("t.jsonl");
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    assert!(w.is_empty());
    w.append("x", &note(0)).unwrap();
    assert!(!w.is_empty());
    let shown = format!("{w:?}");
    for part in [
        "Writer",
        "len: ",
        "count: 1",
        "next_seq: 1",
        "broken: false",
    ] {
        assert!(shown.contains(part), "{shown} lacks {part}");
    }
}

#[test]
fn opening_says_why_a_file_could_not_be_created() {
    let s = Scratch::new("create");
    let (_, created) = files::open_or_create(&s.path("t.jsonl")).unwrap();
    assert!(created);
    let (_, created) = files::open_or_create(&s.path("t.jsonl")).unwrap();
    assert!(!created);
    // A name with a trailing slash cannot be created as a file: that error, not the
    // "not found" that opening it without creating would give.
    let mut dir_name = s.path("new").into_os_string();
    dir_name.push("/");
    let e = files::open_or_create(Path::new(&dir_name)).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::IsADirectory, "{e}");
}

#[test]
fn the_directory_synced_is_the_one_holding_the_file() {
    let s = Scratch::new("parent");
    files::sync_parent(&s.path("t.jsonl")).unwrap();
    // A bare name is in the working directory.
    files::sync_parent(Path::new("t.jsonl")).unwrap();
    let e = files::sync_parent(&s.path("missing/t.jsonl")).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::NotFound);
}

#[test]
fn errors_name_their_cause() {
    use std::error::Error as _;
    let io_error = || io::Error::other("disk on fire");
    let cases = [
        WriteError::Open(io_error()),
        WriteError::Lock(io_error()),
        WriteError::Write(io_error()),
        WriteError::WriteNotUndone {
            write: io_error(),
            undo: io::Error::other("undo failed"),
        },
    ];
    for e in &cases {
        assert_eq!(
            e.source().map(|c| c.to_string()).as_deref(),
            Some("disk on fire"),
            "{e:?}"
        );
    }
    let record = WriteError::Record(AppendError::EmptyKind);
    assert_eq!(
        record.source().map(|c| c.to_string()),
        Some(AppendError::EmptyKind.to_string())
    );
    assert!(WriteError::Broken.source().is_none());
}

#[test]
fn a_side_file_that_cannot_be_created_is_a_write_error_not_a_clash() {
    // A transcript name of 250 bytes: with ".torn-OFFSET" the side file's name is past
    // the 255-byte limit of Linux file systems.
    let s = Scratch::new("repair-long");
    let path = s.path(&format!("{}.jsonl", "t".repeat(244)));
    fs::write(&path, b"{\"ha").unwrap();
    match repair(&path, &WriterOptions::default()) {
        Err(RepairError::Write(e)) => assert!(format!("{e}").contains("too long"), "{e}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::read(&path).unwrap(), b"{\"ha");
}

#[test]
fn a_torn_tail_longer_than_one_read_block_is_found_and_moved_whole() {
    // complete_len reads backwards 8 KiB at a time: a tail of 20,000 bytes takes three
    // reads before the newline that ends the last complete record.
    let s = Scratch::new("torn-long");
    let (path, _, complete) = torn_file(&s);
    let tail_len = 20_000u64;
    let mut raw = OpenOptions::new().append(true).open(&path).unwrap();
    raw.write_all(&vec![b'x'; tail_len as usize - 12]).unwrap();
    drop(raw);
    assert!(matches!(
        Writer::open(&path, WriterOptions::default()),
        Err(WriteError::TornTail { offset, len, complete: false })
            if offset == complete && len == tail_len
    ));
    let removed = removed(repair(&path, &WriterOptions::default()).unwrap());
    assert_eq!((removed.offset, removed.len), (complete, tail_len));
    assert_eq!(fs::metadata(&removed.side_file).unwrap().len(), tail_len);
    assert_eq!(verified(&path), 2);
}

/// Copies half of the torn bytes to the side file, then finds the disk full.
fn half_copy_then_full(from: &mut dyn io::Read, to: &mut File) -> io::Result<u64> {
    let mut bytes = Vec::new();
    from.read_to_end(&mut bytes)?;
    to.write_all(&bytes[..bytes.len() / 2])?;
    Err(io::Error::from(io::ErrorKind::StorageFull))
}

fn failing_cut(_: &File, _: u64) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::StorageFull))
}

#[test]
fn a_repair_that_fails_removes_its_side_file_so_the_next_one_can_run() {
    let s = Scratch::new("repair-fails");
    let (path, torn, complete) = torn_file(&s);
    let mut side = path.clone().into_os_string();
    side.push(format!(".torn-{complete}"));
    let options = WriterOptions::default();
    // The side file cannot be written in full, or the transcript cannot be cut: the
    // repair fails, and leaves nothing of its own behind.
    for io in [
        RepairIo {
            copy: half_copy_then_full,
            ..RepairIo::REAL
        },
        RepairIo {
            sync: failing_sync,
            ..RepairIo::REAL
        },
        RepairIo {
            cut: failing_cut,
            ..RepairIo::REAL
        },
    ] {
        match repair::repair_with(&path, &options, io) {
            Err(e @ RepairError::Write(_)) => {
                assert!(format!("{e}").ends_with("; nothing was changed"), "{e}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(fs::read(&path).unwrap(), torn);
        assert!(!Path::new(&side).exists(), "the side file was left");
    }
    // So the next repair (with a disk that has room) does its work.
    let removed = removed(repair(&path, &options).unwrap());
    assert_eq!(fs::read(&removed.side_file).unwrap(), b"{\"hash\":\"abc");
    assert_eq!(verified(&path), 2);
}

#[test]
fn a_cut_that_is_not_synced_says_where_the_torn_bytes_are() {
    let s = Scratch::new("repair-unsynced");
    let (path, torn, complete) = torn_file(&s);
    let io = RepairIo {
        sync_cut: failing_sync,
        ..RepairIo::REAL
    };
    match repair::repair_with(&path, &WriterOptions::default(), io) {
        Err(e @ RepairError::CutNotSynced { .. }) => {
            let RepairError::CutNotSynced {
                side_file, offset, ..
            } = &e
            else {
                unreachable!()
            };
            assert_eq!(*offset, complete);
            assert_eq!(fs::read(side_file).unwrap(), &torn[complete as usize..]);
            let text = format!("{e}");
            assert!(text.contains(&side_file.display().to_string()), "{text}");
            assert!(text.contains("syncing"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::read(&path).unwrap(), &torn[..complete as usize]);
}

/// Counts what a writer told it about waiting for the lock.
#[derive(Debug, Default)]
struct Watcher {
    waiting: AtomicUsize,
    done: AtomicUsize,
}

impl LockWatch for Watcher {
    fn waiting(&self) {
        self.waiting.fetch_add(1, Ordering::SeqCst);
    }
    fn done(&self) {
        self.done.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn a_watched_wait_for_the_lock_is_told_when_it_starts_and_ends() {
    static WATCHER: Watcher = Watcher {
        waiting: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
    };
    let told = || {
        (
            WATCHER.waiting.load(Ordering::SeqCst),
            WATCHER.done.load(Ordering::SeqCst),
        )
    };
    let s = Scratch::new("lock-watch");
    let path = s.path("t.jsonl");
    let options = WriterOptions {
        lock: LockWait::Watch(&WATCHER),
        ..WriterOptions::default()
    };
    assert_eq!(options.lock, LockWait::Watch(&WATCHER));
    assert_ne!(options.lock, LockWait::Block);
    assert!(format!("{:?}", options.lock).starts_with("Watch"));
    // A free lock: nothing to tell.
    let mut w = Writer::open(&path, options).unwrap();
    w.append("x", &note(0)).unwrap();
    assert_eq!(told(), (0, 0));
    // A held one: told before the wait, and when it is over.
    let other = File::open(&path).unwrap();
    other.lock().unwrap();
    let waiting = thread::spawn(move || w.append("x", &note(1)).unwrap().seq);
    while told().0 == 0 {
        thread::yield_now();
    }
    assert_eq!(told(), (1, 0), "the writer is still waiting");
    other.unlock().unwrap();
    assert_eq!(waiting.join().unwrap(), 1);
    assert_eq!(told(), (1, 1));
    // Repair waits the same way.
    other.lock().unwrap();
    let repairing = {
        let path = path.clone();
        thread::spawn(move || repair(&path, &options).unwrap().count)
    };
    while told().0 == 1 {
        thread::yield_now();
    }
    other.unlock().unwrap();
    assert_eq!(repairing.join().unwrap(), 2);
    assert_eq!(told(), (2, 2));
}

/// Two records, then a third whole record of the same chain without its newline: the
/// file, its bytes, the offset of the last line and the whole transcript's bytes.
fn unterminated_file(s: &Scratch) -> (PathBuf, Vec<u8>, u64, Vec<u8>) {
    let path = s.path("t.jsonl");
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    w.append("x", &note(0)).unwrap();
    w.append("x", &note(1)).unwrap();
    let complete = w.len();
    let mut chain = Chain::from_anchor(w.next());
    drop(w);
    let line = chain.append("x", &note(2)).unwrap().to_vec();
    let mut raw = OpenOptions::new().append(true).open(&path).unwrap();
    raw.write_all(&line[..line.len() - 1]).unwrap();
    let mut whole = fs::read(&path).unwrap();
    let unterminated = whole.clone();
    whole.push(b'\n');
    (path, unterminated, complete, whole)
}

#[test]
fn a_whole_record_lacking_only_its_newline_is_kept_and_completed() {
    let s = Scratch::new("unterminated");
    let (path, unterminated, complete, whole) = unterminated_file(&s);
    let len = unterminated.len() as u64 - complete;
    match Writer::open(&path, WriterOptions::default()) {
        Err(e @ WriteError::TornTail { complete: true, .. }) => {
            assert!(
                matches!(e, WriteError::TornTail { offset, len: l, .. } if offset == complete && l == len)
            );
            assert!(format!("{e}").contains("missing only its newline"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    let repaired = repair(&path, &WriterOptions::default()).unwrap();
    assert_eq!(
        repaired.tail,
        TailRepair::Completed {
            offset: complete,
            len
        }
    );
    assert_eq!(repaired.count, 3);
    assert_eq!(fs::read(&path).unwrap(), whole);
    let report = verify_file(&path, &Options::default(), &Parallel::default());
    assert!(report.ok(), "{:?}", report.faults);
    assert_eq!(report.head, Some(repaired.head));
    let side = format!("{}.torn-{complete}", path.display());
    assert!(!Path::new(&side).exists());
    let again = repair(&path, &WriterOptions::default()).unwrap();
    assert_eq!((again.count, again.tail), (3, TailRepair::Untouched));
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    assert_eq!(w.append("x", &note(3)).unwrap().seq, 3);
}

#[test]
fn a_whole_record_that_does_not_continue_the_chain_is_moved_aside() {
    let s = Scratch::new("unterminated-other");
    let (path, unterminated, complete, _) = unterminated_file(&s);
    // The same record, a step out of its chain: anchored one seq further.
    let anchor = Anchor {
        seq0: 9,
        ..Anchor::GENESIS
    };
    let line = Chain::from_anchor(anchor)
        .append("x", &note(2))
        .unwrap()
        .to_vec();
    let mut other = unterminated[..complete as usize].to_vec();
    other.extend_from_slice(&line[..line.len() - 1]);
    fs::write(&path, &other).unwrap();
    let removed = removed(repair(&path, &WriterOptions::default()).unwrap());
    assert_eq!(removed.offset, complete);
    assert_eq!(
        fs::read(&removed.side_file).unwrap(),
        &line[..line.len() - 1]
    );
}

fn failing_end_line(_: &File, _: u64) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::StorageFull))
}

#[test]
fn a_newline_that_cannot_be_added_says_so() {
    let s = Scratch::new("unterminated-fails");
    let (path, unterminated, _, _) = unterminated_file(&s);
    let io = RepairIo {
        end_line: failing_end_line,
        ..RepairIo::REAL
    };
    match repair::repair_with(&path, &WriterOptions::default(), io) {
        Err(e @ RepairError::Newline { written: false, .. }) => {
            assert!(format!("{e}").ends_with("; nothing was changed"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::read(&path).unwrap(), unterminated);
    let io = RepairIo {
        sync_cut: failing_sync,
        ..RepairIo::REAL
    };
    match repair::repair_with(&path, &WriterOptions::default(), io) {
        Err(e @ RepairError::Newline { written: true, .. }) => {
            assert!(format!("{e}").contains("repair again"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(verified(&path), 3);
}

#[test]
fn opening_to_resume_reads_the_records_the_writer_verified() {
    let s = Scratch::new("resumable");
    let path = s.path("t.jsonl");
    let (w, read) = Writer::open_resumable(&path, WriterOptions::default()).unwrap();
    assert!(w.is_empty() && read.is_empty());
    assert_eq!(read.next(), Anchor::GENESIS);
    drop(w);
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    for (kind, payload) in SPEC {
        w.append_json(kind, payload.as_bytes()).unwrap();
    }
    drop(w);
    let (w, read) = Writer::open_resumable(&path, WriterOptions::default()).unwrap();
    assert_eq!((read.count(), read.next()), (w.count(), w.next()));
    assert_eq!(read.task(), Some("add 2 and 40"));
    let bytes = fs::read(&path).unwrap();
    let again = crate::driver::Resumable::read(Anchor::GENESIS, &bytes).unwrap();
    assert_eq!(read, again);
    drop(w);

    // Refused as Writer::open refuses: a torn tail, a file from another anchor.
    let t = Scratch::new("resumable-torn");
    let (torn, before, complete) = torn_file(&t);
    match Writer::open_resumable(&torn, WriterOptions::default()) {
        Err(WriteError::TornTail { offset, .. }) => assert_eq!(offset, complete),
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::read(&torn).unwrap(), before);
    let mut options = WriterOptions::default();
    options.verify.anchor.seq0 = 3;
    assert!(matches!(
        Writer::open_resumable(&path, options),
        Err(WriteError::DoesNotVerify(_))
    ));
}
