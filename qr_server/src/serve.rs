//! The accept loop: hyper's HTTP/1 connections with a header-read timer, a
//! cap on open connections, and a drain on shutdown that answers every
//! request whose head has begun to arrive.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::Request;
use axum::http::{header, HeaderValue};
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};
use tower::ServiceExt;

use crate::limits::{HEADER_READ_TIMEOUT, SHUTDOWN_TIMEOUT};

/// What a connection over the cap reads before it is closed.
const REFUSAL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\n\
content-type: text/plain; charset=utf-8\r\nretry-after: 1\r\nconnection: close\r\n\
content-length: 11\r\n\r\nserver busy";
/// How long a refused connection may keep sending before it is cut off.
const LINGER: Duration = Duration::from_secs(2);

pub async fn serve(
    listener: TcpListener,
    router: Router,
    max_connections: usize,
    shutdown: impl Future<Output = ()>,
) {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    let connections = Arc::new(Semaphore::new(max_connections));
    let (draining_tx, draining) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // EMFILE and the like: wait instead of spinning on the error.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Ok(open) = connections.clone().try_acquire_owned() else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let _ = stream.set_nodelay(true);
        let connection = serve_connection(&builder, stream, router.clone(), draining.clone());
        tokio::spawn(async move {
            connection.await;
            drop(open);
        });
    }
    // Stop accepting, drain every connection, and wait for them (all
    // permits back) up to the shutdown timeout.
    drop(listener);
    let _ = draining_tx.send(true);
    let all = u32::try_from(max_connections).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(SHUTDOWN_TIMEOUT, connections.acquire_many(all)).await;
}

/// One connection. On shutdown an idle one closes at once; one with a
/// request in flight, or a head begun (hyper calls that idle too), gets its
/// answer with `connection: close`.
fn serve_connection(
    builder: &http1::Builder,
    stream: TcpStream,
    router: Router,
    mut draining: watch::Receiver<bool>,
) -> impl Future<Output = ()> {
    let busy = Arc::new(AtomicBool::new(false));
    let io = TokioIo::new(Watched {
        stream,
        busy: busy.clone(),
    });
    let done = busy.clone();
    let draining_now = draining.clone();
    let service = hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
        let router = router.clone();
        let done = done.clone();
        let draining_now = draining_now.clone();
        async move {
            let mut response = router.oneshot(request.map(axum::body::Body::new)).await?;
            if *draining_now.borrow() {
                let close = HeaderValue::from_static("close");
                response.headers_mut().insert(header::CONNECTION, close);
            }
            // Answered: the connection is idle again until its next byte.
            done.store(false, Ordering::Release);
            Ok::<_, std::convert::Infallible>(response)
        }
    });
    let connection = builder.serve_connection(io, service);
    async move {
        tokio::pin!(connection);
        tokio::select! {
            _ = connection.as_mut() => return,
            _ = draining.wait_for(|&d| d) => {}
        }
        if !busy.load(Ordering::Acquire) {
            connection.as_mut().graceful_shutdown();
        }
        let _ = connection.await;
    }
}

/// The TCP stream, flagging when a request's bytes have begun to arrive.
struct Watched {
    stream: TcpStream,
    busy: Arc<AtomicBool>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.busy.store(true, Ordering::Release);
        }
        poll
    }
}

impl tokio::io::AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// 503 "server busy", then read (and drop) what the client still sends, so
/// the close is not a reset that could erase the answer (RFC 9112, 9.6).
async fn refuse(mut stream: TcpStream) {
    if stream.write_all(REFUSAL).await.is_err() || stream.shutdown().await.is_err() {
        return;
    }
    let mut sink = [0u8; 4096];
    let _ = tokio::time::timeout(LINGER, async {
        while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
    })
    .await;
}
