//! `--rpc PATH`: the core over a Unix socket without HTTP. Each connection
//! carries many calls at once, answered by id as they finish
//! (docs/rpc-protocol.md). Bounded as the HTTP side is: frame size
//! (frame.rs), calls in flight per connection and in total (past them a busy
//! answer), a read and idle timeout, a write timeout, the connection cap
//! (shared with HTTP; these in limits.rs) and a drain on shutdown that
//! answers every call read before it.

mod frame;
mod socket_file;
mod threads;

use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use tokio::net::unix::OwnedWriteHalf;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{mpsc, watch, OwnedSemaphorePermit, Semaphore};
use tokio_util::codec::{FramedRead, FramedWrite};

use crate::limits::{
    ACCEPT_RETRY_DELAY, RPC_MAX_IN_FLIGHT, RPC_MAX_IN_FLIGHT_PER_CONNECTION, RPC_READ_TIMEOUT,
    WRITE_TIMEOUT,
};
use crate::log::Log;
use crate::metrics::{Metrics, Refusal};

pub use socket_file::{SocketFile, DEFAULT_MODE};
pub use threads::Threads;

/// What the RPC side shares with the HTTP side: the connection cap's permits
/// (one per open connection, HTTP or RPC), the metrics, the log, and the
/// drain's signal.
pub struct Shared {
    pub connections: Arc<Semaphore>,
    pub metrics: Arc<Metrics>,
    pub log: Arc<Log>,
    pub draining: watch::Receiver<bool>,
}

/// Listens on `path`, a socket file with permission bits `mode`, under
/// `PATH.lock` (socket_file.rs).
pub async fn bind(path: &Path, mode: u32) -> std::io::Result<(UnixListener, SocketFile)> {
    socket_file::bind(path, mode).await
}

/// The RPC accept loop: accepts until `draining`, then lets each connection
/// drain; each holds a permit of `connections` until it has. Connections run
/// on `threads`.
pub async fn run(
    listener: UnixListener,
    mut threads: Threads,
    Shared {
        connections,
        metrics,
        log,
        mut draining,
    }: Shared,
) {
    let generating = Arc::new(Semaphore::new(RPC_MAX_IN_FLIGHT));
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of descriptors or the like: wait instead of spinning.
                Err(_) => {
                    tokio::time::sleep(ACCEPT_RETRY_DELAY).await;
                    continue;
                }
            },
            () = until_draining(&mut draining) => return,
        };
        // Past the cap a connection is closed at once; the client's
        // reconnect back-off spaces its retries.
        let Ok(open) = connections.clone().try_acquire_owned() else {
            metrics.refused(Refusal::connection_cap);
            log.refused("connection_cap", None);
            continue;
        };
        let (generating, metrics, draining) =
            (generating.clone(), metrics.clone(), draining.clone());
        let handed = threads.hand(
            stream,
            Box::new(move |stream| {
                Box::pin(async move {
                    serve_connection(stream, generating, metrics, draining).await;
                    drop(open);
                })
            }),
        );
        // Fails only if that thread is gone: this connection is then closed.
        drop(handed);
    }
}

async fn serve_connection(
    stream: UnixStream,
    generating: Arc<Semaphore>,
    metrics: Arc<Metrics>,
    mut draining: watch::Receiver<bool>,
) {
    let (read, write) = stream.into_split();
    let mut requests = FramedRead::new(read, frame::request_codec());
    let (answers, to_write) = mpsc::channel(RPC_MAX_IN_FLIGHT_PER_CONNECTION);
    let writer = tokio::spawn(write_answers(
        FramedWrite::new(write, frame::AnswerCodec),
        to_write,
    ));
    let in_flight = Arc::new(Semaphore::new(RPC_MAX_IN_FLIGHT_PER_CONNECTION));
    loop {
        let body = tokio::select! {
            biased;
            () = until_draining(&mut draining) => break,
            // The writer gave up (timeout, peer gone): stop reading too.
            () = answers.closed() => break,
            next = tokio::time::timeout(RPC_READ_TIMEOUT, requests.next()) => match next {
                Ok(Some(Ok(body))) => body,
                // End of stream, a frame over the limit, a read error, or no
                // whole frame within the timeout.
                _ => break,
            },
        };
        let Some(request) = frame::parse_request(body) else {
            break;
        };
        let permits = in_flight
            .clone()
            .try_acquire_owned()
            .and_then(|mine| Ok((mine, generating.clone().try_acquire_owned()?)));
        match permits {
            Ok((mine, generation)) => {
                let answers = answers.clone();
                let running = metrics.running();
                tokio::spawn(async move {
                    let answer = generate(request, generation);
                    drop(running);
                    // Held until the answer is queued: a client that does not
                    // read stops being read (its calls wait, then busy answers).
                    let _ = answers.send(answer).await;
                    drop(mine);
                });
            }
            Err(_) => {
                metrics.refused(Refusal::queue_full);
                if answers.send(frame::busy(request.id)).await.is_err() {
                    break;
                }
            }
        }
    }
    // The calls in flight still hold senders: the writer ends after their answers.
    drop(answers);
    let _ = writer.await;
}

/// The core inline on the connection's thread, as /qrcode runs it: a panic is this
/// call's ENCODING_FAILED, not the connection's end.
fn generate(request: frame::Request, generation: OwnedSemaphorePermit) -> frame::Answer {
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        qr_lib::generate_qr_code_from_utf8(&request.payload)
    }))
    .unwrap_or(Err(qr_lib::QrError::EncodingFailed));
    drop(generation);
    frame::answer_for(request.id, result)
}

/// Writes answers as they come, one flush for those already waiting; an
/// answer the client takes nothing of for WRITE_TIMEOUT ends the connection.
async fn write_answers(
    mut sink: FramedWrite<OwnedWriteHalf, frame::AnswerCodec>,
    mut to_write: mpsc::Receiver<frame::Answer>,
) {
    while let Some(answer) = to_write.recv().await {
        let fed = tokio::time::timeout(WRITE_TIMEOUT, sink.feed(answer)).await;
        if !matches!(fed, Ok(Ok(()))) {
            return;
        }
        // Answers still generating get one scheduler turn to join this write.
        if to_write.is_empty() {
            tokio::task::yield_now().await;
        }
        if to_write.is_empty() {
            let flushed =
                tokio::time::timeout(WRITE_TIMEOUT, SinkExt::<frame::Answer>::flush(&mut sink))
                    .await;
            if !matches!(flushed, Ok(Ok(()))) {
                return;
            }
        }
    }
    let _ = tokio::time::timeout(WRITE_TIMEOUT, SinkExt::<frame::Answer>::close(&mut sink)).await;
}

/// Resolves once the server drains (the watch's guard is not kept across awaits).
async fn until_draining(draining: &mut watch::Receiver<bool>) {
    let _ = draining.wait_for(|&d| d).await.map(drop);
}
