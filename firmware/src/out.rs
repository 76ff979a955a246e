//! One line of output, assembled in a fixed buffer and written over semihosting: text
//! and decimal numbers, without `core::fmt` (which would weigh more than what it prints).

use crate::semihosting;

/// A line being assembled; longer text is cut.
pub struct Line {
    buf: [u8; 128],
    len: usize,
}

impl Line {
    /// An empty line.
    pub fn new() -> Line {
        Line {
            buf: [0; 128],
            len: 0,
        }
    }

    /// Appends text.
    pub fn text(&mut self, text: &str) {
        self.bytes(text.as_bytes());
    }

    /// Appends bytes, keeping room for the newline and NUL.
    pub fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.len + 2 < self.buf.len() {
                self.buf[self.len] = b;
                self.len += 1;
            }
        }
    }

    /// Appends a number in decimal.
    pub fn number(&mut self, mut n: u32) {
        let mut digits = [0u8; 10];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.bytes(&digits[i..]);
    }

    /// Ends the line and writes it.
    pub fn end(mut self) {
        self.buf[self.len] = b'\n';
        self.buf[self.len + 1] = 0;
        semihosting::write(&self.buf[..self.len + 2]);
    }
}
