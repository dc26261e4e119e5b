//! The block writer: tokens to one final deflate block with dynamic
//! Huffman codes.

use super::bit_writer::BitWriter;
use super::huffman::{canonical_codes, code_lengths};
use super::matching::match_len;
use super::nibble_quads::{is_nibble_byte, NibbleQuads};
use super::tables::{CL_ORDER, DIST_BASE, DIST_EXTRA, END_OF_BLOCK, LENGTH_SYMBOL};
use super::tokens::Token;

/// Writes `tokens` (whose literal runs are in `lines`) as one final block
/// with dynamic Huffman codes.
pub fn write_block(out: &mut Vec<u8>, tokens: &[Token], lines: &[u8]) {
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
    let lit_counts = code_lengths(&lit_freq, 15, &mut lit_lens);
    let dist_counts = code_lengths(&dist_freq, 15, &mut dist_lens);
    let (mut lit_codes, mut dist_codes) = ([0; 286], [0; 30]);
    canonical_codes(&lit_lens, &lit_counts, &mut lit_codes);
    canonical_codes(&dist_lens, &dist_counts, &mut dist_codes);
    let quads = NibbleQuads::new(&lit_freq, others, &lit_codes, &lit_lens);

    // Trailing zero lengths are not stored (down to the format's minimums).
    let hlit = 257.max(lit_lens.iter().rposition(|&l| l > 0).unwrap() + 1);
    let hdist = 1.max(dist_lens.iter().rposition(|&l| l > 0).map_or(0, |i| i + 1));
    let mut lens = [0u8; 286 + 30];
    lens[..hlit].copy_from_slice(&lit_lens[..hlit]);
    lens[hlit..hlit + hdist].copy_from_slice(&dist_lens[..hdist]);
    let mut cl_buffer = [(0u8, 0u8); 286 + 30];
    let cl_count = run_length_code_lengths(&lens[..hlit + hdist], &mut cl_buffer);
    let cl_tokens = &cl_buffer[..cl_count];
    let mut cl_freq = [0u32; 19];
    for &(symbol, _) in cl_tokens {
        cl_freq[symbol as usize] += 1;
    }
    let mut cl_lens = [0; 19];
    let cl_counts = code_lengths(&cl_freq, 7, &mut cl_lens);
    let mut cl_codes = [0; 19];
    canonical_codes(&cl_lens, &cl_counts, &mut cl_codes);
    let hclen = 4.max(CL_ORDER.iter().rposition(|&s| cl_lens[s] > 0).unwrap() + 1);
    let mut w = BitWriter::new(out);
    w.bits(1, 1); // final block
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

/// The code-length sequence with repeats folded into symbols 16, 17 and 18:
/// (symbol, extra bits value) into `out` (never more than one per length);
/// returns how many.
fn run_length_code_lengths(lens: &[u8], out: &mut [(u8, u8)]) -> usize {
    let mut n = 0;
    let mut push = |token| {
        out[n] = token;
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
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xorshift;

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
            let mut out = [(0u8, 0u8); 316];
            let n = run_length_code_lengths(&lens, &mut out);
            let mut back: Vec<u8> = Vec::new();
            for &(symbol, extra) in &out[..n] {
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
            for w in out[..n].windows(3) {
                assert!(!w.iter().all(|&t| t == (0, 0)), "case {case}: {lens:?}");
            }
            for w in out[..n].windows(4) {
                let literal = |t: &(u8, u8)| (1..16).contains(&t.0);
                assert!(
                    !w.iter().all(|t| literal(t) && *t == w[0]),
                    "case {case}: {lens:?}"
                );
            }
        }
    }
}
