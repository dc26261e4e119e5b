//! Adler-32 of the scanline stream, from the new scanlines alone.

use super::UP_FILTER;
use crate::raster::Image;

/// Adler-32 of the whole scanline stream in closed form. With `K` new
/// scanlines of `S` bytes, `n = scale - 1` Up-filter rows after each (a 2,
/// then zeros) and `M = K * S * (1 + n)` bytes in all, byte `x` at column
/// `i` of line `k` stands at `t = k * S * (1 + n) + i` and adds `x` to `a`
/// and `(M - t) * x` to `b`; the filter bytes likewise. So three totals of
/// the new scanlines settle it: their sum, each byte times its column, and
/// each byte times its line (see `Totals`).
pub fn adler32(image: &Image) -> u32 {
    const MOD: u128 = 65_521;
    let (stride, lines) = (image.stride, &image.lines[..]);
    let t = totals(lines, stride);
    let (s, k) = (stride as u128, (lines.len() / stride) as u128);
    let n = (image.scale - 1) as u128;
    let block = s * (1 + n);
    let m = k * block;
    let filters = u128::from(UP_FILTER);
    let a = 1 + u128::from(t.sum) + filters * n * k;
    // b = M (the initial a, once per byte) + each byte's weight, the
    // subtracted parts apart so that nothing goes below zero.
    let plus = m + m * u128::from(t.sum) + filters * n * k * m;
    let minus = block * u128::from(t.by_line)
        + u128::from(t.by_column)
        + filters * (block * n * (k * k.saturating_sub(1) / 2) + s * k * (n * (n + 1) / 2));
    let b = (plus - minus) % MOD;
    ((b << 16) | (a % MOD)) as u32
}

/// The new scanlines' totals: bytes, bytes times their column, bytes times
/// their line.
#[derive(Debug, PartialEq)]
struct Totals {
    sum: u64,
    by_column: u64,
    by_line: u64,
}

fn totals(lines: &[u8], stride: usize) -> Totals {
    assert!(stride > 0 && lines.len() % stride == 0);
    #[cfg(any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ))]
    if lanes::fits(lines, stride) {
        return lanes::totals(lines, stride);
    }
    portable_totals(lines, stride)
}

/// A line at a time, from its sum and weighted sum (`line_sums`).
fn portable_totals(lines: &[u8], stride: usize) -> Totals {
    let mut t = Totals {
        sum: 0,
        by_column: 0,
        by_line: 0,
    };
    for (k, at) in (0..lines.len()).step_by(stride).enumerate() {
        let (sum, weighted) = line_sums(lines, at, stride);
        t.sum += sum;
        // Byte i weighs `stride - i` in `weighted`.
        t.by_column += stride as u64 * sum - weighted;
        t.by_line += k as u64 * sum;
    }
    t
}

/// Sixteen bytes a step in SIMD lanes (SSE2, or Wasm SIMD128 where built
/// with it): each line's sum by `psadbw`, its bytes times their columns by
/// `pmaddwd` (and their Wasm twins), and no reduction to a scalar until
/// the image's end.
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
mod lanes {
    use super::Totals;

    /// Lines of up to three steps, as a QR image's are (27 to 38 bytes),
    /// and few enough bytes that no 32-bit lane overflows: columns times
    /// bytes stay under 2^14 * 47 * 255 < 2^31, and on Wasm, whose line
    /// sums times lines are 32-bit lanes too, under 1,638^2 / 2 * 3 * 4 *
    /// 255 < 2^32 (at most 1,638 lines of 10 bytes). Every line but the
    /// last reads its last step past its end, into the next line: at
    /// least 10 bytes, more than a step's 6 spare ones at that stride.
    pub fn fits(lines: &[u8], stride: usize) -> bool {
        (10..=48).contains(&stride) && lines.len() <= 1 << 14
    }

    /// The bytes of a line's last step that are its own: `KEEP[16 - n..]`
    /// for `n` bytes.
    const KEEP: [u8; 32] = [
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];

    pub fn totals(lines: &[u8], stride: usize) -> Totals {
        match stride.div_ceil(16) {
            1 => totals_in::<1>(lines, stride),
            2 => totals_in::<2>(lines, stride),
            _ => totals_in::<3>(lines, stride),
        }
    }

