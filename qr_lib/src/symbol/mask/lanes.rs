//! Rows in one 128-bit SIMD register: two 64-bit lanes, where a shift moves
//! each lane on its own (one instruction, where a `u128` shift takes two and
//! two registers). SSE2 on x86-64 (in every CPU's baseline); SIMD128 on Wasm
//! built with `+simd128` (Node has run it since 16.4).
//!
//! - `PairRow`: two candidates of up to 64 modules side by side, scored in
//!   one pass (the `u64` rows are its scalar twin).
//! - `SplitRow`: one row of 65 to `SplitRow::MAX_WIDTH` modules as two
//!   overlapping 64-module windows, modules 0-63 in the low lane and 50-113
//!   in the high one. Every rule looks at most 4 modules left and 10 right
//!   of the module it scores, so a lane's shifts are exact for the modules
//!   it counts: 0-53 in the low lane, 54 on in the high one (the `u128` rows
//!   are its scalar twin).
//!
//! The tests hold both to their twins and to per-module naive rules; the
//! Wasm builds are held to the native bytes by the JS test suite.

use std::ops::{Add, AddAssign, BitAnd, BitOr, BitXor, Mul, Not, Shl, Shr};

use super::{Row, Score};

/// The register and the handful of operations the rules use.
#[cfg(target_arch = "x86_64")]
mod register {
    use std::arch::x86_64::*;

    pub type V = __m128i;

    // SAFETY (every `unsafe` below): SSE2 is in every x86-64 CPU.
    #[inline(always)]
    pub fn lanes(low: u64, high: u64) -> V {
        unsafe { _mm_set_epi64x(high as i64, low as i64) }
    }
    #[inline(always)]
    pub fn split(v: V) -> (u64, u64) {
        let (low, high) = unsafe {
            let high = _mm_unpackhi_epi64(v, v);
            (_mm_cvtsi128_si64(v), _mm_cvtsi128_si64(high))
        };
        (low as u64, high as u64)
    }
    #[inline(always)]
    pub fn eq(a: V, b: V) -> bool {
        unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(a, b)) == 0xFFFF }
    }
    #[inline(always)]
    pub fn and(a: V, b: V) -> V {
        unsafe { _mm_and_si128(a, b) }
    }
    #[inline(always)]
    pub fn or(a: V, b: V) -> V {
        unsafe { _mm_or_si128(a, b) }
    }
    #[inline(always)]
    pub fn xor(a: V, b: V) -> V {
        unsafe { _mm_xor_si128(a, b) }
    }
    #[inline(always)]
    pub fn not(a: V) -> V {
        unsafe { _mm_xor_si128(a, _mm_set1_epi32(-1)) }
    }
    #[inline(always)]
    pub fn shl(a: V, n: usize) -> V {
        unsafe { _mm_sll_epi64(a, _mm_cvtsi32_si128(n as i32)) }
    }
    #[inline(always)]
    pub fn shr(a: V, n: usize) -> V {
        unsafe { _mm_srl_epi64(a, _mm_cvtsi32_si128(n as i32)) }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod register {
    use std::arch::wasm32::*;

    pub type V = v128;

    #[inline(always)]
    pub fn lanes(low: u64, high: u64) -> V {
        u64x2(low, high)
    }
    #[inline(always)]
    pub fn split(v: V) -> (u64, u64) {
        (u64x2_extract_lane::<0>(v), u64x2_extract_lane::<1>(v))
    }
    #[inline(always)]
    pub fn eq(a: V, b: V) -> bool {
        i64x2_all_true(i64x2_eq(a, b))
    }
    #[inline(always)]
    pub fn and(a: V, b: V) -> V {
        v128_and(a, b)
    }
    #[inline(always)]
    pub fn or(a: V, b: V) -> V {
        v128_or(a, b)
    }
    #[inline(always)]
    pub fn xor(a: V, b: V) -> V {
        v128_xor(a, b)
    }
    #[inline(always)]
    pub fn not(a: V) -> V {
        v128_not(a)
    }
    #[inline(always)]
    pub fn shl(a: V, n: usize) -> V {
        u64x2_shl(a, n as u32)
    }
    #[inline(always)]
    pub fn shr(a: V, n: usize) -> V {
        u64x2_shr(a, n as u32)
    }
}

use register::V;

/// The first module of `SplitRow`'s high lane.
const HIGH_START: usize = 50;
/// The first module the high lane counts: the low lane counts those before,
/// which have their 10 modules on the right within it.
const HIGH_COUNTS_FROM: usize = 54;

#[derive(Clone, Copy)]
pub struct SplitRow(V);

#[derive(Clone, Copy)]
pub struct PairRow(V);

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

/// The bit operations, lane by lane, for both row types.
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
        impl Shl<usize> for $row {
            type Output = Self;
            #[inline(always)]
            fn shl(self, n: usize) -> Self {
                Self(register::shl(self.0, n))
            }
        }
        impl Shr<usize> for $row {
            type Output = Self;
            #[inline(always)]
            fn shr(self, n: usize) -> Self {
                Self(register::shr(self.0, n))
            }
        }
    )*};
}
lanewise!(SplitRow, PairRow);

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
