//! qr_lib compiled to WebAssembly behind wasm-bindgen, packaged by wasm-pack
//! (tier `wasm`, the browser build). The same core with no imports and a
//! hand-written ABI is the crate qr_wasm_raw.
//!
//! The API is `generateQrCode(text: string): Uint8Array`. The PNG is returned
//! as a `Vec<u8>`, which wasm-bindgen's glue copies out of Wasm memory and
//! frees. Building the `Uint8Array` in Rust through js-sys cost the same
//! (CHANGELOG.md has the comparison) and is more code.

// create-rust-ladder's, compiled from its template: errors as the addon throws them.
#[path = "../../scaffold/template/ladder/wasm/src/js_error.rs"]
mod js_error;

use wasm_bindgen::prelude::*;

/// QR-code PNG of `text`. Throws an `Error` with the core's message and a
/// stable `code` (`EMPTY_TEXT`, `TEXT_TOO_LONG`, ...).
#[wasm_bindgen(js_name = generateQrCode)]
pub fn generate_qr_code(text: &str) -> Result<Vec<u8>, JsValue> {
    qr_lib::generate_qr_code(text).map_err(|err| js_error::with_code(&err.to_string(), err.code()))
}
