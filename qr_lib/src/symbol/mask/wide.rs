//! Rows in one 256-bit AVX2 register, for x86-64 CPUs that have it (checked
//! at run time): twice the candidates per operation of `lanes`' 128-bit rows.
//!
//! - `OctRow`: eight candidates of up to 32 modules, one per 32-bit lane
//!   (all eight masks in one pass, where `QuadRow` takes two).
//! - `QuadRow64`: four candidates of up to 64 modules, one per 64-bit lane.
//! - `SplitPairRow`: two candidates of 65 to `SplitRow::MAX_WIDTH` modules,
//!   each as `SplitRow`'s two overlapping windows (a candidate's total is
//!   the sum of its two lanes).
//!
//! A lane's set bits are counted four bits at a time from a 16-entry table
//! (`vpshufb`), then summed per lane: AVX2 has no lane popcount. Everything
//! is `inline(always)`, compiled into the one function that enables AVX2
//! (`mask::lowest_penalty_avx2`); the tests hold each row to the naive rules
//! and each build's choice to the scalar one.

use std::arch::x86_64::*;
use std::ops::{Add, AddAssign, BitAnd, BitOr, BitXor, Mul, Not, Shl, Shr};

use super::lanes::{HIGH_COUNTS_FROM, HIGH_START};
use super::{Row, Score};

type V = __m256i;

// SAFETY (every `unsafe` in this file): the rows, scores and helpers here
// are used only once the CPU is known to have AVX2: by
// `mask::lowest_penalty_avx2` (compiled with AVX2 enabled, called after
// `is_x86_feature_detected!("avx2")`) and by the tests' `unsafe` helper
// that checks the same first. The module is private to `mask` so that no
// other code can reach them.

#[inline(always)]
fn splat32(x: u32) -> V {
    unsafe { _mm256_set1_epi32(x as i32) }
}

#[inline(always)]
fn splat64(x: u64) -> V {
    unsafe { _mm256_set1_epi64x(x as i64) }
}

#[inline(always)]
fn lanes64(lanes: [u64; 4]) -> V {
    let [a, b, c, d] = lanes.map(|l| l as i64);
    unsafe { _mm256_setr_epi64x(a, b, c, d) }
}

#[inline(always)]
fn to_lanes64(v: V) -> [u64; 4] {
    let mut out = [0u64; 4];
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) };
    out
}

#[inline(always)]
fn to_lanes32(v: V) -> [u32; 8] {
    let mut out = [0u32; 8];
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) };
    out
}

/// Each byte's set bits: the counts of its two nibbles from one table.
#[inline(always)]
fn count_bytes(v: V) -> V {
    unsafe {
        let table = _mm256_setr_epi8(
            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, //
            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
        );
        let nibble = _mm256_set1_epi8(0x0F);
        let low = _mm256_shuffle_epi8(table, _mm256_and_si256(v, nibble));
        let high = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
        _mm256_add_epi8(low, high)
    }
}

/// Each 64-bit lane's set bits (`vpsadbw` sums a lane's eight bytes).
#[inline(always)]
fn count64(v: V) -> V {
    unsafe { _mm256_sad_epu8(count_bytes(v), _mm256_setzero_si256()) }
}

/// Each 32-bit lane's set bits: bytes summed in pairs, then the pairs.
#[inline(always)]
fn count32(v: V) -> V {
    unsafe {
        let pairs = _mm256_maddubs_epi16(count_bytes(v), _mm256_set1_epi8(1));
        _mm256_madd_epi16(pairs, _mm256_set1_epi16(1))
    }
}

/// Each lane times `k`, for lanes and products under 2^16 (32- or 64-bit
/// lanes): the low 16 bits of each lane multiplied, the rest (zero) by zero.
#[inline(always)]
fn mul_small(a: V, k: u32) -> V {
    unsafe { _mm256_mullo_epi16(a, _mm256_set1_epi32(k as i32)) }
}

/// Some 64-bit lane is below `bound` (lanes under 2^63).
#[inline(always)]
fn any_below64(a: V, bound: u32) -> bool {
    unsafe { _mm256_movemask_epi8(_mm256_cmpgt_epi64(splat64(u64::from(bound)), a)) != 0 }
}

#[derive(Clone, Copy)]
pub struct OctRow(V);

#[derive(Clone, Copy)]
pub struct QuadRow64(V);

#[derive(Clone, Copy)]
pub struct SplitPairRow(V);

impl OctRow {
    pub const MAX_WIDTH: usize = 32;

