//! A zlib/deflate encoder for the PNG of scaled-up pixel art.
//!
//! A QR image repeats itself: every module is `scale` pixels tall, so the
//! PNG holds one new scanline per module row followed by `scale - 1` copies
//! stored with the Up filter (a filter byte 2, then zeros); whole module rows
//! recur too (the quiet zone). The encoder is given only the new scanlines
//! (`raster::Image`): repeated rows become one back-reference each, found by
//! row hashes, the zero rows are never built nor summed byte by byte (their
//! Adler-32 is arithmetic), and only the new scanlines are parsed for matches,
//! with a short hash chain. The result is one dynamic-Huffman block, valid
//! deflate for any image (the property test inflates it with C zlib).
//!
//! The search effort was tuned on the shared texts with the stage table of
//! `cargo bench -p qr_lib --bench core`: matches under 4 bytes cost more
//! than their literals here; more probes, or zlib's lazy matching, buy a few
//! bytes for several microseconds.

use std::cell::RefCell;

use crate::raster::Image;

/// Deflate limits.
const MIN_MATCH: usize = 3;
const MAX_MATCH: usize = 258;
const WINDOW: usize = 32 * 1024;
/// Hash-chain candidates tried per position: the two newest with the same
/// hash, which a hash bucket of two links holds.
const MAX_PROBES: usize = 2;
/// Shorter matches cost more bits than their literals in these images
/// (whose literals come from a small alphabet, so their codes are short).
const MIN_USEFUL: usize = 4;
const HASH_BITS: u32 = 10;
/// Images whose pixel bytes take fewer values than this (scales 4 and 6)
/// skip the hash chain: their literals cost 3 bits or less, and the chain's
/// short matches cost more than the literals they replace (the test
/// `small_alphabets_skip_the_chain_and_shrink` holds the PNGs smaller
/// without). Only the matches found without it remain: runs, the column
/// above, repeated rows.
const CHAIN_MIN_BYTE_VALUES: usize = 9;
const UP_FILTER: u8 = 2;

/// One LZ77 token. Literals mostly come in runs of the new scanlines, kept
/// as one token each: the parse writes no token per byte, and the coder
/// reads the bytes straight from the scanlines.
#[derive(Clone, Copy)]
#[cfg_attr(test, derive(PartialEq, Debug))]
enum Token {
    /// `len` bytes of the new scanlines from `at`, as literals.
    Literals { at: u32, len: u32 },
    /// A literal of the Up-filter rows, which are not in the new scanlines.
    Literal(u8),
    /// `len` bytes equal to those `dist` back.
    Match { len: u16, dist: u16 },
}

/// The parser's working memory, kept per thread from call to call: the hot
/// path allocates nothing once a thread has encoded its largest image.
struct Scratch {
    hashes: Vec<u64>,
    tokens: Vec<Token>,
    /// The hash chains (see `parse_lz77`), cleared only by the parse that
    /// uses them.
    buckets: Box<[u64; 1 << HASH_BITS]>,
}

