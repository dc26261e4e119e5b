//! `qr_cli --serve`: a long-lived worker speaking length-prefixed frames.
//!
//! Request:  u32 big-endian length, then that many bytes of UTF-8 text.
//! Response: u8 status (0 = PNG follows, otherwise `QrError::number`),
//!           u32 big-endian length, then the PNG or the error message.
//! Requests are answered in order. Clean EOF between frames ends the worker.

use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::panic::{self, AssertUnwindSafe};

use qr_lib::QrError;

/// A frame longer than this cannot be a text request: the stream is corrupt.
const MAX_REQUEST_BYTES: u32 = 1 << 20;

pub fn run(input: impl Read, output: impl Write) -> io::Result<()> {
    let mut reader = BufReader::new(input);
    let mut writer = BufWriter::new(output);
    let mut text = Vec::new();
    while let Some(len) = read_len(&mut reader)? {
        if len > MAX_REQUEST_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("request frame of {len} bytes"),
            ));
        }
        text.resize(len as usize, 0);
        reader.read_exact(&mut text)?;

        // A panic answers this request as failed instead of killing the worker.
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            qr_lib::generate_qr_code_from_utf8(&text)
        }))
        .unwrap_or(Err(QrError::EncodingFailed));
        match result {
            Ok(png) => write_frame(&mut writer, 0, &png)?,
            Err(err) => write_frame(&mut writer, err.number(), err.to_string().as_bytes())?,
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

    fn request(text: &[u8]) -> Vec<u8> {
        let mut frame = (text.len() as u32).to_be_bytes().to_vec();
        frame.extend_from_slice(text);
        frame
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
    fn answers_each_request_in_order() {
        let input = [
            request(b"hello"),
            request(b""),
            request(b"\xFF"),
            request(b"hello"),
        ]
        .concat();
        let mut out = Vec::new();
        run(&input[..], &mut out).unwrap();
        let frames = responses(&out);
        assert_eq!(frames.len(), 4);
        assert_eq!(frames[0], (0, qr_lib::generate_qr_code("hello").unwrap()));
        assert_eq!(
            frames[1],
            (
                QrError::EmptyText.number(),
                b"text must not be empty".to_vec()
            )
        );
        assert_eq!(frames[2].0, QrError::InvalidUtf8.number());
        assert_eq!(frames[3], frames[0]);
    }

    #[test]
    fn truncated_frame_is_an_error() {
        let input = &request(b"hello")[..6];
        assert!(run(input, Vec::new()).is_err());
        assert!(run(&[0u8, 0][..], Vec::new()).is_err());
    }

    #[test]
    fn oversized_frame_is_an_error() {
        let input = (MAX_REQUEST_BYTES + 1).to_be_bytes();
        assert!(run(&input[..], Vec::new()).is_err());
    }
}
