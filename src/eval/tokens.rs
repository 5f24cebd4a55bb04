//! Word tokens of the quality measure: the lower-cased `\w+` runs of a text, and a per-page
//! [`Interner`] that maps them to dense `u32` ids so sequences can be compared cheaply.

use std::borrow::Cow;
use std::collections::HashMap;

use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

/// `true` for the characters a word is made of: what Python's `re` matches with `\w` on a `str`
/// (Unicode letters and numbers, and `'_'`), plus Unicode combining marks, so that accented words
/// in decomposed form and Indic words with vowel signs or viramas stay one token.
pub fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || c == '_'
    } else {
        c.is_alphanumeric() || c.general_category_group() == GeneralCategoryGroup::Mark
    }
}

/// Lookup table of [`is_word_char`] for the ASCII range.
const ASCII_WORD: [bool; 128] = {
    let mut table = [false; 128];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        table[i] = b.is_ascii_alphanumeric() || b == b'_';
        i += 1;
    }
    table
};

/// Iterator over the maximal runs of word characters ([`is_word_char`]) of a text, in order, as
/// slices of the text, with their case unchanged. Never yields an empty slice.
#[derive(Debug, Clone)]
pub struct WordRuns<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> WordRuns<'a> {
    /// Starts at the beginning of `text`.
    pub fn new(text: &'a str) -> Self {
        WordRuns { text, pos: 0 }
    }

    /// Whether the character at byte `pos` (a char boundary) is a word character, and its length.
    fn char_at(&self, pos: usize) -> (bool, usize) {
        let bytes = self.text.as_bytes();
        match bytes.get(pos) {
            Some(&b) if b < 0x80 => (ASCII_WORD[usize::from(b)], 1),
            Some(_) => match self.text.get(pos..).and_then(|rest| rest.chars().next()) {
                Some(c) => (is_word_char(c), c.len_utf8()),
                None => (false, 1),
            },
            None => (false, 1),
        }
    }
}

impl<'a> Iterator for WordRuns<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let len = self.text.len();
        let start = loop {
            if self.pos >= len {
                return None;
            }
            let (word, step) = self.char_at(self.pos);
            if word {
                break self.pos;
            }
            self.pos += step;
        };
        while self.pos < len {
            let (word, step) = self.char_at(self.pos);
            if !word {
                break;
            }
            self.pos += step;
        }
        self.text.get(start..self.pos)
    }
}

/// The runs of word characters of `text`, case unchanged (see [`WordRuns`]).
pub fn word_runs(text: &str) -> WordRuns<'_> {
    WordRuns::new(text)
}

/// `token` lower-cased (Unicode full lower-casing, as `str::to_lowercase`); borrowed when it
/// already is lower case, so the common case allocates nothing.
pub fn lower(token: &str) -> Cow<'_, str> {
    if token.is_ascii() {
        if token.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(token.to_ascii_lowercase())
        } else {
            Cow::Borrowed(token)
        }
    } else if token.chars().any(changes_when_lowered) {
        Cow::Owned(token.to_lowercase())
    } else {
        Cow::Borrowed(token)
    }
}

/// Whether lower-casing changes `c`.
fn changes_when_lowered(c: char) -> bool {
    let mut lowered = c.to_lowercase();
    !(lowered.next() == Some(c) && lowered.next().is_none())
}

/// The word tokens of `text` in order: the lower-cased `\w+` runs (see [`is_word_char`]).
pub fn word_tokens(text: &str) -> Vec<Cow<'_, str>> {
    word_runs(text).map(lower).collect()
}

/// Maps lower-cased word tokens to dense ids: the `k`-th distinct token gets id `k`, so every id
/// handed out is below [`Interner::len`]. Equal tokens (after lower-casing) get equal ids.
/// Meant to live for one page (extracted text and gold share it), then be dropped.
#[derive(Debug, Default, Clone)]
pub struct Interner {
    ids: HashMap<Box<str>, u32>,
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of distinct tokens interned so far (ids are `0..len`).
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// `true` when nothing has been interned.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The id of `token` after lower-casing it, assigning the next id when it is new.
    pub fn intern(&mut self, token: &str) -> u32 {
        let token = lower(token);
        if let Some(&id) = self.ids.get(token.as_ref()) {
            return id;
        }
        // Ids stay dense: more than u32::MAX distinct tokens cannot fit in memory anyway, and
        // saturating keeps this total.
        let id = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
        self.ids.insert(Box::from(token.as_ref()), id);
        id
    }

    /// The ids of the word tokens of `text` ([`word_tokens`]), in order.
    pub fn tokenize(&mut self, text: &str) -> Vec<u32> {
        word_runs(text).map(|run| self.intern(run)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(text: &str) -> Vec<String> {
        word_tokens(text).into_iter().map(Cow::into_owned).collect()
    }

    #[test]
    fn ascii_runs_are_split_on_punctuation_and_lowered() {
        assert_eq!(
            toks("Hello, World! It's e-mail_2 at 10:30."),
            ["hello", "world", "it", "s", "e", "mail_2", "at", "10", "30"]
        );
        assert!(toks("").is_empty());
        assert!(toks(" \n\t--- !!! ").is_empty());
    }

    #[test]
    fn unicode_letters_numbers_and_marks_are_word_characters() {
        // Precomposed and decomposed accents, Cyrillic, CJK, superscripts and Roman numerals.
        assert_eq!(
            toks("Café NAÏVE e\u{301}t ПРИВЕТ мир 東京 x²½ Ⅻ"),
            [
                "café",
                "naïve",
                "e\u{301}t",
                "привет",
                "мир",
                "東京",
                "x²½",
                "ⅻ"
            ]
        );
        // Devanagari with vowel signs (Mc) and a virama (Mn) stays one word.
        assert_eq!(toks("हिन्दी भाषा"), ["हिन्दी", "भाषा"]);
        // Non-breaking space, em dash, emoji and U+2028 are separators.
        assert_eq!(toks("a\u{a0}b—c😀d\u{2028}e"), ["a", "b", "c", "d", "e"]);
    }

    #[test]
    fn lowering_is_full_unicode_and_borrows_when_unchanged() {
        assert!(matches!(lower("already lower"), Cow::Borrowed(_)));
        assert!(matches!(lower("straße"), Cow::Borrowed(_)));
        assert_eq!(lower("ΟΔΟΣ"), "οδος");
        assert_eq!(lower("ǅemal"), "ǆemal");
        assert_eq!(lower("İstanbul"), "i\u{307}stanbul");
    }

    #[test]
    fn interner_ids_are_dense_and_case_insensitive() {
        let mut interner = Interner::new();
        let a = interner.tokenize("The cat saw THE Cat");
        assert_eq!(a, [0, 1, 2, 0, 1]);
        let b = interner.tokenize("a cat");
        assert_eq!(b, [3, 1]);
        assert_eq!(interner.len(), 4);
        assert!(a.iter().chain(&b).all(|&id| (id as usize) < interner.len()));
    }

    #[test]
    fn hostile_text_does_not_panic() {
        let mut s = String::new();
        for c in [
            '\u{0}',
            '\u{FEFF}',
            '\u{10FFFF}',
            '\u{301}',
            'A',
            '\u{D7FF}',
            '_',
        ] {
            s.push(c);
        }
        let mut interner = Interner::new();
        let ids = interner.tokenize(&s);
        // A leading combining mark joins the word; NUL, BOM and unassigned code points split.
        assert_eq!(toks(&s), ["\u{301}a", "_"]);
        assert_eq!(ids, [0, 1]);
    }
}
