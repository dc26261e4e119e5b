//! Each optimised penalty held to a module-by-module reference.

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

/// The grids' widths, in turn: each row type's narrowest and widest.
const WIDTHS: [usize; 10] = [21, 25, 29, 32, 45, 64, 65, 85, 114, 125];

/// xorshift, so the test needs no rand crate and is repeatable.
fn grids(count: usize) -> impl Iterator<Item = Vec<Vec<bool>>> {
    let mut state = 0x2545F4914F6CDD1Du64;
    (0..count).map(move |i| {
        let width = WIDTHS[i % WIDTHS.len()];
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

/// `N` grids of one width as the lanes of one row type (`group` makes a
/// row from the grids' packed rows, `totals` reads the lanes' scores).
fn check_group_against_naive<R: Row, const N: usize>(
    grids: [&[Vec<bool>]; N],
    group: impl Fn([u128; N]) -> R,
    totals: impl Fn(R::Score) -> [u32; N],
) {
    let width = grids[0].len();
    let packed = grids.map(pack);
    let rows: Vec<R> = (0..width)
        .map(|y| group(packed.each_ref().map(|p| p[y])))
        .collect();
    let expected = grids.map(naive_penalty);
    let scored = |bound| penalty_below(&rows, width, bound).map(&totals);
    assert_eq!(scored(u32::MAX), Some(expected), "width {width}");
    // Dropped only once every total reaches the bound.
    let (low, high) = (
        *expected.iter().min().unwrap(),
        *expected.iter().max().unwrap(),
    );
    assert_eq!(scored(low), None);
    if low < high {
        assert_eq!(scored(high).map(|t| t.contains(&low)), Some(true));
    }
}

/// The next `N` grids of grid `i`'s width (the widths repeat every `n`).
fn same_width<const N: usize>(
    all: &[Vec<Vec<bool>>],
    i: usize,
    n: usize,
) -> Option<[&[Vec<bool>]; N]> {
    (i + (N - 1) * n < all.len()).then(|| std::array::from_fn(|k| &all[i + k * n][..]))
}

/// The AVX2 rows, each with as many grids of one width as it holds.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
unsafe fn check_wide_against_naive(all: &[Vec<Vec<bool>>], i: usize, n: usize) {
    use super::wide::{Oct, OctRow, Quad64, QuadRow64, SplitPair, SplitPairRow};
    let width = all[i].len();
    if let Some(eight) = same_width::<8>(all, i, n).filter(|_| width <= OctRow::MAX_WIDTH) {
        let oct = |rows: [u128; 8]| OctRow::from_rows(rows.map(|r| r as u32));
        check_group_against_naive(eight, oct, Oct::totals);
    }
    if let Some(four) = same_width::<4>(all, i, n).filter(|_| width <= 64) {
        let quad = |rows: [u128; 4]| QuadRow64::from_rows(rows.map(|r| r as u64));
        check_group_against_naive(four, quad, Quad64::totals);
    }
    if let Some(two) =
        same_width::<2>(all, i, n).filter(|_| width > 64 && width <= SplitRow::MAX_WIDTH)
    {
        check_group_against_naive(two, SplitPairRow::from_rows, SplitPair::totals);
    }
}

#[test]
fn penalties_match_the_naive_rules() {
    let all: Vec<_> = grids(300).collect();
    let n = WIDTHS.len();
    for (i, grid) in all.iter().enumerate() {
        let rows = pack(grid);
        check_against_naive(grid, &rows);
        if grid.len() <= 64 {
            let narrow: Vec<u64> = rows.iter().map(|&r| r as u64).collect();
            check_against_naive(grid, &narrow);
        }
        #[cfg(any(
            target_arch = "x86_64",
            all(target_arch = "wasm32", target_feature = "simd128")
        ))]
        {
            if let Some(two) = same_width::<2>(&all, i, n).filter(|_| grid.len() <= 64) {
                let pair = |[a, b]: [u128; 2]| PairRow::from_rows(a as u64, b as u64);
                check_group_against_naive(two, pair, lanes::Pair::totals);
            }
            if let Some(four) =
                same_width::<4>(&all, i, n).filter(|_| grid.len() <= QuadRow::MAX_WIDTH)
            {
                let quad = |rows: [u128; 4]| QuadRow::from_rows(rows.map(|r| r as u32));
                check_group_against_naive(four, quad, lanes::Quad::totals);
            }
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { check_wide_against_naive(&all, i, n) };
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

/// The candidate `lowest_penalty` chooses, checked to be the one of each
/// build the CPU can run (the portable one, with POPCNT, with AVX2).
fn every_build(masked: &[Vec<u128>], data: &[u128], width: usize) -> usize {
    let candidates = Candidates::new(masked.to_vec(), width);
    let chosen = lowest_penalty(&candidates, data);
    assert_eq!(
        lowest_penalty_portable(&candidates, data),
        chosen,
        "width {width}"
    );
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected;
        if is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT.
            let popcnt = unsafe { lowest_penalty_popcnt(&candidates, data) };
            assert_eq!(popcnt, chosen, "width {width}");
        }
        if width <= SplitRow::MAX_WIDTH && is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            let avx2 = unsafe { lowest_penalty_avx2(&candidates, data) };
            assert_eq!(avx2, chosen, "width {width}");
        }
    }
    chosen
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
        assert_eq!(every_build(&masked, &data, width), first_lowest);
        // Ties: copies of the winner after it (in its pair and in later
        // pairs) lose to it; a copy just before it wins.
        let winner = &masked[first_lowest];
        let mut tied = masked.clone();
        for later in tied.iter_mut().skip(first_lowest + 1).step_by(2) {
            later.clone_from(winner);
        }
        assert_eq!(every_build(&tied, &data, width), first_lowest);
        if let Some(before) = first_lowest.checked_sub(1) {
            tied[before].clone_from(winner);
            assert_eq!(every_build(&tied, &data, width), before);
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
