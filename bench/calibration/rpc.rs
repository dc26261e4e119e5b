// The identity as a Rust service on a Unix socket: the calibration's `rpc`
// rung, a hop from Node to another process that answers the RPC frames of
// docs/rpc-protocol.md (what tier-adapters' createRpcTier speaks, and
// `qr_server --rpc` serves). Its function is port.rs, included as is, so the
// hop moves the same bytes as every other rung. Standard library only:
// build.js compiles it with rustc beside the ladder, and no crate is fetched.
//
//   identity_rpc SOCKET   prints "listening on SOCKET", serves until its
//                         stdin closes (its parent gone) or it is killed
//
// A thread per connection, reading whole frames, answering each in turn;
// answers leave when no more requests are buffered, so a client's pipelined
// calls go back in one write, as tokio's codec flushes a busy stream.

use std::io::{BufReader, BufWriter, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};

/// The ladder's error type, as port() returns it.
enum Error {
    Invalid(String),
}

include!("port.rs");

/// identity.js: MAX_INPUT_BYTES; a request is its id and at most that.
const MAX_BODY_BYTES: usize = 4 + (1 << 20);
const STATUS_OK: u8 = 0;
const STATUS_INVALID: u8 = 1;

fn answer(body: &[u8]) -> (u8, Vec<u8>) {
    let outcome = std::str::from_utf8(body)
        .map_err(|_| Error::Invalid("input must be UTF-8".into()))
        .and_then(port);
    match outcome {
        Ok(output) => (STATUS_OK, output),
        Err(Error::Invalid(message)) => (STATUS_INVALID, message.into_bytes()),
    }
}

fn serve(stream: UnixStream) -> std::io::Result<()> {
    let mut reader = BufReader::with_capacity(64 << 10, stream.try_clone()?);
    let mut writer = BufWriter::with_capacity(64 << 10, stream);
    let mut body = Vec::new();
    loop {
        let mut length = [0u8; 4];
        if let Err(err) = reader.read_exact(&mut length) {
            // The client closed between frames: done.
            return if err.kind() == std::io::ErrorKind::UnexpectedEof {
                Ok(())
            } else {
                Err(err)
            };
        }
        let length = u32::from_be_bytes(length) as usize;
        if !(4..=MAX_BODY_BYTES).contains(&length) {
            return Ok(()); // not this protocol: close, as qr_server does
        }
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
        let (status, payload) = answer(&body[4..]);
        writer.write_all(&(5 + payload.len() as u32).to_be_bytes())?;
        writer.write_all(&body[..4])?;
        writer.write_all(&[status])?;
        writer.write_all(&payload)?;
        if reader.buffer().is_empty() {
            writer.flush()?;
        }
    }
}

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: identity_rpc SOCKET");
        std::process::exit(2);
    };
    let listener = UnixListener::bind(&path).unwrap_or_else(|err| {
        eprintln!("identity_rpc: {path}: {err}");
        std::process::exit(1);
    });
    // The parent holds stdin open: when it goes, however it goes, so does this.
    std::thread::spawn(|| {
        let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
        std::process::exit(0);
    });
    println!("listening on {path}");
    for stream in listener.incoming().flatten() {
        std::thread::spawn(move || serve(stream));
    }
}
