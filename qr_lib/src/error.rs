use std::fmt;

/// Why a text could not become a QR code.
///
/// The messages are the exact texts every tier shows its callers, and
/// [`QrError::code`] / [`QrError::number`] are stable identifiers for bindings
/// that cross a process or Wasm boundary.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum QrError {
    /// The text is empty.
    EmptyText,
    /// The text is longer than [`crate::MAX_TEXT_BYTES`] UTF-8 bytes.
    TextTooLong,
    /// The bytes given are not valid UTF-8.
    InvalidUtf8,
    /// The encoder itself failed (not expected for valid input).
    EncodingFailed,
}

impl QrError {
    /// Every variant, in [`QrError::number`] order (for tables in bindings and tests).
    pub const ALL: [QrError; 4] = [
        QrError::EmptyText,
        QrError::TextTooLong,
        QrError::InvalidUtf8,
        QrError::EncodingFailed,
    ];

    /// Stable string code, used as a JS `Error#code`.
    pub fn code(&self) -> &'static str {
        match self {
            QrError::EmptyText => "EMPTY_TEXT",
            QrError::TextTooLong => "TEXT_TOO_LONG",
            QrError::InvalidUtf8 => "INVALID_UTF8",
            QrError::EncodingFailed => "ENCODING_FAILED",
        }
    }

    /// Stable small number (never 0), used where only an integer fits: the
    /// `qr_cli --serve` status byte and the raw Wasm ABI.
    pub fn number(&self) -> u8 {
        match self {
            QrError::EmptyText => 1,
            QrError::TextTooLong => 2,
            QrError::InvalidUtf8 => 3,
            QrError::EncodingFailed => 4,
        }
    }

    /// The inverse of [`QrError::number`].
    pub fn from_number(number: u8) -> Option<QrError> {
        QrError::ALL.into_iter().find(|e| e.number() == number)
    }

    /// True when the caller's input is at fault (HTTP 400), false when the
    /// generator is (HTTP 500).
    pub fn is_input_error(&self) -> bool {
        !matches!(self, QrError::EncodingFailed)
    }
}

impl fmt::Display for QrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QrError::EmptyText => "text must not be empty",
            QrError::TextTooLong => "text must be <= 512 bytes",
            QrError::InvalidUtf8 => "text must be valid UTF-8",
            QrError::EncodingFailed => "failed generating qr code",
        })
    }
}

impl std::error::Error for QrError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip_and_are_distinct() {
        for e in QrError::ALL {
            assert_ne!(e.number(), 0);
            assert_eq!(QrError::from_number(e.number()), Some(e));
        }
        assert_eq!(QrError::from_number(0), None);
    }

    #[test]
    fn too_long_message_names_the_limit() {
        assert_eq!(
            QrError::TextTooLong.to_string(),
            format!("text must be <= {} bytes", crate::MAX_TEXT_BYTES)
        );
    }
}
