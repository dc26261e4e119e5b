//! The async call's work: `compute` runs on a libuv pool thread, `resolve`
//! back on the JS thread.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::call::{run, to_buffer, Failure};

pub struct CoreTask {
    input: String,
}

impl CoreTask {
    /// The call on libuv's thread pool; an aborted `signal` rejects it while
    /// it still waits for a thread.
    pub(crate) fn spawn(input: String, signal: Option<AbortSignal>) -> AsyncTask<Self> {
        AsyncTask::with_optional_signal(Self { input }, signal)
    }
}

#[napi]
impl Task for CoreTask {
    // Failures travel as data: a JS Error can only be built on the JS thread.
    type Output = std::result::Result<Vec<u8>, Failure>;
    type JsValue = Buffer;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(run(&self.input))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
        to_buffer(&env, output)
    }
}
