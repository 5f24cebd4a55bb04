//! Markup (the cues of readability and trafilatura; ARIA landmark roles): a unique block inside an
//! element marked as navigation, a sidebar, comments or the like is dropped, unless the marked
//! text is most of what the page holds and the markup does not also mark the main text (a
//! page-wide wrapper with a misleading class). Text marked as the main text (`<article>`,
//! `role=main`, `itemprop=articleBody`) anchors the main subtree ([`super::main_text`]).

use crate::blocks::Hint;
use crate::tree::{BlockFacts, Reason};

/// Characters of text inside elements that the markup marks as the main text (`<article>`,
/// `role=main`) from which only they can anchor the main subtree and the regions the markup
/// marks as boilerplate are dropped even when they outweigh it: two sentences, enough to be a
/// text and not a teaser.
pub const MIN_MARKED_MAIN: u64 = 200;

/// Drops the unique blocks in marked regions: trusted when the markup also marks the main text
/// (comments often outweigh the article they follow), else unless they would take most of what
/// the page still holds.
pub fn drop_marked(blocks: &[BlockFacts<'_>], out: &mut [Reason]) {
    let (mut marked, mut unmarked, mut main_marked) = (0u64, 0u64, 0u64);
    for (block, reason) in blocks.iter().zip(out.iter()) {
        if *reason == Reason::Unique {
            match block.hint {
                Hint::Boilerplate => marked += u64::from(block.chars),
                Hint::Content => {
                    unmarked += u64::from(block.chars);
                    main_marked += u64::from(block.chars);
                }
                Hint::None => unmarked += u64::from(block.chars),
            }
        }
    }
    if marked > 0 && (marked < unmarked || main_marked >= MIN_MARKED_MAIN) {
        for (block, reason) in blocks.iter().zip(out.iter_mut()) {
            if *reason == Reason::Unique && block.hint == Hint::Boilerplate {
                *reason = Reason::Marked;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{block, run, run_with, ARTICLE};
    use super::super::Rules;
    use crate::blocks::Hint;
    use crate::tree::{BlockFacts, Reason};

    #[test]
    fn marked_regions_are_dropped_unless_they_hold_most_of_the_page() {
        // The article, and a comment section inside it that its markup marks.
        let comments = [[0, 1, 7, 13, 14], [0, 1, 7, 13, 15]];
        let mut blocks = vec![
            block(&ARTICLE[0], 300, 0, 1, 1),
            block(&ARTICLE[1], 250, 0, 1, 1),
        ];
        for c in &comments {
            blocks.push(BlockFacts {
                hint: Hint::Boilerplate,
                ..block(c, 120, 0, 1, 1)
            });
        }
        let reasons = run(&blocks, 1);
        use Reason::*;
        assert_eq!(reasons, vec![Unique, Unique, Marked, Marked]);
        let off = Rules::default().without("markup").unwrap();
        assert_eq!(run_with(&blocks, 1, off), vec![Unique; 4]);
        // Comments outweighing the article: trusted only when the markup also marks the article.
        let mut long: Vec<_> = blocks.clone();
        for b in &mut long[2..] {
            b.chars = 600;
        }
        assert_eq!(&run(&long, 1)[2..], &[Unique; 2]);
        for b in &mut long[..2] {
            b.hint = Hint::Content;
        }
        assert_eq!(&run(&long, 1)[2..], &[Marked; 2]);
        // A page wrapped whole in a misleading class: the markup is not trusted.
        for b in &mut blocks {
            b.hint = Hint::Boilerplate;
        }
        assert_eq!(&run(&blocks, 1)[..2], &[Unique; 2]);
    }
}
