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
    use crate::symbol::{encode, BYTE_CAPACITY_L, MAX_VERSION};

    /// Decodes a PNG of `to_png` with rqrr: (version, text).
    fn decode(png_bytes: &[u8]) -> (usize, String) {
        let mut reader = ::png::Decoder::new(std::io::Cursor::new(png_bytes))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        let (w, h) = (info.width as usize, info.height as usize);
        let row_bytes = w.div_ceil(8);
        let light = |x: usize, y: usize| buf[y * row_bytes + x / 8] & (0x80 >> (x % 8)) != 0;
        let mut img =
            rqrr::PreparedImage::prepare_from_greyscale(
                w,
                h,
                |x, y| {
                    if light(x, y) {
                        255
                    } else {
                        0
                    }
                },
            );
        let grids = img.detect_grids();
        assert_eq!(grids.len(), 1, "exactly one QR code");
        let mut bytes = Vec::new();
        let meta = grids[0].decode_to(&mut bytes).unwrap();
        (meta.version.0, String::from_utf8(bytes).unwrap())
    }

    #[test]
    fn draws_every_version_up_to_the_limit() {
        // Beyond MAX_TEXT_BYTES, straight through the symbol and raster: the
        // quiet zone and finder patterns of the widest rows survive.
        for version in [16, 20, 24, MAX_VERSION as usize] {
            let text = "x".repeat(BYTE_CAPACITY_L[version - 1]);
            let symbol = encode(text.as_bytes()).unwrap();
            assert_eq!(symbol.width, 17 + 4 * version);
            assert_eq!(decode(&to_png(&symbol)), (version, text));
        }
        let too_big = "x".repeat(BYTE_CAPACITY_L[MAX_VERSION as usize - 1] + 1);
        assert!(encode(too_big.as_bytes()).is_err());
    }

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