impl Default for Scratch {
    fn default() -> Self {
        Self {
            hashes: Vec::new(),
            tokens: Vec::new(),
            buckets: Box::new([0; 1 << HASH_BITS]),
        }
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// Appends the zlib stream of `image`'s PNG scanlines to `out`.
pub fn zlib(out: &mut Vec<u8>, image: &Image) {
    assert!(
        image.stride >= 2,
        "a scanline holds a filter byte and pixels"
    );
    out.extend_from_slice(&[0x78, 0xDA]); // deflate, 32K window, "best" level
    SCRATCH.with(|scratch| {
        // Nothing in here calls back into `zlib`; were it ever re-entered,
        // the inner call would work in a buffer of its own.
        match scratch.try_borrow_mut() {
            Ok(mut scratch) => {
                parse(image, &mut scratch);
                write_block(out, &scratch.tokens, &image.lines);
            }
            Err(_) => {
                let mut own = Scratch::default();
                parse(image, &mut own);
                write_block(out, &own.tokens, &image.lines);
            }
        }
    });
    out.extend_from_slice(&adler32(image).to_be_bytes());
}

/// Adler-32 of the whole scanline stream, a line at a time in closed form:
/// the new scanline from its byte sum and weighted sum, then its Up-filter
/// rows (2, then `stride - 1` zeros) from the line's `a` alone.
fn adler32(image: &Image) -> u32 {
    const MOD: u64 = 65_521;
    let stride = image.stride as u64;
    let n = (image.scale - 1) as u64;
    let (mut a, mut b) = (1, 0);
    for line in image.lines.chunks_exact(image.stride) {
        // Byte i of the line enters `b` once for each of the stride - i
        // sums from it to the line's end.
        let (sum, weighted) = line_sums(line);
        b += stride * a + weighted;
        a += sum;
        // Each Up-filter row adds 2 to `a`, then adds the new `a` to `b` once
        // per byte: over n rows, a += 2n and b += stride * (n * a + n * (n + 1)).
        b += stride * (n * a + n * (n + 1));
        a += u64::from(UP_FILTER) * n;
        (a, b) = (a % MOD, b % MOD);
    }
    (b << 16 | a) as u32
}

/// The sum of `line`'s bytes and the sum of byte i times `line.len() - i`,
/// in u32 lanes the compiler vectorises, 4 KiB at a time (no overflow).
fn line_sums(line: &[u8]) -> (u64, u64) {
    let (mut sum, mut weighted) = (0u64, 0u64);
    for (c, chunk) in line.chunks(4096).enumerate() {
        let len = chunk.len() as u32;
        let (mut s, mut w) = (0u32, 0u32);
        for (i, &x) in chunk.iter().enumerate() {
            s += u32::from(x);
            w += (len - i as u32) * u32::from(x);
        }
        // Bytes after this chunk add to every weight in it.
        let after = (line.len() - c * 4096 - chunk.len()) as u64;
        weighted += after * u64::from(s) + u64::from(w);
        sum += u64::from(s);
    }
    (sum, weighted)
}

/// A hash of a scanline, eight bytes at a time, to find repeated ones quickly.
fn line_hash(line: &[u8]) -> u64 {
    let mut words = line.chunks_exact(8);
    let mut h = line.len() as u64;
    for word in &mut words {
        let word = u64::from_le_bytes(word.try_into().unwrap());
        h = (h.rotate_left(23) ^ word).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    let tail = words
        .remainder()
        .iter()
        .fold(0, |t, &b| t << 8 | u64::from(b));
    (h.rotate_left(23) ^ tail).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The parse, with the hash chain or without (see `CHAIN_MIN_BYTE_VALUES`):
/// two builds, so that neither pays for the other's branches.
fn parse(image: &Image, scratch: &mut Scratch) {
    if image.byte_values >= CHAIN_MIN_BYTE_VALUES {
        parse_lz77::<true, true>(image, scratch)
    } else {
        parse_lz77::<false, true>(image, scratch)
    }
}

/// LZ77 parse of the whole scanline stream from the new scanlines alone.
///
/// A position is (module row `k`, byte `b` of its block), where a block is
/// the new scanline (`stride` bytes) then its Up-filter rows. Matches are
/// looked for within the new scanlines (indexed in `lines`, mapped to
/// distances in the stream) and against the zeros of the Up-filter row just
/// above. A match against the same column of an earlier block runs on
/// through the Up-filter rows, which are the same after every scanline, and
/// into the next scanlines for as long as they agree.
/// The tokens land in `scratch.tokens`. With `SKIP` the positions where no
/// match can start are passed over without a search; without, every
/// position is searched (the slow twin the tests hold it to).
fn parse_lz77<const CHAIN: bool, const SKIP: bool>(image: &Image, scratch: &mut Scratch) {
    let (stride, scale, lines) = (image.stride, image.scale, &image.lines[..]);
    let rows = lines.len() / stride;
    let block = stride * scale;
    let up_len = block - stride;
    let Scratch {
        hashes,
        tokens,
        buckets,
    } = scratch;
    hashes.clear();
    hashes.extend(lines.chunks_exact(stride).map(line_hash));
    let same = |j: usize, k: usize| {
        hashes[j] == hashes[k] && lines[j * stride..][..stride] == lines[k * stride..][..stride]
    };
    // The MIN_USEFUL (4) bytes at `q`, all in one scanline, and their hash.
    let word4 = |q: usize| u32::from_le_bytes(lines[q..q + 4].try_into().unwrap());
    let hash = |word: u32| (word.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize;
    // Bytes from column `o` of block `k` equal to those of block `j`.
    let column_match = |j: usize, k: usize, o: usize| {
        let (mut j, mut k, mut o, mut len) = (j, k, o, 0);
        loop {
            let n = match_len(lines, k * stride + o, (k - j) * stride, stride - o);
            len += n;
            if o + n < stride {
                return len;
            }
            len += up_len;
            (j, k, o) = (j + 1, k + 1, 0);
            if k == rows {
                return len;
            }
        }
    };
    let up_byte = |i: usize| if i % stride == 0 { UP_FILTER } else { 0 };

    // Chains hold positions in `lines`: a probe loads its candidate's bytes
    // straight away. The candidate's row and column are needed only when
    // those bytes agree.
    let row_and_column = RowAndColumn::new(stride, lines.len());
    tokens.clear();
    let mut tokens = TokenWriter {
        tokens,
        run_at: 0,
        run_len: 0,
    };
    let tokens = &mut tokens;
    // Each hash's chain, cut to its `MAX_PROBES` (2) newest links: the low
    // half of a bucket is the newest, the high half the one before. A link
    // is 1 + position; 0 is none.
    let buckets = &mut **buckets;
    if CHAIN {
        buckets.fill(0);
    }
    let links = |bucket: u64| -> [u32; MAX_PROBES] { [bucket as u32, (bucket >> 32) as u32] };
    let index = |buckets: &mut [u64], q: usize, h: usize| {
        buckets[h] = buckets[h] << 32 | (q as u64 + 1);
    };
    // The longest match at (k, b), nearest first among equals. Without
    // `local` only the chain is tried: the caller knows that no run, line
    // above or zeros match starts there.
    let search = |buckets: &[u64], k: usize, b: usize, local: bool| {
        let q = k * stride + b;
        let in_line = stride - b;
        // (length, stream distance), longest first, then nearest.
        let mut best: Option<(usize, usize)> = None;
        let consider = |best: &mut Option<(usize, usize)>, len: usize, dist: usize| {
            if len >= MIN_USEFUL
                && dist <= WINDOW
                && best.is_none_or(|(l, d)| len > l || (len == l && dist < d))
            {
                *best = Some((len, dist));
            }
        };
        if in_line < MIN_USEFUL {
            // Too close to the line's end for any match but one that runs
            // on through the Up-filter rows: the same column above.
            if k > 0 {
                consider(&mut best, column_match(k - 1, k, b), block);
            }
            return best;
        }
        // Every candidate must share the first MIN_USEFUL (4) bytes: one
        // compare rules most out, and the rare survivors are measured.
        let word = word4(q);
        if local && b > 0 && word4(q - 1) == word {
            consider(&mut best, match_len(lines, q, 1, in_line), 1);
        }
        if local && k > 0 {
            if scale > 1 && word == 0 {
                // The row above in the image is the previous Up-filter row:
                // zeros after its filter byte, whose last zero precedes us.
                let zeros = zero_run(lines, q, in_line);
                consider(&mut best, zeros, if b > 0 { stride } else { 1 });
            }
            if word4(q - stride) == word {
                consider(&mut best, column_match(k - 1, k, b), block);
            }
        }
        // A match to the end of the line is long enough: only a column
        // match could go further, and the nearest one was just tried.
        if best.is_some_and(|(len, _)| len >= in_line) {
            return best;
        }
        if !CHAIN {
            return best;
        }
        for link in links(buckets[hash(word)]) {
            if link == 0 {
                break;
            }
            let c = link as usize - 1;
            if word4(c) == word {
                let (j, oc) = row_and_column.of(c);
                if oc == b {
                    consider(&mut best, column_match(j, k, b), (k - j) * block);
                } else {
                    let len = match_len(lines, q, q - c, in_line.min(stride - oc));
                    consider(&mut best, len, (k - j) * block + b - oc);
                }
            }
        }
        best
    };
    let (mut k, mut b) = (0, 0);
    while k < rows {
        if b == 0 {
            // A run of module rows equal to an earlier run: one back-reference.
            let oldest = k.saturating_sub(WINDOW / block);
            let repeat = (oldest..k)
                .rev()
                .filter(|&j| same(j, k))
                .map(|j| {
                    (
                        j,
                        (1..rows - k).take_while(|&t| same(j + t, k + t)).count() + 1,
                    )
                })
                .max_by_key(|&(j, count)| (count, j))
                // Lines of one or two bytes at scale 1: too short for a match.
                .filter(|&(_, count)| count * block >= MIN_MATCH);
            if let Some((j, count)) = repeat {
                push_match(tokens, count * block, (k - j) * block);
                k += count;
                continue;
            }
        }
        if b == stride {
            // The Up-filter rows: the previous module row's, one block back.
            if k > 0 {
                // The same distance goes on into the next scanline for as
                // long as it starts like this one (filter byte, quiet zone).
                let next = if k + 1 < rows && up_len > 0 {
                    column_match(k, k + 1, 0)
                } else {
                    0
                };
                push_copy(tokens, up_len + next, block, up_byte);
                b += up_len + next;
                while b >= block {
                    (k, b) = (k + 1, b - block);
                }
                continue;
            } else if up_len > 0 {
                tokens.push(Token::Literal(UP_FILTER));
                tokens.push(Token::Literal(0));
                push_copy(tokens, stride - 2, 1, |_| 0);
                push_copy(tokens, up_len - stride, stride, up_byte);
            }
            (k, b) = (k + 1, 0);
            continue;
        }

        // Most bytes are literals: the positions where no match can start
        // are taken in one step (see `no_match_starts`), and with the chain
        // each of those is only looked up and indexed, not searched.
        let q = k * stride + b;
        let free = if !SKIP || b == 0 {
            0
        } else {
            no_match_starts(lines, q, stride, k > 0, scale > 1, stride - b)
        };
        let mut literals = free;
        if CHAIN {
            // Up to the first position whose chain holds a candidate with
            // the same first bytes: `search` measures that one.
            for n in 0..free {
                let word = word4(q + n);
                let h = hash(word);
                for link in links(buckets[h]) {
                    if link == 0 {
                        break;
                    }
                    if word4(link as usize - 1) == word {
                        literals = n;
                        break;
                    }
                }
                if literals == n {
                    break;
                }
                index(buckets, q + n, h);
            }
        }
        if literals > 0 {
            tokens.literals(q, literals);
            b += literals;
            if literals == free {
                continue;
            }
        }
        // Searched here: a position `no_match_starts` did not settle, or
        // one it did whose chain has a candidate (then only the chain can
        // match).
        let local = literals == free;
        let (q, in_line) = (k * stride + b, stride - b);
        let len = match search(buckets, k, b, local) {
            Some((len, dist)) => {
                push_match(tokens, len, dist);
                len
            }
            None => {
                tokens.literals(q, 1);
                1
            }
        };
        // Index the positions just covered that have MIN_USEFUL bytes left
        // in their line.
        if CHAIN {
            for p in b..b + len.min(in_line.saturating_sub(MIN_USEFUL - 1)) {
                let q = k * stride + p;
                index(buckets, q, hash(word4(q)));
            }
        }
        b += len;
        while b >= block {
            (k, b) = (k + 1, b - block);
        }
    }
    tokens.flush();
}

/// Position to (row, column) for one stride, as a multiply by the
/// reciprocal rather than a division.
struct RowAndColumn {
    stride: usize,
    reciprocal: u64,
}

impl RowAndColumn {
    /// Exact below 2^16 (a QR image's new scanlines are a few kilobytes):
    /// with `r = ceil(2^32 / stride)`, `c * r / 2^32` errs by less than
    /// `c / 2^32`, too little to reach the next integer.
    fn new(stride: usize, len: usize) -> Self {
        assert!(
            stride < 1 << 16 && len <= 1 << 16,
            "image too large for the parse"
        );
        let reciprocal = u64::from(u32::MAX) / stride as u64 + 1;
        Self { stride, reciprocal }
    }

    #[inline(always)]
    fn of(&self, c: usize) -> (usize, usize) {
        let row = ((c as u64 * self.reciprocal) >> 32) as usize;
        (row, c - row * self.stride)
    }
}

/// Positions `no_match_starts` settles in one step: those whose first
/// `MIN_USEFUL` bytes lie in one 16-byte word.
const WORD_POSITIONS: usize = 16 - (MIN_USEFUL - 1);

/// How many of the positions from `q` on (at most `WORD_POSITIONS`) cannot
/// start a match of `MIN_USEFUL` bytes that stays in the line, where the
/// candidates are those `search` tries without the chain: the byte before
/// (a run), the line above (`above`) and, below a scaled-up row (`zeros`),
/// the zeros of the Up-filter row. Sixteen bytes at a time: `q` is never a
/// line's first byte, and positions with fewer than `MIN_USEFUL` bytes left
/// in the line (`in_line`) are left to `search`, whose column match may run
/// on past it.
#[inline(always)]
fn no_match_starts(
    lines: &[u8],
    q: usize,
    stride: usize,
    above: bool,
    zeros: bool,
    in_line: usize,
) -> usize {
    const LOW7: u128 = u128::MAX / 0xFF * 0x7F;
    if q + 16 > lines.len() || in_line < MIN_USEFUL {
        return 0;
    }
    let word = |i: usize| u128::from_le_bytes(lines[i..i + 16].try_into().unwrap());
    // The top bit of each byte that is zero, exactly (no carries across).
    let zero_bytes = |v: u128| !(((v & LOW7) + LOW7) | v | LOW7);
    // The top bit of byte i where bytes i..i+4 are all zero.
    let four = |z: u128| {
        let pairs = z & z >> 8;
        pairs & pairs >> 16
    };
    let here = word(q);
    let mut starts = four(zero_bytes(here ^ word(q - 1)));
    if above {
        starts |= four(zero_bytes(here ^ word(q - stride)));
        if zeros {
            starts |= four(zero_bytes(here));
        }
    }
    let positions = (in_line - (MIN_USEFUL - 1)).min(WORD_POSITIONS);
    let first = (starts.trailing_zeros() / 8) as usize;
    first.min(positions)
}

/// Length of the match at `p` against `p - dist`, up to `limit`; compares
/// eight bytes at a time (a short tail in one word, when the data allows).
#[inline(always)]
fn match_len(data: &[u8], p: usize, dist: usize, limit: usize) -> usize {
    let word = |i: usize| u64::from_le_bytes(data[i..i + 8].try_into().unwrap());
    let mut n = 0;
    while p + n + 8 <= data.len() {
        let diff = word(p - dist + n) ^ word(p + n);
        if diff != 0 || n + 8 >= limit {
            return (n + (diff.trailing_zeros() / 8) as usize).min(limit);
        }
        n += 8;
    }
    while n < limit && data[p - dist + n] == data[p + n] {
        n += 1;
    }
    n
}

/// Number of zero bytes at `p`, up to `limit`.
#[inline(always)]
fn zero_run(data: &[u8], p: usize, limit: usize) -> usize {
    let mut n = 0;
    while p + n + 8 <= data.len() {
        let word = u64::from_le_bytes(data[p + n..p + n + 8].try_into().unwrap());
        if word != 0 || n + 8 >= limit {
            return (n + (word.trailing_zeros() / 8) as usize).min(limit);
        }
        n += 8;
    }
    while n < limit && data[p + n] == 0 {
        n += 1;
    }
    n
}

/// The token list as the parse writes it. The literal run being gathered
/// is held back until a token of another kind comes (or `flush`), so that
/// each literal costs a compare and an add.
struct TokenWriter<'a> {
    tokens: &'a mut Vec<Token>,
    run_at: usize,
    run_len: usize,
}

impl TokenWriter<'_> {
    /// The `len` scanline bytes at `at` as literals.
    #[inline(always)]
    fn literals(&mut self, at: usize, len: usize) {
        // The parse walks the scanlines in order: literals continue the run
        // unless a token of another kind came between, which flushed it.
        debug_assert!(self.run_len == 0 || self.run_at + self.run_len == at);
        if self.run_len == 0 {
            self.run_at = at;
        }
        self.run_len += len;
    }

    fn push(&mut self, token: Token) {
        self.flush();
        self.tokens.push(token);
    }

    fn flush(&mut self) {
        if self.run_len > 0 {
            self.tokens.push(Token::Literals {
                at: self.run_at as u32,
                len: self.run_len as u32,
            });
            self.run_len = 0;
        }
    }
}

/// `len` bytes equal to those `dist` back: a match, or literals (`byte(i)`
/// is the i-th) when too short for one.
fn push_copy(tokens: &mut TokenWriter, len: usize, dist: usize, byte: impl Fn(usize) -> u8) {
    if len >= MIN_MATCH {
        push_match(tokens, len, dist);
    } else {
        for i in 0..len {
            tokens.push(Token::Literal(byte(i)));
        }
    }
}

/// Pushes a match of any length >= 3 as tokens of at most 258 (none under 3).
fn push_match(tokens: &mut TokenWriter, mut len: usize, dist: usize) {
    debug_assert!(len >= MIN_MATCH, "match of {len} bytes");
    while len > 0 {
        let take = if len > MAX_MATCH {
            (len - MIN_MATCH).min(MAX_MATCH)
        } else {
            len
        };
        tokens.push(Token::Match {
            len: take as u16,
            dist: dist as u16,
        });
        len -= take;
    }
}

// ---- Huffman coding -------------------------------------------------------

const LENGTH_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LENGTH_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
/// The order code-length code lengths are stored in.
const CL_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];
const END_OF_BLOCK: usize = 256;

/// Length code of each match length 0..=258 (0-2 unused), built at compile time.
const LENGTH_CODE: [u8; 259] = {
    let mut table = [0u8; 259];
    let mut code = 0;
    let mut len = 3;
    while len <= 258 {
        while code + 1 < 29 && LENGTH_BASE[code + 1] as usize <= len {
            code += 1;
        }
        table[len] = code as u8;
        len += 1;
    }
    table
};

/// Distance code of distances 1..=256 at `d - 1`, and of larger distances
/// at `256 + ((d - 1) >> 7)`, as zlib tabulates them.
const DIST_CODE: [u8; 512] = {
    let mut table = [0u8; 512];
    let mut i = 0;
    while i < 512 {
        let dist = if i < 256 { i + 1 } else { ((i - 256) << 7) + 1 };
        let mut code = 0;
        while code + 1 < 30 && DIST_BASE[code + 1] as usize <= dist {
            code += 1;
        }
        table[i] = code as u8;
        i += 1;
    }
    table
};

fn length_code(len: u16) -> usize {
    LENGTH_CODE[len as usize] as usize
}

fn dist_code(dist: u16) -> usize {
    let d = dist as usize - 1;
    DIST_CODE[if d < 256 { d } else { 256 + (d >> 7) }] as usize
}

/// Writes `tokens` (whose literal runs are in `lines`) as one final block
/// with dynamic Huffman codes.
fn write_block(out: &mut Vec<u8>, tokens: &[Token], lines: &[u8]) {
    let run = |at: u32, len: u32| &lines[at as usize..][..len as usize];
    let mut lit_freq = [0u32; 286];
    let mut dist_freq = [0u32; 30];
    for &t in tokens {
        match t {
            Token::Literals { at, len } => {
                for &x in run(at, len) {
                    lit_freq[x as usize] += 1;
                }
            }
            Token::Literal(x) => lit_freq[x as usize] += 1,
            Token::Match { len, dist } => {
                lit_freq[257 + length_code(len)] += 1;
                dist_freq[dist_code(dist)] += 1;
            }
        }
    }
    lit_freq[END_OF_BLOCK] = 1;
    let lit_lens = code_lengths(&lit_freq, 15);
    let dist_lens = code_lengths(&dist_freq, 15);
    let lit_codes = canonical_codes(&lit_lens);
    let dist_codes = canonical_codes(&dist_lens);

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
    let cl_lens = code_lengths(&cl_freq, 7);
    let cl_codes = canonical_codes(&cl_lens);
    let hclen = 4.max(CL_ORDER.iter().rposition(|&s| cl_lens[s] > 0).unwrap() + 1);
    let mut w = BitWriter::new(out);
    w.bits(1, 1); // final block
    w.bits(2, 2); // dynamic Huffman
    w.bits((hlit - 257) as u32, 5);
    w.bits((hdist - 1) as u32, 5);
    w.bits((hclen - 4) as u32, 4);
    w.spill();
    for &s in &CL_ORDER[..hclen] {
        w.bits(u32::from(cl_lens[s]), 3);
        w.spill();
    }
    for &(symbol, extra) in cl_tokens {
        let s = symbol as usize;
        w.bits(cl_codes[s], cl_lens[s]);
        match symbol {
            16 => w.bits(u32::from(extra), 2),
            17 => w.bits(u32::from(extra), 3),
            18 => w.bits(u32::from(extra), 7),
            _ => {}
        }
        w.spill();
    }
    for &t in tokens {
        // Spill only when the next codes might not fit (a literal is at most
        // 15 bits, a match 48; after a spill at most 7 bits remain), so that
        // short literal codes share one store.
        match t {
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
            Token::Match { len, dist } => {
                w.make_room(48);
                let lc = length_code(len);
                w.bits(lit_codes[257 + lc], lit_lens[257 + lc]);
                w.bits(u32::from(len - LENGTH_BASE[lc]), LENGTH_EXTRA[lc]);
                let dc = dist_code(dist);
                w.bits(dist_codes[dc], dist_lens[dc]);
                w.bits(u32::from(dist - DIST_BASE[dc]), DIST_EXTRA[dc]);
            }
        }
    }
    w.make_room(15);
    w.bits(lit_codes[END_OF_BLOCK], lit_lens[END_OF_BLOCK]);
    w.flush();
}

/// Huffman code lengths for `freq`, none longer than `max_len`. Symbols with
/// frequency 0 get length 0; a lone symbol gets length 1.
fn code_lengths<const N: usize>(freq: &[u32; N], max_len: u8) -> [u8; N] {
    // `max` rather than `all`: no early exit, so it vectorises.
    let deepest = |lens: &[u8; N]| lens.iter().copied().max().unwrap_or(0);
    let lens = huffman_lengths(freq);
    if deepest(&lens) <= max_len {
        return lens;
    }
    // Too deep: flatten the distribution and build again (rare).
    let mut freq = *freq;
    loop {
        for f in freq.iter_mut().filter(|f| **f > 0) {
            *f = (*f >> 1).max(1);
        }
        let lens = huffman_lengths(&freq);
        if deepest(&lens) <= max_len {
            return lens;
        }
    }
}

fn huffman_lengths<const N: usize>(freq: &[u32; N]) -> [u8; N] {
    let mut lens = [0u8; N];
    // (frequency, symbol) packed in one u64 sorts fastest; ties by symbol.
    // Written for every symbol, kept for the used ones: no branch per symbol.
    let mut keys = [0u64; N];
    let mut n = 0;
    for (symbol, &f) in freq.iter().enumerate() {
        keys[n] = u64::from(f) << 16 | symbol as u64;
        n += usize::from(f > 0);
    }
    let keys = &mut keys[..n];
    match n {
        0 => return lens,
        1 => {
            lens[(keys[0] & 0xFFFF) as usize] = 1;
            return lens;
        }
        _ => {}
    }
    keys.sort_unstable();
    let mut depths = [0u32; N];
    for (d, &key) in depths.iter_mut().zip(keys.iter()) {
        *d = (key >> 16) as u32;
    }
    minimum_redundancy(&mut depths[..n]);
    for (&key, &depth) in keys.iter().zip(depths.iter()) {
        lens[(key & 0xFFFF) as usize] = depth as u8;
    }
    lens
}

/// Moffat and Katajainen's in-place Huffman code lengths: `a` holds
/// ascending weights (at least two) and gets each one's code length, in
/// one array with no other memory. Ties between a leaf and a merged node
/// go to the leaf, as in the two-queue method.
fn minimum_redundancy(a: &mut [u32]) {
    let n = a.len();
    // Merge: a[next] becomes the weight of internal node `next`; the
    // entries behind `root` become their parent's index.
    a[0] += a[1];
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
    }
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
}

/// Canonical codes for `lens`, bit-reversed for deflate's LSB-first order.
fn canonical_codes<const N: usize>(lens: &[u8; N]) -> [u32; N] {
    let mut count = [0u32; 16];
    for_each_coded(lens, |_, l| count[l as usize] += 1);
    let mut next = [0u32; 16];
    let mut code = 0;
    for bits in 1..16 {
        code = (code + count[bits - 1]) << 1;
        next[bits] = code;
    }
    let mut codes = [0u32; N];
    for_each_coded(lens, |s, l| {
        codes[s] = next[l as usize].reverse_bits() >> (32 - l);
        next[l as usize] += 1;
    });
    codes
}

/// Calls `f(symbol, length)` for each symbol with a code, in symbol order.
/// Unused symbols (most of the literal alphabet here) are skipped eight at
/// a time.
#[inline(always)]
fn for_each_coded(lens: &[u8], mut f: impl FnMut(usize, u8)) {
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
        let run = 1 + match_len(lens, i + 1, 1, lens.len() - i - 1);
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

/// LSB-first bit packing. Codes gather in a 64-bit accumulator; `spill`
/// stores all eight bytes of it unconditionally and keeps only the bits of
/// the last incomplete byte, so no branch depends on the code lengths.
struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    count: u32,
}

impl<'a> BitWriter<'a> {
    fn new(out: &'a mut Vec<u8>) -> Self {
        Self {
            out,
            acc: 0,
            count: 0,
        }
    }

