//! Reading the core's PNGs back, shared by its tests and the fuzz target
//! (`#[path]`): the pixels in the baseline's form, and what rqrr reads.

/// A 1-bit grayscale PNG of the core as (width, pixels), row by row, each
/// 0 (dark) or 255 (light): the form `baseline::render` gives.
pub fn pixels(png_bytes: &[u8]) -> (u32, Vec<u8>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png_bytes))
        .read_info()
        .expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("sized")];
    let info = reader.next_frame(&mut buf).expect("one frame");
    assert_eq!(info.width, info.height, "square");
    assert_eq!(info.color_type, png::ColorType::Grayscale);
    let size = info.width as usize;
    let row_bytes = size.div_ceil(8);
    let px = (0..size * size)
        .map(|i| {
            let (x, y) = (i % size, i / size);
            if buf[y * row_bytes + x / 8] & (0x80 >> (x % 8)) != 0 {
                255
            } else {
                0
            }
        })
        .collect();
    (info.width, px)
}

/// What rqrr reads from a square image of `pixels`: (version, bytes), or
/// None where rqrr decodes none of the grids it finds. It may find more
/// than one in one symbol (the fuzz target's regression `rqrr-two-grids`,
/// a 310-byte text whose symbol zbarimg reads exactly); every grid it does
/// decode must read the same.
#[allow(dead_code)] // not every includer decodes
pub fn read_qr(size: usize, pixels: &[u8]) -> Option<(usize, Vec<u8>)> {
    let mut image =
        rqrr::PreparedImage::prepare_from_greyscale(size, size, |x, y| pixels[y * size + x]);
    let grids = image.detect_grids();
    assert!(!grids.is_empty(), "a QR code");
    let mut read = grids.iter().filter_map(|grid| {
        let mut bytes = Vec::new();
        let meta = grid.decode_to(&mut bytes).ok()?;
        Some((meta.version.0, bytes))
    });
    let first = read.next()?;
    for other in read {
        assert_eq!(other, first, "two grids that read differently");
    }
    Some(first)
}
