//! Every bound of qr_server in one place: the sizes, counts and durations
//! past which something is refused, cut off or given up, so that one client
//! cannot take the server down and nothing waits for ever. Most have a
//! counterpart in node-server (tier-adapters/) of the same order. The RPC
//! frame sizes stay with the wire format (rpc/frame.rs), which the fuzz
//! target compiles on its own. Also the limiter that holds generations to
//! their slots and queue.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::{Semaphore, SemaphorePermit};

/// A request head (request line and headers) must arrive within this; hyper
/// also starts it when a keep-alive connection goes idle, so it is the idle
/// timeout too. node-server: headersTimeout and keepAliveTimeout.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// A connection whose client accepts no byte of its answer for this long is
/// closed (nginx's send_timeout). node-server: the socket's idle timeout.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// Open connections per process; the next one is answered 503 and closed.
/// Fewer when the open-file limit leaves room for fewer (fd_limit.rs).
pub const MAX_CONNECTIONS: usize = 4096;
/// Open HTTP connections per client address (an IPv6 client by its /64,
/// the block one host is given); the next one is answered 503 and closed,
/// so one client cannot hold the whole cap. A quarter of MAX_CONNECTIONS:
/// four addresses still can, and behind a proxy every client is the proxy's
/// address (docs/operations.md, "Connection limits"). The benchmark's
/// largest load, 1000 connections from loopback, stays under it.
pub const MAX_CONNECTIONS_PER_CLIENT: usize = 1024;
/// Open connections to the operator's listener (`--metrics-port`): a
/// scraper or two, and an operator's curl.
pub const MAX_METRICS_CONNECTIONS: usize = 16;
/// Connections the kernel holds for accept(), as Node's 511 and nginx's 511
/// do (capped by net.core.somaxconn): a connection storm is queued, then
/// served or refused 503, not dropped.
pub const LISTEN_BACKLOG: u32 = 1024;
/// Refusals (503 past the connection cap) that may linger at once, reading
/// what their client still sends; past it a refusal closes at once.
pub const LINGERING_REFUSALS: usize = 32;
/// How long a refused connection may keep sending before it is cut off.
pub const LINGER: Duration = Duration::from_secs(2);
/// Requests that may wait for a generation slot; past it, 503 "server busy".
pub const MAX_QUEUE: usize = 512;
/// How long shutdown waits for in-flight requests before it gives up.
pub const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(10);
/// During a drain, how long a pipelining connection must show no read and no
/// request before it counts as idle: what its client sent before the signal
/// is read well within it. node-server's drain has the same rule
/// (tier-adapters/http-server.js: QUIET_MS).
pub const QUIET: Duration = Duration::from_millis(50);
/// The pause after a failed accept (out of descriptors with no spare, or the
/// like), HTTP and RPC alike: waiting instead of spinning on the error.
pub const ACCEPT_RETRY_DELAY: Duration = Duration::from_millis(50);
/// The longest request target served (a longer one is answered 414); the
/// access log cuts a path there. node-server has the same limit and text
/// (tier-adapters/http-limits.js).
pub const MAX_REQUEST_TARGET_BYTES: usize = 8192;
/// Descriptors kept for everything but open client connections: stdio, the
/// listener, the runtime's epoll and wakers, refusals in their linger, and the
/// spare descriptor of the accept loop (fd_limit.rs).
pub const FD_RESERVE: u64 = 64;

/// `--rpc`: calls one connection may have in flight (generating, or answered
/// and not yet written); past it, busy answers. Also what it buffers of its
/// answers.
pub const RPC_MAX_IN_FLIGHT_PER_CONNECTION: usize = 64;
/// `--rpc`: generations in flight over every connection; past it, busy answers.
pub const RPC_MAX_IN_FLIGHT: usize = 1024;
/// `--rpc`: a connection that completes no frame for this long (idle, or
/// trickling one) is closed once its answers are written; HTTP's header-read
/// timeout.
pub const RPC_READ_TIMEOUT: Duration = HEADER_READ_TIMEOUT;
/// `--rpc`: how long the probe of an existing socket file may take: a frozen
/// server (SIGSTOPped, or wedged) accepts nothing, and start-up must not wait
/// for it.
pub const RPC_PROBE_TIMEOUT: Duration = Duration::from_secs(1);

/// Log lines a second per kind of refusal or failure; the rest are counted
/// and the count rides on the next line let through: a flood of bad requests
/// must not become a flood of log lines. node-server: tier-adapters/json-log.js.
pub const LOG_LINES_PER_SECOND: u32 = 20;
/// The longest request id taken from a client (nginx's `$request_id` is 32).
pub const MAX_REQUEST_ID: usize = 64;
/// Log lines that may wait for the writing thread. An access line holds the
/// request's path, cut at 8 KiB (MAX_REQUEST_TARGET_BYTES; hyper reads heads
/// of some 400 KB): tracing-appender's default of 128,000 lines let a client
/// with long paths, and a reader that stopped reading, hold a gigabyte.
/// 10,000 is at most some 85 MB, half a second of the busiest access log (a
/// line is ~200 bytes otherwise).
pub const LOG_BUFFERED_LINES: usize = 10_000;

/// `--health-check`: connect, write and read each within this, well below a
/// container runtime's usual check timeout (podman's: 30 s).
pub const HEALTH_CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// At most `slots` generations at once, at most `max_queue` waiting for one.
pub struct Limiter {
    slots: Semaphore,
    waiting: AtomicUsize,
    max_queue: usize,
}

impl Limiter {
    pub fn new(slots: usize, max_queue: usize) -> Self {
        Self {
            slots: Semaphore::new(slots),
            waiting: AtomicUsize::new(0),
            max_queue,
        }
    }

    /// Requests waiting for a slot.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Acquire)
    }

    /// A slot, or None when the queue is full. Dropping the future (the
    /// client hung up) leaves the queue.
    pub async fn acquire(&self) -> Option<SemaphorePermit<'_>> {
        if let Ok(permit) = self.slots.try_acquire() {
            return Some(permit);
        }
        if self.waiting.fetch_add(1, Ordering::AcqRel) >= self.max_queue {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        let _waiting = Waiting(&self.waiting);
        self.slots.acquire().await.ok()
    }
}

/// Leaves the wait count when the waiter is served or dropped.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn refuses_past_the_queue_and_frees_gone_waiters() {
        let limiter = std::sync::Arc::new(Limiter::new(1, 1));
        let held = limiter.acquire().await.unwrap();
        let l = limiter.clone();
        let waiter = tokio::spawn(async move { l.acquire().await.is_some() });
        tokio::task::yield_now().await;
        while limiter.waiting.load(Ordering::Acquire) == 0 {
            tokio::task::yield_now().await;
        }
        assert!(limiter.acquire().await.is_none(), "queue of 1 is full");
        waiter.abort();
        let _ = waiter.await;
        assert_eq!(
            limiter.waiting.load(Ordering::Acquire),
            0,
            "aborted waiter left"
        );
        drop(held);
        assert!(limiter.acquire().await.is_some());
    }
}
