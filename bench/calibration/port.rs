// The identity's port, as it replaces the generated `port()` in the
// calibration ladder's core/src/lib.rs (bench/calibration/build.js): what
// identity.js does, byte for byte and error for error.

/// The port of the JavaScript function. `length` bytes of `x`, where the
/// input starts with `length` in decimal and a newline.
fn port(input: &str) -> Result<Vec<u8>, Error> {
    let length = input
        .split_once('\n')
        .map(|(head, _filler)| head)
        .filter(|head| (1..=7).contains(&head.len()) && head.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|head| head.parse::<usize>().ok())
        .ok_or_else(|| {
            Error::Invalid(
                "input must start with the output length in decimal and a newline".into(),
            )
        })?;
    if length > MAX_OUTPUT_BYTES {
        return Err(Error::Invalid(format!(
            "output length must be <= {MAX_OUTPUT_BYTES}"
        )));
    }
    Ok(vec![b'x'; length])
}

/// identity.js: MAX_OUTPUT_BYTES.
const MAX_OUTPUT_BYTES: usize = 1 << 20;
