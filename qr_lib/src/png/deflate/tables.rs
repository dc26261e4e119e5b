//! The deflate format's limits and code tables (RFC 1951, 3.2.5 and 3.2.7).

/// Match lengths and the window, as the format allows them.
pub const MIN_MATCH: usize = 3;
pub const MAX_MATCH: usize = 258;
pub const WINDOW: usize = 32 * 1024;

pub const LENGTH_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
pub const LENGTH_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
pub const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
pub const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
/// The order code-length code lengths are stored in.
pub const CL_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];
pub const END_OF_BLOCK: usize = 256;

/// Length code of each match length 0..=258 (0-2 unused), built at compile time.
pub const LENGTH_CODE: [u8; 259] = {
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
pub const DIST_CODE: [u8; 512] = {
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

/// Each match length 0..=258 (0-2 unused) as the block writer codes it: its
/// length code in bits 0-7, the code's extra bit count in 8-15, their value
/// in 16 and up.
pub const LENGTH_SYMBOL: [u32; 259] = {
    let mut table = [0u32; 259];
    let mut len = 3;
    while len <= 258 {
        let code = LENGTH_CODE[len] as usize;
        let extra = (len - LENGTH_BASE[code] as usize) as u32;
        table[len] = code as u32 | (LENGTH_EXTRA[code] as u32) << 8 | extra << 16;
        len += 1;
    }
    table
};

pub fn dist_code(dist: u16) -> usize {
    let d = dist as usize - 1;
    DIST_CODE[if d < 256 { d } else { 256 + (d >> 7) }] as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_symbols_spell_every_length() {
        for (len, &symbol) in LENGTH_SYMBOL.iter().enumerate().skip(3) {
            let (code, extra_bits, extra) = (symbol & 0xFF, symbol >> 8 & 0xFF, symbol >> 16);
            let code = code as usize;
            assert_eq!(extra_bits, u32::from(LENGTH_EXTRA[code]), "{len}");
            assert!(extra < 1 << extra_bits, "{len}");
            assert_eq!(usize::from(LENGTH_BASE[code]) + extra as usize, len);
            // The largest base not past the length: the format's code.
            assert!(
                code == 28 || usize::from(LENGTH_BASE[code + 1]) > len || len == 258,
                "{len}"
            );
        }
    }
}
