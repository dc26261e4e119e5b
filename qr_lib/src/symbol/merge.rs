//! The parsed runs merged as the `qrcode` crate's `Optimizer` merges them:
//! left to right, a run joins the segment before it when the joined segment
//! costs no more bits than the two apart. The crate recomputes each cost
//! through matches on the version and mode; here the parser's three modes
//! (it reports Kanji as Byte) index a table of head costs per version
//! range. `reference::crate_merge` is the crate's, and a test holds the two
//! equal.

use qrcode::optimize::Segment;
use qrcode::types::Mode;

/// Mode indicator plus character-count bits of Numeric, Alphanumeric and
/// Byte segments, in versions 1-9, 10-26 and 27-40.
const HEAD_BITS: [[usize; 3]; 3] = [
    [4 + 10, 4 + 9, 4 + 8],
    [4 + 12, 4 + 11, 4 + 16],
    [4 + 14, 4 + 13, 4 + 16],
];

const MODES: [Mode; 3] = [Mode::Numeric, Mode::Alphanumeric, Mode::Byte];

/// The index of `mode` in `MODES`: each mode's characters are a subset of
/// the next one's, so the joined segment's mode is the larger index.
fn rank(mode: Mode) -> usize {
    match mode {
        Mode::Numeric => 0,
        Mode::Alphanumeric => 1,
        Mode::Byte => 2,
        Mode::Kanji => unreachable!("the parser reports Kanji as Byte"),
    }
}

/// `segments` merged for the versions of `range` (0: 1-9, 1: 10-26, 2:
/// 27-40) into `merged` (cleared first); returns their encoded length in
/// bits.
pub fn merge(segments: &[Segment], range: usize, merged: &mut Vec<Segment>) -> usize {
    let head = &HEAD_BITS[range];
    let cost = |rank: usize, len: usize| {
        head[rank]
            + match rank {
                0 => (len * 10).div_ceil(3),
                1 => (len * 11).div_ceil(2),
                _ => len * 8,
            }
    };
    merged.clear();
    let Some((first, rest)) = segments.split_first() else {
        return 0;
    };
    let (mut total, mut begin, mut end) = (0, first.begin, first.end);
    let mut last_rank = rank(first.mode);
    let mut last_cost = cost(last_rank, end - begin);
    for s in rest {
        let r = rank(s.mode);
        let own = cost(r, s.end - s.begin);
        let joined_rank = last_rank.max(r);
        let joined = cost(joined_rank, s.end - begin);
        if last_cost + own >= joined {
            (last_rank, last_cost) = (joined_rank, joined);
        } else {
            let mode = MODES[last_rank];
            merged.push(Segment { mode, begin, end });
            total += last_cost;
            (begin, last_rank, last_cost) = (s.begin, r, own);
        }
        end = s.end;
    }
    let mode = MODES[last_rank];
    merged.push(Segment { mode, begin, end });
    total + last_cost
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbol::reference::{crate_merge, crate_segments};
    use crate::symbol::segments::parse;
    use crate::symbol::VERSION_RANGES;
    use qrcode::types::Version;

    #[test]
    fn merges_as_the_crate_does() {
        let mut rng = crate::xorshift(0x0E7E);
        // Runs of each mode's alphabet, so segments of every mode meet.
        let pools: [&[u8]; 4] = [
            b"0123456789",
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:",
            b"abcdefghijklmnopqrstuvwxyz?&=_",
            &[0x81, 0x40, 0x9F, 0xFC, 0xE0, 0xEA, 0xEB, 0xA4, 0xC3],
        ];
        for case in 0..20_000 {
            let len = (rng() % 40) as usize + (case % 2) * (rng() % 2000) as usize;
            let mut text = Vec::with_capacity(len);
            while text.len() < len {
                let pool = pools[rng() as usize % pools.len()];
                let run = 1 + rng() as usize % [3, 12, 40][case % 3];
                text.extend((0..run).map(|_| pool[rng() as usize % pool.len()]));
            }
            // Ours from our parse (adjacent Byte runs joined), the crate's
            // from its own parse: joining them first changes nothing.
            let (mut ours, theirs) = (Vec::new(), crate_segments(&text));
            parse(&text, &mut ours);
            // Into a buffer an earlier merge left full.
            let stale = Segment {
                mode: Mode::Numeric,
                begin: 0,
                end: 1,
            };
            let mut merged = vec![stale; 3];
            for (range, (_, last)) in VERSION_RANGES.into_iter().enumerate() {
                let version = Version::Normal(last);
                let bits = merge(&ours, range, &mut merged);
                assert_eq!(
                    (merged.clone(), bits),
                    crate_merge(&theirs, version),
                    "{text:02x?}"
                );
            }
        }
    }
}
