//! Huffman code lengths (limited in depth) and their canonical codes.

use std::mem::MaybeUninit;

/// What a code costs: the bits of every symbol coded (the sum of frequency
/// times length) and how many symbols that is (the frequencies' sum).
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Cost {
    pub bits: u64,
    pub symbols: u64,
}

/// Huffman code lengths for `freq` into `lens`, none longer than `max_len`
/// (at most 15); returns how many codes each length has, as
/// `canonical_codes` takes them, and the code's cost. Symbols with
/// frequency 0 get length 0; a lone symbol gets length 1. (Written in
/// place: returned, the arrays were copied at each return.)
pub fn code_lengths<const N: usize>(
    freq: &[u32; N],
    max_len: u8,
    lens: &mut [u8; N],
) -> ([u32; 16], Cost) {
    debug_assert!(max_len <= 15);
    let mut counts = [0; 16];
    let (deepest, cost) = huffman_lengths(freq, lens, &mut counts);
    if deepest <= max_len {
        return (counts, cost);
    }
    // Too deep: flatten the distribution and build again (rare); the cost
    // is then the real frequencies' over the lengths built.
    let real = freq;
    let mut freq = *freq;
    loop {
        for f in freq.iter_mut().filter(|f| **f > 0) {
            *f = (*f >> 1).max(1);
        }
        counts = [0; 16];
        if huffman_lengths(&freq, lens, &mut counts).0 <= max_len {
            let cost = Cost {
                bits: (real.iter().zip(lens.iter()))
                    .map(|(&f, &l)| u64::from(f) * u64::from(l))
                    .sum(),
                symbols: real.iter().map(|&f| u64::from(f)).sum(),
            };
            return (counts, cost);
        }
    }
}

/// Unlimited Huffman code lengths for `freq` into `lens`, and into
/// `counts` how many codes each length up to 15 has (deeper ones are
/// counted at 15); returns the longest length and the code's cost.
fn huffman_lengths<const N: usize>(
    freq: &[u32; N],
    lens: &mut [u8; N],
    counts: &mut [u32; 16],
) -> (u8, Cost) {
    const { assert!(N <= 1 << 9) };
    let (used, bits) = used_eights(freq);
    // (frequency, symbol) packed in one word sorts fastest; ties by symbol.
    // A u32 holds both when the frequencies are under 2^23 (they count a
    // QR image's stream bytes: far fewer), with half the memory to clear.
    if bits < 1 << 23 {
        lengths_by_u32_keys(freq, used, lens, counts)
    } else {
        lengths_by_u64_keys(freq, used, lens, counts)
    }
}

/// One pass over the frequencies, eight at a time: which eights hold a used
/// symbol (bit `c` for symbols `8c..8c + 8`; most of the literal alphabet
/// is unused here), and every frequency's bits at once.
#[inline(always)]
fn used_eights(freq: &[u32]) -> (u64, u32) {
    let (mut used, mut bits) = (0u64, 0u32);
    let mut eights = freq.chunks_exact(8);
    for (c, eight) in (&mut eights).enumerate() {
        let any = eight.iter().fold(0, |a, &f| a | f);
        bits |= any;
        used |= u64::from(any != 0) << c;
    }
    (
        used,
        bits | eights.remainder().iter().fold(0, |a, &f| a | f),
    )
}

