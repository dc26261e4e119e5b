use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::{run, to_buffer, Failure};

/// `{{camel}}`'s work: `compute` runs on a libuv pool thread, `resolve`
/// back on the JS thread.
pub struct {{Pascal}}Task {
    input: String,
}

impl {{Pascal}}Task {
    pub(crate) fn new(input: String) -> Self {
        Self { input }
    }
}

#[napi]
impl Task for {{Pascal}}Task {
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
