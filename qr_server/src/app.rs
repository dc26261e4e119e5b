//! The HTTP contract: `GET /qrcode?text=...` and `GET /healthz`.

use axum::extract::{RawQuery, Request};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use crate::query::text_param;

pub const GENERATION_FAILED: &str = "failed generating qr code";
/// The longest request target served; node-server has the same limit and text
/// (node-server/lib/http-limits.js).
pub const MAX_REQUEST_TARGET_BYTES: usize = 8192;
pub const URI_TOO_LONG: &str = "uri too long (limit 8192 bytes)";

pub fn router() -> Router {
    Router::new()
        .route("/qrcode", get(qrcode))
        .route("/healthz", get(healthz))
        .layer(middleware::from_fn(refuse_long_uris))
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

async fn qrcode(RawQuery(query): RawQuery) -> Response {
    let text = match text_param(query.as_deref()) {
        Ok(text) => text,
        Err(err) => return (StatusCode::BAD_REQUEST, err.message()).into_response(),
    };
    // Off the async workers: a slow or panicking call must not stall or kill
    // the threads that accept connections. A panic surfaces as a JoinError.
    match tokio::task::spawn_blocking(move || qr_lib::generate_qr_code(&text)).await {
        Ok(Ok(png)) => ([(header::CONTENT_TYPE, "image/png")], png).into_response(),
        Ok(Err(err)) if err.is_input_error() => {
            (StatusCode::BAD_REQUEST, err.to_string()).into_response()
        }
        Ok(Err(_)) | Err(_) => {
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
