//! The whole encoder held to two inflaters (miniz_oxide and C zlib), and
//! the parse's fast path held to its slow twin.

use super::parse::{parse, parse_lz77, Scratch, CHAIN_MIN_BYTE_VALUES};
use super::tokens::Token;
use super::{zlib, UP_FILTER};
use crate::raster::Image;
use crate::xorshift;

/// The PNG scanline stream `image` stands for.
fn expand(image: &Image) -> Vec<u8> {
    let mut up = vec![0u8; image.stride];
    up[0] = UP_FILTER;
    let mut data = Vec::new();
    for line in image.lines.chunks_exact(image.stride) {
        data.extend_from_slice(line);
        for _ in 1..image.scale {
            data.extend_from_slice(&up);
        }
    }
    data
}

fn round_trip(image: &Image) -> usize {
    let mut out = Vec::new();
    zlib(&mut out, image);
    let back = miniz_oxide::inflate::decompress_to_vec_zlib(&out).expect("valid zlib stream");
    assert_eq!(back, expand(image));
    out.len()
}

fn image(stride: usize, scale: usize, lines: Vec<u8>) -> Image {
    let mut seen = [false; 256];
    for (i, &b) in lines.iter().enumerate() {
        seen[b as usize] |= i % stride != 0;
    }
    let byte_values = seen.iter().filter(|&&s| s).count();
    Image::of_lines(8 * (stride - 1), scale, stride, lines, byte_values)
}

#[test]
fn round_trips_any_lines() {
    round_trip(&image(2, 1, vec![]));
    round_trip(&image(2, 1, vec![0, 7]));
    round_trip(&image(5, 3, b"abcabcabcabcabc".to_vec()));
    round_trip(&image(27, 5, vec![0; 27 * 700]));
    let mut rng = xorshift(1);
    let noise: Vec<u8> = (0..27 * 700).map(|_| rng() as u8).collect();
    round_trip(&image(27, 5, noise));
    // Skewed: long codes, exercising the length limit.
    let skewed: Vec<u8> = (0..33 * 1000u32)
        .map(|i| (i.trailing_zeros() * 7 + i % 3) as u8)
        .collect();
    round_trip(&image(33, 3, skewed));
}

/// Lines as a QR image has them: a few recurring ones (sparse bits),
/// runs of the same line, some noise.
fn pixel_art(rng: &mut impl FnMut() -> u32, stride: usize, rows: usize) -> Vec<u8> {
    let palette: Vec<Vec<u8>> = (0..1 + rng() % 4)
        .map(|_| (0..stride).map(|_| rng() as u8 & 0x81).collect())
        .collect();
    let mut lines = Vec::with_capacity(stride * rows);
    while lines.len() < stride * rows {
        let line: Vec<u8> = match rng() % 4 {
            0 => (0..stride).map(|_| rng() as u8).collect(),
            _ => palette[rng() as usize % palette.len()].clone(),
        };
        for _ in 0..1 + rng() % 3 {
            lines.extend_from_slice(&line);
        }
    }
    lines.truncate(stride * rows);
    lines
}

#[test]
fn any_stride_and_scale_inflates_with_c_zlib() {
    use std::io::Read;
    let mut rng = xorshift(0x9E37_79B9);
    for case in 0..3000 {
        let stride = 2 + rng() as usize % 70;
        let scale = 1 + rng() as usize % 9;
        let rows = rng() as usize % 60;
        let mut image = image(stride, scale, pixel_art(&mut rng, stride, rows));
        // Half the cases through each parse: with the chain, without.
        if case % 2 == 0 {
            image.byte_values = 256;
        }
        let mut out = Vec::new();
        zlib(&mut out, &image);
        let mut back = Vec::new();
        flate2::read::ZlibDecoder::new(&out[..])
            .read_to_end(&mut back)
            .unwrap_or_else(|e| panic!("case {case} (stride {stride}, scale {scale}): {e}"));
        assert_eq!(
            back,
            expand(&image),
            "case {case} (stride {stride}, scale {scale})"
        );
    }
}

