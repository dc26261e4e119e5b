//! The PNGs stay as small as they are: a change to the encoder that finds
//! fewer matches (or codes them worse) fails here, not only in the
//! benchmark's byte columns. Lower the bounds when the encoder improves.

#[path = "../benches/texts.rs"]
mod texts;

/// Bytes of all the set's PNGs together, at most (measured at the last change).
const URLS: usize = 3646;
const EDGE: usize = 5327;
/// `cargo bench`'s curve texts: 8 per length, cut from the ten URLs joined.
const CURVE: [(usize, usize); 6] = [
    (16, 1810),
    (64, 3731),
    (128, 5210),
    (256, 5218),
    (384, 7131),
    (512, 8594),
];

fn total_bytes(texts: &[String]) -> usize {
    texts
        .iter()
        .map(|t| qr_lib::generate_qr_code(t).unwrap().len())
        .sum()
}

#[test]
fn pngs_are_no_larger_than_recorded() {
    let mut sizes: Vec<(String, usize, usize)> = vec![
        ("urls".into(), total_bytes(&texts::urls()), URLS),
        ("edge".into(), total_bytes(&texts::edge()), EDGE),
    ];
    for (len, bound) in CURVE {
        let texts = texts::curve_texts(len);
        sizes.push((
            format!("{len}-byte curve texts"),
            total_bytes(&texts),
            bound,
        ));
    }
    for (set, bytes, bound) in sizes {
        assert!(bytes <= bound, "{set}: {bytes} B, more than {bound}");
    }
}
