//! `ccb`: Content Code Blurring on characters.
//!
//! Reference: T. Gottron, "Content Code Blurring: A New Approach to Content Extraction",
//! DEXA 2008 Workshops (TIR), pp. 29–33; and his dissertation, "Content Extraction: Identifying
//! the Main Content in HTML Documents", Mainz 2009.
//!
//! The main text of a page is a long, homogeneously formatted stretch: much text, little
//! markup. Every character of the page is content (text) or code (markup); the content code
//! vector is blurred with a Gaussian until stable, giving each character its content code
//! ratio, and the characters whose ratio exceeds a threshold are the main content.
//!
//! Parameters as published: range 40 characters (the blur's standard deviation, see
//! [`super::blur`]), threshold 0.75. A block is content when the mean ratio over its characters
//! exceeds the threshold (the method labels characters; a block is labelled once).
//!
//! Reading the page through the tokenizer: code is every byte between blocks (tags, comments,
//! scripts, the white space between tags) and the bytes of a block's inline tags, spread evenly
//! over the block's text ([`super::sequence`]); content is the block's characters, white space
//! collapsed.

use super::blur::block_ratios;
use super::sequence::{runs, Anchors, Unit};
use super::{verdict, Method, PageMethod};
use crate::tree::classify::{BlockFacts, Page, Reason};

/// Content Code Blurring's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Blurring {
    /// What a unit of the content code vector is.
    pub unit: Unit,
    /// Whether anchor tags count as code.
    pub anchors: Anchors,
    /// The blur's standard deviation in units (the published "range").
    pub range: f64,
    /// A block whose mean content code ratio exceeds this is content.
    pub threshold: f64,
}

impl Blurring {
    /// Labels the blocks of `page` (facts in the same order) into `out`.
    pub fn classify(&self, page: &Page<'_>, facts: &[BlockFacts<'_>], out: &mut Vec<Reason>) {
        let mut sequence = Vec::new();
        runs(page, self.unit, self.anchors, &mut sequence);
        let mut ratios = Vec::new();
        block_ratios(&sequence, self.range, &mut ratios);
        out.clear();
        out.extend(
            facts
                .iter()
                .zip(&ratios)
                .map(|(f, &ratio)| verdict(f, ratio > self.threshold, Reason::CodeDense)),
        );
    }
}

/// `ccb`: Content Code Blurring on characters, anchor tags code like every tag.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ccb(pub Blurring);

impl Default for Ccb {
    fn default() -> Self {
        Ccb(Blurring {
            unit: Unit::Chars,
            anchors: Anchors::Code,
            range: 40.0,
            threshold: 0.75,
        })
    }
}

impl PageMethod for Ccb {
    const METHOD: Method = Method::Ccb;

    fn judge(&self, page: &Page<'_>, facts: &[BlockFacts<'_>], out: &mut Vec<Reason>) {
        self.0.classify(page, facts, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::classic::fixtures::{judge, kept, news_with_tracked_link, NEWS, NEWS_TEXT};

    #[test]
    fn keeps_the_long_paragraphs_and_drops_the_menus() {
        let kept = kept(&Ccb::default(), NEWS);
        assert!(kept.contains(&NEWS_TEXT[0].to_owned()), "{kept:?}");
        assert!(kept.contains(&NEWS_TEXT[2].to_owned()), "{kept:?}");
        for menu in ["Home", "Sport", "Storm damage in pictures", "Privacy"] {
            assert!(!kept.iter().any(|t| t == menu), "{menu} kept: {kept:?}");
        }
    }

    #[test]
    fn the_bytes_of_a_link_inside_a_paragraph_are_code() {
        // The second paragraph keeps its ratio above the threshold with a plain link, and falls
        // below it when the link's tag carries 200 more characters.
        let plain = judge(&Ccb::default(), NEWS);
        let tracked = judge(&Ccb::default(), &news_with_tracked_link());
        let second = |judged: &[(String, Reason)]| {
            judged
                .iter()
                .find(|(t, _)| t == NEWS_TEXT[1])
                .map(|(_, r)| *r)
        };
        assert_eq!(second(&plain), Some(Reason::Text));
        assert_eq!(second(&tracked), Some(Reason::CodeDense));
    }
}
