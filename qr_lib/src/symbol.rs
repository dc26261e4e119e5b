//! Text bytes to a QR symbol: segmentation, version choice, error correction,
//! mask. The `qrcode` crate supplies the building blocks.

use qrcode::bits::Bits;
use qrcode::optimize::{total_encoded_len, Optimizer, Parser, Segment};
use qrcode::types::{Mode, Version};
use qrcode::{Color, EcLevel, QrCode};

use crate::QrError;

const EC_LEVEL: EcLevel = EcLevel::L;

/// A square grid of modules, row-major, `true` = dark.
pub struct Symbol {
    pub width: usize,
    pub dark: Vec<bool>,
}

pub fn encode(data: &[u8]) -> Result<Symbol, QrError> {
    let bits = encode_bits(data)?;
    let code = QrCode::with_bits(bits, EC_LEVEL).map_err(|_| QrError::EncodingFailed)?;
    Ok(Symbol {
        width: code.width(),
        dark: code
            .to_colors()
            .into_iter()
            .map(|c| c == Color::Dark)
            .collect(),
    })
}

/// The crate's `encode_auto`, without Kanji mode.
///
/// The crate reads byte pairs that happen to fall in Shift-JIS ranges as Kanji;
/// most CJK text in UTF-8 does, and decoders then return different text.
/// Mapping those segments to Byte mode keeps every UTF-8 text exact.
pub fn encode_bits(data: &[u8]) -> Result<Bits, QrError> {
    let segments: Vec<Segment> = Parser::new(data)
        .map(|s| match s.mode {
            Mode::Kanji => Segment {
                mode: Mode::Byte,
                ..s
            },
            _ => s,
        })
        .collect();
    // Character-count field widths change at versions 10 and 27, so the
    // segmentation is optimised once per range, as `encode_auto` does.
    for (first, last) in [(1, 9), (10, 26), (27, 40)] {
        let optimized: Vec<Segment> =
            Optimizer::new(segments.iter().copied(), Version::Normal(last)).collect();
        let bit_len = total_encoded_len(&optimized, Version::Normal(last));
        let Some(version) = (first..=last).map(Version::Normal).find(|&v| {
            Bits::new(v)
                .max_len(EC_LEVEL)
                .is_ok_and(|cap| cap >= bit_len)
        }) else {
            continue;
        };
        let mut bits = Bits::new(version);
        bits.push_segments(data, optimized.into_iter())
            .and_then(|()| bits.push_terminator(EC_LEVEL))
            .map_err(|_| QrError::EncodingFailed)?;
        return Ok(bits);
    }
    Err(QrError::EncodingFailed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_cjk_is_never_kanji_mode() {
        // "你好" starts with E4 BD, a Shift-JIS Kanji lead/trail pair.
        let raw: Vec<Segment> = Parser::new("你好".as_bytes()).collect();
        assert!(raw.iter().any(|s| s.mode == Mode::Kanji), "premise");
        let bits = encode_bits("你好".as_bytes()).unwrap();
        // Byte mode indicator 0100, count 6, then the six UTF-8 bytes.
        let bytes = bits.into_bytes();
        assert_eq!(bytes[0] >> 4, 0b0100);
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
}
