//! Mask penalty scores on packed rows, as the `qrcode` crate defines them.
//!
//! The crate scores each candidate module by module through boxed closures;
//! here a row is a `u128` (bit `x` = column `x`, 1 = dark) and each rule is a
//! handful of shifts, ANDs and popcounts per row. Rules and weights follow the
//! crate exactly, quirks included (its balance rule and finder-pattern rule
//! differ from ISO 18004), so the chosen mask is the crate's.

use std::ops::{Add, AddAssign, BitAnd, BitOr, BitXor, Mul, Not, Shl, Shr};

/// A packed row: `u64` for symbols up to 64 modules wide (version 11), `u128`
/// above; the rules below are the same shifts and ANDs on either (and on the
/// SIMD rows of `lanes`, where the target has them).
pub trait Row:
    Copy
    + Eq
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<usize, Output = Self>
    + Shr<usize, Output = Self>
{
    /// The penalty of each candidate the row holds.
    type Score: Score;
    fn zero() -> Self;
    /// The low `n` bits set.
    fn low_bits(n: usize) -> Self;
    /// Set bits, per candidate.
    fn count(self) -> Self::Score;
}

/// Penalty totals, one per candidate in a row: `u32` for one.
pub trait Score: Copy + Add<Output = Self> + AddAssign + Mul<u32, Output = Self> {
    fn zero() -> Self;
    /// Every candidate's total is at least `bound`.
    fn reaches(self, bound: u32) -> bool;
    /// The crate's balance rule, from each candidate's dark-module count.
    fn balance(dark: Self, modules: u32) -> Self;
}

impl Score for u32 {
    #[inline(always)]
    fn zero() -> Self {
        0
    }
    #[inline(always)]
    fn reaches(self, bound: u32) -> bool {
        self >= bound
    }
    #[inline(always)]
    fn balance(dark: Self, modules: u32) -> Self {
        (dark * 200 / modules).abs_diff(100)
    }
}

macro_rules! impl_row {
    ($($t:ty),*) => {$(
        impl Row for $t {
            type Score = u32;
            #[inline(always)]
            fn zero() -> Self {
                0
            }
            #[inline(always)]
            fn low_bits(n: usize) -> Self {
                <$t>::MAX.checked_shr(<$t>::BITS - n as u32).unwrap_or(0)
            }
            #[inline(always)]
            fn count(self) -> u32 {
                self.count_ones()
            }
        }
    )*};
}

impl_row!(u64, u128);

/// Rows in 128-bit SIMD registers (SSE2 on x86-64, SIMD128 on Wasm built
/// with it), where each 64-bit lane shifts on its own.
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
mod lanes;
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
use lanes::{PairRow, SplitRow};

/// The index of the first of `candidates` with the lowest penalty, where
/// candidate `i` is `masked[i]` XOR `data`, rows of `width` modules.
///
/// The rules are mostly popcounts. x86-64's baseline has no POPCNT
/// instruction, so where the CPU has one, the same code is compiled a second
/// time with it enabled and chosen at run time (`lowest_penalty_portable` is
/// its scalar twin; a test holds the two equal).
pub fn lowest_penalty(masked: &[Vec<u128>], data: &[u128], width: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has POPCNT, checked just above.
        return unsafe { lowest_penalty_popcnt(masked, data, width) };
    }
    lowest_penalty_portable(masked, data, width)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn lowest_penalty_popcnt(masked: &[Vec<u128>], data: &[u128], width: usize) -> usize {
    lowest_penalty_portable(masked, data, width)
}