    /// For the tests: the rows of eight candidates.
    #[cfg(test)]
    #[inline(always)]
    pub fn from_rows(rows: [u32; 8]) -> Self {
        let [a, b, c, d, e, f, g, h] = rows.map(|r| r as i32);
        Self(unsafe { _mm256_setr_epi32(a, b, c, d, e, f, g, h) })
    }

    /// The eight candidates' rows before the data, each XOR `data`.
    #[inline(always)]
    pub fn from_masked(masked: &[u32; 8], data: u32) -> Self {
        Self(unsafe { _mm256_xor_si256(_mm256_loadu_si256(masked.as_ptr().cast()), splat32(data)) })
    }
}

impl QuadRow64 {
    #[inline(always)]
    pub fn from_rows(rows: [u64; 4]) -> Self {
        Self(lanes64(rows))
    }
}

impl SplitPairRow {
    #[inline(always)]
    pub fn from_rows([first, second]: [u128; 2]) -> Self {
        let split = |row: u128| [row as u64, (row >> HIGH_START) as u64];
        let ([a, b], [c, d]) = (split(first), split(second));
        Self(lanes64([a, b, c, d]))
    }
}

/// The bit operations, lane by lane (any lane width), for every row type.
macro_rules! lanewise {
    ($($row:ident),*) => {$(
        impl PartialEq for $row {
            #[inline(always)]
            fn eq(&self, other: &Self) -> bool {
                unsafe {
                    let diff = _mm256_xor_si256(self.0, other.0);
                    _mm256_testz_si256(diff, diff) == 1
                }
            }
        }
        impl Eq for $row {}
        impl BitAnd for $row {
            type Output = Self;
            #[inline(always)]
            fn bitand(self, other: Self) -> Self {
                Self(unsafe { _mm256_and_si256(self.0, other.0) })
            }
        }
        impl BitOr for $row {
            type Output = Self;
            #[inline(always)]
            fn bitor(self, other: Self) -> Self {
                Self(unsafe { _mm256_or_si256(self.0, other.0) })
            }
        }
        impl BitXor for $row {
            type Output = Self;
            #[inline(always)]
            fn bitxor(self, other: Self) -> Self {
                Self(unsafe { _mm256_xor_si256(self.0, other.0) })
            }
        }
        impl Not for $row {
            type Output = Self;
            #[inline(always)]
            fn not(self) -> Self {
                Self(unsafe { _mm256_xor_si256(self.0, _mm256_set1_epi32(-1)) })
            }
        }
    )*};
}
lanewise!(OctRow, QuadRow64, SplitPairRow);

/// Shifts within each lane: 32-bit lanes, or 64-bit ones.
macro_rules! shifts {
    ($($row:ident: $shl:ident, $shr:ident);*) => {$(
        impl Shl<usize> for $row {
            type Output = Self;
            #[inline(always)]
            fn shl(self, n: usize) -> Self {
                Self(unsafe { $shl(self.0, _mm_cvtsi32_si128(n as i32)) })
            }
        }
        impl Shr<usize> for $row {
            type Output = Self;
            #[inline(always)]
            fn shr(self, n: usize) -> Self {
                Self(unsafe { $shr(self.0, _mm_cvtsi32_si128(n as i32)) })
            }
        }
    )*};
}
shifts!(
    OctRow: _mm256_sll_epi32, _mm256_srl_epi32;
    QuadRow64: _mm256_sll_epi64, _mm256_srl_epi64;
    SplitPairRow: _mm256_sll_epi64, _mm256_srl_epi64
);

impl Row for OctRow {
    type Score = Oct;

    #[inline(always)]
    fn zero() -> Self {
        Self(splat32(0))
    }

    #[inline(always)]
    fn low_bits(n: usize) -> Self {
        Self(splat32(u64::low_bits(n) as u32))
    }

    #[inline(always)]
    fn count(self) -> Oct {
        Oct(count32(self.0))
    }
}

impl Row for QuadRow64 {
    type Score = Quad64;

    #[inline(always)]
    fn zero() -> Self {
        Self(splat64(0))
    }

    #[inline(always)]
    fn low_bits(n: usize) -> Self {
        Self(splat64(u64::low_bits(n)))
    }

    #[inline(always)]
    fn count(self) -> Quad64 {
        Quad64(count64(self.0))
    }
}

impl Row for SplitPairRow {
    type Score = SplitPair;

    #[inline(always)]
    fn zero() -> Self {
        Self(splat64(0))
    }

    #[inline(always)]
    fn low_bits(n: usize) -> Self {
        let (low, high) = (
            u64::low_bits(n.min(64)),
            u64::low_bits(n.saturating_sub(HIGH_START)),
        );
        Self(lanes64([low, high, low, high]))
    }

