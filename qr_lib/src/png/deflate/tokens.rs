//! The parse's output: LZ77 tokens, and the writer that gathers literal
//! runs into one token each.

use super::tables::{dist_code, MAX_MATCH, MIN_MATCH};

/// One LZ77 token. Literals mostly come in runs of the new scanlines, kept
/// as one token each: the parse writes no token per byte, and the coder
/// reads the bytes straight from the scanlines.
#[derive(Clone, Copy)]
#[cfg_attr(test, derive(PartialEq, Debug))]
pub enum Token {
    /// `len` bytes of the new scanlines from `at`, as literals.
    Literals { at: u32, len: u32 },
    /// A literal of the Up-filter rows, which are not in the new scanlines.
    Literal(u8),
    /// `len` bytes equal to those `dist` back; `dist_code` is the
    /// distance's code, worked out once for the block writer's two passes.
    Match { len: u16, dist: u16, dist_code: u8 },
}

/// The token list as the parse writes it. The literal run being gathered
/// is held back until a token of another kind comes (or `flush`), so that
/// each literal costs a compare and an add.
pub struct TokenWriter<'a> {
    tokens: &'a mut Vec<Token>,
    run_at: usize,
    run_len: usize,
}

impl<'a> TokenWriter<'a> {
    pub fn new(tokens: &'a mut Vec<Token>) -> Self {
        Self {
            tokens,
            run_at: 0,
            run_len: 0,
        }
    }

    /// The `len` scanline bytes at `at` as literals.
    #[inline(always)]
    pub fn literals(&mut self, at: usize, len: usize) {
        // The parse walks the scanlines in order: literals continue the run
        // unless a token of another kind came between, which flushed it.
        debug_assert!(self.run_len == 0 || self.run_at + self.run_len == at);
        if self.run_len == 0 {
            self.run_at = at;
        }
        self.run_len += len;
    }

    pub fn push(&mut self, token: Token) {
        self.flush();
        self.tokens.push(token);
    }

    pub fn flush(&mut self) {
        if self.run_len > 0 {
            self.tokens.push(Token::Literals {
                at: self.run_at as u32,
                len: self.run_len as u32,
            });
            self.run_len = 0;
        }
    }
}

/// `len` bytes equal to those `dist` back: a match, or literals (`byte(i)`
/// is the i-th) when too short for one.
pub fn push_copy(tokens: &mut TokenWriter, len: usize, dist: usize, byte: impl Fn(usize) -> u8) {
    if len >= MIN_MATCH {
        push_match(tokens, len, dist);
    } else {
        for i in 0..len {
            tokens.push(Token::Literal(byte(i)));
        }
    }
}

/// Pushes a match of any length >= 3 as tokens of at most 258 (none under 3).
#[inline(always)]
pub fn push_match(tokens: &mut TokenWriter, mut len: usize, dist: usize) {
    debug_assert!(len >= MIN_MATCH, "match of {len} bytes");
    let code = dist_code(dist as u16) as u8;
    while len > 0 {
        let take = if len > MAX_MATCH {
            (len - MIN_MATCH).min(MAX_MATCH)
        } else {
            len
        };
        tokens.push(Token::Match {
            len: take as u16,
            dist: dist as u16,
            dist_code: code,
        });
        len -= take;
    }
}