/// Everything below is `inline(always)`, so that it is compiled into
/// `lowest_penalty_popcnt` with POPCNT rather than shared with this one.
#[inline(always)]
fn lowest_penalty_portable(masked: &[Vec<u128>], data: &[u128], width: usize) -> usize {
    if width <= 64 {
        #[cfg(any(
            target_arch = "x86_64",
            all(target_arch = "wasm32", target_feature = "simd128")
        ))]
        return lowest_penalty_in_pairs(masked, data, width);
        #[cfg(not(any(
            target_arch = "x86_64",
            all(target_arch = "wasm32", target_feature = "simd128")
        )))]
        return lowest_penalty_in(&mut [0u64; 64][..width], masked, data, |row| row as u64);
    }
    #[cfg(any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ))]
    if width <= SplitRow::MAX_WIDTH {
        let rows = &mut [SplitRow::zero(); SplitRow::MAX_WIDTH][..width];
        return lowest_penalty_in(rows, masked, data, SplitRow::from_row);
    }
    lowest_penalty_in(&mut [0u128; 128][..width], masked, data, |row| row)
}

/// `lowest_penalty` with each candidate built in `rows`, narrowed to `R`.
#[inline(always)]
fn lowest_penalty_in<R: Row<Score = u32>>(
    rows: &mut [R],
    masked: &[Vec<u128>],
    data: &[u128],
    narrow: impl Fn(u128) -> R,
) -> usize {
    let width = rows.len();
    let mut best: Option<(u32, usize)> = None;
    for (i, mask) in masked.iter().enumerate() {
        for ((r, m), d) in rows.iter_mut().zip(mask).zip(data) {
            *r = narrow(m ^ d);
        }
        let bound = best.map_or(u32::MAX, |(s, _)| s);
        if let Some(score) = penalty_below(rows, width, bound) {
            best = Some((score, i));
        }
    }
    best.expect("at least one candidate").1
}

/// `lowest_penalty` for rows of up to 64 modules, two candidates at a time.
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
#[inline(always)]
fn lowest_penalty_in_pairs(masked: &[Vec<u128>], data: &[u128], width: usize) -> usize {
    assert!(masked.len() % 2 == 0, "candidates come in pairs");
    let rows = &mut [PairRow::zero(); 64][..width];
    let mut best: Option<(u32, usize)> = None;
    for (pair, masks) in masked.chunks_exact(2).enumerate() {
        let rows_of = masks[0].iter().zip(&masks[1]).zip(data);
        for (r, ((first, second), d)) in rows.iter_mut().zip(rows_of) {
            *r = PairRow::from_rows((first ^ d) as u64, (second ^ d) as u64);
        }
        let bound = best.map_or(u32::MAX, |(s, _)| s);
        // Dropped only when both reach the bound; either may still lose.
        if let Some(totals) = penalty_below(rows, width, bound) {
            for (lane, total) in totals.totals().into_iter().enumerate() {
                if best.is_none_or(|(s, _)| total < s) {
                    best = Some((total, 2 * pair + lane));
                }
            }
        }
    }
    best.expect("at least one candidate").1
}

/// The penalty if it is below `bound`, else `None`: every rule adds, so a
/// candidate is dropped as soon as its running total reaches the best
/// one's (a later candidate wins only when strictly lower). The row rules,
/// the vertical runs and the 2x2 blocks share one pass over the rows.
/// With two candidates in a row, `None` only when both reach `bound`.
#[inline(always)]
fn penalty_below<R: Row>(rows: &[R], width: usize, bound: u32) -> Option<R::Score> {
    let full = R::low_bits(width);
    let mut score = R::Score::zero();
    let mut dark = R::Score::zero();
    // `same_down[i]`: modules equal to the one below, for the last three
    // row pairs; `windows`: the vertical run windows of the previous row.
    let mut same_down = [R::zero(); 3];
    let mut windows = R::zero();
    let mut right_above = R::zero();
    for (y, &row) in rows.iter().enumerate() {
        let right = same_as_right(row, width);
        score += runs_cost(right & right >> 1 & right >> 2 & right >> 3);
        score += finder_penalty(row, width);
        dark += row.count();
        if y > 0 {
            // Pair (y - 1, y): 2x2 blocks, and the vertical run window that
            // ends with it.
            let down = !(rows[y - 1] ^ row) & full;
            score += (right_above & right & down).count() * 3;
            if y >= 4 {
                let w = same_down[0] & same_down[1] & same_down[2] & down;
                score += w.count() + (w & !windows).count() * 2;
                windows = w;
            }
            same_down = [same_down[1], same_down[2], down];
        }
        right_above = right;
        if score.reaches(bound) {
            return None;
        }
    }
    score += vertical_finder_penalty(rows, width);
    score += R::Score::balance(dark, (width * width) as u32);
    (!score.reaches(bound)).then_some(score)
}

