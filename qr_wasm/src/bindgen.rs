//! The wasm-bindgen API: `generateQrCode(text: string): Uint8Array`.
//!
//! The PNG is returned as a `Vec<u8>`, which wasm-bindgen's glue copies out of
//! Wasm memory and frees. Building the `Uint8Array` in Rust through js-sys
//! cost the same (CHANGELOG.md has the comparison) and is more code.

use wasm_bindgen::prelude::*;

/// QR-code PNG of `text`. Throws an `Error` with the core's message and a
/// stable `code` (`EMPTY_TEXT`, `TEXT_TOO_LONG`, ...).
#[wasm_bindgen(js_name = generateQrCode)]
pub fn generate_qr_code(text: &str) -> Result<Vec<u8>, JsValue> {
    qr_lib::generate_qr_code(text).map_err(|err| {
        let js_err = js_sys::Error::new(&err.to_string());
        // Setting a property on a fresh Error object cannot fail.
        let _ = js_sys::Reflect::set(&js_err, &"code".into(), &err.code().into());
        js_err.into()
    })
}
