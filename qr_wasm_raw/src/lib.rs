//! A hand-written C ABI over qr_lib, for callers without wasm-bindgen: built
//! for `wasm32-unknown-unknown`, a module with no imports (tier `wasm-raw`,
//! driven by node-server/lib/qr-wasm-raw.js).
//!
//! 1. `qr_alloc(len)` reserves `len` bytes; the caller writes the UTF-8 text there.
//! 2. `qr_generate(text_ptr, text_len, out)` encodes it and frees nothing of
//!    the caller's. It returns 0 and a PNG, or `QrError::number` and the
//!    error's UTF-8 message; either way `out` (8 bytes) receives the result's
//!    pointer and length as two little-endian u32s.
//! 3. The caller copies the result out, then `qr_free`s the result and the text.
//!
//! Every allocation is exact-sized, so `qr_free(ptr, len)` can rebuild it.
//! An empty text needs no allocation: pass pointer 0 and length 0.
//!
//! Nothing is built for any other target: the ABI passes addresses as u32s,
//! and `qr_generate`/`qr_free` would clash with `qr_ffi`'s symbols.
#![cfg(target_arch = "wasm32")]

use std::alloc::{alloc, dealloc, Layout};

/// Reserves `len` bytes and returns their address; 0 if `len` is 0 or
/// memory is exhausted.
#[no_mangle]
pub extern "C" fn qr_alloc(len: usize) -> *mut u8 {
    match Layout::array::<u8>(len) {
        // SAFETY: the layout has a non-zero size.
        Ok(layout) if len > 0 => unsafe { alloc(layout) },
        _ => std::ptr::null_mut(),
    }
}

/// Frees what `qr_alloc` or `qr_generate` returned, given its length.
///
/// # Safety
/// `ptr` and `len` must come from `qr_alloc(len)` or a `qr_generate` result,
/// and must not be freed twice.
#[no_mangle]
pub unsafe extern "C" fn qr_free(ptr: *mut u8, len: usize) {
    if !ptr.is_null() && len > 0 {
        // SAFETY: the caller passes back an allocation made with this layout
        // (`qr_alloc`, or a boxed slice of `len` bytes).
        unsafe { dealloc(ptr, Layout::array::<u8>(len).unwrap()) }
    }
}

/// Encodes `text_len` bytes at `text_ptr`; see the module docs.
///
/// # Safety
/// `text_ptr..+text_len` must be readable and `out` must point to 8 writable bytes.
#[no_mangle]
pub unsafe extern "C" fn qr_generate(text_ptr: *const u8, text_len: usize, out: *mut u32) -> u32 {
    let text = if text_len == 0 {
        &[]
    } else {
        // SAFETY: the caller guarantees the text range is readable.
        unsafe { std::slice::from_raw_parts(text_ptr, text_len) }
    };
    let (status, bytes) = match qr_lib::generate_qr_code_from_utf8(text) {
        Ok(png) => (0, png),
        Err(err) => (u32::from(err.number()), err.to_string().into_bytes()),
    };
    // Exact-sized, handed over as is: no copy inside the module.
    let bytes = bytes.into_boxed_slice();
    let len = bytes.len();
    let ptr = Box::into_raw(bytes) as *mut u8;
    // SAFETY: the caller guarantees `out` has room for two u32s.
    unsafe {
        out.write_unaligned(ptr as u32);
        out.add(1).write_unaligned(len as u32);
    }
    status
}