/// Bit `x` set where module `x` has the colour of module `x + 1`.
#[inline(always)]
fn same_as_right<R: Row>(row: R, width: usize) -> R {
    !(row ^ row >> 1) & R::low_bits(width - 1)
}

/// A run of `len >= 5` same-colour modules costs `len - 2`. It holds `len - 4`
/// five-module windows (four equal neighbours in a row), and one window that
/// starts it: so the cost is windows + 2 per run start. A dark and a light
/// run never share a window, so both colours are counted at once.
#[inline(always)]
fn runs_cost<R: Row>(windows: R) -> R::Score {
    windows.count() + (windows & !(windows << 1)).count() * 2
}

/// 40 for each dark-light-dark-dark-dark-light-dark run with four light (or
/// outside) modules on at least one side.
#[inline(always)]
fn finder_penalty<R: Row>(row: R, width: usize) -> R::Score {
    let light = !row & R::low_bits(width);
    let pattern = row
        & light >> 1
        & row >> 2
        & row >> 3
        & row >> 4
        & light >> 5
        & row >> 6
        & R::low_bits(width - 6);
    if pattern == R::zero() {
        return R::Score::zero();
    }
    let dark_before = row << 1 | row << 2 | row << 3 | row << 4;
    let dark_after = row >> 7 | row >> 8 | row >> 9 | row >> 10;
    (pattern & !(dark_before & dark_after)).count() * 40
}

