//! Block text: HTML entity decoding and whitespace collapsing into the text of the current block,
//! counting characters and link characters and feeding the block-identity hasher on the way.

use std::borrow::Cow;

use memchr::memchr;

use super::hash::BlockHasher;

/// Decodes the character references (`&amp;`, `&nbsp;`, `&#233;`, `&eacute;`, legacy forms without
/// `;` ...) in the raw text of an HTML text node, with the full HTML5 entity table. Borrows when
/// the text has no `&`.
#[inline]
pub(crate) fn decode_entities(raw: &str) -> Cow<'_, str> {
    if memchr(b'&', raw.as_bytes()).is_none() {
        Cow::Borrowed(raw)
    } else {
        htmlize::unescape(raw)
    }
}

/// Byte classes of ASCII text.
const VISIBLE: u8 = 0;
const SPACE: u8 = 1;
const SKIP: u8 = 2;

static ASCII_CLASS: [u8; 128] = {
    let mut t = [VISIBLE; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        t[b] = if matches!(c, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ') {
            SPACE
        } else if c < 0x20 || c == 0x7f {
            SKIP
        } else {
            VISIBLE
        };
        b += 1;
    }
    t
};

/// Input bytes handled between two checks of the hasher's buffer room.
const STRIDE: usize = 128;

/// True for characters that are dropped from block text: controls other than whitespace, the
/// zero-width space and the byte-order mark.
#[inline]
fn is_invisible(c: char) -> bool {
    c.is_control() || c == '\u{200b}' || c == '\u{feff}'
}

/// The text of the block being built. Whitespace runs (any `char::is_whitespace`, so NBSP too)
/// become one space, leading and trailing whitespace is dropped, invisible characters are removed.
/// A collapsed space is written as soon as its run starts; `finish` trims the last one.
///
/// Text inside `<pre>` ([`push_pre`](BlockText::push_pre)) keeps its white space as written, yet
/// is counted, truncated and hashed exactly as its collapsed form would be: a white space run
/// counts as one character wherever it is kept.
pub(crate) struct BlockText {
    /// Kept text, valid UTF-8, at most `max_chars` characters; may end with one space.
    buf: Vec<u8>,
    /// Characters counted (kept or not), including a trailing collapsed space.
    chars: u32,
    /// Counted characters that came from inside a link (`<a href>`).
    link_chars: u32,
    /// Characters in `buf`.
    kept: usize,
    /// Characters were counted but not kept.
    truncated: bool,
    /// White space here is swallowed (block start, or right after a collapsed space).
    after_space: bool,
    /// The last counted character is a collapsed space (and whether it was link text).
    trailing_space: bool,
    trailing_space_link: bool,
    /// Preformatted text: white space before the block's first visible character since the last
    /// line break (the first line's indentation).
    lead: Vec<u8>,
    /// Preformatted text: the white space run in progress is written (it began within the limit).
    run_kept: bool,
    /// Preformatted text: the last character was a carriage return (a line feed after it is
    /// part of the same line break).
    after_cr: bool,
}

/// A finished block text.
pub(crate) struct FinishedText {
    /// Trimmed, collapsed, never empty.
    pub(crate) text: String,
    /// Characters of the whole block.
    pub(crate) chars: u32,
    /// Characters of the whole block that came from inside a link (`<a href>`).
    pub(crate) link_chars: u32,
    /// True when `text` holds fewer characters than the block.
    pub(crate) truncated: bool,
}

impl Default for BlockText {
    fn default() -> Self {
        let mut text = Self {
            buf: Vec::new(),
            chars: 0,
            link_chars: 0,
            kept: 0,
            truncated: false,
            after_space: true,
            trailing_space: false,
            trailing_space_link: false,
            lead: Vec::new(),
            run_kept: false,
            after_cr: false,
        };
        text.clear();
        text
    }
}

