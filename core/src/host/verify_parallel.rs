//! Verifying one transcript on several threads (`std`): records hash independently, so
//! worker threads check and hash whole lines while the calling thread links them in
//! order. The report is the one [`crate::verify::verify_reader`] gives on the same bytes.
//!
//! - A reader thread reads the input into buffers of [`Parallel::chunk_bytes`], cut
//!   after the last `\n` (the partial line is carried to the next buffer), and hands
//!   them out in turn to the workers. A line longer than the buffer grows it up to the
//!   line limit; past the limit its bytes are dropped and only its length is kept, as
//!   the sequential reader does.
//! - Each worker runs the fast path ([`LineChecker`]) on every line of its buffers.
//! - The calling thread takes the results in input order and pushes each line into one
//!   [`Verifier`] with what the worker found ([`Verifier::push_checked`]): `seq`,
//!   `prev`, the checkpoint and the order of faults are resolved there, and a line the
//!   fast path did not accept is parsed there, as in the sequential verifier.
//!
//! Memory is bounded: buffers come from a pool of `2 × threads + 2`, returned once
//! their lines are pushed, so at most that many chunks (1 MiB each by default; one
//! holding a line longer than a chunk grows up to the line limit) are alive at once.

use std::collections::BTreeMap;
use std::io::{ErrorKind, Read};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::thread;
use std::vec::Vec;

use crate::scan::find_newline;
use crate::stream::{LineChecker, Sealed};
use crate::verify::{Options, Report, Verifier};

/// How to split the work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parallel {
    /// Worker threads that check and hash lines (at least 1); a reader thread and the
    /// calling thread come on top.
    pub threads: usize,
    /// Bytes read into one buffer before it is cut after its last complete line.
    pub chunk_bytes: usize,
    /// [`crate::verify::verify_file`] uses threads only for a file at least this long;
    /// below it, starting threads costs more than it saves.
    pub from_bytes: u64,
}

impl Default for Parallel {
    /// As many workers as the machine has cores (`available_parallelism`), 1 MiB
    /// chunks, files from 4 MiB.
    fn default() -> Self {
        Parallel {
            threads: thread::available_parallelism().map_or(1, |n| n.get()),
            chunk_bytes: 1 << 20,
            from_bytes: 4 << 20,
        }
    }
}

/// A buffer of complete lines, `buf[..len]`, and its place in the input.
struct Job {
    seq: u64,
    buf: Vec<u8>,
    len: usize,
}

/// One line of a job as a worker found it.
struct Line {
    start: usize,
    end: usize,
    sealed: Option<Sealed>,
}

/// What the calling thread takes, in input order (`seq`).
enum Piece {
    /// A job's lines, checked.
    Lines { buf: Vec<u8>, lines: Vec<Line> },
    /// A complete line longer than the limit, by its length.
    TooLong(usize),
    /// The input ended with these bytes, within the limit, and no `\n`.
    TornTail(Vec<u8>),
    /// The input ended with this many bytes, more than the limit, and no `\n`.
    LongTornTail(usize),
    /// Reading failed.
    Failed(std::io::Error),
}

/// Verifies a transcript from a reader on `parallel.threads` worker threads. Same
/// report as [`crate::verify::verify_reader`]: a read error ends verification with an
/// `unreadable` fault after the lines read before it.
pub fn verify_reader_parallel<R: Read + Send>(
    reader: R,
    options: &Options,
    parallel: &Parallel,
) -> Report {
    let workers = parallel.threads.max(1);
    let chunk = parallel.chunk_bytes.max(1);
    let max_line = options.max_line_bytes;
    let (pool_tx, pool_rx) = channel::<Vec<u8>>();
    for _ in 0..2 * workers + 2 {
        let _ = pool_tx.send(Vec::new());
    }
    let (piece_tx, piece_rx) = channel::<(u64, Piece)>();
    let mut verifier = Verifier::new(*options);
    thread::scope(|scope| {
        let mut job_txs = Vec::new();
        for _ in 0..workers {
            let (job_tx, job_rx) = sync_channel::<Job>(1);
            job_txs.push(job_tx);
            let piece_tx = piece_tx.clone();
            scope.spawn(move || work(&job_rx, &piece_tx, max_line));
        }
        let reader_pieces = piece_tx.clone();
        scope.spawn(move || {
            let mut reading = Reading {
                reader,
                pool: pool_rx,
                jobs: job_txs,
                pieces: reader_pieces,
                seq: 0,
                chunk,
                max_line,
            };
            reading.run();
        });
        drop(piece_tx);
        link(&mut verifier, &piece_rx, &pool_tx);
    });
    verifier.finish()
}

/// The calling thread: pushes the pieces into the verifier in input order and returns
/// each buffer to the pool.
fn link(verifier: &mut Verifier, pieces: &Receiver<(u64, Piece)>, pool: &Sender<Vec<u8>>) {
    let mut next = 0u64;
    let mut early: BTreeMap<u64, Piece> = BTreeMap::new();
    for (seq, piece) in pieces {
        early.insert(seq, piece);
        while let Some(piece) = early.remove(&next) {
            next += 1;
            match piece {
                Piece::Lines { buf, lines } => {
                    for line in &lines {
                        let bytes = buf.get(line.start..line.end).unwrap_or_default();
                        verifier.push_checked(bytes, line.sealed);
                    }
                    let _ = pool.send(buf);
                }
                Piece::TooLong(len) => verifier.push_long_line(len),
                Piece::TornTail(tail) => verifier.push_torn_tail(&tail),
                Piece::LongTornTail(len) => verifier.push_long_torn_tail(len),
                Piece::Failed(e) => verifier.push_unreadable(std::format!(
                    "reading failed after {} complete lines: {e}",
                    verifier.count()
                )),
            }
        }
    }
}

