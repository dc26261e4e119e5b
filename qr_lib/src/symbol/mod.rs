//! Text bytes to a QR symbol: segmentation, version choice, error correction,
//! module placement and mask choice, with the `qrcode` crate's building blocks.
//!
//! The result is module for module what `qrcode::QrCode::with_bits` draws for
//! the same bits (tests/same_symbol.rs holds the two equal), without its
//! per-module closures: each version's fixed parts are computed once and
//! cached, and the mask is chosen on packed rows (see `mask`).

use std::cell::Cell;
use std::sync::OnceLock;

use qrcode::bits::Bits;
use qrcode::canvas::{Canvas, MaskPattern, Module};
#[cfg(test)]
use qrcode::ec;
use qrcode::optimize::Segment;
use qrcode::types::{Color, Version};
use qrcode::EcLevel;

mod data_bits;
mod mask;
mod merge;
mod placement;
mod reed_solomon;
mod reference;
mod segments;

pub use reference::encode_bits;

use crate::kept::with_kept;
use crate::limits::MAX_VERSION;
use crate::QrError;

pub(super) const EC_LEVEL: EcLevel = EcLevel::L;

/// The eight masks in the crate's order; ties go to the first.
const MASKS: [MaskPattern; 8] = [
    MaskPattern::Checkerboard,
    MaskPattern::HorizontalLines,
    MaskPattern::VerticalLines,
    MaskPattern::DiagonalLines,
    MaskPattern::LargeCheckerboard,
    MaskPattern::Fields,
    MaskPattern::Diamonds,
    MaskPattern::Meadow,
];

/// A square symbol: row `y` is `rows[y]`, bit `x` set = dark module.
pub struct Symbol {
    pub width: usize,
    pub rows: Vec<u128>,
}

pub fn encode(data: &[u8]) -> Result<Symbol, QrError> {
    Ok(choose_mask(&place(&error_correction(&segment(data)?))))
}

/// The data codewords (segments, terminator and padding) and their version.
pub struct DataCodewords {
    version: i16,
    words: Vec<u8>,
}

/// The segmentation and data-encoding stage.
pub fn segment(data: &[u8]) -> Result<DataCodewords, QrError> {
    with_kept(&SEGMENTS, |(parsed, merged)| {
        segments::parse(data, parsed);
        let fits = optimal_segments(|range| merge::merge(parsed, range, merged));
        fits.and_then(|(version, capacity_bits)| match version {
            Version::Normal(number) if number <= MAX_VERSION => Ok(DataCodewords {
                version: number,
                words: data_bits::data_codewords(data, merged, version, capacity_bits)?,
            }),
            _ => Err(QrError::EncodingFailed),
        })
    })
}

thread_local! {
    /// The parsed and the merged segments, kept from call to call, as the
    /// other per-call buffers are (see `kept`).
    static SEGMENTS: Cell<(Vec<Segment>, Vec<Segment>)> = Cell::default();
}

/// Data and error-correction codewords, interleaved in placement order.
pub struct Codewords {
    version: i16,
    words: Vec<u8>,
}

/// The error-correction stage: the data split into blocks, each block's
/// Reed-Solomon codewords, all interleaved.
pub fn error_correction(data: &DataCodewords) -> Codewords {
    Codewords {
        version: data.version,
        words: reed_solomon::interleaved_codewords(&data.words, data.version as usize),
    }
}

/// A symbol's data modules, placed but not yet masked.
pub struct Placed {
    version: i16,
    rows: Vec<u128>,
}

/// The placement stage: codeword bits, most significant first, along the
/// zigzag path. The bits go straight to their places, two at a time where
/// they lie side by side, from the version's table (see `placement`): no
/// path walk, no per-row bookkeeping.
pub fn place(codewords: &Codewords) -> Placed {
    let template = template(codewords.version);
    // Two halves per row of a u128-wide symbol.
    let mut halves = [0u64; 2 * 128];
    template.placement.place(&mut halves, &codewords.words);
    let rows = halves[..2 * template.width]
        .chunks_exact(2)
        .map(|h| u128::from(h[0]) | u128::from(h[1]) << 64)
        .collect();
    Placed {
        version: codewords.version,
        rows,
    }
}

/// The mask stage: each candidate is its masked template (function patterns,
/// format info for that mask, mask bits on the data area) XOR the data. The
/// first lowest penalty wins, as in the crate.
pub fn choose_mask(placed: &Placed) -> Symbol {
    let template = template(placed.version);
    let best = mask::lowest_penalty(&template.candidates, &placed.rows);
    let rows = template
        .candidates
        .masked(best)
        .iter()
        .zip(&placed.rows)
        .map(|(m, d)| m ^ d)
        .collect();
    Symbol {
        width: template.width,
        rows,
    }
}

