//! Text bytes to runs of one character class: the `qrcode` crate's
//! `optimize::Parser`, its state table ported to a byte-class lookup and a
//! tight loop (the crate's iterator is most of the stage's instructions), and
//! its Kanji segments reported as Byte (see `reference::encode_bits`).
//! Adjacent Byte runs come as one. `merge` then merges the runs as the
//! crate's `Optimizer` does; a test holds the output equal to the crate's
//! parser on mixed-class random texts, its adjacent Byte runs joined.

use qrcode::optimize::Segment;
use qrcode::types::Mode;

/// Byte classes, in the crate's `ExclCharSet` order: End (past the last
/// byte), alphanumeric symbols, digits, capitals, the three Shift-JIS lead
/// ranges, the two trail ranges, anything else.
const END: u8 = 0;
const CLASSES: usize = 10;

const CLASS: [u8; 256] = {
    let mut class = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        class[c] = match c as u8 {
            0x20 | 0x24 | 0x25 | 0x2a | 0x2b | 0x2d..=0x2f | 0x3a => 1,
            0x30..=0x39 => 2,
            0x41..=0x5a => 3,
            0x81..=0x9f => 4,
            0xe0..=0xea => 5,
            0xeb => 6,
            0x40 | 0x5b..=0x7e | 0x80 | 0xa0..=0xbf => 7,
            0xc0..=0xdf | 0xec..=0xfc => 8,
            _ => 9,
        };
        c += 1;
    }
    class
};

/// Parser states: Init, Numeric, Alpha, Byte, after a Kanji lead of the
/// first two ranges, after the lead 0xEB, inside Kanji.
const INIT: u8 = 0;
const NUMERIC: u8 = 1;
const ALPHA: u8 = 2;
const BYTE: u8 = 3;
const HI12: u8 = 4;
const HI3: u8 = 5;
const KANJI: u8 = 6;

/// What a transition does with the run so far.
#[derive(Clone, Copy)]
enum Action {
    Idle,
    /// Ends the run as a segment of this mode.
    Push(Mode),
    /// Ends the run before its last byte as Kanji (here Byte), then that
    /// byte alone as Byte.
    KanjiAndSingleByte,
}

/// `TRANSITION[state][class]`: the next state and the action, as the crate's
/// `STATE_TRANSITION`.
const TRANSITION: [[(u8, Action); CLASSES]; 7] = {
    use Action::{Idle, KanjiAndSingleByte as Split, Push};
    // From a one-mode run: to the class's own state, pushing `leave` unless
    // the class continues the run (`stay`).
    const fn run(leave: Action, stay: [bool; CLASSES]) -> [(u8, Action); CLASSES] {
        let to = [
            INIT, ALPHA, NUMERIC, ALPHA, HI12, HI12, HI3, BYTE, BYTE, BYTE,
        ];
        let mut row = [(INIT, Idle); CLASSES];
        let mut class = 0;
        while class < CLASSES {
            row[class] = (to[class], if stay[class] { Idle } else { leave });
            class += 1;
        }
        row
    }
    const T: bool = true;
    const F: bool = false;
    [
        run(Idle, [T; CLASSES]),
        run(Push(Mode::Numeric), [F, F, T, F, F, F, F, F, F, F]),
        run(Push(Mode::Alphanumeric), [F, T, F, T, F, F, F, F, F, F]),
        run(Push(Mode::Byte), [F, F, F, F, F, F, F, T, T, T]),
        [
            (INIT, Split),
            (ALPHA, Split),
            (NUMERIC, Split),
            (KANJI, Idle),
            (KANJI, Idle),
            (KANJI, Idle),
            (KANJI, Idle),
            (KANJI, Idle),
            (KANJI, Idle),
            (BYTE, Split),
        ],
        [
            (INIT, Split),
            (ALPHA, Split),
            (NUMERIC, Split),
            (KANJI, Idle),
            (KANJI, Idle),
            (HI12, Split),
            (HI3, Split),
            (KANJI, Idle),
            (BYTE, Split),
            (BYTE, Split),
        ],
        // Kanji: leads continue it (their trail byte comes next).
        run(Push(Mode::Byte), [F, F, F, F, T, T, T, F, F, F]),
    ]
};

