//! Link density (Kohlschütter et al. 2010; Gottron 2008): a block mostly made of link text is
//! navigation, unless the page's main subtree is itself mostly links (a list page), or nearly all
//! that a trusted node leaves of the page is links (an index page): there the links are the
//! content. At a trusted node, whose counts have removed the site's navigation, a lone link
//! between kept text is a cross-reference inside the text (an API reference links every type it
//! names). There, too, a block that mixes its own words with links (a function's signature, a
//! parameter's row, a sentence naming linked types) is judged by where it sits: kept between the
//! main text's own paragraphs, dropped at its edges (a "Next: … Up: …" bar), whereas a block of
//! nothing but links (a menu, a list of headlines) stays navigation wherever it is.

use super::main_text::{within, Main};
use super::Params;
use crate::blocks::Hint;
use crate::tree::{BlockFacts, Label, Reason};

/// A block whose link characters exceed this share of its characters is navigation: links are
/// the majority of its text.
pub const LINK_DENSE: f64 = 0.5;

/// Once a trusted node's repeated text is removed, a page whose remaining text is links for more
/// than this share is an index page (a table of contents, a site index) whose links are its
/// content: nine tenths, so that an article with a list of related links never qualifies.
pub const INDEX_LINK_SHARE: f64 = 0.9;

/// At a trusted node, a block whose link characters exceed this share of its characters is
/// nothing but links (a menu item, a headline, a list of them) and navigation by its density
/// alone: nine tenths, so that a link-dense block with words of its own (the `impl`, `fn` and
/// parameter names of a signature, the "Next:" of a manual's bar) is judged by its place instead.
pub const LINK_ONLY: f64 = 0.9;

/// True when more than `share` of `block`'s characters are link text.
fn links_exceed(block: &BlockFacts<'_>, share: f64) -> bool {
    block.link_chars as f64 > share * block.chars as f64
}

/// True when most of `block`'s text is link text.
pub fn is_link_dense(block: &BlockFacts<'_>, params: &Params) -> bool {
    links_exceed(block, params.link_dense)
}

/// True when `block` is navigation by its link density alone: most of its text is links on a
/// page the tree does not yet know, nearly all of it at a `trusted` node (with the
/// `linked_text` rule on), where the tree has removed the site's repeated navigation and a
/// link-dense block with words of its own is left to [`drop_linked_text_at_edges`].
pub fn is_navigation(block: &BlockFacts<'_>, trusted: bool, params: &Params) -> bool {
    let share = if trusted && params.rules.linked_text {
        params.link_only
    } else {
        params.link_dense
    };
    links_exceed(block, share)
}

