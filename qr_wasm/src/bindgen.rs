//! The wasm-bindgen API: `generateQrCode(text: string): Uint8Array`.

use wasm_bindgen::prelude::*;

/// The PNG as JS gets it. As a `Vec<u8>` (the default), wasm-bindgen's glue
/// copies it out of Wasm memory and frees it; with the feature
/// `js-array-return` Rust builds the `Uint8Array` itself through js-sys (one
/// copy too, behind two calls across the boundary). `bench/wasm-return.sh`
/// times the two; qr_lib/benches/README.md has the figures.
#[cfg(not(feature = "js-array-return"))]
type Png = Vec<u8>;
#[cfg(feature = "js-array-return")]
type Png = js_sys::Uint8Array;

/// QR-code PNG of `text`. Throws an `Error` with the core's message and a
/// stable `code` (`EMPTY_TEXT`, `TEXT_TOO_LONG`, ...).
#[wasm_bindgen(js_name = generateQrCode)]
pub fn generate_qr_code(text: &str) -> Result<Png, JsValue> {
    #[cfg(feature = "js-array-return")]
    let png = qr_lib::generate_qr_code(text).map(|png| js_sys::Uint8Array::from(&png[..]));
    #[cfg(not(feature = "js-array-return"))]
    let png = qr_lib::generate_qr_code(text);
    png.map_err(|err| {
        let js_err = js_sys::Error::new(&err.to_string());
        // Setting a property on a fresh Error object cannot fail.
        let _ = js_sys::Reflect::set(&js_err, &"code".into(), &err.code().into());
        js_err.into()
    })
}
