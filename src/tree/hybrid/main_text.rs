//! Main subtree (Viveros-Jiménez et al. 2018): the main text of a page is usually one DOM
//! subtree. The blocks that pass the block-level tests are grouped by their container's parent;
//! the group holding the most non-link text anchors the main subtree, which is then widened to the
//! ancestor of the anchor whose subtree holds the most good text minus dropped text (a document
//! split into sections is taken whole, the navigation around it is not). Each good block counts
//! its text minus the cost of a short phrase, in full on a new domain, so a sidebar of short
//! teasers and labels does not pull the main subtree wide (Gottron's text density: a region of
//! many short texts is mostly markup). The page's `<h1>` is evidence for the subtree holding it
//! even when its words are links, since it is the text's title (see [`super::title`]). Blocks
//! outside it are dropped.

use super::markup::MIN_MARKED_MAIN;
use super::Params;
use crate::blocks::Hint;
use crate::tree::{BlockFacts, Reason};

/// The main subtree is anchored by grouping blocks on the ancestor this many levels above the
/// block's own container (1 = the container's parent: the text node's grandparent, the level
/// Viveros-Jiménez et al. found best).
pub const GROUP_LEVEL: usize = 1;

/// Characters a unique block's text must exceed to count for a subtree when the main subtree is
/// widened: about three words, a short phrase. A run of short blocks (teasers, widget labels,
/// "Loading ...") is weak evidence that a subtree is the page's text, whereas a paragraph is
/// strong. Charged in full on a page judged alone and scaled down by the node's
/// [`super::confidence`], since a trusted node has already removed the repeated short blocks.
pub const BLOCK_COST: u32 = 20;

/// The element that the main subtree hangs from, or the whole page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Main {
    /// The subtree of this element (its document-order ordinal).
    Element(u32),
    /// The whole page.
    Page,
}

/// The group of `block`: its ancestor `level` levels above its container, or the page.
pub fn group_of(block: &BlockFacts<'_>, level: usize) -> Main {
    let n = block.ancestors.len();
    if n > level {
        Main::Element(block.ancestors[n - 1 - level])
    } else {
        Main::Page
    }
}

/// True when `block` lies in the subtree `main`.
pub fn within(block: &BlockFacts<'_>, main: Main) -> bool {
    match main {
        Main::Page => true,
        Main::Element(e) => block.ancestors.contains(&e),
    }
}

/// The subtree holding the page's main text: anchored at the group of still-unique blocks with
/// the most non-link text, then widened to the ancestor of that group whose subtree holds the
/// most good text minus bad text (a section split into several groups is taken whole, the
/// navigation around it is not).
pub fn main_subtree(
    blocks: &[BlockFacts<'_>],
    reasons: &[Reason],
    params: &Params,
    links_are_text: bool,
    doubt: f64,
) -> Option<Main> {
    let (level, block_cost) = (params.group_level, params.block_cost);
    let text = |b: &BlockFacts<'_>| {
        if links_are_text {
            b.chars
        } else {
            b.chars - b.link_chars.min(b.chars)
        }
    };
    // Text the markup marks as the main text anchors the main subtree when there is enough of
    // it to be one (`<article>`, `role=main`, `itemprop=articleBody`).
    let marked_main: u64 = blocks
        .iter()
        .zip(reasons)
        .filter(|(b, r)| **r == Reason::Unique && b.hint == Hint::Content)
        .map(|(b, _)| u64::from(text(b)))
        .sum();
    let only_main = marked_main >= MIN_MARKED_MAIN;
    let anchor = densest_group(blocks, reasons, level, only_main, text)?;
    let Main::Element(anchor) = anchor else {
        return Some(Main::Page);
    };
    // The anchor's chain of ancestors, outermost first: ordinals grow with depth.
    let chain = blocks.iter().find_map(|b| {
        let at = b.ancestors.binary_search(&anchor).ok()?;
        Some(&b.ancestors[..=at])
    })?;
    let mut scores = vec![0i64; chain.len()];
    // A block is evidence for a subtree by its text beyond the cost of a short phrase; the page
    // alone (a doubtful node) charges the full cost, a trusted node, whose counts have already
    // removed the template, almost none.
    let cost = (f64::from(block_cost) * doubt).round() as i64;
    for (block, reason) in blocks.iter().zip(reasons) {
        let weight = match reason {
            Reason::Unique => i64::from(text(block)) - cost,
            Reason::NoLetters => continue,
            // The page's title is evidence for the subtree that holds it even when its words are
            // links (a breadcrumb path, a permalink) or its path recurs as a template slot: the
            // title rule keeps it there, and a short page's header and body share no smaller
            // subtree.
            Reason::LinkDense | Reason::Template if block.h1 => i64::from(block.chars) - cost,
            _ => -i64::from(block.chars),
        };
        for (score, element) in scores.iter_mut().zip(chain) {
            if block.ancestors.binary_search(element).is_ok() {
                *score += weight;
            }
        }
    }
    let mut best = chain.len() - 1;
    for i in (0..chain.len()).rev() {
        if scores[i] > scores[best] {
            best = i;
        }
    }
    Some(Main::Element(chain[best]))
}

