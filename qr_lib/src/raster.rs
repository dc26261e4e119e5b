//! A symbol's modules to image pixels: quiet zone, module size, 1-bit rows.

use std::sync::OnceLock;

use crate::limits::{MIN_IMAGE_SIZE, QUIET_ZONE_MODULES};
use crate::symbol::Symbol;

/// The most values a pixel byte may take: the even scales from 4 up (4 at
/// scale 4, where a byte is two whole modules; 8 at 6; 2 at 8). The odd ones
/// make 16 to 28, whose literals cost the encoder more bits and whose
/// matches only a hash chain finds.
pub const SMALL_ALPHABET: usize = 8;

/// Pixels per module: the smallest that reaches [`MIN_IMAGE_SIZE`] with a
/// pixel byte of at most [`SMALL_ALPHABET`] values. Versions 1 and 2 are
/// drawn at 8, not 7; 4 to 6 at 6, not 5; 11 to 18 at 4, not 3 (19 to 25,
/// which no 512-byte text needs, at 4, not 2): larger images, PNGs no
/// larger on the bench's text sets, and about a third less work to deflate
/// a long text's (`qr_lib/benches/README.md`).
pub fn module_size(symbol_width: usize) -> u32 {
    let modules = symbol_width as u32 + 2 * QUIET_ZONE_MODULES;
    let smallest = MIN_IMAGE_SIZE.div_ceil(modules) as usize;
    (smallest..MAX_SCALE)
        .find(|&scale| spread(scale).byte_values <= SMALL_ALPHABET)
        .unwrap_or(MAX_SCALE) as u32
}

/// Eight modules of `scale` pixels are one `u64` of pixel bits (`Spread`).
const MAX_SCALE: usize = 8;

/// A square 1-bit image made of `scale`-pixel modules, as the new PNG
/// scanlines only: one per module row, `stride` bytes each (filter byte 0,
/// then the pixels packed 8 to a byte, first pixel in the top bit, 1 =
/// light). Each stands for `scale` identical image rows; the `scale - 1`
/// repeats (Up filter, all zeros) are left to the encoder.
#[derive(Default)]
pub struct Image {
    pub size: usize,
    pub scale: usize,
    pub stride: usize,
    pub lines: Vec<u8>,
    /// Each line's key: equal lines have equal keys and only they (here the
    /// module row a line is drawn from), so the encoder finds repeated rows
    /// without reading or hashing their bytes. It trusts them (debug builds
    /// check): whoever changes `lines` keys them anew.
    pub keys: Vec<u128>,
    /// How many distinct values a pixel byte can take at this scale (4 at
    /// scale 4, where a byte is two modules): the encoder's literal alphabet.
    pub byte_values: usize,
}

/// The raster stage.
pub fn image(symbol: &Symbol) -> Image {
    redraw(symbol, Image::default())
}

/// The raster stage in the memory of an earlier image, whose contents it
/// replaces: a caller that draws many images reuses its buffers.
pub fn redraw(symbol: &Symbol, image: Image) -> Image {
    let Image {
        mut lines,
        mut keys,
        ..
    } = image;
    let scale = module_size(symbol.width) as usize;
    let quiet = QUIET_ZONE_MODULES as usize;
    let modules = symbol.width + 2 * quiet;
    let size = modules * scale;
    let row_bytes = size.div_ceil(8);
    let stride = 1 + row_bytes;
    let Spread {
        table: spread,
        byte_values,
    } = spread(scale);
    let groups = row_bytes.div_ceil(scale);
    // Every byte of every line is written below (its filter byte, then
    // groups covering all `row_bytes`), so the buffer is not zeroed first: a
    // 3.7 KiB `memset` for a 510-512-byte text. Eight spare bytes at the
    // end: each group of eight modules is stored as a whole u64, whose
    // bytes past its own `scale` are overwritten by the next group, or by
    // the next line's filter byte.
    let len = stride * modules;
    lines.clear();
    lines.reserve(len + 8);
    // A line is its row's bits spread out: equal lines, equal rows.
    keys.clear();
    keys.reserve(modules);
    keys.extend(std::iter::repeat_n(0, quiet));
    keys.extend(symbol.rows[..symbol.width].iter().map(|row| row << quiet));
    keys.extend(std::iter::repeat_n(0, quiet));
    let base = lines.as_mut_ptr();
    for (y, &row) in keys.iter().enumerate() {
        // Eight modules are 8 * scale pixel bits: exactly `scale` bytes.
        // Bits past the last module are light (padding past the image
        // width, which decoders ignore).
        let store = |i: usize, group: u64| {
            let bytes = spread[usize::from(group as u8)];
            // SAFETY: the eight bytes from `y * stride + 1 + i * scale`
            // (i < groups) end at most at `y * stride + 1 + (groups - 1) *
            // scale + 8 <= (y + 1) * stride + 8 <= len + 8`, the capacity.
            unsafe {
                let at = base.add(y * stride + 1 + i * scale);
                at.cast::<[u8; 8]>().write_unaligned(bytes);
            }
        };
        // Filter: none. (The last group of the line above may have spilt
        // its padding here.)
        // SAFETY: `y * stride < len`.
        unsafe { base.add(y * stride).write(0) };
        // The row's halves a group at a time (a u128 shift is several).
        let (mut low, mut high) = (row as u64, (row >> 64) as u64);
        for i in 0..groups.min(8) {
            store(i, low);
            low >>= 8;
        }
        for i in 8..groups {
            store(i, high);
            high >>= 8;
        }
    }
    // SAFETY: each line's filter byte and its `groups * scale >= row_bytes`
    // pixel bytes are written above, in line order: all `len` bytes.
    unsafe { lines.set_len(len) };
    Image {
        size,
        scale,
        stride,
        lines,
        keys,
        byte_values: *byte_values,
    }
}

