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
    let mut module_row = vec![0xFFu8; row_bytes];
    for (y, line) in scanlines.chunks_exact_mut(stride * scale).enumerate() {
        module_row.fill(0xFF);
        if (quiet..quiet + symbol.width).contains(&y) {
            let dark = &symbol.dark[(y - quiet) * symbol.width..][..symbol.width];
            for (x, _) in dark.iter().enumerate().filter(|(_, &d)| d) {
                let first_px = (x + quiet) * scale;
                for px in first_px..first_px + scale {
                    module_row[px / 8] &= !(0x80 >> (px % 8));
                }
            }
        }
        // Padding bits past the image width stay 1; decoders ignore them.
        line[1..stride].copy_from_slice(&module_row);
        for repeat in line[stride..].chunks_exact_mut(stride) {
            repeat[0] = 2;
        }
    }
    png::encode_gray1(size as u32, size as u32, &scanlines)
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
