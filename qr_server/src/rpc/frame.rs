//! The RPC wire format (docs/rpc-protocol.md), on tokio-util's
//! length-delimited frames: a u32 big-endian length, then the frame's body.
//!
//! Request body: u32 big-endian id, then the payload (the text's UTF-8 bytes).
//! Answer body:  the request's u32 id, a u8 status, then the payload:
//!               status 0, the PNG; 1-4, `QrError::number` and its message;
//!               255, "server busy" (the twin of HTTP's 503).

use bytes::{BufMut, Bytes, BytesMut};
use tokio_util::codec::LengthDelimitedCodec;

/// The longest request body read; a longer frame closes the connection
/// before any of it is buffered. Texts past the core's 512 bytes still fit,
/// so they get TEXT_TOO_LONG, as /qrcode answers them.
pub const MAX_REQUEST_FRAME: usize = 8192;
/// The longest answer body (a PNG is a few KiB).
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

pub fn answer_codec() -> LengthDelimitedCodec {
    LengthDelimitedCodec::builder()
        .max_frame_length(MAX_ANSWER_FRAME)
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

/// An answer's body.
pub fn answer(id: u32, status: u8, payload: &[u8]) -> Bytes {
    let mut body = BytesMut::with_capacity(ID_BYTES + 1 + payload.len());
    body.put_u32(id);
    body.put_u8(status);
    body.put_slice(payload);
    body.freeze()
}

/// The answer to a generation, as `qr_cli --serve` answers it.
pub fn answer_for(id: u32, result: Result<Vec<u8>, qr_lib::QrError>) -> Bytes {
    match result {
        Ok(png) => answer(id, STATUS_OK, &png),
        Err(err) => answer(id, err.number(), err.to_string().as_bytes()),
    }
}

pub fn busy(id: u32) -> Bytes {
    answer(id, STATUS_BUSY, SERVER_BUSY.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_util::codec::{Decoder, Encoder};

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
    fn answers_carry_the_core_s_numbers_and_messages() {
        let err = answer_for(9, Err(qr_lib::QrError::TextTooLong));
        assert_eq!(&err[..5], &[0, 0, 0, 9, 2]);
        assert_eq!(
            &err[5..],
            qr_lib::QrError::TextTooLong.to_string().as_bytes()
        );
        assert_eq!(&busy(1)[4..5], &[STATUS_BUSY]);
    }
}
