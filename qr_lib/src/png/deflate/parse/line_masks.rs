//! The parse without the chain, a line at a time from three bit masks.
//!
//! Without the chain (scales 4, 6, 8: see `CHAIN_MIN_BYTE_VALUES`), a match
//! can start only where the line repeats its previous byte, holds zeros
//! (the Up-filter row above is zeros), or equals the line above. For lines
//! of up to 64 bytes each of those is one `u64` per line, bit `i` for byte
//! `i`, made sixteen bytes a compare: the positions where four such bytes
//! start are a few ANDs of shifts, a run's length is a count of trailing
//! ones, and the bytes between candidates are literals without a look. The
//! tokens are those of searching every position (the test
//! `skipping_literals_gives_the_tokens_of_searching_every_position`).

use super::super::matching::{equal_bits, low_bits, zero_bits, MIN_USEFUL};
use super::super::tokens::push_match;
use super::{consider, Parser};
use crate::raster::Image;

/// The widest line the masks hold, where sixteen bytes are one SIMD compare;
/// elsewhere (`equal_bits` byte by byte, not measured against the walk with
/// `u128` windows) none: the generic walk parses every line.
pub const MAX_STRIDE: usize = if cfg!(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)) {
    64
} else {
    0
};

/// Each line's bytes equal to the line above, as bits, into `above` (the
/// first line's none).
pub fn above_bits(image: &Image, above: &mut Vec<u64>) {
    let (lines, stride) = (&image.lines[..], image.stride);
    above.clear();
    above.push(0);
    above.extend(
        (stride..lines.len())
            .step_by(stride)
            .map(|q| equal_bits(lines, q, q - stride, stride)),
    );
}

/// One line's masks, bit `i` for its byte `i`.
struct LineMasks {
    /// Equal to the byte before (never bit 0: a run needs a byte before).
    repeats: u64,
    zeros: u64,
    /// Equal to the line above (none on the first line).
    above: u64,
    /// Where `search` would look for a match: four repeats, zeros or bytes
    /// as above in a row, and near the line's end, bytes as above up to it
    /// (a column match may run on through the Up-filter rows).
    starts: u64,
}

/// Four bits in a row from each set bit.
#[inline(always)]
fn fours(m: u64) -> u64 {
    m & m >> 1 & m >> 2 & m >> 3
}

impl Parser<'_, false, true> {
    pub(super) fn run_by_masks(mut self) {
        assert!(self.stride <= MAX_STRIDE, "a line wider than a mask");
        let (stride, rows) = (self.stride, self.rows);
        let (mut k, mut b) = (0, 0);
        let mut masks_of = usize::MAX;
        let mut masks = LineMasks {
            repeats: 0,
            zeros: 0,
            above: 0,
            starts: 0,
        };
        while k < rows {
            if b == 0 {
                if let Some((j, count)) = self.repeated_rows(k) {
                    push_match(&mut self.tokens, count * self.block, (k - j) * self.block);
                    k += count;
                    continue;
                }
            }
            if b == stride {
                (k, b) = self.up_filter_rows(k);
                continue;
            }
            if masks_of != k {
                masks = self.line_masks(k);
                masks_of = k;
            }
            let q = k * stride;
            let later = masks.starts >> b;
            if later == 0 {
                self.tokens.literals(q + b, stride - b);
                b = stride;
                continue;
            }
            let p = b + later.trailing_zeros() as usize;
            if p > b {
                self.tokens.literals(q + b, p - b);
            }
            match self.best_match(k, p, &masks) {
                Some((len, dist)) => {
                    push_match(&mut self.tokens, len, dist);
                    (k, b) = self.advance(k, p + len);
                }
                None => {
                    self.tokens.literals(q + p, 1);
                    b = p + 1;
                }
            }
        }
        self.tokens.flush();
    }

    fn line_masks(&self, k: usize) -> LineMasks {
        let (stride, lines) = (self.stride, self.lines);
        let q = k * stride;
        let repeats = equal_bits(lines, q + 1, q, stride - 1) << 1;
        let above = self.above[k];
        // Zeros match the Up-filter row above only below a scaled-up row.
        let zeros = if k > 0 && self.scale > 1 {
            zero_bits(lines, q, stride)
        } else {
            0
        };
        let mut starts = fours(repeats) | fours(above) | fours(zeros);
        // The last three positions: a column match if the line ends as the
        // one above does.
        let tail_from = stride.saturating_sub(MIN_USEFUL - 1);
        let unlike_above = !above & low_bits(stride);
        let last_different = 64 - unlike_above.leading_zeros() as usize;
        if k > 0 && last_different < stride {
            starts |= low_bits(stride) & !low_bits(tail_from.max(last_different));
        }
        LineMasks {
            repeats,
            zeros,
            above,
            starts,
        }
    }

    /// `search` at (k, p) from the line's masks: the longest match, the
    /// nearest among equals (a run, then zeros, then the line above).
    #[inline(always)]
    fn best_match(&self, k: usize, p: usize, masks: &LineMasks) -> Option<(usize, usize)> {
        let (stride, block) = (self.stride, self.block);
        let in_line = stride - p;
        let run = |m: u64| (m >> p).trailing_ones() as usize;
        let mut best = None;
        if in_line < MIN_USEFUL {
            if k > 0 {
                consider(&mut best, self.column_match(k - 1, k, p), block);
            }
            return best;
        }
        consider(&mut best, run(masks.repeats), 1);
        if k > 0 {
            consider(&mut best, run(masks.zeros), if p > 0 { stride } else { 1 });
            let as_above = run(masks.above);
            if as_above >= MIN_USEFUL {
                let len = if as_above == in_line {
                    self.column_match(k - 1, k, p)
                } else {
                    as_above
                };
                consider(&mut best, len, block);
            }
        }
        best
    }
}

impl<const CHAIN: bool, const SKIP: bool> Parser<'_, CHAIN, SKIP> {
    /// `column_match` against the block above, from each line's bits
    /// equal to the line above.
    pub(super) fn column_match_by_masks(&self, k: usize, o: usize) -> usize {
        let (mut k, mut o, mut len) = (k, o, 0);
        loop {
            let n = (self.above[k] >> o).trailing_ones() as usize;
            len += n;
            if o + n < self.stride {
                return len;
            }
            len += self.up_len;
            (k, o) = (k + 1, 0);
            if k == self.rows {
                return len;
            }
        }
    }

    /// The walk from masks, and `column_match` from `above`: without the
    /// chain (`line_masks` knows only its candidates), with the skipping
    /// (the walk that searches every position keeps its byte compares, for
    /// the tests to hold this one to), for lines the masks hold.
    #[inline(always)]
    pub(super) fn by_masks(stride: usize) -> bool {
        !CHAIN && SKIP && stride <= MAX_STRIDE
    }
}
