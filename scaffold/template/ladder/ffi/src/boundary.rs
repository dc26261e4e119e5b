//! The C ABI's body: one call of the core behind raw pointers, a panic
//! caught at the boundary, the output handed over and taken back, and the
//! `export!` that gives the two symbols the crate's names. The crate root
//! names the core's function on raw bytes (`core_function_from_utf8`);
//! nothing here knows what it computes.

use std::panic::{self, AssertUnwindSafe};

use crate::core_function_from_utf8;

/// The status of an output; the core's errors are their `number()` (1-254).
pub const OK: u32 = 0;
/// The status of a panic caught at the boundary: none unwinds into the caller.
pub const PANIC: u32 = 255;

/// Status and bytes (the output or the message) of one call.
fn run(input: &[u8]) -> (u32, Vec<u8>) {
    match panic::catch_unwind(AssertUnwindSafe(|| core_function_from_utf8(input))) {
        Ok(Ok(output)) => (OK, output),
        Ok(Err(err)) => (u32::from(err.number()), err.to_string().into_bytes()),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let message = format!("{} panicked: {what}", env!("CARGO_PKG_NAME"));
            (PANIC, message.into_bytes())
        }
    }
}

/// The exported call's body: runs the core on the `len` UTF-8 bytes at
/// `input` and hands its status's bytes over through `out_ptr`/`out_len`.
///
/// # Safety
/// `input..+len` must be readable (any pointer when `len` is 0); `out_ptr`
/// and `out_len` must be writable.
pub unsafe fn call(
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
    // Exact-sized, so that `free` can rebuild it from the length alone.
    let bytes = Box::into_raw(bytes.into_boxed_slice());
    // SAFETY: the caller guarantees both out-pointers are writable.
    unsafe {
        out_ptr.write_unaligned(bytes as *mut u8);
        out_len.write_unaligned(bytes.len());
    }
    status
}

/// The exported free's body: takes back a buffer `call` handed out.
///
/// # Safety
/// `ptr` and `len` must come from one `call`, freed once.
pub unsafe fn free(ptr: *mut u8, len: usize) {
    if !ptr.is_null() {
        // SAFETY: `ptr..+len` is a boxed slice `call` leaked.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) });
    }
}

/// Exports the C ABI under the crate's names: `fn call(input, len, out_ptr,
/// out_len) -> u32` returns [`OK`] with the output, or the core's error
/// `number()` (or [`PANIC`]) with the UTF-8 message; either way
/// `*out_ptr`/`*out_len` receive a buffer the library owns, which the caller
/// copies and hands back to `fn free(ptr, len)`.
macro_rules! export {
    (call fn $call:ident; free fn $free:ident;) => {
        /// Runs the core on the `len` UTF-8 bytes at `input`; see the crate docs.
        ///
        /// # Safety
        /// `input..+len` must be readable (any pointer when `len` is 0);
        /// `out_ptr` and `out_len` must be writable.
        #[no_mangle]
        pub unsafe extern "C" fn $call(
            input: *const u8,
            len: usize,
            out_ptr: *mut *mut u8,
            out_len: *mut usize,
        ) -> u32 {
            // SAFETY: this function's contract is `call`'s.
            unsafe { $crate::boundary::call(input, len, out_ptr, out_len) }
        }

        #[doc = concat!("Frees a buffer `", stringify!($call), "` handed out, given its length.")]
        ///
        /// # Safety
        #[doc = concat!("`ptr` and `len` must come from one `", stringify!($call), "` call, freed once.")]
        #[no_mangle]
        pub unsafe extern "C" fn $free(ptr: *mut u8, len: usize) {
            // SAFETY: this function's contract is `free`'s.
            unsafe { $crate::boundary::free(ptr, len) }
        }
    };
}
pub(crate) use export;

/// The core's answer for `input` as a caller of the C ABI sees it.
#[cfg(test)]
pub(crate) fn through_the_abi(input: &[u8]) -> (u32, Vec<u8>) {
    let (mut ptr, mut len) = (std::ptr::null_mut(), 0);
    // SAFETY: a readable slice and two local out-slots.
    let status = unsafe { call(input.as_ptr(), input.len(), &mut ptr, &mut len) };
    // SAFETY: the buffer just handed out, copied, then freed once.
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len).to_vec() };
    unsafe { free(ptr, len) };
    (status, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cores_output_and_errors() {
        for input in [&b"Hello, Rust ladder!"[..], b"", &[0xff]] {
            let want = match core_function_from_utf8(input) {
                Ok(output) => (OK, output),
                Err(err) => (u32::from(err.number()), err.to_string().into_bytes()),
            };
            assert_eq!(through_the_abi(input), want, "{input:?}");
        }
    }
}
