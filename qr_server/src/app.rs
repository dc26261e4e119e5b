//! The HTTP contract: `GET /qrcode?text=...` and `GET /healthz`.

use axum::extract::RawQuery;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use crate::query::text_param;

pub const GENERATION_FAILED: &str = "failed generating qr code";

pub fn router() -> Router {
    Router::new()
        .route("/qrcode", get(qrcode))
        .route("/healthz", get(healthz))
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