/// The group of still-unique blocks holding the most non-link text.
fn densest_group(
    blocks: &[BlockFacts<'_>],
    reasons: &[Reason],
    level: usize,
    only_main: bool,
    text: impl Fn(&BlockFacts<'_>) -> u32,
) -> Option<Main> {
    let mut groups: Vec<(u32, u64)> = blocks
        .iter()
        .zip(reasons)
        .filter(|(b, r)| **r == Reason::Unique && (!only_main || b.hint == Hint::Content))
        .map(|(b, _)| {
            let key = match group_of(b, level) {
                Main::Element(e) => e,
                Main::Page => u32::MAX,
            };
            (key, u64::from(text(b)))
        })
        .collect();
    if groups.is_empty() {
        return None;
    }
    groups.sort_unstable_by_key(|g| g.0);
    let mut best = (u32::MAX, 0u64);
    let mut i = 0;
    while i < groups.len() {
        let key = groups[i].0;
        let mut sum = 0;
        while i < groups.len() && groups[i].0 == key {
            sum += groups[i].1;
            i += 1;
        }
        if sum > best.1 {
            best = (key, sum);
        }
    }
    Some(if best.0 == u32::MAX {
        Main::Page
    } else {
        Main::Element(best.0)
    })
}

/// Keeps the blocks inside the main subtree that `reason` dropped: a rule that speaks only
/// outside the main text (template slots, whose paths recur for every paragraph inside it) or
/// not on a list page (link-dense blocks, which are its content).
pub fn keep_inside(blocks: &[BlockFacts<'_>], out: &mut [Reason], main: Main, reason: Reason) {
    for (block, r) in blocks.iter().zip(out.iter_mut()) {
        if *r == reason && within(block, main) {
            *r = Reason::Unique;
        }
    }
}

/// Drops the still-unique blocks outside the main subtree.
pub fn drop_outside(blocks: &[BlockFacts<'_>], out: &mut [Reason], main: Main) {
    for (block, reason) in blocks.iter().zip(out.iter_mut()) {
        if *reason == Reason::Unique && !within(block, main) {
            *reason = Reason::OutsideMainSubtree;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{block, run, run_params, run_with, ARTICLE};
    use super::super::{Params, Rules};
    use crate::blocks::Hint;
    use crate::tree::Reason;

    #[test]
    fn the_main_subtree_widens_to_take_all_sections() {
        // body(1) > main(2) > section(3) p(4,5) , section(6) p(7); nav(8) li(9) repeated.
        let s1 = [[0, 1, 2, 3, 4], [0, 1, 2, 3, 5]];
        let s2 = [0, 1, 2, 6, 7];
        let nav = [0, 1, 8, 9];
        let blocks = [
            block(&s1[0], 400, 0, 1, 1),
            block(&s1[1], 300, 0, 1, 1),
            block(&s2, 200, 0, 1, 1),
            block(&nav, 500, 0, 3, 3),
        ];
        let reasons = run(&blocks, 3);
        assert_eq!(&reasons[..3], &[Reason::Unique; 3]);
        assert_eq!(reasons[3], Reason::Repeated);
    }

    #[test]
    fn short_blocks_beside_the_article_do_not_widen_it_on_a_new_domain() {
        // body(1) > div(2) > article div(3) > p(4, 5); sidebar ul(6) > li(7..18): twelve short
        // unique labels beside the article, more text than its second paragraph.
        let article = [[0, 1, 2, 3, 4], [0, 1, 2, 3, 5]];
        let items: Vec<[u32; 5]> = (7..19).map(|li| [0, 1, 2, 6, li]).collect();
        let mut blocks = vec![
            block(&article[0], 300, 0, 1, 1),
            block(&article[1], 250, 0, 1, 1),
        ];
        blocks.extend(items.iter().map(|a| block(a, 15, 0, 1, 1)));
        let reasons = run(&blocks, 1);
        assert_eq!(&reasons[..2], &[Reason::Unique; 2]);
        assert!(
            reasons[2..]
                .iter()
                .all(|r| *r == Reason::OutsideMainSubtree),
            "{reasons:?}"
        );
        // Without the cost the labels pull the main subtree up to the wrapper.
        let free = Params {
            block_cost: 0,
            ..Params::default()
        };
        let out = run_params(&blocks, 1, &free);
        assert!(out.iter().all(|r| *r == Reason::Unique), "{out:?}");
    }

    #[test]
    fn a_linked_title_takes_the_header_of_a_short_page_into_the_main_text() {
        // A reference page for one function: nav(2) > ul(3) > li(4, 5), the site's sidebar;
        // main(7) > section(8) > header div(9) with the h1 (10), whose words are the item's path,
        // each part a link, a repeated "source" label (11) and the signature (12); then a
        // collapsed description, details(13) > summary(14) "Expand description", div(15) > p(16)
        // and an example div(17) > pre(18).
        let li = [[0, 1, 2, 3, 4], [0, 1, 2, 3, 5]];
        let header = [
            [0, 1, 7, 8, 9, 10],
            [0, 1, 7, 8, 9, 11],
            [0, 1, 7, 8, 9, 12],
        ];
        let summary = [0, 1, 7, 8, 13, 14];
        let p = [0, 1, 7, 8, 13, 15, 16];
        let example = [0, 1, 7, 8, 13, 15, 17, 18];
        let mut blocks = vec![
            block(&li[0], 30, 30, 20, 20),
            block(&li[1], 30, 30, 20, 20),
            block(&header[0], 28, 26, 1, 1),
            block(&header[1], 14, 0, 20, 20),
            block(&header[2], 50, 0, 1, 1),
            block(&summary, 18, 0, 20, 20),
            block(&p, 34, 0, 1, 1),
            block(&example, 70, 0, 1, 1),
        ];
        blocks[2].h1 = true;
        use Reason::*;
        assert_eq!(
            run(&blocks, 20),
            vec![Repeated, Repeated, Title, Repeated, Unique, WithinText, Unique, Unique]
        );
        // The title widens the main subtree by itself, kept or not.
        let untitled = run_with(&blocks, 20, Rules::default().without("title").unwrap());
        assert_eq!((untitled[2], untitled[4]), (LinkDense, Unique));
        // Any other link-dense block in the header argues against it as before.
        blocks[2].h1 = false;
        assert_eq!(run(&blocks, 20)[4], OutsideMainSubtree);
    }

    #[test]
    fn text_marked_as_the_main_text_anchors_the_main_subtree() {
        // An article of two short paragraphs beside an unmarked box with one long paragraph, and
        // the repeated site navigation.
        let boxed = [0, 1, 11, 12];
        let nav = [0, 1, 2, 3];
        let mut blocks = vec![
            block(&ARTICLE[0], 150, 0, 1, 1),
            block(&ARTICLE[1], 120, 0, 1, 1),
            block(&boxed, 400, 0, 1, 1),
            block(&nav, 600, 0, 2, 2),
        ];
        use Reason::*;
        assert_eq!(
            run(&blocks, 1),
            vec![OutsideMainSubtree, OutsideMainSubtree, Unique, Repeated]
        );
        for b in &mut blocks[..2] {
            b.hint = Hint::Content;
        }
        assert_eq!(
            run(&blocks, 1),
            vec![Unique, Unique, OutsideMainSubtree, Repeated]
        );
    }
}
