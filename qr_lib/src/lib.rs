//! Text in, QR-code PNG out: the one core behind every tier.
//!
//! Every binding (CLI, HTTP server, napi addon, Wasm) calls
//! [`generate_qr_code`] or [`generate_qr_code_from_utf8`] and reuses
//! [`QrError`]'s messages and codes, so the input rules live here only.

mod data_bits;
mod deflate;
mod error;
mod mask;
mod png;
mod raster;
mod reed_solomon;
mod segments;
mod symbol;

pub use error::QrError;
pub use raster::{MIN_IMAGE_SIZE, QUIET_ZONE_MODULES};
/// The segmentation every tier uses, for benches and tests that build the
/// same symbol another way.
#[doc(hidden)]
pub use symbol::encode_bits;
/// Capacities behind the compile-time version limit, for tests.
#[doc(hidden)]
pub use symbol::{BYTE_CAPACITY_L, MAX_VERSION};

/// The pipeline one stage at a time, for the core bench's breakdown: each
/// function takes the previous one's output, and [`generate_qr_code`] is
/// their composition.
#[doc(hidden)]
pub mod stages {
    pub use crate::deflate::zlib as deflate;
    pub use crate::png::encode_gray1 as png;
    pub use crate::raster::{image as raster, Image};
    pub use crate::symbol::{
        choose_mask, error_correction, place, segment, Codewords, DataCodewords, Placed, Symbol,
    };
}

/// With the `testing` feature only: the text that makes the generator panic.
#[cfg(feature = "testing")]
pub const PANIC_TEXT: &str = "__qr_toolkit_panic__";

/// Longest accepted text, in UTF-8 bytes.
pub const MAX_TEXT_BYTES: usize = 512;

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
    Ok(raster::to_png(&symbol))
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
