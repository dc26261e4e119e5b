//! `{{snake}}_cli -`: stdin in, stdout out; a bad input exits 65 with
//! `{{snake}}_cli: <message> (<CODE>)` on stderr.
//!
//! `{{snake}}_cli --serve`: a long-lived worker. Request: u32 BE length +
//! input bytes. Response: u8 status (0 = output follows, else
//! `Error::number`) + u32 BE length + output or message. Answered in order;
//! EOF between frames ends it.

use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

use {{snake}}_core::{{{snake}}_from_utf8, MAX_INPUT_BYTES};

/// sysexits.h EX_DATAERR: the input was bad.
const EXIT_BAD_INPUT: u8 = 65;

fn main() -> ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("-") => once(),
        Some("--serve") => match serve(io::stdin().lock(), io::stdout().lock()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("{{snake}}_cli: {err}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("usage: {{snake}}_cli - | --serve");
            ExitCode::from(2)
        }
    }
}

fn once() -> ExitCode {
    let mut input = Vec::new();
    if let Err(err) = io::stdin().read_to_end(&mut input) {
        eprintln!("{{snake}}_cli: {err}");
        return ExitCode::FAILURE;
    }
    match {{snake}}_from_utf8(&input) {
        Ok(out) => match io::stdout().write_all(&out) {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::FAILURE,
        },
        Err(err) => {
            eprintln!("{{snake}}_cli: {err} ({})", err.code());
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

fn serve(input: impl Read, output: impl Write) -> io::Result<()> {
    let mut reader = BufReader::new(input);
    let mut writer = BufWriter::new(output);
    let mut frame = Vec::new();
    while !reader.fill_buf()?.is_empty() {
        let mut len = [0; 4];
        reader.read_exact(&mut len)?;
        let len = u32::from_be_bytes(len) as usize;
        // Longer than any valid input by far: the stream is out of step.
        if len > 16 * MAX_INPUT_BYTES {
            return Err(io::Error::new(io::ErrorKind::InvalidData, format!("request frame of {len} bytes")));
        }
        frame.resize(len, 0);
        reader.read_exact(&mut frame)?;
        // A panic fails this request, not the worker.
        let result = panic::catch_unwind(AssertUnwindSafe(|| {{snake}}_from_utf8(&frame)));
        let (status, payload) = match result {
            Ok(Ok(out)) => (0, out),
            Ok(Err(err)) => (err.number(), err.to_string().into_bytes()),
            Err(_) => (255, b"panicked".to_vec()),
        };
        writer.write_all(&[status])?;
        writer.write_all(&(payload.len() as u32).to_be_bytes())?;
        writer.write_all(&payload)?;
        // Pipelined requests already read are answered before one flush.
        if reader.buffer().is_empty() {
            writer.flush()?;
        }
    }
    writer.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use {{snake}}_core::Error;

    fn frame(text: &[u8]) -> Vec<u8> {
        let mut out = (text.len() as u32).to_be_bytes().to_vec();
        out.extend_from_slice(text);
        out
    }

    #[test]
    fn serve_answers_pipelined_frames_in_order() {
        let mut input = frame(b"Hello World");
        input.extend(frame(b""));
        let mut output = Vec::new();
        serve(&input[..], &mut output).unwrap();
        let out = {{snake}}_from_utf8(b"Hello World").unwrap();
        let mut expected = vec![0];
        expected.extend_from_slice(&(out.len() as u32).to_be_bytes());
        expected.extend_from_slice(&out);
        let message = Error::EmptyInput.to_string();
        expected.push(Error::EmptyInput.number());
        expected.extend_from_slice(&(message.len() as u32).to_be_bytes());
        expected.extend_from_slice(message.as_bytes());
        assert_eq!(output, expected);
    }
}