impl BlockText {
    /// True when the block has no visible character yet.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.chars == 0
    }

    /// Bytes of text kept so far (a collapsed space included).
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.buf.len()
    }

    /// Clears the block, keeping the buffer.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.buf.clear();
        self.chars = 0;
        self.link_chars = 0;
        self.kept = 0;
        self.truncated = false;
        self.after_space = true;
        self.trailing_space = false;
        self.trailing_space_link = false;
        self.forget_lead();
    }

    /// Forgets the white space that a preformatted block without visible text left behind.
    #[inline]
    pub(crate) fn forget_lead(&mut self) {
        self.lead.clear();
        self.after_cr = false;
    }

    /// The finished text (None when the block is empty), and clears the block.
    pub(crate) fn finish(&mut self) -> Option<FinishedText> {
        if self.trailing_space {
            self.chars -= 1;
            self.link_chars -= u32::from(self.trailing_space_link);
        }
        // One trailing space, or a preformatted block's trailing white space run.
        let text_end = self
            .buf
            .iter()
            .rposition(|b| !matches!(b, b' ' | b'\t' | b'\n'))
            .map_or(0, |i| i + 1);
        if text_end < self.buf.len() {
            self.buf.truncate(text_end);
            self.kept -= 1;
        }
        let done = if self.chars == 0 {
            None
        } else {
            Some(FinishedText {
                // `buf` only ever receives whole characters, so the plain validation (with its
                // ASCII fast path) succeeds and gives the same text as a lossy conversion.
                text: match std::str::from_utf8(&self.buf) {
                    Ok(text) => text.to_owned(),
                    Err(_) => String::from_utf8_lossy(&self.buf).into_owned(),
                },
                chars: self.chars,
                link_chars: self.link_chars,
                truncated: self.chars as usize > self.kept,
            })
        };
        self.clear();
        done
    }

    /// Counts one character and keeps it if there is room.
    #[inline]
    fn count_char(&mut self, c: char, in_link: bool, max_chars: usize) {
        self.chars = self.chars.saturating_add(1);
        self.link_chars += u32::from(in_link);
        if !self.truncated && self.kept < max_chars {
            let mut utf8 = [0; 4];
            self.buf
                .extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
            self.kept += 1;
        } else {
            self.truncated = true;
        }
    }

    /// Appends decoded text `s` (entities already decoded) to the block; letters go to `hasher`.
    pub(crate) fn push(
        &mut self,
        s: &str,
        in_link: bool,
        hasher: &mut BlockHasher,
        max_chars: usize,
    ) {
        if s.bytes()
            .all(|b| matches!(b, b' ' | b'\n' | b'\t' | b'\r' | b'\x0c'))
        {
            // Indentation between tags: at most one space, no per-byte work.
            if !s.is_empty() && !self.after_space {
                self.count_char(' ', in_link, max_chars);
                self.after_space = true;
                self.trailing_space = true;
                self.trailing_space_link = in_link;
            }
        } else if !self.truncated && self.kept + s.len() <= max_chars {
            self.push_fast(s, in_link, hasher);
        } else {
            self.push_slow(s, in_link, hasher, max_chars);
        }
    }

    /// Appends decoded text from inside `<pre>`: white space is kept as written (a CR LF pair or
    /// a lone CR becomes LF; white space other than tab and LF becomes a space), except blank
    /// lines before the block's first visible character (the line break HTML drops after
    /// `<pre>`, and those after a tag that split a preformatted text); `finish` trims trailing
    /// white space. Counts, link counts, truncation and letters are those of [`push`]: each white
    /// space run counts as one character (none before the first visible one).
    ///
    /// [`push`]: BlockText::push
    pub(crate) fn push_pre(
        &mut self,
        s: &str,
        in_link: bool,
        hasher: &mut BlockHasher,
        max_chars: usize,
    ) {
        for c in s.chars() {
            let after_cr = std::mem::replace(&mut self.after_cr, c == '\r');
            let space = match c {
                '\n' if after_cr => continue,
                '\r' | '\n' => b'\n',
                '\t' => b'\t',
                c if c.is_whitespace() => b' ',
                c => {
                    if !is_invisible(c) {
                        self.push_pre_visible(c, in_link, hasher, max_chars);
                    }
                    continue;
                }
            };
            if self.chars == 0 {
                if space == b'\n' {
                    self.lead.clear();
                } else {
                    self.lead.push(space);
                }
                continue;
            }
            if !self.after_space {
                // The run counts as the one space its collapsed form has.
                self.chars = self.chars.saturating_add(1);
                self.link_chars += u32::from(in_link);
                self.run_kept = !self.truncated && self.kept < max_chars;
                if self.run_kept {
                    self.kept += 1;
                } else {
                    self.truncated = true;
                }
                self.after_space = true;
                self.trailing_space = true;
                self.trailing_space_link = in_link;
            }
            if self.run_kept {
                self.buf.push(space);
            }
        }
    }

    /// One visible character of preformatted text, after the first line's indentation.
    fn push_pre_visible(
        &mut self,
        c: char,
        in_link: bool,
        hasher: &mut BlockHasher,
        max_chars: usize,
    ) {
        if self.chars == 0 && !self.truncated && self.kept < max_chars {
            self.buf.append(&mut self.lead);
        }
        self.lead.clear();
        hasher.push_char(c);
        self.count_char(c, in_link, max_chars);
        self.after_space = false;
        self.trailing_space = false;
    }

    /// Character-at-a-time path, used when the text may reach `max_chars`.
    fn push_slow(&mut self, s: &str, in_link: bool, hasher: &mut BlockHasher, max_chars: usize) {
        for c in s.chars() {
            if c.is_whitespace() {
                if !self.after_space {
                    self.count_char(' ', in_link, max_chars);
                    self.after_space = true;
                    self.trailing_space = true;
                    self.trailing_space_link = in_link;
                }
            } else if !is_invisible(c) {
                hasher.push_char(c);
                self.count_char(c, in_link, max_chars);
                self.after_space = false;
                self.trailing_space = false;
            }
        }
    }

    /// Branch-light path for text that fits: every input byte yields at most one output byte,
    /// so the output is written in place into room reserved up front.
    fn push_fast(&mut self, s: &str, in_link: bool, hasher: &mut BlockHasher) {
        let bytes = s.as_bytes();
        let len = bytes.len();
        let start = self.buf.len();
        self.buf.resize(start + len, 0);
        let out = &mut self.buf[start..];
        let mut pos = 0;
        let mut added: u32 = 0;
        let mut prev_space = u8::from(self.after_space);
        let mut i = 0;
        while i < len {
            hasher.make_room(STRIDE + 16);
            let stride_end = len.min(i + STRIDE);
            while i < stride_end {
                let b = bytes[i];
                if b < 0x80 {
                    // A visible character is written as it is; a space only opens a collapsed
                    // space after visible text; a control is dropped and changes nothing.
                    match ASCII_CLASS[b as usize] {
                        VISIBLE => {
                            if let Some(slot) = out.get_mut(pos) {
                                *slot = b;
                            }
                            pos += 1;
                            added += 1;
                            prev_space = 0;
                        }
                        SPACE if prev_space == 0 => {
                            if let Some(slot) = out.get_mut(pos) {
                                *slot = b' ';
                            }
                            pos += 1;
                            added += 1;
                            prev_space = 1;
                        }
                        _ => {}
                    }
                    hasher.push_ascii_reserved(b);
                    i += 1;
                    continue;
                }
                let Some(c) = s.get(i..).and_then(|rest| rest.chars().next()) else {
                    i = len;
                    break;
                };
                let n = c.len_utf8();
                i += n;
                if c.is_whitespace() {
                    if prev_space == 0 {
                        if let Some(slot) = out.get_mut(pos) {
                            *slot = b' ';
                        }
                        pos += 1;
                        added += 1;
                        prev_space = 1;
                    }
                } else if !is_invisible(c) {
                    // The character came from `n` input bytes at or after `pos`: it fits.
                    if let Some(dst) = out.get_mut(pos..pos + n) {
                        c.encode_utf8(dst);
                    }
                    pos += n;
                    added += 1;
                    prev_space = 0;
                    hasher.push_char(c);
                    hasher.make_room(STRIDE + 16);
                }
            }
        }
        self.buf.truncate(start + pos);
        if added > 0 {
            self.chars = self.chars.saturating_add(added);
            if in_link {
                self.link_chars = self.link_chars.saturating_add(added);
            }
            self.kept += added as usize;
            self.trailing_space = prev_space == 1;
            if self.trailing_space {
                self.trailing_space_link = in_link;
            }
        }
        self.after_space = prev_space == 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collapse(parts: &[(&str, bool)], max: usize) -> Option<FinishedText> {
        let mut t = BlockText::default();
        t.clear();
        let mut h = BlockHasher::default();
        for (s, link) in parts {
            t.push(&decode_entities(s), *link, &mut h, max);
        }
        t.finish()
    }

    fn text(parts: &[(&str, bool)]) -> String {
        collapse(parts, 1000).map(|t| t.text).unwrap_or_default()
    }

    #[test]
    fn decodes_entities() {
        assert_eq!(decode_entities("a &amp; b"), "a & b");
        assert_eq!(decode_entities("&eacute;t&#233; &#xE9;"), "été é");
        assert_eq!(decode_entities("x&nbsp;y"), "x\u{a0}y");
        assert_eq!(decode_entities("&copy 2020 &lt;b&gt;"), "© 2020 <b>");
        assert_eq!(decode_entities("&bogus; & &#0;"), "&bogus; & \u{fffd}");
        assert!(matches!(decode_entities("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn collapses_whitespace() {
        let t = collapse(&[("  \n a \t\r b\u{a0}\u{a0}c\u{3000} ", false)], 100).expect("text");
        assert_eq!((t.text.as_str(), t.chars), ("a b c", 5));
        assert_eq!(text(&[("x", false), ("  ", false), (" y ", false)]), "x y");
        assert_eq!(text(&[("x\u{0} \u{1} y", false)]), "x y");
        assert_eq!(text(&[("é \u{a0} ü", false)]), "é ü");
        assert!(collapse(&[(" \u{0}\u{1}\u{feff}\u{200b} ", false)], 100).is_none());
        assert!(collapse(&[], 100).is_none());
    }

    #[test]
    fn fast_and_slow_paths_agree() {
        let samples = [
            " a  b\u{a0}c\u{85}d \u{0}e é  ß\u{2003}日本 ",
            "\u{feff}x\u{200b}y  ",
            "  \t ",
            "abc",
        ];
        for s in samples {
            for max in [3, 1000] {
                let t = collapse(&[(s, false), (s, true)], max);
                let chars: Vec<char> = s.chars().chain(s.chars()).collect();
                let mut slow = BlockText::default();
                slow.clear();
                let mut h = BlockHasher::default();
                for (k, c) in chars.iter().enumerate() {
                    slow.push_slow(&c.to_string(), k >= s.chars().count(), &mut h, max);
                }
                let slow = slow.finish();
                assert_eq!(
                    t.as_ref()
                        .map(|t| (&t.text, t.chars, t.link_chars, t.truncated)),
                    slow.as_ref()
                        .map(|t| (&t.text, t.chars, t.link_chars, t.truncated)),
                    "{s:?} max {max}"
                );
            }
        }
    }

    #[test]
    fn counts_link_chars() {
        let t = collapse(&[("Read ", false), ("more", true), (" now", false)], 100).expect("t");
        assert_eq!(t.text, "Read more now");
        assert_eq!((t.chars, t.link_chars), (13, 4));
        let t = collapse(&[("more ", true), ("now", false)], 100).expect("t");
        assert_eq!((t.chars, t.link_chars), (8, 5));
        let t = collapse(&[("x ", false), ("link ", true)], 100).expect("t");
        assert_eq!((t.text.as_str(), t.chars, t.link_chars), ("x link", 6, 4));
    }

    #[test]
    fn truncates_at_char_boundary() {
        let t = collapse(&[("ab cd éé", false)], 4).expect("t");
        assert_eq!((t.text.as_str(), t.truncated, t.chars), ("ab c", true, 8));
        let t = collapse(&[("abc déf", false)], 4).expect("t");
        assert_eq!((t.text.as_str(), t.truncated), ("abc", true));
        let t = collapse(&[("ab ", false), ("  ", false)], 2).expect("t");
        assert_eq!((t.text.as_str(), t.truncated, t.chars), ("ab", false, 2));
        let t = collapse(&[("éééé", false)], 4).expect("t");
        assert_eq!((t.text.as_str(), t.truncated), ("éééé", false));
    }
}
