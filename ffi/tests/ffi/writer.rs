//! `agentloop_writer` and `agentloop_transcript_repair` through the rlib: a lock per append (two
//! writers on one file in one process take turns and follow each other), not waiting
//! for a held lock, writer options, runs that follow other writers or are refused when
//! one appends mid-run, and repair's refusals.

use core::ffi::c_void;
use core::ptr::{null, null_mut};
use std::fs::{self, File};
use std::path::Path;

use agentloop::*;
use agentloop_core::verify::{verify_file, Options, Parallel};

use crate::common::Dir;

fn open(
    path: &str,
    options: Option<&agentloop_writer_options>,
) -> (agentloop_result, *mut agentloop_writer) {
    let mut w = null_mut();
    let options = options.map_or(null(), |o| o as *const _);
    // SAFETY: a valid path input, NULL or valid options, a valid out pointer.
    let r =
        unsafe { agentloop_writer_open_with(path.as_ptr(), path.len(), null(), options, &mut w) };
    (r, w)
}

fn append(w: *mut agentloop_writer, payload: &str) -> agentloop_result {
    // SAFETY: a live writer (or NULL on purpose) and valid byte inputs.
    unsafe { agentloop_writer_append(w, b"note".as_ptr(), 4, payload.as_ptr(), payload.len()) }
}

fn count(w: *mut agentloop_writer) -> u64 {
    let mut n = 0;
    // SAFETY: a live writer and a valid out pointer.
    assert_eq!(
        unsafe { agentloop_writer_count(w, &mut n) },
        agentloop_result::Ok
    );
    n
}

fn verified(path: &Path) -> u64 {
    let report = verify_file(path, &Options::default(), &Parallel::default());
    assert!(report.ok(), "{:?}", report.faults);
    report.count
}

#[test]
fn two_writers_in_one_process_take_turns_and_follow_each_other() {
    let dir = Dir::new("writer-turns");
    let (path, c_path) = dir.path("t.jsonl");
    // Both open at once: neither holds the lock while idle.
    let (r, a) = open(&c_path, None);
    assert_eq!(r, agentloop_result::Ok);
    let (r, b) = open(&c_path, None);
    assert_eq!(r, agentloop_result::Ok);
    for i in 0..5 {
        assert_eq!(append(a, &format!("{{\"a\":{i}}}")), agentloop_result::Ok);
        assert_eq!(append(b, &format!("{{\"b\":{i}}}")), agentloop_result::Ok);
    }
    assert_eq!(count(b), 10);
    assert_eq!(count(a), 9);
    // SAFETY: a live writer.
    assert_eq!(unsafe { agentloop_writer_refresh(a) }, agentloop_result::Ok);
    assert_eq!(count(a), 10);
    let (mut ha, mut hb) = (agentloop_hash::default(), agentloop_hash::default());
    // SAFETY: live writers, writable hashes; each freed once.
    unsafe {
        assert_eq!(agentloop_writer_head(a, &mut ha), agentloop_result::Ok);
        assert_eq!(agentloop_writer_head(b, &mut hb), agentloop_result::Ok);
        assert_eq!(
            agentloop_writer_refresh(null_mut()),
            agentloop_result::NullParameter
        );
        agentloop_writer_free(a);
        agentloop_writer_free(b);
    }
    assert_eq!(ha, hb);
    assert_eq!(verified(&path), 10);
}

#[test]
fn a_record_past_the_line_limit_is_record_too_long_and_writes_nothing() {
    let dir = Dir::new("writer-toolong");
    let (path, c_path) = dir.path("t.jsonl");
    let (r, w) = open(&c_path, None);
    assert_eq!(r, agentloop_result::Ok);
    assert_eq!(append(w, "1"), agentloop_result::Ok);
    let before = fs::read(&path).unwrap();
    // A 16 MiB string: its line is longer than the 16 MiB a verifier reads.
    let big = format!("\"{}\"", "a".repeat(16 << 20));
    assert_eq!(append(w, &big), agentloop_result::RecordTooLong);
    assert_eq!(fs::read(&path).unwrap(), before);
    assert_eq!(append(w, "2"), agentloop_result::Ok);
    // SAFETY: a live writer, freed once.
    unsafe { agentloop_writer_free(w) };
    assert_eq!(verified(&path), 2);

    // A writer opened with a lower line limit keeps to it.
    let verify = agentloop_verify_options {
        max_line_bytes: 300,
        ..Default::default()
    };
    let mut w = null_mut();
    // SAFETY: a valid path input, valid options and out pointer.
    let r = unsafe {
        agentloop_writer_open_with(c_path.as_ptr(), c_path.len(), &verify, null(), &mut w)
    };
    assert_eq!(r, agentloop_result::Ok);
    let long = format!("\"{}\"", "b".repeat(300));
    assert_eq!(append(w, &long), agentloop_result::RecordTooLong);
    assert_eq!(append(w, "3"), agentloop_result::Ok);
    // SAFETY: a live writer, freed once.
    unsafe { agentloop_writer_free(w) };
    assert_eq!(verified(&path), 3);

    // A chain refuses the line too, and stays where it was.
    let mut chain = null_mut();
    let mut len = 0usize;
    let mut buf = vec![0u8; 512];
    // SAFETY: valid out pointers, a live chain, valid byte inputs and buffer.
    unsafe {
        assert_eq!(agentloop_chain_new(&mut chain), agentloop_result::Ok);
        assert_eq!(
            agentloop_chain_append(
                chain,
                b"k".as_ptr(),
                1,
                big.as_ptr(),
                big.len(),
                buf.as_mut_ptr(),
                buf.len(),
                &mut len
            ),
            agentloop_result::RecordTooLong
        );
        assert_eq!(
            agentloop_chain_append(
                chain,
                b"k".as_ptr(),
                1,
                b"1".as_ptr(),
                1,
                buf.as_mut_ptr(),
                buf.len(),
                &mut len
            ),
            agentloop_result::Ok
        );
        agentloop_chain_free(chain);
    }
    assert!(buf[..len].ends_with(b",\"seq\":0}\n"));
    // SAFETY: agentloop_result_str returns a static NUL-terminated string.
    let text = unsafe { std::ffi::CStr::from_ptr(agentloop_result_str(21)) };
    assert!(
        text.to_str()
            .unwrap()
            .contains("longer than the line limit"),
        "{text:?}"
    );
}

