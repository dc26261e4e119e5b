//! The shared texts (test/fixtures/texts.json) as the benches and the size
//! test take them.

const FIXTURE: &str = include_str!("../../test/fixtures/texts.json");

fn fixture(key: &str) -> Vec<String> {
    let fixture: serde_json::Value = serde_json::from_str(FIXTURE).unwrap();
    let values: Vec<&serde_json::Value> = match &fixture[key] {
        serde_json::Value::Array(a) => a.iter().collect(),
        serde_json::Value::Object(o) => o.values().collect(),
        _ => unreachable!(),
    };
    values
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

/// The ten URLs the tier benchmark requests.
pub fn urls() -> Vec<String> {
    fixture("urls")
}

/// The edge cases: one character, digits only, emoji, 510-512 bytes, ...
pub fn edge() -> Vec<String> {
    fixture("edge")
}

/// The cost curve's eight texts of `len` bytes, cut from the ten URLs joined
/// (the JS bench builds the same texts: bench/core-curve.js).
pub fn curve_texts(len: usize) -> Vec<String> {
    let joined = urls().join(" ");
    (0..8)
        .map(|i| {
            let offset = 37 * i;
            joined.repeat(1 + (offset + len) / joined.len())[offset..offset + len].to_owned()
        })
        .collect()
}
