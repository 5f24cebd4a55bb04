//! `boilerpipe-tree`: Boilerpipe with the tree filter of Viveros-Jiménez et al.
//!
//! Reference: F. Viveros-Jiménez, M. A. Sanchez-Perez, H. Gómez-Adorno, J. P. Posadas-Durán,
//! G. Sidorov, A. Gelbukh, "Improving the Boilerpipe Algorithm for Boilerplate Removal in News
//! Articles Using HTML Tree Structure", Computación y Sistemas 22(2), 2018 (character F 0.83 →
//! 0.89 on English news).
//!
//! Boilerpipe ([`super::boilerpipe`]) judges each block by its neighbours in the text and keeps
//! stray blocks far from the article (a teaser, a comment, a related story). The filter groups
//! the blocks Boilerpipe keeps by the second ancestor of their paragraph element (the element
//! that holds the block's text: its grandparent), and keeps the group with the most text: the
//! article's paragraphs share their container, the strays do not. No parameters.

use super::boilerpipe::{labels, reasons};
use super::{Method, PageMethod};
use crate::blocks::Block;
use crate::tree::classify::{BlockFacts, Page, Reason};

/// `boilerpipe-tree`: Boilerpipe's labels, then only the kept group with the most text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoilerpipeTree;

/// The element the filter groups a block by: the second ancestor of its paragraph element
/// (`ancestors` ends with the paragraph element), or the outermost element it knows when the
/// block is less deep; `None` for text outside every element.
pub fn group(block: &Block) -> Option<u32> {
    let ancestors = &block.ancestors;
    ancestors
        .len()
        .checked_sub(3)
        .map(|i| ancestors[i])
        .or_else(|| ancestors.first().copied())
}

/// Narrows Boilerpipe's `content` labels of `blocks` to the kept group with the most
/// characters (the first such, when several tie).
pub fn filter(blocks: &[Block], content: &mut [bool]) {
    let mut totals: Vec<(Option<u32>, u64)> = Vec::new();
    for (block, _) in blocks.iter().zip(content.iter()).filter(|(_, &c)| c) {
        let key = group(block);
        match totals.iter_mut().find(|(k, _)| *k == key) {
            Some((_, chars)) => *chars += u64::from(block.chars),
            None => totals.push((key, u64::from(block.chars))),
        }
    }
    let Some(best) = totals
        .iter()
        .fold(
            None::<(Option<u32>, u64)>,
            |best, &(key, chars)| match best {
                Some((_, most)) if most >= chars => best,
                _ => Some((key, chars)),
            },
        )
        .map(|(key, _)| key)
    else {
        return;
    };
    for (block, keep) in blocks.iter().zip(content.iter_mut()) {
        if *keep && group(block) != best {
            *keep = false;
        }
    }
}

impl PageMethod for BoilerpipeTree {
    const METHOD: Method = Method::BoilerpipeTree;

    fn judge(&self, page: &Page<'_>, facts: &[BlockFacts<'_>], out: &mut Vec<Reason>) {
        let mut content = Vec::new();
        labels(page.blocks, &mut content);
        let boilerpipe = content.clone();
        filter(page.blocks, &mut content);
        reasons(page, facts, &content, out);
        for ((reason, &was), &is) in out.iter_mut().zip(&boilerpipe).zip(&content) {
            if was && !is && *reason != Reason::NoLetters {
                *reason = Reason::OutsideMainSubtree;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::classic::boilerpipe::Boilerpipe;
    use crate::tree::classic::fixtures::{judge, kept, NEWS_TEXT};

    /// An article and, in the sidebar, a teaser long enough for Boilerpipe's rules (a dense
    /// block is kept when some text follows it: the footer).
    fn page_with_teaser() -> String {
        format!(
            r#"<html><body><div id="page">
<div class="article"><div class="body"><h1>Harbour reopens</h1><p>{}</p><p>{}</p><p>{}</p></div></div>
<div class="sidebar"><div class="teaser"><p>In other news, the county fair returns to the showground this weekend with a new programme of music, crafts and a vintage tractor parade that organisers expect to draw record crowds.</p></div></div>
</div><div id="footer"><p>Copyright 2024 The Harbour Times</p></div></body></html>"#,
            NEWS_TEXT[0], NEWS_TEXT[1], NEWS_TEXT[2]
        )
    }

    #[test]
    fn the_filter_drops_what_boilerpipe_keeps_outside_the_article() {
        let html = page_with_teaser();
        let boilerpipe = kept(&Boilerpipe, &html);
        assert!(boilerpipe.iter().any(|t| t.starts_with("In other news")));
        let judged = judge(&BoilerpipeTree, &html);
        let kept: Vec<&str> = judged
            .iter()
            .filter(|(_, r)| *r == Reason::Text)
            .map(|(t, _)| t.as_str())
            .collect();
        // The headline shares the article's container; Boilerpipe keeps it before a dense
        // paragraph.
        assert_eq!(kept[0], "Harbour reopens");
        assert_eq!(kept[1..], NEWS_TEXT);
        let teaser = judged.iter().find(|(t, _)| t.starts_with("In other news"));
        assert_eq!(teaser.map(|(_, r)| *r), Some(Reason::OutsideMainSubtree));
    }

    #[test]
    fn the_group_is_the_paragraph_elements_grandparent() {
        let (blocks, _) = crate::tree::classic::fixtures::page(&page_with_teaser());
        let paragraph = blocks.iter().find(|b| b.text == NEWS_TEXT[0]).unwrap();
        // html body div#page div.article div.body p: the grandparent of p is div.article.
        assert_eq!(paragraph.path, "html/body/div/div/div/p");
        assert_eq!(group(paragraph), Some(paragraph.ancestors[3]));
    }
}
