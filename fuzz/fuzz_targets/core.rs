//! Any bytes (up to a little past the 512-byte limit, valid UTF-8 or not): an
//! error exactly when the input rules say so, otherwise a PNG that decodes to
//! exactly the text and draws the `qrcode` crate's symbol pixel for pixel
//! (at the core's module size).
#![no_main]

use libfuzzer_sys::fuzz_target;
use qr_lib::{generate_qr_code_from_utf8, validate_text, QrError};

#[path = "../../qr_lib/benches/baseline.rs"]
#[allow(dead_code)]
mod baseline;
#[path = "../../qr_lib/tests/common/png_pixels.rs"]
mod png_pixels;

use png_pixels::{pixels, read_qr};

fuzz_target!(|data: &[u8]| {
    if data.len() > 600 {
        return;
    }
    let result = generate_qr_code_from_utf8(data);
    let text = match std::str::from_utf8(data) {
        Ok(text) => text,
        Err(_) => return assert_eq!(result, Err(QrError::InvalidUtf8)),
    };
    if let Err(expected) = validate_text(text) {
        return assert_eq!(result, Err(expected));
    }
    let png = result.expect("valid text encodes");
    let (size, pixels) = pixels(&png);
    assert!(size >= qr_lib::MIN_IMAGE_SIZE);
    let quiet = 2 * qr_lib::QUIET_ZONE_MODULES;
    let (their_size, their_pixels) = baseline::render_at(text, |width| size / (width + quiet));
    assert_eq!(size, their_size, "image size for {text:?}");
    assert!(
        pixels == their_pixels,
        "the qrcode crate's symbol for {text:?}"
    );
    // rqrr cannot read every valid symbol: on a 240-byte text its format
    // check failed (FormatEcc) where zbarimg decodes the same PNG to exactly
    // the text. The pixels are the qrcode crate's (above), so what rqrr
    // reads must be the text, and what it cannot read is its own limit.
    if let Some((_, decoded)) = read_qr(size as usize, &pixels) {
        assert_eq!(decoded, data, "decodes to the text");
    }
});
