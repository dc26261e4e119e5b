//! The fast core draws exactly the baseline's symbol: same version, mask
//! and quiet zone, so the same pixels once the baseline draws its modules
//! at the core's size (the core's rule for it: `raster::module_size` and
//! its test).

// The bench-only baseline; this test uses its pixels, not its PNG.
#[path = "../benches/baseline.rs"]
#[allow(dead_code)]
mod baseline;
#[path = "common/png_pixels.rs"]
mod png_pixels;

use png_pixels::pixels;

const FIXTURE: &str = include_str!("../../test/fixtures/texts.json");

fn assert_same_symbol(text: &str) {
    let ours = pixels(&qr_lib::generate_qr_code(text).unwrap());
    assert!(ours.0 >= qr_lib::MIN_IMAGE_SIZE, "image size for {text:?}");
    let quiet = 2 * qr_lib::QUIET_ZONE_MODULES;
    let theirs = baseline::render_at(text, |width| {
        // The core's rule for texts up to 512 bytes: the smallest of 4, 6
        // and 8 px a module (a pixel byte of at most 8 values) reaching 200.
        let modules = width + quiet;
        let expected = [4, 6, 8]
            .into_iter()
            .find(|&m| modules * m >= qr_lib::MIN_IMAGE_SIZE)
            .unwrap();
        assert_eq!(ours.0 / modules, expected, "module size for {text:?}");
        expected
    });
    assert_eq!(ours.0, theirs.0, "image size for {text:?}");
    assert!(ours.1 == theirs.1, "pixels differ for {text:?}");
}

#[test]
fn shared_texts() {
    let fixture: serde_json::Value = serde_json::from_str(FIXTURE).unwrap();
    let urls = fixture["urls"].as_array().unwrap().iter();
    let edge = fixture["edge"].as_object().unwrap().values();
    for text in urls.chain(edge) {
        assert_same_symbol(text.as_str().unwrap());
    }
}

#[test]
fn seeded_random_texts() {
    // xorshift64*, fixed seed: the same 3,000 texts every run.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    // Alphabets that drive every segment mode and byte width.
    const PIECES: [&str; 8] = [
        "0123456789",
        "ABCXYZ $%*+-./:",
        "abcxyz",
        "?&=#",
        "é",
        "€",
        "你好",
        "🦀",
    ];
    for _ in 0..3000 {
        let target = 1 + (next() % 512) as usize;
        let mut text = String::new();
        loop {
            let piece = PIECES[(next() % PIECES.len() as u64) as usize];
            let c = piece
                .chars()
                .nth((next() % piece.chars().count() as u64) as usize)
                .unwrap();
            if text.len() + c.len_utf8() > target {
                break;
            }
            text.push(c);
        }
        if text.is_empty() {
            text.push('a');
        }
        assert_same_symbol(&text);
    }
}

#[test]
fn every_text_length_and_so_every_version() {
    // Byte-mode texts of every length up to the limit reach every version
    // 512 bytes can need (1 to 15), each at both ends of its capacity.
    let mut versions = std::collections::BTreeSet::new();
    for len in 1..=qr_lib::MAX_TEXT_BYTES {
        let text = "x".repeat(len);
        assert_same_symbol(&text);
        use qr_lib::stages::*;
        let symbol = choose_mask(&place(&error_correction(
            &segment(text.as_bytes()).unwrap(),
        )));
        versions.insert((symbol.width - 17) / 4);
    }
    assert_eq!(versions, (1..=15).collect());
}
