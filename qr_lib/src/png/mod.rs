//! A minimal PNG writer for 1-bit grayscale images whose scanlines (filter
//! bytes included) are already laid out.

mod deflate;

pub use deflate::zlib;

use crate::raster::Image;

const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n'];

/// The PNG stage: deflate, chunks and checksums.
pub fn encode_gray1(image: &Image) -> Vec<u8> {
    let mut out = Vec::new();
    encode_gray1_in(image, &mut out);
    out
}

/// The PNG stage into `out`, which it clears first: a caller that encodes
/// many images reuses one buffer.
pub fn encode_gray1_in(image: &Image, out: &mut Vec<u8>) {
    let (width, height) = (image.size as u32, image.size as u32);
    out.clear();
    // Room for the largest images without growing (measured: at most 1.6 KB).
    out.reserve(2048);
    out.extend_from_slice(&SIGNATURE);

    let mut ihdr = [0u8; 13];
    ihdr[..4].copy_from_slice(&width.to_be_bytes());
    ihdr[4..8].copy_from_slice(&height.to_be_bytes());
    // bit depth 1, color type 0 (grayscale), deflate, adaptive filters, no interlace
    ihdr[8..].copy_from_slice(&[1, 0, 0, 0, 0]);
    write_chunk(out, b"IHDR", |out| out.extend_from_slice(&ihdr));
    write_chunk(out, b"IDAT", |out| deflate::zlib(out, image));
    write_chunk(out, b"IEND", |_| {});
}

/// Appends a chunk: length, type, the data `fill` writes, CRC of type + data.
fn write_chunk(out: &mut Vec<u8>, kind: &[u8; 4], fill: impl FnOnce(&mut Vec<u8>)) {
    let len_at = out.len();
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(kind);
    fill(out);
    let data_len = (out.len() - len_at - 8) as u32;
    out[len_at..len_at + 4].copy_from_slice(&data_len.to_be_bytes());
    let crc = crc32fast::hash(&out[len_at + 4..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_with_the_png_crate() {
        // 10x10 image, one module row of 10 rows: alternating pixels.
        let png_bytes = encode_gray1(&Image::of_lines(
            10,
            10,
            3,
            vec![0, 0b1010_1010, 0b1000_0000],
            2,
        ));
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (10, 10));
        assert_eq!(info.bit_depth, png::BitDepth::One);
        assert_eq!(
            &buf[..info.buffer_size()],
            &[0b1010_1010, 0b1000_0000].repeat(10)[..]
        );
    }
}
