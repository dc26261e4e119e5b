//! Literals four at a time where every literal byte is made of whole
//! nibbles (0x00, 0x0F, 0xF0, 0xFF): the pixel bytes of modules of 4 or 8
//! pixels (and the filter byte 0). Such a byte is two bits (its bits 0 and
//! 4), four bytes' bits are gathered by one multiply, and four bytes' codes
//! are one entry of a 256-entry table: one lookup and one write where four
//! took four of each.

use super::bit_writer::BitWriter;

/// The bytes a literal may be for the table to hold its code, in the order
/// of their two bits (bit 0, then bit 4).
const NIBBLE_BYTES: [u8; 4] = [0x00, 0x0F, 0xF0, 0xFF];
/// Fewer literals than this do not repay building the table.
const MIN_LITERALS: u32 = 1024;
/// The longest literal code a quad may hold: two quads, 56 bits, fit one
/// check for room.
const MAX_CODE_BITS: u8 = 7;

/// A byte of whole nibbles, which the table codes.
#[inline(always)]
pub fn is_nibble_byte(x: u8) -> bool {
    NIBBLE_BYTES.contains(&x)
}

/// Four literals' codes by `quad_index`: the code bits, and how many.
pub struct NibbleQuads {
    codes: [u32; 256],
    lens: [u8; 256],
}

impl NibbleQuads {
    /// The table, where every literal of the block's runs is a nibble byte
    /// (`others`: how many of its single literals are not, such as the Up
    /// filter's byte 2), there are enough of them and their codes are short
    /// enough; else `None`.
    pub fn new(
        lit_freq: &[u32; 286],
        others: u32,
        lit_codes: &[u32; 286],
        lit_lens: &[u8; 286],
    ) -> Option<Self> {
        let nibbles: u32 = NIBBLE_BYTES.iter().map(|&b| lit_freq[usize::from(b)]).sum();
        let longest = NIBBLE_BYTES
            .iter()
            .map(|&b| lit_lens[usize::from(b)])
            .max()?;
        if nibbles < MIN_LITERALS || longest > MAX_CODE_BITS {
            return None;
        }
        let all: u32 = lit_freq[..256].iter().sum();
        if all != nibbles + others {
            return None;
        }
        // Two bytes first (index: the first byte's two bits, then the
        // second's), then four: the first pair's code, the second's above it.
        let (mut pair_codes, mut pair_lens) = ([0u32; 16], [0u8; 16]);
        for (p, (code, len)) in pair_codes.iter_mut().zip(&mut pair_lens).enumerate() {
            let (a, b) = (
                usize::from(NIBBLE_BYTES[p & 3]),
                usize::from(NIBBLE_BYTES[p >> 2]),
            );
            *code = lit_codes[a] | lit_codes[b] << lit_lens[a];
            *len = lit_lens[a] + lit_lens[b];
        }
        let mut quads = Self {
            codes: [0; 256],
            lens: [0; 256],
        };
        let rows = quads
            .codes
            .chunks_exact_mut(16)
            .zip(quads.lens.chunks_exact_mut(16));
        for ((codes, lens), (&high, &high_len)) in rows.zip(pair_codes.iter().zip(&pair_lens)) {
            for i in 0..16 {
                codes[i] = pair_codes[i] | high << pair_lens[i];
                lens[i] = pair_lens[i] + high_len;
            }
        }
        Some(quads)
    }

    /// Writes the literals `run`: eight at a time, then four, then one at a
    /// time.
    #[inline(always)]
    pub fn write(
        &self,
        w: &mut BitWriter,
        run: &[u8],
        lit_codes: &[u32; 286],
        lit_lens: &[u8; 286],
    ) {
        let mut eights = run.chunks_exact(8);
        for eight in &mut eights {
            let (first, second) = quad_indices(u64::from_le_bytes(eight.try_into().unwrap()));
            w.make_room(2 * 4 * u32::from(MAX_CODE_BITS));
            w.bits(self.codes[first], self.lens[first]);
            w.bits(self.codes[second], self.lens[second]);
        }
        let mut rest = eights.remainder();
        if let Some((four, after)) = rest.split_first_chunk::<4>() {
            let (quad, _) = quad_indices(u64::from(u32::from_le_bytes(*four)));
            w.make_room(4 * u32::from(MAX_CODE_BITS));
            w.bits(self.codes[quad], self.lens[quad]);
            rest = after;
        }
        for &x in rest {
            w.make_room(15);
            w.bits(lit_codes[usize::from(x)], lit_lens[usize::from(x)]);
        }
    }
}