    /// Callers spill often enough that the accumulator never overflows: at
    /// most 7 bits stay after a spill, one token adds at most 48, and the
    /// token loop calls `make_room` before each.
    #[inline(always)]
    fn bits(&mut self, value: u32, count: u8) {
        debug_assert!(self.count + u32::from(count) <= 64);
        self.acc |= u64::from(value) << self.count;
        self.count += u32::from(count);
    }

    #[inline(always)]
    fn spill(&mut self) {
        let len = self.out.len();
        let bytes = self.count / 8;
        self.out.extend_from_slice(&self.acc.to_le_bytes());
        self.out.truncate(len + bytes as usize);
        // Two shifts: a shift by 64 (eight full bytes) would overflow.
        self.acc = self.acc >> (bytes * 4) >> (bytes * 4);
        self.count -= bytes * 8;
    }

    /// Spills if fewer than `bits` bits are free in the accumulator.
    #[inline(always)]
    fn make_room(&mut self, bits: u32) {
        if self.count + bits > 64 {
            self.spill();
        }
    }

    fn flush(&mut self) {
        self.spill();
        if self.count > 0 {
            self.out.push(self.acc as u8);
        }
        self.acc = 0;
        self.count = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xorshift;

    #[test]
    fn row_and_column_divides_exactly() {
        for stride in (1..=300).chain([4095, 4096, 40_000, 65_535]) {
            let split = RowAndColumn::new(stride, 1 << 16);
            for c in 0..1 << 16 {
                assert_eq!(split.of(c), (c / stride, c % stride), "{c} / {stride}");
            }
        }
    }

    /// The PNG scanline stream `image` stands for.
    fn expand(image: &Image) -> Vec<u8> {
        let mut up = vec![0u8; image.stride];
        up[0] = UP_FILTER;
        let mut data = Vec::new();
        for line in image.lines.chunks_exact(image.stride) {
            data.extend_from_slice(line);
            for _ in 1..image.scale {
                data.extend_from_slice(&up);
            }
        }
        data
    }

    fn round_trip(image: &Image) -> usize {
        let mut out = Vec::new();
        zlib(&mut out, image);
        let back = miniz_oxide::inflate::decompress_to_vec_zlib(&out).expect("valid zlib stream");
        assert_eq!(back, expand(image));
        out.len()
    }

    fn image(stride: usize, scale: usize, lines: Vec<u8>) -> Image {
        let mut seen = [false; 256];
        for (i, &b) in lines.iter().enumerate() {
            seen[b as usize] |= i % stride != 0;
        }
        Image {
            size: 8 * (stride - 1),
            scale,
            stride,
            byte_values: seen.iter().filter(|&&s| s).count(),
            lines,
        }
    }

    #[test]
    fn round_trips_any_lines() {
        round_trip(&image(2, 1, vec![]));
        round_trip(&image(2, 1, vec![0, 7]));
        round_trip(&image(5, 3, b"abcabcabcabcabc".to_vec()));
        round_trip(&image(27, 5, vec![0; 27 * 700]));
        let mut rng = xorshift(1);
        let noise: Vec<u8> = (0..27 * 700).map(|_| rng() as u8).collect();
        round_trip(&image(27, 5, noise));
        // Skewed: long codes, exercising the length limit.
        let skewed: Vec<u8> = (0..33 * 1000u32)
            .map(|i| (i.trailing_zeros() * 7 + i % 3) as u8)
            .collect();
        round_trip(&image(33, 3, skewed));
    }

    /// Lines as a QR image has them: a few recurring ones (sparse bits),
    /// runs of the same line, some noise.
    fn pixel_art(rng: &mut impl FnMut() -> u32, stride: usize, rows: usize) -> Vec<u8> {
        let palette: Vec<Vec<u8>> = (0..1 + rng() % 4)
            .map(|_| (0..stride).map(|_| rng() as u8 & 0x81).collect())
            .collect();
        let mut lines = Vec::with_capacity(stride * rows);
        while lines.len() < stride * rows {
            let line: Vec<u8> = match rng() % 4 {
                0 => (0..stride).map(|_| rng() as u8).collect(),
                _ => palette[rng() as usize % palette.len()].clone(),
            };
            for _ in 0..1 + rng() % 3 {
                lines.extend_from_slice(&line);
            }
        }
        lines.truncate(stride * rows);
        lines
    }

    #[test]
    fn any_stride_and_scale_inflates_with_c_zlib() {
        use std::io::Read;
        let mut rng = xorshift(0x9E37_79B9);
        for case in 0..3000 {
            let stride = 2 + rng() as usize % 70;
            let scale = 1 + rng() as usize % 9;
            let rows = rng() as usize % 60;
            let mut image = image(stride, scale, pixel_art(&mut rng, stride, rows));
            // Half the cases through each parse: with the chain, without.
            if case % 2 == 0 {
                image.byte_values = 256;
            }
            let mut out = Vec::new();
            zlib(&mut out, &image);
            let mut back = Vec::new();
            flate2::read::ZlibDecoder::new(&out[..])
                .read_to_end(&mut back)
                .unwrap_or_else(|e| panic!("case {case} (stride {stride}, scale {scale}): {e}"));
            assert_eq!(
                back,
                expand(&image),
                "case {case} (stride {stride}, scale {scale})"
            );
        }
    }

    #[test]
    fn small_alphabets_skip_the_chain_and_shrink() {
        use crate::raster;
        use crate::symbol::encode;
        // Bytes per scale, without the chain and with it: scale 6 has 8
        // byte values, scale 4 has 4 (versions 3 and 7 to 10).
        let mut sizes = [(0, 0); 9];
        for len in (5..=300).step_by(5) {
            let text: String = (0..len)
                .map(|i| (b'!' + (i * 37 % 90) as u8) as char)
                .collect();
            let mut image = raster::image(&encode(text.as_bytes()).unwrap());
            if image.byte_values >= CHAIN_MIN_BYTE_VALUES {
                continue;
            }
            let scale = image.scale;
            sizes[scale].0 += round_trip(&image);
            image.byte_values = 256;
            sizes[scale].1 += round_trip(&image);
        }
        for scale in [4, 6] {
            let (without, with) = sizes[scale];
            assert!(
                0 < without && without < with,
                "scale {scale}: {without} B without the chain, {with} with"
            );
        }
    }

    #[test]
    fn no_match_starts_agrees_with_a_byte_by_byte_check() {
        let mut rng = xorshift(0x5EED);
        for case in 0..2000 {
            let stride = 2 + rng() as usize % 40;
            let rows = 1 + rng() as usize % 6;
            // Two or three byte values, so runs and equal columns are common.
            let values = 2 + case % 2;
            let lines: Vec<u8> = (0..stride * rows)
                .map(|_| [0, 0xFF, 0x3C][rng() as usize % values])
                .collect();
            let word4 = |q: usize| &lines[q..q + MIN_USEFUL];
            for k in 0..rows {
                for b in 1..stride {
                    let (q, in_line) = (k * stride + b, stride - b);
                    let (above, zeros) = (k > 0, case % 3 != 0);
                    let n = no_match_starts(&lines, q, stride, above, zeros, in_line);
                    let can_start = |p: usize| {
                        word4(p - 1) == word4(p)
                            || above && word4(p - stride) == word4(p)
                            || above && zeros && word4(p).iter().all(|&x| x == 0)
                    };
                    let checked = if q + 16 > lines.len() || in_line < MIN_USEFUL {
                        0
                    } else {
                        (in_line - (MIN_USEFUL - 1)).min(WORD_POSITIONS)
                    };
                    let expected = (q..q + checked).take_while(|&p| !can_start(p)).count();
                    assert_eq!(n, expected, "case {case}, row {k}, byte {b}");
                }
            }
        }
    }

    #[test]
    fn skipping_literals_gives_the_tokens_of_searching_every_position() {
        use crate::raster;
        use crate::symbol::encode;
        let tokens = |image: &Image, skip: bool| {
            let mut scratch = Scratch::default();
            match (image.byte_values >= CHAIN_MIN_BYTE_VALUES, skip) {
                (true, true) => parse_lz77::<true, true>(image, &mut scratch),
                (true, false) => parse_lz77::<true, false>(image, &mut scratch),
                (false, true) => parse_lz77::<false, true>(image, &mut scratch),
                (false, false) => parse_lz77::<false, false>(image, &mut scratch),
            }
            scratch.tokens
        };
        let mut rng = xorshift(0xC4A1);
        for case in 0..2000 {
            let image = if case % 2 == 0 {
                // QR images of every scale, through both parses as they come.
                let len = 1 + rng() as usize % 512;
                let text: String = (0..len)
                    .map(|_| (b'!' + (rng() % 90) as u8) as char)
                    .collect();
                raster::image(&encode(text.as_bytes()).unwrap())
            } else {
                let (stride, scale, rows) = (
                    2 + rng() as usize % 70,
                    1 + rng() as usize % 9,
                    rng() as usize % 60,
                );
                let mut image = image(stride, scale, pixel_art(&mut rng, stride, rows));
                if case % 4 == 1 {
                    image.byte_values = 256;
                }
                image
            };
            assert_eq!(tokens(&image, true), tokens(&image, false), "case {case}");
        }
    }

    #[test]
    fn line_sums_of_long_lines() {
        let mut rng = xorshift(7);
        for len in [0, 1, 8, 4095, 4096, 4097, 20_000] {
            let line: Vec<u8> = (0..len).map(|_| rng() as u8 | 0xF0).collect();
            let sum = line.iter().map(|&x| u64::from(x)).sum();
            let weighted = (line.iter().enumerate())
                .map(|(i, &x)| (len - i) as u64 * u64::from(x))
                .sum();
            assert_eq!(line_sums(&line), (sum, weighted), "{len} bytes");
        }
    }

    #[test]
    fn repeated_rows_cost_almost_nothing() {
        let line: Vec<u8> = (0..27u8).map(|i| i.wrapping_mul(37)).collect();
        assert!(round_trip(&image(27, 5, line.repeat(40))) < 100);
    }

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
            minimum_redundancy(&mut lens);
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
            // A complete prefix code, its longest codes on the lightest symbols.
            let kraft: f64 = lens.iter().map(|&l| 0.5f64.powi(l as i32)).sum();
            assert!((kraft - 1.0).abs() < 1e-12, "case {case}: {lens:?}");
            assert!(lens.windows(2).all(|w| w[0] >= w[1]), "case {case}");
        }
    }

    #[test]
    fn lengths_respect_the_limit() {
        // Fibonacci frequencies make the deepest possible Huffman tree.
        let mut freq = [0u32; 30];
        let (mut a, mut b) = (1, 1);
        for f in freq.iter_mut() {
            *f = a;
            (a, b) = (b, a + b);
        }
        let lens = code_lengths(&freq, 15);
        assert!(lens.iter().all(|&l| (1..=15).contains(&l)));
        // Kraft: a complete prefix code.
        let kraft: f64 = lens.iter().map(|&l| 0.5f64.powi(l as i32)).sum();
        assert!((kraft - 1.0).abs() < 1e-9);
    }
}