/// The parts of a version's symbol that do not depend on the data.
struct Template {
    width: usize,
    /// For each mask, in `MASKS` order: the symbol of an all-zero data stream.
    candidates: mask::Candidates,
    /// Data module coordinates (x, y), in the order bits are placed.
    #[cfg(test)]
    data_path: Vec<(u8, u8)>,
    /// Where each codeword's bits go (see `placement`).
    placement: placement::Placement,
}

fn template(number: i16) -> &'static Template {
    static TEMPLATES: [OnceLock<Template>; MAX_VERSION as usize] =
        [const { OnceLock::new() }; MAX_VERSION as usize];
    TEMPLATES[number as usize - 1].get_or_init(|| build_template(Version::Normal(number)))
}

fn build_template(version: Version) -> Template {
    let mut canvas = Canvas::new(version, EC_LEVEL);
    canvas.draw_all_functional_patterns();
    let width = version.width();

    // An empty module takes data; applying a mask to the empty canvas gives
    // the mask bits there, and the function patterns with that mask's format info.
    let masked = MASKS
        .iter()
        .map(|&pattern| {
            let mut c = canvas.clone();
            c.apply_mask(pattern);
            (0..width)
                .map(|y| {
                    (0..width).fold(0u128, |row, x| {
                        row | u128::from(c.get(x, y) == Module::Masked(Color::Dark)) << x
                    })
                })
                .collect()
        })
        .collect();
    let data_path: Vec<(u8, u8)> = DataPath::new(width)
        .filter(|&(x, y)| canvas.get(x, y) == Module::Empty)
        .map(|(x, y)| (x as u8, y as u8))
        .collect();
    let places: Vec<u16> = data_path
        .iter()
        .map(|&(x, y)| 128 * u16::from(y) + u16::from(x))
        .collect();
    Template {
        width: width as usize,
        candidates: mask::Candidates::new(masked, width as usize),
        #[cfg(test)]
        data_path,
        placement: placement::Placement::new(&places),
    }
}

/// The standard zigzag over the symbol: two-module columns from the right,
/// alternately upwards and downwards, skipping the vertical timing column 6.
/// (The same walk as the crate's private `DataModuleIter`.)
struct DataPath {
    x: i16,
    y: i16,
    width: i16,
}

impl DataPath {
    fn new(width: i16) -> Self {
        Self {
            x: width - 1,
            y: width - 1,
            width,
        }
    }
}

impl Iterator for DataPath {
    type Item = (i16, i16);

    fn next(&mut self) -> Option<(i16, i16)> {
        const TIMING_COLUMN: i16 = 6;
        let column = if self.x <= TIMING_COLUMN {
            self.x + 1
        } else {
            self.x
        };
        if column <= 0 {
            return None;
        }
        let here = (self.x, self.y);
        match (self.width - column) % 4 {
            2 if self.y > 0 => {
                self.y -= 1;
                self.x += 1;
            }
            0 if self.y < self.width - 1 => {
                self.y += 1;
                self.x += 1;
            }
            0 | 2 if self.x == TIMING_COLUMN + 1 => self.x -= 2,
            _ => self.x -= 1,
        }
        Some(here)
    }
}

/// The versions whose character-count fields have one width: 1-9, 10-26
/// and 27-40.
pub(super) const VERSION_RANGES: [(i16, i16); 3] = [(1, 9), (10, 26), (27, 40)];

