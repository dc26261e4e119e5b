//! Adler-32 of the scanline stream, from the new scanlines alone.

use super::UP_FILTER;
use crate::raster::Image;

/// Adler-32 of the whole scanline stream, a line at a time in closed form:
/// the new scanline from its byte sum and weighted sum, then its Up-filter
/// rows (2, then `stride - 1` zeros) from the line's `a` alone.
pub fn adler32(image: &Image) -> u32 {
    const MOD: u64 = 65_521;
    assert!(
        image.stride < 1 << 16 && image.scale < 1 << 7,
        "image too large for the deferred reduction"
    );
    let stride = image.stride as u64;
    let n = (image.scale - 1) as u64;
    let (mut a, mut b) = (1, 0);
    let lines = &image.lines[..];
    for at in (0..lines.len()).step_by(image.stride) {
        // Byte i of the line enters `b` once for each of the stride - i
        // sums from it to the line's end.
        let (sum, weighted) = line_sums(lines, at, image.stride);
        b += stride * a + weighted;
        a += sum;
        // Each Up-filter row adds 2 to `a`, then adds the new `a` to `b` once
        // per byte: over n rows, a += 2n and b += stride * (n * a + n * (n + 1)).
        b += stride * (n * a + n * (n + 1));
        a += u64::from(UP_FILTER) * n;
        // Reduced only when needed: a line adds less than 2^56 to `b` while
        // `a` is under 2^32 (strides under 2^16, scales under 2^7), so
        // neither overflows. A QR image is reduced once, at the end.
        if a >= 1 << 32 || b >= 1 << 62 {
            (a, b) = (a % MOD, b % MOD);
        }
    }
    ((b % MOD) << 16 | (a % MOD)) as u32
}

/// Lines up to this long are summed in the 16-bit lanes of a `u64` (see
/// `short_line_sums`): a QR image's are at most 33 bytes.
const SHORT_LINE: usize = 56;
// The bound that sets it: the running sums' four lanes, added up by one
// multiply, stay under 2^16 (each pair of bytes is at most 510, and the
// running sums of w words hold w(w+1)/2 of them).
const _: () = {
    let words = SHORT_LINE.div_ceil(8);
    assert!(4 * 510 * words * (words + 1) / 2 < 1 << 16);
};

/// The sum of the `len` bytes at `data[at..]` and the sum of byte i times
/// `len - i`.
fn line_sums(data: &[u8], at: usize, len: usize) -> (u64, u64) {
    if len <= SHORT_LINE {
        short_line_sums(data, at, len)
    } else {
        long_line_sums(&data[at..at + len])
    }
}

/// Eight bytes a word, in four 16-bit lanes per word (the even bytes, and
/// the odd ones shifted down): no per-byte multiply, and each total comes
/// out of its lanes with one multiply. With `w` words of `s_w` and `t_w`
/// (the bytes' sum and their sum times their index in the word), the
/// weighted sum is `len * s - 8 * sum(w * s_w) - sum(t_w)`.
fn short_line_sums(data: &[u8], at: usize, len: usize) -> (u64, u64) {
    const EVEN: u64 = 0x00FF_00FF_00FF_00FF;
    // Times these, a u64's top lane is the sum of its lanes, and the sum
    // of lane j times j.
    const SUM: u64 = 0x0001_0001_0001_0001;
    const INDEX: u64 = 0x0000_0001_0002_0003;
    debug_assert!(len <= SHORT_LINE);
    let words = len.div_ceil(8);
    // Per lane: the pairs' sum over the words (at most 510 * 7), that sum
    // after each word, summed (at most 510 * 28), and the odd bytes' sum.
    let (mut pairs, mut running, mut odd) = (0u64, 0u64, 0u64);
    let mut add = |word: u64| {
        let (e, o) = (word & EVEN, word >> 8 & EVEN);
        pairs += e + o;
        running += pairs;
        odd += o;
    };
    let line = &data[at..at + len];
    let mut full = line.chunks_exact(8);
    for word in &mut full {
        add(u64::from_le_bytes(word.try_into().unwrap()));
    }
    let rest = full.remainder().len();
    if rest > 0 {
        // One load where the buffer goes on past the line (the next line's
        // bytes masked off); a copy at the buffer's end.
        let start = at + len - rest;
        let word = match data.get(start..start + 8) {
            Some(word) => u64::from_le_bytes(word.try_into().unwrap()),
            None => {
                let mut bytes = [0; 8];
                bytes[..rest].copy_from_slice(&data[start..at + len]);
                u64::from_le_bytes(bytes)
            }
        };
        add(word & (u64::MAX >> (64 - 8 * rest)));
    }
    let top = |v: u64| v >> 48;
    let sum = top(pairs.wrapping_mul(SUM));
    // sum(w * s_w) = words * s - (the running sums' total).
    let by_word = words as u64 * sum - top(running.wrapping_mul(SUM));
    // A word's byte 2j + 1 is lane j of the odd bytes: t_w = 2 * (lane j
    // times j over both halves) + the odd bytes' sum.
    let in_word = 2 * top(pairs.wrapping_mul(INDEX)) + top(odd.wrapping_mul(SUM));
    (sum, len as u64 * sum - 8 * by_word - in_word)
}

