//! Link density (Kohlschütter et al. 2010; Gottron 2008): a block mostly made of link text is
//! navigation, unless the page's main subtree is itself mostly links (a list page), or nearly all
//! that a trusted node leaves of the page is links (an index page): there the links are the
//! content. At a trusted node, whose counts have removed the site's navigation, a lone link
//! between kept text is a cross-reference inside the text (an API reference links every type it
//! names).

use super::main_text::{within, Main};
use super::Params;
use crate::tree::{BlockFacts, Label, Reason};

/// A block whose link characters exceed this share of its characters is navigation: links are
/// the majority of its text.
pub const LINK_DENSE: f64 = 0.5;

/// Once a trusted node's repeated text is removed, a page whose remaining text is links for more
/// than this share is an index page (a table of contents, a site index) whose links are its
/// content: nine tenths, so that an article with a list of related links never qualifies.
pub const INDEX_LINK_SHARE: f64 = 0.9;

/// True when most of `block`'s text is link text.
pub fn is_link_dense(block: &BlockFacts<'_>, params: &Params) -> bool {
    block.link_chars as f64 > params.link_dense * block.chars as f64
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
        for reason in out.iter_mut() {
            if *reason == Reason::LinkDense {
                *reason = Reason::Unique;
            }
        }
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
    use crate::tree::Reason;

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
