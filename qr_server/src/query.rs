//! The `text` query parameter, read from the raw query string.
//!
//! Parsed by hand because the contract needs what a lenient parser hides:
//! repeated keys, bracketed keys, and bytes that are not UTF-8 after
//! percent-decoding. node-server's `lib/text-param.js` applies the same rules.

use percent_encoding::percent_decode;

#[derive(Debug, PartialEq, Eq)]
pub enum TextParamError {
    Missing,
    NotSingle,
    InvalidUtf8,
}

impl TextParamError {
    pub fn message(&self) -> &'static str {
        match self {
            TextParamError::Missing => "missing \"text\" query param",
            TextParamError::NotSingle => "\"text\" must be a single string",
            TextParamError::InvalidUtf8 => "text must be valid UTF-8",
        }
    }
}

/// Form-urlencoded decoding to raw bytes: `+` is a space, `%XX` a byte, and a
/// `%` not followed by two hex digits stays as it is.
fn decode(component: &str) -> Vec<u8> {
    let bytes = component.as_bytes();
    if bytes.contains(&b'+') {
        let spaced: Vec<u8> = bytes
            .iter()
            .map(|&b| if b == b'+' { b' ' } else { b })
            .collect();
        percent_decode(&spaced).collect()
    } else {
        percent_decode(bytes).collect()
    }
}

pub fn text_param(query: Option<&str>) -> Result<String, TextParamError> {
    let mut found: Option<Vec<u8>> = None;
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = decode(key);
        if key == b"text" {
            if found.replace(decode(value)).is_some() {
                return Err(TextParamError::NotSingle);
            }
        } else if key.starts_with(b"text[") {
            return Err(TextParamError::NotSingle);
        }
    }
    match found {
        None => Err(TextParamError::Missing),
        Some(bytes) if bytes.is_empty() => Err(TextParamError::Missing),
        Some(bytes) => String::from_utf8(bytes).map_err(|_| TextParamError::InvalidUtf8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use TextParamError::*;

    #[test]
    fn decodes_the_text() {
        assert_eq!(text_param(Some("text=a+b%20c")).unwrap(), "a b c");
        assert_eq!(text_param(Some("x=1&text=%F0%9F%A6%80&y")).unwrap(), "🦀");
        assert_eq!(text_param(Some("text=100%&b")).unwrap(), "100%");
        assert_eq!(text_param(Some("text=%00")).unwrap(), "\0");
        assert_eq!(
            text_param(Some("te%78t=via+encoded+key")).unwrap(),
            "via encoded key"
        );
    }

    #[test]
    fn contract_errors() {
        assert_eq!(text_param(None), Err(Missing));
        assert_eq!(text_param(Some("text=")), Err(Missing));
        assert_eq!(text_param(Some("text")), Err(Missing));
        assert_eq!(text_param(Some("texts=a")), Err(Missing));
        assert_eq!(text_param(Some("text=a&text=b")), Err(NotSingle));
        assert_eq!(text_param(Some("text[a]=b")), Err(NotSingle));
        assert_eq!(text_param(Some("text%5B%5D=b")), Err(NotSingle));
        assert_eq!(text_param(Some("text=%FF")), Err(InvalidUtf8));
        assert_eq!(text_param(Some("text=%ED%A0%80")), Err(InvalidUtf8));
    }
}
