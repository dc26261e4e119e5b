//! `qr_server --rpc`'s frame decoder (tokio-util's length-delimited codec
//! with the server's limit, then the id) on any byte stream, arriving in any
//! chunks: never a panic, exactly the frames the protocol defines, each
//! parsed into its id and payload, and an error, not a buffer, for a length
//! past the limit.
#![no_main]

use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;
use tokio_util::codec::{Decoder, Encoder};

#[path = "../../qr_server/src/rpc/frame.rs"]
#[allow(dead_code)]
mod frame;

fuzz_target!(|data: &[u8]| {
    // The first byte sets the size of the chunks the stream arrives in.
    let Some((&chunk, stream)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(chunk).max(1);

    let mut codec = frame::request_codec();
    let mut buffer = BytesMut::new();
    let mut decoded = Vec::new();
    let mut failed = false;
    'feed: for piece in stream.chunks(chunk) {
        buffer.extend_from_slice(piece);
        loop {
            match codec.decode(&mut buffer) {
                Ok(Some(body)) => decoded.push(body),
                Ok(None) => break,
                Err(_) => {
                    failed = true;
                    break 'feed;
                }
            }
        }
        assert!(
            buffer.capacity() <= frame::MAX_REQUEST_FRAME + 4 + chunk + 8192,
            "buffered past one frame"
        );
    }

    // The frames, as docs/rpc-protocol.md defines them.
    let mut expected = Vec::new();
    let mut rest = stream;
    let mut too_long = false;
    while let Some((len, tail)) = rest.split_first_chunk::<4>() {
        let len = u32::from_be_bytes(*len) as usize;
        if len > frame::MAX_REQUEST_FRAME {
            too_long = true;
            break;
        }
        if tail.len() < len {
            break;
        }
        expected.push(&tail[..len]);
        rest = &tail[len..];
    }
    assert_eq!(failed, too_long, "an error exactly for a length past the limit");
    assert_eq!(decoded.len(), expected.len());
    for (body, want) in decoded.into_iter().zip(expected) {
        assert_eq!(&body[..], want);
        match frame::parse_request(body) {
            Some(request) => {
                assert!(want.len() >= 4);
                assert_eq!(request.id.to_be_bytes(), want[..4]);
                assert_eq!(&request.payload[..], &want[4..]);
                // Its busy answer, as a client's length-delimited decoder reads it.
                let mut wire = BytesMut::new();
                frame::AnswerCodec
                    .encode(frame::busy(request.id), &mut wire)
                    .unwrap();
                let answer = tokio_util::codec::LengthDelimitedCodec::new()
                    .decode(&mut wire)
                    .unwrap()
                    .unwrap();
                assert_eq!(&answer[..4], &want[..4]);
            }
            None => assert!(want.len() < 4),
        }
    }
});
