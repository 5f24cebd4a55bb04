//! Title: the page's headline nearest before the main text is the text's title, kept even when
//! it sits outside the main subtree (most gold standards keep the headline) or its words are links
//! (a reference page's title is the item's path, each part a link to its parent; a blog's headline
//! links to the post itself), unless the markup dropped it.
//!
//! A headline is an `<h1>`, or a heading whose words the page's `<title>` holds, in order, inside
//! the same marked region as the text (or none). Many blog and news themes give the site's name
//! the `<h1>` and the post's title an `<h2>` or `<h3>` just above the post; the page's `<title>`
//! names the post ("Post title | Site"), and the post's heading is the nearer of the two. A
//! heading in a region around the text (a sidebar's "In std::ffi") that the title happens to
//! name is not the text's.
//!
//! The tree's verdict on it stands but for one case. A block identity that ignores digits makes
//! the heads of numbered pages one block: "Django 2.0.13 release notes", its date and its "fixes
//! several bugs in 2.0.12" are counted on every release page, like the site's name. Yet the
//! template sits at the page's edges, while the text's head leads into the text inside the
//! element that holds them both (a document's section: its heading, its date line, its summary,
//! then its body). So a repeated headline whose parent element holds the first kept block is the
//! title when everything between them lies inside that element too, and what lies there is the
//! text's head: kept whether the tree counted it as repeated, its path made it a template slot (a
//! short date in a paragraph's path) or the main subtree settled on the section after it (what
//! recurs next to unique text, inside its section, is its own). Links, marked and hidden blocks
//! between them mean a frame, not a head. The site's repeated `<h1>` above a menu, or a section
//! name in the page's header, has the template between it and the text, or the text outside its
//! parent, and stays dropped.

use crate::tree::{BlockFacts, Reason};

/// Keeps the nearest headline before the first kept block when the main subtree, a template path
/// or its link density left it out; when the tree counted it as repeated, keeps it and the blocks
/// after it when its parent element holds them and the first kept block, and each of them was
/// dropped as repeated, as a template slot or as outside the main subtree.
pub fn keep_title(blocks: &[BlockFacts<'_>], out: &mut [Reason]) {
    let Some(first) = out.iter().position(|r| *r == Reason::Unique) else {
        return;
    };
    let headline = |b: &BlockFacts<'_>| b.h1 || (b.titled && b.marker == blocks[first].marker);
    let Some(h) = (0..first)
        .rev()
        .find(|&i| out[i] != Reason::Hidden && headline(&blocks[i]))
    else {
        return;
    };
    match out[h] {
        Reason::OutsideMainSubtree | Reason::Template | Reason::LinkDense => out[h] = Reason::Title,
        Reason::Repeated => {
            let title = &blocks[h];
            let n = title.ancestors.len();
            let Some(&parent) = n.checked_sub(2).and_then(|i| title.ancestors.get(i)) else {
                return;
            };
            let inside = |i: usize| blocks[i].ancestors.binary_search(&parent).is_ok();
            let head = (h + 1..first).all(|i| match out[i] {
                Reason::NoLetters => true,
                Reason::Repeated | Reason::Template | Reason::OutsideMainSubtree => inside(i),
                _ => false,
            });
            if head && inside(first) {
                out[h] = Reason::Title;
                for r in &mut out[h + 1..first] {
                    match *r {
                        Reason::Repeated => *r = Reason::WithinText,
                        Reason::Template | Reason::OutsideMainSubtree => *r = Reason::Unique,
                        _ => {}
                    }
                }
            }
        }
        _ => {}
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
        // A hidden copy of the headline nearer the text (the copy a paywall script reveals) is
        // not the headline a reader sees: the visible one is still the title.
        let mut copied = blocks.clone();
        let copy = [0, 1, 6, 7];
        copied.insert(2, block(&copy, 60, 0, 1, 1));
        copied[2].h1 = true;
        copied[2].hidden = Some(7);
        assert_eq!(run(&copied, 1)[1..3], [Title, Hidden]);
        // A repeated headline in an element that does not hold the text stays dropped.
        blocks[1].count = Some(2);
        assert_eq!(
            run(&blocks, 2),
            vec![OutsideMainSubtree, Repeated, Unique, Unique, Repeated]
        );
    }

    #[test]
    fn a_repeated_h1_leading_into_the_text_in_its_section_is_its_title() {
        // A release-notes page at a node of 9 pages: body(1) > div(2) > h1(3) the site's name,
        // nav(4) > li(5); section div(6) > h1(7) "Django 2.0.13 release notes", p(8) its date,
        // p(9) "Django 2.0.13 fixes a regression in 2.0.12", div(10) > h2(11) "Bugfixes",
        // ul(12) > li(13), li(14); the sidebar div(15) > p(16). Ignoring digits, the title, date,
        // summary and heading recur on every release page.
        let (site, menu, sidebar) = ([0, 1, 2, 3], [0, 1, 4, 5], [0, 1, 15, 16]);
        let (title, date, summary) = ([0, 1, 6, 7], [0, 1, 6, 8], [0, 1, 6, 9]);
        let (heading, fix1, fix2) = (
            [0, 1, 6, 10, 11],
            [0, 1, 6, 10, 12, 13],
            [0, 1, 6, 10, 12, 14],
        );
        let mut blocks = vec![
            block(&site, 27, 0, 9, 9),
            block(&menu, 40, 40, 9, 9),
            block(&title, 28, 0, 9, 9),
            block(&date, 17, 0, 1, 9),
            block(&summary, 50, 0, 1, 9),
            block(&heading, 9, 0, 6, 9),
            block(&fix1, 180, 0, 1, 9),
            block(&fix2, 240, 0, 1, 9),
            block(&sidebar, 60, 0, 9, 9),
        ];
        blocks[0].h1 = true;
        blocks[2].h1 = true;
        blocks[5].heading = true;
        // The date's words are the page's own but its path, a paragraph's, is on every page: a
        // template slot outside the main text; the summary is unique but beside the section the
        // main subtree settled on.
        blocks[3].path_count = 9;
        use Reason::*;
        let off = Rules::default().without("title").unwrap();
        let dropped = [Repeated, Template, OutsideMainSubtree, Repeated];
        assert_eq!(run_with(&blocks, 9, off)[2..6], dropped);
        let head = [Title, Unique, Unique, WithinText];
        assert_eq!(run(&blocks, 9)[2..6], head);
        assert_eq!(run(&blocks, 9)[..2], [Repeated, Repeated]);
        assert_eq!(run(&blocks, 9)[8], Repeated);
        // A repeated block outside the section between the title and the text (a share bar in
        // the page's frame) means the h1 is not the text's head: everything stays dropped.
        let bar = [0, 1, 17, 18];
        let mut framed = blocks.clone();
        framed.insert(3, block(&bar, 30, 0, 9, 9));
        assert_eq!(run(&framed, 9)[2], Repeated);
        assert_eq!(run(&framed, 9)[4..7], dropped[1..]);
        // The site's name is no title even when the section has none: the menu, outside the
        // name's parent element, stands between it and the text.
        blocks[2].h1 = false;
        assert_eq!(run(&blocks, 9)[0], Repeated);
    }
}
