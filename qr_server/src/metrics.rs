//! `GET /metrics` in Prometheus's text format (0.0.4), with the names and
//! labels node-server uses for the same things (node-server/lib/metrics.js;
//! docs/operations.md lists them).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use tokio::sync::Semaphore;
use tracing_appender::non_blocking::ErrorCounter;

pub use prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

/// The `tier` label: what runs the hot function here.
const TIER: &str = "axum";
/// Seconds; from a generation's ~40 us to the 10 s timeouts. node-server's
/// histogram has the same bounds.
pub const DURATION_BUCKETS: [f64; 14] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 2.5, 10.0,
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: &'static str,
    status: u16,
    tier: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: &'static str,
    tier: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TierLabels {
    tier: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RefusalLabels {
    reason: Refusal,
}

/// Why a request or connection was answered 503 (or an RPC call busy).
#[derive(
    Clone, Copy, Debug, Hash, PartialEq, Eq, prometheus_client::encoding::EncodeLabelValue,
)]
#[allow(non_camel_case_types)] // the label values, as node-server writes them
pub enum Refusal {
    /// Past the open-connection cap.
    connection_cap,
    /// Past one client's share of the connections (limits.rs,
    /// MAX_CONNECTIONS_PER_CLIENT).
    client_cap,
    /// Past the generation queue (HTTP) or the calls in flight (RPC).
    queue_full,
}

impl Refusal {
    /// The label value, as the log's `reason` field writes it too.
    pub fn name(self) -> &'static str {
        match self {
            Refusal::connection_cap => "connection_cap",
            Refusal::client_cap => "client_cap",
            Refusal::queue_full => "queue_full",
        }
    }
}

pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    duration: Family<RouteLabels, Histogram>,
    /// The series nearly every request lands in, held: no family lookup.
    qrcode_ok: Counter,
    qrcode_duration: Histogram,
    refusals: Family<RefusalLabels, Counter>,
    running: Family<TierLabels, Gauge>,
    queued: Family<TierLabels, Gauge>,
    open_connections: Gauge,
    connections: Arc<Semaphore>,
    max_connections: usize,
    log_lines_dropped: Counter,
    dropped_lines: Option<ErrorCounter>,
}

impl Metrics {
    /// `connections`: the permits of the connection cap (HTTP and RPC), read
    /// at each scrape for the open connections.
    pub fn new(connections: Arc<Semaphore>, max_connections: usize) -> Self {
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        let duration = Family::<RouteLabels, Histogram>::new_with_constructor(
            (|| Histogram::new(DURATION_BUCKETS)) as fn() -> Histogram,
        );
        let refusals = Family::<RefusalLabels, Counter>::default();
        let running = Family::<TierLabels, Gauge>::default();
        let queued = Family::<TierLabels, Gauge>::default();
        let open_connections = Gauge::default();
        let log_lines_dropped = Counter::default();
        registry.register(
            "http_requests",
            "Requests answered, by route, status and tier",
            requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "Time from a request's head to its answer, by route and tier",
            duration.clone(),
        );
        registry.register(
            "qr_refusals",
            "Requests and connections refused (503, or a busy RPC answer), by reason",
            refusals.clone(),
        );
        registry.register(
            "qr_generations_running",
            "QR codes being generated",
            running.clone(),
        );
        registry.register(
            "qr_generations_queued",
            "Requests waiting for a generation slot",
            queued.clone(),
        );
        registry.register(
            "http_open_connections",
            "Open client connections (HTTP and RPC)",
            open_connections.clone(),
        );
        registry.register(
            "qr_log_lines_dropped",
            "Log lines dropped past the bound: the log's reader stopped reading",
            log_lines_dropped.clone(),
        );
        let qrcode_ok = requests.get_or_create_owned(&RequestLabels {
            route: "/qrcode",
            status: 200,
            tier: TIER,
        });
        let qrcode_duration = duration.get_or_create_owned(&RouteLabels {
            route: "/qrcode",
            tier: TIER,
        });
        // Present from the first scrape, as node-server's are.
        for reason in [
            Refusal::connection_cap,
            Refusal::client_cap,
            Refusal::queue_full,
        ] {
            let _ = refusals.get_or_create(&RefusalLabels { reason });
        }
        Self {
            registry,
            requests,
            duration,
            qrcode_ok,
            qrcode_duration,
            refusals,
            running,
            queued,
            open_connections,
            connections,
            max_connections,
            log_lines_dropped,
            dropped_lines: None,
        }
    }