#[inline(always)]
fn vertical_finder_penalty<R: Row>(rows: &[R], width: usize) -> R::Score {
    let full = R::low_bits(width);
    let at = |y: isize| {
        if (0..rows.len() as isize).contains(&y) {
            rows[y as usize]
        } else {
            R::zero()
        }
    };
    let mut score = R::Score::zero();
    for y in 0..rows.len().saturating_sub(6) {
        let pattern = rows[y]
            & !rows[y + 1]
            & rows[y + 2]
            & rows[y + 3]
            & rows[y + 4]
            & !rows[y + 5]
            & rows[y + 6]
            & full;
        if pattern == R::zero() {
            continue;
        }
        let y = y as isize;
        let dark_before = at(y - 1) | at(y - 2) | at(y - 3) | at(y - 4);
        let dark_after = at(y + 7) | at(y + 8) | at(y + 9) | at(y + 10);
        score += (pattern & !(dark_before & dark_after)).count() * 40;
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Straightforward per-module versions of the crate's rules, to check the
    /// bit tricks against.
    fn naive_runs(grid: &[Vec<bool>]) -> u32 {
        let mut score = 0;
        for line in grid {
            let mut len = 1;
            for i in 1..=line.len() {
                if i < line.len() && line[i] == line[i - 1] {
                    len += 1;
                } else {
                    if len >= 5 {
                        score += len - 2;
                    }
                    len = 1;
                }
            }
        }
        score
    }

    fn naive_finder(grid: &[Vec<bool>]) -> u32 {
        const PATTERN: [bool; 7] = [true, false, true, true, true, false, true];
        let mut score = 0;
        for line in grid {
            let n = line.len() as isize;
            let dark = |k: isize| (0..n).contains(&k) && line[k as usize];
            for j in 0..n - 6 {
                if (0..7).all(|k| line[(j + k) as usize] == PATTERN[k as usize])
                    && (!(j - 4..j).any(dark) || !(j + 7..j + 11).any(dark))
                {
                    score += 40;
                }
            }
        }
        score
    }

    fn transpose(grid: &[Vec<bool>]) -> Vec<Vec<bool>> {
        (0..grid.len())
            .map(|x| grid.iter().map(|row| row[x]).collect())
            .collect()
    }

    fn pack(grid: &[Vec<bool>]) -> Vec<u128> {
        grid.iter()
            .map(|row| {
                row.iter()
                    .enumerate()
                    .fold(0, |r, (x, &d)| r | u128::from(d) << x)
            })
            .collect()
    }

    /// xorshift, so the test needs no rand crate and is repeatable.
    fn grids(count: usize) -> impl Iterator<Item = Vec<Vec<bool>>> {
        let mut state = 0x2545F4914F6CDD1Du64;
        (0..count).map(move |i| {
            let width = [21, 25, 45, 64, 65, 85, 114, 125][i % 8];
            (0..width)
                .map(|_| {
                    (0..width)
                        .map(|_| {
                            state ^= state << 13;
                            state ^= state >> 7;
                            state ^= state << 17;
                            // Biased and clumpy, so long runs and finder-like patterns occur.
                            state % 7 < 3 || (i % 3 == 0 && state % 5 == 0)
                        })
                        .collect()
                })
                .collect()
        })
    }

    /// 3 for each 2x2 block of one colour.
    fn naive_blocks(grid: &[Vec<bool>]) -> u32 {
        let n = grid.len();
        let mut score = 0;
        for y in 1..n {
            for x in 1..n {
                let c = grid[y][x];
                if grid[y - 1][x] == c && grid[y][x - 1] == c && grid[y - 1][x - 1] == c {
                    score += 3;
                }
            }
        }
        score
    }

    /// The crate's balance rule: |dark share in half-percent - 100|.
    fn naive_balance(grid: &[Vec<bool>]) -> u32 {
        let dark = grid.iter().flatten().filter(|&&d| d).count() as u32;
        let total = (grid.len() * grid.len()) as u32;
        (dark * 200 / total).abs_diff(100)
    }

    fn naive_penalty(grid: &[Vec<bool>]) -> u32 {
        let columns = transpose(grid);
        naive_runs(grid)
            + naive_runs(&columns)
            + naive_finder(grid)
            + naive_finder(&columns)
            + naive_blocks(grid)
            + naive_balance(grid)
    }

    fn check_against_naive<R: Row<Score = u32>>(grid: &[Vec<bool>], rows: &[R]) {
        let width = grid.len();
        assert_eq!(
            rows.iter().map(|&r| finder_penalty(r, width)).sum::<u32>(),
            naive_finder(grid)
        );
        assert_eq!(
            vertical_finder_penalty(rows, width),
            naive_finder(&transpose(grid))
        );
        let total = naive_penalty(grid);
        assert_eq!(penalty_below(rows, width, u32::MAX), Some(total));
        // Below the bound: the score; at or above it: dropped.
        assert_eq!(penalty_below(rows, width, total + 1), Some(total));
        assert_eq!(penalty_below(rows, width, total), None);
        assert_eq!(penalty_below(rows, width, total / 2), None);
    }

    /// Two grids of one width as one pair of candidates.
    #[cfg(any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ))]
    fn check_pair_against_naive(grid: &[Vec<bool>], other: &[Vec<bool>]) {
        let width = grid.len();
        let rows: Vec<PairRow> = pack(grid)
            .iter()
            .zip(pack(other))
            .map(|(&first, second)| PairRow::from_rows(first as u64, second as u64))
            .collect();
        let totals = [naive_penalty(grid), naive_penalty(other)];
        let scored = |bound| penalty_below(&rows, width, bound).map(|p| p.totals());
        assert_eq!(scored(u32::MAX), Some(totals));
        // Dropped only once both totals reach the bound.
        let (low, high) = (totals[0].min(totals[1]), totals[0].max(totals[1]));
        assert_eq!(scored(low), None);
        if low < high {
            assert_eq!(scored(high).map(|t| t.contains(&low)), Some(true));
        }
    }

    #[test]
    fn penalties_match_the_naive_rules() {
        let all: Vec<_> = grids(240).collect();
        for (i, grid) in all.iter().enumerate() {
            let rows = pack(grid);
            check_against_naive(grid, &rows);
            if grid.len() <= 64 {
                let narrow: Vec<u64> = rows.iter().map(|&r| r as u64).collect();
                check_against_naive(grid, &narrow);
            }
            // The next grid of this width (the widths repeat every 8).
            #[cfg(any(
                target_arch = "x86_64",
                all(target_arch = "wasm32", target_feature = "simd128")
            ))]
            if let Some(other) = all.get(i + 8).filter(|_| grid.len() <= 64) {
                check_pair_against_naive(grid, other);
            }
            #[cfg(any(
                target_arch = "x86_64",
                all(target_arch = "wasm32", target_feature = "simd128")
            ))]
            if grid.len() > 64 && grid.len() <= SplitRow::MAX_WIDTH {
                let split: Vec<SplitRow> = rows.iter().map(|&r| SplitRow::from_row(r)).collect();
                check_against_naive(grid, &split);
            }
        }
    }

    #[test]
    fn both_builds_choose_the_first_lowest_penalty() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for case in 0..300 {
            let width = 21 + 4 * (case % 25);
            let mut row = || {
                let bits = u128::from(next()) << 64 | u128::from(next());
                // Every fourth case sparse, for long runs and near ties.
                let bits = if case % 4 == 0 {
                    bits & u128::from(next())
                } else {
                    bits
                };
                bits & u128::low_bits(width)
            };
            let masked: Vec<Vec<u128>> = (0..8)
                .map(|_| (0..width).map(|_| row()).collect())
                .collect();
            let data: Vec<u128> = (0..width).map(|_| row()).collect();
            // Every candidate scored in full, without the early drop.
            let scores: Vec<u32> = masked
                .iter()
                .map(|mask| {
                    let rows: Vec<u128> = mask.iter().zip(&data).map(|(m, d)| m ^ d).collect();
                    penalty_below(&rows, width, u32::MAX).unwrap()
                })
                .collect();
            let first_lowest = (0..8).min_by_key(|&i| (scores[i], i)).unwrap();
            assert_eq!(lowest_penalty(&masked, &data, width), first_lowest);
            assert_eq!(
                lowest_penalty_portable(&masked, &data, width),
                first_lowest,
                "width {width}"
            );
            // Ties: copies of the winner after it (in its pair and in later
            // pairs) lose to it; a copy just before it wins.
            let winner = &masked[first_lowest];
            let mut tied = masked.clone();
            for later in tied.iter_mut().skip(first_lowest + 1).step_by(2) {
                later.clone_from(winner);
            }
            assert_eq!(lowest_penalty(&tied, &data, width), first_lowest);
            if let Some(before) = first_lowest.checked_sub(1) {
                tied[before].clone_from(winner);
                assert_eq!(lowest_penalty(&tied, &data, width), before);
                assert_eq!(lowest_penalty_portable(&tied, &data, width), before);
            }
        }
    }

    #[test]
    fn naive_blocks_and_balance() {
        // 3x3 all dark: four 2x2 blocks; 9 of 9 dark.
        let dark = vec![vec![true; 3]; 3];
        assert_eq!(naive_blocks(&dark), 12);
        assert_eq!(naive_balance(&dark), 100);
        // Checkerboard: no blocks, half dark.
        let checkers: Vec<Vec<bool>> = (0..4)
            .map(|y| (0..4).map(|x| (x + y) % 2 == 0).collect())
            .collect();
        assert_eq!(naive_blocks(&checkers), 0);
        assert_eq!(naive_balance(&checkers), 0);
    }
}
