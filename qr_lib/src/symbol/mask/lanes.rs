//! Rows in one 128-bit SIMD register: 64-bit or 32-bit lanes, where a shift
//! moves each lane on its own (one instruction, where a `u128` shift takes
//! two and two registers). SSE2 on x86-64 (in every CPU's baseline); SIMD128 on Wasm
//! built with `+simd128` (Node has run it since 16.4).
//!
//! - `QuadRow`: four candidates of up to 32 modules, one per 32-bit lane.
//! - `PairRow`: two candidates of up to 64 modules side by side, scored in
//!   one pass (the `u64` rows are the scalar twin of both).
//! - `SplitRow`: one row of 65 to `SplitRow::MAX_WIDTH` modules as two
//!   overlapping 64-module windows, modules 0-63 in the low lane and 50-113
//!   in the high one. Every rule looks at most 4 modules left and 10 right
//!   of the module it scores, so a lane's shifts are exact for the modules
//!   it counts: 0-53 in the low lane, 54 on in the high one (the `u128` rows
//!   are its scalar twin).
//!
//! The tests hold each to its twin and to per-module naive rules; the
//! Wasm builds are held to the native bytes by the JS test suite.

use std::ops::{Add, AddAssign, BitAnd, BitOr, BitXor, Mul, Not, Shl, Shr};

use super::{Row, Score};

/// The register and the handful of operations the rules use.
mod register;

use register::V;

/// The first module of `SplitRow`'s high lane.
pub const HIGH_START: usize = 50;
/// The first module the high lane counts: the low lane counts those before,
/// which have their 10 modules on the right within it.
pub const HIGH_COUNTS_FROM: usize = 54;

#[derive(Clone, Copy)]
pub struct SplitRow(V);

#[derive(Clone, Copy)]
pub struct PairRow(V);

/// Four candidates of up to 32 modules (versions 1 to 3), one per 32-bit
/// lane: half the operations per candidate of `PairRow` (the `u64` rows
/// are its scalar twin too).
#[derive(Clone, Copy)]
pub struct QuadRow(V);

impl SplitRow {
    /// The widest row whose every module lies in a lane.
    pub const MAX_WIDTH: usize = HIGH_START + 64;

    #[inline(always)]
    pub fn from_row(row: u128) -> Self {
        Self(register::lanes(row as u64, (row >> HIGH_START) as u64))
    }
}

impl PairRow {
    #[inline(always)]
    pub fn from_rows(first: u64, second: u64) -> Self {
        Self(register::lanes(first, second))
    }
}

impl QuadRow {
    pub const MAX_WIDTH: usize = 32;

    /// For the tests: the rows of four candidates.
    #[cfg(test)]
    #[inline(always)]
    pub fn from_rows(rows: [u32; 4]) -> Self {
        let [a, b, c, d] = rows.map(u64::from);
        Self(register::lanes(a | b << 32, c | d << 32))
    }

    /// Four candidates' rows before the data, each XOR `data`.
    #[inline(always)]
    pub fn from_masked(masked: &[u32; 4], data: u32) -> Self {
        Self(register::xor(
            register::load32(masked),
            register::splat32(data),
        ))
    }
}

/// The bit operations, lane by lane, for every row type.
macro_rules! lanewise {
    ($($row:ident),*) => {$(
        impl PartialEq for $row {
            #[inline(always)]
            fn eq(&self, other: &Self) -> bool {
                register::eq(self.0, other.0)
            }
        }
        impl Eq for $row {}
        impl BitAnd for $row {
            type Output = Self;
            #[inline(always)]
            fn bitand(self, other: Self) -> Self {
                Self(register::and(self.0, other.0))
            }
        }
        impl BitOr for $row {
            type Output = Self;
            #[inline(always)]
            fn bitor(self, other: Self) -> Self {
                Self(register::or(self.0, other.0))
            }
        }
        impl BitXor for $row {
            type Output = Self;
            #[inline(always)]
            fn bitxor(self, other: Self) -> Self {
                Self(register::xor(self.0, other.0))
            }
        }
        impl Not for $row {
            type Output = Self;
            #[inline(always)]
            fn not(self) -> Self {
                Self(register::not(self.0))
            }
        }
    )*};
}
lanewise!(SplitRow, PairRow, QuadRow);

/// Shifts within each lane: 64-bit lanes, or 32-bit ones.
macro_rules! shifts {
    ($($row:ident: $shl:ident, $shr:ident);*) => {$(
        impl Shl<usize> for $row {
            type Output = Self;
            #[inline(always)]
            fn shl(self, n: usize) -> Self {
                Self(register::$shl(self.0, n))
            }
        }
        impl Shr<usize> for $row {
            type Output = Self;
            #[inline(always)]
            fn shr(self, n: usize) -> Self {
                Self(register::$shr(self.0, n))
            }
        }
    )*};
}
shifts!(SplitRow: shl, shr; PairRow: shl, shr; QuadRow: shl32, shr32);