macro_rules! lengths_by_keys {
    ($name:ident, $key:ty, $shift:expr) => {
        /// `used`: bit `c` set where symbols `8c..8c + 8` hold a frequency
        /// (the symbols past the last eight are looked at anyway).
        fn $name<const N: usize>(
            freq: &[u32; N],
            mut used: u64,
            lens: &mut [u8; N],
            counts: &mut [u32; 16],
        ) -> (u8, Cost) {
            lens.fill(0);
            // Written for every symbol of a used eight, kept for the used
            // symbols: no branch per symbol.
            // Not cleared: only the first `n` are read, each written first.
            let mut keys = [const { MaybeUninit::<$key>::uninit() }; N];
            let mut n = 0;
            let mut key = |symbol: usize, f: u32| {
                keys[n].write(<$key>::from(f) << $shift | symbol as $key);
                n += usize::from(f > 0);
            };
            while used != 0 {
                let first = 8 * used.trailing_zeros() as usize;
                used &= used - 1;
                for (i, &f) in freq[first..first + 8].iter().enumerate() {
                    key(first + i, f);
                }
            }
            let tail = N - N % 8;
            for (i, &f) in freq[tail..].iter().enumerate() {
                key(tail + i, f);
            }
            // SAFETY: `key` wrote the first `n`.
            let keys = unsafe { written(&mut keys[..n]) };
            let symbol = |key: $key| (key & ((1 << $shift) - 1)) as usize;
            match n {
                0 => {
                    return (
                        0,
                        Cost {
                            bits: 0,
                            symbols: 0,
                        },
                    )
                }
                1 => {
                    lens[symbol(keys[0])] = 1;
                    counts[1] = 1;
                    let f = (keys[0] >> $shift) as u64;
                    return (
                        1,
                        Cost {
                            bits: f,
                            symbols: f,
                        },
                    );
                }
                _ => {}
            }
            keys.sort_unstable();
            let mut depths = [const { MaybeUninit::<u32>::uninit() }; N];
            for (d, &key) in depths.iter_mut().zip(keys.iter()) {
                d.write((key >> $shift) as u32);
            }
            // SAFETY: the loop wrote the first `n`, one per key.
            let depths = unsafe { written(&mut depths[..n]) };
            let cost = minimum_redundancy(depths);
            for (&key, &depth) in keys.iter().zip(depths.iter()) {
                lens[symbol(key)] = depth as u8;
                counts[depth.min(15) as usize] += 1;
            }
            // Lightest first, so deepest first.
            (depths[0] as u8, cost)
        }
    };
}

lengths_by_keys!(lengths_by_u32_keys, u32, 9);
lengths_by_keys!(lengths_by_u64_keys, u64, 16);

/// `slice`, every element of which the caller has written (as
/// `assume_init_mut` does, stable only since Rust 1.93).
///
/// # Safety
/// Every element of `slice` is initialised.
#[inline(always)]
pub unsafe fn written<T>(slice: &mut [MaybeUninit<T>]) -> &mut [T] {
    // SAFETY: `MaybeUninit<T>` has `T`'s layout; the caller vouches for
    // the contents.
    unsafe { &mut *(slice as *mut [MaybeUninit<T>] as *mut [T]) }
}

/// Moffat and Katajainen's in-place Huffman code lengths: `a` holds
/// ascending weights (at least two) and gets each one's code length, in
/// one array with no other memory. Ties between a leaf and a merged node
/// go to the leaf, as in the two-queue method. Returns the code's cost:
/// its bits (the sum of weight times length) are the internal nodes'
/// weights summed, as each leaf's weight counts once in every node above
/// it, and its symbols the root's weight.
pub fn minimum_redundancy(a: &mut [u32]) -> Cost {
    let n = a.len();
    // Merge: a[next] becomes the weight of internal node `next`; the
    // entries behind `root` become their parent's index.
    a[0] += a[1];
    let mut cost = u64::from(a[0]);
    let (mut root, mut leaf) = (0, 2);
    for next in 1..n - 1 {
        // Each internal node takes two of the lightest leaves or nodes.
        if leaf >= n || a[root] < a[leaf] {
            a[next] = a[root];
            a[root] = next as u32;
            root += 1;
        } else {
            a[next] = a[leaf];
            leaf += 1;
        }
        if leaf >= n || (root < next && a[root] < a[leaf]) {
            a[next] += a[root];
            a[root] = next as u32;
            root += 1;
        } else {
            a[next] += a[leaf];
            leaf += 1;
        }
        cost += u64::from(a[next]);
    }
    let symbols = u64::from(a[n - 2]);
    // Parents' indices to internal node depths (the root, n - 2, at 0).
    a[n - 2] = 0;
    for next in (0..n - 2).rev() {
        a[next] = a[a[next] as usize] + 1;
    }
    // Internal node depths to leaf depths, deepest to the lightest leaves.
    let (mut available, mut depth) = (1u32, 0);
    let (mut root, mut next) = (n as isize - 2, n as isize - 1);
    while available > 0 {
        let mut used = 0;
        while root >= 0 && a[root as usize] == depth {
            used += 1;
            root -= 1;
        }
        while available > used {
            a[next as usize] = depth;
            next -= 1;
            available -= 1;
        }
        available = 2 * used;
        depth += 1;
    }
    Cost {
        bits: cost,
        symbols,
    }
}

