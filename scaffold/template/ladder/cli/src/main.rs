//! `ladder_example_cli -`: stdin in, stdout out; a bad input exits 65 with
//! `ladder_example_cli: <message> (<CODE>)` on stderr.
//!
//! `ladder_example_cli --serve`: a long-lived worker speaking framed
//! messages on stdio (`serve.rs`, the same file for every ladder).

mod serve;

use std::io::{self, Read, Write};
use std::process::ExitCode;

use ladder_example_core::ladder_example_from_utf8 as core_function_from_utf8;

/// Longer than any valid input by far: a frame this long means the stream
/// is out of step (`serve.rs`).
const MAX_REQUEST_BYTES: u32 = 16 * ladder_example_core::MAX_INPUT_BYTES as u32;

/// sysexits.h EX_DATAERR: the input was bad.
const EXIT_BAD_INPUT: u8 = 65;

fn main() -> ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("-") => once(),
        Some("--serve") => match serve::run(io::stdin().lock(), io::stdout().lock()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("ladder_example_cli: {err}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("usage: ladder_example_cli - | --serve");
            ExitCode::from(2)
        }
    }
}

fn once() -> ExitCode {
    let mut input = Vec::new();
    if let Err(err) = io::stdin().read_to_end(&mut input) {
        eprintln!("ladder_example_cli: {err}");
        return ExitCode::FAILURE;
    }
    match core_function_from_utf8(&input) {
        Ok(out) => match io::stdout().write_all(&out) {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::FAILURE,
        },
        Err(err) => {
            eprintln!("ladder_example_cli: {err} ({})", err.code());
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}
