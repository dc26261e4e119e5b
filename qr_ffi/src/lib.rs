//! qr_lib behind a plain C ABI, loaded as it is by `node:ffi`, `bun:ffi` and
//! `Deno.dlopen`: no binding crate, the caller's FFI does the converting.
//!
//! `qr_generate(text, len, out_ptr, out_len)` returns [`OK`] with a PNG, or
//! `QrError::number` (or [`PANIC`]) with the UTF-8 message; either way
//! `*out_ptr`/`*out_len` receive a buffer the library owns, which the caller
//! copies and hands back to `qr_free(ptr, len)`.
//!
//! The ABI is create-rust-ladder's, compiled from its template: this file
//! gives the names, `boundary.rs` there is the ABI.

#[path = "../../scaffold/template/ladder/ffi/src/boundary.rs"]
mod boundary;

pub use boundary::{OK, PANIC};
// The core's function on raw bytes: all that `boundary.rs` takes from the core.
use qr_lib::generate_qr_code_from_utf8 as core_function_from_utf8;

boundary::export! {
    call fn qr_generate;
    free fn qr_free;
}

#[cfg(test)]
mod tests {
    use crate::boundary::through_the_abi;

    #[test]
    fn the_png_of_the_core() {
        let png = qr_lib::generate_qr_code("hello").unwrap();
        assert_eq!(through_the_abi(b"hello"), (crate::OK, png));
    }

    #[cfg(feature = "testing")]
    #[test]
    fn a_panic_stops_at_the_boundary() {
        let (status, message) = through_the_abi(qr_lib::PANIC_TEXT.as_bytes());
        assert_eq!(
            (status, &message[..]),
            (crate::PANIC, &b"qr_ffi panicked: test-only panic"[..])
        );
    }
}
