//! A small zlib/deflate encoder for PNG scanlines of scaled-up pixel art.
//!
//! A QR image repeats itself: every module is `scale` pixels tall, so each
//! scanline is either new or a copy of the one above (stored with the Up
//! filter as a row of zeros), and whole rows recur a module row later.
//! General-purpose compressors rediscover that byte by byte; this one checks
//! for whole-row repeats first, then parses only the remaining bytes with a
//! short hash chain, and codes the result as one dynamic-Huffman block. It is
//! a complete, valid deflate encoder for any input: the row hints only decide
//! which matches it tries.

/// Deflate limits.
const MIN_MATCH: usize = 3;
const MAX_MATCH: usize = 258;
const WINDOW: usize = 32 * 1024;
/// Hash-chain candidates tried per position.
const MAX_PROBES: usize = 4;
const HASH_BITS: u32 = 10;

/// One LZ77 token: a literal byte (`dist == 0`) or a back-reference.
#[derive(Clone, Copy)]
struct Token {
    len_or_byte: u16,
    dist: u16,
}

/// Appends the zlib stream of `data` to `out`. `stride` is the scanline
/// length and `scale` the number of scanlines per module row.
pub fn zlib(out: &mut Vec<u8>, data: &[u8], stride: usize, scale: usize) {
    out.extend_from_slice(&[0x78, 0xDA]); // deflate, 32K window, "best" level
    let tokens = parse(data, stride, scale);
    write_block(out, &tokens);
    out.extend_from_slice(&adler2::adler32_slice(data).to_be_bytes());
}

