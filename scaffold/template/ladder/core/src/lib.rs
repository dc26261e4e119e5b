//! `ladder_example`: the hot function, in Rust. Every binding (CLI, Wasm, napi)
//! calls this crate and owns no rule of its own.
//!
//! The generated body is a worked example (a URL slug: ASCII letters and
//! digits lowercased, every run of anything else one `-`). Port your
//! function here: `js/reference.js` runs the JavaScript original, and
//! `test/parity.test.js` holds every tier to its bytes.

use std::fmt;

/// Inputs longer than this are refused: the cost of a call stays bounded.
/// `js/reference.js` refuses the same.
pub const MAX_INPUT_BYTES: usize = 4096;

/// Why a call produced no output. `code` and `number` are stable: the
/// bindings pass them on and the service maps them to HTTP statuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    EmptyInput,
    InputTooLong,
    InvalidUtf8,
    /// The function refused the input, with the message the JavaScript
    /// original throws for it (`INVALID_INPUT`, 400).
    Invalid(String),
}

impl Error {
    /// The code JS sees as `err.code`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::EmptyInput => "EMPTY_INPUT",
            Error::InputTooLong => "INPUT_TOO_LONG",
            Error::InvalidUtf8 => "INVALID_UTF8",
            Error::Invalid(_) => "INVALID_INPUT",
        }
    }

    /// The status byte of the CLI's framed protocol (0 is success).
    pub fn number(&self) -> u8 {
        match self {
            Error::EmptyInput => 1,
            Error::InputTooLong => 2,
            Error::InvalidUtf8 => 3,
            Error::Invalid(_) => 4,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::EmptyInput => write!(f, "input must not be empty"),
            Error::InputTooLong => write!(f, "input must be <= {MAX_INPUT_BYTES} bytes"),
            Error::InvalidUtf8 => write!(f, "input must be valid UTF-8"),
            Error::Invalid(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

/// The function: input text in, output bytes out. The bounds first, then
/// the function itself (`port`).
pub fn ladder_example(input: &str) -> Result<Vec<u8>, Error> {
    if input.is_empty() {
        return Err(Error::EmptyInput);
    }
    if input.len() > MAX_INPUT_BYTES {
        return Err(Error::InputTooLong);
    }
    port(input)
}

/// The port of the JavaScript function. Replace this body with yours;
/// return `Error::Invalid(message)` where the original throws.
fn port(input: &str) -> Result<Vec<u8>, Error> {
    let mut out = Vec::with_capacity(input.len());
    let mut gap = false;
    // Bytes, not chars: every byte of a multi-byte character is >= 0x80,
    // so each non-ASCII character falls in a gap, as in the JS original.
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
pub fn ladder_example_from_utf8(input: &[u8]) -> Result<Vec<u8>, Error> {
    let text = std::str::from_utf8(input).map_err(|_| Error::InvalidUtf8)?;
    ladder_example(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_out_of_bounds() {
        let too_long = "a".repeat(MAX_INPUT_BYTES + 1);
        for (input, want) in [
            (&b""[..], Error::EmptyInput),
            (too_long.as_bytes(), Error::InputTooLong),
            (&[0xff], Error::InvalidUtf8),
        ] {
            assert_eq!(ladder_example_from_utf8(input), Err(want));
        }
    }

    #[test]
    fn error_codes_and_numbers_are_distinct() {
        let all = [
            Error::EmptyInput,
            Error::InputTooLong,
            Error::InvalidUtf8,
            Error::Invalid(String::new()),
        ];
        for (i, a) in all.iter().enumerate() {
            assert_eq!(a.number() as usize, i + 1);
            assert!(all[i + 1..].iter().all(|b| b.code() != a.code()));
        }
    }
}
