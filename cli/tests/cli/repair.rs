//! `agentloop repair` (moves a torn tail aside, says exactly what it removed, refuses
//! anything else) and `--no-wait` on a held lock.

use crate::common;

use std::fs::{self, File};

use common::*;

#[test]
fn repair_moves_a_torn_tail_aside_and_says_what_it_removed() {
    let s = Scratch::new("repair_torn");
    let torn = format!("{}{}", spec_chain(), &LINE0[..25]);
    s.write("t.jsonl", &torn);
    let offset = spec_chain().len();
    let run = s.run(&["repair", "t.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        format!(
            "t.jsonl: repaired: removed the torn tail, 25 bytes at offset {offset} (moved to \
             t.jsonl.torn-{offset}); 3 complete records remain, head {HEAD2}\n"
        )
    );
    assert_eq!(run.stderr, "");
    assert_eq!(s.read("t.jsonl"), spec_chain().as_bytes());
    assert_eq!(
        s.read(&format!("t.jsonl.torn-{offset}")),
        &LINE0.as_bytes()[..25]
    );
    // Appending works again; repairing again finds nothing to do.
    let run = s.run(&["append", "t.jsonl", "--kind", "note", "--payload", "{}"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = s.run(&["repair", "t.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let head = run.stdout.trim_end().rsplit(' ').next().unwrap().to_owned();
    assert_eq!(
        run.stdout,
        format!("t.jsonl: nothing to repair: no torn tail; 4 complete records, head {head}\n")
    );
}

#[test]
fn repair_refuses_what_is_not_a_torn_tail_and_changes_nothing() {
    let s = Scratch::new("repair_refuse");
    // A rewritten record before a torn tail: exit 1, nothing changed.
    let bad = format!("{}{}", tampered_chain(), &LINE0[..5]);
    s.write("bad.jsonl", &bad);
    let run = s.run(&["repair", "bad.jsonl"]);
    assert_fails(&run, 1, "agentloop: bad.jsonl line 3: hash_mismatch: ");
    assert!(
        run.stderr
            .ends_with("(repair removes only a torn tail, so nothing was changed)\n"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
    assert_eq!(s.read("bad.jsonl"), bad.as_bytes());
    assert_eq!(fs::read_dir(s.dir()).unwrap().count(), 1);

    // An existing side file is never overwritten: exit 2, nothing changed.
    let torn = format!("{}{}", spec_chain(), &LINE0[..5]);
    s.write("t.jsonl", &torn);
    let side = format!("t.jsonl.torn-{}", spec_chain().len());
    s.write(&side, "evidence");
    let run = s.run(&["repair", "t.jsonl"]);
    assert_fails(
        &run,
        2,
        &format!(
            "agentloop: t.jsonl: cannot repair: the side file {side} already exists; nothing \
             was changed\n"
        ),
    );
    assert_eq!(s.read("t.jsonl"), torn.as_bytes());
    assert_eq!(s.read(&side), b"evidence");

    // A missing file, standard input, a continued transcript without its anchor.
    assert_fails(
        &s.run(&["repair", "absent.jsonl"]),
        2,
        "agentloop: absent.jsonl: cannot repair: ",
    );
    assert!(!s.path("absent.jsonl").exists());
    assert_fails(
        &s.run(&["repair", "-"]),
        2,
        "agentloop: repair needs a transcript file",
    );
    s.write("cont.jsonl", format!("{LINE1}\n{LINE2}\n{}", &LINE0[..3]));
    assert_fails(
        &s.run(&["repair", "cont.jsonl"]),
        1,
        "agentloop: cont.jsonl line 1: ",
    );
    let anchor = format!("1:{HEAD0}");
    let run = s.run(&["repair", "--anchor", &anchor, "cont.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("2 complete records remain"),
        "{}",
        run.stdout
    );
}

#[test]
fn no_wait_fails_at_once_on_a_held_lock() {
    let s = Scratch::new("no_wait");
    s.write("t.jsonl", spec_chain());
    let holder = File::open(s.path("t.jsonl")).unwrap();
    holder.lock().unwrap();
    let run = s.run(&[
        "append",
        "t.jsonl",
        "--no-wait",
        "--kind",
        "x",
        "--payload",
        "1",
    ]);
    assert_fails(
        &run,
        2,
        "agentloop: t.jsonl: another writer holds the exclusive lock; nothing was appended (--no-wait)\n",
    );
    let run = s.run(&["repair", "--no-wait", "t.jsonl"]);
    assert_fails(
        &run,
        2,
        "agentloop: t.jsonl: cannot repair: another writer holds",
    );
    assert_eq!(s.read("t.jsonl"), spec_chain().as_bytes());
    holder.unlock().unwrap();
    let run = s.run(&[
        "append",
        "t.jsonl",
        "--no-wait",
        "--kind",
        "x",
        "--payload",
        "1",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// A last line that is a whole record of the chain lacking only its newline: `verify`
/// still calls it a `torn_tail` (SPEC section 3) and says what it is; `append` refuses
/// and says what `repair` will do; `repair` keeps the record and adds the newline,
/// saying so; then it verifies with the record counted.
#[test]
fn repair_keeps_a_whole_record_lacking_only_its_newline_and_adds_it() {
    let s = Scratch::new("repair_unterminated");
    let unterminated = format!("{LINE0}\n{LINE1}\n{LINE2}");
    s.write("t.jsonl", &unterminated);
    let offset = LINE0.len() + LINE1.len() + 2;
    let len = LINE2.len();
    let run = s.run(&["verify", "t.jsonl"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "t.jsonl: 1 fault in 2 records\n");
    assert_eq!(
        run.stderr,
        format!(
            "agentloop: t.jsonl line 3: torn_tail: the last line ({len} bytes) is a complete, \
             valid record that continues the chain, missing only its terminating newline\n"
        )
    );
    let run = s.run(&["append", "t.jsonl", "--kind", "note", "--payload", "{}"]);
    assert_fails(
        &run,
        1,
        &format!(
            "agentloop: t.jsonl: torn_tail: the file's last line ({len} bytes at offset \
             {offset}) is a complete, valid record missing only its newline; nothing was \
             appended (`agentloop repair t.jsonl` adds the newline)\n"
        ),
    );
    let run = s.run(&["show", "t.jsonl"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.ends_with(
            "seq=2 tool add ok=True value={\"sum\":42} (line 3 has no terminating newline)\n"
        ),
        "{}",
        run.stdout
    );
    let run = s.run(&["repair", "t.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        format!(
            "t.jsonl: repaired: the last line ({len} bytes at offset {offset}) is a complete, \
             valid record missing only its newline: kept it and added the newline; 3 complete \
             records, head {HEAD2}\n"
        )
    );
    assert_eq!(run.stderr, "");
    assert_eq!(s.read("t.jsonl"), spec_chain().as_bytes());
    assert!(!s.path(&format!("t.jsonl.torn-{offset}")).exists());
    let run = s.run(&["verify", "t.jsonl"]);
    assert_eq!(
        run.stdout,
        format!("t.jsonl: ok, 3 records, head {HEAD2}\n")
    );
}
