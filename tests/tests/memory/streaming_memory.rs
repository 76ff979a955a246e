//! `verify` streams: the heap it holds at its peak does not grow with the number of
//! records. Measured with a counting global allocator (this test binary only).

use std::io::{BufReader, Read};

use agentloop_core::chain::Chain;
use agentloop_core::verify::{verify_reader, Options};

use crate::counting::peak_of;

/// A transcript of `n` records produced on the fly, so the input itself is never held.
struct Generated {
    chain: Chain,
    left: usize,
    pending: Vec<u8>,
    at: usize,
}

impl Generated {
    fn new(n: usize) -> Self {
        Generated {
            chain: Chain::new(),
            left: n,
            pending: Vec::new(),
            at: 0,
        }
    }
}

impl Read for Generated {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.pending.len() {
            if self.left == 0 {
                return Ok(0);
            }
            self.left -= 1;
            let payload = format!(
                "{{\"text\":\"record {} of a long run, with some unicode: é 😀\",\"n\":[1,2.5,{}]}}",
                self.left, self.left
            );
            let line = self
                .chain
                .append_json("note", payload.as_bytes())
                .expect("valid payload");
            self.pending.clear();
            self.pending.extend_from_slice(line);
            self.at = 0;
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Peak heap growth while verifying `n` generated records.
fn peak_while_verifying(n: usize) -> usize {
    let reader = BufReader::with_capacity(1 << 16, Generated::new(n));
    let (report, peak) = peak_of(|| verify_reader(reader, &Options::default()));
    assert!(report.ok(), "{:?}", report.faults.first());
    assert_eq!(report.count, n as u64);
    peak
}

#[test]
fn verify_memory_does_not_grow_with_the_record_count() {
    let small = peak_while_verifying(1_000);
    let large = peak_while_verifying(50_000);
    // The same bounded working set (read buffer, one line, one parsed record) either way;
    // a verifier that kept every record would hold ~50x more for the larger input.
    assert!(small > 0);
    assert!(
        large <= small + 4096,
        "peak heap grew from {small} bytes (1,000 records) to {large} bytes (50,000 records)"
    );
}

#[test]
fn an_overlong_line_is_not_buffered() {
    // 4 MiB of one line against a 1 KiB limit: the reader stops buffering at the limit.
    let mut line = vec![b'x'; 4 << 20];
    line.push(b'\n');
    let options = Options {
        max_line_bytes: 1024,
        ..Options::default()
    };
    let reader = BufReader::with_capacity(1 << 16, &line[..]);
    let (report, peak) = peak_of(|| verify_reader(reader, &options));
    assert_eq!(report.faults.len(), 1);
    assert!(report.faults[0]
        .detail
        .to_string()
        .contains("4194304 bytes"));
    assert!(
        peak < 256 << 10,
        "verifying an overlong line held {peak} bytes"
    );
}
