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
//! `u128` row is placed a bit at a time. Most windows' eight pairs lie in
//! eight consecutive rows of one column pair (a `Stack`): their rows and
//! shift follow from the first pair's place, with no place to load per
//! pair. The bits are ORed in, so the windows' order does not matter.

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

/// `Pairs` whose eight pairs lie in eight consecutive rows of one column
/// pair, as most windows' do: pair `j` at `first - 128 * j` (climbing) or
/// `first + 128 * j` (descending), so each pair's row and shift follow
/// from `first`, with no place to load.
#[derive(Clone, Copy)]
struct Stack {
    at: u16,
    shift: u16,
    single: u16,
    first: u16,
}

/// Sixteen bits placed one at a time, first bit first.
#[derive(Clone, Copy)]
struct Singles {
    at: u16,
    places: [u16; 16],
}

/// A version's placement table.
pub struct Placement {
    climbing: Vec<Stack>,
    descending: Vec<Stack>,
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
        let (mut climbing, mut descending) = (Vec::new(), Vec::new());
        for (w, bits) in (&mut sixteens).enumerate() {
            let at = 2 * w as u16;
            let window = if bits.chunks_exact(2).all(side_by_side) {
                Pairs {
                    at,
                    shift: 0,
                    // Nothing goes there: the first bit is in a pair.
                    single: 0,
                    places: std::array::from_fn(|j| bits[2 * j + 1]),
                }
            } else if bits[1..15].chunks_exact(2).all(side_by_side) && bits[15] % 64 != 0 {
                // The last pair: the window's last bit on the right of its
                // neighbour, which gets the zero shifted in.
                Pairs {
                    at,
                    shift: 1,
                    single: bits[0],
                    places: std::array::from_fn(|j| match j {
                        7 => bits[15] - 1,
                        _ => bits[2 * j + 2],
                    }),
                }
            } else {
                singles.push(Singles {
                    at,
                    places: bits.try_into().unwrap(),
                });
                continue;
            };
            let first = window.places[0];
            let rows = |step: i32| {
                (0..8).all(|j| i32::from(window.places[j]) == i32::from(first) + step * j as i32)
            };
            let stack = Stack {
                at,
                shift: window.shift,
                single: window.single,
                first,
            };
            if rows(-128) {
                climbing.push(stack);
            } else if rows(128) {
                descending.push(stack);
            } else {
                pairs.push(window);
            }
        }
        // An odd codeword out at the end: its own eight places.
        let last = (places.len() / 8).saturating_sub(1) as u16;
        let tail = sixteens.remainder().try_into().ok().map(|p| (last, p));
        Self {
            climbing,
            descending,
            pairs,
            singles,
            tail,
        }
    }

    /// ORs the bits of `words` (one per codeword of the table) into
    /// `halves` at their places.
    pub fn place(&self, halves: &mut [u64; 256], words: &[u8]) {
        let window = |at: u16| {
            let at = usize::from(at);
            u64::from(u16::from_be_bytes([words[at], words[at + 1]]))
        };
        // The mask keeps every index in bounds: no bounds checks.
        let put = |halves: &mut [u64; 256], place: u16, bits: u64| {
            halves[usize::from(place >> 6) & 255] |= bits << (place & 63);
        };
        // A stack's pairs all take `first`'s shift, in the halves two apart
        // (one row) from `first`'s: fifteen halves cut once, then constant
        // offsets into them.
        let stacks = [(&self.climbing, true), (&self.descending, false)];
        for (stacks, climbing) in stacks {
            for stack in stacks {
                let bits = window(stack.at);
                put(halves, stack.single, bits >> 15 & u64::from(stack.shift));
                let bits = bits << stack.shift;
                let (half, shift) = (usize::from(stack.first >> 6), stack.first & 63);
                let from = if climbing { half - 14 } else { half };
                let rows: &mut [u64; 15] = (&mut halves[from..from + 15]).try_into().unwrap();
                for j in 0..8 {
                    let row = if climbing { 14 - 2 * j } else { 2 * j };
                    rows[row] |= (bits >> (14 - 2 * j) & 3) << shift;
                }
            }
        }
        let mut put = |place: u16, bits: u64| put(halves, place, bits);
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
