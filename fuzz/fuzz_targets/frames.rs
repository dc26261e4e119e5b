//! `qr_cli --serve`'s frame loop on any byte stream: never a panic, one
//! well-formed answer per whole request frame, each what the core answers
//! for that frame's bytes, and an error (not a hang or an answer) for a
//! truncated or oversized frame.
#![no_main]

use libfuzzer_sys::fuzz_target;

// qr_cli's worker: create-rust-ladder's, which qr_cli compiles from its
// template, given the same two names as qr_cli's main.rs gives it.
#[path = "../../scaffold/template/ladder/cli/src/serve.rs"]
#[allow(dead_code)]
mod serve;

use qr_lib::generate_qr_code_from_utf8 as core_function_from_utf8;
const MAX_REQUEST_BYTES: u32 = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let mut output = Vec::new();
    let result = serve::run(data, &mut output);

    // The request frames, as the protocol defines them.
    let mut requests = Vec::new();
    let mut rest = data;
    let mut clean_end = true;
    while !rest.is_empty() {
        let Some((len, tail)) = rest.split_first_chunk::<4>() else {
            clean_end = false;
            break;
        };
        let len = u32::from_be_bytes(*len) as usize;
        if len > MAX_REQUEST_BYTES as usize || tail.len() < len {
            clean_end = false;
            break;
        }
        requests.push(&tail[..len]);
        rest = &tail[len..];
    }
    assert_eq!(
        result.is_ok(),
        clean_end,
        "Ok exactly at a clean end of stream"
    );

    let mut answers = output.as_slice();
    for request in requests {
        let (status, tail) = answers.split_first().expect("an answer per request");
        let (len, tail) = tail.split_first_chunk::<4>().expect("its length");
        let len = u32::from_be_bytes(*len) as usize;
        let payload = &tail[..len];
        answers = &tail[len..];
        match core_function_from_utf8(request) {
            Ok(png) => assert_eq!((*status, payload), (0, png.as_slice())),
            Err(err) => assert_eq!(
                (*status, payload),
                (err.number(), err.to_string().as_bytes())
            ),
        }
    }
    assert!(answers.is_empty(), "no answer beyond the requests");
});
