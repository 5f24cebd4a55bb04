//! `boilerpipe`: Boilerpipe's default classifier.
//!
//! Reference: C. Kohlschütter, P. Fankhauser, W. Nejdl, "Boilerplate Detection using Shallow
//! Text Features", WSDM 2010; the rules as boilerpipe 1.2 ships them (`DefaultExtractor`:
//! `SimpleBlockFusionProcessor`, `BlockProximityFusion.MAX_DISTANCE_1`,
//! `DensityRulesClassifier`).
//!
//! Each block has shallow text features: its words, its link density (the share of its words
//! inside links) and its text density (words per line when its text is wrapped at 80
//! characters, the last, partial line left out). First, adjacent blocks of equal text density
//! fuse into one (the proximity fusion that follows in `DefaultExtractor` fuses only blocks
//! already labelled content, and none is yet: it does nothing). Then a decision tree learnt by
//! C4.8 labels each fused block from its own features and its neighbours' (a missing neighbour
//! has every feature 0):
//!
//! ```text
//! link density ≤ 0.333333
//! ├─ previous link density ≤ 0.555556
//! │  ├─ text density ≤ 9
//! │  │  ├─ next text density ≤ 10
//! │  │  │  └─ content iff previous text density > 4
//! │  │  └─ (next > 10) content
//! │  └─ (text density > 9) content iff next text density ≠ 0
//! └─ (previous link density > 0.555556) content iff next text density > 11
//! (link density > 0.333333) boilerplate
//! ```
//!
//! Reading the page through the tokenizer: Boilerpipe's blocks are, like ours, the text between
//! two non-inline tags. Words are its tokens with a letter or a digit (its tokenizer keeps
//! `.,!@-:;$?()/"'` inside tokens and splits at every other symbol); the link density is the
//! share of the block's characters inside links (the tokenizer counts link characters, not
//! link words).

use super::{verdict, Method, PageMethod};
use crate::blocks::Block;
use crate::tree::classify::{BlockFacts, Page, Reason};

/// Boilerpipe's line width for the text density, in characters.
pub const LINE_WIDTH: usize = 80;

/// `boilerpipe`: the `DefaultExtractor`'s classifier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Boilerpipe;

/// The shallow text features of a block, or of blocks fused into one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Features {
    /// Words.
    pub words: u32,
    /// Words in the wrapped lines but the last (all the words when there is one line).
    pub wrapped_words: u32,
    /// Wrapped lines but the last (1 when there is one line).
    pub wrapped_lines: u32,
    /// Characters.
    pub chars: u32,
    /// Characters inside links.
    pub link_chars: u32,
}

impl Features {
    /// The features of one block.
    pub fn of(block: &Block) -> Features {
        let (words, wrapped_words, wrapped_lines) = wrap(&block.text);
        Features {
            words,
            wrapped_words,
            wrapped_lines,
            chars: block.chars,
            link_chars: block.link_chars,
        }
    }

    /// Words per wrapped line.
    pub fn text_density(&self) -> f64 {
        if self.wrapped_lines == 0 {
            0.0
        } else {
            f64::from(self.wrapped_words) / f64::from(self.wrapped_lines)
        }
    }

    /// The share of the block inside links.
    pub fn link_density(&self) -> f64 {
        if self.chars == 0 {
            0.0
        } else {
            f64::from(self.link_chars) / f64::from(self.chars)
        }
    }

    /// True when the text densities of `self` and `other` are equal (as fractions).
    fn same_density(&self, other: &Features) -> bool {
        u64::from(self.wrapped_words) * u64::from(other.wrapped_lines)
            == u64::from(other.wrapped_words) * u64::from(self.wrapped_lines)
    }

    /// `self` with `next` fused in.
    fn fuse(&mut self, next: &Features) {
        self.words += next.words;
        self.wrapped_words += next.wrapped_words;
        self.wrapped_lines += next.wrapped_lines;
        self.chars += next.chars;
        self.link_chars += next.link_chars;
    }
}

/// A word of Boilerpipe's tokenizer: it holds a letter or a digit.
fn is_word(token: &str) -> bool {
    token.chars().any(char::is_alphanumeric)
}

/// True for the characters Boilerpipe's tokenizer keeps inside a token.
fn joins(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || "\"'.,!@-:;$?()/".contains(c)
}

/// Words, words in the wrapped lines but the last, and those lines, of `text` wrapped at
/// [`LINE_WIDTH`]: Boilerpipe's `numWords`, `numWordsInWrappedLines`, `numWrappedLines`.
fn wrap(text: &str) -> (u32, u32, u32) {
    let (mut words, mut lines, mut line_words) = (0u32, 0u32, 0u32);
    // The first word adds no space before it.
    let mut line_len: isize = -1;
    for token in text.split(|c: char| !joins(c)).filter(|t| !t.is_empty()) {
        if !is_word(token) {
            continue;
        }
        words += 1;
        line_words += 1;
        let len = token.chars().count() as isize;
        line_len += len + 1;
        if line_len > LINE_WIDTH as isize {
            lines += 1;
            line_len = len;
            line_words = 1;
        }
    }
    if lines == 0 {
        (words, words, 1)
    } else {
        (words, words - line_words, lines)
    }
}