#[test]
fn not_waiting_for_a_held_lock_is_locked_and_options_are_checked() {
    let dir = Dir::new("writer-lock");
    let (path, c_path) = dir.path("t.jsonl");
    let mut options = agentloop_writer_options {
        sync: 9,
        sync_every: 0,
        wait_for_lock: true,
    };
    // SAFETY: a valid out pointer, then NULL on purpose.
    unsafe {
        assert_eq!(
            agentloop_writer_options_init(&mut options),
            agentloop_result::Ok
        );
        assert_eq!(
            agentloop_writer_options_init(null_mut()),
            agentloop_result::NullParameter
        );
    }
    assert_eq!(
        (options.sync, options.sync_every, options.wait_for_lock),
        (agentloop_sync::Always as u32, 1, true)
    );
    for (sync, every) in [(3, 1), (agentloop_sync::EveryN as u32, 0)] {
        let bad = agentloop_writer_options {
            sync,
            sync_every: every,
            ..options
        };
        let (r, w) = open(&c_path, Some(&bad));
        assert_eq!((r, w.is_null()), (agentloop_result::InvalidArgument, true));
    }
    options.wait_for_lock = false;
    options.sync = agentloop_sync::OnClose as u32;
    let (r, w) = open(&c_path, Some(&options));
    assert_eq!(r, agentloop_result::Ok);
    assert_eq!(append(w, "1"), agentloop_result::Ok);

    let holder = File::open(&path).unwrap();
    holder.lock().unwrap();
    assert_eq!(append(w, "2"), agentloop_result::Locked);
    let (r, other) = open(&c_path, Some(&options));
    assert_eq!((r, other.is_null()), (agentloop_result::Locked, true));
    holder.unlock().unwrap();
    assert_eq!(append(w, "2"), agentloop_result::Ok);
    // SAFETY: a live writer, freed once.
    unsafe {
        assert_eq!(agentloop_writer_sync(w), agentloop_result::Ok);
        agentloop_writer_free(w);
    }
    assert_eq!(verified(&path), 2);
}

unsafe extern "C" fn quiet_model(
    _userdata: *mut c_void,
    _messages: *const u8,
    _messages_len: usize,
    _manifest: *const u8,
    _manifest_len: usize,
    reply: *mut agentloop_reply,
) {
    // SAFETY: the reply handed to this callback and a static text.
    unsafe { agentloop_reply_set_text(reply, b"done".as_ptr(), 4) };
}

/// A model whose turn is interrupted by another writer appending to the same file.
unsafe extern "C" fn interloping_model(
    userdata: *mut c_void,
    messages: *const u8,
    messages_len: usize,
    manifest: *const u8,
    manifest_len: usize,
    reply: *mut agentloop_reply,
) {
    let other = userdata.cast::<agentloop_writer>();
    assert_eq!(append(other, "{\"interloper\":true}"), agentloop_result::Ok);
    // SAFETY: forwarded from the library's call.
    unsafe {
        quiet_model(
            null_mut(),
            messages,
            messages_len,
            manifest,
            manifest_len,
            reply,
        )
    };
}

fn run_to(
    w: *mut agentloop_writer,
    model: agentloop_model_callback,
    userdata: *mut c_void,
) -> (agentloop_result, agentloop_outcome) {
    let mut outcome = agentloop_outcome::default();
    // SAFETY: a live writer, a static task, no tools, valid callbacks and out pointer.
    let r = unsafe {
        agentloop_driver_run_to_writer(
            w,
            b"t".as_ptr(),
            1,
            null(),
            model,
            userdata,
            null(),
            0,
            None,
            null_mut(),
            &mut outcome,
        )
    };
    (r, outcome)
}

