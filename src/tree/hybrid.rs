//! The `hybrid` classifier: what the tree knows about a site's template combined with what the
//! page itself shows (DESIGN §2.8). Pure decisions, free of I/O.
//!
//! Evidence, each with a published basis:
//! - **Repetition** (Sluban & Grčar 2013): a block whose text is counted more than `c_max` times
//!   at the deciding node (the node and `c_max` of `relaxed-at-domain-500`) is template text.
//!   The block identity already ignores digits and punctuation, so "© 2019" and "© 2020" are one
//!   block.
//! - **Template structure** (Alarte et al., ETDM): a short block whose *element path* recurs on
//!   nearly every page of the node while its words do not is a template slot (dates, counters,
//!   labels around the text). Path counts are kept per node beside the text counts; they are
//!   trusted once the node's support gives them a [`confidence`] of one half. Inside the main
//!   subtree, where every paragraph's path recurs, a short block is kept with its text.
//! - **Link density** (Kohlschütter et al. 2010; Gottron 2008): a block mostly made of link text
//!   is navigation, unless the page's main subtree is itself mostly links, or nearly all that a
//!   trusted node leaves of the page is links (an index page).
//! - **Main subtree** (Viveros-Jiménez et al. 2018): the main text of a page is usually one DOM
//!   subtree. The blocks that pass the tests above are grouped by their container's parent; the
//!   group holding the most non-link text anchors the main subtree, which is then widened to the
//!   ancestor of the anchor whose subtree holds the most good text minus dropped text (a document
//!   split into sections is taken whole, the navigation around it is not). Each good block counts
//!   its text minus the cost of a short phrase, in full on a new domain, so a sidebar of short
//!   teasers and labels does not pull the main subtree wide (Gottron's text density: a region of
//!   many short texts is mostly markup). Blocks outside it are dropped.
//! - **Markup** (the cues of readability and trafilatura; ARIA landmark roles): a unique block
//!   inside an element marked as navigation, a sidebar, comments or the like is dropped, unless
//!   the marked text is most of what the page holds; text marked as the main text (`<article>`,
//!   `role=main`, `itemprop=articleBody`) anchors the main subtree when there is enough of it.
//! - **Title**: the page's `<h1>` nearest before the main text is the text's title, kept even
//!   when it sits outside the main subtree (most gold standards keep the headline).
//! - **Text around repeated blocks**: a run of repeated blocks inside the main subtree with kept
//!   text on both sides belongs to the text (a manual's section headings, notes and table
//!   cells recur on many pages, yet they sit between the paragraphs that they label); repeated
//!   blocks at the edge of the main text (a byline, a closing notice) stay dropped.
//! - **Stub pages**: a page left with almost no text once the tree has spoken (a redirect notice
//!   shared by many pages) is judged by its own structure alone, as on a domain's first page.
//!
//! On a domain's first page the tree knows nothing and the page's structure decides; as the
//! node's support grows, repetition and then template paths remove what the page alone cannot
//! tell from content.
//!
//! Each verdict carries the [`Reason`] that decided it, so every output block says why.

use super::classify::{BlockFacts, Classifier, NodeFacts, Reason};
use super::heuristic::{Heuristic, Label};
use crate::blocks::Hint;

/// Support at which the tree's path counts are trusted as much as the page's own evidence: the
/// confidence of a node that has seen `n` pages is `(n - 1) / (n - 1 + SUPPORT_HALF)`, one half
/// at five pages, the paper's `n_min` for a node whose counts mean something.
pub const SUPPORT_HALF: f64 = 4.0;

/// A block whose link characters exceed this share of its characters is navigation: links are
/// the majority of its text.
pub const LINK_DENSE: f64 = 0.5;

/// The main subtree is anchored by grouping blocks on the ancestor this many levels above the
/// block's own container (1 = the container's parent: the text node's grandparent, the level
/// Viveros-Jiménez et al. found best).
pub const GROUP_LEVEL: usize = 1;

/// Share of the node's other pages on which an element path must recur to be a template slot.
pub const TEMPLATE_PATH_SHARE: f64 = 0.8;

