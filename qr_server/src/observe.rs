//! What is counted and logged of each answered request, as a tower layer
//! around a whole router: every answer the router gives, its refusals
//! included, is counted and timed (unless metrics are off) and logged
//! (5xx always, every request with `--access-log`). Around the router, not
//! per route (axum's `Router::layer`, which boxes each route's service and
//! future once more): a request allocates nothing more than when the accept
//! loop counted it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Instant;

use axum::http::{HeaderValue, Method, Request, Response};
use tower::{Layer, Service};

use crate::log::{request_id, Log};
use crate::metrics::{route_of, Metrics};

/// Wraps a service in [`Observe`].
#[derive(Clone)]
pub struct ObserveLayer {
    shared: Arc<Shared>,
}

/// A service whose answers are counted and logged.
#[derive(Clone)]
pub struct Observe<S> {
    inner: S,
    shared: Arc<Shared>,
}

/// One allocation shared by the layer and its services: a clone per request
/// is one reference count, not two.
struct Shared {
    /// None when metrics are off: nothing counted or timed.
    metrics: Option<Arc<Metrics>>,
    log: Arc<Log>,
}

impl ObserveLayer {
    pub fn new(metrics: Option<Arc<Metrics>>, log: Arc<Log>) -> Self {
        Self {
            shared: Arc::new(Shared { metrics, log }),
        }
    }
}

impl<S> Layer<S> for ObserveLayer {
    type Service = Observe<S>;

    fn layer(&self, inner: S) -> Observe<S> {
        Observe {
            inner,
            shared: self.shared.clone(),
        }
    }
}

// `S::Future: Unpin` (a router's is) lets `Observed` poll it without a pin
// projection or a box.
impl<S, B, R> Service<Request<B>> for Observe<S>
where
    S: Service<Request<B>, Response = Response<R>>,
    S::Future: Unpin,
{
    type Response = Response<R>;
    type Error = S::Error;
    type Future = Observed<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let route = route_of(request.uri().path());
        let started = Instant::now();
        let given_id = request.headers().get("x-request-id").cloned();
        let accessed = self
            .shared
            .log
            .access
            .then(|| (request.method().clone(), request.uri().path().to_owned()));
        Observed {
            answer: self.inner.call(request),
            route,
            started,
            given_id,
            accessed,
            shared: self.shared.clone(),
        }
    }
}

/// A request's answer on its way, observed once it is given.
pub struct Observed<F> {
    answer: F,
    route: &'static str,
    started: Instant,
    /// The client's `x-request-id`, checked only if a line is written.
    given_id: Option<HeaderValue>,
    /// Method and path, kept only for an access line.
    accessed: Option<(Method, String)>,
    shared: Arc<Shared>,
}

impl<F, R, E> Future for Observed<F>
where
    F: Future<Output = Result<Response<R>, E>> + Unpin,
{
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        let response = ready!(Pin::new(&mut this.answer).poll(cx))?;
        this.observe(response.status().as_u16());
        Poll::Ready(Ok(response))
    }
}

impl<F> Observed<F> {
    fn observe(&self, status: u16) {
        let Shared { metrics, log } = &*self.shared;
        if let Some(metrics) = metrics {
            metrics.observe(self.route, status, self.started.elapsed());
        }
        if status >= 500 || self.accessed.is_some() {
            let id = request_id(self.given_id.as_ref());
            match status {
                503 => log.refused("queue_full", Some(&id)),
                500.. => log.failed(&id, self.route, status),
                _ => {}
            }
            if let Some((method, path)) = &self.accessed {
                log.access(&id, method.as_str(), path, status, self.started.elapsed());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::Mutex;

    use axum::body::Body;
    use axum::http::StatusCode;
    use axum::routing::get;
    use axum::Router;
    use tokio::sync::Semaphore;
    use tower::ServiceExt;

    use super::*;
    use crate::app::{routers, Generation};

    fn metrics() -> Arc<Metrics> {
        Arc::new(Metrics::new(Arc::new(Semaphore::new(1)), 1))
    }

    fn get_from(target: &str, host: bool) -> Request<Body> {
        let mut request = Request::get(target);
        if host {
            request = request.header("host", "localhost");
        }
        request.body(Body::empty()).unwrap()
    }

    #[tokio::test]
    async fn every_answer_of_the_router_is_counted_its_refusals_included() {
        let metrics = metrics();
        let (router, _) = routers(Generation::Inline, metrics.clone(), false);
        let observed =
            ObserveLayer::new(Some(metrics.clone()), Arc::new(Log::new(false))).layer(router);
        let long = format!("/qrcode?text={}", "x".repeat(9000));
        for (request, status) in [
            (get_from("/healthz", true), 200),
            // No Host: the router's refusal of what Node cannot parse.
            (get_from("/healthz", false), 400),
            (get_from("/nowhere", true), 404),
            (get_from(&long, true), 414),
        ] {
            let response = observed.clone().oneshot(request).await.unwrap();
            assert_eq!(response.status().as_u16(), status);
        }
        let text = metrics.encode(0);
        for line in [
            r#"http_requests_total{route="/healthz",status="200",tier="axum"} 1"#,
            r#"http_requests_total{route="/healthz",status="400",tier="axum"} 1"#,
            r#"http_requests_total{route="other",status="404",tier="axum"} 1"#,
            r#"http_requests_total{route="/qrcode",status="414",tier="axum"} 1"#,
        ] {
            assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
        }
    }

    #[tokio::test]
    async fn with_metrics_off_nothing_is_counted() {
        let metrics = metrics();
        let (router, _) = routers(Generation::Inline, metrics.clone(), false);
        let observed = ObserveLayer::new(None, Arc::new(Log::new(false))).layer(router);
        let response = observed.oneshot(get_from("/healthz", true)).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let text = metrics.encode(0);
        assert!(!text.contains(r#"route="/healthz""#), "{text}");
    }

    /// The log's lines, as JSON values, through a subscriber of this thread's.
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);

    impl Write for Lines {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn refusals_failures_and_access_lines_carry_the_request_id() {
        let lines = Lines::default();
        let writer = lines.clone();
        let subscriber = tracing_subscriber::fmt()
            .json()
            .flatten_event(true)
            .with_writer(move || writer.clone())
            .finish();
        let _default = tracing::subscriber::set_default(subscriber);
        let router = Router::new()
            .route("/busy", get(|| async { StatusCode::SERVICE_UNAVAILABLE }))
            .route("/fail", get(|| async { StatusCode::INTERNAL_SERVER_ERROR }));
        let observed = ObserveLayer::new(None, Arc::new(Log::new(true))).layer(router);
        for path in ["/busy", "/fail"] {
            let request = Request::get(path)
                .header("x-request-id", "id-1")
                .body(Body::empty())
                .unwrap();
            observed.clone().oneshot(request).await.unwrap();
        }
        let text = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
        let events: Vec<serde_json::Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let fields = |event: &serde_json::Value| {
            let keys = ["event", "reason", "request_id", "route", "method", "path"];
            let status = event["status"].as_u64();
            let named = keys.map(|key| event[key].as_str().unwrap_or("").to_owned());
            (named, status)
        };
        let seen: Vec<_> = events.iter().map(fields).collect();
        let expected = [
            (["refused", "queue_full", "id-1", "", "", ""], None),
            (["access", "", "id-1", "", "GET", "/busy"], Some(503)),
            (["failed", "", "id-1", "other", "", ""], Some(500)),
            (["access", "", "id-1", "", "GET", "/fail"], Some(500)),
        ]
        .map(|(named, status)| (named.map(str::to_owned), status));
        assert_eq!(seen, expected, "{text}");
    }
}
