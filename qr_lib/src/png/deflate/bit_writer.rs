//! The bit writer: deflate's codes packed LSB first.

/// LSB-first bit packing. Codes gather in a 64-bit accumulator; `spill`
/// stores all eight bytes of it into the output's spare capacity and keeps
/// only the bits of the last incomplete byte, so no branch depends on the
/// code lengths. The output's length is set once, by `flush`: a spill is
/// a capacity check and one unaligned store, where `Vec` growth and
/// truncation took several times that.
pub struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    /// Bytes written so far, `out.len()` included.
    len: usize,
    acc: u64,
    count: u32,
}

impl<'a> BitWriter<'a> {
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        let len = out.len();
        Self {
            out,
            len,
            acc: 0,
            count: 0,
        }
    }

    /// Callers spill often enough that the accumulator never overflows: at
    /// most 7 bits stay after a spill, one step of the token loop adds at
    /// most 56 (a match 48, eight nibble literals 56), and the loop calls
    /// `make_room` before each.
    #[inline(always)]
    pub fn bits(&mut self, value: u32, count: u8) {
        debug_assert!(self.count + u32::from(count) <= 64);
        self.acc |= u64::from(value) << self.count;
        self.count += u32::from(count);
    }

    #[inline(always)]
    pub fn spill(&mut self) {
        if self.out.capacity() - self.len < 8 {
            self.grow();
        }
        // SAFETY: at least 8 bytes of capacity from `len` on (just checked);
        // `len` bytes are initialised, the first `out.len()` by `out` and
        // the rest by earlier spills.
        unsafe {
            let at = self.out.as_mut_ptr().add(self.len);
            at.cast::<[u8; 8]>().write_unaligned(self.acc.to_le_bytes());
        }
        // At most the eight bytes just written count as written, even were
        // a caller to overfill the accumulator (which `bits` checks only in
        // debug builds): `len` never passes initialised bytes.
        let bytes = (self.count / 8).min(8);
        self.len += bytes as usize;
        // Two shifts: a shift by 64 (eight full bytes) would overflow.
        self.acc = self.acc >> (bytes * 4) >> (bytes * 4);
        self.count -= bytes * 8;
    }

    #[cold]
    fn grow(&mut self) {
        // SAFETY: the first `len` bytes are initialised (see `spill`).
        unsafe { self.out.set_len(self.len) };
        self.out.reserve(64);
    }

    /// Spills if fewer than `bits` bits are free in the accumulator.
    #[inline(always)]
    pub fn make_room(&mut self, bits: u32) {
        if self.count + bits > 64 {
            self.spill();
        }
    }

    /// Writes what is left, the last byte padded with zeros, and sets the
    /// output's length.
    pub fn flush(mut self) {
        self.count = self.count.next_multiple_of(8);
        self.spill();
        // SAFETY: the first `len` bytes are initialised (see `spill`).
        unsafe { self.out.set_len(self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xorshift;

    #[test]
    fn packs_codes_lsb_first_across_growth() {
        let mut rng = xorshift(0xB175);
        for case in 0..300 {
            // Outputs that start non-empty and small, so spills cross the
            // capacity and the writer grows the vector mid-stream.
            let mut out = vec![0xA5; case % 5];
            out.shrink_to_fit();
            let mut expected: Vec<bool> = Vec::new();
            let mut w = BitWriter::new(&mut out);
            for _ in 0..rng() % 400 {
                let count = (1 + rng() % 16) as u8;
                let value = rng() & ((1u32 << count) - 1);
                w.make_room(u32::from(count));
                w.bits(value, count);
                expected.extend((0..count).map(|i| value >> i & 1 == 1));
                if rng() % 7 == 0 {
                    w.spill();
                }
            }
            w.flush();
            let bits: Vec<bool> = out[case % 5..]
                .iter()
                .flat_map(|&byte| (0..8).map(move |i| byte >> i & 1 == 1))
                .collect();
            assert_eq!(&out[..case % 5], &vec![0xA5; case % 5][..], "case {case}");
            assert_eq!(
                bits.len(),
                expected.len().next_multiple_of(8),
                "case {case}"
            );
            assert_eq!(&bits[..expected.len()], &expected[..], "case {case}");
            assert!(bits[expected.len()..].iter().all(|&b| !b), "case {case}");
        }
    }
}
