//! Node-API binding of qr_lib, in the @node-rs style: `generateQrCodeSync`
//! runs on the calling thread, `generateQrCode` is an `AsyncTask` on libuv's
//! thread pool. The core owns every rule; this crate only converts.
//!
//! The binding is create-rust-ladder's, compiled from its template: this
//! file gives the names, `call.rs` and `task.rs` there do the converting.

#[path = "../../scaffold/template/ladder/napi/src/call.rs"]
mod call;
#[path = "../../scaffold/template/ladder/napi/src/task.rs"]
mod task;

use napi::bindgen_prelude::*;
use napi_derive::napi;
// The core's function and error type: all that `call.rs` takes from the core.
use qr_lib::{generate_qr_code as core_function, QrError as CoreError};

use task::CoreTask;

// `generateQrCodeSync(text)` and `generateQrCode(text, signal?)`: the QR-code
// PNG of `text`, or an `Error` whose `code` is `EMPTY_TEXT`, `TEXT_TOO_LONG`,
// `INVALID_UTF8`, `ENCODING_FAILED` or `PANIC`.
call::export!(
    generate_qr_code_sync,
    generate_qr_code,
    text,
    "The QR-code PNG of `text`."
);
