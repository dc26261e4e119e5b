//! The LZ77 parse of the whole scanline stream from the new scanlines alone.
//!
//! A position is (module row `k`, byte `b` of its block), where a block is
//! the new scanline (`stride` bytes) then its Up-filter rows. Matches are
//! looked for within the new scanlines (indexed in `lines`, mapped to
//! distances in the stream) and against the zeros of the Up-filter row just
//! above. A match against the same column of an earlier block runs on
//! through the Up-filter rows, which are the same after every scanline, and
//! into the next scanlines for as long as they agree.

mod line_masks;

use super::matching::{match_len, no_match_starts, zero_run, RowAndColumn, MIN_USEFUL};
use super::tables::{MIN_MATCH, WINDOW};
use super::tokens::{push_copy, push_match, Token, TokenWriter};
use super::UP_FILTER;
use crate::raster::{Image, SMALL_ALPHABET};

/// Hash-chain candidates tried per position: the two newest with the same
/// hash, which a hash bucket of two links holds.
const MAX_PROBES: usize = 2;
const HASH_BITS: u32 = 10;
/// Images whose pixel bytes take fewer values than this (scales 4, 6 and 8,
/// the only ones the raster draws: `raster::SMALL_ALPHABET`) skip the hash
/// chain: their literals cost 3 bits or less, and the chain's short matches
/// cost more than the literals they replace (the test
/// `small_alphabets_skip_the_chain_and_shrink` holds the PNGs smaller
/// without). Only the matches found without it remain: runs, the column
/// above, repeated rows.
pub const CHAIN_MIN_BYTE_VALUES: usize = SMALL_ALPHABET + 1;

/// The parser's working memory, kept per thread from call to call: the hot
/// path allocates nothing once a thread has encoded its largest image.
pub struct Scratch {
    /// For each scanline, 1 + the nearest earlier one whose key falls in
    /// the same bucket (0: none): the only rows `repeated_rows` compares.
    earlier: Vec<u32>,
    pub tokens: Vec<Token>,
    /// Without the chain, for lines of up to 64 bytes: each line's bytes
    /// equal to the line above, as bits (see `line_masks`).
    above: Vec<u64>,
    /// The hash chains (see `Parser::index`), cleared only by the parse
    /// that uses them: 4 KiB, two 16-bit links a bucket.
    buckets: Box<[u32; 1 << HASH_BITS]>,
}

impl Default for Scratch {
    fn default() -> Self {
        Self {
            earlier: Vec::new(),
            tokens: Vec::new(),
            above: Vec::new(),
            buckets: Box::new([0; 1 << HASH_BITS]),
        }
    }
}

/// The parse, with the hash chain or without (see `CHAIN_MIN_BYTE_VALUES`):
/// two builds, so that neither pays for the other's branches; without it,
/// lines that fit a `u64` are walked from bit masks (`line_masks`). The
/// tokens land in `scratch.tokens`.
pub fn parse(image: &Image, scratch: &mut Scratch) {
    if image.byte_values >= CHAIN_MIN_BYTE_VALUES {
        parse_lz77::<true, true>(image, scratch)
    } else if image.stride <= line_masks::MAX_STRIDE {
        Parser::<false, true>::new(image, scratch).run_by_masks()
    } else {
        parse_lz77::<false, true>(image, scratch)
    }
}

/// With `SKIP` the positions where no match can start are passed over
/// without a search; without, every position is searched (the slow twin
/// the tests hold it to).
pub fn parse_lz77<const CHAIN: bool, const SKIP: bool>(image: &Image, scratch: &mut Scratch) {
    Parser::<CHAIN, SKIP>::new(image, scratch).run();
}