/// Characters below which a block in a recurring path is a template slot (a date, a byline, a
/// counter): shorter than one plain sentence.
pub const TEMPLATE_SLOT_CHARS: u32 = 40;

/// Once a trusted node's repeated text is removed, a page whose remaining text is links for more
/// than this share is an index page (a table of contents, a site index) whose links are its
/// content: nine tenths, so that an article with a list of related links never qualifies.
pub const INDEX_LINK_SHARE: f64 = 0.9;

/// A page left with less kept text than this (about two sentences) by the tree is a stub made of
/// template text, and its own structure decides instead.
pub const MIN_PAGE_CHARS: u32 = 100;

/// Characters a unique block's text must exceed to count for a subtree when the main subtree is
/// widened: about three words, a short phrase. A run of short blocks (teasers, widget labels,
/// "Loading ...") is weak evidence that a subtree is the page's text, whereas a paragraph is
/// strong. Charged in full on a page judged alone and scaled down by the node's [`confidence`],
/// since a trusted node has already removed the repeated short blocks.
pub const BLOCK_COST: u32 = 20;

/// Characters of text inside elements that the markup marks as the main text (`<article>`,
/// `role=main`) from which only they can anchor the main subtree and the regions the markup
/// marks as boilerplate are dropped even when they outweigh it: two sentences, enough to be a
/// text and not a teaser.
const MIN_MARKED_MAIN: u64 = 200;

/// The classifier's few parameters; [`Params::default`] holds the constants above, each with its
/// reason.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// See [`SUPPORT_HALF`].
    pub support_half: f64,
    /// See [`LINK_DENSE`].
    pub link_dense: f64,
    /// See [`GROUP_LEVEL`].
    pub group_level: usize,
    /// See [`TEMPLATE_PATH_SHARE`].
    pub template_path_share: f64,
    /// See [`TEMPLATE_SLOT_CHARS`].
    pub template_slot_chars: u32,
    /// See [`MIN_PAGE_CHARS`].
    pub min_page_chars: u32,
    /// See [`INDEX_LINK_SHARE`].
    pub index_link_share: f64,
    /// See [`BLOCK_COST`].
    pub block_cost: u32,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            support_half: SUPPORT_HALF,
            link_dense: LINK_DENSE,
            group_level: GROUP_LEVEL,
            template_path_share: TEMPLATE_PATH_SHARE,
            template_slot_chars: TEMPLATE_SLOT_CHARS,
            min_page_chars: MIN_PAGE_CHARS,
            index_link_share: INDEX_LINK_SHARE,
            block_cost: BLOCK_COST,
        }
    }
}

/// The `hybrid` classifier with its parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Hybrid {
    /// The classifier's parameters.
    pub params: Params,
}

impl Classifier for Hybrid {
    fn heuristic(&self) -> Heuristic {
        Heuristic::Hybrid
    }

    fn wants_path_count(&self, chars: u32, support: u64) -> bool {
        uses_path_count(chars, support, &self.params)
    }

