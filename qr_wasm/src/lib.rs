//! qr_lib compiled to WebAssembly, behind one of two thin ABIs.

#[cfg(feature = "bindgen")]
mod bindgen;
#[cfg(not(feature = "bindgen"))]
pub mod raw;
