//! The page as a sequence of code and content, as Content Code Blurring, the Document Slope
//! Curve and Body Text Extraction read it: the markup between blocks is code, each block is its
//! text (content) with its inline markup (code).
//!
//! The methods read a page one unit at a time (a character, or a token: a tag or a word); the
//! tokenizer gives each block's [`Extent`](crate::blocks::Extent) (its bytes and the tags
//! before and inside it) rather than the position of every inline tag, so a block is one
//! [`Run`] whose inline code is spread evenly over its text. Between blocks every unit is code:
//! a tag, a comment, the text of a script, the white space between tags.

use crate::blocks::Block;
use crate::tree::classify::Page;

/// What a unit of the sequence is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A character: a block's text is content character by character, the page's bytes between
    /// blocks and the bytes of a block's inline tags are code.
    Chars,
    /// A token: a word (a run of non-white-space characters) of a block's text is content, a tag
    /// is code.
    Tokens,
}

/// Whether anchor tags are code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchors {
    /// `<a>` and `</a>` are code like every tag.
    Code,
    /// `<a>` and `</a>` are left out of the sequence (ACCB: a link in running text does not
    /// break it).
    Ignored,
}

/// A stretch of the sequence: `len` units, `content` of them content.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    /// Units in the stretch (> 0 for a block).
    pub len: f64,
    /// Content units among them (`0 <= content <= len`).
    pub content: f64,
    /// The block this stretch is, `None` for the code between blocks.
    pub block: Option<usize>,
}

impl Run {
    /// The share of content in the stretch (0 for an empty one).
    pub fn density(&self) -> f64 {
        if self.len > 0.0 {
            self.content / self.len
        } else {
            0.0
        }
    }
}

/// Words of a block's text for the token sequence: its runs of non-white-space characters.
pub fn words(text: &str) -> u32 {
    u32::try_from(text.split_whitespace().count()).unwrap_or(u32::MAX)
}

/// The page's runs: the code before each block, the block, and the code after the last one, in
/// document order; every block is one run (`block: Some(i)` for block `i`, in order), and a code
/// run may be empty.
pub fn runs(page: &Page<'_>, unit: Unit, anchors: Anchors, out: &mut Vec<Run>) {
    out.clear();
    out.reserve(2 * page.blocks.len() + 1);
    let ignore = anchors == Anchors::Ignored;
    // Where the previous block ended, in bytes and in the page's tag counters.
    let (mut end, mut tags, mut anchor_tags, mut anchor_bytes) = (0u32, 0u32, 0u32, 0u32);
    for (i, block) in page.blocks.iter().enumerate() {
        let extent = &block.extent;
        let gap = match unit {
            Unit::Chars => {
                let bytes = extent.start.saturating_sub(end);
                let anchors = extent.anchor_bytes_before.saturating_sub(anchor_bytes);
                bytes.saturating_sub(if ignore { anchors } else { 0 })
            }
            Unit::Tokens => {
                let between = extent.tags_before.saturating_sub(tags);
                let anchors = extent.anchor_tags_before.saturating_sub(anchor_tags);
                between.saturating_sub(if ignore { anchors } else { 0 })
            }
        };
        out.push(Run {
            len: f64::from(gap),
            content: 0.0,
            block: None,
        });
        let (content, code) = block_units(block, unit, ignore);
        out.push(Run {
            len: content + code,
            content,
            block: Some(i),
        });
        end = extent.end;
        tags = extent.tags_before.saturating_add(extent.tags);
        anchor_tags = extent.anchor_tags_before.saturating_add(extent.anchor_tags);
        anchor_bytes = extent
            .anchor_bytes_before
            .saturating_add(extent.anchor_bytes);
    }
    let stats = &page.stats;
    let tail = match unit {
        Unit::Chars => {
            let bytes = u32::try_from(page.html_bytes)
                .unwrap_or(u32::MAX)
                .saturating_sub(end);
            let anchors = stats.anchor_bytes.saturating_sub(anchor_bytes);
            bytes.saturating_sub(if ignore { anchors } else { 0 })
        }
        Unit::Tokens => {
            let after = stats.tags.saturating_sub(tags);
            let anchors = stats.anchor_tags.saturating_sub(anchor_tags);
            after.saturating_sub(if ignore { anchors } else { 0 })
        }
    };
    out.push(Run {
        len: f64::from(tail),
        content: 0.0,
        block: None,
    });
}

/// A block's content and inline code units.
fn block_units(block: &Block, unit: Unit, ignore_anchors: bool) -> (f64, f64) {
    let extent = &block.extent;
    match unit {
        Unit::Chars => {
            let markup =
                (extent.end.saturating_sub(extent.start)).saturating_sub(extent.text_bytes);
            let anchors = if ignore_anchors {
                extent.anchor_bytes
            } else {
                0
            };
            (
                f64::from(block.chars.max(1)),
                f64::from(markup.saturating_sub(anchors)),
            )
        }
        Unit::Tokens => {
            let anchors = if ignore_anchors {
                extent.anchor_tags
            } else {
                0
            };
            (
                f64::from(words(&block.text).max(1)),
                f64::from(extent.tags.saturating_sub(anchors)),
            )
        }
    }
}

/// Where each run starts in the sequence (its first unit), and where the sequence ends.
pub fn starts(runs: &[Run], out: &mut Vec<f64>) -> f64 {
    out.clear();
    let mut at = 0.0;
    for run in runs {
        out.push(at);
        at += run.len;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::classic::fixtures::page;

    #[test]
    fn the_markup_between_blocks_is_code_and_anchors_can_be_left_out() {
        let html = r#"<html><body><ul><li><a href="/a">Home</a></li></ul><p>Some text with <a href="/x">a link</a> in it.</p></body></html>"#;
        let (blocks, stats) = page(html);
        let page = Page::new(&blocks, html.len(), stats);
        let mut out = Vec::new();
        runs(&page, Unit::Chars, Anchors::Code, &mut out);
        let lens: Vec<f64> = out.iter().map(|r| r.len).collect();
        // Before "Home": `<html><body><ul><li><a href="/a">` (33 bytes).
        assert_eq!(lens[0], 33.0);
        assert_eq!(out[1].content, 4.0);
        // Between: `</a></li></ul><p>` (17 bytes).
        assert_eq!(lens[2], 17.0);
        // The paragraph: 28 characters, its link's tags (`<a href="/x">`, `</a>`) inline code.
        assert_eq!((out[3].content, out[3].len), (28.0, 28.0 + 17.0));
        // After: `</p></body></html>`.
        assert_eq!(lens[4], 18.0);
        // Every byte of the page is a unit, text as its characters.
        assert_eq!(lens.iter().sum::<f64>() as usize, html.len());

        runs(&page, Unit::Chars, Anchors::Ignored, &mut out);
        assert_eq!(out[0].len, 33.0 - 13.0);
        assert_eq!(out[2].len, 17.0 - 4.0);
        assert_eq!(out[3].len, 28.0);

        runs(&page, Unit::Tokens, Anchors::Code, &mut out);
        let tokens: Vec<(f64, f64)> = out.iter().map(|r| (r.len, r.content)).collect();
        assert_eq!(
            tokens,
            [(5.0, 0.0), (1.0, 1.0), (4.0, 0.0), (9.0, 7.0), (3.0, 0.0)]
        );
        runs(&page, Unit::Tokens, Anchors::Ignored, &mut out);
        let tokens: Vec<f64> = out.iter().map(|r| r.len).collect();
        assert_eq!(tokens, [4.0, 1.0, 3.0, 7.0, 3.0]);
    }
}