    fn classify(&self, blocks: &[BlockFacts<'_>], node: NodeFacts, out: &mut Vec<Reason>) {
        classify(blocks, node, &self.params, out);
    }
}

/// How much the tree's counts are trusted at a node of `support` pages: 0 on a domain's first
/// page, one half at `support_half + 1` pages, approaching 1.
pub fn confidence(support: u64, support_half: f64) -> f64 {
    let others = support.saturating_sub(1) as f64;
    if others == 0.0 {
        0.0
    } else {
        others / (others + support_half)
    }
}

/// True when the classifier uses the path count of a block of `chars` characters at a node of
/// `support` pages: only short blocks can be template slots, and only at a trusted node. The
/// caller may leave the other path counts unread.
pub fn uses_path_count(chars: u32, support: u64, params: &Params) -> bool {
    chars < params.template_slot_chars && confidence(support, params.support_half) >= 0.5
}

/// Classifies the blocks of one page; `out` receives one reason per block, in order.
pub fn classify(
    blocks: &[BlockFacts<'_>],
    node: NodeFacts,
    params: &Params,
    out: &mut Vec<Reason>,
) {
    classify_with(blocks, Some(node), params, out);
    let kept: u64 = blocks
        .iter()
        .zip(out.iter())
        .filter(|(_, r)| r.label() == Label::Content)
        .map(|(b, _)| u64::from(b.chars))
        .sum();
    if node.support > 1 && kept < u64::from(params.min_page_chars) {
        // Everything the page says is known to the tree: a stub made of template text (a
        // redirect notice, an empty listing). Every page has a main text, so the page's own
        // structure decides, as on a domain's first page.
        classify_with(blocks, None, params, out);
    }
}

/// Classifies with the tree's evidence from `node`, or from the page alone when `None`.
fn classify_with(
    blocks: &[BlockFacts<'_>],
    node: Option<NodeFacts>,
    params: &Params,
    out: &mut Vec<Reason>,
) {
    out.clear();
    let node = node.unwrap_or(NodeFacts {
        support: 1,
        c_max: u64::MAX,
    });
    let trusted = confidence(node.support, params.support_half) >= 0.5;
    let others = node.support.saturating_sub(1) as f64;
    for block in blocks {
        let reason = match block.count {
            None => Reason::NoLetters,
            Some(count) if count > node.c_max => Reason::Repeated,
            Some(_) if block.link_chars as f64 > params.link_dense * block.chars as f64 => {
                Reason::LinkDense
            }
            Some(_)
                if trusted
                    && uses_path_count(block.chars, node.support, params)
                    && (block.path_count.saturating_sub(1) as f64)
                        >= params.template_path_share * others =>
            {
                Reason::Template
            }
            Some(_) => Reason::Unique,
        };
        out.push(reason);
    }
    // The markup's word on regions around the text: trusted when the markup also marks the main
    // text (comments often outweigh the article they follow), else unless it would take most of
    // what the page still holds (a page-wide wrapper with a misleading class).
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
    // Once a trusted node has removed the navigation, a page whose remaining text is nearly all
    // links is an index: its links are its content, and they count as text.
    let (mut rest, mut rest_links) = (0u64, 0u64);
    for (block, reason) in blocks.iter().zip(out.iter()) {
        if matches!(reason, Reason::Unique | Reason::LinkDense) {
            rest += u64::from(block.chars);
            rest_links += u64::from(block.link_chars);
        }
    }
    let index_page = trusted && rest_links as f64 > params.index_link_share * rest as f64;
    if index_page {
        for reason in out.iter_mut() {
            if *reason == Reason::LinkDense {
                *reason = Reason::Unique;
            }
        }
    }
    let Some(main) = main_subtree(
        blocks,
        out,
        params.group_level,
        index_page,
        params.block_cost,
        1.0 - confidence(node.support, params.support_half),
    ) else {
        return;
    };
    // A main subtree made mostly of links is a list page (an index, a table of contents): there
    // the links are the content.
    let (mut text, mut links) = (0u64, 0u64);
    for (block, reason) in blocks.iter().zip(out.iter()) {
        if matches!(reason, Reason::Unique | Reason::LinkDense) && within(block, main) {
            text += u64::from(block.chars);
            links += u64::from(block.link_chars);
        }
    }
    let list_page = links as f64 > params.link_dense * text as f64;
    for (block, reason) in blocks.iter().zip(out.iter_mut()) {
        let inside = within(block, main);
        if *reason == Reason::Template && inside {
            // Inside the main text every paragraph's path recurs: there a short block's path
            // says nothing, and it is judged like the text around it.
            *reason = Reason::Unique;
        } else if *reason == Reason::Unique && !inside {
            *reason = Reason::OutsideMainSubtree;
        } else if *reason == Reason::LinkDense && inside && list_page {
            *reason = Reason::Unique;
        }
    }
    // A run of repeated blocks inside the main text between two kept blocks is part of the text
    // (section headings, recurring notes or table cells of a manual). One pass: each block is
    // visited once by the run that holds it or by the loop.
    let mut i = 0;
    let mut prev_kept = false;
    while i < blocks.len() {
        match out[i] {
            Reason::NoLetters => i += 1,
            Reason::Repeated if prev_kept && within(&blocks[i], main) => {
                let mut end = i;
                while end < blocks.len()
                    && (out[end] == Reason::NoLetters
                        || (out[end] == Reason::Repeated && within(&blocks[end], main)))
                {
                    end += 1;
                }
                if end < blocks.len() && out[end] == Reason::Unique {
                    for r in &mut out[i..end] {
                        if *r == Reason::Repeated {
                            *r = Reason::WithinText;
                        }
                    }
                }
                prev_kept = false;
                i = end;
            }
            r => {
                prev_kept = r == Reason::Unique;
                i += 1;
            }
        }
    }
    // The title of the main text: the nearest `<h1>` before its first kept block, when the main
    // subtree left it out (a headline above the article's container) and neither the tree nor
    // the markup dropped it.
    if let Some(first) = out.iter().position(|r| *r == Reason::Unique) {
        if let Some(h) = (0..first).rev().find(|&i| blocks[i].h1) {
            if matches!(out[h], Reason::OutsideMainSubtree | Reason::Template) {
                out[h] = Reason::Title;
            }
        }
    }
}

/// The element that the main subtree hangs from, or the whole page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Main {
    Element(u32),
    Page,
}

fn group_of(block: &BlockFacts<'_>, level: usize) -> Main {
    let n = block.ancestors.len();
    if n > level {
        Main::Element(block.ancestors[n - 1 - level])
    } else {
        Main::Page
    }
}

fn within(block: &BlockFacts<'_>, main: Main) -> bool {
    match main {
        Main::Page => true,
        Main::Element(e) => block.ancestors.contains(&e),
    }
}

/// The subtree holding the page's main text: anchored at the group of still-unique blocks with
/// the most non-link text, then widened to the ancestor of that group whose subtree holds the
/// most good text minus bad text (a section split into several groups is taken whole, the
/// navigation around it is not).
fn main_subtree(
    blocks: &[BlockFacts<'_>],
    reasons: &[Reason],
    level: usize,
    links_are_text: bool,
    block_cost: u32,
    doubt: f64,
) -> Option<Main> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A block of `chars` characters (`links` of them in links) under `ancestors`, counted
    /// `count` times at the node, its path `path_count` times.
    fn block(
        ancestors: &[u32],
        chars: u32,
        links: u32,
        count: u64,
        path_count: u64,
    ) -> BlockFacts<'_> {
        BlockFacts {
            chars,
            link_chars: links,
            ancestors,
            count: Some(count),
            path_count,
            hint: Hint::None,
            h1: false,
        }
    }

    fn run(blocks: &[BlockFacts<'_>], support: u64) -> Vec<Reason> {
        let mut out = Vec::new();
        classify(
            blocks,
            NodeFacts { support, c_max: 1 },
            &Params::default(),
            &mut out,
        );
        out
    }

    // A page: html(0) body(1) nav(2) ul(3) li(4..6); article div(7) p(8..10); aside div(11) p(12).
    const NAV: [[u32; 5]; 3] = [[0, 1, 2, 3, 4], [0, 1, 2, 3, 5], [0, 1, 2, 3, 6]];
    const ARTICLE: [[u32; 4]; 3] = [[0, 1, 7, 8], [0, 1, 7, 9], [0, 1, 7, 10]];
    const ASIDE: [u32; 4] = [0, 1, 11, 12];

    #[test]
    fn first_page_keeps_the_main_subtree_and_drops_links_and_the_aside() {
        let blocks = [
            block(&NAV[0], 50, 50, 1, 1),
            block(&NAV[1], 60, 60, 1, 1),
            block(&NAV[2], 40, 40, 1, 1),
            block(&ARTICLE[0], 300, 0, 1, 1),
            block(&ARTICLE[1], 250, 20, 1, 1),
            block(&ARTICLE[2], 30, 0, 1, 1),
            block(&ASIDE, 120, 0, 1, 1),
        ];
        let reasons = run(&blocks, 1);
        use Reason::*;
        assert_eq!(
            reasons,
            vec![
                LinkDense,
                LinkDense,
                LinkDense,
                Unique,
                Unique,
                Unique,
                OutsideMainSubtree
            ]
        );
    }

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
    fn recurring_paths_mark_short_slots_once_the_node_is_trusted() {
        // A short date in the page header whose path is on every page, words unique, beside the
        // article; and a short line inside the article in a path as common.
        let header = [0, 1, 11, 12];
        let blocks = [
            block(&ARTICLE[0], 300, 0, 1, 3),
            block(&ARTICLE[1], 20, 0, 1, 10),
            block(&header, 20, 0, 1, 10),
        ];
        assert_ne!(
            run(&blocks, 3)[2],
            Reason::Template,
            "support 3: not trusted yet"
        );
        assert_eq!(run(&blocks, 10)[2], Reason::Template);
        // Inside the main text a recurring path is every paragraph's: the line is kept.
        assert_eq!(run(&blocks, 10)[1], Reason::Unique);
        // Long text in a recurring path is prose, not a slot.
        let long = [block(&ARTICLE[0], 300, 0, 1, 10)];
        assert_eq!(run(&long, 10)[0], Reason::Unique);
    }

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
        let mut out = Vec::new();
        let free = Params {
            block_cost: 0,
            ..Params::default()
        };
        classify(
            &blocks,
            NodeFacts {
                support: 1,
                c_max: 1,
            },
            &free,
            &mut out,
        );
        assert!(out.iter().all(|r| *r == Reason::Unique), "{out:?}");
    }

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
        assert_eq!(
            reasons,
            vec![
                Reason::Unique,
                Reason::Unique,
                Reason::Marked,
                Reason::Marked
            ]
        );
        // Comments outweighing the article: trusted only when the markup also marks the article.
        let mut long: Vec<_> = blocks.clone();
        for b in &mut long[2..] {
            b.chars = 600;
        }
        assert_eq!(&run(&long, 1)[2..], &[Reason::Unique; 2]);
        for b in &mut long[..2] {
            b.hint = Hint::Content;
        }
        assert_eq!(&run(&long, 1)[2..], &[Reason::Marked; 2]);
        // A page wrapped whole in a misleading class: the markup is not trusted.
        for b in &mut blocks {
            b.hint = Hint::Boilerplate;
        }
        assert_eq!(&run(&blocks, 1)[..2], &[Reason::Unique; 2]);
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
        // A repeated headline stays dropped.
        blocks[1].count = Some(2);
        assert_eq!(
            run(&blocks, 2),
            vec![OutsideMainSubtree, Repeated, Unique, Unique, Repeated]
        );
    }

