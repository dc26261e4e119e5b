//! The RPC wire format (docs/rpc-protocol.md), on tokio-util's
//! length-delimited frames: a u32 big-endian length, then the frame's body.
//!
//! Request body: u32 big-endian id, then the payload (the text's UTF-8 bytes).
//! Answer body:  the request's u32 id, a u8 status, then the payload:
//!               status 0, the PNG; 1-4, `QrError::number` and its message;
//!               255, "server busy" (the twin of HTTP's 503).

use std::io;

use bytes::{BufMut, Bytes, BytesMut};
use tokio_util::codec::{Encoder, LengthDelimitedCodec};

/// The longest request body read; a longer frame closes the connection
/// before any of it is buffered. Texts past the core's 512 bytes still fit,
/// so they get TEXT_TOO_LONG, as /qrcode answers them.
pub const MAX_REQUEST_FRAME: usize = 8192;
/// The longest answer body (a PNG is a few KiB); a client reads answers
/// with a length-delimited decoder of at least this limit.
pub const MAX_ANSWER_FRAME: usize = 1 << 20;
pub const STATUS_OK: u8 = 0;
pub const STATUS_BUSY: u8 = 255;
pub const SERVER_BUSY: &str = "server busy";
const ID_BYTES: usize = 4;

pub fn request_codec() -> LengthDelimitedCodec {
    LengthDelimitedCodec::builder()
        .max_frame_length(MAX_REQUEST_FRAME)
        .new_codec()
}

pub struct Request {
    pub id: u32,
    pub payload: Bytes,
}

/// A request from a frame's body; None if the body is too short for its id.
pub fn parse_request(mut body: BytesMut) -> Option<Request> {
    if body.len() < ID_BYTES {
        return None;
    }
    let id = body.split_to(ID_BYTES);
    Some(Request {
        id: u32::from_be_bytes([id[0], id[1], id[2], id[3]]),
        payload: body.freeze(),
    })
}

/// An answer, written by [`AnswerCodec`] as the length-delimited frame
/// `LengthDelimitedCodec` would write for its body.
pub struct Answer {
    pub id: u32,
    pub status: u8,
    pub payload: Payload,
}

pub enum Payload {
    /// The core's PNG, moved here as it came.
    Png(Vec<u8>),
    Text(&'static str),
    Message(String),
}

impl Payload {
    fn as_bytes(&self) -> &[u8] {
        match self {
            Payload::Png(png) => png,
            Payload::Text(text) => text.as_bytes(),
            Payload::Message(message) => message.as_bytes(),
        }
    }
}

/// The answer to a generation, as `qr_cli --serve` answers it.
pub fn answer_for(id: u32, result: Result<Vec<u8>, qr_lib::QrError>) -> Answer {
    match result {
        Ok(png) => Answer {
            id,
            status: STATUS_OK,
            payload: Payload::Png(png),
        },
        Err(err) => Answer {
            id,
            status: err.number(),
            payload: Payload::Message(err.to_string()),
        },
    }
}

pub fn busy(id: u32) -> Answer {
    Answer {
        id,
        status: STATUS_BUSY,
        payload: Payload::Text(SERVER_BUSY),
    }
}

/// Writes an answer's length, head and payload straight into the write
/// buffer: the PNG is copied once, not first into a body and then again
/// (LengthDelimitedCodec encodes only a body already in one piece).
pub struct AnswerCodec;

impl Encoder<Answer> for AnswerCodec {
    type Error = io::Error;

    fn encode(&mut self, answer: Answer, dst: &mut BytesMut) -> io::Result<()> {
        let payload = answer.payload.as_bytes();
        let body = ID_BYTES + 1 + payload.len();
        if body > MAX_ANSWER_FRAME {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "answer past the frame limit",
            ));
        }
        dst.reserve(4 + body);
        dst.put_u32(body as u32);
        dst.put_u32(answer.id);
        dst.put_u8(answer.status);
        dst.put_slice(payload);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_util::codec::Decoder;

    /// An answer's frame, read back as a client reads it.
    fn read_back(answer: Answer) -> BytesMut {
        let mut wire = BytesMut::new();
        AnswerCodec.encode(answer, &mut wire).unwrap();
        let reader = LengthDelimitedCodec::builder()
            .max_frame_length(MAX_ANSWER_FRAME)
            .new_codec()
            .decode(&mut wire);
        let body = reader.unwrap().expect("one whole frame");
        assert!(wire.is_empty(), "nothing after it");
        body
    }

    #[test]
    fn a_request_round_trips_through_the_codec() {
        let mut wire = BytesMut::new();
        let body = [7u32.to_be_bytes().as_slice(), b"hello"].concat();
        request_codec()
            .encode(Bytes::from(body), &mut wire)
            .unwrap();
        assert_eq!(&wire[..4], &9u32.to_be_bytes());
        let frame = request_codec().decode(&mut wire).unwrap().unwrap();
        let request = parse_request(frame).unwrap();
        assert_eq!((request.id, &request.payload[..]), (7, &b"hello"[..]));
    }

    #[test]
    fn a_length_past_the_limit_is_an_error_before_its_body_arrives() {
        let mut wire = BytesMut::from(&u32::MAX.to_be_bytes()[..]);
        assert!(request_codec().decode(&mut wire).is_err());
    }

    #[test]
    fn answers_are_length_delimited_frames_with_the_core_s_numbers_and_messages() {
        let png = read_back(answer_for(5, Ok(vec![0x89, b'P', b'N', b'G'])));
        assert_eq!(&png[..], &[0, 0, 0, 5, STATUS_OK, 0x89, b'P', b'N', b'G']);
        let err = read_back(answer_for(9, Err(qr_lib::QrError::TextTooLong)));
        assert_eq!(&err[..5], &[0, 0, 0, 9, 2]);
        assert_eq!(
            &err[5..],
            qr_lib::QrError::TextTooLong.to_string().as_bytes()
        );
        let busy = read_back(busy(1));
        assert_eq!(&busy[4..5], &[STATUS_BUSY]);
        assert_eq!(&busy[5..], SERVER_BUSY.as_bytes());
    }
}
