//! `accb`: Adapted Content Code Blurring, anchor tags ignored.
//!
//! Reference: T. Gottron, "Content Code Blurring: A New Approach to Content Extraction",
//! DEXA 2008 Workshops (TIR), pp. 29–33 (ACCB, his best general method: word-LCS F1 0.92 on
//! heise, 0.92 on BBC).
//!
//! As [`super::ccb`], with `<a>` and `</a>` left out of the content code vector: a link in
//! running text no longer breaks it into short stretches, while a menu of links stays code by
//! its list markup. Parameters as published: range 40 characters, threshold 0.75.

use super::ccb::Blurring;
use super::sequence::{Anchors, Unit};
use super::{Method, PageMethod};
use crate::tree::classify::{BlockFacts, Page, Reason};

/// `accb`: Content Code Blurring on characters, anchor tags ignored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Accb(pub Blurring);

impl Default for Accb {
    fn default() -> Self {
        Accb(Blurring {
            unit: Unit::Chars,
            anchors: Anchors::Ignored,
            range: 40.0,
            threshold: 0.75,
        })
    }
}

impl PageMethod for Accb {
    const METHOD: Method = Method::Accb;

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
    fn a_link_in_running_text_does_not_break_it_but_a_menu_stays_code() {
        // The second paragraph's link carries 200 characters of attributes: CCB counts them as
        // code and drops the paragraph, ACCB leaves the anchor tags out and keeps it.
        let html = news_with_tracked_link();
        let ccb = judge(&Ccb::default(), &html);
        let accb = judge(&Accb::default(), &html);
        let reason = |judged: &[(String, Reason)], text: &str| {
            judged.iter().find(|(t, _)| t == text).map(|(_, r)| *r)
        };
        assert_eq!(reason(&ccb, NEWS_TEXT[1]), Some(Reason::CodeDense));
        assert_eq!(reason(&accb, NEWS_TEXT[1]), Some(Reason::Text));
        // ACCB keeps all that CCB keeps here, and the menus' list markup is code to both.
        for (text, ccb_reason) in &ccb {
            if *ccb_reason == Reason::Text {
                assert_eq!(reason(&accb, text), Some(Reason::Text), "{text}");
            }
        }
        for menu in ["Home", "Contact", "Storm damage in pictures", "Privacy"] {
            let menu = accb.iter().find(|(t, _)| t.contains(menu)).map(|(_, r)| *r);
            assert_eq!(menu, Some(Reason::CodeDense));
        }
    }
}
