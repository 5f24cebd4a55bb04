//! `tccb`: Content Code Blurring on tokens.
//!
//! Reference: T. Gottron, "Content Code Blurring: A New Approach to Content Extraction",
//! DEXA 2008 Workshops (TIR), pp. 29–33 (TCCB).
//!
//! As [`super::ccb`] with the page as a sequence of tokens rather than characters: a word is a
//! unit of content, a tag a unit of code, whatever their lengths (a long attribute weighs no
//! more than `<br>`). Parameters as published: range 25 tokens, threshold 0.75.

use super::ccb::Blurring;
use super::sequence::{Anchors, Unit};
use super::{Method, PageMethod};
use crate::tree::classify::{BlockFacts, Page, Reason};

/// `tccb`: Content Code Blurring on tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tccb(pub Blurring);

impl Default for Tccb {
    fn default() -> Self {
        Tccb(Blurring {
            unit: Unit::Tokens,
            anchors: Anchors::Code,
            range: 25.0,
            threshold: 0.75,
        })
    }
}

impl PageMethod for Tccb {
    const METHOD: Method = Method::Tccb;

    fn judge(&self, page: &Page<'_>, facts: &[BlockFacts<'_>], out: &mut Vec<Reason>) {
        self.0.classify(page, facts, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::classic::ccb::Ccb;
    use crate::tree::classic::fixtures::{judge, news_with_tracked_link, NEWS_TEXT};

    #[test]
    fn tokens_weigh_a_tag_as_one_whatever_its_length() {
        // The second paragraph's link carries 200 characters of attributes: many code
        // characters, still two code tokens. CCB drops the paragraph, TCCB keeps it.
        let html = news_with_tracked_link();
        let reason = |judged: Vec<(String, Reason)>| {
            judged
                .into_iter()
                .find(|(t, _)| t == NEWS_TEXT[1])
                .map(|(_, r)| r)
        };
        assert_eq!(
            reason(judge(&Ccb::default(), &html)),
            Some(Reason::CodeDense)
        );
        assert_eq!(reason(judge(&Tccb::default(), &html)), Some(Reason::Text));
    }
}
