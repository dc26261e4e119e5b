//! The `qrcode` crate's own segmentation, Kanji as Byte: the reference the
//! hot path's `segments::parse` is held to, and the bits the benches and
//! the same-symbol test draw the crate's way.

use qrcode::bits::Bits;
use qrcode::optimize::{total_encoded_len, Optimizer, Parser, Segment};
use qrcode::types::{Mode, Version};

use super::{optimal_segments, EC_LEVEL, VERSION_RANGES};
use crate::QrError;

/// The crate's `encode_auto`, without Kanji mode.
///
/// The crate reads byte pairs that happen to fall in Shift-JIS ranges as Kanji;
/// most CJK text in UTF-8 does, and decoders then return different text.
/// Mapping those segments to Byte mode keeps every UTF-8 text exact.
pub fn encode_bits(data: &[u8]) -> Result<Bits, QrError> {
    let segments = crate_segments(data);
    let mut merged = Vec::new();
    let (version, _) = optimal_segments(|range| {
        let bits;
        (merged, bits) = crate_merge(&segments, Version::Normal(VERSION_RANGES[range].1));
        bits
    })?;
    let mut bits = Bits::new(version);
    bits.push_segments(data, merged.into_iter())
        .and_then(|()| bits.push_terminator(EC_LEVEL))
        .map_err(|_| QrError::EncodingFailed)?;
    Ok(bits)
}

/// The crate's `Parser` segments, Kanji as Byte: the reference that
/// `segments::parse` (the hot path's) is held to, once its adjacent Byte
/// runs are joined.
pub fn crate_segments(data: &[u8]) -> Vec<Segment> {
    Parser::new(data)
        .map(|s| match s.mode {
            Mode::Kanji => Segment {
                mode: Mode::Byte,
                ..s
            },
            _ => s,
        })
        .collect()
}

/// The crate's `Optimizer` on `segments` for `version`, and the merged
/// segments' length in bits: what `merge::merge` is held to.
pub fn crate_merge(segments: &[Segment], version: Version) -> (Vec<Segment>, usize) {
    let merged: Vec<Segment> = Optimizer::new(segments.iter().copied(), version).collect();
    let bits = total_encoded_len(&merged, version);
    (merged, bits)
}
