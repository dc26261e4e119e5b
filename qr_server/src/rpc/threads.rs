//! The threads RPC connections run on: one single-threaded runtime per CPU,
//! each connection handed to the next in turn and kept there (coro_rpc's
//! io_context pool, tokio's thread-per-core). A call's generation and its
//! answer's write then run on the thread that read it: no call wakes another
//! thread, where the multi-threaded runtime woke one to steal the call's task.

use std::future::Future;
use std::pin::Pin;
use std::thread;

use tokio::net::UnixStream;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

/// A connection's work, started on the thread that owns it.
pub type Connection =
    Box<dyn FnOnce(UnixStream) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send>;

pub struct Threads {
    threads: Vec<mpsc::UnboundedSender<(std::os::unix::net::UnixStream, Connection)>>,
    next: usize,
}

impl Threads {
    pub fn start(count: usize) -> std::io::Result<Self> {
        let mut threads = Vec::with_capacity(count);
        for i in 0..count {
            // Unbounded, but each connection handed holds a place under the cap.
            let (tx, rx) = mpsc::unbounded_channel();
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            thread::Builder::new()
                .name(format!("qr-rpc-{i}"))
                .spawn(move || runtime.block_on(run(rx)))?;
            threads.push(tx);
        }
        Ok(Self { threads, next: 0 })
    }

    /// Hands `stream` to the next thread, which runs `connection` on it.
    pub fn hand(&mut self, stream: UnixStream, connection: Connection) -> std::io::Result<()> {
        // Registered with this thread's reactor until here; the owner's from there.
        let stream = stream.into_std()?;
        let thread = &self.threads[self.next];
        self.next = (self.next + 1) % self.threads.len();
        thread
            .send((stream, connection))
            .map_err(|_| std::io::Error::other("the RPC thread is gone"))
    }
}

/// Runs the connections it is handed until the pool is dropped and every
/// one of them has ended (the drain answers what they have read).
async fn run(mut handed: mpsc::UnboundedReceiver<(std::os::unix::net::UnixStream, Connection)>) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            next = handed.recv() => match next {
                Some((stream, connection)) => match UnixStream::from_std(stream) {
                    Ok(stream) => drop(connections.spawn(connection(stream))),
                    // Dropped: the client sees the connection closed.
                    Err(_) => continue,
                },
                None => break,
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    while connections.join_next().await.is_some() {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc as std_mpsc;

    /// Where a connection ran, and where a task it spawned ran.
    fn where_it_runs(seen: std_mpsc::Sender<(String, String)>) -> Connection {
        let name = || thread::current().name().unwrap_or("").to_owned();
        Box::new(move |_stream| {
            Box::pin(async move {
                let connection = name();
                let call = tokio::spawn(async move { name() }).await.unwrap();
                seen.send((connection, call)).unwrap();
            })
        })
    }

    #[tokio::test]
    async fn connections_go_round_the_threads_and_their_calls_stay_on_theirs() {
        let mut threads = Threads::start(2).unwrap();
        let (seen, ran) = std_mpsc::channel();
        let mut peers = Vec::new();
        for _ in 0..4 {
            let (ours, theirs) = UnixStream::pair().unwrap();
            threads.hand(ours, where_it_runs(seen.clone())).unwrap();
            peers.push(theirs);
        }
        let mut places: Vec<(String, String)> = (0..4).map(|_| ran.recv().unwrap()).collect();
        places.sort();
        let on = |t: &str| (t.to_owned(), t.to_owned());
        assert_eq!(
            places,
            [
                on("qr-rpc-0"),
                on("qr-rpc-0"),
                on("qr-rpc-1"),
                on("qr-rpc-1")
            ]
        );
    }
}