impl Row for SplitRow {
    type Score = u32;

    #[inline(always)]
    fn zero() -> Self {
        Self(register::lanes(0, 0))
    }

    #[inline(always)]
    fn low_bits(n: usize) -> Self {
        let low = u64::low_bits(n.min(64));
        Self(register::lanes(
            low,
            u64::low_bits(n.saturating_sub(HIGH_START)),
        ))
    }

    #[inline(always)]
    fn count(self) -> u32 {
        let counted = register::lanes(
            u64::low_bits(HIGH_COUNTS_FROM),
            !u64::low_bits(HIGH_COUNTS_FROM - HIGH_START),
        );
        let (low, high) = register::split(register::and(self.0, counted));
        low.count_ones() + high.count_ones()
    }
}

impl Row for PairRow {
    type Score = Pair;

    #[inline(always)]
    fn zero() -> Self {
        Self(register::lanes(0, 0))
    }

    #[inline(always)]
    fn low_bits(n: usize) -> Self {
        Self(register::lanes(u64::low_bits(n), u64::low_bits(n)))
    }

    #[inline(always)]
    fn count(self) -> Pair {
        let (first, second) = register::split(self.0);
        Pair::of(first.count_ones(), second.count_ones())
    }
}

/// Two candidates' totals in one word, the first in the low half (no total
/// comes near 2^32, so the halves never carry into each other).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair(u64);

impl Pair {
    #[inline(always)]
    fn of(first: u32, second: u32) -> Self {
        Self(u64::from(first) | u64::from(second) << 32)
    }

    pub fn totals(self) -> [u32; 2] {
        [self.0 as u32, (self.0 >> 32) as u32]
    }
}

impl Add for Pair {
    type Output = Self;
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        Self(self.0 + other.0)
    }
}

impl AddAssign for Pair {
    #[inline(always)]
    fn add_assign(&mut self, other: Self) {
        self.0 += other.0;
    }
}

impl Mul<u32> for Pair {
    type Output = Self;
    #[inline(always)]
    fn mul(self, k: u32) -> Self {
        Self(self.0 * u64::from(k))
    }
}

impl Score for Pair {
    #[inline(always)]
    fn zero() -> Self {
        Self(0)
    }

    #[inline(always)]
    fn reaches(self, bound: u32) -> bool {
        let [first, second] = self.totals();
        first >= bound && second >= bound
    }

    #[inline(always)]
    fn balance(dark: Self, modules: u32) -> Self {
        let [first, second] = dark.totals().map(|d| u32::balance(d, modules));
        Self::of(first, second)
    }
}

impl Row for QuadRow {
    type Score = Quad;

    #[inline(always)]
    fn zero() -> Self {
        Self(register::splat32(0))
    }

    #[inline(always)]
    fn low_bits(n: usize) -> Self {
        Self(register::splat32(u64::low_bits(n) as u32))
    }

    #[inline(always)]
    fn count(self) -> Quad {
        Quad(register::count32(self.0))
    }
}

/// Four candidates' totals, one per 32-bit lane. A total of 32-module rows
/// stays under 23,000 (at most 1,920 for runs, 2,883 for blocks, 17,920 for
/// finder patterns, 100 for balance), far from the signed compare's 2^31,
/// and what is multiplied is a count (at most 32) times 2, 3 or 40: under
/// 2^16 (`mul32_small`).
#[derive(Clone, Copy)]
pub struct Quad(V);

impl Quad {
    pub fn totals(self) -> [u32; 4] {
        let (low, high) = register::split(self.0);
        [
            low as u32,
            (low >> 32) as u32,
            high as u32,
            (high >> 32) as u32,
        ]
    }
}

impl Add for Quad {
    type Output = Self;
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        Self(register::add32(self.0, other.0))
    }
}

impl AddAssign for Quad {
    #[inline(always)]
    fn add_assign(&mut self, other: Self) {
        *self = *self + other;
    }
}

impl Mul<u32> for Quad {
    type Output = Self;
    #[inline(always)]
    fn mul(self, k: u32) -> Self {
        debug_assert!(self.totals().iter().all(|&t| t * k < 65_536));
        Self(register::mul32_small(self.0, k))
    }
}

impl Score for Quad {
    #[inline(always)]
    fn zero() -> Self {
        Self(register::splat32(0))
    }

    #[inline(always)]
    fn reaches(self, bound: u32) -> bool {
        !register::any_below32(self.0, bound)
    }

    #[inline(always)]
    fn balance(dark: Self, modules: u32) -> Self {
        let [a, b, c, d] = dark.totals().map(|d| u64::from(u32::balance(d, modules)));
        Self(register::lanes(a | b << 32, c | d << 32))
    }
}
