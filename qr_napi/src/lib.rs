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

/// QR-code PNG of `text`, computed on the calling thread. A failure throws
/// an `Error` with the core's message and a stable `code` (`EMPTY_TEXT`,
/// `TEXT_TOO_LONG`, ... or `PANIC`).
#[napi]
pub fn generate_qr_code_sync(env: Env, text: String) -> Result<Buffer> {
    call::on_this_thread(&env, &text)
}

/// QR-code PNG of `text`, computed on libuv's thread pool; an aborted
/// `signal` rejects a call still waiting for a thread.
#[napi]
pub fn generate_qr_code(text: String, signal: Option<AbortSignal>) -> AsyncTask<CoreTask> {
    CoreTask::spawn(text, signal)
}