/// The table indices of eight nibble bytes (byte `k` in bits `8k..`), four
/// at a time: byte `k`'s bits 0 and 4 as bits `2k` and `2k + 1`.
#[inline(always)]
fn quad_indices(x: u64) -> (usize, usize) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let two = x & ONES | x >> 3 & ONES << 1;
    // Byte k's two bits times 2^(24 - 6k) land on bits 24 + 2k; every
    // other product lands on an even bit of its own outside bits 24-31, so
    // none overlaps another or carries into them.
    const GATHER: u32 = 1 << 24 | 1 << 18 | 1 << 12 | 1 << 6;
    let quad = |four: u32| (four.wrapping_mul(GATHER) >> 24) as usize;
    (quad(two as u32), quad((two >> 32) as u32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xorshift;

    #[test]
    fn indexes_by_bits_0_and_4_of_every_byte() {
        let mut rng = xorshift(0x41B);
        for _ in 0..10_000 {
            let x = u64::from(rng()) | u64::from(rng()) << 32;
            let bytes = x.to_le_bytes();
            let two = |b: u8| usize::from(b & 1) | usize::from(b >> 4 & 1) << 1;
            let expected = |four: &[u8]| (0..4).fold(0, |a, k| a | two(four[k]) << (2 * k));
            assert_eq!(
                quad_indices(x),
                (expected(&bytes[..4]), expected(&bytes[4..])),
                "{x:#x}"
            );
        }
    }

    #[test]
    fn writes_the_bits_of_one_literal_at_a_time() {
        let mut rng = xorshift(0x9A4);
        for case in 0..200 {
            // Codes of up to 7 bits for the nibble bytes; others unused.
            let (mut freq, mut codes, mut lens) = ([0u32; 286], [0u32; 286], [0u8; 286]);
            for &b in &NIBBLE_BYTES {
                let len = 1 + (rng() % 7) as u8;
                lens[usize::from(b)] = len;
                codes[usize::from(b)] = rng() & ((1 << len) - 1);
                freq[usize::from(b)] = MIN_LITERALS;
            }
            let run: Vec<u8> = (0..rng() % 100)
                .map(|_| NIBBLE_BYTES[(rng() % 4) as usize])
                .collect();
            let quads = NibbleQuads::new(&freq, 0, &codes, &lens).expect("nibble literals");
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            let mut w = BitWriter::new(&mut ours);
            quads.write(&mut w, &run, &codes, &lens);
            w.flush();
            let mut w = BitWriter::new(&mut theirs);
            for &x in &run {
                w.make_room(15);
                w.bits(codes[usize::from(x)], lens[usize::from(x)]);
            }
            w.flush();
            assert_eq!(ours, theirs, "case {case}");
        }
    }

    #[test]
    fn only_nibble_literals_in_runs_short_codes_and_enough_of_them() {
        let (mut freq, codes, mut lens) = ([0u32; 286], [0u32; 286], [3u8; 286]);
        freq[0x0F] = MIN_LITERALS;
        assert!(NibbleQuads::new(&freq, 0, &codes, &lens).is_some());
        freq[0x0F] = MIN_LITERALS - 1;
        assert!(NibbleQuads::new(&freq, 0, &codes, &lens).is_none());
        freq[0x0F] = MIN_LITERALS;
        freq[0x02] = 1;
        assert!(NibbleQuads::new(&freq, 0, &codes, &lens).is_none());
        // The Up filter's byte, outside the runs.
        assert!(NibbleQuads::new(&freq, 1, &codes, &lens).is_some());
        freq[0x02] = 0;
        lens[0xF0] = MAX_CODE_BITS + 1;
        assert!(NibbleQuads::new(&freq, 0, &codes, &lens).is_none());
    }
}
