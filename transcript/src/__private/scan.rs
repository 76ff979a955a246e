//! Byte scanning shared by the line splitters and the streaming verifier.

/// The position of the first `\n` in `bytes`, eight bytes at a time.
#[inline]
pub fn find_newline(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = bytes.chunks_exact(8);
    let mut n = 0;
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let x = u64::from_le_bytes(w) ^ (ONES * u64::from(b'\n'));
        // The lowest flagged byte is the first zero byte of `x` (a newline).
        let zero = x.wrapping_sub(ONES) & !x & HIGH;
        if zero != 0 {
            return Some(n + (zero.trailing_zeros() / 8) as usize);
        }
        n += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| n + i)
}
