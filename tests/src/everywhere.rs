//! Every verifier entry point on the same bytes, and the checks that they agree.

use agentloop_core::verify::{self, FaultKind, Options, Report};
use std::io::BufReader;

use crate::scratch::TempDir;

/// The (index, kind) pairs of a report's faults, in order.
pub fn fault_list(report: &Report) -> Vec<(Option<u64>, FaultKind)> {
    report.faults.iter().map(|f| (f.index, f.kind)).collect()
}

/// Checks the report invariants that hold for a transcript read from a file or bytes:
/// a fault with an index has `line = index + 1` (except `truncated`, whose record is
/// not in the file, and so has no line), `unreadable` has neither, and faults with an
/// index come in line order.
pub fn check_line_invariants(report: &Report) {
    for f in &report.faults {
        match f.kind {
            FaultKind::Unreadable => {
                assert_eq!((f.index, f.line), (None, None), "{f}");
            }
            FaultKind::Truncated => {
                assert_eq!(f.index, Some(report.count), "{f}");
                assert_eq!(f.line, None, "{f}");
            }
            _ => {
                let index = f.index.unwrap_or_else(|| panic!("no index: {f}"));
                assert_eq!(f.line, Some(index + 1), "line = index + 1: {f}");
            }
        }
        assert!(
            !f.detail.to_string().is_empty(),
            "a fault names what was wrong: {f:?}"
        );
    }
    let indices: Vec<u64> = report.faults.iter().filter_map(|f| f.index).collect();
    assert!(
        indices.windows(2).all(|w| w[0] <= w[1]),
        "faults in line order: {:?}",
        fault_list(report)
    );
}

/// Writes `bytes` to a fresh file on disk and verifies it with [`verify::verify_file`],
/// [`verify::verify_bytes`], [`verify::verify_reader`] over the bytes,
/// [`verify::verify_reader`] over a reader that yields one byte at a time, and
/// [`verify::verify_reader_parallel`] / [`verify::verify_file`] on threads with
/// chunks from 1 byte up; asserts the reports are identical and satisfy
/// [`check_line_invariants`]; returns the report.
pub fn verify_everywhere(bytes: &[u8], options: &Options) -> Report {
    let report = verify_all_agree(bytes, options);
    check_line_invariants(&report);
    report
}

/// Like [`verify_everywhere`], without [`check_line_invariants`] (for the few reports
/// with a fault that has no record to point at, such as a count-0 checkpoint's
/// `head_mismatch`).
pub fn verify_all_agree(bytes: &[u8], options: &Options) -> Report {
    let dir = TempDir::new("verify");
    let path = dir.write("transcript.jsonl", bytes);
    let from_file = verify::verify_file(&path, options, &verify::Parallel::default());
    let from_bytes = verify::verify_bytes(bytes, options);
    let from_reader = verify::verify_reader(bytes, options);
    let byte_by_byte = verify::verify_reader(BufReader::with_capacity(1, bytes), options);
    assert_eq!(from_file, from_bytes, "verify_file vs verify_bytes");
    assert_eq!(from_reader, from_bytes, "verify_reader vs verify_bytes");
    assert_eq!(byte_by_byte, from_bytes, "1-byte reader vs verify_bytes");
    // On threads: chunks far smaller than a line (every line crosses buffers), about a
    // line, and larger than the input; and the file path forced onto threads.
    for (threads, chunk_bytes) in [(2, 1), (3, 7), (2, 150), (1, 1 << 20)] {
        let parallel = verify::Parallel {
            threads,
            chunk_bytes,
            from_bytes: 0,
        };
        let threaded = verify::verify_reader_parallel(bytes, options, &parallel);
        assert_eq!(
            threaded, from_bytes,
            "parallel {parallel:?} vs verify_bytes"
        );
    }
    let forced = verify::Parallel {
        threads: 2,
        chunk_bytes: 64,
        from_bytes: 0,
    };
    let from_file_threaded = verify::verify_file(&path, options, &forced);
    assert_eq!(from_file_threaded, from_bytes, "verify_file on threads");
    from_file
}
