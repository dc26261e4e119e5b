//! qr_lib compiled to WebAssembly behind wasm-bindgen, packaged by wasm-pack
//! (tier `wasm`, the browser build). The same core with no imports and a
//! hand-written ABI is the crate qr_wasm_raw.

mod bindgen;
