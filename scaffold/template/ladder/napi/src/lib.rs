//! Node-API binding of {{snake}}_core, in the @node-rs style: `{{camel}}Sync`
//! runs on the calling thread, `{{camel}}` is an `AsyncTask` on libuv's
//! thread pool. The core owns every rule; this crate only converts.

mod {{snake}}_task;

use std::panic::{self, AssertUnwindSafe};

use napi::bindgen_prelude::*;
use napi_derive::napi;
use {{snake}}_core::Error as CoreError;

pub use {{snake}}_task::{{Pascal}}Task;

/// Why a call produced no output. Both variants cross threads as plain data
/// and become a JS `Error` only on the JS thread.
pub enum Failure {
    Core(CoreError),
    Panic(String),
}

/// Runs the core; a panic becomes a `Failure` instead of unwinding into
/// Node (an unwind across the C boundary would abort the process).
pub(crate) fn run(input: &str) -> std::result::Result<Vec<u8>, Failure> {
    match panic::catch_unwind(AssertUnwindSafe(|| {{snake}}_core::{{snake}}(input))) {
        Ok(result) => result.map_err(Failure::Core),
        Err(payload) => Err(Failure::Panic(
            payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default(),
        )),
    }
}

/// The stable `code` (`EMPTY_INPUT`, ... or `PANIC`) and the message of a failure.
fn code_and_message(failure: Failure) -> (&'static str, String) {
    match failure {
        Failure::Core(err) => (err.code(), err.to_string()),
        Failure::Panic(what) => ("PANIC", format!("{{snake}}_napi panicked: {what}")),
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

/// The output as a Buffer, or the failure as a JS `Error`.
pub(crate) fn to_buffer(
    env: &Env,
    result: std::result::Result<Vec<u8>, Failure>,
) -> Result<Buffer> {
    let output = result.map_err(|failure| js_error(env, failure))?;
    output_buffer(env, output)
}

/// V8 copies the output into a Buffer of its own: for small outputs, faster
/// than an external Buffer adopting the Vec, which costs a finalizer per
/// Buffer (nodejs/node#53804).
fn output_buffer(env: &Env, output: Vec<u8>) -> Result<Buffer> {
    BufferSlice::copy_from(env, output)?.into_buffer(env)
}

/// {{name}} of `input`, computed on the calling thread.
#[napi]
pub fn {{snake}}_sync(env: Env, input: String) -> Result<Buffer> {
    let output = run(&input).map_err(|failure| js_error(&env, failure))?;
    output_buffer(&env, output)
}

/// {{name}} of `input`, computed on libuv's thread pool; an aborted `signal`
/// rejects a call still waiting for a thread.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn {{snake}}(input: String, signal: Option<AbortSignal>) -> AsyncTask<{{Pascal}}Task> {
    AsyncTask::with_optional_signal({{Pascal}}Task::new(input), signal)
}
