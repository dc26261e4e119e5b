//! Mask penalty scores on packed rows, as the `qrcode` crate defines them.
//!
//! The crate scores each candidate module by module through boxed closures;
//! here a row is a `u128` (bit `x` = column `x`, 1 = dark) and each rule is a
//! handful of shifts, ANDs and popcounts per row. Rules and weights follow the
//! crate exactly, quirks included (its balance rule and finder-pattern rule
//! differ from ISO 18004), so the chosen mask is the crate's.

#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
use std::mem::MaybeUninit;
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
use lanes::{PairRow, QuadRow, SplitRow};
/// Rows in 256-bit AVX2 registers, where the CPU has it.
#[cfg(target_arch = "x86_64")]
mod wide;

/// A version's eight candidates before the data: each mask's symbol of an
/// all-zero data stream, built once per version (`Template`), in the
/// layouts the scoring reads.
pub struct Candidates {
    width: usize,
    /// Candidate by candidate, a row per `u128`.
    masked: Vec<Vec<u128>>,
    /// Up to 32 modules: row by row, the eight candidates' rows as 32-bit
    /// words, so that a row of four or eight candidates is one load and an
    /// XOR with the data (empty for wider symbols). Only the SIMD rows
    /// read it.
    #[cfg(any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ))]
    narrow: Vec<[u32; 8]>,
}

impl Candidates {
    pub fn new(masked: Vec<Vec<u128>>, width: usize) -> Self {
        assert_eq!(masked.len(), 8, "eight masks");
        Self {
            width,
            #[cfg(any(
                target_arch = "x86_64",
                all(target_arch = "wasm32", target_feature = "simd128")
            ))]
            narrow: if width <= 32 {
                (0..width)
                    .map(|y| std::array::from_fn(|i| masked[i][y] as u32))
                    .collect()
            } else {
                Vec::new()
            },
            masked,
        }
    }

    /// Candidate `i`'s rows.
    pub fn masked(&self, i: usize) -> &[u128] {
        &self.masked[i]
    }
}

/// The index of the first of the candidates with the lowest penalty, where
/// candidate `i` is `masked[i]` XOR `data`.
///
/// The rules are mostly popcounts. x86-64's baseline has no POPCNT
/// instruction, so where the CPU has one, the same code is compiled a second
/// time with it enabled and chosen at run time (`lowest_penalty_portable` is
/// its scalar twin; a test holds the two equal). Where the CPU has AVX2, the
/// candidates go twice as many to a register (`wide`).
pub fn lowest_penalty(candidates: &Candidates, data: &[u128]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let width = candidates.width;
        if width <= SplitRow::MAX_WIDTH && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { lowest_penalty_avx2(candidates, data) };
        }
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT, checked just above.
            return unsafe { lowest_penalty_popcnt(candidates, data) };
        }
    }
    lowest_penalty_portable(candidates, data)
}

/// `lowest_penalty` for rows of up to `SplitRow::MAX_WIDTH` modules, with
/// eight, four or two candidates per 256-bit row.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn lowest_penalty_avx2(candidates: &Candidates, data: &[u128]) -> usize {
    use wide::{Oct, OctRow, Quad64, QuadRow64, SplitPair, SplitPairRow};
    let (masked, width) = (&candidates.masked, candidates.width);
    if width <= OctRow::MAX_WIDTH {
        let rows = &mut [MaybeUninit::uninit(); OctRow::MAX_WIDTH][..width];
        let narrow = &candidates.narrow[..width];
        let oct = |_| move |y: usize, d: u128| OctRow::from_masked(&narrow[y], d as u32);
        return lowest_penalty_in_groups(rows, data, oct, Oct::totals);
    }
    if width <= 64 {
        let rows = &mut [MaybeUninit::uninit(); 64][..width];
        let quad = |g| {
            let masks = of_group::<4>(masked, g, width);
            move |y: usize, d: u128| QuadRow64::from_rows(masks.map(|m| (m[y] ^ d) as u64))
        };
        return lowest_penalty_in_groups(rows, data, quad, Quad64::totals);
    }
    assert!(
        width <= SplitRow::MAX_WIDTH,
        "{width} modules: too wide for a split row"
    );
    let rows = &mut [MaybeUninit::uninit(); SplitRow::MAX_WIDTH][..width];
    let pair = |g| {
        let [first, second] = of_group::<2>(masked, g, width);
        move |y: usize, d: u128| SplitPairRow::from_rows([first[y] ^ d, second[y] ^ d])
    };
    lowest_penalty_in_groups(rows, data, pair, SplitPair::totals)
}

