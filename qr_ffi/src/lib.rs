//! qr_lib behind a plain C ABI, loaded as it is by `node:ffi`, `bun:ffi` and
//! `Deno.dlopen`: no binding crate, the caller's FFI does the converting.
//!
//! `qr_generate(text, len, out_ptr, out_len)` returns [`QR_OK`] with a PNG,
//! or `QrError::number` (or [`QR_PANIC`]) with the UTF-8 message; either way
//! `*out_ptr`/`*out_len` receive a buffer the library owns, which the caller
//! copies and hands back to `qr_free(ptr, len)`.

use std::panic::{self, AssertUnwindSafe};

/// The status of a PNG; the core's errors are its `QrError::number` (1-4).
pub const QR_OK: u32 = 0;
/// The status of a panic caught at the boundary: none unwinds into the caller.
pub const QR_PANIC: u32 = 255;

/// Status and bytes (the PNG or the message) of one call.
fn run(text: &[u8]) -> (u32, Vec<u8>) {
    match panic::catch_unwind(AssertUnwindSafe(|| {
        qr_lib::generate_qr_code_from_utf8(text)
    })) {
        Ok(Ok(png)) => (QR_OK, png),
        Ok(Err(err)) => (u32::from(err.number()), err.to_string().into_bytes()),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            (QR_PANIC, format!("qr_ffi panicked: {what}").into_bytes())
        }
    }
}

/// Encodes the `len` UTF-8 bytes at `text`; see the crate docs.
///
/// # Safety
/// `text..+len` must be readable (any pointer when `len` is 0); `out_ptr` and
/// `out_len` must be writable.
#[no_mangle]
pub unsafe extern "C" fn qr_generate(
    text: *const u8,
    len: usize,
    out_ptr: *mut *mut u8,
    out_len: *mut usize,
) -> u32 {
    let text = if len == 0 {
        &[][..]
    } else {
        // SAFETY: the caller guarantees the text range is readable.
        unsafe { std::slice::from_raw_parts(text, len) }
    };
    let (status, bytes) = run(text);
    // Exact-sized, so that `qr_free` can rebuild it from the length alone.
    let bytes = Box::into_raw(bytes.into_boxed_slice());
    // SAFETY: the caller guarantees both out-pointers are writable.
    unsafe {
        out_ptr.write_unaligned(bytes as *mut u8);
        out_len.write_unaligned(bytes.len());
    }
    status
}

/// Frees a buffer `qr_generate` handed out, given its length.
///
/// # Safety
/// `ptr` and `len` must come from one `qr_generate` call, freed once.
#[no_mangle]
pub unsafe extern "C" fn qr_free(ptr: *mut u8, len: usize) {
    if !ptr.is_null() {
        // SAFETY: `ptr..+len` is a boxed slice `qr_generate` leaked.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(text: &[u8]) -> (u32, Vec<u8>) {
        let (mut ptr, mut len) = (std::ptr::null_mut(), 0);
        // SAFETY: a readable slice and two local out-slots.
        let status = unsafe { qr_generate(text.as_ptr(), text.len(), &mut ptr, &mut len) };
        // SAFETY: the buffer just handed out, copied, then freed once.
        let bytes = unsafe { std::slice::from_raw_parts(ptr, len).to_vec() };
        unsafe { qr_free(ptr, len) };
        (status, bytes)
    }

    #[test]
    fn same_png_as_the_core() {
        assert_eq!(
            call(b"hello"),
            (QR_OK, qr_lib::generate_qr_code("hello").unwrap())
        );
    }

    #[test]
    fn core_errors_keep_their_number_and_message() {
        for (text, err) in [
            (&b""[..], qr_lib::generate_qr_code("").unwrap_err()),
            (
                &[b'a'; 513][..],
                qr_lib::generate_qr_code(&"a".repeat(513)).unwrap_err(),
            ),
        ] {
            assert_eq!(
                call(text),
                (u32::from(err.number()), err.to_string().into_bytes())
            );
        }
        assert_eq!(
            call(&[0xff]).0,
            u32::from(qr_lib::QrError::InvalidUtf8.number())
        );
    }

    #[cfg(feature = "testing")]
    #[test]
    fn a_panic_stops_at_the_boundary() {
        let (status, message) = call(qr_lib::PANIC_TEXT.as_bytes());
        assert_eq!(
            (status, &message[..]),
            (QR_PANIC, &b"qr_ffi panicked: test-only panic"[..])
        );
    }
}
