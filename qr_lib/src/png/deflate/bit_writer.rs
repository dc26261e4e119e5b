//! The bit writer: deflate's codes packed LSB first.

/// LSB-first bit packing. Codes gather in a 64-bit accumulator; `spill`
/// stores all eight bytes of it unconditionally and keeps only the bits of
/// the last incomplete byte, so no branch depends on the code lengths.
pub struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    count: u32,
}

impl<'a> BitWriter<'a> {
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        Self {
            out,
            acc: 0,
            count: 0,
        }
    }

    /// Callers spill often enough that the accumulator never overflows: at
    /// most 7 bits stay after a spill, one token adds at most 48, and the
    /// token loop calls `make_room` before each.
    #[inline(always)]
    pub fn bits(&mut self, value: u32, count: u8) {
        debug_assert!(self.count + u32::from(count) <= 64);
        self.acc |= u64::from(value) << self.count;
        self.count += u32::from(count);
    }

    #[inline(always)]
    pub fn spill(&mut self) {
        let len = self.out.len();
        let bytes = self.count / 8;
        self.out.extend_from_slice(&self.acc.to_le_bytes());
        self.out.truncate(len + bytes as usize);
        // Two shifts: a shift by 64 (eight full bytes) would overflow.
        self.acc = self.acc >> (bytes * 4) >> (bytes * 4);
        self.count -= bytes * 8;
    }

    /// Spills if fewer than `bits` bits are free in the accumulator.
    #[inline(always)]
    pub fn make_room(&mut self, bits: u32) {
        if self.count + bits > 64 {
            self.spill();
        }
    }

    pub fn flush(&mut self) {
        self.spill();
        if self.count > 0 {
            self.out.push(self.acc as u8);
        }
        self.acc = 0;
        self.count = 0;
    }
}