/// Group `g`'s `N` candidates, each cut to the width once, so that no row
/// reads a bound again.
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
#[inline(always)]
fn of_group<const N: usize>(masked: &[Vec<u128>], g: usize, width: usize) -> [&[u128]; N] {
    std::array::from_fn(|i| &masked[N * g + i][..width])
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn lowest_penalty_popcnt(candidates: &Candidates, data: &[u128]) -> usize {
    lowest_penalty_portable(candidates, data)
}

/// Everything below is `inline(always)`, so that it is compiled into
/// `lowest_penalty_popcnt` with POPCNT rather than shared with this one.
#[inline(always)]
fn lowest_penalty_portable(candidates: &Candidates, data: &[u128]) -> usize {
    let (masked, width) = (&candidates.masked[..], candidates.width);
    #[cfg(any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ))]
    if width <= QuadRow::MAX_WIDTH {
        return lowest_penalty_in_quads(&candidates.narrow[..width], data);
    }
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
    let rows = &mut [MaybeUninit::uninit(); 64][..width];
    let pair = |g| {
        let [first, second] = of_group::<2>(masked, g, width);
        move |y: usize, d: u128| PairRow::from_rows((first[y] ^ d) as u64, (second[y] ^ d) as u64)
    };
    lowest_penalty_in_groups(rows, data, pair, lanes::Pair::totals)
}

/// `lowest_penalty` for rows of up to 32 modules (`narrow`, a row of the
/// eight candidates each), four candidates at a time.
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
#[inline(always)]
fn lowest_penalty_in_quads(narrow: &[[u32; 8]], data: &[u128]) -> usize {
    let rows = &mut [MaybeUninit::uninit(); QuadRow::MAX_WIDTH][..narrow.len()];
    let quad = |g: usize| {
        move |y: usize, d: u128| {
            let four = narrow[y][4 * g..][..4].try_into().unwrap();
            QuadRow::from_masked(four, d as u32)
        }
    };
    lowest_penalty_in_groups(rows, data, quad, lanes::Quad::totals)
}

/// `lowest_penalty` with the candidates `N` at a time, one per lane of the
/// rows that `group(g)` makes for group `g` (from each module row's index
/// and data) in `rows`; `totals` reads the lanes' penalties back. The rows
/// are left uninitialised until written: zeroing the widest (3.6 KiB of
/// them) cost more than a group's 2x2 rule.
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
#[inline(always)]
fn lowest_penalty_in_groups<R: Row, F: Fn(usize, u128) -> R, const N: usize>(
    rows: &mut [MaybeUninit<R>],
    data: &[u128],
    group: impl Fn(usize) -> F,
    totals: impl Fn(R::Score) -> [u32; N],
) -> usize {
    let width = rows.len();
    assert_eq!(data.len(), width, "one data row per module row");
    let mut best: Option<(u32, usize)> = None;
    for g in 0..8 / N {
        let row_of = group(g);
        for (y, (r, &d)) in rows.iter_mut().zip(data).enumerate() {
            r.write(row_of(y, d));
        }
        // SAFETY: the loop above wrote all `width` rows (`data` has as many).
        let rows = unsafe { std::slice::from_raw_parts(rows.as_ptr().cast::<R>(), width) };
        let bound = best.map_or(u32::MAX, |(s, _)| s);
        // Dropped only when every lane reaches the bound; any may still lose.
        if let Some(score) = penalty_below(rows, width, bound) {
            for (lane, total) in totals(score).into_iter().enumerate() {
                if best.is_none_or(|(s, _)| total < s) {
                    best = Some((total, N * g + lane));
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
/// With several candidates in a row, `None` only when all reach `bound`.
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
mod tests;
