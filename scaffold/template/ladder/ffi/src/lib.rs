//! ladder_example_core behind a plain C ABI, loaded as it is by the runtime's
//! own FFI (`node:ffi`, `bun:ffi`, `Deno.dlopen`) through tier-adapters'
//! `loadCAbi` (`js/ffi.js`): no binding crate, the caller's FFI does the
//! converting.
//!
//! `ladder_example(input, len, out_ptr, out_len)` returns [`OK`] with the
//! output, or `Error::number` (or [`PANIC`]) with the UTF-8 message; either
//! way `*out_ptr`/`*out_len` receive a buffer the library owns, which the
//! caller copies and hands back to `ladder_example_free(ptr, len)`. This file
//! holds the names; `boundary.rs` is the ABI, the same file for every ladder
//! (the QR ladder's library compiles it too).

mod boundary;

pub use boundary::{OK, PANIC};
// The core's function on raw bytes: all that `boundary.rs` takes from the core.
use ladder_example_core::ladder_example_from_utf8 as core_function_from_utf8;

boundary::export! {
    call fn ladder_example;
    free fn ladder_example_free;
}
