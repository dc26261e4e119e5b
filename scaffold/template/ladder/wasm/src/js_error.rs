//! The core's failure as JavaScript sees it: an `Error` with the core's
//! message and its stable code as `code`, as the addon throws. The same file
//! for every ladder (the QR ladder's module compiles it too).

use wasm_bindgen::JsValue;

/// An `Error` with `message`, and `code` set on it.
pub fn with_code(message: &str, code: &str) -> JsValue {
    let js_err = js_sys::Error::new(message);
    // Setting a property on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(&js_err, &"code".into(), &code.into());
    js_err.into()
}