    /// Each lane counts only its own modules (see `lanes::SplitRow`).
    #[inline(always)]
    fn count(self) -> SplitPair {
        let (low, high) = (
            u64::low_bits(HIGH_COUNTS_FROM),
            !u64::low_bits(HIGH_COUNTS_FROM - HIGH_START),
        );
        let counted = lanes64([low, high, low, high]);
        SplitPair(count64(unsafe { _mm256_and_si256(self.0, counted) }))
    }
}

/// Eight candidates' totals, one per 32-bit lane (bounds as `lanes::Quad`).
#[derive(Clone, Copy)]
pub struct Oct(V);

/// Four candidates' totals, one per 64-bit lane.
#[derive(Clone, Copy)]
pub struct Quad64(V);

/// Two candidates' totals, each the sum of a pair of 64-bit lanes.
#[derive(Clone, Copy)]
pub struct SplitPair(V);

impl Oct {
    #[inline(always)]
    pub fn totals(self) -> [u32; 8] {
        to_lanes32(self.0)
    }
}

impl Quad64 {
    #[inline(always)]
    pub fn totals(self) -> [u32; 4] {
        to_lanes64(self.0).map(|t| t as u32)
    }
}

impl SplitPair {
    /// Each candidate's total in both of its lanes.
    #[inline(always)]
    fn summed(self) -> V {
        unsafe { _mm256_add_epi64(self.0, _mm256_shuffle_epi32(self.0, 0b01_00_11_10)) }
    }

    #[inline(always)]
    pub fn totals(self) -> [u32; 2] {
        let [first, _, second, _] = to_lanes64(self.summed());
        [first as u32, second as u32]
    }
}

/// Addition, scaling by small constants and the early-drop test, for every
/// score type.
macro_rules! scores {
    ($($score:ident: $add:ident, $lanes:ident);*) => {$(
        impl Add for $score {
            type Output = Self;
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                Self(unsafe { $add(self.0, other.0) })
            }
        }
        impl AddAssign for $score {
            #[inline(always)]
            fn add_assign(&mut self, other: Self) {
                *self = *self + other;
            }
        }
        impl Mul<u32> for $score {
            type Output = Self;
            #[inline(always)]
            fn mul(self, k: u32) -> Self {
                debug_assert!($lanes(self.0).iter().all(|&t| u64::from(t) * u64::from(k) < 65_536));
                Self(mul_small(self.0, k))
            }
        }
    )*};
}
scores!(
    Oct: _mm256_add_epi32, to_lanes32;
    Quad64: _mm256_add_epi64, to_lanes64;
    SplitPair: _mm256_add_epi64, to_lanes64
);

impl Score for Oct {
    #[inline(always)]
    fn zero() -> Self {
        Self(splat32(0))
    }

    #[inline(always)]
    fn reaches(self, bound: u32) -> bool {
        // Totals stay far under 2^31 (see `lanes::Quad`): a signed compare.
        let bound = bound.min(i32::MAX as u32) as i32;
        unsafe { _mm256_movemask_epi8(_mm256_cmpgt_epi32(_mm256_set1_epi32(bound), self.0)) == 0 }
    }

    #[inline(always)]
    fn balance(dark: Self, modules: u32) -> Self {
        let [a, b, c, d, e, f, g, h] = dark.totals().map(|d| u32::balance(d, modules) as i32);
        Self(unsafe { _mm256_setr_epi32(a, b, c, d, e, f, g, h) })
    }
}

impl Score for Quad64 {
    #[inline(always)]
    fn zero() -> Self {
        Self(splat64(0))
    }

    #[inline(always)]
    fn reaches(self, bound: u32) -> bool {
        !any_below64(self.0, bound)
    }

    #[inline(always)]
    fn balance(dark: Self, modules: u32) -> Self {
        Self(lanes64(
            dark.totals().map(|d| u64::from(u32::balance(d, modules))),
        ))
    }
}

impl Score for SplitPair {
    #[inline(always)]
    fn zero() -> Self {
        Self(splat64(0))
    }

    #[inline(always)]
    fn reaches(self, bound: u32) -> bool {
        !any_below64(self.summed(), bound)
    }

    /// The balance term in each candidate's first lane.
    #[inline(always)]
    fn balance(dark: Self, modules: u32) -> Self {
        let [first, second] = dark.totals().map(|d| u64::from(u32::balance(d, modules)));
        Self(lanes64([first, 0, second, 0]))
    }
}