    /// Lines of `STEPS` sixteen-byte steps, the last one masked to the
    /// line's own bytes: one build per step count, each unrolled.
    fn totals_in<const STEPS: usize>(lines: &[u8], stride: usize) -> Totals {
        let keep = &KEEP[16 * STEPS - stride..][..16];
        let rows = lines.len() / stride;
        let mut acc = simd::Acc::<STEPS>::new(keep);
        // Every line but the last reads its last step from the buffer
        // (bytes of the next line, masked off); the last from a copy.
        for k in 0..rows.saturating_sub(1) {
            acc.line(&lines[k * stride..][..16 * STEPS], k as u32);
        }
        if rows > 0 {
            let mut last = [0u8; 48];
            last[..stride].copy_from_slice(&lines[(rows - 1) * stride..]);
            acc.line(&last[..16 * STEPS], rows as u32 - 1);
        }
        acc.totals()
    }

    #[cfg(target_arch = "x86_64")]
    mod simd {
        use std::arch::x86_64::*;

        use super::super::Totals;

        pub struct Acc<const STEPS: usize> {
            /// Sums, in the low halves of two u64 lanes.
            sum: __m128i,
            /// Bytes times columns, in four i32 lanes.
            by_column: __m128i,
            /// Line sums times lines, in two u64 lanes.
            by_line: __m128i,
            /// The last step's own bytes.
            keep: __m128i,
            /// Each step's columns, as 16-bit lanes: bytes 0-7, then 8-15.
            columns: [(__m128i, __m128i); STEPS],
        }

        fn load(bytes: &[u8]) -> __m128i {
            let bytes: &[u8; 16] = bytes[..16].try_into().unwrap();
            // SAFETY: 16 readable bytes; SSE2 is in every x86-64 CPU.
            unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
        }

        // SAFETY (every `unsafe` below): SSE2 is in every x86-64 CPU.
        impl<const STEPS: usize> Acc<STEPS> {
            pub fn new(keep: &[u8]) -> Self {
                let zero = unsafe { _mm_setzero_si128() };
                let columns = std::array::from_fn(|step| unsafe {
                    let low = _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7);
                    let low = _mm_add_epi16(low, _mm_set1_epi16(16 * step as i16));
                    (low, _mm_add_epi16(low, _mm_set1_epi16(8)))
                });
                Self {
                    sum: zero,
                    by_column: zero,
                    by_line: zero,
                    keep: load(keep),
                    columns,
                }
            }

            #[inline(always)]
            pub fn line(&mut self, line: &[u8], k: u32) {
                let line = &line[..16 * STEPS];
                unsafe {
                    let zero = _mm_setzero_si128();
                    let mut sum = zero;
                    for (step, &(low, high)) in self.columns.iter().enumerate() {
                        let mut v = load(&line[16 * step..]);
                        if step == STEPS - 1 {
                            v = _mm_and_si128(v, self.keep);
                        }
                        sum = _mm_add_epi64(sum, _mm_sad_epu8(v, zero));
                        let products = _mm_add_epi32(
                            _mm_madd_epi16(_mm_unpacklo_epi8(v, zero), low),
                            _mm_madd_epi16(_mm_unpackhi_epi8(v, zero), high),
                        );
                        self.by_column = _mm_add_epi32(self.by_column, products);
                    }
                    self.sum = _mm_add_epi64(self.sum, sum);
                    let by_line = _mm_mul_epu32(sum, _mm_set1_epi32(k as i32));
                    self.by_line = _mm_add_epi64(self.by_line, by_line);
                }
            }

