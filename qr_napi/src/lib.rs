//! Node-API binding of qr_lib, in the @node-rs style: `generateQrCodeSync`
//! runs on the calling thread, `generateQrCode` is an `AsyncTask` on libuv's
//! thread pool. The core owns every rule; this crate only converts.

mod generate_task;

use std::panic::{self, AssertUnwindSafe};

use napi::bindgen_prelude::*;
use napi_derive::napi;
use qr_lib::QrError;

pub use generate_task::GenerateQrCode;

/// Why a call produced no PNG. Both variants cross threads as plain data and
/// become a JS `Error` only on the JS thread.
pub enum Failure {
    Qr(QrError),
    Panic(String),
}

/// Runs the core; a panic becomes a `Failure` instead of unwinding into
/// Node (an unwind across the C boundary would abort the process).
pub(crate) fn run(text: &str) -> std::result::Result<Vec<u8>, Failure> {
    match panic::catch_unwind(AssertUnwindSafe(|| qr_lib::generate_qr_code(text))) {
        Ok(result) => result.map_err(Failure::Qr),
        Err(payload) => Err(Failure::Panic(
            payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default(),
        )),
    }
}

/// The stable `code` (`EMPTY_TEXT`, `TEXT_TOO_LONG`, ... or `PANIC`) and
/// the message of a failure.
fn code_and_message(failure: Failure) -> (&'static str, String) {
    match failure {
        Failure::Qr(err) => (err.code(), err.to_string()),
        Failure::Panic(what) => ("PANIC", format!("qr_napi panicked: {what}")),
    }
}

/// A JS `Error` with the core's message and `code`, held by reference in the
/// returned `Error`: the sync call throws it, the async one rejects with it.
/// `from_unknown_without_coercion` keeps that reference on wasm targets too
/// (`From<Unknown>` drops it there, and the `code` with it).
pub(crate) fn js_error(env: &Env, failure: Failure) -> Error {
    let (code, message) = code_and_message(failure);
    Error::from_unknown_without_coercion(
        JsError::from(Error::new(code, message)).into_unknown(*env),
    )
}

/// The PNG as a Buffer, or the failure as a JS `Error`.
pub(crate) fn to_buffer(
    env: &Env,
    result: std::result::Result<Vec<u8>, Failure>,
) -> Result<Buffer> {
    let png = result.map_err(|failure| js_error(env, failure))?;
    png_buffer(env, png)
}

/// V8 copies the PNG (about 400 bytes) into a Buffer of its own: measured
/// faster than an external Buffer adopting the Vec, which costs a finalizer
/// per Buffer (nodejs/node#53804; CHANGELOG.md has the comparison).
fn png_buffer(env: &Env, png: Vec<u8>) -> Result<Buffer> {
    BufferSlice::copy_from(env, png)?.into_buffer(env)
}

/// QR-code PNG of `text`, computed on the calling thread.
#[napi]
pub fn generate_qr_code_sync(env: Env, text: String) -> Result<Buffer> {
    let png = run(&text).map_err(|failure| js_error(&env, failure))?;
    png_buffer(&env, png)
}

/// QR-code PNG of `text`, computed on libuv's thread pool.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn generate_qr_code(text: String, signal: Option<AbortSignal>) -> AsyncTask<GenerateQrCode> {
    AsyncTask::with_optional_signal(GenerateQrCode::new(text), signal)
}
