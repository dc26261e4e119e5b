//! The parse's byte-level helpers: matches and zero runs compared a word
//! at a time, positions that cannot start a match found sixteen at a time,
//! and position to (row, column) without a division.

/// Shorter matches cost more bits than their literals in these images
/// (whose literals come from a small alphabet, so their codes are short).
pub const MIN_USEFUL: usize = 4;

/// Position to (row, column) for one stride, as a multiply by the
/// reciprocal rather than a division.
pub struct RowAndColumn {
    stride: usize,
    reciprocal: u64,
}

impl RowAndColumn {
    /// Exact below 2^16 (a QR image's new scanlines are a few kilobytes):
    /// with `r = ceil(2^32 / stride)`, `c * r / 2^32` errs by less than
    /// `c / 2^32`, too little to reach the next integer.
    pub fn new(stride: usize, len: usize) -> Self {
        assert!(
            stride < 1 << 16 && len <= 1 << 16,
            "image too large for the parse"
        );
        let reciprocal = u64::from(u32::MAX) / stride as u64 + 1;
        Self { stride, reciprocal }
    }

    #[inline(always)]
    pub fn of(&self, c: usize) -> (usize, usize) {
        let row = ((c as u64 * self.reciprocal) >> 32) as usize;
        (row, c - row * self.stride)
    }
}

/// Positions `no_match_starts` settles in one step: those whose first
/// `MIN_USEFUL` bytes lie in one 16-byte word.
pub const WORD_POSITIONS: usize = 16 - (MIN_USEFUL - 1);

/// How many of the positions from `q` on (at most `WORD_POSITIONS`) cannot
/// start a match of `MIN_USEFUL` bytes that stays in the line, where the
/// candidates are those `search` tries without the chain: the byte before
/// (a run), the line above (`above`) and, below a scaled-up row (`zeros`),
/// the zeros of the Up-filter row. Sixteen bytes at a time: `q` is never a
/// line's first byte, and positions with fewer than `MIN_USEFUL` bytes left
/// in the line (`in_line`) are left to `search`, whose column match may run
/// on past it.
///
/// # Safety
/// `q >= 1`, and `q >= stride` with `above`: the positions compared with
/// are in `lines` (a check per call cost more than the loads it guards).
#[inline(always)]
pub unsafe fn no_match_starts(
    lines: &[u8],
    q: usize,
    stride: usize,
    above: bool,
    zeros: bool,
    in_line: usize,
) -> usize {
    if q + 16 > lines.len() || in_line < MIN_USEFUL {
        return 0;
    }
    use bytes16::{equal, first, four, zero};
    debug_assert!(q >= 1 && (!above || q >= stride));
    // SAFETY: `q + 16 <= lines.len()` (checked above), and the other
    // positions are before `q` and in `lines` (the caller's contract).
    let mut starts = four(unsafe { equal(lines, q, q - 1) });
    if above {
        starts |= four(unsafe { equal(lines, q, q - stride) });
        if zeros {
            starts |= four(unsafe { zero(lines, q) });
        }
    }
    let positions = (in_line - (MIN_USEFUL - 1)).min(WORD_POSITIONS);
    first(starts).min(positions)
}

mod bytes16;

/// Bit `i` set where `data[p + i] == data[r + i]`, for `i < n` (`n` at most
/// 64): sixteen bytes a compare where they are there, then byte by byte.
#[inline(always)]
pub fn equal_bits(data: &[u8], p: usize, r: usize, n: usize) -> u64 {
    debug_assert!(n <= 64);
    let mut bits = 0;
    let mut i = 0;
    #[cfg(any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ))]
    {
        // Most lines (scales 4 and 6) are 32 bytes or less: two compares,
        // the bounds checked once.
        if let (true, Some(a), Some(b)) = (n <= 32, data.get(p..p + 32), data.get(r..r + 32)) {
            let (a, b): (&[u8; 32], &[u8; 32]) = (a.try_into().unwrap(), b.try_into().unwrap());
            let halves = |x: &[u8; 32]| {
                (
                    *x.first_chunk::<16>().unwrap(),
                    *x.last_chunk::<16>().unwrap(),
                )
            };
            let ((a0, a1), (b0, b1)) = (halves(a), halves(b));
            let bits = bytes16::equal_words(&a0, &b0) | bytes16::equal_words(&a1, &b1) << 16;
            return u64::from(bits) & ((1 << n) - 1);
        }
    }
    #[cfg(any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ))]
    while i < n && p.max(r) + i + 16 <= data.len() {
        // SAFETY: 16 bytes from both, by the loop's condition.
        bits |= u64::from(unsafe { bytes16::equal(data, p + i, r + i) }) << i;
        i += 16;
    }
    while i < n {
        bits |= u64::from(data[p + i] == data[r + i]) << i;
        i += 1;
    }
    bits & low_bits(n)
}

