//! `{{snake}}`: the hot function, in Rust. Every binding (CLI, Wasm, napi)
//! calls this crate and owns no rule of its own.
//!
//! The generated body is a worked example (a URL slug: ASCII letters and
//! digits lowercased, every run of anything else one `-`); replace it with
//! your function and `js/reference.js` with the JS you are porting.

use std::fmt;

/// Inputs longer than this are refused: the cost of a call stays bounded.
pub const MAX_INPUT_BYTES: usize = 4096;

/// Why a call produced no output. `code` and `number` are stable: the
/// bindings pass them on and the service maps them to HTTP statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    EmptyInput,
    InputTooLong,
    InvalidUtf8,
}

impl Error {
    /// The code JS sees as `err.code`.
    pub fn code(self) -> &'static str {
        match self {
            Error::EmptyInput => "EMPTY_INPUT",
            Error::InputTooLong => "INPUT_TOO_LONG",
            Error::InvalidUtf8 => "INVALID_UTF8",
        }
    }

    /// The status byte of the CLI's framed protocol (0 is success).
    pub fn number(self) -> u8 {
        match self {
            Error::EmptyInput => 1,
            Error::InputTooLong => 2,
            Error::InvalidUtf8 => 3,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::EmptyInput => write!(f, "input must not be empty"),
            Error::InputTooLong => write!(f, "input must be <= {MAX_INPUT_BYTES} bytes"),
            Error::InvalidUtf8 => write!(f, "input must be valid UTF-8"),
        }
    }
}

impl std::error::Error for Error {}

/// The function: input text in, output bytes out.
pub fn {{snake}}(input: &str) -> Result<Vec<u8>, Error> {
    if input.is_empty() {
        return Err(Error::EmptyInput);
    }
    if input.len() > MAX_INPUT_BYTES {
        return Err(Error::InputTooLong);
    }
    let mut out = Vec::with_capacity(input.len());
    let mut gap = false;
    // Bytes, not chars: every byte of a multi-byte character is >= 0x80,
    // so each non-ASCII character falls in a gap, as in the JS reference.
    for &b in input.as_bytes() {
        if b.is_ascii_alphanumeric() {
            if gap && !out.is_empty() {
                out.push(b'-');
            }
            gap = false;
            out.push(b.to_ascii_lowercase());
        } else {
            gap = true;
        }
    }
    Ok(out)
}

/// The same for raw bytes (stdin, a frame): invalid UTF-8 is an error.
pub fn {{snake}}_from_utf8(input: &[u8]) -> Result<Vec<u8>, Error> {
    let text = std::str::from_utf8(input).map_err(|_| Error::InvalidUtf8)?;
    {{snake}}(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_outputs() {
        assert_eq!({{snake}}("Hello, World!").unwrap(), b"hello-world");
        assert_eq!({{snake}}("  Ünïcode -- 2024 ").unwrap(), b"n-code-2024");
        assert_eq!({{snake}}("!!!").unwrap(), b"");
    }

    #[test]
    fn refuses_bad_input() {
        assert_eq!({{snake}}(""), Err(Error::EmptyInput));
        assert_eq!({{snake}}(&"a".repeat(MAX_INPUT_BYTES + 1)), Err(Error::InputTooLong));
        assert!({{snake}}(&"a".repeat(MAX_INPUT_BYTES)).is_ok());
        assert_eq!({{snake}}_from_utf8(&[0xff]), Err(Error::InvalidUtf8));
    }
}