/// A worker: checks and hashes every line of its jobs.
fn work(jobs: &Receiver<Job>, pieces: &Sender<(u64, Piece)>, max_line: usize) {
    let mut checker = LineChecker::new();
    for Job { seq, buf, len } in jobs {
        let mut lines = Vec::new();
        let mut start = 0;
        let text = buf.get(..len).unwrap_or_default();
        while let Some((line_len, sealed)) = text.get(start..).and_then(|t| checker.check_first(t))
        {
            let end = start + line_len;
            // A line past the limit is reported by the verifier, whatever it holds.
            let sealed = sealed.filter(|_| line_len <= max_line);
            lines.push(Line { start, end, sealed });
            start = end + 1;
        }
        if pieces.send((seq, Piece::Lines { buf, lines })).is_err() {
            return;
        }
    }
}

/// The reader thread's state.
struct Reading<R> {
    reader: R,
    pool: Receiver<Vec<u8>>,
    jobs: Vec<SyncSender<Job>>,
    pieces: Sender<(u64, Piece)>,
    seq: u64,
    chunk: usize,
    max_line: usize,
}

impl<R: Read> Reading<R> {
    fn run(&mut self) {
        let Some(mut buf) = self.buffer() else {
            return;
        };
        // `buf[..filled]` holds read bytes; while `overflow` is set, the current line is
        // longer than the limit and only its length so far is kept.
        let mut filled = 0;
        let mut overflow: Option<usize> = None;
        loop {
            if overflow.is_none() && filled == buf.len() {
                if filled > self.max_line {
                    // No `\n` in a full buffer: one line, already past the limit.
                    overflow = Some(filled);
                    filled = 0;
                } else {
                    let grown = (buf.len() * 2).max(self.chunk).min(self.max_line + 1);
                    buf.resize(grown.max(filled + 1), 0);
                }
            }
            let n = match self.reader.read(buf.get_mut(filled..).unwrap_or_default()) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => {
                    if overflow.is_none() {
                        let _ = self.send_lines(&mut buf, &mut filled);
                    }
                    self.piece(Piece::Failed(e));
                    return;
                }
            };
            if let Some(len) = overflow {
                let fresh = buf.get(..n).unwrap_or_default();
                match find_newline(fresh) {
                    Some(nl) => {
                        self.piece(Piece::TooLong(len + nl));
                        buf.copy_within(nl + 1..n, 0);
                        filled = n - nl - 1;
                        overflow = None;
                    }
                    None => {
                        overflow = Some(len + n);
                        continue;
                    }
                }
            } else {
                filled += n;
            }
            if filled >= self.chunk && !self.send_lines(&mut buf, &mut filled) {
                return;
            }
        }
        match overflow {
            Some(len) => self.piece(Piece::LongTornTail(len)),
            None => {
                if !self.send_lines(&mut buf, &mut filled) {
                    return;
                }
                if filled > self.max_line {
                    self.piece(Piece::LongTornTail(filled));
                } else if filled > 0 {
                    buf.truncate(filled);
                    self.piece(Piece::TornTail(buf));
                }
            }
        }
    }

    /// A buffer from the pool, at least a chunk long; `None` once the pool is closed.
    fn buffer(&self) -> Option<Vec<u8>> {
        let mut buf = self.pool.recv().ok()?;
        if buf.len() > 2 * self.chunk {
            buf.truncate(self.chunk);
            buf.shrink_to_fit();
        }
        if buf.len() < self.chunk {
            buf.resize(self.chunk, 0);
        }
        Some(buf)
    }

    /// Sends the complete lines of `buf[..filled]` to a worker and keeps the partial
    /// line in a fresh buffer (nothing to do without a complete line). `false` once the
    /// other threads are gone.
    fn send_lines(&mut self, buf: &mut Vec<u8>, filled: &mut usize) -> bool {
        let text = buf.get(..*filled).unwrap_or_default();
        let Some(last) = text.iter().rposition(|&b| b == b'\n') else {
            return true;
        };
        let Some(mut next) = self.buffer() else {
            return false;
        };
        let rest = *filled - last - 1;
        if next.len() < rest {
            next.resize(rest, 0);
        }
        if let (Some(to), Some(from)) = (next.get_mut(..rest), buf.get(last + 1..*filled)) {
            to.copy_from_slice(from);
        }
        let full = std::mem::replace(buf, next);
        *filled = rest;
        let seq = self.next_seq();
        let worker = (seq % self.jobs.len() as u64) as usize;
        let job = Job {
            seq,
            buf: full,
            len: last + 1,
        };
        self.jobs.get(worker).is_some_and(|tx| tx.send(job).is_ok())
    }

    fn next_seq(&mut self) -> u64 {
        let seq = self.seq;
        self.seq += 1;
        seq
    }

    fn piece(&mut self, piece: Piece) {
        let seq = self.next_seq();
        let _ = self.pieces.send((seq, piece));
    }
}
