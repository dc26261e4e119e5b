//! Any bytes (up to a little past the 512-byte limit, valid UTF-8 or not): an
//! error exactly when the input rules say so, otherwise a PNG that decodes to
//! exactly the text and draws the `qrcode` crate's symbol pixel for pixel.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qr_lib::{generate_qr_code_from_utf8, validate_text, QrError};

#[path = "../../qr_lib/benches/baseline.rs"]
#[allow(dead_code)]
mod baseline;

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
    let (their_size, their_pixels) = baseline::render(text);
    assert_eq!(size, their_size, "image size for {text:?}");
    assert!(
        pixels == their_pixels,
        "the qrcode crate's symbol for {text:?}"
    );
    // rqrr cannot read every valid symbol: on a 240-byte text its format
    // check failed (FormatEcc) where zbarimg decodes the same PNG to exactly
    // the text. The pixels are the qrcode crate's (above), so what rqrr
    // reads must be the text, and what it cannot read is its own limit.
    if let Some(decoded) = decode(size as usize, &pixels) {
        assert_eq!(decoded, data, "decodes to the text");
    }
});

/// The PNG's pixels as 0 (dark) / 255 (light), the baseline's form.
fn pixels(png_bytes: &[u8]) -> (u32, Vec<u8>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png_bytes))
        .read_info()
        .expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("sized")];
    let info = reader.next_frame(&mut buf).expect("one frame");
    assert_eq!(info.width, info.height, "square");
    let size = info.width as usize;
    let row_bytes = size.div_ceil(8);
    let px = (0..size * size)
        .map(|i| {
            let (x, y) = (i % size, i / size);
            if buf[y * row_bytes + x / 8] & (0x80 >> (x % 8)) != 0 {
                255
            } else {
                0
            }
        })
        .collect();
    (info.width, px)
}

/// What rqrr reads from the symbol, or None where rqrr fails to.
fn decode(size: usize, pixels: &[u8]) -> Option<Vec<u8>> {
    let mut image =
        rqrr::PreparedImage::prepare_from_greyscale(size, size, |x, y| pixels[y * size + x]);
    let grids = image.detect_grids();
    assert_eq!(grids.len(), 1, "exactly one QR code");
    let mut bytes = Vec::new();
    grids[0].decode_to(&mut bytes).ok()?;
    Some(bytes)
}
