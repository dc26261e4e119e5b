use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::{run, to_buffer, Failure};

/// `generateQrCode`'s work: `compute` runs on a libuv pool thread, `resolve`
/// back on the JS thread.
pub struct GenerateQrCode {
    text: String,
}

impl GenerateQrCode {
    pub(crate) fn new(text: String) -> Self {
        Self { text }
    }
}

#[napi]
impl Task for GenerateQrCode {
    // Failures travel as data: a JS Error can only be built on the JS thread.
    type Output = std::result::Result<Vec<u8>, Failure>;
    type JsValue = Buffer;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(run(&self.text))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
        to_buffer(&env, output)
    }
}