/// Each line's nearest earlier one whose key falls in the same one of 64
/// buckets, as `Scratch::earlier` holds it.
fn link_lines(keys: &[u128], earlier: &mut Vec<u32>) {
    earlier.clear();
    let mut newest = [0u32; 64];
    earlier.extend(keys.iter().enumerate().map(|(k, &key)| {
        let folded = (key as u64 ^ (key >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        std::mem::replace(&mut newest[(folded >> 58) as usize], k as u32 + 1)
    }));
}

/// The hash of the `MIN_USEFUL` (4) bytes of `word`.
#[inline(always)]
fn hash(word: u32) -> usize {
    (word.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
}

/// A bucket's links, newest first. A link is 1 + position; 0 is none.
#[inline(always)]
fn links(bucket: u32) -> [u32; MAX_PROBES] {
    [bucket & 0xFFFF, bucket >> 16]
}

/// Keeps `best` the longest useful match seen, nearest first among equals:
/// (length, stream distance).
#[inline(always)]
fn consider(best: &mut Option<(usize, usize)>, len: usize, dist: usize) {
    if len >= MIN_USEFUL
        && dist <= WINDOW
        && best.is_none_or(|(l, d)| len > l || (len == l && dist < d))
    {
        *best = Some((len, dist));
    }
}

struct Parser<'a, const CHAIN: bool, const SKIP: bool> {
    lines: &'a [u8],
    stride: usize,
    scale: usize,
    rows: usize,
    /// A new scanline and its Up-filter rows, in stream bytes.
    block: usize,
    /// The Up-filter rows of a block, in stream bytes.
    up_len: usize,
    /// `Image::keys`: equal keys, equal lines.
    keys: &'a [u128],
    earlier: &'a [u32],
    /// Each hash's chain, cut to its `MAX_PROBES` (2) newest links: the low
    /// 16 bits of a bucket are the newest, the high 16 the one before (a
    /// link is 1 + a position in `lines`, under 2^16).
    buckets: &'a mut [u32; 1 << HASH_BITS],
    /// `Scratch::above`, filled when `by_masks` holds.
    above: &'a [u64],
    row_and_column: RowAndColumn,
    tokens: TokenWriter<'a>,
}

impl<'a, const CHAIN: bool, const SKIP: bool> Parser<'a, CHAIN, SKIP> {
    fn new(image: &'a Image, scratch: &'a mut Scratch) -> Self {
        let Scratch {
            earlier,
            tokens,
            above,
            buckets,
        } = scratch;
        let lines = &image.lines[..];
        assert_eq!(
            image.keys.len(),
            lines.len() / image.stride,
            "a key per line"
        );
        link_lines(&image.keys, earlier);
        tokens.clear();
        let buckets = &mut **buckets;
        if CHAIN {
            assert!(lines.len() < 1 << 16, "image too large for 16-bit links");
            buckets.fill(0);
        }
        if Self::by_masks(image.stride) {
            line_masks::above_bits(image, above);
        }
        Self {
            lines,
            stride: image.stride,
            scale: image.scale,
            rows: lines.len() / image.stride,
            block: image.stride * image.scale,
            up_len: image.stride * (image.scale - 1),
            keys: &image.keys,
            earlier,
            buckets,
            above,
            // Chains hold positions in `lines`: a probe loads its candidate's
            // bytes straight away. The candidate's row and column are needed
            // only when those bytes agree.
            row_and_column: RowAndColumn::new(image.stride, lines.len()),
            tokens: TokenWriter::new(tokens),
        }
    }
}

impl<const CHAIN: bool, const SKIP: bool> Parser<'_, CHAIN, SKIP> {
    fn run(mut self) {
        let (mut k, mut b) = (0, 0);
        while k < self.rows {
            if b == 0 {
                if let Some((j, count)) = self.repeated_rows(k) {
                    push_match(&mut self.tokens, count * self.block, (k - j) * self.block);
                    k += count;
                    continue;
                }
            }
            if b == self.stride {
                (k, b) = self.up_filter_rows(k);
                continue;
            }
            (k, b) = self.scanline_bytes(k, b);
        }
        self.tokens.flush();
    }

    /// A run of module rows from `k` equal to an earlier run, as (the
    /// earlier run's first row, rows): one back-reference.
    fn repeated_rows(&self, k: usize) -> Option<(usize, usize)> {
        let oldest = k.saturating_sub(WINDOW / self.block);
        let mut best: Option<(usize, usize)> = None;
        // Newest first; a longer run wins, and among equals the nearest.
        let mut link = self.earlier[k] as usize;
        while link > oldest {
            let j = link - 1;
            link = self.earlier[j] as usize;
            if !self.same(j, k) {
                continue;
            }
            let count = 1
                + (1..self.rows - k)
                    .take_while(|&t| self.same(j + t, k + t))
                    .count();
            if best.is_none_or(|(_, c)| count > c) {
                best = Some((j, count));
            }
        }
        // Lines of one or two bytes at scale 1: too short for a match.
        best.filter(|&(_, count)| count * self.block >= MIN_MATCH)
    }

    /// The Up-filter rows after row `k`'s scanline: the previous module
    /// row's, one block back. Returns the next position.
    fn up_filter_rows(&mut self, k: usize) -> (usize, usize) {
        let (stride, up_len, block) = (self.stride, self.up_len, self.block);
        let up_byte = |i: usize| if i % stride == 0 { UP_FILTER } else { 0 };
        if k == 0 {
            if up_len > 0 {
                self.tokens.push(Token::Literal(UP_FILTER));
                self.tokens.push(Token::Literal(0));
                push_copy(&mut self.tokens, stride - 2, 1, |_| 0);
                push_copy(&mut self.tokens, up_len - stride, stride, up_byte);
            }
            return (k + 1, 0);
        }
        // The same distance goes on into the next scanline for as long as
        // it starts like this one (filter byte, quiet zone).
        let next = if k + 1 < self.rows && up_len > 0 {
            self.column_match(k, k + 1, 0)
        } else {
            0
        };
        push_copy(&mut self.tokens, up_len + next, block, up_byte);
        self.advance(k, stride + up_len + next)
    }

    /// From (k, b) within row `k`'s new scanline: literals up to the next
    /// position that may start a match, then that position's longest match
    /// (or one literal). Returns the next position.
    fn scanline_bytes(&mut self, k: usize, mut b: usize) -> (usize, usize) {
        // Most bytes are literals: the positions where no match can start
        // are taken in one step (see `no_match_starts`), and with the chain
        // each of those is only looked up and indexed, not searched.
        let (stride, q) = (self.stride, k * self.stride + b);
        let free = if !SKIP || b == 0 {
            0
        } else {
            // SAFETY: `b > 0`, so `q >= 1`; with `k > 0`, `q >= stride`.
            unsafe { no_match_starts(self.lines, q, stride, k > 0, self.scale > 1, stride - b) }
        };
        let literals = if CHAIN {
            self.index_up_to_a_candidate(q, free)
        } else {
            free
        };
        if literals > 0 {
            self.tokens.literals(q, literals);
            b += literals;
            if literals == free {
                return (k, b);
            }
        }
        // Searched here: a position `no_match_starts` did not settle, or
        // one it did whose chain has a candidate (then only the chain can
        // match).
        let local = literals == free;
        let (q, in_line) = (k * stride + b, stride - b);
        let len = match self.search(k, b, local) {
            Some((len, dist)) => {
                push_match(&mut self.tokens, len, dist);
                len
            }
            None => {
                self.tokens.literals(q, 1);
                1
            }
        };
        // Index the positions just covered that have MIN_USEFUL bytes left
        // in their line.
        if CHAIN {
            for p in b..b + len.min(in_line.saturating_sub(MIN_USEFUL - 1)) {
                let q = k * stride + p;
                self.index(q, hash(self.word4(q)));
            }
        }
        self.advance(k, b + len)
    }

    /// Of the `free` positions from `q`, how many come before the first
    /// whose chain holds a candidate with the same first bytes (`search`
    /// measures that one); those before it are indexed.
    #[inline(always)]
    fn index_up_to_a_candidate(&mut self, q: usize, free: usize) -> usize {
        for n in 0..free {
            let word = self.word4(q + n);
            let h = hash(word);
            for link in links(self.buckets[h]) {
                if link == 0 {
                    break;
                }
                if self.word4(link as usize - 1) == word {
                    return n;
                }
            }
            self.index(q + n, h);
        }
        free
    }

    /// The position `b` bytes into row `k`'s block, carried into later rows.
    #[inline(always)]
    fn advance(&self, mut k: usize, mut b: usize) -> (usize, usize) {
        while b >= self.block {
            (k, b) = (k + 1, b - self.block);
        }
        (k, b)
    }

    /// Module rows `j` and `k` have the same new scanline.
    #[inline(always)]
    fn same(&self, j: usize, k: usize) -> bool {
        let (lines, stride) = (self.lines, self.stride);
        let same = self.keys[j] == self.keys[k];
        // The keys' promise, checked where the property tests run.
        debug_assert_eq!(
            same,
            lines[j * stride..][..stride] == lines[k * stride..][..stride],
            "rows {j} and {k}: keys that do not say whether the lines are equal"
        );
        same
    }

    /// The MIN_USEFUL (4) bytes at `q`, all in one scanline.
    #[inline(always)]
    fn word4(&self, q: usize) -> u32 {
        // Every caller reads a position with MIN_USEFUL bytes left in its
        // line: one the walk stands on with `in_line >= MIN_USEFUL`, the
        // byte before it or the same column a line up, or a chain link,
        // which only such positions become. Checked in debug builds (the
        // parse's property tests run there), not on every load: with the
        // check the chain's loops compiled far looser (a long text's
        // deflate 210,272 instructions against 195,776).
        debug_assert!(q + MIN_USEFUL <= self.lines.len());
        // SAFETY: `q + 4 <= lines.len()`, as above.
        let word = unsafe { self.lines.as_ptr().add(q).cast::<u32>().read_unaligned() };
        u32::from_le(word)
    }

    /// Makes position `q` the newest link of hash `h`'s chain.
    #[inline(always)]
    fn index(&mut self, q: usize, h: usize) {
        // `word4` reads links unchecked: only positions with MIN_USEFUL
        // bytes left in their line may become one.
        debug_assert!(q % self.stride + MIN_USEFUL <= self.stride);
        self.buckets[h] = self.buckets[h] << 16 | (q as u32 + 1);
    }

    /// Bytes from column `o` of block `k` equal to those of block `j`.
    fn column_match(&self, j: usize, k: usize, o: usize) -> usize {
        if Self::by_masks(self.stride) {
            // Without the chain, `j` is always the block above.
            debug_assert_eq!(j + 1, k);
            return self.column_match_by_masks(k, o);
        }
        let (stride, lines) = (self.stride, self.lines);
        let (mut j, mut k, mut o, mut len) = (j, k, o, 0);
        loop {
            // SAFETY: `j <= k`: the source is `j`'s same column.
            let n = unsafe { match_len(lines, k * stride + o, (k - j) * stride, stride - o) };
            len += n;
            if o + n < stride {
                return len;
            }
            len += self.up_len;
            (j, k, o) = (j + 1, k + 1, 0);
            if k == self.rows {
                return len;
            }
        }
    }

    /// The longest match at (k, b), nearest first among equals. Without
    /// `local` only the chain is tried: the caller knows that no run, line
    /// above or zeros match starts there.
    #[inline(always)]
    fn search(&self, k: usize, b: usize, local: bool) -> Option<(usize, usize)> {
        let (stride, block, lines) = (self.stride, self.block, self.lines);
        let q = k * stride + b;
        let in_line = stride - b;
        let mut best = None;
        if in_line < MIN_USEFUL {
            // Too close to the line's end for any match but one that runs
            // on through the Up-filter rows: the same column above.
            if k > 0 {
                consider(&mut best, self.column_match(k - 1, k, b), block);
            }
            return best;
        }
        // Every candidate must share the first MIN_USEFUL (4) bytes: one
        // compare rules most out, and the rare survivors are measured.
        let word = self.word4(q);
        if local && b > 0 && self.word4(q - 1) == word {
            // SAFETY: `b > 0`, so `q >= 1`.
            consider(&mut best, unsafe { match_len(lines, q, 1, in_line) }, 1);
        }
        if local && k > 0 {
            if self.scale > 1 && word == 0 {
                // The row above in the image is the previous Up-filter row:
                // zeros after its filter byte, whose last zero precedes us.
                let zeros = zero_run(lines, q, in_line);
                consider(&mut best, zeros, if b > 0 { stride } else { 1 });
            }
            if self.word4(q - stride) == word {
                consider(&mut best, self.column_match(k - 1, k, b), block);
            }
        }
        // A match to the end of the line is long enough: only a column
        // match could go further, and the nearest one was just tried.
        if best.is_some_and(|(len, _)| len >= in_line) || !CHAIN {
            return best;
        }
        for link in links(self.buckets[hash(word)]) {
            if link == 0 {
                break;
            }
            let c = link as usize - 1;
            if self.word4(c) == word {
                let (j, oc) = self.row_and_column.of(c);
                if oc == b {
                    consider(&mut best, self.column_match(j, k, b), (k - j) * block);
                } else {
                    // SAFETY: a chain link is an earlier position: `c < q`.
                    let len = unsafe { match_len(lines, q, q - c, in_line.min(stride - oc)) };
                    consider(&mut best, len, (k - j) * block + b - oc);
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xorshift;

    #[test]
    fn repeated_rows_finds_the_longest_nearest_run_of_a_full_scan() {
        let mut rng = xorshift(0x4E57);
        for case in 0..400 {
            let (stride, scale) = (2 + rng() as usize % 40, 1 + rng() as usize % 9);
            let rows = 1 + rng() as usize % 80;
            // A few distinct lines, so rows repeat, in runs and alone.
            let palette: Vec<Vec<u8>> = (0..1 + rng() % 5)
                .map(|_| (0..stride).map(|_| rng() as u8 & 3).collect())
                .collect();
            let lines: Vec<u8> = (0..rows)
                .flat_map(|_| palette[rng() as usize % palette.len()].clone())
                .collect();
            let image = Image::of_lines(8 * (stride - 1), scale, stride, lines, 4);
            let mut scratch = Scratch::default();
            let parser = Parser::<false, true>::new(&image, &mut scratch);
            let line = |k: usize| &image.lines[k * stride..][..stride];
            for k in 0..rows {
                // Every earlier row in the window, nearest first: the
                // longest run of equal rows, the nearest among equals.
                let oldest = k.saturating_sub(WINDOW / (stride * scale));
                let mut expected: Option<(usize, usize)> = None;
                for j in (oldest..k).rev() {
                    let count = (0..rows - k)
                        .take_while(|&t| line(j + t) == line(k + t))
                        .count();
                    if count > 0 && expected.is_none_or(|(_, c)| count > c) {
                        expected = Some((j, count));
                    }
                }
                let expected = expected.filter(|&(_, c)| c * stride * scale >= MIN_MATCH);
                assert_eq!(parser.repeated_rows(k), expected, "case {case}, row {k}");
            }
        }
    }
}
