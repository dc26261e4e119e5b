//! The wasm-bindgen API: `ladderExample(input: string): Uint8Array`.

mod js_error;

use wasm_bindgen::prelude::*;

/// Throws an `Error` with the core's message and a stable `code`.
#[wasm_bindgen(js_name = ladderExample)]
pub fn ladder_example(input: &str) -> Result<Vec<u8>, JsValue> {
    ladder_example_core::ladder_example(input)
        .map_err(|err| js_error::with_code(&err.to_string(), err.code()))
}
