//! The HTTP contract: `GET /qrcode?text=...` and `GET /healthz`.

use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use axum::extract::{RawQuery, Request, State};
use axum::http::{header, Method, StatusCode, Version};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use crate::limits::{Limiter, MAX_REQUEST_TARGET_BYTES};
use crate::metrics::{self, Metrics, Refusal};
use crate::query::text_param;

pub const GENERATION_FAILED: &str = "failed generating qr code";
pub const SERVER_BUSY: &str = "server busy";
/// The 414's text, naming MAX_REQUEST_TARGET_BYTES; node-server's is the same
/// (tier-adapters/http-limits.js).
pub const URI_TOO_LONG: &str = "uri too long (limit 8192 bytes)";

/// Where generations run.
pub enum Generation {
    /// On the async worker threads (the default: fastest for a short job).
    Inline,
    /// On tokio's blocking pool, at most the limiter's slots at once: for a
    /// hot function that may run long enough to stall the async workers.
    Blocking(Limiter),
}

impl Generation {
    fn queued(&self) -> usize {
        match self {
            Generation::Inline => 0,
            Generation::Blocking(limiter) => limiter.waiting(),
        }
    }
}

struct Served {
    generation: Generation,
    metrics: Arc<Metrics>,
}

/// The public router (`/qrcode`, `/healthz`) and, when `exposed`, the
/// operator's (`/metrics`, `/healthz`), served on a listener of its own
/// (`--metrics-host`/`--metrics-port`) so that no client of the public port
/// reads or loads it. observe.rs's layer counts, times and logs the requests
/// of both.
pub fn routers(
    generation: Generation,
    metrics: Arc<Metrics>,
    exposed: bool,
) -> (Router, Option<Router>) {
    let served = Arc::new(Served {
        generation,
        metrics,
    });
    let public = Router::new()
        .route("/qrcode", get(qrcode))
        .route("/healthz", get(healthz));
    let operator = exposed.then(|| {
        Router::new()
            .route("/metrics", get(exposition))
            .route("/healthz", get(healthz))
    });
    let finish = |routes: Router<Arc<Served>>| {
        routes
            .layer(middleware::from_fn(refuse_long_uris))
            .layer(middleware::from_fn(refuse_what_node_cannot_parse))
            .with_state(served.clone())
    };
    (finish(public), operator.map(finish))
}

async fn exposition(State(served): State<Arc<Served>>) -> Response {
    let text = served.metrics.encode(served.generation.queued());
    ([(header::CONTENT_TYPE, metrics::CONTENT_TYPE)], text).into_response()
}

/// The request methods Node's parser (llhttp) knows: node-server answers any
/// other with 400 before its code runs, and so does this. `http.METHODS` of
/// every supported Node line; test/contract/differential.test.js sends each.
const NODE_METHODS: &[&str] = &[
    "ACL",
    "BIND",
    "CHECKOUT",
    "COPY",
    "DELETE",
    "GET",
    "HEAD",
    "LINK",
    "LOCK",
    "M-SEARCH",
    "MERGE",
    "MKACTIVITY",
    "MKCALENDAR",
    "MKCOL",
    "MOVE",
    "NOTIFY",
    "OPTIONS",
    "PATCH",
    "POST",
    "PROPFIND",
    "PROPPATCH",
    "PURGE",
    "PUT",
    "QUERY",
    "REBIND",
    "REPORT",
    "SEARCH",
    "SOURCE",
    "SUBSCRIBE",
    "TRACE",
    "UNBIND",
    "UNLINK",
    "UNLOCK",
    "UNSUBSCRIBE",
];

/// 400 with no body (hyper's answer to what it cannot parse) for what hyper
/// accepts but Node's parser refuses, so that both servers answer a request
/// alike (docs/request-grammar.md): a request target with a byte past 0x7F,
/// an HTTP/1.1 request without `Host` (RFC 9112, section 3.2), a method
/// Node does not know, and CONNECT (no proxy here).
async fn refuse_what_node_cannot_parse(request: Request, next: Next) -> Response {
    let target = request.uri().path_and_query().map_or("", |pq| pq.as_str());
    let refused = !target.is_ascii()
        || (request.version() == Version::HTTP_11 && !request.headers().contains_key(header::HOST))
        || request.method() == Method::CONNECT
        || !NODE_METHODS.contains(&request.method().as_str());
    if refused {
        let headers = [(header::CONNECTION, "close")];
        return (StatusCode::BAD_REQUEST, headers).into_response();
    }
    next.run(request).await
}

/// 503 with a hint when to come back, as node-server answers a full queue.
pub fn server_busy() -> Response {
    let headers = [(header::RETRY_AFTER, "1")];
    (StatusCode::SERVICE_UNAVAILABLE, headers, SERVER_BUSY).into_response()
}

/// 414 before any work. Targets past hyper's own limits (64 KiB, or a head
/// over its ~400 KiB read buffer) are refused by hyper with an empty 414/431.
async fn refuse_long_uris(request: Request, next: Next) -> Response {
    let target = request
        .uri()
        .path_and_query()
        .map_or(0, |pq| pq.as_str().len());
    if target > MAX_REQUEST_TARGET_BYTES {
        let headers = [(header::CONNECTION, "close")];
        return (StatusCode::URI_TOO_LONG, headers, URI_TOO_LONG).into_response();
    }
    next.run(request).await
}

async fn qrcode(State(served): State<Arc<Served>>, RawQuery(query): RawQuery) -> Response {
    let text = match text_param(query.as_deref()) {
        Ok(text) => text,
        Err(err) => return (StatusCode::BAD_REQUEST, err.message()).into_response(),
    };
    let result = match &served.generation {
        // On the async worker: a ~40 us job costs less than a hop to the
        // blocking pool (docs/tiers.md, "qr_server: inline or blocking pool"). Each
        // worker thread runs one at a time and hyper reads one request per
        // connection at a time, so the wait is bounded by the connection cap.
        Generation::Inline => {
            let _running = served.metrics.running();
            panic::catch_unwind(AssertUnwindSafe(|| qr_lib::generate_qr_code(&text))).map_err(drop)
        }
        Generation::Blocking(limiter) => {
            let Some(_slot) = limiter.acquire().await else {
                served.metrics.refused(Refusal::queue_full);
                return server_busy();
            };
            let running = served.metrics.running();
            tokio::task::spawn_blocking(move || {
                let _running = running;
                qr_lib::generate_qr_code(&text)
            })
            .await
            .map_err(drop)
        }
    };
    // A panic is this request's 500, not the connection's end.
    match result {
        Ok(Ok(png)) => ([(header::CONTENT_TYPE, "image/png")], png).into_response(),
        Ok(Err(err)) if err.is_input_error() => {
            (StatusCode::BAD_REQUEST, err.to_string()).into_response()
        }
        Ok(Err(_)) | Err(()) => {
            (StatusCode::INTERNAL_SERVER_ERROR, GENERATION_FAILED).into_response()
        }
    }
}

async fn healthz() -> Json<serde_json::Value> {
    Json(serde_json::json!({ "tier": "axum", "pid": std::process::id() }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_too_long_names_the_limit() {
        assert!(URI_TOO_LONG.contains(&MAX_REQUEST_TARGET_BYTES.to_string()));
    }
}