            pub fn totals(&self) -> Totals {
                let u64s = |v: __m128i| -> u64 {
                    let [low, high]: [u64; 2] = unsafe { std::mem::transmute(v) };
                    low + high
                };
                let lanes: [u32; 4] = unsafe { std::mem::transmute(self.by_column) };
                Totals {
                    sum: u64s(self.sum),
                    by_column: lanes.iter().map(|&l| u64::from(l)).sum(),
                    by_line: u64s(self.by_line),
                }
            }
        }
    }

    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    mod simd {
        use std::arch::wasm32::*;

        use super::super::Totals;

        pub struct Acc<const STEPS: usize> {
            /// Sums, in four u32 lanes.
            sum: v128,
            /// Bytes times columns, in four i32 lanes.
            by_column: v128,
            /// Line sums times lines, in four u32 lanes.
            by_line: v128,
            /// The last step's own bytes.
            keep: v128,
            /// Each step's columns, as 16-bit lanes: bytes 0-7, then 8-15.
            columns: [(v128, v128); STEPS],
        }

        fn load(bytes: &[u8]) -> v128 {
            let bytes: &[u8; 16] = bytes[..16].try_into().unwrap();
            // SAFETY: 16 readable bytes; Wasm loads need no alignment.
            unsafe { v128_load(bytes.as_ptr().cast()) }
        }

        impl<const STEPS: usize> Acc<STEPS> {
            pub fn new(keep: &[u8]) -> Self {
                let columns = std::array::from_fn(|step| {
                    let low = u16x8(0, 1, 2, 3, 4, 5, 6, 7);
                    let low = i16x8_add(low, u16x8_splat(16 * step as u16));
                    (low, i16x8_add(low, u16x8_splat(8)))
                });
                Self {
                    sum: u32x4_splat(0),
                    by_column: u32x4_splat(0),
                    by_line: u32x4_splat(0),
                    keep: load(keep),
                    columns,
                }
            }

            #[inline(always)]
            pub fn line(&mut self, line: &[u8], k: u32) {
                let line = &line[..16 * STEPS];
                let mut sum = u32x4_splat(0);
                for (step, &(low, high)) in self.columns.iter().enumerate() {
                    let mut v = load(&line[16 * step..]);
                    if step == STEPS - 1 {
                        v = v128_and(v, self.keep);
                    }
                    let pairs = u16x8_extadd_pairwise_u8x16(v);
                    sum = i32x4_add(sum, u32x4_extadd_pairwise_u16x8(pairs));
                    // Byte times column fits 16 bits (255 * 47). Not
                    // `i32x4_dot_i16x8` of the widened bytes: LLVM 22
                    // crashes compiling that (rustc 1.95, opt-level 3).
                    let products = i32x4_add(
                        u32x4_extadd_pairwise_u16x8(i16x8_mul(u16x8_extend_low_u8x16(v), low)),
                        u32x4_extadd_pairwise_u16x8(i16x8_mul(u16x8_extend_high_u8x16(v), high)),
                    );
                    self.by_column = i32x4_add(self.by_column, products);
                }
                self.sum = i32x4_add(self.sum, sum);
                self.by_line = i32x4_add(self.by_line, i32x4_mul(sum, u32x4_splat(k)));
            }

            pub fn totals(&self) -> Totals {
                let add = |v: v128| {
                    let lanes = [
                        u32x4_extract_lane::<0>(v),
                        u32x4_extract_lane::<1>(v),
                        u32x4_extract_lane::<2>(v),
                        u32x4_extract_lane::<3>(v),
                    ];
                    lanes.iter().map(|&l| u64::from(l)).sum()
                };
                Totals {
                    sum: add(self.sum),
                    by_column: add(self.by_column),
                    by_line: add(self.by_line),
                }
            }
        }
    }
}

/// Lines up to this long are summed in the 16-bit lanes of a `u64` (see
/// `short_line_sums`), the fallback where the lanes do not run.
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

    /// Adler-32 of the stream `image` stands for, a byte at a time.
    fn byte_by_byte(image: &Image) -> u32 {
        let (mut a, mut b) = (1u64, 0u64);
        let mut add = |x: u8| {
            a = (a + u64::from(x)) % 65_521;
            b = (b + a) % 65_521;
        };
        for line in image.lines.chunks_exact(image.stride) {
            line.iter().for_each(|&x| add(x));
            for _ in 1..image.scale {
                add(UP_FILTER);
                (1..image.stride).for_each(|_| add(0));
            }
        }
        (b << 16 | a) as u32
    }

    #[test]
    fn closed_form_matches_byte_by_byte() {
        let mut rng = xorshift(0xAD1E);
        for case in 0..3000 {
            // Strides in and out of the lanes' range, up to 200 lines.
            let stride = 1 + rng() as usize % 70;
            let rows = rng() as usize % 200;
            let scale = 1 + rng() as usize % 9;
            // All 0xFF (the lanes' largest), two values, noise.
            let lines: Vec<u8> = (0..stride * rows)
                .map(|_| match case % 3 {
                    0 => 0xFF,
                    1 => [0, 0xFF][rng() as usize % 2],
                    _ => rng() as u8,
                })
                .collect();
            let image = Image::of_lines(8 * stride, scale, stride, lines, 256);
            assert_eq!(adler32(&image), byte_by_byte(&image), "case {case}");
            assert_eq!(
                totals(&image.lines, stride),
                portable_totals(&image.lines, stride),
                "case {case}"
            );
        }
    }

    #[test]
    fn the_largest_sums_in_the_lanes_and_the_fallback() {
        // All 0xFF: 18 MB (totals far past 2^32, lines past the lanes), and
        // the most lines of the narrowest and the widest stride the lanes take.
        for (stride, rows) in [(60_000, 300), (10, (1 << 14) / 10), (48, (1 << 14) / 48)] {
            let lines = vec![0xFF; stride * rows];
            let image = Image::of_lines(8 * stride, 3, stride, lines, 1);
            assert_eq!(adler32(&image), byte_by_byte(&image), "stride {stride}");
        }
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
