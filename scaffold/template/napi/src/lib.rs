//! Node-API binding: `{{camel}}Sync` runs on the calling thread,
//! `{{camel}}` is an `AsyncTask` on libuv's thread pool. Conversion only.

mod task;

use std::panic::{self, AssertUnwindSafe};

use napi::bindgen_prelude::*;
use napi_derive::napi;

pub use task::{{Pascal}}Task;

/// Why a call produced no output; crosses threads as plain data.
pub enum Failure {
    Core({{snake}}_core::Error),
    Panic,
}

/// Runs the core; a panic becomes a `Failure` instead of unwinding into Node.
pub(crate) fn run(input: &str) -> std::result::Result<Vec<u8>, Failure> {
    match panic::catch_unwind(AssertUnwindSafe(|| {{snake}}_core::{{snake}}(input))) {
        Ok(result) => result.map_err(Failure::Core),
        Err(_) => Err(Failure::Panic),
    }
}

/// The output as a Buffer (V8 copies it: cheaper than an external Buffer
/// for small outputs), or a JS `Error` with the core's message and `code`.
pub(crate) fn to_buffer(env: &Env, output: std::result::Result<Vec<u8>, Failure>) -> Result<Buffer> {
    let bytes = output.map_err(|failure| {
        let (code, message) = match failure {
            Failure::Core(err) => (err.code(), err.to_string()),
            Failure::Panic => ("PANIC", "{{snake}}_napi panicked".to_string()),
        };
        Error::from(JsError::from(Error::new(code, message)).into_unknown(*env))
    })?;
    BufferSlice::copy_from(env, bytes)?.into_buffer(env)
}

#[napi(js_name = "{{camel}}Sync")]
pub fn {{snake}}_sync(env: Env, input: String) -> Result<Buffer> {
    to_buffer(&env, run(&input))
}

#[napi(js_name = "{{camel}}", ts_return_type = "Promise<Buffer>")]
pub fn {{snake}}(input: String) -> AsyncTask<{{Pascal}}Task> {
    AsyncTask::new({{Pascal}}Task::new(input))
}