/// Canonical codes for `lens` into `codes` (where a symbol has none, its
/// entry is left as it was), bit-reversed for deflate's LSB-first order;
/// `counts` says how many codes each length has (`code_lengths` gives it).
/// (Written in place: returned, the literal alphabet's 1,144 bytes were
/// copied.)
pub fn canonical_codes<const N: usize>(lens: &[u8; N], counts: &[u32; 16], codes: &mut [u32; N]) {
    let mut next = [0u32; 16];
    let mut code = 0;
    for bits in 1..16 {
        code = (code + counts[bits - 1]) << 1;
        next[bits] = code;
    }
    for_each_coded(lens, |s, l| {
        codes[s] = reverse15(next[l as usize]) >> (15 - l);
        next[l as usize] += 1;
    });
}

/// The low 15 bits of `code` (a deflate code is at most 15 bits long)
/// reversed, from two byte tables: x86-64's baseline has no bit-reverse
/// instruction, and `reverse_bits` takes a dozen shifts and masks.
#[inline(always)]
fn reverse15(code: u32) -> u32 {
    const REVERSED: [u8; 256] = {
        let mut table = [0; 256];
        let mut i = 0;
        while i < 256 {
            table[i] = (i as u8).reverse_bits();
            i += 1;
        }
        table
    };
    let (low, high) = (code as u8, (code >> 8) as u8 & 0x7F);
    (u32::from(REVERSED[usize::from(low)]) << 7) | u32::from(REVERSED[usize::from(high)]) >> 1
}

