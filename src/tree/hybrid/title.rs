//! Title: the page's `<h1>` nearest before the main text is the text's title, kept even when it
//! sits outside the main subtree (most gold standards keep the headline) or its words are links (a
//! reference page's title is the item's path, each part a link to its parent; a blog's headline
//! links to the post itself), unless the tree or the markup dropped it.

use crate::tree::{BlockFacts, Reason};

/// Keeps the nearest `<h1>` before the first kept block when the main subtree, a template path or
/// its link density left it out.
pub fn keep_title(blocks: &[BlockFacts<'_>], out: &mut [Reason]) {
    if let Some(first) = out.iter().position(|r| *r == Reason::Unique) {
        if let Some(h) = (0..first).rev().find(|&i| blocks[i].h1) {
            if matches!(
                out[h],
                Reason::OutsideMainSubtree | Reason::Template | Reason::LinkDense
            ) {
                out[h] = Reason::Title;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{block, run, run_with, ARTICLE};
    use super::super::Rules;
    use crate::tree::{Label, Reason};

    #[test]
    fn the_h1_before_the_main_text_is_its_title() {
        // body(1) > header(2) > h1(3) "Site"; div(4) > h1(5) headline; article(7) > p(8..10);
        // the repeated site navigation after it.
        let site = [0, 1, 2, 3];
        let headline = [0, 1, 4, 5];
        let nav = [0, 1, 12, 13];
        let mut blocks = vec![
            block(&site, 30, 0, 1, 1),
            block(&headline, 60, 0, 1, 1),
            block(&ARTICLE[0], 300, 0, 1, 1),
            block(&ARTICLE[1], 250, 0, 1, 1),
            block(&nav, 800, 0, 2, 2),
        ];
        blocks[0].h1 = true;
        blocks[1].h1 = true;
        use Reason::*;
        assert_eq!(
            run(&blocks, 1),
            vec![OutsideMainSubtree, Title, Unique, Unique, Repeated]
        );
        assert_eq!(Title.label(), Label::Content);
        let off = Rules::default().without("title").unwrap();
        assert_eq!(run_with(&blocks, 1, off)[1], OutsideMainSubtree);
        // A headline that links to the post itself is still its title.
        blocks[1].link_chars = 60;
        assert_eq!(run(&blocks, 1)[1], Title);
        blocks[1].link_chars = 0;
        // A repeated headline stays dropped.
        blocks[1].count = Some(2);
        assert_eq!(
            run(&blocks, 2),
            vec![OutsideMainSubtree, Repeated, Unique, Unique, Repeated]
        );
    }
}