/// Any length, in u32 lanes the compiler vectorises, 4 KiB at a time (no
/// overflow).
fn long_line_sums(line: &[u8]) -> (u64, u64) {
    let (mut sum, mut weighted) = (0u64, 0u64);
    for (c, chunk) in line.chunks(4096).enumerate() {
        let len = chunk.len() as u32;
        let (mut s, mut w) = (0u32, 0u32);
        for (i, &x) in chunk.iter().enumerate() {
            s += u32::from(x);
            w += (len - i as u32) * u32::from(x);
        }
        // Bytes after this chunk add to every weight in it.
        let after = (line.len() - c * 4096 - chunk.len()) as u64;
        weighted += after * u64::from(s) + u64::from(w);
        sum += u64::from(s);
    }
    (sum, weighted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xorshift;

    #[test]
    fn reduces_when_the_sums_grow_large() {
        // 18 MB of 0xFF: `a` passes 2^32 a few lines before the end.
        let (stride, rows, scale) = (60_000, 300, 2);
        let mut lines = vec![0xFF; stride * rows];
        for k in 0..rows {
            lines[k * stride] = 0;
        }
        let image = Image {
            size: 8 * (stride - 1),
            scale,
            stride,
            lines,
            byte_values: 1,
        };
        let (mut a, mut b) = (1u64, 0u64);
        let mut add = |x: u8| {
            a = (a + u64::from(x)) % 65_521;
            b = (b + a) % 65_521;
        };
        for line in image.lines.chunks_exact(stride) {
            line.iter().for_each(|&x| add(x));
            add(UP_FILTER);
            (1..stride).for_each(|_| add(0));
        }
        assert_eq!(adler32(&image), (b << 16 | a) as u32);
    }

    #[test]
    fn line_sums_of_every_short_and_some_long_lines() {
        let mut rng = xorshift(7);
        let lens = (0..=SHORT_LINE + 9).chain([4095, 4096, 4097, 20_000]);
        for len in lens {
            for case in 0..20 {
                // All 0xFF (the lanes' largest), then noise; a line at the
                // buffer's start, middle and end, next to other bytes.
                let byte =
                    |rng: &mut dyn FnMut() -> u32| if case == 0 { 0xFF } else { rng() as u8 };
                let before = case % 3 * 5;
                let after = [0, 3, 11][case % 3];
                let data: Vec<u8> = (0..before + len + after).map(|_| byte(&mut rng)).collect();
                let line = &data[before..before + len];
                let sum = line.iter().map(|&x| u64::from(x)).sum();
                let weighted = (line.iter().enumerate())
                    .map(|(i, &x)| (len - i) as u64 * u64::from(x))
                    .sum();
                assert_eq!(
                    line_sums(&data, before, len),
                    (sum, weighted),
                    "{len} bytes, case {case}"
                );
            }
        }
    }
}