#[test]
fn small_alphabets_skip_the_chain_and_shrink() {
    use crate::raster;
    use crate::symbol::encode;
    // Bytes per scale, without the chain and with it: scale 8 has 2 byte
    // values, 6 has 8, 4 has 4 (versions 1-2, 3-6 and 7 and up).
    let mut sizes = [(0, 0); 9];
    for len in (5..=300).step_by(5) {
        let text: String = (0..len)
            .map(|i| (b'!' + (i * 37 % 90) as u8) as char)
            .collect();
        let mut image = raster::image(&encode(text.as_bytes()).unwrap());
        if image.byte_values >= CHAIN_MIN_BYTE_VALUES {
            continue;
        }
        let scale = image.scale;
        sizes[scale].0 += round_trip(&image);
        image.byte_values = 256;
        sizes[scale].1 += round_trip(&image);
    }
    for scale in [4, 6, 8] {
        let (without, with) = sizes[scale];
        assert!(
            0 < without && without < with,
            "scale {scale}: {without} B without the chain, {with} with"
        );
    }
}

#[derive(Clone, Copy)]
enum Walk {
    Encoder,
    Skipping,
    Searching,
}

#[test]
fn skipping_literals_gives_the_tokens_of_searching_every_position() {
    use crate::raster;
    use crate::symbol::encode;
    // The parse as the encoder runs it (`parse`: without the chain, from
    // line masks where the lines fit them), the generic walk with skipping,
    // and the walk that searches every position.
    let tokens = |image: &Image, walk: Walk| {
        let mut scratch = Scratch::default();
        match (image.byte_values >= CHAIN_MIN_BYTE_VALUES, walk) {
            (_, Walk::Encoder) => parse(image, &mut scratch),
            (true, Walk::Skipping) => parse_lz77::<true, true>(image, &mut scratch),
            (true, Walk::Searching) => parse_lz77::<true, false>(image, &mut scratch),
            (false, Walk::Skipping) => parse_lz77::<false, true>(image, &mut scratch),
            (false, Walk::Searching) => parse_lz77::<false, false>(image, &mut scratch),
        }
        scratch.tokens
    };
    let mut rng = xorshift(0xC4A1);
    for case in 0..2000 {
        let image = if case % 2 == 0 {
            // QR images at every module size the raster draws (none of
            // them needs the chain), through the parse as they come.
            let len = 1 + rng() as usize % 512;
            let text: String = (0..len)
                .map(|_| (b'!' + (rng() % 90) as u8) as char)
                .collect();
            raster::image(&encode(text.as_bytes()).unwrap())
        } else {
            let (stride, scale, rows) = (
                2 + rng() as usize % 70,
                1 + rng() as usize % 9,
                rng() as usize % 60,
            );
            let mut image = image(stride, scale, pixel_art(&mut rng, stride, rows));
            // The byte count only picks the parse: any bytes go through
            // either, so some noisy images go through the one without the
            // chain too.
            match case % 4 {
                1 => image.byte_values = 256,
                3 => image.byte_values = 0,
                _ => {}
            }
            image
        };
        let searched = tokens(&image, Walk::Searching);
        assert_eq!(tokens(&image, Walk::Skipping), searched, "case {case}");
        assert_eq!(tokens(&image, Walk::Encoder), searched, "case {case}");
    }
}

/// A line's first bytes (its filter byte and zeros) are reached without a
/// match running into them only after repeated rows; there a zero run's
/// distance is 1 (the last Up-filter row's last zero), not the stride
/// (that row's filter byte).
#[test]
fn zeros_at_a_line_start_after_repeated_rows() {
    let mut lines = [0, 1, 1, 1, 1, 1, 1, 1].repeat(2);
    lines.extend([0, 0, 0, 0, 0, 5, 5, 5]);
    let image = image(8, 2, lines);
    assert!(image.byte_values < CHAIN_MIN_BYTE_VALUES);
    let mut scratch = Scratch::default();
    parse(&image, &mut scratch);
    let encoder = scratch.tokens.clone();
    parse_lz77::<false, false>(&image, &mut scratch);
    assert_eq!(encoder, scratch.tokens);
    assert!(
        encoder.contains(&Token::Match {
            len: 5,
            dist: 1,
            dist_code: 0
        }),
        "{encoder:?}"
    );
    round_trip(&image);
}

