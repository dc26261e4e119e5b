//! The block writer: tokens to one final deflate block, stored, with the
//! fixed Huffman codes or with dynamic ones: whichever is smallest, as the
//! symbols' frequencies size them before anything is written.

use std::mem::MaybeUninit;

use super::bit_writer::BitWriter;
use super::huffman::{canonical_codes, code_lengths, for_each_coded, written};
use super::matching::match_len;
use super::nibble_quads::{is_nibble_byte, NibbleQuads};
use super::tables::{CL_ORDER, DIST_BASE, DIST_EXTRA, END_OF_BLOCK, LENGTH_EXTRA, LENGTH_SYMBOL};
use super::tokens::Token;
use super::UP_FILTER;
use crate::raster::Image;

/// The most data bytes a stored block holds.
const MAX_STORED: usize = 65_535;
/// A dynamic block's three counts (HLIT, HDIST, HCLEN) after its type.
const DYNAMIC_COUNT_BITS: u64 = 5 + 5 + 4;
/// The most extra bits a match carries: 5 for its length, 13 for its
/// distance.
const MAX_MATCH_EXTRA_BITS: u64 = 5 + 13;

/// The fixed literal/length code lengths (RFC 1951, 3.2.6), of all 288
/// symbols: the two a block never uses still take their codes.
const FIXED_LIT_LENS_ALL: [u8; 288] = {
    let mut lens = [8; 288];
    let mut s = 144;
    while s < 288 {
        lens[s] = if s < 256 {
            9
        } else if s < 280 {
            7
        } else {
            8
        };
        s += 1;
    }
    lens
};
/// Those of the symbols a block may use.
const FIXED_LIT_LENS: [u8; 286] = usable_symbols(FIXED_LIT_LENS_ALL);
const FIXED_LIT_CODES: [u32; 286] = usable_symbols(fixed_codes(&FIXED_LIT_LENS_ALL));
const FIXED_DIST_LENS: [u8; 30] = [5; 30];
const FIXED_DIST_CODES: [u32; 30] = fixed_codes(&FIXED_DIST_LENS);

/// The entries of the 286 literal/length symbols a block may use.
const fn usable_symbols<T: Copy>(all: [T; 288]) -> [T; 286] {
    let mut first = [all[0]; 286];
    let mut s = 0;
    while s < 286 {
        first[s] = all[s];
        s += 1;
    }
    first
}

/// `huffman::canonical_codes` at compile time, for the fixed codes (whose
/// lengths all have codes: no counting of unused ones), bit-reversed.
const fn fixed_codes<const N: usize>(lens: &[u8; N]) -> [u32; N] {
    let mut counts = [0u32; 16];
    let mut s = 0;
    while s < N {
        counts[lens[s] as usize] += 1;
        s += 1;
    }
    let (mut next, mut code, mut bits) = ([0u32; 16], 0, 1);
    while bits < 16 {
        code = (code + counts[bits - 1]) << 1;
        next[bits] = code;
        bits += 1;
    }
    let mut codes = [0u32; N];
    s = 0;
    while s < N {
        let l = lens[s] as usize;
        codes[s] = next[l].reverse_bits() >> (32 - l);
        next[l] += 1;
        s += 1;
    }
    codes
}

/// A deflate block's type.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum BlockType {
    Stored,
    Fixed,
    Dynamic,
}

/// Writes `tokens` (whose literal runs are in `image.lines`) as one final
/// block with fixed or dynamic Huffman codes, or as stored blocks (one per
/// 65,535 bytes): whichever takes the fewest bits (ties to the dynamic
/// codes, then to the fixed ones).
pub fn write_block(out: &mut Vec<u8>, tokens: &[Token], image: &Image) {
    write_block_as(out, tokens, image, None);
}

