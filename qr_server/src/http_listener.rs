//! The HTTP listener's accept loop: hyper's HTTP/1 connections with a
//! header-read timer and a write timer, caps on open connections (in all and
//! per client; past them 503 and close), and a drain on shutdown that answers
//! every request whose head has begun to arrive. What is counted and logged
//! of each request is the service's (observe.rs); only refused connections
//! are counted and logged here.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::{header, HeaderValue};
use axum::response::Response;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};
use tower::{Service, ServiceExt};

use crate::fd_limit::out_of_descriptors;
use crate::limits::{
    ACCEPT_RETRY_DELAY, HEADER_READ_TIMEOUT, LINGER, LINGERING_REFUSALS, QUIET, SHUTDOWN_TIMEOUT,
    WRITE_TIMEOUT,
};
use crate::log::Log;
use crate::metrics::{Metrics, Refusal};

/// What a connection over the cap reads before it is closed.
const REFUSAL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\n\
content-type: text/plain; charset=utf-8\r\nretry-after: 1\r\nconnection: close\r\n\
content-length: 11\r\n\r\nserver busy";

/// What the drain needs to know of a connection.
#[derive(Default)]
struct Activity {
    /// A request's bytes have begun to arrive and it is not answered yet.
    busy: AtomicBool,
    /// A request came from bytes hyper had already read: the client pipelines.
    pipelining: AtomicBool,
    /// A request is with the service.
    answering: AtomicBool,
    /// Bumped by every read and every request: the same over QUIET is quiet.
    events: AtomicU64,
}

impl Activity {
    fn bump(&self) {
        self.events.fetch_add(1, Ordering::AcqRel);
    }

    fn quiet_since(&self, events: u64) -> bool {
        self.events.load(Ordering::Acquire) == events
            && !self.answering.load(Ordering::Acquire)
            && !self.busy.load(Ordering::Acquire)
    }
}

/// Open connections per client address, at most `max` each.
pub struct PerClient {
    max: usize,
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// One connection's place in its client's share, given back on drop.
pub struct ClientSlot {
    table: Arc<PerClient>,
    client: IpAddr,
}

impl PerClient {
    pub fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            max,
            open: Mutex::new(HashMap::new()),
        })
    }

    /// The address a client is counted by: an IPv4 one as it is (mapped
    /// into IPv6 or not), an IPv6 one by its /64, since one host is handed
    /// a whole /64 and could otherwise open its share from each address.
    fn client_of(addr: IpAddr) -> IpAddr {
        match addr {
            IpAddr::V4(v4) => IpAddr::V4(v4),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
            },
        }
    }

    /// A place for one more connection from `addr`, or None past its share.
    pub fn admit(self: &Arc<Self>, addr: IpAddr) -> Option<ClientSlot> {
        let client = Self::client_of(addr);
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let count = open.entry(client).or_insert(0);
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(ClientSlot {
            table: self.clone(),
            client,
        })
    }
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut open = self.table.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = open.get_mut(&self.client) {
            *count -= 1;
            // The table holds only clients with a connection open.
            if *count == 0 {
                open.remove(&self.client);
            }
        }
    }
}

/// The bounds on a listener's connections: `connections` (a permit each, of
/// `max_connections`, shared with the RPC side for the public listener) and
/// each client's share of them.
pub struct Caps {
    pub connections: Arc<Semaphore>,
    pub max_connections: usize,
    pub per_client: Arc<PerClient>,
}

/// What is told of a connection refused at a cap: the refusal counts of the
/// metrics (whether or not requests are counted) and the log.
pub struct Observers {
    pub metrics: Arc<Metrics>,
    pub log: Arc<Log>,
}

