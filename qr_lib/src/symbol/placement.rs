//! The placement stage's table: where each codeword's bits go.
//!
//! The zigzag path climbs and descends two-module columns, right module
//! first: most bits come in pairs that lie side by side in one row, each
//! pair one shift, mask and OR into its row as a two-bit value. The stream
//! is taken sixteen bits (two codewords) at a time, so that every pair's
//! shift is a constant: its pairs start at the window's first bit, or at
//! its second (then the window is shifted left by one, its first bit is
//! placed alone, and its last bit is the high bit of a pair whose low bit
//! is zero). A window that meets a function pattern or the middle of a
//! `u128` row is placed a bit at a time. The bits are ORed in, so the
//! windows' order does not matter.

/// Sixteen bits placed as pairs: the window's bits, shifted left by
/// `shift` (0 or 1), give pair `j` as bits `15 - 2j` and `14 - 2j`, the
/// first on the right of `places[j]` (a bit number in the rows taken as
/// pairs of `u64` halves, low half first: `128 * y + x`); with a shift,
/// the window's first bit goes to `single`.
#[derive(Clone, Copy)]
struct Pairs {
    /// The window's first codeword.
    at: u16,
    shift: u16,
    single: u16,
    places: [u16; 8],
}

/// Sixteen bits placed one at a time, first bit first.
#[derive(Clone, Copy)]
struct Singles {
    at: u16,
    places: [u16; 16],
}

/// A version's placement table.
pub struct Placement {
    pairs: Vec<Pairs>,
    singles: Vec<Singles>,
    /// The last codeword's places when the codewords are odd in number.
    tail: Option<(u16, [u16; 8])>,
}

impl Placement {
    /// The table for the data modules' `places` in path order; the
    /// remainder bits past the last whole codeword stay light.
    pub fn new(places: &[u16]) -> Self {
        // The second of two places is the first's left neighbour, in the
        // same half.
        let side_by_side = |pair: &[u16]| pair[1] + 1 == pair[0] && pair[0] % 64 != 0;
        let places = &places[..places.len() / 8 * 8];
        let mut sixteens = places.chunks_exact(16);
        let (mut pairs, mut singles) = (Vec::new(), Vec::new());
        for (w, bits) in (&mut sixteens).enumerate() {
            let at = 2 * w as u16;
            if bits.chunks_exact(2).all(side_by_side) {
                let places = std::array::from_fn(|j| bits[2 * j + 1]);
                pairs.push(Pairs {
                    at,
                    shift: 0,
                    // Nothing goes there: the first bit is in a pair.
                    single: 0,
                    places,
                });
            } else if bits[1..15].chunks_exact(2).all(side_by_side) && bits[15] % 64 != 0 {
                // The last pair: the window's last bit on the right of its
                // neighbour, which gets the zero shifted in.
                let places = std::array::from_fn(|j| match j {
                    7 => bits[15] - 1,
                    _ => bits[2 * j + 2],
                });
                pairs.push(Pairs {
                    at,
                    shift: 1,
                    single: bits[0],
                    places,
                });
            } else {
                singles.push(Singles {
                    at,
                    places: bits.try_into().unwrap(),
                });
            }
        }
        // An odd codeword out at the end: its own eight places.
        let last = (places.len() / 8).saturating_sub(1) as u16;
        let tail = sixteens.remainder().try_into().ok().map(|p| (last, p));
        Self {
            pairs,
            singles,
            tail,
        }
    }

    /// ORs the bits of `words` (one per codeword of the table) into
    /// `halves` at their places.
    pub fn place(&self, halves: &mut [u64; 256], words: &[u8]) {
        // The mask keeps every index in bounds: no bounds checks.
        let mut put = |place: u16, bits: u64| {
            halves[usize::from(place >> 6) & 255] |= bits << (place & 63);
        };
        let window = |at: u16| {
            let at = usize::from(at);
            u64::from(u16::from_be_bytes([words[at], words[at + 1]]))
        };
        for pairs in &self.pairs {
            let bits = window(pairs.at);
            put(pairs.single, bits >> 15 & u64::from(pairs.shift));
            let bits = bits << pairs.shift;
            for (j, &place) in pairs.places.iter().enumerate() {
                put(place, bits >> (14 - 2 * j) & 3);
            }
        }
        for singles in &self.singles {
            let bits = window(singles.at);
            for (i, &place) in singles.places.iter().enumerate() {
                put(place, bits >> (15 - i) & 1);
            }
        }
        if let Some((at, places)) = &self.tail {
            let word = u64::from(words[usize::from(*at)]);
            for (i, &place) in places.iter().enumerate() {
                put(place, word >> (7 - i) & 1);
            }
        }
    }
}