#[test]
fn runs_follow_other_writers_but_are_never_split_by_one() {
    let dir = Dir::new("writer-runs");
    let (path, c_path) = dir.path("t.jsonl");
    let (_, a) = open(&c_path, None);
    let (_, b) = open(&c_path, None);
    // b appended before the run: the run starts from the file's real head.
    assert_eq!(append(b, "{\"before\":1}"), agentloop_result::Ok);
    let (r, outcome) = run_to(a, Some(quiet_model), null_mut());
    assert_eq!(r, agentloop_result::Ok);
    assert_eq!(outcome.steps, 1);
    assert_eq!(count(a), 4);
    assert_eq!(verified(&path), 4);

    // b appends in the middle of the next run: the run's next record is refused.
    let (r, _) = run_to(a, Some(interloping_model), b.cast());
    assert_eq!(r, agentloop_result::DoesNotVerify);
    assert_eq!(verified(&path), 6);
    let text = fs::read_to_string(&path).unwrap();
    let kinds: Vec<&str> = text
        .lines()
        .map(|l| {
            l.split("\"kind\":\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(kinds, ["note", "task", "assistant", "stop", "task", "note"]);
    // The writer is still usable: its own appends follow the file.
    assert_eq!(append(a, "3"), agentloop_result::Ok);
    assert_eq!(count(a), 7);
    // SAFETY: live writers, each freed once.
    unsafe {
        agentloop_writer_free(a);
        agentloop_writer_free(b);
    }
    assert_eq!(verified(&path), 7);
}

#[test]
fn repair_refusals_change_nothing() {
    let dir = Dir::new("writer-repair");
    let (path, c_path) = dir.path("t.jsonl");
    let (mut offset, mut removed) = (7u64, 7u64);
    // SAFETY (this block): valid pointers unless NULL on purpose.
    unsafe {
        assert_eq!(
            agentloop_transcript_repair(
                c_path.as_ptr(),
                c_path.len(),
                null(),
                &mut offset,
                &mut removed
            ),
            agentloop_result::Io
        );
        assert!(!path.exists());
        let (_, w) = open(&c_path, None);
        assert_eq!(append(w, "{\"sum\":42}"), agentloop_result::Ok);
        agentloop_writer_free(w);
        let tampered = fs::read_to_string(&path).unwrap().replace("42", "43") + "{\"ha";
        fs::write(&path, &tampered).unwrap();
        assert_eq!(
            agentloop_transcript_repair(
                c_path.as_ptr(),
                c_path.len(),
                null(),
                &mut offset,
                &mut removed
            ),
            agentloop_result::DoesNotVerify
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), tampered);
        assert_eq!((offset, removed), (7, 7));
        assert_eq!(
            agentloop_transcript_repair(null(), 4, null(), &mut offset, &mut removed),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_transcript_repair(
                c_path.as_ptr(),
                c_path.len(),
                null(),
                null_mut(),
                &mut removed
            ),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_transcript_repair(
                c_path.as_ptr(),
                c_path.len(),
                null(),
                &mut offset,
                null_mut()
            ),
            agentloop_result::NullParameter
        );
    }
}

/// A last line that is a whole record lacking only its newline: the same repair as
/// the CLI's — kept, the newline added — told by `*out_removed` 0 with `*out_offset`
/// where the kept line starts (less than the file's length, which a file with nothing
/// to repair reports).
#[test]
fn repair_adds_the_newline_a_whole_last_record_lacks() {
    let dir = Dir::new("writer-repair-newline");
    let (path, c_path) = dir.path("t.jsonl");
    let (r, w) = open(&c_path, None);
    assert_eq!(r, agentloop_result::Ok);
    assert_eq!(append(w, "1"), agentloop_result::Ok);
    assert_eq!(append(w, "2"), agentloop_result::Ok);
    // SAFETY: a live writer, freed once.
    unsafe { agentloop_writer_free(w) };
    let whole = fs::read(&path).unwrap();
    let offset_of_last = whole[..whole.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap() as u64
        + 1;
    fs::write(&path, &whole[..whole.len() - 1]).unwrap();
    let (r, w) = open(&c_path, None);
    assert_eq!((r, w), (agentloop_result::TornTail, null_mut()));
    let (mut offset, mut removed) = (7u64, 7u64);
    // SAFETY: valid pointers.
    let r = unsafe {
        agentloop_transcript_repair(
            c_path.as_ptr(),
            c_path.len(),
            null(),
            &mut offset,
            &mut removed,
        )
    };
    assert_eq!(r, agentloop_result::Ok);
    assert_eq!((offset, removed), (offset_of_last, 0));
    assert_eq!(fs::read(&path).unwrap(), whole);
    assert_eq!(verified(&path), 2);
}
