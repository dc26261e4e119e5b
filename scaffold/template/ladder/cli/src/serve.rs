//! `--serve`: a long-lived worker speaking length-prefixed frames on stdio.
//!
//! Request:  u32 big-endian length, then that many bytes of UTF-8 input.
//! Response: u8 status (0 = output follows, else the core's error `number()`,
//!           or [`PANIC`]), u32 big-endian length, then the output or the
//!           message. Requests are answered in order; a clean EOF between
//!           frames ends the worker.
//!
//! The same file for every ladder (the QR ladder's `qr_cli` compiles it
//! too): the crate root names the core's function on raw bytes
//! (`core_function_from_utf8`) and the longest frame (`MAX_REQUEST_BYTES`).

use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::panic::{self, AssertUnwindSafe};

use crate::{core_function_from_utf8, MAX_REQUEST_BYTES};

/// The status of a panic caught in the worker: it fails that request only.
pub const PANIC: u8 = 255;

pub fn run(input: impl Read, output: impl Write) -> io::Result<()> {
    let mut reader = BufReader::new(input);
    let mut writer = BufWriter::new(output);
    let mut frame = Vec::new();
    while let Some(len) = read_len(&mut reader)? {
        // Longer than any valid input by far: the stream is out of step.
        if len > MAX_REQUEST_BYTES {
            let message = format!("request frame of {len} bytes");
            return Err(io::Error::new(io::ErrorKind::InvalidData, message));
        }
        frame.resize(len as usize, 0);
        reader.read_exact(&mut frame)?;
        match panic::catch_unwind(AssertUnwindSafe(|| core_function_from_utf8(&frame))) {
            Ok(Ok(output)) => write_frame(&mut writer, 0, &output)?,
            Ok(Err(err)) => write_frame(&mut writer, err.number(), err.to_string().as_bytes())?,
            Err(_) => {
                let message = format!("{} panicked", env!("CARGO_PKG_NAME"));
                write_frame(&mut writer, PANIC, message.as_bytes())?
            }
        }
        // Pipelined requests already buffered are answered before one flush.
        if reader.buffer().is_empty() {
            writer.flush()?;
        }
    }
    writer.flush()
}

/// The next frame's length, or None at a clean EOF before it.
fn read_len(reader: &mut impl BufRead) -> io::Result<Option<u32>> {
    if reader.fill_buf()?.is_empty() {
        return Ok(None);
    }
    let mut len = [0; 4];
    reader.read_exact(&mut len)?;
    Ok(Some(u32::from_be_bytes(len)))
}

fn write_frame(writer: &mut impl Write, status: u8, payload: &[u8]) -> io::Result<()> {
    writer.write_all(&[status])?;
    writer.write_all(&(payload.len() as u32).to_be_bytes())?;
    writer.write_all(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(input: &[u8]) -> Vec<u8> {
        let mut frame = (input.len() as u32).to_be_bytes().to_vec();
        frame.extend_from_slice(input);
        frame
    }

    /// What the worker answers for `input`: the core's output or error.
    fn answer(input: &[u8]) -> (u8, Vec<u8>) {
        match core_function_from_utf8(input) {
            Ok(output) => (0, output),
            Err(err) => (err.number(), err.to_string().into_bytes()),
        }
    }

    /// Splits a response stream into (status, payload) frames.
    fn responses(mut out: &[u8]) -> Vec<(u8, Vec<u8>)> {
        let mut frames = Vec::new();
        while !out.is_empty() {
            let len = u32::from_be_bytes(out[1..5].try_into().unwrap()) as usize;
            frames.push((out[0], out[5..5 + len].to_vec()));
            out = &out[5 + len..];
        }
        frames
    }

    #[test]
    fn answers_pipelined_requests_in_order() {
        let inputs = [&b"Hello World"[..], b"", b"\xFF", b"Hello World"];
        let stream: Vec<u8> = inputs.iter().flat_map(|input| request(input)).collect();
        let mut out = Vec::new();
        run(&stream[..], &mut out).unwrap();
        let want: Vec<_> = inputs.iter().map(|input| answer(input)).collect();
        assert_eq!(responses(&out), want);
        assert!(
            want.iter().any(|(status, _)| *status != 0),
            "no error among {want:?}"
        );
    }

    #[test]
    fn a_truncated_frame_is_an_error() {
        let input = &request(b"hello")[..6];
        assert!(run(input, Vec::new()).is_err());
        assert!(run(&[0u8, 0][..], Vec::new()).is_err());
    }

    #[test]
    fn an_oversized_frame_is_an_error() {
        let input = (MAX_REQUEST_BYTES + 1).to_be_bytes();
        assert!(run(&input[..], Vec::new()).is_err());
    }
}
