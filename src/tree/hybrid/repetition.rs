//! Repetition (Sluban & Grčar 2013): a block whose text is counted more than `c_max` times at the
//! deciding node (the node and `c_max` of `relaxed-at-domain-500`) is template text. The block
//! identity already ignores digits and punctuation, so "© 2019" and "© 2020" are one block.
//!
//! The paper's `c_max` is an absolute count; template detection by document frequency
//! (Bar-Yossef & Rajagopalan 2002; Gottron 2008) asks on what *share* of the node's pages a block
//! appears. A site's template is on nearly every page of the part of the site that uses it, while
//! text that happens to recur (the same method described on the pages of six integer types, a
//! parameter description shared by a family of functions, a release note repeated in the next
//! release's notes) is on a few of them. So a block is template text when it is counted more than
//! `c_max` times *and* on more than [`TEMPLATE_SHARE`] of the node's pages. This is the tree's
//! own verdict and cannot be switched off (the paper's heuristics are the tree without the page's
//! evidence, not `hybrid` without the tree).

use super::Params;
use crate::tree::NodeFacts;

/// Share of the deciding node's pages above which a block counted more than `c_max` times is
/// template text: a tenth. Below twenty pages of support every block counted more than `c_max`
/// times passes it, so the rule only speaks where a node has seen many pages; measured on all
/// twelve shared sets, a fifth and a third keep less of the documentation streams' recurring
/// text and lose more on the news streams (README "Ablation").
pub const TEMPLATE_SHARE: f64 = 0.1;

/// True when a block counted `count` times at `node` is template text there: counted more than
/// `c_max` times, on more than the template share of the node's pages.
pub fn is_repeated(count: u64, node: NodeFacts, params: &Params) -> bool {
    count > node.c_max && count as f64 > params.template_share * node.support as f64
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{block, run, ARTICLE};
    use crate::tree::Reason;

    #[test]
    fn repeated_text_is_dropped_from_the_second_page_on() {
        let page = |count| {
            [
                block(&ARTICLE[0], 300, 0, 1, 2),
                block(&ARTICLE[1], 200, 0, 1, 2),
                block(&ARTICLE[2], 60, 0, count, 2),
            ]
        };
        assert_eq!(run(&page(1), 2)[2], Reason::Unique);
        assert_eq!(run(&page(2), 2)[2], Reason::Repeated);
    }

    #[test]
    fn text_on_few_of_a_large_nodes_pages_is_content() {
        // At a node of 200 pages: a paragraph shared by 12 of them (a method described alike
        // for six integer types) is content, a line on 150 of them is the template.
        let blocks = [
            block(&ARTICLE[0], 300, 0, 1, 200),
            block(&ARTICLE[1], 200, 0, 12, 200),
            block(&ARTICLE[2], 60, 0, 150, 200),
        ];
        assert_eq!(
            run(&blocks, 200),
            [Reason::Unique, Reason::Unique, Reason::Repeated]
        );
        // Below twenty pages the share says nothing more than c_max does.
        assert_eq!(run(&blocks[..2], 19)[1], Reason::Repeated);
    }
}