#[test]
fn repeated_rows_cost_almost_nothing() {
    let line: Vec<u8> = (0..27u8).map(|i| i.wrapping_mul(37)).collect();
    assert!(round_trip(&image(27, 5, line.repeat(40))) < 100);
}

#[test]
fn the_block_type_is_the_smallest_of_the_three() {
    use super::block::{write_block, write_block_as, BlockType};
    use crate::raster;
    use crate::symbol::encode;
    let types = [BlockType::Dynamic, BlockType::Fixed, BlockType::Stored];
    let mut chosen = [0; 3];
    let mut rng = xorshift(0xB10C);
    for case in 0..1500 {
        let image = match case % 3 {
            // Tiny images (the fixed codes' case; scaled up, the Up rows
            // make their stream long), noise (stored), QR images.
            0 => {
                let stride = 2 + rng() as usize % 6;
                let lines = (0..stride * (rng() as usize % 4))
                    .map(|_| rng() as u8)
                    .collect();
                image(stride, 1 + rng() as usize % 9, lines)
            }
            1 => {
                let (stride, rows) = (2 + rng() as usize % 300, rng() as usize % 200);
                image(stride, 1, (0..stride * rows).map(|_| rng() as u8).collect())
            }
            _ => {
                let len = 1 + rng() as usize % 512;
                let text: String = (0..len)
                    .map(|_| (b'!' + (rng() % 90) as u8) as char)
                    .collect();
                raster::image(&encode(text.as_bytes()).unwrap())
            }
        };
        let mut scratch = Scratch::default();
        parse(&image, &mut scratch);
        let mut auto = Vec::new();
        write_block(&mut auto, &scratch.tokens, &image);
        let stream = expand(&image);
        let outs = types.map(|kind| {
            let mut out = Vec::new();
            write_block_as(&mut out, &scratch.tokens, &image, Some(kind));
            let back = miniz_oxide::inflate::decompress_to_vec(&out)
                .unwrap_or_else(|e| panic!("case {case}, {kind:?}: {e:?}"));
            assert_eq!(back, stream, "case {case}, {kind:?}");
            out
        });
        let sizes = outs.each_ref().map(Vec::len);
        // What was written is one of the three, and none is smaller.
        let kind = outs.iter().position(|out| *out == auto);
        let kind = kind.unwrap_or_else(|| panic!("case {case}: none of the three"));
        chosen[kind] += 1;
        assert_eq!(
            auto.len(),
            *sizes.iter().min().unwrap(),
            "case {case}: {sizes:?}"
        );
        if case % 3 == 2 {
            assert_eq!(types[kind], BlockType::Dynamic, "case {case}: a QR image");
        }
    }
    // Each type was the smallest somewhere.
    assert!(chosen.iter().all(|&n| n > 0), "{chosen:?}");
}

#[test]
fn stored_blocks_split_at_65535_bytes() {
    use super::block::{write_block_as, BlockType};
    // 100 lines of 250 bytes at scale 3: 75,000 bytes, two stored blocks.
    let mut rng = xorshift(0x5704);
    let image = image(250, 3, (0..250 * 100).map(|_| rng() as u8).collect());
    let mut scratch = Scratch::default();
    parse(&image, &mut scratch);
    let mut out = Vec::new();
    write_block_as(&mut out, &scratch.tokens, &image, Some(BlockType::Stored));
    assert_eq!(out.len(), 75_000 + 2 * 5);
    assert_eq!(out[0], 0, "not the final block");
    assert_eq!(out[5 + 65_535], 1, "the final block");
    assert_eq!(
        miniz_oxide::inflate::decompress_to_vec(&out).unwrap(),
        expand(&image)
    );
}