/// The low `n` bits (`n` at most 64).
#[inline(always)]
pub fn low_bits(n: usize) -> u64 {
    u64::MAX.checked_shr(64 - n as u32).unwrap_or(0)
}

/// Bit `i` set where `data[p + i]` is zero, for `i < n` (at most 64).
#[inline(always)]
pub fn zero_bits(data: &[u8], p: usize, n: usize) -> u64 {
    debug_assert!(n <= 64);
    let mut bits = 0;
    let mut i = 0;
    #[cfg(any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ))]
    {
        if let (true, Some(a)) = (n <= 32, data.get(p..p + 32)) {
            let a: &[u8; 32] = a.try_into().unwrap();
            let (low, high) = (
                a.first_chunk::<16>().unwrap(),
                a.last_chunk::<16>().unwrap(),
            );
            let bits =
                bytes16::equal_words(low, &[0; 16]) | bytes16::equal_words(high, &[0; 16]) << 16;
            return u64::from(bits) & ((1 << n) - 1);
        }
    }
    #[cfg(any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ))]
    while i < n && p + i + 16 <= data.len() {
        // SAFETY: 16 bytes, by the loop's condition.
        bits |= u64::from(unsafe { bytes16::zero(data, p + i) }) << i;
        i += 16;
    }
    while i < n {
        bits |= u64::from(data[p + i] == 0) << i;
        i += 1;
    }
    bits & low_bits(n)
}

/// Length of the match at `p` against `p - dist`, up to `limit`; compares
/// sixteen bytes at a time, then eight near the data's end (a short tail in
/// one word, when the data allows), then bytes.
///
/// # Safety
/// `dist <= p`: the source is in `data` wherever the match is.
#[inline(always)]
pub unsafe fn match_len(data: &[u8], p: usize, dist: usize, limit: usize) -> usize {
    let word = |i: usize| u64::from_le_bytes(data[i..i + 8].try_into().unwrap());
    debug_assert!(dist <= p);
    let mut n = 0;
    while p + n + 16 <= data.len() {
        // SAFETY: 16 bytes from `p + n`, by the loop's condition, and so
        // from the source `dist <= p` bytes before (the caller's contract).
        let d = unsafe { bytes16::first_difference(data, p + n, p - dist + n) };
        if d < 16 || n + 16 >= limit {
            return (n + d).min(limit);
        }
        n += 16;
    }
    while p + n + 8 <= data.len() {
        let diff = word(p - dist + n) ^ word(p + n);
        if diff != 0 || n + 8 >= limit {
            return (n + (diff.trailing_zeros() / 8) as usize).min(limit);
        }
        n += 8;
    }
    while n < limit && data[p - dist + n] == data[p + n] {
        n += 1;
    }
    n
}