/// `write_block`, or the block type `forced` (the tests compare the three).
pub fn write_block_as(
    out: &mut Vec<u8>,
    tokens: &[Token],
    image: &Image,
    forced: Option<BlockType>,
) {
    let lines = &image.lines[..];
    let run = |at: u32, len: u32| &lines[at as usize..][..len as usize];
    let mut lit_freq = [0u32; 286];
    let mut dist_freq = [0u32; 30];
    // Single literals that are not nibble bytes (the Up filter's 2): the
    // runs' literals alone decide whether `NibbleQuads` may code them.
    let mut others = 0;
    for &t in tokens {
        match t {
            Token::Literals { at, len } => {
                for &x in run(at, len) {
                    lit_freq[x as usize] += 1;
                }
            }
            Token::Literal(x) => {
                lit_freq[x as usize] += 1;
                others += u32::from(!is_nibble_byte(x));
            }
            Token::Match { len, dist_code, .. } => {
                lit_freq[257 + (LENGTH_SYMBOL[len as usize] & 0xFF) as usize] += 1;
                dist_freq[usize::from(dist_code)] += 1;
            }
        }
    }
    lit_freq[END_OF_BLOCK] = 1;
    let (mut lit_lens, mut dist_lens) = ([0; 286], [0; 30]);
    let (lit_counts, lit_cost) = code_lengths(&lit_freq, 15, &mut lit_lens);
    let (dist_counts, dist_cost) = code_lengths(&dist_freq, 15, &mut dist_lens);

    // Trailing zero lengths are not stored (down to the format's minimums).
    let hlit = 257.max(lit_lens.iter().rposition(|&l| l > 0).unwrap() + 1);
    let hdist = 1.max(dist_lens.iter().rposition(|&l| l > 0).map_or(0, |i| i + 1));
    let mut lens = [0u8; 286 + 30];
    lens[..hlit].copy_from_slice(&lit_lens[..hlit]);
    lens[hlit..hlit + hdist].copy_from_slice(&dist_lens[..hdist]);
    let mut cl_buffer = [MaybeUninit::uninit(); 286 + 30];
    let cl_tokens = run_length_code_lengths(&lens[..hlit + hdist], &mut cl_buffer);
    let mut cl_freq = [0u32; 19];
    for &(symbol, _) in cl_tokens {
        cl_freq[symbol as usize] += 1;
    }
    let mut cl_lens = [0; 19];
    let (cl_counts, cl_cost) = code_lengths(&cl_freq, 7, &mut cl_lens);
    let hclen = 4.max(CL_ORDER.iter().rposition(|&s| cl_lens[s] > 0).unwrap() + 1);

    // Each block type's size in bits. The Huffman types code the same
    // symbols with the same extra bits; their code bits differ, and the
    // dynamic type's header. Bounds settle most blocks; the sums over the
    // symbols that give the rest exactly are taken only where they do not.
    let repeats = u64::from(2 * cl_freq[16] + 3 * cl_freq[17] + 7 * cl_freq[18]);
    let dynamic = DYNAMIC_COUNT_BITS
        + 3 * hclen as u64
        + cl_cost.bits
        + repeats
        + lit_cost.bits
        + dist_cost.bits;
    // Every match has a distance; the literal/length symbols are the
    // literals, a length per match and the block's end.
    let matches = dist_cost.symbols;
    let literals = lit_cost.symbols - matches - 1;
    // Fixed codes: a literal byte 8 or 9 bits, a length symbol (and the
    // block's end) 7 or 8, a distance 5.
    let fixed_at_least = 8 * literals + 7 * (matches + 1) + 5 * matches;
    let fixed_and_extra = || {
        let (mut bits, mut extra) = (0, 0);
        for_each_coded(&lit_lens, |s, _| {
            let f = u64::from(lit_freq[s]);
            bits += f * u64::from(FIXED_LIT_LENS[s]);
            if s > END_OF_BLOCK {
                extra += f * u64::from(LENGTH_EXTRA[s - 257]);
            }
        });
        for_each_coded(&dist_lens, |s, _| {
            let f = u64::from(dist_freq[s]);
            bits += f * u64::from(FIXED_DIST_LENS[s]);
            extra += f * u64::from(DIST_EXTRA[s]);
        });
        (bits, extra)
    };
    // Stored: every stream byte, and per block its header's byte (a block
    // starts on a byte: this one is the stream's first) and LEN and NLEN.
    let stream = (lines.len() * image.scale) as u64;
    let stored = 8 * (stream + 5 * stream.div_ceil(MAX_STORED as u64).max(1));
    let kind = forced.unwrap_or_else(|| {
        if stored >= 3 + dynamic + MAX_MATCH_EXTRA_BITS * matches {
            // Stored loses to the dynamic codes at least.
            if dynamic <= fixed_at_least || dynamic <= fixed_and_extra().0 {
                BlockType::Dynamic
            } else {
                BlockType::Fixed
            }
        } else {
            let (fixed, extra) = fixed_and_extra();
            if stored < 3 + extra + dynamic.min(fixed) {
                BlockType::Stored
            } else if fixed < dynamic {
                BlockType::Fixed
            } else {
                BlockType::Dynamic
            }
        }
    });
    if kind == BlockType::Stored {
        return write_stored(out, image);
    }

    let mut w = BitWriter::new(out);
    w.bits(1, 1); // final block
    let (mut lit_codes, mut dist_codes) = ([0; 286], [0; 30]);
    let quads = if kind == BlockType::Fixed {
        w.bits(1, 2); // fixed Huffman
        (lit_codes, lit_lens) = (FIXED_LIT_CODES, FIXED_LIT_LENS);
        (dist_codes, dist_lens) = (FIXED_DIST_CODES, FIXED_DIST_LENS);
        // Literal codes of 8 and 9 bits: never four to a lookup.
        None
    } else {
        canonical_codes(&lit_lens, &lit_counts, &mut lit_codes);
        canonical_codes(&dist_lens, &dist_counts, &mut dist_codes);
        let mut cl_codes = [0; 19];
        canonical_codes(&cl_lens, &cl_counts, &mut cl_codes);
        w.bits(2, 2); // dynamic Huffman
        w.bits((hlit - 257) as u32, 5);
        w.bits((hdist - 1) as u32, 5);
        w.bits((hclen - 4) as u32, 4);
        w.spill();
        // Up to 19 lengths of 3 bits: 57, what fits after a spill.
        for &s in &CL_ORDER[..hclen] {
            w.bits(u32::from(cl_lens[s]), 3);
        }
        w.spill();
        for &(symbol, extra) in cl_tokens {
            // A code of at most 7 bits and up to 7 extra bits.
            w.make_room(14);
            let s = symbol as usize;
            w.bits(cl_codes[s], cl_lens[s]);
            match symbol {
                16 => w.bits(u32::from(extra), 2),
                17 => w.bits(u32::from(extra), 3),
                18 => w.bits(u32::from(extra), 7),
                _ => {}
            }
        }
        NibbleQuads::new(&lit_freq, others, &lit_codes, &lit_lens)
    };
    for &t in tokens {
        // Spill only when the next codes might not fit (a literal is at most
        // 15 bits, a match 48, eight nibble literals 56; after a spill at
        // most 7 bits remain), so that short literal codes share one store.
        match t {
            Token::Literals { at, len } if quads.is_some() => {
                // SAFETY of the unwrap: the guard.
                quads
                    .as_ref()
                    .unwrap()
                    .write(&mut w, run(at, len), &lit_codes, &lit_lens);
            }
            Token::Literals { at, len } => {
                let mut threes = run(at, len).chunks_exact(3);
                for three in &mut threes {
                    w.make_room(45);
                    for &x in three {
                        w.bits(lit_codes[x as usize], lit_lens[x as usize]);
                    }
                }
                for &x in threes.remainder() {
                    w.make_room(15);
                    w.bits(lit_codes[x as usize], lit_lens[x as usize]);
                }
            }
            Token::Literal(x) => {
                w.make_room(15);
                w.bits(lit_codes[x as usize], lit_lens[x as usize]);
            }
            Token::Match {
                len,
                dist,
                dist_code,
            } => {
                // Each code with its extra bits above it, in one write.
                w.make_room(48);
                let symbol = LENGTH_SYMBOL[len as usize];
                let lc = 257 + (symbol & 0xFF) as usize;
                let bits = lit_lens[lc];
                w.bits(
                    lit_codes[lc] | (symbol >> 16) << bits,
                    bits + (symbol >> 8) as u8,
                );
                let dc = usize::from(dist_code);
                let bits = dist_lens[dc];
                let extra = u32::from(dist - DIST_BASE[dc]);
                w.bits(dist_codes[dc] | extra << bits, bits + DIST_EXTRA[dc]);
            }
        }
    }
    w.make_room(15);
    w.bits(lit_codes[END_OF_BLOCK], lit_lens[END_OF_BLOCK]);
    w.flush();
}

