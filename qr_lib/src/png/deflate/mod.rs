//! A zlib/deflate encoder for the PNG of scaled-up pixel art.
//!
//! A QR image repeats itself: every module is `scale` pixels tall, so the
//! PNG holds one new scanline per module row followed by `scale - 1` copies
//! stored with the Up filter (a filter byte 2, then zeros); whole module rows
//! recur too (the quiet zone). The encoder is given only the new scanlines
//! (`raster::Image`): repeated rows become one back-reference each, found by
//! the lines' keys, the zero rows are never built nor summed byte by byte (their
//! Adler-32 is arithmetic), and only the new scanlines are parsed for matches:
//! from line masks where a pixel byte takes at most 8 values (the module
//! sizes the raster picks: 4, 6 and 8 px), with a short hash chain for any
//! other image. The result is one block with dynamic Huffman codes for
//! every QR image (a test holds them to it), or, where the frequencies say
//! they take fewer bits, one with the fixed codes or stored blocks (tiny or
//! noisy images): valid deflate for any image (the property test inflates
//! it with C zlib).
//!
//! The search effort was tuned on the shared texts with the stage table of
//! `cargo bench -p qr_lib --bench core`: matches under 4 bytes cost more
//! than their literals here; more probes, or zlib's lazy matching, buy a few
//! bytes for several microseconds.
//!
//! One concern per file, in the order the encoder runs them: `parse`
//! (with `matching`, and `parse/line_masks` where there is no chain)
//! writes `tokens`; `block` codes them with `huffman`'s
//! codes and the format's `tables` through the `bit_writer` (literals four
//! at a time with `nibble_quads` where they allow it); `adler32` closes the
//! stream.

mod adler32;
mod bit_writer;
mod block;
mod huffman;
mod matching;
mod nibble_quads;
mod parse;
mod tables;
mod tokens;

#[cfg(test)]
mod tests;

use std::cell::RefCell;

use adler32::adler32;
use block::write_block;
use parse::{parse, Scratch};

use crate::raster::Image;

/// The PNG filter type of the rows that repeat the one above.
const UP_FILTER: u8 = 2;

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// Appends the zlib stream of `image`'s PNG scanlines to `out`.
pub fn zlib(out: &mut Vec<u8>, image: &Image) {
    assert!(
        image.stride >= 2,
        "a scanline holds a filter byte and pixels"
    );
    out.extend_from_slice(&[0x78, 0xDA]); // deflate, 32K window, "best" level
    let mut deflate = |scratch: &mut Scratch| {
        parse(image, scratch);
        write_block(out, &scratch.tokens, image);
    };
    // The scratch is kept in a `RefCell`, not taken out of a `Cell` as the
    // other buffers are (see `kept`): its default allocates its 4 KiB of
    // hash buckets. Nothing in here calls back into `zlib`; were it
    // re-entered, or called after the thread's locals were destroyed, it
    // would work in a scratch of its own.
    let used_kept = SCRATCH.try_with(|cell| {
        cell.try_borrow_mut()
            .map(|mut scratch| deflate(&mut scratch))
            .is_ok()
    });
    if used_kept != Ok(true) {
        deflate(&mut Scratch::default());
    }
    out.extend_from_slice(&adler32(image).to_be_bytes());
}
