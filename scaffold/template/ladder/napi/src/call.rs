//! One call of the core, on whichever thread, its result as JS values, and
//! `export!`, which declares the addon's two functions. The crate root names
//! the core's function and error type (`core_function`, `CoreError`) and the
//! functions; nothing here knows what they compute.

use std::panic::{self, AssertUnwindSafe};

use napi::bindgen_prelude::*;

use crate::{core_function, CoreError};

/// Why a call produced no output. Both variants cross threads as plain data
/// and become a JS `Error` only on the JS thread.
pub enum Failure {
    Core(CoreError),
    Panic(String),
}

/// Runs the core; a panic becomes a `Failure` instead of unwinding into
/// Node (an unwind across the C boundary would abort the process).
pub(crate) fn run(input: &str) -> std::result::Result<Vec<u8>, Failure> {
    match panic::catch_unwind(AssertUnwindSafe(|| core_function(input))) {
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

/// The core's output for `input` as a Buffer, computed on the calling thread;
/// a failure is thrown.
pub(crate) fn on_this_thread(env: &Env, input: &str) -> Result<Buffer> {
    to_buffer(env, run(input))
}

/// The stable `code` (the core's `code()`, or `PANIC`) and the message of a
/// failure.
fn code_and_message(failure: Failure) -> (&'static str, String) {
    match failure {
        Failure::Core(err) => (err.code(), err.to_string()),
        Failure::Panic(what) => (
            "PANIC",
            format!("{} panicked: {what}", env!("CARGO_PKG_NAME")),
        ),
    }
}

/// A JS `Error` with the core's message and `code`, held by reference in the
/// returned `Error`: the sync call throws it, the async one rejects with it.
/// `from_unknown_without_coercion` keeps that reference on wasm targets too
/// (`From<Unknown>` drops it there, and the `code` with it).
fn js_error(env: &Env, failure: Failure) -> Error {
    let (code, message) = code_and_message(failure);
    Error::from_unknown_without_coercion(
        JsError::from(Error::new(code, message)).into_unknown(*env),
    )
}

/// The output as a Buffer, or the failure as a JS `Error`. V8 copies the
/// output into a Buffer of its own: for outputs of a few hundred bytes,
/// faster than an external Buffer adopting the Vec, which costs a finalizer
/// per Buffer (nodejs/node#53804).
pub(crate) fn to_buffer(
    env: &Env,
    result: std::result::Result<Vec<u8>, Failure>,
) -> Result<Buffer> {
    let output = result.map_err(|failure| js_error(env, failure))?;
    BufferSlice::copy_from(env, output)?.into_buffer(env)
}

/// Declares the addon's API under the crate's names, in the @node-rs style:
/// `$sync($input)` on the calling thread, and `$async_fn($input, signal?)`,
/// an `AsyncTask` on libuv's thread pool. `$input` names the TypeScript
/// parameter, and `$what` ("The ... of `input`.") opens both JSDoc comments:
/// napi-derive puts a line break after each doc attribute, so it is a whole
/// sentence.
/// The expansion names what the crate root imports: napi's prelude,
/// `napi_derive::napi`, `call` and `task::CoreTask`. The JSDoc is written as
/// plain strings: napi-derive copies a doc comment passed through a macro
/// with its `r"` quoting.
macro_rules! export {
    ($sync:ident, $async_fn:ident, $input:ident, $what:literal) => {
        #[doc = $what]
        #[doc = "Computed on the calling thread. A failure throws an `Error` with the"]
        #[doc = "core's message and its stable `code` (or `PANIC`)."]
        #[napi]
        pub fn $sync(env: Env, $input: String) -> Result<Buffer> {
            call::on_this_thread(&env, &$input)
        }

        #[doc = $what]
        #[doc = "Computed on libuv's thread pool. An aborted `signal` rejects a call still"]
        #[doc = "waiting for a thread; a failure rejects with the `Error` the sync call throws."]
        #[napi]
        pub fn $async_fn($input: String, signal: Option<AbortSignal>) -> AsyncTask<CoreTask> {
            CoreTask::spawn($input, signal)
        }
    };
}
pub(crate) use export;