#[cfg(test)]
impl Image {
    /// An image of any `lines`, keyed by the first line equal to each.
    pub fn of_lines(
        size: usize,
        scale: usize,
        stride: usize,
        lines: Vec<u8>,
        byte_values: usize,
    ) -> Self {
        let rows: Vec<&[u8]> = lines.chunks_exact(stride).collect();
        let keys = (0..rows.len())
            .map(|k| rows.iter().position(|&row| row == rows[k]).unwrap() as u128)
            .collect();
        Self {
            size,
            scale,
            stride,
            lines,
            keys,
            byte_values,
        }
    }
}

struct Spread {
    /// For each byte of eight modules (bit `i` set = module `i` dark): their
    /// `8 * scale` pixel bits, first module in the top bit of the first
    /// byte, 1 = light, as the bytes to store (the rest zero).
    table: [[u8; 8]; 256],
    /// How many distinct bytes those pixel bits hold.
    byte_values: usize,
}

fn spread(scale: usize) -> &'static Spread {
    // Boxed, like the Reed-Solomon divisors: unused scales cost a pointer.
    static TABLES: [OnceLock<Box<Spread>>; MAX_SCALE + 1] =
        [const { OnceLock::new() }; MAX_SCALE + 1];
    TABLES[scale].get_or_init(|| {
        let light = (1u64 << scale) - 1;
        let table: [[u8; 8]; 256] = std::array::from_fn(|byte| {
            let bits = (0..8).fold(0, |acc, i| {
                let dark = byte >> i & 1 == 1;
                acc << scale | if dark { 0 } else { light }
            });
            (bits << (64 - 8 * scale)).to_be_bytes()
        });
        let mut seen = [false; 256];
        for bytes in table {
            for &b in &bytes[..scale] {
                seen[b as usize] = true;
            }
        }
        let byte_values = seen.iter().filter(|&&s| s).count();
        Box::new(Spread { table, byte_values })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbol::encode;

    #[test]
    fn equal_keys_exactly_where_lines_are_equal() {
        let mut rng = crate::xorshift(0x6E75);
        for case in 0..300 {
            let len = 1 + rng() as usize % 512;
            let text: String = (0..len)
                .map(|_| (b'!' + (rng() % 90) as u8) as char)
                .collect();
            // Drawn afresh and over an earlier image of another size.
            let fresh = image(&encode(text.as_bytes()).unwrap());
            let earlier = image(&encode(&text.as_bytes()[..len / 2 + 1]).unwrap());
            let image = redraw(&encode(text.as_bytes()).unwrap(), earlier);
            assert_eq!(image.lines, fresh.lines, "case {case}");
            assert_eq!(image.keys, fresh.keys, "case {case}");
            let lines: Vec<&[u8]> = image.lines.chunks_exact(image.stride).collect();
            assert_eq!(image.keys.len(), lines.len(), "case {case}");
            for j in 0..lines.len() {
                for k in 0..j {
                    assert_eq!(
                        image.keys[j] == image.keys[k],
                        lines[j] == lines[k],
                        "case {case}: lines {k} and {j}"
                    );
                }
            }
        }
    }

    #[test]
    fn byte_values_per_scale() {
        // A byte of 8 pixels spans two modules at scale 4, up to three at 3.
        let values: Vec<usize> = (2..=8).map(|s| spread(s).byte_values).collect();
        assert_eq!(values, [16, 28, 4, 20, 8, 16, 2]);
        for text in ["https://example.com/", &"x".repeat(300)] {
            let image = image(&encode(text.as_bytes()).unwrap());
            let mut seen = [false; 256];
            for (i, &b) in image.lines.iter().enumerate() {
                seen[b as usize] |= i % image.stride != 0;
            }
            let used = seen.iter().filter(|&&s| s).count();
            assert!(used <= image.byte_values, "{used} > {}", image.byte_values);
        }
    }

    #[test]
    fn module_size_is_smallest_reaching_200px_with_a_small_alphabet() {
        // Version 1 is 21 modules: 29 with the quiet zone; 7 px each would
        // be 203 px, but a byte of scale-7 pixels takes 16 values: 8 px.
        assert_eq!(module_size(21), 8);
        // Version 15 is 77 modules: 85 with the quiet zone, 4 px (not 3).
        assert_eq!(module_size(77), 4);
        // Version 3 is 29: 37, and 6 px (8 values) are the smallest.
        assert_eq!(module_size(29), 6);
        for width in (21..=177).step_by(4) {
            let modules = width as u32 + 8;
            let s = module_size(width);
            assert!(modules * s >= MIN_IMAGE_SIZE);
            assert!(spread(s as usize).byte_values <= SMALL_ALPHABET || s as usize == MAX_SCALE);
            for smaller in MIN_IMAGE_SIZE.div_ceil(modules)..s {
                assert!(
                    spread(smaller as usize).byte_values > SMALL_ALPHABET,
                    "{width}: {smaller}"
                );
            }
        }
    }
}
