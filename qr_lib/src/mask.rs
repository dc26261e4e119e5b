//! Mask penalty scores on packed rows, as the `qrcode` crate defines them.
//!
//! The crate scores each candidate module by module through boxed closures;
//! here a row is a `u128` (bit `x` = column `x`, 1 = dark) and each rule is a
//! handful of shifts, ANDs and popcounts per row. Rules and weights follow the
//! crate exactly, quirks included (its balance rule and finder-pattern rule
//! differ from ISO 18004), so the chosen mask is the crate's.

/// Total penalty of a symbol; lower is better.
pub fn penalty(rows: &[u128], width: usize) -> u32 {
    let full = (1u128 << width) - 1;
    let mut light_rows = [0u128; 128];
    let lights = &mut light_rows[..rows.len()];
    for (l, r) in lights.iter_mut().zip(rows) {
        *l = !r & full;
    }
    let lights = &*lights;
    let mut score = 0;
    for (dark, light) in rows.iter().zip(lights) {
        score +=
            runs_penalty(five_in_a_row(*dark, width)) + runs_penalty(five_in_a_row(*light, width));
        score += finder_penalty(*dark, width);
    }
    score += vertical_runs_penalty(rows) + vertical_runs_penalty(lights);
    score += block_penalty(rows, width);
    score += vertical_finder_penalty(rows, lights);
    score + balance_penalty(rows, width)
}

/// Bit `x` set where columns `x..x+5` are all set (within `width`).
fn five_in_a_row(row: u128, width: usize) -> u128 {
    let starts = (1u128 << (width - 4)) - 1;
    row & row >> 1 & row >> 2 & row >> 3 & row >> 4 & starts
}

/// A run of `len >= 5` same-colour modules costs `len - 2`. It holds `len - 4`
/// five-module windows, and one window that starts it (none before it): so
/// the cost is windows + 2 per run start.
fn runs_penalty(windows: u128) -> u32 {
    let run_starts = windows & !(windows << 1);
    windows.count_ones() + 2 * run_starts.count_ones()
}

/// The same rule down the columns, with rows ANDed instead of bits shifted.
fn vertical_runs_penalty(rows: &[u128]) -> u32 {
    let mut previous = 0;
    let mut score = 0;
    for w in rows.windows(5) {
        let windows = w[0] & w[1] & w[2] & w[3] & w[4];
        score += windows.count_ones() + 2 * (windows & !previous).count_ones();
        previous = windows;
    }
    score
}

/// 3 for every 2x2 block of one colour.
fn block_penalty(rows: &[u128], width: usize) -> u32 {
    let pairs = (1u128 << (width - 1)) - 1;
    let same_as_right = |r: u128| !(r ^ r >> 1) & pairs;
    rows.windows(2)
        .map(|w| 3 * (same_as_right(w[0]) & same_as_right(w[1]) & !(w[0] ^ w[1])).count_ones())
        .sum()
}

/// 40 for each dark-light-dark-dark-dark-light-dark run with four light (or
/// outside) modules on at least one side.
fn finder_penalty(row: u128, width: usize) -> u32 {
    let light = !row & ((1u128 << width) - 1);
    let starts = (1u128 << (width - 6)) - 1;
    let pattern =
        row & light >> 1 & row >> 2 & row >> 3 & row >> 4 & light >> 5 & row >> 6 & starts;
    let dark_before = row << 1 | row << 2 | row << 3 | row << 4;
    let dark_after = row >> 7 | row >> 8 | row >> 9 | row >> 10;
    40 * (pattern & !(dark_before & dark_after)).count_ones()
}

fn vertical_finder_penalty(rows: &[u128], lights: &[u128]) -> u32 {
    let at = |y: isize| {
        if (0..rows.len() as isize).contains(&y) {
            rows[y as usize]
        } else {
            0
        }
    };
    let mut score = 0;
    for y in 0..rows.len().saturating_sub(6) {
        let pattern = rows[y]
            & lights[y + 1]
            & rows[y + 2]
            & rows[y + 3]
            & rows[y + 4]
            & lights[y + 5]
            & rows[y + 6];
        if pattern == 0 {
            continue;
        }
        let y = y as isize;
        let dark_before = at(y - 1) | at(y - 2) | at(y - 3) | at(y - 4);
        let dark_after = at(y + 7) | at(y + 8) | at(y + 9) | at(y + 10);
        score += 40 * (pattern & !(dark_before & dark_after)).count_ones();
    }
    score
}

/// |dark share in half-percent - 100|, with the crate's integer division.
fn balance_penalty(rows: &[u128], width: usize) -> u32 {
    let dark: u32 = rows.iter().map(|r| r.count_ones()).sum();
    let ratio = dark * 200 / (width * width) as u32;
    ratio.abs_diff(100)
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
            let width = [21, 25, 45, 85, 125][i % 5];
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

    #[test]
    fn runs_and_finders_match_the_naive_rules() {
        for grid in grids(200) {
            let width = grid.len();
            let rows = pack(&grid);
            let lights: Vec<u128> = rows.iter().map(|r| !r & ((1u128 << width) - 1)).collect();
            let horizontal: u32 = rows
                .iter()
                .map(|&r| {
                    runs_penalty(five_in_a_row(r, width))
                        + runs_penalty(five_in_a_row(!r & ((1 << width) - 1), width))
                })
                .sum();
            assert_eq!(horizontal, naive_runs(&grid));
            assert_eq!(
                vertical_runs_penalty(&rows) + vertical_runs_penalty(&lights),
                naive_runs(&transpose(&grid))
            );
            assert_eq!(
                rows.iter().map(|&r| finder_penalty(r, width)).sum::<u32>(),
                naive_finder(&grid)
            );
            assert_eq!(
                vertical_finder_penalty(&rows, &lights),
                naive_finder(&transpose(&grid))
            );
        }
    }

    #[test]
    fn blocks_and_balance() {
        // 3x3 all dark: four 2x2 blocks; 9 of 9 dark.
        let rows = vec![0b111u128; 3];
        assert_eq!(block_penalty(&rows, 3), 12);
        assert_eq!(balance_penalty(&rows, 3), 100);
        // Checkerboard: no blocks, half dark.
        let rows: Vec<u128> = (0..4)
            .map(|y| if y % 2 == 0 { 0b0101 } else { 0b1010 })
            .collect();
        assert_eq!(block_penalty(&rows, 4), 0);
        assert_eq!(balance_penalty(&rows, 4), 0);
    }
}
