//! Every limit of the core in one place, with the compile-time checks that
//! hold them together: the stages read them here and never from each other.

/// Longest accepted text, in UTF-8 bytes.
pub const MAX_TEXT_BYTES: usize = 512;

/// The largest version drawn. Rows are `u128`s and the raster shifts them by
/// the quiet zone on both sides, so `width + 8` must fit in 128 bits:
/// version 25 (117 modules). Texts of up to `MAX_TEXT_BYTES` need at most
/// version 15 (byte mode at level L holds 520 bytes there).
pub const MAX_VERSION: i16 = 25;

/// Byte-mode capacity at error correction L of versions 1 to 25 (ISO/IEC
/// 18004 table 7): no segmentation needs more bits than all-byte mode.
pub const BYTE_CAPACITY_L: [usize; MAX_VERSION as usize] = [
    17, 32, 53, 78, 106, 134, 154, 192, 230, 271, 321, 367, 425, 458, 520, 586, 644, 718, 792, 858,
    929, 1003, 1091, 1171, 1273,
];

/// The image is at least this many pixels wide and high.
pub const MIN_IMAGE_SIZE: u32 = 200;

/// Light modules around the symbol, as the QR standard asks.
pub const QUIET_ZONE_MODULES: u32 = 4;

/// Modules across a symbol of `version`.
pub const fn version_width(version: i16) -> usize {
    17 + 4 * version as usize
}

// The limits hold at compile time: raising MAX_TEXT_BYTES or MAX_VERSION past
// what the packed rows can draw fails the build, not a request.
const _: () = assert!(
    version_width(MAX_VERSION) + 2 * QUIET_ZONE_MODULES as usize <= u128::BITS as usize,
    "a row of the largest version with its quiet zone must fit a u128"
);
const _: () = assert!(
    MAX_TEXT_BYTES <= BYTE_CAPACITY_L[MAX_VERSION as usize - 1],
    "the longest accepted text must fit the largest version"
);
