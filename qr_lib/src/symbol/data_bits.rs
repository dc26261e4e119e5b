//! Segments to data codewords: mode indicators, character counts, the packed
//! data, terminator and padding, bit for bit what `qrcode::bits::Bits` writes,
//! without its per-number bookkeeping (here a push is a shift, an OR and a
//! byte store).

use qrcode::optimize::Segment;
use qrcode::types::{Mode, Version};

use crate::QrError;

/// The data codewords of `segments` of `data` in `version`, whose data
/// capacity is `capacity_bits` (a multiple of 8 for normal versions).
pub fn data_codewords(
    data: &[u8],
    segments: &[Segment],
    version: Version,
    capacity_bits: usize,
) -> Result<Vec<u8>, QrError> {
    let mut bits = MsbFirst::with_capacity(capacity_bits / 8);
    for segment in segments {
        let chars = &data[segment.begin..segment.end];
        let count_bits = segment.mode.length_bits_count(version);
        if chars.len() >= 1 << count_bits {
            return Err(QrError::EncodingFailed);
        }
        bits.push(4, mode_indicator(segment.mode));
        bits.push(count_bits as u32, chars.len() as u32);
        match segment.mode {
            Mode::Numeric => {
                for group in chars.chunks(3) {
                    let value = group.iter().fold(0, |v, &c| v * 10 + u32::from(c - b'0'));
                    bits.push(group.len() as u32 * 3 + 1, value);
                }
            }
            Mode::Alphanumeric => {
                for pair in chars.chunks(2) {
                    let value = pair.iter().fold(0, |v, &c| v * 45 + alphanumeric_value(c));
                    bits.push(pair.len() as u32 * 5 + 1, value);
                }
            }
            // Kanji segments were turned into byte ones before optimising.
            Mode::Byte | Mode::Kanji => bits.push_bytes(chars),
        }
    }
    let used = bits.len();
    if used > capacity_bits {
        return Err(QrError::EncodingFailed);
    }
    // Terminator (up to four zero bits), zeros to the byte, then pad bytes.
    bits.push((capacity_bits - used).min(4) as u32, 0);
    bits.align();
    let mut words = bits.bytes;
    let pad = [0b1110_1100, 0b0001_0001].into_iter().cycle();
    let missing = (capacity_bits / 8).saturating_sub(words.len());
    words.extend(pad.take(missing));
    Ok(words)
}

fn mode_indicator(mode: Mode) -> u32 {
    match mode {
        Mode::Numeric => 0b0001,
        Mode::Alphanumeric => 0b0010,
        Mode::Byte => 0b0100,
        Mode::Kanji => 0b1000,
    }
}

/// The alphanumeric mode's value of `c`; 0 for any other byte, as in the
/// crate (its parser only makes alphanumeric segments of these 45).
fn alphanumeric_value(c: u8) -> u32 {
    match c {
        b'0'..=b'9' => u32::from(c - b'0'),
        b'A'..=b'Z' => u32::from(c - b'A') + 10,
        b' ' => 36,
        b'$' => 37,
        b'%' => 38,
        b'*' => 39,
        b'+' => 40,
        b'-' => 41,
        b'.' => 42,
        b'/' => 43,
        b':' => 44,
        _ => 0,
    }
}

/// Bits packed most significant first, as QR data is.
struct MsbFirst {
    bytes: Vec<u8>,
    acc: u64,
    count: u32,
}

impl MsbFirst {
    fn with_capacity(bytes: usize) -> Self {
        Self {
            bytes: Vec::with_capacity(bytes),
            acc: 0,
            count: 0,
        }
    }

    /// Appends the low `n` (at most 16) bits of `value`.
    #[inline(always)]
    fn push(&mut self, n: u32, value: u32) {
        debug_assert!(n <= 16 && u64::from(value) < 1 << n);
        // Bits above the pending `count` may linger in `acc`: only its
        // low `count` bits are ever read.
        self.acc = self.acc << n | u64::from(value);
        self.count += n;
        while self.count >= 8 {
            self.count -= 8;
            self.bytes.push((self.acc >> self.count) as u8);
        }
    }

    /// Appends whole bytes: eight at a time as one big-endian word, shifted
    /// past the pending bits, then one at a time.
    fn push_bytes(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let word = u64::from_be_bytes(word.try_into().unwrap());
            // The pending `count` bits, then the word's first 64 - count;
            // its last `count` bits are pending after (bits above them
            // linger in `acc`, as `push` allows).
            let out = ((u128::from(self.acc) << 64 | u128::from(word)) >> self.count) as u64;
            self.bytes.extend_from_slice(&out.to_be_bytes());
            self.acc = word;
        }
        for &byte in words.remainder() {
            self.push(8, u32::from(byte));
        }
    }

    /// Zeros up to the next byte boundary.
    fn align(&mut self) {
        if self.count > 0 {
            self.push(8 - self.count, 0);
        }
    }

    fn len(&self) -> usize {
        self.bytes.len() * 8 + self.count as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xorshift;

    #[test]
    fn push_bytes_writes_what_pushing_each_byte_does() {
        let mut rng = xorshift(0xB1E5);
        for case in 0..2000 {
            let (mut one_by_one, mut at_once) =
                (MsbFirst::with_capacity(0), MsbFirst::with_capacity(0));
            // Any number of pending bits before, and after (a run of bits).
            for bits in [&mut one_by_one, &mut at_once] {
                bits.push(case % 8, (case * 37 % 256) & ((1 << (case % 8)) - 1));
            }
            let bytes: Vec<u8> = (0..rng() % 40).map(|_| rng() as u8).collect();
            for &byte in &bytes {
                one_by_one.push(8, u32::from(byte));
            }
            at_once.push_bytes(&bytes);
            for bits in [&mut one_by_one, &mut at_once] {
                bits.push(5, 0b10110);
                bits.align();
            }
            assert_eq!(at_once.bytes, one_by_one.bytes, "case {case}");
        }
    }
}
