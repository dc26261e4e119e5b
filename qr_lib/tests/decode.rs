//! The PNG decodes back to exactly the input text, at the promised size.

use qr_lib::{
    generate_qr_code, generate_qr_code_from_utf8, QrError, MAX_TEXT_BYTES, MIN_IMAGE_SIZE,
};

#[path = "common/png_pixels.rs"]
mod png_pixels;

use png_pixels::{pixels, read_qr};

const FIXTURE: &str = include_str!("../../test/fixtures/texts.json");

/// Decodes a PNG from `generate_qr_code` and returns (image size, decoded text).
fn decode(png_bytes: &[u8]) -> (u32, String) {
    let (size, text, _) = decode_with_version(png_bytes);
    (size, text)
}

/// (image size, decoded text, QR version).
fn decode_with_version(png_bytes: &[u8]) -> (u32, String, usize) {
    let (size, pixels) = pixels(png_bytes);
    let (version, bytes) = read_qr(size as usize, &pixels).expect("rqrr reads it");
    (size, String::from_utf8(bytes).unwrap(), version)
}

/// Every string in the shared fixture: `urls` and the values of `edge`.
fn fixture_texts() -> Vec<String> {
    let fixture: serde_json::Value = serde_json::from_str(FIXTURE).unwrap();
    let urls = fixture["urls"].as_array().unwrap().iter();
    let edge = fixture["edge"].as_object().unwrap().values();
    urls.chain(edge)
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn fixture_texts_round_trip() {
    let texts = fixture_texts();
    assert!(texts.len() >= 20);
    for text in texts {
        let png = generate_qr_code(&text).unwrap();
        let (size, decoded) = decode(&png);
        assert_eq!(decoded, text);
        assert!(size >= MIN_IMAGE_SIZE);
    }
}

#[test]
fn awkward_texts_round_trip() {
    for text in [
        "\0",
        "a\0b",
        "%",
        "&#+",
        "你好，世界",
        "🦀",
        "12345678901234567890ABCDEF",
        "ÉÀ",
    ] {
        assert_eq!(decode(&generate_qr_code(text).unwrap()).1, text);
    }
}

#[test]
fn longest_texts_round_trip() {
    let ascii = "z".repeat(MAX_TEXT_BYTES);
    assert_eq!(decode(&generate_qr_code(&ascii).unwrap()).1, ascii);
    // 128 four-byte chars: 512 bytes exactly.
    let crabs = "🦀".repeat(MAX_TEXT_BYTES / 4);
    assert_eq!(decode(&generate_qr_code(&crabs).unwrap()).1, crabs);
}

#[test]
fn input_rules() {
    assert_eq!(generate_qr_code(""), Err(QrError::EmptyText));
    assert_eq!(
        generate_qr_code(&"a".repeat(MAX_TEXT_BYTES + 1)),
        Err(QrError::TextTooLong)
    );
    // 171 three-byte chars = 513 bytes but only 171 UTF-16 units.
    assert_eq!(
        generate_qr_code(&"€".repeat(171)),
        Err(QrError::TextTooLong)
    );
    assert_eq!(
        generate_qr_code_from_utf8(b"\xFF"),
        Err(QrError::InvalidUtf8)
    );
    assert_eq!(
        generate_qr_code_from_utf8(b"ok").unwrap(),
        generate_qr_code("ok").unwrap()
    );
}

#[test]
fn output_is_deterministic() {
    assert_eq!(
        generate_qr_code("same").unwrap(),
        generate_qr_code("same").unwrap()
    );
}

#[test]
fn every_reachable_version_round_trips() {
    // The longest byte-mode text each version holds, up to the 512-byte limit:
    // one text per version a request can reach (byte mode needs the most bits).
    let mut versions = Vec::new();
    for (i, &capacity) in qr_lib::BYTE_CAPACITY_L.iter().enumerate() {
        let version = i + 1;
        let text = "x".repeat(capacity.min(MAX_TEXT_BYTES));
        let png = generate_qr_code(&text).unwrap();
        let (size, decoded, decoded_version) = decode_with_version(&png);
        assert_eq!(decoded, text, "version {version}");
        assert!(size >= MIN_IMAGE_SIZE);
        versions.push(decoded_version);
        if capacity >= MAX_TEXT_BYTES {
            break;
        }
    }
    // 1 to 15: 520 bytes fit version 15 at level L.
    assert_eq!(versions, (1..=15).collect::<Vec<_>>());
}
