//! The bounds that keep one client from taking the server down. Each has a
//! counterpart in node-server (tier-adapters/http-server.js) of the same order.

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
/// Requests that may wait for a generation slot; past it, 503 "server busy".
pub const MAX_QUEUE: usize = 512;
/// How long shutdown waits for in-flight requests before it gives up.
pub const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(10);

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