/// Drops each still-unique link-dense block that is not strictly between two kept blocks of the
/// main subtree `main` whose text is mostly their own: linked text inside the main text (a
/// signature between a type's descriptions) stays, linked text at its edges or beside it (a
/// manual's "Next: … Up: …" bar, a byline, a tag list) is navigation. Blocks dropped by other
/// rules are left as they are.
pub fn drop_linked_text_at_edges(
    blocks: &[BlockFacts<'_>],
    out: &mut [Reason],
    main: Main,
    params: &Params,
) {
    let own_text = |k: usize, out: &[Reason]| {
        out[k] == Reason::Unique && within(&blocks[k], main) && !is_link_dense(&blocks[k], params)
    };
    let first = (0..blocks.len()).find(|&k| own_text(k, out));
    let last = (0..blocks.len()).rev().find(|&k| own_text(k, out));
    for (i, block) in blocks.iter().enumerate() {
        if out[i] != Reason::Unique || !is_link_dense(block, params) {
            continue;
        }
        let inside =
            within(block, main) && first.is_some_and(|f| f < i) && last.is_some_and(|l| i < l);
        if !inside {
            out[i] = Reason::LinkDense;
        }
    }
}

/// Once a trusted node has removed the navigation, a page whose remaining text is nearly all
/// links is an index: its link-dense blocks are kept as unique. Returns true for an index page.
pub fn keep_index_links(
    blocks: &[BlockFacts<'_>],
    out: &mut [Reason],
    trusted: bool,
    params: &Params,
) -> bool {
    let (mut rest, mut rest_links) = (0u64, 0u64);
    for (block, reason) in blocks.iter().zip(out.iter()) {
        if matches!(reason, Reason::Unique | Reason::LinkDense) {
            rest += u64::from(block.chars);
            rest_links += u64::from(block.link_chars);
        }
    }
    let index_page = trusted && rest_links as f64 > params.index_link_share * rest as f64;
    if index_page {
        release_links(blocks, out, Main::Page, params.rules.markup);
    }
    index_page
}

/// True when the main subtree is made mostly of links: a list page (an index, a table of
/// contents), where the links are the content.
pub fn is_list_page(
    blocks: &[BlockFacts<'_>],
    out: &[Reason],
    main: Main,
    params: &Params,
) -> bool {
    let (mut text, mut links) = (0u64, 0u64);
    for (block, reason) in blocks.iter().zip(out.iter()) {
        if matches!(reason, Reason::Unique | Reason::LinkDense) && within(block, main) {
            text += u64::from(block.chars);
            links += u64::from(block.link_chars);
        }
    }
    links as f64 > params.link_dense * text as f64
}

/// On an index or list page, keeps the link-dense blocks inside `main`: its links are its
/// content. Links the markup marks as navigation or a sidebar (`marked`, with the `markup` rule
/// on) stay dropped as marked: an archive or category list beside the entries is still not one
/// of them.
pub fn release_links(blocks: &[BlockFacts<'_>], out: &mut [Reason], main: Main, marked: bool) {
    for (block, reason) in blocks.iter().zip(out.iter_mut()) {
        if *reason == Reason::LinkDense && within(block, main) {
            *reason = if marked && block.hint == Hint::Boilerplate {
                Reason::Marked
            } else {
                Reason::Unique
            };
        }
    }
}

/// At a trusted node, keeps each link-dense block inside `main` whose nearest blocks with letters
/// on both sides are kept: a cross-reference or a type name set as a link between the text's own
/// sentences and cells (API references link every type they name), where navigation comes as
/// runs of links, or has already been removed as repeated by the tree.
pub fn keep_lone_links(blocks: &[BlockFacts<'_>], out: &mut [Reason], main: Main) {
    let kept = |k: usize, out: &[Reason]| out[k].label() == Label::Content;
    let mut prev: Option<usize> = None;
    for i in 0..blocks.len() {
        if out[i] == Reason::NoLetters {
            continue;
        }
        if out[i] == Reason::LinkDense
            && within(&blocks[i], main)
            && prev.is_some_and(|p| kept(p, out))
        {
            let next = (i + 1..blocks.len()).find(|&k| out[k] != Reason::NoLetters);
            if next.is_some_and(|k| kept(k, out) && within(&blocks[k], main)) {
                out[i] = Reason::WithinText;
            }
        }
        prev = Some(i);
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{block, run, run_with};
    use super::super::Rules;
    use crate::blocks::Hint;
    use crate::tree::{BlockFacts, Reason};

    #[test]
    fn a_lone_link_between_kept_text_is_kept_at_a_trusted_node() {
        // article div(7) > p(8) text, p(9) a type name set as a link, p(10) text; then a run of
        // two links (p 11, 12) and a last paragraph (p 13).
        let at = |e: u32| [0, 1, 7, e];
        let ps: Vec<[u32; 4]> = (8..14).map(at).collect();
        let blocks = [
            block(&ps[0], 300, 0, 1, 9),
            block(&ps[1], 20, 20, 1, 9),
            block(&ps[2], 250, 0, 1, 9),
            block(&ps[3], 60, 60, 1, 9),
            block(&ps[4], 60, 60, 1, 9),
            block(&ps[5], 200, 0, 1, 9),
        ];
        use Reason::*;
        assert_eq!(
            run(&blocks, 9),
            vec![Unique, WithinText, Unique, LinkDense, LinkDense, Unique]
        );
        // On a domain's first page the page alone does not know the text well enough.
        assert_eq!(run(&blocks, 1)[1], LinkDense);
        let off = Rules::default().without("lone_links").unwrap();
        assert_eq!(run_with(&blocks, 9, off)[1], LinkDense);
    }

    #[test]
    fn linked_text_inside_the_main_text_is_kept_at_a_trusted_node() {
        // An API reference's item: article div(7) > p(8) description, h4(9) a signature whose
        // type names are links (`impl Div<f32> for f32`: 40 of 60 characters), td(10) a
        // parameter row (30 of 45), p(11) description; then two related links (li 12, 13, all
        // links) and a "Next: … Up: …" bar (p 14, 50 of 60) after the text.
        let at = |e: u32| [0, 1, 7, e];
        let els: Vec<[u32; 4]> = (8..15).map(at).collect();
        let blocks = [
            block(&els[0], 300, 0, 1, 9),
            block(&els[1], 60, 40, 1, 9),
            block(&els[2], 45, 30, 1, 9),
            block(&els[3], 250, 0, 1, 9),
            block(&els[4], 60, 60, 1, 9),
            block(&els[5], 60, 60, 1, 9),
            block(&els[6], 60, 50, 1, 9),
        ];
        use Reason::*;
        assert_eq!(
            run(&blocks, 9),
            vec![Unique, Unique, Unique, Unique, LinkDense, LinkDense, LinkDense]
        );
        // On a domain's first page, and with the rule off, link density alone decides: the run
        // of two linked blocks is no lone link.
        assert_eq!(run(&blocks, 1)[1..3], [LinkDense, LinkDense]);
        let off = Rules::default().without("linked_text").unwrap();
        assert_eq!(run_with(&blocks, 9, off)[1..3], [LinkDense, LinkDense]);
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
        // Without the index-page rule the links are navigation.
        let off = Rules::default().without("index_pages").unwrap();
        let reasons = run_with(&blocks, 9, off);
        assert!(
            reasons[..4].iter().all(|r| *r == Reason::LinkDense),
            "{reasons:?}"
        );
    }

    #[test]
    fn a_list_page_keeps_its_entries_but_not_the_links_its_markup_marks() {
        // A category page: main(2) > h1(14) its name, ul(3) > li(4..9), each entry a headline
        // link; beside the entries, inside main, a monthly archive (div 10 > li 11..13) the
        // markup marks as a sidebar.
        let heading = [0, 1, 2, 14];
        let entries: Vec<[u32; 5]> = (4..10).map(|li| [0, 1, 2, 3, li]).collect();
        let archive: Vec<[u32; 5]> = (11..14).map(|li| [0, 1, 2, 10, li]).collect();
        let mut blocks: Vec<_> = entries.iter().map(|a| block(a, 60, 60, 1, 1)).collect();
        blocks.extend(archive.iter().map(|a| BlockFacts {
            hint: Hint::Boilerplate,
            ..block(a, 14, 14, 1, 1)
        }));
        blocks.push(block(&heading, 40, 0, 1, 1));
        for support in [9, 1] {
            let reasons = run(&blocks, support);
            assert!(
                reasons[..6].iter().all(|r| *r == Reason::Unique),
                "{reasons:?}"
            );
            assert!(
                reasons[6..9].iter().all(|r| *r == Reason::Marked),
                "{reasons:?}"
            );
        }
        let off = Rules::default().without("markup").unwrap();
        assert!(run_with(&blocks, 9, off)
            .iter()
            .all(|r| *r == Reason::Unique));
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
}