    #[test]
    fn an_index_page_keeps_its_links() {
        // main(2) > ul(3) > li(4..7), all links; the repeated header outside.
        let items = [
            [0, 1, 2, 3, 4],
            [0, 1, 2, 3, 5],
            [0, 1, 2, 3, 6],
            [0, 1, 2, 3, 7],
        ];
        let header = [0, 1, 8];
        let mut blocks: Vec<_> = items.iter().map(|a| block(a, 30, 30, 1, 9)).collect();
        blocks.push(block(&items[0], 40, 0, 1, 1));
        blocks.push(block(&header, 200, 0, 9, 9));
        let reasons = run(&blocks, 9);
        assert!(
            reasons[..4].iter().all(|r| *r == Reason::Unique),
            "{reasons:?}"
        );
        assert_eq!(reasons[5], Reason::Repeated);
    }

    #[test]
    fn a_trusted_node_keeps_the_links_of_an_index_page() {
        // A table of links (td 3 > ul 4 > li 5..8) beside a short unique heading (h1 9), with the
        // repeated site navigation (nav 10) already known to the tree.
        let items = [
            [0, 1, 2, 3, 4, 5],
            [0, 1, 2, 3, 4, 6],
            [0, 1, 2, 3, 4, 7],
            [0, 1, 2, 3, 4, 8],
        ];
        let heading = [0, 1, 2, 9];
        let nav = [0, 1, 10];
        let mut blocks: Vec<_> = items.iter().map(|a| block(a, 60, 60, 1, 9)).collect();
        blocks.push(block(&heading, 12, 0, 1, 1));
        blocks.push(block(&nav, 300, 300, 9, 9));
        let reasons = run(&blocks, 9);
        assert!(
            reasons[..5].iter().all(|r| *r == Reason::Unique),
            "{reasons:?}"
        );
        assert_eq!(reasons[5], Reason::Repeated);
        // The same links beside an article are related links, not an index.
        let prose = [[0, 1, 11, 12], [0, 1, 11, 13]];
        blocks.push(block(&prose[0], 400, 0, 1, 1));
        blocks.push(block(&prose[1], 300, 0, 1, 1));
        let reasons = run(&blocks, 9);
        assert!(
            reasons[..4].iter().all(|r| *r == Reason::LinkDense),
            "{reasons:?}"
        );
        assert_eq!(&reasons[6..], &[Reason::Unique, Reason::Unique]);
    }

