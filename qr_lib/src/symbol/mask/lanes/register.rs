//! The 128-bit register of `lanes` and the handful of operations the
//! rules use: SSE2 on x86-64, SIMD128 on Wasm built with it.

#[cfg(target_arch = "x86_64")]
mod arch {
    use std::arch::x86_64::*;

    pub type V = __m128i;

    // SAFETY (every `unsafe` below): SSE2 is in every x86-64 CPU.
    #[inline(always)]
    pub fn lanes(low: u64, high: u64) -> V {
        unsafe { _mm_set_epi64x(high as i64, low as i64) }
    }
    /// Four 32-bit lanes from memory (16 readable bytes: the reference's).
    #[inline(always)]
    pub fn load32(lanes: &[u32; 4]) -> V {
        unsafe { _mm_loadu_si128(lanes.as_ptr().cast()) }
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

    // Four 32-bit lanes.
    #[inline(always)]
    pub fn splat32(x: u32) -> V {
        unsafe { _mm_set1_epi32(x as i32) }
    }
    #[inline(always)]
    pub fn shl32(a: V, n: usize) -> V {
        unsafe { _mm_sll_epi32(a, _mm_cvtsi32_si128(n as i32)) }
    }
    #[inline(always)]
    pub fn shr32(a: V, n: usize) -> V {
        unsafe { _mm_srl_epi32(a, _mm_cvtsi32_si128(n as i32)) }
    }
    #[inline(always)]
    pub fn add32(a: V, b: V) -> V {
        unsafe { _mm_add_epi32(a, b) }
    }
    /// Each lane times `k`, for lanes and products under 2^16: the low
    /// 16 bits of each lane multiplied, the high ones (zero) by zero.
    #[inline(always)]
    pub fn mul32_small(a: V, k: u32) -> V {
        unsafe { _mm_mullo_epi16(a, _mm_set1_epi32(k as i32)) }
    }
    /// Some lane is below `bound` (lanes under 2^31).
    #[inline(always)]
    pub fn any_below32(a: V, bound: u32) -> bool {
        let bound = bound.min(i32::MAX as u32) as i32;
        unsafe { _mm_movemask_epi8(_mm_cmplt_epi32(a, _mm_set1_epi32(bound))) != 0 }
    }
    /// Each lane's set bits: SSE2 has no popcount, so the bytes' counts are
    /// made in place (two bits, four, eight), then each lane's four summed.
    #[inline(always)]
    pub fn count32(v: V) -> V {
        unsafe {
            let (m1, m2, m4) = (
                _mm_set1_epi8(0x55),
                _mm_set1_epi8(0x33),
                _mm_set1_epi8(0x0F),
            );
            let v = _mm_sub_epi8(v, _mm_and_si128(_mm_srli_epi16(v, 1), m1));
            let v = _mm_add_epi8(
                _mm_and_si128(v, m2),
                _mm_and_si128(_mm_srli_epi16(v, 2), m2),
            );
            let v = _mm_and_si128(_mm_add_epi8(v, _mm_srli_epi16(v, 4)), m4);
            let v = _mm_add_epi32(v, _mm_srli_epi32(v, 8));
            let v = _mm_add_epi32(v, _mm_srli_epi32(v, 16));
            _mm_and_si128(v, _mm_set1_epi32(0x3F))
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod arch {
    use std::arch::wasm32::*;

    pub type V = v128;

    #[inline(always)]
    pub fn lanes(low: u64, high: u64) -> V {
        u64x2(low, high)
    }
    #[inline(always)]
    pub fn load32(lanes: &[u32; 4]) -> V {
        // SAFETY: 16 readable bytes; Wasm loads need no alignment.
        unsafe { v128_load(lanes.as_ptr().cast()) }
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

    // Four 32-bit lanes.
    #[inline(always)]
    pub fn splat32(x: u32) -> V {
        u32x4_splat(x)
    }
    #[inline(always)]
    pub fn shl32(a: V, n: usize) -> V {
        i32x4_shl(a, n as u32)
    }
    #[inline(always)]
    pub fn shr32(a: V, n: usize) -> V {
        u32x4_shr(a, n as u32)
    }
    #[inline(always)]
    pub fn add32(a: V, b: V) -> V {
        i32x4_add(a, b)
    }
    #[inline(always)]
    pub fn mul32_small(a: V, k: u32) -> V {
        i32x4_mul(a, u32x4_splat(k))
    }
    #[inline(always)]
    pub fn any_below32(a: V, bound: u32) -> bool {
        v128_any_true(u32x4_lt(a, u32x4_splat(bound)))
    }
    #[inline(always)]
    pub fn count32(v: V) -> V {
        u32x4_extadd_pairwise_u16x8(u16x8_extadd_pairwise_u8x16(u8x16_popcnt(v)))
    }
}

pub use arch::*;