    /// The log writer's count of dropped lines (log.rs), read at each scrape.
    pub fn with_dropped_lines(mut self, dropped: ErrorCounter) -> Self {
        self.dropped_lines = Some(dropped);
        self
    }

    /// One answered request. `route` is one of [`route_of`]'s.
    pub fn observe(&self, route: &'static str, status: u16, took: Duration) {
        if route == "/qrcode" && status == 200 {
            self.qrcode_ok.inc();
            self.qrcode_duration.observe(took.as_secs_f64());
            return;
        }
        let labels = RequestLabels {
            route,
            status,
            tier: TIER,
        };
        self.requests.get_or_create(&labels).inc();
        self.duration
            .get_or_create(&RouteLabels { route, tier: TIER })
            .observe(took.as_secs_f64());
    }

    pub fn refused(&self, reason: Refusal) {
        self.refusals.get_or_create(&RefusalLabels { reason }).inc();
    }

    /// Counts a generation as running until the guard is dropped.
    pub fn running(&self) -> Running {
        let gauge = self.running.get_or_create_owned(&TierLabels { tier: TIER });
        gauge.inc();
        Running(gauge)
    }

    /// The exposition, the gauges read now; `queued` from the caller, which
    /// knows the generation queue.
    pub fn encode(&self, queued: usize) -> String {
        let open = self.max_connections - self.connections.available_permits();
        self.open_connections.set(open as i64);
        self.queued
            .get_or_create(&TierLabels { tier: TIER })
            .set(queued as i64);
        let _ = self.running.get_or_create(&TierLabels { tier: TIER });
        if let Some(dropped) = &self.dropped_lines {
            // fetch_max: concurrent scrapes agree, and a counter never goes back.
            let dropped = dropped.dropped_lines() as u64;
            self.log_lines_dropped
                .inner()
                .fetch_max(dropped, Ordering::Relaxed);
        }
        let mut text = String::new();
        prometheus_client::encoding::prometheus_text::encode(&mut text, &self.registry)
            .expect("writing to a String cannot fail");
        text
    }
}

/// The `route` label: one of the server's routes, or `other` (a label per
/// unknown path would let any client grow the series without bound).
pub fn route_of(path: &str) -> &'static str {
    match path {
        "/qrcode" => "/qrcode",
        "/healthz" => "/healthz",
        "/metrics" => "/metrics",
        _ => "other",
    }
}

pub struct Running(Gauge);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.dec();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposes_what_it_recorded_under_the_shared_names() {
        let connections = Arc::new(Semaphore::new(10));
        let metrics = Metrics::new(connections.clone(), 10);
        let _open = connections.try_acquire_many(3).unwrap();
        metrics.observe("/qrcode", 200, Duration::from_micros(300));
        metrics.observe("/qrcode", 200, Duration::from_millis(2));
        metrics.refused(Refusal::queue_full);
        let running = metrics.running();
        let text = metrics.encode(5);
        for line in [
            r#"http_requests_total{route="/qrcode",status="200",tier="axum"} 2"#,
            r#"http_request_duration_seconds_bucket{route="/qrcode",tier="axum",le="0.0005"} 1"#,
            r#"http_request_duration_seconds_count{route="/qrcode",tier="axum"} 2"#,
            r#"qr_refusals_total{reason="queue_full"} 1"#,
            r#"qr_refusals_total{reason="connection_cap"} 0"#,
            r#"qr_generations_running{tier="axum"} 1"#,
            r#"qr_generations_queued{tier="axum"} 5"#,
            "http_open_connections 3",
            "qr_log_lines_dropped_total 0",
        ] {
            assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
        }
        drop(running);
        assert!(metrics
            .encode(0)
            .contains(r#"qr_generations_running{tier="axum"} 0"#));
    }

    #[test]
    fn unknown_paths_share_one_label() {
        assert_eq!(route_of("/qrcode"), "/qrcode");
        assert_eq!(route_of("/qrcode/"), "other");
        assert_eq!(route_of("/x/y"), "other");
    }
}