    #[test]
    fn repeated_blocks_between_kept_text_belong_to_it() {
        // article div(7) > h2(8) "Description", p(9), h2(10) "Notes", p(11) repeated, p(12);
        // then a repeated closing notice (p 13) and the repeated navigation (nav 14).
        let at = |e: u32| [0, 1, 7, e];
        let (a8, a9, a10, a11, a12, a13) = (at(8), at(9), at(10), at(11), at(12), at(13));
        let nav = [0, 1, 14, 15];
        let blocks = [
            block(&a8, 11, 0, 9, 9),
            block(&a9, 300, 0, 1, 9),
            block(&a10, 5, 0, 9, 9),
            block(&a11, 120, 0, 9, 9),
            block(&a12, 250, 0, 1, 9),
            block(&a13, 60, 0, 9, 9),
            block(&nav, 200, 0, 9, 9),
        ];
        use Reason::*;
        assert_eq!(
            run(&blocks, 9),
            vec![Repeated, Unique, WithinText, WithinText, Unique, Repeated, Repeated]
        );
        assert_eq!(WithinText.label(), Label::Content);
        // A block without letters inside the run does not break it.
        let mut gap = blocks.to_vec();
        gap[3].count = None;
        assert_eq!(run(&gap, 9)[2..5], [WithinText, NoLetters, Unique]);
        // Repeated text outside the main subtree stays dropped, even between kept blocks.
        let side = [0, 1, 16, 17];
        let mut outside = blocks.to_vec();
        outside[2] = block(&side, 40, 0, 9, 9);
        assert_eq!(run(&outside, 9)[2], Repeated);
    }