/// The version range whose merged segments first fit it, as `encode_auto`
/// tries them: the smallest version of that range that holds them and its
/// data capacity in bits. `merge` takes the range's index in
/// `VERSION_RANGES`, merges the segments for it (where the caller keeps
/// them: the last merge is the one that fits) and returns their length in
/// bits.
pub(super) fn optimal_segments(
    mut merge: impl FnMut(usize) -> usize,
) -> Result<(Version, usize), QrError> {
    // Character-count field widths change at versions 10 and 27, so the
    // segmentation is optimised once per range, as `encode_auto` does.
    for (range, (first, last)) in VERSION_RANGES.into_iter().enumerate() {
        let bit_len = merge(range);
        let fits = (first..=last).map(Version::Normal).find_map(|v| {
            let capacity = Bits::new(v).max_len(EC_LEVEL).ok()?;
            (capacity >= bit_len).then_some((v, capacity))
        });
        if let Some(fit) = fits {
            return Ok(fit);
        }
    }
    Err(QrError::EncodingFailed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use qrcode::optimize::Parser;
    use qrcode::types::Mode;
    use qrcode::QrCode;

    #[test]
    fn utf8_cjk_is_never_kanji_mode() {
        // "你好" starts with E4 BD, a Shift-JIS Kanji lead/trail pair.
        let raw: Vec<Segment> = Parser::new("你好".as_bytes()).collect();
        assert!(raw.iter().any(|s| s.mode == Mode::Kanji), "premise");
        let bytes = encode_bits("你好".as_bytes()).unwrap().into_bytes();
        assert_eq!(bytes[0] >> 4, 0b0100, "byte mode indicator");
    }

    #[test]
    fn data_codewords_are_the_crates_bits() {
        // Runs from each mode's alphabet, so segments of every mode (and
        // Shift-JIS-like pairs turned into bytes) meet and merge.
        let pools: [&[u8]; 5] = [
            b"0123456789",
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:",
            b"abcdefghijklmnopqrstuvwxyz?&=_",
            "é你😀".as_bytes(),
            &[0x81, 0x40, 0x9F, 0xFC, 0xE0, 0xEA, 0xA4],
        ];
        let mut rng = crate::xorshift(0xDA7A);
        for len in (1..=600).chain(1..=600) {
            let mut text = Vec::with_capacity(len);
            while text.len() < len {
                let pool = pools[rng() as usize % pools.len()];
                let run = 1 + rng() as usize % 12;
                text.extend((0..run).map(|_| pool[rng() as usize % pool.len()]));
            }
            text.truncate(len);
            let ours = segment(&text).map(|d| (d.version, d.words));
            let crates = encode_bits(&text).map(|bits| {
                let Version::Normal(v) = bits.version() else {
                    unreachable!()
                };
                (v, bits.into_bytes())
            });
            match (ours, crates) {
                (Ok(ours), Ok(crates)) => assert_eq!(ours, crates, "{text:?}"),
                (Err(_), Ok((v, _))) => assert!(v > MAX_VERSION, "{text:?}"),
                (ours, crates) => assert_eq!(ours.is_ok(), crates.is_ok(), "{text:?}"),
            }
        }
    }

    #[test]
    fn smallest_version_is_chosen() {
        assert_eq!(encode_bits(b"a").unwrap().version(), Version::Normal(1));
        // 17 bytes is version 1-L's byte capacity, 18 needs version 2.
        assert_eq!(
            encode_bits(&[b'a'; 17]).unwrap().version(),
            Version::Normal(1)
        );
        assert_eq!(
            encode_bits(&[b'a'; 18]).unwrap().version(),
            Version::Normal(2)
        );
    }

    #[test]
    fn data_path_matches_the_crate_on_every_version() {
        // Filling every data module dark must darken exactly what the crate's
        // own placement darkens.
        for number in 1..=MAX_VERSION {
            let version = Version::Normal(number);
            let mut canvas = Canvas::new(version, EC_LEVEL);
            canvas.draw_all_functional_patterns();
            let (data, ec) =
                ec::construct_codewords(&vec![0xFF; 4000][..data_len(version)], version, EC_LEVEL)
                    .unwrap();
            let ones_data = vec![0xFF; data.len()];
            let ones_ec = vec![0xFF; ec.len()];
            canvas.draw_data(&ones_data, &ones_ec);
            let t = template(number);
            for &(x, y) in &t.data_path[..8 * (data.len() + ec.len())] {
                assert_eq!(
                    canvas.get(x.into(), y.into()),
                    Module::Unmasked(Color::Dark),
                    "v{number} ({x},{y})"
                );
            }
        }
    }

    #[test]
    fn placement_follows_the_data_path_on_every_version() {
        let mut rng = crate::xorshift(0x2545_F491);
        for number in 1..=MAX_VERSION {
            let t = template(number);
            let codewords = t.data_path.len() / 8;
            let words: Vec<u8> = (0..codewords).map(|_| rng() as u8).collect();
            let mut expected = vec![0u128; t.width];
            for (i, &(x, y)) in t.data_path[..8 * codewords].iter().enumerate() {
                expected[y as usize] |= u128::from(words[i / 8] >> (7 - i % 8) & 1) << x;
            }
            let placed = place(&Codewords {
                version: number,
                words,
            });
            assert!(placed.rows == expected, "v{number}");
        }
    }

    fn data_len(version: Version) -> usize {
        Bits::new(version).max_len(EC_LEVEL).unwrap() / 8
    }

    #[test]
    fn symbol_matches_the_crate() {
        for text in [
            "a",
            "HELLO WORLD 123",
            "https://github.com/rust-lang/rustlings",
            &"x".repeat(512),
        ] {
            let ours = encode(text.as_bytes()).unwrap();
            let theirs =
                QrCode::with_bits(encode_bits(text.as_bytes()).unwrap(), EC_LEVEL).unwrap();
            assert_eq!(ours.width, theirs.width());
            for y in 0..ours.width {
                for x in 0..ours.width {
                    assert_eq!(
                        ours.rows[y] >> x & 1 == 1,
                        theirs[(x, y)] == Color::Dark,
                        "{text:?} ({x},{y})"
                    );
                }
            }
        }
    }
}