/// LZ77 parse: whole-row repeats at one and `scale` rows back, then a greedy
/// parse with run, column and hash-chain candidates.
fn parse(data: &[u8], stride: usize, scale: usize) -> Vec<Token> {
    thread_local! {
        // Hash-chain links, reused across calls: every entry read was written
        // in this call first (chains start at `head`, which is reset).
        static PREV: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    PREV.with_borrow_mut(|prev| {
        if prev.len() < data.len() {
            prev.resize(data.len(), u32::MAX);
        }
        parse_with(data, stride, scale, prev)
    })
}

fn parse_with(data: &[u8], stride: usize, scale: usize, prev: &mut [u32]) -> Vec<Token> {
    let mut tokens = Vec::with_capacity(data.len() / 16);
    let mut head = [u32::MAX; 1 << HASH_BITS];
    let hash = |p: usize| {
        let v = u32::from(data[p]) | u32::from(data[p + 1]) << 8 | u32::from(data[p + 2]) << 16;
        (v.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
    };
    let row_dists = [stride, scale * stride];
    let mut p = 0;
    while p < data.len() {
        // At a row start: is this row (and maybe the rows after it) a copy?
        if p % stride == 0 {
            let copied = row_dists
                .iter()
                .filter(|&&d| d <= p && d <= WINDOW)
                .map(|&d| (d, match_len(data, p, d, data.len() - p)))
                .filter(|&(_, len)| len >= stride)
                .max_by_key(|&(_, len)| len);
            // Whole rows only, and never shorter than deflate's shortest match
            // (a row of 1 or 2 bytes is left to the parse below).
            if let Some((dist, len)) = copied.map(|(d, len)| (d, len - len % stride)) {
                if len >= MIN_MATCH {
                    push_match(&mut tokens, len, dist);
                    p += len;
                    continue;
                }
            }
        }
        let best = longest_match(data, p, &head, prev, &[1, stride, scale * stride], hash);
        let insert_upto = if let Some((len, dist)) = best {
            push_match(&mut tokens, len, dist);
            p + len
        } else {
            tokens.push(Token {
                len_or_byte: u16::from(data[p]),
                dist: 0,
            });
            p + 1
        };
        // Index the bytes just covered, within the current row only (rows
        // that are copies are found above, not through the hash).
        let row_end = (p / stride + 1) * stride;
        let indexed_end = insert_upto
            .min(row_end)
            .min((data.len() + 1).saturating_sub(MIN_MATCH));
        for (q, link) in prev.iter_mut().enumerate().take(indexed_end).skip(p) {
            let h = hash(q);
            *link = head[h];
            head[h] = q as u32;
        }
        p = insert_upto;
    }
    tokens
}

/// Length of the match at `p` against `p - dist`, up to `limit`; compares
/// eight bytes at a time.
fn match_len(data: &[u8], p: usize, dist: usize, limit: usize) -> usize {
    let (a, b) = (&data[p - dist..], &data[p..p + limit]);
    let mut n = 0;
    while n + 8 <= limit {
        let x = u64::from_le_bytes(a[n..n + 8].try_into().unwrap());
        let y = u64::from_le_bytes(b[n..n + 8].try_into().unwrap());
        if x != y {
            return n + ((x ^ y).trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    while n < limit && a[n] == b[n] {
        n += 1;
    }
    n
}

fn longest_match(
    data: &[u8],
    p: usize,
    head: &[u32],
    prev: &[u32],
    fixed_dists: &[usize],
    hash: impl Fn(usize) -> usize,
) -> Option<(usize, usize)> {
    if p + MIN_MATCH > data.len() {
        return None;
    }
    let limit = MAX_MATCH.min(data.len() - p);
    let mut best: Option<(usize, usize)> = None;
    let mut consider = |dist: usize| {
        if dist == 0 || dist > p || dist > WINDOW {
            return;
        }
        // Cheap reject: a longer match must also differ from the best at its end.
        if let Some((l, _)) = best {
            if l >= limit || data[p - dist + l] != data[p + l] {
                return;
            }
        }
        let len = match_len(data, p, dist, limit);
        if len >= MIN_MATCH && best.is_none_or(|(l, d)| len > l || (len == l && dist < d)) {
            best = Some((len, dist));
        }
    };
    for &d in fixed_dists {
        consider(d);
    }
    let mut candidate = head[hash(p)];
    for _ in 0..MAX_PROBES {
        if candidate == u32::MAX {
            break;
        }
        consider(p - candidate as usize);
        candidate = prev[candidate as usize];
    }
    best
}

/// Pushes a match of any length >= 3 as tokens of at most 258 (none under 3).
fn push_match(tokens: &mut Vec<Token>, mut len: usize, dist: usize) {
    debug_assert!(len >= MIN_MATCH, "match of {len} bytes");
    while len > 0 {
        let take = if len > MAX_MATCH {
            (len - MIN_MATCH).min(MAX_MATCH)
        } else {
            len
        };
        tokens.push(Token {
            len_or_byte: take as u16,
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

fn length_code(len: u16) -> usize {
    LENGTH_BASE.partition_point(|&base| base <= len) - 1
}

fn dist_code(dist: u16) -> usize {
    DIST_BASE.partition_point(|&base| base <= dist) - 1
}

/// Writes `tokens` as one final block with dynamic Huffman codes.
fn write_block(out: &mut Vec<u8>, tokens: &[Token]) {
    let mut lit_freq = [0u32; 286];
    let mut dist_freq = [0u32; 30];
    for t in tokens {
        if t.dist == 0 {
            lit_freq[t.len_or_byte as usize] += 1;
        } else {
            lit_freq[257 + length_code(t.len_or_byte)] += 1;
            dist_freq[dist_code(t.dist)] += 1;
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
    let cl_tokens = run_length_code_lengths(&[&lit_lens[..hlit], &dist_lens[..hdist]].concat());
    let mut cl_freq = [0u32; 19];
    for &(symbol, _) in &cl_tokens {
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
    for &s in &CL_ORDER[..hclen] {
        w.bits(u32::from(cl_lens[s]), 3);
    }
    for &(symbol, extra) in &cl_tokens {
        let s = symbol as usize;
        w.bits(cl_codes[s], cl_lens[s]);
        match symbol {
            16 => w.bits(u32::from(extra), 2),
            17 => w.bits(u32::from(extra), 3),
            18 => w.bits(u32::from(extra), 7),
            _ => {}
        }
    }
    for t in tokens {
        if t.dist == 0 {
            let s = t.len_or_byte as usize;
            w.bits(lit_codes[s], lit_lens[s]);
        } else {
            let lc = length_code(t.len_or_byte);
            w.bits(lit_codes[257 + lc], lit_lens[257 + lc]);
            w.bits(u32::from(t.len_or_byte - LENGTH_BASE[lc]), LENGTH_EXTRA[lc]);
            let dc = dist_code(t.dist);
            w.bits(dist_codes[dc], dist_lens[dc]);
            w.bits(u32::from(t.dist - DIST_BASE[dc]), DIST_EXTRA[dc]);
        }
    }
    w.bits(lit_codes[END_OF_BLOCK], lit_lens[END_OF_BLOCK]);
    w.flush();
}

/// Huffman code lengths for `freq`, none longer than `max_len`. Symbols with
/// frequency 0 get length 0; a lone symbol gets length 1.
fn code_lengths<const N: usize>(freq: &[u32; N], max_len: u8) -> [u8; N] {
    let mut freq = *freq;
    loop {
        let lens = huffman_lengths(&freq);
        if lens.iter().all(|&l| l <= max_len) {
            return lens;
        }
        // Too deep: flatten the distribution and build again (rare).
        for f in freq.iter_mut().filter(|f| **f > 0) {
            *f = (*f >> 1).max(1);
        }
    }
}

fn huffman_lengths<const N: usize>(freq: &[u32; N]) -> [u8; N] {
    let mut lens = [0u8; N];
    let mut leaves: Vec<(u32, usize)> = freq
        .iter()
        .enumerate()
        .filter(|(_, &f)| f > 0)
        .map(|(s, &f)| (f, s))
        .collect();
    match leaves.len() {
        0 => return lens,
        1 => {
            lens[leaves[0].1] = 1;
            return lens;
        }
        _ => {}
    }
    leaves.sort_unstable();
    // Two-queue Huffman: leaves in order, merged nodes in creation order.
    // Node i < leaves.len() is leaf i; parent[] links every node upwards.
    let n = leaves.len();
    let mut weight: Vec<u32> = leaves.iter().map(|&(f, _)| f).collect();
    let mut parent = vec![0usize; 2 * n - 1];
    let (mut next_leaf, mut next_node) = (0, n);
    let pick = |weight: &Vec<u32>, next_leaf: &mut usize, next_node: &mut usize| {
        if *next_leaf < n
            && (*next_node >= weight.len() || weight[*next_leaf] <= weight[*next_node])
        {
            *next_leaf += 1;
            *next_leaf - 1
        } else {
            *next_node += 1;
            *next_node - 1
        }
    };
    for _ in 0..n - 1 {
        let a = pick(&weight, &mut next_leaf, &mut next_node);
        let b = pick(&weight, &mut next_leaf, &mut next_node);
        let new = weight.len();
        weight.push(weight[a] + weight[b]);
        parent[a] = new;
        parent[b] = new;
    }
    // Depths from the root (the last node) down.
    let mut depth = vec![0u8; 2 * n - 1];
    for i in (0..2 * n - 2).rev() {
        depth[i] = depth[parent[i]] + 1;
    }
    for (i, &(_, symbol)) in leaves.iter().enumerate() {
        lens[symbol] = depth[i];
    }
    lens
}

/// Canonical codes for `lens`, bit-reversed for deflate's LSB-first order.
fn canonical_codes<const N: usize>(lens: &[u8; N]) -> [u32; N] {
    let mut count = [0u32; 16];
    for &l in lens.iter().filter(|&&l| l > 0) {
        count[l as usize] += 1;
    }
    let mut next = [0u32; 16];
    let mut code = 0;
    for bits in 1..16 {
        code = (code + count[bits - 1]) << 1;
        next[bits] = code;
    }
    let mut codes = [0u32; N];
    for (s, &l) in lens.iter().enumerate().filter(|(_, &l)| l > 0) {
        codes[s] = next[l as usize].reverse_bits() >> (32 - l);
        next[l as usize] += 1;
    }
    codes
}

/// The code-length sequence with repeats folded into symbols 16, 17 and 18:
/// (symbol, extra bits value).
fn run_length_code_lengths(lens: &[u8]) -> Vec<(u8, u8)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lens.len() {
        let l = lens[i];
        let run = lens[i..].iter().take_while(|&&x| x == l).count();
        if l == 0 && run >= 3 {
            let take = run.min(138);
            out.push(if take >= 11 {
                (18, (take - 11) as u8)
            } else {
                (17, (take - 3) as u8)
            });
            i += take;
        } else if l != 0 && run >= 4 {
            out.push((l, 0));
            let take = (run - 1).min(6);
            out.push((16, (take - 3) as u8));
            i += 1 + take;
        } else {
            out.push((l, 0));
            i += 1;
        }
    }
    out
}

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

    fn bits(&mut self, value: u32, count: u8) {
        self.acc |= u64::from(value) << self.count;
        self.count += u32::from(count);
        while self.count >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.count -= 8;
        }
    }

    fn flush(&mut self) {
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

    fn round_trip(data: &[u8], stride: usize, scale: usize) -> usize {
        let mut out = Vec::new();
        zlib(&mut out, data, stride, scale);
        let back = miniz_oxide::inflate::decompress_to_vec_zlib(&out).expect("valid zlib stream");
        assert_eq!(back, data);
        out.len()
    }

    #[test]
    fn round_trips_any_bytes() {
        round_trip(b"", 1, 1);
        round_trip(b"a", 1, 1);
        round_trip(b"abcabcabcabcabc", 5, 1);
        round_trip(&[0; 100_000], 27, 5);
        let mut state = 1u32;
        let noise: Vec<u8> = (0..20_000)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (state >> 16) as u8
            })
            .collect();
        round_trip(&noise, 27, 5);
        // Skewed: long codes, exercising the length limit.
        let skewed: Vec<u8> = (0..60_000u32)
            .map(|i| (i.trailing_zeros() * 7 + i % 3) as u8)
            .collect();
        round_trip(&skewed, 33, 3);
    }

    /// Rows of `stride` bytes as a PNG of pixel art has them: each distinct
    /// row repeated up to `scale` times, some rows recurring later, some noise.
    fn pixel_art(
        rng: &mut impl FnMut() -> u32,
        stride: usize,
        scale: usize,
        rows: usize,
    ) -> Vec<u8> {
        let palette: Vec<Vec<u8>> = (0..1 + rng() % 4)
            .map(|_| (0..stride).map(|_| rng() as u8 & 0x81).collect())
            .collect();
        let mut data = Vec::with_capacity(stride * rows);
        while data.len() < stride * rows {
            let row: Vec<u8> = match rng() % 4 {
                0 => (0..stride).map(|_| rng() as u8).collect(),
                _ => palette[rng() as usize % palette.len()].clone(),
            };
            for _ in 0..1 + rng() as usize % scale {
                data.extend_from_slice(&row);
            }
        }
        data.truncate(stride * rows + rng() as usize % 3); // a ragged end too
        data
    }

    #[test]
    fn any_stride_and_scale_inflates_with_c_zlib() {
        use std::io::Read;
        let mut state = 0x9E37_79B9u32;
        let mut rng = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        for case in 0..3000 {
            let stride = 1 + rng() as usize % 70;
            let scale = 1 + rng() as usize % 9;
            let rows = rng() as usize % 60;
            let data = pixel_art(&mut rng, stride, scale, rows);
            let mut out = Vec::new();
            zlib(&mut out, &data, stride, scale);
            let mut back = Vec::new();
            flate2::read::ZlibDecoder::new(&out[..])
                .read_to_end(&mut back)
                .unwrap_or_else(|e| panic!("case {case} (stride {stride}, scale {scale}): {e}"));
            assert_eq!(back, data, "case {case} (stride {stride}, scale {scale})");
        }
    }

    #[test]
    fn repeated_rows_cost_almost_nothing() {
        let row: Vec<u8> = (0..27u8).map(|i| i.wrapping_mul(37)).collect();
        let data = row.repeat(200);
        assert!(round_trip(&data, 27, 5) < 100);
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
