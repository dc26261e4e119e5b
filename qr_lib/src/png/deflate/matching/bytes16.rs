//! Sixteen bytes compared at once: one SIMD compare and a movemask where
//! the target has them (SSE2 on x86-64, SIMD128 on Wasm built with it), a
//! mask with bit i for byte i; elsewhere `u128` arithmetic, a mask with the
//! top bit of byte i. `four` marks where four bytes in a row are set,
//! `first` the first of those; `first_difference` is the first byte of two
//! 16-byte runs that differs. The loads are not checked one by one: the
//! functions that read `data` are `unsafe`, the callers vouching for the
//! sixteen bytes at each position (their loops' own bounds; a check per
//! load cost a long text's deflate about 10,000 instructions).

#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::*;

    /// # Safety
    /// `p + 16 <= data.len()`.
    #[inline(always)]
    unsafe fn load(data: &[u8], p: usize) -> __m128i {
        debug_assert!(p + 16 <= data.len());
        // SAFETY: 16 readable bytes (the caller's contract); SSE2 is in
        // every x86-64 CPU.
        unsafe { _mm_loadu_si128(data.as_ptr().add(p).cast()) }
    }

    /// # Safety
    /// `p + 16 <= data.len()` and `r + 16 <= data.len()`.
    #[inline(always)]
    pub unsafe fn equal(data: &[u8], p: usize, r: usize) -> u32 {
        // SAFETY: the caller's contract; SSE2 is in every x86-64 CPU.
        unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(load(data, p), load(data, r))) as u32 }
    }

    /// # Safety
    /// `p + 16 <= data.len()`.
    #[inline(always)]
    pub unsafe fn zero(data: &[u8], p: usize) -> u32 {
        // SAFETY: the caller's contract; SSE2 is in every x86-64 CPU.
        unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(load(data, p), _mm_setzero_si128())) as u32 }
    }

    /// `equal` of two words already cut (no bounds to check).
    #[inline(always)]
    pub fn equal_words(a: &[u8; 16], b: &[u8; 16]) -> u32 {
        // SAFETY: 16 readable bytes each; SSE2 is in every x86-64 CPU.
        unsafe {
            let (a, b) = (
                _mm_loadu_si128(a.as_ptr().cast()),
                _mm_loadu_si128(b.as_ptr().cast()),
            );
            _mm_movemask_epi8(_mm_cmpeq_epi8(a, b)) as u32
        }
    }

    pub use super::bits::{first, first_difference, four};
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use std::arch::wasm32::*;

    /// # Safety
    /// `p + 16 <= data.len()`.
    #[inline(always)]
    unsafe fn load(data: &[u8], p: usize) -> v128 {
        debug_assert!(p + 16 <= data.len());
        // SAFETY: 16 readable bytes (the caller's contract); Wasm loads
        // need no alignment.
        unsafe { v128_load(data.as_ptr().add(p).cast()) }
    }

    /// # Safety
    /// `p + 16 <= data.len()` and `r + 16 <= data.len()`.
    #[inline(always)]
    pub unsafe fn equal(data: &[u8], p: usize, r: usize) -> u32 {
        // SAFETY: the caller's contract.
        unsafe { u32::from(i8x16_bitmask(i8x16_eq(load(data, p), load(data, r)))) }
    }

    /// # Safety
    /// `p + 16 <= data.len()`.
    #[inline(always)]
    pub unsafe fn zero(data: &[u8], p: usize) -> u32 {
        // SAFETY: the caller's contract.
        unsafe { u32::from(i8x16_bitmask(i8x16_eq(load(data, p), u8x16_splat(0)))) }
    }

    #[inline(always)]
    pub fn equal_words(a: &[u8; 16], b: &[u8; 16]) -> u32 {
        // SAFETY: 16 readable bytes each; Wasm loads need no alignment.
        let (a, b) = unsafe { (v128_load(a.as_ptr().cast()), v128_load(b.as_ptr().cast())) };
        u32::from(i8x16_bitmask(i8x16_eq(a, b)))
    }

    pub use super::bits::{first, first_difference, four};
}

