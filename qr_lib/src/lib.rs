//! Text in, QR-code PNG out: the one core behind every tier.
//!
//! Every binding (CLI, HTTP server, napi addon, Wasm) calls
//! [`generate_qr_code`] or [`generate_qr_code_from_utf8`] and reuses
//! [`QrError`]'s messages and codes, so the input rules live here only.
//!
//! The pipeline runs one way, and this file is the only place that knows
//! its order: `symbol` (segments and data bits, Reed-Solomon, placement,
//! mask) makes a [`stages::Symbol`], `raster` draws it as an [`stages::Image`],
//! `png` (with its `deflate`) writes the file. A stage reads the types of
//! the stages before it and the shared `limits` and `kept`, never a later
//! stage.

use std::cell::Cell;

mod error;
mod kept;
mod limits;
mod png;
mod raster;
mod symbol;

pub use error::QrError;
/// Capacities behind the compile-time version limit, for tests.
#[doc(hidden)]
pub use limits::{BYTE_CAPACITY_L, MAX_VERSION};
pub use limits::{MAX_TEXT_BYTES, MIN_IMAGE_SIZE, QUIET_ZONE_MODULES};
/// The segmentation every tier uses, for benches and tests that build the
/// same symbol another way.
#[doc(hidden)]
pub use symbol::encode_bits;

/// The pipeline one stage at a time, for the core bench's breakdown: each
/// function takes the previous one's output, and [`generate_qr_code`] is
/// their composition.
#[doc(hidden)]
pub mod stages {
    pub use crate::png::encode_gray1 as png;
    pub use crate::png::zlib as deflate;
    pub use crate::raster::{image as raster, Image};
    pub use crate::symbol::{
        choose_mask, error_correction, place, segment, Codewords, DataCodewords, Placed, Symbol,
    };
}

/// With the `testing` feature only: the text that makes the generator panic.
#[cfg(feature = "testing")]
pub const PANIC_TEXT: &str = "__qr_toolkit_panic__";

/// Encodes `text` as a QR code (error correction L, byte/numeric/alphanumeric
/// segments) and returns it as a 1-bit grayscale PNG at least
/// [`MIN_IMAGE_SIZE`] pixels square, with a [`QUIET_ZONE_MODULES`] quiet zone.
pub fn generate_qr_code(text: &str) -> Result<Vec<u8>, QrError> {
    #[cfg(feature = "testing")]
    if text == PANIC_TEXT {
        panic!("test-only panic");
    }
    validate_text(text)?;
    let symbol = symbol::encode(text.as_bytes())?;
    kept::with_kept(&BUFFERS, |(image, out)| {
        *image = raster::redraw(&symbol, std::mem::take(image));
        png::encode_gray1_in(image, out);
        Ok(out.to_vec())
    })
}

thread_local! {
    /// The image and the PNG being written, kept from call to call: the two
    /// largest buffers of a call (over a kilobyte, past the allocator's fast
    /// path) are allocated once per thread, and the PNG returned is one
    /// allocation of its own size (see `kept`).
    static BUFFERS: Cell<(raster::Image, Vec<u8>)> = Cell::default();
}

/// Like [`generate_qr_code`] for callers that hold raw bytes (stdin, a Wasm
/// buffer): rejects bytes that are not valid UTF-8.
pub fn generate_qr_code_from_utf8(bytes: &[u8]) -> Result<Vec<u8>, QrError> {
    let text = std::str::from_utf8(bytes).map_err(|_| QrError::InvalidUtf8)?;
    generate_qr_code(text)
}

/// Checks the input rules without encoding anything.
pub fn validate_text(text: &str) -> Result<(), QrError> {
    if text.is_empty() {
        Err(QrError::EmptyText)
    } else if text.len() > MAX_TEXT_BYTES {
        Err(QrError::TextTooLong)
    } else {
        Ok(())
    }
}

/// Tests' seeded random numbers (xorshift32): the same sequence every run.
#[cfg(test)]
fn xorshift(mut state: u32) -> impl FnMut() -> u32 {
    move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    }
}

/// The tests' PNG reader, shared with tests/ and the fuzz target.
#[cfg(test)]
#[path = "../tests/common/png_pixels.rs"]
mod png_pixels;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbol::{encode, Symbol};

    fn to_png(symbol: &Symbol) -> Vec<u8> {
        png::encode_gray1(&raster::image(symbol))
    }

    /// Decodes a PNG of `to_png` with rqrr: (version, text).
    fn decode(png_bytes: &[u8]) -> (usize, String) {
        let (size, pixels) = crate::png_pixels::pixels(png_bytes);
        let (version, bytes) = crate::png_pixels::read_qr(size as usize, &pixels).unwrap();
        (version, String::from_utf8(bytes).unwrap())
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
}
