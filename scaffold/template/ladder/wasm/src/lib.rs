//! The wasm-bindgen API: `{{camel}}(input: string): Uint8Array`.

use wasm_bindgen::prelude::*;

/// Throws an `Error` with the core's message and a stable `code`.
#[wasm_bindgen(js_name = {{camel}})]
pub fn {{snake}}(input: &str) -> Result<Vec<u8>, JsValue> {
    {{snake}}_core::{{snake}}(input).map_err(|err| {
        let js_err = js_sys::Error::new(&err.to_string());
        // Setting a property on a fresh Error object cannot fail.
        let _ = js_sys::Reflect::set(&js_err, &"code".into(), &err.code().into());
        js_err.into()
    })
}