/// The crate's `Parser::new(data)` segments, Kanji reported as Byte and
/// adjacent Byte runs joined, into `segments` (cleared first).
pub fn parse(data: &[u8], segments: &mut Vec<Segment>) {
    segments.clear();
    // Byte runs next to each other are one: `merge` would join them anyway
    // (a Byte run joins the segment before it on a condition its length
    // does not enter, and always joins a Byte segment), and a UTF-8 text
    // whose bytes read as Shift-JIS pairs comes as hundreds of them.
    let mut push = |mode: Mode, begin, end| match segments.last_mut() {
        Some(last) if mode == Mode::Byte && last.mode == Mode::Byte => last.end = end,
        _ => segments.push(Segment { mode, begin, end }),
    };
    let (mut state, mut begin, mut i) = (INIT, 0, 0);
    loop {
        if state == BYTE {
            // Most of a long text in Byte mode: its bytes only continue the
            // run, so they are passed over without the state table.
            i += byte_run(&data[i..]);
        }
        let class = data.get(i).map_or(END, |&b| CLASS[usize::from(b)]);
        let (next, action) = TRANSITION[usize::from(state)][usize::from(class)];
        state = next;
        match action {
            Action::Idle => {}
            Action::Push(mode) => {
                push(mode, begin, i);
                begin = i;
            }
            Action::KanjiAndSingleByte => {
                if begin + 1 < i {
                    push(Mode::Byte, begin, i - 1);
                }
                push(Mode::Byte, i - 1, i);
                begin = i;
            }
        }
        if i == data.len() {
            return;
        }
        i += 1;
    }
}

/// How many bytes from the start of `data` keep a Byte run going (classes
/// 7 to 9, which the Byte state's row leaves idle).
fn byte_run(data: &[u8]) -> usize {
    data.iter()
        .take_while(|&&b| CLASS[usize::from(b)] >= 7)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbol::reference::crate_segments as crates;

    /// `parse`'s segments of `data`.
    fn parsed(data: &[u8]) -> Vec<Segment> {
        // Into a buffer an earlier parse left full.
        let mut segments = vec![
            Segment {
                mode: Mode::Numeric,
                begin: 0,
                end: 1
            };
            3
        ];
        parse(data, &mut segments);
        segments
    }

    /// `segments` with each run of adjacent Byte segments as one.
    fn joined(segments: Vec<Segment>) -> Vec<Segment> {
        let mut out: Vec<Segment> = Vec::new();
        for s in segments {
            match out.last_mut() {
                Some(last) if s.mode == Mode::Byte && last.mode == Mode::Byte => last.end = s.end,
                _ => out.push(s),
            }
        }
        out
    }

    #[test]
    fn segments_are_the_crates() {
        let mut rng = crate::xorshift(0x5EC7_1095);
        // A few bytes of each class, so every transition of the table occurs.
        let picks: &[u8] = b" $%*+-./:09AZ\x81\x9f\xe0\xea\xeb\x40\x5b\x7e\x80\xa0\xbf\xc0\xdf\xec\xfc\x00\x7f\xfd\xffaz";
        for case in 0..20_000 {
            let len = (rng() % 24) as usize + (case % 2) * (rng() % 500) as usize;
            let data: Vec<u8> = (0..len)
                .map(|_| match rng() % 4 {
                    0 => rng() as u8,
                    _ => picks[rng() as usize % picks.len()],
                })
                .collect();
            assert_eq!(parsed(&data), joined(crates(&data)), "{data:02x?}");
        }
        for text in [
            "",
            "a",
            "HELLO",
            "0123",
            "你好",
            "\u{3042}\u{3001}A\u{ff71}",
        ] {
            let expected = joined(crates(text.as_bytes()));
            assert_eq!(parsed(text.as_bytes()), expected, "{text}");
        }
    }
}
