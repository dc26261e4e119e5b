//! The yardstick, not shipped code: the original article's configuration.
//! The `qrcode` crate picks the mask and renders 8-bit `Luma` pixels, and the
//! `image` crate writes the PNG at Default compression with no filter.
//!
//! The one change: the data bits come from `qr_lib::encode_bits`, so CJK text
//! is not mis-encoded as Kanji and both paths draw the same symbol.

use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ImageEncoder, Luma};
use qrcode::{EcLevel, QrCode};

fn symbol(text: &str) -> QrCode {
    let bits = qr_lib::encode_bits(text.as_bytes()).expect("valid text");
    QrCode::with_bits(bits, EcLevel::L).expect("encodable")
}

/// The baseline symbol as 8-bit grayscale pixels: (size, pixels), at the
/// smallest module size that reaches 200 px, as the article drew it.
pub fn render(text: &str) -> (u32, Vec<u8>) {
    let image = symbol(text)
        .render::<Luma<u8>>()
        .min_dimensions(200, 200)
        .build();
    (image.width(), image.into_raw())
}

/// The same symbol with `module_size(width)` pixels per module, where
/// `width` is the symbol's in modules, without the quiet zone.
#[allow(dead_code)] // `tests/same_symbol.rs` and the core fuzz target draw at the core's size.
pub fn render_at(text: &str, module_size: impl FnOnce(u32) -> u32) -> (u32, Vec<u8>) {
    let code = symbol(text);
    let m = module_size(code.width() as u32);
    let image = code.render::<Luma<u8>>().module_dimensions(m, m).build();
    (image.width(), image.into_raw())
}

pub fn generate_qr_code(text: &str) -> Vec<u8> {
    let (size, pixels) = render(text);
    let mut png = Vec::new();
    PngEncoder::new_with_quality(&mut png, CompressionType::Default, FilterType::NoFilter)
        .write_image(&pixels, size, size, image::ExtendedColorType::L8)
        .expect("in-memory PNG");
    png
}