/// Serves `service` on `listener`'s connections until `shutdown`, then
/// drains them: waits until every permit of `connections` is back (the RPC
/// side's too), at most SHUTDOWN_TIMEOUT.
pub async fn run<S>(
    listener: TcpListener,
    service: S,
    Caps {
        connections,
        max_connections,
        per_client,
    }: Caps,
    Observers { metrics, log }: Observers,
    shutdown: impl Future<Output = ()>,
) where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send,
{
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        // As Node's parser does: `GET  /qrcode  HTTP/1.1` is a request line
        // (docs/request-grammar.md).
        .allow_multiple_spaces_in_request_line_delimiters(true);
    let lingering = Arc::new(Semaphore::new(LINGERING_REFUSALS));
    // Out of descriptors, a pending connection can be neither accepted nor
    // answered: this one is given up to accept it and answer 503 (libuv's trick).
    let mut spare = open_spare();
    let (draining_tx, draining) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        if spare.is_none() {
            spare = open_spare();
        }
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) if out_of_descriptors(&err) && spare.is_some() => {
                    drop(spare.take());
                    if let Ok((stream, _)) = listener.accept().await {
                        metrics.refused(Refusal::connection_cap);
                        log.refused("connection_cap", None);
                        tokio::spawn(refuse_at_once(stream));
                    }
                    continue;
                }
                // Anything else, or no spare: wait instead of spinning on the error.
                Err(_) => {
                    tokio::time::sleep(ACCEPT_RETRY_DELAY).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // The client's share first: a client past it is refused without
        // taking one of the places left for the others.
        let admitted = match per_client.admit(peer.ip()) {
            None => Err(Refusal::client_cap),
            Some(slot) => match connections.clone().try_acquire_owned() {
                Ok(open) => Ok((slot, open)),
                Err(_) => Err(Refusal::connection_cap),
            },
        };
        let open = match admitted {
            Ok(open) => open,
            Err(reason) => {
                metrics.refused(reason);
                log.refused(reason.name(), None);
                match lingering.clone().try_acquire_owned() {
                    Ok(slot) => tokio::spawn(async move {
                        refuse(stream).await;
                        drop(slot);
                    }),
                    Err(_) => tokio::spawn(refuse_at_once(stream)),
                };
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let connection = serve_connection(&builder, stream, service.clone(), draining.clone());
        tokio::spawn(async move {
            connection.await;
            drop(open);
        });
    }
    // Stop accepting, drain every connection, and wait for them (all
    // permits back, the RPC side's too) up to the shutdown timeout.
    drop(listener);
    let _ = draining_tx.send(true);
    let all = u32::try_from(max_connections).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(SHUTDOWN_TIMEOUT, connections.acquire_many(all)).await;
}

/// One connection. On shutdown an idle one closes at once; one with a
/// request in flight, or a head begun (hyper calls that idle too), gets its
/// answer with `connection: close`; one that pipelines is served until quiet
/// (its client may have more requests in hyper's buffer or the kernel's).
fn serve_connection<S>(
    builder: &http1::Builder,
    stream: TcpStream,
    service: S,
    mut draining: watch::Receiver<bool>,
) -> impl Future<Output = ()>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send,
{
    let activity = Arc::new(Activity::default());
    let io = TokioIo::new(Watched {
        stream,
        activity: activity.clone(),
        stalled: None,
    });
    let seen = activity.clone();
    let draining_now = draining.clone();
    let per_request = hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
        let service = service.clone();
        let seen = seen.clone();
        let draining_now = draining_now.clone();
        async move {
            // No byte read since the last answer: hyper had this one already.
            if !seen.busy.load(Ordering::Acquire) {
                seen.pipelining.store(true, Ordering::Release);
            }
            seen.answering.store(true, Ordering::Release);
            seen.bump();
            let mut response = service.oneshot(request.map(axum::body::Body::new)).await?;
            if *draining_now.borrow() && !seen.pipelining.load(Ordering::Acquire) {
                let close = HeaderValue::from_static("close");
                response.headers_mut().insert(header::CONNECTION, close);
            }
            // Answered: the connection is idle again until its next byte.
            seen.busy.store(false, Ordering::Release);
            seen.answering.store(false, Ordering::Release);
            seen.bump();
            Ok::<_, Infallible>(response)
        }
    });
    let connection = builder.serve_connection(io, per_request);
    async move {
        tokio::pin!(connection);
        tokio::select! {
            _ = connection.as_mut() => return,
            _ = draining.wait_for(|&d| d) => {}
        }
        while activity.pipelining.load(Ordering::Acquire) {
            let events = activity.events.load(Ordering::Acquire);
            tokio::select! {
                _ = connection.as_mut() => return,
                () = tokio::time::sleep(QUIET) => {}
            }
            if activity.quiet_since(events) {
                break;
            }
        }
        if !activity.busy.load(Ordering::Acquire) {
            connection.as_mut().graceful_shutdown();
        }
        let _ = connection.await;
    }
}

/// The TCP stream, flagging when a request's bytes have begun to arrive, and
/// failing a write that has made no progress for WRITE_TIMEOUT: hyper times
/// reads only, and a client that never reads would otherwise hold its
/// connection (and a place under the cap) for ever.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
    /// Since when writes have been refused, as a deadline.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Watched {
    fn timed<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: Poll<std::io::Result<T>>,
    ) -> Poll<std::io::Result<T>> {
        if poll.is_ready() {
            self.stalled = None;
            return poll;
        }
        let deadline = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(WRITE_TIMEOUT)));
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client read none of its answer",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
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
            self.activity.busy.store(true, Ordering::Release);
            self.activity.bump();
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
        let poll = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.timed(cx, poll)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let poll = Pin::new(&mut self.stream).poll_flush(cx);
        self.timed(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// A descriptor to give up when the others have run out.
fn open_spare() -> Option<std::fs::File> {
    std::fs::File::open("/dev/null").ok()
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

/// The refusal when its descriptor is needed back at once (too many lingering,
/// or none left): what has arrived is read first, so that the close is a
/// reset only for a client still sending.
async fn refuse_at_once(mut stream: TcpStream) {
    let mut sink = [0u8; 4096];
    while matches!(stream.try_read(&mut sink), Ok(n) if n > 0) {}
    let _ = tokio::time::timeout(LINGER, async {
        stream.write_all(REFUSAL).await?;
        stream.shutdown().await
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client that reads nothing: the server's writes fill both kernel
    /// buffers, then must fail after WRITE_TIMEOUT instead of waiting for ever.
    /// Time is paused, so the runtime jumps to each deadline once idle.
    #[tokio::test(start_paused = true)]
    async fn a_write_the_client_takes_nothing_of_fails_after_the_write_timeout() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (stream, _) = listener.accept().await.unwrap();
        let mut watched = Watched {
            stream,
            activity: Arc::default(),
            stalled: None,
        };
        let started = tokio::time::Instant::now();
        let chunk = vec![b'x'; 64 << 10];
        let writes = async {
            loop {
                if let Err(err) = watched.write(&chunk).await {
                    return err;
                }
            }
        };
        let err = tokio::time::timeout(3 * WRITE_TIMEOUT, writes)
            .await
            .expect("a write the client takes nothing of never failed");
        assert_eq!(err.kind(), std::io::ErrorKind::TimedOut);
        assert!(
            started.elapsed() >= WRITE_TIMEOUT,
            "{:?}",
            started.elapsed()
        );
        drop(client);
    }
}
