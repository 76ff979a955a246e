//! The 32-byte SHA-256 digest type and its lowercase-hex spelling.

use core::fmt;

/// A SHA-256 digest, written in records as 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Hash(pub [u8; 32]);

const HEX: &[u8; 16] = b"0123456789abcdef";

impl Hash {
    /// The all-zero hash: `prev` of the first record of a chain that starts at seq 0.
    pub const ZERO: Hash = Hash([0; 32]);

    /// The SHA-256 of `bytes` (a request or response body, say).
    pub fn of(bytes: &[u8]) -> Hash {
        use sha2::{Digest, Sha256};
        Hash(Sha256::digest(bytes).into())
    }

    /// Parses exactly 64 **lowercase** hex digits; anything else is `None`
    /// (the record format allows only one spelling of a hash).
    pub fn from_hex(hex: &[u8]) -> Option<Hash> {
        if hex.len() != 64 {
            return None;
        }
        let mut out = [0u8; 32];
        // Every digit looked up; a non-digit sets a high bit in `bad` (no early exit:
        // the verifier reads two hashes a line, nearly always well-formed).
        let mut bad = 0u8;
        for (byte, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
            let hi = NIBBLE[usize::from(pair[0])];
            let lo = NIBBLE[usize::from(pair[1])];
            bad |= hi;
            bad |= lo;
            *byte = (hi << 4) | lo;
        }
        if bad & 0xf0 != 0 {
            return None;
        }
        Some(Hash(out))
    }

    /// The 64 lowercase hex digits as ASCII bytes.
    pub fn to_hex(&self) -> [u8; 64] {
        let mut out = [0u8; 64];
        for (pair, byte) in out.chunks_exact_mut(2).zip(self.0.iter()) {
            pair[0] = HEX[usize::from(byte >> 4)];
            pair[1] = HEX[usize::from(byte & 0x0f)];
        }
        out
    }
}

/// The value of each lowercase hex digit; 0xff for every other byte.
const NIBBLE: [u8; 256] = {
    let mut table = [0xffu8; 256];
    let mut d = 0;
    while d < 16 {
        table[HEX[d] as usize] = d as u8;
        d += 1;
    }
    table
};

impl AsRef<[u8]> for Hash {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Display for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex = self.to_hex();
        // The bytes are ASCII hex digits by construction.
        f.write_str(core::str::from_utf8(&hex).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hash({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip_and_strictness() {
        let h = Hash([0xab; 32]);
        let hex = h.to_hex();
        assert_eq!(&hex[..4], b"abab");
        assert_eq!(Hash::from_hex(&hex), Some(h));
        let mut upper = hex;
        upper[0] = b'A';
        assert_eq!(Hash::from_hex(&upper), None);
        assert_eq!(Hash::from_hex(&hex[..63]), None);
        let mut bad = hex;
        bad[63] = b'g';
        assert_eq!(Hash::from_hex(&bad), None);
        assert_eq!(Hash::ZERO.to_hex(), [b'0'; 64]);
        let all = b"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        assert_eq!(Hash::from_hex(all).unwrap().to_hex(), *all);
        let shown = alloc::format!("{:?}", Hash::from_hex(all).unwrap());
        assert_eq!(
            shown,
            alloc::format!("Hash({})", core::str::from_utf8(all).unwrap())
        );
    }
}
