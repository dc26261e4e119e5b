//! One JSON object per line on stdout with `tracing`: the keys node-server's
//! pino writes (`timestamp`, `level`, `message`, then the event's fields;
//! tier-adapters/json-log.js), so one log pipeline parses both.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::http::HeaderValue;

use crate::limits::{
    LOG_BUFFERED_LINES, LOG_LINES_PER_SECOND, MAX_REQUEST_ID, MAX_REQUEST_TARGET_BYTES,
};

/// The path as the access log writes it: at most MAX_REQUEST_TARGET_BYTES,
/// the longest target served (a longer one is answered 414).
fn logged_path(path: &str) -> &str {
    let mut end = path.len().min(MAX_REQUEST_TARGET_BYTES);
    while !path.is_char_boundary(end) {
        end -= 1;
    }
    &path[..end]
}

/// Lines are written by a thread of their own, in batches: a request thread
/// never waits on the log pipe, and an access log costs a few buffered
/// writes, not a write(2) per line. Past LOG_BUFFERED_LINES waiting (a reader
/// that stopped reading) lines are dropped, not memory grown. The guard
/// writes what is left when dropped: hold it until exit. The counter says
/// how many lines were dropped (`qr_log_lines_dropped_total`).
pub fn init() -> (
    tracing_appender::non_blocking::WorkerGuard,
    tracing_appender::non_blocking::ErrorCounter,
) {
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .buffered_lines_limit(LOG_BUFFERED_LINES)
        .lossy(true)
        .finish(std::io::BufWriter::new(std::io::stdout()));
    let dropped = writer.error_counter();
    tracing_subscriber::fmt()
        .json()
        .flatten_event(true)
        .with_target(false)
        .with_current_span(false)
        .with_span_list(false)
        .with_writer(writer)
        .init();
    // A panic is caught (a request's 500, a call's error) but the default
    // hook would still print it as free text on stderr.
    std::panic::set_hook(Box::new(|info| {
        tracing::error!(event = "panic", "{info}");
    }));
    (guard, dropped)
}

#[derive(Default)]
struct Window {
    second: u64,
    lines: u32,
    suppressed: u64,
}

pub struct Log {
    /// A line per request (`--access-log`).
    pub access: bool,
    windows: Mutex<HashMap<&'static str, Window>>,
}

impl Log {
    pub fn new(access: bool) -> Self {
        Self {
            access,
            windows: Mutex::default(),
        }
    }

    /// Whether a line of `kind` may go out this second, and how many were
    /// held back since the last one that did.
    fn allowed(&self, kind: &'static str) -> Option<u64> {
        let second = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or(Duration::ZERO)
            .as_secs();
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        let window = windows.entry(kind).or_default();
        if window.second != second {
            window.second = second;
            window.lines = 0;
        }
        if window.lines >= LOG_LINES_PER_SECOND {
            window.suppressed += 1;
            return None;
        }
        window.lines += 1;
        Some(std::mem::take(&mut window.suppressed))
    }

    /// A request refused 503 (`queue_full`, with its id) or a connection
    /// refused at the cap (`connection_cap`).
    pub fn refused(&self, reason: &'static str, request_id: Option<&str>) {
        if let Some(suppressed) = self.allowed(reason) {
            tracing::warn!(
                event = "refused",
                reason,
                request_id,
                suppressed,
                "refused ({reason})"
            );
        }
    }

    /// A request answered 5xx other than 503.
    pub fn failed(&self, request_id: &str, route: &str, status: u16) {
        if let Some(suppressed) = self.allowed("failed") {
            tracing::error!(
                event = "failed",
                request_id,
                tier = "axum",
                route,
                status,
                suppressed,
                "request failed"
            );
        }
    }

    pub fn access(&self, request_id: &str, method: &str, path: &str, status: u16, took: Duration) {
        let path = logged_path(path);
        tracing::info!(
            event = "access",
            request_id,
            tier = "axum",
            method,
            path,
            status,
            duration_ms = took.as_secs_f64() * 1000.0,
            "request"
        );
    }
}

/// The request's id: the one it came with (`x-request-id`, if it is short
/// and plain: a client must not forge log lines), or a new random one.
pub fn request_id(given: Option<&HeaderValue>) -> String {
    let given = given.and_then(|v| v.to_str().ok()).filter(|id| {
        !id.is_empty()
            && id.len() <= MAX_REQUEST_ID
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_.:-".contains(&b))
    });
    match given {
        Some(id) => id.to_owned(),
        // Each RandomState is seeded anew: two hashes make 128 random bits.
        None => {
            let state = std::collections::hash_map::RandomState::new();
            format!("{:016x}{:016x}", state.hash_one(1u8), state.hash_one(2u8))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_access_log_cuts_a_path_at_the_longest_target_served() {
        let max = MAX_REQUEST_TARGET_BYTES;
        assert_eq!(logged_path("/qrcode"), "/qrcode");
        assert_eq!(logged_path(&"p".repeat(400_000)).len(), max);
        // Never inside a character.
        let long = format!("/{}", "é".repeat(max));
        assert!(logged_path(&long).len() <= max && logged_path(&long).len() >= max - 1);
    }

    #[test]
    fn a_plain_request_id_is_kept_and_anything_else_replaced() {
        let id = |v: &str| request_id(Some(&HeaderValue::from_str(v).unwrap()));
        assert_eq!(id("4f6c2a9e-1.b:c_d"), "4f6c2a9e-1.b:c_d");
        let made = id("a\"b");
        assert_eq!(made.len(), 32);
        assert_ne!(made, id("a\"b"), "a new one each time");
        assert_eq!(id(&"x".repeat(65)).len(), 32);
        assert_eq!(request_id(None).len(), 32);
    }

    #[test]
    fn at_most_lines_per_second_go_out_and_the_rest_are_counted() {
        let log = Log::new(false);
        let allowed: Vec<_> = (0..LOG_LINES_PER_SECOND + 5)
            .map(|_| log.allowed("x"))
            .collect();
        // Unless the second turned meanwhile, the last five were held back.
        if allowed.iter().all(Option::is_some) {
            return;
        }
        assert!(allowed[..LOG_LINES_PER_SECOND as usize]
            .iter()
            .all(|a| *a == Some(0)));
        assert!(allowed[LOG_LINES_PER_SECOND as usize..]
            .iter()
            .all(Option::is_none));
        let windows = log.windows.lock().unwrap();
        assert_eq!(windows["x"].suppressed, 5);
    }
}
