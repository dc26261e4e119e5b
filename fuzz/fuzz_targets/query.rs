//! qr_server's `text` parameter parser on any query string: never a panic,
//! and the answer of a plain reading of docs/request-grammar.md ("The query").
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../qr_server/src/query.rs"]
#[allow(dead_code)]
mod query;

use query::{text_param, TextParamError};

fuzz_target!(|data: &[u8]| {
    let Ok(raw) = std::str::from_utf8(data) else {
        return;
    };
    assert_eq!(text_param(Some(raw)), reference(raw), "query {raw:?}");
});

/// Form-decoding byte by byte: `+` a space, `%XX` a byte, any other `%` itself.
fn decode(component: &str) -> Vec<u8> {
    let bytes = component.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len()
                && hex(bytes[i + 1]).is_some()
                && hex(bytes[i + 2]).is_some() =>
            {
                out.push((hex(bytes[i + 1]).unwrap() * 16 + hex(bytes[i + 2]).unwrap()) as u8);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    out
}

fn reference(query: &str) -> Result<String, TextParamError> {
    let mut text = None;
    for part in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        let key = decode(key);
        if key.starts_with(b"text[") || (key == b"text" && text.is_some()) {
            return Err(TextParamError::NotSingle);
        }
        if key == b"text" {
            text = Some(decode(value));
        }
    }
    match text {
        None => Err(TextParamError::Missing),
        Some(bytes) if bytes.is_empty() => Err(TextParamError::Missing),
        Some(bytes) => String::from_utf8(bytes).map_err(|_| TextParamError::InvalidUtf8),
    }
}