/// The masks with a bit per byte.
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
mod bits {
    #[inline(always)]
    pub fn four(m: u32) -> u32 {
        m & m >> 1 & m >> 2 & m >> 3
    }

    #[inline(always)]
    pub fn first(m: u32) -> usize {
        m.trailing_zeros() as usize
    }

    /// The first of the 16 bytes at `p` that differs from its twin at
    /// `r`; 16 when none does.
    ///
    /// # Safety
    /// `p + 16 <= data.len()` and `r + 16 <= data.len()`.
    #[inline(always)]
    pub unsafe fn first_difference(data: &[u8], p: usize, r: usize) -> usize {
        // SAFETY: the caller's contract.
        (!unsafe { super::equal(data, p, r) } | 1 << 16).trailing_zeros() as usize
    }
}

/// The fallback, also built for the tests, which hold it to the same
/// byte compares.
#[cfg(any(
    test,
    not(any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ))
))]
mod portable {
    const LOW7: u128 = u128::MAX / 0xFF * 0x7F;

    #[inline(always)]
    fn load(data: &[u8], p: usize) -> u128 {
        u128::from_le_bytes(data[p..p + 16].try_into().unwrap())
    }

    /// The top bit of each byte of `v` that is zero (exactly: no
    /// carries across bytes).
    #[inline(always)]
    fn zero_bytes(v: u128) -> u128 {
        !(((v & LOW7) + LOW7) | v | LOW7)
    }

    /// Checked, unlike the SIMD twin: `unsafe` only to share its
    /// signature.
    #[inline(always)]
    pub unsafe fn equal(data: &[u8], p: usize, r: usize) -> u128 {
        zero_bytes(load(data, p) ^ load(data, r))
    }

    /// Checked, as `equal`.
    #[inline(always)]
    pub unsafe fn zero(data: &[u8], p: usize) -> u128 {
        zero_bytes(load(data, p))
    }

    #[inline(always)]
    pub fn four(z: u128) -> u128 {
        let pairs = z & z >> 8;
        pairs & pairs >> 16
    }

    #[inline(always)]
    pub fn first(m: u128) -> usize {
        (m.trailing_zeros() / 8) as usize
    }

    /// Checked, as `equal`.
    #[inline(always)]
    pub unsafe fn first_difference(data: &[u8], p: usize, r: usize) -> usize {
        (load(data, p) ^ load(data, r)).trailing_zeros() as usize / 8
    }
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
pub use portable::{equal, first, first_difference, four, zero};
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
pub use simd::{equal, equal_words, first, first_difference, four, zero};

#[cfg(test)]
mod tests {
    use crate::xorshift;

    #[test]
    fn first_fours_agree_with_byte_compares() {
        let mut rng = xorshift(0xB17E);
        for _ in 0..5000 {
            // Few values, so runs of equal and zero bytes are common.
            let data: Vec<u8> = (0..48).map(|_| [0, 1, 0xFF][rng() as usize % 3]).collect();
            let (p, r) = (rng() as usize % 33, rng() as usize % 33);
            // The first i with bytes i..i+4 all matching, 16 if none.
            let expected =
                |f: &dyn Fn(usize) -> bool| (0..13).find(|&i| (i..i + 4).all(f)).unwrap_or(16);
            let equal = expected(&|i| data[p + i] == data[r + i]);
            let zero = expected(&|i| data[p + i] == 0);
            use super::portable as slow;
            // SAFETY: p, r <= 32 and 48 bytes: 16 from each.
            unsafe {
                assert_eq!(
                    super::first(super::four(super::equal(&data, p, r))).min(16),
                    equal
                );
                assert_eq!(
                    super::first(super::four(super::zero(&data, p))).min(16),
                    zero
                );
                assert_eq!(
                    slow::first(slow::four(slow::equal(&data, p, r))).min(16),
                    equal
                );
                assert_eq!(slow::first(slow::four(slow::zero(&data, p))).min(16), zero);
                let differs = (0..16).find(|&i| data[p + i] != data[r + i]).unwrap_or(16);
                assert_eq!(super::first_difference(&data, p, r), differs);
                assert_eq!(slow::first_difference(&data, p, r), differs);
            }
        }
    }
}