/// The decision rules of `DensityRulesClassifier`: is `current` content, between `previous`
/// and `next` (the default features for a missing neighbour)?
pub fn density_rules(previous: &Features, current: &Features, next: &Features) -> bool {
    if current.link_density() <= 0.333333 {
        if previous.link_density() <= 0.555556 {
            if current.text_density() <= 9.0 {
                if next.text_density() <= 10.0 {
                    previous.text_density() > 4.0
                } else {
                    true
                }
            } else {
                next.text_density() != 0.0
            }
        } else {
            next.text_density() > 11.0
        }
    } else {
        false
    }
}

/// Labels each block content or not by Boilerpipe's default classifier, into `out`: the
/// blocks fused by equal text density, the decision rules applied to each fused block.
pub fn labels(blocks: &[Block], out: &mut Vec<bool>) {
    // The fused blocks: their features and the number of blocks each holds.
    let mut fused: Vec<(Features, usize)> = Vec::with_capacity(blocks.len());
    for block in blocks {
        let features = Features::of(block);
        match fused.last_mut() {
            Some((last, n)) if last.same_density(&features) => {
                last.fuse(&features);
                *n += 1;
            }
            _ => fused.push((features, 1)),
        }
    }
    out.clear();
    let none = Features::default();
    for (i, (current, n)) in fused.iter().enumerate() {
        let previous = i.checked_sub(1).map_or(&none, |p| &fused[p].0);
        let next = fused.get(i + 1).map_or(&none, |(f, _)| f);
        let content = density_rules(previous, current, next);
        out.extend(std::iter::repeat_n(content, *n));
    }
}

/// The reasons of Boilerpipe's labels: link density above its first split is
/// [`Reason::LinkDense`], the other boilerplate [`Reason::ShortText`].
pub fn reasons(page: &Page<'_>, facts: &[BlockFacts<'_>], content: &[bool], out: &mut Vec<Reason>) {
    out.clear();
    out.extend(
        page.blocks
            .iter()
            .zip(facts)
            .zip(content)
            .map(|((block, f), &content)| {
                let links = Features {
                    chars: block.chars,
                    link_chars: block.link_chars,
                    ..Features::default()
                };
                let otherwise = if links.link_density() > 0.333333 {
                    Reason::LinkDense
                } else {
                    Reason::ShortText
                };
                verdict(f, content, otherwise)
            }),
    );
}

impl PageMethod for Boilerpipe {
    const METHOD: Method = Method::Boilerpipe;

    fn judge(&self, page: &Page<'_>, facts: &[BlockFacts<'_>], out: &mut Vec<Reason>) {
        let mut content = Vec::new();
        labels(page.blocks, &mut content);
        reasons(page, facts, &content, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::classic::fixtures::{judge, kept, NEWS, NEWS_TEXT};

    #[test]
    fn text_density_is_words_per_full_line_at_80_characters() {
        // One line: all the words.
        assert_eq!(wrap("Harbour reopens after storm repairs"), (5, 5, 1));
        // Twenty 9-character words: 8 fit in a line of 80 (8·9 + 7 spaces = 79), so lines of
        // 8, 8 and a last partial line of 4, which is left out.
        let text = vec!["abcdefghi"; 20].join(" ");
        assert_eq!(wrap(&text), (20, 16, 2));
        // Punctuation inside a token stays, a symbol splits, a token without a letter or a
        // digit is no word.
        assert_eq!(wrap("e-mail: a+b — 42 ... «x»").0, 5);
    }

    #[test]
    fn the_decision_rules_keep_the_story_and_drop_menus_and_link_lists() {
        let kept = kept(&Boilerpipe, NEWS);
        for paragraph in NEWS_TEXT {
            assert!(kept.contains(&paragraph.to_owned()), "{kept:?}");
        }
        // The heading "Related" follows the story's last paragraph (previous text density > 4)
        // and is kept, as the rules keep a short line after dense text.
        for menu in ["Home", "Contact", "Storm damage in pictures", "Privacy"] {
            assert!(!kept.iter().any(|t| t == menu), "{menu} kept: {kept:?}");
        }
    }

    #[test]
    fn a_short_line_is_kept_only_after_a_dense_block() {
        // "Photo: the harbour at dawn" (5 words, text density 5) after a long paragraph
        // (previous density > 4): content; the same line after a short heading: not.
        let paragraph = NEWS_TEXT[0];
        let after_text = format!(
            "<html><body><p>{paragraph}</p><p>Photo: the harbour at dawn</p></body></html>"
        );
        let after_heading =
            "<html><body><h2>Pictures</h2><p>Photo: the harbour at dawn</p></body></html>";
        assert_eq!(judge(&Boilerpipe, &after_text)[1].1, Reason::Text);
        assert_eq!(judge(&Boilerpipe, after_heading)[1].1, Reason::ShortText);
    }

    #[test]
    fn equal_densities_fuse_and_a_fused_block_sees_past_its_parts() {
        // Two three-word lines of equal density fuse into one block whose previous block is
        // the paragraph before them: the second line is kept as part of it. Judged one by one,
        // the second line's previous block would be the first line (density 3 ≤ 4), and it
        // would be dropped.
        let paragraph = NEWS_TEXT[0];
        let html = format!(
            "<html><body><p>{paragraph}</p><p>one two three</p><p>four five six</p><p>seven eight</p></body></html>"
        );
        let (blocks, _) = crate::tree::classic::fixtures::page(&html);
        let mut content = Vec::new();
        labels(&blocks, &mut content);
        assert_eq!(content, [true, true, true, false]);
    }
}