    #[test]
    fn a_stub_page_of_template_text_is_judged_by_its_structure() {
        // Every block is known to the tree: the notice would vanish, so the page decides.
        let nav = [0, 1, 2, 3];
        let blocks = [
            block(&nav, 40, 40, 9, 9),
            block(&ARTICLE[0], 150, 0, 9, 9),
            block(&ARTICLE[1], 80, 0, 9, 9),
        ];
        let reasons = run(&blocks, 9);
        assert_eq!(
            reasons,
            vec![Reason::LinkDense, Reason::Unique, Reason::Unique]
        );
    }

    #[test]
    fn blocks_without_letters_are_never_content() {
        let blocks = [
            BlockFacts {
                count: None,
                ..block(&ARTICLE[0], 10, 0, 1, 1)
            },
            block(&ARTICLE[1], 200, 0, 1, 1),
        ];
        assert_eq!(run(&blocks, 1), vec![Reason::NoLetters, Reason::Unique]);
        assert_eq!(run(&[], 5), Vec::<Reason>::new());
    }

    #[test]
    fn confidence_grows_with_support() {
        assert_eq!(confidence(0, SUPPORT_HALF), 0.0);
        assert_eq!(confidence(1, SUPPORT_HALF), 0.0);
        assert_eq!(confidence(5, SUPPORT_HALF), 0.5);
        assert!(confidence(100, SUPPORT_HALF) > 0.95);
    }

    #[test]
    fn reasons_name_their_labels() {
        assert_eq!(Reason::Unique.label(), Label::Content);
        for r in [
            Reason::NoLetters,
            Reason::Repeated,
            Reason::Template,
            Reason::LinkDense,
            Reason::Marked,
            Reason::OutsideMainSubtree,
        ] {
            assert_eq!(r.label(), Label::Boilerplate, "{}", r.as_str());
        }
        assert_eq!(Reason::OutsideMainSubtree.as_str(), "outside-main-subtree");
    }
}