/// The image's scanline stream as stored blocks (each at most
/// `MAX_STORED` bytes, the last one final): the Up-filter rows written out.
fn write_stored(out: &mut Vec<u8>, image: &Image) {
    let (stride, scale) = (image.stride, image.scale);
    let mut up = vec![0; stride];
    up[0] = UP_FILTER;
    let mut stream = Vec::with_capacity(image.lines.len() * scale);
    for line in image.lines.chunks_exact(stride) {
        stream.extend_from_slice(line);
        for _ in 1..scale {
            stream.extend_from_slice(&up);
        }
    }
    let mut rest = &stream[..];
    loop {
        let (block, after) = rest.split_at(rest.len().min(MAX_STORED));
        // BFINAL, then BTYPE 00 (stored) and the padding to a byte: zeros.
        out.push(u8::from(after.is_empty()));
        let len = block.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
        if after.is_empty() {
            return;
        }
        rest = after;
    }
}

/// The code-length sequence with repeats folded into symbols 16, 17 and 18:
/// (symbol, extra bits value) into `out` (never more than one per length,
/// so `out` is not cleared first); returns those written.
fn run_length_code_lengths<'a>(
    lens: &[u8],
    out: &'a mut [MaybeUninit<(u8, u8)>],
) -> &'a [(u8, u8)] {
    let mut n = 0;
    let mut push = |token| {
        out[n].write(token);
        n += 1;
    };
    let mut i = 0;
    while i < lens.len() {
        let l = lens[i];
        // Most codes differ from the next: one compare settles those.
        let run = if lens.get(i + 1).is_some_and(|&next| next != l) {
            1
        } else {
            // SAFETY: a distance of 1 from `i + 1`.
            1 + unsafe { match_len(lens, i + 1, 1, lens.len() - i - 1) }
        };
        if l == 0 && run >= 3 {
            let take = run.min(138);
            push(if take >= 11 {
                (18, (take - 11) as u8)
            } else {
                (17, (take - 3) as u8)
            });
            i += take;
        } else if l != 0 && run >= 4 {
            push((l, 0));
            let take = (run - 1).min(6);
            push((16, (take - 3) as u8));
            i += 1 + take;
        } else {
            push((l, 0));
            i += 1;
        }
    }
    // SAFETY: `push` wrote the first `n`.
    unsafe { written(&mut out[..n]) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xorshift;

    #[test]
    fn fixed_codes_are_the_rfcs() {
        // RFC 1951, 3.2.6: each range's first and last code, most significant
        // bit first (the tables hold them reversed, as they are written).
        let msb_first = |codes: &[u32], lens: &[u8], s: usize| {
            let l = u32::from(lens[s]);
            (codes[s].reverse_bits() >> (32 - l), l)
        };
        let lit = |s| msb_first(&FIXED_LIT_CODES, &FIXED_LIT_LENS, s);
        assert_eq!(lit(0), (0b0011_0000, 8));
        assert_eq!(lit(143), (0b1011_1111, 8));
        assert_eq!(lit(144), (0b1_1001_0000, 9));
        assert_eq!(lit(255), (0b1_1111_1111, 9));
        assert_eq!(lit(256), (0b000_0000, 7));
        assert_eq!(lit(279), (0b001_0111, 7));
        assert_eq!(lit(280), (0b1100_0000, 8));
        assert_eq!(lit(285), (0b1100_0101, 8));
        for d in 0..30 {
            assert_eq!(
                msb_first(&FIXED_DIST_CODES, &FIXED_DIST_LENS, d),
                (d as u32, 5)
            );
        }
    }

    #[test]
    fn run_length_code_lengths_spell_the_lengths_back() {
        let mut rng = xorshift(0xC1E5);
        for case in 0..5000 {
            // Runs of each length 1-150, zeros among them, as code lengths come.
            let mut lens = Vec::new();
            while lens.len() < 1 + case % 316 {
                let l = [0, 0, 0, 1 + rng() as u8 % 15][rng() as usize % 4];
                let run = 1 + rng() as usize % [3, 8, 150][case % 3];
                lens.extend(std::iter::repeat_n(l, run));
            }
            lens.truncate(1 + case % 316);
            let mut out = [MaybeUninit::uninit(); 316];
            let tokens = run_length_code_lengths(&lens, &mut out);
            let mut back: Vec<u8> = Vec::new();
            for &(symbol, extra) in tokens {
                // Each repeat's count fits its field (2, 3 and 7 bits).
                if symbol >= 16 {
                    assert!(
                        extra <= [3, 7, 127][usize::from(symbol - 16)],
                        "case {case}"
                    );
                }
                let extra = usize::from(extra);
                match symbol {
                    16 => back.extend(std::iter::repeat_n(*back.last().unwrap(), 3 + extra)),
                    17 => back.extend(std::iter::repeat_n(0, 3 + extra)),
                    18 => back.extend(std::iter::repeat_n(0, 11 + extra)),
                    l => back.push(l),
                }
            }
            assert_eq!(back, lens, "case {case}");
            // Repeats taken where a run starts: no three zeros in a row
            // spelt one by one, no four of another length. (After a repeat
            // of six, the rest of a longer run is spelt anew: a length, then
            // a repeat if three or more remain.)
            for w in tokens.windows(3) {
                assert!(!w.iter().all(|&t| t == (0, 0)), "case {case}: {lens:?}");
            }
            for w in tokens.windows(4) {
                let literal = |t: &(u8, u8)| (1..16).contains(&t.0);
                assert!(
                    !w.iter().all(|t| literal(t) && *t == w[0]),
                    "case {case}: {lens:?}"
                );
            }
        }
    }
}
