//! A symbol's modules to image pixels: quiet zone, module size, 1-bit rows.

use crate::png;
use crate::symbol::Symbol;

/// The image is at least this many pixels wide and high.
pub const MIN_IMAGE_SIZE: u32 = 200;
/// Light modules around the symbol, as the QR standard asks.
pub const QUIET_ZONE_MODULES: u32 = 4;

/// Pixels per module: the smallest integer that reaches [`MIN_IMAGE_SIZE`].
pub fn module_size(symbol_width: usize) -> u32 {
    let modules = symbol_width as u32 + 2 * QUIET_ZONE_MODULES;
    MIN_IMAGE_SIZE.div_ceil(modules)
}

pub fn to_png(symbol: &Symbol) -> Vec<u8> {
    let scale = module_size(symbol.width) as usize;
    let quiet = QUIET_ZONE_MODULES as usize;
    let size = (symbol.width + 2 * quiet) * scale;
    let row_bytes = size.div_ceil(8);

    // PNG scanlines: a filter byte, then 1 bit per pixel (1 = white).
    // The first row of each module row is stored as is (filter 0); the
    // `scale - 1` rows that repeat it use the Up filter (2), which makes them
    // all zero bytes that deflate to almost nothing.
    let stride = 1 + row_bytes;
    let mut scanlines = vec![0u8; stride * size];
    let light_px = (1u64 << scale) - 1;
    for (y, line) in scanlines.chunks_exact_mut(stride * scale).enumerate() {
        let row = match y.checked_sub(quiet) {
            Some(sy) if sy < symbol.width => symbol.rows[sy] << quiet,
            _ => 0,
        };
        // Shift each module's `scale` pixel bits into an accumulator and
        // store whole bytes as they fill: a few operations per module.
        let pixels = &mut line[1..stride];
        let (mut acc, mut bits, mut at) = (0u64, 0, 0);
        for x in 0..size / scale {
            let dark = row >> x & 1 == 1;
            acc = acc << scale | if dark { 0 } else { light_px };
            bits += scale;
            while bits >= 8 {
                bits -= 8;
                pixels[at] = (acc >> bits) as u8;
                at += 1;
            }
        }
        if bits > 0 {
            // Padding bits past the image width are 1; decoders ignore them.
            pixels[at] = (acc << (8 - bits)) as u8 | (0xFF >> bits);
        }
        for repeat in line[stride..].chunks_exact_mut(stride) {
            repeat[0] = 2;
        }
    }
    png::encode_gray1(size as u32, size as u32, &scanlines, scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_size_is_smallest_reaching_200px() {
        // Version 1 is 21 modules: 29 with the quiet zone, 7 px each = 203 px.
        assert_eq!(module_size(21), 7);
        // Version 40 is 177 modules: 185 with the quiet zone, 2 px each.
        assert_eq!(module_size(177), 2);
        for width in (21..=177).step_by(4) {
            let modules = width as u32 + 8;
            let s = module_size(width);
            assert!(modules * s >= MIN_IMAGE_SIZE);
            assert!(modules * (s - 1) < MIN_IMAGE_SIZE);
        }
    }
}
