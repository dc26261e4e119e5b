//! {{snake}}_core behind a plain C ABI, loaded as it is by `node:ffi`
//! (`js/ffi.js`), `bun:ffi` and `Deno.dlopen` (`ffi/js/`): no binding crate,
//! the caller's FFI does the converting.
//!
//! `{{snake}}(input, len, out_ptr, out_len)` returns [`OK`] with the output,
//! or `Error::number` (or [`PANIC`]) with the UTF-8 message; either way
//! `*out_ptr`/`*out_len` receive a buffer the library owns, which the caller
//! copies and hands back to `{{snake}}_free(ptr, len)`.

use std::panic::{self, AssertUnwindSafe};

/// The status of an output; the core's errors are its `Error::number` (1-4).
pub const OK: u32 = 0;
/// The status of a panic caught at the boundary: none unwinds into the caller.
pub const PANIC: u32 = 255;

/// Status and bytes (the output or the message) of one call.
fn run(input: &[u8]) -> (u32, Vec<u8>) {
    match panic::catch_unwind(AssertUnwindSafe(|| {
        {{snake}}_core::{{snake}}_from_utf8(input)
    })) {
        Ok(Ok(output)) => (OK, output),
        Ok(Err(err)) => (u32::from(err.number()), err.to_string().into_bytes()),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            (PANIC, format!("{{snake}}_ffi panicked: {what}").into_bytes())
        }
    }
}

/// Runs the function on the `len` UTF-8 bytes at `input`; see the crate docs.
///
/// # Safety
/// `input..+len` must be readable (any pointer when `len` is 0); `out_ptr` and
/// `out_len` must be writable.
#[no_mangle]
pub unsafe extern "C" fn {{snake}}(
    input: *const u8,
    len: usize,
    out_ptr: *mut *mut u8,
    out_len: *mut usize,
) -> u32 {
    let input = if len == 0 {
        &[][..]
    } else {
        // SAFETY: the caller guarantees the input range is readable.
        unsafe { std::slice::from_raw_parts(input, len) }
    };
    let (status, bytes) = run(input);
    // Exact-sized, so that `{{snake}}_free` can rebuild it from the length alone.
    let bytes = Box::into_raw(bytes.into_boxed_slice());
    // SAFETY: the caller guarantees both out-pointers are writable.
    unsafe {
        out_ptr.write_unaligned(bytes as *mut u8);
        out_len.write_unaligned(bytes.len());
    }
    status
}

/// Frees a buffer `{{snake}}` handed out, given its length.
///
/// # Safety
/// `ptr` and `len` must come from one `{{snake}}` call, freed once.
#[no_mangle]
pub unsafe extern "C" fn {{snake}}_free(ptr: *mut u8, len: usize) {
    if !ptr.is_null() {
        // SAFETY: `ptr..+len` is a boxed slice `{{snake}}` leaked.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(input: &[u8]) -> (u32, Vec<u8>) {
        let (mut ptr, mut len) = (std::ptr::null_mut(), 0);
        // SAFETY: a readable slice and two local out-slots.
        let status = unsafe { {{snake}}(input.as_ptr(), input.len(), &mut ptr, &mut len) };
        // SAFETY: the buffer just handed out, copied, then freed once.
        let bytes = unsafe { std::slice::from_raw_parts(ptr, len).to_vec() };
        unsafe { {{snake}}_free(ptr, len) };
        (status, bytes)
    }

    #[test]
    fn the_cores_output_and_errors() {
        for input in ["Hello, Rust ladder!", ""] {
            let want = match {{snake}}_core::{{snake}}(input) {
                Ok(output) => (OK, output),
                Err(err) => (u32::from(err.number()), err.to_string().into_bytes()),
            };
            assert_eq!(call(input.as_bytes()), want, "{input:?}");
        }
        let invalid_utf8 = {{snake}}_core::Error::InvalidUtf8.number();
        assert_eq!(call(&[0xff]).0, u32::from(invalid_utf8));
    }
}