/// Calls `f(symbol, length)` for each symbol with a code, in symbol order.
/// Unused symbols (most of the literal alphabet here) are skipped eight at
/// a time.
#[inline(always)]
pub fn for_each_coded(lens: &[u8], mut f: impl FnMut(usize, u8)) {
    let mut words = lens.chunks_exact(8);
    for (w, word) in (&mut words).enumerate() {
        let mut word = u64::from_le_bytes(word.try_into().unwrap());
        while word != 0 {
            let byte = word.trailing_zeros() / 8;
            f(w * 8 + byte as usize, (word >> (byte * 8)) as u8);
            word &= !(0xFF << (byte * 8));
        }
    }
    let tail = lens.len() - words.remainder().len();
    for (s, &l) in words.remainder().iter().enumerate() {
        if l > 0 {
            f(tail + s, l);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xorshift;

    #[test]
    fn in_place_lengths_are_optimal() {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let mut rng = xorshift(0xC0DE);
        for case in 0..3000 {
            let n = 2 + rng() as usize % 300;
            let spread = [4, 1000, 1 << 20][case % 3];
            let mut weights: Vec<u32> = (0..n).map(|_| 1 + rng() % spread).collect();
            weights.sort_unstable();
            let mut lens = weights.clone();
            let returned = minimum_redundancy(&mut lens);
            // Optimal: the cost of a Huffman code is the sum of its merges.
            let mut heap: BinaryHeap<_> = weights.iter().map(|&w| Reverse(u64::from(w))).collect();
            let mut optimum = 0;
            while heap.len() > 1 {
                let (Reverse(a), Reverse(b)) = (heap.pop().unwrap(), heap.pop().unwrap());
                optimum += a + b;
                heap.push(Reverse(a + b));
            }
            let cost: u64 = (weights.iter().zip(&lens))
                .map(|(&w, &l)| u64::from(w) * u64::from(l))
                .sum();
            assert_eq!(cost, optimum, "case {case}: {weights:?}");
            let symbols = weights.iter().map(|&w| u64::from(w)).sum();
            assert_eq!(
                returned,
                Cost {
                    bits: cost,
                    symbols
                },
                "case {case}"
            );
            // A complete prefix code, its longest codes on the lightest symbols.
            let kraft: f64 = lens.iter().map(|&l| 0.5f64.powi(l as i32)).sum();
            assert!((kraft - 1.0).abs() < 1e-12, "case {case}: {lens:?}");
            assert!(lens.windows(2).all(|w| w[0] >= w[1]), "case {case}");
        }
    }

    /// The lengths and the deepest of them, from one of the builders for
    /// `freq`, which also counts the codes of each length and returns the
    /// code's cost.
    fn built<const N: usize>(
        freq: &[u32; N],
        build: impl FnOnce(&mut [u8; N], &mut [u32; 16]) -> (u8, Cost),
    ) -> ([u8; N], u8) {
        let (mut lens, mut counts) = ([0xAA; N], [0; 16]);
        let (deepest, cost) = build(&mut lens, &mut counts);
        for (l, &count) in counts.iter().enumerate().take(15) {
            let of_l = lens.iter().filter(|&&x| usize::from(x) == l).count();
            assert_eq!(count as usize, if l == 0 { 0 } else { of_l }, "length {l}");
        }
        let bits = freq.iter().zip(&lens);
        assert_eq!(
            cost.bits,
            bits.map(|(&f, &l)| u64::from(f) * u64::from(l)).sum()
        );
        assert_eq!(cost.symbols, freq.iter().map(|&f| u64::from(f)).sum());
        (lens, deepest)
    }

    #[test]
    fn both_key_widths_give_the_same_lengths() {
        let mut rng = xorshift(0x5EC7);
        for case in 0..2000 {
            // Sparse, as the literal alphabet is: most symbols unused.
            let mut freq = [0u32; 286];
            for _ in 0..rng() % 40 {
                freq[rng() as usize % 286] = 1 + rng() % [4, 1000, (1 << 23) - 1][case % 3];
            }
            let (used, _) = used_eights(&freq);
            let narrow = built(&freq, |lens, counts| {
                lengths_by_u32_keys(&freq, used, lens, counts)
            });
            assert_eq!(
                narrow,
                built(&freq, |lens, counts| lengths_by_u64_keys(
                    &freq, used, lens, counts
                )),
                "case {case}"
            );
            // The mask skips only unused eights: every eight gives the same.
            assert_eq!(
                narrow,
                built(&freq, |lens, counts| lengths_by_u32_keys(
                    &freq,
                    (1 << 35) - 1,
                    lens,
                    counts
                )),
                "case {case}"
            );
            assert_eq!(
                narrow,
                built(&freq, |lens, counts| huffman_lengths(&freq, lens, counts)),
                "case {case}"
            );
            // The deepest length is reported as it is; unused symbols get 0.
            assert_eq!(
                narrow.1,
                narrow.0.iter().copied().max().unwrap(),
                "case {case}"
            );
            assert!(
                (0..286).all(|s| (freq[s] == 0) == (narrow.0[s] == 0)),
                "case {case}"
            );
        }
        // Past the u32 keys' range: the wide ones, the same shape.
        let mut freq = [0u32; 30];
        freq[3] = 1 << 24;
        freq[7] = 1 << 24;
        freq[9] = 1;
        let wide = built(&freq, |lens, counts| huffman_lengths(&freq, lens, counts));
        assert_eq!(
            wide,
            built(&freq, |lens, counts| lengths_by_u64_keys(
                &freq,
                used_eights(&freq).0,
                lens,
                counts
            ))
        );
        assert_eq!(wide.0[9], 2);
    }

    #[test]
    fn reverse15_reverses_every_code() {
        for code in 0..1u32 << 15 {
            assert_eq!(reverse15(code), code.reverse_bits() >> 17, "{code:#x}");
        }
    }

    #[test]
    fn lengths_respect_the_limit() {
        // Fibonacci frequencies make the deepest possible Huffman tree: 16
        // symbols reach the limit exactly, 30 must be flattened (to 14).
        let mut fibonacci = [0u32; 30];
        let (mut a, mut b) = (1, 1);
        for f in fibonacci.iter_mut() {
            *f = a;
            (a, b) = (b, a + b);
        }
        for n in [16, 30] {
            let mut freq = [0; 30];
            freq[..n].copy_from_slice(&fibonacci[..n]);
            let mut lens = [0; 30];
            let (counts, cost) = code_lengths(&freq, 15, &mut lens);
            // The real frequencies' cost, after the flattened rebuild too.
            let bits = freq.iter().zip(&lens);
            assert_eq!(
                cost.bits,
                bits.map(|(&f, &l)| u64::from(f) * u64::from(l)).sum(),
                "{n}"
            );
            assert_eq!(
                cost.symbols,
                freq.iter().map(|&f| u64::from(f)).sum(),
                "{n}"
            );
            let lens = &lens[..n];
            assert!(lens.iter().all(|&l| (1..=15).contains(&l)), "{n}");
            if n == 16 {
                assert_eq!(lens.iter().max(), Some(&15));
            }
            // The counts are those of the lengths given, not a first try's.
            for (l, &count) in counts.iter().enumerate() {
                let of_l = lens.iter().filter(|&&x| usize::from(x) == l).count();
                assert_eq!(
                    count as usize,
                    if l == 0 { 0 } else { of_l },
                    "{n}: length {l}"
                );
            }
            // Kraft: a complete prefix code.
            let kraft: f64 = lens.iter().map(|&l| 0.5f64.powi(l as i32)).sum();
            assert!((kraft - 1.0).abs() < 1e-9, "{n}");
        }
    }
}