/// Number of zero bytes at `p`, up to `limit`.
#[inline(always)]
pub fn zero_run(data: &[u8], p: usize, limit: usize) -> usize {
    let mut n = 0;
    while p + n + 8 <= data.len() {
        let word = u64::from_le_bytes(data[p + n..p + n + 8].try_into().unwrap());
        if word != 0 || n + 8 >= limit {
            return (n + (word.trailing_zeros() / 8) as usize).min(limit);
        }
        n += 8;
    }
    while n < limit && data[p + n] == 0 {
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xorshift;

    #[test]
    fn row_and_column_divides_exactly() {
        for stride in (1..=300).chain([4095, 4096, 40_000, 65_535]) {
            let split = RowAndColumn::new(stride, 1 << 16);
            for c in 0..1 << 16 {
                assert_eq!(split.of(c), (c / stride, c % stride), "{c} / {stride}");
            }
        }
    }

    #[test]
    fn match_len_and_zero_run_agree_with_byte_compares() {
        let mut rng = xorshift(0x1E57);
        for case in 0..20_000 {
            // Two values, so long matches and runs are common; every length
            // of data, so each of the word loops and the byte tail is used.
            let data: Vec<u8> = (0..2 + case % 90)
                .map(|_| [0, 0x3C][rng() as usize % 2 * (rng() as usize % 8 / 7)])
                .collect();
            let p = 1 + rng() as usize % (data.len() - 1);
            let dist = 1 + rng() as usize % p;
            let limit = rng() as usize % (data.len() - p + 1);
            let equal = (0..limit)
                .take_while(|&i| data[p + i] == data[p - dist + i])
                .count();
            // SAFETY: the case's source is before `p`.
            let len = unsafe { match_len(&data, p, dist, limit) };
            assert_eq!(len, equal, "case {case}");
            let zeros = (0..limit).take_while(|&i| data[p + i] == 0).count();
            assert_eq!(zero_run(&data, p, limit), zeros, "case {case}");
        }
    }

    #[test]
    fn equal_and_zero_bits_agree_with_byte_compares() {
        let mut rng = xorshift(0xB175);
        for case in 0..20_000 {
            // Every length of data up to 140, so both the two-compare path,
            // the sixteen-byte loop and the byte tail are used.
            let data: Vec<u8> = (0..1 + case % 140)
                .map(|_| [0, 0x3C][rng() as usize % 2])
                .collect();
            let (p, r) = (rng() as usize % data.len(), rng() as usize % data.len());
            let n = (rng() as usize % 65).min(data.len() - p.max(r));
            let bits = |n: usize, f: &dyn Fn(usize) -> bool| {
                (0..n).filter(|&i| f(i)).map(|i| 1u64 << i).sum::<u64>()
            };
            let equal = bits(n, &|i| data[p + i] == data[r + i]);
            assert_eq!(
                equal_bits(&data, p, r, n),
                equal,
                "case {case}: {p} {r} {n}"
            );
            let n = n.max((rng() as usize % 65).min(data.len() - p));
            let zeros = bits(n, &|i| data[p + i] == 0);
            assert_eq!(zero_bits(&data, p, n), zeros, "case {case}: {p} {n}");
        }
    }

    #[test]
    fn no_match_starts_agrees_with_a_byte_by_byte_check() {
        let mut rng = xorshift(0x5EED);
        for case in 0..2000 {
            let stride = 2 + rng() as usize % 40;
            let rows = 1 + rng() as usize % 6;
            // Two or three byte values, so runs and equal columns are common.
            let values = 2 + case % 2;
            let lines: Vec<u8> = (0..stride * rows)
                .map(|_| [0, 0xFF, 0x3C][rng() as usize % values])
                .collect();
            let word4 = |q: usize| &lines[q..q + MIN_USEFUL];
            for k in 0..rows {
                for b in 1..stride {
                    let (q, in_line) = (k * stride + b, stride - b);
                    let (above, zeros) = (k > 0, case % 3 != 0);
                    // SAFETY: `b >= 1`; above only from the second line.
                    let n = unsafe { no_match_starts(&lines, q, stride, above, zeros, in_line) };
                    let can_start = |p: usize| {
                        word4(p - 1) == word4(p)
                            || above && word4(p - stride) == word4(p)
                            || above && zeros && word4(p).iter().all(|&x| x == 0)
                    };
                    let checked = if q + 16 > lines.len() || in_line < MIN_USEFUL {
                        0
                    } else {
                        (in_line - (MIN_USEFUL - 1)).min(WORD_POSITIONS)
                    };
                    let expected = (q..q + checked).take_while(|&p| !can_start(p)).count();
                    assert_eq!(n, expected, "case {case}, row {k}, byte {b}");
                }
            }
        }
    }
}
