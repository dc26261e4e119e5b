//! Adler-32 of the scanline stream, from the new scanlines alone.

use super::UP_FILTER;
use crate::raster::Image;

/// Adler-32 of the whole scanline stream, a line at a time in closed form:
/// the new scanline from its byte sum and weighted sum, then its Up-filter
/// rows (2, then `stride - 1` zeros) from the line's `a` alone.
pub fn adler32(image: &Image) -> u32 {
    const MOD: u64 = 65_521;
    let stride = image.stride as u64;
    let n = (image.scale - 1) as u64;
    let (mut a, mut b) = (1, 0);
    for line in image.lines.chunks_exact(image.stride) {
        // Byte i of the line enters `b` once for each of the stride - i
        // sums from it to the line's end.
        let (sum, weighted) = line_sums(line);
        b += stride * a + weighted;
        a += sum;
        // Each Up-filter row adds 2 to `a`, then adds the new `a` to `b` once
        // per byte: over n rows, a += 2n and b += stride * (n * a + n * (n + 1)).
        b += stride * (n * a + n * (n + 1));
        a += u64::from(UP_FILTER) * n;
        (a, b) = (a % MOD, b % MOD);
    }
    (b << 16 | a) as u32
}

/// The sum of `line`'s bytes and the sum of byte i times `line.len() - i`,
/// in u32 lanes the compiler vectorises, 4 KiB at a time (no overflow).
pub fn line_sums(line: &[u8]) -> (u64, u64) {
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
    fn line_sums_of_long_lines() {
        let mut rng = xorshift(7);
        for len in [0, 1, 8, 4095, 4096, 4097, 20_000] {
            let line: Vec<u8> = (0..len).map(|_| rng() as u8 | 0xF0).collect();
            let sum = line.iter().map(|&x| u64::from(x)).sum();
            let weighted = (line.iter().enumerate())
                .map(|(i, &x)| (len - i) as u64 * u64::from(x))
                .sum();
            assert_eq!(line_sums(&line), (sum, weighted), "{len} bytes");
        }
    }
}
