//! Reed-Solomon error correction for level L, table-driven.
//!
//! Each block's EC codewords are the remainder of the data polynomial divided
//! by the generator. Per data byte the division shifts the remainder one byte
//! and XORs in a precomputed multiple of the generator: one table row per
//! lead byte, held as two `u128` words, so a step is a few word operations
//! instead of one GF(256) multiplication per EC byte.

use std::sync::OnceLock;

use crate::limits::MAX_VERSION;

/// Level L block layout of versions 1 to 25 (ISO/IEC 18004 table 9):
/// (EC codewords per block, blocks in group 1, data codewords per group-1
/// block, blocks in group 2). Group-2 blocks hold one data codeword more.
const BLOCKS_L: [(usize, usize, usize, usize); MAX_VERSION as usize] = [
    (7, 1, 19, 0),
    (10, 1, 34, 0),
    (15, 1, 55, 0),
    (20, 1, 80, 0),
    (26, 1, 108, 0),
    (18, 2, 68, 0),
    (20, 2, 78, 0),
    (24, 2, 97, 0),
    (30, 2, 116, 0),
    (18, 2, 68, 2),
    (20, 4, 81, 0),
    (24, 2, 92, 2),
    (26, 4, 107, 0),
    (30, 3, 115, 1),
    (22, 5, 87, 1),
    (24, 5, 98, 1),
    (28, 1, 107, 5),
    (30, 5, 120, 1),
    (28, 3, 113, 4),
    (28, 3, 107, 5),
    (28, 4, 116, 4),
    (28, 2, 111, 7),
    (30, 4, 121, 5),
    (30, 6, 117, 4),
    (26, 8, 106, 4),
];

/// EC codewords per block never exceed 30: the remainder fits 32 bytes.
const MAX_EC: usize = 32;

/// GF(256) with the QR polynomial x^8 + x^4 + x^3 + x^2 + 1.
struct Field {
    exp: [u8; 512],
    log: [u8; 256],
}

const FIELD: Field = {
    let mut exp = [0u8; 512];
    let mut log = [0u8; 256];
    let mut x: u16 = 1;
    let mut i = 0;
    while i < 255 {
        exp[i] = x as u8;
        exp[i + 255] = x as u8;
        log[x as usize] = i as u8;
        x <<= 1;
        if x & 0x100 != 0 {
            x ^= 0x11D;
        }
        i += 1;
    }
    Field { exp, log }
};

fn mul(a: u8, b: u8) -> u8 {
    if a == 0 || b == 0 {
        0
    } else {
        FIELD.exp[FIELD.log[a as usize] as usize + FIELD.log[b as usize] as usize]
    }
}

/// A remainder of up to 32 bytes, byte 0 (the leading coefficient) in the
/// top bits of `hi`.
#[derive(Clone, Copy, Default)]
struct Wide {
    hi: u128,
    lo: u128,
}

/// For an EC length `n`: row `c` is `c` times the generator's low `n`
/// coefficients, left-aligned in a `Wide`.
struct Divisor {
    rows: [Wide; 256],
}

fn divisor(n: usize) -> &'static Divisor {
    // Boxed: a `OnceLock<Divisor>` static is 8 KiB of initialised `.data`
    // per EC length (250 KiB in every binary); a box is a pointer until used.
    static DIVISORS: [OnceLock<Box<Divisor>>; MAX_EC + 1] = [const { OnceLock::new() }; MAX_EC + 1];
    DIVISORS[n].get_or_init(|| {
        // g(x) = (x - a^0)(x - a^1)...(x - a^(n-1)), monic; g[0] is x^n's.
        let mut g = vec![1u8];
        for i in 0..n {
            let root = FIELD.exp[i];
            let mut next = vec![0u8; g.len() + 1];
            for (j, &c) in g.iter().enumerate() {
                next[j] ^= c;
                next[j + 1] ^= mul(c, root);
            }
            g = next;
        }
        let mut rows = [Wide::default(); 256];
        for (c, row) in rows.iter_mut().enumerate() {
            let mut bytes = [0u8; MAX_EC];
            for (b, &coefficient) in bytes.iter_mut().zip(&g[1..]) {
                *b = mul(c as u8, coefficient);
            }
            *row = Wide {
                hi: u128::from_be_bytes(bytes[..16].try_into().unwrap()),
                lo: u128::from_be_bytes(bytes[16..].try_into().unwrap()),
            };
        }
        Box::new(Divisor { rows })
    })
}

/// The `n` EC codewords of one block.
fn ec_codewords(data: &[u8], n: usize, out: &mut [u8]) {
    let rows = &divisor(n).rows;
    let mut r = Wide::default();
    for &d in data {
        let lead = (r.hi >> 120) as u8 ^ d;
        let t = rows[lead as usize];
        r = Wide {
            hi: (r.hi << 8 | r.lo >> 120) ^ t.hi,
            lo: r.lo << 8 ^ t.lo,
        };
    }
    let mut bytes = [0u8; MAX_EC];
    bytes[..16].copy_from_slice(&r.hi.to_be_bytes());
    bytes[16..].copy_from_slice(&r.lo.to_be_bytes());
    out.copy_from_slice(&bytes[..n]);
}

/// Data then EC codewords of version `number` at level L, each interleaved
/// across the blocks: the order they are placed in.
pub fn interleaved_codewords(data: &[u8], number: usize) -> Vec<u8> {
    let (ec_len, short_blocks, short_len, long_blocks) = BLOCKS_L[number - 1];
    let blocks = short_blocks + long_blocks;
    debug_assert_eq!(
        data.len(),
        short_blocks * short_len + long_blocks * (short_len + 1)
    );
    let mut ec = [0u8; MAX_EC];
    if blocks == 1 {
        // Versions 1 to 5: nothing to interleave.
        ec_codewords(data, ec_len, &mut ec[..ec_len]);
        return [data, &ec[..ec_len]].concat();
    }
    let mut out = vec![0u8; data.len() + blocks * ec_len];
    let (data_out, ec_out) = out.split_at_mut(data.len());
    let mut start = 0;
    for b in 0..blocks {
        let len = short_len + usize::from(b >= short_blocks);
        let block = &data[start..start + len];
        start += len;
        // Codeword i of every block comes before codeword i + 1 of any; the
        // extra codeword of the long blocks comes after all the others.
        let column = data_out[b..].iter_mut().step_by(blocks);
        for (out, &word) in column.zip(&block[..short_len]) {
            *out = word;
        }
        if let Some(&extra) = block.get(short_len) {
            data_out[short_len * blocks + (b - short_blocks)] = extra;
        }
        ec_codewords(block, ec_len, &mut ec[..ec_len]);
        for (out, &word) in ec_out[b..].iter_mut().step_by(blocks).zip(&ec[..ec_len]) {
            *out = word;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use qrcode::types::Version;
    use qrcode::{ec, EcLevel};

    #[test]
    fn matches_the_crate_on_every_version() {
        let mut rng = crate::xorshift(0x1234_5678);
        for number in 1..=MAX_VERSION as usize {
            let (_, short_blocks, short_len, long_blocks) = BLOCKS_L[number - 1];
            let len = short_blocks * short_len + long_blocks * (short_len + 1);
            for _ in 0..20 {
                let data: Vec<u8> = (0..len).map(|_| rng() as u8).collect();
                let (d, e) =
                    ec::construct_codewords(&data, Version::Normal(number as i16), EcLevel::L)
                        .unwrap();
                assert_eq!(
                    interleaved_codewords(&data, number),
                    [d, e].concat(),
                    "version {number}"
                );
            }
        }
    }
}
