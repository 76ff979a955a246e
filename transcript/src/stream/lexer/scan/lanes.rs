//! Sixty-four bytes compared with a byte value at once, as a bit mask (bit `i` for
//! byte `i`): SSE2 compares on x86-64, where SSE2 is always there, through
//! `safe_arch`'s safe wrappers (core stays free of `unsafe`); eight words and a
//! multiply elsewhere. Both give the same masks (`tests`).

/// A block of 64 bytes, ready to be compared.
#[cfg(target_arch = "x86_64")]
pub(super) use sse2::Lanes;
/// A block of 64 bytes, ready to be compared.
#[cfg(not(target_arch = "x86_64"))]
pub(super) use words::Lanes;

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use safe_arch::{
        bitor_m128i, cmp_eq_mask_i8_m128i, m128i, max_u8_m128i, move_mask_i8_m128i,
        set_splat_i8_m128i,
    };

    /// Four SSE2 registers.
    pub(in super::super) struct Lanes([m128i; 4]);

    impl Lanes {
        /// Loads `block`.
        #[inline(always)]
        pub(in super::super) fn load(block: &[u8; 64]) -> Self {
            let part = |k: usize| {
                let mut lane = [0u8; 16];
                lane.copy_from_slice(&block[16 * k..16 * k + 16]);
                m128i::from(lane)
            };
            Lanes([part(0), part(1), part(2), part(3)])
        }

        /// The bytes equal to any of `bytes`.
        #[inline(always)]
        pub(in super::super) fn any_of<const N: usize>(&self, bytes: [u8; N]) -> u64 {
            let mut mask = 0;
            for (k, &lane) in self.0.iter().enumerate() {
                let mut hits = m128i::default();
                for b in bytes {
                    hits = bitor_m128i(
                        hits,
                        cmp_eq_mask_i8_m128i(lane, set_splat_i8_m128i(b as i8)),
                    );
                }
                // The low 16 bits hold one bit per byte.
                mask |= u64::from(move_mask_i8_m128i(hits) as u16) << (16 * k);
            }
            mask
        }

        /// The control bytes (below 0x20): those the unsigned maximum with 0x1f leaves
        /// at 0x1f.
        #[inline(always)]
        pub(in super::super) fn controls(&self) -> u64 {
            let top = set_splat_i8_m128i(0x1f);
            let mut mask = 0;
            for (k, &lane) in self.0.iter().enumerate() {
                let low = cmp_eq_mask_i8_m128i(max_u8_m128i(lane, top), top);
                mask |= u64::from(move_mask_i8_m128i(low) as u16) << (16 * k);
            }
            mask
        }
    }
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
mod words {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = ONES * 0x7f;

    /// Eight little-endian words.
    pub(in super::super) struct Lanes([u64; 8]);

    impl Lanes {
        /// Loads `block`.
        #[inline(always)]
        pub(in super::super) fn load(block: &[u8; 64]) -> Self {
            let mut words = [0u64; 8];
            for (w, bytes) in words.iter_mut().zip(block.chunks_exact(8)) {
                let mut word = [0u8; 8];
                word.copy_from_slice(bytes);
                *w = u64::from_le_bytes(word);
            }
            Lanes(words)
        }

        /// The bytes equal to any of `bytes`.
        #[inline(always)]
        pub(in super::super) fn any_of<const N: usize>(&self, bytes: [u8; N]) -> u64 {
            let mut mask = 0;
            for (k, &w) in self.0.iter().enumerate() {
                let mut hits = 0;
                for b in bytes {
                    hits |= zero_bytes(w ^ (ONES * u64::from(b)));
                }
                mask |= gather(hits) << (8 * k);
            }
            mask
        }

        /// The control bytes (below 0x20): those with none of their top three bits.
        #[inline(always)]
        pub(in super::super) fn controls(&self) -> u64 {
            let mut mask = 0;
            for (k, &w) in self.0.iter().enumerate() {
                mask |= gather(zero_bytes(w & (ONES * 0xe0))) << (8 * k);
            }
            mask
        }
    }

    /// The zero bytes of `y`, flagged in their high bit: adding 0x7f to a byte's low
    /// seven bits leaves its high bit clear exactly when they are zero, and no carry
    /// crosses into the next byte, so each byte is judged on its own.
    #[inline(always)]
    fn zero_bytes(y: u64) -> u64 {
        !(((y & LOW7) + LOW7) | y | LOW7)
    }

    /// Each byte's flag (its high bit) moved to bit `i` of one byte: the multiplier's
    /// terms land on distinct bits, so nothing carries.
    #[inline(always)]
    fn gather(flags: u64) -> u64 {
        ((flags >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
    }
}

#[cfg(test)]
mod tests {
    use super::words;
    use proptest::prelude::*;

    fn byte_loop(block: &[u8; 64], bytes: &[u8]) -> u64 {
        block
            .iter()
            .enumerate()
            .filter(|(_, b)| bytes.contains(b))
            .fold(0, |mask, (i, _)| mask | 1 << i)
    }

    proptest! {
        #[test]
        fn both_loads_find_what_a_byte_loop_finds(
            bytes in proptest::collection::vec(prop_oneof![
                3 => proptest::sample::select(alloc::vec![b'"', b'\\', b'n', b'u', 0x00, 0x1f, 0x20, 0x7f, 0x80, 0x9f, 0xa0, 0xa2, 0xdc, 0xff, 0x21, 0x5d]),
                1 => any::<u8>(),
            ], 64),
        ) {
            let mut block = [0u8; 64];
            block.copy_from_slice(&bytes);
            let lanes = super::Lanes::load(&block);
            let word_lanes = words::Lanes::load(&block);
            prop_assert_eq!(lanes.any_of([b'"']), byte_loop(&block, b"\""));
            prop_assert_eq!(word_lanes.any_of([b'"']), byte_loop(&block, b"\""));
            let set = *b"\"\\bfnrtu";
            prop_assert_eq!(lanes.any_of(set), byte_loop(&block, &set));
            prop_assert_eq!(word_lanes.any_of(set), byte_loop(&block, &set));
            let controls: alloc::vec::Vec<u8> = (0..0x20).collect();
            prop_assert_eq!(lanes.controls(), byte_loop(&block, &controls));
            prop_assert_eq!(word_lanes.controls(), byte_loop(&block, &controls));
        }
    }
}
