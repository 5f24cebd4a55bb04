//! Block identity: MD5 of a block's text with every non-alphabetic character removed and the rest
//! lower-cased (Unicode-aware), so "Hello, World!" and "hello world" are the same block.

use md5::{Digest, Md5};

/// The identity of a block: MD5 of its normalized text (letters only, lower-cased).
pub type BlockHash = [u8; 16];

/// Bytes buffered before they are fed to MD5 (a power of two).
const BUF_LEN: usize = 512;

/// Incremental block-identity hasher: feed characters as they are appended to a block, then
/// [`finish`](BlockHasher::finish). Reusable across blocks without allocating.
pub(crate) struct BlockHasher {
    md5: Md5,
    buf: [u8; BUF_LEN],
    len: usize,
    flushed: bool,
}

impl Default for BlockHasher {
    fn default() -> Self {
        Self {
            md5: Md5::new(),
            buf: [0; BUF_LEN],
            len: 0,
            flushed: false,
        }
    }
}

impl BlockHasher {
    #[inline]
    fn flush(&mut self) {
        self.md5.update(&self.buf[..self.len]);
        self.len = 0;
        self.flushed = true;
    }

    /// Feeds one ASCII letter (any case).
    #[inline]
    pub(crate) fn push_ascii_letter(&mut self, b: u8) {
        if self.len == BUF_LEN {
            self.flush();
        }
        self.buf[self.len] = b.to_ascii_lowercase();
        self.len += 1;
    }

    /// Makes sure `n` more bytes fit in the buffer without a flush.
    #[inline(always)]
    pub(crate) fn make_room(&mut self, n: usize) {
        if self.len + n > BUF_LEN {
            self.flush();
        }
    }

    /// Feeds one ASCII byte (kept lower-cased if it is a letter) into room made by `make_room`.
    #[inline(always)]
    pub(crate) fn push_ascii_reserved(&mut self, b: u8) {
        let lower = b | 0x20;
        // `len < BUF_LEN` after `make_room`, so the mask never changes the index.
        self.buf[self.len & (BUF_LEN - 1)] = lower;
        self.len += usize::from(lower.wrapping_sub(b'a') < 26);
    }

    /// Feeds one character: kept (lower-cased) if alphabetic, ignored otherwise.
    #[inline]
    pub(crate) fn push_char(&mut self, c: char) {
        if c.is_ascii() {
            if c.is_ascii_alphabetic() {
                self.push_ascii_letter(c as u8);
            }
        } else if c.is_alphabetic() {
            for lower in c.to_lowercase() {
                if self.len + 4 > BUF_LEN {
                    self.flush();
                }
                let n = lower.encode_utf8(&mut self.buf[self.len..]).len();
                self.len += n;
            }
        }
    }

    /// True when no letter has been fed since the last `finish`.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0 && !self.flushed
    }

    /// The hash of everything fed since the last call (None when no letter was fed), and resets.
    pub(crate) fn finish(&mut self) -> Option<BlockHash> {
        if self.is_empty() {
            return None;
        }
        if self.len > 0 {
            self.md5.update(&self.buf[..self.len]);
        }
        self.len = 0;
        self.flushed = false;
        Some(self.md5.finalize_reset().into())
    }

    /// Drops everything fed since the last `finish`.
    pub(crate) fn reset(&mut self) {
        self.md5.reset();
        self.len = 0;
        self.flushed = false;
    }
}

/// The block identity of `text`: MD5 of its alphabetic characters (`char::is_alphabetic`), each
/// lower-cased by `char::to_lowercase`, in order; `None` when `text` has no alphabetic character.
/// Equal to the `hash` the tokenizer gives a block with this text.
pub fn block_hash(text: &str) -> Option<BlockHash> {
    let mut hasher = BlockHasher::default();
    for c in text.chars() {
        hasher.push_char(c);
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignores_case_punctuation_digits() {
        assert_eq!(block_hash("Hello, World!"), block_hash("hello world"));
        assert_eq!(
            block_hash("Hello, World!"),
            block_hash("HELLO\u{a0}WORLD 42")
        );
        assert_ne!(block_hash("hello world"), block_hash("hello there"));
        assert_eq!(block_hash("2019 | 12:00"), None);
        assert_eq!(block_hash(""), None);
    }

    #[test]
    fn md5_of_normalized_letters() {
        // md5("helloworld")
        let expected = [
            0xfc, 0x5e, 0x03, 0x8d, 0x38, 0xa5, 0x70, 0x32, 0x08, 0x54, 0x41, 0xe7, 0xfe, 0x70,
            0x10, 0xb0,
        ];
        assert_eq!(block_hash("Hello World"), Some(expected));
    }

    #[test]
    fn unicode_letters() {
        assert_eq!(
            block_hash("Éllo ÜBER straße"),
            block_hash("éllo über STRASSE".replace("SS", "ß").as_str())
        );
        assert_eq!(block_hash("ΑΒΓ"), block_hash("αβγ"));
        assert_ne!(block_hash("abc"), block_hash("abç"));
        assert!(block_hash("日本語").is_some());
        assert_eq!(block_hash("١٢٣ ..."), None);
    }

    #[test]
    fn long_input_crosses_buffer() {
        let long: String = "Ab".repeat(5000);
        let lower: String = "ab".repeat(5000);
        assert_eq!(block_hash(&long), block_hash(&lower));
        let mut h = BlockHasher::default();
        for c in long.chars() {
            h.push_char(c);
        }
        assert_eq!(h.finish(), block_hash(&lower));
        assert!(h.is_empty());
        assert_eq!(h.finish(), None);
    }
}
